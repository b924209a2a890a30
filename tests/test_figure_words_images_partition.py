"""The words of the figures and widgets of "Learning real images" and "The normalizing constant Z".

Each figure is drawn on a small case; its description must be the drawing
function's own (not the fallback made up from axis labels) and carry the
data's numbers, computed here independently. Each widget's words must follow
its controls, and each control must have a label a screen reader announces.
"""
import numpy as np
import pytest

import bmlib as bm
from bmlib.learning.rbm.images import RBMLearningCurve
from bmlib.partition.study import METHODS, SAMPLING
from bmlib.plotting.words import number
from conftest import described



@pytest.fixture(scope="module")
def comparison():
    return bm.compare_log_z(bm.sk_couplings(6, rng=0), temperatures=[2.0, 1.0, 0.5], budgets=(300, 1000), rng=0)


def words(fig):
    return described(fig).text


def controls(widget):
    """The ipywidgets controls of a widget (not its picture nor its words)."""
    found, todo = [], list(widget.children)
    while todo:
        child = todo.pop()
        if hasattr(child, "children"):
            todo.extend(child.children)
        elif child is not widget._image and child is not widget._words:
            found.append(child)
    return found


# --- Learning real images ---------------------------------------------------------------------


def curve(n_hidden, held_out_end, gap_end):
    epochs = np.arange(0, 15, 5)
    held_out = np.linspace(-25.0, held_out_end, 3)
    return RBMLearningCurve(n_hidden, epochs, held_out + 0.5, held_out, held_out + np.linspace(0, gap_end, 3), None)


def test_learning_curves_name_each_size_with_its_last_scores_and_differ_by_more_than_colour():
    curves = {4: curve(4, -22.64, 1.14), 8: curve(8, -20.84, 2.0), 16: curve(16, -19.33, 3.02)}
    fig = bm.plot_rbm_learning_curves(curves)
    text = words(fig)
    assert "4, 8 and 16 hidden units" in text
    for c in curves.values():
        gap = c.held_out_pseudo - c.held_out
        assert f"{number(c.held_out[-1], 3)} with {c.n_hidden} hidden" in text
        assert number(gap[-1]) in text
    assert "−22.6 with 4 hidden" in text and "from 0 to 10" in text
    ax_ll, ax_gap = fig.axes
    labelled = [line for line in ax_ll.lines if line.get_label().endswith("hidden")]
    assert len({line.get_marker() for line in labelled}) == 3
    assert len({line.get_marker() for line in ax_gap.lines[:3]}) == 3
    assert len({str(line.get_linestyle()) for line in ax_gap.lines[:3]}) == 3
    # Training solid and held out dashed, as in the learning rule chapter's held-out figure.
    assert "on the training (solid) and held-out (dashed) images" in text
    for line, c in zip(labelled, curves.values()):
        assert line.get_linestyle() == "-" and np.array_equal(line.get_ydata(), c.train)
    dashed = [line for line in ax_ll.lines if line.get_linestyle() == "--" and len(line.get_xdata())]
    assert [list(line.get_ydata()) for line in dashed] == [list(c.held_out) for c in curves.values()]


def test_filters_words_give_the_colour_scale_and_each_filters_range():
    rbm = bm.RBM(16, 3, units="bits", rng=0)
    fig = bm.plot_filters(rbm, shape=(4, 4), n_columns=3)
    text = words(fig)
    limit = np.abs(rbm.W).max()
    assert f"from {number(-limit)} to {number(limit)}" in text
    assert f"The mean size of a weight is {number(np.mean(np.abs(rbm.W)))}" in text
    for j in range(3):
        assert f"{j}: {number(rbm.W[:, j].min())} to {number(rbm.W[:, j].max())}" in text
    assert "by hidden unit (from 0): 0: " in text
    assert "3 hidden units" in text and "4 × 4 pixels" in text


def test_inpainting_words_compare_the_probabilities_with_the_hidden_pixels():
    images = np.array([[1, 0, 1, 1, 0, 0], [0, 0, 1, 0, 1, 1]])
    p = np.array([[0.0, 0.0, 0.0, 0.9, 0.2, 0.4], [0.0, 0.0, 0.0, 0.1, 0.7, 0.8]])
    fig = bm.plot_inpainting(images, p, missing=[3, 4, 5], shape=(2, 3))
    text = words(fig)
    # Hidden: the second row of each 2 x 3 image. On there: 1 of 3, then 2 of 3.
    assert "3 pixels hidden (rows 2 to 2 of 2 from the top, all columns" in text
    assert f"A fraction {number(3 / 6)} of the hidden pixels are on" in text
    assert f"mean probability is {number((0.9 + 0.2 + 0.4 + 0.1 + 0.7 + 0.8) / 6)}" in text
    off = (0.1 + 0.2 + 0.4 + 0.1 + 0.3 + 0.2) / 6
    assert f"off from the true pixel by {number(off)} on average" in text
    assert f"by its column from the left, how many of its 3 hidden pixels are on, and their mean probability: " \
           f"1: 1, {number(0.5)}; 2: 2, {number(1.6 / 3)}" in text


