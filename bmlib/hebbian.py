"""Hebb's rule written as weights: units that agree get a positive coupling.

The energy depends on a weight through one term, ``dE/dw_ij = -s_i s_j``, so
the direction that lowers the energy of a pattern ``s`` fastest is
``w_ij ∝ s_i s_j``: strengthen the bond between units that agree, weaken it
between units that disagree. That is Hebb's rule (chapter "Energy").
"""
from __future__ import annotations

import numpy as np

from ._checks import check_real, check_states


def hebbian_weights(patterns, scale=1.0):
    """Hebbian weights ``w_ij = scale * <s_i s_j>``, averaged over spin patterns.

    The diagonal is set to zero (a unit has no bond with itself). With one
    pattern ``s`` of ``n`` units, every unit's local field is ``(n - 1) s_i``
    times ``scale``, so ``s`` (and ``-s``) are stable states.

    Parameters
    ----------
    patterns : array_like of shape (n,) or (P, n)
        One or P patterns in spins (-1/+1); convert bits with :func:`~bmlib.to_spins`.
    scale : float
        Multiplies every weight; a finite real number.

    Returns
    -------
    W : ndarray of shape (n, n)
        Symmetric, zero diagonal.

    Examples
    --------
    >>> bm.hebbian_weights([1, -1, 1])
    array([[ 0., -1.,  1.],
           [-1.,  0., -1.],
           [ 1., -1.,  0.]])
    >>> bm.hebbian_weights([[1, 1], [1, -1]])  # the two patterns cancel
    array([[0., 0.],
           [0., 0.]])
    """
    arr = np.asarray(patterns)
    n = arr.shape[-1] if arr.ndim else 0
    S = np.atleast_2d(check_states(arr, n, "spins", name="patterns"))
    if S.ndim != 2:
        raise ValueError(f"patterns must have shape (n,) or (P, n); got shape {arr.shape}")
    W = check_real(scale, "scale") * (S.T @ S) / len(S)
    np.fill_diagonal(W, 0.0)
    return W + 0.0  # turns -0.0 into 0.0 for tidy printing
