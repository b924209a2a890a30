"""Exact results for Ising models in closed form: the chain and the infinite square lattice.

The model is ``E(s) = -J sum_<ij> s_i s_j - h sum_i s_i`` with spins
``s_i = +-1`` at temperature ``T``; in bmlib's form it is ``W`` from
:mod:`bmlib.models.lattices` and ``b = h * ones``. Throughout, ``K = J / T``.

==================================  ==================================================
chain_log_partition                 1-D chain, any field, open or periodic (transfer matrix)
critical_temperature                ``T_c = 2 J / ln(1 + sqrt 2)`` of the square lattice
onsager_free_energy_per_spin        infinite square lattice (Onsager 1944)
onsager_energy_per_spin             infinite square lattice, closed form
yang_magnetization                  spontaneous magnetization (Yang 1952)
==================================  ==================================================

Every function takes ``T`` as a number or an array of temperatures and
returns a float or an array of the same shape. Everything is computed in
logarithms or with scaled quantities, so that nothing overflows at any
temperature; the few places where a formula still cancels are named, with
the accuracy that remains, in the docstrings. The finite torus (Kaufman 1949)
is in :mod:`bmlib.exact.kaufman`, which shares the helpers here.
"""
from __future__ import annotations

import numbers

import numpy as np

from .._checks import _show, check_bool, check_count, check_real

_LN2 = float(np.log(2.0))


# ----------------------------------------------------------------------------
# Shared helpers
# ----------------------------------------------------------------------------


def _temperatures(T, name="T"):
    """Return ``(T as a float array, shape to give back or None for a scalar)``."""
    if isinstance(T, (bool, np.bool_)):
        raise TypeError(f"{name} must be a real number > 0 or an array of them; got {T!r} of type bool")
    if isinstance(T, numbers.Real):
        arr, shape = np.array([float(T)]), None
    else:
        try:
            raw = np.asarray(T)
        except Exception as exc:  # ragged lists and the like
            raise TypeError(f"{name} must be a real number > 0 or an array of them; could not convert it ({exc})") from None
        if raw.dtype == object or raw.dtype == bool or not np.issubdtype(raw.dtype, np.number) or np.iscomplexobj(raw):
            raise TypeError(
                f"{name} must be a real number > 0 or an array of them; got {_show(T)} with dtype {raw.dtype}"
            )
        arr, shape = raw.astype(float).ravel(), (raw.shape if raw.ndim else None)
    bad = ~(np.isfinite(arr) & (arr > 0))
    if bad.any():
        k = int(np.argmax(bad))
        if shape is None:
            raise ValueError(f"{name} must be finite and > 0; got {float(arr[k])!r}")
        where = ", ".join(str(int(i)) for i in np.unravel_index(k, shape))
        raise ValueError(f"{name} must be finite and > 0; {name}[{where}] = {float(arr[k])!r}")
    return arr, shape


def _give_back(values, shape):
    return float(values[0]) if shape is None else values.reshape(shape)


def _sinh2k_parts(K):
    """For ``K > 0``: ``1 / sinh 2K``, ``log sinh 2K`` and ``coth 2K``, without overflow."""
    em = -np.expm1(-4.0 * K)  # 1 - exp(-4K), exact to the last digit even for small K
    inv_s = 2.0 * np.exp(-2.0 * K) / em
    log_s = 2.0 * K - _LN2 + np.log(em)
    coth = 1.0 / np.tanh(2.0 * K)
    return inv_s, log_s, coth


def _positive_coupling(J):
    J = check_real(J, "J")
    if J <= 0:
        raise ValueError(
            f"J must be > 0 (a ferromagnetic coupling) for the 2-D exact results; got {J!r}"
        )
    return J


# ----------------------------------------------------------------------------
# 1-D chain
# ----------------------------------------------------------------------------


def _log_matmul(A, B):
    """Matrix product in the log domain: ``log(exp(A) @ exp(B))`` over the last two axes."""
    terms = A[..., :, :, None] + B[..., None, :, :]
    top = terms.max(axis=-2)
    return top + np.log(np.exp(terms - top[..., None, :]).sum(axis=-2))


