"""The annealed two-phase procedure (Ackley, Hinton & Sejnowski 1985) and the sign update, against exact answers.

References: exact enumeration of the clamped and free statistics, the exact
log-likelihood, and the documented update and cost formulas.
"""
import numpy as np
import pytest

import bmlib as bm
from conftest import random_model


def weak_machine(units, rng):
    """3 visible + 2 hidden units, couplings and biases N(0, 0.3**2): every chain mixes in a few sweeps."""
    W, b = random_model(5, rng, scale=0.3)
    return bm.BoltzmannMachine(3, 2, W=W, b=b, units=units, T=1.0)


def random_data(P, n, units, rng):
    x = rng.integers(0, 2, size=(P, n))
    return x if units == "bits" else 2 * x - 1


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_annealed_statistics_approach_the_exact_ones_at_weak_couplings(units, rng):
    """2000 chains per phase, 20 collection sweeps each, seed 3: every entry within 6 standard errors.

    With independent samples the standard error of an average of values in
    [low, high] is at most (high - low) / 2 / sqrt(N), N = chains x sweeps =
    40 000 (0.005 for spins, 0.0025 for bits). At these couplings successive
    sweeps are nearly independent; the largest error over seeds 0-9 was 0.017
    (spins) and 0.010 (bits), under the 0.030 and 0.015 allowed here.
    """
    machine = weak_machine(units, rng)
    data = random_data(4, 3, units, rng)
    provider = bm.AnnealedStatistics(chains_per_pattern=500, n_collect=20)
    tol = 6 * (1.0 if units == "spins" else 0.5) / np.sqrt(4 * 500 * 20)
    sampled = provider(machine, data, rng=3)
    exact = bm.exact_statistics(machine, data)
    for (mean, second), (mean_x, second_x) in zip(sampled, exact):
        np.testing.assert_allclose(mean, mean_x, atol=tol)
        np.testing.assert_allclose(second, second_x, atol=tol)


def test_clamped_phase_holds_the_patterns_and_free_phase_is_averaged_over_chains(rng):
    machine = weak_machine("bits", rng)
    data = np.array([[1, 0, 1], [1, 1, 0]])
    (mean_c, second_c), (mean_f, second_f) = bm.AnnealedStatistics()(machine, data, rng=1)
    np.testing.assert_array_equal(mean_c[:3], data.mean(axis=0))  # exact: the visible units never move
    np.testing.assert_array_equal(second_c[:3, :3], data.T @ data / 2)
    # Bits: the diagonal of the second moments is the mean, and both are multiples of 1 / (samples).
    np.testing.assert_array_equal(np.diag(second_f), mean_f)
    samples = 2 * 2 * 10  # chains_per_pattern x patterns x n_collect
    np.testing.assert_allclose(mean_f * samples, np.round(mean_f * samples), atol=1e-9)


def test_noisy_clamping_flips_units_with_the_given_probabilities():
    machine = bm.BoltzmannMachine(8, 2, mask=bm.encoder_mask(4, 2), units="bits", T=10.0, init_scale=0.0)
    data = bm.encoder_patterns(4, units="bits")
    (mean_c, _), _ = bm.AnnealedStatistics(noise=(1.0, 1.0))(machine, data, rng=0)
    np.testing.assert_array_equal(mean_c[:8], 0.75)  # every unit flipped: 3 of 4 patterns have it on
    (mean_c, _), _ = bm.AnnealedStatistics(noise=(0.0, 0.0))(machine, data, rng=0)
    np.testing.assert_array_equal(mean_c[:8], 0.25)
    # The paper's noise, 4000 chains per pattern, seed 0: <x_i> = 0.25 * 0.85 + 0.75 * 0.05 = 0.25,
    # with a standard error of sqrt(0.25 * 0.75 / 16000) = 0.0034.
    provider = bm.AnnealedStatistics(noise=bm.learning.annealed.PAPER_NOISE, chains_per_pattern=4000, n_collect=1,
                                     schedule=[(1.0, 1)], n_free_chains=1)
    (mean_c, _), _ = provider(machine, data, rng=0)
    np.testing.assert_allclose(mean_c[:8], 0.25, atol=5 * 0.0034)


