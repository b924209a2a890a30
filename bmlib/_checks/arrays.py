"""Checks of numeric arrays: real and finite entries, probability vectors, unit indices.

``_as_real_array`` and ``_check_finite`` are the two rules every array check
starts from; ``as_numeric_array`` applies the first without copying.
"""
from __future__ import annotations

import numpy as np

from .scalars import _show


def _as_real_array(x, name):
    try:
        arr = np.asarray(x)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"{name} must be a numeric array; could not convert it ({exc})") from None
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"{name} must be a numeric array; got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must be real; got a complex array")
    return arr.astype(float)


def _check_finite(arr, name):
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        where = f"[{', '.join(map(str, idx))}]" if idx else ""
        raise ValueError(f"{name} must be finite; {name}{where} = {arr[idx] if idx else arr}")


def as_numeric_array(x, name):
    """Return ``np.asarray(x)`` (not converted, not copied) if it is a real numeric array, else raise.

    The rules and wording are those of ``_as_real_array``: numbers (or bools) of one
    shape, not complex.
    """
    try:
        arr = np.asarray(x)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(
            f"{name} must be a numeric array of one shape (not ragged); could not convert it ({exc})"
        ) from None
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"{name} must be a numeric array; got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must be real; got a complex array")
    return arr


def check_finite_data(x, name):
    """Return ``x`` as a float array if it is numeric and finite (data for a plot), else raise."""
    arr = _as_real_array(x, name)
    _check_finite(arr, name)
    return arr


def check_distribution(p, name):
    """Return ``p`` as a float array of probability vectors along its last axis, else raise.

    The rules: shape ``(m,)`` or ``(..., m)`` with ``m >= 1``, finite entries
    >= 0, each vector summing to 1 (within 1e-6).
    """
    arr = _as_real_array(p, name)
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise ValueError(f"{name} must have shape (m,) or (..., m) with m >= 1 states; got shape {arr.shape}")
    _check_finite(arr, name)
    if (arr < 0).any():
        idx = tuple(int(i) for i in np.argwhere(arr < 0)[0])
        raise ValueError(f"{name} must hold probabilities >= 0; {name}[{', '.join(map(str, idx))}] = {arr[idx]:.6g}")
    totals = arr.sum(axis=-1)
    off = np.abs(totals - 1.0) > 1e-6
    if np.any(off):
        idx = tuple(int(i) for i in np.argwhere(np.atleast_1d(off))[0]) if np.ndim(off) else ()
        total = float(np.atleast_1d(totals)[idx] if idx else totals)
        raise ValueError(f"{name} must sum to 1 along its last axis (a probability distribution); it sums to {total:.6g}")
    return arr


def check_indices(indices, n, name):
    """Return distinct unit indices in ``0..n-1`` as an int array of shape (k,), else raise."""
    idx = np.asarray(indices)
    if idx.ndim != 1 or (idx.size and not np.issubdtype(idx.dtype, np.integer)):
        raise TypeError(f"{name} must be a 1-D sequence of unit indices; got {_show(indices)}")
    idx = idx.astype(int)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = int(idx[(idx < 0) | (idx >= n)][0])
        raise ValueError(f"{name} indices must be in 0..{n - 1}; got {bad}")
    if len(np.unique(idx)) != idx.size:
        raise ValueError(f"{name} indices must not repeat; got {idx.tolist()}")
    return idx


def check_unit_indices(indices, n, name):
    """Return distinct unit indices (at least one) as an int array of shape (k,), else raise.

    With ``n`` the indices must lie in ``0..n-1``; with ``n=None`` only in ``0..``.
    """
    idx = np.asarray(indices)
    if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"{name} must be a non-empty 1-D sequence of unit indices; got {_show(indices)}")
    idx = idx.astype(int)
    if idx.min() < 0:
        raise ValueError(f"{name} must be unit indices >= 0; got {int(idx.min())}")
    if n is not None and idx.max() >= n:
        bad = int(idx[(idx < 0) | (idx >= n)][0])
        raise ValueError(f"{name} must be indices in 0..{n - 1}; got {bad}")
    if len(np.unique(idx)) != idx.size:
        raise ValueError(f"{name} must not repeat; got {idx.tolist()}")
    return idx
