"""The widget of the chapter "The deterministic Boltzmann machine": mean-field solutions against exact averages.

Two sliders, the temperature and a factor that scales every weight. Left,
the exact ``<s_i>`` of every unit (bars) and each distinct solution of the
naive mean-field equations (markers); right, the gap between the exact
``log Z`` and the mean-field lower bound against the temperature. Each slider step solves the
equations from a few starts and enumerates the ``2**n`` states once; the
``log Z`` curves are computed once per coupling factor and kept.
"""
from __future__ import annotations

import warnings

import ipywidgets
import numpy as np
from matplotlib.ticker import MaxNLocator

from .._checks import (
    LEVELS,
    ConvergenceWarning,
    check_model,
    check_real,
    check_temperature,
    check_temperature_range,
    check_units,
)
from .._ties import order_with_ties
from ..models.energy import energy, is_stable
from ..exact.enumeration import exact_moments, log_partition
from ..meanfield.theories import naive_mean_field
from ..plotting.words import count, describe, number, ranked
from ..plotting.style import (
    FONT_SIZE,
    HIGHLIGHT,
    HIGHLIGHT_TEXT,
    NEUTRAL,
    NEUTRAL_TEXT,
    UNIT_ON,
    bars,
    tidy,
)
from ..models.states import all_states
from ._base import FigureWidget

#: Largest network the widget accepts: every step enumerates 2**n states and solves from several starts.
MAX_MEAN_FIELD_WIDGET_UNITS = 10
#: Starts of the solver: near m = 0, and near each of at most this many stable states of the energy.
_MAX_STATE_STARTS = 6
#: Temperatures of the log Z panel, spread evenly in log T over [T_min, T_max] of the slider.
_N_CURVE = 21
_TOL, _MAX_ITER = 1e-8, 500


def _stable_starts(W, b, units):
    """Starting means near the stable states of the energy (lowest first), and one near the middle."""
    n = W.shape[0]
    S = all_states(n, units)
    stable = S[is_stable(S, W, b, units)]
    # Equal energies (mirror states) keep all_states order, whatever the rounding.
    stable = stable[order_with_ties(energy(stable, W, b, units))][:_MAX_STATE_STARTS]
    if units == "spins":
        return np.vstack([np.full(n, 0.01), 0.9 * stable])
    return np.vstack([np.full(n, 0.51), 0.05 + 0.9 * stable])


def _solutions(W, b, T, units, starts):
    """The distinct solutions reached from ``starts``: list of (m, log_z), largest bound first."""
    found = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for start in starts:
            res = naive_mean_field(W, b, T, units, initial=start, tol=_TOL, max_iter=_MAX_ITER)
            if not any(np.abs(res.m - m).max() < 1e-3 for m, _ in found):
                found.append((res.m, res.log_z))
    return [found[k] for k in order_with_ties([log_z for _, log_z in found], descending=True)]


def _fixed(x, decimals=2):
    """``x`` rounded to ``decimals`` places, then written by ``number``: averages and gaps read to a fixed
    precision, so that a solver's residual (1e-9) or a rounding error (1e-16) is written 0."""
    return number(round(float(x), decimals))


