"""How well sampled statistics estimate the exact ones: the clamped and free phases, pair by pair.

The figure of the chapter "Hidden units" that sets a statistics provider's
estimates (CD, PCD, mean field, ...) against the exact moments they stand for.
"""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from .._checks import check_finite_data, check_labels, check_mask, check_sequence
from .learning import settled
from .style import FONT_SIZE, NEUTRAL, _new_figure, series_style, tidy
from .words import count, describe, number, span


def _check_phases(value, name):
    """``(clamped, free)``, each ``(mean (n,), second (n, n))`` of finite numbers, as exact_statistics returns."""
    what = "a pair (clamped, free) of (mean, second) pairs, as bmlib.exact_statistics returns"
    phases = check_sequence(value, name, what)
    if len(phases) != 2:
        raise ValueError(f"{name} must be {what}; got {len(phases)} entries")
    checked = []
    for phase, label in zip(phases, ("clamped", "free")):
        parts = check_sequence(phase, f"{name} {label} phase", "a pair (mean, second)")
        if len(parts) != 2:
            raise ValueError(f"{name} {label} phase must be a pair (mean, second); got {len(parts)} entries")
        mean = check_finite_data(parts[0], f"{name} {label} mean")
        second = check_finite_data(parts[1], f"{name} {label} second moments")
        n = mean.shape[0] if mean.ndim == 1 else -1
        if mean.ndim != 1 or second.shape != (n, n):
            raise ValueError(f"{name} {label} phase must hold a mean of shape (n,) and second moments of shape "
                             f"(n, n); got shapes {mean.shape} and {second.shape}")
        checked.append((mean, second))
    return checked


def _pairs(phase, mask):
    second = np.asarray(phase[1], dtype=float)
    if mask is None:
        mask = ~np.eye(second.shape[0], dtype=bool)
    i, j = np.nonzero(np.triu(np.asarray(mask, dtype=bool), 1))
    return second[i, j]


def plot_estimated_statistics(reference, estimates, mask=None, titles=("clamped phase (+)", "free phase (\u2212)")):
    """Estimated pair statistics against exact ones, in the clamped and the free phase.

    Each dot is one connected pair ``(i, j)``: its exact ``<s_i s_j>``
    (horizontal; for bits the co-occurrence probability ``p_ij``) and an
    estimate of it (vertical), for instance from
    :class:`~bmlib.AnnealedStatistics`. Exact estimates lie on the diagonal.
    Explained in the chapter "Hidden units".

    Parameters
    ----------
    reference : tuple (clamped, free)
        Exact statistics, as :func:`~bmlib.exact_statistics` returns them.
    estimates : dict
        Label -> (clamped, free), in the same layout.
    mask : array_like of bool, shape (n, n), optional
        Which pairs are connected (``machine.mask``); every pair if omitted.
    titles : tuple of str
        Titles of the two panels.

    Returns
    -------
    matplotlib.figure.Figure
        With two axes (clamped, free), one scatter per estimate in each; each legend gives the
        largest error of each estimate in that phase.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, bmlib as bm
    >>> machine = bm.BoltzmannMachine(3, 1, rng=0)
    >>> data = bm.parity_patterns(3, units="spins")
    >>> exact = bm.exact_statistics(machine, data)
    >>> fig = bm.plot_estimated_statistics(exact, {"exact again": exact})
    >>> len(fig.axes), len(fig.axes[1].collections[0].get_offsets())  # 6 pairs of 4 units
    (2, 6)
    >>> plt.close(fig)
    """
    reference = _check_phases(reference, "reference")
    shape = reference[0][1].shape
    if not isinstance(estimates, dict) or not estimates:
        raise TypeError(f"estimates must be a non-empty dict: label -> (clamped, free); got {estimates!r:.60}")
    estimates = {label: _check_phases(phases, f"estimates[{label!r}]") for label, phases in estimates.items()}
    for label, phases in estimates.items():
        if any(phase[1].shape != shape for phase in phases):
            raise ValueError(f"estimates[{label!r}] must have pair statistics of the reference's shape {shape}, "
                             "the same pairs per phase")
    if mask is not None:
        mask = check_mask(mask, shape[0])
    titles = check_labels(titles, 2, "titles", "phase (clamped, free)")
    fig = _new_figure((6.6, 3.3))
    axes = fig.subplots(1, 2)
    values = [_pairs(phase, mask) for phase in reference]
    guesses = {label: [_pairs(phase, mask) for phase in phases] for label, phases in estimates.items()}
    everything = np.concatenate(values + [g for pair in guesses.values() for g in pair])
    low = -1.0 if everything.min() < -1e-12 else 0.0
    high = float(np.clip(np.abs(everything).max() * 1.1, 0.1, 1.0))  # co-occurrences of bits can all be small
    for p, (ax, exact, title) in enumerate(zip(axes, values, titles)):
        ax.plot([low, high], [low, high], color=NEUTRAL, lw=1, zorder=1)
        for k, (label, pair) in enumerate(guesses.items()):
            error = np.abs(pair[p] - exact).max()
            style = series_style(k)  # each estimate its own colour and marker
            ax.scatter(exact, pair[p], s=18, color=style["color"], marker=style["marker"], zorder=3 + k,
                       alpha=0.85, label=f"{label}\n(largest error {error:.3f})")
        ax.legend(fontsize=FONT_SIZE - 2, frameon=False, loc="upper left", handletextpad=0.2)
        pad = 0.05 * (high - low)
        ax.set(xlim=(low - pad, high + pad), ylim=(low - pad, high + pad), aspect="equal")
        ax.set_xlabel("exact", fontsize=FONT_SIZE)
        ax.set_ylabel("estimated", fontsize=FONT_SIZE)
        ax.set_title(title, fontsize=FONT_SIZE)
        ax.xaxis.set_major_locator(MaxNLocator(5))
        ax.yaxis.set_major_locator(MaxNLocator(5))
        tidy(ax)
    _describe_estimates(fig, values, guesses, titles)
    return fig


def _describe_estimates(fig, values, guesses, titles):
    names = [" ".join(t.split()) for t in titles]
    values = [settled(v) for v in values]  # round-off (below 1e-9) is written as 0, on every machine
    guesses = {label: [settled(g) for g in pair] for label, pair in guesses.items()}
    errors = {label: [settled(np.abs(pair[p] - exact).max()) for p, exact in enumerate(values)]
              for label, pair in guesses.items()}
    listed = "; ".join(f"{label}, {number(e[0])} and {number(e[1])}" for label, e in errors.items())
    # The pair statistic is <s_i s_j> for spins and the co-occurrence <x_i x_j> for bits: name neither.
    summary = [f"Estimated against the exact average of the product of two units, for "
               f"{count(len(values[0]), 'connected pair')}, one point per "
               f"pair, in two panels, {names[0]} and {names[1]}, for {count(len(guesses), 'estimate')}, each "
               f"with its own marker; exact estimates lie on the diagonal.",
               f"Largest error in the two panels: {listed}."]
    details = [f"{name[:1].upper() + name[1:]}: exact values {span(exact)}; "
               + "; ".join(f"{label} {span(pair[p])}, mean error {number(settled(np.abs(pair[p] - exact).mean()))}"
                           for label, pair in guesses.items()) + "."
               for p, (name, exact) in enumerate(zip(names, values))]
    describe(fig, summary, details)
