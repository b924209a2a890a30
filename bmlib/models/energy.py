"""The energy of a Boltzmann machine, its local fields, and single-unit flips.

bmlib writes every model the same way (chapter "Energy"):

    E(s) = -1/2 s^T W s - b^T s = -sum_{i<j} W_ij s_i s_j - sum_i b_i s_i

with ``W`` symmetric and zero on the diagonal. The formula is the same for
spins and bits; only the allowed values of ``s`` differ.

Argument order. Functions *of a state* take the state first, ``energy(s, W, b)``,
``local_fields(s, W, b)``, ``flip_energy_changes``, ``is_stable`` and
``energy_descent``: they read as ``E(s)`` with the model as parameters, and
``s`` may be a batch. Functions *of the model alone* (``log_partition(W, b, T)``,
``sample``, every estimator) take ``W`` first. That is the one rule everywhere
in bmlib.

Shared inside bmlib (documented internal names, not in the flat namespace and
not part of the 1.x promise): :func:`scale_exponent`, :func:`scaled_parameters`
and :func:`unscaled`, the exact power-of-two scaling that keeps the sums of
huge models finite (also used by the sampler's coupling operators).
"""
from __future__ import annotations

import math

import numpy as np

from .._checks import block_bytes, check_memory, check_model, check_state_batch, row_blocks
from .._ties import zero_field_tolerance

#: Partial sums of ``s^T W s`` and ``s W + b`` are bounded by ``(n**2 + n) max(|W|, |b|)``; when
#: that bound passes this value (about 1e301) the sums could overflow where the result is
#: finite, and they are computed on ``W`` and ``b`` divided by a power of 2 (exact), the result
#: multiplied back. Ordinary models stay far below it and keep their exact bits.
_SAFE_SUM = 2.0**1000


def scale_exponent(W, b):
    """``k`` such that the sums are safe with ``W / 2**k`` and ``b / 2**k``: 0 for ordinary models."""
    n = W.shape[0]
    big = max(float(np.abs(W).max(initial=0.0)), float(np.abs(b).max(initial=0.0)))
    if not big * (n * n + n) > _SAFE_SUM:
        return 0
    return int(np.frexp(big)[1])  # big / 2**k lies in [0.5, 1)


def scaled_parameters(W, b, k):
    """``(W / 2**k, b / 2**k)``, exact (a power of 2)."""
    return (W, b) if k == 0 else (np.ldexp(W, -k), np.ldexp(b, -k))


def unscaled(x, k):
    """``x * 2**k``: inf only where the exact value is itself beyond the float range."""
    if k == 0:
        return x
    with np.errstate(over="ignore"):  # such an energy or field is beyond the float range: inf is its rounding
        return np.ldexp(x, k)


def _by_rows(s, W, b, units, what, per_row, out_per_row, compute):
    """Check the states ``s`` and apply ``compute(S, W, b)`` to them as floats, in row blocks if large.

    ``per_row(n)``: bytes of temporaries per state; ``out_per_row(n)``: entries of the result
    per state (1 or n), float64 unless ``compute`` returns another dtype. An input that fits in
    one block is computed in one call on its own shape, exactly as before blocks existed.
    Returns ``(result, S_ndim, units)`` where ``units`` is the given or inferred units.
    """
    W, b = check_model(W, b)
    n = W.shape[0]
    row_bytes = per_row(n)

    def memory(arr):
        m = math.prod(arr.shape[:-1])
        # The result in full, one block of temporaries, and the model's scaled copies.
        check_memory(8 * m * out_per_row(n) + min(m * row_bytes, block_bytes()) + 16 * n * n,
                     f"{what} of {m:_} states of {n} units (s of shape {arr.shape})")

    arr, units = check_state_batch(s, n, units, memory=memory)
    m = math.prod(arr.shape[:-1])
    blocks = row_blocks(m, row_bytes)
    if len(blocks) == 1:
        return compute(arr.astype(float), W, b, units), arr.ndim, units
    rows = arr.reshape(m, n)
    first = compute(rows[blocks[0]].astype(float), W, b, units)
    out = np.empty((m,) + first.shape[1:], dtype=first.dtype)
    out[blocks[0]] = first
    for block in blocks[1:]:
        out[block] = compute(rows[block].astype(float), W, b, units)
    return out.reshape(arr.shape[:-1] + first.shape[1:]), arr.ndim, units


def _scalar_if_single(x, ndim):
    return float(x) if ndim == 1 else x


def _energies(S, W, b, units=None):
    """Energies of float states ``S`` of shape (..., n)."""
    k = scale_exponent(W, b)
    W, b = scaled_parameters(W, b, k)
    # "+ 0.0" turns the -0.0 of an empty sum into 0.0 for tidy printing.
    # With |W_ij| above 1, s^T W s counts each bond twice and can overflow where
    # E itself is finite; halving W first avoids that (and is exact for such W).
    if np.abs(W).max(initial=0.0) > 1.0:
        E = -np.einsum("...i,ij,...j->...", S, 0.5 * W, S) - S @ b + 0.0
    else:
        E = -0.5 * np.einsum("...i,ij,...j->...", S, W, S) - S @ b + 0.0
    return unscaled(E, k)


def _fields(S, W, b, units=None):
    """Local fields ``S W + b`` of float states ``S`` of shape (..., n)."""
    k = scale_exponent(W, b)
    Ws, bs = scaled_parameters(W, b, k)
    return unscaled(S @ Ws + bs, k)


