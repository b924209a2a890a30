"""The memory budget: refusing work above it, and the blocks that keep work within it.

The budget itself, ``MEMORY_BUDGET``, is defined in :mod:`bmlib._checks` (the
package) and read from there at every call, so that setting
``bmlib._checks.MEMORY_BUDGET`` (as the tests of budgets do) reaches every check.
"""
from __future__ import annotations

import sys


def _budget():
    """``bmlib._checks.MEMORY_BUDGET`` as it is now (read from the package, where it may be set)."""
    return sys.modules[__package__].MEMORY_BUDGET


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
    budget = _budget()
    if nbytes > budget:
        raise ValueError(
            f"{what} would need {_format_bytes(nbytes)} of memory, above bmlib's budget of "
            f"{_format_bytes(budget)} (bmlib.MEMORY_BUDGET); ask for less"
        )
    return nbytes


#: One block of a blockwise check or computation uses at most this fraction of
#: :data:`MEMORY_BUDGET` (256 MiB of the 4 GiB): inputs below it are done in one block,
#: exactly as an unblocked computation would do them.
BLOCK_FRACTION = 1 / 16


def block_bytes():
    """Bytes of temporaries one block may use: ``BLOCK_FRACTION`` of the budget."""
    return int(_budget() * BLOCK_FRACTION)


def row_blocks(n_rows, row_bytes):
    """Slices covering ``range(n_rows)`` in blocks whose temporaries fit the block budget.

    ``row_bytes`` is what one row costs in temporaries (all of them, at the peak).
    """
    per_block = max(1, block_bytes() // max(1, int(row_bytes)))
    return [slice(start, min(start + per_block, n_rows)) for start in range(0, max(n_rows, 1), per_block)]
