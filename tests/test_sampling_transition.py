"""The exact transition matrices of bmlib.sampling.transition against enumeration and against the sampler.

* Every single-unit matrix is checked entry by entry against the conditional
  probabilities computed from bm.boltzmann_distribution (heat bath) and the
  Metropolis acceptance min(1, p(s') / p(s)).
* Sweep matrices are compared with the independent construction in
  test_sampling.exact_sweep_matrix, and with bm.sample: the states of many
  chains after one sweep from a fixed state must follow the matrix's row
  (chi-square, seed SEED, p-value > ALPHA as in test_sampling.py).
* Detailed balance and stationarity hold to rounding error where the chapter
  says they do, and the sequential sweep is shown not to be reversible.
"""
import numpy as np
import pytest
from _stats import chi_square_pvalue
from test_sampling import B6, W6, exact_sweep_matrix

import bmlib as bm

SEED = 20261122
ALPHA = 1e-4
RULES = ("heat_bath", "metropolis")
SCANS = ("sequential", "random", "colouring")
UNITS = ("spins", "bits")
W4 = np.array([[0, 1, -1, -0.5], [1, 0, -0.5, -1], [-1, -0.5, 0, 1], [-0.5, -1, 1, 0]])
B4 = np.array([0.5, 0, 0, -0.5])


def flipped_code(k, i, n):
    return k ^ (1 << (n - 1 - i))


@pytest.mark.parametrize("units", UNITS)
@pytest.mark.parametrize("T", (0.7, 2.0))
def test_single_unit_matrices_against_enumeration(T, units):
    n = len(B6)
    p = bm.boltzmann_distribution(W6, B6, T, units)
    for i in range(n):
        hb = bm.transition_matrix(W6, B6, T, units, rule="heat_bath", unit=i)
        me = bm.transition_matrix(W6, B6, T, units, rule="metropolis", unit=i)
        for k in range(2**n):
            m = flipped_code(k, i, n)
            # Heat bath: the conditional probability of the other value of unit i.
            assert hb[k, m] == pytest.approx(p[m] / (p[k] + p[m]), abs=1e-12)
            assert me[k, m] == pytest.approx(min(1.0, p[m] / p[k]), abs=1e-12)
            for P in (hb, me):
                assert P[k, k] == pytest.approx(1 - P[k, m], abs=1e-12)
                assert np.count_nonzero(P[k]) <= 2  # nowhere but s and s with unit i flipped


@pytest.mark.parametrize("units", UNITS)
@pytest.mark.parametrize("scan", SCANS)
@pytest.mark.parametrize("rule", RULES)
def test_sweep_matrix_equals_independent_construction(rule, scan, units):
    P = bm.transition_matrix(W6, B6, 0.8, units, rule=rule, scan=scan)
    np.testing.assert_allclose(P, exact_sweep_matrix(W6, B6, 0.8, units, rule, scan), atol=1e-12)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert (P >= 0).all()


@pytest.mark.parametrize("scan", ("sequential", "colouring"))
@pytest.mark.parametrize("rule", RULES)
def test_one_sweep_of_the_sampler_follows_the_matrix(rule, scan):
    start = np.array([1, -1, 1, 1, -1, -1])
    P = bm.transition_matrix(W6, B6, 1.2, rule=rule, scan=scan)
    run = bm.sample(W6, B6, 1.2, n_samples=1, n_chains=20_000, burn_in=0, rule=rule, scan=scan, initial=start,
                    rng=SEED)
    counts = np.bincount(bm.state_index(run.samples[0]), minlength=P.shape[0])
    assert chi_square_pvalue(counts, P[bm.state_index(start)]) > ALPHA


@pytest.mark.parametrize("units", UNITS)
@pytest.mark.parametrize("rule", RULES)
def test_detailed_balance_and_stationarity(rule, units):
    T = 1.5
    p = bm.boltzmann_distribution(W6, B6, T, units)

    def imbalance(P):
        flow = p[:, None] * P
        return np.abs(flow - flow.T).max()

    for i in range(len(B6)):
        assert imbalance(bm.transition_matrix(W6, B6, T, units, rule=rule, unit=i)) < 1e-14
    assert imbalance(bm.transition_matrix(W6, B6, T, units, rule=rule, scan="random")) < 1e-14
    for scan in SCANS:
        P = bm.transition_matrix(W6, B6, T, units, rule=rule, scan=scan)
        np.testing.assert_allclose(p @ P, p, atol=1e-14)
    # A sweep in a fixed order is a product of reversible steps, but not reversible itself.
    assert imbalance(bm.transition_matrix(W6, B6, T, units, rule=rule, scan="sequential")) > 1e-4  # vs < 1e-14 above


