"""Figures of the chapter "Sampling: heat bath and Metropolis" that follow a chain in time and in temperature.

How long a chain takes to forget where it was (the autocorrelation and its
integrated time), simulated annealing (the schedule, the chains' energies and
where they end), and the free energy, mean energy and -TS across temperature
that annealing descends. The figures that hold samples against the exact
distribution are in :mod:`bmlib.plotting.sampling`, whose styles (one colour,
dash and marker per update rule) these share. Each figure carries its words
(:mod:`bmlib.plotting.words`), written from the arrays it draws.
"""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from .._checks import check_count, check_finite_data, check_instance, check_model, check_optional_real
from ..sampling.chains import SampleResult
from ..sampling.diagnostics import autocorrelation_time, checked_series, pooled_autocorrelation
from .style import FONT_SIZE, HIGHLIGHT, NEUTRAL, NEUTRAL_TEXT, UNIT_ON, _new_figure, tidy, series_style
from .words import count, describe, number, ranked, span
from .sampling import RULE_STYLE, _capital, _curve_styles


def plot_autocorrelation(series, label="energy E", n_trace=400, max_lag=None):
    """A stretch of a Monte Carlo series (top) and its autocorrelation function (bottom).

    The autocorrelation ``rho(t)`` is pooled over the chains of each series
    as in :func:`~bmlib.autocorrelation_time`, whose ``tau`` is written in the
    legend. Explained in the chapter "Sampling: heat bath and Metropolis".

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
    named = {key: checked_series(x, f"series[{key!r}]") for key, x in series.items()}
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
        rho = rhos[key] = pooled_autocorrelation(x)[: max_lag + 1]
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
        tidy(ax)
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


def plot_annealing(result, descent=None, ground_energy=None, n_traces=8):
    """Simulated annealing: the temperature schedule, the energy of the chains, and where they end.

    Top: the temperature of each sweep. Bottom left: the energy after each
    sweep, for ``n_traces`` chains (thin) and averaged over all chains
    (thick). Bottom right: how many chains end at each energy, for the
    annealed chains (dark bars) and, if given, for energy descent from
    random states (hatched bars).
    Explained in the chapter "Sampling: heat bath and Metropolis".

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
        tidy(ax)
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
        Default: 60 temperatures from 0.1 to 20, evenly spaced in log T. The
        words place the heat capacity's peak between grid points (a parabola in
        log T through the largest value and its neighbours).

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
        tidy(ax)
    ax_f.set_ylabel("energy", fontsize=FONT_SIZE)
    ax_f.legend(fontsize=FONT_SIZE, frameon=False)
    ax_c.set_ylabel("heat capacity Var E / T\u00b2", fontsize=FONT_SIZE)
    _describe_free_energy(fig, curves, check_model(W, b)[0].shape[0])
    return fig


#: The curves of the left panel of :func:`plot_free_energy`: key in free_energy_curves, legend label.
_FREE_ENERGY_CURVES = {"free_energy": "F = -T log Z", "mean_energy": "<E>", "minus_TS": "-T S"}


def _vertex(T, C, peak):
    """Temperature of the top of the parabola in log T through ``C[peak]`` and its two neighbours.

    Every grid point costs an enumeration of all states, so the grid stays coarse and
    the peak is placed between its points: on the Boltzmann-Gibbs chapter's network,
    1.636 from a grid point at 1.618, where the curve's maximum is 1.635.
    """
    order = np.argsort(T, kind="stable")
    k = int(np.flatnonzero(order == peak)[0])
    x, y = np.log(T[order[k - 1:k + 2]]), C[order[k - 1:k + 2]]
    a, b, _ = np.polyfit(x, y, 2)
    return float(np.exp(-b / (2 * a))) if a < 0 else float(T[peak])


def _describe_free_energy(fig, curves, n):
    T, C = curves["T"], curves["heat_capacity"]
    lo, hi = int(np.argmin(T)), int(np.argmax(T))
    # An exact curve: rank on 6 digits, as the peak is placed, not on the 2 the words print (a flat
    # top reads "2" over a wide range of T, and a tie decided by index named its lowest end).
    peak = int(ranked(C, 6)[0])
    where = ("at the lowest temperature shown" if peak == lo else
             "at the highest temperature shown" if peak == hi else f"at T = {number(_vertex(T, C, peak), 3)}")
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
