"""Figures and self-check messages that fit the book's column (bmlib/plotting/fit.py, fits_column)."""
import warnings

import numpy as np
import pytest

import bmlib as bm
from bmlib.exercises._common import REPORT_WIDTH, fits_column
from bmlib.plotting.fit import COLUMN_PX, DPI, MIN_TEXT_PX, BookFigure, FigureTextWarning, contrast_on_white, unreadable_text


def drawn(figsize, **text):
    fig = BookFigure(figsize=figsize)
    fig.text(0.5, 0.5, "label", **text)
    return fig


def test_text_size_is_measured_at_the_width_the_page_shows():
    # 9 pt at 100 dpi is 12.5 px; a 13.76-inch figure is shown at half size: 6.25 px.
    assert unreadable_text(drawn((COLUMN_PX / DPI, 3), fontsize=9)) == []
    problems = unreadable_text(drawn((2 * COLUMN_PX / DPI, 3), fontsize=9))
    assert len(problems) == 1 and "6.2 px" in problems[0]
    # The limit itself: exactly MIN_TEXT_PX passes, a hair below fails.
    size = MIN_TEXT_PX * 72 / DPI
    assert unreadable_text(drawn((5, 3), fontsize=size)) == []
    assert unreadable_text(drawn((5, 3), fontsize=size * 0.99)) != []


def test_pale_text_is_refused_but_light_text_on_a_dark_fill_is_not():
    assert contrast_on_white("black") == pytest.approx(21)
    assert unreadable_text(drawn((5, 3), fontsize=10, color="#a0a0a0")) != []  # 2.6 : 1
    assert unreadable_text(drawn((5, 3), fontsize=10, color="#6e6e6e")) == []  # 5.1 : 1
    assert unreadable_text(drawn((5, 3), fontsize=10, color="white")) == []
    assert unreadable_text(drawn((5, 3), fontsize=10, color="#a0a0a0", backgroundcolor="black")) == []


def test_drawing_raises_small_text_to_the_minimum_and_warns_about_pale_text():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = drawn((2 * COLUMN_PX / DPI, 3), fontsize=4)  # 4 pt, shown at half size: 2.8 px
    assert unreadable_text(fig) != []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FigureCanvasAgg(fig).draw()
    assert unreadable_text(fig) == []
    assert fig.texts[0].get_fontsize() == pytest.approx(MIN_TEXT_PX * 72 / DPI * 2)
    big = drawn((5, 3), fontsize=20)
    FigureCanvasAgg(big).draw()
    assert big.texts[0].get_fontsize() == 20  # larger text is left alone
    pale = drawn((5, 3), fontsize=10, color="#b0b0b0")
    FigureCanvasAgg(pale)
    with pytest.warns(FigureTextWarning, match="'label' has contrast 2.2 : 1"):
        pale.canvas.draw()


def test_widgets_draw_at_the_figures_resolution():
    widget = bm.energy_widget(np.array([[0.0, 1.0], [1.0, 0.0]]))
    from io import BytesIO

    from matplotlib.image import imread

    height, width = imread(BytesIO(widget.figure_png())).shape[:2]
    assert (width, height) == (round(widget.figsize[0] * DPI), round(widget.figsize[1] * DPI))


def test_checker_messages_are_folded_to_the_report_width(capsys):
    @fits_column
    def check(func):
        print("short line")
        print("  indented: " + " ".join(["word"] * 40))
        return 7

    assert check(None) == 7
    lines = capsys.readouterr().out.rstrip("\n").split("\n")
    assert lines[0] == "short line" and len(lines) > 3
    assert all(len(line) <= REPORT_WIDTH for line in lines)
    assert all(line.startswith("    word") for line in lines[2:])  # continuation: two more spaces
    assert " ".join(" ".join(line.split()) for line in lines[1:]) == "indented: " + " ".join(["word"] * 40)


def test_a_real_checker_report_fits(capsys):
    bm.check_energy_function(lambda s, W, b: -(s @ W @ s) - b @ s, hint=True)  # the pair term twice
    out = capsys.readouterr().out
    assert "twice" in out and max(map(len, out.split("\n"))) <= REPORT_WIDTH
