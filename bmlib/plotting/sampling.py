"""Figures of the chapter "The Boltzmann-Gibbs distribution": sampled against exact, convergence,
autocorrelation, annealing.

The distribution figure uses the same state order and the same strip of
states as the energy landscape of the chapter "Energy", so a state keeps its
place from one chapter to the next. Two update rules appear side by side in
several figures: heat bath is drawn dark (``UNIT_ON``) and solid with round
markers, Metropolis orange (``HIGHLIGHT``) and dashed with square markers, so
the two never differ by colour alone; exact references are grey (``NEUTRAL``).
Each figure also carries its words (:mod:`bmlib.plotting._words`), written
from the arrays it draws.
"""
from __future__ import annotations

import numpy as np
from matplotlib.collections import PolyCollection
from matplotlib.ticker import MaxNLocator

from .._checks import (
    check_count,
    check_finite_data,
    check_instance,
    check_model,
    check_optional_real,
    check_state_batch,
    check_temperature,
    check_units,
)
from ..exact.enumeration import boltzmann_distribution
from ..sampling.chains import SampleResult
from ..sampling.diagnostics import _autocorrelation, _series, autocorrelation_time
from ..sampling.transition import (
    RULE_NAMES,
    convergence_curves,
    state_frequencies,
    total_variation,
)
from ..models.states import all_states
from ._style import (
    FONT_SIZE,
    HIGHLIGHT,
    MAX_LABELLED_UNITS,
    MAX_TEXT_LABEL_UNITS,
    NEUTRAL,
    NEUTRAL_TEXT,
    SERIES,
    UNIT_ON,
    _bars,
    _draw_strip,
    _new_figure,
    _tidy,
    series_style,
    state_labels,
)
from ._words import count, describe, number, ranked, span

#: Colour and name of each update rule in the figures.
RULE_STYLE = {"heat_bath": (UNIT_ON, RULE_NAMES["heat_bath"]), "metropolis": (HIGHLIGHT, RULE_NAMES["metropolis"])}
#: Dash and marker of each update rule: with its colour, never colour alone (WCAG 1.4.1).
RULE_LINE = {"heat_bath": dict(ls="-", marker="o"), "metropolis": dict(ls="--", marker="s")}
#: Largest network whose sampled distribution is drawn state by state (2**8 bars).
MAX_DISTRIBUTION_UNITS = 8


def _narrow_bars(ax, heights, colour, width=0.36):
    """Bars of the given width centred on 0, 1, ..., as one PolyCollection (fast to draw)."""
    verts = np.empty((len(heights), 4, 2))
    verts[..., 0] = np.arange(len(heights))[:, None] + 0.5 * width * np.array([-1, -1, 1, 1])
    verts[..., 1] = heights[:, None] * [0, 1, 1, 0]
    ax.add_collection(PolyCollection(verts, facecolors=colour, edgecolors="none"))


def _curve_styles(keys):
    """Colour, dash and marker of each named curve of a panel, no two alike.

    An update rule keeps its own (:data:`RULE_STYLE`, :data:`RULE_LINE`);
    any other name takes the next of the book's :data:`SERIES` whose dash and
    marker no rule in the panel uses.
    """
    rules = [RULE_LINE[key] for key in keys if key in RULE_LINE]
    spare = [dict(style) for style in SERIES
             if all(style["ls"] != r["ls"] and style["marker"] != r["marker"] for r in rules)]
    styles, k = {}, 0
    for key in keys:
        if key in RULE_LINE:
            styles[key] = dict(color=RULE_STYLE[key][0], **RULE_LINE[key])
        else:
            styles[key] = dict(spare[k]) if k < len(spare) else series_style(k)
            k += 1
    return styles


