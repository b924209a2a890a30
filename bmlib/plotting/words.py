"""Every figure in words: the text alternative each bmlib figure carries.

A reader who cannot see a figure (a screen reader, a braille display, a
text-only view of the notebook) gets what a sighted reader takes from it:
what is plotted against what, over which range, and the one thing the figure
shows, with its numbers. The words are written by the same ``_draw_*``
function that draws the picture, from the same arrays, so they cannot drift
from it; a widget's words change with its sliders.

A description has two parts (:class:`FigureDescription`): a ``summary`` of
one or two sentences, which becomes the image's ``alt`` text in the HTML book
and the PDF, and optional ``details`` (numbers per curve or panel) for a
figure too rich for one sentence, shown next to the figure. How they reach
each place the book is read is in :meth:`BookFigure._ipython_display_
<bmlib.plotting.fit.BookFigure._ipython_display_>`.

Numbers are written with :func:`number`: few significant digits, so that the
words are the same on every machine (they are stored in the chapters and
compared when the chapters are re-executed).
"""
from __future__ import annotations

import html
import math
import textwrap
from dataclasses import dataclass

import numpy as np

from .._warnings import WIDTH

#: Opening words of a description that bmlib made up from a figure's labels
#: because no drawing function described it; the book's tests refuse it.
FALLBACK_OPENING = "A figure without a written description"


@dataclass(frozen=True)
class FigureDescription:
    """What a figure shows, in words.

    Attributes
    ----------
    summary : str
        One or two sentences: what is plotted against what, and the one thing
        the figure shows, with its numbers. Becomes the image's ``alt`` text.
    details : str
        More numbers (per curve, per panel) for a reader who wants them; may
        be empty.
    """

    summary: str
    details: str = ""

    @property
    def text(self):
        """The summary and the details as one paragraph."""
        return f"{self.summary} {self.details}".strip()

    def plain(self, lead, whole=False):
        """The summary (``whole``: the whole text) after ``lead``, folded to the book's column.

        For plain-text views of a notebook (a terminal, a diff, ``nbconvert
        --to markdown``), where it stands in for the picture. Only spaces
        become line breaks, so joining the lines with spaces gives the text back.
        """
        return textwrap.fill(lead + (self.text if whole else self.summary), WIDTH,
                             break_long_words=False, break_on_hyphens=False)

    def html(self):
        """A folded box with the whole description, placed under the figure."""
        return ('<details class="bm-figure-words"><summary>The figure in words</summary>'
                f"<p>{html.escape(self.text)}</p></details>")


def describe(fig, summary, details=""):
    """Attach a description to ``fig`` (replacing any earlier one) and return ``fig``.

    ``summary`` and ``details`` are sentences; lists of sentences are joined
    with spaces, and empty parts are dropped.
    """
    summary, details = (_join(part) for part in (summary, details))
    if not summary:
        raise ValueError("a figure description needs a summary; got an empty one")
    fig.description = FigureDescription(summary, details)
    return fig


def description_of(fig):
    """The figure's description, or one made up from its axes' labels (see ``FALLBACK_OPENING``)."""
    found = getattr(fig, "description", None)
    if found is not None:
        return found
    panels = []
    for ax in fig.get_axes():
        parts = [ax.get_title(), ax.get_ylabel(), ax.get_xlabel()]
        title, y, x = (" ".join(p.split()) for p in parts)
        if y and x:
            panels.append(f"{title + ': ' if title else ''}{y} against {x}")
        elif title:
            panels.append(title)
    shown = "; ".join(panels) if panels else "no labelled axes"
    count = len(fig.get_axes())
    return FigureDescription(f"{FALLBACK_OPENING}, with {count} panel{'s' * (count != 1)}: {shown}.")


def number(x, digits=2):
    """``x`` with ``digits`` significant digits, a real minus sign and no ``-0``.

    Written out in full from 0.0001 to a million (``120``, not ``1.2e+02``:
    a screen reader reads the first as a number); beyond, as ``1.2e-05``.

    >>> from bmlib.plotting.words import number
    >>> number(-0.5013), number(123.4), number(98765), number(-0.0001, 1)
    ('−0.5', '120', '99000', '−0.0001')
    >>> number(0.5), number(2.0), number(1.25e-7), number(float("inf"))
    ('0.5', '2', '1.2e-07', 'infinity')
    """
    x = float(x)
    if math.isnan(x):
        return "not a number"
    if math.isinf(x):
        return "infinity" if x > 0 else "minus infinity"
    text = f"{x:.{digits}g}"  # Python's correctly rounded significant digits decide; the rest is layout
    value = float(text)
    if value == 0.0:
        return "0"
    if "e" in text and 1e-4 <= abs(value) < 1e6:
        text = np.format_float_positional(value, trim="-")
    return "\u2212" + text[1:] if text.startswith("-") else text


def share(x, digits=2):
    """A fraction or probability in [0, 1], as :func:`number` writes it, but never rounded to 0 or 1.

    ``0.996`` of the probability is not all of it: a reader told "1" counts a
    certainty. Digits are added until the value no longer reads as 0 or 1.

    >>> from bmlib.plotting.words import share
    >>> share(0.43), share(0.996), share(0.99996), share(1.0), share(0.0004)
    ('0.43', '0.996', '0.99996', '1', '0.0004')
    """
    x = float(x)
    text = number(x, digits)
    while text in ("0", "1") and x not in (0.0, 1.0) and digits < 12:
        digits += 1
        text = number(x, digits)
    return text


def span(values, digits=2):
    """``"from a to b"`` for the smallest and largest of ``values`` (finite ones only)."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return "with no finite values"
    low, high = values.min(), values.max()
    if number(low, digits) == number(high, digits):
        return f"all {number(low, digits)}"
    return f"from {number(low, digits)} to {number(high, digits)}"


def ranked(values, digits=2):
    """Indices of ``values`` from the largest down, as their written values rank them.

    Values that read the same with ``digits`` significant digits are ties,
    and ties go by index: an order decided by the last bits of a float could
    differ between machines, and the words are stored and compared.

    >>> from bmlib.plotting.words import ranked
    >>> ranked([0.4800001, 0.48, 0.04]).tolist()
    [0, 1, 2]
    >>> ranked([0.48, 0.4800001, 0.04]).tolist()
    [0, 1, 2]
    """
    shown = np.array([float(number(v, digits).replace("\u2212", "-")) if np.isfinite(v) else v
                      for v in np.asarray(values, dtype=float)])
    return np.lexsort((np.arange(len(shown)), -shown))


def count(n, singular, plural=None):
    """``"1 chain"``, ``"3 chains"``."""
    return f"{n} {singular if n == 1 else (plural or singular + 's')}"


def _join(part):
    if isinstance(part, str):
        return " ".join(part.split())
    return " ".join(" ".join(p.split()) for p in part if p and p.strip())
