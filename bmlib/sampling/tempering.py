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
and Nemoto 1996). Sweeps are heat-bath updates of the units in order.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._checks import (
    LEVELS,
    check_count,
    check_memory,
    check_model,
    check_states,
    check_temperatures,
    check_units,
)
from .._numerics import sigmoid
from .._random import as_generator
from .._threads import thin_blas


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
                       initial=None, rng=None):
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
    T = check_temperatures(temperatures)
    if T.size < 2 or np.any(np.diff(T) <= 0):
        raise ValueError(f"temperatures must be at least two values in strictly increasing order; got {T.tolist()}")
    n_samples = check_count(n_samples, "n_samples", minimum=1)
    burn_in = check_count(burn_in, "burn_in")
    n, K = W.shape[0], T.size
    check_memory(8.0 * n_samples * K * (n + 2), f"{n_samples} rounds of {K} replicas of {n} units (n_samples)")
    gen = as_generator(rng)
    low, high = LEVELS[units]
    if initial is None:
        S = np.where(gen.random((K, n)) < 0.5, high, low).astype(float)
    else:
        S = np.array(np.broadcast_to(check_states(initial, n, units, name="initial"), (K, n)), dtype=float)
    beta = 1.0 / T
    span = high - low
    where = np.arange(K)  # where[k]: the replica held at temperature k
    at = np.arange(K)  # at[r]: the temperature index of replica r
    accepted = np.zeros(K - 1)
    proposed = np.zeros(K - 1)
    samples = np.empty((n_samples, K, n), dtype=np.int8)
    energies = np.empty((n_samples, K))
    path = np.empty((n_samples, K), dtype=np.int16)

    def energy(states):
        return -0.5 * np.einsum("ki,ij,kj->k", states, W, states) - states @ b

    for round_ in range(burn_in + n_samples):
        # One heat-bath sweep of every replica (row k of S is at temperature k).
        for i in range(n):
            field = S @ W[i] + b[i]
            S[:, i] = np.where(gen.random(K) < sigmoid(span * field * beta), high, low)
        E = energy(S)
        for k in range(round_ % 2, K - 1, 2):
            proposed[k] += 1
            log_ratio = (beta[k] - beta[k + 1]) * (E[k] - E[k + 1])
            if log_ratio >= 0 or gen.random() < np.exp(log_ratio):
                accepted[k] += 1
                S[[k, k + 1]] = S[[k + 1, k]]
                E[[k, k + 1]] = E[[k + 1, k]]
                where[[k, k + 1]] = where[[k + 1, k]]
        if round_ >= burn_in:
            t = round_ - burn_in
            samples[t], energies[t] = S, E
            at[where] = np.arange(K)
            path[t] = at
    rate = np.divide(accepted, proposed, out=np.zeros_like(accepted), where=proposed > 0)
    return TemperingResult(T, samples, energies, rate, path)