def _draw_sampled_distribution(fig, frequencies, p, units, spec=None, labels=True, note=None, subject="the samples"):
    """Exact ``p(s)`` (wide grey bars) and sampled frequencies (narrow dark bars) above the strip of states.

    ``subject`` names the samples in the figure's words, e.g. ``"2,500 samples at T = 2"``.
    """
    n = int(np.log2(p.size))
    ratios = [5, 0.3 * min(n, MAX_LABELLED_UNITS) + 0.2]
    grid = (spec.subgridspec if spec is not None else fig.add_gridspec)(2, 1, height_ratios=ratios, hspace=0.08)
    ax_p, ax_s = (fig.add_subplot(cell) for cell in grid)
    _bars(ax_p, p, NEUTRAL)
    _narrow_bars(ax_p, frequencies, UNIT_ON)
    ax_p.set_ylim(0, 1.12 * max(p.max(), frequencies.max()))
    ax_p.set(xticks=[])
    ax_p.yaxis.set_major_locator(MaxNLocator(4))
    ax_p.set_ylabel("probability", fontsize=FONT_SIZE)
    _tidy(ax_p)
    # Coloured text above the axes rather than a legend: clear of the bars, and a fraction of the drawing time.
    # It names the bars by their width too, so colour is not the only thing that tells them apart.
    ax_p.text(1.0, 1.02, "\u25ae narrow bars: sampled frequency", color=UNIT_ON, transform=ax_p.transAxes,
              ha="right", va="bottom", fontsize=FONT_SIZE)
    ax_p.text(1.0, 1.02 + 0.012 * FONT_SIZE, "\u25a0 wide bars: exact p(s)", color=NEUTRAL_TEXT,
              transform=ax_p.transAxes, ha="right", va="bottom", fontsize=FONT_SIZE)
    if note:
        ax_p.text(0.0, 1.02, note, transform=ax_p.transAxes, ha="left", va="bottom", fontsize=FONT_SIZE)
    _draw_strip(ax_s, all_states(n, units))
    ax_s.set_ylabel(f"units\n0 to {n - 1}", fontsize=FONT_SIZE - 1, rotation=0, ha="right", va="center")
    labels = labels and n <= MAX_TEXT_LABEL_UNITS
    if labels:
        for x, label in enumerate(state_labels(all_states(n, units), units)):
            ax_s.text(x, -0.08, label, transform=ax_s.get_xaxis_transform(), ha="center", va="top",
                      family="monospace", fontsize=FONT_SIZE - 1)
    on_off = "dark +1, light -1" if units == "spins" else "dark 1, light 0"
    ax_s.set_xlabel(f"the {2**n} states in all_states order ({on_off})", fontsize=FONT_SIZE,
                    labelpad=FONT_SIZE + 6 if labels else 4)
    _describe_sampled(fig, frequencies, p, units, subject)
    return ax_p, ax_s


def _describe_sampled(fig, frequencies, p, units, subject):
    n = int(np.log2(p.size))
    names = (state_labels(all_states(n, units), units) if n <= MAX_TEXT_LABEL_UNITS
             else [f"state {k}" for k in range(p.size)])
    top = ranked(p)[:4]
    first = int(top[0])
    gap = np.abs(frequencies - p)
    worst = int(ranked(gap)[0])
    listed = ", ".join(f"{names[k]} (p = {number(p[k])}, sampled {number(frequencies[k])})" for k in top)
    alike = sum(number(x) == number(p[first]) for x in p)  # states as probable as the first, as written
    which = "the most probable state" if alike == 1 else f"one of the {alike} most probable states"
    describe(fig, [
        f"Bar chart of the exact probability p(s) (wide bars) and the sampled frequency (narrow bars) of the "
        f"{2**n} states of {count(n, 'unit')}, for {subject}.",
        f"Total-variation distance {number(total_variation(frequencies, p))}; {which}, "
        f"{names[first]}, has p = {number(p[first])} and was sampled a fraction {number(frequencies[first])} of "
        f"the time.",
    ], [
        "The states are drawn as columns under the bars, in all_states order.",
        f"Exact probabilities run {span(p)}; sampled frequencies {span(frequencies)}.",
        f"The {'most probable states' if len(top) > 1 else 'states'}: {listed}.",
        f"The largest difference is at {names[worst]}: sampled {number(frequencies[worst])} against exact "
        f"{number(p[worst])}.",
    ])


