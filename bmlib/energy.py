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
"""
from __future__ import annotations

import numpy as np

from ._checks import check_model, check_states, infer_units
from ._ties import zero_field_tolerance


def _prepare(s, W, b, units):
    W, b = check_model(W, b)
    s = check_states(s, W.shape[0], units)
    return s, W, b


def _scalar_if_single(x, s):
    return float(x) if s.ndim == 1 else x


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
        (but not a mixture).

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
    s, W, b = _prepare(s, W, b, units)
    # "+ 0.0" turns the -0.0 of an empty sum into 0.0 for tidy printing.
    # With |W_ij| near the float limit, s^T W s counts each bond twice and can
    # overflow where E itself is finite; halving W first avoids that (and is
    # exact for such W).
    if np.abs(W).max(initial=0.0) > 1.0:
        E = -np.einsum("...i,ij,...j->...", s, 0.5 * W, s) - s @ b + 0.0
    else:
        E = -0.5 * np.einsum("...i,ij,...j->...", s, W, s) - s @ b + 0.0
    return _scalar_if_single(E, s)


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

    Returns
    -------
    h : ndarray of the same shape as ``s``

    Examples
    --------
    >>> bm.local_fields([1, -1, 1], [[0, 1, 0], [1, 0, 2], [0, 2, 0]])
    array([-1.,  3., -2.])
    """
    s, W, b = _prepare(s, W, b, units)
    return s @ W + b


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
        Inferred from ``s`` if omitted.

    Returns
    -------
    dE : ndarray of the same shape as ``s``
        ``dE[..., i] = E(s with unit i flipped) - E(s)``.

    Examples
    --------
    >>> bm.flip_energy_changes([1, 1], [[0, 1], [1, 0]])
    array([2., 2.])
    """
    return _flip_energy_changes(*_prepare(s, W, b, units), units)


def _flip_energy_changes(s, W, b, units):
    """:func:`flip_energy_changes` of checked arrays."""
    units = units or infer_units(s)
    flipped = -s if units == "spins" else 1.0 - s
    return -(flipped - s) * (s @ W + b)


def is_stable(s, W, b=None, units=None):
    """Whether no single flip lowers the energy (a local minimum of the landscape).

    Parameters
    ----------
    s : array_like of shape (n,) or (..., n)
    W : array_like of shape (n, n)
    b : array_like of shape (n,), optional
    units : {"spins", "bits"}, optional

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
    s, W, b = _prepare(s, W, b, units)
    dE = _flip_energy_changes(s, W, b, units)
    # A change that is 0 up to rounding (a flat direction) counts as 0: stable on every machine.
    stable = np.all(dE >= -2.0 * zero_field_tolerance(W, b), axis=-1)
    return bool(stable) if np.ndim(stable) == 0 else stable