def test_heat_bath_sweep_is_positive_and_zero_field_metropolis_is_periodic():
    # The chapter's claims: heat bath reaches every state in one sweep; Metropolis at zero field flips
    # every unit (sequential: a permutation), and with a random scan alternates the parity of the state.
    assert (bm.transition_matrix(W4, B4, 1.0) > 0).all()
    W0 = np.zeros((3, 3))
    P = bm.transition_matrix(W0, rule="metropolis")
    np.testing.assert_array_equal(P, np.eye(8)[::-1])
    R = bm.transition_matrix(W0, rule="metropolis", scan="random")
    parity = (bm.all_states(3) == 1).sum(axis=1) % 2
    assert np.all(R[parity[:, None] == parity[None, :]] == 0)
    np.testing.assert_allclose(bm.transition_matrix(W0, rule="heat_bath"), np.full((8, 8), 1 / 8))


def test_relaxation_times_of_the_chapter():
    # Second eigenvalue of the heat-bath sweep on the chapter's network: slow at T = 1, very slow at 0.5.
    def relaxation(T):
        lam = np.sort(np.abs(np.linalg.eigvals(bm.transition_matrix(W4, B4, T))))[-2]
        return -1 / np.log(lam)

    assert 30 < relaxation(1.0) < 40
    assert relaxation(0.5) > 100 * relaxation(1.0)


def test_state_frequencies_and_total_variation():
    states = np.array([[[1, 1], [-1, 1]], [[1, 1], [1, -1]]])
    np.testing.assert_allclose(bm.state_frequencies(states), [0, 0.25, 0.25, 0.5])
    np.testing.assert_allclose(bm.state_frequencies([[0, 1], [1, 1]], units="bits"), [0, 0.5, 0, 0.5])
    rng = np.random.default_rng(0)
    S = rng.choice([-1, 1], size=(500, 5))
    np.testing.assert_allclose(bm.state_frequencies(S), np.bincount(bm.state_index(S), minlength=32) / 500)
    assert bm.total_variation([1, 0], [0, 1]) == 1.0
    assert bm.total_variation([0.5, 0.5], [0.5, 0.5]) == 0.0
    np.testing.assert_allclose(bm.total_variation(np.eye(3), [1, 0, 0]), [0, 1, 1])


def test_convergence_curves_start_at_the_initial_distance_and_agree():
    p = bm.boltzmann_distribution(W4, B4, 1.0)
    curves = bm.convergence_curves(W4, B4, 1.0, initial=[-1, -1, 1, 1], n_sweeps=30, n_chains=4000, rng=SEED)
    for exact, sampled in curves.values():
        assert exact[0] == sampled[0] == pytest.approx(1 - p[3])
        assert np.all(np.diff(exact[5:]) < 0)
        # 4000 chains: the histogram's distance is within noise (~0.02) of the exact one.
        assert np.abs(exact - sampled).max() < 0.05
    uniform = bm.convergence_curves(W4, B4, 3.0, n_sweeps=40, n_chains=10, rules=("heat_bath",), rng=0)
    assert uniform["heat_bath"][0][0] == pytest.approx(bm.total_variation(np.full(16, 1 / 16),
                                                       bm.boltzmann_distribution(W4, B4, 3.0)))
    assert uniform["heat_bath"][0][-1] < 1e-6


def test_validation():
    with pytest.raises(ValueError, match="n <= 10"):
        bm.transition_matrix(np.zeros((11, 11)))
    with pytest.raises(ValueError, match="rule must be one of"):
        bm.transition_matrix(W4, rule="glauber")
    with pytest.raises(ValueError, match="scan must be one of"):
        bm.transition_matrix(W4, scan="backwards")
    with pytest.raises(ValueError, match="unit must be <= 3"):
        bm.transition_matrix(W4, unit=4)
    with pytest.raises(ValueError, match="T must be finite and > 0"):
        bm.transition_matrix(W4, T=0.0)
    with pytest.raises(ValueError, match="same states"):
        bm.total_variation([0.5, 0.5], [1, 0, 0])
    with pytest.raises(ValueError, match="spins"):
        bm.state_frequencies([[1, 2]])
    with pytest.raises(ValueError, match="one state of shape"):
        bm.convergence_curves(W4, initial=np.ones((2, 4)))