def plot_sampled_distribution(samples, W, b=None, T=1.0, units=None):
    """Bar chart of how often each state was sampled, next to its exact probability.

    Wide grey bars: the Boltzmann-Gibbs probability ``p(s)`` of each of the
    ``2**n`` states; narrow dark bars: the fraction of the samples in that
    state. Same state order and strip of states as
    :func:`~bmlib.plot_energy_landscape`. The total-variation distance between
    the two and the number of samples are written in the corner.
    Explained in the chapter "The Boltzmann-Gibbs distribution".

    Parameters
    ----------
    samples : SampleResult or array_like of shape (..., n)
        The states; all of them are counted (every kept state of every chain).
    W : array_like of shape (n, n)
        The model that was sampled, ``n <= 8``.
    b : array_like of shape (n,), optional
    T : float
        Its temperature.
    units : {"spins", "bits"}, optional
        Taken from ``samples`` if omitted (a SampleResult's own units, or
        inferred from an array: samples that are all ones read as spins, the
        rule in :mod:`bmlib.states`).

    Returns
    -------
    matplotlib.figure.Figure
        With two axes: the bars and the strip of states.

    Examples
    --------
    >>> import bmlib as bm, matplotlib.pyplot as plt
    >>> result = bm.sample([[0, 1], [1, 0]], T=1.0, n_samples=500, n_chains=4, rng=0)
    >>> fig = bm.plot_sampled_distribution(result, [[0, 1], [1, 0]], T=1.0)
    >>> len(fig.axes)
    2
    >>> plt.close(fig)
    """
    W, b = check_model(W, b)
    T = check_temperature(T)
    n = W.shape[0]
    if n > MAX_DISTRIBUTION_UNITS:
        raise ValueError(f"plot_sampled_distribution draws one bar per state and is limited to n <= "
                         f"{MAX_DISTRIBUTION_UNITS} units; got n = {n}")
    # An invalid units (even "") is refused, never taken for "omitted".
    units = None if units is None else check_units(units)
    if isinstance(samples, SampleResult):
        units = samples.units if units is None else units
        samples = samples.samples
    # Checked without a float copy: state_frequencies counts them block by block.
    states, units = check_state_batch(samples, n, units, name="samples")
    frequencies = state_frequencies(states, units)
    p = boltzmann_distribution(W, b, T, units)
    n_states = states.size // n
    note = f"{n_states:,} samples at T = {T:g}\ntotal-variation distance {total_variation(frequencies, p):.3f}"
    fig = _new_figure((7, 3.4))
    _draw_sampled_distribution(fig, frequencies, p, units, note=note,
                               subject=f"{n_states:,} sample{'s' * (n_states != 1)} at T = {number(T, 3)}")
    return fig


def plot_flip_probabilities(T=1.0, max_delta=None):
    """Probability that a unit flips, against the energy change of the flip, for both rules.

    Heat bath: ``1 / (1 + exp(Delta E / T))``; Metropolis: ``min(1, exp(-Delta E / T))``.
    Explained in the chapter "The Boltzmann-Gibbs distribution".

    Parameters
    ----------
    T : float
        Temperature.
    max_delta : float, optional
        The axis runs over ``-max_delta <= Delta E <= max_delta`` (default ``5 T``).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import bmlib as bm, matplotlib.pyplot as plt
    >>> fig = bm.plot_flip_probabilities(T=1.0)
    >>> [round(float(line.get_ydata()[100]), 2) for line in fig.axes[0].lines[:2]]  # at Delta E = 0
    [0.5, 1.0]
    >>> plt.close(fig)
    """
    T = check_temperature(T)
    max_delta = 5 * T if max_delta is None else check_temperature(max_delta, "max_delta")
    dE = np.linspace(-max_delta, max_delta, 201)
    fig = _new_figure((4.6, 2.8))
    ax = fig.add_subplot()
    curves = {"heat_bath": 0.5 * (1 - np.tanh(dE / (2 * T))), "metropolis": np.exp(np.minimum(0, -dE / T))}
    styles = _curve_styles(curves)
    for k, (rule, y) in enumerate(curves.items()):
        # Markers every 25 points, the two rules' staggered so that they do not sit on each other.
        ax.plot(dE, y, lw=2, ms=5, markevery=(12 * k, 25), label=RULE_STYLE[rule][1], **styles[rule])
    ax.axvline(0, color=NEUTRAL, lw=0.8)
    ax.set_xlabel(f"energy change of the flip, \u0394E (T = {T:g})", fontsize=FONT_SIZE)
    ax.set_ylabel("probability of flipping", fontsize=FONT_SIZE)
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=FONT_SIZE, frameon=False)
    _tidy(ax)
    _describe_flips(fig, dE, curves, T)
    return fig


def _describe_flips(fig, dE, curves, T):
    heat, metro = curves["heat_bath"], curves["metropolis"]
    mid = len(dE) // 2  # Delta E = 0
    at = {"the lowest": 0, "the highest": -1}
    describe(fig, [
        f"Probability that a unit flips against the energy change \u0394E of the flip, {span(dE)} at "
        f"T = {number(T, 3)}, for the heat-bath and the Metropolis rule.",
        f"Both fall as \u0394E grows; at \u0394E = 0 heat bath flips with probability {number(heat[mid])} and "
        f"Metropolis with {number(metro[mid])}, and Metropolis always flips when the energy goes down.",
    ], [
        f"At {where} \u0394E, {number(dE[i])}: heat bath {number(heat[i])}, Metropolis {number(metro[i])}."
        for where, i in at.items()
    ] + ["Metropolis flips at least as often as heat bath at every \u0394E."])


