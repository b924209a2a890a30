"""Checks of single arguments: integers and counts, real numbers, flags, choices, sequences.

Also ``_show``, the short rendering of an offending value that every message of
:mod:`bmlib._checks` quotes.
"""
from __future__ import annotations

import numbers

import numpy as np


#: Largest count of repeated work that any one argument may ask for: sweeps,
#: samples, chains, epochs, restarts, iterations, Gibbs steps. At a few
#: microseconds per step this is already hours of work; larger counts are
#: mistakes (a typed 10**12, a wrapped-around integer) and are refused up front
#: instead of looping for ever.
MAX_COUNT = 10**8


def _show(value, limit=60):
    text = np.array2string(np.asarray(value), threshold=8, precision=4) if isinstance(value, np.ndarray) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_integer(value, name, minimum=None, maximum=None):
    """Return ``value`` as an int within ``[minimum, maximum]``, else raise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {_show(value)} of type {type(value).__name__}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}; got {value}")
    return value


def check_count(value, name, minimum=0):
    """Return ``value`` as an int in ``[minimum, MAX_COUNT]``: a number of sweeps, samples, chains, ...

    The upper bound :data:`MAX_COUNT` stops a mistyped count before it allocates or loops for ever.
    """
    value = check_integer(value, name, minimum=minimum)
    if value > MAX_COUNT:
        raise ValueError(
            f"{name} must be <= {MAX_COUNT:_} (bmlib.MAX_COUNT, the limit on counts of sweeps, samples, "
            f"chains, epochs and iterations); got {value}"
        )
    return value


def check_real(value, name, positive=False, nonnegative=False):
    """Return ``value`` as a finite float (optionally > 0 or >= 0), else raise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {_show(value)} of type {type(value).__name__}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite; got {value!r}")
    if positive and value <= 0:
        raise ValueError(f"{name} must be > 0; got {value!r}")
    if nonnegative and value < 0:
        raise ValueError(f"{name} must be >= 0; got {value!r}")
    return value


def check_real_number(value, name):
    """Return ``value`` as a float if it is a real number (NaN and inf pass: the caller judges them), else raise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {_show(value)} of type {type(value).__name__}")
    return float(value)


def check_bool(value, name, allow_none=False):
    """Return ``value`` as a bool if it is True or False (or None, if allowed), else raise."""
    if value is None and allow_none:
        return None
    if not isinstance(value, (bool, np.bool_)):
        rule = "True, False or None" if allow_none else "True or False"
        raise TypeError(f"{name} must be {rule}; got {_show(value)} of type {type(value).__name__}")
    return bool(value)


def check_probability(value, name):
    """Return ``value`` as a float in ``[0, 1]``, else raise."""
    value = check_real(value, name)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1]; got {value!r}")
    return value


def check_optional_real(value, name):
    """Return ``None`` or ``value`` as a finite float (a plot's optional reference line), else raise."""
    return None if value is None else check_real(value, name)


def check_choice(value, name, options):
    """Return ``value`` if it is one of the strings in ``options``, else raise."""
    if not isinstance(value, str) or value not in options:
        listed = ", ".join(f'"{option}"' for option in options)
        raise ValueError(f"{name} must be one of {listed}; got {value!r}")
    return value


def check_instance(value, name, types, what=None):
    """Return ``value`` if it is an instance of ``types``, else raise a TypeError naming ``name``.

    ``what`` describes the expected object in words (default: the type names),
    e.g. ``"a SampleResult (from bmlib.sample or bmlib.anneal)"``.
    """
    if not isinstance(value, types):
        if what is None:
            names = [t.__name__ for t in (types if isinstance(types, tuple) else (types,))]
            what = " or ".join(names)
        raise TypeError(f"{name} must be {what}; got {_show(value)} of type {type(value).__name__}")
    return value


def check_sequence(value, name, what="a list", allow_single=None, minimum=1):
    """Return ``value`` as a list of at least ``minimum`` items, else raise naming ``name``.

    A string is not accepted as a sequence (its characters are never meant).
    ``allow_single``: a type (or tuple of types) whose single instance is
    wrapped as a one-item list, as many plotting functions accept one model
    or a list of them.
    """
    if allow_single is not None and isinstance(value, allow_single):
        return [value]
    scalar_array = isinstance(value, np.ndarray) and value.ndim == 0
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__") or scalar_array:
        raise TypeError(f"{name} must be {what}; got {_show(value)} of type {type(value).__name__}")
    items = list(value)
    if len(items) < minimum:
        count = "one item" if minimum == 1 else f"{minimum} items"
        raise ValueError(f"{name} must hold at least {count}; got {_show(value)}")
    return items


def check_labels(labels, count, name="labels", what="entry"):
    """Return ``labels`` as a list of ``count`` strings (``[None] * count`` if ``labels`` is None), else raise.

    ``what`` names one item of the plot the labels belong to ("model", "history", ...).
    """
    if labels is None:
        return [None] * count
    items = check_sequence(labels, name, f"a sequence of {count} strings, one per {what}", minimum=0)
    if len(items) != count:
        raise ValueError(f"{name} must have one entry per {what} ({count}); got {len(items)}")
    for k, label in enumerate(items):
        if label is not None and not isinstance(label, str):
            raise TypeError(f"{name}[{k}] must be a string; got {_show(label)} of type {type(label).__name__}")
    return items
