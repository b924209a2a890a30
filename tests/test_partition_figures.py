"""The chapter "The normalizing constant Z": the comparison, its figures, its widget and its self-checks."""
import base64
import copy

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure

import bmlib as bm
from bmlib.partition.study import METHODS, SAMPLING

W8 = bm.sk_couplings(8, rng=0)
TEMPS = [2.0, 1.0, 0.5]



@pytest.fixture(scope="module")
def comparison():
    return bm.compare_log_z(W8, temperatures=TEMPS, budgets=(300, 1000), rng=0)


# --- the comparison --------------------------------------------------------------------


def test_comparison_holds_every_method_at_every_temperature_and_budget(comparison):
    assert comparison.methods == tuple(METHODS)
    np.testing.assert_allclose(comparison.exact, [bm.log_partition(W8, T=T) for T in TEMPS])
    for key in comparison.methods:
        assert comparison.log_z[key].shape == comparison.work[key].shape == (2, 3)
        if key not in SAMPLING:  # deterministic: one run, repeated for every budget
            np.testing.assert_array_equal(comparison.log_z[key][0], comparison.log_z[key][1])
    # Bounds are bounds (theorems): naive mean field and the visited-states sum never exceed log Z.
    assert np.all(comparison.errors("mean_field", 300) <= 1e-9)
    assert np.all(comparison.errors("visited", 300) <= 1e-9) and np.all(comparison.errors("visited") <= 1e-9)
    # The budgets are spent as documented: IS one energy per unit, AIS 50 runs of budget // 100 steps.
    np.testing.assert_array_equal(comparison.work["is_uniform"][:, 0], [300, 1000])
    np.testing.assert_array_equal(comparison.work["ais"][:, 0], [50 * 2 + 50 * 3, 50 * 9 + 50 * 10])
    assert comparison.exact_work == 256
    assert np.isnan(comparison.error["tap"]).all() and np.isfinite(comparison.error["ais"]).all()


def test_comparison_is_reproducible_and_its_table_deterministic(comparison):
    again = bm.compare_log_z(W8, temperatures=TEMPS, budgets=(300, 1000), rng=0)
    np.testing.assert_array_equal(again.log_z["ais"], comparison.log_z["ais"])
    table = comparison.table()
    assert table == again.table()
    lines = table.splitlines()
    assert lines[0].split()[:3] == ["T", "exact", "log"] and len(lines) == 1 + 3 + 3  # header, rows, note
    assert "1000 passes over W" in lines[-2]
    assert lines[-1] == f" exact, by enumeration: {2**8} energy evaluations)"
    assert "300 passes over W" in comparison.table(budget=300)
    # Warnings become flags in the table, not noise: TAP outside its range on a spin glass at T = 0.5.
    tap = bm.compare_log_z(bm.sk_couplings(16, rng=3), temperatures=[2.0, 0.5], methods=["tap"], rng=0)
    assert list(tap.flags["tap"]) == ["", " P!"] and tap.table().splitlines()[2].endswith("P!")


def test_comparison_checks_its_arguments(comparison):
    with pytest.raises(ValueError, match=r"budgets\[0\] must be >= 100; got 50"):
        bm.compare_log_z(W8, temperatures=[1.0], budgets=[50])
    with pytest.raises(ValueError, match=r"methods\[1\] must be one of"):
        bm.compare_log_z(W8, temperatures=[1.0], methods=["ais", "gibbs"])
    with pytest.raises(ValueError, match=r"temperatures must be finite and > 0; temperatures\[1\] = -1.0"):
        bm.compare_log_z(W8, temperatures=[1.0, -1.0])
    with pytest.raises(ValueError, match="non-empty 1-D sequence of temperatures"):
        bm.compare_log_z(W8, temperatures=[])
    with pytest.raises(ValueError, match="n = 31 units exceeds the limit.*sparse_log_partition"):
        bm.compare_log_z(bm.sk_couplings(31, rng=0), temperatures=[1.0])  # dense: no exact value
    with pytest.raises(ValueError, match=r"budget must be one of \[300, 1000\]; got 5000"):
        comparison.table(budget=5000)
    with pytest.raises(ValueError, match="method must be one of"):
        comparison.errors("exact")
    few = bm.compare_log_z(W8, temperatures=[1.0], methods=["mean_field", "ais"], budgets=[200], rng=1)
    assert few.methods == ("mean_field", "ais") and few.table().splitlines()[0].split()[-2:] == ["MF", "AIS"]


# --- figures ---------------------------------------------------------------------------