def plot_convergence(W, b=None, T=1.0, units="spins", *, initial=None, n_sweeps=100, n_chains=1000,
                     rules=("heat_bath", "metropolis"), scan="sequential", rng=None):
    """How fast sequential dynamics forgets its start: distance to ``p`` against the number of sweeps.

    Lines: the exact total-variation distance between the distribution of a
    chain after ``t`` sweeps and the Boltzmann-Gibbs distribution, from the
    exact transition matrix. Dots: the same distance for the histogram of
    ``n_chains`` sampled chains, which levels off at the noise of a finite
    histogram. Each update rule has its colour, and its own dash (lines) and
    marker (dots); logarithmic vertical axis.
    Explained in the chapter "The Boltzmann-Gibbs distribution".

    Parameters
    ----------
    W, b, T, units, initial, n_sweeps, n_chains, rules, scan, rng
        As in :func:`~bmlib.convergence_curves`.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import bmlib as bm, matplotlib.pyplot as plt
    >>> fig = bm.plot_convergence([[0, 1], [1, 0]], T=1.0, initial=[1, -1], n_sweeps=10, n_chains=200, rng=0)
    >>> len(fig.axes[0].lines)   # exact and sampled, for two rules
    4
    >>> plt.close(fig)
    """
    curves = convergence_curves(W, b, T, units, initial=initial, n_sweeps=n_sweeps, n_chains=n_chains,
                                rules=rules, scan=scan, rng=rng)
    fig = _new_figure((6, 3.2))
    ax = fig.add_subplot()
    sweeps = np.arange(n_sweeps + 1)
    styles = _curve_styles(curves)
    for rule, (exact, sampled) in curves.items():
        style, name = styles[rule], RULE_STYLE[rule][1]
        # The rules differ by dash (exact lines) and by marker (sampled points), not by colour alone.
        ax.plot(sweeps, exact, color=style["color"], ls=style["ls"], lw=2, label=f"{name}, exact")
        # Opaque points (3 : 1 contrast on white, as any mark that carries data), under the exact lines.
        ax.plot(sweeps, sampled, ls="none", marker=style["marker"], color=style["color"], ms=2.5, zorder=1.9,
                label=f"{name}, {n_chains:,} chains")
    ax.set_yscale("log")
    ax.set_xlabel("sweeps", fontsize=FONT_SIZE)
    ax.set_ylabel("distance to p (total variation)", fontsize=FONT_SIZE)
    ax.set_xlim(0, n_sweeps)
    ax.legend(fontsize=FONT_SIZE - 1, frameon=False, ncol=2, loc="lower left", markerscale=1.6)
    _tidy(ax)
    units = check_units(units)
    start = ("uniformly random states" if initial is None
             else "the state " + state_labels(np.asarray(initial), units))
    _describe_convergence(fig, curves, float(T), start, n_chains)
    return fig


#: Exact distances below this are written as "less than ..." in the words: so small, their
#: last digits are rounding noise of the matrix products and differ between machines.
SMALLEST_WRITTEN_DISTANCE = 1e-9


def _distance(x):
    return number(x) if x >= SMALLEST_WRITTEN_DISTANCE else f"less than {SMALLEST_WRITTEN_DISTANCE:.0e}"


def _describe_convergence(fig, curves, T, start, n_chains, threshold=0.1):
    rules = list(curves)
    names = [RULE_STYLE[rule][1] for rule in rules]
    n_sweeps = len(next(iter(curves.values()))[0]) - 1
    finals = np.array([curves[rule][0][-1] for rule in rules])
    ends = " and ".join(f"{_distance(f)} for {name}" for f, name in zip(finals, names))
    start_distance = number(curves[rules[0]][0][0])
    fastest = ""
    if len(rules) > 1:
        shown = [_distance(f) for f in finals]
        best = int(ranked(-np.maximum(finals, SMALLEST_WRITTEN_DISTANCE))[0])
        if shown.count(shown[best]) == 1:
            fastest = f"{names[best]} forgets its start {'faster' if len(rules) == 2 else 'fastest'}."
    per_rule = []
    for rule, name in zip(rules, names):
        exact, sampled = curves[rule]
        below = np.flatnonzero(exact < threshold)
        reach = (f"falls below {number(threshold)} from sweep {below[0]}" if below.size
                 else f"stays above {number(threshold)}")
        per_rule.append(f"{_capital(name)}: the exact distance {reach}; the sampled one is {number(sampled[-1])} after "
                        f"the last sweep, and never below {number(sampled.min())}.")
    describe(fig, [
        f"Total-variation distance to p (logarithmic axis) against sweeps, 0 to {n_sweeps}, of chains started "
        f"in {start} at T = {number(T, 3)}: exact (lines) and from {n_chains:,} sampled chains (points), for "
        f"{' and '.join(names)}.",
        f"From {start_distance}, the exact distance falls to {ends} after {n_sweeps} sweeps.",
    ], [fastest, *per_rule, "The sampled distances cannot fall below the noise of a histogram of finitely many "
                            "chains."])


