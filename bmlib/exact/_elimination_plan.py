"""Planning variable elimination: the order, its cost, and refusals known before any table is built.

The planner behind :mod:`bmlib.exact.elimination` (which documents the method and the
orders): the greedy orders (min_fill, min_degree), the bounded planning that stops
at an order's first cluster past the limit, the lower bounds on every order's width
that refuse without planning (a lattice's grid, a dense core), the cache of plans,
and the refusal messages with their cost.
"""
from __future__ import annotations

import heapq
from typing import NamedTuple

import numpy as np

from .. import _checks
from .._checks import _format_bytes, check_choice, check_memory


#: Largest cluster (a unit and its neighbours when it is eliminated) allowed:
#: its table has 2**MAX_ELIMINATION_UNITS entries (8 bytes each, 1 GiB).
MAX_ELIMINATION_UNITS = 27

ORDERS = ("auto", "min_fill", "min_degree", "natural", "rows", "columns")


class EliminationPlan(NamedTuple):
    """The cost of eliminating a machine's units in one order, known before any work."""

    order: tuple
    """The units in the order they are summed out (tuple of int)."""
    method: str
    """The heuristic that produced the order, or "given"."""
    width: int
    """Most neighbours a unit has when it is eliminated: the order's induced width
    (the graph's treewidth if the order is optimal)."""
    largest_table: int
    """Entries of the largest table, ``2**(width + 1)``."""
    work: int
    """Entries of all tables together: the time is proportional to it."""
    peak_bytes: int
    """Memory of the upward pass at its peak (tables alive at once, 8 bytes each)."""
    scopes: tuple
    """For each unit in ``order``, its neighbours when it is eliminated, in
    elimination order: the cluster is the unit and these."""


def _neighbours(W):
    n = W.shape[0]
    return [set(np.flatnonzero(W[i]).tolist()) - {i} for i in range(n)]


class _TooWide(Exception):
    """Raised by a bounded planner at the first cluster past the limit (planning stops there)."""

    def __init__(self, units, eliminated):
        super().__init__(units, eliminated)
        self.units = units  # units of that cluster: the unit and its neighbours
        self.eliminated = eliminated  # units eliminated before it


def _simulate(adjacency, order, limit=None):
    """Clusters of an order: for each eliminated unit, its neighbours at that moment (in order).

    With ``limit``, raises :class:`_TooWide` at the first cluster of more than
    ``limit`` units, before the fill of a hopeless order grows any further.
    """
    adj = [set(a) for a in adjacency]
    position = {v: k for k, v in enumerate(order)}
    clusters = []
    for v in order:
        nbrs = adj[v]
        if limit is not None and len(nbrs) + 1 > limit:
            raise _TooWide(len(nbrs) + 1, len(clusters))
        clusters.append(tuple(sorted(nbrs, key=position.__getitem__)))
        for u in nbrs:
            adj[u] |= nbrs
            adj[u].discard(u)
            adj[u].discard(v)
        adj[v] = set()
    return clusters


def _greedy_order(adjacency, score, limit=None):
    """Eliminate, again and again, the unit with the lowest ``score`` (lowest index on a tie).

    Each neighbourhood is kept twice: as a set, to walk it, and as a bit set
    (a Python int), so that the neighbours a unit is not coupled to are one
    big-integer operation rather than a loop over pairs. The next unit comes
    from a heap of ``(score, unit)``, which orders exactly as the lowest score
    with the lowest index first; an entry whose score has changed since is
    skipped when it comes up. With ``limit``, raises :class:`_TooWide` as soon
    as the unit chosen has a cluster of more than ``limit`` units: the order
    is then refused whatever follows, so the rest is not planned.
    """
    n = len(adjacency)
    sets = [set(a) for a in adjacency]
    bits = [sum(1 << u for u in a) for a in adjacency]
    scores = [score(sets, bits, v) for v in range(n)]
    heap = [(value, v) for v, value in enumerate(scores)]
    heapq.heapify(heap)
    done = [False] * n
    order = []
    while heap:
        value, v = heapq.heappop(heap)
        if done[v] or value != scores[v]:
            continue
        nbrs, nbr_bits = sets[v], bits[v]
        if limit is not None and len(nbrs) + 1 > limit:
            raise _TooWide(len(nbrs) + 1, len(order))
        order.append(v)
        done[v] = True
        # A score can change only for v's neighbours (their neighbourhoods grow) and for
        # units coupled to two or more of them (couplings appear among their neighbours);
        # a unit coupled to one only keeps its neighbourhood and the couplings within it.
        shared = {}
        for u in nbrs:
            sets[u] |= nbrs
            sets[u].discard(u)
            sets[u].discard(v)
            bits[u] = (bits[u] | nbr_bits) & ~(1 << u) & ~(1 << v)
            for w in sets[u]:
                if w not in nbrs:
                    shared[w] = shared.get(w, 0) + 1
        sets[v], bits[v] = set(), 0
        for u in (*nbrs, *(w for w, count in shared.items() if count >= 2)):
            new = score(sets, bits, u)
            if new != scores[u]:
                scores[u] = new
                heapq.heappush(heap, (new, u))
    return order


