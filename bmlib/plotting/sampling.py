"""Figures of the chapter "Sampling: heat bath and Metropolis" that hold a sampler against the exact distribution.

Sampled frequencies against exact probabilities, the update rules' flip
probabilities, and the convergence of many chains to the distribution. The
figures that follow a chain in time and in temperature (autocorrelation,
annealing, free energy) are in :mod:`bmlib.plotting.annealing`.

The distribution figure uses the same state order and the same strip of
states as the energy landscape of the chapter "Energy", so a state keeps its
place from one chapter to the next. Two update rules appear side by side in
several figures: heat bath is drawn dark (``UNIT_ON``) and solid with round
markers, Metropolis orange (``HIGHLIGHT``) and dashed with square markers, so
the two never differ by colour alone; exact references are grey (``NEUTRAL``).
Each figure also carries its words (:mod:`bmlib.plotting.words`), written
from the arrays it draws.
"""
from __future__ import annotations

import numpy as np
from matplotlib.collections import PolyCollection
from matplotlib.ticker import MaxNLocator

from .._checks import check_model, check_state_batch, check_temperature, check_units
from ..exact.enumeration import boltzmann_distribution
from ..sampling.chains import SampleResult
from ..sampling.transition import RULE_NAMES, convergence_curves, state_frequencies, total_variation
from ..models.states import all_states
from .style import (
    FONT_SIZE,
    HIGHLIGHT,
    MAX_LABELLED_UNITS,
    MAX_TEXT_LABEL_UNITS,
    NEUTRAL,
    NEUTRAL_TEXT,
    SERIES,
    UNIT_ON,
    bars,
    _draw_strip,
    _new_figure,
    tidy,
    series_style,
    state_labels,
)
from .words import count, describe, number, ranked, span

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


def draw_sampled_distribution(fig, frequencies, p, units, spec=None, labels=True, note=None, subject="the samples"):
    """Exact ``p(s)`` (wide grey bars) and sampled frequencies (narrow dark bars) above the strip of states.

    ``subject`` names the samples in the figure's words, e.g. ``"2,500 samples at T = 2"``.
    """
    n = int(np.log2(p.size))
    ratios = [5, 0.3 * min(n, MAX_LABELLED_UNITS) + 0.2]
    grid = (spec.subgridspec if spec is not None else fig.add_gridspec)(2, 1, height_ratios=ratios, hspace=0.08)
    ax_p, ax_s = (fig.add_subplot(cell) for cell in grid)
    bars(ax_p, p, NEUTRAL)
    _narrow_bars(ax_p, frequencies, UNIT_ON)
    ax_p.set_ylim(0, 1.12 * max(p.max(), frequencies.max()))
    ax_p.set(xticks=[])
    ax_p.yaxis.set_major_locator(MaxNLocator(4))
    ax_p.set_ylabel("probability", fontsize=FONT_SIZE)
    tidy(ax_p)
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
    Explained in the chapter "Sampling: heat bath and Metropolis".

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
        rule in :mod:`bmlib.models.states`).

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
    draw_sampled_distribution(fig, frequencies, p, units, note=note,
                               subject=f"{n_states:,} sample{'s' * (n_states != 1)} at T = {number(T, 3)}")
    return fig


def plot_flip_probabilities(T=1.0, max_delta=None):
    """Probability that a unit flips, against the energy change of the flip, for both rules.

    Heat bath: ``1 / (1 + exp(Delta E / T))``; Metropolis: ``min(1, exp(-Delta E / T))``.
    Explained in the chapter "Sampling: heat bath and Metropolis".

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
    tidy(ax)
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
    Explained in the chapter "Sampling: heat bath and Metropolis".

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
    tidy(ax)
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
    ], [fastest, *per_rule, "Once the exact distance is small, the sampled ones stop following it and scatter "
                            "at the noise of a histogram of finitely many chains."])


def _capital(text):
    """An update rule's name with its first letter a capital, to open a sentence; other names as given."""
    return text[:1].upper() + text[1:] if text in RULE_NAMES.values() else text
