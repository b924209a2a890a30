"""The chapter "The deterministic Boltzmann machine": its figures, its widget and its self-check."""
import base64
import warnings

import numpy as np
import pytest
from matplotlib.figure import Figure

import bmlib as bm
from bmlib.exercises.meanfield import _reference_sweep
from bmlib.plotting.meanfield import _uniform_fixed_points

# The chapter's model: two teams {0, 1} and {2, 3} that prefer to disagree.
W4 = np.array([[0, 1, -1, -0.5], [1, 0, -0.5, -1], [-1, -0.5, 0, 1], [-0.5, -1, 1, 0]])
B4 = np.array([0.5, 0, 0, -0.5])



# --- the self-consistency picture ------------------------------------------------------


def test_uniform_fixed_points_form_a_pitchfork():
    for T in (1.5, 1.01, 2.0):  # above T_c = J = 1: only m = 0, stable
        roots, stable = _uniform_fixed_points(1.0, 0.0, T)
        np.testing.assert_allclose(roots, [0.0], atol=1e-12)
        assert stable.tolist() == [True]
    roots, stable = _uniform_fixed_points(1.0, 0.0, 0.6)  # below: -m*, 0 (unstable), +m*
    assert stable.tolist() == [True, False, True]
    np.testing.assert_allclose(roots, [-roots[2], 0.0, roots[2]], atol=1e-12)
    np.testing.assert_allclose(roots, np.tanh(roots / 0.6), atol=1e-12)
    # A bias breaks the symmetry: at high T one positive root, at low T a metastable negative one too.
    roots, stable = _uniform_fixed_points(1.0, 0.1, 1.5)
    assert len(roots) == 1 and roots[0] > 0
    roots, stable = _uniform_fixed_points(1.0, 0.1, 0.5)
    assert stable.tolist() == [True, False, True] and roots[0] < 0 < roots[2] and abs(roots[0]) < roots[2]


def test_uniform_fixed_points_are_what_the_solver_finds_on_the_full_network():
    # The one-unit picture is the n-unit equations when all units have the same mean.
    W = bm.curie_weiss_couplings(10, 1.0)
    for T, b in ((0.6, 0.0), (0.5, 0.1), (1.5, 0.2)):
        roots, stable = _uniform_fixed_points(1.0, b, T)
        for start in (0.9, -0.9):
            res = bm.naive_mean_field(W, np.full(10, b), T, initial=np.full(10, start))
            assert res.converged
            nearest = roots[stable][np.argmin(np.abs(roots[stable] - res.m[0]))]
            np.testing.assert_allclose(res.m, nearest, atol=1e-8)


def test_plot_self_consistency_draws_the_solutions_and_the_exact_averages():
    fig = bm.plot_self_consistency(J=1.0, b=0.0, temperatures=(1.5, 0.6), n=6)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    left, right = fig.axes
    # Left: the diagonal, one curve per temperature, the cobweb; the solutions as points on the diagonal.
    points = [line for line in left.lines if line.get_marker() == "o" and len(line.get_xdata())]
    xs = np.concatenate([line.get_xdata() for line in points])
    np.testing.assert_allclose(xs, np.concatenate([line.get_ydata() for line in points]))
    assert len(xs) == 1 + 3  # T = 1.5: one solution; T = 0.6: three
    # Right: the exact <s_i> of the 6 spins is 0 by symmetry; the rms magnetization is exact.
    exact = [line for line in right.lines if "exact" in str(line.get_label())]
    mean_line, rms_line = exact
    np.testing.assert_allclose(mean_line.get_ydata(), 0.0, atol=1e-12)
    T, rms = rms_line.get_xdata()[5], rms_line.get_ydata()[5]
    _, second = bm.exact_moments(bm.curie_weiss_couplings(6, 1.0), T=T)
    np.testing.assert_allclose(rms, np.sqrt((1 + 5 * second[0, 1]) / 6))


def test_plot_self_consistency_validates():
    with pytest.raises(ValueError, match="n must be <= 16"):
        bm.plot_self_consistency(n=20)
    with pytest.raises(ValueError, match="T_range"):
        bm.plot_self_consistency(T_range=(2.0, 1.0))
    with pytest.raises(ValueError, match="initial"):
        bm.plot_self_consistency(initial=1.5)


