"""Parallel tempering (bmlib/sampling/tempering.py) against the exact distribution at every temperature.

Seeds and thinning are named; each replica's states, thinned so they are
nearly independent, must pass Pearson's chi-square test at every temperature
(the test fails, at the lowest temperatures, with the swap rule's sign flipped).
"""
import numpy as np
import pytest

import bmlib as bm


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_every_replica_samples_its_own_temperature_exactly(units):
    W = bm.sk_couplings(8, rng=2)
    b = np.random.default_rng(5).normal(scale=0.3, size=8)
    T = [0.3, 0.5, 0.8, 1.3, 2.0]
    run = bm.parallel_tempering(W, b, temperatures=T, units=units, n_samples=20_000, burn_in=500, rng=11)
    for k, Tk in enumerate(T):
        test = bm.chi_square_test(run.samples[::20, k], bm.boltzmann_distribution(W, b, Tk, units))
        assert test.p_value > 0.001, f"T = {Tk}: p = {test.p_value:.2g}"
    np.testing.assert_allclose(run.energies[-1], bm.energy(run.samples[-1], W, b), atol=1e-10)


def test_mirror_valleys_are_both_visited_where_one_chain_stays():
    W = np.array([[0.0, 4.0], [4.0, 0.0]])
    single = bm.sample(W, T=0.5, n_samples=4000, initial=[1, 1], rng=0)
    assert np.mean(single.samples[:, 0, 0] == 1) > 0.99  # one chain: stuck in ++
    run = bm.parallel_tempering(W, temperatures=[0.5, 1.5, 4.0, 10.0], n_samples=4000, initial=[1, 1], rng=0)
    assert 0.4 < np.mean(run.samples[:, 0, 0] == 1) < 0.6  # exact: 1/2
    assert run.replica_temperature.shape == (4000, 4)
    assert sorted(run.replica_temperature[-1].tolist()) == [0, 1, 2, 3]


def test_bad_input_is_named():
    W = [[0, 1], [1, 0]]
    with pytest.raises(ValueError, match="strictly increasing"):
        bm.parallel_tempering(W, temperatures=[1.0, 1.0])
    with pytest.raises(ValueError, match="at least two"):
        bm.parallel_tempering(W, temperatures=[1.0])
    with pytest.raises(ValueError, match="initial must hold spins"):
        bm.parallel_tempering(W, temperatures=[1.0, 2.0], initial=[0, 1])


def _ladder_run(**kwargs):
    W = bm.sk_couplings(7, rng=4)
    b = np.random.default_rng(4).normal(scale=0.3, size=7)
    return bm.parallel_tempering(W, b, temperatures=[0.4, 0.7, 1.2, 2.0], n_samples=300, burn_in=10, rng=3, **kwargs)


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_replicas_are_swept_by_the_rule_object(monkeypatch, units):
    # The rule of bmlib/sampling/rules.py, instrumented and without its fast dense sweep: every unit of
    # every round goes through its elementwise form, all replicas at once with T the ladder as a column,
    # and the chains are those of the fast sweep.
    from bmlib.sampling.rules import RULES, HeatBath

    plain = _ladder_run(units=units)
    calls = []

    class CountingHeatBath(HeatBath):
        def dense_sweeper(self, W, b, order, units):
            return None

        def update(self, values, fields, T, units, rng):
            calls.append((values.shape, np.asarray(T).ravel().tolist()))
            return super().update(values, fields, T, units, rng)

    monkeypatch.setitem(RULES, "heat_bath", CountingHeatBath())
    spied = _ladder_run(units=units)
    assert len(calls) == 7 * 310  # one call per unit and round (burn-in included)
    assert all(shape == (4, 1) and T == [0.4, 0.7, 1.2, 2.0] for shape, T in calls)
    for name in ("samples", "energies", "swap_acceptance", "replica_temperature"):
        np.testing.assert_array_equal(getattr(spied, name), getattr(plain, name), err_msg=name)


def test_a_replaced_rule_changes_the_result(monkeypatch):
    # A rule that sets every unit high whatever its field: each replica sits in the all-high state, whose
    # energy is recorded, and every exchange is accepted (equal energies: log ratio 0).
    from bmlib.sampling.rules import RULES

    class AlwaysHigh(bm.UpdateRule):
        def update(self, values, fields, T, units, rng):
            return np.ones_like(values)

    monkeypatch.setitem(RULES, "heat_bath", AlwaysHigh())
    run = _ladder_run()
    assert np.all(run.samples == 1)
    W = bm.sk_couplings(7, rng=4)
    b = np.random.default_rng(4).normal(scale=0.3, size=7)
    np.testing.assert_allclose(run.energies, bm.energy(np.ones(7), W, b), rtol=1e-12)
    np.testing.assert_array_equal(run.swap_acceptance, 1.0)
