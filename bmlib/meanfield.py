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

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from ._deprecation import renamed
from ._checks import (
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
from ._random import as_generator
from ._ties import first_best
from .models.states import to_spins_parameters

_SCANS = ("sequential", "parallel")
#: Starting means of the "biased" starts: close to +-1, but not at it, so the
#: first sweep can still move every unit.
_BIASED_START = 0.9
#: Half-width of the "small random" start, near the high-temperature solution m = 0.
_SMALL_START = 0.01


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
    # What moments() needs: the spin-form couplings and which units are free.
    _W_spins: np.ndarray = field(repr=False, compare=False)
    _free: np.ndarray = field(repr=False, compare=False)

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
    ``m_i <- tanh(...)`` would oscillate. Explained in the chapter "The
    normalizing constant Z".

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
    return MeanFieldResult(
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
        _W_spins=W,
        _free=free,
    )


def _kept_run(runs, ratios):
    """Index of the run to keep: converged first, then (TAP) inside Plefka's range, then the best objective.

    Within the best tier, objectives that tie to rounding (mirror-image
    solutions of a model without biases have the same objective in exact
    arithmetic) are decided by the order of the starts, never by the last bit
    of a computed value: see :mod:`bmlib._ties`.
    """
    tiers = [(bool(run[2]), not ratio >= 1.0) for run, ratio in zip(runs, ratios)]
    top = max(tiers)
    candidates = [k for k, tier in enumerate(tiers) if tier == top]
    return candidates[first_best([runs[k][1] for k in candidates])]


def _starts(n, initial, n_starts, rng):
    """Starting spin means, shape (k, n)."""
    if initial is not None:
        return initial.copy()
    gen = as_generator(rng)
    rows = [gen.uniform(-_SMALL_START, _SMALL_START, size=n), np.full(n, _BIASED_START), np.full(n, -_BIASED_START)]
    rows += [_BIASED_START * gen.choice([-1.0, 1.0], size=n) for _ in range(n_starts - len(rows))]
    return np.array(rows[:n_starts])


def _entropy(m):
    """Entropy of independent spins with means m (0 log 0 = 0 at m = +-1)."""
    total = 0.0
    for p in ((1.0 + m) / 2.0, (1.0 - m) / 2.0):
        safe = np.where(p > 0, p, 1.0)
        total -= np.sum(p * np.log(safe))
    return float(total)


#: TAP squares the couplings. Beyond this size W * W would overflow (while
#: beta W, all that matters, can be moderate), so there W is scaled down by a
#: power of two, exactly, and beta up by the same factor (_squared_couplings).
_SQUARE_LIMIT = 2.0**500


def _squared_couplings(W, beta):
    """Return ``(W2, beta2)`` with ``beta2 * W2 = beta**2 * W * W`` elementwise and neither overflowing.

    For ``max|W| <= _SQUARE_LIMIT`` this is ``(W * W, beta**2)`` itself.
    """
    top = float(np.abs(W).max(initial=0.0))
    if top <= _SQUARE_LIMIT:
        return W * W, beta**2
    c = 2.0 ** (int(np.frexp(top)[1]) - 1)  # top / c in [1, 2)
    scaled = W / c
    return scaled * scaled, (beta * c) ** 2


def _objective(m, W, b, beta, method):
    """Phi(m), the naive bound, plus the Onsager term for TAP."""
    phi = beta * (0.5 * m @ W @ m + b @ m) + _entropy(m)
    if method == "tap":
        v = 1.0 - m * m
        W2, beta2 = _squared_couplings(W, beta)
        phi += 0.25 * beta2 * v @ W2 @ v
    return float(phi)


def _unit_root(a, k, x):
    """The one root of ``x = tanh(a - k x)`` for ``k >= 0``, by Newton's method kept in a bracket.

    ``g(x) = x - tanh(a - k x)`` rises from ``g(-1) <= 0`` to ``g(1) >= 0``, with
    ``g' = 1 + k (1 - tanh^2) >= 1``. Plain Python floats: this runs once per
    unit per sweep, where NumPy's per-call overhead would dominate.
    """
    # A root at an end (tanh saturated to +-1 in floating point) is returned at
    # once; otherwise both ends are known not to be roots, and a Newton step
    # that does not land strictly inside the bracket is replaced by bisection.
    if 1.0 - math.tanh(a - k) == 0.0:
        return 1.0
    if -1.0 - math.tanh(a + k) == 0.0:
        return -1.0
    lo, hi = -1.0, 1.0
    dx = dx_old = 2.0
    for _ in range(200):
        t = math.tanh(a - k * x)
        g = x - t
        if g == 0.0:
            return x
        if g > 0.0:
            hi = x
        else:
            lo = x
        slope = 1.0 + k * (1.0 - t * t)
        step = g / slope
        if abs(step) <= 1e-15:  # a few units in the last place of |x| <= 1
            return x - step
        new = x - step
        # Bisect when Newton leaves the bracket or does not halve the step
        # before last (it can circle the inflection point of tanh slowly).
        if not lo < new < hi or abs(2.0 * step) > dx_old:
            new = 0.5 * (lo + hi)
        dx_old, dx = dx, abs(new - x)
        x = new
    return x


def _unit_roots(a, k, x):
    """:func:`_unit_root` for every unit at once (arrays)."""
    x = np.where(1.0 - np.tanh(a - k) == 0.0, 1.0, np.where(-1.0 - np.tanh(a + k) == 0.0, -1.0, x))
    lo, hi = -np.ones_like(x), np.ones_like(x)
    dx = dx_old = np.full_like(x, 2.0)
    for _ in range(200):
        t = np.tanh(a - k * x)
        g = x - t
        hi = np.where(g > 0, x, hi)
        lo = np.where(g < 0, x, lo)
        step = g / (1.0 + k * (1.0 - t * t))
        done = np.abs(step) <= 1e-15
        new = x - step
        newton_ok = (lo < new) & (new < hi) & (np.abs(2.0 * step) <= dx_old)
        new = np.where(done | newton_ok, new, 0.5 * (lo + hi))
        dx_old, dx = dx, np.abs(new - x)
        x = new
        if done.all():
            break
    return x


def _targets(m, W, W2, b, beta):
    """The undamped update of every unit given all the others; ``W2`` is None or ``_squared_couplings``."""
    a = beta * (W @ m + b)
    if W2 is None:
        return np.tanh(a)
    W2, beta2 = W2
    return _unit_roots(a, beta2 * (W2 @ (1.0 - m * m)), m)


def _sequential_sweep(m, W, W2, b, beta, free, damping):
    if W2 is not None:
        W2, beta2 = W2
    for i in free:
        a = beta * float(W[i] @ m + b[i])
        if W2 is None:
            x = math.tanh(a)
        else:
            # The reaction coefficient excludes j = i automatically: W2[i, i] = 0.
            x = _unit_root(a, beta2 * float(W2[i] @ (1.0 - m * m)), float(m[i]))
        m[i] = damping * m[i] + (1.0 - damping) * x


def _solve(m, W, b, beta, method, free, scan, damping, tol, max_iter):
    """One run from start m: (m, objective, converged, sweeps, residual)."""
    m = m.copy()
    W2 = _squared_couplings(W, beta) if method == "tap" else None
    target = _targets(m, W, W2, b, beta)
    residual = np.inf
    for sweep in range(1, max_iter + 1):
        if scan == "sequential":
            _sequential_sweep(m, W, W2, b, beta, free, damping)
        else:
            m[free] = damping * m[free] + (1.0 - damping) * target[free]
        target = _targets(m, W, W2, b, beta)
        residual = float(np.max(np.abs(target[free] - m[free]), initial=0.0))
        if residual <= tol:
            return m, _objective(m, W, b, beta, method), True, sweep, residual
    return m, _objective(m, W, b, beta, method), False, max_iter, residual


def _plefka_ratio(m, W, beta):
    """Largest eigenvalue of ``beta^2 W_ij^2 v_i v_j`` with ``v = 1 - m^2`` (TAP is trusted below 1)."""
    v = 1.0 - m * m
    if m.size == 0:
        return 0.0
    W2, beta2 = _squared_couplings(W, beta)
    return float(np.linalg.eigvalsh(beta2 * W2 * np.outer(v, v))[-1])


def _linear_response(m, W, beta, method, free):
    """Covariance of the free units, ``(D^{-1} + K)^{-1} = (I + D K)^{-1} D`` with ``D = diag(1 - m^2)``.

    The second form needs no division by ``1 - m^2``, so units saturated at
    ``m = +-1`` (zero variance) are harmless.
    """
    mf, Wf = m[free], W[np.ix_(free, free)]
    d = 1.0 - mf * mf
    K = -beta * Wf
    if method == "tap":
        W2, beta2 = _squared_couplings(W, beta)
        K = K + np.diag(beta2 * (W2[free] @ (1.0 - m * m))) - 2.0 * beta2 * W2[np.ix_(free, free)] * np.outer(mf, mf)
    A = np.eye(free.size) + d[:, None] * K
    try:
        C = np.linalg.solve(A, np.diag(d))
    except np.linalg.LinAlgError:
        raise ValueError(
            "linear_response is undefined here: the response matrix is singular (a critical point of the "
            "mean-field equations); use linear_response=False"
        ) from None
    return 0.5 * (C + C.T)
