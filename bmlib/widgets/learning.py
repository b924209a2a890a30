"""The widget of the chapter "The learning rule": step through training and watch the statistics meet."""
from __future__ import annotations

import ipywidgets
import numpy as np

from .._checks import check_integer, check_units
from .._random import as_generator
from ..learning.machine import BoltzmannMachine
from ..learning.statistics import exact_statistics
from ..learning.training import train
from ..plotting.style import FONT_SIZE, WEIGHT_CMAP, tidy
from ..plotting.words import describe, number, span
from ..plotting.learning import draw_history, draw_moment_match, largest_gap, moment_words, settled
from ._base import BlittedFigureWidget

#: Largest machine the learning widget accepts: it enumerates every state once per epoch while it is built.
MAX_LEARNING_WIDGET_UNITS = 12


class LearningWidget(BlittedFigureWidget):
    """An epoch slider (with a step button) over a training run computed once, when built.

    Build it with :func:`learning_widget`. The run is stored epoch by epoch, so
    moving the slider only redraws: :attr:`epoch` is the epoch shown,
    :attr:`W` and :attr:`b` the parameters after it, :attr:`history` the
    :class:`~bmlib.TrainingHistory` of the whole run.
    """

    figsize = (9.6, 3.5)

    def __init__(self, data, n_hidden=0, epochs=100, learning_rate=0.1, momentum=0.0, statistics="exact",
                 units="spins", T=1.0, init_scale=0.1, epoch=0, rng=0):
        units = check_units(units)
        epochs = check_integer(epochs, "epochs", minimum=1, maximum=1000)
        if np.ndim(data) != 2:
            raise ValueError(f"data must have shape (P, n_visible), one row per pattern; got shape {np.shape(data)}")
        gen = as_generator(rng)
        machine = BoltzmannMachine(np.shape(data)[1], n_hidden, units=units, T=T, init_scale=init_scale, rng=gen)
        if machine.n_units > MAX_LEARNING_WIDGET_UNITS:
            raise ValueError(f"learning_widget enumerates every state after each epoch and is limited to "
                             f"{MAX_LEARNING_WIDGET_UNITS} units; got {machine.n_units}")
        self.data = machine._check_data(data)
        self._snapshots = []

        def log_likelihood(model, patterns):  # train's monitor, called before training and after every epoch
            self._snapshots.append((model.W.copy(), model.b.copy()))
            return model.log_likelihood(patterns)

        self._statistics_name = statistics if isinstance(statistics, str) else type(statistics).__name__
        self.machine = machine
        self.history = train(machine, self.data, epochs=epochs, learning_rate=learning_rate, momentum=momentum,
                             statistics=statistics, monitor=log_likelihood, progress=False, rng=gen)
        # The exact statistics of every epoch, so that a slider step only draws.
        self._stats = []
        for W, b in self._snapshots:
            model = BoltzmannMachine(machine.n_visible, n_hidden, W=W, b=b, units=units, T=T)
            self._stats.append(exact_statistics(model, self.data))
        self._w_limit = max(max(np.abs(W).max() for W, _ in self._snapshots), 1e-12)
        self._settings = (learning_rate, momentum)
        epoch = check_integer(epoch, "epoch", minimum=0, maximum=epochs)
        self.epoch_slider = ipywidgets.IntSlider(value=epoch, min=0, max=epochs, description="epoch")
        # No ipywidgets.Play: its three buttons are icons without a name that a screen reader could
        # say (ipywidgets 8), so they failed the book's keyboard and label check in JupyterLab. The
        # slider (arrow keys, held down, play the run) and "next epoch" step through it instead.
        self.step_button = ipywidgets.Button(description="next epoch")
        self.epoch_slider.observe(self._refresh, names="value")
        self.step_button.on_click(self.step)
        super().__init__([ipywidgets.HBox([self.epoch_slider, self.step_button])])

    @property
    def epoch(self):
        """The epoch shown."""
        return self.epoch_slider.value

    @property
    def W(self):
        """Weights after the epoch shown, a copy of shape (n, n)."""
        return self._snapshots[self.epoch][0].copy()

    @property
    def b(self):
        """Biases after the epoch shown, a copy of shape (n,)."""
        return self._snapshots[self.epoch][1].copy()

    def step(self, button=None):
        """Show the next epoch (the last one stays)."""
        self.epoch_slider.value = min(self.epoch_slider.value + 1, self.epoch_slider.max)

    def _describe(self):
        lr, momentum = self._settings
        m = self.machine
        hidden = f" and {m.n_hidden} hidden" if m.n_hidden else ""
        return (f"LearningWidget: {m.n_visible} visible{hidden} units ({m.units}), {len(self.data)} patterns, "
                f"{self.epoch_slider.max} epochs with {self._statistics_name} statistics (learning rate {lr:g}, "
                f"momentum {momentum:g}), showing epoch {self.epoch}; run the notebook live to step through it")

    def _moving_artists(self):
        """What changes from epoch to epoch, in drawing order (the spines go back over the weight image)."""
        ax_stats, ax_history, ax_weights = self._figure.axes
        return [ax_weights.images[0], *(ax_weights.spines[side] for side in ("left", "bottom")),
                *ax_stats.collections[1::-1], ax_stats.texts[0], ax_stats.title,
                ax_history.lines[-1], ax_history.title]

    def _update(self):
        t = self.epoch
        ax_stats, ax_history, ax_weights = self._figure.axes
        (mean_c, second_c), (mean_f, second_f) = self._stats[t]
        i, j = np.nonzero(np.triu(self.machine.mask, 1))
        pairs, units = ax_stats.collections[:2]
        pairs.set_offsets(np.column_stack([second_c[i, j], second_f[i, j]]))
        units.set_offsets(np.column_stack([mean_c, mean_f]))
        gap = largest_gap(self._stats[t][0], self._stats[t][1], self.machine.mask)
        ax_stats.texts[0].set_text(f"largest gap {gap:.3f}")
        ax_stats.set_title(self._stats_title(t), fontsize=FONT_SIZE)
        ax_history.lines[-1].set_data([self.history.epochs[t]], [self.history.values[t]])
        ax_history.set_title(self._history_title(t), fontsize=FONT_SIZE)
        ax_weights.images[0].set_data(self._snapshots[t][0])
        self._describe_epoch(self._figure)

    def _describe_epoch(self, fig):
        """The figure's words for the epoch shown, from the statistics, history and weights it draws."""
        t, m, h = self.epoch, self.machine, self.history
        clamped, free = self._stats[t]
        label = "data" if m.n_hidden == 0 else "clamped"
        gap = number(settled(largest_gap(clamped, free, m.mask)))
        i, j = np.nonzero(np.triu(m.mask, 1))
        W = settled(self._snapshots[t][0][i, j])
        describe(fig, [
            f"Training after epoch {t} of {self.epoch_slider.max}: the largest gap between the model's and the "
            f"{label} averages is {gap}, and the log-likelihood is {number(h.values[t])} nats per pattern "
            f"(from {number(h.values[0])} at epoch 0 to {number(h.values[-1])} at epoch {h.epochs[-1]}).",
        ], [
            f"Left, model averages against {label} averages (dots: pairs; rings: single units): "
            f"{moment_words(clamped, free, m.mask, label)}.",
            f"Middle, the log-likelihood against epoch, with epoch {t} marked.",
            f"Right, the weight matrix as colours (red positive, blue negative): weights {span(W)}.",
        ])

    def _stats_title(self, t):
        return f"after epoch {t}\n(dots: pairs; rings: single units)"

    def _history_title(self, t):
        return f"log-likelihood L = {self.history.values[t]:.3f}"

    def _draw(self, fig):
        t = self.epoch
        grid = fig.add_gridspec(1, 3, width_ratios=[1, 1.2, 0.9], left=0.07, right=0.98, top=0.88, bottom=0.15,
                                wspace=0.4)
        clamped, free = self._stats[t]
        label = "data" if self.machine.n_hidden == 0 else "clamped"
        draw_moment_match(fig.add_subplot(grid[0]), clamped, free, self.machine.mask, self.machine.units,
                           self._stats_title(t), label)
        ax = fig.add_subplot(grid[1])
        draw_history(ax, [self.history], [None], marker=t)
        ax.set_title(self._history_title(t), fontsize=FONT_SIZE)
        ax = fig.add_subplot(grid[2])
        ax.imshow(self._snapshots[t][0], cmap=WEIGHT_CMAP, vmin=-self._w_limit, vmax=self._w_limit,
                  interpolation="nearest")
        ticks = np.arange(0, self.machine.n_units, 2)
        ax.set(xticks=ticks, yticks=ticks)
        ax.set_title(f"weights w_ij (red > 0, blue < 0)\ncolour limit \u00b1{self._w_limit:.2f}", fontsize=FONT_SIZE)
        tidy(ax)
        self._describe_epoch(fig)


