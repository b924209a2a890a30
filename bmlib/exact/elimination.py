"""Exact answers for sparse machines by eliminating one unit at a time.

Enumeration costs 2**n whatever the couplings. But a unit interacts only with
its neighbours in the graph of nonzero ``w_ij``, so its sum can be done on its
own: summing ``exp(-E/T)`` over unit ``v`` leaves a function of v's neighbours
only, a table of 2**(neighbours) numbers (a *message*). The neighbours are then
joined as if coupled, and the next unit is eliminated. The cost is set by the
largest table, 2**(k+1) for a unit with k neighbours when it is eliminated; for
a good order k is the graph's *treewidth*: 1 on a chain or a tree, L on an
L x L' lattice (row by row, the order of the row transfer matrix), n - 1 only
for a dense graph.

The upward pass (elimination) gives log Z; a downward pass over the same
clusters gives every unit's marginal and every coupled pair's, the moments
the learning rule needs. Replacing the sum by a max gives the most probable
state. Everything is in log space (``logaddexp``), so no T under- or
overflows, and the cost is computed before any table is built: work beyond
``MAX_ELIMINATION_UNITS`` in one table, or beyond bmlib's memory budget, is
refused with the cost and the alternatives.

Refusing is cheap too. A graph that no order can fit is recognised without
planning, by lower bounds on every order's width: a
:class:`~bmlib.SquareLattice` has at least its grid's treewidth,
``min(rows, cols)`` (known before its matrix is built); so has a matrix whose
couplings contain such a grid in bmlib's row-by-row numbering; and a core of
units each coupled to ``d`` others of it forces a cluster of ``d + 1`` units
in any order. Otherwise each order is planned only until its first cluster
past the limit, and abandoned there. The plan chosen is then the cheapest of
those that fit, which is the full planner's choice whenever that one fits
(:func:`elimination_plan`, which plans every order to the end).

Orders: ``"min_fill"`` (eliminate the unit whose neighbours lack the fewest
couplings among themselves), ``"min_degree"``, ``"natural"`` (0, 1, ..., n-1:
for ``square_lattice_couplings`` that is row by row) and, for a
:class:`~bmlib.SquareLattice`, ``"rows"`` and ``"columns"``. ``"auto"`` plans
all but ``"min_degree"`` and keeps the cheapest; ties go to the first in that list.

The planner (orders, costs, refusals) is in :mod:`bmlib.exact._elimination_plan`, the
tables and the upward pass in :mod:`bmlib.exact._elimination_tables`; this module holds
the public functions.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._checks import LEVELS, check_model, check_real, check_temperature, check_units
from ._elimination_plan import (  # the first three are public at this path too
    MAX_ELIMINATION_UNITS,
    ORDERS,
    EliminationPlan,
    _check_affordable,
    _lattice_refusal,
    _plan_for,
    _refusal_message,
    _unit_limit,
)
from ._elimination_tables import _aligned, _cluster_table, _logsumexp, _upward
from .._threads import thin_blas
from .._ties import tie_tolerance


class SparseMoments(NamedTuple):
    """Exact statistics of a sparse machine (see :func:`sparse_moments`)."""

    log_z: float
    """``log Z``."""
    mean: np.ndarray
    """``<s_i>``, shape (n,)."""
    edges: np.ndarray
    """The coupled pairs ``(i, j)``, ``i < j``, with ``W[i, j] != 0``, sorted; shape (m, 2)."""
    edge_moments: np.ndarray
    """``<s_i s_j>`` for each pair in ``edges``, shape (m,)."""


def elimination_plan(W, order="auto"):
    """The order in which to eliminate the units of ``W``, and what it will cost.

    Parameters
    ----------
    W : array_like of shape (n, n), or a coupling operator
        Symmetric couplings with zero diagonal; only which entries are
        nonzero matters. A :class:`~bmlib.SquareLattice` also offers the
        orders ``"rows"`` and ``"columns"``.
    order : str or sequence of int
        A method from ``ORDERS`` (``"auto"`` keeps the cheapest plan; ties go
        to the method listed first) or an explicit order of all n units.

    Returns
    -------
    EliminationPlan

    Notes
    -----
    The plan for a method depends only on which entries of ``W`` are nonzero;
    the last 64 are kept, so repeated calls on one graph plan once. Every
    order is planned to the end, however wide; the exact functions instead
    stop at the first cluster past ``MAX_ELIMINATION_UNITS`` (and refuse).

    Examples
    --------
    >>> plan = bm.elimination_plan(bm.square_lattice_couplings(6))
    >>> plan.width, plan.largest_table      # a 6 x 6 torus: two rows are cut
    (11, 4096)
    >>> bm.elimination_plan(bm.chain_couplings(50, periodic=False)).width   # a chain: 1
    1
    """
    operator = W
    W, _ = check_model(W)
    return _plan_for(W, operator, order)


def _prepare(W, b, T, units, order, what, keep_messages=False):
    operator = W
    T, units = check_temperature(T), check_units(units)
    limit = _unit_limit()
    # A lattice operator too wide for any order is refused before its dense matrix is built.
    refused = _lattice_refusal(operator, limit)
    if refused is not None:
        raise ValueError(_refusal_message(what, refused))
    W, b = check_model(W, b)
    plan = _plan_for(W, operator, order, limit)
    _check_affordable(plan, what, keep_messages)
    return W, b, T, units, plan


@thin_blas
def sparse_log_partition(W, b=None, T=1.0, units="spins", order="auto"):
    """Exact ``log Z`` of a machine whose coupling graph is sparse, by variable elimination.

    The same number as :func:`log_partition`, without its limit of 30 units:
    the cost is ``2**(width + 1)`` per unit for the order's width (1 for a
    chain or tree, L for an L x L' lattice) instead of ``2**n``.

    Parameters
    ----------
    W : array_like of shape (n, n), or a coupling operator
        Symmetric couplings with zero diagonal.
    b : array_like of shape (n,), optional
        Biases (zeros if omitted).
    T : float
        Temperature, finite and > 0.
    units : {"spins", "bits"}
    order : str or sequence of int
        See :func:`elimination_plan`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If the order's largest table has more than
        ``2**MAX_ELIMINATION_UNITS`` entries or the pass would exceed
        ``bm.MEMORY_BUDGET``; the message gives the cost and the alternatives.
        The refusal comes before the work: lower bounds on the width (a
        lattice's grid, a dense core) refuse without planning, and planning
        stops at each order's first cluster past the limit.

    Examples
    --------
    >>> W = bm.square_lattice_couplings(4)
    >>> round(bm.sparse_log_partition(W, T=2.5), 10) == round(bm.log_partition(W, T=2.5), 10)
    True
    >>> W = bm.square_lattice_couplings(10)       # 100 units: far past enumeration
    >>> z = bm.sparse_log_partition(W, T=2.5)
    >>> abs(z - bm.kaufman_log_partition(10, T=2.5)) < 1e-10   # Kaufman's exact torus
    True
    """
    W, b, T, units, plan = _prepare(W, b, T, units, order, "log Z")
    total, _ = _upward(W, b, T, units, plan, keep=False)
    return total


@thin_blas
def sparse_moments(W, b=None, T=1.0, units="spins", order="auto"):
    """Exact ``<s_i>`` and, on every coupled pair, ``<s_i s_j>``, by variable elimination.

    An upward pass (as :func:`sparse_log_partition`) and a downward pass over
    the same clusters give each cluster's exact marginal; every unit and every
    coupled pair lies in one. Pairs that are not coupled are not computed:
    the learning rule needs ``<s_i s_j>`` only where ``w_ij`` is a parameter.

    Parameters
    ----------
    W, b, T, units, order
        As in :func:`sparse_log_partition`.

    Returns
    -------
    SparseMoments
        ``(log_z, mean, edges, edge_moments)``.

    Examples
    --------
    >>> W = bm.chain_couplings(3, J=1.0, periodic=False)
    >>> result = bm.sparse_moments(W, T=1.0)
    >>> result.edges.tolist(), result.edge_moments.round(4).tolist()   # tanh(1)
    ([[0, 1], [1, 2]], [0.7616, 0.7616])
    """
    W, b, T, units, plan = _prepare(W, b, T, units, order, "moments", keep_messages=True)
    log_z, clusters = _upward(W, b, T, units, plan, keep=True)
    values = np.asarray(LEVELS[units], dtype=float)
    n = W.shape[0]
    mean = np.empty(n)
    pair = {}
    downward = {}  # unit -> message from its parent, over the unit's scope
    for v in reversed(plan.order):
        record = clusters[v]
        scope = record["scope"]
        target = (v, *scope)
        table = _cluster_table(v, scope, [(s, m) for _, s, m in record["received"]], W, b, T, values)
        if scope:
            table = table + _aligned(scope, downward.pop(v), target)
        # Log of the cluster's exact marginal. Normalizing each cluster by its own
        # total (not by log Z) keeps the pass right for a disconnected graph,
        # whose parts have their own normalizers.
        belief = table - _logsumexp(table, tuple(range(table.ndim)))
        p = np.exp(belief)
        p_v = p.reshape(2, -1).sum(axis=1)
        mean[v] = float(p_v @ values)
        for k, u in enumerate(scope):
            if W[v, u] != 0.0:
                other = tuple(a for a in range(1, len(target)) if a != k + 1)
                joint = p.sum(axis=other) if other else p  # (2, 2): s_v by s_u
                pair[(min(v, u), max(v, u))] = float(values @ joint @ values)
        for child, child_scope, child_message in record["received"]:
            # Parent's belief without the child's own message, summed onto the child's scope.
            rest = belief - _aligned(child_scope, child_message, target)
            keep_axes = {target.index(u) for u in child_scope}
            summed = _logsumexp(rest, tuple(a for a in range(len(target)) if a not in keep_axes))
            kept = [target[a] for a in sorted(keep_axes)]
            downward[child] = np.reshape(_aligned(tuple(kept), summed, child_scope), (2,) * len(child_scope))
    edges = np.array(sorted(pair), dtype=int).reshape(-1, 2)
    return SparseMoments(log_z, mean, edges, np.array([pair[tuple(e)] for e in edges.tolist()]))


@thin_blas
def most_probable_state(W, b=None, units="spins", order="auto"):
    """The state of lowest energy (the most probable at every T), by variable elimination.

    Parameters
    ----------
    W : array_like of shape (n, n), or a coupling operator
    b : array_like of shape (n,), optional
    units : {"spins", "bits"}
    order : str or sequence of int
        See :func:`elimination_plan`.

    Returns
    -------
    state : ndarray of shape (n,)
    energy : float

    Notes
    -----
    Ties between states of equal energy are decided by bmlib's rule
    (:mod:`bmlib._ties`): going back through the order, a unit takes its
    second value (+1, or 1 for bits) only if that is better by more than the
    tie tolerance, so the answer never depends on rounding.

    Examples
    --------
    >>> W = bm.chain_couplings(4, J=-1.0, periodic=False)   # antiferromagnetic
    >>> state, energy = bm.most_probable_state(W, b=[0.5, 0, 0, 0])
    >>> state.tolist(), energy
    ([1.0, -1.0, 1.0, -1.0], -3.5)
    """
    W, b, _, units, plan = _prepare(W, b, 1.0, units, order, "the most probable state", keep_messages=True)
    _, clusters = _upward(W, b, 1.0, units, plan, keep=True, reduce="max")
    values = np.asarray(LEVELS[units], dtype=float)
    index = {}
    for v in reversed(plan.order):
        record = clusters[v]
        table = record["table"]
        at = tuple(index[u] for u in record["scope"])
        low, high = float(table[(0, *at)]), float(table[(1, *at)])
        index[v] = 1 if high > low + tie_tolerance(max(low, high)) else 0
    state = values[[index[v] for v in range(W.shape[0])]]
    energy = float(-0.5 * state @ W @ state - b @ state)
    return state, energy


class SparseMagnetization(NamedTuple):
    """Exact magnetization and susceptibility per unit (see :func:`sparse_magnetization`)."""

    m: float
    """``<M> / n``, the mean of the units."""
    chi: float
    """``(<M^2> - <M>^2) / (n T)``, the susceptibility per unit: ``d m / d h`` for a
    field ``h`` added to every bias."""


@thin_blas
def sparse_magnetization(W, b=None, T=1.0, units="spins", order="auto", step=1e-5):
    """Magnetization per unit and susceptibility of a sparse machine, by variable elimination.

    ``m`` is exact. ``chi = d m / d h``, for a field ``h`` added to every bias,
    equals ``Var(M) / (n T)``; it is the derivative of the exact ``m``, taken as
    a central difference with ``h = +-step * T``, whose error is of order
    ``step**2`` (about 1e-9 relative for the default, near a critical point
    too; tested against enumeration).

    Parameters
    ----------
    W, b, T, units, order
        As in :func:`sparse_log_partition`.
    step : float
        Relative step of the central difference, > 0 and at most 0.01.

    Returns
    -------
    SparseMagnetization
        ``(m, chi)``.

    Examples
    --------
    A 4 x 4 torus is small enough to check by enumeration:

    >>> W, b = bm.square_lattice_couplings(4), [0.1] * 16
    >>> res = bm.sparse_magnetization(W, b, T=2.5)
    >>> mean, second = bm.exact_moments(W, b, T=2.5)
    >>> chi = (second.sum() - mean.sum() ** 2) / (16 * 2.5)
    >>> bool(abs(res.m - mean.mean()) < 1e-12), bool(abs(res.chi - chi) < 1e-8 * chi)
    (True, True)
    """
    step = check_real(step, "step", positive=True)
    if step > 0.01:
        raise ValueError(f"step must be at most 0.01 (a larger step makes the derivative inexact); got {step!r}")
    W, b, T, units, plan = _prepare(W, b, T, units, order, "the magnetization", keep_messages=True)
    n = W.shape[0]
    # The field enters as h / T; a step proportional to T keeps the difference equally accurate at every T.
    h = step * T
    up = sparse_moments(W, b + h, T, units, order=plan.order).mean.mean()
    down = sparse_moments(W, b - h, T, units, order=plan.order).mean.mean()
    m = sparse_moments(W, b, T, units, order=plan.order).mean.mean()
    return SparseMagnetization(float(m), float((up - down) / (2 * h)) if n else 0.0)
