"""The widget of the chapter "The normalizing constant Z": every log Z estimate at a chosen temperature.

All estimates are computed once, when the widget is built (by
:func:`~bmlib.compare_log_z`, seeded), so moving the slider only redraws.
"""
from __future__ import annotations

import ipywidgets
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.transforms import IdentityTransform

from .._checks import check_instance, check_temperature, check_units, check_weights
from .._random import as_generator
from ..partition.study import METHODS, LogZComparison, compare_log_z
from ..plotting.fit import BookFigure
from ..plotting.style import FONT_SIZE, NEUTRAL, UNIT_ON, tidy, text_colour
from ..plotting.words import describe, number, ranked, span
from ..plotting.partition import ERROR_RANGE, FLAG_WORDS, draw_log_z, marker_kwargs
from ._base import FigureWidget

#: The default temperature grid: beta = 1/T from 0.1 to 1 in steps of 0.1.
DEFAULT_TEMPERATURES = tuple(1.0 / np.linspace(0.1, 1.0, 10))


class PartitionWidget(FigureWidget):
    """A temperature slider above log Z against T (left) and each method's error at that T (right).

    Build it with :func:`partition_widget`. The slider ``temperature_index``
    holds an index into the comparison's temperatures (its label shows the
    temperature); the menu ``budget_menu`` an index into its budgets. The
    current values are in the read-only properties :attr:`T` and :attr:`budget`.
    Explained in the chapter "The normalizing constant Z".
    """

    figsize = (9.0, 4.0)

    def __init__(self, comparison, T=None, mark_T=None):
        self.comparison = check_instance(comparison, "comparison", LogZComparison,
                                         "a LogZComparison from bmlib.compare_log_z")
        T = None if T is None else check_temperature(T, "T")
        self.mark_T = None if mark_T is None else check_temperature(mark_T, "mark_T")
        self._left_cache = {}
        temps = comparison.temperatures
        start = len(temps) // 2 if T is None else int(np.argmin(np.abs(np.log(temps / T))))
        # The slider's positions run from the lowest temperature on the left to the
        # highest on the right, as the T axis of the plot does, whatever the order
        # of the comparison's grid (the default grid is even in 1/T, so it falls).
        self.temperature_index = ipywidgets.SelectionSlider(
            options=[(f"{temps[k]:.3g}", int(k)) for k in np.argsort(temps, kind="stable")], value=start,
            description="T", continuous_update=True)
        self.budget_menu = ipywidgets.Dropdown(
            options=[(f"{B} passes over W", k) for k, B in enumerate(comparison.budgets)],
            value=len(comparison.budgets) - 1, description="sampling")
        self.temperature_index.observe(self._refresh, names="value")
        self.budget_menu.observe(self._refresh, names="value")
        super().__init__([ipywidgets.HBox([self.temperature_index, self.budget_menu])])

    @property
    def T(self):
        """The temperature as currently chosen."""
        return float(self.comparison.temperatures[self.temperature_index.value])

    @property
    def budget(self):
        """The work given to each sampling method, as currently chosen."""
        return self.comparison.budgets[self.budget_menu.value]

    def _describe(self):
        comp = self.comparison
        return (f"PartitionWidget: n={comp.n_units} {comp.units}, {len(comp.temperatures)} temperatures from "
                f"{comp.temperatures.min():.3g} to {comp.temperatures.max():.3g}, budgets {list(comp.budgets)}; "
                "run the notebook live to move the temperature slider")

    def _grid(self, fig):
        return fig.add_gridspec(1, 2, width_ratios=[1.1, 1], left=0.07, right=0.98, top=0.92, bottom=0.14,
                                wspace=0.75)

    def _left_panel(self, k):
        """The log Z panel for budget k, rendered once: (RGBA pixels of the left part, x pixel of each T, y span).

        Only the dotted line at the chosen temperature changes with the slider,
        so the panel is drawn once per budget and pasted as an image; the
        line is drawn in pixels on top. This halves the time of a slider step.
        """
        if k not in self._left_cache:
            from matplotlib.backends.backend_agg import FigureCanvasAgg

            comp = self.comparison
            fig = BookFigure(figsize=self.figsize, dpi=self.dpi)
            canvas = FigureCanvasAgg(fig)
            ax = fig.add_subplot(self._grid(fig)[0])
            draw_log_z(ax, comp, k)
            if self.mark_T is not None:
                ax.axvline(self.mark_T, color=NEUTRAL, lw=1, ls="--")
            ax.set_xlabel("temperature T", fontsize=FONT_SIZE)
            canvas.draw()
            box = ax.get_window_extent()
            x = ax.transData.transform(np.column_stack([comp.temperatures, np.zeros(len(comp.temperatures))]))[:, 0]
            cut = int(np.ceil(box.x1)) + 4  # keep the panel, leave the right half to the live axes
            pixels = np.asarray(canvas.buffer_rgba())[:, :cut].copy()
            self._left_cache[k] = (pixels, x, (box.y0, box.y1))
        return self._left_cache[k]

    def _draw(self, fig):
        comp, t, k = self.comparison, self.temperature_index.value, self.budget_menu.value
        pixels, x, (y0, y1) = self._left_panel(k)
        fig.figimage(pixels, xo=0, yo=0, origin="upper")
        # The chosen temperature, in display pixels (the figure is saved at its own dpi).
        fig.add_artist(Line2D([x[t], x[t]], [y0, y1], transform=IdentityTransform(), color=UNIT_ON, lw=0.8,
                              ls=":"))
        # No legend and few texts (text is the slowest part of a redraw): the right panel names each marker.
        ax_e = fig.add_subplot(self._grid(fig)[1])
        self._draw_bars(ax_e, comp, t, k)
        ax_e.set_title(f"T = {comp.temperatures[t]:.3g}, exact log Z = {comp.exact[t]:.3f}", fontsize=FONT_SIZE)
        self._describe_picture(fig, comp, t, k)

    def _describe_picture(self, fig, comp, t, k):
        T, names = comp.temperatures, [METHODS[key] for key in comp.methods]
        err = np.array([comp.log_z[key][k, t] - comp.exact[t] for key in comp.methods])
        sd = np.array([comp.error[key][k, t] for key in comp.methods])
        closest, farthest = int(ranked(-np.abs(err))[0]), int(ranked(np.abs(err))[0])
        rows = []
        for i, key in enumerate(comp.methods):
            flag = FLAG_WORDS.get(comp.flags[key][t].strip(), comp.flags[key][t].strip())
            rows.append(f"{names[i]} {number(err[i])}" + ("" if np.isnan(sd[i]) else f" ± {number(sd[i])}")
                        + (f" ({flag})" if flag else ""))
        mark = "" if self.mark_T is None else f" and a dashed line at T = {number(self.mark_T, 3)}"
        describe(fig, [
            f"At temperature T = {number(T[t], 3)} (the slider, {len(T)} temperatures {span(T, 3)}) the exact log Z "
            f"of the {comp.n_units} {comp.units} is {number(comp.exact[t], 3)}; right, each estimator's error, "
            f"estimate − exact, the sampling ones with {self.budget} passes over W.",
            f"Closest is {names[closest]} ({number(err[closest])}), farthest {names[farthest]} "
            f"({number(err[farthest])}).",
        ], [
            f"Left: log Z per unit against T, exact {span(comp.exact / comp.n_units)}, with every estimate as "
            f"markers, a dotted line at the chosen T{mark}.",
            f"Errors at T = {number(T[t], 3)}, ± one standard error where a method has one (the bars span two): "
            f"{'; '.join(rows)}.",
        ])

    @staticmethod
    def _draw_bars(ax, comp, t, k):
        """Each method's error at one temperature: a marker, a +-2 s.e. bar, its value in the row label.

        The bars are one collection and the values live in the tick labels
        (text is the slowest part of a redraw): few artists, a fast slider.
        """
        low, high = ERROR_RANGE
        ax.axvline(0, color=UNIT_ON, lw=2)
        rows = np.arange(len(comp.methods))[::-1]
        err = np.array([comp.log_z[key][k, t] - comp.exact[t] for key in comp.methods])
        sd = np.array([comp.error[key][k, t] for key in comp.methods])
        shown = np.clip(err, low, high)
        bar = np.isfinite(sd)
        ax.hlines(rows[bar], (shown - 2 * sd)[bar], (shown + 2 * sd)[bar], colors=NEUTRAL, lw=1.5)
        for row, key, e, d, x in zip(rows, comp.methods, err, sd, shown):
            kw = marker_kwargs(key, 7)
            kw["ls"] = "none"
            ax.plot([x], [row], **kw)
            label = f"{METHODS[key]}  {e:+.3f}" + ("" if np.isnan(d) else f" ± {d:.3f}") + comp.flags[key][t]
            ax.text(-0.03, row, label, transform=ax.get_yaxis_transform(), ha="right", va="center",
                    fontsize=FONT_SIZE - 1, color=text_colour(kw["color"]))
        # Row labels as plain texts, not tick labels: a tick costs several artists per redraw.
        ax.set(yticks=[], xticks=np.arange(np.ceil(low), high + 0.01, 1.0), xlim=(low - 0.1, high + 0.1),
               ylim=(-0.7, len(rows) - 0.3))
        ax.set_xlabel("error of log Z (bars ±2 s.e.)", fontsize=FONT_SIZE)
        tidy(ax)


