"""Figures of the chapter "Learning real images": learning curves, filters, inpainting."""
from __future__ import annotations

import numpy as np
from matplotlib.patches import Rectangle

from .._checks import _as_real_array, check_count, check_indices, check_instance, check_sequence
from ..learning.rbm.images import RBMLearningCurve
from ..learning.rbm import RBM
from .style import (
    FONT_SIZE,
    HIGHLIGHT,
    NEUTRAL_TEXT,
    PROBABILITY_CMAP,
    WEIGHT_CMAP,
    _new_figure,
    series_style,
    tidy,
)
from .words import count, describe, number, span



def plot_rbm_learning_curves(curves):
    """Exact log-likelihood along training, and how far the pseudo-log-likelihood overstates it.

    Left: the exact mean log-likelihood of the training images (solid) and of
    the held-out images (dashed) against the epoch, as in
    :func:`~bmlib.plot_held_out_curves`, one colour per hidden
    layer size (each size also with its own marker, and its own dash on the
    right). Right: the held-out pseudo-log-likelihood minus the exact
    held-out log-likelihood: zero for a model of independent pixels, and
    positive, growing with training, once the model has learned dependencies
    that it then gets to use in every conditional. Explained in the chapter
    "Learning real images".

    Parameters
    ----------
    curves : dict of int to RBMLearningCurve
        From :func:`~bmlib.rbm_learning_curves`.

    Returns
    -------
    matplotlib.figure.Figure
        With two axes.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> data = bm.bars_and_stripes(3, units="bits")
    >>> curves = bm.rbm_learning_curves(data[:10], data[10:], [2, 4], epochs=10, every=5, batch_size=2, rng=0)
    >>> fig = bm.plot_rbm_learning_curves(curves)
    >>> fig.axes[0].get_legend_handles_labels()[1][:2]
    ['2 hidden', '4 hidden']
    >>> plt.close(fig)
    """
    if not isinstance(curves, dict) or not curves:
        raise TypeError("curves must be a non-empty dict {n_hidden: RBMLearningCurve}, from bm.rbm_learning_curves")
    for key, curve in curves.items():
        check_instance(curve, f"curves[{key!r}]", RBMLearningCurve, "an RBMLearningCurve")
    fig = _new_figure((6.8, 3.0))
    _draw_learning_curves(fig, list(curves.values()))
    return fig


def _draw_learning_curves(fig, curves):
    ax_ll, ax_gap = fig.subplots(1, 2, gridspec_kw=dict(width_ratios=[1.25, 1.0]))
    for k, curve in enumerate(curves):
        # Colour and marker tell the sizes apart on both panels; on the left the
        # dash is kept for training versus held out, on the right each size has its own.
        style = series_style(k)
        line = dict(color=style["color"], marker=style["marker"], ms=4)
        ax_ll.plot(curve.epochs, curve.train, lw=1.8, label=f"{curve.n_hidden} hidden", **line)
        ax_ll.plot(curve.epochs, curve.held_out, lw=1.8, ls="--", mfc="white", **line)
        ax_gap.plot(curve.epochs, curve.held_out_pseudo - curve.held_out, lw=1.8, ls=style["ls"], **line)
    ax_ll.plot([], [], color=NEUTRAL_TEXT, lw=1.8, ls="--", label="(dashed: held out)")
    ax_ll.set_xlabel("epoch", fontsize=FONT_SIZE)
    ax_ll.set_ylabel("mean log-likelihood (nats)", fontsize=FONT_SIZE)
    ax_ll.legend(fontsize=FONT_SIZE, frameon=False, loc="lower right")
    ax_gap.axhline(0, color=NEUTRAL_TEXT, lw=0.8)
    ax_gap.set_xlabel("epoch", fontsize=FONT_SIZE)
    ax_gap.set_ylabel("pseudo-LL minus LL, held out", fontsize=FONT_SIZE)
    for ax in (ax_ll, ax_gap):
        tidy(ax)
    _describe_learning_curves(fig, curves)
    return ax_ll, ax_gap


def _describe_learning_curves(fig, curves):
    sizes = [c.n_hidden for c in curves]
    gap = [c.held_out_pseudo - c.held_out for c in curves]
    epochs = np.concatenate([c.epochs for c in curves])
    sizes_text = _and([str(size) for size in sizes])
    # Three digits for the log-likelihoods: the sizes differ by a few tenths of a nat on values of about 20.
    finals = ", ".join(f"{number(c.held_out[-1], 3)} with {c.n_hidden} hidden" for c in curves)
    details = [f"{c.n_hidden} hidden: training {span(c.train, 3)}, held out {span(c.held_out, 3)}, "
               f"pseudo-LL minus LL {span(g)}, {number(g[-1])} at the end." for c, g in zip(curves, gap)]
    describe(fig, [
        f"Mean log-likelihood (nats) against the epoch, {span(epochs, 3)}, of RBMs with {sizes_text} hidden "
        "units, on the training (solid) and held-out (dashed) images; right, the held-out "
        "pseudo-log-likelihood minus the log-likelihood.",
        f"At the end the held-out log-likelihood is {finals}; the pseudo-log-likelihood overstates it by "
        f"{_and([number(g[-1]) for g in gap])}{' respectively' if len(gap) > 1 else ''}.",
    ], details)


