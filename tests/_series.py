"""Series with a known answer, for the tests of error bars and convergence diagnostics.

An AR(1) series ``x_t = phi x_{t-1} + e_t`` (unit normal noise, stationary
start) has autocorrelation ``phi**t``, integrated time ``(1 + phi) / (1 - phi)``
and, for its mean, the exact standard error below.
"""
import math

import numpy as np


def ar1(phi, n, chains, rng):
    """``chains`` independent stationary AR(1) series of length ``n``, shape (n, chains)."""
    x = np.empty((n, chains))
    x[0] = rng.normal(size=chains) / math.sqrt(1 - phi**2)  # stationary start
    noise = rng.normal(size=(n, chains))
    for t in range(1, n):
        x[t] = phi * x[t - 1] + noise[t]
    return x


def ar1_standard_error(phi, n, chains):
    """Exact standard error of the mean of `chains` independent stationary AR(1) series of length n."""
    t = np.arange(1, n)
    factor = 1 + 2 * np.sum((1 - t / n) * phi**t)
    return math.sqrt(factor / (1 - phi**2) / n / chains)
