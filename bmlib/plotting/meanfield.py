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

from .._deprecation import renamed
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
from ..exact.enumeration import exact_moments
from ..models.lattices import curie_weiss_couplings
from ..learning.machine import BoltzmannMachine
from ..meanfield.theories import naive_mean_field, tap_mean_field
from .style import (
    FONT_SIZE,
    HIGHLIGHT,
    NEGATIVE,
    NEUTRAL,
    NEUTRAL_TEXT,
    UNIT_ON,
    _new_figure,
    tidy,
    series_style,
)
from .words import count, describe, number, span
#: Values closer to 0 than this are written as 0: a root or an average that is 0 by symmetry
#: comes out of the arithmetic as 1e-17 or -3e-17, which the words must not show.
_ZERO = 1e-9

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


def _curve_style(k):
    """The ``k``-th temperature's curve: a colour, and a dash of its own (the diagonal is the solid line)."""
    return series_style(k + 1, marker=False)


def _draw_self_consistency(ax, J, b, temperatures, start, steps=12):
    """The curves ``tanh((J m + b) / T)`` against the diagonal; solutions marked, a cobweb at the lowest T.

    Returns the panel's words: one sentence per temperature (its solutions),
    and one for the cobweb.
    """
    ax.plot([-1, 1], [-1, 1], color=UNIT_ON, lw=1, label="m (left side)")
    words = []
    for k, T in enumerate(temperatures):
        style = _curve_style(k)
        colour = style["color"]
        ax.plot(_GRID, np.tanh((J * _GRID + b) / T), lw=1.6, label=f"tanh((Jm + b)/T), T = {T:g}", **style)
        roots, stable = _uniform_fixed_points(J, b, T)
        words.append(_solutions_words(T, roots, stable))
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
        # A small dot at each iterate on the diagonal (every other corner): the cobweb's own mark.
        ax.plot(x[: 2 * steps], y[: 2 * steps], color=NEUTRAL, lw=0.9, zorder=2, marker=".", ms=4, markevery=2,
                label=f"iteration from m = {start:g} (T = {T:g})")
        words.append(f"The iteration m \u2190 tanh((Jm + b)/T) at T = {number(T, 3)}, started at m = "
                     f"{number(start)}, reaches {number(_clean(m[steps]))} after {count(steps, 'step')}.")
    ax.plot([], [], "o", color=UNIT_ON, ms=5, label="solution, stable")
    ax.plot([], [], "o", mfc="white", mec=UNIT_ON, ms=5, label="solution, unstable")
    ax.axhline(0, color=NEUTRAL, lw=0.5, zorder=0)
    ax.axvline(0, color=NEUTRAL, lw=0.5, zorder=0)
    ax.set(xlim=(-1.05, 1.05), ylim=(-1.05, 1.05), aspect="equal")
    ax.set_xlabel("mean activity m", fontsize=FONT_SIZE)
    ax.set_ylabel("right side of m = tanh((Jm + b)/T)", fontsize=FONT_SIZE)
    ax.legend(fontsize=FONT_SIZE - 1, frameon=False, loc="upper left")
    tidy(ax)
    return words


def _clean(values):
    """``values`` with those within ``_ZERO`` of 0 set to 0, for the words."""
    values = np.asarray(values, dtype=float)
    return np.where(np.abs(values) < _ZERO, 0.0, values)


def _solutions_words(T, roots, stable):
    """``"at T = 0.6, m = −0.91, 0 (unstable) and 0.91"``, from the marked crossings."""
    named = [number(r) + ("" if ok else " (unstable)") for r, ok in zip(_clean(roots), stable)]
    if not named:
        return f"at T = {number(T, 3)} no solution"
    listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    return f"at T = {number(T, 3)}, m = {listed}"


