"""The widget of the chapter "Restricted Boltzmann machines": the hidden code of each image, and completions of hidden pixels."""
from __future__ import annotations

import ipywidgets
import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.colors import ListedColormap

from .._checks import check_choice, check_count, check_integer
from .._ties import first_best
from ..models.datasets import bars_and_stripes
from ..learning.rbm import RBM
from ..learning.training import train
from ..plotting.style import FONT_SIZE, NEUTRAL, PROBABILITY_CMAP, UNIT_OFF, UNIT_ON, tidy
from ..plotting.words import count, describe, number, ranked, span
from ._base import BlittedFigureWidget

#: Most pixels the widget hides at once: the completion enumerates their 2**k values on every step.
MAX_HIDDEN_PIXELS = 8
#: Input image: off white, on dark, hidden pixels grey.
_INPUT_COLOURS = ListedColormap([UNIT_OFF, UNIT_ON, NEUTRAL])


def _hide_options(side):
    """Name -> flat indices of the pixels to hide: nothing, each row, each column, the centre."""
    grid = np.arange(side * side).reshape(side, side)
    options = {"nothing": np.array([], dtype=int)}
    for k in range(side):
        row = {0: "top row", side - 1: "bottom row"}.get(k, f"row {k}")
        options[row] = grid[k]
    for k in range(side):
        column = {0: "left column", side - 1: "right column"}.get(k, f"column {k}")
        options[column] = grid[:, k]
    if side % 2:
        options["centre pixel"] = np.array([grid[side // 2, side // 2]])
    return options


def _default_rbm(data, n_hidden, epochs, rng):
    """An RBM trained on ``data`` with the exact gradient (the widget's model when none is given)."""
    rbm = RBM(data.shape[1], n_hidden, units="bits", init_scale=0.1, rng=rng)
    train(rbm, data, epochs=epochs, learning_rate=0.2, momentum=0.5, monitor=None, progress=False, rng=rng)
    return rbm


class HiddenWidget(BlittedFigureWidget):
    """A pattern slider and a choice of pixels to hide, above an RBM's hidden code and completion.

    Build it with :func:`hidden_widget`. Everything that does not depend on
    the controls (the model, its ``log Z``, the patterns) is fixed when the
    widget is built; a step computes the completion by enumerating the
    ``2**k`` values of the ``k`` hidden pixels (at most a few) and redraws.
    """

    figsize = (9.6, 3.1)

    def __init__(self, rbm=None, data=None, n_hidden=16, epochs=1000, pattern=0, hide="nothing", rng=0):
        if data is None:
            side = int(round(np.sqrt(rbm.n_visible))) if isinstance(rbm, RBM) else 3
            data = bars_and_stripes(side, units="bits")
        data = np.asarray(data)
        if data.ndim != 2:
            raise ValueError(f"data must have shape (P, n_visible), one image per row; got shape {data.shape}")
        side = int(round(np.sqrt(data.shape[1])))
        if side * side != data.shape[1]:
            raise ValueError(f"hidden_widget shows square images; data has {data.shape[1]} pixels per row")
        if side > MAX_HIDDEN_PIXELS:
            raise ValueError(f"hidden_widget hides whole rows and enumerates their values; images must be at most "
                             f"{MAX_HIDDEN_PIXELS} x {MAX_HIDDEN_PIXELS} pixels, got {side} x {side}")
        if rbm is None:
            rbm = _default_rbm(np.asarray(data, dtype=np.int8), check_count(n_hidden, "n_hidden", minimum=1),
                               check_count(epochs, "epochs", minimum=0), rng)
        if not isinstance(rbm, RBM):
            raise TypeError(f"rbm must be a bmlib RBM; got {type(rbm).__name__}")
        if rbm.units != "bits":
            raise ValueError(f"hidden_widget draws pixel images in bits; rbm has units={rbm.units!r} "
                             "(build it with bm.RBM(..., units='bits'))")
        if rbm.units != "bits":
            raise ValueError(f"hidden_widget shows RBMs in bits (pixels on or off); got units = {rbm.units!r}")
        self.rbm = rbm.copy()  # the reader's model stays theirs
        self.data = self.rbm._check_data(data)
        self.side = side
        self._options = _hide_options(side)
        self._log_z = self.rbm.log_partition()
        pattern = check_integer(pattern, "pattern", minimum=0, maximum=len(self.data) - 1)
        hide = check_choice(hide, "hide", tuple(self._options))
        self.pattern_slider = ipywidgets.IntSlider(value=pattern, min=0, max=len(self.data) - 1, description="pattern")
        self.hide_menu = ipywidgets.Dropdown(options=list(self._options), value=hide, description="hide")
        self.pattern_slider.observe(self._refresh, names="value")
        self.hide_menu.observe(self._refresh, names="value")
        super().__init__([ipywidgets.HBox([self.pattern_slider, self.hide_menu])])

    @property
    def pattern(self):
        """Index of the pattern shown (a row of :attr:`data`)."""
        return self.pattern_slider.value

    @property
    def hidden_pixels(self):
        """Flat indices of the pixels hidden from the model, a copy."""
        return self._options[self.hide_menu.value].copy()

    def completion(self):
        """Exact ``p(v_i = 1 | shown pixels)``, ``p(h_j = 1 | shown pixels)`` and ``log p`` of the pattern.

        Returns
        -------
        p_visible : ndarray of shape (n_visible,)
            1 or 0 on the pixels shown, the model's probability on the hidden ones.
        p_hidden : ndarray of shape (n_hidden,)
            Each hidden unit's probability of being on, the hidden pixels summed out.
        log_p : float
            ``log p(v)`` of the whole pattern (nothing hidden), in nats.
        """
        V, w = self._fills()
        v = self.data[self.pattern].astype(float)
        log_p = float(-self.rbm.free_energy(v) / self.rbm.T - self._log_z)
        return w @ V, w @ self.rbm.hidden_means(V), log_p

    def _fills(self):
        """Every way of filling the hidden pixels, shape (2**k, n_visible), and its conditional probability."""
        patterns, p = self.rbm.complete(self.data[self.pattern], self._options[self.hide_menu.value])
        return patterns.astype(float), p

    def _describe(self):
        r = self.rbm
        return (f"HiddenWidget: RBM with {r.n_visible} visible and {r.n_hidden} hidden units (bits), "
                f"{len(self.data)} patterns of {self.side} x {self.side} pixels, showing pattern {self.pattern} "
                f"with {self.hide_menu.value} hidden; run the notebook live to pick a pattern and the pixels to hide")

    # --- drawing: the figure is built once; a step updates its artists and redraws -------------------

    def _moving_artists(self):
        """What changes with the controls, in drawing order (pixel borders over the images)."""
        ax_in, ax_h, ax_out = self._figure.axes
        return [ax_in.images[0], ax_in.collections[0], *ax_in.texts, ax_in.title, *ax_h.patches, ax_h.title,
                ax_out.images[0], ax_out.collections[0], *ax_out.texts, ax_out.title]

    def _titles(self, log_p):
        return (f"image {self.pattern}: log p = {log_p:.2f}\n(best possible {-np.log(len(self.data)):.2f})",
                f"hidden units: p(h_j = 1 | shown pixels)\n({self.hide_menu.value} hidden)")

    def _input_image(self):
        image = self.data[self.pattern].astype(float).copy()
        image[self._options[self.hide_menu.value]] = 2  # grey
        return image.reshape(self.side, self.side)

    def _update(self):
        ax_in, ax_h, ax_out = self._figure.axes
        p_visible, p_hidden, log_p = self.completion()
        ax_in.images[0].set_data(self._input_image())
        self._mark_hidden(ax_in)
        ax_in.set_title(self._titles(log_p)[0], fontsize=FONT_SIZE)
        for bar, p in zip(ax_h.patches, p_hidden):
            bar.set_height(p)
        ax_h.set_title(self._titles(log_p)[1], fontsize=FONT_SIZE)
        ax_out.images[0].set_data(p_visible.reshape(self.side, self.side))
        self._label_pixels(ax_out, p_visible)
        ax_out.set_title(self._completion_title(), fontsize=FONT_SIZE)
        self._describe_state(self._figure, p_visible, p_hidden, log_p)

    def _describe_state(self, fig, p_visible, p_hidden, log_p):
        """The figure's words for the pattern and the hidden pixels shown, from the values it draws."""
        hidden = self._options[self.hide_menu.value]
        image = self.data[self.pattern]
        shown = ["?" if k in set(hidden.tolist()) else str(int(x)) for k, x in enumerate(image)]
        rows = "/".join("".join(shown[r * self.side:(r + 1) * self.side]) for r in range(self.side))
        n_h = len(p_hidden)
        likely = ranked(p_hidden)[:3]
        what = (f"the {self.hide_menu.value} ({count(len(hidden), 'pixel')}) hidden" if len(hidden)
                else "nothing hidden")
        summary = [f"Image {self.pattern} of {len(self.data)} ({self.side} × {self.side} pixels) with {what}: "
                   f"log p = {number(log_p)} (best possible {number(-np.log(len(self.data)))}); the RBM's "
                   f"{count(n_h, 'hidden unit')} are on with probability {span(p_hidden)}."]
        fill, p = self.best_fill()
        if fill is not None:
            summary.append(f"Its most probable fill of the hidden pixels is {fill}, with p = {number(p)}.")
        details = [f"The image as shown, row by row (1 on, 0 off, ? hidden): {rows}.",
                   f"Most probably on: hidden units " +
                   ", ".join(f"{j} ({number(p_hidden[j])})" for j in likely) + "."]
        if len(hidden):
            details.append("Completion, p(on) of each hidden pixel: " +
                           ", ".join(f"pixel {k} {number(p_visible[k])}" for k in hidden) + ".")
        describe(fig, summary, details)

    def _mark_hidden(self, ax):
        """A "?" on each hidden pixel of the input image: grey is not the only sign that it is hidden."""
        hidden = set(self._options[self.hide_menu.value].tolist())
        for k, text in enumerate(ax.texts):
            text.set_text("?" if k in hidden else "")

    def _completion_title(self):
        fills, p = self.best_fill()
        if fills is None:
            return "completion"
        return f"completion\nmost probable fill {fills}: p = {p:.2f}"

    def best_fill(self):
        """The most probable values of the hidden pixels given the others, as text, and their probability.

        Returns
        -------
        fill : str or None
            E.g. ``"101"`` for three hidden pixels in index order; None if nothing is hidden.
        p : float
            Its conditional probability (1.0 if nothing is hidden).
        """
        hidden = self._options[self.hide_menu.value]
        if not len(hidden):
            return None, 1.0
        V, w = self._fills()
        k = first_best(w)  # equally probable fills: the first in binary order, on every machine
        return "".join(str(int(x)) for x in V[k, hidden]), float(w[k])

    def _label_pixels(self, ax, p_visible):
        hidden = set(self._options[self.hide_menu.value].tolist())
        for k, text in enumerate(ax.texts):
            p = p_visible[k]
            text.set_text(f"{p:.2f}" if k in hidden else "")
            text.set_color("white" if p > 0.55 else UNIT_ON)

    def _draw(self, fig):
        p_visible, p_hidden, log_p = self.completion()
        grid = fig.add_gridspec(1, 3, width_ratios=[1, 2.6, 1], left=0.03, right=0.98, top=0.78, bottom=0.16,
                                wspace=0.25)
        ax_in = fig.add_subplot(grid[0])
        ax_in.imshow(self._input_image(), cmap=_INPUT_COLOURS, vmin=0, vmax=2, interpolation="nearest")
        for k in range(self.side * self.side):
            ax_in.text(k % self.side, k // self.side, "", ha="center", va="center", fontsize=FONT_SIZE + 2,
                       color=UNIT_ON, fontweight="bold")
        self._mark_hidden(ax_in)
        ax_in.set_title(self._titles(log_p)[0], fontsize=FONT_SIZE)
        ax_in.set_xlabel("shown to the model\n(grey ?: hidden)", fontsize=FONT_SIZE - 1)
        ax_h = fig.add_subplot(grid[1])
        n_h = len(p_hidden)
        ax_h.bar(np.arange(n_h), p_hidden, width=0.7, color=UNIT_ON)
        ax_h.set(xlim=(-0.6, n_h - 0.4), ylim=(0, 1.02), xticks=np.arange(0, n_h, 1 if n_h <= 16 else 4),
                 yticks=[0, 0.5, 1])
        ax_h.set_xlabel("hidden unit j", fontsize=FONT_SIZE)
        ax_h.set_title(self._titles(log_p)[1], fontsize=FONT_SIZE)
        tidy(ax_h)
        ax_out = fig.add_subplot(grid[2])
        ax_out.imshow(p_visible.reshape(self.side, self.side), cmap=PROBABILITY_CMAP, vmin=0, vmax=1,
                      interpolation="nearest")
        for k in range(self.side * self.side):
            ax_out.text(k % self.side, k // self.side, "", ha="center", va="center", fontsize=FONT_SIZE - 1)
        self._label_pixels(ax_out, p_visible)
        ax_out.set_title(self._completion_title(), fontsize=FONT_SIZE)
        ax_out.set_xlabel("p(v_i = 1 | shown pixels)", fontsize=FONT_SIZE - 1)
        edges = np.arange(self.side + 1) - 0.5
        borders = [[(x, edges[0]), (x, edges[-1])] for x in edges] + [[(edges[0], y), (edges[-1], y)] for y in edges]
        for ax in (ax_in, ax_out):
            ax.add_collection(LineCollection(borders, colors=NEUTRAL, linewidths=0.6))
            ax.set(xticks=[], yticks=[])
        self._describe_state(fig, p_visible, p_hidden, log_p)


def hidden_widget(rbm=None, data=None, n_hidden=16, epochs=1000, pattern=0, hide="nothing", rng=0):
    """Inspect what an RBM's hidden units say about each image, and how it fills in hidden pixels.

    Pick a training image with the slider and, with the menu, pixels to hide
    from the model (a row, a column, the centre). Left: the image as the
    model sees it. Middle: each hidden unit's probability of being on given
    the pixels shown, ``p(h_j = 1 | shown)`` (with nothing hidden, the code
    that the clamped phase of learning uses), and ``log p(v)`` of the whole
    image. Right: the completion ``p(v_i = 1 | shown)`` of every pixel; the
    hidden ones carry their probability. Exact: the hidden pixels' ``2**k``
    values are enumerated. Explained in the chapter "Restricted Boltzmann
    machines".

    Parameters
    ----------
    rbm : RBM, optional
        A trained RBM in bits whose visible units are the pixels of a square
        image (a copy is kept). If omitted, one with ``n_hidden`` hidden units
        is trained on ``data`` when the widget is built (exact gradient,
        learning rate 0.2, momentum 0.5, ``epochs`` epochs, seeded by ``rng``).
    data : array_like of shape (P, side * side), optional
        The images to step through, in bits; the bars-and-stripes images of
        the RBM's size if omitted (3 x 3 without an RBM).
    n_hidden, epochs : int
        The default model, if ``rbm`` is omitted.
    pattern : int
        The image shown first (and on a static page).
    hide : str
        The pixels hidden first: ``"nothing"``, ``"top row"``, ``"bottom row"``,
        ``"left column"``, ``"right column"``, ``"row 1"``, ``"column 1"``, ...,
        or ``"centre pixel"`` (odd sides).
    rng : None, int or numpy.random.Generator
        Seeds the default model.

    Returns
    -------
    HiddenWidget

    Examples
    --------
    >>> import bmlib as bm
    >>> w = bm.hidden_widget(epochs=300, pattern=9, hide="right column")
    >>> w.hidden_pixels.tolist()
    [2, 5, 8]
    >>> p_visible, p_hidden, log_p = w.completion()
    >>> p_visible.shape, p_hidden.shape
    ((9,), (16,))
    >>> w.figure_png()[:4]
    b'\\x89PNG'
    """
    return HiddenWidget(rbm, data, n_hidden, epochs, pattern, hide, rng)
