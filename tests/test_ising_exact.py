"""Exact Ising results against ground truth: enumeration, textbook formulas, published numbers.

The references here do not reuse bmlib.exact.closed_forms' own code:

* enumeration: bmlib.log_partition / exact_energy_moments over all 2**n states;
* the 1-D transfer-matrix closed forms, written plainly with math and
  np.linalg.matrix_power;
* published exact numbers: the density of states of the 4 x 4 torus
  (Beale 1996), T_c = 2 / ln(1 + sqrt 2), -beta f(T_c) = ln(2)/2 + 2G/pi
  (Catalan's G), u(T_c) = -sqrt 2, Yang's M(T = 2) = 0.911319..., and the
  finite-size constant of the critical square torus (Ferdinand & Fisher 1969).
"""
import math

import numpy as np
import pytest

import bmlib as bm

TC = 2.0 / math.log(1.0 + math.sqrt(2.0))
CATALAN = 0.915965594177219015054603514932384110774


# ----------------------------------------------------------------------------
# Lattices
# ----------------------------------------------------------------------------


def test_chain_couplings_bonds():
    W = bm.chain_couplings(5, J=0.5)
    assert W.shape == (5, 5)
    bonds = {(i, j) for i, j in zip(*np.nonzero(np.triu(W)))}
    assert bonds == {(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)}
    assert np.all(W[np.nonzero(W)] == 0.5)
    W_open = bm.chain_couplings(5, periodic=False)
    assert W_open.sum() / 2 == 4 and W_open[0, 4] == 0
    assert bm.chain_couplings(1, periodic=False).tolist() == [[0.0]]


@pytest.mark.parametrize("rows, cols", [(3, 3), (3, 5), (4, 6)])
def test_square_lattice_site_numbering(rows, cols):
    """Site (r, c) is unit r * cols + c; on the torus each site bonds to its 4 neighbours."""
    W = bm.square_lattice_couplings(rows, cols, J=0.7)
    N = rows * cols
    assert W.shape == (N, N)
    expected = np.zeros((N, N))
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                expected[r * cols + c, ((r + dr) % rows) * cols + (c + dc) % cols] = 0.7
    np.testing.assert_array_equal(W, expected)
    assert W.sum() / 0.7 / 2 == pytest.approx(2 * N)  # 2 N bonds on the torus
    W_open = bm.square_lattice_couplings(rows, cols, periodic=False)
    assert W_open.sum() / 2 == rows * (cols - 1) + (rows - 1) * cols
    assert W_open[0, cols - 1] == 0 and W_open[0, (rows - 1) * cols] == 0


def test_square_lattice_side_two_doubles_the_bond():
    """On a periodic side of length 2 the two wrap bonds coincide and add up (Kaufman's 2N bonds)."""
    W = bm.square_lattice_couplings(2, 3)
    assert W[0, 3] == 2.0  # (0, 0)-(1, 0): "down" and "up" are the same pair
    assert W[0, 1] == 1.0  # (0, 0)-(0, 1): an ordinary bond along the side of length 3
    assert W.sum() / 2 == 2 * 6
    assert bm.square_lattice_couplings(2).sum() / 2 == 2 * 4
    assert bm.square_lattice_couplings(3, 1, periodic=False).sum() / 2 == 2  # an open column


def test_sk_couplings():
    W = bm.sk_couplings(300, J=1.5, rng=7)
    np.testing.assert_array_equal(W, W.T)
    assert np.all(np.diag(W) == 0)
    np.testing.assert_array_equal(W, bm.sk_couplings(300, J=1.5, rng=np.random.default_rng(7)))
    upper = W[np.triu_indices(300, 1)]
    # 44850 independent draws of N(0, J^2 / n): the sample std is within 2% of J / sqrt(n).
    assert upper.std() * math.sqrt(300) == pytest.approx(1.5, rel=0.02)
    assert abs(upper.mean()) < 5 * 1.5 / math.sqrt(300) / math.sqrt(upper.size)
    assert np.all(bm.sk_couplings(4, J=0.0) == 0)


