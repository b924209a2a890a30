"""Small numerical pieces that several modules need, each written once."""
from __future__ import annotations

import numpy as np


def sigmoid(z):
    """``1 / (1 + exp(-z))`` for any real ``z``, elementwise.

    The tanh form cannot overflow for any ``z`` and is one cheap ufunc
    (``exp(-logaddexp(0, -z))`` is also stable but three times slower); its
    absolute error is ~1e-16.

    Examples
    --------
    >>> import numpy as np
    >>> from bmlib._numerics import sigmoid
    >>> sigmoid(np.array([-800.0, 0.0, 800.0])).tolist()
    [0.0, 0.5, 1.0]
    """
    # In place on one temporary: the same operations, in the same order, with one array allocated.
    out = np.multiply(z, 0.5)
    if not isinstance(out, np.ndarray):  # a scalar: no buffer to work in
        return 0.5 * (1.0 + np.tanh(out))
    np.tanh(out, out=out)
    out += 1.0
    out *= 0.5
    return out


def unit_mean(field, T, units):
    """``E[s]`` of one unit alone in a field: ``tanh(field / T)`` for spins, ``sigmoid(field / T)`` for bits.

    The conditional mean of a unit given the rest of the state; the heat-bath
    rule draws from the distribution with this mean, and the exact moments
    of an RBM sum it over the other layer.

    Examples
    --------
    >>> import numpy as np
    >>> from bmlib._numerics import unit_mean
    >>> unit_mean(np.array([0.0, 1.0]), 1.0, "spins").round(4).tolist()
    [0.0, 0.7616]
    """
    # x / 1.0 is x exactly: one NumPy call less. (isinstance, not np.ndim: this runs twice per Gibbs
    # round of a small batch, where every microsecond shows; a per-chain T is an array and divides.)
    z = field if isinstance(T, float) and T == 1.0 else field / T
    return sigmoid(z) if units == "bits" else np.tanh(z)
