"""Mean-field statistics (the deterministic Boltzmann machine) and the encoder report, against exact answers.

References: exact enumeration, and the order in the couplings of the error
of each approximation (naive mean field misses the connected correlations
at first order; linear response gets them, leaving second order).
"""
import warnings

import numpy as np
import pytest

import bmlib as bm
from conftest import random_model


def scaled_machine(eps, units, seed=20261122):
    """3 visible + 2 hidden units with couplings eps * N(0, 1) and biases N(0, 0.5**2), seed 20261122."""
    gen = np.random.default_rng(seed)
    W, b = random_model(5, gen)
    return bm.BoltzmannMachine(3, 2, W=eps * W, b=0.5 * b, units=units, T=1.0)


def errors(approx, exact):
    """Largest error of (clamped mean, clamped second, free mean, free second)."""
    return np.array([np.abs(a - x).max() for pa, px in zip(approx, exact) for a, x in zip(pa, px)])


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_mean_field_statistics_approach_the_exact_ones_as_couplings_weaken(units):
    """Halving the couplings (0.1 -> 0.05) halves the naive second-moment error and quarters the rest.

    Naive mean field is exact to first order in the couplings for the means,
    but sets every connected correlation <s_i s_j> - m_i m_j, which is first
    order, to zero. Linear response adds it, leaving second-order errors.
    Measured ratios (seed 20261122): 1.8 to 2.0 for naive second moments,
    3.7 to 4.3 for everything else; the bounds allow +-20 %. At 0.05 the
    largest errors were 0.053 (naive) and 0.0052 (linear response), spins.
    """
    data = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 0]])
    data = data if units == "bits" else 2 * data - 1
    err = {}
    for eps in (0.1, 0.05):
        machine = scaled_machine(eps, units)
        exact = bm.exact_statistics(machine, data)
        err[eps, "naive"] = errors(bm.MeanFieldStatistics()(machine, data, rng=0), exact)
        err[eps, "lr"] = errors(bm.MeanFieldStatistics(linear_response=True)(machine, data, rng=0), exact)
    naive, lr = err[0.1, "naive"] / err[0.05, "naive"], err[0.1, "lr"] / err[0.05, "lr"]
    assert np.all((1.6 < naive[[1, 3]]) & (naive[[1, 3]] < 2.4))  # second moments: first order
    assert np.all((3.2 < naive[[0, 2]]) & (naive[[0, 2]] < 4.8))  # means: second order
    assert np.all((3.2 < lr) & (lr < 4.8))
    assert err[0.05, "naive"].max() < 0.08 and err[0.05, "lr"].max() < 0.008


def test_mean_field_is_exact_without_couplings(rng):
    b = rng.normal(size=5)
    machine = bm.BoltzmannMachine(3, 2, W=np.zeros((5, 5)), b=b, units="spins")
    data = np.array([[1, -1, 1], [1, 1, -1]])
    approx = bm.MeanFieldStatistics()(machine, data)
    for (mean, second), (mean_x, second_x) in zip(approx, bm.exact_statistics(machine, data)):
        np.testing.assert_allclose(mean, mean_x, atol=1e-9)
        np.testing.assert_allclose(second, second_x, atol=1e-9)


def test_annealing_the_mean_field_equations_ends_at_the_same_unique_solution():
    machine = scaled_machine(0.3, "spins")
    data = np.array([[1, -1, 1]])
    direct = bm.MeanFieldStatistics(tol=1e-10)(machine, data, rng=0)
    annealed = bm.MeanFieldStatistics(anneal=(8, 4, 2), tol=1e-10)(machine, data, rng=0)
    for (m1, s1), (m2, s2) in zip(direct, annealed):
        np.testing.assert_allclose(m1, m2, atol=1e-8)
        np.testing.assert_allclose(s1, s2, atol=1e-8)


def test_a_machine_without_hidden_units_has_exact_clamped_statistics(rng):
    machine = bm.BoltzmannMachine(4, units="bits", rng=0)
    data = rng.integers(0, 2, size=(5, 4))
    clamped, _ = bm.MeanFieldStatistics()(machine, data)
    (mean_x, second_x), _ = bm.exact_statistics(machine, data)
    np.testing.assert_array_equal(clamped[0], mean_x)
    np.testing.assert_allclose(clamped[1], second_x, atol=1e-15)