def chain_log_partition(n, T=1.0, J=1.0, h=0.0, periodic=True):
    """Exact ``log Z`` of the 1-D Ising chain, by the transfer matrix.

    ``E(s) = -J sum_i s_i s_{i+1} - h sum_i s_i``; the same model as
    ``log_partition(chain_couplings(n, J, periodic), h * np.ones(n), T)``.

    Parameters
    ----------
    n : int
        Number of spins; ``n >= 3`` if ``periodic``, ``n >= 1`` otherwise.
    T : float or array_like
        Temperature(s), finite and > 0.
    J : float
        Coupling (any sign).
    h : float
        Field.
    periodic : bool
        Ring (bond ``n - 1, 0`` included) or open chain.

    Returns
    -------
    float, or ndarray of the shape of ``T``

    Notes
    -----
    With ``K = J / T`` and ``x = h / T`` the symmetric transfer matrix is
    ``P[s, s'] = exp(K s s' + x (s + s') / 2)``, with eigenvalues
    ``lambda_pm = e^K cosh x +- sqrt(e^{2K} sinh^2 x + e^{-2K})``.

    * Ring: ``Z = tr P^n = lambda_+^n + lambda_-^n``, evaluated as
      ``n log lambda_+ + log1p((lambda_- / lambda_+)^n)``, with ``log lambda_+``
      computed from scaled exponentials and ``lambda_- = 2 sinh(2K) / lambda_+``
      (the determinant), which is exact where the difference of the two terms
      would cancel. ``lambda_-`` is negative when ``J < 0``; for an odd ring
      (frustrated) ``1 + r^n`` then cancels at low T, and it is evaluated
      from ``1 - |r| = tr P / lambda_+`` instead.
    * Open chain: ``Z = u^T P^(n-1) u`` with ``u_s = exp(x s / 2)`` (the end
      spins get the half of the field that no second bond gives them). The
      power is taken by repeated squaring in the log domain, where every
      entry is finite, so any ``n`` and ``T`` work.

    Examples
    --------
    >>> round(bm.chain_log_partition(10, T=1.0), 10)  # log((2 cosh 1)^10 + (2 sinh 1)^10)
    11.3328652362
    >>> round(bm.chain_log_partition(3, T=2.0, periodic=False), 10)  # log(2 (2 cosh 0.5)^2)
    2.3196705556
    """
    periodic = check_bool(periodic, "periodic")
    if periodic:
        n = check_count(n, "n", minimum=None)
        if n < 3:
            raise ValueError(
                f"n must be >= 3 for a periodic chain (as in chain_couplings); got {n}. "
                "Use periodic=False for a short open chain"
            )
    else:
        n = check_count(n, "n", minimum=1)
    J = check_real(J, "J")
    h = check_real(h, "h")
    T, shape = _temperatures(T)
    K, x = J / T, h / T
    if periodic:
        ax = np.abs(x)
        # log lambda_+ = L + log(lambda_+ e^{-L}), with L chosen so that every
        # exponential below has a non-positive argument.
        L = np.maximum(K + ax, -K)
        big, small = np.exp(K + ax - L), np.exp(K - ax - L)
        half_diff = 0.5 * big * -np.expm1(-2.0 * ax)  # e^{K-L} sinh|x|
        log_lp = L + np.log(0.5 * (big + small) + np.sqrt(half_diff**2 + np.exp(-2.0 * K - 2.0 * L)))
        # r = lambda_- / lambda_+ = 2 sinh(2K) / lambda_+^2, with |r| < 1 and the sign of K.
        aK = np.abs(K)
        with np.errstate(divide="ignore"):
            log_abs_r = 2.0 * aK + np.log(-np.expm1(-4.0 * aK)) - 2.0 * log_lp  # -inf at K = 0
        # For J < 0 and low T, r -> -1: then w = 1 - |r| = (lambda_+ + lambda_-) / lambda_+
        # = 2 e^K cosh(x) / lambda_+ (the trace) is the exact small quantity, kept in logs.
        log_w = K + ax + np.log1p(np.exp(-2.0 * ax)) - log_lp
        w = np.exp(log_w)
        log_abs_r = np.where((K < 0) & (w < 0.5), np.log1p(-np.minimum(w, 0.5)), log_abs_r)
        if n % 2 == 1:
            # Z = lambda_+^n (1 + r^n), and r^n < 0 where K < 0 (the frustrated odd
            # ring): 1 - |r|^n, which is n w to double precision once w < 1e-200.
            with np.errstate(divide="ignore"):
                frustrated = np.where(w < 1e-200, np.log(n) + log_w, np.log(-np.expm1(n * log_abs_r)))
            tail = np.where(K < 0, frustrated, np.log1p(np.exp(n * log_abs_r)))
        else:
            tail = np.log1p(np.exp(n * log_abs_r))
        out = n * log_lp + tail
    else:
        spins = np.array([-1.0, 1.0])
        log_p = K[:, None, None] * np.outer(spins, spins) + 0.5 * x[:, None, None] * (spins[:, None] + spins[None, :])
        log_u = 0.5 * x[:, None] * spins  # (M, 2)
        # v = P^(n-1) u by binary powers of P, all in logs.
        log_v = log_u.copy()
        power, steps = log_p, n - 1
        while steps:
            if steps & 1:
                log_v = _log_matmul(power, log_v[..., None])[..., 0]
            steps >>= 1
            if steps:
                power = _log_matmul(power, power)
        terms = log_u + log_v
        top = terms.max(axis=1)
        out = top + np.log(np.exp(terms - top[:, None]).sum(axis=1))
    return _give_back(out, shape)


