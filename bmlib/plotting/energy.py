"""Figures of the chapter "Energy": networks, energy landscapes, energy descent."""
from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from .._checks import (
    check_bool,
    check_instance,
    check_model,
    check_states,
    check_temperature,
    check_units,
    infer_units,
)
from ..models.descent import DescentPath
from ..models.energy import energy, is_stable
from ..exact.enumeration import boltzmann_distribution
from ..models.states import all_states
from .words import count, describe, number, ranked, span
from .style import (
    FONT_SIZE,
    HIGHLIGHT,
    HIGHLIGHT_TEXT,
    MAX_LABELLED_UNITS,
    MAX_LANDSCAPE_UNITS,
    MAX_TEXT_LABEL_UNITS,
    NEUTRAL,
    NEUTRAL_TEXT,
    UNIT_ON,
    bars,
    draw_network,
    _draw_strip,
    _new_figure,
    tidy,
    state_labels,
)

#: How a temperature is written on the landscape's axis; the energy widget's T
#: slider shows its value in the same format, so the two always read alike.
TEMPERATURE_FORMAT = ".3g"

#: Hatching of the stable states' bars: their second cue besides the colour
#: (WCAG 1.4.1), so they stand out in greyscale and for readers who do not see
#: orange; the key writes it as the hatched square "\u25a8".
STABLE_HATCH = "////"

#: Room kept free above the tallest energy bar for the "stable state" key, as
#: a fraction of the bars' span: the key sits in that band and no bar reaches it.
KEY_HEADROOM = 0.3


def draw_energy_landscape(fig, W, b, T, units, spec=None, labels=True):
    """Energies (top), Boltzmann probabilities (middle) and the states (strip) of every state.

    The states keep the all_states order rather than being sorted: a state
    stays in its place while a widget's sliders move, so the eye can follow it.
    ``labels=False`` leaves out the text labels under the strip (the widget
    does, to stay fast: each text costs about a millisecond per redraw).
    """
    n = W.shape[0]
    S = all_states(n, units)
    E = energy(S, W, b, units)
    colours = np.where(is_stable(S, W, b, units), HIGHLIGHT, NEUTRAL)
    p = boltzmann_distribution(W, b, T, units)
    ratios = [3, 3, 0.3 * min(n, MAX_LABELLED_UNITS) + 0.2]
    grid = (spec.subgridspec if spec is not None else fig.add_gridspec)(3, 1, height_ratios=ratios, hspace=0.1)
    ax_E, ax_p, ax_s = (fig.add_subplot(cell) for cell in grid)
    stable = colours == HIGHLIGHT
    for ax, heights, label in ((ax_E, E, "energy E(s)"), (ax_p, p, f"p(s) at T = {T:{TEMPERATURE_FORMAT}}")):
        bars(ax, heights, colours)
        _hatch(ax, heights, stable)
        # Few y ticks, no x ticks, no mathtext: tick artists and TeX parsing are
        # the slowest parts of a fresh figure.
        ax.set(xticks=[])
        ax.yaxis.set_major_locator(MaxNLocator(3))
        ax.set_ylabel(label, fontsize=FONT_SIZE)
        tidy(ax)
    ax_E.axhline(0, color=UNIT_ON, lw=0.6)
    _draw_strip(ax_s, S)
    ax_s.set_ylabel(f"units\n0 to {n - 1}", fontsize=FONT_SIZE - 1, rotation=0, ha="right", va="center")
    on_off = "dark +1, light -1" if units == "spins" else "dark 1, light 0"
    labels = labels and n <= MAX_TEXT_LABEL_UNITS  # a label per state only while it fits under its column
    if labels:
        for x, label in enumerate(state_labels(S, units)):
            ax_s.text(x, -0.08, label, transform=ax_s.get_xaxis_transform(), ha="center", va="top",
                      family="monospace", fontsize=FONT_SIZE - 1)
    ax_s.set_xlabel(f"the {2**n} states in all_states order ({on_off})", fontsize=FONT_SIZE,
                    labelpad=FONT_SIZE + 6 if labels else 4)
    # A coloured text rather than a legend: same message, a fraction of the drawing time.
    # It sits in a band above the tallest bar (KEY_HEADROOM), so no bar can cover it
    # whatever the sliders do to the energies.
    low, high = ax_E.get_ylim()
    top = max(E.max(), 0.0)
    ax_E.set_ylim(low, max(high, top + KEY_HEADROOM * (top - min(E.min(), 0.0) or 1.0)))
    ax_E.text(0.99, 0.97, "\u25a8 stable state (local minimum, hatched)", color=HIGHLIGHT_TEXT, transform=ax_E.transAxes,
              ha="right", va="top", fontsize=FONT_SIZE - 1)
    _describe_landscape(fig, S, E, p, stable, T, units)
    return ax_E, ax_p, ax_s


