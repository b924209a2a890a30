"""Goodness of fit: are these samples drawn from that exact distribution?

Pearson's chi-square test compares the counts of each state among the
samples with the counts an exact distribution (from
:func:`~bmlib.boltzmann_distribution`, say) predicts. States whose expected
count is below 5 are pooled into one cell, where the chi-square
approximation would otherwise fail. The p-value is the upper tail of the
chi-square distribution, computed here without SciPy (the regularized
incomplete gamma function by its series or continued fraction).

Samples of a Markov chain are correlated, which the test does not know:
thin them by several autocorrelation times, or take one sample from each of
many independent chains, before testing.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._checks import _as_real_array, _check_finite, check_real
from ..models.states import checked_state_index as _state_index


class ChiSquareResult(NamedTuple):
    """Result of :func:`chi_square_test`."""

    statistic: float
    """Pearson's ``sum (observed - expected)**2 / expected`` over the cells."""
    dof: int
    """Degrees of freedom: the number of cells after pooling, minus 1."""
    p_value: float
    """Probability of a statistic at least this large if the samples come from ``p``."""
    n_samples: int


def chi_square_test(samples, p, *, min_expected=5.0):
    """Pearson's chi-square test of sampled states against exact probabilities.

    Parameters
    ----------
    samples : array_like of shape (..., n)
        States (spins or bits); every leading axis is pooled (e.g. the
        ``(n_samples, n_chains, n)`` of a :class:`~bmlib.SampleResult`).
    p : array_like of shape (2**n,)
        Exact probabilities in :func:`~bmlib.all_states` order, summing to 1.
    min_expected : float
        Cells expected fewer times than this are pooled into one, > 0.

    Returns
    -------
    ChiSquareResult
        ``statistic``, ``dof``, ``p_value`` and ``n_samples``. A state of
        probability zero that was observed gives ``p_value = 0``.

    Notes
    -----
    The samples must be independent (see the module docstring). Explained in the chapter
    "Sampling: heat bath and Metropolis".

    Examples
    --------
    Independent draws from the exact distribution of a small model pass:

    >>> import numpy as np
    >>> import bmlib as bm
    >>> W = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> p = bm.boltzmann_distribution(W, T=1.0)
    >>> draws = bm.all_states(2)[np.random.default_rng(0).choice(4, size=2000, p=p)]
    >>> bm.chi_square_test(draws, p).p_value > 0.01
    True
    >>> bm.chi_square_test(draws, np.full(4, 0.25)).p_value < 1e-10
    True
    """
    probabilities = _as_real_array(p, "p")
    _check_finite(probabilities, "p")
    if probabilities.ndim != 1 or probabilities.size < 2 or probabilities.size & (probabilities.size - 1):
        raise ValueError(f"p must have shape (2**n,) with n >= 1; got shape {probabilities.shape}")
    if np.any(probabilities < 0) or not math.isclose(probabilities.sum(), 1.0, abs_tol=1e-9):
        raise ValueError(f"p must be non-negative and sum to 1; its sum is {probabilities.sum()!r}")
    n = probabilities.size.bit_length() - 1
    if np.shape(samples)[-1:] != (n,):
        raise ValueError(f"samples must have shape (..., {n}) to match p of size 2**{n}; got {np.shape(samples)}")
    min_expected = check_real(min_expected, "min_expected", positive=True)
    index = np.ravel(_state_index(samples, None, "samples"))
    if index.size == 0:
        raise ValueError("samples must hold at least one state; got none")
    counts = np.bincount(index, minlength=probabilities.size)
    return ChiSquareResult(*pearson_test(counts, probabilities, min_expected), int(index.size))


def pearson_test(counts, probabilities, min_expected=5.0):
    """Pearson's test of any histogram: ``(statistic, dof, p_value)``.

    ``counts`` (k,) observed, ``probabilities`` (k,) summing to 1; cells
    expected fewer than ``min_expected`` times are pooled into one. An
    observation in a cell of probability zero gives ``p_value = 0``.
    """
    counts = np.asarray(counts, dtype=float)
    probabilities = np.asarray(probabilities, dtype=float)
    if np.any(counts[probabilities <= 0] > 0):
        return math.inf, 0, 0.0
    expected = counts.sum() * probabilities
    small = expected < min_expected
    observed_cells = np.append(counts[~small], counts[small].sum())
    expected_cells = np.append(expected[~small], expected[small].sum())
    keep = expected_cells > 0
    statistic = float(np.sum((observed_cells[keep] - expected_cells[keep]) ** 2 / expected_cells[keep]))
    dof = int(keep.sum()) - 1
    return statistic, dof, chi_square_survival(statistic, dof) if dof > 0 else 1.0


def chi_square_survival(x, dof):
    """``P(X >= x)`` for ``X`` chi-square distributed with ``dof`` degrees of freedom.

    The regularized upper incomplete gamma function ``Q(dof/2, x/2)``: by its
    power series where ``x/2 < dof/2 + 1``, else by Lentz's continued
    fraction; relative accuracy about 1e-14.

    Examples
    --------
    >>> from bmlib.sampling.goodness import chi_square_survival
    >>> round(chi_square_survival(3.841458820694124, 1), 6)   # the 5% point of chi-square(1)
    0.05
    """
    a, z = 0.5 * dof, 0.5 * float(x)
    if z <= 0:
        return 1.0
    log_prefactor = a * math.log(z) - z - math.lgamma(a)
    if z < a + 1:  # series for the lower function P; Q = 1 - P
        term = total = 1.0 / a
        k = a
        while abs(term) > 1e-16 * abs(total):
            k += 1
            term *= z / k
            total += term
        return max(0.0, 1.0 - math.exp(log_prefactor) * total)
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