def test_inputs_stay_clamped_in_the_free_phase():
    machine = scaled_machine(0.5, "spins")
    data = np.array([[1, -1, 1], [-1, -1, 1]])
    _, (mean_f, second_f) = bm.MeanFieldStatistics(inputs=[0, 2])(machine, data, rng=0)
    np.testing.assert_array_equal(mean_f[[0, 2]], [0.0, 1.0])
    assert second_f[0, 2] == 0.0
    # Each free solution is the clamped solution of that pattern's inputs.
    one = [bm.naive_mean_field(machine.W, machine.b, clamped=[0, 2], values=v[[0, 2]], tol=1e-6, n_starts=1,
                               rng=0).m for v in data]
    np.testing.assert_allclose(mean_f, np.mean(one, axis=0), atol=1e-6)


def test_shapes_and_the_rbm_layout(rng):
    rbm = bm.RBM(3, 2, units="bits", init_scale=0.3, rng=0)
    data = rng.integers(0, 2, size=(4, 3))
    (mean_c, vh_c), (mean_f, vh_f) = bm.MeanFieldStatistics()(rbm, data, rng=0)
    assert mean_c.shape == mean_f.shape == (5,) and vh_c.shape == vh_f.shape == (3, 2)
    # Naive mean field: the free <v_i h_j> is the product of the means.
    np.testing.assert_allclose(vh_f, np.outer(mean_f[:3], mean_f[3:]), atol=1e-12)


def test_the_cost_is_counted_in_single_unit_updates():
    machine = scaled_machine(0.3, "spins")
    data = np.array([[1, 1, 1], [-1, 1, -1]])
    provider = bm.MeanFieldStatistics()
    provider(machine, data, rng=0)
    # The same solutions, one by one from the same stream: sweeps x free units (2 hidden, then all 5).
    gen = np.random.default_rng(0)
    kwargs = {"tol": 1e-6, "max_iter": 1000, "n_starts": 1, "rng": gen}
    sweeps = [bm.naive_mean_field(machine.W, machine.b, clamped=[0, 1, 2], values=v, **kwargs).total_iterations
              for v in data]
    free = bm.naive_mean_field(machine.W, machine.b, **kwargs).total_iterations
    assert provider.n_updates == 2 * sum(sweeps) + 5 * free > 0


def test_training_with_mean_field_statistics_improves_the_exact_likelihood():
    """Bars and stripes 2 x 2, 4 + 2 units in bits, 100 epochs, seeds 0-2: from about -2.85 to above -2.2.

    Measured: gains of 0.89, 0.64 and 0.77 nats per pattern; 0.4 is required.
    """
    data = bm.bars_and_stripes(2, units="bits")
    for seed in range(3):
        machine = bm.BoltzmannMachine(4, 2, units="bits", init_scale=0.5, rng=seed)
        history = bm.train(machine, data, epochs=100, learning_rate=0.5, statistics="mean_field", progress=False,
                           rng=seed)
        assert history.values[-1] > history.values[0] + 0.4


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="anneal must hold at least one temperature factor, each finite and > 0"):
        bm.MeanFieldStatistics(anneal=(2, 0))
    with pytest.raises(TypeError, match="anneal must be None or a sequence of temperature factors"):
        bm.MeanFieldStatistics(anneal=3)
    with pytest.raises(ValueError, match="n_starts must be >= 1"):
        bm.MeanFieldStatistics(n_starts=0)
    with pytest.raises(TypeError, match="linear_response must be True or False"):
        bm.MeanFieldStatistics(linear_response="yes")
    with pytest.raises(ValueError, match=r"inputs \(visible units\) must be indices in 0..2; got 4"):
        bm.MeanFieldStatistics(inputs=[4])(bm.BoltzmannMachine(3, 1, rng=0), [[1, 1, 1]])


# --- the encoder report ---------------------------------------------------------