def _fill(sets, bits, v):
    """Couplings missing among v's neighbours (added if v were eliminated now)."""
    k = len(sets[v])
    # Each neighbour a of v is coupled to |N(v) & N(a)| of the others, so the
    # couplings among N(v) number half the sum; the sum runs as one chain of
    # C-level maps (this is most of the planner's time).
    inside = sum(map(int.bit_count, map(bits[v].__and__, map(bits.__getitem__, sets[v]))))
    return (k * (k - 1) - inside) // 2


def _degree(sets, bits, v):
    return len(sets[v])


def _plan(adjacency, order, method, limit=None):
    clusters = _simulate(adjacency, order, limit)
    sizes = [len(c) + 1 for c in clusters]
    # Peak memory of the upward pass: messages still waiting plus the table being built.
    live, peak = {}, 0
    for k, (v, scope) in enumerate(zip(order, clusters)):
        table = 2 ** (len(scope) + 1)
        waiting = sum(live.values())
        peak = max(peak, waiting + table)
        live = {key: size for key, size in live.items() if key[1] != v}  # v's bucket is consumed
        if scope:
            live[(k, scope[0])] = 2 ** len(scope)  # sent to the first of them to be eliminated
    width = max(sizes, default=1) - 1
    return EliminationPlan(tuple(order), method, width, 2 ** (width + 1), sum(2**s for s in sizes), 8 * peak,
                           tuple(clusters))


def _lattice_orders(lattice):
    rows, cols = lattice.rows, lattice.cols
    by_rows = [r * cols + c for r in range(rows) for c in range(cols)]
    by_columns = [r * cols + c for c in range(cols) for r in range(rows)]
    return {"rows": by_rows, "columns": by_columns}


def _candidate_plans(W_or_operator, adjacency, method, limit=None):
    """The plans of ``method`` (all of "auto"'s methods), and those stopped past ``limit``.

    Returns ``(plans, stopped)``: ``stopped`` holds ``(method, units, eliminated)``
    for each order abandoned at its first cluster of more than ``limit`` units.
    """
    n = len(adjacency)
    lattice = _lattice_orders(W_or_operator) if hasattr(W_or_operator, "rows") and hasattr(W_or_operator, "cols") else {}
    makers = {
        "min_fill": lambda: _greedy_order(adjacency, _fill, limit),
        "min_degree": lambda: _greedy_order(adjacency, _degree, limit),
        "natural": lambda: list(range(n)),
        **{name: (lambda order=order: order) for name, order in lattice.items()},
    }
    if method == "auto":
        # min_degree is left to those who ask for it: planning is part of every
        # call, and min_fill's orders were never worse on the graphs tested.
        names = [name for name in ORDERS[1:] if name in makers and name != "min_degree"]
    elif method in makers:
        names = [method]
    else:
        raise ValueError(
            f"order={method!r} needs a SquareLattice (it names the lattice's rows or columns); "
            f"for a matrix W use one of 'auto', 'min_fill', 'min_degree', 'natural'"
        )
    plans, stopped = [], []
    for name in names:
        try:
            plans.append(_plan(adjacency, makers[name](), name, limit))
        except _TooWide as wide:
            stopped.append((name, wide.units, wide.eliminated))
    return plans, stopped


class _Refused(NamedTuple):
    """Why no order fits: what a bounded planner returns instead of a plan."""

    reason: str
    """The cost, in words, for the message: ends with the size of the smallest table found."""
    units: int
    """Units of the smallest cluster that every order tried (or every order) reaches."""
    detail: str = ""
    """More for the message (the other orders tried), said after the limit."""


def _table_bytes(units):
    """Memory of a table of ``2**units`` entries, in words (as a power of two past the float range)."""
    return _format_bytes(8 * 2**units) if units < 1000 else f"2**{units + 3} bytes"


