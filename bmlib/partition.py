"""Estimates of ``log Z`` that avoid enumerating all 2**n states, and the exact log Z of an RBM.

Names: a function called ``*_log_partition`` is *exact* and returns a float
(:func:`~bmlib.log_partition`, :func:`~bmlib.clamped_log_partition`,
:func:`rbm_log_partition`); a function called ``log_z_*`` is an *estimate*
and returns a :class:`LogZEstimate` that says how much to trust it.

log_z_mean_field
    naive mean field (Gibbs-Bogoliubov): a lower bound, always.
log_z_tap
    TAP, mean field plus the Onsager reaction term: no guarantee; accurate
    at high T, unreliable where its Plefka ratio is >= 1.
log_z_bethe
    loopy belief propagation: exact on trees, a lower bound for
    ferromagnets (Ruozzi 2012), no guarantee otherwise.
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
rbm_log_partition
    exact, by summing one layer of an RBM in closed form and enumerating the other.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ._threads import thin_blas
from ._checks import (
    LEVELS,
    _check_finite,
    check_approximation_temperature,
    check_choice,
    check_exact_size,
    check_count,
    check_memory,
    check_means,
    check_model,
    check_rbm_parameters,
    check_temperature,
    check_units,
)
from ._random import as_generator
from .bethe import belief_propagation
from .meanfield import naive_mean_field, tap_mean_field
from .sampling import sample
from .sampling.couplings import dense_model
from .states import _states_of_index

#: Mean-field marginals used as an importance-sampling proposal are kept in
#: [floor, 1 - floor]: a proposal must give every state positive probability
#: (else the estimate is biased), and a unit the mean-field solution froze at
#: +-1 would otherwise never be sampled in its other value.
_PROPOSAL_FLOOR = 0.01
#: Rows of states per block of importance sampling / RBM enumeration: bounds memory (16 MiB of float64).
_BLOCK_ENTRIES = 2**21


@dataclass(frozen=True)
class LogZEstimate:
    """An estimate of ``log Z`` with what is needed to trust it.

    Attributes
    ----------
    log_z : float
        The estimate.
    error : float
        Standard error of ``log_z`` for a random estimator; ``nan`` for the
        deterministic ones (their error is a bias, not noise). The same name
        as :class:`~bmlib.sampling.Estimate`'s.
    converged : bool
        Whether the underlying iteration met its tolerance (always True for
        the sampling methods, which have none).
    cost : int
        Work spent, in ``cost_unit``.
    cost_unit : str
        ``"sweeps"`` (mean-field sweeps over all units, all starts; or
        sampling sweeps, one update of every unit, summed over chains),
        ``"message updates"`` (BP updates of all messages, all starts), or
        ``"energy evaluations"``.
    method : str
        ``"mean_field"``, ``"tap"``, ``"bethe"``, ``"importance"``,
        ``"visited_states"`` or ``"ais"``.
    lower_bound : bool
        True if ``log_z <= log Z`` is guaranteed (naive mean field, the
        visited-states sum).
    details : dict
        Method-specific diagnostics (``plefka_ratio`` for TAP, ``ess`` for
        importance sampling, the residual of an iteration, ...).
    """

    log_z: float
    error: float
    converged: bool
    cost: int
    cost_unit: str
    method: str
    lower_bound: bool = False
    details: dict = field(default_factory=dict)

    def __repr__(self):
        # The details may hold whole arrays (the mean-field solution, AIS log-weights): name them only.
        error = "" if math.isnan(self.error) else f" +/- {self.error:.3g}"
        flags = ("" if self.converged else ", not converged") + (", a lower bound" if self.lower_bound else "")
        return (f"LogZEstimate({self.method}: log_z = {self.log_z:.6g}{error}, cost {self.cost} {self.cost_unit}"
                f"{flags}; details: {', '.join(self.details) or 'none'})")


def log_z_mean_field(
    W, b=None, T=1.0, units="spins", *, n_starts=4, schedule="sequential", damping=0.0, tol=1e-10, max_iter=1000, rng=None
):
    """Naive mean-field lower bound on ``log Z`` (Gibbs-Bogoliubov).

    ``log Z >= -<E>_q / T + H(q)`` for every product distribution ``q``; this
    returns the best such bound that :func:`~bmlib.naive_mean_field` finds.
    It is ``-F/T`` with ``F`` the mean-field free energy: ``e^{-F/T}`` bounds
    ``Z`` from below, it does not approximate it from either side.

    Parameters
    ----------
    W : array_like of shape (n, n)
    b : array_like of shape (n,), optional
    T : float
        Temperature, > 0 and at least ``1e-100 * max(1, max|W|, max|b|)`` (see
        :func:`~bmlib.naive_mean_field`).
    units : {"spins", "bits"}
    n_starts, schedule, damping, tol, max_iter, rng
        Passed to :func:`~bmlib.naive_mean_field`.

    Returns
    -------
    LogZEstimate
        ``lower_bound=True``; ``cost`` in sweeps; ``details`` holds the
        solution ``m``, its ``residual`` and ``iterations``.

    Warns
    -----
    ConvergenceWarning
        If the iteration did not converge (the value is still a lower bound).

    Notes
    -----
    Explained in the chapter "The normalizing constant Z".

    Examples
    --------
    >>> import bmlib as bm
    >>> W = bm.square_lattice_couplings(3)
    >>> est = bm.log_z_mean_field(W, T=6.0, rng=0)
    >>> est.lower_bound, round(est.log_z - bm.log_partition(W, T=6.0), 3)
    (True, -0.288)
    """
    W, b = dense_model(W, b)  # a SquareLattice, as bm.sample takes it
    res = naive_mean_field(
        W, b, T, units, n_starts=n_starts, schedule=schedule, damping=damping, tol=tol, max_iter=max_iter, rng=rng
    )
    return _from_mean_field(res, "mean_field", lower_bound=True)


def log_z_tap(
    W, b=None, T=1.0, units="spins", *, n_starts=4, schedule="sequential", damping=0.0, tol=1e-10, max_iter=1000, rng=None
):
    """TAP estimate of ``log Z``: naive mean field plus the Onsager reaction term.

    Parameters
    ----------
    W : array_like of shape (n, n)
    b : array_like of shape (n,), optional
    T : float
        Temperature, > 0 and at least ``1e-100 * max(1, max|W|, max|b|)`` (see
        :func:`~bmlib.naive_mean_field`).
    units : {"spins", "bits"}
    n_starts, schedule, damping, tol, max_iter, rng
        Passed to :func:`~bmlib.tap_mean_field`.

    Returns
    -------
    LogZEstimate
        Not a bound. ``details["plefka_ratio"] < 1`` where the second-order
        expansion holds.

    Warns
    -----
    ConvergenceWarning
        If the iteration did not converge.
    ApproximationWarning
        If the solution's Plefka ratio is >= 1 (the estimate is unreliable).

    Notes
    -----
    Explained in the chapter "The normalizing constant Z".

    Examples
    --------
    >>> import bmlib as bm
    >>> W = bm.square_lattice_couplings(3)
    >>> est = bm.log_z_tap(W, T=6.0, rng=0)
    >>> round(est.log_z - bm.log_partition(W, T=6.0), 3)  # the naive bound is off by -0.288
    -0.038
    """
    W, b = dense_model(W, b)  # a SquareLattice, as bm.sample takes it
    res = tap_mean_field(
        W, b, T, units, n_starts=n_starts, schedule=schedule, damping=damping, tol=tol, max_iter=max_iter, rng=rng
    )
    return _from_mean_field(res, "tap", lower_bound=False)


def log_z_bethe(W, b=None, T=1.0, units="spins", *, n_starts=4, damping=0.5, tol=1e-12, max_iter=2000, rng=None):
    """Bethe estimate of ``log Z`` from loopy belief propagation.

    Parameters
    ----------
    W : array_like of shape (n, n)
    b : array_like of shape (n,), optional
    T : float
        Temperature, > 0 and at least ``1e-100 * max(1, max|W|, max|b|)`` (see
        :func:`~bmlib.naive_mean_field`).
    units : {"spins", "bits"}
    n_starts, damping, tol, max_iter, rng
        Passed to :func:`~bmlib.belief_propagation`.

    Returns
    -------
    LogZEstimate
        Exact on trees (at convergence); ``cost`` in message updates.

    Warns
    -----
    ConvergenceWarning
        If BP did not converge; the value is then the Bethe free energy of
        the last beliefs, and not to be trusted.

    Notes
    -----
    Explained in the chapter "The normalizing constant Z".

    Examples
    --------
    >>> import bmlib as bm
    >>> W = bm.chain_couplings(8, J=1.5, periodic=False)  # a tree: exact
    >>> round(bm.log_z_bethe(W, T=1.0, rng=0).log_z - bm.log_partition(W), 10) + 0
    0.0
    """
    W, b = dense_model(W, b)  # a SquareLattice, as bm.sample takes it
    res = belief_propagation(W, b, T, units, n_starts=n_starts, damping=damping, tol=tol, max_iter=max_iter, rng=rng)
    return LogZEstimate(
        log_z=res.log_z,
        error=float("nan"),
        converged=res.converged,
        cost=res.total_iterations,
        cost_unit="message updates",
        method="bethe",
        details={"m": res.m, "residual": res.residual, "iterations": res.iterations},
    )


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
    W, b = dense_model(W, b)  # a SquareLattice, as bm.sample takes it
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
    top = logw.max()
    w = np.exp(logw - top)
    mean_w = w.mean()
    return LogZEstimate(
        log_z=float(top + np.log(mean_w)),
        error=float(w.std(ddof=1) / (np.sqrt(n_samples) * mean_w)),
        converged=True,
        cost=n_samples,
        cost_unit="energy evaluations",
        method="importance",
        details={
            "ess": float(w.sum() ** 2 / np.sum(w * w)),
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

    This is the recipe of the notes the book grew from: run sequential
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
    W, b = dense_model(W, b)  # a SquareLattice, as bm.sample takes it
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
    W, b=None, T=1.0, units="spins", *, n_runs=100, n_steps=None, fractions=None, base="uniform", scan=None, rng=None
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
    W, b = dense_model(W, b)  # a SquareLattice, as bm.sample takes it
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    check_approximation_temperature(T, W, b, "annealed importance sampling")
    n_runs = check_count(n_runs, "n_runs", minimum=1)
    check_memory(9 * n_runs * W.shape[0] + 16 * n_runs, f"{n_runs} annealing runs of {W.shape[0]} units (n_runs)")
    fractions = _schedule(n_steps, fractions)
    gen = as_generator(rng)
    n = W.shape[0]
    low, high = LEVELS[units]
    p_high, base_sweeps = _proposal(W, b, T, units, base, gen, name="base")
    # p_0(s) ~ exp(a^T s) with p_0(s_i = high) = p_high: a_i = logit(p_high) / (high - low).
    a = (np.log(p_high) - np.log1p(-p_high)) / (high - low)
    log_z0 = float(np.logaddexp(a * high, a * low).sum())
    S = np.where(gen.random((n_runs, n)) < p_high, high, low).astype(np.int8)
    logw = np.zeros(n_runs)
    steps = np.diff(fractions)
    energy_evaluations = 0
    for k, step in enumerate(steps.tolist(), start=1):
        if step > 0:
            X = S.astype(float)
            logw += step * ((0.5 * np.sum((X @ W) * X, axis=1) + X @ b) / T - X @ a)
            energy_evaluations += n_runs
        if k < steps.size:  # one sweep that leaves p_k invariant
            beta = float(fractions[k])
            S = sample(beta * W, beta * b + (1.0 - beta) * T * a, T, units, n_samples=1, burn_in=0, scan=scan,
                       initial=S, rng=gen).final_state
    top = float(logw.max())
    w = np.exp(logw - top)
    mean_w = float(w.mean())
    stderr = float(w.std(ddof=1) / (np.sqrt(n_runs) * mean_w)) if n_runs > 1 else float("nan")
    return LogZEstimate(
        log_z=log_z0 + top + float(np.log(mean_w)),
        error=stderr,
        converged=True,
        cost=n_runs * (steps.size - 1),
        cost_unit="sweeps",
        method="ais",
        details={
            "ess": float(w.sum() ** 2 / np.sum(w * w)),
            "log_weights": logw + log_z0,
            "n_steps": int(steps.size),
            "energy_evaluations": energy_evaluations,
            "base_means": p_high if units == "bits" else 2.0 * p_high - 1.0,
            "base_sweeps": base_sweeps,
        },
    )


@thin_blas
def rbm_log_partition(W, b_visible=None, b_hidden=None, T=1.0, units="spins"):
    """Exact ``log Z`` of a restricted Boltzmann machine, enumerating only its smaller layer.

    ``E(v, h) = -v^T W h - b_visible^T v - b_hidden^T h``: the Boltzmann machine
    with the block couplings ``[[0, W], [W^T, 0]]`` (the parameters of
    :class:`~bmlib.RBM`, with the same names). Given one layer, the units of
    the other are independent, so their sum is a product:
    ``sum_h exp(-E(v, h)/T) = exp(b_visible^T v / T) prod_j g((W^T v + b_hidden)_j / T)``
    with ``g(a) = 1 + e^a`` for bits and ``2 cosh a`` for spins, computed in
    logs as ``logaddexp(0, a)`` and ``logaddexp(a, -a)``. Only the
    ``2**min(n_visible, n_hidden)`` states of the smaller layer are enumerated, in blocks.

    Parameters
    ----------
    W : array_like of shape (n_visible, n_hidden)
        Visible-hidden couplings.
    b_visible : array_like of shape (n_visible,), optional
    b_hidden : array_like of shape (n_hidden,), optional
    T : float
    units : {"spins", "bits"}

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If the smaller layer has more than ``MAX_EXACT_UNITS`` units, or if
        ``log Z`` itself is beyond the float range (``T`` near 0 with a
        ground energy other than 0). As ``T -> 0`` the result tends to
        ``-E_min / T + log g`` with ``g`` ground states, as for
        :func:`~bmlib.log_partition`.

    Notes
    -----
    Explained in the chapter "Hidden units".

    Examples
    --------
    One visible and one hidden bit with coupling 1: ``Z = 3 + e``.

    >>> import numpy as np
    >>> import bmlib as bm
    >>> round(bm.rbm_log_partition([[1.0]], units="bits"), 6), round(float(np.log(3 + np.e)), 6)
    (1.743668, 1.743668)
    """
    W, b_v, b_h = check_rbm_parameters(W, b_visible, b_hidden)
    T, units = check_temperature(T), check_units(units)
    if W.shape[0] < W.shape[1]:  # enumerate the smaller layer, sum out the larger
        W, b_v, b_h = W.T, b_h, b_v
    k = check_exact_size(W.shape[1], "rbm_log_partition (enumerating the smaller layer)")
    low = LEVELS[units][0]
    block = max(1, _BLOCK_ENTRIES // W.shape[0])
    # As in exact enumeration, energies are divided by T only as differences from
    # the running maximum, so that any T > 0 (down to 5e-324) gives the T -> 0
    # limit instead of inf - inf = NaN. log g(a / T), g(x) = 1 + e^x (bits) or
    # 2 cosh x (spins), is split into an energy part, max(a, 0) or |a|, and an
    # entropy part in [0, log 2] kept apart (times a subnormal T it would be lost).
    width = 1.0 if units == "bits" else 2.0
    shift, log_total = -np.inf, -np.inf
    for start in range(0, 2**k, block):
        H = _states_of_index(np.arange(start, min(start + block, 2**k)), k, low, 1.0, dtype=float)
        a = H @ W.T + b_v  # field on every unit of the summed layer, shape (rows, n_large)
        with np.errstate(over="ignore"):  # |a| / T = inf is the right limit: its term is 0
            entropy = np.log1p(np.exp(-width * np.abs(a) / T)).sum(axis=1)
            neg_f = H @ b_h + 0.5 * (width * np.abs(a) + (2.0 - width) * a).sum(axis=1)
            top = float(neg_f.max())
            if top > shift:  # running log-sum-exp: re-reference what was summed so far
                log_total -= (top - shift) / T
                shift = top
            rel = (neg_f - shift) / T + entropy  # <= n_large log 2, never NaN
        peak = float(rel.max())
        log_total = float(np.logaddexp(log_total, peak + np.log(np.exp(rel - peak).sum())))
    with np.errstate(over="ignore"):
        log_z = shift / T + log_total
    if not np.isfinite(log_z):
        raise ValueError(
            f"rbm_log_partition: log Z is beyond the float range (about 1.8e308) at T = {T!r}. "
            "The probabilities depend only on W_vh / T and the biases / T; rescale them and T by a "
            "common factor, or find the ground states with energy_descent or anneal."
        )
    return log_z


# ----------------------------------------------------------------------------


def _from_mean_field(res, method, lower_bound):
    details = {"m": res.m, "residual": res.residual, "iterations": res.iterations}
    if method == "tap":
        details["plefka_ratio"] = res.plefka_ratio
    return LogZEstimate(
        log_z=res.log_z,
        error=float("nan"),
        converged=res.converged,
        cost=res.total_iterations,
        cost_unit="sweeps",
        method=method,
        lower_bound=lower_bound,
        details=details,
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


#: Steps of the AIS schedule when neither n_steps nor fractions is given.
_DEFAULT_AIS_STEPS = 1000


def _schedule(n_steps, fractions):
    """The AIS schedule f_0 = 0 <= ... <= f_K = 1 as a float array, from n_steps or fractions."""
    if n_steps is not None and fractions is not None:
        raise ValueError("give either n_steps (a linear schedule) or fractions (the schedule itself), not both")
    if fractions is None:
        K = check_count(_DEFAULT_AIS_STEPS if n_steps is None else n_steps, "n_steps", minimum=1)
        return np.linspace(0.0, 1.0, K + 1)
    try:
        arr = np.asarray(fractions, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"fractions must be a 1-D sequence of numbers from 0 to 1; got {fractions!r:.60}") from None
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"fractions must be a 1-D sequence of at least 2 numbers, from 0 to 1; got shape {arr.shape}")
    _check_finite(arr, "fractions")
    if arr[0] != 0.0:
        raise ValueError(f"fractions must start at 0 (the base distribution); got fractions[0] = {arr[0]:.6g}")
    if arr[-1] != 1.0:
        raise ValueError(f"fractions must end at 1 (the target distribution); got fractions[-1] = {arr[-1]:.6g}")
    down = np.flatnonzero(np.diff(arr) < 0)
    if down.size:
        k = int(down[0]) + 1
        raise ValueError(f"fractions must be non-decreasing; fractions[{k}] = {arr[k]:.6g} < fractions[{k - 1}] = {arr[k - 1]:.6g}")
    return arr
