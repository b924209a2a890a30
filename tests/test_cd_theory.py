"""The exact expected CD-k update (bmlib/learning/cd_theory.py): against brute force, and not a gradient."""
import numpy as np
import pytest

import bmlib as bm


def brute_force_cd1(rbm, data):
    """E_data[v hbar(v)^T] - E[v' hbar(v')^T] after one v -> h -> v' round, summed state by state."""
    V = bm.all_states(rbm.n_visible, rbm.units).astype(float)
    H = bm.all_states(rbm.n_hidden, rbm.units).astype(float)
    high = 1.0

    def prob(states, means):
        p_on = means if rbm.units == "bits" else (1 + means) / 2
        return np.prod(np.where(states == high, p_on, 1 - p_on))

    total = np.zeros_like(rbm.W)
    data = np.asarray(data, float)
    for v in data:
        total += np.outer(v, rbm.hidden_means(v))
        for h in H:
            ph = prob(h, rbm.hidden_means(v))
            for v2 in V:
                total -= ph * prob(v2, rbm.visible_means(h)) * np.outer(v2, rbm.hidden_means(v2))
    return total / len(data) / rbm.T


@pytest.mark.parametrize("units", ["bits", "spins"])
def test_cd1_expectation_equals_brute_force_and_infinite_k_the_gradient(units):
    rbm = bm.RBM(3, 2, units=units, init_scale=1.0, rng=4)
    data = bm.all_states(3, units)[[1, 5, 6]]
    np.testing.assert_allclose(bm.expected_cd_update(rbm, data, k=1).W, brute_force_cd1(rbm, data), atol=1e-12)
    exact = rbm.gradient(data)
    assert np.allclose(bm.expected_cd_update(rbm, data, k=None).W, exact.W, atol=1e-12)
    assert np.allclose(bm.expected_cd_update(rbm, data, k=400).W, exact.W, atol=1e-9)


def test_the_gradient_has_a_symmetric_jacobian_and_cd1_does_not():
    rbm = bm.RBM(3, 2, units="bits", init_scale=1.0, rng=0)
    data = [[1, 0, 1], [0, 1, 1]]
    J_ml = bm.update_jacobian(rbm, data, k=None)
    J_cd = bm.update_jacobian(rbm, data, k=1)
    assert np.abs(J_ml - J_ml.T).max() < 1e-8  # the Hessian of L
    assert np.abs(J_cd - J_cd.T).max() > 0.03  # measured 0.036: no function has CD-1 as its gradient


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="at most 12 units"):
        bm.expected_cd_update(bm.RBM(10, 4), [[1] * 10])
    with pytest.raises(TypeError, match="rbm must be a bmlib RBM"):
        bm.expected_cd_update(bm.BoltzmannMachine(3), [[1, 1, 1]])
    with pytest.raises(ValueError, match="k must be >= 1"):
        bm.expected_cd_update(bm.RBM(2, 1), [[1, 1]], k=0)


def test_probabilities_halve_the_noise_of_a_cd1_estimate_without_moving_its_mean():
    """Seed 1, 2000 repeats on 3x3 bars and stripes: the spread with probabilities is well below the one
    with samples, and the two averages agree within 5 standard errors of their difference."""
    rbm = bm.RBM(9, 16, units="bits", init_scale=0.5, rng=0)
    spread = bm.cd_update_spread(rbm, bm.bars_and_stripes(3, units="bits"), n_runs=2000, rng=1)
    assert spread["probabilities"] < 0.75 * spread["samples"]
    standard_error = np.hypot(spread["probabilities"], spread["samples"]) / np.sqrt(2000)
    assert spread["difference_of_means"] < 5 * standard_error