def _unit_limit():
    """Most units a cluster may have: ``MAX_ELIMINATION_UNITS``, or fewer if its table alone
    (8 bytes an entry) would not fit in bmlib's memory budget."""
    return max(1, min(MAX_ELIMINATION_UNITS, (_checks.MEMORY_BUDGET // 8).bit_length() - 1))


def _lattice_bound(operator):
    """A lower bound on every order's width for a SquareLattice, known without its matrix, or 0.

    The ``rows x cols`` grid has treewidth ``min(rows, cols)``, and the lattice
    contains it (a torus adds wrapped bonds): no order eliminates it with
    clusters of fewer than ``min(rows, cols) + 1`` units. Without couplings
    (``J = 0``) there is no grid, hence no bound.
    """
    from ..sampling.couplings import SquareLattice  # here: the sampling package is imported after this one

    if isinstance(operator, SquareLattice) and operator.J != 0.0:
        return min(operator.rows, operator.cols)
    return 0


def _lattice_refusal(operator, limit):
    """``_Refused`` for a SquareLattice that no order can eliminate within ``limit``, else None."""
    width = _lattice_bound(operator)
    if width + 1 <= limit:
        return None
    return _Refused(
        f"a {operator.rows} x {operator.cols} lattice has treewidth at least {width} (the width of its "
        f"grid), so every order has a cluster of at least {width + 1} units, a table of "
        f"2**{width + 1} entries ({_table_bytes(width + 1)}) or more",
        width + 1,
    )


def _grid_refusal(W, limit):
    """``_Refused`` if ``W`` couples, among others, the units of a ``rows x cols`` grid numbered
    row by row (as every lattice of bmlib) with ``min(rows, cols) >= limit``, else None.

    A graph has at least the treewidth of any graph it contains, and a grid's is
    ``min(rows, cols)``: no order fits, whatever else is coupled. Checking one
    shape is two lookups per unit, so every shape ``rows * cols = n`` is tried.
    """
    n = W.shape[0]
    best = 0
    for rows in range(limit, n // limit + 1):
        cols = n // rows
        if rows * cols != n or cols < limit or min(rows, cols) <= best:
            continue
        units = np.arange(n).reshape(rows, cols)
        across, down = units[:, :-1].ravel(), units[:-1, :].ravel()
        if np.all(W[across, across + 1] != 0) and np.all(W[down, down + cols] != 0):
            best, shape = min(rows, cols), (rows, cols)
    if not best:
        return None
    return _Refused(
        f"its couplings contain a {shape[0]} x {shape[1]} grid (units numbered row by row), whose treewidth is "
        f"{best}, so every order has a cluster of at least {best + 1} units, a table of 2**{best + 1} entries "
        f"({_table_bytes(best + 1)}) or more",
        best + 1,
    )


def _core_refusal(W, limit):
    """``_Refused`` if ``W``'s graph has a core of units each coupled to ``limit`` or more of the
    others (so that no order fits), else None; a few passes over the couplings, no planning.

    Whatever the order, the first unit of the core to be eliminated still has
    all its neighbours in the core: a cluster of at least ``d + 1`` units for
    the core's least degree ``d``. The core is what remains after removing,
    again and again, every unit with fewer than ``limit`` neighbours left.
    """
    n = W.shape[0]
    degree = np.count_nonzero(W, axis=1)  # neighbours still in the core, for the units in it
    alive = np.ones(n, dtype=bool)
    rows = max(1, 2**22 // max(n, 1))  # rows of W looked at together: 32 MiB at most
    while True:
        dropped = np.flatnonzero(alive & (degree < limit))
        if not dropped.size:
            break
        alive[dropped] = False
        for start in range(0, dropped.size, rows):
            _, neighbours = np.nonzero(W[dropped[start:start + rows]])
            degree -= np.bincount(neighbours, minlength=n)
    if not alive.any():
        return None
    least = int(degree[alive].min())
    return _Refused(
        f"the graph has {int(alive.sum())} units each coupled to at least {least} others of them, so every order has a "
        f"cluster of at least {least + 1} units, a table of 2**{least + 1} entries "
        f"({_table_bytes(least + 1)}) or more",
        least + 1,
    )


def _bound_refusal(W, operator, limit):
    """The strongest refusal of the lower bounds (lattice, grid, core) without planning, or None."""
    found = [r for r in (_lattice_refusal(operator, limit), _grid_refusal(W, limit), _core_refusal(W, limit)) if r]
    return max(found, key=lambda r: r.units) if found else None


def _stopped_refusal(stopped, n):
    """``_Refused`` from the orders abandoned at their first cluster past the limit."""
    method, units, eliminated = min(stopped, key=lambda s: (s[1], -s[2]))
    others = "; ".join(f"{m} a cluster of {u} units after eliminating {e} of {n} units"
                       for m, u, e in stopped if m != method)
    return _Refused(
        f"{'every order tried passes' if len(stopped) > 1 else 'the order passes'} it: "
        f"{'the given order' if method == 'given' else method} makes a "
        f"cluster of {units} units, a table of 2**{units} entries ({_table_bytes(units)}), after "
        f"eliminating {eliminated} of {n} units, and planning stopped there",
        units,
        f" The other orders tried: {others}." if others else "",
    )


def _checked_order(order, n):
    try:
        order = [int(v) for v in order]
    except (TypeError, ValueError):
        raise TypeError(f"order must be a method name or a sequence of unit indices; got {order!r}") from None
    if sorted(order) != list(range(n)):
        raise ValueError(f"order must list every unit 0..{n - 1} exactly once; got {order[:12]}"
                         f"{' ...' if len(order) > 12 else ''} (length {len(order)})")
    return order


# Plans depend only on which couplings are nonzero, so a scan over temperatures,
# fields or coupling strengths (or moments after log Z) plans once. Keyed by the
# pattern itself (packed bits), so two graphs can never share a plan by accident.
_PLANS = {}
_CACHED_PLANS = 64


def _plan_for(W, operator, order, limit=None):
    """elimination_plan for an already validated ``W`` (``operator``: what the caller passed).

    With ``limit`` (cluster units), planning is bounded: orders are abandoned at
    their first cluster of more than ``limit`` units, and a graph that no order
    can fit (its core, or a lattice's grid, says so) is not planned at all.
    The result is the cheapest plan that fits, or a :class:`_Refused` saying
    what it would cost. A plan that the full planner chooses and that fits is
    chosen here too: it is the cheapest of all, so also of those that fit.
    """
    if not isinstance(order, str):
        order = _checked_order(order, W.shape[0])
        if limit is None:
            return _plan(_neighbours(W), order, "given")
        refused = _bound_refusal(W, operator, limit)
        if refused is None:
            try:
                return _plan(_neighbours(W), order, "given", limit)
            except _TooWide as wide:
                refused = _stopped_refusal([("given", wide.units, wide.eliminated)], W.shape[0])
        return refused
    check_choice(order, "order", ORDERS)
    lattice = (operator.rows, operator.cols) if hasattr(operator, "rows") and hasattr(operator, "cols") else None
    key = (W.shape[0], np.packbits(W != 0).tobytes(), lattice, order, limit)
    if key not in _PLANS:
        refused = None if limit is None else _bound_refusal(W, operator, limit)
        if refused is None:
            plans, stopped = _candidate_plans(operator, _neighbours(W), order, limit)
            # min keeps the first on a tie
            refused = min(plans, key=lambda p: (p.work, p.peak_bytes)) if plans else _stopped_refusal(stopped, W.shape[0])
        if len(_PLANS) >= _CACHED_PLANS:
            _PLANS.pop(next(iter(_PLANS)))  # forget the oldest
        _PLANS[key] = refused
    return _PLANS[key]


def _refusal_message(what, refused):
    """The refusal of ``what`` by elimination, with its cost (a plan or a :class:`_Refused`)."""
    limit = _unit_limit()
    budget = "" if limit == MAX_ELIMINATION_UNITS else " and bmlib.MEMORY_BUDGET"
    bound = f"the limit of 2**{limit} (bmlib.exact.elimination.MAX_ELIMINATION_UNITS{budget})"
    if isinstance(refused, EliminationPlan):
        cost, detail = (f"the best order found ({refused.method}) has a cluster of {refused.width + 1} units, a "
                        f"table of 2**{refused.width + 1} entries ({_table_bytes(refused.width + 1)}), beyond {bound}."), ""
    elif refused.reason.startswith(("every order tried", "the order passes")):
        cost, detail = f"{bound} on a table's entries: {refused.reason}.", refused.detail
    else:
        cost, detail = f"{refused.reason}, beyond {bound}.", refused.detail
    return (
        f"{what} by variable elimination is refused: {cost}{detail} The graph is too densely connected for exact "
        "answers; estimate log Z with log_z_ais or a mean-field method (log_z_mean_field, "
        "log_z_bethe), sample for averages, or use kaufman_log_partition for a zero-field torus"
    )


def _check_affordable(plan, what, keep_messages=False):
    if not isinstance(plan, EliminationPlan) or plan.width + 1 > _unit_limit():
        raise ValueError(_refusal_message(what, plan))
    nbytes = plan.peak_bytes + (8 * plan.work if keep_messages else 0)
    check_memory(nbytes, f"{what} by variable elimination (order {plan.method}, width {plan.width})")
