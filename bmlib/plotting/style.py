"""The book's visual style and the drawing pieces every figure shares.

Colours and fonts are fixed here, once, for the whole book: red for positive
weights (the two units prefer to agree), blue for negative ones (they prefer
to disagree), dark for a unit that is on (+1 or 1), white for one that is off.
"""
from __future__ import annotations

import numpy as np
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.colors import LinearSegmentedColormap, ListedColormap

from .._checks import check_states, check_units, infer_units
from .fit import BookFigure

POSITIVE = "#c0392b"  # w_ij > 0 or b_i > 0
NEGATIVE = "#2e6fba"  # w_ij < 0 or b_i < 0
# Fills and lines that carry meaning have at least 3 : 1 contrast on white
# (WCAG 1.4.11); tests/test_figure_words.py checks these and SERIES.
NEUTRAL = "#8a8a8a"  # ordinary states in bar charts
HIGHLIGHT = "#c47a00"  # stable states (local minima of the energy)
UNIT_ON = "#262626"
# Text needs 4.5 : 1 contrast on white (checked in _fit.py); the fills above are paler.
NEUTRAL_TEXT = "#6e6e6e"
HIGHLIGHT_TEXT = "#a35c00"


def text_colour(colour):
    """The colour to write text in for a line or fill of ``colour``: the pale ones darkened."""
    return {NEUTRAL: NEUTRAL_TEXT, HIGHLIGHT: HIGHLIGHT_TEXT}.get(colour, colour)
UNIT_OFF = "#ffffff"

#: The probability of a unit (a pixel) being on: 0 white, 1 the colour of a unit that is on.
PROBABILITY_CMAP = LinearSegmentedColormap.from_list("bm_on", [UNIT_OFF, UNIT_ON])
#: Negative weights blue, none white, positive red: the book's weight colours on an image.
WEIGHT_CMAP = LinearSegmentedColormap.from_list("bm_weights", [NEGATIVE, "#ffffff", POSITIVE])

#: Styles for several curves in one panel, in order. Colour is never the only
#: difference: each also has its own dash and marker, so the curves stay apart
#: in greyscale print and for readers with a colour-vision deficiency. The
#: colours (Okabe and Ito's palette, its paler members darkened) stay
#: distinguishable under simulated deuteranopia and protanopia, and each has
#: at least 3 : 1 contrast on white.
SERIES = (
    dict(color="#0072b2", ls="-", marker="o"),
    dict(color="#d55e00", ls="--", marker="s"),
    dict(color="#009e73", ls="-.", marker="^"),
    dict(color="#262626", ls=":", marker="D"),
    dict(color="#a8508a", ls=(0, (6, 2, 1, 2, 1, 2)), marker="v"),
)


def series_style(k, marker=True):
    """Keyword arguments for ``ax.plot`` of the ``k``-th curve of a panel (cycling through :data:`SERIES`).

    ``marker=False`` leaves the marker out (for curves with many points,
    where the dash carries the difference).
    """
    style = dict(SERIES[k % len(SERIES)])
    if not marker:
        style.pop("marker")
    return style
_ON_OFF = ListedColormap([UNIT_OFF, UNIT_ON])  # state strips: off white, on dark
FONT_SIZE = 9

#: Up to this many units a network shows its weight values and a state strip its cell borders.
MAX_LABELLED_UNITS = 6
#: Up to this many units each state also gets a text label ("+-+-") under its column.
MAX_TEXT_LABEL_UNITS = 4
#: Largest network whose energy landscape is drawn state by state (2**10 bars).
MAX_LANDSCAPE_UNITS = 10


def state_labels(states, units=None):
    """Short text labels for states: ``"+-+"`` for spins, ``"101"`` for bits.

    Parameters
    ----------
    states : array_like of shape (n,) or (m, n)
    units : {"spins", "bits"}, optional
        Inferred from ``states`` if omitted (an all-ones state reads as spins: the rule in :mod:`bmlib.models.states`).

    Returns
    -------
    str, or list of str of length m

    Examples
    --------
    >>> bm.state_labels([[1, -1, 1], [-1, -1, 1]])
    ['+-+', '--+']
    >>> bm.state_labels([1, 0, 1], units="bits")
    '101'
    """
    arr = np.asarray(states)
    if arr.ndim not in (1, 2):
        raise ValueError(f"states must have shape (n,) or (m, n); got shape {arr.shape}")
    units = check_units(units) if units is not None else infer_units(arr, "states")
    check_states(arr, arr.shape[-1] if arr.ndim else 1, units, name="states")
    symbols = {"spins": {-1: "-", 1: "+"}, "bits": {0: "0", 1: "1"}}[units]
    rows = ["".join(symbols[int(v)] for v in row) for row in np.atleast_2d(arr)]
    return rows[0] if arr.ndim == 1 else rows


def tidy(ax):
    """Apply the book's font size and drop the top/right frame lines."""
    ax.tick_params(labelsize=FONT_SIZE)
    ax.spines[["top", "right"]].set_visible(False)


#: Where a weight label may sit along its edge (0 and 1 are the two units), in order of
#: preference, and how far (in units of the circle's radius) it must keep from the units and
#: from the labels placed before it.
_LABEL_SPOTS = (0.3, 0.7, 0.4, 0.6, 0.5)
_LABEL_CLEARANCE = 0.32


