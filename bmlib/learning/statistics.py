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

import numpy as np

from .._checks import check_bool, check_count, check_instance
from .._random import as_generator
from ..sampling import sample
from ..sampling.rule_arguments import rule_name
from ._full import state_moments
from .annealed import AnnealedStatistics
from . import chain_step
from .deterministic import MeanFieldStatistics
from .machine import BoltzmannMachine
from .rbm import RBM


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
    check_instance(model, "model", (BoltzmannMachine, RBM), "a bmlib BoltzmannMachine or RBM")
    model._check_parameters()  # a model changed after construction is refused here too
    as_generator(rng)  # not used by exact statistics, but checked like everywhere
    return model._exact_statistics(model._check_data(batch, "batch"))


def _exact_statistics_of_checked(model, batch, rng=None):
    """:func:`exact_statistics` of a model and a batch already checked (the steps of :func:`~bmlib.train`)."""
    return model._exact_statistics(batch)


def _require_rbm(model, who):
    if not isinstance(model, RBM):
        raise TypeError(
            f"{who} runs block Gibbs chains and needs an RBM; got {type(model).__name__}. "
            'For a BoltzmannMachine use statistics="exact" or pass your own provider.'
        )
    model._check_parameters()  # a model changed after construction (train checks once, before its steps)


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
    Explained in the chapter "Restricted Boltzmann machines". The step,
    Gibbs rounds and statistics, is :func:`bmlib.learning.chain_step.contrastive_phases`,
    shared with :class:`PersistentContrastiveDivergence`; :func:`~bmlib.train`
    runs it too, for every ``update``, and takes the gradient step from it in
    fewer NumPy calls than from the statistics returned here.

    Examples
    --------
    >>> import bmlib as bm
    >>> rbm = bm.RBM(9, 4, units="bits", rng=0)
    >>> data = bm.bars_and_stripes(3, units="bits")
    >>> history = bm.train(rbm, data, epochs=5, statistics=bm.ContrastiveDivergence(k=3), rng=1)
    >>> history.values.shape
    (6,)
    """

    def __init__(self, k=1):
        self.k = check_count(k, "k", minimum=1)

    def __repr__(self):
        return f"ContrastiveDivergence(k={self.k})"

    def __call__(self, model, batch, rng=None):
        _require_rbm(model, "ContrastiveDivergence")
        return self._phases(model, model._check_data(batch, "batch"), as_generator(rng)).statistics()

    def _phases(self, model, batch, gen):
        # The step itself (bmlib/learning/chain_step.py), with the chains started at the batch. train()
        # calls this for every update=, on rows of data it has checked once (checking each small batch
        # again cost about as much as its arithmetic), and takes the step or the statistics from it.
        return chain_step.contrastive_phases(model, batch, batch, self.k, gen)


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
    n_chains : int
        Number of chains, >= 1. The default, 200, is about what the book's
        examples need: on 3 x 3 bars and stripes (14 images) in bits with as
        many chains as images the exact log-likelihood late in training
        swings between -7.8 and -3.2; with 200 chains and the defaults of
        :func:`~bmlib.train` (PCD-1, 16 hidden units, learning rate 0.1, 3000
        epochs) it stays within -3.4 and -2.7 over epochs 2500-3000, in both
        units (seeds 0-5: bits -3.39 to -2.88, spins -2.83 to -2.77; the
        best possible is -log 14 = -2.64). In spins that takes the
        decaying step that ``train`` gives PCD there by default
        (``step_decay="auto"``): with a constant step of 0.1 the likelihood
        drifts down to -13 to -29 after 3000 epochs (seeds 0-2; see
        tests/test_rbm.py and tests/test_training_defaults.py).

    Attributes
    ----------
    chains : ndarray of shape (n_chains, n_visible) or None
        Current visible states of the chains (None before the first call);
        they start uniformly at random.

    Notes
    -----
    Explained in the chapter "Restricted Boltzmann machines". The step is
    that of :class:`ContrastiveDivergence`
    (:func:`bmlib.learning.chain_step.contrastive_phases`), started at
    :attr:`chains` instead of the batch.
    """

    def __init__(self, k=1, n_chains=200):
        self.k = check_count(k, "k", minimum=1)
        self.n_chains = check_count(n_chains, "n_chains", minimum=1)
        self.chains = None

    def __repr__(self):
        return f"PersistentContrastiveDivergence(k={self.k}, n_chains={self.n_chains})"

    def __call__(self, model, batch, rng=None):
        _require_rbm(model, "PersistentContrastiveDivergence")
        return self._phases(model, model._check_data(batch, "batch"), as_generator(rng)).statistics()

    def _phases(self, model, batch, gen):
        # The step of ContrastiveDivergence._phases, with the chains started where the last call left them.
        if self.chains is None or self.chains.shape[1] != model.n_visible:  # uniformly random at first
            self.chains = model._random_states(self.n_chains, gen)
        phases = chain_step.contrastive_phases(model, batch, self.chains, self.k, gen)
        self.chains = phases.chains
        return phases