# --- the accuracy scatter --------------------------------------------------------------


def test_plot_mean_field_accuracy_plots_exact_against_mean_field():
    W = bm.sk_couplings(6, rng=0)
    b = np.linspace(-0.3, 0.3, 6)
    fig = bm.plot_mean_field_accuracy([(W, b, 2.0), (W, b, 0.5, "spins")], titles=["a", "b"], linear_response=True)
    assert len(fig.axes) == 2
    ax = fig.axes[0]
    pairs, units, response = ax.collections
    mean, second = bm.exact_moments(W, b, 2.0)
    res = bm.naive_mean_field(W, b, 2.0, rng=0)
    i, j = np.triu_indices(6, 1)
    np.testing.assert_allclose(pairs.get_offsets(), np.column_stack([second[i, j], np.outer(res.m, res.m)[i, j]]))
    np.testing.assert_allclose(units.get_offsets(), np.column_stack([mean, res.m]))
    np.testing.assert_allclose(response.get_offsets()[:, 1], res.moments(linear_response=True)[1][i, j])
    assert "largest error" in ax.get_title()


def test_plot_mean_field_accuracy_takes_machines_and_bits():
    machine = bm.BoltzmannMachine(5, units="bits", init_scale=0.5, rng=0)
    fig = bm.plot_mean_field_accuracy(machine)
    assert len(fig.axes) == 1 and len(fig.axes[0].collections) == 2
    assert fig.axes[0].get_xlim()[0] > -0.5  # bits: averages in [0, 1]
    fig = bm.plot_mean_field_accuracy([machine, machine], method="tap")
    assert len(fig.axes) == 2


def test_plot_mean_field_accuracy_validates():
    W = bm.sk_couplings(4, rng=0)
    with pytest.raises(ValueError, match="titles"):
        bm.plot_mean_field_accuracy([(W, None, 1.0)], titles=["a", "b"])
    with pytest.raises(TypeError, match="models\\[0\\]"):
        bm.plot_mean_field_accuracy([3.0])
    with pytest.raises(ValueError, match="method"):
        bm.plot_mean_field_accuracy([(W, None, 1.0)], method="bethe")


# --- the widget ------------------------------------------------------------------------


def test_widget_static_fallback_is_deterministic():
    w = bm.mean_field_widget(W4, B4, T=1.0)
    bundle, metadata = w._repr_mimebundle_()
    assert base64.b64decode(bundle["image/png"])[:4] == b"\x89PNG"
    assert metadata["image/png"]["alt"] == w.figure_description.text  # the static picture's words
    text = bundle["text/plain"]
    assert text == bm.mean_field_widget(W4, B4, T=1.0)._repr_mimebundle_()[0]["text/plain"]
    assert "2 mean-field solution(s)" in text and "6.019" in text and "6.152" in text


def test_widget_shows_the_solutions_and_the_exact_averages():
    w = bm.mean_field_widget(W4, B4, T=1.0)
    (best, best_bound), (other, other_bound) = w.solutions
    np.testing.assert_allclose(best, bm.naive_mean_field(W4, B4, 1.0, rng=0).m, atol=1e-6)
    assert np.all(np.sign(best) == [1, 1, -1, -1]) and np.all(np.sign(other) == [-1, -1, 1, 1])
    assert best_bound > other_bound and best_bound <= w.log_z
    np.testing.assert_allclose(w.exact_mean, bm.exact_moments(W4, B4, 1.0)[0])
    assert w.log_z == pytest.approx(bm.log_partition(W4, B4, 1.0))


def test_widget_sliders_change_the_model_and_the_picture():
    w = bm.mean_field_widget(W4, B4, T=1.0)
    png = w.figure_png()
    w.temperature.value = 3.0
    assert w.T == pytest.approx(3.0, rel=0.05) and len(w.solutions) == 1 and w.figure_png() != png
    w.coupling.value = 0.0  # no weights: independent units, mean field is exact
    np.testing.assert_allclose(w.W, 0.0)
    np.testing.assert_allclose(w.solutions[0][0], np.tanh(B4 / w.T), atol=1e-7)
    assert w.solutions[0][1] == pytest.approx(w.log_z, abs=1e-9)
    w.coupling.value = 1.5
    np.testing.assert_allclose(w.W, 1.5 * W4)
    assert w.log_z == pytest.approx(bm.log_partition(1.5 * W4, B4, w.T))