def test_digits_widget_words_follow_its_controls_and_every_control_is_labelled():
    widget = bm.digits_widget(n_hidden=4, epoch=1, n_sweeps=1, epochs=1, every=1, rng=0)
    first = widget.figure_description.text
    assert widget.figure_description.summary.startswith("An RBM with 4 hidden units at epoch 1")
    assert f"Their mean pixel is {number(widget.samples().mean())}" in first
    assert number(np.abs(widget.model.W).max()) in first
    assert number(bm.digits("train", units="bits").images.mean()) in first
    widget.steps.value = 10
    second = widget.figure_description.text
    assert second != first and "after 10 Gibbs steps" in second
    assert f"Their mean pixel is {number(widget.samples().mean())}" in second
    widget.epoch.value = 0
    assert "at epoch 0" in widget.figure_description.summary
    assert number(np.abs(widget.model.W).max()) in widget.figure_description.text
    assert all(control.description for control in controls(widget))


# --- The normalizing constant Z -----------------------------------------------------------------


def test_error_figure_words_rank_the_estimators_by_their_worst_error(comparison):
    fig = bm.plot_log_z_errors(comparison, mark_T=1.0, mark_label="T = J")
    text = words(fig)
    worst = {METHODS[key]: np.abs(comparison.errors(key)).max() for key in comparison.methods}
    # Smallest first, as written (two digits), ties in table order.
    order = sorted(worst, key=lambda name: float(number(worst[name]).replace("−", "-")))
    listing = ", ".join(f"{name} {number(worst[name])}" for name in order)
    assert f"smallest first: {listing}." in text
    assert "1000 passes over W" in text and "A dashed line marks T = 1 (T = J)." in text
    for key in comparison.methods:
        errors = comparison.errors(key)
        assert f"{METHODS[key]} from {number(errors.min())} to {number(errors.max())}" in text


def test_error_figure_tells_methods_apart_by_marker_or_dash(comparison):
    fig = bm.plot_log_z_errors(comparison)
    for ax in fig.axes[1:]:
        # The methods' own lines (not the error bars' caps, drawn as "_" markers).
        drawn = [line for line in ax.lines if line.get_marker() not in ("None", "", None, "_")]
        looks = {(line.get_marker(), str(line.get_linestyle()), line.get_markerfacecolor()) for line in drawn}
        assert len(looks) == len(drawn) >= 3


def test_cost_figure_words_name_the_best_method_at_each_temperature(comparison):
    fig = bm.plot_log_z_cost(comparison)
    text = words(fig)
    assert "T = 2, 1 and 0.5" in text and "budgets of 300 and 1000 passes" in text
    for t, T in enumerate(comparison.temperatures):
        last = {METHODS[key]: abs(comparison.log_z[key][-1, t] - comparison.exact[t]) for key in comparison.methods}
        best = min(last, key=lambda name: (float(number(max(last[name], 1e-3))), list(last).index(name)))
        shown = number(last[best]) if last[best] >= 1e-3 else "below 0.001"
        assert f"{best} at T = {number(T, 3)} ({shown})" in text
        for key in SAMPLING:
            first = abs(comparison.log_z[key][0, t] - comparison.exact[t])
            if first >= 1e-3 and last[METHODS[key]] >= 1e-3:
                assert f"{METHODS[key]} {number(first)} to {number(last[METHODS[key]])}" in text


def test_partition_widget_words_follow_the_slider_and_the_menu(comparison):
    widget = bm.partition_widget(comparison, T=1.0)
    first = widget.figure_description.text
    assert f"T = 1 " in first and f"is {number(comparison.exact[1], 3)}" in first
    widget.temperature_index.value = 2
    second = widget.figure_description.text
    assert second != first and f"is {number(comparison.exact[2], 3)}" in second
    err = {METHODS[key]: comparison.log_z[key][1, 2] - comparison.exact[2] for key in comparison.methods}
    far = max(err, key=lambda name: (float(number(abs(err[name]))), -list(err).index(name)))
    assert f"farthest {far} ({number(err[far])})" in second
    ais = comparison.log_z["ais"][1, 2] - comparison.exact[2]
    assert f"AIS {number(ais)} ± {number(comparison.error['ais'][1, 2])}" in second
    widget.budget_menu.value = 0
    third = widget.figure_description.text
    assert "300 passes over W" in third and third != second
    assert all(control.description for control in controls(widget))
