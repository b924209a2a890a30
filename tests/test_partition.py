"""log Z estimators and the exact RBM log Z, against exact enumeration.

Deterministic estimators (mean field, TAP, Bethe) have a bias, not noise:
their bounds below are theorems where one exists (naive mean field is a
lower bound; Bethe is a lower bound for ferromagnets) and otherwise the
measured error, quoted in a comment, with a margin of about 2. Importance
sampling is random: its tests are statistical, with the seeds named and the
expected coverage stated next to the threshold.
"""
import math
import warnings

import numpy as np
import pytest

import bmlib as bm

DETERMINISTIC = [bm.log_z_mean_field, bm.log_z_tap, bm.log_z_bethe]


def estimates(W, b, T, units="spins"):
    """Errors (estimate - exact) of the three deterministic estimators, and the TAP estimate."""
    exact = bm.log_partition(W, b, T, units)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bm.ApproximationWarning)
        mf, tap, bethe = (f(W, b, T, units, rng=0) for f in DETERMINISTIC)
    return mf.log_z - exact, tap.log_z - exact, bethe.log_z - exact, tap


def random_machine(seed, n=10, scale=0.5):
    rng = np.random.default_rng([7, seed])
    W = np.triu(rng.normal(scale=scale, size=(n, n)), 1)
    return W + W.T, rng.normal(scale=scale, size=n)


# --- deterministic estimators ------------------------------------------------------


@pytest.mark.parametrize("beta", [0.2, 0.3, 0.44, 0.6])
def test_estimators_on_the_4x4_ising_torus(beta):
    """Measured errors (naive, TAP, Bethe): beta 0.2: -0.68, -0.041, -0.045; 0.3: -1.31, -0.26, -0.28;
    0.44: -0.90, -0.81, -0.72; 0.6: -0.72, -0.71, -0.70."""
    W = bm.square_lattice_couplings(4)
    mf, tap, bethe, _ = estimates(W, None, 1 / beta)
    assert -1.5 <= mf <= 1e-9  # a lower bound (theorem), measured >= -1.31
    assert bethe <= 1e-9  # a lower bound for ferromagnets (Ruozzi 2012)
    if beta == 0.2:  # high temperature: both corrections are good, 15x better than naive
        assert abs(tap) <= 0.1 and abs(bethe) <= 0.1
        assert abs(tap) < abs(mf) / 10 and abs(bethe) < abs(mf) / 10
    elif beta == 0.3:  # close to the Bethe critical point atanh(1/3) = 0.347
        assert abs(tap) <= 0.5 and abs(bethe) <= 0.5
    else:
        # Ordered: every method describes one of the two ordered states, and
        # Z holds both. At beta = 0.6 all three miss about log 2 (measured
        # within 0.027 of it).
        assert all(-1.0 <= err <= -0.6 for err in (mf, tap, bethe))
        if beta == 0.6:
            assert all(abs(err + math.log(2)) <= 0.05 for err in (mf, tap, bethe))


@pytest.mark.parametrize("seed", range(4))
def test_estimators_on_sk_instances(seed):
    """SK, n = 16, J = 1 (spin-glass temperature T = 1).

    Measured over the four seeds: T = 2: naive -0.66 to -1.12, |TAP| <= 0.078,
    |Bethe| <= 0.071; T = 1.5: |TAP| <= 0.18, |Bethe| <= 0.16. At T = 0.5 TAP
    leaves its range (Plefka ratio 3.0 to 5.3 measured) and says so.
    """
    W = bm.sk_couplings(16, rng=seed)
    for T, bound in ((2.0, 0.15), (1.5, 0.35)):
        mf, tap, bethe, _ = estimates(W, None, T)
        assert -2.0 <= mf <= 1e-9
        assert abs(tap) <= bound and abs(bethe) <= bound
    with pytest.warns(bm.ApproximationWarning, match="Plefka ratio"):
        low = bm.log_z_tap(W, None, 0.5, rng=0)
    assert low.details["plefka_ratio"] >= 1


