"""Figures of the chapter "The deterministic Boltzmann machine": the mean-field equations and their accuracy.

The self-consistency picture uses the fully connected ferromagnet
(Curie-Weiss model) in the book's convention: ``n`` spins, every weight
``w_ij = J / (n - 1)``, every bias ``b``. A state in which every unit has the
same mean ``m`` then feels the mean field ``h = J m + b``, so the ``n``
mean-field equations collapse to one, ``m = tanh((J m + b) / T)``, which can
be solved with pencil, paper and a ruler: the solutions are where the curve
meets the diagonal.
"""
from __future__ import annotations

import warnings

import numpy as np
from matplotlib.ticker import MaxNLocator

from .._checks import (
    LEVELS,
    ConvergenceWarning,
    check_bool,
    check_choice,
    check_integer,
    check_labels,
    check_model,
    check_real,
    check_sequence,
    check_temperature,
    check_temperature_range,
    check_temperatures,
    check_units,
)
from .._random import as_generator
from ..exact import exact_moments
from ..lattices import curie_weiss_couplings
from ..learning.machine import BoltzmannMachine
from ..meanfield import naive_mean_field, tap_mean_field
from ._style import (
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

#: Colours of successive temperatures in the self-consistency picture.
_CURVE_COLOURS = (NEGATIVE, HIGHLIGHT, POSITIVE, UNIT_ON)
#: Points on [-1, 1] where the one-unit equation is scanned for sign changes.
_GRID = np.linspace(-1.0, 1.0, 2001)


def _uniform_fixed_points(J, b, T):
    """All solutions of ``m = tanh((J m + b) / T)`` in [-1, 1], with their stability.

    Sign changes of ``g(m) = m - tanh((J m + b) / T)`` on a fine grid bracket
    the roots; bisection refines them. A root is stable (a maximum of the
    mean-field bound, and an attractor of the iteration) where the curve
    crosses the diagonal with slope below 1, ``J (1 - m^2) / T < 1``.

    Returns
    -------
    roots : ndarray of shape (k,), increasing
    stable : ndarray of shape (k,), dtype bool
    """
    g = _GRID - np.tanh((J * _GRID + b) / T)
    exact = _GRID[g == 0.0]
    k = np.flatnonzero(np.sign(g[:-1]) * np.sign(g[1:]) < 0)
    lo, hi = _GRID[k], _GRID[k + 1]
    for _ in range(60):  # bisection: each step halves the bracket (2001-point grid: 1e-3 -> 1e-21)
        mid = 0.5 * (lo + hi)
        below = (mid - np.tanh((J * mid + b) / T)) * (lo - np.tanh((J * lo + b) / T)) > 0
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    roots = np.sort(np.concatenate([exact, 0.5 * (lo + hi)]))
    return roots, J * (1.0 - roots**2) / T < 1.0


def _iterate(J, b, T, start, steps):
    """The one-unit iteration ``m <- tanh((J m + b) / T)`` from ``start``: ``steps + 1`` values."""
    m = [float(start)]
    for _ in range(steps):
        m.append(float(np.tanh((J * m[-1] + b) / T)))
    return np.array(m)


def _draw_self_consistency(ax, J, b, temperatures, start, steps=12):
    """The curves ``tanh((J m + b) / T)`` against the diagonal; solutions marked, a cobweb at the lowest T."""
    ax.plot([-1, 1], [-1, 1], color=UNIT_ON, lw=1, label="m (left side)")
    for k, T in enumerate(temperatures):
        colour = _CURVE_COLOURS[k % len(_CURVE_COLOURS)]
        ax.plot(_GRID, np.tanh((J * _GRID + b) / T), color=colour, lw=1.6, label=f"tanh((Jm + b)/T), T = {T:g}")
        roots, stable = _uniform_fixed_points(J, b, T)
        # Unstable rings are drawn larger, so that a stable dot of another curve stays visible inside one.
        ax.plot(roots[~stable], roots[~stable], "o", mfc="white", mec=colour, mew=1.4, ms=9, zorder=4)
        ax.plot(roots[stable], roots[stable], "o", color=colour, ms=5.5, zorder=5)
    if start is not None:
        T = min(temperatures)
        m = _iterate(J, b, T, start, steps)
        # Cobweb: up (or down) to the curve, across to the diagonal, and again.
        x = np.repeat(m, 2)[1:-1]
        y = np.repeat(m, 2)[2:]
        x = np.concatenate([[m[0]], x])
        y = np.concatenate([[m[0]], y])
        ax.plot(x[: 2 * steps], y[: 2 * steps], color=NEUTRAL, lw=0.9, zorder=2,
                label=f"iteration from m = {start:g} (T = {T:g})")
    ax.plot([], [], "o", color=UNIT_ON, ms=5, label="solution, stable")
    ax.plot([], [], "o", mfc="white", mec=UNIT_ON, ms=5, label="solution, unstable")
    ax.axhline(0, color=NEUTRAL, lw=0.5, zorder=0)
    ax.axvline(0, color=NEUTRAL, lw=0.5, zorder=0)
    ax.set(xlim=(-1.05, 1.05), ylim=(-1.05, 1.05), aspect="equal")
    ax.set_xlabel("mean activity m", fontsize=FONT_SIZE)
    ax.set_ylabel("right side of m = tanh((Jm + b)/T)", fontsize=FONT_SIZE)
    ax.legend(fontsize=FONT_SIZE - 1, frameon=False, loc="upper left")
    _tidy(ax)


def _draw_pitchfork(ax, J, b, T_range, n, n_temperatures=300, n_exact=60):
    """Mean-field solutions against T (stable solid, unstable dashed) and the exact averages of n spins."""
    temps = np.linspace(*T_range, n_temperatures)
    upper, lower, middle = (np.full(n_temperatures, np.nan) for _ in range(3))
    for t, T in enumerate(temps):
        roots, stable = _uniform_fixed_points(J, b, T)
        good = roots[stable]
        if good.size >= 2:
            upper[t], lower[t] = good.max(), good.min()
        elif good.size == 1:
            if good[0] >= 0:
                upper[t] = good[0]
            if good[0] <= 0:
                lower[t] = good[0]
        if (~stable).any():
            middle[t] = roots[~stable][0]
    ax.plot(temps, upper, color=HIGHLIGHT, lw=2, label="mean field, stable")
    ax.plot(temps, lower, color=HIGHLIGHT, lw=2)
    ax.plot(temps, middle, color=HIGHLIGHT, lw=1.2, ls="--", label="mean field, unstable", zorder=3)
    W = curie_weiss_couplings(n, J)
    bias = np.full(n, float(b))
    exact_T = np.linspace(*T_range, n_exact)
    means, rms = [], []
    for T in exact_T:
        mean, second = exact_moments(W, bias, T)
        means.append(mean[0])
        rms.append(np.sqrt((1.0 + (n - 1) * second[0, 1]) / n))  # sqrt <M^2>, M = (1/n) sum_i s_i
    ax.plot(exact_T, means, color=UNIT_ON, lw=3, alpha=0.35, label=rf"exact $\langle s_i \rangle$, n = {n}",
            zorder=1)
    ax.plot(exact_T, rms, color=NEGATIVE, lw=1.4, ls="-.", label=f"exact rms of M = mean spin, n = {n}")
    if b == 0:
        ax.axvline(J, color=NEUTRAL, lw=1, ls=":")
        ax.annotate("T = J", (J, 1.0), xytext=(3, -2), textcoords="offset points", fontsize=FONT_SIZE - 1,
                    color=NEUTRAL_TEXT, va="top")
    ax.axhline(0, color=NEUTRAL, lw=0.5, zorder=0)
    ax.set(xlim=T_range, ylim=(-1.05, 1.05))
    ax.set_xlabel("temperature T", fontsize=FONT_SIZE)
    ax.set_ylabel("mean activity", fontsize=FONT_SIZE)
    ax.legend(fontsize=FONT_SIZE - 1, frameon=False, loc="lower left")
    _tidy(ax)


def plot_self_consistency(J=1.0, b=0.0, temperatures=(1.5, 0.6), n=10, T_range=(0.2, 2.0), start=0.05):
    """The mean-field equation of the fully connected ferromagnet, solved graphically, and its pitchfork.

    For ``n`` spins with every weight ``J / (n - 1)`` and every bias ``b``
    (``w_ij = J / (n - 1)``), a state in which all units have the same
    mean ``m`` solves the mean-field equations when
    ``m = tanh((J m + b) / T)``. Left: both sides of that equation against
    ``m``, one curve per temperature; the solutions are the crossings, filled
    where stable (the iteration is drawn to them, and they are maxima of the
    mean-field bound), hollow where unstable. A grey cobweb shows the
    iteration ``m <- tanh((J m + b) / T)`` at the lowest temperature, started
    at ``start``. Right: every solution against the temperature, over
    ``T_range``: for ``b = 0`` one solution ``m = 0`` above ``T = J`` and
    three below it (a pitchfork), against the exact ``<s_i>`` and the exact
    root-mean-square magnetization ``sqrt<M^2>``, ``M = (1/n) sum_i s_i``,
    of the ``n`` spins (enumeration). Explained in the chapter "The
    deterministic Boltzmann machine".

    Parameters
    ----------
    J : float
        Total coupling of one unit to the others (> 0 for a ferromagnet).
    b : float
        The bias of every unit.
    temperatures : sequence of float
        One curve each in the left panel (at most four are told apart by colour).
    n : int
        Spins in the exact comparison, 2 <= n <= 16.
    T_range : tuple of float
        Temperatures of the right panel, both > 0.
    start : float or None
        Starting mean of the cobweb; None leaves it out.

    Returns
    -------
    matplotlib.figure.Figure
        With two axes.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig = bm.plot_self_consistency(J=1.0, temperatures=(1.5, 0.5), n=4)
    >>> len(fig.axes)
    2
    >>> plt.close(fig)
    """
    J, b = check_real(J, "J"), check_real(b, "b")
    temperatures = check_temperatures(temperatures).tolist()
    n = check_integer(n, "n", minimum=2, maximum=16)
    T_range = check_temperature_range(T_range, "T_range")
    if start is not None:
        start = check_real(start, "start")
        if not -1 <= start <= 1:
            raise ValueError(f"start must lie in [-1, 1]; got {start}")
    fig = _new_figure((8.6, 3.9))
    ax_left, ax_right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.25]})
    _draw_self_consistency(ax_left, J, b, temperatures, start)
    _draw_pitchfork(ax_right, J, b, T_range, n)
    return fig


