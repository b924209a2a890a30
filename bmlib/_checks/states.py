"""Checks of states and their units: spins or bits, inferred by one rule, checked block by block.

A batch of states can be far larger as floats than as the caller's int8 array, and NumPy's
own checks (np.unique, np.isin) make copies of the whole batch. So states are checked one
block of rows at a time (each block at most BLOCK_FRACTION of the budget), and functions
that can work block by block do, allocating only their output in full.

Also the limit of exact enumeration (``MAX_EXACT_UNITS``), data sets of patterns and
clamped units with their values.
"""
from __future__ import annotations

import math

import numpy as np

from .arrays import _as_real_array, as_numeric_array, check_indices
from .memory import block_bytes, check_memory, row_blocks


UNITS = ("spins", "bits")

#: (low, high) value of a unit in each convention: the one place they are written.
LEVELS = {"spins": (-1, 1), "bits": (0, 1)}

#: Largest number of units that exact enumeration accepts (2**30 states).
#: At this size one enumeration takes tens of seconds on a laptop; beyond it,
#: sampling or mean field are the practical tools.
MAX_EXACT_UNITS = 30


def check_units(units, name="units"):
    """Return ``units`` if it is ``"spins"`` or ``"bits"``, else raise."""
    if not isinstance(units, str) or units not in UNITS:
        raise ValueError(f'{name} must be "spins" or "bits"; got {units!r}')
    return units


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
    stated in :mod:`bmlib.models.states`: a state with a 0 is bits, any other (with a -1, or all +1,
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

    The one rule (stated in :mod:`bmlib.models.states`): a state with a 0 is bits; one with a -1,
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