@pytest.mark.parametrize(
    "units, T, bound",
    # Measured largest |error| of TAP and Bethe over the four seeds: 0.17, 0.055, 0.014, 0.003.
    [("spins", 2.0, 0.3), ("bits", 0.5, 0.1), ("bits", 1.0, 0.03), ("bits", 2.0, 0.01)],
)
def test_estimators_on_small_random_machines(units, T, bound):
    for seed in range(4):
        W, b = random_machine(seed)
        mf, tap, bethe, tap_result = estimates(W, b, T, units)
        assert mf <= 1e-9
        assert tap_result.details["plefka_ratio"] < 1  # inside TAP's range at these temperatures
        assert abs(tap) <= bound and abs(bethe) <= bound


def test_estimate_objects_report_cost_and_kind():
    W = bm.sk_couplings(10, rng=0)
    mf, tap, bethe = (f(W, None, 2.0, rng=0) for f in DETERMINISTIC)
    assert (mf.method, tap.method, bethe.method) == ("mean_field", "tap", "bethe")
    assert mf.lower_bound and not tap.lower_bound and not bethe.lower_bound
    assert all(e.converged and e.cost > 0 and math.isnan(e.error) for e in (mf, tap, bethe))
    assert (mf.cost_unit, bethe.cost_unit) == ("sweeps", "message updates")
    exact = bm.log_z_bethe(bm.chain_couplings(6, periodic=False), T=0.7, rng=0)  # a tree
    assert exact.log_z == pytest.approx(bm.log_partition(bm.chain_couplings(6, periodic=False), T=0.7), abs=1e-10)


def test_non_convergence_is_reported_by_every_estimator():
    """Strong frustrated SK (J = 2) at T = 0.3 with almost no iterations allowed."""
    W = bm.sk_couplings(16, J=2.0, rng=3)
    exact = bm.log_partition(W, None, 0.3)
    for f, kwargs in (
        (bm.log_z_mean_field, {"scan": "parallel"}),
        (bm.log_z_tap, {}),
        (bm.log_z_bethe, {}),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bm.ApproximationWarning)
            with pytest.warns(bm.ConvergenceWarning, match="did not converge"):
                est = f(W, None, 0.3, max_iter=2, rng=0, **kwargs)
        assert not est.converged and est.details["residual"] > 0
    # A finite number is still returned, flagged: here the Bethe free energy of the unconverged messages.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bm.ConvergenceWarning)
        bethe = bm.belief_propagation(W, None, 0.3, max_iter=2, rng=0)
    assert math.isfinite(est.log_z) and est.log_z == bethe.log_z
    with pytest.warns(bm.ConvergenceWarning, match="still a valid lower bound"):
        mf = bm.log_z_mean_field(W, None, 0.3, max_iter=1, scan="parallel", rng=0)
    assert mf.log_z <= exact + 1e-9  # the naive bound survives non-convergence (theorem)


# --- importance sampling -----------------------------------------------------------


def test_importance_sampling_error_bars_cover_the_truth():
    """SK n = 12, T = 2, mean-field proposal, N = 2000, seeds 0..49.

    The +-2 stderr interval of an asymptotically normal estimate covers the
    truth with probability ~95%; the delta-method error bar is itself
    estimated, so slightly less is fine. Measured: 49 of 50. Threshold: 40
    (a Binomial(50, 0.95) falls below 40 with probability ~1e-4).
    """
    W = bm.sk_couplings(12, rng=5)
    exact = bm.log_partition(W, None, 2.0)
    covered = 0
    for seed in range(50):
        est = bm.log_z_importance(W, None, 2.0, "spins", 2000, rng=seed)
        covered += abs(est.log_z - exact) <= 2 * est.error
        assert est.cost == 2000 and est.cost_unit == "energy evaluations" and 0 < est.details["ess"] <= 2000
    assert covered >= 40


