"""Sources of the clamped and free statistics that the learning rule needs.

The learning rule of every model in bmlib is "clamped minus free":

    gradient = (<.>_clamped - <.>_free) / T

A *statistics provider* is any callable

    provider(model, batch, rng) -> ((mean, second), (mean, second))

returning the clamped phase (visible units held at the patterns of
``batch``, averaged over the batch) and the free phase (the model running on
its own). ``mean`` has one entry per unit, visible units first; ``second``
holds the pair averages the model has weights for:

==========================  ======================  ===========================
model                       mean                    second
==========================  ======================  ===========================
:class:`BoltzmannMachine`   (n_units,)  <s_i>       (n_units, n_units) <s_i s_j>
:class:`RBM`                (n_v + n_h,) <v>, <h>   (n_v, n_h) <v_i h_j>
==========================  ======================  ===========================

:func:`~bmlib.train` turns the two pairs into a gradient, so a new way of
estimating them (sampled by sequential dynamics, the annealed two-phase
procedure of Hinton & Sejnowski, mean-field fixed points) is a provider of a
few lines, passed as ``statistics=``; nothing in the models or the training
loop changes. A provider that keeps state between calls (persistent chains)
is an object with ``__call__``, like :class:`PersistentContrastiveDivergence`.
"""
from __future__ import annotations

from .._checks import check_integer
from .._random import as_generator
from .rbm import RBM

# What a named source of statistics still needs, for the error it raises
# until it exists. When the piece lands, map the name in resolve_statistics.
_MISSING = {
    "sampled": "sampled statistics (sequential dynamics in both phases) need the sampler bmlib.sampling",
    "annealed": "the annealed two-phase procedure needs the sampler bmlib.sampling and its annealing schedules",
    "mean_field": "mean-field statistics need the fixed-point solver of bmlib.meanfield",
}


def exact_statistics(model, batch, rng=None):
    """Exact clamped and free statistics, by enumeration.

    For a :class:`~bmlib.BoltzmannMachine`, the clamped phase enumerates the
    hidden units for each pattern and the free phase all units
    (:func:`~bmlib.clamped_moments`, :func:`~bmlib.exact_moments`). For an
    :class:`~bmlib.RBM`, the hidden units given a pattern are independent (no
    enumeration), and the free phase enumerates the smaller layer.

    Parameters
    ----------
    model : BoltzmannMachine or RBM
    batch : array_like of shape (P, n_visible)
        Patterns for the clamped phase.
    rng : ignored
        Accepted so that every provider has the same signature.

    Returns
    -------
    clamped : tuple (mean, second)
    free : tuple (mean, second)
        Shapes as in the table of :mod:`bmlib.learning.statistics`.

    Examples
    --------
    >>> import bmlib as bm
    >>> machine = bm.BoltzmannMachine(2, W=[[0, 0], [0, 0]])
    >>> (mean_c, second_c), (mean_f, second_f) = bm.exact_statistics(machine, [[1, 1], [1, -1]])
    >>> print(mean_c, second_c[0, 1], mean_f, second_f[0, 1])
    [1. 0.] 0.0 [0. 0.] 0.0
    """
    return model._exact_statistics(model._check_data(batch, "batch"))


def _require_rbm(model, who):
    if not isinstance(model, RBM):
        raise TypeError(
            f"{who} runs block Gibbs chains and needs an RBM; got {type(model).__name__}. "
            'For a BoltzmannMachine use statistics="exact" or pass your own provider.'
        )