def hand_made_encoder(units="bits"):
    """A 4-2-4 solution: pattern k uses hidden code k in binary (see the encoder_report example)."""
    codes = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    W = np.zeros((10, 10))
    for group in (range(4), range(4, 8)):
        for k, i in enumerate(group):
            W[i, 8:] = W[8:, i] = 4 * (2 * codes[k] - 1)
            W[i, [j for j in group if j != i]] = -4
    b = np.r_[np.tile(-4 * codes.sum(axis=1) + 2, 2), [0, 0]]
    machine = bm.BoltzmannMachine(8, 2, mask=bm.encoder_mask(4, 2), W=W, b=b, units="bits")
    if units == "spins":
        W_s, b_s, _ = bm.to_spins_parameters(W, b)
        machine = bm.BoltzmannMachine(8, 2, mask=bm.encoder_mask(4, 2), W=W_s, b=b_s, units="spins")
    return machine, codes


@pytest.mark.parametrize("units", ["bits", "spins"])
@pytest.mark.parametrize("method", ["exact", "mean_field"])
def test_encoder_report_of_a_hand_made_solution(units, method):
    machine, codes = hand_made_encoder(units)
    report = bm.encoder_report(machine, method, rng=0)
    expected = codes if units == "bits" else 2 * codes - 1
    np.testing.assert_array_equal(report.codes, expected)
    assert report.distinct and report.perfect and report.completed.all()
    np.testing.assert_array_equal(report.completions[0], bm.encoder_patterns(4, units)[:, 4:])


def test_encoder_report_sees_shared_codes_and_wrong_completions():
    machine, _ = hand_made_encoder()
    # Pattern 3 takes pattern 2's code in group 1: codes stay distinct (group 2 still says 3), but
    # completing from group 1 now hesitates between patterns 2 and 3.
    machine.W[3, 8:] = machine.W[8:, 3] = machine.W[2, 8:]
    machine.b[3] = machine.b[2]
    report = bm.encoder_report(machine)
    assert not report.perfect and not report.completed[0].all()
    # With no weights at all, every pattern gets the same code and nothing is completed.
    blank = bm.encoder_report(bm.BoltzmannMachine(8, 2, mask=bm.encoder_mask(4, 2), init_scale=0.0, units="bits"))
    assert not blank.distinct and not blank.completed.any()


def test_encoder_report_exact_matches_enumeration_of_the_conditional():
    """The completion is the argmax over the 16 states of group 2 of p(v2 | v1), hidden units summed out."""
    gen = np.random.default_rng(4)
    mask = bm.encoder_mask(4, 2)
    W, b = random_model(10, gen, scale=2.0)
    machine = bm.BoltzmannMachine(8, 2, mask=mask, W=W * mask, b=b, units="bits")
    report = bm.encoder_report(machine)
    S = bm.all_states(10, "bits").astype(float)
    logp = -machine.energy(S)
    for k, v in enumerate(bm.encoder_patterns(4, units="bits")):
        rows = np.all(S[:, :4] == v[:4], axis=1)
        v2 = S[rows, 4:8] @ [8, 4, 2, 1]
        totals = [np.logaddexp.reduce(logp[rows][v2 == c]) for c in range(16)]
        best = bm.all_states(4, "bits")[int(np.argmax(totals))]
        np.testing.assert_array_equal(report.completions[0, k], best)
        full = np.all(S[:, :8] == v, axis=1)
        np.testing.assert_array_equal(report.codes[k], S[full][np.argmax(logp[full]), 8:])


def test_encoder_report_refuses_other_machines():
    with pytest.raises(ValueError, match="machine must have two visible groups of n_group >= 2 units"):
        bm.encoder_report(bm.BoltzmannMachine(3, 1, rng=0))
    with pytest.raises(TypeError, match="machine must be a bmlib BoltzmannMachine; got RBM"):
        bm.encoder_report(bm.RBM(8, 2, rng=0, units="bits"))
    with pytest.raises(ValueError, match='method must be one of "exact", "mean_field"'):
        bm.encoder_report(hand_made_encoder()[0], method="sampled")


def test_no_convergence_warning_for_the_default_provider_on_a_trained_encoder():
    """The deterministic machine stays solvable while it learns the 4-2-4 encoder (input -> output, seed 1)."""
    machine = bm.BoltzmannMachine(8, 2, mask=bm.encoder_mask(4, 2, hidden_connected=False), units="bits", T=10.0,
                                  init_scale=1.0, rng=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", bm.ConvergenceWarning)
        bm.train(machine, bm.encoder_patterns(4, units="bits"), epochs=20, learning_rate=2.0, update="sign",
                 statistics=bm.MeanFieldStatistics(inputs=range(4)), monitor=None, progress=False, rng=0)