def draw_network(ax, W, b=None, s=None, show_values=None):
    """Units on a circle, edges coloured by the sign of w_ij, width by |w_ij|.

    Edges and units are one collection each (not one artist per edge), which
    keeps the widget's redraw fast.
    """
    n = W.shape[0]
    angles = np.pi / 2 - 2 * np.pi * np.arange(n) / n  # unit 0 on top, clockwise
    xy = np.column_stack([np.cos(angles), np.sin(angles)])
    show_values = n <= MAX_LABELLED_UNITS if show_values is None else show_values
    i, j = np.triu_indices(n, 1)
    keep = W[i, j] != 0
    i, j, w = i[keep], j[keep], W[i[keep], j[keep]]
    colours = np.where(w > 0, POSITIVE, NEGATIVE)
    widths = 0.8 + 4 * np.abs(w) / max(np.abs(w).max(initial=0), 1e-12)
    ax.add_collection(LineCollection(np.stack([xy[i], xy[j]], axis=1), colors=colours, linewidths=widths))
    on = np.zeros(n, bool) if s is None else np.asarray(s) == 1
    fill = np.where(on, UNIT_ON, UNIT_OFF if s is not None else "#eeeeee")
    ax.scatter(*xy.T, s=(14 * FONT_SIZE / 9) ** 2 * 2.2, c=fill, edgecolors=UNIT_ON, linewidths=1.2, zorder=3)
    for k in range(n):
        ax.text(*xy[k], str(k), color="white" if on[k] else UNIT_ON, fontsize=FONT_SIZE + 1,
                ha="center", va="center", zorder=4)
    if show_values:
        # Each weight label sits on its own edge, at the first of a few places along it that
        # keeps clear of the units and of the labels placed before it: crossing diagonals meet
        # in the middle, so their labels cannot all sit there.
        placed = list(xy)
        for a, c, value, colour in zip(i, j, w, colours):
            spots = [(1 - t) * xy[a] + t * xy[c] for t in _LABEL_SPOTS]
            clear = [min(np.hypot(*(spot - q)) for q in placed) for spot in spots]
            spot = next((p for p, d in zip(spots, clear) if d >= _LABEL_CLEARANCE), spots[int(np.argmax(clear))])
            placed.append(spot)
            ax.text(*spot, f"{value:g}", color=colour, fontsize=FONT_SIZE - 1,
                    ha="center", va="center", backgroundcolor="white", zorder=2)
        # A bias label starts just outside its unit's circle and runs away from the network, an
        # offset in points, so that it clears the circle at any panel size (the widget's is small).
        for k in np.flatnonzero(b if b is not None else []):
            x, y = xy[k]
            ax.annotate(f"b={b[k]:g}", xy[k], xytext=(15 * x, 15 * y), textcoords="offset points",
                        color=POSITIVE if b[k] > 0 else NEGATIVE, fontsize=FONT_SIZE,
                        ha="center" if abs(x) < 0.3 else "left" if x > 0 else "right",
                        va="center" if abs(y) < 0.3 else "bottom" if y > 0 else "top")
    ax.set(xlim=(-1.75, 1.75), ylim=(-1.75, 1.75), aspect="equal")
    ax.axis("off")
    ax.text(0.03, 0.04, "w > 0", color=POSITIVE, fontsize=FONT_SIZE - 1, transform=ax.transAxes)
    ax.text(0.03, -0.02, "w < 0", color=NEGATIVE, fontsize=FONT_SIZE - 1, transform=ax.transAxes)


def bars(ax, heights, colours):
    """One bar per state, as a single PolyCollection.

    One artist instead of 2**n Rectangles keeps a fresh figure fast enough
    for a widget that redraws on every slider step.
    """
    verts = np.empty((len(heights), 4, 2))
    verts[..., 0] = np.arange(len(heights))[:, None] + [-0.4, -0.4, 0.4, 0.4]
    verts[..., 1] = heights[:, None] * [0, 1, 1, 0]
    ax.add_collection(PolyCollection(verts, facecolors=colours, edgecolors="none"))
    low, high = min(0.0, heights.min()), max(0.0, heights.max())
    pad = 0.06 * (high - low or 1.0)
    ax.set(xlim=(-0.6, len(heights) - 0.4), ylim=(low - pad * (low < 0), high + pad))


def _draw_strip(ax, states):
    """States as columns of cells, unit 0 on top: dark for on (+1 or 1), light for off."""
    m, n = states.shape
    edges = NEUTRAL if m <= 2**MAX_LABELLED_UNITS else "face"
    ax.pcolormesh(np.arange(m + 1) - 0.5, np.arange(n + 1) - 0.5, (states == 1).T, cmap=_ON_OFF,
                  vmin=0, vmax=1, edgecolors=edges, lw=0.5)
    ax.set(ylim=(n - 0.5, -0.5), xticks=[], yticks=[])
    tidy(ax)


def _new_figure(figsize):
    # pyplot (imported here, not at module level) registers the figure with
    # the notebook's inline backend, which shows it once after the cell.
    import matplotlib.pyplot as plt

    return plt.figure(figsize=figsize, layout="constrained", FigureClass=BookFigure)
