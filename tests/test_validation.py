"""Every bad input at the public boundary raises a clear error naming the argument."""
import numpy as np
import pytest

import bmlib as bm

W2 = np.array([[0.0, 1.0], [1.0, 0.0]])
EXACT = [bm.log_partition, bm.boltzmann_distribution, bm.exact_moments, bm.exact_energy_moments]


@pytest.mark.parametrize("func", EXACT)
@pytest.mark.parametrize(
    "W, message",
    [
        (np.zeros((2, 3)), r"W must be a square matrix of shape \(n, n\); got shape \(2, 3\)"),
        (np.zeros(3), r"W must be a square matrix"),
        ([[0, 1], [0.5, 0]], r"W must be symmetric; W\[0, 1\] = 1 but W\[1, 0\] = 0.5"),
        ([[1, 0], [0, 0]], r"W must have a zero diagonal .*W\[0, 0\] = 1"),
        ([[0, np.nan], [np.nan, 0]], r"W must be finite; W\[0, 1\] = nan"),
        ([[0, np.inf], [np.inf, 0]], r"W must be finite; W\[0, 1\] = inf"),
    ],
)
def test_bad_weights(func, W, message):
    with pytest.raises(ValueError, match=message):
        func(W)


def test_weights_of_wrong_type():
    with pytest.raises(TypeError, match="W must be a numeric array"):
        bm.log_partition([["a", "b"], ["c", "d"]])
    with pytest.raises(TypeError, match="W must be real"):
        bm.log_partition(np.array([[0, 1j], [1j, 0]]))


@pytest.mark.parametrize("func", EXACT)
def test_bad_bias(func):
    with pytest.raises(ValueError, match=r"b must have shape \(2,\) to match W of shape \(2, 2\); got shape \(3,\)"):
        func(W2, [0, 0, 0])
    with pytest.raises(ValueError, match=r"b must be finite; b\[1\] = nan"):
        func(W2, [0, np.nan])


@pytest.mark.parametrize("func", EXACT)
@pytest.mark.parametrize("T", [0, -1.0, np.inf, np.nan])
def test_bad_temperature(func, T):
    with pytest.raises(ValueError, match="T must be finite and > 0"):
        func(W2, None, T)


@pytest.mark.parametrize("T", ["1.0", None, True, [1.0]])
def test_temperature_of_wrong_type(T):
    with pytest.raises(TypeError, match="T must be a real number > 0"):
        bm.log_partition(W2, None, T)


@pytest.mark.parametrize("func", EXACT)
@pytest.mark.parametrize("units", ["spin", "Bits", None, 1])
def test_bad_units(func, units):
    with pytest.raises(ValueError, match='units must be "spins" or "bits"'):
        func(W2, None, 1.0, units)


def test_bad_units_for_all_states():
    with pytest.raises(ValueError, match='units must be "spins" or "bits"; got \'binary\''):
        bm.all_states(3, "binary")


def test_states_not_in_units():
    with pytest.raises(ValueError, match=r"s must hold spins \(-1/\+1\) because units='spins'; s\[1\] = 0"):
        bm.energy([1, 0], W2, units="spins")
    with pytest.raises(ValueError, match=r"s must hold bits \(0/1\) because units='bits'; s\[0\] = -1"):
        bm.energy([-1, 1], W2, units="bits")
    with pytest.raises(ValueError, match=r"s must hold spins \(-1/\+1\) or bits \(0/1\) only"):
        bm.energy([-1, 0], W2)
    with pytest.raises(ValueError, match=r"s must hold spins .* or bits"):
        bm.local_fields([0.5, 1], W2)
    with pytest.raises(ValueError, match=r"s must have shape \(n,\) or \(\.\.\., n\) with n = 2; got shape \(3,\)"):
        bm.energy([1, 1, 1], W2)
    with pytest.raises(ValueError, match=r"x must hold bits"):
        bm.to_spins([1, -1])
    with pytest.raises(ValueError, match=r"s must hold spins"):
        bm.to_bits([0, 1])


def test_enumeration_limit_names_the_limit_and_the_alternatives():
    n = bm.MAX_EXACT_UNITS + 1
    dense = bm.sk_couplings(n, rng=0)
    with pytest.raises(ValueError, match=rf"n = {n} units exceeds the limit of {bm.MAX_EXACT_UNITS}.*sampling.*mean-field"):
        bm.log_partition(dense)
    # Without couplings the units are independent: elimination sums them one by one.
    assert bm.log_partition(np.zeros((n, n))) == pytest.approx(n * np.log(2), rel=1e-14)
    with pytest.raises(ValueError, match=rf"n = {n} units exceeds the limit"):
        bm.exact_moments(np.zeros((n, n)))
    n = bm.MAX_TABLE_UNITS + 1
    with pytest.raises(ValueError, match=rf"limited to n <= {bm.MAX_TABLE_UNITS}; got n = {n}"):
        bm.boltzmann_distribution(np.zeros((n, n)))
    with pytest.raises(ValueError, match=rf"n must be <= {bm.MAX_TABLE_UNITS} for a full table"):
        bm.all_states(n)
    with pytest.raises(ValueError, match="n must be >= 0"):
        bm.all_states(-1)
    with pytest.raises(TypeError, match="n must be an integer"):
        bm.all_states(2.0)


def test_bad_clamping():
    W3 = np.zeros((3, 3))
    with pytest.raises(ValueError, match=r"clamped indices must be in 0\.\.2; got 3"):
        bm.clamped_moments(W3, None, clamped=[0, 3], values=[1, 1])
    with pytest.raises(ValueError, match=r"clamped indices must not repeat; got \[1, 1\]"):
        bm.clamped_moments(W3, None, clamped=[1, 1], values=[1, 1])
    with pytest.raises(TypeError, match="clamped must be a 1-D sequence of unit indices"):
        bm.clamped_moments(W3, None, clamped=[0.5], values=[1])
    with pytest.raises(ValueError, match=r"values must have shape \(2,\) for one pattern or \(P, 2\)"):
        bm.clamped_moments(W3, None, clamped=[0, 1], values=[1, 1, 1])
    with pytest.raises(ValueError, match=r"values must hold bits \(0/1\) because units='bits'"):
        bm.clamped_moments(W3, None, clamped=[0, 1], values=[1, -1], units="bits")
    with pytest.raises(ValueError, match=r"values must have shape"):
        bm.clamped_log_partition(W3, None, clamped=[0], values=np.zeros((0, 1)))


def test_bad_descent_arguments():
    with pytest.raises(ValueError, match='scan must be "sequential" or "random"'):
        bm.energy_descent([1, 1], W2, scan="backwards")
    with pytest.raises(ValueError, match=r"s must be a single state of shape \(2,\)"):
        bm.energy_descent([[1, 1]], W2)
    with pytest.raises(ValueError, match="max_iter must be >= 1"):
        bm.energy_descent([1, 1], W2, max_iter=0)
    with pytest.raises(TypeError, match="rng must be None, a non-negative int seed or a numpy.random.Generator"):
        bm.energy_descent([1, 1], W2, scan="random", rng="seed")