# ----------------------------------------------------------------------------
# Infinite square lattice: Onsager 1944, Yang 1952
# ----------------------------------------------------------------------------


def critical_temperature(J=1.0):
    """Critical temperature of the square-lattice Ising model, ``T_c = 2 J / ln(1 + sqrt 2)``.

    ``sinh(2 J / T_c) = 1``; ``T_c ~= 2.269185 J``.

    Parameters
    ----------
    J : float
        Ferromagnetic coupling, > 0.

    Returns
    -------
    float

    Examples
    --------
    >>> round(bm.critical_temperature(), 10)
    2.2691853142
    """
    J = _positive_coupling(J)
    return 2.0 * J / float(np.log1p(np.sqrt(2.0)))


def _tanh_sinh_nodes(step=1.0 / 128, t_max=4.5):
    """Tanh-sinh (double-exponential) rule on [0, pi]: theta, pi - theta, weights.

    The nodes crowd into both end points double-exponentially, which is what
    resolves the sharp feature that the integrand develops at theta = 0 as
    T -> T_c. ``theta`` and ``pi - theta`` are both returned to full relative
    precision (the integrand needs sin^2 of half of each).
    """
    t = np.arange(-t_max, t_max + step / 2, step)
    u = 0.5 * np.pi * np.sinh(t)
    theta = np.pi / (1.0 + np.exp(-2.0 * u))
    theta_c = np.pi / (1.0 + np.exp(2.0 * u))
    weights = step * 0.25 * np.pi**2 * np.cosh(t) / np.cosh(u) ** 2
    return theta, theta_c, weights


_NODES = _tanh_sinh_nodes()


def onsager_free_energy_per_spin(T, J=1.0):
    """Free energy per spin ``f = -T lim (log Z) / N`` of the infinite square lattice.

    Parameters
    ----------
    T : float or array_like
        Temperature(s), finite and > 0.
    J : float
        Ferromagnetic coupling, > 0.

    Returns
    -------
    float, or ndarray of the shape of ``T``

    Notes
    -----
    Onsager's double integral, with the inner integral done in closed form
    (``(1/pi) int_0^pi ln(a - b cos t) dt = ln((a + sqrt(a^2 - b^2)) / 2)``):

        -f / T = ln(2 cosh 2K) + (1 / 2 pi) int_0^pi ln[(g + sqrt(g^2 - k^2 / 4)) / 2] d theta,

    with ``g = 1 - (k / 2) cos theta``, ``k = 2 sinh 2K / cosh^2 2K`` and
    ``g^2 - k^2 / 4 = (1 - k cos^2(theta/2)) (1 + k sin^2(theta/2))``, where
    ``1 - k = (1 - sinh 2K)^2 / cosh^2 2K`` is formed without cancellation.
    The integral is a tanh-sinh quadrature (about 1150 nodes, in NumPy),
    accurate to ~1e-15 at every T, including near and at ``T_c``.

    Examples
    --------
    >>> Tc = bm.critical_temperature()
    >>> round(-bm.onsager_free_energy_per_spin(Tc) / Tc, 10)  # ln(2) / 2 + 2 G / pi, G Catalan's
    0.9296953983
    """
    J = _positive_coupling(J)
    T, shape = _temperatures(T)
    K = (J / T)[:, None]
    inv_s, log_s, _ = _sinh2k_parts(K)
    s = np.exp(np.minimum(log_s, 700.0))
    kappa = 2.0 / (s + inv_s)
    with np.errstate(invalid="ignore"):
        one_minus = np.where(s < 1e150, (s - 1.0) * (1.0 - inv_s) / (s + inv_s), 1.0)
    theta, theta_c, w = _NODES
    sin2, cos2 = np.sin(0.5 * theta) ** 2, np.sin(0.5 * theta_c) ** 2
    g = 1.0 - 0.5 * kappa * (cos2 - sin2)
    root = np.sqrt((one_minus + kappa * sin2) * (1.0 + kappa * sin2))
    integral = (np.log(0.5 * (g + root)) * w).sum(axis=1) / (2.0 * np.pi)
    minus_beta_f = 2.0 * K[:, 0] + np.log1p(np.exp(-4.0 * K[:, 0])) + integral
    return _give_back(-T * minus_beta_f, shape)