def _and(words):
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def plot_filters(rbm, shape=(8, 8), n_columns=8):
    """The weights of each hidden unit drawn as an image: what the unit looks for.

    Pixel ``i`` of filter ``j`` is ``W[i, j]``: red where the hidden unit is
    excited by an "on" pixel, blue where it is inhibited, white where it
    does not care; one colour scale, symmetric about 0, for all filters.
    Explained in the chapter "Learning real images".

    Parameters
    ----------
    rbm : RBM
        With ``n_visible == rows * cols``.
    shape : tuple (rows, cols)
        Shape of one image.
    n_columns : int
        Filters per row of the grid, >= 1.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig = bm.plot_filters(bm.RBM(64, 16, units="bits", rng=0))
    >>> len(fig.axes)   # 16 filters and the colour bar
    17
    >>> plt.close(fig)
    """
    check_instance(rbm, "rbm", RBM, "a bm.RBM")
    rbm._check_parameters()
    rows, cols = _shape(shape, rbm.n_visible)
    n_columns = check_count(n_columns, "n_columns", minimum=1)
    n = rbm.n_hidden
    grid_rows = -(-n // n_columns)
    size = min(0.75, 6.2 / n_columns)  # inches per filter: the grid at most about 6.5 inches wide
    fig = _new_figure((size * n_columns + 0.6, size * grid_rows * rows / cols + 0.35))
    axes = fig.subplots(grid_rows, n_columns, squeeze=False)
    limit = max(float(np.abs(rbm.W).max()), 1e-12)
    image = None
    for j, ax in enumerate(axes.ravel()):
        ax.set_axis_off()
        if j < n:
            image = ax.imshow(rbm.W[:, j].reshape(rows, cols), cmap=WEIGHT_CMAP, vmin=-limit, vmax=limit,
                              interpolation="nearest")
    bar = fig.colorbar(image, ax=axes, shrink=0.8, pad=0.02)
    bar.ax.tick_params(labelsize=FONT_SIZE)
    bar.set_label("weight", fontsize=FONT_SIZE)
    _describe_filters(fig, rbm.W, rows, cols, n_columns)
    return fig


#: Filters listed one by one in the words of :func:`plot_filters`.
_FILTERS_LISTED = 16


def _describe_filters(fig, W, rows, cols, n_columns):
    n = W.shape[1]
    limit = float(np.abs(W).max())
    # Hidden units by their index from 0, as in rbm.W[:, j] and everywhere in the book.
    listed = "; ".join(f"{j}: {number(W[:, j].min())} to {number(W[:, j].max())}"
                       for j in range(min(n, _FILTERS_LISTED)))
    more = f"; and {n - _FILTERS_LISTED} more" if n > _FILTERS_LISTED else ""
    half = W.shape[0] // 2
    describe(fig, [
        f"The weights of {count(n, 'hidden unit')}, each drawn as an image of {rows} × {cols} pixels, "
        f"{n_columns} to a row: red where the unit is excited by an on pixel, blue where it is inhibited, "
        f"white where it does not care, on one scale from {number(-limit)} to {number(limit)}.",
        f"The mean size of a weight is {number(np.abs(W).mean())}.",
    ], [
        f"Each filter's weights, from the top left, row by row, by hidden unit (from 0): {listed}{more}.",
        f"The mean size of a weight is {number(np.abs(W[:half]).mean())} in the top half of the image and "
        f"{number(np.abs(W[half:]).mean())} in the bottom half.",
    ])


def _shape(shape, n):
    shape = check_sequence(shape, "shape", "a pair (rows, cols) of image sizes")
    if len(shape) != 2:
        raise ValueError(f"shape must be a pair (rows, cols) of image sizes; got {len(shape)} entries")
    rows, cols = (check_count(k, f"shape[{i}]", minimum=1) for i, k in enumerate(shape))
    if rows * cols != n:
        raise ValueError(f"shape {rows} x {cols} must hold the {n} visible units; got {rows * cols} pixels")
    return rows, cols


def plot_inpainting(images, probabilities, missing, shape=(8, 8), titles=("image", "what is known", "filled in"),
                    labels=None):
    """Images with some pixels hidden, and the model's probability that each hidden pixel is on.

    One column per image, three rows: the whole image; the known pixels,
    the hidden ones grey and their region outlined; and the known pixels
    with the hidden ones drawn by their probability of being on, white for
    0 and dark for 1 (from :func:`~bmlib.inpaint`). Explained in the chapter "Learning real images".

    Parameters
    ----------
    images : array_like of shape (m, rows * cols)
        The images, spins or bits (on = 1 or +1).
    probabilities : array_like of shape (m, rows * cols)
        Probability of each pixel being on, each in [0, 1].
    missing : sequence of int
        The hidden pixels.
    shape : tuple (rows, cols)
    titles : sequence of three str
        Labels of the three rows.
    labels : sequence of m str or int, optional
        A label above each column (for digits, their class); by default
        the columns are numbered 1, 2, ..., as the figure's words number them.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np, matplotlib.pyplot as plt
    >>> images = bm.digits("held_out", units="bits").images[:4]
    >>> fig = bm.plot_inpainting(images, np.full((4, 64), 0.5), missing=range(32, 64))
    >>> len(fig.axes)
    12
    >>> plt.close(fig)
    """
    images = _as_real_array(images, "images")
    if images.ndim != 2 or images.shape[0] < 1:
        raise ValueError(f"images must be a 2-D array, one image per row; got shape {images.shape}")
    rows, cols = _shape(shape, images.shape[1])
    probabilities = _as_real_array(probabilities, "probabilities")
    if probabilities.shape != images.shape:
        raise ValueError(f"probabilities must have the shape of images, {images.shape}; got {probabilities.shape}")
    if not np.all((probabilities >= 0) & (probabilities <= 1)):
        raise ValueError("probabilities must all lie in [0, 1]")
    index = check_indices(missing, images.shape[1], "missing")
    if index.size == 0:
        raise ValueError("missing must name at least one hidden pixel; got none")
    titles = check_sequence(titles, "titles", "three row labels")
    if len(titles) != 3 or not all(isinstance(t, str) for t in titles):
        raise ValueError(f"titles must be three strings, one label per row; got {titles!r}")
    m = images.shape[0]
    if labels is None:
        labels = [str(c + 1) for c in range(m)]
    else:
        labels = [str(label) for label in check_sequence(labels, "labels", "one label per image")]
        if len(labels) != m:
            raise ValueError(f"labels must have one label per image, {m}; got {len(labels)}")
    on = (images == 1).astype(float)  # on is 1 in bits and +1 in spins
    known = on.copy()
    known[:, index] = np.nan
    filled = on.copy()
    filled[:, index] = probabilities[:, index]
    size = min(0.75, 6.2 / m)
    fig = _new_figure((size * m + 0.9, 3 * size * rows / cols + 0.2))
    axes = fig.subplots(3, m, squeeze=False)
    hidden = np.zeros(images.shape[1], dtype=bool)
    hidden[index] = True
    ys, xs = np.divmod(np.flatnonzero(hidden), cols)
    for r, (group, title) in enumerate(zip((on, known, filled), titles)):
        for c in range(m):
            ax = axes[r, c]
            ax.set_facecolor("#d9d9d9")  # what shows through the masked (unknown) pixels of the middle row
            ax.imshow(np.ma.masked_invalid(group[c].reshape(rows, cols)), cmap=PROBABILITY_CMAP, vmin=0, vmax=1,
                      interpolation="nearest")
            if r > 0:  # the outline of the hidden region (its bounding box)
                ax.add_patch(Rectangle((xs.min() - 0.5, ys.min() - 0.5), xs.max() - xs.min() + 1,
                                       ys.max() - ys.min() + 1, fill=False, edgecolor=HIGHLIGHT, lw=1.5))
            ax.set_xticks([])
            ax.set_yticks([])
            for spine in ax.spines.values():
                spine.set_visible(False)
            if c == 0:
                ax.set_ylabel(title, fontsize=FONT_SIZE, rotation=0, ha="right", va="center")
            if r == 0:
                ax.set_title(labels[c], fontsize=FONT_SIZE)
    _describe_inpainting(fig, on, probabilities, index, rows, cols, titles, labels)
    return fig


def _describe_inpainting(fig, on, probabilities, index, rows, cols, titles, labels):
    m, k = on.shape[0], index.size
    truth, guess = on[:, index], probabilities[:, index]
    ys, xs = np.divmod(index, cols)
    block = (ys.max() - ys.min() + 1) * (xs.max() - xs.min() + 1) == k
    across = "all columns" if xs.min() == 0 and xs.max() == cols - 1 else f"columns {xs.min() + 1} to {xs.max() + 1}"
    where = f"rows {ys.min() + 1} to {ys.max() + 1} of {rows} from the top, {across}"
    numbered = labels == [str(c + 1) for c in range(m)]
    per_image = "; ".join(f"{c + 1}{'' if numbered else f' (label {labels[c]})'}: {int(truth[c].sum())}, "
                          f"{number(guess[c].mean())}" for c in range(m))
    describe(fig, [
        f"{count(m, 'image')} of {rows} × {cols} pixels, one per column ({'numbered' if numbered else 'labelled'} "
        f"above), with {count(k, 'pixel')} hidden "
        f"({'' if block else 'within '}{where}; outlined). Rows: \"{titles[0]}\"; \"{titles[1]}\" (hidden "
        f"grey); \"{titles[2]}\" (hidden pixels by their probability of being on, white 0 to dark 1).",
        f"A fraction {number(truth.mean())} of the hidden pixels are on; their mean probability is "
        f"{number(guess.mean())}, off from the true pixel by {number(np.abs(guess - truth).mean())} on average.",
    ], f"Per image, by its column from the left, how many of its {k} hidden pixels are on, and their mean "
       f"probability: {per_image}.")
