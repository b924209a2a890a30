"""Argument validation for bmlib's public functions, with the error wording in one place.

Every public function checks its arguments here, at the boundary, so that a
mistake is reported as a short ``ValueError``/``TypeError`` naming the argument,
the rule and the offending value, never as an error from deep inside NumPy.
"""
from __future__ import annotations

import numbers

import numpy as np

UNITS = ("spins", "bits")

#: Largest number of units that exact enumeration accepts (2**30 states).
#: At this size one enumeration takes tens of seconds on a laptop; beyond it,
#: sampling or mean field are the practical tools.
MAX_EXACT_UNITS = 30


def _show(value, limit=60):
    text = np.array2string(np.asarray(value), threshold=8, precision=4) if isinstance(value, np.ndarray) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_units(units, name="units"):
    """Return ``units`` if it is ``"spins"`` or ``"bits"``, else raise."""
    if not isinstance(units, str) or units not in UNITS:
        raise ValueError(f'{name} must be "spins" or "bits"; got {units!r}')
    return units


def check_temperature(T, name="T"):
    """Return ``T`` as a float if it is a finite number > 0, else raise."""
    if isinstance(T, (bool, np.bool_)) or not isinstance(T, numbers.Real):
        raise TypeError(f"{name} must be a real number > 0; got {_show(T)} of type {type(T).__name__}")
    T = float(T)
    if not np.isfinite(T) or T <= 0:
        raise ValueError(f"{name} must be finite and > 0; got {T!r}")
    return T


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


def check_bool(value, name):
    """Return ``value`` as a bool if it is True or False, else raise."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {_show(value)} of type {type(value).__name__}")
    return bool(value)


def _as_real_array(x, name):
    try:
        arr = np.asarray(x)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"{name} must be a numeric array; could not convert it ({exc})") from None
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"{name} must be a numeric array; got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must be real; got a complex array")
    return arr.astype(float)


def _check_finite(arr, name):
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        where = f"[{', '.join(map(str, idx))}]" if idx else ""
        raise ValueError(f"{name} must be finite; {name}{where} = {arr[idx] if idx else arr}")


def check_weights(W, name="W"):
    """Return ``W`` as a float array after checking it is a valid weight matrix.

    The rules: square 2-D, finite, symmetric, zero diagonal.
    """
    W = _as_real_array(W, name)
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"{name} must be a square matrix of shape (n, n); got shape {W.shape}")
    _check_finite(W, name)
    scale = max(1.0, float(np.abs(W).max(initial=0.0)))
    asym = np.abs(W - W.T)
    if asym.max(initial=0.0) > 1e-10 * scale:
        i, j = np.unravel_index(int(np.argmax(asym)), W.shape)
        raise ValueError(
            f"{name} must be symmetric; {name}[{i}, {j}] = {W[i, j]:.6g} but {name}[{j}, {i}] = {W[j, i]:.6g}"
        )
    diag = np.abs(np.diag(W))
    if diag.max(initial=0.0) > 1e-10 * scale:
        i = int(np.argmax(diag))
        raise ValueError(
            f"{name} must have a zero diagonal (no self-couplings); {name}[{i}, {i}] = {W[i, i]:.6g}"
        )
    # Symmetrize exactly so that round-off in the caller's matrix cannot leak in.
    W = 0.5 * (W + W.T)
    np.fill_diagonal(W, 0.0)
    return W


def check_bias(b, n, name="b"):
    """Return ``b`` as a float vector of length ``n`` (zeros if ``None``)."""
    if b is None:
        return np.zeros(n)
    b = _as_real_array(b, name)
    if b.ndim != 1 or b.shape[0] != n:
        raise ValueError(f"{name} must have shape ({n},) to match W of shape ({n}, {n}); got shape {b.shape}")
    _check_finite(b, name)
    return b


def check_model(W, b=None):
    """Validate the parameters (W, b) of a model; return them as float arrays."""
    W = check_weights(W)
    return W, check_bias(b, W.shape[0])


def infer_units(s, name="s"):
    """Return "spins" or "bits" for an array whose entries are all in one of the two sets."""
    s = np.asarray(s)
    values = set(np.unique(s).tolist())
    if values <= {-1.0, 1.0}:
        return "spins"
    if values <= {0.0, 1.0}:
        return "bits"
    raise ValueError(
        f"{name} must hold spins (-1/+1) or bits (0/1) only; found the values {sorted(values)[:6]}"
    )


def check_states(s, n, units=None, name="s"):
    """Return states ``s`` of shape ``(..., n)`` as floats, checked to be in ``units``.

    With ``units=None`` the states may be spins or bits, but not a mixture.
    """
    s = _as_real_array(s, name)
    if s.ndim == 0 or s.shape[-1] != n:
        raise ValueError(f"{name} must have shape (n,) or (..., n) with n = {n}; got shape {s.shape}")
    _check_finite(s, name)
    if units is None:
        infer_units(s, name)
        return s
    check_units(units)
    allowed = (-1.0, 1.0) if units == "spins" else (0.0, 1.0)
    bad = ~np.isin(s, allowed)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        label = "spins (-1/+1)" if units == "spins" else "bits (0/1)"
        raise ValueError(
            f"{name} must hold {label} because units={units!r}; {name}[{', '.join(map(str, idx))}] = {s[idx]:g}"
        )
    return s


def check_exact_size(n, what="exact enumeration"):
    """Refuse enumeration beyond :data:`MAX_EXACT_UNITS` units, naming the alternatives."""
    if n > MAX_EXACT_UNITS:
        raise ValueError(
            f"{what} over 2**{n} states is refused: n = {n} units exceeds the limit of "
            f"{MAX_EXACT_UNITS} (bmlib.MAX_EXACT_UNITS). Use sampling (sequential dynamics) "
            "or a mean-field approximation instead; see the chapters on the Boltzmann-Gibbs "
            "distribution and on the normalizing constant Z."
        )
    return n