def test_widget_in_bits_and_its_limits():
    Wx, bx, _ = bm.to_bits_parameters(W4, B4)
    w = bm.mean_field_widget(Wx, bx, T=1.0, units="bits")
    spins = bm.mean_field_widget(W4, B4, T=1.0)
    np.testing.assert_allclose(w.solutions[0][0], (1 + spins.solutions[0][0]) / 2, atol=1e-6)
    assert "bits" in w._repr_mimebundle_()[0]["text/plain"]
    with pytest.raises(ValueError, match="n <= 10"):
        bm.mean_field_widget(np.zeros((11, 11)))
    with pytest.raises(ValueError, match="coupling"):
        bm.mean_field_widget(W4, coupling=-1.0)


# --- the self-check --------------------------------------------------------------------


def run(func, capsys):
    result = bm.check_mean_field_sweep(func, hint=True)
    # The checkers fold long lines to fit the column; read the words as one text.
    return result, " ".join(capsys.readouterr().out.split())


def sweep_loop(m, W, b, T, damping):
    m = m.copy()
    for i in range(len(m)):
        m[i] = damping * m[i] + (1 - damping) * np.tanh((W[i] @ m + b[i]) / T)
    return m


def sweep_parallel(m, W, b, T, damping):
    return damping * m + (1 - damping) * np.tanh((W @ m + b) / T)


def sweep_sigmoid(m, W, b, T, damping):
    m = m.copy()
    for i in range(len(m)):
        m[i] = damping * m[i] + (1 - damping) / (1 + np.exp(-(W[i] @ m + b[i]) / T))
    return m


def sweep_no_temperature(m, W, b, T, damping):
    return sweep_loop(m, W, b, 1.0, damping)


def sweep_probability(m, W, b, T, damping):
    m = m.copy()
    for i in range(len(m)):
        m[i] = damping * m[i] + (1 - damping) / (1 + np.exp(-2 * (W[i] @ m + b[i]) / T))
    return m


def sweep_reversed_damping(m, W, b, T, damping):
    return sweep_loop(m, W, b, T, 1 - damping)


def sweep_sampled(m, W, b, T, damping):
    return np.where(sweep_loop(m, W, b, T, 0.0) > 0, 1.0, -1.0)


def test_sweep_reference_is_one_sweep_of_the_library_solver():
    for m, W, b, T, damping in bm.exercises.meanfield._mean_field_sweep_cases():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bm.ConvergenceWarning)
            res = bm.naive_mean_field(W, b, T, initial=m, damping=damping, max_iter=1, tol=1e-300)
        np.testing.assert_allclose(_reference_sweep(m, W, b, T, damping), res.m, atol=1e-12)


def test_sweep_checker_accepts_a_right_sweep(capsys):
    ok, out = run(sweep_loop, capsys)
    assert ok and "Well done" in out


@pytest.mark.parametrize("func, words", [
    (sweep_parallel, ["all units at once", "never settle"]),
    (sweep_sigmoid, ["equation for BITS"]),
    (sweep_no_temperature, ["temperature is missing"]),
    (sweep_probability, ["PROBABILITY of +1"]),
    (sweep_reversed_damping, ["damping is reversed"]),
    (sweep_sampled, ["only -1 and +1"]),
    (lambda m, W, b, T, d: sweep_parallel(m, W, 0 * b, T, d), ["bias is missing", "all units at once"]),
])
def test_sweep_checker_names_the_mistake(func, words, capsys):
    ok, out = run(func, capsys)
    assert not ok and "expected new m" in out
    for word in words:
        assert word in out, out


def test_sweep_checker_reports_errors_and_shapes(capsys):
    ok, out = run(lambda m, W, b, T, d: None, capsys)
    assert not ok and "returned None" in out and "in place" in out
    ok, out = run(lambda m, W, b, T, d: m[:2], capsys)
    assert not ok and "shape" in out
    ok, out = run(lambda m, W, b, T, d: m[10], capsys)
    assert not ok and "IndexError" in out


def test_sweep_checker_output_is_deterministic(capsys):
    assert len({run(sweep_parallel, capsys)[1] for _ in range(2)}) == 1