# ----------------------------------------------------------------------------
# 1-D chain
# ----------------------------------------------------------------------------


def textbook_ring(n, T, J, h):
    """Z = lambda_+^n + lambda_-^n, lambda_pm = e^K cosh(h/T) +- sqrt(e^{2K} sinh^2(h/T) + e^{-2K})."""
    K, x = J / T, h / T
    root = math.sqrt(math.exp(2 * K) * math.sinh(x) ** 2 + math.exp(-2 * K))
    lp, lm = math.exp(K) * math.cosh(x) + root, math.exp(K) * math.cosh(x) - root
    return math.log(lp**n + lm**n)


def textbook_open(n, T, J, h):
    """Z = u^T P^(n-1) u with P[s, s'] = exp(K s s' + x (s + s') / 2), u_s = exp(x s / 2)."""
    K, x = J / T, h / T
    s = np.array([-1.0, 1.0])
    P = np.exp(K * np.outer(s, s) + 0.5 * x * (s[:, None] + s[None, :]))
    u = np.exp(0.5 * x * s)
    return math.log(u @ np.linalg.matrix_power(P, n - 1) @ u)


@pytest.mark.parametrize("n", [3, 4, 7, 12])
@pytest.mark.parametrize("T", [0.4, 1.0, 3.0])
@pytest.mark.parametrize("J, h", [(1.0, 0.0), (1.0, 0.35), (0.6, -1.2), (-0.8, 0.5)])
def test_chain_against_enumeration_and_textbook(n, T, J, h):
    for periodic, textbook in ((True, textbook_ring), (False, textbook_open)):
        enumerated = bm.log_partition(bm.chain_couplings(n, J, periodic), h * np.ones(n), T)
        exact = bm.chain_log_partition(n, T, J, h, periodic)
        assert exact == pytest.approx(enumerated, rel=1e-13, abs=1e-13)
        assert exact == pytest.approx(textbook(n, T, J, h), rel=1e-12)


@pytest.mark.parametrize("n", [1, 2, 5, 40])
@pytest.mark.parametrize("T", [0.25, 1.0, 7.0])
def test_open_chain_zero_field_closed_form(n, T):
    """Open chain, h = 0: Z = 2 (2 cosh K)^(n-1)."""
    K = 1.0 / T
    assert bm.chain_log_partition(n, T, periodic=False) == pytest.approx(
        math.log(2) + (n - 1) * math.log(2 * math.cosh(K)), rel=1e-14
    )


def test_long_ring_and_low_temperature():
    # n = 1000: the plain formula in logs, n log lambda_+ + log1p(r^n).
    T, J, h, n = 0.7, 1.0, 0.2, 1000
    K, x = J / T, h / T
    root = math.sqrt(math.exp(2 * K) * math.sinh(x) ** 2 + math.exp(-2 * K))
    lp, lm = math.exp(K) * math.cosh(x) + root, math.exp(K) * math.cosh(x) - root
    assert bm.chain_log_partition(n, T, J, h) == pytest.approx(n * math.log(lp) + math.log1p((lm / lp) ** n), rel=1e-13)
    # Ground-state counting at T -> 0. Ferromagnetic ring: 2 states at -n J.
    assert bm.chain_log_partition(9, 0.01) == pytest.approx(math.log(2) + 9 / 0.01, rel=1e-15)
    # Antiferromagnetic odd ring (frustrated): 2 n states at -(n - 2)|J|, where
    # lambda_+^n + lambda_-^n cancels almost completely.
    assert bm.chain_log_partition(9, 0.01, J=-1.0) == pytest.approx(math.log(18) + 7 / 0.01, rel=1e-15)
    assert bm.chain_log_partition(9, 1e-3, J=-1.0) == pytest.approx(math.log(18) + 7 / 1e-3, rel=1e-15)


