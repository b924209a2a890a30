"""Update schedules: in which order, and in which groups, the units are updated.

A *sweep* updates every free unit once (on average, for the random scan). A
schedule says how a sweep is cut into *groups*, each updated in one step:

============  ==============================================================
scan          groups of one sweep
============  ==============================================================
"sequential"  units 0, 1, ..., n-1, one at a time (the book's sequential dynamics)
"random"      n single units, each drawn uniformly, independently per chain
"colouring"   the colour classes of a proper colouring of the coupling graph
============  ==============================================================

Why a colour class may be updated at once: two units of the same colour are
not coupled, so neither one's local field depends on the other. Updating
them together draws each from exactly the conditional distribution it would
have in a one-at-a-time sweep in which they come one after the other. On a
square lattice the two colours of a checkerboard are such classes; for a
machine with visible and hidden layers and no connections inside a layer
the layers are. Colouring is thus an update schedule, not a different
sampler: every rule works unchanged.

Annealing schedules (``(T, n_sweeps)`` pairs) are checked by
:func:`bmlib._checks.check_annealing_schedule`; ``T = 0`` there means energy
descent.

Explained in the chapter "Sampling: heat bath and Metropolis".
"""
from __future__ import annotations

import numpy as np

from .._checks import check_unit_indices, check_weights

SCANS = ("sequential", "random", "colouring")


class FixedOrder:
    """A schedule whose sweep is the same list of groups every time."""

    def __init__(self, groups):
        self.groups = list(groups)

    def sweep(self, rng):
        """The groups of one sweep, in order."""
        return self.groups


class RandomScan:
    """Random-scan schedule: each step updates one uniformly drawn free unit per chain.

    ``make_group(units)`` turns an int array of shape (n_chains,), one unit per
    chain, into a group the coupling operator understands. A sweep is as many
    steps as there are free units.
    """

    def __init__(self, free, n_chains, make_group):
        self.free = np.asarray(free)
        self.n_chains = n_chains
        self.make_group = make_group

    def sweep(self, rng):
        picks = self.free[rng.integers(self.free.size, size=(self.free.size, self.n_chains))]
        return (self.make_group(units) for units in picks)


def greedy_colouring(W, free=None):
    """Split units into groups that share no coupling (a proper colouring, greedily).

    Units are visited in index order; each gets the smallest colour not yet
    used by a coupled unit (``W[i, j] != 0``). On a square lattice with even
    sides this finds the two checkerboard colours; on a machine with no
    couplings inside its layers, the layers.

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric couplings with zero diagonal; only which entries are non-zero matters.
    free : array_like of int, optional
        Distinct unit indices in ``0..n-1`` to colour (default: all). Clamped
        units are left out: they are never updated, so they constrain nobody.

    Returns
    -------
    groups : list of ndarray of int
        One sorted index array per colour; together they hold every unit of
        ``free`` once.

    Notes
    -----
    Greedy colouring is not always optimal, but uses at most
    ``1 + max degree`` colours. Explained in the chapter "Sampling: heat bath and Metropolis".

    Examples
    --------
    >>> import bmlib as bm
    >>> [g.tolist() for g in bm.greedy_colouring(bm.square_lattice_couplings(2, 4, periodic=False))]
    [[0, 2, 5, 7], [1, 3, 4, 6]]
    >>> [g.tolist() for g in bm.greedy_colouring(bm.chain_couplings(5))]  # an odd ring needs 3
    [[0, 2], [1, 3], [4]]
    """
    W = check_weights(W)
    n = W.shape[0]
    free = np.arange(n) if free is None else check_unit_indices(free, n, "free")
    return _greedy_colouring(W, free)


def _greedy_colouring(W, free):
    """:func:`greedy_colouring` of a checked ``W`` and int array ``free`` (possibly empty: all clamped)."""
    coupled = W[np.ix_(free, free)] != 0
    colour = np.full(free.size, -1)
    for k in range(free.size):
        taken = colour[coupled[k] & (colour >= 0)]
        colour[k] = np.flatnonzero(np.bincount(taken, minlength=taken.size + 1) == 0)[0]
    return [free[colour == c] for c in range(colour.max(initial=-1) + 1)]
