"""State spaces: the two unit conventions, enumeration order, and conversion between them.

Conventions (the book's notation table repeats them):

=========  ==============  ====================================================
units      values          the same model in the other units
=========  ==============  ====================================================
"spins"    s_i in {-1,+1}  default; s = 2x - 1
"bits"     x_i in {0, 1}   x = (s + 1) / 2
=========  ==============  ====================================================

Enumeration order: row ``k`` of :func:`all_states` is the binary expansion of
``k`` with the most significant digit in unit 0; digit 1 is +1 (spins) or 1
(bits), digit 0 is -1 (spins) or 0 (bits).

Units inferred from the values. A function whose ``units`` argument is
omitted (``units=None``) reads the units off the states, with one rule
everywhere in bmlib: states with a 0 are bits; states with a -1 are spins;
states made only of +1s, which both conventions share, are ambiguous and are
read as spins, the default. So an all-ones state reads as spins: for example
``flip_energy_changes([1, 1, 1], chain_couplings(3))`` is ``[4, 4, 4]`` (flips
to -1), and ``[2, 2, 2]`` with ``units="bits"`` (flips to 0). A batch is read
as a whole, and must not mix -1s and 0s. Pass ``units`` whenever the states
may be all ones.

Shared inside bmlib (documented internal names, not in the flat namespace and
not part of the 1.x promise): :func:`states_of_index`, the rows of
``all_states(n)`` for given indices without building the table (exact
enumeration, the RBM's sums), and :func:`checked_state_index`, :func:`state_index`
with errors that name the caller's argument (the goodness-of-fit test).
"""
from __future__ import annotations

import math

import numpy as np

from .._checks import (
    block_bytes,
    check_count,
    check_memory,
    check_model,
    check_state_batch,
    check_units,
    row_blocks,
)

#: Largest n for which bmlib builds a full table of 2**n rows (all_states,
#: boltzmann_distribution): 2**24 rows already take hundreds of MB.
MAX_TABLE_UNITS = 24


def all_states(n, units="spins"):
    """Every state of ``n`` units, in the documented binary order.

    Parameters
    ----------
    n : int
        Number of units, ``0 <= n <= MAX_TABLE_UNITS``.
    units : {"spins", "bits"}
        Values of the units: -1/+1 or 0/1.

    Returns
    -------
    states : ndarray of shape (2**n, n), dtype int8
        Row ``k`` is the binary expansion of ``k``, most significant unit first.

    Examples
    --------
    >>> bm.all_states(2)
    array([[-1, -1],
           [-1,  1],
           [ 1, -1],
           [ 1,  1]], dtype=int8)
    >>> bm.all_states(2, units="bits")[2]
    array([1, 0], dtype=int8)
    """
    n = check_count(n, "n", minimum=0)
    units = check_units(units)
    if n > MAX_TABLE_UNITS:
        raise ValueError(
            f"n must be <= {MAX_TABLE_UNITS} for a full table of states (2**{n} rows would not fit "
            "in memory); log_partition and exact_moments enumerate larger models in blocks"
        )
    # The table itself (n bytes per row), built in blocks of rows: the digits are int64
    # temporaries (three of them, 24 n bytes per row), far larger than the int8 table.
    check_memory(2**n * n + min(2**n * 24 * n, block_bytes()), f"the table of all 2**{n} states of {n} units")
    low = 0 if units == "bits" else -1
    table = np.empty((2**n, n), dtype=np.int8)
    for rows in row_blocks(2**n, 24 * n):
        table[rows] = states_of_index(np.arange(rows.start, rows.stop, dtype=np.int64), n, low=low)
    return table



def state_index(states, units=None):
    """Row of each state in :func:`all_states` order: the state read as a binary number.

    Parameters
    ----------
    states : array_like of shape (n,) or (..., n)
        Spins (-1/+1) or bits (0/1); ``n <= 62``.
    units : {"spins", "bits"}, optional
        Inferred from the values if omitted; all ones reads as spins (the rule
        in :mod:`bmlib.models.states`), which gives the same index here.

    Returns
    -------
    int, or ndarray of int64 of shape (...)
        ``k`` such that ``all_states(n, units)[k]`` equals the state: unit 0
        is the most significant binary digit, +1 or 1 the digit 1.

    Examples
    --------
    >>> import bmlib as bm
    >>> bm.state_index([1, -1, 1])
    5
    >>> bm.state_index(bm.all_states(3, units="bits")).tolist()
    [0, 1, 2, 3, 4, 5, 6, 7]
    """
    return checked_state_index(states, units, "states")


def checked_state_index(states, units, name):
    """:func:`state_index`, with errors naming the caller's argument ``name`` (shared inside bmlib)."""
    try:
        shape = np.shape(states)
    except ValueError:  # ragged: check_states says what is wrong
        shape = ()
    n = shape[-1] if shape else -1

    def memory(arr):
        m = math.prod(arr.shape[:-1])
        # The indices (int64), and per block the float copy, the digits and their products.
        check_memory(8 * m + min(32 * m * n, block_bytes()),
                     f"the indices of {m:_} states ({name} of shape {arr.shape})")

    arr, units = check_state_batch(states, n, units, name=name, memory=memory)
    if n > 62:
        raise ValueError(f"{name} must have at most 62 units for an int64 index; got {n}")
    powers = np.int64(1) << np.arange(n - 1, -1, -1, dtype=np.int64)
    if arr.ndim == 1:
        return int((arr == 1).astype(np.int64) @ powers)
    rows = arr.reshape(math.prod(arr.shape[:-1]), n)
    index = np.empty(rows.shape[0], dtype=np.int64)
    for block in row_blocks(rows.shape[0], 32 * n):
        index[block] = (rows[block] == 1).astype(np.int64) @ powers
    return index.reshape(arr.shape[:-1])


