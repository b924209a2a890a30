"""How far to trust an average over Markov chains: autocorrelation time, error bars, convergence.

Successive states of a chain are correlated, so ``N`` samples carry less
information than ``N`` independent draws. For a series ``x_t`` with
normalized autocorrelation ``rho(t)``, the *integrated autocorrelation time*

    tau = 1 + 2 sum_{t >= 1} rho(t)

is the number of samples that count as one independent draw: the variance
of the average of ``N`` samples is ``Var(x) tau / N``.

==========================  ===================================================
autocorrelation_time        tau, from the autocorrelation function with Sokal's
                            automatic window
blocking_error              standard error of the mean by Flyvbjerg-Petersen
                            blocking, with the block size chosen by Jonsson's
                            (2018) automated test; per chain, then combined
                            with the spread between the chains
estimate                    mean, its standard error, tau, R-hat and the bulk
                            effective sample size, in one call; warns
                            (:class:`ConvergenceWarning`) when they say the
                            error bar cannot be trusted
==========================  ===================================================

Input of shape ``(n_samples,)`` is one chain; ``(n_samples, n_chains)`` is
several independent chains of the same length (as in
:attr:`SampleResult.energies <bmlib.SampleResult>`).

**The error bar of several chains.** Chains that have not mixed (each stuck
near its own mode, say +m0 and -m0 of a magnet below T_c) look fine one by
one: each is a long, well-behaved series around its own mean. Only the
spread *between* the chains shows that the overall mean is uncertain. So
the error of ``m`` chains is the larger of

(a) the within-chain error: blocking applied to each chain on its own,
    combined as ``sqrt(sum_j err_j**2) / m`` (the chains are independent);
(b) the between-chain error: ``std(chain means, ddof=1) / sqrt(m)``, which
    needs no model of the correlations at all.

For chains that mix, both estimate the same standard error (b is noisier,
with ``m - 1`` degrees of freedom), so the larger one is a little above it:
on 4 AR(1) chains it is ~9% high on average and covers the exact mean
within 2 error bars in ~97% of runs (tests/test_convergence.py). For chains
that do not mix, (b) is the only one that sees the problem, and it is
roughly the right size as long as the chains sample the modes in
proportion. Stan's alternative, ``sd / sqrt(ESS)`` with the multi-chain
autocorrelation, behaves similarly; blocking is kept because it is what
this book teaches and it needs no truncation rule for the correlation sum.

**Scale.** Every result is computed on ``x / max|x|`` and scaled back, so
data near the ends of the float range (1e300, 1e-300) give the same
answers, scaled, as data near 1. **Memory** is checked before any work
(:data:`bmlib.MEMORY_BUDGET`).

Explained in the chapter "Sampling: heat bath and Metropolis".

Shared inside bmlib (documented internal names, not in the flat namespace and
not part of the 1.x promise): :func:`checked_series`, a series checked and shaped
(n_samples, n_chains) with errors naming the caller's argument, and
:func:`pooled_autocorrelation`, ``rho(t)`` of checked chains (the autocorrelation figure).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from .._checks import (
    _as_real_array,
    _check_finite,
    check_bool,
    check_integer,
    check_memory,
    check_real,
)

from .convergence import _acov_sum, _convergence, _fft_size, _problems, _warn

_FLOAT = 8  # bytes of a float64


def checked_series(x, name="x", minimum=2, budget=None):
    """``x`` as a float array of shape (n_samples, n_chains), checked (shared inside bmlib).

    ``budget(n, m)`` returns ``(bytes, what)`` of the work to come; it is
    checked against the memory budget before x is even converted to floats.
    """
    try:
        shape = np.shape(x)
    except Exception:  # ragged lists and the like: let the usual conversion say why
        shape = _as_real_array(x, name).shape
    if len(shape) not in (1, 2) or shape[0] < minimum or (len(shape) == 2 and shape[1] == 0):
        raise ValueError(
            f"{name} must have shape (n_samples,) or (n_samples, n_chains) with n_samples >= {minimum} "
            f"and n_chains >= 1; got shape {shape}"
        )
    if budget is not None:
        n, m = shape[0], shape[1] if len(shape) == 2 else 1
        nbytes, what = budget(n, m)
        check_memory(nbytes, f"{what} of {name} of shape {tuple(shape)} ({n} samples x {m} chains)")
    x = _as_real_array(x, name)
    _check_finite(x, name)
    return x.reshape(x.shape[0], -1)


def _fft_bytes(n, m):
    """Peak bytes of an autocorrelation of (n, m) samples: the float copy and the scaled copy of
    the input, and per chain one padded FFT (the centred column, its spectrum, the power spectrum,
    the inverse transform and pocketfft's own padded copy). Measured with tracemalloc, rounded up.
    """
    return _FLOAT * (3 * n * m + 2 * n + 8 * _fft_size(n))


def _blocking_bytes(n, m):
    """Peak bytes of blocking (n, m) samples: the two copies of the input and a few of one chain."""
    return _FLOAT * (3 * n * m + 4 * n)


def _workspace_bytes(n, m):
    """Peak bytes of :func:`estimate` on (n, m) samples (checked against MEMORY_BUDGET first).

    The copies of the input, the rank-normalization of all ``S = n m`` draws
    twice (sorting, ranks, inverse indices, the scores: ~20 arrays of S in
    all, measured with tracemalloc and rounded up), and the FFTs.
    """
    return _FLOAT * 20 * n * m + _fft_bytes(n, m)


def _scaled(x):
    """``(x / s, s)`` with ``s = max|x|`` (1 for all-zero x): every result is computed on the scaled copy."""
    s = float(np.max(np.abs(x)))
    s = s if s > 0 else 1.0
    return x / s, s


def pooled_autocorrelation(x):
    """Normalized autocorrelation rho(t), t = 0 .. n-1, pooled over the chains of x (n, m) (shared inside bmlib)."""
    acov = _acov_sum(_scaled(x)[0])
    return acov / acov[0] if acov[0] > 0 else np.full(acov.size, np.nan)


def autocorrelation(x, max_lag=None):
    """Normalized autocorrelation function ``rho(t)`` of a series, pooled over chains.

    ``rho(t) = C(t) / C(0)`` with ``C(t)`` the autocovariance at lag ``t``
    (deviations from each chain's own mean, summed over the ``n - t`` pairs
    and over chains, divided by the same ``n`` at every lag: the usual
    estimator, which keeps ``rho`` a positive-definite sequence).

    Parameters
    ----------
    x : array_like of shape (n_samples,) or (n_samples, n_chains)
        ``n_samples >= 2``.
    max_lag : int, optional
        Largest lag returned, ``0 <= max_lag < n_samples`` (default: all).

    Returns
    -------
    rho : ndarray of shape (max_lag + 1,)
        ``rho[0] = 1``; all NaN if ``x`` is constant.

    Raises
    ------
    ValueError
        If the padded FFT would need more than :data:`bmlib.MEMORY_BUDGET`
        bytes (checked before any work).

    Notes
    -----
    Computed by FFT in O(n log n), one chain at a time, on ``x / max|x|``
    (so any scale of ``x`` is fine). :func:`autocorrelation_time` sums it.
    Explained in the chapter "Sampling: heat bath and Metropolis".

    Examples
    --------
    An AR(1) series ``x_t = 0.8 x_{t-1} + noise`` has ``rho(t) = 0.8**t``:

    >>> import numpy as np
    >>> import bmlib as bm
    >>> rng = np.random.default_rng(0)
    >>> x = np.zeros(100_000)
    >>> for t in range(1, x.size):
    ...     x[t] = 0.8 * x[t - 1] + rng.normal()
    >>> bm.autocorrelation(x, max_lag=3).round(2)
    array([1.  , 0.8 , 0.64, 0.51])
    """
    x = checked_series(x, budget=lambda n, m: (_fft_bytes(n, m), "the autocorrelation by FFT"))
    n = x.shape[0]
    max_lag = n - 1 if max_lag is None else check_integer(max_lag, "max_lag", minimum=0, maximum=n - 1)
    return pooled_autocorrelation(x)[: max_lag + 1]


def autocorrelation_time(x, window=5.0):
    """Integrated autocorrelation time ``tau = 1 + 2 sum_t rho(t)`` of a chain, in samples.

    Parameters
    ----------
    x : array_like of shape (n_samples,) or (n_samples, n_chains)
        A series per chain (e.g. the energies of a :class:`~bmlib.SampleResult`).
    window : float
        Sokal's constant ``c``: the sum runs up to the smallest lag ``M`` with
        ``M >= c tau(M)``. Larger is less biased and noisier; 5 is customary.

    Returns
    -------
    float
        ``tau >= 0`` in units of the spacing of ``x`` (1 for independent
        samples); NaN if ``x`` is constant.

    Raises
    ------
    ValueError
        If the FFT would need more than :data:`bmlib.MEMORY_BUDGET` bytes
        (checked before any work).

    Notes
    -----
    The autocovariance is computed by FFT in each chain around the chain's
    own mean and summed over chains before normalizing. Reliable when the
    chains are much longer than ``tau`` (50 ``tau`` or more); shorter chains
    underestimate it, and chains stuck in different modes are not seen at
    all (each looks fine around its own mean): see R-hat in :func:`estimate`.
    Explained in the chapter "Sampling: heat bath and Metropolis".

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = np.zeros((20_000, 4))
    >>> for t in range(1, 20_000):  # AR(1) with phi = 0.8: tau = (1 + phi) / (1 - phi) = 9
    ...     x[t] = 0.8 * x[t - 1] + rng.normal(size=4)
    >>> round(bm.autocorrelation_time(x))
    9
    """
    window = check_real(window, "window", positive=True)
    x = checked_series(x, budget=lambda n, m: (_fft_bytes(n, m), "the autocorrelation time by FFT"))
    return _tau(pooled_autocorrelation(x), window)


def _tau(rho, window=5.0):
    """Sokal's windowed sum of rho (NaN for a constant series)."""
    if np.isnan(rho[0]):
        return math.nan
    taus = 2.0 * np.cumsum(rho) - 1.0  # taus[M] = 1 + 2 sum_{t=1..M} rho(t)
    lags = np.arange(taus.size)
    inside = lags >= window * taus
    M = int(np.argmax(inside)) if inside.any() else taus.size - 1
    return float(taus[M])


def _chi2_quantile_99(df):
    """99% quantile of chi-square with ``df`` degrees of freedom (Wilson-Hilferty, ~1% accurate)."""
    z = 2.3263478740408408  # 99% quantile of the standard normal
    a = 2.0 / (9.0 * df)
    return df * (1.0 - a + z * math.sqrt(a)) ** 3


def _blocking_1d(y):
    """Blocking of one chain y (already scaled): (naive error at every level, the chosen level)."""
    variances, n_blocks, stats = [], [], []
    while y.size >= 2:
        n = y.size
        d = y - y.mean()
        var = float(np.mean(d**2))
        gamma = float(np.sum(d[:-1] * d[1:]) / n)  # lag-1 autocovariance
        variances.append(var)
        n_blocks.append(n)
        stats.append(n * (gamma / var) ** 2 if var > 0 else 0.0)
        y = 0.5 * (y[: n - n % 2 : 2] + y[1 : n - n % 2 : 2])
    # var / (n - 1): the unbiased variance of n block means, divided by n.
    levels = np.sqrt(np.array(variances) / (np.array(n_blocks) - 1))
    d = len(stats)
    tail = np.cumsum(stats[::-1])[::-1]  # M_j = sum over levels k >= j
    passed = next((j for j in range(d) if tail[j] < _chi2_quantile_99(d - j)), d - 1)
    return levels, min(passed + 1, d - 1)


def _blocking(y):
    """(error, combined levels) of scaled chains y (n, m): max of within- and between-chain errors."""
    m = y.shape[1]
    per_chain = [_blocking_1d(column) for column in y.T]
    levels = np.sqrt(sum(lv**2 for lv, _ in per_chain)) / m
    within = math.sqrt(sum(float(lv[k]) ** 2 for lv, k in per_chain)) / m
    between = float(y.mean(axis=0).std(ddof=1)) / math.sqrt(m) if m > 1 else 0.0
    return max(within, between), levels


def blocking_error(x, return_levels=False):
    """Standard error of the mean of correlated chains, by blocking (Flyvbjerg & Petersen 1989).

    One chain is repeatedly halved by averaging neighbouring pairs. Once
    blocks are much longer than the correlation time, the block means are
    independent and ``var(block means) / n_blocks`` is the variance of the
    mean. The level is chosen automatically: one level beyond the first that
    passes Jonsson's (2018) test (the remaining lag-1 autocorrelations of
    block means consistent with zero, chi-square at 1%). The extra level
    doubles the block length, which halves the underestimate left by
    residual correlation (on AR(1) with tau = 19 it moves the error bar from
    93% to 97% of the exact one) at the cost of a slightly noisier error bar.

    With several chains, each chain is blocked on its own and the errors are
    combined as ``sqrt(sum_j err_j**2) / m`` (the within-chain error); the
    result is the larger of that and the between-chain error
    ``std(chain means, ddof=1) / sqrt(m)``, which is the only one that sees
    chains stuck in different modes (see the module docstring). This is
    the ``error`` of :func:`estimate`.

    Parameters
    ----------
    x : array_like of shape (n_samples,) or (n_samples, n_chains)
        ``n_samples >= 2``. Chains are assumed independent.
    return_levels : bool
        Also return the (within-chain) error estimate at every blocking level.

    Returns
    -------
    error : float
        Estimated standard error of ``x.mean()`` (0 for a constant series).
    levels : ndarray of shape (n_levels,)
        Only if ``return_levels``: the naive error at blocking level k
        (blocks of ``2**k`` samples), combined over chains as above; it
        rises to a plateau at the within-chain answer.

    Raises
    ------
    ValueError
        If the work would need more than :data:`bmlib.MEMORY_BUDGET` bytes.

    Notes
    -----
    When the chosen level is the last one, the series was too short for
    blocks to decorrelate and the error is an underestimate; a series of
    at least a few hundred autocorrelation times avoids this. An odd sample
    at the end of a level is dropped (Jonsson's test assumes a power of 2).
    Computed on ``x / max|x|`` and scaled back, so any scale is fine.
    Explained in the chapter "Sampling: heat bath and Metropolis".

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(4096, 4))   # independent: error = 1 / sqrt(16384)
    >>> round(float(bm.blocking_error(x) * np.sqrt(x.size)), 1)
    1.0
    """
    return_levels = check_bool(return_levels, "return_levels")
    x = checked_series(x, budget=lambda n, m: (_blocking_bytes(n, m), "blocking"))
    y, s = _scaled(x)
    error, levels = _blocking(y)
    return (error * s, levels * s) if return_levels else error * s


def _show_number(value, error):
    """``value +/- error`` to the precision of the error (both in e-notation when huge or tiny)."""
    if not (math.isfinite(value) and math.isfinite(error)):
        return f"{value} +/- {error}"
    if error > 0:
        exponent = math.floor(math.log10(error))
        if abs(value) < 1e15 and exponent > -15:
            digits = max(1, 1 - exponent)
            return f"{value:.{digits}f} +/- {error:.{digits}f}"
        lead = math.floor(math.log10(abs(value))) if value != 0 else exponent
        return f"{value:.{max(1, lead - exponent + 1)}e} +/- {error:.1e}"
    if abs(value) >= 1e15 or 0 < abs(value) < 1e-4:
        return f"{value:.4e} +/- {error:.4f}"
    return f"{value:.4f} +/- {error:.4f}"


@dataclasses.dataclass(frozen=True)
class Estimate:
    """A Monte Carlo average with its error bar and convergence diagnostics.

    It unpacks, indexes and prints as the 3-tuple ``(value, error, tau)``
    (``value, error, tau = est``; ``est[0]``; ``Estimate(value, error, tau)``),
    with ``r_hat`` and ``ess`` as further named fields (NaN when not given).

    Attributes
    ----------
    value : float or ndarray
        The average.
    error : float or ndarray
        Its standard error (see :func:`blocking_error`: the larger of the
        within-chain blocking error and the between-chain one).
    tau : float or ndarray
        Integrated autocorrelation time of the series, in samples.
    r_hat : float or ndarray
        Rank-normalized split-R-hat (Vehtari et al. 2021; the larger of bulk
        and folded): 1 when the chains agree; above 1.01 they have not mixed.
        NaN for fewer than 4 samples per chain.
    ess : float or ndarray
        Bulk effective sample size (of the rank-normalized split chains):
        how many independent draws the samples are worth for the mean.
        NaN for fewer than 8 samples per chain.

    Examples
    --------
    >>> import bmlib as bm
    >>> est = bm.Estimate(-1.23456, 0.0123, 2.0)
    >>> value, error, tau = est
    >>> print(est, est[2], est.r_hat)
    -1.235 +/- 0.012 2.0 nan
    """

    value: float
    error: float
    tau: float
    r_hat: float = math.nan
    ess: float = math.nan

    # The first three fields behave as the NamedTuple this class used to be.
    _fields = ("value", "error", "tau")

    def __iter__(self):
        return iter((self.value, self.error, self.tau))

    def __getitem__(self, index):
        return (self.value, self.error, self.tau)[index]

    def __len__(self):
        return 3

    def __str__(self):
        if np.ndim(self.value):
            return f"{np.round(self.value, 4)} +/- {np.round(self.error, 4)}"
        return _show_number(float(self.value), float(self.error))


def _estimate(x):
    """Estimate of checked x (n, m), without warning (callers gather the problems)."""
    with np.errstate(over="ignore"):
        value = float(x.mean())
    y, s = _scaled(x)
    if not math.isfinite(value):
        value = float(y.mean()) * s
    error = _blocking(y)[0] * s
    tau = _tau(pooled_autocorrelation(y))
    r_hat, ess = _convergence(y)
    return Estimate(value, error, tau, r_hat, ess)


def estimate(x):
    """Mean of Monte Carlo chains with its standard error, autocorrelation time, R-hat and ESS.

    Parameters
    ----------
    x : array_like of shape (n_samples,) or (n_samples, n_chains)
        ``n_samples >= 2``; independent chains of equal length.

    Returns
    -------
    Estimate
        ``value`` (the mean over samples and chains), ``error``
        (:func:`blocking_error`: per-chain blocking, or the spread between
        the chains if larger), ``tau`` (:func:`autocorrelation_time`),
        ``r_hat`` (rank-normalized split-R-hat) and ``ess`` (bulk effective
        sample size); see the module docstring. Unpacks as ``value, error, tau``.

    Raises
    ------
    ValueError
        If ``x`` is not such an array of finite numbers, or the work would
        need more than :data:`bmlib.MEMORY_BUDGET` bytes (checked first).

    Warns
    -----
    ConvergenceWarning
        If R-hat > 1.01 or the bulk-ESS is below 100 per chain (Vehtari et
        al. 2021's recommendations for trusting the draws and their Monte
        Carlo error), or the chains are too short to assess.

    Examples
    --------
    >>> import numpy as np
    >>> import bmlib as bm
    >>> result = bm.sample([[0, 1], [1, 0]], T=1.0, n_samples=4000, n_chains=4, rng=0)
    >>> e = bm.estimate(result.energies)
    >>> print(e, "exact:", round(-np.tanh(1.0), 3))
    -0.7598 +/- 0.0088 exact: -0.762
    >>> round(e.r_hat, 3), round(e.ess)
    (1.0, 15766)

    Here the 4 chain means happen to spread more than their within-chain
    errors (0.0052 combined) suggest, so the between-chain error 0.0088 is
    the one given.
    """
    x = checked_series(x, budget=lambda n, m: (_workspace_bytes(n, m), "the error bar and convergence diagnostics"))
    est = _estimate(x)
    problems = _problems(est, x.shape[1])
    if problems:
        _warn(f"estimate of {x.shape[1]} chains of {x.shape[0]} samples: {' and '.join(problems)}")
    return est
