"""Figures of the chapter "The Boltzmann-Gibbs distribution": sampled against exact, convergence,
autocorrelation, annealing.

The distribution figure uses the same state order and the same strip of
states as the energy landscape of the chapter "Energy", so a state keeps its
place from one chapter to the next. Two update rules appear side by side in
several figures: heat bath is drawn dark (``UNIT_ON``), Metropolis orange
(``HIGHLIGHT``), exact references grey (``NEUTRAL``).
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
from ..exact import boltzmann_distribution
from ..sampling.chains import SampleResult
from ..sampling.diagnostics import _autocorrelation, _series, autocorrelation_time
from ..sampling.transition import (
    RULE_NAMES,
    convergence_curves,
    state_frequencies,
    total_variation,
)
from ..states import all_states
from ._style import (
    FONT_SIZE,
    HIGHLIGHT,
    MAX_LABELLED_UNITS,
    MAX_TEXT_LABEL_UNITS,
    NEUTRAL,
    NEUTRAL_TEXT,
    UNIT_ON,
    _bars,
    _draw_strip,
    _new_figure,
    _tidy,
    state_labels,
)

#: Colour and name of each update rule in the figures.
RULE_STYLE = {"heat_bath": (UNIT_ON, RULE_NAMES["heat_bath"]), "metropolis": (HIGHLIGHT, RULE_NAMES["metropolis"])}
#: Largest network whose sampled distribution is drawn state by state (2**8 bars).
MAX_DISTRIBUTION_UNITS = 8


def _narrow_bars(ax, heights, colour, width=0.36):
    """Bars of the given width centred on 0, 1, ..., as one PolyCollection (fast to draw)."""
    verts = np.empty((len(heights), 4, 2))
    verts[..., 0] = np.arange(len(heights))[:, None] + 0.5 * width * np.array([-1, -1, 1, 1])
    verts[..., 1] = heights[:, None] * [0, 1, 1, 0]
    ax.add_collection(PolyCollection(verts, facecolors=colour, edgecolors="none"))


def _draw_sampled_distribution(fig, frequencies, p, units, spec=None, labels=True, note=None):
    """Exact ``p(s)`` (wide grey bars) and sampled frequencies (narrow dark bars) above the strip of states."""
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
    ax_p.text(1.0, 1.02, "\u25a0 sampled frequency", color=UNIT_ON, transform=ax_p.transAxes, ha="right",
              va="bottom", fontsize=FONT_SIZE)
    ax_p.text(1.0, 1.02 + 0.012 * FONT_SIZE, "\u25a0 exact p(s)", color=NEUTRAL_TEXT, transform=ax_p.transAxes,
              ha="right", va="bottom", fontsize=FONT_SIZE)
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
    return ax_p, ax_s


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
    count = states.size // n
    note = f"{count:,} samples at T = {T:g}\ntotal-variation distance {total_variation(frequencies, p):.3f}"
    fig = _new_figure((7, 3.4))
    _draw_sampled_distribution(fig, frequencies, p, units, note=note)
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
    for rule, y in curves.items():
        colour, name = RULE_STYLE[rule]
        ax.plot(dE, y, color=colour, lw=2, label=name)
    ax.axvline(0, color=NEUTRAL, lw=0.8)
    ax.set_xlabel(f"energy change of the flip, \u0394E (T = {T:g})", fontsize=FONT_SIZE)
    ax.set_ylabel("probability of flipping", fontsize=FONT_SIZE)
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=FONT_SIZE, frameon=False)
    _tidy(ax)
    return fig


def plot_convergence(W, b=None, T=1.0, units="spins", *, initial=None, n_sweeps=100, n_chains=1000,
                     rules=("heat_bath", "metropolis"), scan="sequential", rng=None):
    """How fast sequential dynamics forgets its start: distance to ``p`` against the number of sweeps.

    Lines: the exact total-variation distance between the distribution of a
    chain after ``t`` sweeps and the Boltzmann-Gibbs distribution, from the
    exact transition matrix. Dots: the same distance for the histogram of
    ``n_chains`` sampled chains, which levels off at the noise of a finite
    histogram. One colour per update rule; logarithmic vertical axis.
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
    for rule, (exact, sampled) in curves.items():
        colour, name = RULE_STYLE[rule]
        ax.plot(sweeps, exact, color=colour, lw=2, label=f"{name}, exact")
        ax.plot(sweeps, sampled, "o", color=colour, ms=2.5, alpha=0.6, label=f"{name}, {n_chains:,} chains")
    ax.set_yscale("log")
    ax.set_xlabel("sweeps", fontsize=FONT_SIZE)
    ax.set_ylabel("distance to p (total variation)", fontsize=FONT_SIZE)
    ax.set_xlim(0, n_sweeps)
    ax.legend(fontsize=FONT_SIZE - 1, frameon=False, ncol=2, loc="lower left")
    _tidy(ax)
    return fig


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
        the book's colours for these rules) or any name.
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
    greys = iter([UNIT_ON, NEUTRAL, HIGHLIGHT])
    for key, x in named.items():
        colour, name = RULE_STYLE.get(key, (None, key))
        colour = colour or next(greys)
        if key == next(iter(named)):  # one trace only: several would hide each other
            ax_x.step(np.arange(min(n_trace, len(x))), x[:n_trace, 0], where="post", color=colour, lw=1)
            ax_x.set_xlabel(f"sweep ({name}, first chain)" if len(named) > 1 else "sweep (first chain)",
                            fontsize=FONT_SIZE)
        rho = _autocorrelation(x)[: max_lag + 1]
        ax_r.plot(np.arange(rho.size), rho, color=colour, lw=2, label=f"{name}: \u03c4 = {taus[key]:.1f}")
    ax_x.set_ylabel(label, fontsize=FONT_SIZE)
    ax_x.yaxis.set_major_locator(MaxNLocator(4))
    ax_r.axhline(0, color=NEUTRAL, lw=0.8)
    ax_r.set_xlim(0, max_lag)
    ax_r.set_xlabel("lag t (sweeps)", fontsize=FONT_SIZE)
    ax_r.set_ylabel("autocorrelation \u03c1(t)", fontsize=FONT_SIZE)
    ax_r.legend(fontsize=FONT_SIZE - 1, frameon=False)
    for ax in (ax_x, ax_r):
        _tidy(ax)
    return fig


