"""The annealed two-phase procedure of Ackley, Hinton & Sejnowski (1985).

Each phase starts chains at random states, *anneals* them (sweeps at
temperatures falling to the model's ``T``) so that they reach low-energy
regions fast, and then *collects*: more sweeps at ``T``, averaging ``s_i`` and
``s_i s_j`` over the states visited.

clamped phase (+)
    every visible unit held at a pattern of the batch (``chains_per_pattern``
    chains per pattern); only the hidden units move.
free phase (-)
    nothing clamped; ``n_free_chains`` chains. For an input-output task
    (``inputs=``) the input units stay clamped to each pattern here too.

For units in bits the pair averages are the co-occurrence probabilities
``p_ij = <x_i x_j>`` of the paper, ``p+_ij`` clamped and ``p-_ij`` free. The
paper's weight change is a fixed step in the sign of ``p+_ij - p-_ij``:
``bm.train(..., update="sign", learning_rate=2)``.

Explained in the chapter "Hidden units".
"""
from __future__ import annotations

import numpy as np

from .._checks import (
    LEVELS,
    check_annealing_schedule,
    check_choice,
    check_count,
    check_probability,
    check_unit_indices,
)
from .._random import as_generator
from ..sampling import anneal
from ._full import full_machine, in_model_layout, listed, state_moments

#: The annealing schedule of Ackley, Hinton & Sejnowski (1985) -- 2 sweeps at
#: T = 20, 2 at 15, 2 at 12, 4 at 10 -- divided by its final temperature 10,
#: so that it scales with the model's T (the paper ran its machines at T = 10).
PAPER_SCHEDULE = ((2.0, 2), (1.5, 2), (1.2, 2), (1.0, 4))

#: Noisy clamping used by Ackley, Hinton & Sejnowski (1985) for the encoders:
#: an "on" visible unit is clamped off with probability 0.15, an "off" unit on with 0.05.
PAPER_NOISE = (0.15, 0.05)


def _noisy(values, noise, units, rng):
    """``values`` with each unit flipped with probability ``noise[0]`` if high and ``noise[1]`` if low."""
    low = LEVELS[units][0]
    high = values == 1.0
    flip = rng.random(values.shape) < np.where(high, noise[0], noise[1])
    return np.where(flip, np.where(high, low, 1.0), values)


