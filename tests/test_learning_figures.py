"""Figures, widget and self-check of the chapter "The learning rule"."""
import base64

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure

import bmlib as bm

DATA = bm.to_spins(bm.ten_pixel_images(units="bits"))



@pytest.fixture(scope="module")
def trained():
    machine = bm.BoltzmannMachine(10, init_scale=0.0)
    history = bm.train(machine, DATA, epochs=30, learning_rate=0.1, momentum=0.5, progress=False)
    return machine, history


# --- figures ----------------------------------------------------------------


def test_pixel_images_draw_every_pixel_of_every_shown_image():
    fig = bm.plot_pixel_images(bm.TEN_PIXEL_PROTOTYPES, bm.ten_pixel_images(units="bits"), n_show=12)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    top, bottom = fig.axes
    # One image per group: the mosaic, lit pixels = 1, gaps masked.
    tiles = top.images[0].get_array()
    assert int(tiles.count()) == 3 * 10 and int(tiles.sum()) == int(bm.TEN_PIXEL_PROTOTYPES.sum())
    assert int(bottom.images[0].get_array().count()) == 12 * 10
    # Pixel borders: 3 horizontal + 6 vertical lines per 2 x 5 image.
    (borders,) = [c for c in bottom.collections if isinstance(c, LineCollection)]
    assert len(borders.get_segments()) == 12 * 9


def test_pixel_images_spread_over_the_data_and_accept_spins_or_bits():
    images = bm.ten_pixel_images(units="bits")
    shown_bits = bm.plot_pixel_images(images, n_show=3).axes[0].images[0].get_array()
    shown_spins = bm.plot_pixel_images(bm.to_spins(images), n_show=3).axes[0].images[0].get_array()
    np.testing.assert_array_equal(shown_bits, shown_spins)
    # Evenly spaced through the data: rows 0, 30 and 59, one from each prototype's copies.
    expected = [images[k].reshape(2, 5) for k in (0, 30, 59)]
    np.testing.assert_array_equal(shown_bits[:, :5], expected[0])
    np.testing.assert_array_equal(shown_bits[:, 6:11], expected[1])
    with pytest.raises(ValueError, match="shape"):
        bm.plot_pixel_images(np.ones((4, 9)))


def test_moment_match_puts_every_pair_and_unit_on_the_panel(trained):
    machine, _ = trained
    start = bm.BoltzmannMachine(10, init_scale=0.0)
    fig = bm.plot_moment_match([start, machine], DATA, titles=["before", "after"])
    assert len(fig.axes) == 2
    (mean_d, pairs_d), (mean_m, pairs_m) = bm.exact_statistics(machine, DATA)
    i, j = np.triu_indices(10, 1)
    pairs, units = fig.axes[1].collections[:2]
    np.testing.assert_allclose(pairs.get_offsets(), np.column_stack([pairs_d[i, j], pairs_m[i, j]]))
    np.testing.assert_allclose(units.get_offsets(), np.column_stack([mean_d, mean_m]))
    # Before training every model average is 0.
    np.testing.assert_allclose(fig.axes[0].collections[0].get_offsets()[:, 1], 0, atol=1e-12)
    assert fig.axes[0].get_title() == "before"
    with pytest.raises(ValueError, match="one entry per model"):
        bm.plot_moment_match([machine], DATA, titles=["a", "b"])
    with pytest.raises(TypeError, match="BoltzmannMachine"):
        bm.plot_moment_match([bm.RBM(10, 2, rng=0, units="bits")], DATA)


def test_moment_match_with_a_mask_draws_only_connected_pairs():
    mask = np.zeros((10, 10), dtype=bool)
    mask[0, 1] = mask[1, 0] = mask[2, 3] = mask[3, 2] = True
    fig = bm.plot_moment_match(bm.BoltzmannMachine(10, mask=mask, rng=0), DATA)
    assert len(fig.axes[0].collections[0].get_offsets()) == 2


def test_training_history_plots_each_run_and_the_gap(trained):
    _, history = trained
    fig = bm.plot_training_history(history)
    assert len(fig.axes) == 1
    np.testing.assert_allclose(fig.axes[0].lines[0].get_ydata(), history.values)
    best = history.values.max() + 0.1
    fig = bm.plot_training_history({"a": history, "b": history}, best=best)
    left, right = fig.axes
    assert [line.get_label() for line in left.lines[:2]] == ["a", "b"]
    assert right.get_yscale() == "log"
    np.testing.assert_allclose(right.lines[0].get_ydata(), best - history.values)
    with pytest.raises(TypeError, match="recorded values"):
        bm.plot_training_history(bm.train(bm.BoltzmannMachine(10, rng=0), DATA, epochs=1, monitor=None,
                                          progress=False))


# --- the widget ---------------------------------------------------------------


