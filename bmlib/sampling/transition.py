"""The sampler's Markov chain written out exactly, for a network small enough to enumerate.

A single-unit update of unit ``i`` moves a state ``s`` either nowhere or to
the state ``s^(i)`` that differs from it in unit ``i`` only. Over all ``2**n``
states the update is a ``2**n x 2**n`` transition matrix ``P_i``, row ``k``
the distribution of the next state given state ``k`` (:func:`~bmlib.all_states`
order), with

==========  ==================================================================
rule        probability of moving from s to s^(i)
==========  ==================================================================
heat bath   ``1 / (1 + exp(Delta E_i / T))``: the conditional probability of
            the other value of unit i
metropolis  ``min(1, exp(-Delta E_i / T))``
==========  ==================================================================

where ``Delta E_i = E(s^(i)) - E(s)``. A sweep is a product of such matrices
(sequential: ``P_0 P_1 ... P_{n-1}``), and ``q P^t`` is the exact
distribution of a chain after ``t`` sweeps started from ``q``. With these
matrices detailed balance, ``p(s) P(s, s') = p(s') P(s', s)``, and
stationarity, ``p P = p``, can be checked to rounding error.

==================  ==========================================================
transition_matrix   ``P_i`` of one unit, or of one sweep of a scan
state_frequencies   how often each state occurs in samples, in all_states order
total_variation     ``1/2 sum |p - q|``, the distance between two distributions
convergence_curves  that distance after each sweep: exact, and from sampled chains
==================  ==========================================================

Explained in the chapter "Sampling: heat bath and Metropolis".
"""
from __future__ import annotations

import math

import numpy as np

from .._checks import (
    as_numeric_array,
    block_bytes,
    check_choice,
    check_count,
    check_distribution,
    check_integer,
    check_memory,
    check_model,
    check_sequence,
    check_state_batch,
    check_states,
    check_temperature,
    check_units,
    row_blocks,
)
from .._random import as_generator
from ..models.energy import flip_energy_changes
from ..exact.enumeration import boltzmann_distribution
from ..models.states import MAX_TABLE_UNITS, all_states
from .chains import sample
from .rule_arguments import rule_name
from .rules import RULES, UpdateRule
from .schedules import greedy_colouring

#: How the figures and messages name the rules.
RULE_NAMES = {"heat_bath": "heat bath", "metropolis": "Metropolis"}
#: Largest network :func:`transition_matrix` accepts: 2**10 x 2**10 entries (8 MiB).
MAX_TRANSITION_UNITS = 10


def _unit_matrices(W, b, T, units, rule):
    """The ``n`` single-unit matrices ``P_i``, shape (n, 2**n, 2**n), from the rule's flip probability."""
    n = W.shape[0]
    S = all_states(n, units)
    move = rule.flip_probability(flip_energy_changes(S, W, b, units), T)  # (2**n, n)
    codes = np.arange(2**n)
    P = np.zeros((n, 2**n, 2**n))
    for i in range(n):
        flipped = codes ^ (1 << (n - 1 - i))  # unit 0 is the most significant binary digit
        P[i, codes, codes] = 1.0 - move[:, i]
        P[i, codes, flipped] = move[:, i]
    return P


def transition_matrix(W, b=None, T=1.0, units="spins", *, rule="heat_bath", scan="sequential", unit=None):
    """Exact transition matrix of single-unit updates over all ``2**n`` states.

    ``P[k, l]`` is the probability that the chain goes from state ``k`` to
    state ``l`` (rows and columns in :func:`~bmlib.all_states` order), for
    the update of one unit (``unit=i``) or for one sweep of ``scan``, as
    :func:`~bmlib.sample` runs it.

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric couplings with zero diagonal, ``n <= 10``.
    b : array_like of shape (n,), optional
    T : float
        Temperature, > 0.
    units : {"spins", "bits"}
    rule : {"heat_bath", "metropolis"} or UpdateRule
        A rule by name, or a rule object with a ``flip_probability``
        (:class:`~bmlib.UpdateRule`).
    scan : {"sequential", "random", "colouring"}
        The sweep: units 0 to n-1 in turn (``P_0 P_1 ... P_{n-1}``); n
        updates of a uniformly drawn unit (``((P_0 + ... + P_{n-1}) / n)**n``);
        or the colour classes of :func:`~bmlib.greedy_colouring` in turn.
        Ignored when ``unit`` is given.
    unit : int, optional
        Return ``P_i`` for this one unit instead of a sweep.

    Returns
    -------
    P : ndarray of shape (2**n, 2**n)
        Row-stochastic: every row sums to 1. A distribution ``q`` (a row
        vector) becomes ``q @ P`` after the update.

    Notes
    -----
    Every ``P_i`` of both rules satisfies detailed balance with the
    Boltzmann-Gibbs distribution ``p``, ``p[k] P[k, l] = p[l] P[l, k]``, and
    so leaves it unchanged, ``p @ P = p``. A sequential sweep, a product of
    such matrices, still leaves ``p`` unchanged but is in general not
    reversible itself; the random-scan sweep is. Explained in the chapter
    "Sampling: heat bath and Metropolis".

    Examples
    --------
    >>> import numpy as np
    >>> import bmlib as bm
    >>> W, b = [[0, 1], [1, 0]], [0.5, 0.0]
    >>> P = bm.transition_matrix(W, b, T=1.0, unit=0)
    >>> P.shape, np.allclose(P.sum(axis=1), 1)
    ((4, 4), True)
    >>> p = bm.boltzmann_distribution(W, b, T=1.0)
    >>> bool(np.allclose(p[:, None] * P, (p[:, None] * P).T))   # detailed balance
    True
    >>> bool(np.allclose(p @ bm.transition_matrix(W, b, T=1.0), p))  # a sweep leaves p unchanged
    True
    """
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    rule = rule if isinstance(rule, UpdateRule) else RULES[rule_name(rule)]
    scan = check_choice(scan, "scan", ("sequential", "random", "colouring"))
    n = W.shape[0]
    if n > MAX_TRANSITION_UNITS:
        raise ValueError(
            f"transition_matrix builds a 2**n x 2**n matrix and is limited to n <= {MAX_TRANSITION_UNITS} "
            f"units; got n = {n}"
        )
    if unit is not None:
        unit = check_integer(unit, "unit", minimum=0, maximum=n - 1)
    P_units = _unit_matrices(W, b, T, units, rule)
    if unit is not None:
        return P_units[unit]
    if scan == "random":
        return np.linalg.matrix_power(P_units.mean(axis=0), n)
    order = range(n) if scan == "sequential" else np.concatenate(greedy_colouring(W))
    P = np.eye(2**n)
    for i in order:
        P = P @ P_units[i]
    return P


