"""Figures of the chapter "Hidden units": learning curves, hidden mixtures, encoder codes.

The estimated statistics (sampled against exact) are in ``statistics.py``.
"""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from .._checks import (
    check_finite_data,
    check_instance,
    check_labels,
    check_sequence,
    check_states,
)
from ..models.datasets import encoder_patterns
from ..exact.enumeration import boltzmann_distribution
from ..exact.clamped import clamped_moments
from ..learning.encoder import encoder_report
from ..learning.machine import BoltzmannMachine
from ..learning.training import TrainingHistory
from ..models.states import all_states
from .style import (
    FONT_SIZE,
    HIGHLIGHT,
    NEGATIVE,
    NEUTRAL,
    POSITIVE,
    PROBABILITY_CMAP,
    UNIT_ON,
    _new_figure,
    state_labels,
    tidy,
)
from .words import count, describe, number, ranked, share, span
from .learning import _curve_style

#: Dash patterns of the reference levels in plot_log_likelihood_curves (the runs carry markers, the levels none).
_LEVEL_STYLES = ((0, (5, 2)), (0, (1.5, 1.5)), (0, (6, 2, 1.5, 2)))
#: Fill colours of the hidden states in a mixture, one per hidden state.
_MIXTURE_COLOURS = (HIGHLIGHT, NEGATIVE, POSITIVE, NEUTRAL)
#: Hatching of the hidden states in a mixture, so that the stacks differ by more than their colour.
_MIXTURE_HATCHES = ("", "////", "....", "xxx")
#: Most hidden units whose states plot_hidden_mixture stacks (2**2 = 4 colours).
MAX_MIXTURE_HIDDEN = 2


def _joined(run, name):
    """A TrainingHistory, or a list of them trained one after the other, as one (epochs, values, monitor)."""
    what = "a TrainingHistory with recorded values (monitor not None), or a list of them trained one after the other"
    parts = check_sequence(run, name, what, allow_single=TrainingHistory)
    for k, h in enumerate(parts):
        check_instance(h, f"{name}[{k}]" if len(parts) > 1 or run is not h else name, TrainingHistory, what)
        if not len(h.values):
            raise TypeError(f"{name} must be {what}; it has no recorded values")
        check_finite_data(h.values, f"{name} values")
    values = np.concatenate([parts[0].values] + [h.values[1:] for h in parts[1:]])
    return np.arange(len(values)), values, parts[0].monitor


def _draw_curves(ax, runs, levels):
    monitor = None
    joined = {}
    for k, (label, run) in enumerate(runs.items()):
        epochs, values, monitor = joined[label] = _joined(run, f"runs[{label!r}]")
        ax.plot(epochs, values, lw=1.4, label=label, **_curve_style(k, len(epochs), len(runs)))
    for k, (label, value) in enumerate(levels.items()):  # in the legend: labels beside lines collide
        ax.axhline(value, ls=_LEVEL_STYLES[k % len(_LEVEL_STYLES)], lw=1, color="#707070", zorder=0, label=label)
    name = monitor.replace("_", "-") if monitor else "value"
    _describe_curves(ax.figure, joined, levels, name)
    ax.set_xlabel("epoch", fontsize=FONT_SIZE)
    ax.set_ylabel(f"{name}\n(nats per pattern)", fontsize=FONT_SIZE)
    ax.yaxis.set_major_locator(MaxNLocator(6, steps=[1, 2, 5, 10]))
    tidy(ax)