def _hatch(ax, heights, stable):
    """Hatch the bars of the stable states (drawn by ``bars``), one more collection over them."""
    k = np.flatnonzero(stable)
    verts = np.empty((len(k), 4, 2))
    verts[..., 0] = k[:, None] + [-0.4, -0.4, 0.4, 0.4]
    verts[..., 1] = heights[k][:, None] * [0, 1, 1, 0]
    # The hatch takes the edge colour; a zero line width keeps the bar's outline as it was.
    ax.add_collection(PolyCollection(verts, facecolors="none", edgecolors=UNIT_ON, linewidths=0,
                                     hatch=STABLE_HATCH), autolim=False)


def _describe_landscape(fig, S, E, p, stable, T, units):
    n = S.shape[1]
    names = state_labels(S, units) if n <= MAX_TEXT_LABEL_UNITS else [f"state {k}" for k in range(len(S))]
    k = np.flatnonzero(stable)
    order = k[ranked(p[k])][:4]  # the most probable stable states first
    listed = ", ".join(f"{names[i]} (E = {number(E[i])}, p = {number(p[i])})" for i in order)
    more = f" and {len(k) - len(order)} more" if len(k) > len(order) else ""
    top = int(ranked(p)[0])
    describe(fig, [
        f"Bar charts of the energy and of the probability at T = {number(T, 3)} of all {2**n} states "
        f"of {count(n, 'unit')}, with the states as columns underneath.",
        f"{count(len(k), 'stable state')} (local minima of the energy) "
        f"{'hold' if len(k) != 1 else 'holds'} {number(p[k].sum())} of the probability: {listed}{more}.",
    ], [
        f"Energies run {span(E)}; probabilities {span(p)}.",
        f"The most probable state is {names[top]}, with p = {number(p[top])}.",
    ])


def _draw_descent(fig, path, W=None, b=None, units=None):
    """Energy after each flip (top) and the states themselves as a strip (bottom)."""
    states, E = path.states, path.energies
    n, steps = states.shape[1], np.arange(len(E))
    units = infer_units(states, "path.states") if units is None else check_units(units)
    ax_E, ax_s = fig.subplots(2, 1, sharex=True, gridspec_kw=dict(height_ratios=[3, 2], hspace=0.1))
    ax_E.plot(steps, E, "o-", color=UNIT_ON, ms=5, zorder=2)
    end = "stable state" if path.converged else "last state (not yet stable)"
    # A square behind the last dot: its shape, not only its colour, tells it from the other steps.
    ax_E.plot(steps[-1], E[-1], "s", color=HIGHLIGHT, ms=11, zorder=1, label=end)
    for t, i in enumerate(path.flipped, start=1):
        ax_E.annotate(f"unit {i}", (t, E[t]), xytext=(5, 4), textcoords="offset points", fontsize=FONT_SIZE - 1)
    ground = None
    if W is not None and n <= 16:
        ground = float(energy(all_states(n, units), W, b, units).min())
        ax_E.axhline(ground, ls="--", lw=1, color=NEUTRAL, label=f"lowest energy of any state ({ground:g})")
    ax_E.set_ylabel("energy E(s)", fontsize=FONT_SIZE)
    ax_E.legend(fontsize=FONT_SIZE - 1, frameon=False, loc="lower left", bbox_to_anchor=(0, 1), ncol=2)
    _draw_strip(ax_s, states)
    for t, i in enumerate(path.flipped, start=1):  # outline the unit that just changed
        ax_s.add_patch(Rectangle((t - 0.5, i - 0.5), 1, 1, fill=False, ec=HIGHLIGHT, lw=2))
    ax_s.set(yticks=np.arange(n), xticks=steps)
    ax_s.set_ylabel("unit", fontsize=FONT_SIZE)
    on_off = "dark +1, light -1" if units == "spins" else "dark 1, light 0"
    ax_s.set_xlabel(f"step (one flip per step; {on_off})", fontsize=FONT_SIZE)
    tidy(ax_E)
    _describe_descent(fig, path, E, states, units, ground)
    return ax_E, ax_s