def test_error_figure_draws_every_method_with_the_exact_line(comparison):
    fig = bm.plot_log_z_errors(comparison, mark_T=1.0, mark_label="T = J")
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    ax_z, ax_left, ax_right = fig.axes
    # Top: the exact log Z per unit as a line.
    np.testing.assert_allclose(ax_z.lines[0].get_ydata(), comparison.exact / 8)
    # Bottom: a zero "exact" line and one line per method, its data the errors (largest budget).
    labels = [text.get_text() for ax in (ax_left, ax_right) for text in ax.get_legend().get_texts()]
    assert labels.count("exact") == 2 and all(METHODS[key] in labels for key in comparison.methods)
    visited = [line for line in ax_left.lines if line.get_label() == METHODS["visited"]][0]
    np.testing.assert_allclose(visited.get_ydata(), comparison.errors("visited"))
    assert any(line.get_xdata()[0] == 1.0 and line.get_linestyle() == "--" for line in ax_left.lines)


def test_error_figure_clips_far_errors_and_labels_them():
    torus = bm.square_lattice_couplings(4)
    comp = bm.compare_log_z(torus, temperatures=[5.0, 1.0], budgets=[100], methods=["is_uniform"], rng=0)
    err = comp.errors("is_uniform")
    assert err.min() < -2  # uniform importance sampling far below its range
    fig = bm.plot_log_z_errors(comp)
    ax_right = fig.axes[2]
    (container,) = [c for c in ax_right.containers if c.get_label() == METHODS["is_uniform"]]  # an errorbar
    assert container.lines[0].get_ydata().min() >= -2.0
    assert any(text.get_text() == f"{err.min():+.1f}" for text in ax_right.texts)


def test_cost_figure_has_a_panel_per_temperature(comparison):
    fig = bm.plot_log_z_cost(comparison)
    assert len(fig.axes) == 3
    fig = bm.plot_log_z_cost(comparison, temperatures=[0.5, 2.0])
    assert [ax.get_title() for ax in fig.axes] == ["T = 0.5", "T = 2"]
    ais = [line for line in fig.axes[0].lines if line.get_label() == "AIS"][0]
    np.testing.assert_array_equal(ais.get_xdata(), comparison.work["ais"][:, 2])
    with pytest.raises(ValueError, match="temperatures must be among"):
        bm.plot_log_z_cost(comparison, temperatures=[3.0])
    with pytest.raises(TypeError, match="comparison must be a LogZComparison"):
        bm.plot_log_z_cost(W8)
    with pytest.raises(TypeError, match="comparison must be a LogZComparison"):
        bm.plot_log_z_errors({"log_z": 1})


# --- widget ----------------------------------------------------------------------------


def is_png(data):
    return data[:8] == b"\x89PNG\r\n\x1a\n"


def test_widget_mimebundle_has_png_and_deterministic_text(comparison):
    widget = bm.partition_widget(comparison)
    bundle, metadata = widget._repr_mimebundle_()  # the metadata carry the picture's words as its alt
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert is_png(base64.b64decode(bundle["image/png"]))
    assert metadata["image/png"]["alt"] == widget.figure_description.text
    text = bundle["text/plain"]
    assert text == bm.partition_widget(comparison)._repr_mimebundle_()[0]["text/plain"]
    assert text.startswith("PartitionWidget: n=8 spins, 3 temperatures") and "0x" not in text


def test_widget_slider_and_menu_change_the_picture_not_the_numbers(comparison):
    widget = bm.partition_widget(comparison, T=2.0)
    assert widget.T == 2.0 and widget.budget == 1000
    first = widget.figure_png()
    widget.temperature_index.value = 2
    assert widget.T == 0.5
    second = widget.figure_png()
    widget.budget_menu.value = 0
    assert widget.budget == 300
    third = widget.figure_png()
    assert len({first, second, third}) == 3 and all(map(is_png, (first, second, third)))
    assert widget.comparison is comparison  # nothing recomputed


def test_widget_built_from_weights_computes_the_same_comparison(comparison):
    widget = bm.partition_widget(W8, temperatures=TEMPS, budgets=(300, 1000), rng=0)
    np.testing.assert_array_equal(widget.comparison.log_z["ais"], comparison.log_z["ais"])
    assert widget.figure_png() == bm.partition_widget(comparison).figure_png()
    with pytest.raises(ValueError, match=r"budgets\[0\] must be >= 100"):
        bm.partition_widget(W8, budgets=[10])


def test_widget_updates_do_not_touch_pyplot(comparison):
    widget = bm.partition_widget(comparison)
    open_before = plt.get_fignums()
    widget.temperature_index.value = 0
    assert plt.get_fignums() == open_before


# --- self-checks -----------------------------------------------------------------------


def run(checker, func, capsys):
    result = checker(func, hint=True)
    # The checkers fold long lines to fit the column; read the words as one text.
    return result, " ".join(capsys.readouterr().out.split())


