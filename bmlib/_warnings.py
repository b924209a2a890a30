"""How warnings are printed: one line, category and message, for pages that must read the same everywhere.

Python prints a warning with the file and line that raised it (in a
notebook, a temporary file named after the kernel's process) and the
source line below. That is noise on a course page, and it differs from
machine to machine and from run to run, so a chapter whose stored output
holds a warning could never be compared with a fresh run. The chapters that
show bmlib's warnings call :func:`brief_warnings` first.
"""
from __future__ import annotations

import warnings

_PYTHONS_OWN = warnings.formatwarning


def _one_line(message, category, filename, lineno, line=None):
    return f"{category.__name__}: {message}\n"


def brief_warnings(enable=True):
    """Print every warning as one line, ``Category: message``, without its file and source line.

    It changes :func:`warnings.formatwarning` for the whole session (as
    :mod:`warnings` allows); which warnings are shown is unchanged.

    Parameters
    ----------
    enable : bool
        True: one line; False: Python's own format again.

    Examples
    --------
    >>> import sys, warnings
    >>> import bmlib as bm
    >>> bm.brief_warnings()
    >>> warnings.formatwarning("chains disagree", bm.ConvergenceWarning, "/tmp/x.py", 3)
    'ConvergenceWarning: chains disagree\\n'
    >>> bm.brief_warnings(False)
    """
    if not isinstance(enable, bool):
        raise TypeError(f"enable must be True or False; got {enable!r}")
    warnings.formatwarning = _one_line if enable else _PYTHONS_OWN
