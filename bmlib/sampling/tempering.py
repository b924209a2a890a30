"""Parallel tempering (replica exchange): chains at several temperatures that trade states.

At low temperature a chain stays in the valley where it started: leaving
it means climbing a barrier, which takes a time of order ``e^{barrier/T}``.
A chain at high temperature crosses barriers easily but samples the wrong
distribution. Parallel tempering runs one chain (*replica*) per temperature
``T_1 < T_2 < ... < T_K`` and, after every sweep, proposes to swap the states
of neighbouring temperatures; the swap of replicas ``k`` and ``k+1`` is
accepted with probability ``min(1, exp((beta_k - beta_{k+1}) (E_k - E_{k+1})))``.
That keeps the product of the K Boltzmann-Gibbs distributions invariant
(detailed balance on the joint state), so each replica samples its own
temperature exactly, while states diffuse up to where barriers are low and
back down into other valleys (Swendsen and Wang 1986; Geyer 1991; Hukushima
and Nemoto 1996). Sweeps are heat-bath updates of the units in order, made
by the chain kernel (:class:`bmlib.sampling.kernel.Sweeper`) with every
replica at its own temperature: the rule is the heat-bath rule of
:mod:`bmlib.sampling.rules`, the one every sampler applies.

The rounds themselves (sweep every replica, propose exchanges between
neighbours, count acceptances, record states and the path of each replica)
are :func:`exchange_rounds`, shared with the RBM's tempering
(:mod:`bmlib.learning.rbm.tempering`): a model brings its own sweep and its own
log acceptance ratio, the loop is the same.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._checks import (
    check_bool,
    LEVELS,
    check_count,
    check_memory,
    check_model,
    check_states,
    check_temperatures,
    check_units,
)
from .._progress import progress_bar
from .._random import as_generator
from .._threads import thin_blas
from .couplings import DenseCouplings
from .kernel import Sweeper
from .rules import RULES



class TemperingResult(NamedTuple):
    """The samples of a parallel-tempering run (see :func:`parallel_tempering`)."""

    temperatures: np.ndarray
    """The temperatures, increasing, shape (K,)."""
    samples: np.ndarray
    """States kept after each round, shape (n_samples, K, n): ``samples[:, k]`` samples temperature k."""
    energies: np.ndarray
    """Their energies, shape (n_samples, K)."""
    swap_acceptance: np.ndarray
    """Fraction of accepted swaps between temperatures k and k+1, shape (K - 1,)."""
    replica_temperature: np.ndarray
    """Index of the temperature each replica holds after each round, shape (n_samples, K): how
    replicas travel between temperatures (a replica is followed, not a temperature)."""


@thin_blas
def parallel_tempering(W, b=None, temperatures=(1.0, 2.0), units="spins", *, n_samples=1000, burn_in=100,
                       initial=None, progress=False, rng=None):
    """Sample a Boltzmann machine at several temperatures at once, swapping states between them.

    Parameters
    ----------
    W : array_like of shape (n, n), or a coupling operator
    b : array_like of shape (n,), optional
    temperatures : sequence of float
        At least two, all > 0 and strictly increasing; the lowest is usually the one of interest.
    units : {"spins", "bits"}
    n_samples : int
        Rounds kept after the burn-in, >= 1. A round is one sweep of every
        replica, then swap proposals between neighbours (pairs (0, 1), (2, 3),
        ... in even rounds, (1, 2), (3, 4), ... in odd ones).
    burn_in : int
        Rounds discarded first, >= 0.
    initial : array_like of shape (n,) or (K, n), optional
        Starting states (default: uniformly random).
    progress : bool or None
        A progress bar over the rounds (burn-in included): True shows one at
        once, None after two seconds of work (as :func:`~bmlib.train`), False
        (the default) none. Off by default because this also runs inside
        loops, widgets and the book's chapters, where a bar that shows only on
        a slow machine would change what is printed.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    TemperingResult

    Examples
    --------
    Two spins with a strong coupling at low T: a single chain would keep its
    sign for a very long time; the replicas at higher T bring the other sign
    down, so both ground states are visited about equally.

    >>> import numpy as np
    >>> W = [[0, 4], [4, 0]]
    >>> run = bm.parallel_tempering(W, temperatures=[0.5, 1.5, 4.0, 10.0], n_samples=4000, rng=0)
    >>> low = run.samples[:, 0]   # the replicas at T = 0.5
    >>> round(float(np.mean(low[:, 0] == 1)), 1), bool(np.all(run.swap_acceptance > 0.5))
    (0.5, True)
    """
    W, b = check_model(W, b)
    units = check_units(units)
    T = check_ladder(temperatures)
    n_samples = check_count(n_samples, "n_samples", minimum=1)
    burn_in = check_count(burn_in, "burn_in")
    progress = check_bool(progress, "progress", allow_none=True)
    n, K = W.shape[0], T.size
    check_memory(8.0 * n_samples * K * (n + 2), f"{n_samples} rounds of {K} replicas of {n} units (n_samples)")
    gen = as_generator(rng)
    low, high = LEVELS[units]
    if initial is None:
        S = np.where(gen.random((K, n)) < 0.5, high, low).astype(float)
    else:
        S = np.array(np.broadcast_to(check_states(initial, n, units, name="initial"), (K, n)), dtype=float)
    beta = 1.0 / T
    # The chain kernel's sweeps of this model, built once for all rounds, with the heat-bath rule as
    # every sampler looks it up (RULES, at each call: what a test put there is what runs).
    sweeper = Sweeper(DenseCouplings._trusted(W, b), np.arange(n), K, rule=RULES["heat_bath"], scan="sequential",
                      units=units, per_chain=True)

    def sweep(states, gen):
        # One heat-bath sweep of every replica, row k at temperature T[k], units in order, in place
        # (the dense operator's state is this float array).
        sweeper.sweep(states, T, gen)
        return states

    def energies(states):
        return -0.5 * np.einsum("ki,ij,kj->k", states, W, states) - states @ b

    def exchange(k, states, E):
        # p_k(s) ~ exp(-beta_k E(s)): the energies just trade places.
        return (beta[k] - beta[k + 1]) * (E[k] - E[k + 1]), E[k + 1], E[k]

    return exchange_rounds(T, S, sweep, energies, exchange, n_samples=n_samples, burn_in=burn_in, gen=gen,
                           progress=progress)


def check_ladder(temperatures):
    """The temperatures of a tempering run as a float array: at least two, > 0, strictly increasing."""
    T = check_temperatures(temperatures)
    if T.size < 2 or np.any(np.diff(T) <= 0):
        raise ValueError(f"temperatures must be at least two values in strictly increasing order; got {T.tolist()}")
    return T


def exchange_rounds(T, states, sweep, energies, exchange, *, n_samples, burn_in, gen, progress=False):
    """The rounds of parallel tempering, for any model: sweep, propose exchanges, record.

    Row ``k`` of the state is the replica at temperature ``T[k]``. A round is
    ``states = sweep(states, gen)``, then exchange proposals between
    neighbours (pairs (0, 1), (2, 3), ... in even rounds, (1, 2), (3, 4), ...
    in odd ones), each accepted with probability ``min(1, exp(log_ratio))``.
    Inputs are checked by the caller.

    Parameters
    ----------
    T : ndarray of shape (K,)
        Checked temperatures (:func:`check_ladder`).
    states : ndarray of float, shape (K, n)
        Starting states, one row per temperature.
    sweep : callable ``(states, gen) -> states``
        One round of the model's own dynamics for every replica, row k at ``T[k]``.
    energies : callable ``(states) -> ndarray of shape (K,)``
        What is recorded per temperature (the energy, or the RBM's free energy
        ``F_{T_k}``), also handed to ``exchange``.
    exchange : callable ``(k, states, E) -> (log_ratio, E_k, E_next)``
        The log acceptance ratio of exchanging rows k and k + 1, and the
        recorded values of the two rows after an accepted exchange.
    n_samples, burn_in : int
        Rounds kept, and rounds run first and not kept.
    gen : numpy.random.Generator
    progress : bool or None
        A progress bar over the rounds (see :mod:`bmlib._progress`).

    Returns
    -------
    TemperingResult
    """
    K, n = states.shape
    where = np.arange(K)  # where[k]: the replica held at temperature k
    at = np.arange(K)  # at[r]: the temperature index of replica r
    accepted = np.zeros(K - 1)
    proposed = np.zeros(K - 1)
    samples = np.empty((n_samples, K, n), dtype=np.int8)
    recorded = np.empty((n_samples, K))
    path = np.empty((n_samples, K), dtype=np.int16)
    with progress_bar(progress, total=burn_in + n_samples, desc="tempering", unit="round") as bar:
        for round_ in range(burn_in + n_samples):
            states = sweep(states, gen)
            E = energies(states)
            for k in range(round_ % 2, K - 1, 2):
                proposed[k] += 1
                log_ratio, E_k, E_next = exchange(k, states, E)
                # The uniform is drawn only when the ratio is below 1: the random numbers of the rule.
                if log_ratio >= 0 or gen.random() < np.exp(log_ratio):
                    accepted[k] += 1
                    states[[k, k + 1]] = states[[k + 1, k]]
                    E[k], E[k + 1] = E_k, E_next
                    where[[k, k + 1]] = where[[k + 1, k]]
            if round_ >= burn_in:
                t = round_ - burn_in
                samples[t], recorded[t] = states, E
                at[where] = np.arange(K)
                path[t] = at
            bar.update()
    rate = np.divide(accepted, proposed, out=np.zeros_like(accepted), where=proposed > 0)
    return TemperingResult(T, samples, recorded, rate, path)
