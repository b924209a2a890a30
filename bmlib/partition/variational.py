"""Estimates of ``log Z`` that avoid enumerating all 2**n states: the result type and the mean-field family.

Names: a function called ``*_log_partition`` is *exact* and returns a float
(:func:`~bmlib.log_partition`, :func:`~bmlib.clamped_log_partition`,
:func:`~bmlib.rbm_log_partition`); a function called ``log_z_*`` is an
*estimate* and returns a :class:`LogZEstimate` that says how much to trust it.

Here (deterministic, their error a bias):

log_z_mean_field
    naive mean field (Gibbs-Bogoliubov): a lower bound, always.
log_z_tap
    TAP, mean field plus the Onsager reaction term: no guarantee; accurate
    at high T, unreliable where its Plefka ratio is >= 1.
log_z_bethe
    loopy belief propagation: exact on trees, a lower bound for
    ferromagnets (Ruozzi 2012), no guarantee otherwise.

In :mod:`bmlib.partition.sampled` (random, with error bars):
``log_z_importance``, ``log_z_visited_states`` (a lower bound) and
``log_z_ais``. In :mod:`bmlib.learning.rbm.exact`: ``rbm_log_partition``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .._deprecation import renamed
from ..meanfield.bethe import belief_propagation
from ..meanfield.theories import naive_mean_field, tap_mean_field


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
        as :class:`~bmlib.Estimate`'s.
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


@renamed(schedule="scan")
def log_z_mean_field(
    W, b=None, T=1.0, units="spins", *, n_starts=4, scan="sequential", damping=0.0, tol=1e-10, max_iter=1000, rng=None
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
    n_starts, scan, damping, tol, max_iter, rng
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
    res = naive_mean_field(
        W, b, T, units, n_starts=n_starts, scan=scan, damping=damping, tol=tol, max_iter=max_iter, rng=rng
    )
    return _from_mean_field(res, "mean_field", lower_bound=True)


@renamed(schedule="scan")
def log_z_tap(
    W, b=None, T=1.0, units="spins", *, n_starts=4, scan="sequential", damping=0.0, tol=1e-10, max_iter=1000, rng=None
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
    n_starts, scan, damping, tol, max_iter, rng
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
    res = tap_mean_field(
        W, b, T, units, n_starts=n_starts, scan=scan, damping=damping, tol=tol, max_iter=max_iter, rng=rng
    )
    return _from_mean_field(res, "tap", lower_bound=False)


def log_z_bethe(W, b=None, T=1.0, units="spins", *, n_starts=4, start="best", damping=0.5, tol=1e-12,
                max_iter=2000, rng=None):
    """Bethe estimate of ``log Z`` from loopy belief propagation.

    Parameters
    ----------
    W : array_like of shape (n, n)
    b : array_like of shape (n,), optional
    T : float
        Temperature, > 0 and at least ``1e-100 * max(1, max|W|, max|b|)`` (see
        :func:`~bmlib.naive_mean_field`).
    units : {"spins", "bits"}
    n_starts, start, damping, tol, max_iter, rng
        Passed to :func:`~bmlib.belief_propagation` (which says when the
        symmetric fixed point, ``start="uniform"``, is the one to use).

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
    res = belief_propagation(W, b, T, units, n_starts=n_starts, start=start, damping=damping, tol=tol,
                             max_iter=max_iter, rng=rng)
    return LogZEstimate(
        log_z=res.log_z,
        error=float("nan"),
        converged=res.converged,
        cost=res.total_iterations,
        cost_unit="message updates",
        method="bethe",
        details={"m": res.m, "residual": res.residual, "iterations": res.iterations},
    )


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