def _describe_curves(fig, joined, levels, name):
    """Words for the learning curves: each run's last value, and how far it ends from each reference level."""
    epochs = np.concatenate([e for e, _, _ in joined.values()])
    ends = ", ".join(f"{label} at {number(values[-1])}" for label, (_, values, _) in joined.items())
    summary = [f"The {name} (nats per pattern) against epoch, {span(epochs, 3)}, for "
               f"{count(len(joined), 'training run')}; {'it ends' if len(joined) == 1 else 'they end'} at: {ends}."]
    if levels:
        summary.append("Reference levels (horizontal lines): " +
                       "; ".join(f"{label}, {number(value)}" for label, value in levels.items()) + ".")
    details = []
    for label, (e, values, _) in joined.items():
        change = values[-1] - values[0]
        sentence = (f"{label[:1].upper() + label[1:]}: {number(values[0])} at epoch {e[0]}, {number(values[-1])} "
                    f"at epoch {e[-1]} (a change of {'+' if change > 0 else ''}{number(change)}), "
                    f"values {span(values)}")
        if levels:
            top_label, top = max(levels.items(), key=lambda item: item[1])
            gap = values[-1] - top
            where = "above" if gap > 0 else "below"
            sentence += f"; at the end {number(abs(gap))} {where} the highest level ({top_label})"
        details.append(sentence + ".")
    describe(fig, summary, details)


def plot_log_likelihood_curves(runs, levels=None, ylim=None):
    """Learning curves of several training runs, with horizontal reference levels.

    Explained in the chapter "Hidden units": a machine without hidden units
    against one with hidden units on parity, and CD-1 against persistent CD
    and the exact gradient on bars and stripes, each with the best
    log-likelihood any model can reach.

    Parameters
    ----------
    runs : dict
        Label -> :class:`~bmlib.TrainingHistory`, or label -> list of
        histories trained one after the other on the same model (for
        instance with a learning rate lowered in stages), drawn as one curve.
    levels : dict, optional
        Label -> value: dashed horizontal lines (each with its own dash pattern, named in the legend).
    ylim : tuple (low, high), optional
        Limits of the vertical axis.

    Returns
    -------
    matplotlib.figure.Figure
        With one axes: one line per run, then one per level.

    Examples
    --------
    >>> import numpy as np
    >>> import matplotlib.pyplot as plt, bmlib as bm
    >>> data = bm.parity_patterns(3, units="spins")
    >>> history = bm.train(bm.BoltzmannMachine(3, 1, rng=0), data, epochs=5)
    >>> fig = bm.plot_log_likelihood_curves({"one hidden unit": history}, levels={"-log 4": -np.log(4)})
    >>> len(fig.axes[0].lines)
    2
    >>> plt.close(fig)
    """
    if not isinstance(runs, dict) or not runs:
        raise TypeError("runs must be a non-empty dict: label -> TrainingHistory (or a list of them); "
                        f"got {runs!r:.60}")
    for label, run in runs.items():
        _joined(run, f"runs[{label!r}]")
    levels = {} if levels is None else levels
    if not isinstance(levels, dict):
        raise TypeError(f"levels must be a dict: label -> value; got {levels!r:.60} of type {type(levels).__name__}")
    levels = {label: float(check_finite_data(value, f"levels[{label!r}]")) if np.ndim(value) == 0 else
              _refuse_level(label, value) for label, value in levels.items()}
    if ylim is not None:
        ylim = check_finite_data(ylim, "ylim")
        if ylim.shape != (2,) or not ylim[0] < ylim[1]:
            raise ValueError(f"ylim must be a pair (low, high) with low < high; got {ylim.tolist()}")
    fig = _new_figure((6.0, 3.0))
    ax = fig.add_subplot()
    _draw_curves(ax, runs, levels)
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.legend(fontsize=FONT_SIZE - 1, frameon=False, loc="best")
    return fig


def _refuse_level(label, value):
    raise ValueError(f"levels[{label!r}] must be one number (a horizontal line); got shape {np.shape(value)}")


def _check_machine(machine, name="machine"):
    if not isinstance(machine, BoltzmannMachine):
        raise TypeError(f"{name} must be a bmlib BoltzmannMachine; got {type(machine).__name__}")
    return machine


def _check_encoder_layout(machine, name):
    """Refuse a machine that is not laid out as an encoder (two visible groups, then hidden units)."""
    _check_machine(machine, name)
    if machine.n_visible % 2 or machine.n_visible < 4 or machine.n_hidden < 1:
        raise ValueError(
            f"{name} must be laid out as an encoder (see encoder_mask): an even number n_visible = 2 n_group "
            f">= 4 of visible units in two groups, and at least one hidden unit; got n_visible = "
            f"{machine.n_visible}, n_hidden = {machine.n_hidden}"
        )
    return machine