def test_importance_sampling_error_shrinks_like_one_over_sqrt_n():
    """16x more samples: error bars and actual errors 4x smaller (seeds 0..29).

    Measured ratios: 4.0 for the mean error bar, 3.7 for the RMS error. The
    RMS of 30 errors has ~13% relative noise, hence the wide window for it.
    """
    W = bm.sk_couplings(12, rng=5)
    exact = bm.log_partition(W, None, 2.0)
    stderr, rms = {}, {}
    for N in (500, 8000):
        runs = [bm.log_z_importance(W, None, 2.0, "spins", N, rng=seed) for seed in range(30)]
        stderr[N] = np.mean([r.error for r in runs])
        rms[N] = np.sqrt(np.mean([(r.log_z - exact) ** 2 for r in runs]))
    assert 3.3 <= stderr[500] / stderr[8000] <= 4.8
    assert 2.5 <= rms[500] / rms[8000] <= 6.5


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_importance_sampling_with_given_and_uniform_proposals(units):
    W, b = random_machine(1, n=8)
    exact = bm.log_partition(W, b, 2.0, units)
    means = np.full(8, 0.2 if units == "spins" else 0.6)
    uniform = np.full(8, 0.0 if units == "spins" else 0.5)
    for proposal, expected_means in (("uniform", uniform), (means, means)):
        est = bm.log_z_importance(W, b, 2.0, units, 4000, proposal, rng=11)
        # One fixed seed: 4 stderr is exceeded with probability ~6e-5 for a normal estimate.
        assert abs(est.log_z - exact) <= 4 * est.error
        np.testing.assert_allclose(est.details["proposal_means"], expected_means, atol=1e-15)


def test_importance_sampling_with_a_mean_field_proposal_misses_the_other_ordered_state():
    """The failure the chapter shows: 4x4 torus at beta = 0.6, where the mean-field
    proposal sits in one ordered state and never visits the other. The estimate
    is log Z - log 2 with a tiny error bar (measured error -0.70, stderr 0.009)."""
    W = bm.square_lattice_couplings(4)
    est = bm.log_z_importance(W, None, 1 / 0.6, "spins", 4000, rng=0)
    assert abs(est.log_z - bm.log_partition(W, None, 1 / 0.6) + math.log(2)) <= 0.05
    assert est.error <= 0.05


# --- exact RBM log Z -------------------------------------------------------------


def block_couplings(W_vh):
    n_v, n_h = W_vh.shape
    W = np.zeros((n_v + n_h, n_v + n_h))
    W[:n_v, n_v:] = W_vh
    return W + W.T


