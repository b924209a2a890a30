"""Choices between candidates that are equal up to rounding, decided by a rule.

A solver that keeps "the best of several starts", an argmax over energies or
probabilities, or a sort by an objective must give the same answer on every
machine. When two candidates are equal in exact arithmetic (mirror-image
mean-field solutions of a model without biases, two hidden codes with the same
energy), their computed values differ only in the last bits, and which bits
depends on the CPU, the BLAS kernel and the number of threads. Picking the
larger computed value would then let rounding decide, and everything
downstream (a proposal's sign, a printed table) would differ between machines.

The rule used everywhere in bmlib: values within :data:`TIE_RTOL` (relative to
the scale of the best value, at least 1) of the best are *tied*, and among tied
candidates the one that comes **first in the candidates' fixed order** wins
(the order of the starts, of the states in :func:`~bmlib.all_states`, or of the
input). Genuinely different candidates differ by far more than this tolerance.
"""
from __future__ import annotations

import numpy as np

#: Relative tolerance below which two computed values are treated as tied.
#: Rounding differences between machines are ~1e-15 relative; solver
#: tolerances in bmlib are 1e-10 or tighter, so objectives of distinct fixed
#: points that matter differ by much more than 1e-9.
TIE_RTOL = 1e-9


def tie_tolerance(best, rtol=TIE_RTOL):
    """Absolute tolerance for values near ``best``: ``rtol * max(1, |best|)``."""
    return rtol * max(1.0, abs(float(best)))


def first_best(values, *, largest=True, rtol=TIE_RTOL):
    """Index of the first value within the tie tolerance of the largest (or smallest).

    Parameters
    ----------
    values : sequence of float
        Candidates' scores in their fixed order; non-finite values never win
        unless all are non-finite (then the first is returned).
    largest : bool
        True to prefer the largest value, False the smallest.

    Returns
    -------
    int

    Examples
    --------
    >>> from bmlib._ties import first_best
    >>> first_best([1.0, 3.0, 3.0 + 1e-15, 2.0])
    1
    >>> first_best([2.0, 1.0 + 1e-15, 1.0], largest=False)
    1
    """
    v = np.asarray(values, dtype=float)
    if not largest:
        v = -v
    finite = np.isfinite(v)
    if not finite.any():
        return 0
    best = v[finite].max()
    return int(np.flatnonzero(finite & (v >= best - tie_tolerance(best, rtol)))[0])


def first_best_along_rows(values, *, largest=True, rtol=TIE_RTOL):
    """:func:`first_best` for each row of a 2-D array (finite values), shape (k,) of ints.

    Examples
    --------
    >>> from bmlib._ties import first_best_along_rows
    >>> first_best_along_rows([[0.0, 1.0, 1.0 - 1e-14], [5.0, 4.0, 5.0]]).tolist()
    [1, 0]
    """
    v = np.asarray(values, dtype=float)
    if not largest:
        v = -v
    best = v.max(axis=1, keepdims=True)
    within = v >= best - rtol * np.maximum(1.0, np.abs(best))
    return np.argmax(within, axis=1)  # argmax of booleans: the first True


def order_with_ties(values, *, descending=False, rtol=TIE_RTOL):
    """Indices that sort ``values``, with near-equal values kept in their input order.

    Values are sorted, then runs of neighbours each within the tie tolerance
    of the previous one are re-ordered by their original index, so rounding
    cannot swap two candidates that are equal in exact arithmetic.

    Examples
    --------
    >>> from bmlib._ties import order_with_ties
    >>> order_with_ties([3.0, 1.0 + 1e-15, 1.0, 2.0]).tolist()
    [1, 2, 3, 0]
    >>> order_with_ties([1.0, 3.0, 3.0 + 1e-15], descending=True).tolist()
    [1, 2, 0]
    """
    v = np.asarray(values, dtype=float)
    key = -v if descending else v
    order = np.argsort(key, kind="stable")
    groups, current = [], [order[0]] if order.size else []
    for prev, k in zip(order[:-1], order[1:]):
        if abs(key[k] - key[prev]) <= tie_tolerance(key[prev], rtol):
            current.append(k)
        else:
            groups.append(sorted(current))
            current = [k]
    if current:
        groups.append(sorted(current))
    return np.array([k for group in groups for k in group], dtype=int)


def zero_field_tolerance(W, b):
    """Fields of magnitude at most this count as exactly zero (the unit is indifferent).

    A field that is zero in exact arithmetic (for example in a Hebbian network
    whose weights are multiples of 1/n) comes out as +-1e-17 or so, with a
    sign that depends on the summation order, so the CPU would decide whether
    a unit flips or a state counts as stable. Fields within
    ``TIE_RTOL * 1e-3`` (1e-12) of the largest possible field,
    ``max_i (sum_j |W_ij| + |b_i|)``, are treated as zero instead.

    Examples
    --------
    >>> from bmlib._ties import zero_field_tolerance
    >>> import numpy as np
    >>> W = np.array([[0.0, 0.1, 0.2], [0.1, 0.0, 0.3], [0.2, 0.3, 0.0]])
    >>> print(f"{zero_field_tolerance(W, np.zeros(3)):.1e}")
    5.0e-13
    """
    W, b = np.asarray(W, dtype=float), np.asarray(b, dtype=float)
    scale = float(np.max(np.abs(W).sum(axis=1) + np.abs(b), initial=0.0))
    return 1e-3 * TIE_RTOL * scale
