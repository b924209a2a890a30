"""Figures of the chapter "The Ising model": lattices, coupling matrices, the phase transition.

The figures of finite-size scaling (the Binder crossing, the susceptibility's
peaks, autocorrelation times against L) are in :mod:`bmlib.plotting.finite_size`.
"""
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
from ..models.energy import energy
from ..exact.closed_forms import (
    critical_temperature,
    onsager_energy_per_spin,
    yang_magnetization,
)
from ..exact.kaufman import kaufman_energy_per_spin, kaufman_specific_heat_per_spin
from ..models.lattices import square_lattice_couplings
from ..sampling.couplings import SquareLattice
from ..sampling.diagnostics import Estimate
from .style import (
    _ON_OFF,
    FONT_SIZE,
    HIGHLIGHT,
    NEGATIVE,
    NEUTRAL,
    NEUTRAL_TEXT,
    POSITIVE,
    UNIT_ON,
    _new_figure,
    tidy,
    series_style,
)
from .words import count, describe, number, ranked, span

#: Blue for negative couplings, white for none, red for positive ones (the book's weight colours).
_COUPLING_CMAP = LinearSegmentedColormap.from_list("bm_couplings", [NEGATIVE, "#ffffff", POSITIVE])

#: The lattice used for the "large lattice" reference curve of the specific heat.
_LARGE_L = 512
#: Panels of plot_lattices and matrices of plot_coupling_matrices listed one by one in the words.
_LISTED = 6


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


def _alike_pairs(grids):
    """Fraction of nearest-neighbour pairs (periodic) whose two spins are equal, per lattice of ``grids``."""
    across = grids == np.roll(grids, -1, axis=2)
    down = grids == np.roll(grids, -1, axis=1)
    return (across.mean(axis=(1, 2)) + down.mean(axis=(1, 2))) / 2


def _percent(fraction):
    """``"52%"``: a fraction in [0, 1] as a percentage with two significant digits."""
    return f"{number(100 * fraction)}%"


def lattice_words(grid):
    """``"52% of spins +1, 61% of neighbouring pairs alike"``: the pattern of one lattice, in numbers."""
    alike = _alike_pairs(grid[None])[0]
    return f"{_percent((grid == 1).mean())} of spins +1, {_percent(alike)} of neighbouring pairs alike"


def _describe_lattices(fig, grids, labels, e, m):
    k, rows, cols = grids.shape
    names = [f"“{label}”" for label in labels] if labels is not None else [f"panel {i + 1}" for i in range(k)]
    if k == 1:
        titled = f", titled {names[0]}" if labels is not None else ""
        describe(fig, [f"A {rows} x {cols} periodic lattice of spins (dark +1, white −1){titled}, with energy per "
                       f"spin e = {number(e[0])} and magnetization per spin m = {number(m[0])}.",
                       f"{lattice_words(grids[0])[0].upper()}{lattice_words(grids[0])[1:]}."])
        return
    shown = [f"{names[i]}: e = {number(e[i])}, m = {number(m[i])}, {lattice_words(grids[i])}"
             for i in range(min(k, _LISTED))]
    more = f"; and {count(k - _LISTED, 'more panel')}" if k > _LISTED else ""
    describe(fig, [f"{k} {rows} x {cols} periodic lattices of spins side by side (dark +1, white −1), each titled "
                   "with its energy per spin e and magnetization per spin m.",
                   f"m runs {span(m)} and e {span(e)}."], "; ".join(shown) + more + ".")