def partition_widget(source, b=None, temperatures=DEFAULT_TEMPERATURES, units="spins", *, budgets=(1000, 10_000),
                     T=None, mark_T=None, rng=0):
    """Every log Z estimate of a model at a temperature chosen with a slider.

    Left: ``log Z / n`` against temperature, exact (line) and every method
    (markers), the chosen temperature dotted. Right: each method's error at
    that temperature, with +-2 standard errors for importance sampling and
    AIS and the value written beside it. A menu chooses the work given to
    the sampling methods. Everything is computed when the widget is built,
    so a slider step only redraws. Explained in the chapter
    "The normalizing constant Z".

    Parameters
    ----------
    source : LogZComparison or array_like of shape (n, n)
        A comparison from :func:`~bmlib.compare_log_z` (used as it is), or
        the couplings ``W`` of a model to compare on.
    b : array_like of shape (n,), optional
    temperatures : sequence of float
        The grid of the slider (default: ``1/T`` from 0.1 to 1 in steps of 0.1).
    units : {"spins", "bits"}
    budgets : sequence of int
        Work of the sampling methods (see :func:`~bmlib.compare_log_z`).
    T : float, optional
        Starting temperature (the grid point nearest to it; default the middle one).
    mark_T : float, optional
        A temperature to mark with a dashed line (a transition).
    rng : None, int or numpy.random.Generator
        Seed of the comparison (default 0: the same widget every time).
        ``b``, ``temperatures``, ``units``, ``budgets`` and ``rng`` are
        ignored when ``source`` is a comparison.

    Returns
    -------
    PartitionWidget

    Examples
    --------
    >>> import bmlib as bm
    >>> w = bm.partition_widget(bm.sk_couplings(8, rng=0), temperatures=[2.0, 1.0, 0.5], budgets=[1000])
    >>> w.temperature_index.value = 2  # the slider holds an index into the grid
    >>> w.T
    0.5
    >>> w.figure_png()[:4]
    b'\\x89PNG'
    """
    if isinstance(source, LogZComparison):
        # The comparison holds its model and settings: arguments that would be ignored are refused.
        if b is not None:
            raise ValueError("b must be None when source is a LogZComparison (it holds its own model)")
        if check_units(units) != source.units:
            raise ValueError(f"units must be the comparison's units {source.units!r} when source is a "
                             f"LogZComparison; got {units!r}")
        as_generator(rng)
        comparison = source
    else:
        source = check_weights(source, "source")
        comparison = compare_log_z(source, b, temperatures, units, budgets=budgets, rng=rng)
    return PartitionWidget(comparison, T=T, mark_T=mark_T)