class MeanFieldWidget(FigureWidget):
    """Sliders for T and a coupling factor above mean-field solutions, exact averages and log Z.

    Build it with :func:`mean_field_widget`. The weights in use are the
    factor times the weights the widget was built with; the biases stay. The
    current state is in the read-only properties :attr:`T`, :attr:`W`,
    :attr:`solutions` (each distinct mean-field solution and its bound on
    ``log Z``, the largest bound first), :attr:`exact_mean` and :attr:`log_z`.
    """

    figsize = (9.0, 3.7)

    def __init__(self, W, b=None, T=1.0, units="spins", coupling=1.0, T_range=(0.1, 10.0)):
        W, b = check_model(W, b)
        n = W.shape[0]
        if not 1 <= n <= MAX_MEAN_FIELD_WIDGET_UNITS:
            raise ValueError(f"mean_field_widget needs 1 <= n <= {MAX_MEAN_FIELD_WIDGET_UNITS} units; got n = {n}")
        self.units = check_units(units)
        self._W0, self._b = W, b
        T = check_temperature(T)
        coupling = check_real(coupling, "coupling", nonnegative=True)
        low, high = check_temperature_range(T_range, "T_range")
        low, high = min(low, T), max(high, T)
        self._curve_T = np.geomspace(low, high, _N_CURVE)
        self._curves = {}  # coupling factor -> (exact log Z, best bound) on _curve_T
        self._starts = {}  # coupling factor -> starting means
        self.temperature = ipywidgets.FloatLogSlider(value=T, base=10, min=np.log10(low), max=np.log10(high),
                                                     step=0.02, description="T")
        self.coupling = ipywidgets.FloatSlider(value=coupling, min=0.0, max=max(2.0, coupling), step=0.05,
                                               description="coupling x", readout_format=".2f")
        for control in (self.temperature, self.coupling):
            control.observe(self._refresh, names="value")
        super().__init__([ipywidgets.HBox([self.temperature, self.coupling])])

    @property
    def T(self):
        """The temperature as currently set."""
        return float(self.temperature.value)

    @property
    def W(self):
        """The weights in use: the coupling factor times the original weights, shape (n, n)."""
        return float(self.coupling.value) * self._W0

    @property
    def solutions(self):
        """The distinct mean-field solutions at the current setting: list of (m, log_z), best first."""
        return [(m.copy(), z) for m, z in self._current[0]]

    @property
    def exact_mean(self):
        """The exact ``<s_i>`` (or ``<x_i>`` for bits) at the current setting, shape (n,)."""
        return self._current[1].copy()

    @property
    def log_z(self):
        """The exact ``log Z`` at the current setting."""
        return self._current[2]

    def _key(self):
        return round(float(self.coupling.value), 6)

    def _starts_for(self, W):
        key = self._key()
        if key not in self._starts:
            self._starts[key] = _stable_starts(W, self._b, self.units)
        return self._starts[key]

    def _curve(self, W):
        """Exact log Z and the best mean-field bound at every temperature of the panel (cached per coupling)."""
        key = self._key()
        if key not in self._curves:
            starts = self._starts_for(W)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                bound = [naive_mean_field(W, self._b, T, self.units, initial=starts, tol=1e-6, max_iter=_MAX_ITER).log_z
                         for T in self._curve_T]
            exact = [log_partition(W, self._b, T, self.units) for T in self._curve_T]
            self._curves[key] = (np.array(exact), np.array(bound))
        return self._curves[key]

    def _compute(self):
        W, T = self.W, self.T
        solutions = _solutions(W, self._b, T, self.units, self._starts_for(W))
        mean, _ = exact_moments(W, self._b, T, self.units)
        self._current = (solutions, mean, log_partition(W, self._b, T, self.units))

    def _describe(self):
        solutions, _, log_z = self._current
        return (f"MeanFieldWidget: n={self._W0.shape[0]} {self.units}, T={self.T:g}, "
                f"coupling x{self.coupling.value:g}: {len(solutions)} mean-field solution(s), "
                f"best bound {solutions[0][1]:.3f} <= log Z = {log_z:.3f}; "
                "run the notebook live to move the sliders for T and the coupling")

    def _draw(self, fig):
        self._compute()
        solutions, mean, log_z = self._current
        grid = fig.add_gridspec(1, 2, width_ratios=[1.15, 1], left=0.075, right=0.98, top=0.86, bottom=0.15,
                                wspace=0.3)
        ax_m, ax_z = fig.add_subplot(grid[0]), fig.add_subplot(grid[1])
        self._draw_means(ax_m, solutions, mean)
        gap = self._draw_log_z(ax_z, solutions[0][1], log_z)
        self._describe_figure(fig, solutions, mean, log_z, gap)

    def _describe_figure(self, fig, solutions, mean, log_z, gap):
        n, bound = len(mean), solutions[0][1]
        s = "s" if self.units == "spins" else "x"

        def values(v):
            return ", ".join(_fixed(x) for x in v)

        lead = _fixed(log_z - bound, 3)
        describe(fig, [
            f"Left: the exact \u27e8{s}_i\u27e9 of {count(n, 'unit')} (bars) and "
            f"{count(len(solutions), 'solution')} of the naive mean-field equations (markers) at "
            f"T = {number(self.T, 3)}, weights \u00d7 {number(self.coupling.value)}; right: log Z minus the best "
            f"mean-field bound against T from {number(self._curve_T[0], 3)} to {number(self._curve_T[-1], 3)}.",
            f"Here the best bound, {number(bound)}, lies {lead} below log Z = {number(log_z)}." if lead != "0" else
            f"Here the best bound equals log Z = {number(log_z)}.",
        ], [
            f"Exact \u27e8{s}_i\u27e9, unit by unit: {values(mean)}.",
            f"Mean field with the best bound (filled dots): {values(solutions[0][0])}; largest difference from "
            f"the exact values {_fixed(np.abs(solutions[0][0] - mean).max())}.",
            *(f"Another solution (rings), bound {number(z)}: {values(m)}." for m, z in solutions[1:3]),
            f"{count(len(solutions) - 3, 'more solution')} not listed." if len(solutions) > 3 else "",
            self._gap_words(gap),
        ])

    def _gap_words(self, gap):
        T = self._curve_T
        written = np.array([round(float(g), 3) for g in gap])  # a solver's residual (1e-9) reads 0
        if not written.any():
            return f"Right, the gap is 0 at every T. A dotted line marks log 2 = {number(np.log(2))}."
        # The largest gap as the written numbers rank it: a tie goes to the lower T, on every machine.
        top = int(ranked(written)[0])
        ends = " and ".join(f"{_fixed(gap[k], 3)} at T = {number(T[k], 3)}" for k in (0, len(T) - 1) if k != top)
        return (f"Right, the gap is largest, {_fixed(gap[top], 3)}, at T = {number(T[top], 3)}; it is {ends}. "
                f"A dotted line marks log 2 = {number(np.log(2))}.")

    def _draw_means(self, ax, solutions, mean):
        # Few artists and no legend: text and tick objects are the slowest part of a redraw.
        n = len(mean)
        x = np.arange(n)
        bars(ax, mean, NEUTRAL)
        others = [m for m, _ in solutions[1:]]
        if others:
            ax.plot(np.tile(x, len(others)), np.concatenate(others), "o", mfc="white", mec=UNIT_ON, ms=6, mew=1.2)
        ax.plot(x, solutions[0][0], "o", color=HIGHLIGHT, ms=7)
        low = LEVELS[self.units][0]
        ax.axhline(0, color=UNIT_ON, lw=0.6)
        ax.set(xlim=(-0.6, n - 0.4), ylim=(low - 0.08, 1.45), xticks=x, yticks=[low, 0, 1] if low < 0 else [0, 0.5, 1])
        ax.set_xlabel("unit i", fontsize=FONT_SIZE)
        ax.set_ylabel("<s_i>" if self.units == "spins" else "<x_i>", fontsize=FONT_SIZE)
        ax.text(0.01, 0.99, "\u25a0 exact", color=NEUTRAL_TEXT, transform=ax.transAxes, va="top", fontsize=FONT_SIZE - 1)
        ax.text(0.2, 0.99, "\u25cf mean field, best bound", color=HIGHLIGHT_TEXT, transform=ax.transAxes, va="top",
                fontsize=FONT_SIZE - 1)
        if others:
            ax.text(0.68, 0.99, "\u25cb other solutions", color=UNIT_ON, transform=ax.transAxes, va="top",
                    fontsize=FONT_SIZE - 1)
        plural = "s" if len(solutions) > 1 else ""
        ax.set_title(f"T = {self.T:.3g}, weights x {self.coupling.value:.2f}: {len(solutions)} mean-field "
                     f"solution{plural}", fontsize=FONT_SIZE)
        tidy(ax)

    def _draw_log_z(self, ax, bound, log_z):
        exact, best = self._curve(self.W)
        gap = exact - best
        t = np.log10(self._curve_T)  # a linear axis in log10 T: a log axis draws dozens of minor ticks
        ax.plot(t, gap, color=HIGHLIGHT, lw=1.8)
        ax.plot([np.log10(self.T)], [log_z - bound], "o", color=UNIT_ON, ms=6)
        ax.axhline(np.log(2), color=NEUTRAL, lw=1, ls=":")
        ticks = [k for k in range(int(np.floor(t[0])), int(np.ceil(t[-1])) + 1) if t[0] - 1e-9 <= k <= t[-1] + 1e-9]
        top = max(1.15 * max(gap.max(), log_z - bound), 0.8)
        ax.set(xlim=(t[0], t[-1]), ylim=(0, top), xticks=ticks, xticklabels=[f"{10.0**k:g}" for k in ticks])
        ax.yaxis.set_major_locator(MaxNLocator(4))
        ax.set_xlabel("temperature T (log scale)", fontsize=FONT_SIZE)
        ax.set_ylabel("log Z - mean-field bound", fontsize=FONT_SIZE)
        ax.text(t[-1], np.log(2), "log 2 ", color=NEUTRAL_TEXT, ha="right", va="bottom", fontsize=FONT_SIZE - 1)
        ax.set_title(f"log Z = {log_z:.3f}, bound = {bound:.3f}: gap {log_z - bound:.3f}", fontsize=FONT_SIZE)
        tidy(ax)
        return gap


