"""How warnings are printed: category and message, folded to the book's column, the same on every machine.

Python prints a warning with the file and line that raised it (in a
notebook, a temporary file named after the kernel's process) and the
source line below. That is noise on a course page, and it differs from
machine to machine and from run to run, so a chapter whose stored output
holds a warning could never be compared with a fresh run. The chapters that
show bmlib's warnings call :func:`brief_warnings` first.
"""
from __future__ import annotations

import textwrap
import warnings

_PYTHONS_OWN = warnings.formatwarning

#: Characters per line of a folded warning: the book's code column holds 77 (tools/column_check.py).
WIDTH = 76


def _brief(message, category, filename, lineno, line=None):
    return textwrap.fill(f"{category.__name__}: {message}", WIDTH, subsequent_indent="  ") + "\n"


def brief_warnings(enable=True):
    """Print every warning as ``Category: message``, folded to 76 characters, without its file and source line.

    It changes :func:`warnings.formatwarning` for the whole session (as
    :mod:`warnings` allows); which warnings are shown is unchanged.

    Parameters
    ----------
    enable : bool
        True: brief and folded; False: Python's own format again.

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
    warnings.formatwarning = _brief if enable else _PYTHONS_OWN
