"""The book's figures and the energy widget: structure, model updates, static fallback."""
import base64

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure

import bmlib as bm

# The chapter's model: two teams {0, 1} and {2, 3} that prefer to disagree.
W4 = np.array([[0, 1, -1, -0.5], [1, 0, -0.5, -1], [-1, -0.5, 0, 1], [-0.5, -1, 1, 0]])
B4 = np.array([0.5, 0, 0, -0.5])



def bars(ax):
    # The first collection has every bar; a second one hatches the stable states' bars.
    collection = [c for c in ax.collections if isinstance(c, PolyCollection)][0]
    return collection


# --- plotting -------------------------------------------------------------

def test_state_labels():
    assert bm.state_labels(bm.all_states(2)) == ["--", "-+", "+-", "++"]
    assert bm.state_labels(bm.all_states(3, "bits")[5], units="bits") == "101"


def test_plot_network_draws_one_line_per_nonzero_weight():
    W = W4.copy()
    W[0, 3] = W[3, 0] = 0.0
    fig = bm.plot_network(W, B4, s=[1, 1, -1, -1])
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    (edges,) = [c for c in fig.axes[0].collections if isinstance(c, LineCollection)]
    assert len(edges.get_segments()) == 5


def test_plot_network_draws_into_given_axes():
    fig, (ax0, ax1) = plt.subplots(1, 2)
    assert bm.plot_network(W4, ax=ax1) is fig
    assert ax1.collections and not ax0.collections


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_plot_energy_landscape_has_a_bar_per_state(units):
    fig = bm.plot_energy_landscape(W4, B4, T=2.0, units=units)
    ax_E, ax_p, ax_s = fig.axes
    assert len(bars(ax_E).get_paths()) == len(bars(ax_p).get_paths()) == 16
    # The bar heights are the energies and the probabilities, in all_states order.
    S = bm.all_states(4, units)
    heights = [path.vertices[1, 1] for path in bars(ax_E).get_paths()]
    np.testing.assert_allclose(heights, bm.energy(S, W4, B4, units))
    heights = [path.vertices[1, 1] for path in bars(ax_p).get_paths()]
    np.testing.assert_allclose(heights, bm.boltzmann_distribution(W4, B4, 2.0, units))
    # Stable states, and only they, are highlighted.
    highlighted = np.all(np.isclose(bars(ax_E).get_facecolors()[:, :3], plt.matplotlib.colors.to_rgb(
        bm.plotting.HIGHLIGHT)), axis=1)
    np.testing.assert_array_equal(highlighted, bm.is_stable(S, W4, B4, units))


def test_plot_energy_landscape_refuses_too_many_units():
    with pytest.raises(ValueError, match="n <= 10"):
        bm.plot_energy_landscape(np.zeros((11, 11)))


def test_plot_descent_shows_every_step():
    path = bm.energy_descent([1, 1, 1, 1], W4, B4)
    fig = bm.plot_descent(path, W4, B4)
    ax_E, ax_s = fig.axes
    np.testing.assert_allclose(ax_E.lines[0].get_ydata(), path.energies)
    assert len(fig.axes) == 2


# --- widgets --------------------------------------------------------------

def is_png(data):
    return data[:8] == b"\x89PNG\r\n\x1a\n"


def test_energy_widget_mimebundle_has_png_and_stable_text():
    widget = bm.energy_widget(W4, B4)
    bundle, metadata = widget._repr_mimebundle_()
    assert metadata["image/png"]["alt"] == widget.figure_description.text
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert is_png(base64.b64decode(bundle["image/png"]))
    assert base64.b64decode(bundle["image/png"]) == widget.figure_png()
    text = bundle["text/plain"]
    assert text == bm.energy_widget(W4, B4)._repr_mimebundle_()[0]["text/plain"]
    assert text.startswith("EnergyWidget: n=4 units") and "0x" not in text


def test_weight_slider_changes_model_symmetrically_and_picture():
    widget = bm.energy_widget(W4, B4)
    before = widget.figure_png()
    widget.pair.value = (0, 2)
    assert widget.weight.value == -1.0  # the slider shows the chosen pair's weight
    assert widget.figure_png() == before  # choosing a pair changes nothing else
    widget.weight.value = 1.5
    expected = W4.copy()
    expected[0, 2] = expected[2, 0] = 1.5
    np.testing.assert_array_equal(widget.W, expected)
    np.testing.assert_array_equal(widget.W, widget.W.T)
    assert widget.figure_png() != before and is_png(widget.figure_png())


