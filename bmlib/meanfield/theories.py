"""Mean-field approximations: the naive (product-distribution) theory and TAP.

Both replace the sum over 2**n states by ``n`` self-consistent mean
activities ``m_i = <s_i>``. In spins, with ``beta = 1/T`` and the mean field
``h_i = sum_j W_ij m_j + b_i`` that unit ``i`` feels from the others:

naive
    self-consistency ``m_i = tanh(beta h_i)``;
    ``log Z >= Phi(m) = beta (m^T W m / 2 + b^T m) + sum_i H(m_i)``.
TAP
    self-consistency ``m_i = tanh(beta h_i - beta^2 m_i sum_j W_ij^2 (1 - m_j^2))``;
    ``log Z ~ Phi(m) + beta^2 / 4 sum_ij W_ij^2 (1 - m_i^2)(1 - m_j^2)``.

``H(m) = -(1+m)/2 log((1+m)/2) - (1-m)/2 log((1-m)/2)`` is the entropy of one
spin with mean ``m``.

Naive mean field (Peterson & Anderson 1987 use it for the deterministic
Boltzmann machine). ``Phi(m) = -beta <E>_q + H(q)`` for the product
distribution ``q`` with means ``m``, and ``log Z = Phi(m) + KL(q || p)``, so
``Phi(m) <= log Z`` for *every* ``m`` (the Gibbs-Bogoliubov inequality), not only
at a solution. The equations are where ``Phi`` is stationary; the best bound
is the largest ``Phi``, so the solver tries several starts and keeps the best.
The mean-field free energy is ``F = -T Phi``: ``e^{-F/T}`` is a lower bound on
``Z``, not ``Z`` itself.

TAP (Thouless, Anderson & Palmer 1977) is the expansion of the Gibbs free
energy at fixed means to second order in ``beta W`` (Plefka 1982). Its extra
*Onsager reaction term* removes from ``h_i`` the part that unit ``i`` induced
in its neighbours itself. It is more accurate than naive mean field at high
temperature but it is no bound: it may lie on either side of ``log Z``, and
far below the temperature where the expansion holds (for a spin glass, below
the de Almeida-Thouless line) it can be far off.

Bits are handled through the exact re-parametrization
:func:`~bmlib.to_spins_parameters` (``x = (s + 1) / 2``): the product
distributions over bits and over spins are the same family, and the
second-order term is the same too (``W_bits = 4 W`` and
``Var(x_i) = (1 - m_i^2) / 4``), so both methods give the same answer in
either units, with ``<x_i> = (1 + m_i) / 2``.

How the equations are solved. With ``scan="sequential"`` the units are
visited in turn and each is set to the exact solution of its own equation,
the others held fixed: ``tanh(beta h_i)`` for naive mean field, and for TAP
the single root of ``x = tanh(a - k x)`` (``k >= 0``; the left side rises and
the right side falls), found by Newton's method inside a bracket. Because
``W_ii = 0``, both objectives are concave in each ``m_i`` alone, so this
update is the best value of ``m_i`` given the others: without damping no
sweep lowers the objective, and the iteration cannot cycle. With
``scan="parallel"`` all units move at once (vectorized, faster for large
``n``) but may oscillate between two states; damping cures that. Damping
keeps a fraction of the old value: ``m <- damping m + (1 - damping) update``.
The *residual* is ``max_i |m_i - update_i(m)|`` for the undamped update; a run
has converged when it is at most ``tol``.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .._deprecation import renamed
from .._checks import (
    ApproximationWarning,
    ConvergenceWarning,
    check_approximation_temperature,
    check_bool,
    check_choice,
    check_clamp,
    check_count,
    check_damping,
    check_means,
    check_model,
    check_real,
    check_temperature,
    check_units,
)
from ..models.states import to_spins_parameters
from .solver import _kept_run, _linear_response, _plefka_ratio, _solve, _starts

_SCANS = ("sequential", "parallel")


@dataclass(frozen=True)
class MeanFieldResult:
    """A solution of the naive or TAP mean-field equations, with its convergence report.

    Attributes
    ----------
    m : ndarray of shape (n,)
        Mean activities: ``<s_i>`` for spins, ``<x_i>`` for bits. Clamped units
        hold their clamped values.
    log_z : float
        The method's estimate of ``log Z`` (with units clamped: of the clamped
        ``log Z``). For naive mean field a guaranteed lower bound, converged or not.
    converged : bool
        Whether the kept run met the tolerance.
    iterations : int
        Sweeps taken by the kept run.
    residual : float
        ``max_i |m_i - update_i(m)|`` at the end of the kept run, in spin units.
    total_iterations : int
        Sweeps taken by all starts together (the cost).
    plefka_ratio : float
        TAP only (nan for naive): the largest eigenvalue of
        ``beta^2 W_ij^2 (1 - m_i^2)(1 - m_j^2)`` in spins. The second-order
        expansion behind TAP holds where it is below 1 (Plefka's 1982
        condition, written for any ``W``); at or above 1 the estimate is
        unreliable and an :class:`~bmlib.ApproximationWarning` is issued.
    method : {"naive", "tap"}
    units : {"spins", "bits"}
    T : float
    """

    m: np.ndarray
    log_z: float
    converged: bool
    iterations: int
    residual: float
    total_iterations: int
    plefka_ratio: float
    method: str
    units: str
    T: float
    # moments() also needs the spin-form couplings and which units are free: the function that makes
    # the record sets them as private attributes (_W_spins, _free), not fields, so that a public record
    # has public fields only.

    @property
    def free_energy(self):
        """Mean-field free energy ``F = -T log_z`` (an upper bound on ``-T log Z`` for naive)."""
        return -self.T * self.log_z

    def moments(self, linear_response=False):
        """Mean-field estimates of ``<s_i>`` and ``<s_i s_j>``, laid out as :func:`~bmlib.exact_moments`.

        Parameters
        ----------
        linear_response : bool
            False: units are independent, ``<s_i s_j> = m_i m_j`` for ``i != j``
            (the deterministic Boltzmann machine's statistics). True: add the
            linear-response covariance ``C = T dm/db``, the derivative of the
            solution with respect to the biases (Kappen & Rodriguez 1998); for
            naive mean field ``C^{-1} = diag(1 / (1 - m^2)) - beta W`` in spins.

        Returns
        -------
        mean : ndarray of shape (n,)
            ``m``.
        second : ndarray of shape (n, n)
            Off the diagonal the estimate of ``<s_i s_j>``; on it the exact
            ``<s_i^2>`` (1 for spins, ``<x_i>`` for bits). Clamped units have
            zero covariance with everything.

        Raises
        ------
        ValueError
            If ``linear_response`` and the response matrix is singular (at a
            critical point of the mean-field equations).
        """
        linear_response = check_bool(linear_response, "linear_response")
        m = self.m if self.units == "spins" else 2.0 * self.m - 1.0
        n = m.size
        cov = np.zeros((n, n))
        if linear_response:
            f = self._free
            cov[np.ix_(f, f)] = _linear_response(m, self._W_spins, 1.0 / self.T, self.method, f)
        second = cov + np.outer(m, m)
        np.fill_diagonal(second, 1.0)
        if self.units == "bits":
            # <x_i x_j> = <(1 + s_i)(1 + s_j)> / 4; the diagonal becomes <x_i>.
            second = (1.0 + m[:, None] + m[None, :] + second) / 4.0
            np.fill_diagonal(second, self.m)
        return self.m.copy(), second


@renamed(init="initial", schedule="scan")
def naive_mean_field(
    W,
    b=None,
    T=1.0,
    units="spins",
    *,
    clamped=None,
    values=None,
    initial=None,
    n_starts=4,
    scan="sequential",
    damping=0.0,
    tol=1e-10,
    max_iter=1000,
    rng=None,
):
    """Solve the naive mean-field equations ``m_i = tanh((sum_j W_ij m_j + b_i) / T)``.

    For bits the equations read ``<x_i> = sigmoid((sum_j W_ij <x_j> + b_i) / T)``.
    The result's ``log_z`` is the Gibbs-Bogoliubov lower bound
    ``Phi(m) = -<E>_q / T + H(q) <= log Z`` of the product distribution ``q``
    with means ``m``; it is a valid bound even if the iteration did not converge.

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric couplings with zero diagonal.
    b : array_like of shape (n,), optional
        Biases (zeros if omitted).
    T : float
        Temperature, > 0 and at least ``1e-100 * max(1, max|W|, max|b|)`` (below, the
        method's arithmetic overflows; a ValueError points to energy_descent and anneal).
    units : {"spins", "bits"}
    clamped : sequence of int, optional
        Units held fixed (the clamped phase of learning); the result is then a
        bound on the clamped ``log Z`` of :func:`~bmlib.clamped_log_partition`.
    values : array_like of shape (k,), optional
        Values of the clamped units, in ``units`` (one pattern).
    initial : array_like of shape (n,) or (k, n), optional
        Starting means (in ``units``); replaces the default starts.
    n_starts : int
        Number of default starts, >= 1, in this order: small random means
        (``|m_i| <= 0.01``), all ``+0.9``, all ``-0.9``, then ``+-0.9`` with random
        signs. The converged run with the largest ``log_z`` is kept (if none
        converged, the run with the largest ``log_z``). Runs whose ``log_z``
        ties with the largest to rounding (relative 1e-9, e.g. mirror-image
        solutions when ``b = 0``) are decided by this order of starts: the
        first wins, so the answer is the same on every machine.
    scan : {"sequential", "parallel"}
        Update one unit at a time (never lowers the bound) or all at once.
    damping : float
        Fraction of the old value kept at each update, in ``[0, 1)``.
    tol : float
        Convergence threshold on the residual ``max_i |m_i - update_i(m)|``, > 0.
    max_iter : int
        Largest number of sweeps per start, >= 1.
    rng : None, int or numpy.random.Generator
        Randomness of the random starts.

    Returns
    -------
    MeanFieldResult
        ``m`` of shape (n,), ``log_z``, ``converged``, ``iterations``,
        ``residual``, ``total_iterations``; ``.moments()`` gives ``<s_i s_j>``.

    Warns
    -----
    ConvergenceWarning
        If the kept run did not converge within ``max_iter`` sweeps.

    Notes
    -----
    Explained in the chapters "The deterministic Boltzmann machine" and
    "The normalizing constant Z".

    Examples
    --------
    Two spins with coupling 1 at T = 2 are above the mean-field critical
    temperature, so ``m = 0``, and ``2 log 2`` bounds ``log Z = log(4 cosh 0.5)``:

    >>> import numpy as np
    >>> res = bm.naive_mean_field([[0, 1], [1, 0]], T=2.0, rng=0)
    >>> res.converged, res.m.round(6) + 0, round(res.log_z, 4)
    (True, array([0., 0.]), 1.3863)
    >>> round(float(np.log(4 * np.cosh(0.5))), 4)
    1.5064
    """
    return _mean_field("naive", W, b, T, units, clamped=clamped, values=values, initial=initial,
                       n_starts=n_starts, scan=scan, damping=damping, tol=tol, max_iter=max_iter, rng=rng)


@renamed(init="initial", schedule="scan")
def tap_mean_field(
    W,
    b=None,
    T=1.0,
    units="spins",
    *,
    clamped=None,
    values=None,
    initial=None,
    n_starts=4,
    scan="sequential",
    damping=0.0,
    tol=1e-10,
    max_iter=1000,
    rng=None,
):
    """Solve the TAP equations, naive mean field plus the Onsager reaction term.

    In spins, with ``beta = 1/T``:
    ``m_i = tanh(beta (sum_j W_ij m_j + b_i) - beta^2 m_i sum_j W_ij^2 (1 - m_j^2))``,
    and the estimate is ``log Z ~ Phi(m) + beta^2 / 4 sum_ij W_ij^2 (1 - m_i^2)(1 - m_j^2)``
    with ``Phi`` the naive mean-field objective. It is *not* a bound.

    Parameters
    ----------
    W, b, T, units, clamped, values, initial, n_starts, scan, damping, tol, max_iter, rng
        As in :func:`naive_mean_field`. Among the runs the converged one with
        the largest ``log_z`` (the lowest TAP free energy) is kept.

    Returns
    -------
    MeanFieldResult
        With ``method="tap"``; ``.moments(linear_response=True)`` uses the TAP
        response ``C^{-1}_ij = delta_ij (1/(1-m_i^2) + beta^2 sum_k W_ik^2 (1-m_k^2))
        - beta W_ij - 2 beta^2 W_ij^2 m_i m_j``.

    Warns
    -----
    ConvergenceWarning
        If the kept run did not converge within ``max_iter`` sweeps.

    Notes
    -----
    Each sequential step solves unit ``i``'s own equation exactly (it has one
    root), so the iteration also converges where the plain substitution
    ``m_i <- tanh(...)`` would oscillate. Explained in the chapters "The
    deterministic Boltzmann machine" and "The normalizing constant Z".

    Examples
    --------
    At high temperature TAP adds the first correction to naive mean field's
    ``2 log 2``, ``beta^2 W_01^2 / 2``; the exact value is
    ``2 log 2 + log cosh(0.5) = 1.5064``, so here TAP lies slightly *above* log Z:

    >>> import numpy as np
    >>> res = bm.tap_mean_field([[0, 1], [1, 0]], T=2.0, rng=0)
    >>> res.converged, round(res.log_z, 4), round(float(2 * np.log(2) + 0.5**2 / 2), 4)
    (True, 1.5113, 1.5113)
    """
    return _mean_field("tap", W, b, T, units, clamped=clamped, values=values, initial=initial,
                       n_starts=n_starts, scan=scan, damping=damping, tol=tol, max_iter=max_iter, rng=rng)


# ----------------------------------------------------------------------------
# Internals (spin form throughout)
# ----------------------------------------------------------------------------


def _mean_field(method, W, b, T, units, *, clamped, values, initial, n_starts, scan, damping, tol, max_iter, rng):
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    check_approximation_temperature(T, W, b, "naive mean field" if method == "naive" else "TAP")
    scan = check_choice(scan, "scan", _SCANS)
    damping = check_damping(damping)
    tol = check_real(tol, "tol", positive=True)
    max_iter = check_count(max_iter, "max_iter", minimum=1)
    n_starts = check_count(n_starts, "n_starts", minimum=1)
    n = W.shape[0]
    if clamped is None:
        if values is not None:
            raise ValueError("values must be None when clamped is None (there are no clamped units to set)")
        idx, vals = np.zeros(0, dtype=int), np.zeros(0)
    else:
        idx, vals = check_clamp(clamped, values, n, units)
        if vals.ndim != 1:
            raise ValueError(f"values must be one pattern of shape ({idx.size},); got shape {vals.shape}")
    if initial is not None:
        initial = check_means(initial, n, units, "initial")
    if units == "bits":
        # Exact: E_bits(x) = E_spins(s) + offset for every state, s = 2x - 1.
        W, b, offset = to_spins_parameters(W, b)
        vals = 2.0 * vals - 1.0
        initial = None if initial is None else 2.0 * initial - 1.0
    else:
        offset = 0.0
    free = np.setdiff1d(np.arange(n), idx)
    starts = _starts(n, initial, n_starts, rng)
    starts[:, idx] = vals
    beta = 1.0 / T
    runs = [_solve(m0, W, b, beta, method, free, scan, damping, tol, max_iter) for m0 in starts]
    ratios = [_plefka_ratio(run[0], W, beta) if method == "tap" else np.nan for run in runs]
    k = _kept_run(runs, ratios)
    (m, phi, converged, iterations, residual), ratio = runs[k], ratios[k]
    if converged and ratio >= 1.0:
        warnings.warn(
            f"the TAP solution is outside the range where its expansion holds: Plefka ratio {ratio:.3g} >= 1 "
            "(too low a temperature or too strong couplings); its log_z is unreliable",
            ApproximationWarning,
            stacklevel=4,  # past _mean_field, the public function and its renamed() wrapper
        )
    if not converged:
        label = "naive mean field" if method == "naive" else "TAP"
        warnings.warn(
            f"{label} did not converge: after max_iter = {max_iter} sweeps the residual is {residual:.3g} "
            f"> tol = {tol:g} (best of {len(runs)} starts). Raise max_iter, add damping, or use "
            "scan='sequential'" + ("; log_z is still a valid lower bound" if method == "naive" else ""),
            ConvergenceWarning,
            stacklevel=4,  # past _mean_field, the public function and its renamed() wrapper
        )
    result = MeanFieldResult(
        m=m if units == "spins" else (1.0 + m) / 2.0,
        log_z=phi - offset / T,
        converged=converged,
        iterations=iterations,
        residual=residual,
        total_iterations=sum(run[3] for run in runs),
        plefka_ratio=float(ratio),
        method=method,
        units=units,
        T=T,
    )
    object.__setattr__(result, "_W_spins", W)  # (frozen: set past the dataclass's guard, once, here)
    object.__setattr__(result, "_free", free)
    return result
