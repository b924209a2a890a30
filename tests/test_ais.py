"""The sampling-based log Z methods against exact enumeration: AIS and the visited-states sum.

Annealed importance sampling is random: its tests are statistical, with the
seeds named and the measured values and the expected behaviour next to each
threshold. The visited-states sum is a sum over a subset of the states: its
tests are exact statements (never above log Z, equal to it once every state
was visited).
"""
import math

import numpy as np
import pytest

import bmlib as bm

TORUS = bm.square_lattice_couplings(4)  # n = 16, critical point of the infinite lattice at beta = 0.4407
SK = bm.sk_couplings(16, rng=3)  # spin-glass temperature T = 1


def errors(W, T, seeds, **kwargs):
    """(error, stderr) of AIS over the seeds, shape (len(seeds), 2)."""
    exact = bm.log_partition(W, None, T)
    runs = [bm.log_z_ais(W, None, T, rng=seed, **kwargs) for seed in seeds]
    return np.array([(r.log_z - exact, r.error) for r in runs])


# --- annealed importance sampling -------------------------------------------------------


@pytest.mark.parametrize("W, T", [(TORUS, 1 / 0.44), (SK, 1.0)], ids=["torus-beta0.44", "sk-T1"])
def test_ais_converges_as_the_number_of_steps_grows(W, T):
    """RMS error over seeds 0..19, 50 runs, uniform base, K = 3, 30, 300 linear steps.

    For large K the variance of the log weights falls like 1/K, so each
    tenfold increase should shrink the error about sqrt(10) ~ 3.2 times.
    Measured RMS errors: torus 0.95, 0.18, 0.042; SK 0.51, 0.086, 0.030
    (ratios 5.3 and 4.3; 5.9 and 2.9). Thresholds: a factor 2 per step (the RMS of 20 errors has ~16%
    relative noise) and 0.1 at K = 300.
    """
    rms = {K: math.sqrt(np.mean(errors(W, T, range(20), n_runs=50, n_steps=K)[:, 0] ** 2)) for K in (3, 30, 300)}
    assert rms[30] < rms[3] / 2
    assert rms[300] < rms[30] / 2
    assert rms[300] <= 0.1


@pytest.mark.parametrize("W, T", [(TORUS, 1 / 0.44), (SK, 1.0)], ids=["torus-beta0.44", "sk-T1"])
def test_ais_error_bars_cover_the_truth(W, T):
    """+-2 stderr covers the exact log Z in >= 32 of 40 seeds (80%).

    100 runs, 100 steps, uniform base, seeds 0..39. For a normal estimate
    with a correct error bar the rate is 95%; the delta-method error bar is
    estimated from the same weights and log-mean-exp is biased low by about
    stderr^2 / 2, so a little less is fine. Measured: 39/40 (torus), 38/40
    (SK). A Binomial(40, 0.95) falls below 32 with probability ~4e-4.
    """
    err = errors(W, T, range(40), n_runs=100, n_steps=100)
    assert np.sum(np.abs(err[:, 0]) <= 2 * err[:, 1]) >= 32


def test_ais_with_one_step_is_importance_sampling_from_the_base():
    """K = 1: no transition, the weights are exp(-E/T) / p_0; same estimate as log_z_importance."""
    W = bm.sk_couplings(10, rng=1)
    exact = bm.log_partition(W, None, 2.0)
    ais = bm.log_z_ais(W, None, 2.0, n_runs=4000, n_steps=1, rng=5)
    assert ais.cost == 0 and ais.details["energy_evaluations"] == 4000
    # One fixed seed: 4 stderr is exceeded with probability ~6e-5 for a normal estimate.
    assert abs(ais.log_z - exact) <= 4 * ais.error
    uniform = bm.log_z_importance(W, None, 2.0, "spins", 4000, "uniform", rng=6)
    assert abs(ais.log_z - uniform.log_z) <= 4 * math.hypot(ais.error, uniform.error)


