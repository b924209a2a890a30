"""Sampling estimates of ``log Z``, each with an error bar or a stated bias.

log_z_importance
    importance sampling from a product distribution: unbiased for Z (not
    log Z), with an error bar; fails when the proposal misses mass.
log_z_visited_states
    the seeds' recipe: sum exp(-E/T) over the distinct states that sequential
    dynamics visited. A lower bound, not an estimator: it reaches log Z only
    once the chain has visited nearly all the probable states.
log_z_ais
    annealed importance sampling (Neal 2001): importance sampling along a
    path of distributions from a product distribution to p, with an error bar.

They return the :class:`~bmlib.LogZEstimate` of :mod:`bmlib.partition.variational`.
"""
from __future__ import annotations

import numpy as np

from .._checks import (
    check_bool,
    LEVELS,
    check_approximation_temperature,
    check_choice,
    check_count,
    check_means,
    check_memory,
    check_model,
    check_temperature,
    check_units,
)
from .._importance import ais_schedule, annealed_log_weights, weights_summary
from .._random import as_generator
from .._threads import thin_blas
from ..meanfield.theories import naive_mean_field
from .variational import LogZEstimate
from ..sampling import sample
from ..sampling.kernel import check_energy_range, sweep_checked
from ..sampling.couplings import DenseCouplings
from ..sampling.schedules import SCANS

#: Mean-field marginals used as an importance-sampling proposal are kept in
#: [floor, 1 - floor]: a proposal must give every state positive probability
#: (else the estimate is biased), and a unit the mean-field solution froze at
#: +-1 would otherwise never be sampled in its other value.
_PROPOSAL_FLOOR = 0.01
#: Rows of states per block of importance sampling / RBM enumeration: bounds memory (16 MiB of float64).
_BLOCK_ENTRIES = 2**21


