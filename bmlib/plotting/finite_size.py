"""Figures of how a lattice's measurements change with its side L: finite-size scaling.

The Binder cumulants of several sizes crossing near T_c and the susceptibility's
peak growing like L**(gamma/nu) (chapter "The Ising model"), and the
autocorrelation times of single-spin and cluster updates at T_c against L
(chapter "Beyond single flips").
"""
from __future__ import annotations

import numpy as np

from .._checks import check_instance, check_real, check_temperatures
from ..exact.closed_forms import critical_temperature
from .style import (
    FONT_SIZE,
    NEGATIVE,
    NEUTRAL,
    NEUTRAL_TEXT,
    POSITIVE,
    _new_figure,
    tidy,
    series_style,
)
from .words import describe, number, span


def plot_binder_crossing(temperatures, scans):
    """Binder cumulant against temperature for several lattice sizes: the curves cross near T_c.

    When the crossings of neighbouring sizes lie within half the range of
    temperatures, an inset magnifies the grid points that bracket them. Explained in the chapter "The Ising model".

    Parameters
    ----------
    temperatures : array_like of shape (k,)
        The temperatures of the scans.
    scans : dict of int to dict
        Lattice side ``L`` to the result of :func:`~bmlib.temperature_scan` at
        ``temperatures`` (it holds ``"binder"``).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import bmlib as bm, numpy as np, matplotlib.pyplot as plt
    >>> T = np.array([2.0, 2.5])
    >>> scans = {4: bm.temperature_scan(bm.SquareLattice(4), None, T, n_samples=50, rng=0)}
    >>> fig = bm.plot_binder_crossing(T, scans)
    >>> fig.axes[0].get_legend_handles_labels()[1]
    ['L = 4']
    >>> plt.close(fig)
    """
    T = check_temperatures(temperatures)
    scans = _size_scans(T, scans, "binder")
    fig = _new_figure((6.4, 4.0))
    ax = fig.add_subplot()
    Tc = critical_temperature()
    window = _crossing_window(T, scans)
    inset = None
    if window is not None:
        # The crossing, magnified: on the full range of U the curves meet in a crowded corner.
        inset = ax.inset_axes([0.08, 0.07, 0.32, 0.42])
    for k, (L, scan) in enumerate(scans):
        # One size, one colour, dash and marker: the curves stay apart without their colours.
        for where in (ax, inset) if inset is not None else (ax,):
            where.errorbar(T, scan["binder"].value, yerr=scan["binder"].error, **series_style(k),
                           ms=4 if where is ax else 3.5, lw=1.5 if where is ax else 1.2, capsize=2,
                           label=f"L = {L}")
    ax.axvline(Tc, color=NEUTRAL, lw=1, ls=":")
    ax.set_xlabel("temperature T", fontsize=FONT_SIZE)
    ax.set_ylabel("Binder cumulant U", fontsize=FONT_SIZE)
    ax.legend(fontsize=FONT_SIZE, frameon=False)
    tidy(ax)
    if inset is not None:
        lo, hi = window
        near = (T >= lo) & (T <= hi)
        values = np.concatenate([np.asarray(scan["binder"].value)[near] + sign * np.asarray(scan["binder"].error)[near]
                                 for _, scan in scans for sign in (-1, 1)])
        pad = 0.1 * (values.max() - values.min()) or 0.01
        inset.set_xlim(lo - 0.25 * (hi - lo), hi + 0.25 * (hi - lo))
        inset.set_ylim(values.min() - pad, values.max() + pad)
        inset.axvline(Tc, color=NEUTRAL, lw=1, ls=":")
        ticks = np.sort(T[near])
        inset.set_xticks(ticks, [f"{t:g}" for t in ticks])
        inset.tick_params(labelsize=FONT_SIZE - 1)
        inset.set_title(f"magnified; T_c = {Tc:.3f}", fontsize=FONT_SIZE - 1)
        ax.indicate_inset_zoom(inset, edgecolor=NEUTRAL)
    _describe_binder(fig, T, scans, Tc, window)
    return fig


def _crossing_window(T, scans):
    """(lowest, highest) grid temperature bracketing where neighbouring sizes cross, or None.

    None when no two neighbouring curves cross, or when the crossings span most of the grid
    (a magnified view would show nothing new).
    """
    found = [t for k in range(len(scans) - 1)
             for t in _crossings(T, scans[k][1]["binder"].value, scans[k + 1][1]["binder"].value)]
    if not found:
        return None
    grid = np.sort(T)
    lo = grid[grid <= min(found)].max(initial=grid[0])
    hi = grid[grid >= max(found)].min(initial=grid[-1])
    if hi <= lo or (hi - lo) > 0.5 * (grid[-1] - grid[0]):
        return None
    return float(lo), float(hi)