class AnnealedStatistics:
    """Clamped and free statistics by annealing and collecting (Ackley, Hinton & Sejnowski 1985).

    A provider for :func:`~bmlib.train` (``statistics=AnnealedStatistics()``, or
    ``statistics="annealed"`` for the defaults). Every call starts fresh chains
    (nothing persists between calls), runs them along ``schedule`` with
    :func:`~bmlib.anneal`, then ``n_collect`` more sweeps at the model's ``T``,
    and averages ``s_i`` and ``s_i s_j`` over those collection sweeps and over
    the chains. Clamped-phase chains hold the visible units at the patterns;
    its averages are over patterns with equal weight.

    Parameters
    ----------
    schedule : sequence of (T_factor, n_sweeps) pairs
        Annealing before the collection, temperatures as multiples of the
        model's ``T``; chains start uniformly at random. The default,
        :data:`PAPER_SCHEDULE`, is the paper's 2 sweeps at T = 20, 2 at 15,
        2 at 12, 4 at 10 for a machine at T = 10 (section 4.1).
    n_collect : int
        Sweeps at ``T`` whose states are averaged, >= 1. Default 10: the
        paper collected statistics "at a temperature of 10 for 10 units of
        time" (section 4.1). Here the state after each sweep is counted; the
        paper does not say how often within a unit of time it counted.
    chains_per_pattern : int
        Annealings per pattern in the clamped phase, >= 1. Default 2: "for
        each environmental vector, the network was allowed to reach
        equilibrium twice" (section 4.1, the 4-2-4 encoder).
    n_free_chains : int, optional
        Annealings in the free phase, >= 1. Default: "as many annealings as
        were used to estimate p_ij" (section 4.1), ``chains_per_pattern``
        times the batch size.
    noise : (float, float), optional
        Noisy clamping: the probability that a high visible unit is clamped
        low, and that a low one is clamped high, drawn afresh for every chain.
        None (default) clamps the patterns exactly. The paper used noisy
        clamping in all its examples so that no state needs an infinite
        energy (section 3.2), with :data:`PAPER_NOISE` = (0.15, 0.05) for
        the 4-2-4 encoder (section 4.1); with noise the clamped phase
        estimates the statistics of the noisy data, not of the batch.
    scan : {"random", "sequential", "colouring"}
        Update order (see :func:`~bmlib.sample`). Default "random": the
        paper's unit of time is one random probe per unclamped unit, so each
        unit has on average one chance to change (its footnote 4).
    inputs : sequence of int, optional
        Visible units that are inputs of an input-output task: clamped to
        each pattern (with the same noise) in the free phase too, with
        ``chains_per_pattern`` chains per pattern. Learning then maximizes
        the conditional likelihood of the other visible units given the
        inputs (the ``log_likelihood`` that :func:`~bmlib.train` records
        stays the joint one). None (default): the free phase clamps nothing,
        as in the paper.

    Attributes
    ----------
    n_updates : int
        Single-unit updates done by all calls so far (chains times sweeps
        times free units): the cost, in the same currency as
        :attr:`MeanFieldStatistics.n_updates`.

    Notes
    -----
    This is sampling from a fresh start, so the statistics are noisy and,
    with few sweeps, biased towards the starting and annealing states; they
    approach the exact ones as chains and collection sweeps grow and the
    couplings weaken (``tests/test_learning_annealed.py`` measures it). A
    machine without hidden units has nothing to anneal in the clamped phase:
    its clamped statistics are those of the (noisy) patterns, exactly.

    The paper's machine uses units in {0, 1}: use ``units="bits"`` and
    ``T = 10`` with ``update="sign", learning_rate=2`` in
    :func:`~bmlib.train` to run its procedure as published. Explained in the
    chapter "Hidden units".

    Examples
    --------
    >>> import bmlib as bm
    >>> machine = bm.BoltzmannMachine(8, 2, mask=bm.encoder_mask(4, 2), units="bits", T=10.0, rng=0)
    >>> provider = bm.AnnealedStatistics(n_collect=10)
    >>> (mean_c, second_c), (mean_f, second_f) = provider(machine, bm.encoder_patterns(4, units="bits"), rng=1)
    >>> mean_c.shape, second_f.shape
    ((10,), (10, 10))
    >>> print(mean_c[:8])  # the visible units are clamped: each is on in one pattern of four
    [0.25 0.25 0.25 0.25 0.25 0.25 0.25 0.25]
    """

    def __init__(self, schedule=PAPER_SCHEDULE, n_collect=10, chains_per_pattern=2, n_free_chains=None,
                 noise=None, scan="random", inputs=None):
        temps, sweeps = check_annealing_schedule(schedule)
        self.schedule = tuple(zip(temps.tolist(), sweeps.tolist()))
        self.n_collect = check_count(n_collect, "n_collect", minimum=1)
        self.chains_per_pattern = check_count(chains_per_pattern, "chains_per_pattern", minimum=1)
        self.n_free_chains = None if n_free_chains is None else check_count(n_free_chains, "n_free_chains",
                                                                              minimum=1)
        if noise is not None:
            if np.ndim(noise) != 1 or len(noise) != 2:
                raise ValueError(f"noise must be a pair (p_high_to_low, p_low_to_high) or None; got {noise!r}")
            noise = (check_probability(noise[0], "noise[0]"), check_probability(noise[1], "noise[1]"))
        self.noise = noise
        self.scan = check_choice(scan, "scan", ("random", "sequential", "colouring"))
        if inputs is not None and n_free_chains is not None:
            raise ValueError("n_free_chains must be None when inputs are given: the free phase then runs "
                             "chains_per_pattern chains per pattern")
        self.inputs = None if inputs is None else check_unit_indices(inputs, None, "inputs")
        self.n_updates = 0

    def __repr__(self):
        return (f"AnnealedStatistics(schedule={self.schedule}, n_collect={self.n_collect}, "
                f"chains_per_pattern={self.chains_per_pattern}, n_free_chains={self.n_free_chains}, "
                f"noise={self.noise}, scan={self.scan!r}, inputs={listed(self.inputs)})")

    def _run(self, machine, n_chains, rng, clamped=None, values=None):
        """Anneal then collect; the moments of the collected states."""
        T = machine.T
        schedule = [(factor * T, sweeps) for factor, sweeps in self.schedule] + [(T, self.n_collect)]
        result = anneal(machine.W, machine.b, schedule, machine.units, n_chains=n_chains, scan=self.scan,
                        clamped=clamped, values=values, rng=rng)
        self.n_updates += n_chains * result.n_sweeps * (machine.n_units - (0 if clamped is None else len(clamped)))
        return state_moments(result.samples[-self.n_collect :])

    def __call__(self, model, batch, rng=None):
        machine = full_machine(model, "AnnealedStatistics")
        batch = model._check_data(batch, "batch")
        gen = as_generator(rng)
        values = np.repeat(batch, self.chains_per_pattern, axis=0)
        if self.noise is not None:
            values = _noisy(values, self.noise, machine.units, gen)
        if machine.n_hidden == 0:
            clamped = state_moments(values)
        else:
            clamped = self._run(machine, len(values), gen, clamped=machine.visible, values=values)
        if self.inputs is None:
            free = self._run(machine, self.n_free_chains or len(values), gen)
        else:
            inputs = check_unit_indices(self.inputs, machine.n_visible, "inputs (visible units)")
            free = self._run(machine, len(values), gen, clamped=inputs, values=values[:, inputs])
        return in_model_layout(model, *clamped), in_model_layout(model, *free)