def _describe_descent(fig, path, E, states, units, ground):
    n, flips = states.shape[1], len(path.flipped)
    start, stop = _state_name(states[0], units), _state_name(states[-1], units)
    end = "a stable state" if path.converged else "a state that is not yet stable"
    if flips == 0:
        walk = f"The walk makes no flip: it stays at its start {start}, E = {number(E[0])}, {end}."
    else:
        walk = (f"The energy falls from {number(E[0])} to {number(E[-1])} in {count(flips, 'flip')}, "
                f"from {start} to {stop}, {end}.")
    summary = [f"Energy descent in a network of {count(n, 'unit')}: the energy after each step (top) and the states "
               f"as columns (bottom).", walk]
    details = []
    if flips:
        shown = min(flips, 12)
        units_flipped = ", ".join(str(int(i)) for i in path.flipped[:shown])
        energies = ", ".join(number(e) for e in E[1:shown + 1])
        more = f", and {flips - shown} more" if flips > shown else ""
        details.append(f"Units flipped, in order: {units_flipped}{more}; energies after them: {energies}{more}.")
    if ground is not None:
        # Compared as written, so that a last bit cannot turn "reached" into "stopped above".
        reached = number(E[-1]) == number(ground)
        details.append(f"The lowest energy of any state, the dashed line, is {number(ground)}: the walk "
                       + ("reached it." if reached else f"stopped above it, at {number(E[-1])}."))
    describe(fig, summary, details)


def _state_name(s, units):
    """A state as its text label ("+-+-") while short, otherwise as the units that are on."""
    if len(s) <= 12:
        return state_labels(s, units)
    on = np.flatnonzero(s == 1)
    return f"a state with {count(len(on), 'unit')} on"


def plot_network(W, b=None, s=None, ax=None, show_values=None):
    """Draw a network: units on a circle, one line per nonzero weight.

    Red lines are positive weights (the pair prefers to agree), blue ones
    negative (the pair prefers to disagree); line width grows with ``|w_ij|``.
    Explained in the chapter "Energy".

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric weights with zero diagonal.
    b : array_like of shape (n,), optional
        Biases, written next to their unit when ``show_values``.
    s : array_like of shape (n,), optional
        A state; units that are on (+1 or 1) are filled dark.
    ax : matplotlib.axes.Axes, optional
        Draw into these axes instead of a new figure.
    show_values : bool, optional
        Write the weights and biases on the picture (default: for n <= 6).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig = bm.plot_network([[0, 1, -1], [1, 0, 0.5], [-1, 0.5, 0]], s=[1, 1, -1])
    >>> len(fig.axes)
    1
    >>> plt.close(fig)
    """
    W, b_checked = check_model(W, b)
    if s is not None:
        s = check_states(s, W.shape[0], name="s")
        if s.ndim != 1:
            raise ValueError(f"s must be one state of shape ({W.shape[0]},); got shape {s.shape}")
    if show_values is not None:
        show_values = check_bool(show_values, "show_values")
    if ax is not None:
        check_instance(ax, "ax", Axes, "a matplotlib Axes")
    else:
        ax = _new_figure((3.6, 3.6)).add_subplot()
    draw_network(ax, W, None if b is None else b_checked, s, show_values)
    if len(ax.figure.axes) == 1:  # a network among other panels is the caller's to describe
        describe(ax.figure, *network_words(W, b_checked, s))
    return ax.figure


