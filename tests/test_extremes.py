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
        clamped = bm.clamped_log_partition(c * W_INT, c * b, c * T, units, clamped=[0, 3], values=[1, 1 if units == "spins" else 0])
    assert clamped == pytest.approx(bm.clamped_log_partition(W_INT, b, T, units, clamped=[0, 3], values=[1, 1 if units == "spins" else 0]), rel=1e-13, abs=0)
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
        bm.clamped_log_partition(W, B_ZERO, 1e-10, clamped=[0], values=[1])
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
    assert bm.clamped_log_partition(W, b, TINY, "bits", clamped=[1], values=[0]) == 0.0
    mean, second = bm.clamped_moments(W, b, TINY, "bits", clamped=[1], values=[0])
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
    # The leading term of the high-temperature expansion, -2 J tanh K, with the plaquettes at O(K^4):
    # the series' truncation is below 10 K^2 relative. The reference u is rounded too: a dot product
    # over the ~15 energy levels of terms of one sign (<= 7 eps relative in any summation order, so
    # whichever kernel OpenBLAS picks: Haswell's gives -2.0000000000000003e-100 at T = 1e100, one
    # ulp off), the expm1 and products (~1 eps) and tanh (1 ulp): 10 eps bounds it. At T = 1e100
    # the truncation (1e-199) is far below one ulp, so without the rounding term this asserted bits.
    assert u == pytest.approx(-2 * np.tanh(1 / T), rel=10 / T / T + 10 * np.finfo(float).eps, abs=0)


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
    from bmlib.exact.kaufman import _kaufman, _kaufman_decimal

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


# ----------------------------------------------------------------------------
# 2 and 5. Approximate methods: a clear error below their temperature limit,
# scale invariance up to it (TAP squares W: W ~ 1e300 used to give NaN or a LinAlgError)
# ----------------------------------------------------------------------------

ESTIMATORS = {
    "log_z_mean_field": {},
    "log_z_tap": {},
    "log_z_bethe": {},
    "log_z_importance": {"n_samples": 200},
    "log_z_visited_states": {"n_samples": 50},
    "log_z_ais": {"n_runs": 5, "n_steps": 5},
}
W4 = W_INT[:4, :4]
B4 = np.array([0.5, 0.0, -1.0, 0.25])


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@pytest.mark.parametrize("scale, T", [(1.0, TINY), (1.0, 1e-101), (1e300, 1.0), (1e300, 1e199)])
def test_approximate_methods_refuse_temperatures_below_their_limit(name, scale, T):
    with pytest.raises(ValueError, match=r"T must be >= 1e-100 \* max\(1, max\|W\|, max\|b\|\).*energy_descent or anneal"):
        getattr(bm, name)(scale * W4, scale * B4, T, rng=0, **ESTIMATORS[name])


@pytest.mark.parametrize("solver", [bm.naive_mean_field, bm.tap_mean_field, bm.belief_propagation])
def test_solvers_refuse_the_smallest_temperature(solver):
    with pytest.raises(ValueError, match=r"got T = 5e-324"):
        solver(W4, B4, TINY, rng=0)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@pytest.mark.parametrize("units", ["spins", "bits"])