def is_png(data):
    return data[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def widget():
    return bm.learning_widget(DATA, epochs=20, init_scale=0.0, epoch=2)


def test_widget_mimebundle_has_png_and_stable_text(widget):
    bundle, metadata = widget._repr_mimebundle_()  # the picture's words ride along as its alt
    assert metadata["image/png"]["alt"] == widget.figure_description.text
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert is_png(base64.b64decode(bundle["image/png"]))
    text = bundle["text/plain"]
    assert text == bm.learning_widget(DATA, epochs=20, init_scale=0.0, epoch=2)._repr_mimebundle_()[0]["text/plain"]
    assert text.startswith("LearningWidget: 10 visible units (spins), 60 patterns, 20 epochs with exact")
    assert "showing epoch 2" in text and "0x" not in text


def test_widget_run_is_the_training_run(widget):
    machine = bm.BoltzmannMachine(10, init_scale=0.0)
    history = bm.train(machine, DATA, epochs=20, learning_rate=0.1, progress=False)
    np.testing.assert_allclose(widget.history.values, history.values)
    widget.epoch_slider.value = 20
    np.testing.assert_allclose(widget.W, machine.W)
    np.testing.assert_allclose(widget.b, machine.b)
    # After one plain step from W = 0, the weights are the learning rate times the data correlations.
    widget.epoch_slider.value = 1
    (_, pairs), _ = bm.exact_statistics(machine, DATA)
    np.testing.assert_allclose(widget.W, 0.1 * (pairs - np.eye(10)), atol=1e-12)


def test_slider_and_step_change_the_picture(widget):
    widget.epoch_slider.value = 2
    before = widget.figure_png()
    widget.step()
    assert widget.epoch == 3 and widget.figure_png() != before and is_png(widget.figure_png())
    widget.epoch_slider.value = 20
    widget.step()  # the last epoch stays
    assert widget.epoch == 20
    open_before = plt.get_fignums()
    widget.epoch_slider.value = 5
    assert plt.get_fignums() == open_before  # redraws never touch pyplot


def test_a_redrawn_epoch_looks_like_a_freshly_built_one(widget):
    """The widget keeps its figure and only updates the artists; the picture must not depend on the path."""
    widget.epoch_slider.value = 7
    fresh = bm.learning_widget(DATA, epochs=20, init_scale=0.0, epoch=7)
    assert widget.figure_png() == fresh.figure_png()


def test_widget_accepts_sampled_statistics_and_checks_its_arguments():
    w = bm.learning_widget(DATA[:, :4], epochs=3, statistics="sampled")
    assert "sampled statistics" in w._describe() and len(w.history.values) == 4
    with pytest.raises(ValueError, match="limited to 12 units"):
        bm.learning_widget(np.ones((3, 13)))
    with pytest.raises(ValueError, match="shape"):
        bm.learning_widget(np.ones(5))
    with pytest.raises(ValueError, match="epoch must be <= 3"):
        bm.learning_widget(DATA, epochs=3, epoch=4)


# --- the self-check -------------------------------------------------------------


def reference(W, b, data, T, units):
    return bm.BoltzmannMachine(len(b), W=W, b=b, units=units, T=T).gradient(data)


def draft(sign=1.0, scale_T=True, zero_diagonal=True, half=False, model_term=True, bias="ok"):
    """A reader's enumeration draft with one typical mistake switched on."""
    def my_gradient(W, b, data, T, units):
        S = bm.all_states(len(b), units)
        p = bm.boltzmann_distribution(W, b, T, units)
        dW = sign * (data.T @ data / len(data) - model_term * S.T @ (p[:, None] * S))
        dW = dW / (T if scale_T else 1.0) / (2 if half else 1)
        if zero_diagonal:
            np.fill_diagonal(dW, 0.0)
        db = (data.mean(axis=0) - p @ S) / T
        db = {"ok": db, "zero": 0 * db, "reversed": -db, "data only": data.mean(axis=0) / T}[bias]
        return dW, db
    return my_gradient


def run(func, capsys):
    result = bm.check_gradient_function(func, hint=True)
    # The checkers fold long lines to fit the column; read the words as one text.
    return result, " ".join(capsys.readouterr().out.split())


def test_checker_accepts_the_reference_and_a_correct_draft(capsys):
    ok, out = run(reference, capsys)
    assert ok and "Well done" in out
    ok, out = run(draft(), capsys)
    assert ok and "Well done" in out


@pytest.mark.parametrize("kwargs, words", [
    (dict(sign=-1.0), ["minus the gradient", "model minus data"]),
    (dict(scale_T=False), ["1/T is missing"]),
    (dict(sign=-1.0, scale_T=False), ["wrong sign AND misses the 1/T"]),
    (dict(half=True), ["half the gradient", "ONE parameter"]),
    (dict(model_term=False), ["only the data (Hebbian) term", "unlearning"]),
    (dict(zero_diagonal=False), ["diagonal of dW must be 0"]),
    (dict(bias="zero"), ["db is zero"]),
    (dict(bias="reversed"), ["db has the wrong sign"]),
    (dict(bias="data only"), ["subtract the model average"]),
])
def test_checker_names_the_mistake(kwargs, words, capsys):
    ok, out = run(draft(**kwargs), capsys)
    assert not ok and "The first one:" in out and "expected d" in out
    for word in words:
        assert word in out


def test_checker_output_is_deterministic_and_reports_bad_returns(capsys):
    assert len({run(draft(sign=-1.0), capsys)[1] for _ in range(2)}) == 1
    ok, out = run(lambda W, b, data, T, units: None, capsys)
    assert not ok and "return statement" in out
    ok, out = run(lambda W, b, data, T, units: (W, b[:-1]), capsys)
    assert not ok and "expected" in out and "shape" in out
    ok, out = run(lambda W, b, data, T, units: W[10], capsys)
    assert not ok and "IndexError" in out
    ok, out = run(lambda W, b, data, T, units: (W + np.triu(W), b), capsys)
    assert not ok and "not symmetric" in out


def test_checker_cannot_have_its_inputs_changed(capsys):
    def vandal(W, b, data, T, units):
        W[:] = 0.0
        data[:] = 1.0
        return reference(W, b, data, T, units)

    run(vandal, capsys)
    assert run(reference, capsys)[0]