def test_a_machine_without_hidden_units_has_exact_clamped_statistics(rng):
    machine = bm.BoltzmannMachine(4, units="spins", rng=0)
    data = random_data(5, 4, "spins", rng)
    clamped, _ = bm.AnnealedStatistics()(machine, data, rng=0)
    (mean_x, second_x), _ = bm.exact_statistics(machine, data)
    np.testing.assert_array_equal(clamped[0], mean_x)
    np.testing.assert_allclose(clamped[1], second_x, atol=1e-15)


def test_inputs_stay_clamped_in_the_free_phase(rng):
    machine = weak_machine("spins", rng)
    data = np.array([[1, -1, 1], [-1, -1, 1]])
    _, (mean_f, second_f) = bm.AnnealedStatistics(inputs=[0, 2])(machine, data, rng=0)
    np.testing.assert_array_equal(mean_f[[0, 2]], [0.0, 1.0])
    assert second_f[0, 2] == 0.0  # s_0 s_2 = +1 in one pattern, -1 in the other
    assert -1 < mean_f[1] < 1  # unit 1 is free


def test_shapes_follow_the_model_and_the_rbm_layout_is_cut_from_the_full_machine(rng):
    rbm = bm.RBM(3, 2, units="bits", init_scale=0.3, rng=0)
    data = random_data(4, 3, "bits", rng)
    (mean_c, vh_c), (mean_f, vh_f) = bm.AnnealedStatistics()(rbm, data, rng=5)
    assert mean_c.shape == mean_f.shape == (5,) and vh_c.shape == vh_f.shape == (3, 2)
    full = bm.AnnealedStatistics()(rbm.to_boltzmann_machine(), data, rng=5)
    np.testing.assert_array_equal(vh_f, full[1][1][:3, 3:])  # same stream, same chains
    history = bm.train(rbm, data, epochs=2, statistics="annealed", progress=False, rng=0)
    assert isinstance(history.statistics, bm.AnnealedStatistics)


def test_the_same_seed_gives_the_same_statistics(rng):
    machine = weak_machine("spins", rng)
    data = random_data(3, 3, "spins", rng)
    a = bm.AnnealedStatistics()(machine, data, rng=9)
    b = bm.AnnealedStatistics()(machine, data, rng=9)
    c = bm.AnnealedStatistics()(machine, data, rng=10)
    np.testing.assert_array_equal(a[1][1], b[1][1])
    assert not np.array_equal(a[1][1], c[1][1])


def test_the_cost_is_counted_in_single_unit_updates():
    machine = bm.BoltzmannMachine(8, 2, mask=bm.encoder_mask(4, 2), units="bits", T=10.0, rng=0)
    provider = bm.AnnealedStatistics()
    provider(machine, bm.encoder_patterns(4, units="bits"), rng=0)
    sweeps = 2 + 2 + 2 + 4 + 10  # the paper's schedule, then the collection
    chains = 4 * 2  # patterns x chains_per_pattern, in each phase
    assert provider.n_updates == chains * sweeps * 2 + chains * sweeps * 10  # hidden only; then all units


def test_training_with_annealed_statistics_follows_exact_training():
    """Bars and stripes 2 x 2 (6 patterns, best -log 6 = -1.79), 4 + 2 units in bits, 100 epochs, seeds 0 and 1.

    Exact training goes from about -2.85 to -2.20 nats per pattern; the
    annealed provider with its defaults ended within 0.02 of it for seeds
    0-2; 0.05 is allowed.
    """
    data = bm.bars_and_stripes(2, units="bits")
    for seed in range(2):
        exact, annealed = (bm.BoltzmannMachine(4, 2, units="bits", init_scale=0.5, rng=seed) for _ in range(2))
        h_exact = bm.train(exact, data, epochs=100, learning_rate=0.5, progress=False)
        h = bm.train(annealed, data, epochs=100, learning_rate=0.5, statistics="annealed", progress=False, rng=seed)
        assert h.values[-1] > h.values[0] + 0.5
        assert h.values[-1] == pytest.approx(h_exact.values[-1], abs=0.05)


