"""Exact results for Ising models: references for the tests and the book's figures.

The model is ``E(s) = -J sum_<ij> s_i s_j - h sum_i s_i`` with spins
``s_i = +-1`` at temperature ``T``; in bmlib's form it is ``W`` from
:mod:`bmlib.lattices` and ``b = h * ones``. Throughout, ``K = J / T``.

==================================  ==================================================
chain_log_partition                 1-D chain, any field, open or periodic (transfer matrix)
kaufman_log_partition               2-D torus, zero field, any finite size (Kaufman 1949)
kaufman_energy_per_spin             ``<E> / N`` on that torus
kaufman_specific_heat_per_spin      ``Var(E) / (T**2 N)`` on that torus
critical_temperature                ``T_c = 2 J / ln(1 + sqrt 2)`` of the square lattice
onsager_free_energy_per_spin        infinite square lattice (Onsager 1944)
onsager_energy_per_spin             infinite square lattice, closed form
yang_magnetization                  spontaneous magnetization (Yang 1952)
==================================  ==================================================

Every function takes ``T`` as a number or an array of temperatures and
returns a float or an array of the same shape. Everything is computed in
logarithms or with scaled quantities, so that nothing overflows at any
temperature; the few places where a formula still cancels are named, with
the accuracy that remains, in the docstrings. Kaufman's formula cancels
at high temperature whatever the scaling, so above ``T = 10 J`` it is
evaluated in Python's decimal arithmetic instead (standard library).
"""
from __future__ import annotations

import decimal
import numbers

import numpy as np

from ._checks import _show, check_bool, check_count, check_memory, check_real

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
# 2-D torus: Kaufman 1949
# ----------------------------------------------------------------------------


def _log2cosh(x):
    ax = np.abs(x)
    return ax + np.log1p(np.exp(-2.0 * ax))


