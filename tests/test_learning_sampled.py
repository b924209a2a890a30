"""Sampled statistics (sequential dynamics in both phases) against exact enumeration.

Statistical tests name their seed and tolerance: an estimate passes if it is
within 4 standard errors of the exact value. The standard errors come from the
spread between independent chains (free phase) or between independent repeats
(clamped phase), not from golden numbers of one random stream.
"""
import numpy as np
import pytest

import bmlib as bm
from conftest import random_model

Z_TOLERANCE = 4.0  # standard errors; with ~25 entries per test a false alarm has probability < 0.2 %


def machine_with(n_visible, n_hidden, units, T, seed, scale=0.6):
    W, b = random_model(n_visible + n_hidden, np.random.default_rng(seed), scale=scale)
    return bm.BoltzmannMachine(n_visible, n_hidden, W=W, b=b, units=units, T=T)


def data_for(machine, P, seed):
    x = np.random.default_rng(seed).integers(0, 2, size=(P, machine.n_visible))
    return x if machine.units == "bits" else 2 * x - 1


def off_diagonal(n):
    return np.triu_indices(n, 1)


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_free_phase_is_within_a_few_standard_errors_of_exact(units):
    """Seed 3, 400 chains x 50 states: every <s_i> and <s_i s_j> within 4 SE of enumeration."""
    machine = machine_with(5, 0, units, T=0.8, seed=1)
    provider = bm.SampledStatistics(n_chains=400, n_samples=50, burn_in=50)
    _, (mean, second) = provider(machine, data_for(machine, 3, 2), rng=3)
    exact_mean, exact_second = bm.exact_moments(machine.W, machine.b, machine.T, units)
    se_mean, se_second = provider.standard_errors
    assert np.all(np.abs(mean - exact_mean) <= Z_TOLERANCE * se_mean)
    i, j = off_diagonal(5)
    assert np.all(np.abs(second[i, j] - exact_second[i, j]) <= Z_TOLERANCE * se_second[i, j])
    np.testing.assert_array_equal(second, second.T)
    # The standard errors are honest: about 1/sqrt(chains * states) of a unit's spread, not zero.
    assert np.all(se_second[i, j] > 0) and np.all(se_second[i, j] < 0.02)


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_clamped_phase_with_hidden_units_matches_clamped_enumeration(units):
    """Seeds 0..19: the mean of 20 repeats is within 4 SE (spread of the repeats / sqrt(20)) of exact."""
    machine = machine_with(3, 2, units, T=1.2, seed=4)
    batch = data_for(machine, 6, 5)
    exact_mean, exact_second = bm.exact_statistics(machine, batch)[0]
    provider = bm.SampledStatistics(n_chains=2, n_samples=40, burn_in=10)
    runs = [provider(machine, batch, rng=seed)[0] for seed in range(20)]
    for k, exact in enumerate((exact_mean, exact_second)):
        estimates = np.array([run[k] for run in runs])
        se = estimates.std(axis=0, ddof=1) / np.sqrt(len(runs))
        clamped_entries = se == 0  # visible units (and products of two visible units) are exact
        assert np.allclose(estimates.mean(axis=0)[clamped_entries], exact[clamped_entries], atol=1e-12)
        assert np.all(np.abs(estimates.mean(axis=0) - exact) <= Z_TOLERANCE * se + 1e-12)


def test_without_hidden_units_the_clamped_phase_is_the_data_average():
    machine = machine_with(4, 0, "bits", T=1.0, seed=6)
    batch = data_for(machine, 7, 7)
    clamped, _ = bm.SampledStatistics(n_chains=2, n_samples=1, burn_in=0)(machine, batch, rng=0)
    exact_clamped, _ = bm.exact_statistics(machine, batch)
    np.testing.assert_allclose(clamped[0], exact_clamped[0], atol=1e-12)
    np.testing.assert_allclose(clamped[1], exact_clamped[1], atol=1e-12)


