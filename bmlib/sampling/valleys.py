"""Two mirror valleys: which one a chain is in, and when it crosses between them.

A model without biases gives a state ``s`` and its mirror image ``-s`` the
same energy, so its distribution has two halves of equal weight. A ground
state ``g`` splits the states into those closer to ``g`` than to ``-g``
(overlap ``s . g > 0``) and those closer to ``-g``. The exact share of the
``g`` side is one half (less the states of overlap 0, which belong to
neither), and a sampler that reports a share far from it has not crossed
the barrier between the valleys often enough. Counting the crossings says
how often it did: a single chain at low temperature crosses a handful of
times, tempering hundreds (the chapter "Beyond single flips").
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._checks import as_numeric_array, check_state_batch
from ..models.states import to_spins


class ValleyCrossings(NamedTuple):
    """Result of :func:`valley_crossings`."""

    valleys: np.ndarray
    """Valley of each sample, shape (n_samples,): +1 closer to ``ground``, -1 closer to its mirror,
    0 for a tie (overlap 0)."""
    share: float
    """Fraction of all samples in ``ground``'s valley (ties count as not on it)."""
    crossings: np.ndarray
    """Sample numbers, counted from 1, of the first sample on a new side, shape (n_crossings,); with
    one sample per sweep and no burn-in, the sweeps after which the chain was found on the other side.
    Ties are skipped, so a chain that passes through overlap 0 and returns has not crossed."""


def valley_crossings(samples, ground):
    """Share of samples in a ground state's valley, and the crossings to its mirror valley.

    Parameters
    ----------
    samples : array_like of shape (n_samples, n)
        Successive states of one chain (spins or bits), e.g. ``run.samples[:, 0]`` of a
        :class:`~bmlib.SampleResult` or of a :class:`~bmlib.TemperingResult` (the lowest rung).
    ground : array_like of shape (n,)
        The state that marks one valley, usually a ground state; its mirror image marks the
        other. Spins or bits, like ``samples``; both are compared as spins.

    Returns
    -------
    ValleyCrossings
        ``valleys`` (shape (n_samples,)), ``share`` and ``crossings``: sample ``k`` (from 1)
        is in ``crossings`` when it is on a side and the last sample before it that was on a
        side was on the other one.

    Notes
    -----
    The overlap ``s . g`` of spins decides the side. With ``n`` even a state can have
    overlap 0 and is then on neither side; such samples count against the share and
    are skipped when crossings are counted. Explained in the chapter "Beyond single flips".

    Examples
    --------
    >>> import numpy as np
    >>> import bmlib as bm
    >>> g = np.array([1, 1, 1])
    >>> chain = [[1, 1, 1], [1, 1, -1], [-1, -1, 1], [-1, -1, -1], [1, 1, -1]]
    >>> result = bm.valley_crossings(chain, g)
    >>> result.valleys
    array([ 1,  1, -1, -1,  1])
    >>> result.share
    0.6
    >>> result.crossings
    array([3, 5])
    """
    ground_array = as_numeric_array(ground, "ground")
    if ground_array.ndim != 1 or ground_array.size == 0:
        raise ValueError(f"ground must be one state, shape (n,) with n >= 1; got shape {ground_array.shape}")
    n = ground_array.shape[0]
    ground_array, ground_units = check_state_batch(ground_array, n, name="ground")
    states = as_numeric_array(samples, "samples")
    if states.ndim != 2 or states.shape[0] == 0:
        raise ValueError(
            f"samples must be the successive states of one chain, shape (n_samples, n) with n = {n} "
            f"and n_samples >= 1; got shape {states.shape}")
    if states.shape[1] != n:
        raise ValueError(
            f"samples and ground must have the same number of units: samples have shape {states.shape}, "
            f"ground has shape {ground_array.shape}")
    states, units = check_state_batch(states, n, name="samples")
    # Compare as spins whatever the units, so the overlap's sign means "closer to" (as floats:
    # an int8 product of spins would overflow past 127 units).
    g = (ground_array if ground_units == "spins" else to_spins(ground_array)).astype(float)
    s = (states if units == "spins" else to_spins(states)).astype(float)
    valleys = np.sign(s @ g).astype(int)
    decided = np.flatnonzero(valleys)
    side_seen = valleys[decided]
    changed = side_seen[1:] != side_seen[:-1]
    # Report the first sample (numbered from 1) found on the new side.
    crossings = decided[1:][changed] + 1
    return ValleyCrossings(valleys=valleys, share=float(np.mean(valleys > 0)), crossings=crossings)
