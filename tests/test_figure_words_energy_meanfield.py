"""The figures of the chapters "Energy" and "The deterministic Boltzmann machine" in words, and their second cues.

Each figure must carry a description written from its data (not the fallback
made from its labels), with the data's numbers; each widget's words must
follow its sliders; and what colour marks must also be marked otherwise
(a hatch, a marker, a dash).
"""
import re

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import PolyCollection

import bmlib as bm
from bmlib.plotting.fit import contrast_on_white
from bmlib.plotting.words import FALLBACK_OPENING, number
from conftest import described

# The chapter's model: two teams {0, 1} and {2, 3} that prefer to disagree.
W4 = np.array([[0, 1, -1, -0.5], [1, 0, -0.5, -1], [-1, -0.5, 0, 1], [-0.5, -1, 1, 0]])
B4 = np.array([0.5, 0, 0, -0.5])



def words(fig):
    return described(fig).text


def no_float_noise(text):
    """No number written as 1e-17 or 2.1e-09: those come from the last bits of a float."""
    assert not re.search(r"\de-\d", text), text


# --- energy ---------------------------------------------------------------------------


def test_plot_network_says_how_many_weights_of_each_sign_and_which_units_are_on():
    W = W4.copy()
    W[0, 1] = W[1, 0] = 2.0  # one strongest weight
    s = np.array([1, -1, -1, 1])
    text = words(bm.plot_network(W, B4, s=s))
    upper = W[np.triu_indices(4, 1)]
    assert f"{(upper > 0).sum()} positive" in text and f"{(upper < 0).sum()} negative" in text
    assert f"{np.count_nonzero(upper)} nonzero weights" in text
    assert f"The strongest is w_01 = {number(2.0)}" in text
    assert f"b_3 = {number(-0.5)}" in text
    assert "units 0, 3 on" in text


def test_plot_network_names_every_weight_as_strong_as_the_strongest():
    text = words(bm.plot_network(W4, B4))
    strongest = text.split("The strongest: ")[1].split(".")[0]
    assert strongest == f"w_01 = 1, w_02 = {number(-1)}, w_13 = {number(-1)}, w_23 = 1"


def test_plot_network_among_other_panels_is_left_to_the_caller():
    fig, (ax0, ax1) = plt.subplots(1, 2)
    bm.plot_network(W4, ax=ax1)
    assert getattr(fig, "description", None) is None


def test_plot_energy_landscape_hatches_exactly_the_stable_states():
    fig = bm.plot_energy_landscape(W4, B4, T=1.0)
    S = bm.all_states(4)
    stable = np.flatnonzero(bm.is_stable(S, W4, B4))
    for ax in fig.axes[:2]:
        bars, hatched = [c for c in ax.collections if isinstance(c, PolyCollection)]
        assert not bars.get_hatch() and hatched.get_hatch()
        centres = [np.ptp(path.vertices[:, 0]) / 2 + path.vertices[:, 0].min() for path in hatched.get_paths()]
        np.testing.assert_allclose(centres, stable)
    (key,) = [t for t in fig.axes[0].texts if "stable state" in t.get_text()]
    assert "hatched" in key.get_text()


def test_plot_energy_landscape_words_give_the_stable_states_probability():
    text = words(bm.plot_energy_landscape(W4, B4, T=1.0))
    S = bm.all_states(4)
    E = bm.energy(S, W4, B4)
    p = np.exp(-E) / np.exp(-E).sum()  # enumeration, at T = 1
    held = p[bm.is_stable(S, W4, B4)].sum()
    assert f"hold {number(held)} of the probability" in text
    assert f"++-- (E = {number(E.min())}, p = {number(p.max())})" in text


def test_plot_descent_tells_the_walk_and_marks_its_end_by_shape():
    path = bm.energy_descent([1, 1, 1, 1], W4, B4)
    fig = bm.plot_descent(path, W4, B4)
    text = words(fig)
    start, end = bm.energy([1, 1, 1, 1], W4, B4), bm.energy(path.final_state, W4, B4)
    assert f"falls from {number(start)} to {number(end)} in {len(path.flipped)} flips" in text
    assert f"from ++++ to {bm.state_labels(path.final_state)}, a stable state" in text
    ground = bm.energy(bm.all_states(4), W4, B4).min()
    assert f"is {number(ground)}: the walk stopped above it" in text
    walk, last = fig.axes[0].lines[:2]
    assert walk.get_marker() != last.get_marker()
    # From the ground state itself: no flip, and the walk is at the lowest energy.
    text = words(bm.plot_descent(bm.energy_descent([1, 1, -1, -1], W4, B4), W4, B4))
    assert "makes no flip" in text and "the walk reached it" in text


def test_plot_hebbian_recall_words_are_the_curve():
    curve = bm.hebbian_recall(n=20, loads=[0.05, 0.2, 0.4], n_runs=2, rng=0)
    fig = bm.plot_hebbian_recall(curve)
    text = words(fig)
    assert f"overlap goes from {number(curve.overlap[0])} to {number(curve.overlap[-1])}" in text
    assert f"kept from {number(curve.retrieved[0])} to {number(curve.retrieved[-1])}" in text
    overlap, kept = fig.axes[0].lines[:2]
    assert overlap.get_linestyle() != kept.get_linestyle() and overlap.get_marker() != kept.get_marker()


