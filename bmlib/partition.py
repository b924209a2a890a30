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
rbm_log_partition
    exact, by summing one layer of an RBM in closed form and enumerating the other.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._checks import (
    check_choice,
    check_exact_size,
    check_integer,
    check_means,
    check_model,
    check_rbm_parameters,
    check_temperature,
    check_units,
)
from ._random import as_generator
from .bethe import belief_propagation
from .meanfield import naive_mean_field, tap_mean_field

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
    stderr : float
        Standard error of ``log_z`` for a random estimator; ``nan`` for the
        deterministic ones (their error is a bias, not noise).
    converged : bool
        Whether the underlying iteration met its tolerance (always True for
        importance sampling, which has none).
    cost : int
        Work spent, in ``cost_unit``.
    cost_unit : str
        ``"sweeps"`` (mean-field sweeps over all units, all starts),
        ``"message updates"`` (BP updates of all messages, all starts), or
        ``"energy evaluations"``.
    method : str
        ``"mean_field"``, ``"tap"``, ``"bethe"`` or ``"importance"``.
    lower_bound : bool
        True if ``log_z <= log Z`` is guaranteed (naive mean field).
    details : dict
        Method-specific diagnostics (``plefka_ratio`` for TAP, ``ess`` for
        importance sampling, the residual of an iteration, ...).
    """

    log_z: float
    stderr: float
    converged: bool
    cost: int
    cost_unit: str
    method: str
    lower_bound: bool = False
    details: dict = field(default_factory=dict)


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
    >>> est = log_z_mean_field(W, T=6.0, rng=0)
    >>> est.lower_bound, round(est.log_z - bm.log_partition(W, T=6.0), 3)
    (True, -0.288)
    """
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
    >>> est = log_z_tap(W, T=6.0, rng=0)
    >>> round(est.log_z - bm.log_partition(W, T=6.0), 3)  # the naive bound is off by -0.288
    -0.038
    """
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
    >>> round(log_z_bethe(W, T=1.0, rng=0).log_z - bm.log_partition(W), 10) + 0
    0.0
    """
    res = belief_propagation(W, b, T, units, n_starts=n_starts, damping=damping, tol=tol, max_iter=max_iter, rng=rng)
    return LogZEstimate(
        log_z=res.log_z,
        stderr=float("nan"),
        converged=res.converged,
        cost=res.total_iterations,
        cost_unit="message updates",
        method="bethe",
        details={"m": res.m, "residual": res.residual, "iterations": res.iterations},
    )


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
        ``stderr`` by the delta method, ``sd(w) / (sqrt(N) mean(w))``;
        ``cost = N`` energy evaluations; ``details`` holds the effective sample
        size ``ess = (sum w)^2 / sum w^2`` and the proposal's means.

    Notes
    -----
    ``mean(w)`` is unbiased for ``Z``, but its logarithm is biased low by
    about ``stderr**2 / 2`` (Jensen). The error bar is itself estimated from
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
    >>> est = log_z_importance(W, T=2.0, n_samples=4000, rng=0)
    >>> abs(est.log_z - bm.log_partition(W, T=2.0)) < 3 * est.stderr
    True
    """
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    n_samples = check_integer(n_samples, "n_samples", minimum=2)
    gen = as_generator(rng)
    n = W.shape[0]
    p_high, proposal_cost = _proposal(W, b, T, units, proposal, gen)
    low = -1.0 if units == "spins" else 0.0
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
        stderr=float(w.std(ddof=1) / (np.sqrt(n_samples) * mean_w)),
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


def rbm_log_partition(W_vh, b_v=None, b_h=None, T=1.0, units="bits"):
    """Exact ``log Z`` of a restricted Boltzmann machine, enumerating only its smaller layer.

    ``E(v, h) = -v^T W_vh h - b_v^T v - b_h^T h``: the Boltzmann machine with
    the block couplings ``[[0, W_vh], [W_vh^T, 0]]``. Given one layer, the
    units of the other are independent, so their sum is a product:
    ``sum_h exp(-E(v, h)/T) = exp(b_v^T v / T) prod_j g((W_vh^T v + b_h)_j / T)``
    with ``g(a) = 1 + e^a`` for bits and ``2 cosh a`` for spins, computed in
    logs as ``logaddexp(0, a)`` and ``logaddexp(a, -a)``. Only the
    ``2**min(n_v, n_h)`` states of the smaller layer are enumerated, in blocks.

    Parameters
    ----------
    W_vh : array_like of shape (n_v, n_h)
        Visible-hidden couplings.
    b_v : array_like of shape (n_v,), optional
    b_h : array_like of shape (n_h,), optional
    T : float
    units : {"bits", "spins"}
        Default ``"bits"``, the usual convention for RBMs.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If the smaller layer has more than ``MAX_EXACT_UNITS`` units.

    Notes
    -----
    Explained in the chapter "Hidden units".

    Examples
    --------
    One visible and one hidden bit with coupling 1: ``Z = 3 + e``.

    >>> round(rbm_log_partition([[1.0]]), 6), round(float(np.log(3 + np.e)), 6)
    (1.743668, 1.743668)
    """
    W, b_v, b_h = check_rbm_parameters(W_vh, b_v, b_h)
    T, units = check_temperature(T), check_units(units)
    if W.shape[0] < W.shape[1]:  # enumerate the smaller layer, sum out the larger
        W, b_v, b_h = W.T, b_h, b_v
    k = check_exact_size(W.shape[1], "rbm_log_partition (enumerating the smaller layer)")
    low = -1.0 if units == "spins" else 0.0
    block = max(1, _BLOCK_ENTRIES // W.shape[0])
    shift, total = -np.inf, 0.0
    for start in range(0, 2**k, block):
        codes = np.arange(start, min(start + block, 2**k), dtype=np.int64)[:, None]
        H = np.where((codes >> np.arange(k - 1, -1, -1)) & 1, 1.0, low)
        a = (H @ W.T + b_v) / T  # field on every unit of the summed layer, shape (rows, n_large)
        summed = np.logaddexp(0.0, a) if units == "bits" else np.logaddexp(a, -a)
        logw = H @ b_h / T + summed.sum(axis=1)
        top = float(logw.max())
        if top > shift:  # running log-sum-exp: rescale what was summed so far
            total *= np.exp(shift - top)
            shift = top
        total += float(np.exp(logw - shift).sum())
    return float(shift + np.log(total))


# ----------------------------------------------------------------------------


def _from_mean_field(res, method, lower_bound):
    details = {"m": res.m, "residual": res.residual, "iterations": res.iterations}
    if method == "tap":
        details["plefka_ratio"] = res.plefka_ratio
    return LogZEstimate(
        log_z=res.log_z,
        stderr=float("nan"),
        converged=res.converged,
        cost=res.total_iterations,
        cost_unit="sweeps",
        method=method,
        lower_bound=lower_bound,
        details=details,
    )


def _proposal(W, b, T, units, proposal, gen):
    """Probability of the high value of every unit under the proposal, and the sweeps spent on it."""
    n = W.shape[0]
    if isinstance(proposal, str):
        check_choice(proposal, "proposal", ("mean_field", "uniform"))
        if proposal == "uniform":
            return np.full(n, 0.5), 0
        res = naive_mean_field(W, b, T, units, rng=gen)
        p = res.m if units == "bits" else (1.0 + res.m) / 2.0
        return np.clip(p, _PROPOSAL_FLOOR, 1.0 - _PROPOSAL_FLOOR), res.total_iterations
    means = check_means(proposal, n, units, "proposal")
    if means.shape[0] != 1:
        raise ValueError(f"proposal must have shape ({n},), one mean per unit; got shape {np.shape(proposal)}")
    p = means[0] if units == "bits" else (1.0 + means[0]) / 2.0
    if np.any((p <= 0.0) | (p >= 1.0)):
        i = int(np.argmax((p <= 0.0) | (p >= 1.0)))
        raise ValueError(
            f"proposal means must lie strictly inside the range of {units} so that every state can be drawn; "
            f"proposal[{i}] = {means[0, i]:.6g}"
        )
    return p, 0