def network_words(W, b, s=None, opening="A network"):
    """(summary, details) of the picture ``draw_network`` makes of ``W``, ``b`` and the state ``s``.

    ``opening`` starts the first sentence; a figure with the network beside
    other panels says where it is ("On the left, a network").
    """
    n = W.shape[0]
    i, j = np.triu_indices(n, 1)
    keep = W[i, j] != 0  # the edges draw_network draws
    i, j, w = i[keep], j[keep], W[i[keep], j[keep]]
    positive, negative = int((w > 0).sum()), int((w < 0).sum())
    summary = [f"{opening} of {count(n, 'unit')} (numbered 0 to {n - 1}) on a circle, with a line for each "
               f"of its {count(len(w), 'nonzero weight')}: {positive} positive (red, the pair prefers to agree) "
               f"and {negative} negative (blue, the pair prefers to disagree); the stronger the weight, the "
               f"thicker its line." if len(w) else
               f"{opening} of {count(n, 'unit')} (numbered 0 to {n - 1}) on a circle, with no lines: every "
               f"weight is 0."]
    if len(w):
        # Every weight as strong as the strongest (as written), not the one a last bit picks.
        order = ranked(np.abs(w))
        strongest = [k for k in order if number(abs(w[k])) == number(abs(w[order[0]]))]
        named = ", ".join(f"{_weight_name(i[k], j[k], n)} = {number(w[k])}" for k in strongest[:4])
        more = f" and {len(strongest) - 4} more" if len(strongest) > 4 else ""
        summary.append(f"The strongest: {named}{more}." if len(strongest) > 1 else f"The strongest is {named}.")
    details = []
    if 0 < len(w) <= 15:
        details.append("Weights: " + ", ".join(f"{_weight_name(a, c, n)} = {number(v)}" for a, c, v in zip(i, j, w))
                       + ".")
    elif len(w):
        details.append(f"Weights run {span(w)}.")
    biased = np.flatnonzero(b)
    if len(biased) == 0:
        details.append("Every bias is 0.")
    elif len(biased) <= 10:
        rest = " (the others 0)" if len(biased) < n else ""
        details.append("Biases: " + ", ".join(f"b_{k} = {number(b[k])}" for k in biased) + rest + ".")
    else:
        details.append(f"Biases run {span(b)}.")
    if s is not None:
        on = np.flatnonzero(np.asarray(s) == 1)
        listed = ", ".join(str(k) for k in on) if len(on) <= 20 else count(len(on), "unit")
        details.append(f"The state shown has {'no unit' if len(on) == 0 else 'units ' + listed} on (filled dark), "
                       f"the others off (white).")
    return summary, details


def _weight_name(i, j, n):
    return f"w_{i}{j}" if n <= 10 else f"w_{i},{j}"


def plot_energy_landscape(W, b=None, T=1.0, units="spins"):
    """Bar charts of the energy and the probability of every state.

    Top: ``E(s)`` for each of the ``2**n`` states in :func:`~bmlib.all_states`
    order, stable states (local minima) highlighted. Middle: the
    Boltzmann-Gibbs probabilities ``p(s)`` at temperature ``T``, same order.
    Bottom: the states themselves, one column each (dark for +1 or 1), with a
    text label such as ``"+-+-"`` under each column when ``n <= 4``.
    Explained in the chapter "Energy".

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric weights with zero diagonal, ``n <= 10``.
    b : array_like of shape (n,), optional
    T : float
    units : {"spins", "bits"}

    Returns
    -------
    matplotlib.figure.Figure
        With three axes: energies and probabilities (each ``2**n`` bars, drawn as
        one PolyCollection) and the strip of states.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig = bm.plot_energy_landscape([[0, 1], [1, 0]], b=[0.5, 0])
    >>> len(fig.axes), len(fig.axes[0].collections[0].get_paths())  # 3 panels, 4 bars
    (3, 4)
    >>> plt.close(fig)
    """
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    if W.shape[0] > MAX_LANDSCAPE_UNITS:
        raise ValueError(
            f"plot_energy_landscape draws one bar per state and is limited to n <= "
            f"{MAX_LANDSCAPE_UNITS} units; got n = {W.shape[0]}"
        )
    fig = _new_figure((7, 4.2))
    draw_energy_landscape(fig, W, b, T, units)
    return fig


def plot_descent(path, W=None, b=None, units=None):
    """Energy along an :func:`~bmlib.energy_descent` walk, and the states it visits.

    Top: the energy after each flip, with the unit that flipped. Bottom: the
    states as a strip, one column per step, dark for units that are on, the
    unit that just flipped outlined. Explained in the chapter "Energy".

    Parameters
    ----------
    path : DescentPath
        The result of :func:`~bmlib.energy_descent`.
    W, b : array_like, optional
        The model; if given (and n <= 16), a dashed line marks the lowest
        energy of any state, so one sees whether the walk found it.
    units : {"spins", "bits"}, optional
        Inferred from the states if omitted; a walk that is all ones reads as
        spins (the rule in :mod:`bmlib.models.states`).

    Returns
    -------
    matplotlib.figure.Figure
        With two axes.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from bmlib import energy_descent
    >>> W = [[0, 1, 1], [1, 0, 1], [1, 1, 0]]
    >>> fig = bm.plot_descent(energy_descent([1, -1, -1], W), W)
    >>> len(fig.axes)
    2
    >>> plt.close(fig)
    """
    check_instance(path, "path", DescentPath, "a DescentPath from bmlib.energy_descent")
    if W is not None:
        W, b = check_model(W, b)
        if W.shape[0] != path.states.shape[-1]:
            raise ValueError(f"W must have shape ({path.states.shape[-1]}, {path.states.shape[-1]}) to match "
                             f"the states of path; got shape {W.shape}")
    elif b is not None:
        raise ValueError("b was given without W; pass the weights too (or neither)")
    if units is not None:
        units = check_units(units)
    fig = _new_figure((6, 3.8))
    _draw_descent(fig, path, W, b, units)
    return fig


