"""Inverse Ising by mean field (bmlib/meanfield/inverse_ising.py), against models whose moments are exact."""
import numpy as np
import pytest

import bmlib as bm
from bmlib.meanfield.inverse_ising import _from_moments
from conftest import random_model


def exact_connected(W, b, T=1.0):
    mean, second = bm.exact_moments(W, b, T)
    return mean, second - np.outer(mean, mean)


@pytest.mark.parametrize("method", ["naive", "tap"])
def test_no_couplings_is_recovered_exactly(method):
    b = np.array([0.3, -0.5, 0.1, 0.0])
    m, C = exact_connected(np.zeros((4, 4)), b)
    W, b_hat = _from_moments(m, C, 1.0, method)
    np.testing.assert_allclose(W, 0, atol=1e-12)
    np.testing.assert_allclose(b_hat, b, atol=1e-12)


def test_errors_shrink_with_the_coupling_and_tap_beats_naive():
    """Weak couplings: naive errors fall like the coupling scale squared (x4 per doubling), TAP's like its cube
    (x8), and TAP's are the smaller at every scale tried."""
    W0, b = random_model(7, np.random.default_rng(3), scale=1.0)
    b = 0.3 * b
    errors = {"naive": [], "tap": []}
    for scale in (0.005, 0.01, 0.02):
        m, C = exact_connected(scale * W0, b)
        for method in errors:
            W, _ = _from_moments(m, C, 1.0, method)
            errors[method].append(np.abs(W - scale * W0).max())
    naive, tap = np.array(errors["naive"]), np.array(errors["tap"])
    assert np.all(tap < naive)
    assert 3.0 < naive[1] / naive[0] < 5.0  # second order
    assert 6.0 < tap[1] / tap[0] < 10.0  # third order


def test_temperature_scales_the_weights():
    W0, b = random_model(5, np.random.default_rng(1), scale=0.2)
    m, C = exact_connected(W0, b, T=2.0)
    W, b_hat = _from_moments(m, C, 2.0, "tap")
    assert np.abs(W - W0).max() < 0.05 and np.abs(b_hat - b).max() < 0.05


def test_data_path_and_bits_agree_with_spins():
    rng = np.random.default_rng(0)
    data = bm.ten_pixel_images(units="spins")
    W, b = bm.mean_field_inverse_ising(data)
    Wx, bx = bm.mean_field_inverse_ising(bm.to_bits(data), units="bits")
    Wc, bc, _ = bm.to_bits_parameters(W, b)
    np.testing.assert_allclose(Wx, Wc, atol=1e-10)
    np.testing.assert_allclose(bx, bc, atol=1e-10)
    assert np.allclose(W, W.T) and np.all(np.diag(W) == 0)
    del rng


def test_a_constant_unit_is_refused_by_name():
    data = np.array([[1, 1, -1], [1, -1, 1], [1, 1, 1]])
    with pytest.raises(ValueError, match="unit 0 has the same value in every pattern"):
        bm.mean_field_inverse_ising(data)
    with pytest.raises(ValueError, match="method must be one of"):
        bm.mean_field_inverse_ising(bm.ten_pixel_images(), method="exact")
