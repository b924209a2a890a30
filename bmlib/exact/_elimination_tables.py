"""The tables of variable elimination: a cluster's log weights, and the upward pass that sums units out.

Used by the public functions of :mod:`bmlib.exact.elimination` for log Z, the moments
(whose downward pass reuses these tables) and the most probable state. Every
table is a log weight over 2 values per unit, one axis per unit of its scope.
"""
from __future__ import annotations

import numpy as np

from .._checks import LEVELS


def _aligned(scope, table, target):
    """``table`` (axes in ``scope`` order) as an array that broadcasts against ``target``'s axes.

    Scopes are kept in elimination order, so a message's axes already come in
    its receiver's order and only size-1 axes need inserting; a transpose is
    needed only for scopes given in another order.
    """
    if not scope:
        return table
    where = [target.index(u) for u in scope]
    if any(a > c for a, c in zip(where, where[1:])):
        table = np.transpose(table, np.argsort(where))
        where = sorted(where)
    shape = [1] * len(target)
    for a in where:
        shape[a] = 2
    return table.reshape(shape)


def _logsumexp(table, axes):
    if not axes:
        return table
    top = np.max(table, axis=axes, keepdims=True)
    out = np.log(np.sum(np.exp(table - top), axis=axes)) + np.squeeze(top, axis=axes)
    return out


_GRIDS = {}
#: Up to this many neighbours, a cluster's field is one product with a cached grid of states.
_GRID_UNITS = 10


def _grid(k, values):
    """The 2**k states of k units as an array of shape (2,) * k + (k,), cached per (k, units)."""
    key = (k, float(values[0]))
    if key not in _GRIDS:
        axes = np.meshgrid(*([values] * k), indexing="ij")
        _GRIDS[key] = np.stack(axes, axis=-1) if k else np.zeros((0,))
    return _GRIDS[key]


def _cluster_table(v, scope, incoming, W, b, T, values):
    """Log weight of the cluster (v, *scope): v's own terms plus the messages v receives.

    Axis 0 is unit v, axes 1.. follow ``scope``. v's energy terms are
    ``-s_v (b_v + sum_u w_vu s_u)``; the couplings to units eliminated before v
    are already inside the messages.
    """
    target = (v, *scope)
    k = len(scope)
    if k <= _GRID_UNITS:  # small clusters: one product instead of k broadcasts
        field = _grid(k, values) @ (W[v, list(scope)] / T) + b[v] / T if k else np.float64(b[v] / T)
    else:
        field = np.full((1,) * k, b[v] / T)
        for a, u in enumerate(scope):
            shape = [1] * k
            shape[a] = 2
            field = field + (W[v, u] / T) * values.reshape(shape)
    table = values.reshape((2,) + (1,) * k) * field[None]
    for msg_scope, msg in incoming:
        table = table + _aligned(msg_scope, msg, target)
    full = (2,) * len(target)
    return table if table.shape == full else np.broadcast_to(table, full)


def _upward(W, b, T, units, plan, keep, reduce="sum"):
    """Eliminate in ``plan.order``; return the constant left over and the clusters.

    For each unit v the cluster record holds its scope (v's neighbours when
    eliminated), the messages it received (as (sender, scope, table)) and,
    when ``keep``, the message it sent. With ``reduce="max"`` messages are
    maxima (the most probable state) and each cluster keeps its table.
    """
    values = np.asarray(LEVELS[units], dtype=float)
    inbox = {v: [] for v in plan.order}
    total = 0.0
    clusters = {}
    for v, scope in zip(plan.order, plan.scopes):
        received = inbox.pop(v)
        table = _cluster_table(v, scope, [(s, m) for _, s, m in received], W, b, T, values)
        message = np.logaddexp(table[0], table[1]) if reduce == "sum" else np.maximum(table[0], table[1])
        # Only a downward pass needs what a cluster received: for log Z alone each
        # message is dropped once used, so memory stays at the plan's peak.
        clusters[v] = {"scope": scope, "received": received if keep else None,
                       "sent": message if keep else None, "table": table if reduce == "max" else None}
        if scope:
            inbox[scope[0]].append((v, scope, np.ascontiguousarray(message)))
        else:
            total += float(message)
    return total, clusters
