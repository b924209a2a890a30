"""Checks of temperatures: one, several, a range, an annealing schedule, and the floor of the approximations."""
from __future__ import annotations

import numbers

import numpy as np

from .arrays import _as_real_array
from .scalars import _show, check_integer, check_real_number, check_sequence


#: The approximate methods (mean field, TAP, Bethe, the sampling estimators of
#: log Z) refuse T below this fraction of max(1, |W_ij|, |b_i|): see check_temperature.
MIN_APPROXIMATION_TEMPERATURE = 1e-100


def check_temperature(T, name="T"):
    """Return ``T`` as a float if it is a finite number > 0, else raise.

    Every finite ``T > 0`` passes, down to ``5e-324``. How each family of
    functions treats temperatures near 0:

    * Exact enumeration (``log_partition``, ``boltzmann_distribution``,
      ``exact_moments``, ``exact_energy_moments``, the clamped versions) takes
      the ``T -> 0`` limit: p spreads evenly over the ground states. It raises
      a ValueError only if the number it returns is itself beyond the float
      range (``log Z ~ -E_min / T`` at ``T = 5e-324``, unless ``E_min = 0``).
    * The approximate methods (``naive_mean_field``, ``tap_mean_field``,
      ``belief_propagation`` and the ``log_z_*`` estimators) refuse, through
      :func:`check_approximation_temperature`, ``T`` below
      ``MIN_APPROXIMATION_TEMPERATURE * max(1, max|W_ij|, max|b_i|)`` (1e-100
      times the largest parameter): there their arithmetic (``beta^2 W^2`` in
      TAP, ``-E / T`` in the estimators) overflows, and the distribution is
      anyway concentrated on the lowest-energy states, which ``energy_descent``
      and ``anneal`` find directly.
    """
    if isinstance(T, (bool, np.bool_)) or not isinstance(T, numbers.Real):
        raise TypeError(f"{name} must be a real number > 0; got {_show(T)} of type {type(T).__name__}")
    T = float(T)
    if not np.isfinite(T) or T <= 0:
        raise ValueError(f"{name} must be finite and > 0; got {T!r}")
    return T


def check_approximation_temperature(T, W, b, what, b_name="b"):
    """Refuse ``T < MIN_APPROXIMATION_TEMPERATURE * max(1, max|W|, max|b|)`` for an approximate method.

    ``T``, ``W`` and ``b`` must already be checked (:func:`check_temperature`,
    :func:`check_model`); ``what`` names the method in the message, ``b_name``
    the biases as the caller's arguments call them. Returns ``T``.
    """
    scale = max(1.0, float(np.abs(W).max(initial=0.0)), float(np.abs(b).max(initial=0.0)))
    if T < MIN_APPROXIMATION_TEMPERATURE * scale:
        raise ValueError(
            f"T must be >= {MIN_APPROXIMATION_TEMPERATURE:g} * max(1, max|W|, max|{b_name}|) = "
            f"{MIN_APPROXIMATION_TEMPERATURE * scale:.3g} for {what} (its arithmetic overflows below); "
            f"got T = {T!r}. So close to T = 0 the distribution sits on the lowest-energy states: "
            "find them with energy_descent or anneal, or use the exact functions (log_partition, "
            "exact_moments), which take the T -> 0 limit."
        )
    return T


def check_temperatures(values, name="temperatures"):
    """Return a non-empty 1-D float array of temperatures, each finite and > 0, else raise.

    A single number counts as one temperature. Errors name the bad entry,
    e.g. ``temperatures[2]``.
    """
    arr = _as_real_array(values, name)
    if arr.ndim == 0:
        arr = arr[None]
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of temperatures; got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr) | (arr <= 0))
    if bad.size:
        k = int(bad[0])
        raise ValueError(f"{name} must be finite and > 0; {name}[{k}] = {float(arr[k])!r}")
    return arr


def check_temperature_range(value, name):
    """Return ``(low, high)``: two temperatures, finite, > 0, with low < high, else raise."""
    pair = check_sequence(value, name, "a pair (low, high) of temperatures")
    if len(pair) != 2:
        raise ValueError(f"{name} must be a pair (low, high) of temperatures; got {len(pair)} entries")
    low, high = (check_temperature(T, f"{name}[{k}]") for k, T in enumerate(pair))
    if not low < high:
        raise ValueError(f"{name} must be (low, high) with low < high; got ({low!r}, {high!r})")
    return low, high


def check_annealing_schedule(schedule, name="schedule"):
    """Return an annealing schedule as ``(temperatures, sweeps)`` arrays, else raise.

    The rules: a non-empty sequence of ``(T, n_sweeps)`` pairs, each ``T``
    finite and >= 0 (``T = 0`` means energy descent), each ``n_sweeps`` an
    integer >= 1.
    """
    try:
        pairs = list(schedule)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of (T, n_sweeps) pairs; got {_show(schedule)}") from None
    if not pairs:
        raise ValueError(f"{name} must hold at least one (T, n_sweeps) pair; got an empty schedule")
    temperatures, sweeps = [], []
    for k, pair in enumerate(pairs):
        if isinstance(pair, (str, bytes)) or np.ndim(pair) != 1 or len(pair) != 2:
            raise ValueError(f"{name}[{k}] must be a pair (T, n_sweeps); got {_show(pair)}")
        T = check_real_number(pair[0], f"{name}[{k}] temperature")
        if not np.isfinite(T) or T < 0:
            raise ValueError(f"{name}[{k}] temperature must be finite and >= 0 (T = 0 means energy descent); got {T!r}")
        temperatures.append(T)
        sweeps.append(check_integer(pair[1], f"{name}[{k}] number of sweeps", minimum=1))
    return np.array(temperatures), np.array(sweeps, dtype=int)
