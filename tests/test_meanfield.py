"""Naive mean field, TAP and belief propagation against exact enumeration and closed forms.

Every tolerance is written next to its assertion with where it comes from:
an exact identity (round-off level), a theorem (a bound, exactness on
trees), or a measured error of a deterministic approximation with a margin
(these are deterministic numbers, not random ones: the margin only guards
against harmless changes such as the order of floating-point sums).
"""
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bmlib as bm
from conftest import random_model


def curie_weiss_log_partition(n, J, h, T):
    """Exact log Z of the Curie-Weiss model, W_ij = J / n (i != j), b_i = h, any n.

    The energy depends on the state only through M = sum_i s_i:
    sum_{i<j} s_i s_j = (M^2 - n) / 2, so E = -J (M^2 - n) / (2 n) - h M, and
    the C(n, k) states with k spins up share M = 2k - n.
    """
    terms = [
        math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
        + (J * ((2 * k - n) ** 2 - n) / (2 * n) + h * (2 * k - n)) / T
        for k in range(n + 1)
    ]
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms))


def random_tree(n, rng, scale=1.5):
    """Couplings on a random tree: unit k > 0 attaches to a random earlier unit."""
    W = np.zeros((n, n))
    for k in range(1, n):
        parent = rng.integers(k)
        W[k, parent] = W[parent, k] = rng.normal(scale=scale)
    return W


# --- naive mean field: the Gibbs-Bogoliubov bound --------------------------------


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 12),
    seed=st.integers(0, 2**32 - 1),
    T=st.sampled_from([0.25, 0.5, 1.0, 2.0, 5.0]),
    scale=st.sampled_from([0.3, 1.0, 2.0]),
    units=st.sampled_from(["spins", "bits"]),
)
def test_naive_mean_field_never_exceeds_exact_log_z(n, seed, T, scale, units):
    W, b = random_model(n, np.random.default_rng(seed), scale)
    exact = bm.log_partition(W, b, T, units)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bm.ConvergenceWarning)  # the bound holds converged or not
        res = bm.naive_mean_field(W, b, T, units, rng=seed)
    # A theorem (Gibbs-Bogoliubov); 1e-9 absorbs round-off in sums of up to 2**12 terms.
    assert res.log_z <= exact + 1e-9


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_bound_holds_even_without_convergence(units, rng):
    W, b = random_model(12, rng, scale=1.5)
    with pytest.warns(bm.ConvergenceWarning, match="naive mean field did not converge.*still a valid lower bound"):
        res = bm.naive_mean_field(W, b, 0.5, units, max_iter=1, tol=1e-14, scan="parallel", rng=1)
    assert not res.converged and res.iterations == 1 and res.residual > 1e-14
    assert res.log_z <= bm.log_partition(W, b, 0.5, units) + 1e-9  # a theorem at every m


@pytest.mark.parametrize("units", ["spins", "bits"])
@pytest.mark.parametrize("schedule, damping", [("sequential", 0.0), ("parallel", 0.5), ("sequential", 0.3)])
def test_solutions_satisfy_the_equations_in_their_own_units(units, schedule, damping, rng):
    """Checked natively in bits, which tests the spins <-> bits conversion too."""
    W, b = random_model(9, rng, scale=0.5)
    T = 2.0  # inside TAP's range here (Plefka ratio 0.54)
    naive = bm.naive_mean_field(W, b, T, units, scan=schedule, damping=damping, tol=1e-12, rng=0)
    tap = bm.tap_mean_field(W, b, T, units, scan=schedule, damping=damping, tol=1e-12, rng=0)
    assert naive.converged and tap.converged
    m, mt = naive.m, tap.m
    if units == "spins":
        naive_rhs = np.tanh((W @ m + b) / T)
        tap_rhs = np.tanh((W @ mt + b) / T - mt * ((W**2) @ (1 - mt**2)) / T**2)
    else:
        # Bits: <x_i> = sigmoid(beta h_i - beta^2 (<x_i> - 1/2) sum_j W_ij^2 <x_j>(1 - <x_j>)).
        naive_rhs = 1 / (1 + np.exp(-(W @ m + b) / T))
        tap_rhs = 1 / (1 + np.exp(-(W @ mt + b) / T + (mt - 0.5) * ((W**2) @ (mt * (1 - mt))) / T**2))
    # Residual tolerance 1e-12 on the spin means; the slope of the map is O(1), hence 1e-10.
    np.testing.assert_allclose(m, naive_rhs, atol=1e-10)
    np.testing.assert_allclose(mt, tap_rhs, atol=1e-10)


