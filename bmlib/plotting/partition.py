"""Figures of the chapter "The normalizing constant Z": log Z estimators against the exact value.

Both figures draw a :class:`~bmlib.LogZComparison` (from :func:`~bmlib.compare_log_z`);
they compute nothing, so the widget of the chapter can redraw them on every
slider step. Colours group the methods by family: grey for the visited-states
sum, blue for the mean-field family (naive, TAP, Bethe), red for importance
sampling, orange for AIS, and dark for the exact value.
"""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator, NullLocator

from .._checks import check_temperature, check_temperatures
from ..partition.study import METHODS, SAMPLING, LogZComparison
from .style import (
    FONT_SIZE,
    HIGHLIGHT,
    NEGATIVE,
    NEUTRAL,
    NEUTRAL_TEXT,
    POSITIVE,
    UNIT_ON,
    _new_figure,
    tidy,
    text_colour,
)
from .words import count, describe, number, ranked, span

#: (colour, marker, line style, filled) of each method.
STYLES = {
    "visited": (NEUTRAL, "s", "--", True),
    "mean_field": (NEGATIVE, "v", "-", True),
    "tap": (NEGATIVE, "^", ":", False),
    "bethe": (NEGATIVE, "D", "-.", False),
    "is_uniform": (POSITIVE, "o", "--", False),
    "is_mean_field": (POSITIVE, "o", ":", True),
    "ais": (HIGHLIGHT, "*", "-", True),
}
#: y range of the error panels. A linear axis keeps a 0.05 and a 0.7 honestly apart; the few
#: errors beyond it (importance sampling far from its range) are drawn at the edge with their value.
ERROR_RANGE = (-2.0, 1.5)
#: |error| below this is drawn at it on the log axis of the cost figure.
ERROR_FLOOR = 1e-3


def _check_comparison(comparison):
    if not isinstance(comparison, LogZComparison):
        raise TypeError(f"comparison must be a LogZComparison from bmlib.compare_log_z; got {type(comparison).__name__}")
    return comparison


def marker_kwargs(key, size=5):
    colour, marker, line, filled = STYLES[key]
    return dict(color=colour, marker=marker, ls=line, ms=size + (2 if marker == "*" else 0),
                mfc=colour if filled else "white", mec=colour, lw=1.2)


def draw_log_z(ax, comp, k, current=None):
    """log Z per unit against T: the exact line and every estimate (markers)."""
    T, n = comp.temperatures, comp.n_units
    ax.plot(T, comp.exact / n, color=UNIT_ON, lw=2, label="exact", zorder=3)
    for key in comp.methods:
        kw = marker_kwargs(key, 4)
        kw["ls"] = "none"
        ax.plot(T, comp.log_z[key][k] / n, label=METHODS[key], **kw)
    if current is not None:
        ax.axvline(T[current], color=UNIT_ON, lw=0.8, ls=":")
    _temperature_axis(ax, T)
    ax.yaxis.set_major_locator(MaxNLocator(5))
    ax.set_ylabel("log Z / n", fontsize=FONT_SIZE)
    tidy(ax)


def _draw_errors(ax, comp, k, methods, mark_T=None, mark_label=None):
    """estimate - exact against T on a symmetric-log axis; +-2 standard-error bars for IS and AIS."""
    T = comp.temperatures
    ax.axhline(0, color=UNIT_ON, lw=2, label="exact", zorder=1)
    for key in methods:
        err = comp.log_z[key][k] - comp.exact
        sd = comp.error[key][k]
        kw = marker_kwargs(key)
        shown = np.clip(err, *ERROR_RANGE)
        if np.isfinite(sd).any():
            bars = np.where(shown == err, 2 * np.nan_to_num(sd), 0.0)  # no bar on a point drawn at the edge
            ax.errorbar(T, shown, yerr=bars, capsize=2, elinewidth=0.8, label=METHODS[key], **kw)
        else:
            ax.plot(T, shown, label=METHODS[key], **kw)
        for t in np.flatnonzero(shown != err):  # off the scale: say where
            ax.annotate(f"{err[t]:+.1f}", (T[t], shown[t]), xytext=(6, 2 if err[t] < 0 else -9),
                        textcoords="offset points", fontsize=FONT_SIZE - 1, color=text_colour(kw["color"]))
    if mark_T is not None:
        ax.axvline(mark_T, color=NEUTRAL, lw=1, ls="--")
        if mark_label:
            ax.text(mark_T, 1.0, " " + mark_label, transform=ax.get_xaxis_transform(), fontsize=FONT_SIZE - 1,
                    color=NEUTRAL_TEXT, va="top", ha="left")
    _temperature_axis(ax, T)
    ax.set_ylim(ERROR_RANGE[0] - 0.1, ERROR_RANGE[1] + 0.1)
    ax.set_xlabel("temperature T", fontsize=FONT_SIZE)
    tidy(ax)


