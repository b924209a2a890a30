"""Every figure bmlib draws carries its words, and the book's colours work for every reader.

The per-chapter files (``test_figure_words_<chapter>.py``) check that each
description's numbers are the data's. This file checks what holds for all of
them: every public ``plot_*`` function and every widget writes a description
of its own (never the made-up fallback), short enough for an ``alt``; the
display hook gives the picture and its words as two outputs; and the
palette's colours stay apart under simulated deuteranopia and protanopia and
have 3 : 1 contrast on white.
"""
import html

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.colors import to_rgb

import bmlib as bm
from _fuzz_cases import cases
from bmlib.plotting import style as _style
from bmlib.plotting.fit import BookFigure, contrast_on_white
from bmlib.plotting.words import FALLBACK_OPENING, FigureDescription, describe, description_of, number, ranked

CASES = {name: (func, kwargs) for name, func, kwargs in cases()}
PLOTS = sorted(name for name in CASES if name.startswith("plot_"))
WIDGETS = sorted(name for name in CASES if name.endswith("_widget"))
#: An alt text longer than this is a paragraph, not a summary (the details hold the rest).
MAX_SUMMARY = 600


def test_every_public_figure_and_widget_is_covered():
    public_plots = {n for n in bm.__all__ if n.startswith("plot_")}
    public_widgets = {n for n in bm.__all__ if n.endswith("_widget")}
    assert public_plots == set(PLOTS), "a plot function without a case in tests/_fuzz_cases.py"
    assert public_widgets == set(WIDGETS), "a widget without a case in tests/_fuzz_cases.py"


@pytest.mark.parametrize("name", PLOTS)
def test_every_plot_function_describes_its_figure(name):
    func, kwargs = CASES[name]
    fig = func(**kwargs)
    try:
        words = fig.description
        assert isinstance(words, FigureDescription), f"{name} wrote no description"
        assert not words.summary.startswith(FALLBACK_OPENING)
        assert 40 <= len(words.summary) <= MAX_SUMMARY, (len(words.summary), words.summary)
        assert any(ch.isdigit() for ch in words.text), f"{name}'s words carry no number: {words.text}"
        assert "nan" not in words.text.lower().split() and "e+" not in words.text, words.text
    finally:
        plt.close(fig)


@pytest.mark.parametrize("name", WIDGETS)
def test_every_widget_describes_its_picture_and_carries_it_to_the_static_page(name):
    func, kwargs = CASES[name]
    widget = func(**kwargs)
    words = widget.figure_description
    assert isinstance(words, FigureDescription) and not words.summary.startswith(FALLBACK_OPENING)
    data, metadata = widget._repr_mimebundle_()
    assert metadata["image/png"]["alt"] == words.text
    assert data["text/plain"].endswith(words.plain("Figure: "))
    assert widget._image.tooltip == words.summary  # the live picture's accessible name
    assert html.escape(words.text) in widget._words.value and 'aria-live="polite"' in widget._words.value


def test_a_figure_without_words_gets_a_labelled_fallback_that_the_book_refuses():
    fig = plt.figure(FigureClass=BookFigure)
    ax = fig.add_subplot()
    ax.plot([0, 1], [1, 0])
    ax.set(xlabel="time", ylabel="height", title="a fall")
    words = description_of(fig)
    assert words.summary.startswith(FALLBACK_OPENING)
    assert "a fall: height against time" in words.summary
    describe(fig, "A line falling from 1 to 0.", ["Drawn by hand.", ""])
    assert description_of(fig) == FigureDescription("A line falling from 1 to 0.", "Drawn by hand.")
    with pytest.raises(ValueError, match="summary"):
        describe(fig, "  ")
    plt.close(fig)


def test_the_display_hook_gives_the_picture_with_its_alt_and_then_its_words(monkeypatch):
    """What a notebook stores: the inline backend's PNG with the summary as alt, then a folded box."""
    import IPython
    import IPython.display

    class Formatters:
        formatters = {"image/png": lambda fig: "UE5H"}

    class Shell:
        display_formatter = Formatters()

    # Drawn before the fake shell is in place: pyplot's first figure asks IPython for its event hooks.
    fig = bm.plot_flip_probabilities(T=1.0, max_delta=4.0)
    shown = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: Shell())
    monkeypatch.setattr(IPython.display, "display", lambda obj, **kw: shown.append((obj, kw)))
    fig._ipython_display_()
    plt.close(fig)
    (picture, kw1), (box, kw2) = shown
    summary = fig.description.summary
    assert picture == {"image/png": "UE5H", "text/plain": fig.description.plain("Figure: ")}
    assert " ".join(picture["text/plain"].split()) == f"Figure: {summary}"  # folded, not changed
    assert max(len(line) for line in (picture["text/plain"] + "\n" + box["text/plain"]).split("\n")) <= 77
    assert kw1 == {"raw": True, "metadata": {"image/png": {"alt": summary}}}
    assert box["text/html"].startswith('<details class="bm-figure-words"><summary>The figure in words')
    assert fig.description.text in " ".join(box["text/plain"].split()) and kw2 == {"raw": True}