def _kaufman(m, n, K):
    """``log Z`` of the m x n torus and its first two derivatives in ``K``, for K of shape (M,).

    Kaufman (1949), with ``N = m n`` spins (m rows of n spins; the transfer
    matrix adds one row of n spins at a time):

        Z = 1/2 (2 sinh 2K)^{N/2} (Z_1 + Z_2 + Z_3 + Z_4),
        Z_1 = prod_{l odd} 2 cosh(m g_l / 2),   Z_2 = prod_{l odd} 2 sinh(m g_l / 2),
        Z_3 = prod_{l even} 2 cosh(m g_l / 2),  Z_4 = prod_{l even} 2 sinh(m g_l / 2),

    with ``l`` in ``0 .. 2n - 1``, ``cosh g_l = cosh 2K coth 2K - cos(pi l / n)``
    and ``g_l > 0`` for ``l >= 1``, but ``g_0 = 2K + ln tanh K``, which is negative
    above T_c and positive below: the sign of ``Z_4`` follows it.

    Each ``Z_i`` is carried as ``exp(scale_i) * value_i``. The second
    derivative is accumulated around the mean ``mu = d log Z / dK`` (a sum of
    "variances" of the four terms, not ``<x^2> - mu^2``), and the factor
    ``2 sinh(m g_0 / 2)``, which vanishes at T_c, is never divided by. What
    still cancels: at high T the prefactor's derivatives against the
    products' (relative error ~1e-16 T^2), and at low T the sum over l of
    g_l'' (absolute error ~1e-16 in c).
    """
    K = K[:, None]
    inv_s, log_s, coth2 = _sinh2k_parts(K)
    l = np.arange(2 * n)
    sin2 = np.sin(np.pi * l / (2 * n)) ** 2  # sin^2(theta_l / 2), exact near theta = 0

    # l >= 1. With s = sinh 2K and a = cosh g - 1 = (s - 1)^2 / s + 2 sin^2(theta / 2),
    # q = a / s is free of cancellation and overflow, and g = 2 asinh(sqrt(a / 2)).
    q = (1.0 - inv_s) ** 2 + 2.0 * sin2 * inv_s
    with np.errstate(divide="ignore", invalid="ignore"):  # q = 0 only at l = 0, s = 1; replaced below
        # g = 2 asinh(z) with log z = (log(q / 2) + log s) / 2; for z > e^20,
        # asinh z = log 2z to double precision, which spares exp(log z) from overflow.
        log_z = 0.5 * (np.log(0.5 * q) + log_s)
        g = np.where(log_z > 20.0, 2.0 * (_LN2 + log_z), 2.0 * np.arcsinh(np.exp(np.minimum(log_z, 20.0))))
        r = 1.0 / np.sqrt(q * (q + 2.0 * inv_s))  # s / sinh g
        coth_g = (inv_s + q) * r
        g1 = 2.0 * coth2 * (1.0 - inv_s) * (1.0 + inv_s) * r  # (cosh 2K coth 2K)' / sinh g
        # g'' = (y'' sinh^2 g - y y'^2) / sinh^3 g with y = cosh g. Below T_c (s > 1)
        # the two terms cancel down to O(1 / s), so there the numerator is used
        # expanded in u = 1 / s (a polynomial whose sigma-terms are sums of squares).
        u = inv_s
        poly = 4.0 * u * (
            (u - 1.0) ** 3 * (u**2 + 1.0) ** 2
            + 2.0 * sin2 * (3.0 * u**4 * (u - 2.0 / 3.0) ** 2 + u**2 * (17.0 / 3.0 * u**2 - 2.0 * u + 4.0) + (u - 1.0) ** 2)
            + 4.0 * sin2**2 * u * (2.0 * u**4 + u**2 + 1.0)
        )
        g2 = np.where(
            u < 1.0,
            poly * r**3,
            r * (4.0 * (1.0 - u**2) + 8.0 * coth2**2 * u**2) - coth_g * g1**2,
        )
    # l = 0, with its sign.
    log_tanh = np.log(-np.expm1(-2.0 * K)) - np.log1p(np.exp(-2.0 * K))
    g0 = (2.0 * K + log_tanh)[:, 0]
    g0_1 = (2.0 + 2.0 * inv_s)[:, 0]
    g0_2 = (-4.0 * coth2 * inv_s)[:, 0]

    x, x1, x2 = 0.5 * m * g, 0.5 * m * g1, 0.5 * m * g2
    x0, x0_1, x0_2 = 0.5 * m * g0, 0.5 * m * g0_1, 0.5 * m * g0_2

    # Log-derivatives of the regular factors 2 cosh x_l and 2 sinh x_l (x_l > 0).
    t = np.tanh(x)
    e2 = np.exp(-2.0 * x)
    with np.errstate(divide="ignore", invalid="ignore"):
        cosh_f = (_log2cosh(x), t * x1, 4.0 * e2 / (1.0 + e2) ** 2 * x1**2 + t * x2)
        sinh_f = (
            x + np.log(-np.expm1(-2.0 * x)),
            x1 / t,
            -4.0 * e2 / np.expm1(-2.0 * x) ** 2 * x1**2 + x2 / t,
        )

    odd, even = l % 2 == 1, (l % 2 == 0) & (l > 0)

    def sums(parts, mask):
        return tuple(p[:, mask].sum(axis=1) for p in parts)

    # Per term: log scale, and value, first-derivative numerator in scaled units.
    # The second derivative needs mu first, so each term also keeps a closure.
    ax0 = np.abs(x0)
    e0 = np.exp(-2.0 * ax0)
    sigma = np.where(x0 >= 0, 1.0, -1.0)
    terms = []
    for parts, mask in ((cosh_f, odd), (sinh_f, odd)):
        lg, r1, r2 = sums(parts, mask)
        terms.append((lg, np.ones_like(lg), r1, lambda mu, r1=r1, r2=r2: r2 + (r1 - mu) ** 2))
    lg, r1, r2 = sums(cosh_f, even)
    a0, t0 = 1.0 + e0, np.tanh(x0)
    sech2_0 = 4.0 * e0 / (1.0 + e0) ** 2
    terms.append(
        (
            lg + ax0,
            a0,
            a0 * (t0 * x0_1 + r1),
            lambda mu, a0=a0, t0=t0, r1=r1, r2=r2: a0
            * (sech2_0 * x0_1**2 + t0 * x0_2 + r2 + (t0 * x0_1 + r1 - mu) ** 2),
        )
    )
    lg, r1, r2 = sums(sinh_f, even)
    a0, c0 = sigma * (1.0 - e0), 1.0 + e0
    terms.append(
        (
            lg + ax0,
            a0,
            a0 * r1 + c0 * x0_1,
            lambda mu, a0=a0, c0=c0, r1=r1, r2=r2: a0 * r2
            + c0 * x0_2
            + sigma * ((1.0 - e0) * (x0_1 + sigma * (r1 - mu)) ** 2 + 4.0 * e0 * sigma * x0_1 * (r1 - mu)),
        )
    )

    top = np.max([term[0] for term in terms], axis=0)
    weights = [np.exp(term[0] - top) for term in terms]
    total = sum(w * term[1] for w, term in zip(weights, terms))
    mu = sum(w * term[2] for w, term in zip(weights, terms)) / total
    second = sum(w * term[3](mu) for w, term in zip(weights, terms)) / total

    N = m * n
    inv_s, log_s, coth2 = inv_s[:, 0], log_s[:, 0], coth2[:, 0]
    log_z = -_LN2 + 0.5 * N * (_LN2 + log_s) + top + np.log(total)
    d1 = N * coth2 + mu
    d2 = -2.0 * N * inv_s**2 + second
    return log_z, d1, d2


