"""Figures, widget and self-check of the chapter "Hidden units", and two claims the chapter makes."""
import base64

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure

import bmlib as bm

PARITY = bm.parity_patterns(3, units="spins")
PATTERNS = bm.encoder_patterns(4, units="bits")
MASK = bm.encoder_mask(4, 2, hidden_connected=False)
BAS = bm.bars_and_stripes(3, units="bits")



def solved_encoder():
    """The hand-made solution of the 4-2-4 encoder from the encoder_report docstring (bits)."""
    codes = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    W = np.zeros((10, 10))
    for group in (range(0, 4), range(4, 8)):
        for k, i in enumerate(group):
            W[i, 8:] = W[8:, i] = 4 * (2 * codes[k] - 1)
            W[i, [j for j in group if j != i]] = -4
    b = np.r_[np.tile(-4 * codes.sum(axis=1) + 2, 2), [0, 0]]
    return bm.BoltzmannMachine(8, 2, mask=bm.encoder_mask(4, 2), W=W, b=b, units="bits")


# --- claims of the chapter -------------------------------------------------------


def test_a_machine_without_hidden_units_cannot_tell_parity_from_noise(rng):
    """Same first and second moments, so the same L at every (W, b); the best is the uniform machine."""
    everything = bm.all_states(3)
    for _ in range(5):
        machine = bm.BoltzmannMachine(3, init_scale=1.0, rng=rng)
        machine.b = rng.normal(size=3)
        assert machine.log_likelihood(PARITY) == pytest.approx(machine.log_likelihood(everything), abs=1e-12)
        assert machine.log_likelihood(PARITY) <= -3 * np.log(2) + 1e-12
    dW, db = bm.BoltzmannMachine(3, init_scale=0.0).gradient(PARITY)
    assert np.abs(dW).max() == 0 and np.abs(db).max() == 0


def test_hidden_units_started_alike_stay_alike():
    """At W = 0 the hidden units get identical gradients, so training never tells them apart."""
    machine = bm.BoltzmannMachine(3, n_hidden=2, init_scale=0.0)
    bm.train(machine, PARITY, epochs=30, learning_rate=0.5, momentum=0.5, monitor=None, progress=False)
    np.testing.assert_allclose(machine.W[:3, 3], machine.W[:3, 4], atol=1e-12)
    np.testing.assert_allclose(machine.b[3], machine.b[4], atol=1e-12)


# --- figures ------------------------------------------------------------------------


def test_learning_curves_join_staged_runs_and_draw_levels():
    rbm = bm.RBM(9, 4, rng=0, units="bits")
    stages = [bm.train(rbm, BAS, epochs=e, learning_rate=0.1, progress=False) for e in (3, 5)]
    single = bm.train(bm.RBM(9, 4, rng=0, units="bits"), BAS, epochs=4, progress=False)
    fig = bm.plot_log_likelihood_curves({"staged": stages, "single": single}, levels={"-log 14": -np.log(14)},
                                        ylim=(-7, -2))
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    staged, one, level = ax.lines
    np.testing.assert_allclose(staged.get_ydata(), np.r_[stages[0].values, stages[1].values[1:]])
    np.testing.assert_array_equal(staged.get_xdata(), np.arange(9))
    np.testing.assert_allclose(one.get_ydata(), single.values)
    np.testing.assert_allclose(level.get_ydata(), -np.log(14))
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["staged", "single", "-log 14"]
    assert ax.get_ylim() == (-7, -2)
    with pytest.raises(TypeError, match="non-empty dict"):
        bm.plot_log_likelihood_curves([single])
    with pytest.raises(TypeError, match="recorded values"):
        bm.plot_log_likelihood_curves({"x": bm.train(bm.RBM(9, 2, rng=0, units="bits"), BAS, epochs=1, monitor=None,
                                                      progress=False)})