def _as_model(model, k):
    """(W, b, T, units) from a BoltzmannMachine or a tuple (W, b, T) / (W, b, T, units)."""
    if isinstance(model, BoltzmannMachine):
        return model.W, model.b, model.T, model.units
    try:
        W, b, T, *rest = model
    except (TypeError, ValueError):
        raise TypeError(f"models[{k}] must be a BoltzmannMachine or a tuple (W, b, T) or (W, b, T, units); "
                        f"got {type(model).__name__}") from None
    if len(rest) > 1:
        raise TypeError(f"models[{k}] must be a tuple (W, b, T) or (W, b, T, units); got {len(rest) + 3} items")
    try:
        W, b = check_model(W, b)
        return W, b, check_temperature(T), check_units(rest[0] if rest else "spins")
    except (TypeError, ValueError) as exc:  # say which model: "models[1]: W must be symmetric; ..."
        raise type(exc)(f"models[{k}]: {exc}") from None


def _mean_field_moments(W, b, T, units, method, linear_response, rng):
    """Mean-field (mean, naive second, linear-response second or None); warnings kept out of the picture."""
    solver = naive_mean_field if method == "naive" else tap_mean_field
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        result = solver(W, b, T, units, rng=rng)
    mean, second = result.moments()
    response = result.moments(linear_response=True)[1] if linear_response else None
    return mean, second, response


