"""Figures, widget and self-check of the chapter "The Boltzmann-Gibbs distribution"."""
import base64

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure

import bmlib as bm

W4 = np.array([[0, 1, -1, -0.5], [1, 0, -0.5, -1], [-1, -0.5, 0, 1], [-0.5, -1, 1, 0]])
B4 = np.array([0.5, 0, 0, -0.5])



def bar_heights(ax):
    """Heights of the bars of each PolyCollection in ``ax``, in drawing order."""
    return [np.array([path.vertices[1, 1] for path in c.get_paths()])
            for c in ax.collections if isinstance(c, PolyCollection)]


# --- figures ----------------------------------------------------------------------------------


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_sampled_distribution_bars_are_exact_and_sampled(units):
    result = bm.sample(W4, B4, 2.0, units, n_samples=200, n_chains=4, rng=0)
    fig = bm.plot_sampled_distribution(result, W4, B4, T=2.0)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    exact, sampled = bar_heights(fig.axes[0])
    np.testing.assert_allclose(exact, bm.boltzmann_distribution(W4, B4, 2.0, units))
    np.testing.assert_allclose(sampled, bm.state_frequencies(result.samples, units))
    # The same picture from the bare array of states.
    again = bm.plot_sampled_distribution(result.samples, W4, B4, T=2.0, units=units)
    np.testing.assert_allclose(bar_heights(again.axes[0])[1], sampled)


def test_sampled_distribution_checks_its_arguments():
    with pytest.raises(ValueError, match="n <= 8"):
        bm.plot_sampled_distribution(np.ones((3, 9)), np.zeros((9, 9)))
    with pytest.raises(ValueError, match="shape"):
        bm.plot_sampled_distribution(np.ones((3, 3)), W4)


def test_flip_probabilities_are_the_two_rules():
    fig = bm.plot_flip_probabilities(T=2.0)
    heat_bath, metropolis = fig.axes[0].lines[:2]
    dE = heat_bath.get_xdata()
    np.testing.assert_allclose(heat_bath.get_ydata(), 1 / (1 + np.exp(dE / 2.0)))
    np.testing.assert_allclose(metropolis.get_ydata(), np.minimum(1, np.exp(-dE / 2.0)))
    assert dE.min() == -10.0 and dE.max() == 10.0


def test_convergence_figure_draws_the_curves():
    kwargs = dict(initial=[-1, -1, 1, 1], n_sweeps=20, n_chains=300, rng=5)
    fig = bm.plot_convergence(W4, B4, 1.0, **kwargs)
    curves = bm.convergence_curves(W4, B4, 1.0, **kwargs)
    lines = fig.axes[0].lines
    assert len(lines) == 4 and fig.axes[0].get_yscale() == "log"
    np.testing.assert_allclose(lines[0].get_ydata(), curves["heat_bath"][0])
    np.testing.assert_allclose(lines[1].get_ydata(), curves["heat_bath"][1])
    np.testing.assert_allclose(lines[2].get_ydata(), curves["metropolis"][0])


def test_autocorrelation_figure_reports_tau():
    runs = {rule: bm.sample(W4, B4, 1.0, n_samples=1000, n_chains=2, rule=rule, rng=1).energies
            for rule in ("heat_bath", "metropolis")}
    fig = bm.plot_autocorrelation(runs)
    ax_x, ax_r = fig.axes
    legend = [t.get_text() for t in ax_r.get_legend().get_texts()]
    for text, rule in zip(legend, runs):
        assert f"{bm.autocorrelation_time(runs[rule]):.1f}" in text
    assert ax_r.lines[1].get_ydata()[0] == pytest.approx(1.0)  # rho(0) = 1 (line 0 is the zero line)
    np.testing.assert_allclose(ax_x.lines[0].get_ydata()[:-1], runs["heat_bath"][:399, 0])
    assert len(bm.plot_autocorrelation(runs["heat_bath"]).axes) == 2  # a bare array works too
    with pytest.raises(ValueError, match="n_samples >= 2"):
        bm.plot_autocorrelation(np.ones(1))


def test_annealing_figure():
    W = bm.sk_couplings(8, J=2.0, rng=0)
    result = bm.anneal(W, schedule=[(2.0, 5), (1.0, 5), (0.0, 2)], n_chains=30, rng=0)
    descent = bm.anneal(W, schedule=[(0.0, 10)], n_chains=30, rng=0)
    fig = bm.plot_annealing(result, descent=descent, ground_energy=-5.0, n_traces=3)
    ax_T, ax_E, ax_h = fig.axes
    np.testing.assert_allclose(ax_T.lines[0].get_ydata(), result.temperatures)
    means = [line for line in ax_E.lines if line.get_linewidth() == 2]
    np.testing.assert_allclose(means[0].get_ydata(), result.energies.mean(axis=1))
    assert len([c for c in ax_h.patches]) == 2 * 15  # two histograms of 15 bins
    with pytest.raises(TypeError, match="SampleResult"):
        bm.plot_annealing(result.energies)


# --- widget -----------------------------------------------------------------------------------


def is_png(data):
    return data[:8] == b"\x89PNG\r\n\x1a\n"


def test_sampling_widget_mimebundle_has_png_and_stable_text():
    widget = bm.sampling_widget(W4, B4, T=1.0, initial=[-1, -1, 1, 1])
    # The bundle comes with its metadata: the picture's alt is the figure's words.
    bundle, metadata = widget._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert base64.b64decode(bundle["image/png"]) == widget.figure_png() and is_png(widget.figure_png())
    assert metadata["image/png"]["alt"] == widget.figure_description.text
    text = bundle["text/plain"]
    assert text == bm.sampling_widget(W4, B4, T=1.0, initial=[-1, -1, 1, 1])._repr_mimebundle_()[0]["text/plain"]
    assert text.startswith("SamplingWidget: n=4 units") and "--++" in text and "0x" not in text