def _changes(S, W, b, units):
    """``flip_energy_changes`` of float states ``S`` in ``units``."""
    flipped = -S if units == "spins" else 1.0 - S
    return -(flipped - S) * _fields(S, W, b)


def _stable(S, W, b, units):
    """``is_stable`` of float states ``S``: compared in the scaled units, where the tolerance is finite."""
    k = scale_exponent(W, b)
    Ws, bs = scaled_parameters(W, b, k)
    flipped = -S if units == "spins" else 1.0 - S
    dE = -(flipped - S) * (S @ Ws + bs)
    # A change that is 0 up to rounding (a flat direction) counts as 0: stable on every machine.
    return np.all(dE >= -2.0 * zero_field_tolerance(Ws, bs), axis=-1)


def energy(s, W, b=None, units=None):
    """Energy ``E(s) = -1/2 s^T W s - b^T s`` of one state or a batch.

    Parameters
    ----------
    s : array_like of shape (n,) or (..., n)
        State(s), spins (-1/+1) or bits (0/1).
    W : array_like of shape (n, n)
        Symmetric couplings with zero diagonal.
    b : array_like of shape (n,), optional
        Biases (zeros if omitted).
    units : {"spins", "bits"}, optional
        If given, ``s`` must be in these units; if omitted, ``s`` may be either
        (but not a mixture), and an all-ones state reads as spins (the rule in
        :mod:`bmlib.models.states`; the energy is the same in both).

    Returns
    -------
    E : float, or ndarray of shape (...)
        A float for a single state.

    Examples
    --------
    >>> W = [[0, 1], [1, 0]]
    >>> bm.energy([1, 1], W), bm.energy([1, -1], W)
    (-1.0, 1.0)
    >>> bm.energy([[1, 1], [0, 1]], W, b=[0.5, 0.0])
    array([-1.5,  0. ])
    """
    # Per state: its float copy, and the energy terms.
    E, ndim, _ = _by_rows(s, W, b, units, "energies", lambda n: 8 * n + 32, lambda n: 1, _energies)
    return _scalar_if_single(E, ndim)


def local_fields(s, W, b=None, units=None):
    """Local field ``h_i = sum_j W_ij s_j + b_i`` felt by every unit.

    The energy depends on unit ``i`` only through ``-h_i s_i``, so unit ``i``
    lowers the energy by agreeing with the sign of its field.

    Parameters
    ----------
    s : array_like of shape (n,) or (..., n)
    W : array_like of shape (n, n)
    b : array_like of shape (n,), optional
    units : {"spins", "bits"}, optional
        Inferred from ``s`` if omitted; an all-ones state reads as spins (the
        rule in :mod:`bmlib.models.states`; the fields are the same in both).

    Returns
    -------
    h : ndarray of the same shape as ``s``

    Examples
    --------
    >>> bm.local_fields([1, -1, 1], [[0, 1, 0], [1, 0, 2], [0, 2, 0]])
    array([-1.,  3., -2.])
    """
    # Per state: its float copy, s W and s W + b.
    h, _, _ = _by_rows(s, W, b, units, "local fields", lambda n: 24 * n, lambda n: n, _fields)
    return h


def flip_energy_changes(s, W, b=None, units=None):
    """Energy change ``Delta E_i`` caused by flipping each unit alone.

    Flipping unit ``i`` from ``s_i`` to ``s_i'`` changes the energy by
    ``-(s_i' - s_i) h_i``: ``2 s_i h_i`` for spins and ``(2 x_i - 1) h_i`` for bits.

    Parameters
    ----------
    s : array_like of shape (n,) or (..., n)
    W : array_like of shape (n, n)
    b : array_like of shape (n,), optional
    units : {"spins", "bits"}, optional
        Inferred from ``s`` if omitted; an all-ones state reads as spins (the
        rule in :mod:`bmlib.models.states`): ``[1, 1, 1]`` flips to -1, not to 0.

    Returns
    -------
    dE : ndarray of the same shape as ``s``
        ``dE[..., i] = E(s with unit i flipped) - E(s)``.

    Examples
    --------
    >>> bm.flip_energy_changes([1, 1], [[0, 1], [1, 0]])
    array([2., 2.])
    """
    # Per state: its float copy, the flipped values, their difference, the fields and the product.
    dE, _, _ = _by_rows(s, W, b, units, "flip energy changes", lambda n: 48 * n, lambda n: n, _changes)
    return dE


def is_stable(s, W, b=None, units=None):
    """Whether no single flip lowers the energy (a local minimum of the landscape).

    Parameters
    ----------
    s : array_like of shape (n,) or (..., n)
    W : array_like of shape (n, n)
    b : array_like of shape (n,), optional
    units : {"spins", "bits"}, optional
        Inferred from ``s`` if omitted; an all-ones state reads as spins (the
        rule in :mod:`bmlib.models.states`).

    Returns
    -------
    stable : bool, or ndarray of bool of shape (...)
        True where every ``flip_energy_changes`` is >= 0 (changes within
        rounding of 0, 1e-12 of the largest possible field, count as 0).

    Examples
    --------
    >>> W = [[0, 1], [1, 0]]
    >>> bm.is_stable([1, 1], W), bm.is_stable([1, -1], W)
    (True, False)
    """
    # Per state: as flip_energy_changes, plus the comparison.
    stable, _, _ = _by_rows(s, W, b, units, "stability checks", lambda n: 56 * n, lambda n: 1, _stable)
    return bool(stable) if np.ndim(stable) == 0 else stable
