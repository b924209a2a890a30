"""Exact samples of a Boltzmann machine, by variable elimination: wherever ``log Z`` is exact.

The upward pass of :mod:`bmlib.exact.elimination` sums the units out one at a
time and keeps each cluster's incoming messages; a backward pass then draws
each unit given the units eliminated after it, which yields independent
draws from ``p`` exactly. They exist wherever ``bm.log_partition`` is exact:
small models, and sparse ones such as lattices. Used by the reverse half of
:func:`bmlib.ais_sandwich`, and to give the chapter "Learning real images"
its exact reference. Explained in the chapter "The normalizing constant Z".
"""
from __future__ import annotations

import numpy as np

from .._checks import LEVELS, check_count, check_memory
from .._random import as_generator
from .._threads import thin_blas
from ._elimination_tables import _cluster_table, _upward
from .elimination import _prepare


@thin_blas
def exact_samples(W, b=None, T=1.0, units="spins", *, n_samples=1000, rng=None):
    """Independent states drawn exactly from ``p(s) = exp(-E(s)/T) / Z``, by variable elimination.

    The upward pass of :func:`~bmlib.log_partition`'s elimination leaves, for
    each unit, a table of its log weight given the units eliminated after
    it. Going back through the order, each unit is drawn from that
    conditional at the values already drawn for them: no chain, no burn-in,
    no correlation between samples. It works wherever elimination is exact
    (``bmlib._elimination_plan.MAX_ELIMINATION_UNITS`` = 27 units in one
    table at most): any model of up to about 25 units, a lattice, a chain, and a restricted Boltzmann machine with a
    small hidden layer (given as :meth:`~bmlib.RBM.to_boltzmann_machine`).

    Parameters
    ----------
    W : array_like of shape (n, n), or a coupling operator
    b : array_like of shape (n,), optional
    T : float
        Temperature, > 0.
    units : {"spins", "bits"}
    n_samples : int
        How many states, >= 1.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of shape (n_samples, n), dtype int8

    Raises
    ------
    ValueError
        If an argument breaks its rule (the message names it), or if the
        model is too wide for elimination (the message gives the cost).

    Notes
    -----
    Used by :func:`ais_sandwich` to start its reverse runs. Explained in the
    chapter "The normalizing constant Z"; used in "Learning real images".

    Examples
    --------
    Two spins that want to agree, at T = 1: they agree with probability
    ``e / (e + e^-1) = 0.881``.

    >>> import bmlib as bm
    >>> S = bm.exact_samples([[0, 1], [1, 0]], n_samples=10_000, rng=0)
    >>> round(float((S[:, 0] == S[:, 1]).mean()), 3)   # 0.881 +- 0.003
    0.885
    """
    n_samples = check_count(n_samples, "n_samples", minimum=1)
    W, b, T, units, plan = _prepare(W, b, T, units, "auto", "exact samples", keep_messages=True)
    check_memory(9 * n_samples * W.shape[0], f"{n_samples} exact samples of {W.shape[0]} units (n_samples)")
    gen = as_generator(rng)
    _, clusters = _upward(W, b, T, units, plan, keep=True)
    values = np.asarray(LEVELS[units], dtype=float)
    index = {}
    for v in reversed(plan.order):
        record = clusters[v]
        scope = record["scope"]
        table = _cluster_table(v, scope, [(s, m) for _, s, m in record["received"]], W, b, T, values)
        at = tuple(index[u] for u in scope)
        low, high = table[(0, *at)], table[(1, *at)]
        p_high = 1.0 / (1.0 + np.exp(np.clip(low - high, -700.0, 700.0)))
        index[v] = (gen.random(n_samples) < p_high).astype(np.intp)
    chosen = np.stack([index[v] for v in range(W.shape[0])], axis=1)
    return values[chosen].astype(np.int8)