def state_frequencies(states, units=None):
    """Fraction of the given states that are each of the ``2**n`` states, in all_states order.

    Parameters
    ----------
    states : array_like of shape (..., n)
        Any number of states, e.g. the ``samples`` of a :class:`~bmlib.SampleResult`
        (shape ``(n_kept, n_chains, n)``), all of them counted.
    units : {"spins", "bits"}, optional
        Inferred from ``states`` if omitted; all ones reads as spins (the rule
        in :mod:`bmlib.models.states`), which counts them in the same entry.

    Returns
    -------
    frequencies : ndarray of shape (2**n,)
        Non-negative, summing to 1; entry ``k`` is the fraction of states
        equal to row ``k`` of :func:`~bmlib.all_states`.

    Notes
    -----
    Explained in the chapter "Sampling: heat bath and Metropolis".

    Examples
    --------
    >>> bm.state_frequencies([[1, 1], [1, 1], [-1, 1], [1, 1]])   # --, -+, +-, ++
    array([0.  , 0.25, 0.  , 0.75])
    """
    arr = as_numeric_array(states, "states")
    if arr.ndim < 1 or arr.size == 0:
        raise ValueError(f"states must have shape (..., n) with at least one state; got shape {arr.shape}")
    n = arr.shape[-1]
    if n > MAX_TABLE_UNITS:
        raise ValueError(f"state_frequencies returns one number per state and is limited to n <= "
                         f"{MAX_TABLE_UNITS} units; got n = {n}")

    def memory(arr):
        # The counts, one block's counts and the frequencies (int64/float64 per state of the
        # table), and per block of rows its float copy, digits and codes.
        check_memory(24 * 2**n + min(32 * arr.size, block_bytes()),
                     f"the frequencies of 2**{n} states (states of shape {arr.shape})")

    arr, units = check_state_batch(arr, n, units, name="states", memory=memory)
    # Counted block by block: a batch far larger than the budget as floats (10**7 x 24 int8 is
    # 1.9 GB as floats) is read a block of rows at a time, the counts added up.
    rows = arr.reshape(math.prod(arr.shape[:-1]), n)
    powers = np.int64(1) << np.arange(n - 1, -1, -1, dtype=np.int64)
    counts = np.zeros(2**n, dtype=np.int64)
    for block in row_blocks(rows.shape[0], 32 * n):
        counts += np.bincount((rows[block] == 1).astype(np.int64) @ powers, minlength=2**n)
    return counts / rows.shape[0]



def total_variation(p, q):
    """Total-variation distance ``1/2 sum_k |p_k - q_k|`` between two distributions.

    It is the largest difference between the probabilities that ``p`` and
    ``q`` give to any set of states: 0 for equal distributions, 1 for
    distributions on disjoint sets of states.

    Parameters
    ----------
    p, q : array_like of shape (m,) or (..., m)
        Probability vectors (broadcast against each other): finite, >= 0,
        each summing to 1.

    Returns
    -------
    float or ndarray of shape (...)

    Notes
    -----
    Explained in the chapter "Sampling: heat bath and Metropolis".

    Examples
    --------
    >>> bm.total_variation([0.5, 0.5, 0.0], [0.25, 0.25, 0.5])
    0.5
    """
    p, q = check_distribution(p, "p"), check_distribution(q, "q")
    if p.ndim == 0 or q.ndim == 0 or p.shape[-1] != q.shape[-1]:
        raise ValueError(f"p and q must be distributions over the same states; got shapes {p.shape} and {q.shape}")
    try:
        shape = np.broadcast_shapes(p.shape, q.shape)
    except ValueError:
        raise ValueError(f"p and q must broadcast against each other; got shapes {p.shape} and {q.shape}") from None
    # p - q and its absolute value, of the broadcast shape: (k, 1, m) against (l, m) is k * l rows.
    check_memory(16 * math.prod(shape), f"the distances between p of shape {p.shape} and q of shape {q.shape}")
    distance = 0.5 * np.abs(p - q).sum(axis=-1)
    return float(distance) if np.ndim(distance) == 0 else distance