#: Below this K = J / T (T > 10 J) the double-precision form of Kaufman's formula
#: cancels: its prefactor and its products each vary like log(1 / K) while
#: log Z varies like K^2, so <E> (~K) and c (~K^2) lose ~1 / K^2 in relative
#: accuracy (3.5e-3 at T = 1e7) and overflow to NaN near T = 1e100. There the
#: formula is evaluated in decimal arithmetic instead (_kaufman_decimal).
_HIGH_T_K = 0.1


def _series_sinh_cosh(x, ctx):
    """``sinh x`` and ``cosh x`` of a Decimal ``0 <= x <= 1`` by their Taylor series (no cancellation)."""
    sinh, cosh, term, j = ctx.create_decimal(0), ctx.create_decimal(1), ctx.create_decimal(1), 0
    tiny = ctx.create_decimal(10) ** (-ctx.prec - 2)
    while True:
        j += 1
        term = ctx.divide(ctx.multiply(term, x), j)
        if j % 2:
            sinh = ctx.add(sinh, term)
        else:
            cosh = ctx.add(cosh, term)
        if term <= tiny * cosh:
            return sinh, cosh


def _series_log1p(d, ctx):
    """``log(1 + d)`` of a small Decimal ``|d| < 0.1`` by its Taylor series."""
    total, power, j = ctx.create_decimal(0), ctx.create_decimal(1), 0
    tiny = ctx.create_decimal(10) ** (-ctx.prec - 2)
    while True:
        j += 1
        power = ctx.multiply(power, d)
        term = ctx.divide(power, j)
        total = ctx.add(total, term if j % 2 else -term)
        if abs(term) <= tiny * abs(total):
            return total


