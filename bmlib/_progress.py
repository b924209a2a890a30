"""Progress bars for long work, silent for short work, and tqdm only when a bar may be shown.

A function with a ``progress`` argument reads it as: ``True`` shows a bar at
once, ``False`` never, and ``None`` (the default) shows one only when the work
is still running after :data:`PROGRESS_DELAY` seconds. A short call (a test, a
grader, a doctest) then prints nothing, and a long one tells the reader how far
it has got. tqdm is imported here, inside the call, so that ``import bmlib``
and every ``progress=False`` call never load it.

The book's chapters pass ``progress=False`` all the same: whether a delayed bar
appears depends on the speed of the machine, and nbval compares every cell's
outputs with the stored ones, so a bar would make a chapter fail on a slow one.
"""
from __future__ import annotations

from ._checks import check_bool

#: Seconds of work after which ``progress=None`` starts showing a bar.
PROGRESS_DELAY = 2.0


class _NoBar:
    """Stands in for a tqdm bar when none may be shown (``progress=False``)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False

    def update(self, n=1):
        pass

    def set_postfix(self, *args, **kwargs):
        pass


def progress_bar(progress, total, desc, unit):
    """A context manager with tqdm's ``update`` and ``set_postfix``, following ``progress``."""
    progress = check_bool(progress, "progress", allow_none=True)
    if progress is False:
        return _NoBar()
    from tqdm.auto import tqdm  # here, not at the top: see the module docstring

    # tqdm's delay holds the bar back (std and notebook alike, tqdm >= 4.60)
    # and, if the work ends first, prints nothing at all.
    return tqdm(total=total, desc=desc, unit=unit, delay=0.0 if progress else PROGRESS_DELAY)