def _agm(a, b):
    """Arithmetic-geometric mean of positive arrays (vectorized)."""
    for _ in range(64):
        a, b = 0.5 * (a + b), np.sqrt(a * b)
        if np.all(np.abs(a - b) <= 4e-16 * a):  # within rounding: converged
            break
    return 0.5 * (a + b)


def _agm_deviation(alpha, beta):
    """``1 - AGM(1 - alpha, 1 - beta)`` for small ``alpha, beta >= 0``, without cancellation."""
    for _ in range(64):
        root = np.sqrt((1.0 - alpha) * (1.0 - beta))
        alpha, beta = 0.5 * (alpha + beta), (alpha + beta - alpha * beta) / (1.0 + root)
        if np.all(np.abs(alpha - beta) <= 4e-16 * np.maximum(alpha, 1e-300)):
            break
    return 0.5 * (alpha + beta)


def onsager_energy_per_spin(T, J=1.0):
    """Energy per spin ``u = <E> / N`` of the infinite square lattice (Onsager's closed form).

    Parameters
    ----------
    T : float or array_like
        Temperature(s), finite and > 0.
    J : float
        Ferromagnetic coupling, > 0.

    Returns
    -------
    float, or ndarray of the shape of ``T``

    Notes
    -----
    ``u = -J coth 2K [1 + (2 / pi) (2 tanh^2 2K - 1) K(k)]`` with
    ``k = 2 sinh 2K / cosh^2 2K`` and ``K(k)`` the complete elliptic integral
    of the first kind, ``K(k) = pi / (2 AGM(1, k'))``, ``k' = sqrt(1 - k^2)``.
    Since ``2 tanh^2 2K - 1 = (s^2 - 1) / (s^2 + 1) = +-k'`` (``s = sinh 2K``),
    the bracket is ``1 + sign(s - 1) k' / AGM(1, k')``: finite at ``T_c``,
    where ``u = -sqrt(2) J``, with no ``0 * inf``.

    Examples
    --------
    >>> round(bm.onsager_energy_per_spin(bm.critical_temperature()), 10)  # -sqrt(2)
    -1.4142135624
    >>> round(bm.onsager_energy_per_spin(1.0), 8)
    -1.9971602
    """
    J = _positive_coupling(J)
    T, shape = _temperatures(T)
    K = J / T
    inv_s, log_s, coth2 = _sinh2k_parts(K)
    s = np.exp(np.minimum(log_s, 700.0))
    k_prime = np.where(s < 1e150, np.abs(s - inv_s) / (s + inv_s), 1.0)
    safe = np.where(k_prime > 0, k_prime, 1.0)
    ratio = np.where(k_prime > 0, k_prime / _agm(np.ones_like(safe), safe), 0.0)  # 0 at T_c
    below = 1.0 + ratio
    # Above T_c the bracket 1 - k'/AGM(1, k') cancels as T grows (k' -> 1);
    # there the AGM is run on the deviations from 1, which stay exact.
    small_s = np.minimum(s, 1.0)
    delta = np.where(s < 1.0, 2.0 * small_s**2 / (1.0 + small_s**2), 0.5)  # 1 - k'
    alpha_inf = _agm_deviation(np.zeros_like(delta), delta)
    above = np.where(delta < 0.5, (delta - alpha_inf) / (1.0 - alpha_inf), 1.0 - ratio)
    u = -J * coth2 * np.where(s >= 1.0, below, above)
    return _give_back(u, shape)


def yang_magnetization(T, J=1.0):
    """Spontaneous magnetization per spin of the infinite square lattice (Yang 1952).

    ``M = (1 - sinh(2K)^-4)^(1/8)`` below ``T_c`` and ``0`` at and above it:
    the limit of ``<s_i>`` when a vanishing positive field is switched off.

    Parameters
    ----------
    T : float or array_like
        Temperature(s), finite and > 0.
    J : float
        Ferromagnetic coupling, > 0.

    Returns
    -------
    float, or ndarray of the shape of ``T``

    Examples
    --------
    >>> round(bm.yang_magnetization(2.0), 6)
    0.911319
    >>> bm.yang_magnetization([1.0, 3.0]).round(6)
    array([0.999276, 0.      ])
    """
    J = _positive_coupling(J)
    T, shape = _temperatures(T)
    inv_s, _, _ = _sinh2k_parts(J / T)
    # 1 - inv_s^4, factored so that it does not cancel just below T_c.
    gap = (1.0 - inv_s) * (1.0 + inv_s) * (1.0 + inv_s**2)
    M = np.where(inv_s < 1.0, np.abs(gap) ** 0.125, 0.0)
    return _give_back(M, shape)