class ContrastiveDivergence:
    """CD-k (Hinton 2002): the free phase from k block Gibbs rounds started at the data.

    Each call starts one chain at every pattern of the batch, runs ``k`` rounds
    ``v -> h -> v``, and uses the visible states reached, with the hidden
    units averaged given them (as scikit-learn does), as the free phase. It is
    biased towards the data for small ``k`` but cheap, and the bias shrinks as
    ``k`` grows.

    Parameters
    ----------
    k : int
        Gibbs rounds per update, >= 1.

    Notes
    -----
    Explained in the chapter "Hidden units" (faster statistics).

    Examples
    --------
    >>> import bmlib as bm
    >>> rbm = bm.RBM(9, 4, rng=0)
    >>> history = bm.train(rbm, bm.bars_and_stripes(3), epochs=5, statistics=bm.ContrastiveDivergence(k=3),
    ...                    progress=False, rng=1)
    >>> history.values.shape
    (6,)
    """

    def __init__(self, k=1):
        self.k = check_integer(k, "k", minimum=1)

    def __repr__(self):
        return f"ContrastiveDivergence(k={self.k})"

    def __call__(self, model, batch, rng=None):
        _require_rbm(model, "ContrastiveDivergence")
        batch = model._check_data(batch, "batch")
        v = model._gibbs_steps(batch, self.k, as_generator(rng))
        return model._statistics_given_visible(batch), model._statistics_given_visible(v)


class PersistentContrastiveDivergence:
    """Persistent CD (Tieleman 2008): free-phase chains that continue from one update to the next.

    The chains are not restarted at the data: each call advances the same
    ``n_chains`` chains by ``k`` block Gibbs rounds. While the weights change
    slowly the chains stay close to the model's equilibrium, so the free phase
    is much less biased than CD-k at the same cost. The chains live in
    :attr:`chains`; pass the same object again (``history.statistics``) to
    continue training.

    Parameters
    ----------
    k : int
        Gibbs rounds per update, >= 1.
    n_chains : int, optional
        Number of chains; the size of the first batch if omitted.

    Attributes
    ----------
    chains : ndarray of shape (n_chains, n_visible) or None
        Current visible states of the chains (None before the first call);
        they start uniformly at random.

    Notes
    -----
    Explained in the chapter "Hidden units" (faster statistics).
    """

    def __init__(self, k=1, n_chains=None):
        self.k = check_integer(k, "k", minimum=1)
        self.n_chains = None if n_chains is None else check_integer(n_chains, "n_chains", minimum=1)
        self.chains = None

    def __repr__(self):
        return f"PersistentContrastiveDivergence(k={self.k}, n_chains={self.n_chains})"

    def __call__(self, model, batch, rng=None):
        _require_rbm(model, "PersistentContrastiveDivergence")
        batch = model._check_data(batch, "batch")
        gen = as_generator(rng)
        if self.chains is None or self.chains.shape[1] != model.n_visible:
            self.chains = model._random_states(self.n_chains or len(batch), gen)
        self.chains = model._gibbs_steps(self.chains, self.k, gen)
        return model._statistics_given_visible(batch), model._statistics_given_visible(self.chains)


def resolve_statistics(statistics):
    """Turn the ``statistics=`` argument of :func:`~bmlib.train` into a provider.

    Parameters
    ----------
    statistics : str or callable
        ``"exact"``, ``"cd"`` (CD-1), ``"pcd"`` (persistent CD-1), or a
        provider ``(model, batch, rng) -> ((mean, second), (mean, second))``.
        ``"sampled"``, ``"annealed"`` and ``"mean_field"`` are reserved for
        sources still to come and raise ``NotImplementedError`` naming what is
        missing.

    Returns
    -------
    callable
    """
    if callable(statistics):
        return statistics
    if statistics == "exact":
        return exact_statistics
    if statistics == "cd":
        return ContrastiveDivergence(1)
    if statistics == "pcd":
        return PersistentContrastiveDivergence(1)
    if statistics in _MISSING:
        raise NotImplementedError(
            f"statistics={statistics!r} is not available yet: {_MISSING[statistics]}. "
            'Use "exact", "cd" or "pcd", or pass a provider(model, batch, rng) -> ((mean, second), (mean, second)).'
        )
    raise ValueError(
        'statistics must be "exact", "cd", "pcd" or a provider(model, batch, rng) -> '
        f"((mean, second), (mean, second)); got {statistics!r}"
    )
