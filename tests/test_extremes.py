"""Valid extreme inputs: the right answer or a clear ValueError, never NaN/inf or a NumPy error.

The references are exact: a brute-force sum over itertools.product in
50-digit decimal arithmetic, the scale invariance of p(s) (it depends only
on W / T and b / T; scaling by a power of two is exact in floating point),
and the T -> 0 limit (p spreads evenly over the ground states).
"""
import decimal
import functools
import itertools
import warnings

import numpy as np
import pytest

import bmlib as bm
from bmlib._checks import check_weights

D = decimal.Decimal


def decimal_reference(W, b, T, units="spins"):
    """log Z, <E> and Var(E) by a plain sum in 50-digit decimals, with exact integer energies."""
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        n = len(b)
        values = (-1, 1) if units == "spins" else (0, 1)
        energies = []
        for s in itertools.product(values, repeat=n):
            e = -sum(D(b[i]) * s[i] for i in range(n))
            e -= sum(D(W[i][j]) * s[i] * s[j] for i in range(n) for j in range(i + 1, n))
            energies.append(e)
        e_min = min(energies)
        T = D(T)
        w = [(-(e - e_min) / T).exp() for e in energies]
        Z = sum(w)
        mean = sum(wi * e for wi, e in zip(w, energies)) / Z
        var = sum(wi * (e - mean) ** 2 for wi, e in zip(w, energies)) / Z
        return float(Z.ln() - e_min / T), float(mean), float(var)


def ground_states(W, b, units="spins"):
    """Indices (all_states order) of the lowest-energy states, and that energy."""
    E = bm.energy(bm.all_states(len(b), units), W, b)
    return np.flatnonzero(E == E.min()), float(E.min())


# An integer model with a doubly degenerate ground state (no field: s and -s have the same energy).
W_INT = np.array(
    [[0, 2, -1, 1, 0], [2, 0, 1, -2, 1], [-1, 1, 0, 1, -1], [1, -2, 1, 0, 2], [0, 1, -1, 2, 0]], dtype=float
)
B_ZERO = np.zeros(5)


# ----------------------------------------------------------------------------
# 1. Couplings near the float limit
# ----------------------------------------------------------------------------