def test_the_two_units_give_the_same_bound(rng):
    """Bits and spins describe the same model, and product distributions are the same family."""
    W, b = random_model(8, rng)
    Wx, bx, offset = bm.to_bits_parameters(W, b)
    s = bm.naive_mean_field(W, b, 0.8, "spins", rng=0)
    x = bm.naive_mean_field(Wx, bx, 0.8, "bits", rng=0)
    assert s.log_z == pytest.approx(x.log_z - offset / 0.8, abs=1e-9)  # same optimum, round-off only
    np.testing.assert_allclose(x.m, (1 + s.m) / 2, atol=1e-9)


@pytest.mark.parametrize("beta_J, h", [(0.5, 0.0), (0.5, 0.1), (1.0, 0.0), (1.0, 0.1), (2.0, 0.0), (2.0, 0.1)])
def test_curie_weiss_mean_field_is_exact_per_spin_as_n_grows(beta_J, h):
    """Mean field becomes exact for all-to-all couplings J / n.

    Away from the critical point log Z - Phi_MF stays O(1) (Gaussian
    fluctuations, plus log 2 for the second ordered state at h = 0), so the
    error per spin is O(1/n); at beta J = 1, h = 0 it grows like (1/4) log n,
    so the error per spin is O(log n / n). Measured: err * n / log n <= 0.35
    for all cases here (largest at n = 8, beta J = 2, h = 0); asserted <= 0.5.
    """
    T, errors = 1.0 / beta_J, []
    for n in (8, 32, 128, 256):
        W = np.full((n, n), 1.0 / n)
        np.fill_diagonal(W, 0.0)
        res = bm.naive_mean_field(W, np.full(n, h), T, scan="parallel", n_starts=3, tol=1e-9, max_iter=50_000, rng=0)
        err = (curie_weiss_log_partition(n, 1.0, h, T) - res.log_z) / n
        assert res.converged
        assert -1e-12 <= err <= 0.5 * math.log(n) / n  # a bound, and the O(log n / n) rate
        errors.append(err)
    assert all(a > b for a, b in zip(errors, errors[1:]))  # strictly decreasing with n


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_clamped_mean_field_bounds_the_clamped_log_z(units, rng):
    W, b = random_model(8, rng, scale=0.7)
    values = [1, 0] if units == "bits" else [1, -1]
    for method in (bm.naive_mean_field, bm.tap_mean_field):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bm.ApproximationWarning)
            res = method(W, b, 1.0, units, clamped=[2, 5], values=values, rng=0)
        np.testing.assert_array_equal(res.m[[2, 5]], values)  # clamped units keep their values
        assert res.converged
    naive = bm.naive_mean_field(W, b, 1.0, units, clamped=[2, 5], values=values, rng=0)
    assert naive.log_z <= bm.clamped_log_partition(W, b, 1.0, units, clamped=[2, 5], values=values) + 1e-9  # a theorem
    mean, second = naive.moments(linear_response=True)
    assert second[2, 5] == values[0] * values[1] and second[5, 3] == pytest.approx(values[1] * mean[3], abs=1e-12)


# --- TAP ------------------------------------------------------------------------


def test_tap_at_high_temperature_is_the_second_order_expansion():
    """At b = 0 and m = 0, TAP is n log 2 + beta^2/2 sum_{i<j} W_ij^2, the exact expansion to beta^2."""
    W = bm.sk_couplings(12, rng=4)
    T = 3.0
    res = bm.tap_mean_field(W, None, T, rng=0)
    np.testing.assert_allclose(res.m, 0.0, atol=1e-9)
    assert res.log_z == pytest.approx(12 * math.log(2) + 0.25 * (W**2).sum() / T**2, abs=1e-12)
    # The remaining error is O(beta^3) = O(0.04) here; measured 0.009, asserted <= 0.03.
    assert abs(res.log_z - bm.log_partition(W, None, T)) <= 0.03