def _hidden_name(h, units):
    """'h = +1' for one hidden unit, 'h = (+1, -1)' for several (bits: 'h = 0', 'h = (0, 1)')."""
    values = [f"{int(v):+d}" if units == "spins" else str(int(v)) for v in h]
    return "h = " + (values[0] if len(values) == 1 else "(" + ", ".join(values) + ")")


def _draw_mixture(ax, machine, data):
    n_v, n_h, units = machine.n_visible, machine.n_hidden, machine.units
    joint = boltzmann_distribution(machine.W, machine.b, machine.T, units).reshape(2**n_v, 2**n_h)
    V, H = all_states(n_v, units), all_states(n_h, units)
    x, bottom = np.arange(2**n_v), np.zeros(2**n_v)
    for k, h in enumerate(H):
        # Each hidden state has its own colour and hatching (white lines over the fill).
        ax.bar(x, joint[:, k], bottom=bottom, width=0.7, color=_MIXTURE_COLOURS[k], edgecolor="white", lw=0.5,
               hatch=_MIXTURE_HATCHES[k], label=f"{_hidden_name(h, units)}: p(h) = {joint[:, k].sum():.2f}")
        bottom += joint[:, k]
    q = None
    if data is not None:
        rows = np.asarray(data)
        codes = (rows == 1) @ (2 ** np.arange(n_v - 1, -1, -1))  # row index in all_states order
        q = np.bincount(codes, minlength=2**n_v) / len(rows)
        ax.scatter(x, q, marker="_", s=260, color=UNIT_ON, lw=1.6, zorder=4, label="data frequency q(v)")
    _describe_mixture(ax.figure, joint, V, H, q, units)
    ax.set_xticks(x, state_labels(V, units) if n_v <= 6 else [""] * len(x), family="monospace",
                  fontsize=FONT_SIZE - 1)
    ax.set_xlabel("visible state v (all_states order)", fontsize=FONT_SIZE)
    ax.set_ylabel("p(v) = sum over h of p(v, h)", fontsize=FONT_SIZE)
    ax.set_ylim(0, max(bottom.max(), 1e-12) * 1.25)
    ax.yaxis.set_major_locator(MaxNLocator(4))
    tidy(ax)


def _describe_mixture(fig, joint, V, H, q, units):
    n_v, n_h = V.shape[1], H.shape[1]
    p_v, p_h = joint.sum(axis=1), joint.sum(axis=0)
    names = state_labels(V, units) if n_v <= 6 else [f"state {k}" for k in range(len(V))]
    weights = ", ".join(f"{_hidden_name(h, units)} with p(h) = {number(w)}" for h, w in zip(H, p_h))
    summary = [f"Stacked bars of p(v) for the {2**n_v} visible states of a machine with {count(n_v, 'visible unit')} "
               f"and {count(n_h, 'hidden unit')}, each bar split by the hidden state (one colour and hatching "
               f"each): {weights}."]
    if q is not None:
        seen = q > 0
        summary.append(f"The {count(int(seen.sum()), 'visible state')} in the data (their frequency q(v) marked "
                       f"by a dash) hold {share(p_v[seen].sum())} of the model's probability.")
    top = ranked(p_v)[:4]
    listed = ", ".join(f"{names[i]} (p = {number(p_v[i])}" + (f", q = {number(q[i])})" if q is not None else ")")
                       for i in top)
    details = [f"The most probable visible states: {listed}; p(v) runs {span(p_v)}."]
    for k, h in enumerate(H):
        best = ranked(joint[:, k])[:3]
        details.append(f"Within {_hidden_name(h, units)}, the largest parts are " +
                       ", ".join(f"{names[i]} ({number(joint[i, k])})" for i in best) + ".")
    describe(fig, summary, details)


