"""The inverse Ising problem by mean field: weights from the data's correlations, without learning.

Maximum likelihood needs the model's averages at every step. Mean field
gives the weights directly. Linear response in naive mean field says the
connected correlations ``C_ij = <s_i s_j> - <s_i><s_j>`` of the model satisfy
``(C^-1)_ij = delta_ij / (1 - m_i^2) - w_ij / T``; matching them to the
data's gives ``w_ij = -T (C^-1)_ij`` for ``i != j`` (Kappen and Rodriguez
1998). The TAP correction adds the Onsager term, ``(C^-1)_ij = -J_ij -
2 J_ij^2 m_i m_j`` with ``J = W / T``, a quadratic in ``J_ij`` whose root
that tends to the naive one as ``m -> 0`` is taken (Tanaka 1998; Roudi,
Aurell and Hertz 2009). The biases then follow from the mean-field
equations. Both are exact when the couplings vanish and good while they are
weak; how good, the chapter "The learning rule" measures against exact
maximum likelihood.
"""
from __future__ import annotations

import numpy as np

from .._checks import as_numeric_array, block_bytes, check_choice, check_data, check_memory, check_temperature

METHODS = ("naive", "tap")


def mean_field_inverse_ising(data, T=1.0, method="naive", units="spins"):
    """Weights and biases of a Boltzmann machine whose mean-field statistics match the data's.

    Parameters
    ----------
    data : array_like of shape (P, n)
        Patterns in spins (``units="spins"``; bits are converted first).
    T : float
    method : {"naive", "tap"}
        Naive mean field, ``w_ij = -T (C^-1)_ij``, or its TAP correction.
    units : {"spins", "bits"}
        The units of ``data``, and of the returned ``(W, b)``.

    Returns
    -------
    W : ndarray of shape (n, n)
        Symmetric, zero diagonal.
    b : ndarray of shape (n,)

    Raises
    ------
    ValueError
        If a unit never changes in the data (its variance is 0 and ``C``
        cannot be inverted), naming the unit.

    Examples
    --------
    Exact correlations of a weakly coupled pair give back its weight:

    >>> import numpy as np
    >>> states = bm.all_states(2)
    >>> p = bm.boltzmann_distribution([[0, 0.2], [0.2, 0]])
    >>> data = np.repeat(states, np.round(p * 100000).astype(int), axis=0)
    >>> W, b = bm.mean_field_inverse_ising(data)
    >>> round(float(W[0, 1]), 3)   # the true weight is 0.2
    0.205
    """
    T = check_temperature(T)
    method = check_choice(method, "method", METHODS)
    arr = as_numeric_array(data, "data")
    n = arr.shape[-1] if arr.ndim else 1
    P = arr.size // max(n, 1)
    # Refused before any work: the data as floats and the checks of one block of it, and at the
    # peak eight n x n float matrices (S^T S, the correlations, the inverse and LAPACK's copies,
    # J and the TAP terms, and the checks of the bits model), as measured.
    check_memory(8 * arr.size + min(12 * arr.size, block_bytes()) + 8 * 8 * n * n,
                 f"mean_field_inverse_ising on {P:_} patterns of {n} units (data of shape {arr.shape}; "
                 f"its {n} x {n} matrices)")
    S = check_data(arr, n, units)
    if units == "bits":
        S *= 2.0  # in place: S = 2 S - 1 without two more copies of the data
        S -= 1.0
    m = S.mean(axis=0)
    C = (S.T @ S) / len(S) - np.outer(m, m)
    constant = np.flatnonzero(np.diag(C) <= 1e-12)
    if constant.size:
        raise ValueError(f"data: unit {constant[0]} has the same value in every pattern, so its correlations "
                         "say nothing about its weights (the correlation matrix cannot be inverted); "
                         "leave the unit out or add patterns where it changes")
    W, b = _from_moments(m, C, T, method)
    if units == "bits":
        from ..models.states import to_bits_parameters

        W, b, _ = to_bits_parameters(W, b)
    return W, b


def _from_moments(m, C, T, method):
    """(W, b) in spins from means m and connected correlations C (the data's, or exact ones in tests)."""
    inverse = np.linalg.inv(C)
    if method == "naive":
        J = -inverse
    else:
        mm = np.outer(m, m)
        # Root of 2 mm J^2 + J + inverse = 0 that tends to -inverse as mm -> 0, written to avoid 0/0.
        disc = np.sqrt(np.maximum(1.0 - 8.0 * mm * inverse, 0.0))
        J = -2.0 * inverse / (1.0 + disc)
    np.fill_diagonal(J, 0.0)
    J = 0.5 * (J + J.T)
    # Biases from the mean-field equations m_i = tanh(sum_j J_ij m_j + b_i / T) (naive, or with the TAP term).
    field = np.arctanh(np.clip(m, -1 + 1e-12, 1 - 1e-12)) - J @ m
    if method == "tap":
        field = field + m * ((J**2) @ (1.0 - m**2))
    return T * J, T * field