def test_bias_and_temperature_sliders():
    widget = bm.energy_widget(W4, B4)
    widget.unit.value = 3
    assert widget.bias.value == -0.5
    before = widget.figure_png()
    widget.bias.value = 1.0
    np.testing.assert_array_equal(widget.b, [0.5, 0, 0, 1.0])
    after_bias = widget.figure_png()
    widget.temperature.value = 3.0
    assert widget.T == 3.0
    assert len({before, after_bias, widget.figure_png()}) == 3


def test_reset_restores_the_model():
    widget = bm.energy_widget(W4, B4, T=0.5)
    first = widget.figure_png()
    widget.weight.value, widget.bias.value, widget.temperature.value = -2.0, 2.0, 4.0
    widget.reset()
    np.testing.assert_array_equal(widget.W, W4)
    np.testing.assert_array_equal(widget.b, B4)
    assert widget.T == 0.5 and widget.weight.value == W4[0, 1]
    assert widget.figure_png() == first


def test_widget_updates_do_not_touch_pyplot():
    widget = bm.energy_widget(W4, B4, units="bits")
    open_before = plt.get_fignums()
    widget.weight.value = 0.3
    assert plt.get_fignums() == open_before


def test_energy_widget_checks_its_arguments():
    with pytest.raises(ValueError, match="2 <= n <= 8"):
        bm.energy_widget(np.zeros((9, 9)))
    with pytest.raises(ValueError, match="symmetric"):
        bm.energy_widget([[0, 1], [0, 0]])


def test_figure_widget_needs_a_draw_method():
    with pytest.raises(NotImplementedError):
        bm.FigureWidget([])


# --- what the reader sees in the energy widget and the Z widget ------------

def test_energy_widget_axis_writes_T_as_its_slider_does():
    # A log slider step lands on 10**-0.7 = 0.19952...: the axis must not say 0.199526
    # while the slider's readout says 0.2.
    widget = bm.energy_widget(W4, B4, T=1.0)
    widget.temperature.value = 10 ** -0.7
    fig = Figure(figsize=widget.figsize, dpi=widget.dpi)
    widget._draw(fig)
    readout = format(widget.temperature.value, widget.temperature.readout_format)
    labels = [ax.get_ylabel() for ax in fig.axes]
    assert f"p(s) at T = {readout}" in labels, (readout, labels)


def test_stable_state_key_is_never_covered_by_a_bar():
    # Antiferromagnetic couplings: the two uniform states, at both ends of the
    # all_states order (the last one under the key), have by far the highest energy.
    W = -2.0 * (np.ones((3, 3)) - np.eye(3))
    fig = bm.plot_energy_landscape(W, np.zeros(3), T=1.0)
    fig.canvas.draw()
    ax_E = fig.axes[0]
    (key,) = [t for t in ax_E.texts if "stable state" in t.get_text()]
    box = key.get_window_extent()
    bar_tops = ax_E.transData.transform(np.column_stack([np.arange(8), bm.energy(bm.all_states(3), W)]))
    under_key = (bar_tops[:, 0] >= box.x0 - 20) & (bar_tops[:, 0] <= box.x1 + 20)
    assert under_key.any(), "the test model must have bars under the key"
    assert bar_tops[under_key, 1].max() < box.y0, "a bar reaches into the stable-state key"


def test_partition_widget_temperature_slider_increases_left_to_right():
    # The default grid is even in 1/T, so the comparison's temperatures fall;
    # the slider must still run from low T (left) to high T (right), like the plot's axis.
    widget = bm.partition_widget(bm.sk_couplings(6, rng=0), temperatures=[4.0, 2.0, 1.0, 0.5], budgets=[1000])
    labels = [float(label) for label, _ in widget.temperature_index.options]
    assert labels == sorted(labels) and labels[0] < labels[-1]
    for label, index in widget.temperature_index.options:
        widget.temperature_index.value = index
        assert widget.T == pytest.approx(float(label), rel=1e-3)
