"""Free energy, entropy and the variational principle, exactly, by enumeration.

    F = -T log Z = <E> - T S,     S = -sum_s p(s) log p(s)

For any distribution q over the states, the *variational free energy*
``F[q] = <E>_q - T S(q)`` is at least ``F``, with equality only at ``q = p``:
``F[q] - F = T KL(q || p) >= 0``. Mean-field methods search a family of q for
the smallest ``F[q]``. The derivatives of ``log Z`` with respect to
``beta = 1/T`` give the energy's moments: ``<E> = -d log Z / d beta`` and
``Var E = d^2 log Z / d beta^2``, so the heat capacity is ``Var E / T^2``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._checks import check_distribution, check_model, check_temperature, check_temperatures, check_units
from .._threads import thin_blas
from ..models.energy import energy
from .enumeration import exact_energy_moments, log_partition
from ..models.states import MAX_TABLE_UNITS, all_states


class FreeEnergy(NamedTuple):
    """The thermodynamics of a model at one temperature (see :func:`exact_free_energy`)."""

    free_energy: float
    """``F = -T log Z``."""
    mean_energy: float
    """``<E>``."""
    entropy: float
    """``S = (<E> - F) / T = -sum p log p``, in nats."""
    heat_capacity: float
    """``Var E / T**2``."""


@thin_blas
def exact_free_energy(W, b=None, T=1.0, units="spins"):
    """Free energy, mean energy, entropy and heat capacity, exactly.

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric couplings with zero diagonal (as for :func:`log_partition`).
    b : array_like of shape (n,), optional
    T : float
    units : {"spins", "bits"}

    Returns
    -------
    FreeEnergy
        ``(free_energy, mean_energy, entropy, heat_capacity)``.

    Examples
    --------
    Two spins coupled by 1 at T = 1: ``log Z = log(2e + 2/e)``.

    >>> res = bm.exact_free_energy([[0, 1], [1, 0]], T=1.0)
    >>> round(res.free_energy, 4), round(res.mean_energy, 4), round(res.entropy, 4)
    (-1.8201, -0.7616, 1.0585)
    >>> round(res.mean_energy - 1.0 * res.entropy, 4)  # F = <E> - T S
    -1.8201
    """
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    log_z = log_partition(W, b, T, units)
    mean_E, var_E = exact_energy_moments(W, b, T, units)
    # S = log Z + <E>/T is a difference of two numbers of size |<E>|/T: past 1e12 no digit of S survives.
    if abs(mean_E) / T > 1e12:
        raise ValueError(
            f"T = {T:g} is too small for the entropy of these W and b: S = log Z + <E>/T would subtract two "
            f"numbers of size {abs(mean_E) / T:.3g} and keep no digit. As T -> 0, S tends to the log of the "
            "number of ground states; raise T (or scale W and b down)"
        )
    F = -T * log_z
    return FreeEnergy(float(F), float(mean_E), float(log_z + mean_E / T), float(var_E / T / T))


@thin_blas
def variational_free_energy(q, W, b=None, T=1.0, units="spins"):
    """``F[q] = <E>_q - T S(q)`` for a distribution ``q`` over all states; never below ``F``.

    Parameters
    ----------
    q : array_like of shape (2**n,)
        Probabilities of the states in :func:`all_states` order, >= 0,
        summing to 1 (``n <= MAX_TABLE_UNITS``).
    W, b, T, units
        The model.

    Returns
    -------
    float
        ``F[q]``; ``F[q] - F = T KL(q || p) >= 0``, zero only for ``q = p``.

    Examples
    --------
    >>> W = [[0, 1], [1, 0]]
    >>> F = bm.exact_free_energy(W).free_energy
    >>> uniform = [0.25, 0.25, 0.25, 0.25]
    >>> round(bm.variational_free_energy(uniform, W) - F, 4)  # T KL(uniform || p)
    0.4338
    >>> p = bm.boltzmann_distribution(W)
    >>> round(bm.variational_free_energy(p, W) - F, 12)
    0.0
    """
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    n = W.shape[0]
    if n > MAX_TABLE_UNITS:
        raise ValueError(f"variational_free_energy takes a table of 2**n probabilities and is limited to "
                         f"n <= {MAX_TABLE_UNITS}; got n = {n}")
    q = check_distribution(q, "q")
    if q.shape != (2**n,):
        raise ValueError(f"q must have shape ({2**n},), one probability per state of {n} units; got {q.shape}")
    E = energy(all_states(n, units), W, b)
    nonzero = q > 0  # 0 log 0 = 0
    entropy = -float(np.sum(q[nonzero] * np.log(q[nonzero])))
    return float(q @ E) - T * entropy


def free_energy_curves(W, b=None, temperatures=(0.5, 1.0, 2.0), units="spins"):
    """``F``, ``<E>``, ``-T S`` and the heat capacity at each temperature, as arrays.

    Parameters
    ----------
    W, b, units
        The model.
    temperatures : sequence of float

    Returns
    -------
    dict of str to ndarray
        Keys ``"T"``, ``"free_energy"``, ``"mean_energy"``, ``"minus_TS"``,
        ``"heat_capacity"``.

    Examples
    --------
    >>> import numpy as np
    >>> curves = bm.free_energy_curves([[0, 1], [1, 0]], temperatures=[1.0, 2.0])
    >>> bool(np.allclose(curves["free_energy"], curves["mean_energy"] + curves["minus_TS"]))
    True
    """
    T = check_temperatures(temperatures)
    rows = [exact_free_energy(W, b, t, units) for t in T.tolist()]
    return {"T": T,
            "free_energy": np.array([r.free_energy for r in rows]),
            "mean_energy": np.array([r.mean_energy for r in rows]),
            "minus_TS": np.array([-t * r.entropy for t, r in zip(T.tolist(), rows)]),
            "heat_capacity": np.array([r.heat_capacity for r in rows])}
