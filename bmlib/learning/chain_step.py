"""The step that :func:`~bmlib.train` takes with bmlib's CD and PCD: a scaled gradient in few NumPy calls.

A contrastive-divergence step of an RBM is small arithmetic on small arrays
(at batch 10 on the digits, 10 x 64 visible and 10 x 16 hidden values), so
its time is the fixed cost of each NumPy call, about a microsecond, not the
arithmetic. The providers' public answer, ``(mean, second)`` of each phase
(:mod:`bmlib.learning.statistics`), takes some twenty-five calls, and turning
it into a step another ten. Here the two phases go through the hidden layer
together and are weighted by one column of signs, so that the step comes out
of eleven calls:

    X  = [batch; chains]                       rows of both phases, (B + C, n_v)
    H  = E[h | X]                              their hidden means, (B + C, n_h)
    s  = scale * (+1/B, ..., +1/B, -1/C, ..., -1/C) / T
    dW = X^T (s H),  db_visible = s X,  db_hidden = sum of the rows of s H

which is ``scale`` times the gradient of :meth:`~bmlib.RBM.gradient`'s form,
clamped minus free over T, as the statistics give it; the two differ only in
the order of the roundings (a few units in the last place). With ``scale``
the learning rate, the gradient is already the step. The block Gibbs rounds
are those of the providers, with the same random numbers, so the chains are
the same.
"""
from __future__ import annotations

import functools

import numpy as np


@functools.lru_cache(maxsize=16)  # the few batch shapes of a training run; s is only read
def _row_weights(n_clamped, n_free, scale, T):
    """``s`` of the module docstring, as a column of shape (B + C, 1)."""
    s = np.empty((n_clamped + n_free, 1))
    s[:n_clamped] = scale / T / n_clamped
    s[n_clamped:] = -scale / T / n_free
    return s


def chain_gradient(model, batch, chains, k, gen, scale=1.0):
    """Advance block Gibbs chains by ``k`` rounds and return ``scale`` times the gradient, with the new chains.

    Parameters
    ----------
    model : RBM
    batch : ndarray of shape (B, n_visible)
        The clamped phase: rows of checked data, in the model's units.
    chains : ndarray of shape (C, n_visible)
        Where the free chains start (the batch itself for CD).
    k : int
        Block Gibbs rounds ``v -> h -> v``, >= 1.
    gen : numpy.random.Generator
    scale : float
        Multiplies the gradient (the learning rate, so that it is the step).

    Returns
    -------
    step : dict of str to ndarray
        ``"W"`` (n_visible, n_hidden), ``"b_visible"`` (n_visible,) and
        ``"b_hidden"`` (n_hidden,): ``scale`` times clamped minus free over
        ``T``, the free phase being the chains reached with their hidden
        units averaged.
    chains : ndarray of shape (C, n_visible)
        The chains after ``k`` rounds.

    Examples
    --------
    >>> import numpy as np
    >>> import bmlib as bm
    >>> from bmlib.learning.chain_step import chain_gradient
    >>> rbm = bm.RBM(9, 4, units="bits", rng=0)
    >>> data = bm.bars_and_stripes(3, units="bits")
    >>> step, chains = chain_gradient(rbm, data, data, 1, np.random.default_rng(1))
    >>> step["W"].shape, chains.shape
    ((9, 4), (14, 9))
    """
    chains = model._gibbs_steps(chains, k, gen)
    X = np.concatenate((batch, chains))
    s = _row_weights(len(batch), len(chains), scale, model.T)
    sH = model._hidden_means(X)
    sH *= s
    return {"W": X.T @ sH, "b_visible": s[:, 0] @ X, "b_hidden": np.add.reduce(sH, axis=0)}, chains
