"""The widget of the chapter "Learning real images": an RBM's filters and samples as it learns the digits."""
from __future__ import annotations

import ipywidgets
import numpy as np

from .._deprecation import renamed
from .._checks import check_count, check_integer
from .._random import as_generator
from ..models.digit_images import digits
from ..learning.rbm import RBM
from ..learning.statistics import PersistentContrastiveDivergence
from ..learning.training import train
from ..plotting.style import FONT_SIZE, PROBABILITY_CMAP, WEIGHT_CMAP
from ..plotting.words import describe, number, span
from ._base import FigureWidget

#: The hidden-layer sizes offered.
HIDDEN_SIZES = (4, 8, 16, 32, 64)
#: Gibbs steps offered for the samples.
GIBBS_STEPS = (1, 10, 100, 1000)
#: Filters and samples shown (a 4 x 4 grid each).
N_SHOWN = 16


def _check_option(value, name, options):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(str, options))}; got {value!r}")


def _tiles(images, side=8, n_columns=4, fill=np.nan):
    """Images of side x side pixels on a grid with one blank pixel between neighbours."""
    grid_rows = -(-len(images) // n_columns)
    out = np.full((grid_rows * (side + 1) - 1, n_columns * (side + 1) - 1), fill)
    for k, image in enumerate(images):
        r, c = divmod(k, n_columns)
        out[r * (side + 1): r * (side + 1) + side, c * (side + 1): c * (side + 1) + side] = image.reshape(side, side)
    return out


class DigitsWidget(FigureWidget):
    """Sliders for the hidden-layer size, the training epoch and the Gibbs steps, above filters and samples.

    Build it with :func:`digits_widget`. A model is trained the first time
    its size is chosen (persistent CD, as in the chapter), once up to the
    last epoch, keeping its parameters every ``every`` epochs; later moves
    only look them up. The samples always start from the same random states
    and random numbers, so the pictures change only with the controls.
    """

    figsize = (8.4, 4.0)

    @renamed(steps="n_sweeps")
    def __init__(self, n_hidden=16, epoch=30, n_sweeps=100, epochs=60, every=5, rng=0):
        self._n_epochs = check_count(epochs, "epochs", minimum=1)
        self._every = check_count(every, "every", minimum=1)
        _check_option(n_hidden, "n_hidden", HIDDEN_SIZES)
        epoch = check_integer(epoch, "epoch", minimum=0, maximum=self._n_epochs)
        if epoch % self._every:
            raise ValueError(f"epoch must be a multiple of every = {self._every} (the epochs kept); got {epoch}")
        _check_option(n_sweeps, "n_sweeps", GIBBS_STEPS)
        self._seed = int(as_generator(rng).integers(2**31))
        self._data = digits("train", units="bits").images
        self._data_mean = float(self._data.mean())
        self._snapshots = {}  # n_hidden -> {epoch: (W, b_visible, b_hidden)}
        self.hidden = ipywidgets.Dropdown(options=list(HIDDEN_SIZES), value=n_hidden, description="hidden units")
        self.epoch = ipywidgets.IntSlider(value=epoch, min=0, max=self._n_epochs, step=self._every,
                                          description="epoch", continuous_update=False)
        self.steps = ipywidgets.SelectionSlider(options=list(GIBBS_STEPS), value=n_sweeps, description="Gibbs steps",
                                                continuous_update=False)
        for control in (self.hidden, self.epoch, self.steps):
            control.observe(self._refresh, names="value")
        super().__init__([ipywidgets.HBox([self.hidden, self.epoch]), self.steps])

    def _snapshot(self, n_hidden, epoch):
        if n_hidden not in self._snapshots:
            rbm = RBM(64, n_hidden, units="bits", rng=self._seed + n_hidden)
            kept = {0: (rbm.W.copy(), rbm.b_visible.copy(), rbm.b_hidden.copy())}

            def keep(k, model, value):
                if k % self._every == 0:
                    kept[k] = (model.W.copy(), model.b_visible.copy(), model.b_hidden.copy())

            train(rbm, self._data, epochs=self._n_epochs, learning_rate=0.05, batch_size=20,
                  statistics=PersistentContrastiveDivergence(n_chains=100), monitor=None, callback=keep,
                  progress=False, rng=self._seed + n_hidden)
            self._snapshots[n_hidden] = kept
        W, b_visible, b_hidden = self._snapshots[n_hidden][epoch]
        return RBM(64, n_hidden, W=W, b_visible=b_visible, b_hidden=b_hidden, units="bits")

    @property
    def model(self):
        """The RBM shown: the chosen size at the chosen epoch (a new copy on each access)."""
        return self._snapshot(self.hidden.value, self.epoch.value)

    def samples(self):
        """The samples shown, shape (16, 64): ``p(v on | h)`` after the chosen number of Gibbs steps."""
        rbm = self.model
        gen = np.random.default_rng(self._seed)
        v = rbm._random_states(N_SHOWN, gen)
        v = rbm._gibbs_steps(v, self.steps.value - 1, gen)
        return rbm._visible_means(rbm._sample_hidden(v, gen))

    def _draw(self, fig):
        rbm = self.model
        ax_w = fig.add_axes((0.02, 0.06, 0.42, 0.8))
        ax_s = fig.add_axes((0.52, 0.06, 0.42, 0.8))
        limit = max(float(np.abs(rbm.W).max()), 1e-12)
        filters, samples = rbm.W[:, :N_SHOWN].T, self.samples()
        ax_w.imshow(np.ma.masked_invalid(_tiles(filters)), cmap=WEIGHT_CMAP, vmin=-limit, vmax=limit,
                    interpolation="nearest")
        ax_s.imshow(np.ma.masked_invalid(_tiles(samples)), cmap=PROBABILITY_CMAP, vmin=0, vmax=1,
                    interpolation="nearest")
        shown = min(N_SHOWN, rbm.n_hidden)
        ax_w.set_title(f"filters of {shown} of {rbm.n_hidden} hidden units (largest |w| = {limit:.2f})",
                       fontsize=FONT_SIZE, loc="left")
        steps = self.steps.value
        ax_s.set_title(f"samples after {steps} Gibbs step{'' if steps == 1 else 's'}, epoch {self.epoch.value}",
                       fontsize=FONT_SIZE, loc="left")
        for ax in (ax_w, ax_s):
            ax.axis("off")
        self._describe_picture(fig, rbm, filters, samples)

    def _describe_picture(self, fig, rbm, filters, samples):
        steps, epoch = self.steps.value, self.epoch.value
        limit = float(np.abs(rbm.W).max())
        # How far each pixel's probability is from the nearer of 0 and 1: 0 for a crisp black-and-white
        # sample, 0.5 for a grey blur.
        blur = np.minimum(samples, 1 - samples)
        shown = f"{len(filters)}" if len(filters) == rbm.n_hidden else f"{len(filters)} of the {rbm.n_hidden}"
        describe(fig, [
            f"An RBM with {rbm.n_hidden} hidden units at epoch {epoch} of training on the digits. Left: "
            f"{shown} hidden units' weights as 8 × 8 images (red positive, blue negative, largest size "
            f"{number(limit)}). Right: {len(samples)} samples after {steps} Gibbs step{'' if steps == 1 else 's'}, "
            "each pixel by its probability of being on.",
            f"Their mean pixel is {number(samples.mean())} (the training digits' {number(self._data_mean)}); "
            f"a pixel's probability is on average {number(blur.mean())} from the nearer of 0 and 1.",
        ], [
            f"The weights shown run {span(filters)}; their mean size is {number(np.abs(filters).mean())}.",
            f"The samples' mean pixels: {span(samples.mean(axis=1))}; their mean distances from 0 or 1: "
            f"{span(blur.mean(axis=1))}.",
        ])

    def _describe(self):
        return f"DigitsWidget(hidden={self.hidden.value}, epoch={self.epoch.value}, steps={self.steps.value})"


@renamed(steps="n_sweeps")
def digits_widget(n_hidden=16, epoch=30, n_sweeps=100, epochs=60, every=5, rng=0):
    """An RBM learning the handwritten digits: its filters and its samples, by size, epoch and Gibbs steps.

    Left: the weights of (up to) 16 hidden units as 8 x 8 images, red for
    positive and blue for negative. Right: 16 samples, each the probability
    of every pixel being on after the chosen number of block Gibbs steps
    from a random image. Each size is trained on ``bm.digits("train")`` with
    persistent CD (learning rate 0.05, batches of 20, 100 chains) the first
    time it is chosen, which takes up to a few seconds. In a static page
    the widget shows its picture at the moment it was displayed. Explained
    in the chapter "Learning real images".

    Parameters
    ----------
    n_hidden : {4, 8, 16, 32, 64}
    epoch : int
        The epoch shown first, a multiple of ``every`` up to ``epochs``.
    n_sweeps : {1, 10, 100, 1000}
        Gibbs sweeps (v -> h -> v) from the random start.
    epochs : int
        Epochs each size is trained for, >= 1.
    every : int
        Epochs between kept models (the slider's step), >= 1.
    rng : None, int or numpy.random.Generator
        Seeds the training and the samples.

    Returns
    -------
    DigitsWidget

    Examples
    --------
    >>> w = bm.digits_widget(n_hidden=4, epoch=2, epochs=2, every=1, n_sweeps=1)
    >>> w.epoch.value = 0
    >>> float(abs(w.model.W).max()) < 0.1   # the small random weights it starts from
    True
    >>> w.figure_png()[:4]
    b'\\x89PNG'
    """
    return DigitsWidget(n_hidden, epoch, n_sweeps, epochs, every, rng)
