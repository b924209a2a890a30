"""Shared test set-up: a headless plotting backend and small random models."""
import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402


def random_model(n, rng, scale=1.0):
    """A random symmetric W with zero diagonal and a random b (both Gaussian)."""
    A = rng.normal(scale=scale, size=(n, n))
    W = np.triu(A, 1)
    return W + W.T, rng.normal(scale=scale, size=n)


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)