def _temperature_axis(ax, T):
    """A log temperature axis with ticks at 1, 2, 5 times powers of ten (plain numbers)."""
    ax.set_xscale("log")
    low, high = float(np.min(T)), float(np.max(T))
    decades = range(int(np.floor(np.log10(low))), int(np.ceil(np.log10(high))) + 1)
    ticks = [m * 10.0**d for d in decades for m in (1, 2, 5) if low / 1.01 <= m * 10.0**d <= high * 1.01]
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}" for t in ticks], fontsize=FONT_SIZE - 1)
    ax.xaxis.set_minor_locator(NullLocator())  # a log axis makes many minor ticks: slow, and unlabelled anyway
    pad = (high / low) ** 0.04
    ax.set_xlim(low / pad, high * pad)


def _draw_cost(ax, comp, t):
    """|error| against work at temperature index t: lines for sampling methods over budgets."""
    for key in comp.methods:
        err = np.maximum(np.abs(comp.log_z[key][:, t] - comp.exact[t]), ERROR_FLOOR)
        work = comp.work[key][:, t]
        kw = marker_kwargs(key)
        if key in SAMPLING:
            ax.plot(work, err, label=METHODS[key], **kw)
        else:
            kw["ls"] = "none"
            ax.plot(work[:1], err[:1], label=METHODS[key], **kw)
    ax.axvline(comp.exact_work, color=UNIT_ON, lw=2)
    ax.text(comp.exact_work, 1.0, "exact\n(error 0) ", transform=ax.get_xaxis_transform(), ha="right", va="top",
            fontsize=FONT_SIZE - 1, color=UNIT_ON)
    ax.axhline(ERROR_FLOOR, color=NEUTRAL, lw=0.6, ls=":")
    ax.set(xscale="log", yscale="log")
    ax.set_title(f"T = {comp.temperatures[t]:.3g}", fontsize=FONT_SIZE)
    ax.set_xlabel("work (passes over W)", fontsize=FONT_SIZE)
    tidy(ax)