def _crossings(T, low, high):
    """Temperatures where the curve ``high`` crosses ``low`` (linear between the points), in order of T."""
    order = np.argsort(T, kind="stable")
    T, d = T[order], (np.asarray(high) - np.asarray(low))[order]
    found = []
    for i in range(len(T) - 1):
        if d[i] == 0:
            found.append(T[i])
        elif d[i] * d[i + 1] < 0:
            found.append(T[i] + (T[i + 1] - T[i]) * d[i] / (d[i] - d[i + 1]))
    if len(T) and d[-1] == 0:
        found.append(T[-1])
    return found


def _crossing_words(T, scans, a, b, name):
    """``"L = 8 and L = 32 cross at T ≈ 2.27"`` for the curves of ``scans[a]`` and ``scans[b]``."""
    (L_a, scan_a), (L_b, scan_b) = scans[a], scans[b]
    found = _crossings(T, scan_a[name].value, scan_b[name].value)
    pair = f"L = {L_a} and L = {L_b}"
    if not found:
        return f"{pair} do not cross between T = {number(T.min(), 3)} and {number(T.max(), 3)}"
    at = ", ".join(f"{number(t, 3)}" for t in found[:3]) + (" ..." if len(found) > 3 else "")
    return f"{pair} cross {'once' if len(found) == 1 else f'{len(found)} times'}, at T ≈ {at}"


def _sizes(scans):
    sides = [f"{L}" for L, _ in scans]
    return sides[0] if len(sides) == 1 else ", ".join(sides[:-1]) + " and " + sides[-1]


def _describe_binder(fig, T, scans, Tc, window=None):
    lo, hi = int(np.argmin(T)), int(np.argmax(T))
    summary = [f"Binder cumulant U against the temperature T {span(T, 3)} for lattice sides L = {_sizes(scans)}, "
               f"with T_c = {number(Tc, 3)} dotted."]
    if window is not None:
        summary[0] += f" An inset magnifies the crossing, T from {number(window[0], 3)} to {number(window[1], 3)}."
    if len(scans) > 1:
        summary.append(f"The curves of {_crossing_words(T, scans, 0, len(scans) - 1, 'binder')}.")
    details = [f"L = {L}: U is {number(scan['binder'].value[lo])} at T = {number(T[lo], 3)} and "
               f"{number(scan['binder'].value[hi])} at T = {number(T[hi], 3)}." for L, scan in scans]
    if len(scans) > 2:
        details += [f"{_crossing_words(T, scans, k, k + 1, 'binder')}." for k in range(len(scans) - 1)]
    describe(fig, summary, details)


def _size_scans(T, scans, name):
    """``scans`` ({L: temperature_scan}) as a list of (L, scan) by increasing L, each holding ``name`` at T."""
    if not isinstance(scans, dict) or not scans:
        raise TypeError("scans must be a non-empty dict {L: bm.temperature_scan(...)}")
    for L, scan in scans.items():
        if not isinstance(scan, dict) or name not in scan or np.shape(scan[name].value) != T.shape:
            raise ValueError(f"scans[{L}] must be a temperature_scan at the {T.size} temperatures given")
    return sorted(scans.items())


def _peak(T, estimate):
    """Temperature, value and error at the largest value (the lowest such T on a tie).

    ``np.argmax`` of the values, as the chapter finds the peak it prints: the
    figure's point, its words and the printed peak are one and the same.
    """
    k = int(np.argmax(estimate.value))  # argmax takes the first of equal values
    return T[k], estimate.value[k], estimate.error[k]


def _log_ticks(ax):
    """Plain-number ticks at 1, 2, 5 times powers of ten on a logarithmic y axis (its limits kept)."""
    lo, hi = ax.get_ylim()
    decades = 10.0 ** np.arange(np.floor(np.log10(lo)), np.ceil(np.log10(hi)) + 1)
    ticks = [t for t in np.outer(decades, [1, 2, 5]).ravel() if lo <= t <= hi]
    ax.set_yticks(ticks, [f"{t:g}" for t in ticks])
    ax.minorticks_off()
    ax.set_ylim(lo, hi)