def log_mean_exp(log_w):
    m = np.max(log_w)
    return m + np.log(np.mean(np.exp(log_w - m)))


def test_log_mean_exp_checker_accepts_a_stable_version(capsys):
    ok, out = run(bm.check_log_mean_exp, log_mean_exp, capsys)
    assert ok and "Well done" in out


@pytest.mark.parametrize("func, words", [
    (lambda x: np.log(np.mean(np.exp(x))), ["overflows", "Subtract the largest"]),
    (lambda x: log_mean_exp(x) + np.log(len(x)), ["log of the SUM"]),
    (lambda x: np.log(np.sum(np.exp(x))), ["log of the SUM", "overflows"]),
    (lambda x: np.mean(x), ["geometric mean", "Jensen"]),
    (lambda x: np.max(x), ["largest log weight only"]),
    (lambda x: np.log(np.mean(np.exp(x - np.max(x)))), ["did not add it back"]),
    (lambda x: None, ["return statement"]),
    (lambda x: np.exp(x), ["single number"]),
])
def test_log_mean_exp_checker_names_the_mistake(func, words, capsys):
    ok, out = run(bm.check_log_mean_exp, func, capsys)
    assert not ok
    for word in words:
        assert word in out


def bound(m, W, b, T):
    p, q = (1 + m) / 2, (1 - m) / 2
    return (0.5 * m @ W @ m + b @ m) / T - np.sum(p * np.log(p) + q * np.log(q))


def entropy(m):
    p, q = (1 + m) / 2, (1 - m) / 2
    return -np.sum(p * np.log(p) + q * np.log(q))


def test_mean_field_checker_accepts_the_bound(capsys):
    ok, out = run(bm.check_mean_field_bound, bound, capsys)
    assert ok and "each lies below log Z" in out


@pytest.mark.parametrize("func, words", [
    (lambda m, W, b, T: (0.5 * m @ W @ m + b @ m) / T, ["entropy term is missing"]),
    (lambda m, W, b, T: -(0.5 * m @ W @ m + b @ m) / T + entropy(m), ["energy term has the wrong sign"]),
    (lambda m, W, b, T: (m @ W @ m + b @ m) / T + entropy(m), ["twice too large"]),
    (lambda m, W, b, T: (0.5 * m @ W @ m + b @ m) + entropy(m), ["not divided by T"]),
    (lambda m, W, b, T: (0.5 * m @ W @ m + b @ m) / T + entropy(m) / np.log(2), ["in bits"]),
    (lambda m, W, b, T: (0.5 * m @ W @ m + b @ m) / T - entropy(m), ["entropy enters with the wrong sign"]),
    (lambda m, W, b, T: (0.5 * m @ W @ m) / T + entropy(m), ["bias term b^T m / T is missing"]),
])
def test_mean_field_checker_names_the_mistake(func, words, capsys):
    ok, out = run(bm.check_mean_field_bound, func, capsys)
    assert not ok and "expected Phi(m) =" in out
    for word in words:
        assert word in out


def test_mean_field_checker_says_when_a_value_is_no_bound(capsys):
    ok, out = run(bm.check_mean_field_bound, lambda m, W, b, T: bound(m, W, b, T) + 10.0, capsys)
    assert not ok and "ABOVE the exact log Z" in out


def test_a_sparse_machine_past_enumeration_is_compared_against_elimination():
    W = bm.square_lattice_couplings(6, periodic=False)  # 36 units
    b = np.random.default_rng(1).normal(scale=0.3, size=36)
    comp = bm.compare_log_z(W, b, temperatures=[2.0], budgets=[300], methods=["mean_field", "bethe"], rng=0)
    assert comp.exact_method == "elimination" and comp.exact_work == bm.elimination_plan(W).work
    assert comp.exact[0] == pytest.approx(bm.sparse_log_partition(W, b, T=2.0), rel=1e-14)
    assert np.all(comp.errors("mean_field") <= 0)  # the bound still holds against the exact value
    assert "exact, by elimination" in comp.table()


def test_table_keeps_the_sign_of_a_small_error_but_not_of_float_noise(comparison):
    """A lower bound 0.0017 below log Z prints as -0.00, not +0.00 (a reader was told it is a bound and
    saw a plus sign); an error of 1e-13, float noise whose sign differs between machines, as +0.00."""
    shown = copy.deepcopy(comparison)
    shown.log_z["mean_field"][-1] = shown.exact + np.array([-0.0017, 1e-13, -1e-13])
    cells = [line.split()[3] for line in shown.table().splitlines()[1:4]]
    assert cells == ["-0.00", "+0.00", "+0.00"]