def plot_hidden_mixture(machine, data=None):
    """The distribution of the visible units, split by the state of the hidden units.

    Each bar is ``p(v)`` of one visible state ``v``, stacked from the joint
    probabilities ``p(v, h)`` of every hidden state ``h``: the machine's
    distribution is a mixture of one distribution per hidden state, with
    weights ``p(h)`` (in the legend). Exact, by enumeration. Explained in the
    chapter "Hidden units".

    Parameters
    ----------
    machine : BoltzmannMachine
        With 1 or 2 hidden units and at most 8 visible units.
    data : array_like of shape (P, n_visible), optional
        Training patterns: their frequencies ``q(v)`` are marked on the bars.

    Returns
    -------
    matplotlib.figure.Figure
        With one axes; one bar collection per hidden state.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, bmlib as bm
    >>> machine = bm.BoltzmannMachine(3, 1, rng=0)
    >>> fig = bm.plot_hidden_mixture(machine, bm.parity_patterns(3, units="spins"))
    >>> len(fig.axes[0].containers)  # one stack per hidden state
    2
    >>> plt.close(fig)
    """
    machine = _check_machine(machine)
    if not 1 <= machine.n_hidden <= MAX_MIXTURE_HIDDEN or machine.n_visible > 8:
        raise ValueError(f"plot_hidden_mixture draws machines with 1 to {MAX_MIXTURE_HIDDEN} hidden units and at "
                         f"most 8 visible units; got n_hidden = {machine.n_hidden}, n_visible = {machine.n_visible}")
    if data is not None:
        data = check_states(data, machine.n_visible, machine.units, "data")
        if data.ndim > 2:
            raise ValueError(f"data must have shape (P, {machine.n_visible}), one pattern per row; "
                             f"got shape {data.shape}")
        data = np.atleast_2d(data)
    fig = _new_figure((5.6, 3.0))
    ax = fig.add_subplot()
    _draw_mixture(ax, machine, data)
    ax.legend(fontsize=FONT_SIZE - 1, frameon=False, loc="upper left", ncol=2)
    return fig


def _encoder_table(machine):
    """Rows = patterns; p(on) of V1 (clamped), the hidden units and V2, with V1 clamped to each pattern."""
    g = machine.n_visible // 2
    patterns = encoder_patterns(g, machine.units).astype(float)
    mean, _ = clamped_moments(machine.W, machine.b, machine.T, machine.units, clamped=np.arange(g),
                              values=patterns[:, :g], average=False)
    p_on = mean if machine.units == "bits" else 0.5 * (1.0 + mean)
    return p_on[:, :g], p_on[:, 2 * g:], p_on[:, g: 2 * g]


def _draw_encoder(ax, machine, title):
    v1, hidden, v2 = _encoder_table(machine)
    g, m = v1.shape[1], hidden.shape[1]
    table = np.full((g, 2 * g + m + 2), np.nan)
    blocks = (slice(0, g), slice(g + 1, g + 1 + m), slice(g + m + 2, 2 * g + m + 2))
    for block, values in zip(blocks, (v1, hidden, v2)):
        table[:, block] = values
    ax.imshow(np.ma.masked_invalid(table), cmap=PROBABILITY_CMAP, vmin=0, vmax=1, interpolation="nearest")
    for r in range(g):
        for block, values in zip(blocks[1:], (hidden, v2)):
            for c, p in zip(range(block.start, block.stop), values[r]):
                ax.text(c, r, f"{p:.2f}"[1:] if p < 0.995 else "1", ha="center", va="center",
                        fontsize=FONT_SIZE - 2, color="white" if p > 0.55 else UNIT_ON)
    for block, name in zip(blocks, ("V1\nclamped", "hidden\np(on | V1)", "V2\np(on | V1)")):
        ax.text((block.start + block.stop - 1) / 2, -0.7, name, ha="center", va="bottom", fontsize=FONT_SIZE - 1)
        for c in range(block.start, block.stop + 1):
            ax.plot([c - 0.5, c - 0.5], [-0.5, g - 0.5], color=NEUTRAL, lw=0.5)
        for r in range(g + 1):
            ax.plot([block.start - 0.5, block.stop - 0.5], [r - 0.5, r - 0.5], color=NEUTRAL, lw=0.5)
    report = encoder_report(machine)
    codes = state_labels(report.codes, machine.units)
    ax.set_yticks(np.arange(g), [f"pattern {k}  code {code}" for k, code in enumerate(codes)],
                  fontsize=FONT_SIZE - 1, family="monospace")
    ax.set_xticks([])
    ax.tick_params(length=0)
    verdict = ("distinct codes" if report.distinct else "codes NOT distinct") + \
              (", every completion right" if report.completed.all() else
               f", {int(report.completed.sum())} of {report.completed.size} completions right")
    ax.set_title(f"{title}\n{verdict}" if title else verdict, fontsize=FONT_SIZE, pad=26)
    ax.set(xlim=(-0.55, table.shape[1] - 0.45), ylim=(g - 0.45, -0.55))
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    return verdict, _encoder_words(v2, hidden, codes)