def _draw_accuracy(ax, exact, approx, response, units, title=None):
    """Exact (x) against mean field (y): rings for <s_i>, dots for m_i m_j, crosses for linear response."""
    (mean, second), (m, second_mf) = exact, approx
    i, j = np.triu_indices(len(mean), 1)
    low = LEVELS[units][0]
    ax.plot([low, 1], [low, 1], color=NEUTRAL, lw=1, zorder=1)
    ax.scatter(second[i, j], second_mf[i, j], s=12, color=UNIT_ON, zorder=3,
               label=r"pairs $\langle s_i s_j \rangle \approx m_i m_j$")
    ax.scatter(mean, m, s=30, facecolors="none", edgecolors=HIGHLIGHT, linewidths=1.3, zorder=4,
               label=r"units $\langle s_i \rangle \approx m_i$")
    gaps = f"largest error: units {np.abs(mean - m).max():.2f}, pairs {np.abs(second - second_mf)[i, j].max():.2f}"
    if response is not None:
        ax.scatter(second[i, j], response[i, j], s=18, marker="x", color=NEGATIVE, linewidths=1, zorder=2,
                   label="pairs, linear response")
        gaps += f"\n(pairs with linear response {np.abs(second - response)[i, j].max():.2f})"
    pad = 0.05 * (1 - low)
    ax.set(xlim=(low - pad, 1 + pad), ylim=(low - pad, 1 + pad), aspect="equal")
    ax.xaxis.set_major_locator(MaxNLocator(5))
    ax.yaxis.set_major_locator(MaxNLocator(5))
    ax.set_xlabel("exact average", fontsize=FONT_SIZE)
    ax.set_ylabel("mean-field estimate", fontsize=FONT_SIZE)
    ax.set_title(gaps if not title else f"{title}\n{gaps}", fontsize=FONT_SIZE - 1)
    _tidy(ax)