def _exact_distances(W, b, T, units, rule, scan, q0, n_sweeps):
    """``TV(q0 P^t, p)`` for t = 0 .. n_sweeps, with P the exact sweep matrix."""
    P = transition_matrix(W, b, T, units, rule=rule, scan=scan)
    p = boltzmann_distribution(W, b, T, units)
    q, distances = q0, [total_variation(q0, p)]
    for _ in range(n_sweeps):
        q = q @ P
        distances.append(total_variation(q, p))
    return np.array(distances)


def convergence_curves(W, b=None, T=1.0, units="spins", *, initial=None, n_sweeps=100, n_chains=1000,
                       rules=("heat_bath", "metropolis"), scan="sequential", rng=None):
    """Distance to the Boltzmann-Gibbs distribution after each sweep, exactly and from sampled chains.

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric couplings with zero diagonal, ``n <= 10``.
    b : array_like of shape (n,), optional
    T : float
    units : {"spins", "bits"}
    initial : array_like of shape (n,), optional
        The state every chain starts in (default: uniformly random states).
    n_sweeps : int
    n_chains : int
        Chains run by :func:`~bmlib.sample` for the sampled curve.
    rules : sequence of {"heat_bath", "metropolis"}
    scan : {"sequential", "random", "colouring"}
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict of str to (exact, sampled)
        For each rule two arrays of shape (n_sweeps + 1,): the total-variation
        distance ``TV(q_t, p)`` of the exact distribution ``q_t`` of a chain
        after ``t`` sweeps (from :func:`~bmlib.transition_matrix`), and the
        distance of the histogram of the ``n_chains`` sampled chains after
        ``t`` sweeps.

    Notes
    -----
    Once the exact distance is small, the sampled one stops following it
    and scatters at the noise of a histogram of ``n_chains`` states,
    typically ``sqrt(2^n / n_chains) / 3`` (a run can dip below that by chance). Explained in the chapter
    "Sampling: heat bath and Metropolis".

    Examples
    --------
    >>> import bmlib as bm
    >>> curves = bm.convergence_curves([[0, 1], [1, 0]], T=1.0, initial=[1, -1], n_sweeps=5, rng=0)
    >>> exact, sampled = curves["heat_bath"]
    >>> exact.round(3)   # from the unlikely state +- towards p, by the factor 0.58 per sweep
    array([0.94 , 0.381, 0.221, 0.128, 0.074, 0.043])
    """
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    n = W.shape[0]
    if n > MAX_TRANSITION_UNITS:
        raise ValueError(f"convergence curves need the exact transition matrix and are limited to n <= "
                         f"{MAX_TRANSITION_UNITS} units; got n = {n}")
    n_sweeps = check_count(n_sweeps, "n_sweeps", minimum=1)
    n_chains = check_count(n_chains, "n_chains", minimum=1)
    # One string is one rule, not a sequence of its characters.
    rules = check_sequence(rules, "rules", 'a sequence of rule names, e.g. ("heat_bath", "metropolis")')
    rules = [rule_name(rule, f"rules[{k}]") for k, rule in enumerate(rules)]
    # The sampled chains (int8) and the histogram of each sweep (float64), per rule.
    check_memory(n_sweeps * (n_chains * n + 8 * 2**n), f"{n_sweeps} sweeps of {n_chains} chains x {n} units")
    if initial is None:
        q0 = np.full(2**n, 2.0**-n)
    else:
        initial = check_states(initial, n, units, name="initial")
        if initial.ndim != 1:
            raise ValueError(f"initial must be one state of shape ({n},); got shape {initial.shape}")
        q0 = state_frequencies(initial[None], units)
    gen = as_generator(rng)
    p = boltzmann_distribution(W, b, T, units)
    curves = {}
    for rule in rules:
        exact = _exact_distances(W, b, T, units, rule, scan, q0, n_sweeps)
        run = sample(W, b, T, units, n_samples=n_sweeps, n_chains=n_chains, burn_in=0, rule=rule, scan=scan,
                     initial=initial, rng=gen)
        freq = [state_frequencies(run.samples[t], units) for t in range(n_sweeps)]
        sampled = np.concatenate([[total_variation(q0, p)], total_variation(np.array(freq), p)])
        curves[rule] = (exact, sampled)
    return curves
