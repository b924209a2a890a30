"""The zero-field 2-D Ising model on a finite torus, exactly: Kaufman's (1949) solution.

==================================  ==================================================
kaufman_log_partition               ``log Z`` of the ``rows x cols`` torus, any size
kaufman_energy_per_spin             ``<E> / N`` on that torus
kaufman_specific_heat_per_spin      ``Var(E) / (T**2 N)`` on that torus
==================================  ==================================================

The model and conventions are those of :mod:`bmlib.exact.closed_forms` (``K = J / T``).
Kaufman's formula cancels at high temperature whatever the scaling, so above
``T = 10 J`` it is evaluated in Python's decimal arithmetic instead (standard
library), with the cosines computed there too.
"""
from __future__ import annotations

import decimal

import numpy as np

from .._checks import check_count, check_memory
from .closed_forms import _LN2, _give_back, _positive_coupling, _sinh2k_parts, _temperatures

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


#: Above this K = J / T (T < 1e-301 J) Kaufman's formula would overflow (``4K`` in
#: ``sinh 2K`` near K = 4.5e307, then NaN), while log Z is its ground-state limit
#: ``2 N K + log 2`` to double precision (the first excitation is ``exp(-8K)`` smaller):
#: there ``log Z = 2 N K`` (inf past the float range), ``d log Z / dK = 2 N`` and the
#: curvature is 0, i.e. ``<E> / N = -2 J`` and ``c = 0``.
_LOW_T_K = 2.0**1000


def _kaufman_any(m, n, K):
    """:func:`_kaufman` for K of shape (M,), with the high-temperature entries done in decimals
    and the ones far below T_c (``K > _LOW_T_K``, possibly inf) at their ground-state limit."""
    high = K < _HIGH_T_K
    low = K > _LOW_T_K
    middle = ~high & ~low
    log_z, d1, d2 = (np.empty_like(K) for _ in range(3))
    if middle.any():
        log_z[middle], d1[middle], d2[middle] = _kaufman(m, n, K[middle])
    with np.errstate(over="ignore"):  # log Z = inf past the float range: refused by kaufman_log_partition
        log_z[low] = 2.0 * m * n * K[low]
    d1[low], d2[low] = 2.0 * m * n, 0.0
    for i in np.flatnonzero(high):
        log_z[i], d1[i], d2[i] = _kaufman_decimal(m, n, float(K[i]))
    return log_z, d1, d2


def _coupling_over_T(J, T):
    """``K = J / T``; inf where it overflows (a subnormal T), which is the T -> 0 limit."""
    with np.errstate(over="ignore"):
        return J / T


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

    Raises
    ------
    ValueError
        If ``log Z`` is beyond the float range at some ``T`` (``2 N J / T >
        ~1.8e308``, e.g. ``T = 1e-308`` for a 4 x 4 torus), as
        :func:`~bmlib.log_partition` refuses it; the energy and specific heat
        per spin remain available there.

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
    temperature; below ``T = 2**-1000 J`` it is the ground-state limit
    ``2 N J / T`` (plus ``log 2``, lost to rounding there).

    Examples
    --------
    >>> import bmlib as bm
    >>> round(bm.kaufman_log_partition(4, T=2.0), 10)   # the 4 x 4 torus
    17.1053671187
    >>> round(bm.kaufman_log_partition(64, 64, T=3.0) / 64**2, 12)  # = -f / T of the infinite lattice
    0.815882731858
    """
    rows, cols, T, J, shape = _check_torus(rows, cols, T, J)
    log_z = _kaufman_any(rows, cols, _coupling_over_T(J, T))[0]
    if not np.all(np.isfinite(log_z)):
        # As log_partition: the number asked for is itself beyond the float range.
        k = int(np.flatnonzero(~np.isfinite(log_z))[0])
        where = "T" if shape is None else f"T[{', '.join(map(str, np.unravel_index(k, shape)))}]"
        raise ValueError(
            f"kaufman_log_partition: log Z is beyond the float range (about 1.8e308) at {where} = {float(T[k])!r} "
            f"(log Z = 2 N J / T + log 2 there, with N = {rows * cols} spins and J = {J!r}). The energy and the "
            "specific heat per spin are still available (kaufman_energy_per_spin, kaufman_specific_heat_per_spin), "
            "or rescale J and T by a common factor."
        )
    return _give_back(log_z, shape)


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
    per temperature (0.3 s for a 64 x 64 torus at ``T = 1e300``). Below
    ``T = 2**-1000 J`` it is the ground state's ``-2 J`` (as it is to double
    precision from ``T = J / 5`` down), for every ``T > 0`` down to ``5e-324``.

    Examples
    --------
    >>> round(bm.kaufman_energy_per_spin(4, 4, T=1.0), 8)  # nearly the ground state, -2 J
    -1.99715844
    """
    rows, cols, T, J, shape = _check_torus(rows, cols, T, J)
    return _give_back(-J * _kaufman_any(rows, cols, _coupling_over_T(J, T))[1] / (rows * cols), shape)


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
    underflows (``T > 1e154 J``, where 0.0 is returned). Far below ``T_c``
    it is exponentially small and 0.0 to double precision, down to ``T = 5e-324``.

    Examples
    --------
    >>> bm.kaufman_specific_heat_per_spin(4, 4, T=[1.0, 2.0, 3.0]).round(6)
    array([0.023409, 0.605533, 0.603135])
    """
    rows, cols, T, J, shape = _check_torus(rows, cols, T, J)
    K = _coupling_over_T(J, T)
    d2 = _kaufman_any(rows, cols, K)[2]
    # Far below T_c the curvature d2 underflows to exactly 0 while K**2 may overflow:
    # the specific heat is then 0 to double precision, not 0 * inf = NaN.
    with np.errstate(over="ignore", invalid="ignore"):
        c = np.where(d2 == 0.0, 0.0, K**2 * d2 / (rows * cols))
    return _give_back(c, shape)