def test_hidden_mixture_stacks_the_joint_distribution_to_p_of_v():
    machine = bm.BoltzmannMachine(3, n_hidden=1, init_scale=1.0, rng=3)
    fig = bm.plot_hidden_mixture(machine, PARITY)
    ax = fig.axes[0]
    assert len(ax.containers) == 2
    tops = sum(np.array([bar.get_height() for bar in stack]) for stack in ax.containers)
    np.testing.assert_allclose(tops, np.exp(machine.log_probability(bm.all_states(3))), atol=1e-12)
    # p(h) in the legend adds up to 1; the data frequencies are 1/4 on the even-parity states.
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    weights = [float(label.rsplit("= ", 1)[1]) for label in labels if label.startswith("h =")]
    assert sum(weights) == pytest.approx(1.0, abs=0.011)
    q = ax.collections[0].get_offsets()[:, 1]
    np.testing.assert_allclose(q, [0.25 if s.prod() == -1 else 0 for s in bm.all_states(3)])
    with pytest.raises(ValueError, match="1 to 2 hidden units"):
        bm.plot_hidden_mixture(bm.BoltzmannMachine(2, n_hidden=3, rng=0))
    with pytest.raises(TypeError, match="BoltzmannMachine"):
        bm.plot_hidden_mixture(bm.RBM(3, 1, rng=0, units="bits"))


def test_encoder_codes_show_the_exact_conditionals_and_the_verdict():
    good, untrained = solved_encoder(), bm.BoltzmannMachine(8, 2, mask=MASK, units="bits", rng=0)
    fig = bm.plot_encoder_codes([good, untrained], titles=["solved", "untrained"])
    assert len(fig.axes) == 2
    table = fig.axes[0].images[0].get_array()
    assert table.shape == (4, 12) and table.mask[:, [4, 7]].all()  # two gaps between the blocks
    mean, _ = bm.clamped_moments(good.W, good.b, clamped=np.arange(4), values=PATTERNS[:, :4], units="bits", average=False)
    np.testing.assert_allclose(table[:, :4], PATTERNS[:, :4])
    np.testing.assert_allclose(table[:, 5:7], mean[:, 8:])
    np.testing.assert_allclose(table[:, 8:], mean[:, 4:8])
    assert "distinct codes, every completion right" in fig.axes[0].get_title()
    assert fig.axes[0].get_title().startswith("solved")
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()][1] == "pattern 1  code 01"
    assert "NOT distinct" in fig.axes[1].get_title() or "completions right" in fig.axes[1].get_title()
    with pytest.raises(ValueError, match="one entry per machine"):
        bm.plot_encoder_codes(good, titles=["a", "b"])


def test_estimated_statistics_put_every_connected_pair_on_both_panels():
    machine = bm.BoltzmannMachine(8, 2, mask=MASK, units="bits", init_scale=0.5, rng=1)
    exact = bm.exact_statistics(machine, PATTERNS)
    noisy = tuple((m, s + 0.01) for m, s in exact)
    fig = bm.plot_estimated_statistics(exact, {"exact": exact, "shifted": noisy}, mask=MASK)
    assert len(fig.axes) == 2
    i, j = np.nonzero(np.triu(MASK))
    for ax, (_, second) in zip(fig.axes, exact):
        same, shifted = ax.collections[:2]
        np.testing.assert_allclose(same.get_offsets(), np.column_stack([second[i, j], second[i, j]]))
        np.testing.assert_allclose(shifted.get_offsets()[:, 1], second[i, j] + 0.01)
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert "largest error 0.000" in labels[0] and "largest error 0.010" in labels[1]
    assert fig.axes[1].get_title() == "free phase (\u2212)"
    with pytest.raises(ValueError, match="pairs per phase"):
        bm.plot_estimated_statistics(exact, {"bad": bm.exact_statistics(bm.BoltzmannMachine(3, 1, rng=0),
                                                                           PARITY)}, mask=MASK)


# --- the widget ------------------------------------------------------------------------