def plot_susceptibility_scaling(temperatures, scans, exponent=1.75):
    """The susceptibility of several lattice sizes, and how its peak grows with the size.

    Left: ``chi = N (<m^2> - <|m|>^2) / T`` per spin against the temperature,
    one curve per lattice side ``L`` (logarithmic axis). Right: the largest
    ``chi`` of each curve against ``L`` on logarithmic axes, beside a line
    proportional to ``L**exponent`` through the middle of the points
    (``gamma / nu = 7/4`` for the two-dimensional Ising model). The peak is
    the largest value on the temperature grid given, so a coarse grid
    under-estimates it. Explained in the chapter "The Ising model".

    Parameters
    ----------
    temperatures : array_like of shape (k,)
        The temperatures of the scans.
    scans : dict of int to dict
        Lattice side ``L`` to the result of :func:`~bmlib.temperature_scan` at
        ``temperatures`` (it holds ``"susceptibility"``); at least two sizes.
    exponent : float
        Slope of the reference line on the right, > 0.

    Returns
    -------
    matplotlib.figure.Figure
        With two axes: ``chi`` against ``T``, and the peaks against ``L``.

    Examples
    --------
    >>> import bmlib as bm, numpy as np, matplotlib.pyplot as plt
    >>> T = np.array([2.2, 2.5])
    >>> scans = {L: bm.temperature_scan(bm.SquareLattice(L), None, T, n_samples=50, rng=0) for L in (4, 8)}
    >>> fig = bm.plot_susceptibility_scaling(T, scans)
    >>> fig.axes[1].get_legend_handles_labels()[1][1:]  # after the line's label
    ['L = 4', 'L = 8']
    >>> plt.close(fig)
    """
    T = check_temperatures(temperatures)
    scans = _size_scans(T, scans, "susceptibility")
    if len(scans) < 2:
        raise ValueError(f"scans must hold at least two lattice sizes for a scaling plot; got {len(scans)}")
    exponent = check_real(exponent, "exponent", positive=True)
    fig = _new_figure((6.8, 3.0))
    ax_T, ax_L = fig.subplots(1, 2, gridspec_kw=dict(width_ratios=[1.3, 1.0]))
    sides, peaks, found = [], [], []
    for k, (L, scan) in enumerate(scans):
        chi = scan["susceptibility"]
        # Each size its own colour, dash and marker; the same colour and marker for its peak on the right.
        style = series_style(k)
        ax_T.errorbar(T, chi.value, yerr=chi.error, **style, ms=4, lw=1.5, capsize=2)
        found.append(_peak(T, chi))
        _, value, error = found[-1]
        ax_L.errorbar([L], [value], yerr=[error], color=style["color"], marker=style["marker"], ms=6, capsize=2,
                      ls="none", label=f"L = {L}")
        sides.append(L)
        peaks.append(value)
    Tc = critical_temperature()
    ax_T.axvline(Tc, color=NEUTRAL, lw=1, ls=":")
    ax_T.text(Tc, 0.02, " T_c", color=NEUTRAL_TEXT, fontsize=FONT_SIZE, transform=ax_T.get_xaxis_transform())
    ax_T.set_xlabel("temperature T", fontsize=FONT_SIZE)
    ax_T.set_ylabel("susceptibility per spin", fontsize=FONT_SIZE)
    sides, peaks = np.array(sides, dtype=float), np.array(peaks)
    # The reference line: amplitude from the geometric means, so it passes through the middle of the points.
    amplitude = np.exp(np.mean(np.log(peaks) - exponent * np.log(sides)))
    L_line = np.geomspace(sides.min() / 1.25, sides.max() * 1.25, 50)
    ax_L.plot(L_line, amplitude * L_line**exponent, color=NEUTRAL, ls="--", lw=1.2,
              label=f"$\\propto L^{{{exponent:g}}}$")
    ax_L.set_xscale("log")
    ax_L.set_xticks(sides, [f"{L:g}" for L in sides])
    ax_L.set_xlabel("lattice side L", fontsize=FONT_SIZE)
    ax_L.set_ylabel("largest susceptibility", fontsize=FONT_SIZE)
    ax_L.legend(fontsize=FONT_SIZE, frameon=False, loc="lower right")
    for ax in (ax_T, ax_L):
        ax.set_yscale("log")
        _log_ticks(ax)
        tidy(ax)
    _describe_susceptibility(fig, T, scans, sides, peaks, found, exponent, Tc)
    return fig