@pytest.mark.parametrize("units", ["spins", "bits"])
@pytest.mark.parametrize("n_v, n_h", [(9, 4), (4, 9), (6, 6), (1, 1), (13, 1)])
@pytest.mark.parametrize("T", [0.5, 1.0])
def test_rbm_log_partition_matches_the_full_machine(n_v, n_h, T, units):
    rng = np.random.default_rng([n_v, n_h])
    W_vh, b_v, b_h = rng.normal(size=(n_v, n_h)), rng.normal(size=n_v), rng.normal(size=n_h)
    exact = bm.log_partition(block_couplings(W_vh), np.concatenate([b_v, b_h]), T, units)
    # Two exact sums of the same terms in different order: round-off only.
    assert bm.rbm_log_partition(W_vh, b_v, b_h, T, units) == pytest.approx(exact, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_rbm_log_partition_in_many_blocks(units, monkeypatch):
    import bmlib.learning.rbm.exact as rbm_exact

    monkeypatch.setattr(rbm_exact, "_BLOCK_ENTRIES", 16)  # one or two states per block
    rng = np.random.default_rng(3)
    W_vh, b_v, b_h = 2 * rng.normal(size=(10, 5)), rng.normal(size=10), rng.normal(size=5)
    exact = bm.log_partition(block_couplings(W_vh), np.concatenate([b_v, b_h]), 0.3, units)
    assert bm.rbm_log_partition(W_vh, b_v, b_h, 0.3, units) == pytest.approx(exact, rel=1e-12)
    assert bm.rbm_log_partition(W_vh, None, None, 1.0, units) == pytest.approx(
        bm.log_partition(block_couplings(W_vh), None, 1.0, units), rel=1e-12
    )


# --- bad inputs ------------------------------------------------------------------------

W2 = np.array([[0.0, 1.0], [1.0, 0.0]])
ESTIMATORS = [*DETERMINISTIC, bm.log_z_importance, bm.naive_mean_field, bm.tap_mean_field, bm.belief_propagation]


@pytest.mark.parametrize("func", ESTIMATORS)
def test_bad_models_are_refused_at_the_boundary(func):
    with pytest.raises(ValueError, match=r"W must be finite; W\[0, 1\] = nan"):
        func([[0, np.nan], [np.nan, 0]])
    with pytest.raises(ValueError, match=r"W must be a square matrix"):
        func(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"b must have shape \(2,\)"):
        func(W2, [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="T must be finite and > 0"):
        func(W2, None, -1.0)
    with pytest.raises(ValueError, match='units must be "spins" or "bits"'):
        func(W2, None, 1.0, "spin")


@pytest.mark.parametrize("func", [bm.log_z_mean_field, bm.log_z_tap, bm.log_z_bethe, bm.naive_mean_field])
@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"max_iter": 0}, ValueError, "max_iter must be >= 1; got 0"),
        ({"max_iter": -3}, ValueError, "max_iter must be >= 1; got -3"),
        ({"max_iter": 2.5}, TypeError, "max_iter must be an integer"),
        ({"n_starts": 0}, ValueError, "n_starts must be >= 1; got 0"),
        ({"damping": 1.0}, ValueError, r"damping must be in \[0, 1\) .*; got 1.0"),
        ({"damping": -0.1}, ValueError, r"damping must be in \[0, 1\)"),
        ({"damping": np.nan}, ValueError, "damping must be finite"),
        ({"tol": 0.0}, ValueError, "tol must be > 0; got 0.0"),
        ({"tol": np.inf}, ValueError, "tol must be finite"),
    ],
)
def test_bad_iteration_settings(func, kwargs, error, message):
    with pytest.raises(error, match=message):
        func(W2, **kwargs)