def plot_autocorrelation(series, label="energy E", n_trace=400, max_lag=None):
    """A stretch of a Monte Carlo series (top) and its autocorrelation function (bottom).

    The autocorrelation ``rho(t)`` is pooled over the chains of each series
    as in :func:`~bmlib.autocorrelation_time`, whose ``tau`` is written in the
    legend. Explained in the chapter "The Boltzmann-Gibbs distribution".

    Parameters
    ----------
    series : array_like of shape (n_samples, n_chains), or dict of str to such arrays
        One series per chain, e.g. ``result.energies``; a dict compares
        several runs, keyed by ``"heat_bath"``, ``"metropolis"`` (drawn in
        the book's colours and dashes for these rules) or any name; each
        curve has its own colour, dash and marker.
    label : str
        What the series is, for the vertical axis.
    n_trace : int
        How many samples of the first chain the top panel shows.
    max_lag : int, optional
        Largest lag shown (default: four times the largest ``tau``, at least 20).

    Returns
    -------
    matplotlib.figure.Figure
        With two axes.

    Examples
    --------
    >>> import bmlib as bm, matplotlib.pyplot as plt
    >>> result = bm.sample([[0, 1], [1, 0]], T=1.0, n_samples=500, n_chains=4, rng=0)
    >>> fig = bm.plot_autocorrelation(result.energies)
    >>> len(fig.axes)
    2
    >>> plt.close(fig)
    """
    if not isinstance(label, str):
        raise TypeError(f"label must be a string; got {label!r:.60} of type {type(label).__name__}")
    if not isinstance(series, dict):
        series = {"series": series}
    named = {key: _series(x, f"series[{key!r}]") for key, x in series.items()}
    n_trace = check_count(n_trace, "n_trace", minimum=2)
    taus = {key: autocorrelation_time(x) for key, x in named.items()}
    if max_lag is None:
        finite = [t for t in taus.values() if np.isfinite(t)]
        max_lag = int(max(20, 4 * max(finite, default=5)))
    max_lag = check_count(max_lag, "max_lag", minimum=1)
    fig = _new_figure((6.4, 4.2))
    ax_x, ax_r = fig.subplots(2, 1, gridspec_kw=dict(height_ratios=[1, 1.2]))
    styles = _curve_styles(named) if len(named) > 1 else {key: dict(color=RULE_STYLE.get(key, (UNIT_ON,))[0])
                                                            for key in named}
    rhos = {}
    for k, (key, x) in enumerate(named.items()):
        style, name = styles[key], RULE_STYLE.get(key, (None, key))[1]
        if k == 0:  # one trace only: several would hide each other
            ax_x.step(np.arange(min(n_trace, len(x))), x[:n_trace, 0], where="post", color=style["color"], lw=1)
            ax_x.set_xlabel(f"sweep ({name}, first chain)" if len(named) > 1 else "sweep (first chain)",
                            fontsize=FONT_SIZE)
        rho = rhos[key] = _autocorrelation(x)[: max_lag + 1]
        # Several curves differ by dash and marker too (markers spread out, staggered between curves).
        every = max(1, rho.size // 8)
        ax_r.plot(np.arange(rho.size), rho, lw=2, ms=5, markevery=(k * every // len(named), every),
                  label=f"{name}: \u03c4 = {taus[key]:.1f}", **style)
    ax_x.set_ylabel(label, fontsize=FONT_SIZE)
    ax_x.yaxis.set_major_locator(MaxNLocator(4))
    ax_r.axhline(0, color=NEUTRAL, lw=0.8)
    ax_r.set_xlim(0, max_lag)
    ax_r.set_xlabel("lag t (sweeps)", fontsize=FONT_SIZE)
    ax_r.set_ylabel("autocorrelation \u03c1(t)", fontsize=FONT_SIZE)
    ax_r.legend(fontsize=FONT_SIZE - 1, frameon=False)
    for ax in (ax_x, ax_r):
        _tidy(ax)
    _describe_autocorrelation(fig, named, taus, rhos, label, n_trace, max_lag)
    return fig


def _describe_autocorrelation(fig, named, taus, rhos, label, n_trace, max_lag):
    keys = list(named)
    names = [RULE_STYLE.get(key, (None, key))[1] for key in keys]
    first = named[keys[0]][:n_trace, 0]
    times = ", ".join(f"{name} \u03c4 = {_sweeps(taus[key])}" for key, name in zip(keys, names))
    if len(keys) == 1:
        what = f"{label} in the first chain over {first.size} sweeps (top), and its autocorrelation \u03c1(t)"
        shows = f"Its autocorrelation time is \u03c4 = {_sweeps(taus[keys[0]])}."
        slower = ""
    else:
        what = (f"{label} in the first chain of {names[0]} over {first.size} sweeps (top), and the "
                f"autocorrelation \u03c1(t) of {', '.join(names[:-1])} and {names[-1]}")
        shows = f"Autocorrelation times: {times}."
        order = ranked([taus[key] for key in keys])
        shown = [number(taus[key]) for key in keys]
        longest = "longer" if len(keys) == 2 else "longest"
        slower = (f" {_capital(names[order[0]])} has the {longest} memory." if shown.count(shown[order[0]]) == 1
                  and np.isfinite(taus[keys[order[0]]]) else "")
    describe(fig, [
        f"Two panels: {what} against the lag t from 0 to {max_lag} sweeps (bottom).",
        shows + slower,
    ], [
        f"The trace of {label} runs {span(first)}.",
    ] + [
        f"{_capital(name) + ': ' if len(keys) > 1 else ''}{_rho(rhos[key])}" for key, name in zip(keys, names)
    ])


def _rho(rho, lag=5):
    """``"ρ(1) = a, ρ(5) = b."``, as far as ``rho`` goes."""
    lags = [t for t in sorted({1, min(lag, rho.size - 1)}) if 0 < t < rho.size]
    return ", ".join(f"\u03c1({t}) = {number(rho[t])}" for t in lags) + "."


def _sweeps(tau):
    return f"{number(tau)} sweeps" if np.isfinite(tau) else number(tau)


def _goes(first, last):
    """``"falls from a to b"``, ``"rises from a to b"`` or ``"stays at a"``, as the written numbers read."""
    a, b = number(first), number(last)
    if a == b:
        return f"stays at {a}"
    return f"{'falls' if last < first else 'rises'} from {a} to {b}"


def _capital(text):
    """An update rule's name with its first letter a capital, to open a sentence; other names as given."""
    return text[:1].upper() + text[1:] if text in RULE_NAMES.values() else text


def plot_annealing(result, descent=None, ground_energy=None, n_traces=8):
    """Simulated annealing: the temperature schedule, the energy of the chains, and where they end.

    Top: the temperature of each sweep. Bottom left: the energy after each
    sweep, for ``n_traces`` chains (thin) and averaged over all chains
    (thick). Bottom right: how many chains end at each energy, for the
    annealed chains (dark bars) and, if given, for energy descent from
    random states (hatched bars).
    Explained in the chapter "The Boltzmann-Gibbs distribution".

    Parameters
    ----------
    result : SampleResult
        From :func:`~bmlib.anneal`.
    descent : SampleResult, optional
        A run to compare the final energies with, e.g. ``bm.anneal(W, b, [(0, k)])``
        (energy descent in all chains at once).
    ground_energy : float, optional
        The lowest energy of any state, drawn as a dashed line.
    n_traces : int
        Chains drawn individually.

    Returns
    -------
    matplotlib.figure.Figure
        With three axes.

    Examples
    --------
    >>> import bmlib as bm, matplotlib.pyplot as plt
    >>> W = bm.sk_couplings(8, rng=0)
    >>> result = bm.anneal(W, schedule=[(2.0, 5), (1.0, 5), (0.0, 2)], n_chains=20, rng=0)
    >>> fig = bm.plot_annealing(result)
    >>> len(fig.axes)
    3
    >>> plt.close(fig)
    """
    check_instance(result, "result", SampleResult, "a SampleResult from bm.anneal")
    if descent is not None:
        check_instance(descent, "descent", SampleResult, "a SampleResult from bm.anneal")
        check_finite_data(descent.energies, "descent.energies")
    ground_energy = check_optional_real(ground_energy, "ground_energy")
    n_traces = check_count(n_traces, "n_traces", minimum=0)
    E = check_finite_data(result.energies, "result.energies")
    temps = check_finite_data(result.temperatures, "result.temperatures")
    sweeps = np.arange(1, len(temps) + 1)
    fig = _new_figure((7, 4.2))
    grid = fig.add_gridspec(2, 2, height_ratios=[1, 2.4], width_ratios=[4, 1.2])
    ax_T = fig.add_subplot(grid[0, 0])
    ax_E = fig.add_subplot(grid[1, 0], sharex=ax_T)
    ax_h = fig.add_subplot(grid[1, 1], sharey=ax_E)
    ax_T.step(sweeps, temps, where="mid", color=UNIT_ON, lw=1.5)
    ax_T.set_ylabel("temperature T", fontsize=FONT_SIZE)
    ax_T.set_ylim(bottom=0)
    ax_T.tick_params(labelbottom=False)
    for k in range(min(n_traces, E.shape[1])):
        ax_E.plot(sweeps, E[:, k], color=NEUTRAL, lw=0.8)
    ax_E.plot(sweeps, E.mean(axis=1), color=UNIT_ON, lw=2, label=f"mean of {E.shape[1]} chains")
    if ground_energy is not None:
        for ax in (ax_E, ax_h):
            ax.axhline(ground_energy, ls="--", lw=1, color=HIGHLIGHT)
        ax_E.plot([], [], ls="--", lw=1, color=HIGHLIGHT, label=f"lowest energy of any state ({ground_energy:.2f})")
    ax_E.set_xlabel("sweep", fontsize=FONT_SIZE)
    ax_E.set_ylabel("energy E(s)", fontsize=FONT_SIZE)
    ax_E.legend(fontsize=FONT_SIZE - 1, frameon=False, loc="upper right")
    # The descent bars are hatched as well as paler: the two histograms differ by more than colour.
    finals = {"annealed": (E[-1], dict(color=UNIT_ON))}
    if descent is not None:
        finals["descent"] = (descent.energies[-1], dict(color="white", edgecolor=NEUTRAL_TEXT, hatch="////",
                                                        linewidth=0.6))
    everything = np.concatenate([f for f, _ in finals.values()])
    edges = np.linspace(everything.min() - 1e-9, everything.max() + 1e-9, 16)
    width = edges[1] - edges[0]
    for k, (name, (final, style)) in enumerate(finals.items()):
        counts, _ = np.histogram(final, edges)
        offset = (k - 0.5 * (len(finals) - 1)) * 0.4 * width
        ax_h.barh(edges[:-1] + 0.5 * width + offset, counts / final.size, height=0.4 * width, label=name, **style)
    ax_h.set_xlabel("fraction of chains\nending there", fontsize=FONT_SIZE)
    ax_h.tick_params(labelleft=False)
    ax_h.legend(fontsize=FONT_SIZE - 1, frameon=False, loc="upper right")
    for ax in (ax_T, ax_E, ax_h):
        _tidy(ax)
    _describe_annealing(fig, temps, E, None if descent is None else descent.energies[-1], ground_energy,
                        min(n_traces, E.shape[1]))
    return fig


def _at_lowest(final, lowest):
    """Fraction of ``final`` energies at ``lowest``: energies are levels a finite step apart, so a
    tolerance far below that step (and far above rounding) decides it the same on every machine."""
    return np.mean(np.abs(final - lowest) <= 1e-6 * max(1.0, abs(lowest)))


def _describe_annealing(fig, temps, E, descent, ground_energy, n_drawn):
    n_sweeps, n_chains = E.shape
    mean = E.mean(axis=1)
    final = E[-1]
    lowest = ground_energy if ground_energy is not None else min(final.min(), np.inf if descent is None
                                                                 else descent.min())
    where = "the lowest energy of any state" if ground_energy is not None else "the lowest final energy found"
    summary = [
        f"Simulated annealing of {n_chains:,} chain{'s' * (n_chains != 1)} over {count(n_sweeps, 'sweep')}: "
        f"the temperature schedule "
        f"(top, T from {number(temps[0], 3)} to {number(temps[-1], 3)}), the energy after each sweep (bottom left) "
        f"and where the chains end (right).",
        f"The mean energy {_goes(mean[0], mean[-1])}; a fraction "
        f"{number(_at_lowest(final, lowest))} of the annealed chains end at {where}, {number(lowest)}"
        + (f", against {number(_at_lowest(descent, lowest))} with energy descent alone." if descent is not None
           else "."),
    ]
    details = [
        f"The thick line is the mean energy of {'all ' * (n_chains > 1)}{n_chains:,} chain{'s' * (n_chains != 1)}"
        + (f"; the thin grey lines, {count(n_drawn, 'single chain')}." if n_drawn else "."),
        f"Energies of the annealed chains at the end run {span(final)}, mean {number(final.mean())}.",
    ]
    if descent is not None:
        details.append(f"With energy descent alone ({count(descent.size, 'chain')}) they run {span(descent)}, "
                       f"mean {number(descent.mean())}.")
    if ground_energy is not None:
        details.append(f"The dashed line marks the lowest energy of any state, {number(ground_energy)}.")
    describe(fig, summary, details)


def plot_free_energy(W, b=None, temperatures=None, units="spins"):
    """Free energy, mean energy and ``-T S`` against temperature, and the heat capacity.

    Left: ``F = -T log Z``, ``<E>`` and ``-T S``, with ``F = <E> - T S`` at every
    temperature; right: the heat capacity ``Var E / T**2``. All exact, by
    enumeration (see :func:`~bmlib.free_energy_curves`). Explained in the
    chapter "The Boltzmann-Gibbs distribution".

    Parameters
    ----------
    W, b, units
        The model (``n <= MAX_EXACT_UNITS``).
    temperatures : sequence of float, optional
        Default: 60 temperatures from 0.1 to 20, evenly spaced in log T.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import bmlib as bm, matplotlib.pyplot as plt
    >>> fig = bm.plot_free_energy([[0, 1], [1, 0]], temperatures=[0.5, 1.0, 2.0])
    >>> [line.get_label() for line in fig.axes[0].lines]
    ['F = -T log Z', '<E>', '-T S']
    >>> plt.close(fig)
    """
    from ..exact.free_energy import free_energy_curves

    T = np.geomspace(0.1, 20.0, 60) if temperatures is None else temperatures
    curves = free_energy_curves(W, b, T, units)
    T = curves["T"]
    fig = _new_figure((6.8, 3.0))
    ax_f, ax_c = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1]})
    # Three curves in one panel: each its own colour, dash and marker (markers spread out, staggered).
    every = max(1, T.size // 8)
    for k, (key, label) in enumerate(_FREE_ENERGY_CURVES.items()):
        ax_f.plot(T, curves[key], lw=2 if k == 0 else 1.6, ms=4.5, markevery=(k * every // 3, every), label=label,
                  **series_style(k))
    ax_c.plot(T, curves["heat_capacity"], color=UNIT_ON, lw=2)
    for ax in (ax_f, ax_c):
        ax.set_xscale("log")
        ax.set_xlabel("temperature T", fontsize=FONT_SIZE)
        _tidy(ax)
    ax_f.set_ylabel("energy", fontsize=FONT_SIZE)
    ax_f.legend(fontsize=FONT_SIZE, frameon=False)
    ax_c.set_ylabel("heat capacity Var E / T\u00b2", fontsize=FONT_SIZE)
    _describe_free_energy(fig, curves, check_model(W, b)[0].shape[0])
    return fig


#: The curves of the left panel of :func:`plot_free_energy`: key in free_energy_curves, legend label.
_FREE_ENERGY_CURVES = {"free_energy": "F = -T log Z", "mean_energy": "<E>", "minus_TS": "-T S"}


def _describe_free_energy(fig, curves, n):
    T, C = curves["T"], curves["heat_capacity"]
    lo, hi = int(np.argmin(T)), int(np.argmax(T))
    peak = int(ranked(C)[0])
    where = ("at the lowest temperature shown" if peak == lo else
             "at the highest temperature shown" if peak == hi else f"at T = {number(T[peak], 3)}")
    F, mean_E, minus_TS = (curves[key] for key in _FREE_ENERGY_CURVES)
    units = count(n, "unit")
    describe(fig, [
        f"Two panels against temperature T from {number(T[lo], 3)} to {number(T[hi], 3)} (logarithmic axis), "
        f"for {units}: left, the free energy F = \u2212T log Z, the mean energy <E> and \u2212T S, with "
        f"F = <E> \u2212 T S; right, the heat capacity Var E / T\u00b2.",
        f"F {_goes(F[lo], F[hi])} as T rises, and the heat capacity is largest, "
        f"{number(C[peak])}, {where}.",
    ], [
        f"From the lowest to the highest temperature, <E> goes from {number(mean_E[lo])} to "
        f"{number(mean_E[hi])} and \u2212T S from {number(minus_TS[lo])} to {number(minus_TS[hi])}.",
        f"The heat capacity runs {span(C)}.",
    ])