def _slope(x, y):
    """Least-squares slope of log y against log x over the finite, positive points (None if under two)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(y) & (y > 0)
    if keep.sum() < 2:
        return None
    return float(np.polyfit(np.log(x[keep]), np.log(y[keep]), 1)[0])


def _describe_susceptibility(fig, T, scans, sides, peaks, found, exponent, Tc):
    """The words of :func:`plot_susceptibility_scaling`; ``found`` holds each size's :func:`_peak`, the point drawn."""
    slope = _slope(sides, peaks)
    grows = f", like L^{number(slope)}" if slope is not None else ""
    summary = [
        f"Left: the susceptibility per spin against the temperature T {span(T, 3)} for lattice sides "
        f"L = {_sizes(scans)} (logarithmic axis), with T_c = {number(Tc, 3)} dotted. Right: the largest value of "
        f"each curve against L on logarithmic axes, beside a dashed line proportional to L^{number(exponent, 3)}.",
        f"The peak grows from {number(peaks[0])} at L = {scans[0][0]} to {number(peaks[-1])} at "
        f"L = {scans[-1][0]}{grows}.",
    ]
    details = []
    for (L, scan), (T_peak, value, error) in zip(scans, found):
        # The peak drawn on the right, found once: the words cannot name another temperature.
        details.append(f"L = {L}: largest {number(value, 3)} ± {number(error)} at T = "
                       f"{number(T_peak, 3)}, over a range {span(scan['susceptibility'].value)}.")
    describe(fig, summary, details)


def plot_critical_slowing(result, exponent=2.17):
    """Autocorrelation time against lattice side at T_c: single-spin sweeps against Wolff's clusters.

    Both axes logarithmic. The heat-bath times grow like ``L**z`` with the
    dynamic exponent ``z ~ 2.17`` of single-spin dynamics (Nightingale and
    Blöte 1996); a dashed line with that slope passes through the middle of
    them. Wolff's times, in the same unit of sweeps, hardly grow. Explained
    in the chapter "Beyond single flips".

    Parameters
    ----------
    result : CriticalSlowing
        From :func:`~bmlib.critical_slowing_down`.
    exponent : float
        Slope of the reference line, > 0.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> run = bm.critical_slowing_down((4, 8), n_sweeps=400, n_updates=200, n_chains=4, rng=0)
    >>> fig = bm.plot_critical_slowing(run)
    >>> fig.axes[0].get_legend_handles_labels()[1][:2]
    ['heat bath (one spin at a time)', 'Wolff (clusters)']
    >>> plt.close(fig)
    """
    from ..sampling.clusters import CriticalSlowing  # noqa: PLC0415 (kept out of the import of bmlib)

    check_instance(result, "result", CriticalSlowing, "the result of bm.critical_slowing_down")
    exponent = check_real(exponent, "exponent", positive=True)
    L = result.sides.astype(float)
    fig = _new_figure((5.6, 3.3))
    ax = fig.add_subplot()
    ax.plot(L, result.heat_bath, color=NEGATIVE, marker="o", lw=1.5, label="heat bath (one spin at a time)")
    ax.plot(L, result.wolff, color=POSITIVE, marker="s", lw=1.5, label="Wolff (clusters)")
    # Through the geometric mean of the heat-bath points, so the eye compares slopes, not heights.
    amplitude = np.exp(np.mean(np.log(result.heat_bath) - exponent * np.log(L)))
    L_line = np.geomspace(L.min() / 1.2, L.max() * 1.2, 20)
    ax.plot(L_line, amplitude * L_line**exponent, color=NEUTRAL, ls="--", lw=1.2, label=f"$\\propto L^{{{exponent:g}}}$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(L, [f"{side:g}" for side in L])
    ax.minorticks_off()
    ax.set_xlabel("lattice side L", fontsize=FONT_SIZE)
    ax.set_ylabel("autocorrelation time of |m| (sweeps)", fontsize=FONT_SIZE)
    ax.set_title(f"at T = {result.temperature:.3f}", fontsize=FONT_SIZE)
    ax.legend(fontsize=FONT_SIZE, frameon=False, loc="upper left")
    tidy(ax)
    _describe_slowing(fig, result, exponent)
    return fig


def _describe_slowing(fig, result, exponent):
    L = result.sides
    z_heat, z_wolff = _slope(L, result.heat_bath), _slope(L, result.wolff)
    like = lambda z: f", like L^{number(z)}" if z is not None else ""  # noqa: E731
    summary = [
        f"Autocorrelation time of |m| in sweeps against the lattice side L = {', '.join(str(int(x)) for x in L)} "
        f"at T = {number(result.temperature, 3)}, both axes logarithmic.",
        f"Heat-bath sweeps (one spin at a time, circles) take {span(result.heat_bath)} sweeps{like(z_heat)}, "
        f"beside a dashed line proportional to L^{number(exponent, 3)}; Wolff's cluster updates (squares) take "
        f"{span(result.wolff)} sweeps{like(z_wolff)}.",
    ]
    details = [f"L = {int(side)}: heat bath {number(heat)}, Wolff {number(wolff)} sweeps."
               for side, heat, wolff in zip(L, result.heat_bath, result.wolff)]
    describe(fig, summary, details)