def test_sampling_widget_is_deterministic_and_sliders_change_the_picture():
    widget = bm.sampling_widget(W4, B4, T=1.0, initial=[-1, -1, 1, 1], n_sweeps=10)
    first, first_freq = widget.figure_png(), widget.frequencies
    # The histogram is that of a fresh run of 10 sweeps from the widget's seed.
    run = bm.sample(W4, B4, 1.0, n_samples=10, n_chains=100, burn_in=0, initial=[-1, -1, 1, 1], rng=0)
    np.testing.assert_allclose(first_freq, bm.state_frequencies(run.samples))
    widget.sweeps.value = 150
    assert widget.figure_png() != first
    assert bm.total_variation(widget.frequencies, widget.exact) < bm.total_variation(first_freq, widget.exact)
    widget.temperature.value = 3.0
    np.testing.assert_allclose(widget.exact, bm.boltzmann_distribution(W4, B4, 3.0))
    after_T = widget.figure_png()
    widget.rule.value = "metropolis"
    assert widget.figure_png() != after_T
    # Back to the first setting: the same picture again.
    widget.rule.value, widget.temperature.value, widget.sweeps.value = "heat_bath", 1.0, 10
    assert widget.figure_png() == first


def test_sampling_widget_does_not_touch_pyplot_and_checks_arguments():
    widget = bm.sampling_widget(W4, B4)
    open_before = plt.get_fignums()
    widget.sweeps.value = 30
    assert plt.get_fignums() == open_before
    with pytest.raises(ValueError, match="n <= 6"):
        bm.sampling_widget(np.zeros((7, 7)))
    with pytest.raises(TypeError, match="int seed"):
        bm.sampling_widget(W4, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="rule"):
        bm.sampling_widget(W4, rule="gibbs")


# --- the heat-bath self-check -----------------------------------------------------------------


def make_update(p_plus):
    """A draft update that sets s_i = +1 with probability p_plus(s_i, h_i, b_i, T)."""
    def update(s, i, W, b, T, rng):
        h = W[i] @ s + b[i]
        return 1 if rng.random() < p_plus(s[i], h, b[i], T) else -1
    return update


def run(func, capsys):
    result = bm.check_heat_bath_update(func, hint=True)
    # The checkers fold long lines to fit the column; read the words as one text.
    return result, " ".join(capsys.readouterr().out.split())


def test_heat_bath_checker_accepts_correct_updates(capsys):
    ok, out = run(make_update(lambda si, h, bi, T: 1 / (1 + np.exp(-2 * h / T))), capsys)
    assert ok and "Well done" in out

    def with_tanh_and_choice(s, i, W, b, T, rng):  # correct, but draws differently
        p = (1 + np.tanh((W[i] @ s + b[i]) / T)) / 2
        return rng.choice([1, -1], p=[p, 1 - p])

    assert run(with_tanh_and_choice, capsys)[0]


@pytest.mark.parametrize("p_plus, words", [
    (lambda si, h, bi, T: 1 / (1 + np.exp(-h / T)), ["factor 2 is missing", "bits"]),
    (lambda si, h, bi, T: 1 / (1 + np.exp(2 * h / T)), ["AGAINST its field"]),
    (lambda si, h, bi, T: 1 / (1 + np.exp(-2 * h * T)), ["multiplied by T"]),
    (lambda si, h, bi, T: 1 / (1 + np.exp(-2 * h)), ["temperature is missing"]),
    (lambda si, h, bi, T: 1 / (1 + np.exp(-2 * (h - bi) / T)), ["leaves out the bias"]),
    (lambda si, h, bi, T: 1 / (1 + np.exp(2 * si * h / T)), ["probability of FLIPPING"]),
    (lambda si, h, bi, T: 1 - min(1, np.exp(-2 * h / T)) if si > 0 else min(1, np.exp(2 * h / T)),
     ["Metropolis rule"]),
    (lambda si, h, bi, T: float(h > 0), ["energy descent"]),
])
def test_heat_bath_checker_names_the_mistake(p_plus, words, capsys):
    ok, out = run(make_update(p_plus), capsys)
    assert not ok
    assert "exact p(s_" in out and "your function returned +1 in" in out
    for word in words:
        assert word in out


def test_heat_bath_checker_output_is_deterministic(capsys):
    draft = make_update(lambda si, h, bi, T: 1 / (1 + np.exp(-h / T)))
    assert len({run(draft, capsys)[1] for _ in range(2)}) == 1


@pytest.mark.parametrize("func, words", [
    (lambda s, i, W, b, T, rng: int(rng.random() < 0.5), ["0 and 1", "+1 or -1"]),
    (lambda s, i, W, b, T, rng: s, ["shape", "not the whole state"]),
    (lambda s, i, W, b, T, rng: s[10], ["IndexError"]),
    (lambda s, i, W, b, T, rng: None, ["returned None"]),
    (lambda s, i, W, b, T, rng: 2, ["returned 2"]),
])
def test_heat_bath_checker_reports_wrong_return_values(func, words, capsys):
    ok, out = run(func, capsys)
    assert not ok
    for word in words:
        assert word in out


def test_heat_bath_checker_cannot_have_its_inputs_changed(capsys):
    def vandal(s, i, W, b, T, rng):
        W[:] = 0.0
        b[:] = 0.0
        return 1

    run(vandal, capsys)
    assert run(make_update(lambda si, h, bi, T: 1 / (1 + np.exp(-2 * h / T))), capsys)[0]