def plot_log_z_errors(comparison, budget=None, mark_T=None, mark_label=None):
    """log Z and the error of every estimator against temperature, with the exact value.

    Top: ``log Z / n`` from enumeration (line) and from every method
    (markers). Bottom: the error ``estimate - exact`` (errors beyond -2 or
    +1.5 drawn at the edge, with their value); left the visited-states sum
    and the mean-field family, right importance sampling and AIS, with +-2
    standard-error bars.
    Explained in the chapter "The normalizing constant Z".

    Parameters
    ----------
    comparison : LogZComparison
        From :func:`~bmlib.compare_log_z`.
    budget : int, optional
        Which budget of the sampling methods (default: the largest).
    mark_T : float, optional
        A temperature to mark with a dashed line (e.g. a transition).
    mark_label : str, optional
        Its label.

    Returns
    -------
    matplotlib.figure.Figure
        With three axes: log Z per unit, and the errors of the two groups of methods.

    Examples
    --------
    >>> import bmlib as bm, matplotlib.pyplot as plt
    >>> comp = bm.compare_log_z(bm.sk_couplings(8, rng=0), temperatures=[2.0, 1.0], budgets=[1000], rng=0)
    >>> fig = bm.plot_log_z_errors(comp, mark_T=1.0, mark_label="T = J")
    >>> len(fig.axes)
    3
    >>> plt.close(fig)
    """
    comp = _check_comparison(comparison)
    k = comp._budget_index(budget)
    if mark_T is not None:
        mark_T = check_temperature(mark_T, "mark_T")
    if mark_label is not None and not isinstance(mark_label, str):
        raise TypeError(f"mark_label must be a string; got {mark_label!r:.60} of type {type(mark_label).__name__}")
    fig = _new_figure((8.0, 6.0))
    grid = fig.add_gridspec(2, 2, height_ratios=[2, 3])
    ax_z = fig.add_subplot(grid[0, :])
    ax_left = fig.add_subplot(grid[1, 0])
    ax_right = fig.add_subplot(grid[1, 1], sharey=ax_left)
    draw_log_z(ax_z, comp, k)
    ax_z.legend(fontsize=FONT_SIZE - 1, frameon=False, loc="upper right", ncol=2)
    ax_z.set_title(f"sampling methods: {comp.budgets[k]} passes over W each; exact by {comp.exact_method}: "
                   f"{comp.exact_work}", fontsize=FONT_SIZE)
    left = [key for key in comp.methods if key not in SAMPLING or key == "visited"]
    right = [key for key in comp.methods if key in SAMPLING and key != "visited"]
    for ax, keys, title in ((ax_left, left, "bounds and approximations"),
                            (ax_right, right, "importance sampling, AIS (bars: ±2 s.e.)")):
        _draw_errors(ax, comp, k, keys, mark_T, mark_label)
        ax.set_title(title, fontsize=FONT_SIZE)
        ax.legend(fontsize=FONT_SIZE - 1, frameon=False, loc="lower left" if ax is ax_left else "lower right")
    ax_left.set_ylabel("error of log Z (estimate − exact)", fontsize=FONT_SIZE)
    _describe_log_z_errors(fig, comp, k, mark_T, mark_label)
    return fig


#: What a flag of :class:`~bmlib.LogZComparison` means, in words.
FLAG_WORDS = {"NC": "did not converge", "P!": "outside its range"}


def _names(keys):
    return [METHODS[key] for key in keys]


def _listing(names, values, order):
    return ", ".join(f"{names[i]} {number(values[i])}" for i in order)


def _describe_log_z_errors(fig, comp, k, mark_T=None, mark_label=None):
    T, n = comp.temperatures, comp.n_units
    names = _names(comp.methods)
    err = np.array([comp.log_z[key][k] - comp.exact for key in comp.methods])  # (methods, temperatures)
    worst = np.abs(err).max(axis=1)
    best_first = ranked(-worst)
    per_method = []
    for i, key in enumerate(comp.methods):
        at = int(ranked(np.abs(err[i]))[0])
        per_method.append(f"{names[i]} {span(err[i])}, worst at T = {number(T[at], 3)}")
    mark = ""
    if mark_T is not None:
        mark = f"A dashed line marks T = {number(mark_T, 3)}{f' ({mark_label})' if mark_label else ''}."
    describe(fig, [
        f"log Z per unit against temperature T ({span(T, 3)}, log axis) for {n} {comp.units}, exact by "
        f"{comp.exact_method} (line) and by {count(len(names), 'estimator')} (markers; sampling ones with "
        f"{comp.budgets[k]} passes over W); below, each one's error, estimate − exact.",
        f"Largest error in size over these temperatures, smallest first: {_listing(names, worst, best_first)}.",
    ], [
        f"Exact log Z / n runs {span(comp.exact / n)}.",
        "The errors are split in two panels, bounds and approximations on the left, importance sampling and AIS "
        "(with bars of ±2 standard errors) on the right.",
        f"Errors per estimator: {'; '.join(per_method)}.",
        f"Errors beyond {number(ERROR_RANGE[0])} or {number(ERROR_RANGE[1])} are drawn at the edge with their "
        "value." if np.any((err < ERROR_RANGE[0]) | (err > ERROR_RANGE[1])) else "",
        mark,
    ])


