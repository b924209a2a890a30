"""Figures of the chapter "The Ising model": lattices, coupling matrices, the phase transition, finite-size scaling."""
from __future__ import annotations

import numpy as np
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.ticker import MaxNLocator

from .._checks import (
    _as_real_array,
    check_count,
    check_instance,
    check_labels,
    check_real,
    check_sequence,
    check_states,
    check_temperatures,
    check_weights,
)
from ..energy import energy
from ..ising_exact import (
    critical_temperature,
    onsager_energy_per_spin,
    yang_magnetization,
)
from ..kaufman import kaufman_energy_per_spin, kaufman_specific_heat_per_spin
from ..lattices import square_lattice_couplings
from ..sampling.couplings import SquareLattice
from ..sampling.diagnostics import Estimate
from ._style import (
    _ON_OFF,
    FONT_SIZE,
    HIGHLIGHT,
    NEGATIVE,
    NEUTRAL,
    NEUTRAL_TEXT,
    POSITIVE,
    UNIT_ON,
    _new_figure,
    _tidy,
)

#: Blue for negative couplings, white for none, red for positive ones (the book's weight colours).
_COUPLING_CMAP = LinearSegmentedColormap.from_list("bm_couplings", [NEGATIVE, "#ffffff", POSITIVE])

#: The lattice used for the "large lattice" reference curve of the specific heat.
_LARGE_L = 512
#: One colour per lattice size in the finite-size scaling figures, smallest lattice first.
_SIZE_COLOURS = (NEUTRAL_TEXT, HIGHLIGHT, UNIT_ON, POSITIVE, NEGATIVE)


def _lattice_grids(states, shape):
    """States as spins of shape (k, rows, cols), and (rows, cols)."""
    arr = _as_real_array(states, "states")
    if arr.ndim == 3:
        shape = arr.shape[1:]
    else:
        arr = np.atleast_2d(arr)
        if arr.ndim != 2:
            raise ValueError(f"states must have shape (n,), (k, n) or (k, rows, cols); got shape {arr.shape}")
        if shape is None:
            side = int(round(np.sqrt(arr.shape[1])))
            if side * side != arr.shape[1]:
                raise ValueError(
                    f"states of {arr.shape[1]} spins do not fill a square lattice; pass shape=(rows, cols)"
                )
            shape = (side, side)
    shape = check_sequence(shape, "shape", "a pair (rows, cols)")
    if len(shape) != 2:
        raise ValueError(f"shape must be a pair (rows, cols); got {len(shape)} entries")
    rows = check_count(shape[0], "shape[0]", minimum=2)
    cols = check_count(shape[1], "shape[1]", minimum=2)
    flat = check_states(arr.reshape(arr.shape[0], -1), rows * cols, "spins", name="states")
    return flat.reshape(-1, rows, cols), (rows, cols)


def _energy_per_spin(grids, J, h):
    """Energy per spin of each lattice in ``grids`` (k, rows, cols), periodic in both directions."""
    k, rows, cols = grids.shape
    flat = grids.reshape(k, -1)
    if rows % 2 == 0 and cols % 2 == 0:
        op = SquareLattice(rows, cols, J=J, h=h)
        return op.energy(op.start(flat.astype(np.int8))) / (rows * cols)
    W = square_lattice_couplings(rows, cols, J)
    return energy(flat, W, np.full(rows * cols, h)) / (rows * cols)


def _draw_lattice(ax, grid, title=None):
    """One lattice as an image: dark for +1, white for -1, no ticks."""
    ax.imshow(grid == 1, cmap=_ON_OFF, vmin=0, vmax=1, interpolation="nearest")
    ax.set(xticks=[], yticks=[])
    for spine in ax.spines.values():
        spine.set(color=NEUTRAL, lw=0.8)
    if title is not None:
        ax.set_title(title, fontsize=FONT_SIZE)