def test_words_escape_html_and_order_ties_by_index():
    words = FigureDescription("a < b & c", "")
    assert "a &lt; b &amp; c" in words.html()
    assert ranked([0.5, 0.5000000001, 0.7]).tolist() == [2, 0, 1]
    assert number(-0.0) == "0" and number(-2.5e-3) == "\u22120.0025" and number(-1e-20) == "\u22121e-20"


# --- colour: never the only carrier, and visible to every reader -----------------------------

# Machado, Oliveira & Fernandes (2009), severity 1, applied to linear RGB.
_SIMULATE = {
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
}


def _linear(c):
    c = np.asarray(c)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(linear_rgb):
    """CIELAB (D65) of a linear RGB colour."""
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ linear_rgb
    f = np.cbrt(np.maximum(xyz / [0.9505, 1.0, 1.089], 0))
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _smallest_difference(colours, vision):
    seen = [_lab(np.clip(_SIMULATE[vision] @ _linear(to_rgb(c)), 0, 1)) for c in colours]
    return min(np.linalg.norm(seen[i] - seen[j]) for i in range(len(seen)) for j in range(i))


PALETTES = {
    "curves (SERIES)": [s["color"] for s in _style.SERIES],
    "weight signs": [_style.POSITIVE, _style.NEGATIVE],
    "bars (ordinary, stable, unit on)": [_style.NEUTRAL, _style.HIGHLIGHT, _style.UNIT_ON],
}


@pytest.mark.parametrize("vision", sorted(_SIMULATE))
@pytest.mark.parametrize("palette", sorted(PALETTES))
def test_palettes_stay_apart_for_readers_with_a_colour_vision_deficiency(palette, vision):
    # 10 CIELAB units: clearly different side by side (2.3 is a just-noticeable difference).
    # Curves also differ by dash and marker, so this is the second line of defence, not the only one.
    assert _smallest_difference(PALETTES[palette], vision) >= 10


def test_the_simulation_would_catch_red_against_green():
    assert _smallest_difference(["#d62728", "#2ca02c"], "deuteranopia") < 10  # the classic failure


@pytest.mark.parametrize("colour", [s["color"] for s in _style.SERIES] + [_style.POSITIVE, _style.NEGATIVE,
                                    _style.NEUTRAL, _style.HIGHLIGHT, _style.UNIT_ON])
def test_colours_that_carry_meaning_have_3_to_1_contrast_on_white(colour):
    assert contrast_on_white(colour) >= 3.0


def test_each_series_style_differs_in_dash_and_marker_not_only_colour():
    styles = _style.SERIES
    assert len({str(s["ls"]) for s in styles}) == len({s["marker"] for s in styles}) == len(styles)
    assert "marker" not in _style.series_style(1, marker=False)
    assert _style.series_style(len(styles)) == _style.series_style(0)


def _hollow(line):
    face = line.get_markerfacecolor()
    return isinstance(face, str) and face.lower() == "none" or to_rgb(face) == (1.0, 1.0, 1.0)


def test_plot_functions_have_no_default_colour_cycle_left_in_multi_curve_panels():
    """A panel with several labelled curves gives each its own dash or marker, not only a colour."""
    offenders = []
    for name in PLOTS:
        func, kwargs = CASES[name]
        fig = func(**kwargs)
        for ax in fig.axes:
            lines = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_") and len(ln.get_xdata()) > 1]
            looks = {(str(ln.get_linestyle()), str(ln.get_marker()), ln.get_fillstyle(), _hollow(ln)) for ln in lines}
            if len(looks) < len(lines):
                same = [ln.get_label() for ln in lines]
                offenders.append(f"{name}: curves {same} differ by colour only")
        plt.close(fig)
    assert offenders == [], "\n".join(offenders)