def is_png(data):
    return data[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def rbm():
    machine = bm.RBM(9, 8, init_scale=0.1, rng=0, units="bits")
    bm.train(machine, BAS, epochs=300, learning_rate=0.2, momentum=0.5, monitor=None, progress=False)
    return machine


@pytest.fixture(scope="module")
def widget(rbm):
    return bm.hidden_widget(rbm, pattern=9, hide="right column")


def test_widget_mimebundle_has_png_and_stable_text(widget, rbm):
    bundle, metadata = widget._repr_mimebundle_()  # the picture's words ride along as its alt
    assert metadata["image/png"]["alt"] == widget.figure_description.text
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert is_png(base64.b64decode(bundle["image/png"]))
    text = bundle["text/plain"]
    assert text == bm.hidden_widget(rbm, pattern=9, hide="right column")._repr_mimebundle_()[0]["text/plain"]
    assert text.startswith("HiddenWidget: RBM with 9 visible and 8 hidden units (bits), 14 patterns of 3 x 3")
    assert "showing pattern 9 with right column hidden" in text and "0x" not in text


def test_completion_is_the_exact_conditional(widget, rbm):
    widget.pattern_slider.value, widget.hide_menu.value = 4, "bottom row"
    p_visible, p_hidden, log_p = widget.completion()
    # Brute force over all 512 images: condition on the six pixels shown.
    states = bm.all_states(9, "bits")
    p = np.exp(rbm.log_probability(states))
    keep = (states[:, :6] == BAS[4, :6]).all(axis=1)
    w = p[keep] / p[keep].sum()
    np.testing.assert_allclose(p_visible, w @ states[keep], atol=1e-12)
    np.testing.assert_allclose(p_hidden, w @ rbm.hidden_means(states[keep]), atol=1e-12)
    assert log_p == pytest.approx(rbm.log_probability(BAS[4]), abs=1e-12)
    fill, prob = widget.best_fill()
    best = states[keep][np.argmax(w)]
    assert fill == "".join(str(x) for x in best[6:]) and prob == pytest.approx(w.max())
    widget.hide_menu.value = "nothing"
    p_visible, p_hidden, _ = widget.completion()
    np.testing.assert_allclose(p_visible, BAS[4])
    np.testing.assert_allclose(p_hidden, rbm.hidden_means(BAS[4]))
    assert widget.best_fill() == (None, 1.0)


def test_controls_change_the_picture_not_pyplot(widget):
    widget.pattern_slider.value, widget.hide_menu.value = 0, "nothing"
    before = widget.figure_png()
    open_before = plt.get_fignums()
    widget.pattern_slider.value = 5
    assert widget.pattern == 5 and widget.figure_png() != before and is_png(widget.figure_png())
    after_slider = widget.figure_png()
    widget.hide_menu.value = "centre pixel"
    assert widget.hidden_pixels.tolist() == [4] and widget.figure_png() != after_slider
    assert plt.get_fignums() == open_before


def test_a_redrawn_state_looks_like_a_freshly_built_one(widget, rbm):
    widget.pattern_slider.value, widget.hide_menu.value = 11, "left column"
    fresh = bm.hidden_widget(rbm, pattern=11, hide="left column")
    assert widget.figure_png() == fresh.figure_png()


def test_widget_keeps_its_own_copy_and_checks_its_arguments(rbm):
    mine = rbm.copy()
    w = bm.hidden_widget(mine, pattern=0)
    mine.W[:] = 0.0
    assert np.abs(w.rbm.W).max() > 0
    assert list(w.hide_menu.options) == ["nothing", "top row", "row 1", "bottom row", "left column", "column 1",
                                         "right column", "centre pixel"]
    with pytest.raises(ValueError, match="hide must be one of"):
        bm.hidden_widget(rbm, hide="the corners")
    with pytest.raises(ValueError, match="pattern must be <= 13"):
        bm.hidden_widget(rbm, pattern=14)
    with pytest.raises(ValueError, match="in bits"):
        bm.hidden_widget(bm.RBM(9, 2, units="spins", rng=0))
    with pytest.raises(ValueError, match="square images"):
        bm.hidden_widget(bm.RBM(6, 2, rng=0, units="bits"), data=np.zeros((2, 6)))
    with pytest.raises(TypeError, match="bmlib RBM"):
        bm.hidden_widget(bm.BoltzmannMachine(9, 2, rng=0))


def test_default_widget_trains_its_own_model():
    w = bm.hidden_widget(n_hidden=4, epochs=5, rng=1)
    expected = bm.RBM(9, 4, init_scale=0.1, rng=1, units="bits")
    bm.train(expected, BAS, epochs=5, learning_rate=0.2, momentum=0.5, monitor=None, progress=False, rng=1)
    np.testing.assert_allclose(w.rbm.W, expected.W)
    assert len(w.data) == 14


# --- the self-check ---------------------------------------------------------------------


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


DRAFTS = {
    "right": lambda v, W, c, T: sigmoid((v @ W + c) / T),
    "spin factor 2": lambda v, W, c, T: sigmoid(2 * (v @ W + c) / T),
    "tanh": lambda v, W, c, T: np.tanh((v @ W + c) / T),
    "no T": lambda v, W, c, T: sigmoid(v @ W + c),
    "times T": lambda v, W, c, T: sigmoid((v @ W + c) * T),
    "sign": lambda v, W, c, T: 1 - sigmoid((v @ W + c) / T),
    "no bias": lambda v, W, c, T: sigmoid(v @ W / T),
    "bias sign": lambda v, W, c, T: sigmoid((v @ W - c) / T),
    "transposed W": lambda v, W, c, T: sigmoid((v @ W.T + c) / T),
    "transposed result": lambda v, W, c, T: sigmoid((v @ W + c) / T).T,
    "unnormalized": lambda v, W, c, T: np.exp((v @ W + c) / T),
    "softmax": lambda v, W, c, T: (lambda e: e / e.sum(axis=1, keepdims=True))(np.exp((v @ W + c) / T)),
    "sample": lambda v, W, c, T: (np.random.default_rng(0).random((len(v), W.shape[1]))
                                  < sigmoid((v @ W + c) / T)).astype(float),
}


def run(func, capsys):
    result = bm.check_hidden_probabilities(func, hint=True)
    # The checkers fold long lines to fit the column; read the words as one text.
    return result, " ".join(capsys.readouterr().out.split())


def test_checker_accepts_the_reference_and_a_correct_draft(capsys):
    ok, out = run(DRAFTS["right"], capsys)
    assert ok and "Well done" in out
    ok, out = run(lambda v, W, c, T: bm.RBM(W.shape[0], W.shape[1], W=W, b_hidden=c, T=T, units="bits").hidden_means(v), capsys)
    assert ok


@pytest.mark.parametrize("name, words", [
    ("spin factor 2", ["spin formula", "factor 2"]),
    ("tanh", ["tanh", "MEAN of a spin"]),
    ("no T", ["temperature is missing"]),
    ("times T", ["multiplied by T"]),
    ("sign", ["p(h_j = 0 | v)"]),
    ("no bias", ["hidden biases are missing"]),
    ("bias sign", ["biases enter with the wrong sign"]),
    ("transposed W", ["W is transposed", "v @ W + c", "no usable answer on 3 more"]),
    ("transposed result", ["result is transposed"]),
    ("unnormalized", ["without normalizing"]),
    ("softmax", ["softmax", "independent"]),
    ("sample", ["SAMPLE"]),
])
def test_checker_names_the_mistake(name, words, capsys):
    ok, out = run(DRAFTS[name], capsys)
    assert not ok and "The first one:" in out and "expected p(h_" in out
    for word in words:
        assert word in out


def test_checker_output_is_deterministic_and_reports_bad_returns(capsys):
    assert len({run(DRAFTS["spin factor 2"], capsys)[1] for _ in range(2)}) == 1
    ok, out = run(lambda v, W, c, T: None, capsys)
    assert not ok and "return statement" in out
    ok, out = run(lambda v, W, c, T: v[10], capsys)
    assert not ok and "IndexError" in out
    ok, out = run(lambda v, W, c, T: sigmoid((v @ W + c) / T)[0], capsys)
    assert not ok and "one row per pattern" in out
    ok, out = run(lambda v, W, c, T: 0.3 + 0 * (v @ W), capsys)
    assert not ok and "fit no typical mistake" in out


def test_checker_cannot_have_its_inputs_changed(capsys):
    def vandal(v, W, c, T):
        W[:] = 0.0
        c[:] = 0.0
        return sigmoid((v @ W + c) / T)

    run(vandal, capsys)
    assert run(DRAFTS["right"], capsys)[0]