def test_persistent_chains_continue_where_they_stopped():
    machine = machine_with(4, 0, "spins", T=1.0, seed=8)
    batch = data_for(machine, 2, 9)
    provider = bm.SampledStatistics(n_chains=5, n_samples=3, burn_in=0, persistent=True)
    assert provider.chains is None
    provider(machine, batch, rng=1)
    start = provider.chains.copy()
    assert start.shape == (5, 4)
    provider(machine, batch, rng=2)
    again = bm.sample(machine.W, machine.b, machine.T, n_samples=3, burn_in=0, initial=start, rng=2)
    np.testing.assert_array_equal(provider.chains, again.final_state)
    # Not persistent: every call starts afresh, so the same seed gives the same answer.
    fresh = bm.SampledStatistics(n_chains=5, n_samples=3, burn_in=0)
    first = fresh(machine, batch, rng=4)[1][1]
    fresh(machine, batch, rng=5)
    np.testing.assert_array_equal(fresh(machine, batch, rng=4)[1][1], first)


def test_training_with_sampled_statistics_comes_close_to_exact_training():
    """Visible-only, 6 units: seed 1, the mean of the last 50 epochs is within 0.01 nats of exact training.

    (Seeds 0-4 all land within 0.001 of the exact -2.3588 per pattern.)
    """
    gen = np.random.default_rng(10)
    W, b = random_model(6, gen, scale=0.5)
    data = bm.BoltzmannMachine(6, W=W, b=b).sample(80, rng=11)
    exact, sampled = bm.BoltzmannMachine(6, rng=0), bm.BoltzmannMachine(6, rng=0)
    settings = dict(epochs=150, learning_rate=0.1, momentum=0.5, progress=False)
    h_exact = bm.train(exact, data, **settings)
    h_sampled = bm.train(sampled, data, statistics="sampled", rng=1, **settings)
    assert isinstance(h_sampled.statistics, bm.SampledStatistics)
    assert h_sampled.values[-1] > h_sampled.values[0] + 0.5  # it learned
    assert h_sampled.values[-50:].mean() == pytest.approx(h_exact.values[-1], abs=0.01)
    assert np.all(h_sampled.values[-50:] <= h_exact.values[-1] + 1e-9)  # nothing beats the ML model


def test_training_with_hidden_units_and_sampled_statistics_learns_parity():
    """3-bit parity, 1 hidden unit, seed 0: above -1.75 per pattern after 300 epochs.

    No machine without hidden units can beat -3 log 2 = -2.079; exact statistics
    reach -1.407 from the same start, and seeds 0-2 of sampled statistics -1.48 to -1.59.
    """
    data = bm.parity_patterns(3, units="spins")
    machine = bm.BoltzmannMachine(3, n_hidden=1, init_scale=0.5, rng=0)
    history = bm.train(machine, data, epochs=300, learning_rate=0.5, momentum=0.5,
                       statistics=bm.SampledStatistics(n_chains=100, n_samples=20), progress=False, rng=0)
    assert history.values[0] < -2.3
    assert history.values[-20:].mean() > -1.75


def test_sampled_statistics_check_their_arguments_and_model():
    assert repr(bm.SampledStatistics()) == (
        "SampledStatistics(n_chains=100, n_samples=20, burn_in=20, thin=1, persistent=False)")
    with pytest.raises(ValueError, match="n_chains must be >= 2"):
        bm.SampledStatistics(n_chains=1)
    with pytest.raises(ValueError, match="n_samples must be >= 1"):
        bm.SampledStatistics(n_samples=0)
    with pytest.raises(TypeError, match="persistent must be True or False"):
        bm.SampledStatistics(persistent="yes")
    with pytest.raises(TypeError, match='SampledStatistics runs sequential dynamics on a BoltzmannMachine; got RBM'):
        bm.train(bm.RBM(3, 2, rng=0, units="bits"), bm.parity_patterns(3, units="bits"), statistics="sampled", progress=False)
    with pytest.raises(ValueError, match="batch must hold spins"):
        bm.SampledStatistics()(bm.BoltzmannMachine(2, rng=0), [[0, 1]], rng=0)


def test_train_calls_a_students_subclass_of_contrastive_divergence():
    # train() takes a shortcut past the per-batch checks for bmlib's own CD and PCD; a subclass
    # that overrides __call__ (say, to log or to change the statistics) must still be called.
    class CountingCD(bm.ContrastiveDivergence):
        calls = 0

        def __call__(self, model, batch, rng=None):
            CountingCD.calls += 1
            return super().__call__(model, batch, rng)

    data = np.where(np.random.default_rng(3).random((20, 6)) < 0.5, 1.0, -1.0)
    rbm = bm.RBM(6, 3, rng=0)
    bm.train(rbm, data, statistics=CountingCD(k=1), epochs=2, batch_size=5, monitor=None, rng=1)
    assert CountingCD.calls == 2 * 4