def _draw_pitchfork(ax, J, b, T_range, n, n_temperatures=300, n_exact=60):
    """Mean-field solutions against T (stable solid, unstable dashed) and the exact averages of n spins.

    Returns the panel's words, a list of sentences.
    """
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
        rms.append(np.sqrt((1.0 + (n - 1) * second[0, 1]) / n))  # sqrt <m^2>, m = (1/n) sum_i s_i
    # A broad grey band under the mean-field lines, with squares: not only its colour tells it apart.
    ax.plot(exact_T, means, color=NEUTRAL, lw=3, marker="s", ms=4, markevery=6,
            label=rf"exact $\langle s_i \rangle$, n = {n}", zorder=1)
    ax.plot(exact_T, rms, color=NEGATIVE, lw=1.4, ls="-.", label=f"exact rms of m = mean spin, n = {n}")
    if b == 0:
        ax.axvline(J, color=NEUTRAL, lw=1, ls=":")
        ax.annotate("T = J", (J, 1.0), xytext=(3, -2), textcoords="offset points", fontsize=FONT_SIZE - 1,
                    color=NEUTRAL_TEXT, va="top")
    ax.axhline(0, color=NEUTRAL, lw=0.5, zorder=0)
    ax.set(xlim=T_range, ylim=(-1.05, 1.05))
    ax.set_xlabel("temperature T", fontsize=FONT_SIZE)
    ax.set_ylabel("mean activity", fontsize=FONT_SIZE)
    ax.legend(fontsize=FONT_SIZE - 1, frameon=False, loc="lower left")
    tidy(ax)
    return _pitchfork_words(J, b, temps, upper, lower, middle, exact_T, np.array(means), np.array(rms), n)


def _pitchfork_words(J, b, temps, upper, lower, middle, exact_T, means, rms, n):
    cold, hot = 0, len(temps) - 1
    upper, lower, means = _clean(upper), _clean(lower), _clean(means)
    stable_cold = sorted({number(v) for v in (lower[cold], upper[cold]) if np.isfinite(v)},
                         key=lambda t: float(t.replace("\u2212", "-")))
    stable_hot = sorted({number(v) for v in (lower[hot], upper[hot]) if np.isfinite(v)},
                        key=lambda t: float(t.replace("\u2212", "-")))
    words = []
    if b == 0:
        words.append(f"With b = 0 the solutions form a pitchfork at T = J: above it only m = 0, below it two "
                     f"stable solutions \u00b1m and m = 0 unstable.")
    words.append(f"Mean-field stable solutions: m = {' and '.join(stable_cold)} at the lowest T = "
                 f"{number(temps[cold], 3)}, m = {' and '.join(stable_hot)} at the highest T = {number(temps[hot], 3)}.")
    spread = span(means)
    spread = f"is {spread[4:]} at every T" if spread.startswith("all ") else f"runs {spread}"
    words.append(f"Exact, for {n} spins: the average \u27e8s_i\u27e9 {spread}; the rms of the mean spin "
                 f"m = (1/n) sum_i s_i "
                 f"is {number(rms[0])} at T = {number(exact_T[0], 3)} and {number(rms[-1])} at "
                 f"T = {number(exact_T[-1], 3)}.")
    return words