@pytest.mark.parametrize("units", ["spins", "bits"])
@pytest.mark.parametrize("base", ["uniform", "mean_field", "given"])
def test_ais_with_biases_units_and_bases(units, base):
    rng = np.random.default_rng(4)
    A = np.triu(rng.normal(scale=0.6, size=(10, 10)), 1)
    W, b = A + A.T, rng.normal(scale=0.5, size=10)
    if base == "given":
        base = np.full(10, 0.3 if units == "spins" else 0.6)
    # T = 1.5: one mode. At T = 0.8 (spins) the mean-field base misses a second valley
    # holding ~2% of Z, and the estimate is off by -0.02 with a stderr of 0.003.
    exact = bm.log_partition(W, b, 1.5, units)
    est = bm.log_z_ais(W, b, 1.5, units, n_runs=200, n_steps=200, base=base, rng=2)
    # One fixed seed per case (6 cases): 4 stderr, plus 0.01 for the Jensen bias of log-mean-exp.
    assert abs(est.log_z - exact) <= 4 * est.error + 0.01
    assert est.method == "ais" and est.cost == 200 * 199 and est.cost_unit == "sweeps"
    assert est.details["log_weights"].shape == (200,) and 0 < est.details["ess"] <= 200


def test_ais_schedule_given_as_fractions_equals_the_linear_one():
    fractions = np.linspace(0, 1, 51)
    a = bm.log_z_ais(SK, None, 1.0, n_runs=20, fractions=fractions, rng=9)
    b = bm.log_z_ais(SK, None, 1.0, n_runs=20, n_steps=50, rng=9)
    assert a.log_z == b.log_z and a.error == b.error
    # Repeated fractions (zero steps) add no weight and no energy evaluation, only a sweep.
    c = bm.log_z_ais(SK, None, 1.0, n_runs=20, fractions=[0, 0, 0.5, 1], rng=9)
    assert c.details["energy_evaluations"] == 2 * 20 and c.cost == 2 * 20


def test_ais_from_a_mean_field_base_misses_the_other_ordered_state():
    """The failure the chapter shows: 4x4 torus at beta = 0.6. The mean-field base sits
    in one ordered state and 30 steps never cross to the other: the estimate is
    log Z - log 2 with a small error bar (seeds 0..4 measured within 0.014 of it)."""
    exact = bm.log_partition(TORUS, None, 1 / 0.6)
    for seed in range(3):
        est = bm.log_z_ais(TORUS, None, 1 / 0.6, n_runs=100, n_steps=30, base="mean_field", rng=seed)
        assert abs(est.log_z - exact + math.log(2)) <= 0.05 and est.error <= 0.05


def test_ais_is_reproducible_and_one_run_has_no_error_bar():
    a, b = (bm.log_z_ais(SK, None, 1.0, n_runs=10, n_steps=20, rng=3) for _ in range(2))
    assert a.log_z == b.log_z
    one = bm.log_z_ais(SK, None, 1.0, n_runs=1, n_steps=20, rng=3)
    assert math.isnan(one.error) and one.details["ess"] == 1.0


W2 = np.array([[0.0, 1.0], [1.0, 0.0]])


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"n_runs": 0}, ValueError, "n_runs must be >= 1; got 0"),
        ({"n_runs": 2.0}, TypeError, "n_runs must be an integer"),
        ({"n_steps": 0}, ValueError, "n_steps must be >= 1; got 0"),
        ({"n_steps": -4}, ValueError, "n_steps must be >= 1; got -4"),
        ({"n_steps": 10, "fractions": [0, 1]}, ValueError, "either n_steps .* or fractions .*, not both"),
        ({"fractions": [0.1, 0.5, 1]}, ValueError, r"fractions must start at 0 .*; got fractions\[0\] = 0.1"),
        ({"fractions": [0, 0.5, 0.9]}, ValueError, r"fractions must end at 1 .*; got fractions\[-1\] = 0.9"),
        ({"fractions": [0, 0.6, 0.4, 1]}, ValueError, r"fractions must be non-decreasing; fractions\[2\] = 0.4 < fractions\[1\] = 0.6"),
        ({"fractions": [0, np.nan, 1]}, ValueError, r"fractions must be finite; fractions\[1\] = nan"),
        ({"fractions": [0, np.inf, 1]}, ValueError, r"fractions must be finite"),
        ({"fractions": [1.0]}, ValueError, r"at least 2 numbers"),
        ({"fractions": [[0, 1], [0, 1]]}, ValueError, r"1-D sequence"),
        ({"fractions": ["zero", "one"]}, TypeError, r"fractions must be a 1-D sequence of numbers"),
        ({"base": "gibbs"}, ValueError, r"base must be one of \"mean_field\", \"uniform\""),
        ({"base": [0.0, 1.0]}, ValueError, r"base means must lie strictly inside .* base\[1\] = 1"),
        ({"base": [0.0, 1.5]}, ValueError, r"base must lie in \[-1, 1\]"),
        ({"rng": "seed"}, TypeError, "rng must be None"),
    ],
)
def test_bad_ais_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        bm.log_z_ais(W2, **kwargs)


