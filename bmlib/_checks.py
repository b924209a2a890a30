"""Argument validation for bmlib's public functions, with the error wording in one place.

Every public function checks its arguments here, at the boundary, so that a
mistake is reported as a short ``ValueError``/``TypeError`` naming the argument,
the rule and the offending value, never as an error from deep inside NumPy.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

UNITS = ("spins", "bits")
#: (low, high) value of a unit in each convention: the one place they are written.
LEVELS = {"spins": (-1, 1), "bits": (0, 1)}

#: Largest number of units that exact enumeration accepts (2**30 states).
#: At this size one enumeration takes tens of seconds on a laptop; beyond it,
#: sampling or mean field are the practical tools.
MAX_EXACT_UNITS = 30

#: Largest count of repeated work that any one argument may ask for: sweeps,
#: samples, chains, epochs, restarts, iterations, Gibbs steps. At a few
#: microseconds per step this is already hours of work; larger counts are
#: mistakes (a typed 10**12, a wrapped-around integer) and are refused up front
#: instead of looping for ever.
MAX_COUNT = 10**8

#: Largest amount of memory (bytes) that one call may allocate for its arrays:
#: 4 GiB, what a student's laptop can spare. A call that would need more is
#: refused before it allocates, saying how much it would need.
MEMORY_BUDGET = 4 * 2**30


def _show(value, limit=60):
    text = np.array2string(np.asarray(value), threshold=8, precision=4) if isinstance(value, np.ndarray) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_units(units, name="units"):
    """Return ``units`` if it is ``"spins"`` or ``"bits"``, else raise."""
    if not isinstance(units, str) or units not in UNITS:
        raise ValueError(f'{name} must be "spins" or "bits"; got {units!r}')
    return units


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


def _format_bytes(nbytes):
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= size:
            return f"{nbytes / size:.3g} {unit}"
    return f"{nbytes:.0f} bytes"


def check_memory(nbytes, what):
    """Refuse work whose arrays would need more than :data:`MEMORY_BUDGET` bytes.

    ``nbytes`` is computed by the caller from the validated sizes (as a Python
    int or float, so it cannot overflow); ``what`` says which arrays and from
    which arguments, e.g. ``"samples of shape (n_samples, n_chains, n)"``.
    """
    if nbytes > MEMORY_BUDGET:
        raise ValueError(
            f"{what} would need {_format_bytes(nbytes)} of memory, above bmlib's budget of "
            f"{_format_bytes(MEMORY_BUDGET)} (bmlib.MEMORY_BUDGET); ask for less"
        )
    return nbytes


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


def check_optional_real(value, name):
    """Return ``None`` or ``value`` as a finite float (a plot's optional reference line), else raise."""
    return None if value is None else check_real(value, name)


def check_finite_data(x, name):
    """Return ``x`` as a float array if it is numeric and finite (data for a plot), else raise."""
    arr = _as_real_array(x, name)
    _check_finite(arr, name)
    return arr


def check_distribution(p, name):
    """Return ``p`` as a float array of probability vectors along its last axis, else raise.

    The rules: shape ``(m,)`` or ``(..., m)`` with ``m >= 1``, finite entries
    >= 0, each vector summing to 1 (within 1e-6).
    """
    arr = _as_real_array(p, name)
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise ValueError(f"{name} must have shape (m,) or (..., m) with m >= 1 states; got shape {arr.shape}")
    _check_finite(arr, name)
    if (arr < 0).any():
        idx = tuple(int(i) for i in np.argwhere(arr < 0)[0])
        raise ValueError(f"{name} must hold probabilities >= 0; {name}[{', '.join(map(str, idx))}] = {arr[idx]:.6g}")
    totals = arr.sum(axis=-1)
    off = np.abs(totals - 1.0) > 1e-6
    if np.any(off):
        idx = tuple(int(i) for i in np.argwhere(np.atleast_1d(off))[0]) if np.ndim(off) else ()
        total = float(np.atleast_1d(totals)[idx] if idx else totals)
        raise ValueError(f"{name} must sum to 1 along its last axis (a probability distribution); it sums to {total:.6g}")
    return arr


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


def check_bool(value, name, allow_none=False):
    """Return ``value`` as a bool if it is True or False (or None, if allowed), else raise."""
    if value is None and allow_none:
        return None
    if not isinstance(value, (bool, np.bool_)):
        rule = "True, False or None" if allow_none else "True or False"
        raise TypeError(f"{name} must be {rule}; got {_show(value)} of type {type(value).__name__}")
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
    # Both forms below are the correctly rounded mean of W and W.T: 0.5 * (W + W.T)
    # overflows once W + W.T passes the largest float (|W_ij| >= ~9e307), and
    # 0.5 * W + 0.5 * W.T loses subnormal entries when halving them, so each is
    # used where the other fails. The choice is symmetric, and so is the result.
    big = np.maximum(np.abs(W), np.abs(W.T)) > 1.0
    with np.errstate(over="ignore"):  # the overflowing entries are the ones not chosen
        W = np.where(big, 0.5 * W + 0.5 * W.T, 0.5 * (W + W.T))
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
    """Validate the parameters (W, b) of a model; return them as float arrays.

    ``W`` may also be a coupling operator (:class:`~bmlib.SquareLattice`,
    :class:`~bmlib.DenseCouplings`), which stands for its dense ``W`` and ``b``.
    """
    dense_model = getattr(W, "dense_model", None)
    if callable(dense_model):
        if b is not None:
            raise ValueError(f"b must be None when W is a {type(W).__name__}; it brings its own biases")
        W, b = dense_model()
    W = check_weights(W)
    return W, check_bias(b, W.shape[0])


# --- states checked block by block; units inferred from a state (one rule) ---------------
#
# A batch of states can be far larger as floats than as the caller's int8 array, and NumPy's
# own checks (np.unique, np.isin) make copies of the whole batch. So states are checked one
# block of rows at a time (each block at most BLOCK_FRACTION of the budget), and functions
# that can work block by block do, allocating only their output in full.

#: One block of a blockwise check or computation uses at most this fraction of
#: :data:`MEMORY_BUDGET` (256 MiB of the 4 GiB): inputs below it are done in one block,
#: exactly as an unblocked computation would do them.
BLOCK_FRACTION = 1 / 16


def block_bytes():
    """Bytes of temporaries one block may use: ``BLOCK_FRACTION`` of the budget."""
    return int(MEMORY_BUDGET * BLOCK_FRACTION)


def row_blocks(n_rows, row_bytes):
    """Slices covering ``range(n_rows)`` in blocks whose temporaries fit the block budget.

    ``row_bytes`` is what one row costs in temporaries (all of them, at the peak).
    """
    per_block = max(1, block_bytes() // max(1, int(row_bytes)))
    return [slice(start, min(start + per_block, n_rows)) for start in range(0, max(n_rows, 1), per_block)]


def as_numeric_array(x, name):
    """Return ``np.asarray(x)`` (not converted, not copied) if it is a real numeric array, else raise.

    The rules and wording are those of ``_as_real_array``: numbers (or bools) of one
    shape, not complex.
    """
    try:
        arr = np.asarray(x)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(
            f"{name} must be a numeric array of one shape (not ragged); could not convert it ({exc})"
        ) from None
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"{name} must be a numeric array; got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must be real; got a complex array")
    return arr


def _state_rows(arr, n):
    """``arr`` of shape (..., n) as rows of shape (m, n) (a view where possible)."""
    return arr.reshape(math.prod(arr.shape[:-1]), n) if arr.ndim > 1 else arr.reshape(1, -1)


def _where(arr, flat):
    """Index tuple, in ``arr``'s shape, of its ``flat``-th entry (C order)."""
    return tuple(int(i) for i in np.unravel_index(flat, arr.shape)) if arr.ndim else ()


def _index_text(idx):
    return f"[{', '.join(map(str, idx))}]" if idx else ""


def validate_states(arr, units, name):
    """Check the entries of a numeric array ``arr`` of shape (..., n) block by block; return the units.

    ``units`` "spins" or "bits": every entry must be one of its two values. ``units=None``:
    the entries must all be spins or all bits, and the units are inferred by the one rule
    stated in :mod:`bmlib.states`: a state with a 0 is bits, any other (with a -1, or all +1,
    which both conventions share) reads as spins, the default. Temporaries stay within one
    block; nothing of the size of ``arr`` is allocated.
    """
    n = arr.shape[-1] if arr.ndim else 1
    rows = _state_rows(arr, n)
    floating = np.issubdtype(arr.dtype, np.floating)
    seen_minus, seen_zero, seen_one = False, False, False
    # Per entry: a float copy (8), the comparisons and their combination (~4). Most inputs
    # are one block, checked without the bookkeeping of blocks.
    blocks = [slice(0, rows.shape[0])] if 12 * arr.size <= block_bytes() else row_blocks(rows.shape[0], 12 * max(n, 1))
    for block_rows in blocks:
        block = rows[block_rows].astype(float)
        offset = block_rows.start * n
        if floating:
            bad = np.flatnonzero(~np.isfinite(block))
            if bad.size:
                idx = _where(arr, offset + int(bad[0]))
                raise ValueError(f"{name} must be finite; {name}{_index_text(idx)} = {block.flat[int(bad[0])]}")
        minus, zero, one = block == -1.0, block == 0.0, block == 1.0
        if units is not None:
            ok = one | (minus if units == "spins" else zero)
            bad = np.flatnonzero(~ok)
            if bad.size:
                idx = _where(arr, offset + int(bad[0]))
                label = "spins (-1/+1)" if units == "spins" else "bits (0/1)"
                raise ValueError(
                    f"{name} must hold {label} because units={units!r}; "
                    f"{name}{_index_text(idx)} = {block.flat[int(bad[0])]:g}"
                )
            continue
        seen_minus |= bool(minus.any())
        seen_zero |= bool(zero.any())
        seen_one |= bool(one.any())
        other = ~(minus | zero | one)
        if (seen_minus and seen_zero) or other.any():
            values = {-1.0} if seen_minus else set()
            values |= ({0.0} if seen_zero else set()) | ({1.0} if seen_one else set())
            values |= set(np.unique(block[other]).tolist()) if other.any() else set()
            raise ValueError(
                f"{name} must hold spins (-1/+1) or bits (0/1) only; found the values {sorted(values)[:6]}"
            )
    if units is not None:
        return units
    return "bits" if seen_zero else "spins"


def infer_units(s, name="s"):
    """Return "spins" or "bits" for states whose entries are all in one of the two sets.

    The one rule (stated in :mod:`bmlib.states`): a state with a 0 is bits; one with a -1,
    or with only +1s (ambiguous: both conventions have +1), reads as spins, the default.
    Checked block by block, without copying the whole array.
    """
    return validate_states(as_numeric_array(s, name), None, name)


def check_state_batch(s, n, units=None, name="s", memory=None):
    """Check states ``s`` of shape ``(..., n)`` without converting them; return ``(arr, units)``.

    ``arr`` is the caller's array (``np.asarray``, no copy), for functions that
    work block by block; ``units`` is the given units or the inferred ones
    (:func:`infer_units`). The rules and messages are those of :func:`check_states`.
    ``memory``: called with ``arr`` once its shape is known and before its values are
    read, to refuse work above the budget before any of it is done.
    """
    arr = as_numeric_array(s, name)
    if arr.ndim == 0 or arr.shape[-1] != n:
        raise ValueError(f"{name} must have shape (n,) or (..., n) with n = {n}; got shape {arr.shape}")
    if memory is not None:
        memory(arr)
    if units is not None:
        check_units(units)
    return arr, validate_states(arr, units, name)


def check_states(s, n, units=None, name="s"):
    """Return states ``s`` of shape ``(..., n)`` as floats, checked to be in ``units``.

    With ``units=None`` the states may be spins or bits, but not a mixture. The float
    copy (8 bytes per entry) is refused above :data:`MEMORY_BUDGET`; the checks run
    block by block.
    """
    arr = as_numeric_array(s, name)
    if arr.ndim == 0 or arr.shape[-1] != n:
        raise ValueError(f"{name} must have shape (n,) or (..., n) with n = {n}; got shape {arr.shape}")
    check_memory(8 * arr.size, f"{name} as floats, shape {arr.shape}")
    if units is not None:
        check_units(units)
    validate_states(arr, units, name)
    return arr.astype(float)


def check_exact_size(n, what="exact enumeration"):
    """Refuse enumeration beyond :data:`MAX_EXACT_UNITS` units, naming the alternatives."""
    if n > MAX_EXACT_UNITS:
        raise ValueError(
            f"{what} over 2**{n} states is refused: n = {n} units exceeds the limit of "
            f"{MAX_EXACT_UNITS} (bmlib.MAX_EXACT_UNITS). If the couplings are sparse (a lattice, a chain, "
            "a tree), sparse_log_partition and sparse_moments are exact by variable elimination. "
            "Otherwise, for log Z use annealed importance "
            "sampling (log_z_ais) or a mean-field estimate (log_z_mean_field, log_z_bethe); for a "
            "zero-field square lattice, kaufman_log_partition is exact at any size; for averages, "
            "sample. See the chapters on the Boltzmann-Gibbs distribution and on the normalizing constant Z."
        )
    return n


# --- learning: data sets, connectivity masks -------------------------------


def check_data(data, n, units, name="data"):
    """Return patterns as floats of shape ``(P, n)``, ``P >= 1``, every entry in ``units``.

    One pattern of shape ``(n,)`` is accepted and returned as ``(1, n)``.
    """
    arr = _as_real_array(data, name)
    if arr.ndim == 1 and arr.shape[0] == n:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != n:
        raise ValueError(
            f"{name} must have shape (P, {n}), one row per pattern and one column per visible unit; "
            f"got shape {arr.shape}"
        )
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must hold at least one pattern; got shape {arr.shape}")
    return check_states(arr, n, units, name)


def check_mask(mask, n, name="mask"):
    """Return a connectivity mask as a bool array of shape ``(n, n)``: symmetric, False diagonal."""
    arr = np.asarray(mask)
    if arr.dtype != bool:
        arr = _as_real_array(arr, name)
        if not np.isin(arr, (0.0, 1.0)).all():
            raise ValueError(f"{name} must be boolean (True where two units are connected); got values {_show(arr)}")
        arr = arr.astype(bool)
    if arr.shape != (n, n):
        raise ValueError(f"{name} must have shape ({n}, {n}), one row and column per unit; got shape {arr.shape}")
    asym = np.argwhere(arr != arr.T)
    if asym.size:
        i, j = (int(k) for k in asym[0])
        raise ValueError(f"{name} must be symmetric; {name}[{i}, {j}] = {arr[i, j]} but {name}[{j}, {i}] = {arr[j, i]}")
    diag = np.flatnonzero(np.diag(arr))
    if diag.size:
        i = int(diag[0])
        raise ValueError(f"{name} must have a False diagonal (no self-couplings); {name}[{i}, {i}] = True")
    return arr


def check_masked_weights(W, mask, name="W"):
    """Refuse a weight between two units that ``mask`` leaves unconnected."""
    bad = np.argwhere((W != 0) & ~mask)
    if bad.size:
        i, j = (int(k) for k in bad[0])
        raise ValueError(
            f"{name} must be 0 where mask is False (units {i} and {j} are not connected); {name}[{i}, {j}] = {W[i, j]:.6g}"
        )
    return W


# --- iterative solvers and log Z estimators (meanfield.py, bethe.py, partition.py) ---


class ConvergenceWarning(RuntimeWarning, UserWarning):
    """A result that has not converged: an iterative method, or Markov chains that have not mixed.

    An iterative method stopped at its iteration limit before meeting its
    tolerance: its result is still returned, with ``converged=False``. Or
    Monte Carlo chains fail the R-hat or effective-sample-size checks of
    :func:`bmlib.estimate`: the error bar is returned but cannot be trusted.
    Turn the warning into an error with
    ``warnings.simplefilter("error", bmlib.ConvergenceWarning)``.
    """


class ApproximationWarning(RuntimeWarning):
    """An approximation was used where its own validity condition fails (e.g. TAP below its range).

    The result is still returned, with the condition's value in it.
    """


def check_damping(value, name="damping"):
    """Return ``value`` as a float in ``[0, 1)``: the fraction of the old value an update keeps."""
    value = check_real(value, name)
    if not 0.0 <= value < 1.0:
        raise ValueError(f"{name} must be in [0, 1) (the fraction of the old value kept by each update); got {value!r}")
    return value


def check_means(m, n, units, name):
    """Return mean activities of shape ``(n,)`` or ``(k, n)`` as a ``(k, n)`` float array.

    The rule: finite, in [-1, 1] for spins (``<s_i>``) or [0, 1] for bits (``<x_i>``).
    """
    arr = _as_real_array(m, name)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != n or arr.shape[0] == 0:
        raise ValueError(f"{name} must have shape ({n},) or (k, {n}) with k >= 1; got shape {np.shape(m)}")
    _check_finite(arr, name)
    low = LEVELS[units][0]
    bad = np.argwhere((arr < low) | (arr > 1.0))
    if bad.size:
        k, i = (int(j) for j in bad[0])
        raise ValueError(
            f"{name} must lie in [{low:g}, 1] because units={units!r}; {name}[{k}, {i}] = {arr[k, i]:.6g}"
        )
    return arr


def check_rbm_parameters(W, b_visible=None, b_hidden=None):
    """Validate the parameters of a restricted Boltzmann machine; return them as float arrays.

    The rules: ``W`` a finite matrix of shape ``(n_visible, n_hidden)``, both >= 1;
    ``b_visible`` of shape ``(n_visible,)`` and ``b_hidden`` of shape ``(n_hidden,)`` (zeros if ``None``).
    """
    W = _as_real_array(W, "W")
    if W.ndim != 2 or 0 in W.shape:
        raise ValueError(
            f"W must be a matrix of shape (n_visible, n_hidden) with both sizes >= 1; got shape {W.shape}"
        )
    _check_finite(W, "W")
    biases = []
    for b, size, name in ((b_visible, W.shape[0], "b_visible"), (b_hidden, W.shape[1], "b_hidden")):
        if b is None:
            biases.append(np.zeros(size))
            continue
        b = _as_real_array(b, name)
        if b.shape != (size,):
            raise ValueError(f"{name} must have shape ({size},) to match W of shape {W.shape}; got shape {b.shape}")
        _check_finite(b, name)
        biases.append(b)
    return W, biases[0], biases[1]


def check_choice(value, name, options):
    """Return ``value`` if it is one of the strings in ``options``, else raise."""
    if not isinstance(value, str) or value not in options:
        listed = ", ".join(f'"{option}"' for option in options)
        raise ValueError(f"{name} must be one of {listed}; got {value!r}")
    return value


def check_indices(indices, n, name):
    """Return distinct unit indices in ``0..n-1`` as an int array of shape (k,), else raise."""
    idx = np.asarray(indices)
    if idx.ndim != 1 or (idx.size and not np.issubdtype(idx.dtype, np.integer)):
        raise TypeError(f"{name} must be a 1-D sequence of unit indices; got {_show(indices)}")
    idx = idx.astype(int)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = int(idx[(idx < 0) | (idx >= n)][0])
        raise ValueError(f"{name} indices must be in 0..{n - 1}; got {bad}")
    if len(np.unique(idx)) != idx.size:
        raise ValueError(f"{name} indices must not repeat; got {idx.tolist()}")
    return idx


def check_clamp(clamped, values, n, units):
    """Validate clamped unit indices and their values; return ``(indices, values)``.

    ``clamped``: distinct indices in ``0..n-1`` (k of them). ``values``: shape
    ``(k,)`` for one pattern or ``(P, k)`` for P >= 1 patterns, in ``units``.
    Returns ``indices`` as an int array of shape (k,) and ``values`` as floats.
    """
    idx = check_indices(clamped, n, "clamped")
    vals = _as_real_array(values, "values") if values is not None else None
    # (0,) is one empty pattern (nothing clamped); only a batch of zero patterns, (0, k), is refused.
    if vals is None or vals.ndim not in (1, 2) or vals.shape[-1] != idx.size or (vals.ndim == 2 and vals.shape[0] == 0):
        shape = None if vals is None else vals.shape
        raise ValueError(
            f"values must have shape ({idx.size},) for one pattern or (P, {idx.size}) for P >= 1 patterns, "
            f"one value per clamped unit; got shape {shape}"
        )
    vals = check_states(vals, idx.size, units, name="values")
    return idx, vals


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


def check_real_number(value, name):
    """Return ``value`` as a float if it is a real number (NaN and inf pass: the caller judges them), else raise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {_show(value)} of type {type(value).__name__}")
    return float(value)


def check_probability(value, name):
    """Return ``value`` as a float in ``[0, 1]``, else raise."""
    value = check_real(value, name)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1]; got {value!r}")
    return value


def check_unit_indices(indices, n, name):
    """Return distinct unit indices (at least one) as an int array of shape (k,), else raise.

    With ``n`` the indices must lie in ``0..n-1``; with ``n=None`` only in ``0..``.
    """
    idx = np.asarray(indices)
    if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"{name} must be a non-empty 1-D sequence of unit indices; got {_show(indices)}")
    idx = idx.astype(int)
    if idx.min() < 0:
        raise ValueError(f"{name} must be unit indices >= 0; got {int(idx.min())}")
    if n is not None and idx.max() >= n:
        bad = int(idx[(idx < 0) | (idx >= n)][0])
        raise ValueError(f"{name} must be indices in 0..{n - 1}; got {bad}")
    if len(np.unique(idx)) != idx.size:
        raise ValueError(f"{name} must not repeat; got {idx.tolist()}")
    return idx