def test_approximate_methods_are_scale_invariant_up_to_huge_couplings(name, units):
    """(c W, c b, c T) with c = 2**1000 gives the very same estimate as (W, b, T): every method
    depends on W / T and b / T only. Before, TAP squared c W and returned NaN."""
    c = 2.0**1000
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no overflow on the way ...
        warnings.simplefilter("ignore", bm.ApproximationWarning)  # ... but TAP is out of its range here
        warnings.simplefilter("ignore", bm.ConvergenceWarning)
        ref = getattr(bm, name)(W4, B4, 1.5, units, rng=0, **ESTIMATORS[name])
        big = getattr(bm, name)(c * W4, c * B4, c * 1.5, units, rng=0, **ESTIMATORS[name])
    assert np.isfinite(ref.log_z)
    assert big.log_z == pytest.approx(ref.log_z, rel=1e-13, abs=0)


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_tap_moments_and_plefka_ratio_with_huge_couplings(units):
    c = 2.0**1000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bm.ApproximationWarning)
        ref = bm.tap_mean_field(W4, B4, 3.0, units, rng=0)
        big = bm.tap_mean_field(c * W4, c * B4, c * 3.0, units, rng=0)
    assert big.plefka_ratio == pytest.approx(ref.plefka_ratio, rel=1e-13, abs=0)
    for a, b in zip(big.moments(linear_response=True), ref.moments(linear_response=True)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_approximate_methods_at_their_temperature_limit_are_finite():
    """Just above the limit (max|W| / T = 2e99) every method still returns a finite number."""
    T = 1e-99
    for name, kwargs in ESTIMATORS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bm.ApproximationWarning)
            warnings.simplefilter("ignore", bm.ConvergenceWarning)
            est = getattr(bm, name)(W4, B4, T, rng=0, **kwargs)
        assert np.isfinite(est.log_z), name
    # The naive bound is then -E_min / T to double precision (p sits on the ground state).
    e_min = float(bm.energy(bm.all_states(4), W4, B4).min())
    assert bm.log_z_mean_field(W4, B4, T, rng=0).log_z == pytest.approx(-e_min / T, rel=1e-15, abs=0)