def test_symmetrization_keeps_huge_and_subnormal_weights():
    big = np.finfo(float).max
    for value in (big, 9e307, -1e308, 5e-324, 1.5):
        W = np.array([[0.0, value], [value, 0.0]])
        assert np.array_equal(check_weights(W), W)
    # Nearly symmetric at 1e308: the correctly rounded mean, no overflow.
    a, c = 1.7e308, 1.7e308 * (1 + 2e-16)
    W = np.array([[0.0, a], [c, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = check_weights(W)
    assert got[0, 1] == got[1, 0] == 0.5 * a + 0.5 * c


def test_energy_of_huge_couplings_is_finite():
    W = np.array([[0.0, 1e308], [1e308, 0.0]])
    assert bm.energy([1, 1], W) == -1e308
    assert bm.energy([1, -1], W) == 1e308


@pytest.mark.parametrize("exponent", [0, 1000, 1020, 1021])
@pytest.mark.parametrize("units", ["spins", "bits"])
def test_exact_functions_are_scale_invariant_up_to_the_float_limit(exponent, units):
    """(c W, c b, c T) is the same distribution as (W, b, T); c = 2**exponent is exact.

    At exponent 1020/1021 the couplings are ~1e307-1e308, where W + W.T and the
    energies used to overflow (NaN everywhere).
    """
    c = 2.0**exponent
    T = 1.5
    b = np.array([1.0, -2.0, 0.0, 1.0, 0.5])
    ref_log_z, ref_mean, _ = decimal_reference(W_INT, b, T, units)
    p0 = bm.boltzmann_distribution(W_INT, b, T, units)
    m0, s0 = bm.exact_moments(W_INT, b, T, units)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warnings either
        assert bm.log_partition(c * W_INT, c * b, c * T, units) == pytest.approx(ref_log_z, rel=1e-13, abs=0)
        np.testing.assert_allclose(bm.boltzmann_distribution(c * W_INT, c * b, c * T, units), p0, rtol=1e-12, atol=0)
        m, s = bm.exact_moments(c * W_INT, c * b, c * T, units)
        np.testing.assert_allclose(m, m0, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(s, s0, rtol=1e-12, atol=1e-14)
        clamped = bm.clamped_log_partition(c * W_INT, c * b, [0, 3], [1, 1 if units == "spins" else 0], c * T, units)
    assert clamped == pytest.approx(bm.clamped_log_partition(W_INT, b, [0, 3], [1, 1 if units == "spins" else 0], T, units), rel=1e-13, abs=0)
    if exponent == 0:
        mean, var = bm.exact_energy_moments(W_INT, b, T, units)
        assert mean == pytest.approx(ref_mean, rel=1e-13, abs=0)
    else:
        # <E> is c <E_0>, finite; Var(E) = c^2 Var(E_0) is not: a clear error, not inf.
        with pytest.raises(ValueError, match="energy variance is beyond the float range"):
            bm.exact_energy_moments(c * W_INT, c * b, c * T, units)


def test_huge_couplings_at_unit_temperature_are_the_ground_state_limit():
    """W ~ 9e307 at T = 1: log Z = -E_min / T (+ log g, below one ulp), <E> = E_min, Var = 0."""
    J = 2.0**1023  # 8.99e307: W + W.T overflows; a power of two keeps every energy exact
    W = J * np.array([[0, 1, -1], [1, 0, 1], [-1, 1, 0]])  # frustrated triangle, 6 ground states
    b = np.zeros(3)
    ground, e_min = ground_states(W, b)
    assert e_min == -J and ground.size == 6
    assert bm.log_partition(W, b, 1.0) == J
    p = bm.boltzmann_distribution(W, b, 1.0)
    expected = np.zeros(8)
    expected[ground] = 1 / 6
    np.testing.assert_allclose(p, expected, rtol=1e-15, atol=0)
    assert bm.exact_energy_moments(W, b, 1.0) == (e_min, 0.0)
    mean, second = bm.exact_moments(W, b, 1.0)
    S = bm.all_states(3).astype(float)[ground]
    np.testing.assert_allclose(second, S.T @ S / 6, rtol=1e-15, atol=1e-15)


def test_log_z_beyond_the_float_range_is_a_clear_error():
    W = 1e300 * W_INT  # log Z = -E_min / T ~ 1e311 at T = 1e-10
    with pytest.raises(ValueError, match=r"log_partition: log Z is beyond the float range.*energy_descent"):
        bm.log_partition(W, B_ZERO, 1e-10)
    with pytest.raises(ValueError, match=r"clamped_log_partition: log Z is beyond the float range"):
        bm.clamped_log_partition(W, B_ZERO, [0], [1], 1e-10)
    p = bm.boltzmann_distribution(W, B_ZERO, 1e-10)  # still fine: it depends on W / T only
    ground, _ = ground_states(W_INT, B_ZERO)
    assert set(np.flatnonzero(p)) == set(ground) and np.allclose(p[ground], 1 / ground.size, rtol=1e-15)


# ----------------------------------------------------------------------------
# 2. Temperatures down to the smallest float: the T -> 0 limit
# ----------------------------------------------------------------------------

TINY = 5e-324


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_exact_distribution_at_the_smallest_temperature_is_uniform_on_ground_states(units):
    b = np.array([0.0, 0.0, 0.0, 0.0, 0.0]) if units == "spins" else np.array([-1.0, 2.0, -3.0, 1.0, 0.0])
    ground, e_min = ground_states(W_INT, b, units)
    S = bm.all_states(5, units).astype(float)[ground]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = bm.boltzmann_distribution(W_INT, b, TINY, units)
        mean, second = bm.exact_moments(W_INT, b, TINY, units)
        energy_moments = bm.exact_energy_moments(W_INT, b, TINY, units)
    expected = np.zeros(32)
    expected[ground] = 1.0 / ground.size
    np.testing.assert_allclose(p, expected, rtol=1e-15, atol=0)
    np.testing.assert_allclose(mean, S.mean(axis=0), rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(second, S.T @ S / ground.size, rtol=1e-15, atol=1e-15)
    assert energy_moments == (e_min, 0.0)
    with pytest.raises(ValueError, match=r"log Z is beyond the float range \(about 1.8e308\) at T = 5e-324"):
        bm.log_partition(W_INT, b, TINY, units)


def test_log_z_at_the_smallest_temperature_when_the_ground_energy_is_zero():
    """Bits with E(x) >= 0 and E = 0 only at x = 0: log Z -> log 1 = 0 exactly as T -> 0."""
    W = np.array([[0.0, -1.0, 1.0], [-1.0, 0.0, -1.0], [1.0, -1.0, 0.0]])
    b = np.array([-2.0, -3.0, -2.0])  # every other state has E >= 2
    assert bm.log_partition(W, b, TINY, "bits") == 0.0
    assert bm.clamped_log_partition(W, b, [1], [0], TINY, "bits") == 0.0
    mean, second = bm.clamped_moments(W, b, [1], [0], TINY, "bits")
    assert mean.tolist() == [0.0, 0.0, 0.0] and not second.any()
    assert bm.log_partition(np.zeros((3, 3)), None, TINY) == pytest.approx(3 * np.log(2), rel=1e-15, abs=0)


# ----------------------------------------------------------------------------
# 3. exact_energy_moments at large |E| / T
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("ratio", [5e9, 5e12, 5e15, 5e18, 1e300])
def test_energy_moments_with_degenerate_ground_states_at_huge_energy_over_T(ratio):
    """Before: <E> off by 5e-7 (5e9), 2e-4 (5e12), 0.26 (5e15), 2 E_min beyond; Var up to 4.9e6 instead of 0."""
    ground, e_min = ground_states(W_INT, B_ZERO)
    assert ground.size == 12
    T = abs(e_min) / ratio
    mean, var = bm.exact_energy_moments(W_INT, B_ZERO, T)
    assert mean == pytest.approx(e_min, rel=1e-12, abs=0)
    assert abs(var) <= 1e-12 * e_min**2
    # log Z = -E_min / T + log 2 where it is representable, and the other functions agree.
    if ratio <= 5e12:
        assert bm.log_partition(W_INT, B_ZERO, T) == pytest.approx(-e_min / T + np.log(12), rel=1e-15, abs=0)


@pytest.mark.parametrize("T", [0.05, 0.2, 1.0, 3.0, 50.0])
@pytest.mark.parametrize("units", ["spins", "bits"])
def test_energy_moments_match_a_decimal_brute_force(T, units):
    b = np.array([0.5, -1.0, 0.0, 2.0, -0.5])
    W = W_INT * 1.25
    ref_log_z, ref_mean, ref_var = decimal_reference(W, b, T, units)
    mean, var = bm.exact_energy_moments(W, b, T, units)
    assert mean == pytest.approx(ref_mean, rel=1e-12, abs=0)
    assert var == pytest.approx(ref_var, rel=1e-12, abs=0)
    assert bm.log_partition(W, b, T, units) == pytest.approx(ref_log_z, rel=1e-13, abs=0)


# ----------------------------------------------------------------------------
# 4. Kaufman's torus at high temperature
# ----------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def density_of_states(rows, cols):
    """Distinct energies of the torus and how many states have each, by enumeration."""
    W = bm.square_lattice_couplings(rows, cols)
    values, counts = np.unique(bm.energy(bm.all_states(rows * cols), W), return_counts=True)
    assert values @ counts == 0
    return values, counts


def torus_reference(rows, cols, T):
    """log Z, <E>/N and Var(E)/(T^2 N) of the torus by enumeration, exact at any high T.

    Grouped by energy; sum_s E(s) = 0 on the torus, so with x = expm1(-E/T)
    Z = 2^N + sum g x and <E> = sum g E x / Z keep every digit however small
    E / T is (a plain sum of E exp(-E/T) would cancel down to T * 1e-16).
    """
    N = rows * cols
    W = bm.square_lattice_couplings(rows, cols)
    values, counts = density_of_states(rows, cols)
    x = np.expm1(-values / T)
    Z = 2.0**N + counts @ x
    mean = (counts * values) @ x / Z
    second = (counts * values**2) @ (1.0 + x) / Z
    return bm.log_partition(W, None, T), mean / N, (second - mean**2) / T / T / N


@pytest.mark.parametrize("T", [1e3, 1e6, 1e7, 1e9, 1e100, 1e200])
def test_kaufman_4x4_at_high_temperature_against_enumeration(T):
    """Before: u off by 2e-5 (1e6), 3.5e-3 (1e7), all three NaN from ~1e100-1e155."""
    log_z, u, c = torus_reference(4, 4, T)
    assert bm.kaufman_log_partition(4, 4, T) == pytest.approx(log_z, rel=1e-14, abs=0)
    assert bm.kaufman_energy_per_spin(4, 4, T) == pytest.approx(u, rel=1e-12, abs=0)
    assert bm.kaufman_specific_heat_per_spin(4, 4, T) == pytest.approx(c, rel=1e-12, abs=1e-320)
    # The leading term of the high-temperature expansion, -2 J tanh K, with the plaquettes at O(K^4).
    assert u == pytest.approx(-2 * np.tanh(1 / T), rel=10 / T / T, abs=0)


@pytest.mark.parametrize("rows, cols", [(2, 2), (2, 3), (3, 3), (3, 5), (2, 7), (4, 3)])
@pytest.mark.parametrize("T", [10.5, 1e2, 1e5, 1e30])
def test_kaufman_rectangles_at_high_temperature_against_enumeration(rows, cols, T):
    """Sides of 2 (doubled bonds) and 3 (loops of length 3 that wrap around) included."""
    log_z, u, c = torus_reference(rows, cols, T)
    assert bm.kaufman_log_partition(rows, cols, T) == pytest.approx(log_z, rel=1e-14, abs=0)
    assert bm.kaufman_energy_per_spin(rows, cols, T) == pytest.approx(u, rel=1e-12, abs=0)
    assert bm.kaufman_specific_heat_per_spin(rows, cols, T) == pytest.approx(c, rel=1e-12, abs=0)


def test_kaufman_high_temperature_branch_meets_the_double_precision_one():
    """At K = 0.1 and 0.2 the decimal evaluation and the double-precision formula agree (32 x 48 torus)."""
    from bmlib.ising_exact import _kaufman, _kaufman_decimal

    for K in (0.1, 0.2):
        fast = [float(v[0]) for v in _kaufman(32, 48, np.array([K]))]
        slow = _kaufman_decimal(32, 48, K)
        np.testing.assert_allclose(slow, fast, rtol=1e-13)


@pytest.mark.parametrize("T", [1e3, 1e8])
def test_kaufman_specific_heat_is_the_derivative_of_the_energy_at_high_temperature(T):
    """c = du/dT on a torus beyond enumeration (5-point central difference, step 1e-3 T)."""
    d = 1e-3 * T
    u = [bm.kaufman_energy_per_spin(24, 16, T + k * d) for k in (-2, -1, 1, 2)]
    du_dT = (u[0] - 8 * u[1] + 8 * u[2] - u[3]) / (12 * d)
    assert bm.kaufman_specific_heat_per_spin(24, 16, T) == pytest.approx(du_dT, rel=1e-9, abs=0)