def _draw_coupling_matrix(ax, W, title=None, limit=None):
    """W as an image, blue (negative) through white (zero) to red (positive)."""
    limit = limit or max(float(np.abs(W).max()), 1e-12)
    image = ax.imshow(W, cmap=_COUPLING_CMAP, vmin=-limit, vmax=limit, interpolation="nearest")
    n = W.shape[0]
    ax.xaxis.set_major_locator(MaxNLocator(4, integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(4, integer=True))
    ax.set_xlabel("unit j", fontsize=FONT_SIZE)
    ax.set_ylabel("unit i", fontsize=FONT_SIZE)
    ax.tick_params(labelsize=FONT_SIZE - 1)
    if title is not None:
        ax.set_title(title, fontsize=FONT_SIZE)
    ax.set(xlim=(-0.5, n - 0.5), ylim=(n - 0.5, -0.5))
    return image


def _reference_curves(ax_m, ax_e, L, J, T_grid, finite=True):
    """Yang's |m| and Onsager's e for the infinite lattice, Kaufman's e for the L x L torus, and T_c."""
    Tc = critical_temperature(J)
    ax_m.plot(T_grid, yang_magnetization(T_grid, J), "--", color=NEUTRAL, lw=1.5,
              label="Yang (infinite lattice)")
    ax_e.plot(T_grid, onsager_energy_per_spin(T_grid, J), "--", color=NEUTRAL, lw=1.5,
              label="Onsager (infinite lattice)")
    if finite:
        ax_e.plot(T_grid, kaufman_energy_per_spin(L, L, T_grid, J), color=HIGHLIGHT, lw=1.5,
                  label=f"Kaufman ({L} x {L}, exact)")
    for ax in (ax_m, ax_e):
        ax.axvline(Tc, color=NEUTRAL, lw=0.8, ls=":")
        ax.set_xlim(T_grid[0], T_grid[-1])
        _tidy(ax)
    ax_m.set_ylabel("|m|, magnetization per spin", fontsize=FONT_SIZE)
    ax_e.set_ylabel("e = E / N, energy per spin", fontsize=FONT_SIZE)


def _draw_phase_transition(fig, temperatures, scan, L, J):
    """|m|, e, c and tau against T: measured points with error bars over the exact curves."""
    axes = fig.subplots(2, 2, sharex=True)
    (ax_m, ax_e), (ax_c, ax_tau) = axes
    T = np.asarray(temperatures, dtype=float)
    span = T.max() - T.min()
    T_grid = np.linspace(max(T.min() - 0.05 * span, 0.05 * J), T.max() + 0.05 * span, 400)
    Tc = critical_temperature(J)
    _reference_curves(ax_m, ax_e, L, J, T_grid)
    ax_c.plot(T_grid, kaufman_specific_heat_per_spin(_LARGE_L, _LARGE_L, T_grid, J), "--", color=NEUTRAL, lw=1.5,
              label=f"Kaufman ({_LARGE_L} x {_LARGE_L}, exact)")
    ax_c.plot(T_grid, kaufman_specific_heat_per_spin(L, L, T_grid, J), color=HIGHLIGHT, lw=1.5,
              label=f"Kaufman ({L} x {L}, exact)")
    style = dict(fmt="o", color=UNIT_ON, ms=3.5, capsize=2, elinewidth=1, zorder=3,
                 label=f"Monte Carlo ({L} x {L})")
    for ax, name in ((ax_m, "abs_magnetization"), (ax_e, "energy_per_unit"), (ax_c, "specific_heat")):
        ax.errorbar(T, scan[name].value, yerr=scan[name].error, **style)
    ax_c.axvline(Tc, color=NEUTRAL, lw=0.8, ls=":")
    ax_c.set_ylabel("c, specific heat per spin", fontsize=FONT_SIZE)
    ax_c.set_ylim(0, None)
    for name, marker, label in (("abs_magnetization", "o-", "of |m|"), ("energy_per_unit", "s-", "of e")):
        ax_tau.plot(T, scan[name].tau, marker, color=UNIT_ON if name == "abs_magnetization" else NEUTRAL,
                    ms=3.5, lw=1, label=label)
    ax_tau.axvline(Tc, color=NEUTRAL, lw=0.8, ls=":")
    ax_tau.set_ylabel("autocorrelation time (sweeps)", fontsize=FONT_SIZE)
    ax_tau.set_ylim(0, None)
    for ax in (ax_c, ax_tau):
        ax.set_xlabel("temperature T", fontsize=FONT_SIZE)
        _tidy(ax)
    ax_m.text(Tc, 1.02, " $T_c$", transform=ax_m.get_xaxis_transform(), fontsize=FONT_SIZE, color=NEUTRAL_TEXT)
    for ax in axes.ravel():
        ax.legend(fontsize=FONT_SIZE - 2, frameon=False, loc="best")
    return axes


def plot_lattices(states, labels=None, shape=None, J=1.0, h=0.0):
    """Spin configurations of a square lattice, side by side, with their energy and magnetization.

    Each panel shows one state as an image (dark +1, white -1), titled with
    its label and its energy per spin ``e = E / N`` and magnetization per
    spin ``m = sum_i s_i / N`` on the periodic lattice. Explained in the
    chapter "The Ising model".

    Parameters
    ----------
    states : array_like of shape (k, rows * cols) or (k, rows, cols)
        Spins (+-1); a flat state lists site ``(r, c)`` as unit ``r * cols + c``.
    labels : sequence of str of length k, optional
        A first title line for each panel (e.g. the temperature).
    shape : (int, int), optional
        ``(rows, cols)`` for flat states (default: a square).
    J, h : float
        Coupling and field used for the energy in the titles.

    Returns
    -------
    matplotlib.figure.Figure
        With ``k`` axes, one image each.

    Examples
    --------
    >>> import numpy as np
    >>> import matplotlib.pyplot as plt
    >>> up, stripes = np.ones(16), np.repeat([1, -1, 1, -1], 4)
    >>> fig = bm.plot_lattices([up, stripes], labels=["all up", "stripes"])
    >>> [ax.get_title() for ax in fig.axes]
    ['all up\\ne = -2.00, m = 1.00', 'stripes\\ne = 0.00, m = 0.00']
    >>> plt.close(fig)
    """
    grids, (rows, cols) = _lattice_grids(states, shape)
    J, h = check_real(J, "J"), check_real(h, "h")
    k = grids.shape[0]
    labels = None if labels is None else check_labels(labels, k, "labels", "state")
    e = _energy_per_spin(grids, J, h)
    m = grids.reshape(k, -1).mean(axis=1)
    fig = _new_figure((min(2.0 * k, 10.0) + 0.2, min(2.0, 10.0 / k) * rows / cols + 0.6))
    axes = np.atleast_1d(fig.subplots(1, k))
    for i, ax in enumerate(axes):
        first = f"{labels[i]}\n" if labels is not None else ""
        _draw_lattice(ax, grids[i], f"{first}e = {e[i] + 0.0:.2f}, m = {m[i] + 0.0:.2f}")
    return fig


def plot_coupling_matrices(matrices, titles=None):
    """Coupling matrices ``W`` side by side: red positive, blue negative, white zero.

    Each panel has its own colour scale, symmetric about zero (couplings of
    different models can differ in size by a lot: an SK model's are of
    order ``1 / sqrt(n)``), with its colour bar. Explained in the chapter
    "The Ising model".

    Parameters
    ----------
    matrices : sequence of array_like, each of shape (n, n)
        Symmetric couplings with zero diagonal (sizes may differ).
    titles : sequence of str, optional
        One title per matrix.

    Returns
    -------
    matplotlib.figure.Figure
        With one image axes per matrix, followed by their colour bars.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import bmlib as bm
    >>> fig = bm.plot_coupling_matrices([bm.chain_couplings(6), bm.sk_couplings(6, rng=0)], ["ring", "SK"])
    >>> [ax.get_title() for ax in fig.axes[:2]]
    ['ring', 'SK']
    >>> plt.close(fig)
    """
    matrices = check_sequence(matrices, "matrices", "a sequence of coupling matrices")
    Ws = [check_weights(W, f"matrices[{i}]") for i, W in enumerate(matrices)]
    titles = None if titles is None else check_labels(titles, len(Ws), "titles", "matrix")
    fig = _new_figure((3.7 * len(Ws), 3.3))
    axes = np.atleast_1d(fig.subplots(1, len(Ws)))
    images = [_draw_coupling_matrix(ax, W, None if titles is None else titles[i]) for i, (ax, W) in
              enumerate(zip(axes, Ws))]
    for ax, image in zip(axes, images):
        bar = fig.colorbar(image, ax=ax, shrink=0.8)
        bar.ax.tick_params(labelsize=FONT_SIZE - 1)
        bar.set_label("$w_{ij}$", fontsize=FONT_SIZE)
    return fig


def plot_phase_transition(temperatures, scan, L, J=1.0):
    """The phase transition of the square-lattice Ising model: Monte Carlo against the exact results.

    Four panels against the temperature: the mean absolute magnetization
    ``<|m|>`` with Yang's spontaneous magnetization; the energy per spin with
    Onsager's curve (infinite lattice) and Kaufman's (the simulated
    ``L x L`` torus); the specific heat per spin with Kaufman's curves for
    ``L x L`` and a 512 x 512 torus; and the autocorrelation times of ``|m|``
    and ``e``. The dotted line is ``T_c``. Explained in the chapter
    "The Ising model".

    Parameters
    ----------
    temperatures : array_like of shape (n_T,)
        The temperatures of the scan.
    scan : dict of str to Estimate
        The result of :func:`~bmlib.temperature_scan` on ``SquareLattice(L)``
        at these temperatures (each value, error and tau of shape (n_T,)).
    L : int
        Side of the simulated (periodic) lattice.
    J : float
        Coupling, > 0.

    Returns
    -------
    matplotlib.figure.Figure
        With four axes: ``|m|``, ``e``, ``c``, ``tau``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import bmlib as bm
    >>> T = [2.0, 2.5]
    >>> scan = bm.temperature_scan(bm.SquareLattice(8), None, T, n_samples=100, n_chains=2, rng=0)
    >>> fig = bm.plot_phase_transition(T, scan, L=8)
    >>> len(fig.axes)
    4
    >>> plt.close(fig)
    """
    T = check_temperatures(temperatures)
    L = check_count(L, "L", minimum=2)
    J = check_real(J, "J", positive=True)
    if (T / J).min() < 1e-3 or (T / J).max() > 1e3:
        # The figure is about the transition at T_c = 2.27 J; far from it every curve is flat, and
        # Kaufman's formula at T / J ~ 1e300 needs hundreds of digits per point.
        raise ValueError(f"J must be comparable to the temperatures for this figure (T / J within 1e-3 ... 1e3); "
                         f"got J = {J!r} with T from {T.min():g} to {T.max():g}")
    needed = ("abs_magnetization", "energy_per_unit", "specific_heat")
    check_instance(scan, "scan", dict, "the dict returned by bm.temperature_scan")
    for name in needed:
        if name not in scan or not isinstance(scan[name], Estimate):
            raise ValueError(f"scan must be the dict returned by bm.temperature_scan; it has no Estimate {name!r}")
        if np.shape(scan[name].value) != T.shape:
            raise ValueError(
                f"scan[{name!r}] has {np.size(scan[name].value)} values but there are {T.size} temperatures"
            )
    fig = _new_figure((8.0, 5.6))
    _draw_phase_transition(fig, T, scan, L, J)
    return fig


def plot_binder_crossing(temperatures, scans):
    """Binder cumulant against temperature for several lattice sizes: the curves cross near T_c.

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
    fig = _new_figure((5.6, 3.2))
    ax = fig.add_subplot()
    for k, (L, scan) in enumerate(scans):
        ax.errorbar(T, scan["binder"].value, yerr=scan["binder"].error, color=_SIZE_COLOURS[k % len(_SIZE_COLOURS)],
                    marker="o", ms=4, lw=1.5, capsize=2, label=f"L = {L}")
    Tc = critical_temperature()
    ax.axvline(Tc, color=NEUTRAL, lw=1, ls=":")
    ax.text(Tc, 0.02, f" T_c = {Tc:.3f}", color=NEUTRAL_TEXT, fontsize=FONT_SIZE, transform=ax.get_xaxis_transform())
    ax.set_xlabel("temperature T", fontsize=FONT_SIZE)
    ax.set_ylabel("Binder cumulant U", fontsize=FONT_SIZE)
    ax.legend(fontsize=FONT_SIZE, frameon=False)
    _tidy(ax)
    return fig


def _size_scans(T, scans, name):
    """``scans`` ({L: temperature_scan}) as a list of (L, scan) by increasing L, each holding ``name`` at T."""
    if not isinstance(scans, dict) or not scans:
        raise TypeError("scans must be a non-empty dict {L: bm.temperature_scan(...)}")
    for L, scan in scans.items():
        if not isinstance(scan, dict) or name not in scan or np.shape(scan[name].value) != T.shape:
            raise ValueError(f"scans[{L}] must be a temperature_scan at the {T.size} temperatures given")
    return sorted(scans.items())


def _peak(T, estimate):
    """Temperature, value and error at the largest value (the lowest such T on a tie)."""
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
    sides, peaks = [], []
    for k, (L, scan) in enumerate(scans):
        chi = scan["susceptibility"]
        colour = _SIZE_COLOURS[k % len(_SIZE_COLOURS)]
        ax_T.errorbar(T, chi.value, yerr=chi.error, color=colour, marker="o", ms=4, lw=1.5, capsize=2)
        _, value, error = _peak(T, chi)
        ax_L.errorbar([L], [value], yerr=[error], color=colour, marker="o", ms=6, capsize=2, ls="none",
                      label=f"L = {L}")
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
        _tidy(ax)
    return fig


def plot_critical_slowing(result, exponent=2.17):
    """Autocorrelation time against lattice side at T_c: single-spin sweeps against Wolff's clusters.

    Both axes logarithmic. The heat-bath times grow like ``L**z`` with the
    dynamic exponent ``z ~ 2.17`` of single-spin dynamics (Nightingale and
    Blöte 1996); a dashed line with that slope passes through the middle of
    them. Wolff's times, in the same unit of sweeps, hardly grow. Explained
    in the chapter "The Ising model".

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
    _tidy(ax)
    return fig