def _describe_couplings(fig, Ws, titles, limits):
    names = [f"“{t}”" for t in titles] if titles is not None else [f"matrix {i + 1}" for i in range(len(Ws))]
    short, long = [], []
    for name, W, limit in zip(names, Ws, limits):
        n = W.shape[0]
        # Zero is what was set to zero: a coupling of float noise (1e-17 beside 1) counts as none.
        coupled = np.abs(W) > 1e-9 * limit
        upper = W[np.triu_indices(n, 1)][coupled[np.triu_indices(n, 1)]]
        pairs, degree = upper.size, coupled.sum(axis=1)
        short.append(f"{name}: {count(n, 'unit')}, {pairs} of the {n * (n - 1) // 2} pairs coupled")
        if pairs == 0:
            long.append(f"{name}: no coupling is nonzero.")
            continue
        each = (f"every unit is coupled to {degree[0]} others" if degree.min() == degree.max()
                else f"each unit is coupled to {degree.min()} to {degree.max()} others")
        long.append(f"{name}: couplings {span(upper)} ({int((upper > 0).sum())} positive, "
                    f"{int((upper < 0).sum())} negative); {each}; colour scale ±{number(limit)}.")
    describe(fig, "Coupling matrices w_ij as images, unit i down and unit j across, red for positive, blue for "
                  "negative and white for zero, each on its own colour scale: " + "; ".join(short) + ".", long)


def draw_lattice(ax, grid, title=None):
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


def reference_curves(ax_m, ax_e, L, J, T_grid, finite=True):
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
        tidy(ax)
    ax_m.set_ylabel("|m|, magnetization per spin", fontsize=FONT_SIZE)
    ax_e.set_ylabel("e = E / N, energy per spin", fontsize=FONT_SIZE)


def _draw_phase_transition(fig, temperatures, scan, L, J):
    """|m|, e, c and tau against T: measured points with error bars over the exact curves."""
    axes = fig.subplots(2, 2, sharex=True)
    (ax_m, ax_e), (ax_c, ax_tau) = axes
    T = np.asarray(temperatures, dtype=float)
    width = T.max() - T.min()
    T_grid = np.linspace(max(T.min() - 0.05 * width, 0.05 * J), T.max() + 0.05 * width, 400)
    Tc = critical_temperature(J)
    reference_curves(ax_m, ax_e, L, J, T_grid)
    c_large = kaufman_specific_heat_per_spin(_LARGE_L, _LARGE_L, T_grid, J)
    c_small = kaufman_specific_heat_per_spin(L, L, T_grid, J)
    ax_c.plot(T_grid, c_large, "--", color=NEUTRAL, lw=1.5, label=f"Kaufman ({_LARGE_L} x {_LARGE_L}, exact)")
    ax_c.plot(T_grid, c_small, color=HIGHLIGHT, lw=1.5, label=f"Kaufman ({L} x {L}, exact)")
    style = dict(fmt="o", color=UNIT_ON, ms=3.5, capsize=2, elinewidth=1, zorder=3,
                 label=f"Monte Carlo ({L} x {L})")
    for ax, name in ((ax_m, "abs_magnetization"), (ax_e, "energy_per_unit"), (ax_c, "specific_heat")):
        ax.errorbar(T, scan[name].value, yerr=scan[name].error, **style)
    ax_c.axvline(Tc, color=NEUTRAL, lw=0.8, ls=":")
    ax_c.set_ylabel("c, specific heat per spin", fontsize=FONT_SIZE)
    ax_c.set_ylim(0, None)
    # Two curves in one panel: each its own colour, dash and marker (colour is never the only difference).
    for k, (name, label) in enumerate((("abs_magnetization", "of |m|"), ("energy_per_unit", "of e"))):
        ax_tau.plot(T, scan[name].tau, **series_style(k), ms=3.5, lw=1, label=label)
    ax_tau.axvline(Tc, color=NEUTRAL, lw=0.8, ls=":")
    ax_tau.set_ylabel("autocorrelation time (sweeps)", fontsize=FONT_SIZE)
    ax_tau.set_ylim(0, None)
    for ax in (ax_c, ax_tau):
        ax.set_xlabel("temperature T", fontsize=FONT_SIZE)
        tidy(ax)
    ax_m.text(Tc, 1.02, " $T_c$", transform=ax_m.get_xaxis_transform(), fontsize=FONT_SIZE, color=NEUTRAL_TEXT)
    for ax in axes.ravel():
        ax.legend(fontsize=FONT_SIZE - 2, frameon=False, loc="best")
    _describe_phase_transition(fig, T, scan, L, J, T_grid, c_small, c_large)
    return axes


