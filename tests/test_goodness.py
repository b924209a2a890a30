"""The chi-square goodness-of-fit test against published tables and exact distributions."""
import numpy as np
import pytest

import bmlib as bm
from bmlib.sampling.goodness import chi_square_survival

# Upper-tail critical values of chi-square (standard published tables, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.4).
TABLE = [
    (1, 0.05, 3.841), (2, 0.05, 5.991), (5, 0.05, 11.070), (10, 0.05, 18.307), (30, 0.05, 43.773),
    (1, 0.01, 6.635), (10, 0.01, 23.209), (50, 0.01, 76.154), (100, 0.01, 135.807), (3, 0.10, 6.251),
]


@pytest.mark.parametrize("dof, tail, x", TABLE)
def test_survival_matches_published_critical_values(dof, tail, x):
    # Tables give x to 3 decimals; the tail moves by density * 0.0005 at most.
    assert chi_square_survival(x, dof) == pytest.approx(tail, abs=3e-5)


def test_survival_limits_and_closed_forms():
    assert chi_square_survival(0.0, 4) == 1.0
    for x in (0.5, 2.0, 7.0, 40.0):
        assert chi_square_survival(x, 2) == pytest.approx(np.exp(-x / 2), rel=1e-13)  # dof 2: exponential
        assert chi_square_survival(x, 4) == pytest.approx(np.exp(-x / 2) * (1 + x / 2), rel=1e-13)


def test_state_index_inverts_all_states(rng):
    for units in ("spins", "bits"):
        S = bm.all_states(7, units)
        assert bm.state_index(S).tolist() == list(range(128))
        k = rng.integers(0, 128, size=(3, 5))
        assert np.array_equal(bm.state_index(S[k]), k)
    assert bm.state_index([-1, 1, 1]) == 3 and isinstance(bm.state_index([0, 1]), int)
    with pytest.raises(ValueError, match="states must hold spins"):
        bm.state_index([1, 0, -1])


def test_samples_of_the_right_distribution_pass_and_of_a_wrong_one_fail(rng):
    W, b = np.array([[0, 0.8, 0], [0.8, 0, -0.5], [0, -0.5, 0]]), np.array([0.2, 0, -0.3])
    p = bm.boltzmann_distribution(W, b, T=1.0)
    S = bm.all_states(3)
    p_values = [bm.chi_square_test(S[rng.choice(8, size=3000, p=p)], p).p_value for _ in range(20)]
    assert min(p_values) > 1e-3  # 20 tests of a true hypothesis, seed 20261122
    wrong = bm.boltzmann_distribution(W, b, T=1.3)
    assert bm.chi_square_test(S[rng.choice(8, size=3000, p=p)], wrong).p_value < 1e-6
    result = bm.chi_square_test(S[rng.choice(8, size=3000, p=p)], p)
    assert result.dof == 7 and result.n_samples == 3000


def test_a_state_of_probability_zero_that_was_seen_fails_the_test():
    p = np.array([0.5, 0.5, 0.0, 0.0])
    assert bm.chi_square_test([[-1, -1], [1, 1]], p).p_value == 0.0


@pytest.mark.parametrize("p, message", [([0.5, 0.6], "sum to 1"), ([0.5, 0.25, 0.25], r"shape \(2\*\*n,\)"),
                                        ([1.5, -0.5], "non-negative")])
def test_bad_probabilities(p, message):
    with pytest.raises(ValueError, match=message):
        bm.chi_square_test([[1]], p)


def test_autocorrelation_matches_a_direct_sum(rng):
    x = rng.normal(size=(300, 3)).cumsum(axis=0)
    d = x - x.mean(axis=0)
    direct = np.array([np.sum(d[: 300 - t] * d[t:]) for t in range(6)])
    assert bm.autocorrelation(x, max_lag=5) == pytest.approx(direct / direct[0], rel=1e-10)
    with pytest.raises(ValueError, match="max_lag must be <= 299"):
        bm.autocorrelation(x, max_lag=300)


def test_curie_weiss_field_of_a_uniform_state_is_J_m():
    for n in (2, 5, 40):
        W = bm.curie_weiss_couplings(n, J=1.7)
        assert np.allclose(bm.local_fields(np.ones(n), W), 1.7) and np.all(np.diag(W) == 0)