def states_of_index(index, n, low=-1, high=1, dtype=np.int8):
    """Inverse of :func:`state_index`: the states of rows ``index`` (any shape) of ``all_states(n)`` (shared inside bmlib).

    Returns an array of shape ``index.shape + (n,)`` of ``low`` and ``high``, in ``dtype``.
    """
    digits = (np.asarray(index, dtype=np.int64)[..., None] >> np.arange(n - 1, -1, -1, dtype=np.int64)) & 1
    return np.where(digits == 1, high, low).astype(dtype)


def _convert(x, units, name, transform):
    """``transform`` applied to states ``x`` in ``units``, block by block into the result.

    The result is int8 for integer (or bool) input, float otherwise.
    """
    arr = np.asarray(x) if not isinstance(x, np.ndarray) else x
    integer = np.issubdtype(arr.dtype, np.integer) or arr.dtype == bool
    size = arr.size if arr.ndim else 1

    def memory(arr):
        check_memory((1 if integer else 8) * size + min(24 * size, block_bytes()),
                     f"the converted states ({name} of shape {arr.shape})")

    arr, _ = check_state_batch(arr, arr.shape[-1] if arr.ndim else 1, units, name=name, memory=memory)
    dtype = np.int8 if integer else float
    if arr.ndim <= 1:
        return transform(arr.astype(float)).astype(dtype) if integer else transform(arr.astype(float))
    n = arr.shape[-1]
    rows = arr.reshape(math.prod(arr.shape[:-1]), n)
    out = np.empty(rows.shape, dtype=dtype)
    for block in row_blocks(rows.shape[0], 24 * n):
        out[block] = transform(rows[block].astype(float))
    return out.reshape(arr.shape)


def to_spins(x):
    """Convert bits (0/1) to spins (-1/+1): ``s = 2x - 1``.

    Parameters
    ----------
    x : array_like of shape (..., n)
        Values in {0, 1}.

    Returns
    -------
    s : ndarray of shape (..., n)
        int8 for integer input, float otherwise.

    Examples
    --------
    >>> bm.to_spins([0, 1, 1])
    array([-1,  1,  1], dtype=int8)
    """
    return _convert(x, "bits", "x", lambda bits: 2 * bits - 1)


def to_bits(s):
    """Convert spins (-1/+1) to bits (0/1): ``x = (s + 1) / 2``.

    Parameters
    ----------
    s : array_like of shape (..., n)
        Values in {-1, +1}.

    Returns
    -------
    x : ndarray of shape (..., n)
        int8 for integer input, float otherwise.

    Examples
    --------
    >>> bm.to_bits([-1, 1, 1])
    array([0, 1, 1], dtype=int8)
    """
    return _convert(s, "spins", "s", lambda spins: (spins + 1) / 2)


def to_bits_parameters(W, b=None):
    """Re-express a spin model (W, b) as a bit model with the same distribution.

    With ``s = 2x - 1``, ``E_spins(s) = E_bits(x) + offset`` exactly, where
    ``W_bits = 4 W``, ``b_bits = 2 b - 2 W 1`` and ``offset = sum(b) - sum(W) / 2``.
    The two models assign the same probability to every state at every T,
    and ``log Z_spins = log Z_bits - offset / T``.

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric spin couplings with zero diagonal.
    b : array_like of shape (n,), optional
        Spin biases (zeros if omitted).

    Returns
    -------
    W_bits : ndarray of shape (n, n)
    b_bits : ndarray of shape (n,)
    offset : float

    Examples
    --------
    >>> W = [[0, 1], [1, 0]]
    >>> Wx, bx, c = bm.to_bits_parameters(W, [0.5, 0])
    >>> Wx.tolist(), bx.tolist(), c
    ([[0.0, 4.0], [4.0, 0.0]], [-1.0, -2.0], -0.5)
    """
    W, b = check_model(W, b)
    return 4.0 * W, 2.0 * b - 2.0 * W.sum(axis=1), float(b.sum() - 0.5 * W.sum())


def to_spins_parameters(W, b=None):
    """Re-express a bit model (W, b) as a spin model with the same distribution.

    The inverse of :func:`to_bits_parameters`: with ``x = (s + 1) / 2``,
    ``E_bits(x) = E_spins(s) + offset``, where ``W_spins = W / 4``,
    ``b_spins = b / 2 + W 1 / 4`` and ``offset = -(sum(b_spins) - sum(W_spins) / 2)``,
    so ``log Z_bits = log Z_spins - offset / T``. The offset has the same sense
    as in :func:`to_bits_parameters` (energy passed in = energy returned +
    offset); for the same pair of models the two offsets are opposite numbers.

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric bit couplings with zero diagonal.
    b : array_like of shape (n,), optional
        Bit biases (zeros if omitted).

    Returns
    -------
    W_spins : ndarray of shape (n, n)
    b_spins : ndarray of shape (n,)
    offset : float

    Examples
    --------
    >>> Ws, bs, c = bm.to_spins_parameters([[0, 4], [4, 0]], [-1, -2])
    >>> Ws.tolist(), bs.tolist(), c
    ([[0.0, 1.0], [1.0, 0.0]], [0.5, 0.0], 0.5)
    """
    W, b = check_model(W, b)
    Ws = W / 4.0
    bs = b / 2.0 + W.sum(axis=1) / 4.0
    return Ws, bs, float(-(bs.sum() - 0.5 * Ws.sum()))