def plot_log_z_cost(comparison, temperatures=None):
    """How the error of each estimator falls with the work spent, at a few temperatures.

    One panel per temperature: ``|estimate - exact|`` (log axis; values
    below 0.001 drawn at 0.001) against the work in passes over W. The
    sampling methods are lines through their budgets; the deterministic ones
    a single point at the work they took to converge; exact enumeration is
    the vertical line at ``2**n`` energy evaluations. Explained in the
    chapter "The normalizing constant Z".

    Parameters
    ----------
    comparison : LogZComparison
    temperatures : sequence of float, optional
        Up to four temperatures of the comparison (default: its first,
        middle and last).

    Returns
    -------
    matplotlib.figure.Figure
        With one axes per temperature.

    Examples
    --------
    >>> import bmlib as bm, matplotlib.pyplot as plt
    >>> comp = bm.compare_log_z(bm.sk_couplings(8, rng=0), temperatures=[2.0, 1.0], budgets=[300, 1000], rng=0)
    >>> fig = bm.plot_log_z_cost(comp)
    >>> len(fig.axes)
    2
    >>> plt.close(fig)
    """
    comp = _check_comparison(comparison)
    T = comp.temperatures
    if temperatures is None:
        index = sorted({0, len(T) // 2, len(T) - 1})
    else:
        index = []
        for value in check_temperatures(temperatures).tolist():
            match = np.flatnonzero(np.isclose(T, value))
            if match.size == 0:
                raise ValueError(f"temperatures must be among the comparison's {[round(float(t), 4) for t in T]}; got {value}")
            index.append(int(match[0]))
        if not 1 <= len(index) <= 4:
            raise ValueError(f"temperatures must hold 1 to 4 temperatures; got {len(index)}")
    fig = _new_figure((2.6 * len(index) + 1.6, 3.4))
    axes = fig.subplots(1, len(index), sharey=True, squeeze=False)[0]
    for ax, t in zip(axes, index):
        _draw_cost(ax, comp, t)
    axes[0].set_ylabel("|error of log Z|", fontsize=FONT_SIZE)
    axes[-1].legend(fontsize=FONT_SIZE - 1, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))
    _describe_log_z_cost(fig, comp, index)
    return fig


def _error_size(value):
    """An error's size as the cost figure draws it: values below the floor are drawn at it."""
    value = abs(float(value))
    return f"below {number(ERROR_FLOOR)}" if value < ERROR_FLOOR else number(value)


def _describe_log_z_cost(fig, comp, index):
    T = comp.temperatures
    names = _names(comp.methods)
    sampling = [key for key in comp.methods if key in SAMPLING]
    best, panels = [], []
    for t in index:
        err = {key: np.abs(comp.log_z[key][:, t] - comp.exact[t]) for key in comp.methods}
        last = np.array([err[key][-1] for key in comp.methods])
        top = int(ranked(-np.maximum(last, ERROR_FLOOR))[0])
        best.append(f"{names[top]} at T = {number(T[t], 3)} ({_error_size(last[top])})")
        words = [f"{METHODS[key]} {_error_size(err[key][0])} to {_error_size(err[key][-1])}" if key in SAMPLING
                 else f"{METHODS[key]} {_error_size(err[key][0])} after {_passes(comp.work[key][0, t])}"
                 for key in comp.methods]
        panels.append(f"T = {number(T[t], 3)}: {', '.join(words)}.")
    budgets = f"budgets of {_and([str(b) for b in comp.budgets])} passes"
    describe(fig, [
        f"Size of the error of log Z against the work (passes over W), both on log axes, at "
        f"T = {_and([number(T[t], 3) for t in index])}: {_and(_names(sampling))} as lines through "
        f"{budgets}, the others as one point each; exact {comp.exact_method} costs {comp.exact_work}.",
        f"Smallest error with the most work: {'; '.join(best)}.",
    ], [f"Errors from the least to the most work ({comp.budgets[0]} to {comp.budgets[-1]} passes), or after the "
         "work a method took to converge:"] + panels)


def _passes(work):
    work = float(work)
    return f"{int(work)} passes" if work == int(work) else f"{number(work)} passes"


def _and(words):
    words = list(words)
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