@renamed(start="initial")
def plot_self_consistency(J=1.0, b=0.0, temperatures=(1.5, 0.6), n=10, T_range=(0.2, 2.0), initial=0.05):
    """The mean-field equation of the fully connected ferromagnet, solved graphically, and its pitchfork.

    For ``n`` spins with every weight ``J / (n - 1)`` and every bias ``b``
    (``w_ij = J / (n - 1)``), a state in which all units have the same
    mean ``m`` solves the mean-field equations when
    ``m = tanh((J m + b) / T)``. Left: both sides of that equation against
    ``m``, one curve per temperature; the solutions are the crossings, filled
    where stable (the iteration is drawn to them, and they are maxima of the
    mean-field bound), hollow where unstable. A grey cobweb shows the
    iteration ``m <- tanh((J m + b) / T)`` at the lowest temperature, started
    at ``initial``. Right: every solution against the temperature, over
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
        One curve each in the left panel, each with its own colour and dash (five styles, then they repeat).
    n : int
        Spins in the exact comparison, 2 <= n <= 16.
    T_range : tuple of float
        Temperatures of the right panel, both > 0.
    initial : float or None
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
    if initial is not None:
        initial = check_real(initial, "initial")
        if not -1 <= initial <= 1:
            raise ValueError(f"initial must lie in [-1, 1]; got {initial}")
    fig = _new_figure((8.6, 3.9))
    ax_left, ax_right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.25]})
    left = _draw_self_consistency(ax_left, J, b, temperatures, initial)
    right = _draw_pitchfork(ax_right, J, b, T_range, n)
    fork = f", a pitchfork at T = J = {number(J, 3)}," if b == 0 else ""
    # Up to two temperatures the summary has every one's solutions; beyond, the warmest and the coldest.
    each, cobweb = left[:len(temperatures)], left[len(temperatures):]
    shown = sorted({int(np.argmax(temperatures)), int(np.argmin(temperatures))}) if len(each) > 2 else range(len(each))
    rest = [f"The solutions {'; '.join(each)}."] if len(each) > 2 else []
    which = "" if len(each) <= 2 else f", at the warmest and coldest of {len(each)} temperatures,"
    describe(fig, [
        f"Left: both sides of m = tanh((Jm + b)/T) against m for the fully connected ferromagnet, "
        f"J = {number(J, 3)}, b = {number(b, 3)}; the solutions (crossings with the diagonal) are"
        f"{which} {'; '.join(each[k] for k in shown)}.",
        f"Right: the solutions against T from {number(T_range[0], 3)} to {number(T_range[1], 3)}{fork} and the "
        f"exact averages of {n} spins.",
    ], [*rest, *cobweb, *right])
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
    """Exact (x) against mean field (y): rings for <s_i>, dots for m_i m_j, crosses for linear response.

    Returns the largest errors drawn in the title: units, pairs, and pairs
    with linear response (None without it).
    """
    (mean, second), (m, second_mf) = exact, approx
    i, j = np.triu_indices(len(mean), 1)
    errors = [np.abs(mean - m).max(), np.abs(second - second_mf)[i, j].max(initial=0.0), None]
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
        errors[2] = np.abs(second - response)[i, j].max(initial=0.0)
    pad = 0.05 * (1 - low)
    ax.set(xlim=(low - pad, 1 + pad), ylim=(low - pad, 1 + pad), aspect="equal")
    ax.xaxis.set_major_locator(MaxNLocator(5))
    ax.yaxis.set_major_locator(MaxNLocator(5))
    ax.set_xlabel("exact average", fontsize=FONT_SIZE)
    ax.set_ylabel("mean-field estimate", fontsize=FONT_SIZE)
    ax.set_title(gaps if not title else f"{title}\n{gaps}", fontsize=FONT_SIZE - 1)
    tidy(ax)
    return errors


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
    errors = []
    for ax, (W, b, T, units), title in zip(axes, models, titles):
        mean, second, response = _mean_field_moments(W, b, T, units, method, linear_response, rng)
        errors.append(_draw_accuracy(ax, exact_moments(W, b, T, units), (mean, second), response, units, title))
    axes[0].legend(fontsize=FONT_SIZE - 2, frameon=False, loc="upper left", handletextpad=0.2)
    _describe_accuracy(fig, models, titles, errors, method, linear_response)
    return fig


def _describe_accuracy(fig, models, titles, errors, method, linear_response):
    # Errors as the panel titles write them, to two decimals: a solver's residual (1e-9) reads 0.
    def error(value):
        return number(round(float(value), 2))

    def listed(values):
        return ", ".join(error(v) for v in values)

    solver = "naive mean-field" if method == "naive" else "TAP"
    if len(models) == 1:
        (W, _, T, units), = models
        what = f"of {count(W.shape[0], 'unit')} ({units}) at T = {number(T, 3)}"
    else:
        names = [title or f"T = {number(T, 3)}" for title, (_, _, T, _) in zip(titles, models)]
        what = f"in {count(len(models), 'panel')} ({(' and ' if len(models) == 2 else ', ').join(names)})"
    summary = [
        f"The {solver} estimates against the exact averages {what}: rings for the units, "
        f"\u27e8s_i\u27e9 against m_i, dots for the pairs, \u27e8s_i s_j\u27e9 against m_i m_j"
        + (", crosses for the linear-response pairs" if linear_response else "") + "; points on the diagonal are right.",
        f"Largest error{', panel by panel,' if len(models) > 1 else ''} on the units {listed(e[0] for e in errors)}, on the pairs {listed(e[1] for e in errors)}"
        + (f", with linear response {listed(e[2] for e in errors)}" if linear_response else "") + ".",
    ]
    details = []
    if len(models) > 1:
        for k, (title, (W, _, T, units)) in enumerate(zip(titles, models)):
            name = " ".join(title.split()) if title else f"Panel {k + 1}"
            details.append(f"{name}: {count(W.shape[0], 'unit')} ({units}) at T = {number(T, 3)}.")
    describe(fig, summary, details)
