"""Goodness of fit of counts that are not states (energy levels, say), for the statistical tests.

States are tested with the public ``bm.chi_square_test``; histograms of other
things with the same Pearson test (``pearson_test``), whose p-value
tests/test_goodness.py checks against published chi-square tables.
"""
from bmlib.sampling.goodness import pearson_test


def chi_square_pvalue(counts, probabilities, min_expected=5.0):
    """p-value of Pearson's chi-square test that ``counts`` were drawn from ``probabilities``."""
    return pearson_test(counts, probabilities, min_expected)[2]