@thin_blas
def log_z_importance(W, b=None, T=1.0, units="spins", n_samples=10_000, proposal="mean_field", rng=None):
    """Importance-sampling estimate of ``log Z`` from a product (factorized) proposal.

    Draw ``s_1, ..., s_N`` from a proposal ``q`` with independent units and
    weight each by ``w_k = exp(-E(s_k)/T) / q(s_k)``. Then ``mean(w)`` is an
    unbiased estimate of ``Z``, and the estimate returned is its logarithm,
    computed as a log-mean-exp (no overflow at any T).

    Parameters
    ----------
    W : array_like of shape (n, n)
    b : array_like of shape (n,), optional
    T : float
        Temperature, > 0 and at least ``1e-100 * max(1, max|W|, max|b|)`` (see
        :func:`~bmlib.naive_mean_field`).
    units : {"spins", "bits"}
    n_samples : int
        Number of samples ``N``, >= 2.
    proposal : {"mean_field", "uniform"} or array_like of shape (n,)
        ``"mean_field"``: independent units with the means of
        :func:`~bmlib.naive_mean_field` (each unit's probability of its high
        value kept in [0.01, 0.99]). ``"uniform"``: every state equally likely.
        An array: the proposal's means (in ``units``), strictly inside the range
        so every state can be drawn.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    LogZEstimate
        ``error`` by the delta method, ``sd(w) / (sqrt(N) mean(w))``;
        ``cost = N`` energy evaluations; ``details`` holds the effective sample
        size ``ess = (sum w)^2 / sum w^2`` and the proposal's means.

    Notes
    -----
    ``mean(w)`` is unbiased for ``Z``, but its logarithm is biased low by
    about ``error**2 / 2`` (Jensen). The error bar is itself estimated from
    the weights: when the proposal misses part of the probability mass (e.g.
    a mean-field proposal, which sits in one of the two ordered states of a
    ferromagnet below its critical temperature), the weights look
    well-behaved and both estimate and error bar are wrong together. An
    ``ess`` far below ``N`` is the visible warning sign. Explained in the
    chapter "The normalizing constant Z".

    Examples
    --------
    >>> import bmlib as bm
    >>> W = bm.sk_couplings(10, rng=1)
    >>> est = bm.log_z_importance(W, T=2.0, n_samples=4000, rng=0)
    >>> abs(est.log_z - bm.log_partition(W, T=2.0)) < 3 * est.error
    True
    """
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    check_approximation_temperature(T, W, b, "importance sampling")
    n_samples = check_count(n_samples, "n_samples", minimum=2)
    gen = as_generator(rng)
    n = W.shape[0]
    p_high, proposal_cost = _proposal(W, b, T, units, proposal, gen)
    low = LEVELS[units][0]
    log_p, log_1mp = np.log(p_high), np.log1p(-p_high)
    block = max(1, _BLOCK_ENTRIES // max(n, 1))
    logw = np.empty(n_samples)
    for start in range(0, n_samples, block):
        high = gen.random((min(block, n_samples - start), n)) < p_high
        S = np.where(high, 1.0, low)
        log_q = np.where(high, log_p, log_1mp).sum(axis=1)
        # -E/T = (s^T W s / 2 + b^T s) / T
        logw[start : start + len(S)] = (0.5 * np.sum((S @ W) * S, axis=1) + S @ b) / T - log_q
    log_z, error, ess = weights_summary(logw)
    return LogZEstimate(
        log_z=log_z,
        error=error,
        converged=True,
        cost=n_samples,
        cost_unit="energy evaluations",
        method="importance",
        details={
            "ess": ess,
            "proposal_means": p_high if units == "bits" else 2.0 * p_high - 1.0,
            "proposal_sweeps": proposal_cost,
        },
    )


@thin_blas
def log_z_visited_states(
    W, b=None, T=1.0, units="spins", *, n_samples=1000, n_chains=1, burn_in=0, thin=1, scan=None, initial=None,
    rng=None
):
    """The sum of ``exp(-E(s)/T)`` over the distinct states that sequential dynamics visited.

    A recipe often given in lecture notes: run sequential
    dynamics (:func:`~bmlib.sample`, heat bath, units in order), collect the
    states it visits (the state after every kept sweep), and add up the
    Boltzmann factors of the *distinct* ones. Every term of that sum is a term
    of ``Z``, so the result is a **lower bound** on ``log Z``, equal to it only
    when every state has been visited. It is not an estimator of ``Z``: it does
    not average anything, and it has no error bar. It comes close to ``log Z``
    only once the chain has covered nearly all the probable states, which for
    a model of more than a few dozen units it never will (there are ``2**n``
    states and a run visits at most one per sweep).

    Parameters
    ----------
    W : array_like of shape (n, n)
    b : array_like of shape (n,), optional
    T : float
        Temperature, > 0 and at least ``1e-100 * max(1, max|W|, max|b|)`` (see
        :func:`~bmlib.naive_mean_field`).
    units : {"spins", "bits"}
    n_samples : int
        States kept per chain, >= 1.
    n_chains : int
        Independent chains, >= 1; their visited states are pooled.
    burn_in : int
        Sweeps run and not counted first, >= 0 (default 0: every visited state counts).
    thin : int
        Sweeps between kept states, >= 1.
    scan : {"sequential", "random", "colouring"}, optional
        The update schedule of :func:`~bmlib.sample` (default "sequential").
        "colouring" updates units that share no coupling together; in law it
        is sequential dynamics in a fixed order, and on a lattice much faster.
    initial : array_like of shape (n,) or (n_chains, n), optional
        Starting states (default: uniformly random).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    LogZEstimate
        ``lower_bound=True``, ``error = nan``; ``cost`` in sweeps (all chains,
        burn-in included). ``details`` holds ``n_distinct`` (distinct states
        summed), ``n_states = 2**n``, ``fraction_visited = n_distinct / 2**n``
        and ``all_visited`` (then ``log_z`` is exact).

    Notes
    -----
    The fraction of *states* visited is all the function can report: the
    fraction of the *probability* they hold is ``exp(log_z - log Z)``, which
    needs the exact ``log Z``. The chapter "The normalizing constant Z"
    measures it against enumeration and shows why it stays far below 1 for
    large models and near a phase transition.

    Examples
    --------
    >>> import bmlib as bm
    >>> W = bm.square_lattice_couplings(3)  # 9 spins, 512 states
    >>> est = bm.log_z_visited_states(W, T=3.0, n_samples=200, rng=0)
    >>> est.lower_bound, est.details["n_distinct"], round(est.log_z - bm.log_partition(W, T=3.0), 3)
    (True, 85, -0.343)
    >>> W6 = bm.sk_couplings(6, rng=0)  # 64 states: 2000 sweeps visit them all
    >>> full = bm.log_z_visited_states(W6, T=2.0, n_samples=2000, rng=0)
    >>> full.details["all_visited"], round(full.log_z - bm.log_partition(W6, T=2.0), 12) + 0
    (True, 0.0)
    """
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    check_approximation_temperature(T, W, b, "the visited-states sum")
    n_samples = check_count(n_samples, "n_samples", minimum=1)
    n_chains = check_count(n_chains, "n_chains", minimum=1)
    burn_in = check_count(burn_in, "burn_in", minimum=0)
    thin = check_count(thin, "thin", minimum=1)
    run = sample(W, b, T, units, n_samples=n_samples, n_chains=n_chains, burn_in=burn_in, thin=thin, scan=scan,
                 initial=initial, rng=rng)
    n = W.shape[0]
    # The number of rows is spelled out: reshape(-1, 0) is ambiguous for an empty model (n = 0).
    states = run.samples.reshape(run.energies.size, n)
    # Distinct states by their bit patterns, packed 8 units to a byte (works for any n).
    _, first = np.unique(np.packbits(states == 1, axis=1), axis=0, return_index=True)
    logw = -run.energies.reshape(-1)[first] / T
    top = float(logw.max())
    n_states = 2**n
    return LogZEstimate(
        log_z=top + float(np.log(np.exp(logw - top).sum())),
        error=float("nan"),
        converged=True,
        cost=run.n_sweeps * run.n_chains,
        cost_unit="sweeps",
        method="visited_states",
        lower_bound=True,
        details={
            "n_distinct": int(first.size),
            "n_states": n_states,
            "fraction_visited": first.size / n_states,
            "all_visited": first.size == n_states,
        },
    )


@thin_blas
def log_z_ais(
    W, b=None, T=1.0, units="spins", *, n_runs=100, n_steps=None, fractions=None, base="uniform", scan=None,
    progress=False, rng=None
):
    """Annealed importance sampling (AIS) estimate of ``log Z`` (Neal 2001).

    AIS moves from a distribution whose normalizer is known to ``p`` through
    the intermediate distributions

    ``p_k(s) ~ p_0(s)**(1 - f_k) * exp(-f_k E(s) / T)``,  ``0 = f_0 <= ... <= f_K = 1``,

    at *fractions* ``f_k`` of the way from ``p_0`` to ``p`` (not inverse
    temperatures: every ``p_k`` is at the temperature ``T``),

    where ``p_0(s) ~ exp(a^T s)`` is a product (factorized) distribution with
    ``log Z_0 = sum_i log(exp(a_i high) + exp(a_i low))``. Each ``p_k`` is itself
    a Boltzmann machine at temperature ``T``, with couplings ``f_k W`` and
    biases ``f_k b + (1 - f_k) T a``. Every run draws ``s`` from ``p_0``;
    then for ``k = 1 .. K`` it adds ``(f_k - f_{k-1}) g(s)`` to its log
    weight, ``g(s) = -E(s)/T - a^T s`` (the log ratio of ``p``'s and ``p_0``'s
    unnormalized probabilities), and, for ``k < K``, moves ``s`` by one
    heat-bath sweep of :func:`~bmlib.sample` that leaves ``p_k`` invariant.
    The mean of the weights ``w`` is an unbiased estimate of ``Z / Z_0``; the
    estimate returned is ``log Z_0 + log mean(w)``, a log-mean-exp (no overflow).
    All runs move together, as the chains of one :func:`~bmlib.sample` call.

    Parameters
    ----------
    W : array_like of shape (n, n)
    b : array_like of shape (n,), optional
    T : float
        Temperature, > 0 and at least ``1e-100 * max(1, max|W|, max|b|)`` (see
        :func:`~bmlib.naive_mean_field`).
    units : {"spins", "bits"}
    n_runs : int
        Independent annealing runs (importance weights), >= 1.
    n_steps : int, optional
        Number ``K`` of steps of a linear schedule ``f_k = k / K``, >= 1
        (default 1000 if ``fractions`` is not given). ``K = 1`` is plain importance
        sampling from ``p_0``.
    fractions : array_like of shape (K + 1,), optional
        The schedule itself instead of ``n_steps``: finite, non-decreasing,
        starting at exactly 0 and ending at exactly 1.
    base : {"uniform", "mean_field"} or array_like of shape (n,)
        The product distribution ``p_0``: every state equally likely; the
        naive mean-field solution (:func:`~bmlib.naive_mean_field`, each unit's
        probability of its high value kept in [0.01, 0.99]); or given means
        (in ``units``), strictly inside the range.
    scan : {"sequential", "random", "colouring"}, optional
        The update schedule of each sweep (see :func:`~bmlib.sample`;
        default "sequential"). Every schedule leaves ``p_k`` invariant.
    progress : bool or None
        A progress bar over the annealing steps: True shows one at once, None
        after two seconds of work (as :func:`~bmlib.train`), False (the
        default) none. Off by default because this also runs inside loops,
        widgets and the book's chapters, where a bar that shows only on a slow
        machine would change what is printed.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    LogZEstimate
        ``error`` by the delta method on the weights, ``sd(w) / (sqrt(n_runs) mean(w))``
        (``nan`` for one run); ``cost`` = ``n_runs * (K - 1)`` sweeps.
        ``details``: ``ess = (sum w)^2 / sum w^2``, ``log_weights`` (shape
        (n_runs,), ``log w`` plus ``log Z_0``), ``n_steps = K``,
        ``energy_evaluations`` (one per run and step with ``beta_k > beta_{k-1}``,
        each costing about as much as a sweep), ``base_means`` and
        ``base_sweeps`` (mean-field sweeps spent on the base).

    Raises
    ------
    ValueError
        If both ``n_steps`` and ``fractions`` are given, or the schedule breaks a rule.

    Notes
    -----
    Why it works: the runs are importance samples on the space of whole
    paths, so ``mean(w)`` is unbiased for ``Z / Z_0`` for *any* schedule; more
    steps (each ``p_k`` closer to the next) only make the weights more equal
    and the variance smaller. As for :func:`log_z_importance`, the logarithm
    is biased low by about ``error**2 / 2``, and the error bar is estimated
    from the weights themselves: a mode of ``p`` that no run reaches (a
    mean-field base in one ordered state of a ferromagnet, and too few steps
    to cross to the other) leaves both the estimate and its error bar wrong,
    with nothing in the weights to show it. The delta-method error bar is
    the usual choice (Salakhutdinov & Murray 2008 report it this way); it
    assumes the weights have a finite variance and enough runs to estimate
    it. Explained in the chapter "The normalizing constant Z".

    Examples
    --------
    >>> import bmlib as bm
    >>> W = bm.sk_couplings(12, rng=1)
    >>> est = bm.log_z_ais(W, T=1.0, n_runs=50, n_steps=300, rng=0)
    >>> abs(est.log_z - bm.log_partition(W, T=1.0)) < 3 * est.error, est.cost
    (True, 14950)
    """
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    check_approximation_temperature(T, W, b, "annealed importance sampling")
    n_runs = check_count(n_runs, "n_runs", minimum=1)
    progress = check_bool(progress, "progress", allow_none=True)
    check_memory(9 * n_runs * W.shape[0] + 16 * n_runs, f"{n_runs} annealing runs of {W.shape[0]} units (n_runs)")
    fractions = ais_schedule(n_steps, fractions)
    gen = as_generator(rng)
    n = W.shape[0]
    low, high = LEVELS[units]
    p_high, base_sweeps = _proposal(W, b, T, units, base, gen, name="base")
    # p_0(s) ~ exp(a^T s) with p_0(s_i = high) = p_high: a_i = logit(p_high) / (high - low).
    a = (np.log(p_high) - np.log1p(-p_high)) / (high - low)
    log_z0 = float(np.logaddexp(a * high, a * low).sum())
    S = np.where(gen.random((n_runs, n)) < p_high, high, low).astype(np.int8)
    # Checked once here; each step below builds its model from these and sweeps it unchecked.
    scan = "sequential" if scan is None else check_choice(scan, "scan", SCANS)
    check_energy_range(DenseCouplings._trusted(W, b))

    def log_ratio(S, f_old, f_new):
        # log p*_f(s) = f g(s) + a^T s, g(s) = -E(s)/T - a^T s: the step adds (f_new - f_old) g(s).
        X = S.astype(float)
        return (f_new - f_old) * ((0.5 * np.sum((X @ W) * X, axis=1) + X @ b) / T - X @ a)

    def move(S, f):
        # One heat-bath sweep that leaves p_f invariant: the machine with couplings f W, biases f b + (1 - f) T a.
        return sweep_checked(DenseCouplings._trusted(f * W, f * b + (1.0 - f) * T * a), S, T, units, scan, gen)

    logw, n_ratios = annealed_log_weights(fractions, S, log_ratio, move, progress)
    log_z, error, ess = weights_summary(logw, offset=log_z0)
    K = fractions.size - 1
    return LogZEstimate(
        log_z=log_z,
        error=error,
        converged=True,
        cost=n_runs * (K - 1),
        cost_unit="sweeps",
        method="ais",
        details={
            "ess": ess,
            "log_weights": logw + log_z0,
            "n_steps": K,
            "energy_evaluations": n_runs * n_ratios,
            "base_means": p_high if units == "bits" else 2.0 * p_high - 1.0,
            "base_sweeps": base_sweeps,
        },
    )


def _proposal(W, b, T, units, proposal, gen, name="proposal"):
    """Probability of the high value of every unit under the proposal, and the sweeps spent on it.

    ``name`` is the argument's name in error messages ("proposal", or "base" for AIS).
    """
    n = W.shape[0]
    if isinstance(proposal, str):
        check_choice(proposal, name, ("mean_field", "uniform"))
        if proposal == "uniform":
            return np.full(n, 0.5), 0
        res = naive_mean_field(W, b, T, units, rng=gen)
        p = res.m if units == "bits" else (1.0 + res.m) / 2.0
        return np.clip(p, _PROPOSAL_FLOOR, 1.0 - _PROPOSAL_FLOOR), res.total_iterations
    means = check_means(proposal, n, units, name)
    if means.shape[0] != 1:
        raise ValueError(f"{name} must have shape ({n},), one mean per unit; got shape {np.shape(proposal)}")
    p = means[0] if units == "bits" else (1.0 + means[0]) / 2.0
    if np.any((p <= 0.0) | (p >= 1.0)):
        i = int(np.argmax((p <= 0.0) | (p >= 1.0)))
        raise ValueError(
            f"{name} means must lie strictly inside the range of {units} so that every state can be drawn; "
            f"{name}[{i}] = {means[0, i]:.6g}"
        )
    return p, 0


#: The AIS schedule, under its former name (benchmarks/ais_steps.py and the RBM's AIS use it).
_schedule = ais_schedule