def _decimal_cosines(n, ctx):
    """``cos(pi l / n)`` for ``l = 0 .. 2n - 1`` as Decimals accurate to the context's precision.

    Rounded double-precision cosines would not do: their sums over l (which
    vanish exactly, e.g. sum_l cos(pi l / n) over odd l) would leave residues of
    1e-16 that the high-temperature energy, of order K, cannot afford.
    """
    # pi by Machin's formula, pi = 16 atan(1/5) - 4 atan(1/239), each atan by its series.
    def atan_inverse(q):
        total, power, j, sign = ctx.create_decimal(0), ctx.divide(1, q), 1, 1
        tiny = ctx.create_decimal(10) ** (-ctx.prec - 2)
        q2 = q * q
        while power > tiny:
            total = ctx.add(total, sign * ctx.divide(power, j))
            power, j, sign = ctx.divide(power, q2), j + 2, -sign
        return total

    pi = 16 * atan_inverse(5) - 4 * atan_inverse(239)
    x = ctx.divide(pi, n)
    sin_x, cos_x, term, j = ctx.create_decimal(0), ctx.create_decimal(1), ctx.create_decimal(1), 0
    tiny = ctx.create_decimal(10) ** (-ctx.prec - 2)
    while abs(term) > tiny:  # the Taylor series of sin and cos at x = pi / n <= pi / 2
        j += 1
        term = ctx.divide(ctx.multiply(term, x), j)
        if j % 2:
            sin_x = ctx.add(sin_x, term if j % 4 == 1 else -term)
        else:
            cos_x = ctx.add(cos_x, term if j % 4 == 0 else -term)
    # cos(l x) + i sin(l x) by repeated multiplication with e^{i x}.
    cosines, c, s = [], ctx.create_decimal(1), ctx.create_decimal(0)
    for _ in range(2 * n):
        cosines.append(c)
        c, s = c * cos_x - s * sin_x, s * cos_x + c * sin_x
    return cosines