def test_bad_mean_field_arguments():
    with pytest.raises(ValueError, match="scan must be one of"):
        bm.naive_mean_field(W2, scan="random")
    with pytest.raises(ValueError, match=r"initial must have shape \(2,\) or \(k, 2\)"):
        bm.naive_mean_field(W2, initial=[0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match=r"initial must lie in \[0, 1\] because units='bits'; initial\[0, 1\] = -0.5"):
        bm.naive_mean_field(W2, units="bits", initial=[0.5, -0.5])
    with pytest.raises(ValueError, match=r"initial must be finite"):
        bm.tap_mean_field(W2, initial=[0.5, np.nan])
    with pytest.raises(ValueError, match="values must be None when clamped is None"):
        bm.naive_mean_field(W2, values=[1])
    with pytest.raises(ValueError, match=r"values must be one pattern of shape \(1,\)"):
        bm.naive_mean_field(W2, clamped=[0], values=[[1], [-1]])
    with pytest.raises(ValueError, match=r"values must hold spins"):
        bm.naive_mean_field(W2, clamped=[0], values=[0.5])
    with pytest.raises(TypeError, match="linear_response must be True or False"):
        bm.naive_mean_field(W2, T=2.0, rng=0).moments(linear_response="yes")


def test_bad_importance_sampling_arguments():
    for n_samples in (0, 1, -5):
        with pytest.raises(ValueError, match=f"n_samples must be >= 2; got {n_samples}"):
            bm.log_z_importance(W2, None, 1.0, "spins", n_samples)
    with pytest.raises(TypeError, match="n_samples must be an integer"):
        bm.log_z_importance(W2, None, 1.0, "spins", 100.0)
    with pytest.raises(ValueError, match="proposal must be one of"):
        bm.log_z_importance(W2, proposal="gibbs")
    with pytest.raises(ValueError, match=r"proposal must have shape \(2,\)"):
        bm.log_z_importance(W2, proposal=np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"proposal means must lie strictly inside .* proposal\[1\] = 1"):
        bm.log_z_importance(W2, proposal=[0.0, 1.0])
    with pytest.raises(ValueError, match=r"proposal must lie in \[-1, 1\]"):
        bm.log_z_importance(W2, proposal=[0.0, 1.5])
    with pytest.raises(TypeError, match="rng must be None"):
        bm.log_z_importance(W2, rng="seed")


def test_bad_rbm_arguments():
    with pytest.raises(ValueError, match=r"W must be a matrix of shape \(n_visible, n_hidden\)"):
        bm.rbm_log_partition(np.ones(3))
    with pytest.raises(ValueError, match=r"W must be a matrix .*; got shape \(3, 0\)"):
        bm.rbm_log_partition(np.ones((3, 0)))
    with pytest.raises(ValueError, match=r"W must be finite; W\[1, 0\] = inf"):
        bm.rbm_log_partition([[0.0], [np.inf]])
    with pytest.raises(ValueError, match=r"b_visible must have shape \(2,\) to match W of shape \(2, 3\); got shape \(3,\)"):
        bm.rbm_log_partition(np.ones((2, 3)), b_visible=np.ones(3))
    with pytest.raises(ValueError, match=r"b_hidden must be finite; b_hidden\[0\] = nan"):
        bm.rbm_log_partition(np.ones((2, 1)), b_hidden=[np.nan])
    with pytest.raises(ValueError, match=r"rbm_log_partition .* n = 31 units exceeds the limit"):
        bm.rbm_log_partition(np.zeros((31, 32)))


def test_an_estimate_prints_in_one_short_line():
    est = bm.log_z_ais(bm.square_lattice_couplings(4), T=2.5, n_runs=50, n_steps=20, rng=0)
    text = repr(est)
    assert "\n" not in text and len(text) < 200 and "array" not in text
    assert text.startswith("LogZEstimate(ais: log_z = ") and "+/-" in text
    assert "+/-" not in repr(bm.log_z_mean_field(bm.square_lattice_couplings(4), T=2.5, rng=0))


def test_estimators_take_the_lattice_object_that_sample_takes():
    lattice = bm.SquareLattice(4, h=0.2)
    W, b = bm.square_lattice_couplings(4), np.full(16, 0.2)
    for estimator, kwargs in ((bm.log_z_mean_field, {}), (bm.log_z_bethe, {}), (bm.log_z_tap, {}),
                              (bm.log_z_importance, {"n_samples": 200}), (bm.log_z_ais, {"n_runs": 5, "n_steps": 5}),
                              (bm.log_z_visited_states, {"n_samples": 20})):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bm.ApproximationWarning)
            assert estimator(lattice, T=2.5, rng=0, **kwargs).log_z == estimator(W, b, 2.5, rng=0, **kwargs).log_z
    with pytest.raises(ValueError, match="b must be None when W is a SquareLattice"):
        bm.log_z_mean_field(lattice, b)
    # The same rule holds for every function that takes a model, the exact ones included.
    assert bm.log_partition(lattice, T=2.5) == bm.log_partition(W, b, 2.5)
    assert bm.compare_log_z(lattice, temperatures=[2.5], budgets=[300], methods=["mean_field"], rng=0).exact[0] \
        == bm.log_partition(W, b, 2.5)


def test_refusals_point_to_what_works_instead():
    with pytest.raises(ValueError, match="sparse_log_partition.*log_z_ais.*kaufman_log_partition"):
        bm.log_partition(bm.sk_couplings(31, rng=0))  # dense: no elimination order helps
    with pytest.raises(ValueError, match=r"at T = 0 .* use anneal"):
        bm.sample(bm.square_lattice_couplings(4), T=0)
