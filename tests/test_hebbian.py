"""Hebb's rule as weights, and the energy gradient it follows."""
import numpy as np
import pytest

import bmlib as bm


def test_energy_gradient_in_a_weight_is_minus_the_product():
    # dE/dw_ij = -s_i s_j, checked by finite differences on a random model.
    rng = np.random.default_rng(3)
    A = np.triu(rng.normal(size=(10, 10)), 1)
    W, b = A + A.T, rng.normal(size=10)
    s = rng.choice([-1, 1], size=10)
    for i, j in [(3, 8), (0, 1), (2, 9)]:
        step = np.zeros_like(W)
        step[i, j] = step[j, i] = 1e-3
        slope = (bm.energy(s, W + step, b) - bm.energy(s, W - step, b)) / 2e-3
        assert slope == pytest.approx(-s[i] * s[j])


def test_one_pattern_is_stable_under_its_hebbian_weights():
    rng = np.random.default_rng(4)
    s = rng.choice([-1, 1], size=10)
    W = bm.hebbian_weights(s)
    np.testing.assert_array_equal(W, W.T)
    assert np.all(np.diag(W) == 0)
    assert bm.is_stable(s, W) and bm.is_stable(-s, W)
    np.testing.assert_allclose(bm.local_fields(s, W), 9 * s)


def test_hebbian_weights_average_over_patterns():
    P = np.array([[1, 1, -1], [1, -1, -1]])
    W = bm.hebbian_weights(P, scale=2.0)
    expected = 2.0 * (np.outer(P[0], P[0]) + np.outer(P[1], P[1])) / 2
    np.fill_diagonal(expected, 0)
    np.testing.assert_array_equal(W, expected)


def test_hebbian_weights_want_spins():
    with pytest.raises(ValueError, match="spins"):
        bm.hebbian_weights([0, 1, 1])