def mean_field_widget(W, b=None, T=1.0, units="spins", coupling=1.0, T_range=(0.1, 10.0)):
    """Mean-field solutions against the exact averages and log Z, with sliders for T and the coupling.

    Left: the exact ``<s_i>`` of every unit (grey bars, by enumeration) and
    every distinct solution of the naive mean-field equations reached from a
    start near ``m = 0`` and from starts near the stable states of the
    energy (:func:`~bmlib.naive_mean_field`); orange is the solution with
    the largest lower bound on ``log Z``, the one a solver keeps. Right: the
    gap between the exact ``log Z`` and the best mean-field bound, which is
    ``KL(q || p)`` of the product distribution ``q``, against ``T`` (a dot at
    the current ``T``; the dotted line is ``log 2``). The slider
    ``coupling`` multiplies every weight (the biases stay). In a static page
    the widget shows its picture at the moment it was displayed. Explained
    in the chapter "The deterministic Boltzmann machine".

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric weights with zero diagonal, ``1 <= n <= 10``.
    b : array_like of shape (n,), optional
    T : float
        Starting temperature.
    units : {"spins", "bits"}
    coupling : float
        Starting factor on the weights, >= 0.
    T_range : tuple of float
        Range of the temperature slider and of the log Z panel.

    Returns
    -------
    MeanFieldWidget

    Examples
    --------
    >>> w = bm.mean_field_widget([[0, 1], [1, 0]], T=2.0)
    >>> len(w.solutions), w.solutions[0][0].round(6) + 0  # above T = 1: the single solution m = 0
    (1, array([0., 0.]))
    >>> w.temperature.value = 0.5
    >>> len(w.solutions), bool(w.solutions[0][1] <= w.log_z)
    (2, True)
    >>> w.figure_png()[:4]
    b'\\x89PNG'
    """
    return MeanFieldWidget(W, b, T, units, coupling, T_range)