def learning_widget(data, n_hidden=0, epochs=100, learning_rate=0.1, momentum=0.0, statistics="exact",
                    units="spins", T=1.0, init_scale=0.1, epoch=0, rng=0):
    """Step through the training of a Boltzmann machine on ``data``, epoch by epoch.

    The machine is trained once, when the widget is built, with
    :func:`~bmlib.train` and the given settings, and every epoch's parameters
    are kept; the slider (or the step button) then shows, for the
    chosen epoch, the data statistics against the model's exact statistics
    (left: one dot per pair ``<s_i s_j>``, one ring per unit ``<s_i>``; they
    meet on the diagonal), the log-likelihood so far (middle) and the weight
    matrix (right). With hidden units the left panel plots against the clamped
    averages. Explained in the chapters "The learning rule" and "Hidden units".

    Parameters
    ----------
    data : array_like of shape (P, n_visible)
        Training patterns, in ``units``.
    n_hidden : int
        Hidden units (0: every unit is visible); at most 12 units in all.
    epochs : int
        Length of the run, 1 to 1000.
    learning_rate, momentum : float
        As in :func:`~bmlib.train`; without momentum (the default) every
        epoch is one plain step of the learning rule.
    statistics : str or callable
        As in :func:`~bmlib.train`, e.g. ``"exact"`` or ``"sampled"``; the
        figure always shows the model's exact statistics.
    units : {"spins", "bits"}
    T : float
    init_scale : float
        Standard deviation of the random initial weights.
    epoch : int
        The epoch shown first (and on a static page).
    rng : None, int or numpy.random.Generator
        Seeds the initial weights and any sampling during training.

    Returns
    -------
    LearningWidget

    Examples
    --------
    >>> import bmlib as bm
    >>> w = bm.learning_widget(bm.ten_pixel_images(), epochs=10)
    >>> w.step()
    >>> w.epoch, w.W.shape, round(float(w.history.values[1]), 3)
    (1, (10, 10), -6.078)
    >>> w.figure_png()[:4]
    b'\\x89PNG'
    """
    return LearningWidget(data, n_hidden, epochs, learning_rate, momentum, statistics, units, T, init_scale,
                          epoch, rng)