@pytest.mark.parametrize("units", ["spins", "bits"])
@pytest.mark.parametrize("rule", ["heat_bath", "metropolis"])
def test_update_rules_at_the_smallest_temperature_take_the_zero_temperature_limit(rule, units):
    """Zero field: heat bath picks either value with probability 1/2 and Metropolis always flips
    (Delta E = 0); before, 0 * (1/T = inf) = NaN made both deterministic. A field picks its side."""
    from bmlib import heat_bath, metropolis

    update = heat_bath if rule == "heat_bath" else metropolis
    rng = np.random.default_rng(1)
    values = np.ones(20_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        zero = update(values, np.zeros(20_000), TINY, units, rng)
        down = update(values, np.full(20_000, -1e-300), TINY, units, rng)
    if rule == "heat_bath":
        assert abs((zero == 1).mean() - 0.5) < 0.02  # 7 standard deviations
    else:
        assert (zero == 1).sum() == 0
    assert (down == 1).sum() == 0


# ----------------------------------------------------------------------------
# 6. The empty model (n = 0): one state of energy 0, so log Z = 0
# ----------------------------------------------------------------------------

EMPTY = np.zeros((0, 0))


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimators_of_an_empty_model_give_log_z_zero(name):
    est = getattr(bm, name)(EMPTY, None, 1.0, rng=0, **ESTIMATORS[name])
    assert est.log_z == 0.0


def test_exact_functions_of_an_empty_model():
    assert bm.log_partition(EMPTY) == 0.0
    assert bm.boltzmann_distribution(EMPTY).tolist() == [1.0]
    mean, second = bm.exact_moments(EMPTY)
    assert mean.shape == (0,) and second.shape == (0, 0)
    assert bm.exact_energy_moments(EMPTY) == (0.0, 0.0)
    assert bm.clamped_log_partition(EMPTY, None, clamped=[], values=[]) == 0.0
    assert bm.log_z_visited_states(EMPTY, rng=0).details["n_distinct"] == 1


def test_clamping_no_unit_is_the_free_model():
    """values of shape (0,) is one empty pattern; it used to be refused with a self-contradictory message."""
    assert bm.clamped_log_partition(W_INT, B_ZERO, clamped=[], values=[]) == pytest.approx(bm.log_partition(W_INT, B_ZERO), rel=1e-15, abs=0)
    mean, second = bm.clamped_moments(W_INT, B_ZERO, clamped=[], values=[])
    ref_mean, ref_second = bm.exact_moments(W_INT, B_ZERO)
    np.testing.assert_allclose(second, ref_second, rtol=1e-14, atol=1e-15)
    with pytest.raises(ValueError, match=r"values must have shape \(1,\) .* got shape \(0, 1\)"):
        bm.clamped_log_partition(W_INT, B_ZERO, clamped=[0], values=np.zeros((0, 1)))


# ----------------------------------------------------------------------------
# rbm_log_partition, exact like the enumeration functions: the same T -> 0 rule
# ----------------------------------------------------------------------------


def rbm_as_boltzmann_machine(W_vh, b_v, b_h):
    n_v, n_h = W_vh.shape
    W = np.zeros((n_v + n_h, n_v + n_h))
    W[:n_v, n_v:], W[n_v:, :n_v] = W_vh, W_vh.T
    return W, np.concatenate([b_v, b_h])


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_rbm_log_partition_at_the_smallest_temperature(units):
    """Bits with W <= 0 and b <= 0 have E >= 0 = E_min: log Z -> log(number of zero-energy states).
    Before: NaN (inf - inf); an entropy of T log 2 would also be lost below T ~ 1e-308."""
    rng = np.random.default_rng(3)
    W_vh = -np.abs(rng.normal(size=(4, 3)))
    W_vh[1, :] = 0.0  # visible unit 1 is free: every ground state comes twice
    b_v, b_h = -np.abs(rng.normal(size=4)), -np.abs(rng.normal(size=3))
    b_v[1] = 0.0
    W, b = rbm_as_boltzmann_machine(W_vh, b_v, b_h)
    if units == "bits":
        ground, e_min = ground_states(W, b, "bits")
        assert e_min == 0.0 and ground.size == 2
        assert bm.rbm_log_partition(W_vh, b_v, b_h, TINY, "bits") == pytest.approx(np.log(2), rel=1e-15, abs=0)
        # E(v, h) = -v h + 2 h: E = 0 at (0, 0) and (1, 0); h = 1 pits a field +1/T against a bias -2/T.
        assert bm.rbm_log_partition([[1.0]], None, [-2.0], TINY, "bits") == pytest.approx(np.log(2), rel=1e-15, abs=0)
    else:
        with pytest.raises(ValueError, match=r"rbm_log_partition: log Z is beyond the float range"):
            bm.rbm_log_partition(W_vh, b_v, b_h, TINY, "spins")
    # At a small but ordinary T it agrees with plain enumeration of the same machine.
    assert bm.rbm_log_partition(W_vh, b_v, b_h, 0.01, units) == pytest.approx(
        bm.log_partition(W, b, 0.01, units), rel=1e-14, abs=0
    )


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_rbm_log_partition_is_scale_invariant(units):
    rng = np.random.default_rng(4)
    W_vh, b_v, b_h = rng.normal(size=(5, 3)), rng.normal(size=5), rng.normal(size=3)
    c = 2.0**1000
    ref = bm.rbm_log_partition(W_vh, b_v, b_h, 0.7, units)
    assert ref == pytest.approx(bm.log_partition(*rbm_as_boltzmann_machine(W_vh, b_v, b_h), 0.7, units), rel=1e-14, abs=0)
    assert bm.rbm_log_partition(c * W_vh, c * b_v, c * b_h, c * 0.7, units) == pytest.approx(ref, rel=1e-14, abs=0)


def test_kaufman_specific_heat_far_below_the_transition_is_zero_not_nan():
    # K = J / T = 1e300: the curvature underflows to 0 while K**2 overflows.
    assert bm.kaufman_specific_heat_per_spin(4, 4, 1e-300) == 0.0
    assert bm.kaufman_specific_heat_per_spin(4, 4, 2.0, J=1e300) == 0.0
    assert bm.kaufman_energy_per_spin(4, 4, 1e-300) == -2.0
