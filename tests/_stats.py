"""Goodness-of-fit helpers for the statistical tests (no SciPy needed).

Pearson's chi-square test of observed counts against exact probabilities,
with cells whose expected count is below 5 pooled into one, and its p-value
from the regularized upper incomplete gamma function.
"""
import math

import numpy as np


def chi2_sf(x, df):
    """P(X >= x) for X ~ chi-square(df): Q(df/2, x/2), by series or continued fraction."""
    a, z = 0.5 * df, 0.5 * x
    if z <= 0:
        return 1.0
    log_prefactor = a * math.log(z) - z - math.lgamma(a)
    if z < a + 1:  # series for the lower function P, then Q = 1 - P
        term = total = 1.0 / a
        k = a
        while abs(term) > 1e-16 * abs(total):
            k += 1
            term *= z / k
            total += term
        return max(0.0, 1.0 - math.exp(log_prefactor) * total)
    # Lentz's continued fraction for Q
    tiny = 1e-300
    b = z + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(log_prefactor) * h


def chi_square_pvalue(counts, probabilities, min_expected=5.0):
    """p-value of Pearson's chi-square test that ``counts`` were drawn from ``probabilities``."""
    counts = np.asarray(counts, dtype=float)
    expected = counts.sum() * np.asarray(probabilities, dtype=float)
    small = expected < min_expected
    observed_cells = list(counts[~small])
    expected_cells = list(expected[~small])
    if small.any():
        observed_cells.append(counts[small].sum())
        expected_cells.append(expected[small].sum())
    observed_cells, expected_cells = np.array(observed_cells), np.array(expected_cells)
    keep = expected_cells > 0
    if np.any(observed_cells[~keep] > 0):
        return 0.0  # a state of probability zero was observed
    stat = float(np.sum((observed_cells[keep] - expected_cells[keep]) ** 2 / expected_cells[keep]))
    return chi2_sf(stat, int(keep.sum()) - 1)


def state_codes(states):
    """Row index in ``bm.all_states`` order of each state: shape (..., n) -> (...).

    The digit of a unit is 1 where it is +1 (spins) or 1 (bits), unit 0 most significant.
    """
    states = np.asarray(states)
    digits = (states == 1).astype(np.int64)
    return digits @ (1 << np.arange(states.shape[-1] - 1, -1, -1))