def test_chain_accepts_array_temperature():
    T = np.array([[0.5, 1.0], [2.0, 4.0]])
    out = bm.chain_log_partition(6, T, h=0.3, periodic=False)
    assert out.shape == (2, 2)
    expected = [[textbook_open(6, t, 1.0, 0.3) for t in row] for row in T]
    np.testing.assert_allclose(out, expected, rtol=1e-13)
    assert isinstance(bm.chain_log_partition(6, 1.0), float)


# ----------------------------------------------------------------------------
# 2-D torus: Kaufman against enumeration and the exact density of states
# ----------------------------------------------------------------------------

TEMPERATURES = [1.0, 1.8, 2.0, TC, 2.5, 3.5, 6.0]


@pytest.mark.parametrize("T", TEMPERATURES)
def test_kaufman_4x4_against_enumeration(T):
    W = bm.square_lattice_couplings(4)
    N = 16
    assert bm.kaufman_log_partition(4, 4, T) == pytest.approx(bm.log_partition(W, None, T), rel=1e-13, abs=1e-10)
    mean_e, var_e = bm.exact_energy_moments(W, None, T)
    assert bm.kaufman_energy_per_spin(4, 4, T) == pytest.approx(mean_e / N, rel=1e-12, abs=1e-12)
    assert bm.kaufman_specific_heat_per_spin(4, 4, T) == pytest.approx(var_e / (T**2 * N), rel=1e-11)


@pytest.mark.parametrize("rows, cols", [(2, 2), (2, 3), (3, 3), (3, 4), (4, 3), (2, 7), (4, 5)])
def test_kaufman_rectangles_against_enumeration(rows, cols):
    """Non-square tori, both orientations (rows play Kaufman's m, cols his n), sides of 2 included."""
    W = bm.square_lattice_couplings(rows, cols)
    N = rows * cols
    for T in (1.2, TC, 3.0):
        assert bm.kaufman_log_partition(rows, cols, T) == pytest.approx(bm.log_partition(W, None, T), rel=1e-13)
        mean_e, var_e = bm.exact_energy_moments(W, None, T)
        assert bm.kaufman_energy_per_spin(rows, cols, T) == pytest.approx(mean_e / N, rel=1e-12)
        assert bm.kaufman_specific_heat_per_spin(rows, cols, T) == pytest.approx(var_e / (T**2 * N), rel=1e-11)


# Beale (1996), Phys. Rev. Lett. 76, 78: the exact number of states of each
# energy on the 4 x 4 periodic lattice (J = 1), symmetric about E = 0.
BEALE_4X4 = {-32: 2, -24: 32, -20: 64, -16: 424, -12: 1728, -8: 6688, -4: 13568, 0: 20524}
BEALE_4X4.update({-e: g for e, g in BEALE_4X4.items()})


def test_4x4_density_of_states_is_beale():
    W = bm.square_lattice_couplings(4)
    energies = bm.energy(bm.all_states(16), W)
    values, counts = np.unique(energies, return_counts=True)
    assert dict(zip(values.astype(int).tolist(), counts.tolist())) == BEALE_4X4
    assert sum(BEALE_4X4.values()) == 2**16


@pytest.mark.parametrize("T", TEMPERATURES + [0.5, 20.0])
def test_kaufman_4x4_against_beale_counts(T):
    """log Z, <E> and Var(E) from the published counts, summed in plain Python."""
    e_min = min(BEALE_4X4)
    weights = {e: g * math.exp(-(e - e_min) / T) for e, g in BEALE_4X4.items()}
    z = math.fsum(weights.values())
    mean = math.fsum(w * e for e, w in weights.items()) / z
    var = math.fsum(w * (e - mean) ** 2 for e, w in weights.items()) / z
    assert bm.kaufman_log_partition(4, 4, T) == pytest.approx(math.log(z) - e_min / T, rel=1e-14)
    assert bm.kaufman_energy_per_spin(4, 4, T) == pytest.approx(mean / 16, rel=1e-12)
    assert bm.kaufman_specific_heat_per_spin(4, 4, T) == pytest.approx(var / (T**2 * 16), rel=1e-10)


