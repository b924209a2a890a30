"""One way to make randomness: every stochastic function takes ``rng=None`` last."""
from __future__ import annotations

import numbers

import numpy as np


def as_generator(rng=None):
    """Return a :class:`numpy.random.Generator` for ``rng``.

    ``None`` gives a fresh, unseeded generator; an int seeds a new one; a
    ``Generator`` is returned as it is (so a caller can share one stream).

    Examples
    --------
    >>> from bmlib._random import as_generator
    >>> g = as_generator(7)
    >>> as_generator(g) is g
    True
    """
    if rng is None or isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        if rng is not None and rng < 0:
            raise ValueError(f"rng must be None, a non-negative int seed or a numpy Generator; got {rng}")
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.Generator):
        return rng
    raise TypeError(
        f"rng must be None, a non-negative int seed or a numpy.random.Generator; got {type(rng).__name__}"
    )