def plot_mean_field_accuracy(models, titles=None, linear_response=False, method="naive", rng=0):
    """Mean-field estimates of ``<s_i>`` and ``<s_i s_j>`` against the exact values, one panel per model.

    Each ring is one unit, at (exact ``<s_i>``, mean-field ``m_i``); each dot
    one pair, at (exact ``<s_i s_j>``, ``m_i m_j``), the estimate of a product
    distribution, which neglects every correlation. With
    ``linear_response=True`` crosses add the linear-response estimate of each
    pair (:meth:`~bmlib.MeanFieldResult.moments`). Points on the diagonal are
    right. The mean-field solution is the one :func:`~bmlib.naive_mean_field`
    keeps (the largest bound of several starts). Explained in the chapter
    "The deterministic Boltzmann machine".

    Parameters
    ----------
    models : BoltzmannMachine, tuple, or list of them
        Each a BoltzmannMachine (its ``W``, ``b``, ``T`` and units, all its
        units free) or a tuple ``(W, b, T)`` or ``(W, b, T, units)``; small
        enough to enumerate. A single machine or tuple is one panel.
    titles : sequence of str, optional
        One title per panel.
    linear_response : bool
        Also show the linear-response estimates of the pairs.
    method : {"naive", "tap"}
        Naive mean field (default) or TAP (:func:`~bmlib.tap_mean_field`).
    rng : None, int or numpy.random.Generator
        The random start of the solver.

    Returns
    -------
    matplotlib.figure.Figure
        With one axes per model.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, bmlib as bm
    >>> W = bm.sk_couplings(6, rng=0)
    >>> fig = bm.plot_mean_field_accuracy([(W, None, 2.0), (W, None, 0.5)], titles=["T = 2", "T = 0.5"])
    >>> len(fig.axes), len(fig.axes[0].collections[0].get_offsets())  # 15 pairs
    (2, 15)
    >>> plt.close(fig)
    """
    models = check_sequence(models, "models", "a BoltzmannMachine, a tuple (W, b, T) or a list of them",
                            allow_single=(BoltzmannMachine, tuple))
    models = [_as_model(model, k) for k, model in enumerate(models)]
    titles = check_labels(titles, len(models), "titles", "model")
    method = check_choice(method, "method", ("naive", "tap"))
    linear_response = check_bool(linear_response, "linear_response")
    as_generator(rng)  # checked here; each model's solver is seeded from rng itself, as before
    fig = _new_figure((3.3 * len(models), 3.5))
    axes = fig.subplots(1, len(models), squeeze=False)[0]
    for ax, (W, b, T, units), title in zip(axes, models, titles):
        mean, second, response = _mean_field_moments(W, b, T, units, method, linear_response, rng)
        _draw_accuracy(ax, exact_moments(W, b, T, units), (mean, second), response, units, title)
    axes[0].legend(fontsize=FONT_SIZE - 2, frameon=False, loc="upper left", handletextpad=0.2)
    return fig