def test_kaufman_specific_heat_is_derivative_of_energy():
    """c = du/dT on a lattice far beyond enumeration (5-point central difference in T)."""
    for T in (1.6, 2.3, 3.0):
        d = 1e-3
        u = [bm.kaufman_energy_per_spin(32, 48, T + k * d) for k in (-2, -1, 1, 2)]
        du_dT = (u[0] - 8 * u[1] + 8 * u[2] - u[3]) / (12 * d)
        assert bm.kaufman_specific_heat_per_spin(32, 48, T) == pytest.approx(du_dT, rel=1e-8)


def test_kaufman_is_finite_at_extreme_temperatures():
    T = np.array([1e-3, 0.05, 1e3, 1e6])
    log_z = bm.kaufman_log_partition(6, 4, T)
    # Ground state (2 states at -2 N J) at low T; 2^N states at high T.
    assert log_z[0] == pytest.approx(math.log(2) + 48 / 1e-3, rel=1e-15)
    assert log_z[3] == pytest.approx(24 * math.log(2), rel=1e-9)
    assert np.all(np.isfinite(bm.kaufman_energy_per_spin(6, 4, T)))
    assert np.all(np.isfinite(bm.kaufman_specific_heat_per_spin(6, 4, T)))


# ----------------------------------------------------------------------------
# Infinite lattice: Onsager and Yang, and Kaufman's approach to them
# ----------------------------------------------------------------------------


def test_critical_temperature():
    assert bm.critical_temperature() == pytest.approx(2.269185314213022, rel=1e-15)
    assert bm.critical_temperature(J=0.5) == pytest.approx(0.5 * 2.269185314, rel=1e-9)
    assert math.sinh(2.0 / bm.critical_temperature()) == pytest.approx(1.0, rel=1e-15)


def test_onsager_published_values_at_tc():
    # -beta f(T_c) = ln(2) / 2 + 2 G / pi, and u(T_c) = -sqrt(2) J.
    assert -bm.onsager_free_energy_per_spin(TC) / TC == pytest.approx(math.log(2) / 2 + 2 * CATALAN / math.pi, rel=1e-14)
    assert bm.onsager_energy_per_spin(TC) == pytest.approx(-math.sqrt(2), rel=1e-14)
    assert bm.onsager_energy_per_spin(2 * TC, J=2.0) == pytest.approx(-2 * math.sqrt(2), rel=1e-14)


def test_onsager_limits():
    T = np.array([0.05, 1e4])
    f = bm.onsager_free_energy_per_spin(T)
    assert f[0] == pytest.approx(-2.0, rel=1e-15)  # ground state energy per spin
    assert -f[1] / 1e4 == pytest.approx(math.log(2) + 1 / (1e4) ** 2, rel=1e-12)  # ln 2 + K^2 + ...
    u = bm.onsager_energy_per_spin(T)
    assert u[0] == pytest.approx(-2.0, rel=1e-15)
    assert u[1] == pytest.approx(-2 * math.tanh(1e-4), rel=1e-7)  # high-T series -2 tanh K (1 + O(K^2))


@pytest.mark.parametrize("T", [1.0, 1.8, 2.1, 2.6, 3.0, 5.0])
def test_onsager_energy_is_derivative_of_free_energy(T):
    """u = d(beta f)/d beta, by a 5-point central difference in beta."""
    beta, d = 1.0 / T, 2e-4

    def beta_f(b):
        return bm.onsager_free_energy_per_spin(1.0 / b) * b

    fd = (beta_f(beta - 2 * d) - 8 * beta_f(beta - d) + 8 * beta_f(beta + d) - beta_f(beta + 2 * d)) / (12 * d)
    assert bm.onsager_energy_per_spin(T) == pytest.approx(fd, rel=1e-9)


