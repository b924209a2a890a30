"""Figures that read at the width the book shows them.

The book's text column is ``COLUMN_PX`` CSS pixels wide (measured in
``tests/test_browser.py``, which fails if the theme makes it narrower). A
figure wider than that is scaled down to fit, and its text with it, so the
smallest letters a reader sees depend on the font size *and* on the figure's
width. Every figure bmlib draws is a :class:`BookFigure`. Before each draw it
raises any text that would show smaller than ``MIN_TEXT_PX`` at the width the
page will show it to that size (the layout engine then makes room), so no
figure function, and no figure width, can produce unreadable letters. After
the draw it checks what it cannot fix: text in a colour too pale to read on
white is reported with a :class:`FigureTextWarning`. In a chapter the warning
lands in the cell's output, so the re-executed chapter no longer matches its
stored outputs and the test fails.
"""
from __future__ import annotations

import warnings

from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.text import Text

#: Resolution of every figure and widget picture (the notebook's inline default, fixed here).
DPI = 100
#: Width of the book's text column in CSS pixels, with the sidebars shown (1280 px window).
COLUMN_PX = 688
#: Smallest text height, in CSS pixels at the width the page shows the figure.
MIN_TEXT_PX = 9.0
#: Smallest contrast of dark text on white (WCAG's 4.5 : 1 for ordinary text).
MIN_CONTRAST = 4.5


class FigureTextWarning(UserWarning):
    """A figure has text too small or too pale to read at the book's column width."""


def _luminance(colour):
    """Relative luminance as WCAG defines it, 0 (black) to 1 (white)."""
    channels = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(colour)]
    return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]


def contrast_on_white(colour):
    """WCAG contrast ratio of ``colour`` against white: 1 (invisible) to 21 (black)."""
    return 1.05 / (_luminance(colour) + 0.05)


def text_scale(fig):
    """CSS pixels per point of font size, at the width the book shows ``fig``.

    A figure ``w`` inches wide is ``w * dpi`` pixels; the page shows it at
    that width, or at ``COLUMN_PX`` if it is wider.
    """
    native = fig.get_figwidth() * fig.dpi
    return fig.dpi / 72 * min(1.0, COLUMN_PX / native)


def unreadable_text(fig):
    """The texts of ``fig`` that break the book's rules, as readable strings.

    A text counts if it is visible and not empty. Light text (luminance above
    one half) is taken to sit on a dark fill, such as a unit's number on a
    unit that is on, and text with its own background box is read against
    that box; the contrast rule skips both.
    """
    scale = text_scale(fig)
    problems = []
    for text in fig.findobj(Text):
        label = text.get_text().strip()
        if not label or not text.get_visible():
            continue
        height = text.get_fontsize() * scale
        if height < MIN_TEXT_PX - 1e-9:
            problems.append(f"{label[:30]!r} is {height:.1f} px tall (at least {MIN_TEXT_PX:g} px)")
        colour = text.get_color()
        if _luminance(colour) <= 0.5 and text.get_bbox_patch() is None:
            ratio = contrast_on_white(colour)
            if ratio < MIN_CONTRAST:
                problems.append(f"{label[:30]!r} has contrast {ratio:.1f} : 1 on white (at least {MIN_CONTRAST:g})")
    return problems


def raise_small_text(fig):
    """Set every text of ``fig`` that would show under ``MIN_TEXT_PX`` to exactly that size."""
    smallest = MIN_TEXT_PX / text_scale(fig)  # in points
    for text in fig.findobj(Text):
        if text.get_fontsize() < smallest:
            text.set_fontsize(smallest)


class BookFigure(Figure):
    """A Matplotlib figure whose text always reads in the book, and that carries its own words.

    The text rule is in the module docstring. The words are a
    :class:`~bmlib.plotting.words.FigureDescription` that the drawing
    function attaches as ``description`` (``None`` until one does).
    """

    #: What the figure shows, in words; set by the function that draws it.
    description = None

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("dpi", DPI)
        super().__init__(*args, **kwargs)

    def _ipython_display_(self):
        """Show the picture with its words, as two outputs of the cell.

        1. The picture, as the notebook's inline backend draws it, with the
           summary as the output's ``image/png`` ``alt`` metadata (the book's
           ``figure_words`` extension makes it the HTML ``alt``, and the PDF
           carries it from there) and as its ``text/plain``.
        2. The whole description as a folded box under the picture: JupyterLab
           shows no ``alt`` for an image output, so this is what a screen
           reader finds there, and what the PDF prints below the figure.

        Both outputs are stored in the chapters and compared when they are
        re-executed, so the words are tested like any printed number.
        """
        from IPython import get_ipython
        from IPython.display import display

        from .words import description_of

        shell = get_ipython()
        png = shell.display_formatter.formatters["image/png"](self) if shell is not None else None
        if png is None:  # no inline backend (a terminal IPython): the usual text, as without this method
            display({"text/plain": repr(self)}, raw=True)
            return
        words = description_of(self)
        display({"image/png": png, "text/plain": words.plain("Figure: ")}, raw=True,
                metadata={"image/png": {"alt": words.summary}})
        display({"text/html": words.html(), "text/plain": words.plain("The figure in words: ", whole=True)},
                raw=True)

    def draw(self, renderer):
        raise_small_text(self)
        super().draw(renderer)
        problems = unreadable_text(self)
        if problems:
            shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
            warnings.warn(f"figure text that will not read at the book's column width ({COLUMN_PX} px): {shown}",
                          FigureTextWarning, stacklevel=2)
