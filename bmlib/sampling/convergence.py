"""Have the chains converged? Rank-normalized split-R-hat and bulk effective sample size.

:func:`bmlib.estimate` (``diagnostics.py``) reports both with every average
and warns when they say its error bar cannot be trusted; this module
computes them, and words the warning.

**Convergence diagnostics** (Vehtari, Gelman, Simpson, Carpenter & Buerkner
2021, "Rank-normalization, folding, and localization: an improved R-hat for
assessing convergence of MCMC", Bayesian Analysis 16(2), 667-718):

* *R-hat*: each chain is split in halves (so that a trend within one chain
  counts as disagreement too; a single chain becomes two), the draws are
  replaced by the normal scores of their ranks over all chains
  (rank-normalization, robust to heavy tails), and
  ``R = sqrt(var_plus / W)`` with ``W`` the mean within-chain variance and
  ``var_plus = (n - 1)/n W + B/n``. The reported R-hat is the larger of that
  of the draws (bulk) and that of their distances from the median (folded,
  for the tails). It is 1 for chains that agree.
* *bulk-ESS*: the effective sample size of the rank-normalized split
  chains, ``S / tau`` with tau from the multi-chain autocorrelation (which
  includes the between-chain variance) summed by Geyer's initial monotone
  sequence.

The paper recommends using the samples only if R-hat < 1.01 and, for the
R-hat and the Monte Carlo error themselves to be reliable, bulk-ESS of at
least 100 per chain (400 for its recommended 4 chains). :func:`estimate`
warns with :class:`ConvergenceWarning` when R-hat > 1.01 or bulk-ESS < 100
per chain (100 for one chain): then the error bar it prints cannot be
trusted, even though it is the honest best guess.

Explained in the chapter "Sampling: heat bath and Metropolis".
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .._checks import ConvergenceWarning

#: Vehtari et al. (2021): use the draws only if R-hat is below this.
R_HAT_LIMIT = 1.01
#: Vehtari et al. (2021): bulk-ESS per chain needed for R-hat and the error bar to be reliable.
ESS_PER_CHAIN = 100


def _fft_size(n):
    """Length of the zero-padded FFT of n samples: a power of 2 >= 2n - 1 (linear, not circular)."""
    return 1 << (2 * n - 1).bit_length()


def _acov_sum(y):
    """``sum_j sum_i (y_ij - ybar_j)(y_{i+t},j - ybar_j)``, t = 0 .. n-1, for y of shape (n, m).

    One chain at a time, so the workspace is one padded FFT, not m of them.
    """
    n = y.shape[0]
    size = _fft_size(n)  # zero-padding to >= 2n turns the FFT's circular correlation into the linear one
    total = np.zeros(n)
    for column in y.T:
        spectrum = np.fft.rfft(column - column.mean(), n=size)
        power = spectrum.real**2 + spectrum.imag**2
        del spectrum
        total += np.fft.irfft(power, n=size)[:n]
    return total


# --- normal quantile (for rank-normalization) -------------------------------------------------

# Acklam's rational approximation of the normal quantile (relative error < 1.15e-9), see
# https://web.archive.org/web/20151030215612/http://home.online.no/~pjacklam/notes/invnorm/
_A = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02, 1.383577518672690e02,
      -3.066479806614716e01, 2.506628277459239e00)
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01,
      -1.328068155288572e01)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00, -2.549732539343734e00,
      4.374664141464968e00, 2.938163982698783e00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
_erfc = np.frompyfunc(math.erfc, 1, 1)


def _normal_quantile(p):
    """``Phi^-1(p)`` for p in (0, 1), elementwise, to ~1e-15 relative: Acklam, then one Halley step.

    The lower tail is computed for ``min(p, 1 - p)`` and mirrored (the
    quantile is odd about 1/2), so both tails have full relative accuracy.
    """
    p = np.asarray(p, dtype=float)
    q = np.minimum(p, 1.0 - p)  # exact for p > 1/2 (Sterbenz)
    x = np.empty_like(q)
    tail = q < 0.02425
    r = np.sqrt(-2.0 * np.log(q[tail]))
    x[tail] = ((((((_C[0] * r + _C[1]) * r + _C[2]) * r + _C[3]) * r + _C[4]) * r + _C[5])
               / ((((_D[0] * r + _D[1]) * r + _D[2]) * r + _D[3]) * r + 1.0))
    c = q[~tail] - 0.5
    r = c * c
    x[~tail] = ((((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]) * c
                / (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0))
    # One Halley step on Phi(x) - q = 0 with the exact Phi(x) = erfc(-x / sqrt 2) / 2 (x <= 0 here,
    # where erfc keeps its relative accuracy): the rational guess becomes exact to rounding.
    e = 0.5 * _erfc(-x / math.sqrt(2.0)).astype(float) - q
    u = e * math.sqrt(2.0 * math.pi) * np.exp(0.5 * x * x)
    x = x - u / (1.0 + 0.5 * x * u)
    return np.where(p > 0.5, -x, x)


def _rank_normalize(y):
    """Normal scores ``Phi^-1((r - 3/8) / (S + 1/4))`` of the average ranks r of all S draws of y."""
    values, inverse, counts = np.unique(y, return_inverse=True, return_counts=True)
    del values
    S = y.size
    ranks = np.cumsum(counts) - 0.5 * (counts - 1)  # mean position of each group of ties, 1-based
    scores = _normal_quantile((ranks - 0.375) / (S + 0.25))
    return scores[inverse.reshape(y.shape)]


def _split(y):
    """The first and last halves of each chain as chains of their own (an odd middle draw dropped)."""
    half = y.shape[0] // 2
    return np.concatenate([y[:half], y[y.shape[0] - half :]], axis=1)


def _r_hat(z):
    """``sqrt(var_plus / W)`` of chains z (n, m), n >= 2: 1 for a constant z, inf if only W is 0."""
    n = z.shape[0]
    within = float(z.var(axis=0, ddof=1).mean())
    between_over_n = float(z.mean(axis=0).var(ddof=1))  # B / n
    if within == 0:
        return 1.0 if between_over_n == 0 else math.inf
    return math.sqrt(((n - 1) / n * within + between_over_n) / within)


def _ess(z):
    """Multi-chain effective sample size of chains z (n, m), n >= 4 (Vehtari et al. 2021, eqs. 10-13).

    Geyer's initial monotone sequence on the pairs ``rho(2k) + rho(2k+1)``,
    exactly as Stan and ArviZ compute it; ``n m`` for a constant z (its mean is exact).
    """
    n, m = z.shape
    S = n * m
    acov = _acov_sum(z) / S  # mean over chains of each chain's (biased) autocovariance
    mean_var = acov[0] * n / (n - 1)  # W
    var_plus = acov[0] + (float(z.mean(axis=0).var(ddof=1)) if m > 1 else 0.0)
    if var_plus == 0:
        return float(S)
    rho = 1.0 - (mean_var - acov) / var_plus
    rho[0] = 1.0
    # Pairs Gamma_k = rho(2k) + rho(2k+1); Stan's loop looks at k = 1 .. k_max and stops at the
    # first K with Gamma_K <= 0 (or at k_max); pairs 0 .. K-1 enter, made non-increasing.
    k_max = (n - 3) // 2
    gamma = rho[0 : 2 * k_max + 2 : 2] + rho[1 : 2 * k_max + 2 : 2]
    if gamma[0] > 0:
        stops = np.flatnonzero(gamma[1:] <= 0)
        K = int(stops[0]) + 1 if stops.size else k_max
        even = rho[2 * K]
        last = even if even > 0 or gamma[K] >= 0 else 0.0  # the last even lag enters once
        tau = -1.0 + 2.0 * float(np.minimum.accumulate(gamma[:K]).sum()) + last
    else:
        tau = 0.0  # antithetic at lag 1: Stan's loop never starts; the floor below applies
    tau = max(float(tau), 1.0 / math.log10(S))
    return S / tau


def _convergence(y):
    """(R-hat, bulk-ESS) of scaled chains y (n, m); NaN for chains too short to split (n < 4)."""
    n = y.shape[0]
    if n < 4:
        return math.nan, math.nan
    bulk = _rank_normalize(_split(y))
    ess = _ess(bulk) if n >= 8 else math.nan
    r_bulk = _r_hat(bulk)
    del bulk
    folded = np.abs(y - np.median(y))
    r_tail = _r_hat(_rank_normalize(_split(folded)))
    return max(r_bulk, r_tail), ess


def _show_r_hat(r_hat):
    """R-hat to three decimals near 1 (so that 1.012 does not print as "1.01 > 1.01"), else 3 digits."""
    return f"{r_hat:.3f}" if r_hat < 10 else f"{r_hat:.3g}"


def _problems(est, n_chains):
    """Why the error bar of ``est`` cannot be trusted, in a few words each (empty if it can)."""
    problems = []
    if math.isnan(est.r_hat):
        problems.append("too few samples per chain (< 4) to judge")
    elif est.r_hat > R_HAT_LIMIT:
        problems.append(f"R-hat {_show_r_hat(est.r_hat)} > {R_HAT_LIMIT}")
    need = ESS_PER_CHAIN * n_chains
    if math.isfinite(est.ess) and est.ess < need:
        problems.append(f"bulk ESS {est.ess:.0f} < {need}")
    return problems


def _badness(est, n_chains):
    """A sort key: the larger, the less an error bar can be trusted (R-hat first, then too few ESS)."""
    r_hat = est.r_hat if math.isfinite(est.r_hat) else math.inf
    ess = est.ess if math.isfinite(est.ess) else 0.0
    return (max(r_hat, 1.0), -ess / (ESS_PER_CHAIN * n_chains))


def _warn(what, stacklevel=3):
    """One ConvergenceWarning: ``what`` says where and which checks failed; the rest says what it means."""
    warnings.warn(
        f"{what}: the error bars there cannot be trusted (R-hat above {R_HAT_LIMIT}: the chains disagree; "
        f"bulk ESS below {ESS_PER_CHAIN} per chain: too few effective samples). Run longer chains or a "
        "sampler that mixes better",
        ConvergenceWarning,
        stacklevel=stacklevel,
    )