def _kaufman_decimal_z(m, n, K, cosines, ctx):
    """Kaufman's ``Z`` (a Decimal) of the m x n torus at the Decimal coupling ``0 < K < 1``.

    The formula of :func:`_kaufman`, written plainly: with Decimal's wide
    exponent range nothing overflows, and with enough digits nothing cancels.
    """
    N = m * n
    s1, c1 = _series_sinh_cosh(K, ctx)
    s2, c2 = _series_sinh_cosh(2 * K, ctx)
    y0 = ctx.divide(c2 * c2, s2)  # cosh 2K coth 2K
    z = [ctx.create_decimal(1) for _ in range(4)]  # prod 2 cosh, 2 sinh over odd l; over even l
    for l in range(2 * n):
        if l == 0:
            e_g = ctx.divide((c2 + s2) * s1, c1)  # e^{g_0} = e^{2K} tanh K
        else:
            y = y0 - cosines[l]
            e_g = y + ctx.sqrt((y - 1) * (y + 1))  # e^{g_l}, cosh g_l = y
        x = ctx.sqrt(ctx.power(e_g, m))  # e^{m g_l / 2}
        inv = ctx.divide(1, x)
        k = 0 if l % 2 else 2
        z[k] = z[k] * (x + inv)
        z[k + 1] = z[k + 1] * (x - inv)
    prefactor = ctx.power(2 * s2, N // 2)
    if N % 2:
        prefactor = prefactor * ctx.sqrt(2 * s2)
    return prefactor * (z[0] + z[1] + z[2] + z[3]) / 2


def _kaufman_decimal(m, n, K):
    """``log Z`` and its first two derivatives in ``K``, as floats, for one float ``0 < K < _HIGH_T_K``.

    The derivatives are central differences with step ``h = 1e-15 K``, taken
    as logarithms of ratios of Z (series of log1p): their truncation error is
    ~(h / K)^2 = 1e-30, relative. The working precision covers what cancels:
    ``log Z ~ N`` against a second difference ~``N K^2 (h / K)^2``, so
    ``60 + 2 log10(1 / K)`` digits (~680 at K = 1e-308), plus those of N.
    """
    digits = 60 + int(2 * max(0.0, -np.log10(K))) + len(str(m * n))
    ctx = decimal.Context(prec=digits, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    with decimal.localcontext(ctx):  # the arithmetic operators below use this precision too
        cosines = _decimal_cosines(n, ctx)
        k = ctx.create_decimal(K)  # exact: every double is a finite decimal
        h = k.scaleb(-15)
        z_minus, z_mid, z_plus = (_kaufman_decimal_z(m, n, kk, cosines, ctx) for kk in (k - h, k, k + h))
        d1 = _series_log1p(z_plus / z_minus - 1, ctx) / (2 * h)
        d2 = _series_log1p(z_plus * z_minus / (z_mid * z_mid) - 1, ctx) / (h * h)
        exponent = z_mid.adjusted()  # log Z = log(mantissa) + exponent log 10, to double precision
        mantissa = float(z_mid.scaleb(-exponent))
    log_z = float(np.log(mantissa)) + exponent * float(np.log(10.0))
    return log_z, float(d1), float(d2)


def _kaufman_any(m, n, K):
    """:func:`_kaufman` for K of shape (M,), with the high-temperature entries done in decimals."""
    high = K < _HIGH_T_K
    log_z, d1, d2 = (np.empty_like(K) for _ in range(3))
    if (~high).any():
        log_z[~high], d1[~high], d2[~high] = _kaufman(m, n, K[~high])
    for i in np.flatnonzero(high):
        log_z[i], d1[i], d2[i] = _kaufman_decimal(m, n, float(K[i]))
    return log_z, d1, d2


def _check_torus(rows, cols, T, J):
    rows = check_count(rows, "rows", minimum=2)
    if isinstance(cols, float) and not float(cols).is_integer():
        # kaufman_energy_per_spin(32, 2.5): a temperature given where cols goes.
        raise TypeError(f"cols must be an integer; got {cols!r} (to give the temperature of a square torus, "
                        f"write T={cols!r})")
    cols = rows if cols is None else check_count(cols, "cols", minimum=2)
    J = _positive_coupling(J)
    T, shape = _temperatures(T)
    # Kaufman's products run over 2 * cols wave numbers for every temperature (a few arrays of them).
    check_memory(8 * 8 * 2 * (rows + cols) * T.size, f"Kaufman's sums for a {rows} x {cols} torus (rows, cols)")
    return rows, cols, T, J, shape


def kaufman_log_partition(rows, cols=None, T=1.0, J=1.0):
    """Exact ``log Z`` of the zero-field 2-D Ising model on a ``rows x cols`` torus.

    The same model as ``log_partition(square_lattice_couplings(rows, cols, J), None, T)``,
    at any size: Kaufman's (1949) finite-lattice solution.

    Parameters
    ----------
    rows, cols : int
        Sides of the torus, each >= 2; ``cols`` defaults to ``rows`` (a
        square torus, as :class:`~bmlib.SquareLattice` and
        :func:`~bmlib.square_lattice_couplings`).
    T : float or array_like
        Temperature(s), finite and > 0.
    J : float
        Ferromagnetic coupling, > 0.

    Returns
    -------
    float, or ndarray of the shape of ``T``

    Notes
    -----
    ``Z = 1/2 (2 sinh 2K)^(N/2) (Z_1 + Z_2 + Z_3 + Z_4)`` with ``N = rows * cols``,
    where ``Z_1, Z_2`` (``Z_3, Z_4``) are products of ``2 cosh`` and ``2 sinh``
    of ``rows * g_l / 2`` over the odd (even) ``l`` in ``0 .. 2 cols - 1``,
    ``cosh g_l = cosh 2K coth 2K - cos(pi l / cols)`` and ``g_0 = 2K + ln tanh K``
    (negative above ``T_c``, so ``Z_4 < 0`` there). The formula counts
    ``2 N`` bonds, so a side of length 2 has doubled bonds, exactly as
    :func:`~bmlib.square_lattice_couplings` builds it. Computed in logs
    (each ``Z_i`` as a sign and a log-magnitude), valid at any size and
    temperature.

    Examples
    --------
    >>> import bmlib as bm
    >>> round(bm.kaufman_log_partition(4, T=2.0), 10)   # the 4 x 4 torus
    17.1053671187
    >>> round(bm.kaufman_log_partition(64, 64, T=3.0) / 64**2, 12)  # = -f / T of the infinite lattice
    0.815882731858
    """
    rows, cols, T, J, shape = _check_torus(rows, cols, T, J)
    return _give_back(_kaufman_any(rows, cols, J / T)[0], shape)


def kaufman_energy_per_spin(rows, cols=None, T=1.0, J=1.0):
    """Exact mean energy per spin ``<E> / N`` of the zero-field ``rows x cols`` Ising torus.

    Parameters
    ----------
    rows, cols : int
        Sides of the torus, each >= 2; ``cols`` defaults to ``rows`` (a
        square torus, as :class:`~bmlib.SquareLattice` and
        :func:`~bmlib.square_lattice_couplings`).
    T : float or array_like
        Temperature(s), finite and > 0.
    J : float
        Ferromagnetic coupling, > 0.

    Returns
    -------
    float, or ndarray of the shape of ``T``

    Notes
    -----
    ``u = -(d log Z / d beta) / N = -J (d log Z / dK) / N``, differentiated
    analytically through Kaufman's formula (:func:`kaufman_log_partition`):
    no finite differences. Relative accuracy ~1e-15 for ``T <= 10 J``. Above
    ``10 J`` the double-precision formula would cancel (``u ~ -2 J^2 / T``
    while its parts vary like ``log T``), so the formula is evaluated there in
    decimal arithmetic with enough digits (about ``60 + 2 log10(T / J)``) and
    differentiated by a central difference of step ``1e-15 K``: relative
    accuracy ~1e-15 up to the largest float ``T``, at a cost of milliseconds
    per temperature (0.3 s for a 64 x 64 torus at ``T = 1e300``).

    Examples
    --------
    >>> round(bm.kaufman_energy_per_spin(4, 4, T=1.0), 8)  # nearly the ground state, -2 J
    -1.99715844
    """
    rows, cols, T, J, shape = _check_torus(rows, cols, T, J)
    return _give_back(-J * _kaufman_any(rows, cols, J / T)[1] / (rows * cols), shape)


def kaufman_specific_heat_per_spin(rows, cols=None, T=1.0, J=1.0):
    """Exact specific heat per spin ``Var(E) / (T^2 N)`` of the zero-field ``rows x cols`` Ising torus.

    Parameters
    ----------
    rows, cols : int
        Sides of the torus, each >= 2; ``cols`` defaults to ``rows`` (a
        square torus, as :class:`~bmlib.SquareLattice` and
        :func:`~bmlib.square_lattice_couplings`).
    T : float or array_like
        Temperature(s), finite and > 0.
    J : float
        Ferromagnetic coupling, > 0.

    Returns
    -------
    float, or ndarray of the shape of ``T``

    Notes
    -----
    ``c = beta^2 (d^2 log Z / d beta^2) / N = K^2 (d^2 log Z / dK^2) / N``,
    differentiated analytically through Kaufman's formula, with the second
    derivative accumulated around the first (as ``sum w_i (v_i + (m_i - mu)^2)``
    over the four terms) rather than as ``<x^2> - <x>^2``.
    Accuracy (checked against 60-digit arithmetic): relative ~1e-14 for
    ``J <= T <= 10 J``, 1e-12 at ``T = J / 2``. Lower down ``c`` becomes
    exponentially small (2e-9 at ``T = 0.3 J``) and only its absolute
    accuracy, ~1e-16, remains. Above ``10 J``, as for
    :func:`kaufman_energy_per_spin`, the formula is evaluated in decimal
    arithmetic: relative accuracy ~1e-15 until ``c ~ 2 (J / T)^2`` itself
    underflows (``T > 1e154 J``, where 0.0 is returned).

    Examples
    --------
    >>> bm.kaufman_specific_heat_per_spin(4, 4, T=[1.0, 2.0, 3.0]).round(6)
    array([0.023409, 0.605533, 0.603135])
    """
    rows, cols, T, J, shape = _check_torus(rows, cols, T, J)
    K = J / T
    d2 = _kaufman_any(rows, cols, K)[2]
    # Far below T_c the curvature d2 underflows to exactly 0 while K**2 may overflow:
    # the specific heat is then 0 to double precision, not 0 * inf = NaN.
    with np.errstate(over="ignore", invalid="ignore"):
        c = np.where(d2 == 0.0, 0.0, K**2 * d2 / (rows * cols))
    return _give_back(c, shape)


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