def test_tap_reports_when_it_is_outside_its_range():
    """SK at T = 0.5 (well below the spin-glass temperature T = 1): Plefka ratio 3.7 measured."""
    W = bm.sk_couplings(16, rng=0)
    with pytest.warns(bm.ApproximationWarning, match=r"Plefka ratio .* >= 1"):
        res = bm.tap_mean_field(W, None, 0.5, rng=0)
    assert res.plefka_ratio >= 1
    assert np.isnan(bm.naive_mean_field(W, None, 0.5, rng=0).plefka_ratio)


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_linear_response_correlations_beat_independent_units(units):
    """SK n = 12 with fields, T = 3 (weakly coupled): exact <s_i s_j> vs three estimates.

    Measured largest off-diagonal errors (spins): independent 0.23, naive
    linear response 0.061, TAP linear response 0.0075; bits (the same W is a
    4x weaker model there) 0.014, 0.0006, 0.00004.
    """
    W = bm.sk_couplings(12, rng=5)
    b = np.random.default_rng(1).normal(scale=0.3, size=12)
    T = 3.0
    _, exact = bm.exact_moments(W, b, T, units)
    off = ~np.eye(12, dtype=bool)

    def error(res, lr):
        mean, second = res.moments(linear_response=lr)
        diag = np.ones(12) if units == "spins" else mean
        np.testing.assert_allclose(np.diag(second), diag)  # the diagonal is exact by construction
        np.testing.assert_allclose(second, second.T, atol=1e-12)
        return np.abs(second - exact)[off].max()

    naive, tap = bm.naive_mean_field(W, b, T, units, rng=0), bm.tap_mean_field(W, b, T, units, rng=0)
    independent = error(naive, False)
    assert error(naive, True) < independent / 3
    assert error(tap, True) < independent / 10


# --- belief propagation -------------------------------------------------------


@pytest.mark.parametrize("units", ["spins", "bits"])
@pytest.mark.parametrize("T", [0.3, 1.0, 3.0])
@pytest.mark.parametrize("graph", ["chain", "tree"])
def test_bethe_is_exact_on_trees(graph, T, units, rng):
    n = 12
    if graph == "chain":
        W = bm.chain_couplings(n, periodic=False) * rng.normal(scale=1.5, size=(n, n))
        W = np.triu(W, 1) + np.triu(W, 1).T  # random couplings on the chain's bonds
    else:
        W = random_tree(n, rng)
    b = rng.normal(size=n)
    res = bm.belief_propagation(W, b, T, units, rng=0)
    assert res.converged
    mean, second = bm.exact_moments(W, b, T, units)
    bp_mean, bp_second = res.moments()
    i, j = res.edges.T
    # Exact on a tree; BP stops at message changes <= 1e-12, measured errors <= 5e-13.
    assert res.log_z == pytest.approx(bm.log_partition(W, b, T, units), abs=1e-10)
    np.testing.assert_allclose(bp_mean, mean, atol=1e-10)
    np.testing.assert_allclose(bp_second[i, j], second[i, j], atol=1e-10)
    np.testing.assert_allclose(res.pair_beliefs.sum(axis=(1, 2)), 1.0, atol=1e-12)
    assert len(res.edges) == n - 1


def test_bethe_without_edges_is_exact():
    b = np.array([0.3, -1.0, 2.0])
    res = bm.belief_propagation(np.zeros((3, 3)), b, 0.7, rng=0)
    assert res.log_z == pytest.approx(bm.log_partition(np.zeros((3, 3)), b, 0.7), abs=1e-12)
    assert res.edges.shape == (0, 2) and res.pair_beliefs.shape == (0, 2, 2)


@pytest.mark.parametrize("beta", [0.2, 0.3, 0.44, 0.6])
def test_bethe_bounds_ferromagnets_from_below(beta):
    """log Z_Bethe <= log Z for ferromagnetic couplings (Ruozzi 2012): the 4x4 torus with a field."""
    W = bm.square_lattice_couplings(4)
    b = np.full(16, 0.1)
    res = bm.belief_propagation(W, b, 1 / beta, rng=0)
    assert res.converged
    assert res.log_z <= bm.log_partition(W, b, 1 / beta) + 1e-9  # a theorem; round-off margin


def test_belief_propagation_reports_non_convergence():
    """A frustrated SK instance at low temperature, with only 5 updates allowed."""
    W = bm.sk_couplings(16, J=2.0, rng=0)
    with pytest.warns(bm.ConvergenceWarning, match=r"belief propagation did not converge: after max_iter = 5"):
        res = bm.belief_propagation(W, None, 0.5, max_iter=5, rng=0)
    assert not res.converged and res.iterations == 5 and res.residual > 1e-12