@pytest.mark.parametrize("T", [1.5, 2.0, 2.2, 2.4, 3.0, 5.0])
def test_kaufman_large_torus_approaches_onsager(T):
    """Away from T_c the finite-size corrections are exponentially small in L.

    Below T_c the torus has two ordered phases (all spins flipped), so
    log Z = N (-beta f) + ln 2 up to exponentially small terms.
    """
    L = 256
    N = L * L
    degeneracy = math.log(2) if T < TC else 0.0
    log_z = bm.kaufman_log_partition(L, L, T)
    assert (log_z - degeneracy) / N == pytest.approx(-bm.onsager_free_energy_per_spin(T) / T, rel=1e-14, abs=1e-14)
    assert bm.kaufman_energy_per_spin(L, L, T) == pytest.approx(bm.onsager_energy_per_spin(T), abs=1e-10)


def test_kaufman_at_tc_has_the_ferdinand_fisher_correction():
    """At T_c, log Z = N (-beta f_c) + ln[(theta_2 + theta_3 + theta_4) / (2 eta)] + O(1/N) on the L x L torus.

    Ferdinand & Fisher (1969), Phys. Rev. 185, 832; the theta functions and
    Dedekind's eta at tau = i: theta_3 = pi^(1/4) / Gamma(3/4),
    theta_2 = theta_4 = 2^(-1/4) theta_3, eta = Gamma(1/4) / (2 pi^(3/4)).
    """
    theta3 = math.pi**0.25 / math.gamma(0.75)
    theta2 = 2**-0.25 * theta3
    eta = math.gamma(0.25) / (2 * math.pi**0.75)
    constant = math.log((2 * theta2 + theta3) / (2 * eta))
    bulk = -bm.onsager_free_energy_per_spin(TC) / TC
    gaps = [abs(bm.kaufman_log_partition(L, L, TC) - L * L * bulk - constant) for L in (64, 128, 256)]
    assert gaps[-1] < 3e-6
    assert gaps[0] / gaps[1] == pytest.approx(4, rel=0.05) and gaps[1] / gaps[2] == pytest.approx(4, rel=0.05)


def test_yang_magnetization():
    # The closed form, written out here, and its published value at T = 2 J.
    plain = (1 - math.sinh(2 / 2.0) ** -4) ** 0.125
    assert plain == pytest.approx(0.911319, abs=5e-7)
    assert bm.yang_magnetization(2.0) == pytest.approx(plain, rel=1e-15)
    M = bm.yang_magnetization(np.array([0.05, 1.0, TC * (1 - 1e-8), TC, 3.0]))
    assert M[0] == 1.0 and M[3] == 0.0 and M[4] == 0.0
    assert 0.0 < M[2] < 0.15  # (T_c - T)^(1/8) vanishes slowly
    assert M[1] == pytest.approx((1 - math.sinh(2.0) ** -4) ** 0.125, rel=1e-15)
    assert bm.yang_magnetization(4.0, J=2.0) == pytest.approx(plain, rel=1e-15)


def test_array_temperatures_keep_their_shape():
    T = np.array([[1.0, 2.0, 3.0]])
    for func in (bm.onsager_free_energy_per_spin, bm.onsager_energy_per_spin, bm.yang_magnetization):
        out = func(T)
        assert out.shape == (1, 3)
        np.testing.assert_allclose(out[0], [func(t) for t in T[0]], rtol=1e-15)
    for func in (bm.kaufman_log_partition, bm.kaufman_energy_per_spin, bm.kaufman_specific_heat_per_spin):
        out = func(5, 6, T)
        assert out.shape == (1, 3)
        np.testing.assert_allclose(out[0], [func(5, 6, t) for t in T[0]], rtol=1e-14)


# ----------------------------------------------------------------------------
# Bad inputs
# ----------------------------------------------------------------------------


