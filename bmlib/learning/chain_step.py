"""The one step of contrastive divergence (CD-k and persistent CD), for every caller.

:class:`~bmlib.ContrastiveDivergence` and :class:`~bmlib.PersistentContrastiveDivergence`
differ only in where the free chains start (at the batch, or where the last
step left them). Everything after that is :func:`contrastive_phases`, and it
is what every caller runs: the providers when called directly, and
:func:`~bmlib.train` with ``update="gradient"`` and ``update="sign"`` alike.

1. The negative phase: ``k`` block Gibbs rounds ``v -> h -> v`` from the
   starts, with :meth:`~bmlib.RBM.gibbs`'s random numbers.
2. Both phases through the hidden layer at once: the rows of the batch and of
   the chains reached, ``X = [batch; chains]`` of shape (B + C, n_v), and
   their hidden means ``H = E[h | X]`` of shape (B + C, n_h), in one product.

From these :class:`ContrastivePhases` gives the statistics every provider
answers (:meth:`~ContrastivePhases.statistics`, what the providers return and
what the sign update takes the difference of) or, for a gradient step,
clamped minus free over T in one piece (:meth:`~ContrastivePhases.step`).

Why two ways of summing the same rows: a step of an RBM at batch 10 on the
digits is small arithmetic on small arrays, so its time is the fixed cost of
each NumPy call (about a microsecond). The statistics and then their
difference take some twenty NumPy calls; the step weights the rows of the
two phases by one column of signs and needs four:

    s  = scale * (+1/B, ..., +1/B, -1/C, ..., -1/C) / T
    dW = X^T (s H),  db_visible = s X,  db_hidden = sum of the rows of s H

The two agree up to the order of their roundings (a few units in the last
place), so ``update="sign"`` takes the statistics' own difference: a
component whose two phases agree exactly must stay zero, and not become the
sign of a rounding.
"""
from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np


@functools.lru_cache(maxsize=16)  # the few batch shapes of a training run; s is only read
def _row_weights(n_clamped, n_free, scale, T):
    """``s`` of the module docstring, as a column of shape (B + C, 1)."""
    s = np.empty((n_clamped + n_free, 1))
    s[:n_clamped] = scale / T / n_clamped
    s[n_clamped:] = -scale / T / n_free
    return s


def _averages(V, H):
    """(mean of [v, E[h|v]], mean of v E[h|v]^T) over the rows of one phase, shapes (n_v + n_h,), (n_v, n_h)."""
    # sum / len is what ndarray.mean computes, without its Python-level overhead (small batches).
    total = np.add.reduce
    return np.concatenate([total(V, axis=0), total(H, axis=0)]) / len(V), V.T @ H / len(V)


class ContrastivePhases(NamedTuple):
    """Both phases of one CD or PCD step, as :func:`contrastive_phases` returns them.

    Attributes
    ----------
    visible : ndarray of shape (B + C, n_visible)
        The batch's rows (the clamped phase), then the chains' (the free phase).
    hidden : ndarray of shape (B + C, n_hidden)
        ``E[h | v]`` of every row of ``visible``.
    n_clamped : int
        ``B``, the rows of the batch.
    chains : ndarray of shape (C, n_visible)
        The chains after the step's Gibbs rounds (the values of ``visible[B:]``).
    T : float
        The model's temperature.
    """

    visible: np.ndarray
    hidden: np.ndarray
    n_clamped: int
    chains: np.ndarray
    T: float

    def statistics(self):
        """The clamped and the free statistics, as every provider returns them.

        Returns
        -------
        clamped, free : tuple (mean, second)
            ``mean`` of shape (n_visible + n_hidden,), the averages of ``v``
            and ``E[h | v]`` over the phase's rows; ``second`` of shape
            (n_visible, n_hidden), the average of ``v E[h | v]^T``.
        """
        B, X, H = self.n_clamped, self.visible, self.hidden
        return _averages(X[:B], H[:B]), _averages(X[B:], H[B:])

    def step(self, scale=1.0):
        """``scale`` times the gradient, clamped minus free over T (module docstring), in four NumPy calls.

        Parameters
        ----------
        scale : float
            Multiplies the gradient (the learning rate, so that it is the step).

        Returns
        -------
        dict of str to ndarray
            ``"W"`` (n_visible, n_hidden), ``"b_visible"`` (n_visible,) and
            ``"b_hidden"`` (n_hidden,).
        """
        X, B = self.visible, self.n_clamped
        s = _row_weights(B, len(X) - B, scale, self.T)
        sH = self.hidden * s
        return {"W": X.T @ sH, "b_visible": s[:, 0] @ X, "b_hidden": np.add.reduce(sH, axis=0)}


def contrastive_phases(model, batch, start, k, gen):
    """One CD/PCD step: ``k`` block Gibbs rounds from ``start``, then both phases' hidden means.

    Parameters
    ----------
    model : RBM
        Checked by the caller.
    batch : ndarray of shape (B, n_visible)
        The clamped phase: rows of checked data, in the model's units.
    start : ndarray of shape (C, n_visible)
        Where the free chains start: the batch itself for CD, the persistent
        chains for PCD.
    k : int
        Block Gibbs rounds ``v -> h -> v``, >= 1.
    gen : numpy.random.Generator

    Returns
    -------
    ContrastivePhases
        With ``.statistics()`` and ``.step(scale)``, and the new ``.chains``.

    Examples
    --------
    >>> import numpy as np
    >>> import bmlib as bm
    >>> from bmlib.learning.chain_step import contrastive_phases
    >>> rbm = bm.RBM(9, 4, units="bits", rng=0)
    >>> data = bm.bars_and_stripes(3, units="bits")
    >>> phases = contrastive_phases(rbm, data, data, 1, np.random.default_rng(1))
    >>> phases.step(0.1)["W"].shape, phases.chains.shape, phases.statistics()[1][1].shape
    ((9, 4), (14, 9), (9, 4))
    """
    chains = model._gibbs_steps(start, k, gen)
    X = np.concatenate((batch, chains))
    return ContrastivePhases(X, model._hidden_means(X), len(batch), chains, model.T)