class SampledStatistics:
    """Both phases estimated by sequential dynamics (:func:`~bmlib.sample`), for a BoltzmannMachine.

    The free phase runs ``n_chains`` independent chains of the whole machine
    at its temperature: ``burn_in`` sweeps, then ``n_samples`` kept states
    per chain, every ``thin`` sweeps. The clamped phase needs no sampling when
    every unit is visible (the averages over the batch are exact); with hidden
    units it runs one chain per pattern, the visible units clamped to it, and
    averages the kept states over chains and sweeps. The estimates are
    unbiased once the chains have equilibrated, with an error that shrinks
    like ``1 / sqrt(n_chains * n_samples)`` (less if successive states are
    correlated), and the cost grows with the number of units, not with
    ``2**n``: this is how statistics scale to machines too large to enumerate.

    Parameters
    ----------
    n_chains : int
        Free-phase chains, >= 2 (the spread between them gives :attr:`standard_errors`).
    n_samples : int
        States kept per chain in each phase, >= 1.
    burn_in : int
        Sweeps discarded at the start of each chain in each call, >= 0.
    thin : int
        Sweeps between kept states, >= 1.
    persistent : bool
        If True, the free chains start each call where the previous call left
        them (:attr:`chains`), as in persistent CD; ``burn_in`` is still run
        first, and can then be small. If False, they start uniformly at random.
    rule : {"heat_bath", "metropolis"}
        The single-unit update of :func:`~bmlib.sample`.

    Attributes
    ----------
    chains : ndarray of shape (n_chains, n_units) or None
        Where the free chains ended in the last call (None before the first).
    standard_errors : tuple (mean, second) or None
        Standard errors of the last free-phase estimates, shapes (n_units,)
        and (n_units, n_units), from the spread of the per-chain averages
        (the chains are independent).

    Notes
    -----
    ``train(..., statistics="sampled")`` uses the defaults. Explained in the
    chapter "The learning rule" (exact vs sampled statistics).

    Examples
    --------
    >>> import numpy as np
    >>> import bmlib as bm
    >>> machine = bm.BoltzmannMachine(2, W=[[0, 1], [1, 0]])
    >>> provider = bm.SampledStatistics(n_chains=200, n_samples=50)
    >>> clamped, (mean, second) = provider(machine, [[1, 1]], rng=0)
    >>> round(float(second[0, 1]), 2), round(float(np.tanh(1.0)), 2)  # free <s_0 s_1> vs exact
    (0.76, 0.76)
    >>> bool(provider.standard_errors[1][0, 1] < 0.02)
    True
    """

    def __init__(self, n_chains=100, n_samples=20, burn_in=20, thin=1, persistent=False, rule="heat_bath"):
        self.n_chains = check_count(n_chains, "n_chains", minimum=2)
        self.n_samples = check_count(n_samples, "n_samples", minimum=1)
        self.burn_in = check_count(burn_in, "burn_in", minimum=0)
        self.thin = check_count(thin, "thin", minimum=1)
        self.persistent = check_bool(persistent, "persistent")
        self.rule = rule_name(rule)
        self.chains = None
        self.standard_errors = None

    def __repr__(self):
        return (f"SampledStatistics(n_chains={self.n_chains}, n_samples={self.n_samples}, burn_in={self.burn_in}, "
                f"thin={self.thin}, persistent={self.persistent})")

    def _run(self, model, gen, **kwargs):
        return sample(model.W, model.b, model.T, model.units, n_samples=self.n_samples, burn_in=self.burn_in,
                      thin=self.thin, rule=self.rule, rng=gen, **kwargs)

    def __call__(self, model, batch, rng=None):
        if not isinstance(model, BoltzmannMachine):
            raise TypeError(f"SampledStatistics runs sequential dynamics on a BoltzmannMachine; got "
                            f'{type(model).__name__}. For an RBM use statistics="cd" or "pcd".')
        model._check_parameters()
        batch = model._check_data(batch, "batch")
        gen = as_generator(rng)
        if model.n_hidden == 0:
            clamped = state_moments(batch)  # every unit is clamped: the data averages, exactly
        else:  # one chain per pattern, its visible units held at the pattern
            run = self._run(model, gen, n_chains=len(batch), clamped=model.visible, values=batch)
            clamped = state_moments(run.samples)
        keep_going = self.persistent and self.chains is not None and self.chains.shape[1] == model.n_units
        run = self._run(model, gen, n_chains=self.n_chains, initial=self.chains if keep_going else None)
        self.chains = run.final_state
        S = run.samples.astype(float)  # (n_samples, n_chains, n)
        per_chain = (S.mean(axis=0), np.einsum("tci,tcj->cij", S, S) / len(S))
        self.standard_errors = tuple(m.std(axis=0, ddof=1) / np.sqrt(self.n_chains) for m in per_chain)
        return clamped, state_moments(run.samples)


def resolve_statistics(statistics):
    """Turn the ``statistics=`` argument of :func:`~bmlib.train` into a provider.

    Parameters
    ----------
    statistics : str or callable
        ``"exact"``, ``"cd"`` (CD-1), ``"pcd"`` (persistent CD-1, 200 chains),
        ``"sampled"`` (:class:`SampledStatistics` with its defaults),
        ``"annealed"`` (:class:`~bmlib.AnnealedStatistics`, the procedure of
        Ackley, Hinton & Sejnowski 1985), ``"mean_field"``
        (:class:`~bmlib.MeanFieldStatistics`, the deterministic Boltzmann
        machine), or a provider ``(model, batch, rng) -> ((mean, second), (mean, second))``.

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
    if statistics == "sampled":
        return SampledStatistics()
    if statistics == "annealed":
        return AnnealedStatistics()
    if statistics == "mean_field":
        return MeanFieldStatistics()
    raise ValueError(
        'statistics must be "exact", "sampled", "annealed", "mean_field", "cd", "pcd" or a '
        "provider(model, batch, rng) -> "
        f"((mean, second), (mean, second)); got {statistics!r}"
    )
