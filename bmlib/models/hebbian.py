"""Hebb's rule written as weights: units that agree get a positive coupling.

The energy depends on a weight through one term, ``dE/dw_ij = -s_i s_j``, so
the direction that lowers the energy of a pattern ``s`` fastest is
``w_ij ∝ s_i s_j``: strengthen the bond between units that agree, weaken it
between units that disagree. Hebb proposed only the strengthening; the
``+-1`` outer-product rule adds the weakening (chapter "Energy"). The same
module measures how many patterns such weights hold, and where synchronous
updates go.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._deprecation import renamed
from .._checks import (
    as_numeric_array,
    block_bytes,
    check_count,
    check_memory,
    check_model,
    check_real,
    check_sequence,
    check_states,
)
from .._random import as_generator
from .._ties import zero_field_tolerance


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
    arr = as_numeric_array(patterns, "patterns")
    n = arr.shape[-1] if arr.ndim else 0
    if arr.ndim > 2:
        raise ValueError(f"patterns must have shape (n,) or (P, n); got shape {arr.shape}")
    scale = check_real(scale, "scale")
    # Refused before any work: W (n x n floats), the patterns as floats and the checks of one block.
    check_memory(8 * n * n + 8 * arr.size + min(12 * arr.size, block_bytes()),
                 f"Hebbian weights of {n} x {n} (patterns of shape {arr.shape})")
    S = np.atleast_2d(check_states(arr, n, "spins", name="patterns"))
    W = S.T @ S
    # In place, the same operations as scale * (S^T S) / P: no second and third n x n matrix.
    np.multiply(W, scale, out=W)
    np.divide(W, len(S), out=W)
    np.fill_diagonal(W, 0.0)
    W += 0.0  # turns -0.0 into 0.0 for tidy printing
    return W


class RecallCurve(NamedTuple):
    """How well Hebbian weights hold P random patterns of n units (see :func:`hebbian_recall`)."""

    loads: np.ndarray
    """The loads ``alpha = P / n``, shape (k,)."""
    overlap: np.ndarray
    """Mean overlap ``s . xi / n`` between a stored pattern ``xi`` and where descent from it ends, shape (k,)."""
    retrieved: np.ndarray
    """Fraction of stored patterns whose descent ends within 5% of them (overlap >= 0.9), shape (k,)."""
    n: int
    """Units."""


def _descend_all(S, W, max_sweeps=100):
    """Asynchronous zero-temperature sweeps (units 0..n-1 in turn) of every row of S at once, until none moves.

    A unit whose field is zero keeps its value, so the energy never rises and every row stops at a
    fixed point (the Hopfield argument).
    """
    S = S.copy()
    # A field that is 0 in exact arithmetic (weights are multiples of 1/P) must not get its
    # sign from the summation order: within the tie tolerance it counts as 0 (bmlib._ties).
    tol = zero_field_tolerance(W, np.zeros(W.shape[0]))
    for _ in range(max_sweeps):
        moved = False
        for i in range(S.shape[1]):
            h = S @ W[i]
            new = np.where(h > tol, 1.0, np.where(h < -tol, -1.0, S[:, i]))
            moved |= bool(np.any(new != S[:, i]))
            S[:, i] = new
        if not moved:
            break
    return S


@renamed(n_trials="n_runs")
def hebbian_recall(n=100, loads=(0.05, 0.1, 0.15, 0.2, 0.25), n_runs=4, rng=None):
    """Store ``P = alpha n`` random patterns with Hebbian weights and see what energy descent keeps.

    For each load ``alpha``, ``n_runs`` sets of random spin patterns are
    stored with :func:`hebbian_weights`; descent (asynchronous, units in
    order) starts from every stored pattern itself, and the overlap with the
    pattern where it stops is recorded. For large ``n`` the overlap stays
    near 1 up to ``alpha ~ 0.138`` and collapses beyond (Amit, Gutfreund and
    Sompolinsky 1985); at ``n = 100`` the drop is smoothed out.

    Parameters
    ----------
    n : int
        Units, 2 to 1000.
    loads : sequence of float
        Values of ``P / n``, each giving at least one pattern.
    n_runs : int
        Independent pattern sets per load, >= 1.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    RecallCurve

    Examples
    --------
    >>> curve = bm.hebbian_recall(n=60, loads=[0.05, 0.4], n_runs=2, rng=0)
    >>> bool(curve.overlap[0] > 0.95), bool(curve.overlap[1] < 0.9)
    (True, True)
    """
    n = check_count(n, "n", minimum=2)
    if n > 1000:
        raise ValueError(f"n must be at most 1000 (the recall curve stores n x n weights per trial); got {n}")
    values = check_sequence(loads if np.ndim(loads) else [loads], "loads", "a sequence of loads P / n")
    loads = np.array([check_real(v, f"loads[{k}]", positive=True) for k, v in enumerate(values)])
    for k, alpha in enumerate(loads.tolist()):
        if not 1 <= round(alpha * n) <= 10 * n:
            raise ValueError(f"loads[{k}] must give between 1 and 10 n patterns (P = round(alpha n)); "
                             f"got {alpha!r} with n = {n}")
    n_runs = check_count(n_runs, "n_runs", minimum=1)
    gen = as_generator(rng)
    overlap, retrieved = [], []
    for alpha in loads.tolist():
        P = int(round(alpha * n))
        per_trial = []
        for _ in range(n_runs):
            patterns = gen.choice([-1.0, 1.0], size=(P, n))
            ends = _descend_all(patterns, hebbian_weights(patterns))
            per_trial.append(np.sum(ends * patterns, axis=1) / n)
        m = np.concatenate(per_trial)
        overlap.append(float(m.mean()))
        retrieved.append(float(np.mean(m >= 0.9)))
    return RecallCurve(loads, np.array(overlap), np.array(retrieved), n)


class SynchronousPath(NamedTuple):
    """Where synchronous updates go (see :func:`synchronous_updates`)."""

    states: np.ndarray
    """The states visited, shape (steps + 1, n), the start first."""
    energies: np.ndarray
    """Their energies, shape (steps + 1,)."""
    period: int
    """1 if the path ended at a fixed point, 2 if in a two-cycle, 0 if neither within ``max_iter``."""


@renamed(max_steps="max_iter")
def synchronous_updates(s, W, b=None, max_iter=100):
    """Update every spin at once, ``s <- sign(W s + b)``, until a fixed point or a two-cycle.

    A spin whose field is zero keeps its value. Asynchronous updates (one
    unit at a time, :func:`~bmlib.energy_descent`) never raise the energy and
    always stop at a fixed point; synchronous updates can raise it, and with
    symmetric weights end either at a fixed point or in a cycle of two
    states (Goles and others).

    Parameters
    ----------
    s : array_like of shape (n,)
        Starting spins.
    W : array_like of shape (n, n)
    b : array_like of shape (n,), optional
    max_iter : int
        Largest number of updates, >= 1.

    Returns
    -------
    SynchronousPath

    Examples
    --------
    Two spins that want to agree, started apart, swap forever:

    >>> path = bm.synchronous_updates([1, -1], [[0, 1], [1, 0]])
    >>> path.period, path.states.tolist()
    (2, [[1.0, -1.0], [-1.0, 1.0], [1.0, -1.0]])
    """
    W, b = check_model(W, b)
    max_iter = check_count(max_iter, "max_iter", minimum=1)
    s = check_states(np.asarray(s), W.shape[0], "spins", name="s")
    if s.ndim != 1:
        raise ValueError(f"s must have shape ({W.shape[0]},), one state; got shape {s.shape}")
    states = [s.astype(float)]
    period = 0
    tol = zero_field_tolerance(W, b)  # an exactly zero field keeps the unit, whatever the rounding
    n = W.shape[0]
    for _ in range(max_iter):
        # The path is kept whole (the list and its array, 16 n bytes per step): refused once it
        # would outgrow the budget rather than failing with a MemoryError.
        check_memory(16 * n * (len(states) + 1), f"the path of {len(states) + 1:_} synchronous steps of {n} units")
        h = W @ states[-1] + b
        new = np.where(h > tol, 1.0, np.where(h < -tol, -1.0, states[-1]))
        states.append(new)
        if np.array_equal(new, states[-2]):
            period = 1
            break
        if len(states) >= 3 and np.array_equal(new, states[-3]):
            period = 2
            break
    S = np.array(states)
    return SynchronousPath(S, -0.5 * np.einsum("ti,ij,tj->t", S, W, S) - S @ b, period)