def test_energy_widget_words_follow_its_sliders():
    widget = bm.energy_widget(W4, B4, T=1.0)
    controls = [widget.pair, widget.weight, widget.unit, widget.bias, widget.temperature, widget.reset_button]
    assert all(control.description for control in controls)
    first = widget.figure_description
    assert not first.summary.startswith(FALLBACK_OPENING)
    assert "T = 1 " in first.summary and "On the left, a network of 4 units" in first.details

    widget.temperature.value = 3.0
    S = bm.all_states(4)
    E = bm.energy(S, W4, B4)
    p = np.exp(-E / 3.0) / np.exp(-E / 3.0).sum()
    summary = widget.figure_description.summary
    assert "T = 3 " in summary and f"hold {number(p[bm.is_stable(S, W4, B4)].sum())}" in summary

    widget.weight.value = -1.5  # the pair (0, 1)
    details = widget.figure_description.details
    assert f"w_01 = {number(-1.5)}" in details and "1 positive" in details


# --- mean field -----------------------------------------------------------------------


def solve(J, b, T, start, steps=5000):
    """m = tanh((J m + b) / T) by iteration from start: a stable solution."""
    m = start
    for _ in range(steps):
        m = np.tanh((J * m + b) / T)
    return m


def test_plot_self_consistency_words_give_the_solutions():
    fig = bm.plot_self_consistency(J=1.0, b=0.0, temperatures=(1.5, 0.6), n=6)
    text = words(fig)
    m = solve(1.0, 0.0, 0.6, 0.9)
    assert f"at T = 0.6, m = {number(-m)}, 0 (unstable) and {number(m)}" in text
    assert "at T = 1.5, m = 0;" in text and "pitchfork at T = J = 1" in text
    no_float_noise(text)  # the roots m = 0 and the exact averages 0 are written 0
    # The exact rms magnetization at the lowest temperature of the right panel, by enumeration.
    _, second = bm.exact_moments(bm.curie_weiss_couplings(6, 1.0), T=0.2)
    assert f"sum_i s_i is {number(np.sqrt((1 + 5 * second[0, 1]) / 6))} at T = 0.2" in text


def test_plot_self_consistency_curves_differ_by_more_than_colour():
    fig = bm.plot_self_consistency(J=1.0, b=0.1, temperatures=(1.5, 0.8, 0.5), n=4)
    left, right = fig.axes
    lines = [line for line in left.lines  # the diagonal, the curves, the cobweb
             if str(line.get_label()).startswith(("m (left side)", "tanh", "iteration"))]
    styles = [(line.get_linestyle(), line.get_marker()) for line in lines]
    assert len(set(styles)) == len(styles) == 5, styles
    exact = [line for line in right.lines if "exact" in str(line.get_label())]
    mean_field = [line for line in right.lines if str(line.get_label()).startswith("mean field")]
    assert all(line.get_marker() != "None" for line in exact if line.get_linestyle() == "-")
    for line in [*lines, *exact, *mean_field]:
        assert contrast_on_white(line.get_color()) >= 3, (line.get_label(), line.get_color())
        assert line.get_alpha() in (None, 1)
    text = words(fig)
    assert f"at T = 1.5, m = {number(solve(1.0, 0.1, 1.5, 0.0))};" in text


def test_plot_mean_field_accuracy_words_give_the_largest_errors():
    W = bm.sk_couplings(5, rng=1)
    b = np.linspace(-0.2, 0.2, 5)
    text = words(bm.plot_mean_field_accuracy([(W, b, 2.0), (W, b, 0.7)], titles=["warm", "cold"]))
    errors = []
    for T in (2.0, 0.7):
        mean, second = bm.exact_moments(W, b, T)
        m = bm.naive_mean_field(W, b, T, rng=0).m
        i, j = np.triu_indices(5, 1)
        errors.append((np.abs(mean - m).max(), np.abs(second - np.outer(m, m))[i, j].max()))
    units = ", ".join(number(round(e[0], 2)) for e in errors)
    pairs = ", ".join(number(round(e[1], 2)) for e in errors)
    assert f"on the units {units}, on the pairs {pairs}." in text
    assert "(warm and cold)" in text and "cold: 5 units (spins) at T = 0.7." in text


def test_mean_field_widget_words_follow_its_sliders():
    widget = bm.mean_field_widget(W4, B4, T=1.0)
    assert all(control.description for control in (widget.temperature, widget.coupling))
    text = widget.figure_description.text
    assert not text.startswith(FALLBACK_OPENING)
    mean, _ = bm.exact_moments(W4, B4, 1.0)
    assert "2 solutions of the naive mean-field equations" in text
    assert "unit by unit: " + ", ".join(number(round(x, 2)) for x in mean) + "." in text
    log_z = bm.log_partition(W4, B4, 1.0)
    assert f"log Z = {number(log_z)}" in text

    widget.temperature.value = 3.0
    text = widget.figure_description.text
    assert "1 solution of the naive" in text and "at T = 3," in text
    mean, _ = bm.exact_moments(W4, B4, widget.T)
    assert "unit by unit: " + ", ".join(number(round(x, 2)) for x in mean) + "." in text

    widget.coupling.value = 0.0  # independent units: mean field is exact, the gap is 0 (not 1e-16)
    text = widget.figure_description.text
    assert "weights \u00d7 0;" in text and "the best bound equals log Z" in text and "gap is 0 at every T" in text
    no_float_noise(text)
