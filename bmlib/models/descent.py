"""Energy descent: sequential dynamics at zero temperature.

One unit at a time takes the value that lowers the energy given all the
others (the sign of its local field). Every change lowers the energy
strictly, so the walk ends in a stable state (a local minimum).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._deprecation import renamed
from .._checks import LEVELS, check_count, check_memory, check_model, check_states, check_units, infer_units
from .._random import as_generator
from .._ties import zero_field_tolerance
from .energy import energy, scale_exponent, scaled_parameters


@dataclass(frozen=True)
class DescentPath:
    """The walk taken by :func:`energy_descent`.

    Attributes
    ----------
    states : ndarray of shape (n_flips + 1, n)
        The starting state, then the state after each flip.
    energies : ndarray of shape (n_flips + 1,)
        Energy of each state in ``states`` (strictly decreasing).
    flipped : ndarray of shape (n_flips,)
        Which unit changed at each step.
    converged : bool
        True if the last full sweep changed nothing (a stable state was reached).
    """

    states: np.ndarray
    energies: np.ndarray
    flipped: np.ndarray
    converged: bool

    @property
    def final_state(self):
        """The state where the walk ended, shape (n,)."""
        return self.states[-1]


@renamed(order="scan", max_sweeps="max_iter")
def energy_descent(s, W, b=None, units=None, scan="sequential", max_iter=1000, rng=None):
    """Lower the energy one unit at a time until no single flip helps.

    Each visited unit is set to the value favoured by its local field
    ``h_i = sum_j W_ij s_j + b_i`` (+1 or 1 if ``h_i > 0``; -1 or 0 if
    ``h_i < 0``; unchanged if ``h_i = 0``, where fields within 1e-12 of the
    largest possible field count as 0, so rounding cannot decide a flip).

    Parameters
    ----------
    s : array_like of shape (n,)
        Starting state.
    W : array_like of shape (n, n)
    b : array_like of shape (n,), optional
    units : {"spins", "bits"}, optional
        Inferred from ``s`` if omitted; an all-ones state reads as spins (the
        rule in :mod:`bmlib.models.states`), so its units descend to -1, not to 0:
        pass ``units="bits"`` for bits.
    scan : {"sequential", "random"}
        Visit units 0, 1, ..., n-1 in every sweep, or in a fresh random order.
    max_iter : int
        Upper bound on full sweeps (descent always stops well before it on a
        finite model; the bound guards against misuse).
    rng : None, int or numpy.random.Generator
        Only used with ``scan="random"``.

    Returns
    -------
    DescentPath

    Examples
    --------
    >>> W = [[0, 1, 1], [1, 0, 1], [1, 1, 0]]
    >>> path = bm.energy_descent([1, -1, -1], W)
    >>> path.final_state.tolist(), path.energies.tolist(), path.flipped.tolist()
    ([-1.0, -1.0, -1.0], [1.0, -3.0], [0])
    """
    W, b = check_model(W, b)
    n = W.shape[0]
    s = check_states(s, n, units).copy()
    if s.ndim != 1:
        raise ValueError(f"s must be a single state of shape ({n},); got shape {s.shape}")
    units = infer_units(s) if units is None else check_units(units)
    if scan not in ("sequential", "random"):
        raise ValueError(f'scan must be "sequential" or "random"; got {scan!r}')
    max_iter = check_count(max_iter, "max_iter", minimum=1)
    gen = as_generator(rng) if scan == "random" else None
    low, high = LEVELS[units]

    # Only the sign of each field matters: with couplings near the float limit the fields are
    # computed on W and b divided by a power of 2, which keeps every sign and cannot overflow.
    Wf, bf = scaled_parameters(W, b, scale_exponent(W, b))
    zero = zero_field_tolerance(Wf, bf)  # a field that is 0 up to rounding leaves the unit as it is

    states, flipped = [s.copy()], []
    converged = False
    for _ in range(max_iter):
        changed = False
        for i in gen.permutation(n) if gen is not None else range(n):
            h = Wf[i] @ s + bf[i]
            new = high if h > zero else low if h < -zero else s[i]
            if new != s[i]:
                s[i] = new
                # The path is kept whole: the list, its array and the energies' float copy, three
                # rows of n floats per flip. A path that outgrows the budget stops with a ValueError
                # (each flip lowers E, so this takes a very large n and max_iter).
                check_memory(24 * n * (len(states) + 1), f"the descent path of {len(states) + 1:_} states of {n} units")
                states.append(s.copy())
                flipped.append(int(i))
                changed = True
        if not changed:
            converged = True
            break
    states = np.array(states)
    return DescentPath(states, energy(states, W, b, units), np.array(flipped, dtype=int), converged)
