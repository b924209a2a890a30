"""Checks of a model's parameters: weights W, biases b, a restricted machine's, connectivity masks."""
from __future__ import annotations

import numpy as np

from .arrays import _as_real_array, _check_finite
from .scalars import _show


def check_weights(W, name="W"):
    """Return ``W`` as a float array after checking it is a valid weight matrix.

    The rules: square 2-D, finite, symmetric, zero diagonal.
    """
    W = _as_real_array(W, name)
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"{name} must be a square matrix of shape (n, n); got shape {W.shape}")
    _check_finite(W, name)
    scale = max(1.0, float(np.abs(W).max(initial=0.0)))
    asym = np.abs(W - W.T)
    if asym.max(initial=0.0) > 1e-10 * scale:
        i, j = np.unravel_index(int(np.argmax(asym)), W.shape)
        raise ValueError(
            f"{name} must be symmetric; {name}[{i}, {j}] = {W[i, j]:.6g} but {name}[{j}, {i}] = {W[j, i]:.6g}"
        )
    diag = np.abs(np.diag(W))
    if diag.max(initial=0.0) > 1e-10 * scale:
        i = int(np.argmax(diag))
        raise ValueError(
            f"{name} must have a zero diagonal (no self-couplings); {name}[{i}, {i}] = {W[i, i]:.6g}"
        )
    # Symmetrize exactly so that round-off in the caller's matrix cannot leak in.
    # Both forms below are the correctly rounded mean of W and W.T: 0.5 * (W + W.T)
    # overflows once W + W.T passes the largest float (|W_ij| >= ~9e307), and
    # 0.5 * W + 0.5 * W.T loses subnormal entries when halving them, so each is
    # used where the other fails. The choice is symmetric, and so is the result.
    big = np.maximum(np.abs(W), np.abs(W.T)) > 1.0
    with np.errstate(over="ignore"):  # the overflowing entries are the ones not chosen
        W = np.where(big, 0.5 * W + 0.5 * W.T, 0.5 * (W + W.T))
    np.fill_diagonal(W, 0.0)
    return W


def check_bias(b, n, name="b"):
    """Return ``b`` as a float vector of length ``n`` (zeros if ``None``)."""
    if b is None:
        return np.zeros(n)
    b = _as_real_array(b, name)
    if b.ndim != 1 or b.shape[0] != n:
        raise ValueError(f"{name} must have shape ({n},) to match W of shape ({n}, {n}); got shape {b.shape}")
    _check_finite(b, name)
    return b


def check_model(W, b=None):
    """Validate the parameters (W, b) of a model; return them as float arrays.

    ``W`` may also be a coupling operator (:class:`~bmlib.SquareLattice`,
    :class:`~bmlib.DenseCouplings`), which stands for its dense ``W`` and ``b``.
    """
    dense_model = getattr(W, "dense_model", None)
    if callable(dense_model):
        if b is not None:
            raise ValueError(f"b must be None when W is a {type(W).__name__}; it brings its own biases")
        W, b = dense_model()
    W = check_weights(W)
    return W, check_bias(b, W.shape[0])


def check_rbm_parameters(W, b_visible=None, b_hidden=None):
    """Validate the parameters of a restricted Boltzmann machine; return them as float arrays.

    The rules: ``W`` a finite matrix of shape ``(n_visible, n_hidden)``, both >= 1;
    ``b_visible`` of shape ``(n_visible,)`` and ``b_hidden`` of shape ``(n_hidden,)`` (zeros if ``None``).
    """
    W = _as_real_array(W, "W")
    if W.ndim != 2 or 0 in W.shape:
        raise ValueError(
            f"W must be a matrix of shape (n_visible, n_hidden) with both sizes >= 1; got shape {W.shape}"
        )
    _check_finite(W, "W")
    biases = []
    for b, size, name in ((b_visible, W.shape[0], "b_visible"), (b_hidden, W.shape[1], "b_hidden")):
        if b is None:
            biases.append(np.zeros(size))
            continue
        b = _as_real_array(b, name)
        if b.shape != (size,):
            raise ValueError(f"{name} must have shape ({size},) to match W of shape {W.shape}; got shape {b.shape}")
        _check_finite(b, name)
        biases.append(b)
    return W, biases[0], biases[1]


def check_mask(mask, n, name="mask"):
    """Return a connectivity mask as a bool array of shape ``(n, n)``: symmetric, False diagonal."""
    arr = np.asarray(mask)
    if arr.dtype != bool:
        arr = _as_real_array(arr, name)
        if not np.isin(arr, (0.0, 1.0)).all():
            raise ValueError(f"{name} must be boolean (True where two units are connected); got values {_show(arr)}")
        arr = arr.astype(bool)
    if arr.shape != (n, n):
        raise ValueError(f"{name} must have shape ({n}, {n}), one row and column per unit; got shape {arr.shape}")
    asym = np.argwhere(arr != arr.T)
    if asym.size:
        i, j = (int(k) for k in asym[0])
        raise ValueError(f"{name} must be symmetric; {name}[{i}, {j}] = {arr[i, j]} but {name}[{j}, {i}] = {arr[j, i]}")
    diag = np.flatnonzero(np.diag(arr))
    if diag.size:
        i = int(diag[0])
        raise ValueError(f"{name} must have a False diagonal (no self-couplings); {name}[{i}, {i}] = True")
    return arr


def check_masked_weights(W, mask, name="W"):
    """Refuse a weight between two units that ``mask`` leaves unconnected."""
    bad = np.argwhere((W != 0) & ~mask)
    if bad.size:
        i, j = (int(k) for k in bad[0])
        raise ValueError(
            f"{name} must be 0 where mask is False (units {i} and {j} are not connected); {name}[{i}, {j}] = {W[i, j]:.6g}"
        )
    return W