def plot_annealing(result, descent=None, ground_energy=None, n_traces=8):
    """Simulated annealing: the temperature schedule, the energy of the chains, and where they end.

    Top: the temperature of each sweep. Bottom left: the energy after each
    sweep, for ``n_traces`` chains (thin) and averaged over all chains
    (thick). Bottom right: how many chains end at each energy, for the
    annealed chains and, if given, for energy descent from random states.
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
        ax_E.plot(sweeps, E[:, k], color=NEUTRAL, lw=0.8, alpha=0.8)
    ax_E.plot(sweeps, E.mean(axis=1), color=UNIT_ON, lw=2, label=f"mean of {E.shape[1]} chains")
    if ground_energy is not None:
        for ax in (ax_E, ax_h):
            ax.axhline(ground_energy, ls="--", lw=1, color=HIGHLIGHT)
        ax_E.plot([], [], ls="--", lw=1, color=HIGHLIGHT, label=f"lowest energy of any state ({ground_energy:.2f})")
    ax_E.set_xlabel("sweep", fontsize=FONT_SIZE)
    ax_E.set_ylabel("energy E(s)", fontsize=FONT_SIZE)
    ax_E.legend(fontsize=FONT_SIZE - 1, frameon=False, loc="upper right")
    finals = {"annealed": (E[-1], UNIT_ON)}
    if descent is not None:
        finals["descent"] = (descent.energies[-1], NEUTRAL)
    everything = np.concatenate([f for f, _ in finals.values()])
    edges = np.linspace(everything.min() - 1e-9, everything.max() + 1e-9, 16)
    width = edges[1] - edges[0]
    for k, (name, (final, colour)) in enumerate(finals.items()):
        counts, _ = np.histogram(final, edges)
        offset = (k - 0.5 * (len(finals) - 1)) * 0.4 * width
        ax_h.barh(edges[:-1] + 0.5 * width + offset, counts / final.size, height=0.4 * width, color=colour,
                  label=name)
    ax_h.set_xlabel("fraction of chains\nending there", fontsize=FONT_SIZE)
    ax_h.tick_params(labelleft=False)
    ax_h.legend(fontsize=FONT_SIZE - 1, frameon=False, loc="upper right")
    for ax in (ax_T, ax_E, ax_h):
        _tidy(ax)
    return fig


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
    from ..free_energy import free_energy_curves

    T = np.geomspace(0.1, 20.0, 60) if temperatures is None else temperatures
    curves = free_energy_curves(W, b, T, units)
    T = curves["T"]
    fig = _new_figure((6.8, 3.0))
    ax_f, ax_c = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1]})
    ax_f.plot(T, curves["free_energy"], color=UNIT_ON, lw=2, label="F = -T log Z")
    ax_f.plot(T, curves["mean_energy"], color=HIGHLIGHT, lw=1.6, label="<E>")
    ax_f.plot(T, curves["minus_TS"], color=NEUTRAL_TEXT, lw=1.6, ls="--", label="-T S")
    ax_c.plot(T, curves["heat_capacity"], color=UNIT_ON, lw=2)
    for ax in (ax_f, ax_c):
        ax.set_xscale("log")
        ax.set_xlabel("temperature T", fontsize=FONT_SIZE)
        _tidy(ax)
    ax_f.set_ylabel("energy", fontsize=FONT_SIZE)
    ax_f.legend(fontsize=FONT_SIZE, frameon=False)
    ax_c.set_ylabel("heat capacity Var E / T\u00b2", fontsize=FONT_SIZE)
    return fig