#: The storage capacity of Hebbian weights for large n (Amit, Gutfreund and Sompolinsky 1985).
HOPFIELD_CAPACITY = 0.138


def plot_hebbian_recall(curve):
    """Mean overlap after descent, and the fraction of patterns kept, against the load ``P / n``.

    Parameters
    ----------
    curve : RecallCurve
        From :func:`~bmlib.hebbian_recall`.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import bmlib as bm, matplotlib.pyplot as plt
    >>> fig = bm.plot_hebbian_recall(bm.hebbian_recall(n=40, loads=[0.1, 0.3], rng=0))
    >>> [line.get_label() for line in fig.axes[0].lines][:2]
    ['mean overlap after descent', 'patterns kept (overlap >= 0.9)']
    >>> plt.close(fig)
    """
    from ..models.hebbian import RecallCurve

    if not isinstance(curve, RecallCurve):
        raise TypeError(f"curve must be the RecallCurve of bm.hebbian_recall; got {type(curve).__name__}")
    fig = _new_figure((6.0, 3.0))
    ax = fig.add_subplot()
    ax.plot(curve.loads, curve.overlap, "o-", color=UNIT_ON, lw=2, label="mean overlap after descent")
    ax.plot(curve.loads, curve.retrieved, "s--", color=HIGHLIGHT, lw=1.5, label="patterns kept (overlap >= 0.9)")
    ax.axvline(HOPFIELD_CAPACITY, color=NEUTRAL, lw=1, ls=":")
    ax.text(HOPFIELD_CAPACITY, 0.02, " 0.138: capacity for large n", color=NEUTRAL_TEXT, fontsize=FONT_SIZE,
            transform=ax.get_xaxis_transform())
    ax.set(xlabel=f"load P / n  (n = {curve.n} units)", ylim=(0, 1.05))
    ax.xaxis.label.set_fontsize(FONT_SIZE)
    ax.legend(fontsize=FONT_SIZE, frameon=False, loc="lower left")
    tidy(ax)
    _describe_recall(fig, curve)
    return fig


def _describe_recall(fig, curve):
    loads, overlap, kept = curve.loads, curve.overlap, curve.retrieved
    first, last = np.argmin(loads), np.argmax(loads)
    summary = [f"Patterns stored in Hebbian weights of {count(curve.n, 'unit')}: the mean overlap after descent "
               f"(solid line, circles) and the fraction of patterns kept, overlap at least 0.9 (dashed line, "
               f"squares), against the load P / n.",
               f"From load {number(loads[first], 3)} to {number(loads[last], 3)} the overlap goes from "
               f"{number(overlap[first])} to {number(overlap[last])} and the patterns kept from "
               f"{number(kept[first])} to {number(kept[last])}."]
    # Every pattern kept is an exact 1.0 (a mean of booleans), not a threshold a float sits on.
    whole = loads[kept == 1.0]
    details = [f"A dotted line marks {HOPFIELD_CAPACITY}, the capacity of large networks.",
               f"The largest load at which every pattern was kept is {number(whole.max(), 3)}." if len(whole)
               else "At no load was every pattern kept."]
    order = np.argsort(loads, kind="stable")
    if len(order) <= 12:
        # Loads get three digits: a grid such as 0.025, 0.05, ... would read as uneven with two (0.12 for 0.125).
        details.append("Per load: " + "; ".join(f"{number(loads[k], 3)}: overlap {number(overlap[k])}, "
                                                 f"kept {number(kept[k])}" for k in order) + ".")
    describe(fig, summary, details)