# --- the 1985 update: a fixed step in the sign of p+ - p- ----------------------


def test_sign_update_is_a_fixed_step_in_the_sign_of_the_gradient(rng):
    mask = bm.encoder_mask(2, 1, hidden_connected=False)
    W, b = random_model(5, rng)
    machine = bm.BoltzmannMachine(4, 1, mask=mask, W=W * mask, b=b, units="bits", T=2.0)
    data = random_data(3, 4, "bits", rng)
    dW, db = machine.gradient(data)
    expected_W, expected_b = machine.W + 2.0 * np.sign(dW), machine.b + 2.0 * np.sign(db)
    bm.train(machine, data, epochs=1, learning_rate=2.0, update="sign", progress=False)
    np.testing.assert_array_equal(machine.W, expected_W)
    np.testing.assert_array_equal(machine.b, expected_b)
    assert np.all(machine.W[~mask] == 0)  # sign(0) = 0: unconnected pairs never move


def test_annealed_sign_training_keeps_the_mask_and_symmetry():
    mask = bm.encoder_mask(4, 2, hidden_connected=False)
    machine = bm.BoltzmannMachine(8, 2, mask=mask, units="bits", T=10.0, init_scale=0.0)
    provider = bm.AnnealedStatistics(noise=bm.learning.annealed.PAPER_NOISE)
    bm.train(machine, bm.encoder_patterns(4, units="bits"), epochs=5, learning_rate=2.0, update="sign", statistics=provider,
             monitor=None, progress=False, rng=0)
    assert np.all(machine.W[~mask] == 0)
    np.testing.assert_array_equal(machine.W, machine.W.T)
    assert np.all(np.abs(machine.W[mask]) <= 10) and np.any(machine.W != 0)  # 5 steps of 2 at most


# --- names and bad input --------------------------------------------------------


def test_named_providers_resolve_to_the_classes():
    machine = bm.BoltzmannMachine(3, 1, rng=0)
    data = bm.parity_patterns(3, "spins")
    assert isinstance(bm.train(machine, data, epochs=0, statistics="annealed", progress=False).statistics,
                      bm.AnnealedStatistics)
    assert isinstance(bm.train(machine, data, epochs=0, statistics="mean_field", progress=False).statistics,
                      bm.MeanFieldStatistics)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"schedule": []}, ValueError, "schedule must hold at least one"),
        ({"n_collect": 0}, ValueError, "n_collect must be >= 1; got 0"),
        ({"chains_per_pattern": 1.5}, TypeError, "chains_per_pattern must be an integer"),
        ({"noise": 0.1}, ValueError, r"noise must be a pair \(p_high_to_low, p_low_to_high\) or None"),
        ({"noise": (0.1, 1.5)}, ValueError, r"noise\[1\] must be a probability in \[0, 1\]; got 1.5"),
        ({"scan": "colourful"}, ValueError, 'scan must be one of "random", "sequential", "colouring"'),
        ({"inputs": [0, 0]}, ValueError, r"inputs must not repeat; got \[0, 0\]"),
        ({"inputs": [0], "n_free_chains": 3}, ValueError, "n_free_chains must be None when inputs are given"),
    ],
)
def test_bad_provider_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        bm.AnnealedStatistics(**kwargs)


def test_bad_calls_are_named():
    machine = bm.BoltzmannMachine(3, 1, rng=0)
    with pytest.raises(ValueError, match=r"inputs \(visible units\) must be indices in 0..2; got 3"):
        bm.AnnealedStatistics(inputs=[3])(machine, [[1, 1, 1]])
    with pytest.raises(TypeError, match="AnnealedStatistics needs a bmlib BoltzmannMachine or RBM; got str"):
        bm.AnnealedStatistics()("machine", [[1, 1, 1]])
    with pytest.raises(ValueError, match='update must be one of "gradient", "sign"; got \'manhattan\''):
        bm.train(machine, [[1, 1, 1]], update="manhattan", progress=False)