@pytest.mark.parametrize("func", [bm.log_z_ais, bm.log_z_visited_states])
def test_bad_models_are_refused_at_the_boundary(func):
    with pytest.raises(ValueError, match=r"W must be finite; W\[0, 1\] = nan"):
        func([[0, np.nan], [np.nan, 0]])
    with pytest.raises(ValueError, match=r"W must be symmetric"):
        func([[0, 1], [0.5, 0]])
    with pytest.raises(ValueError, match=r"b must have shape \(2,\)"):
        func(W2, [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="T must be finite and > 0"):
        func(W2, None, 0.0)
    with pytest.raises(ValueError, match='units must be "spins" or "bits"'):
        func(W2, None, 1.0, "spin")


# --- the visited-states sum ---------------------------------------------------------------


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_visited_states_never_exceed_log_z(units):
    """A sum over a subset of the 2**n positive terms of Z: a lower bound on every run (theorem)."""
    for seed in range(4):
        rng = np.random.default_rng([11, seed])
        A = np.triu(rng.normal(size=(12, 12)), 1)
        W, b = A + A.T, rng.normal(size=12)
        for T in (0.5, 1.0, 3.0):
            exact = bm.log_partition(W, b, T, units)
            for n_samples in (1, 50, 1000):
                est = bm.log_z_visited_states(W, b, T, units, n_samples=n_samples, n_chains=2, rng=seed)
                assert est.log_z <= exact + 1e-12
                assert est.lower_bound and math.isnan(est.error)
                assert 1 <= est.details["n_distinct"] <= min(2 * n_samples, 2**12)


def test_visited_states_sum_is_exact_once_every_state_was_visited():
    W = bm.sk_couplings(4, rng=2)
    for units in ("spins", "bits"):
        est = bm.log_z_visited_states(W, None, 2.0, units, n_samples=500, rng=0)
        assert est.details["all_visited"] and est.details["fraction_visited"] == 1.0
        assert est.log_z == pytest.approx(bm.log_partition(W, None, 2.0, units), abs=1e-12)


def test_visited_states_miss_mass_at_high_and_at_low_temperature():
    """What the chapter measures on the 4x4 torus with 1000 sweeps (seeds 0..2).

    beta = 0.2: the chain visits ~950 distinct states of 65536, each of small
    probability; they hold e^-2.5 of Z (measured error -2.53 to -2.55).
    beta = 1: the chain stays in one of the two ordered states and never sees
    its mirror image, which holds half of Z (measured error -0.70 to -0.69).
    """
    exact = bm.log_partition(TORUS, None, 5.0)
    est = bm.log_z_visited_states(TORUS, None, 5.0, n_samples=1000, rng=0)
    assert 900 <= est.details["n_distinct"] <= 1000 and est.details["fraction_visited"] < 0.02
    assert est.log_z - exact < -2.0
    assert est.cost == 1000 and est.cost_unit == "sweeps" and est.method == "visited_states"
    exact = bm.log_partition(TORUS, None, 1.0)
    est = bm.log_z_visited_states(TORUS, None, 1.0, n_samples=1000, rng=0)
    assert abs(est.log_z - exact + math.log(2)) < 0.05
    more = bm.log_z_visited_states(TORUS, None, 5.0, n_samples=1000, n_chains=8, burn_in=10, rng=0)
    assert more.cost == 8 * 1010 and more.details["n_distinct"] > 1000


def test_bad_visited_states_arguments():
    with pytest.raises(ValueError, match="n_samples must be >= 1; got 0"):
        bm.log_z_visited_states(W2, n_samples=0)
    with pytest.raises(ValueError, match="n_chains must be >= 1; got 0"):
        bm.log_z_visited_states(W2, n_chains=0)
    with pytest.raises(ValueError, match="burn_in must be >= 0; got -1"):
        bm.log_z_visited_states(W2, burn_in=-1)
    with pytest.raises(ValueError, match="thin must be >= 1; got 0"):
        bm.log_z_visited_states(W2, thin=0)
    with pytest.raises(ValueError, match=r"initial must hold spins"):
        bm.log_z_visited_states(W2, initial=[0, 1])


@pytest.mark.parametrize("scan", ["sequential", "random", "colouring"])
@pytest.mark.parametrize("units", ["spins", "bits"])
def test_ais_steps_through_the_kernel_are_the_public_samplers_steps(scan, units):
    # log_z_ais checks once and sweeps each step's model through the chain kernel; the same loop
    # written with the public bm.sample (which checks everything at every step) must give the
    # same log weights to the last bit: the same random numbers and decisions.
    from bmlib.partition.sampled import _proposal, _schedule

    n, n_runs, n_steps, T = 8, 30, 25, 0.8
    W = bm.sk_couplings(n, rng=5)
    b = np.random.default_rng(6).normal(scale=0.5, size=n)
    low, high = (-1, 1) if units == "spins" else (0, 1)
    gen = np.random.default_rng(7)
    fractions = _schedule(n_steps, None)
    p_high, _ = _proposal(W, b, T, units, "uniform", gen, name="base")
    a = (np.log(p_high) - np.log1p(-p_high)) / (high - low)
    S = np.where(gen.random((n_runs, n)) < p_high, high, low).astype(np.int8)
    logw = np.zeros(n_runs)
    steps = np.diff(fractions)
    for k, step in enumerate(steps.tolist(), start=1):
        X = S.astype(float)
        logw += step * ((0.5 * np.sum((X @ W) * X, axis=1) + X @ b) / T - X @ a)
        if k < steps.size:
            beta = float(fractions[k])
            S = bm.sample(beta * W, beta * b + (1.0 - beta) * T * a, T, units, n_samples=1, burn_in=0, scan=scan,
                          initial=S, rng=gen).final_state
    result = bm.log_z_ais(W, b, T, units, n_runs=n_runs, n_steps=n_steps, scan=scan, rng=7)
    np.testing.assert_array_equal(result.details["log_weights"], logw + float(np.logaddexp(a * high, a * low).sum()))


@pytest.mark.parametrize("which", ["log_z_ais", "log_z_rbm_ais"])
def test_both_ais_run_the_one_annealing_loop_and_weight_summary(monkeypatch, which):
    # bmlib/_importance.py holds the AIS loop and the log-mean-exp / error / ESS of the weights once. Replace
    # the loop by one that returns the log weights [0, log 3]: each estimator must hand it its schedule and
    # report log Z_0 + log mean(1, 3), the delta-method error and the ESS (1 + 3)^2 / (1 + 9) of those weights.
    import bmlib.partition.sampled
    import bmlib.learning.rbm.ais

    module = bmlib.partition.sampled if which == "log_z_ais" else bmlib.learning.rbm.ais
    seen = []

    def fixed_weights(fractions, state, log_ratio, move, progress=False):
        seen.append((fractions.copy(), state.shape))
        return np.array([0.0, np.log(3.0)]), 2

    monkeypatch.setattr(module, "annealed_log_weights", fixed_weights)
    if which == "log_z_ais":
        est = bm.log_z_ais(SK[:5, :5], None, 1.0, n_runs=2, fractions=[0, 0.25, 1], rng=0)
        n_units = 5
    else:
        est = bm.log_z_rbm_ais(np.ones((3, 2)), n_runs=2, fractions=[0, 0.25, 1], rng=0)
        n_units = 5  # 3 visible + 2 hidden, every one free in the uniform base: log Z_0 = 5 log 2
    assert len(seen) == 1
    np.testing.assert_array_equal(seen[0][0], [0, 0.25, 1])
    assert seen[0][1][0] == 2
    assert est.log_z == pytest.approx(n_units * np.log(2.0) + np.log(2.0), abs=1e-12)
    assert est.error == pytest.approx(np.std([1.0, 3.0], ddof=1) / (np.sqrt(2) * 2.0), abs=1e-12)
    assert est.details["ess"] == pytest.approx(1.6, abs=1e-12)