def _at(T, values, k):
    return f"{number(values[k])} at T = {number(T[k], 3)}"


def _longest(T, tau):
    """``", longest at T = 2.3"``, or nothing when no time is finite."""
    tau = np.asarray(tau, dtype=float)
    return f", longest at T = {number(T[ranked(tau)[0]], 3)}" if np.isfinite(tau).any() else ""


def _describe_phase_transition(fig, T, scan, L, J, T_grid, c_small, c_large):
    Tc = critical_temperature(J)
    m, e, c = (scan[name] for name in ("abs_magnetization", "energy_per_unit", "specific_heat"))
    first, last = int(np.argmin(T)), int(np.argmax(T))  # the lowest and the highest temperature
    top_c = int(ranked(c.value)[0])
    # The exact curves are smooth: their peaks are ranked on 6 digits, far above float noise.
    peak_small, peak_large = int(ranked(c_small, 6)[0]), int(ranked(c_large, 6)[0])
    off = np.abs(np.asarray(e.value) - kaufman_energy_per_spin(L, L, T, J))
    # How far the infinite lattice's curve is from the simulated size's: the finite-size effect, near T_c.
    size_effect = np.abs(onsager_energy_per_spin(T_grid, J) - kaufman_energy_per_spin(L, L, T_grid, J))
    summary = [
        f"Four panels against the temperature T {span(T, 3)} for the {L} x {L} periodic Ising lattice: |m|, e "
        f"and c, Monte Carlo points with error bars over exact curves, and autocorrelation times, point "
        f"estimates without error bars; T_c = {number(Tc, 3)} dotted.",
        f"|m| {'falls' if m.value[last] < m.value[first] else 'goes'} from {_at(T, m.value, first)} to "
        f"{_at(T, m.value, last)}, and the measured c is largest, {_at(T, c.value, top_c)}.",
    ]
    details = [
        f"Magnetization |m|: Yang's dashed curve for the infinite lattice is "
        f"{number(yang_magnetization(T[first], J))} at T = {number(T[first], 3)} and 0 above T_c.",
        f"Energy per spin: Monte Carlo e {span(e.value)}, at most {number(off.max())} from Kaufman's exact "
        f"{L} x {L} curve, solid (error bars up to {number(np.max(e.error))}); Onsager's dashed curve for the "
        f"infinite lattice is at most {number(size_effect.max())} from it, most at T = "
        f"{number(T_grid[ranked(size_effect, 6)[0]], 3)}.",
        f"Specific heat: Monte Carlo c {span(c.value)}; Kaufman's exact {L} x {L} curve, solid, peaks at "
        f"{_at(T_grid, c_small, peak_small)}, the dashed {_LARGE_L} x {_LARGE_L} one at "
        f"{_at(T_grid, c_large, peak_large)}.",
        f"Autocorrelation time of |m| {span(m.tau)} sweeps{_longest(T, m.tau)}, of e {span(e.tau)} sweeps.",
    ]
    describe(fig, summary, details)


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
        draw_lattice(ax, grids[i], f"{first}e = {e[i] + 0.0:.2f}, m = {m[i] + 0.0:.2f}")
    _describe_lattices(fig, grids, labels, e, m)
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
    _describe_couplings(fig, Ws, titles, [image.get_clim()[1] for image in images])
    return fig


def plot_phase_transition(temperatures, scan, L, J=1.0):
    """The phase transition of the square-lattice Ising model: Monte Carlo against the exact results.

    Four panels against the temperature: the mean absolute magnetization
    ``<|m|>`` with Yang's spontaneous magnetization; the energy per spin with
    Onsager's curve (infinite lattice) and Kaufman's (the simulated
    ``L x L`` torus); the specific heat per spin with Kaufman's curves for
    ``L x L`` and a 512 x 512 torus; and the autocorrelation times of ``|m|``
    and ``e``, point estimates without error bars. The dotted line is ``T_c``. Explained in the chapter
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