def _encoder_words(v2, hidden, codes):
    """One sentence on an encoder panel: the codes, and how sure V2's right unit is of being on."""
    g = len(v2)
    right = np.diag(v2)
    wrong = v2[~np.eye(g, dtype=bool)]
    return (f"codes {', '.join(codes)} for patterns 0 to {g - 1}; hidden p(on) {span(hidden)}; the V2 unit that "
            f"should be on has p(on) {span(right)}, the other V2 units {span(wrong)}")


def plot_encoder_codes(machines, titles=None):
    """What a machine does with the encoder patterns: V1 clamped, the hidden code, the completion of V2.

    One panel per machine, one row per pattern ``k``: the first visible
    group V1 clamped to pattern ``k`` (left), the probability that each
    hidden unit is on given V1 (middle), and the probability that each unit
    of the second group V2 is on (right); exact, by enumeration. A solved
    encoder has a different hidden code for every pattern and turns on unit
    ``k`` of V2. The row labels give the most probable hidden state with the
    whole pattern clamped and the title the verdict of
    :func:`~bmlib.encoder_report`. Explained in the chapter "Hidden units".

    Parameters
    ----------
    machines : BoltzmannMachine or sequence of BoltzmannMachine
        Machines laid out as :func:`~bmlib.encoder_mask` (two visible groups,
        then the hidden units), spins or bits.
    titles : sequence of str, optional
        One title per panel.

    Returns
    -------
    matplotlib.figure.Figure
        With one axes per machine.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, bmlib as bm
    >>> machine = bm.BoltzmannMachine(8, 2, mask=bm.encoder_mask(4, 2), units="bits", rng=0)
    >>> fig = bm.plot_encoder_codes(machine)
    >>> len(fig.axes), fig.axes[0].images[0].get_array().shape  # 4 patterns; 4 + 2 + 4 cells and 2 gaps
    (1, (4, 12))
    >>> plt.close(fig)
    """
    machines = check_sequence(machines, "machines", "a BoltzmannMachine or a non-empty sequence of them",
                              allow_single=BoltzmannMachine)
    for k, machine in enumerate(machines):
        _check_encoder_layout(machine, f"machines[{k}]")
    titles = check_labels(titles, len(machines), "titles", "machine")
    fig = _new_figure((4.3 * len(machines), 2.2))
    axes = fig.subplots(1, len(machines), squeeze=False)[0]
    verdicts, details = [], []
    for k, (ax, machine, title) in enumerate(zip(axes, machines, titles)):
        verdict, words = _draw_encoder(ax, machine, title)
        name = " ".join(title.split()) if title else (f"machine {k + 1}" if len(machines) > 1 else "the machine")
        verdicts.append(f"{name} ({verdict})")
        details.append(f"{name[:1].upper() + name[1:]} \u2014 {words}.")
    g = machines[0].n_visible // 2
    describe(fig, [
        f"Encoder tables of {count(len(machines), 'machine')}, one row for each of the {g} patterns: the first "
        f"visible group V1 clamped to it, then p(on) of each hidden unit and of each unit of the second group V2 "
        f"given V1, as grey levels with the numbers written.",
        "; ".join(verdicts) + ".",
    ], details)
    return fig