def test_lattice_bad_inputs():
    with pytest.raises(ValueError, match="n must be >= 3 for a periodic chain.*got 2"):
        bm.chain_couplings(2)
    with pytest.raises(ValueError, match="n must be >= 1; got 0"):
        bm.chain_couplings(0, periodic=False)
    with pytest.raises(TypeError, match="n must be an integer; got 3.0"):
        bm.chain_couplings(3.0)
    with pytest.raises(ValueError, match="J must be finite; got nan"):
        bm.chain_couplings(4, J=float("nan"))
    with pytest.raises(TypeError, match="J must be a real number; got '1'"):
        bm.square_lattice_couplings(3, J="1")
    with pytest.raises(ValueError, match="cols must be >= 2 for a periodic lattice.*got 1"):
        bm.square_lattice_couplings(3, 1)
    with pytest.raises(ValueError, match="rows must be >= 1; got 0"):
        bm.square_lattice_couplings(0, periodic=False)
    with pytest.raises(TypeError, match="periodic must be True or False"):
        bm.square_lattice_couplings(3, periodic="yes")
    with pytest.raises(ValueError, match="J must be >= 0; got -1.0"):
        bm.sk_couplings(5, J=-1.0)
    with pytest.raises(ValueError, match="n must be >= 1; got 0"):
        bm.sk_couplings(0)
    with pytest.raises(TypeError, match="rng must be None, a non-negative int seed"):
        bm.sk_couplings(5, rng="seed")


@pytest.mark.parametrize(
    "call",
    [
        lambda T: bm.chain_log_partition(5, T),
        lambda T: bm.kaufman_log_partition(4, 4, T),
        lambda T: bm.kaufman_energy_per_spin(4, 4, T),
        lambda T: bm.kaufman_specific_heat_per_spin(4, 4, T),
        bm.onsager_free_energy_per_spin,
        bm.onsager_energy_per_spin,
        bm.yang_magnetization,
    ],
)
def test_bad_temperatures(call):
    for T in (0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="T must be finite and > 0; got"):
            call(T)
    with pytest.raises(ValueError, match=r"T must be finite and > 0; T\[1\] = -2.0"):
        call([1.0, -2.0])
    with pytest.raises(TypeError, match="T must be a real number > 0"):
        call("2.0")
    with pytest.raises(TypeError, match="T must be a real number > 0"):
        call(True)


def test_exact_bad_inputs():
    with pytest.raises(ValueError, match="n must be >= 3 for a periodic chain"):
        bm.chain_log_partition(2)
    with pytest.raises(ValueError, match="n must be >= 1; got 0"):
        bm.chain_log_partition(0, periodic=False)
    with pytest.raises(ValueError, match="h must be finite; got inf"):
        bm.chain_log_partition(4, h=float("inf"))
    with pytest.raises(ValueError, match="rows must be >= 2; got 1"):
        bm.kaufman_log_partition(1, 4, 2.0)
    with pytest.raises(TypeError, match="cols must be an integer"):
        bm.kaufman_energy_per_spin(4, 4.5, 2.0)
    for func in (bm.kaufman_log_partition, bm.kaufman_specific_heat_per_spin):
        with pytest.raises(ValueError, match=r"J must be > 0 \(a ferromagnetic coupling\).*got -1.0"):
            func(4, 4, 2.0, J=-1.0)
    for func in (bm.onsager_free_energy_per_spin, bm.onsager_energy_per_spin, bm.yang_magnetization):
        with pytest.raises(ValueError, match="J must be > 0"):
            func(2.0, J=0.0)
    with pytest.raises(ValueError, match="J must be > 0"):
        bm.critical_temperature(-1.0)


def test_kaufman_square_torus_needs_one_side():
    assert bm.kaufman_log_partition(6, T=2.0) == bm.kaufman_log_partition(6, 6, 2.0)
    assert bm.kaufman_specific_heat_per_spin(4, T=2.5) == bm.kaufman_specific_heat_per_spin(4, 4, 2.5)
    with pytest.raises(TypeError, match=r"write T=2.5"):
        bm.kaufman_energy_per_spin(32, 2.5)
