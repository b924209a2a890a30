"""The Ising chapter's figures, widget and self-check: structure, numbers drawn, static fallback, diagnoses."""
import base64

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.image import AxesImage

import bmlib as bm



def is_png(data):
    return data[:8] == b"\x89PNG\r\n\x1a\n"


# --- plot_lattices ----------------------------------------------------------

def test_plot_lattices_titles_give_energy_and_magnetization(rng):
    states = rng.choice([-1, 1], size=(3, 6 * 8))
    fig = bm.plot_lattices(states, labels=["a", "b", "c"], shape=(6, 8), J=0.5, h=0.25)
    assert len(fig.axes) == 3
    W, b = bm.square_lattice_couplings(6, 8, J=0.5), np.full(48, 0.25)
    for ax, s, label in zip(fig.axes, states, "abc"):
        image = ax.get_images()[0]
        np.testing.assert_array_equal(image.get_array(), s.reshape(6, 8) == 1)
        first, second = ax.get_title().split("\n")
        assert first == label
        assert second == f"e = {bm.energy(s, W, b) / 48 + 0.0:.2f}, m = {s.mean() + 0.0:.2f}"


def test_plot_lattices_accepts_grids_and_odd_sides():
    grid = np.array([[1, -1, 1], [1, 1, 1], [-1, -1, 1]])
    fig = bm.plot_lattices(grid[None])
    E = bm.energy(grid.ravel(), bm.square_lattice_couplings(3))
    assert fig.axes[0].get_title() == f"e = {E / 9:.2f}, m = {grid.mean():.2f}"


def test_plot_lattices_checks_its_arguments():
    with pytest.raises(ValueError, match="square lattice"):
        bm.plot_lattices(np.ones((1, 12)))
    with pytest.raises(ValueError, match="one entry per state"):
        bm.plot_lattices(np.ones((2, 16)), labels=["only one"])
    with pytest.raises(ValueError, match="spins"):
        bm.plot_lattices(np.zeros((1, 16)))


# --- plot_coupling_matrices -------------------------------------------------

def test_plot_coupling_matrices_draws_each_matrix_on_a_symmetric_scale():
    W_ring, W_sk = bm.chain_couplings(5, J=-1.0), bm.sk_couplings(7, rng=0)
    fig = bm.plot_coupling_matrices([W_ring, W_sk], ["ring", "SK"])
    images = [ax.get_images()[0] for ax in fig.axes if ax.get_images()]
    assert len(images) == 2 and len(fig.axes) == 4  # two matrices, two colour bars
    for image, W in zip(images, (W_ring, W_sk)):
        np.testing.assert_array_equal(image.get_array(), W)
        low, high = image.get_clim()
        assert low == -high == -np.abs(W).max()


def test_plot_coupling_matrices_checks_its_arguments():
    with pytest.raises(ValueError, match="symmetric"):
        bm.plot_coupling_matrices([[[0, 1], [0, 0]]])
    with pytest.raises(ValueError, match="at least one"):
        bm.plot_coupling_matrices([])
    with pytest.raises(ValueError, match="one entry per matrix"):
        bm.plot_coupling_matrices([bm.chain_couplings(3)], ["a", "b"])


# --- plot_phase_transition --------------------------------------------------

@pytest.fixture(scope="module")
def small_scan():
    T = np.array([1.8, 2.3, 3.0])
    return T, bm.temperature_scan(bm.SquareLattice(8), None, T, n_samples=200, n_chains=4, burn_in=50,
                                  initial=np.ones(64), rng=0)


def test_plot_phase_transition_draws_points_and_exact_curves(small_scan):
    T, scan = small_scan
    fig = bm.plot_phase_transition(T, scan, L=8)
    ax_m, ax_e, ax_c, ax_tau = fig.axes
    for ax, name in ((ax_m, "abs_magnetization"), (ax_e, "energy_per_unit"), (ax_c, "specific_heat")):
        (points,) = ax.containers
        np.testing.assert_allclose(points.lines[0].get_ydata(), scan[name].value)
    # Kaufman's curve for the simulated size is drawn on the energy panel, Yang's on |m|.
    kaufman = [line for line in ax_e.lines if "Kaufman (8 x 8" in str(line.get_label())]
    x, y = kaufman[0].get_data()
    np.testing.assert_allclose(y, bm.kaufman_energy_per_spin(8, 8, x))
    yang = [line for line in ax_m.lines if "Yang" in str(line.get_label())]
    np.testing.assert_allclose(yang[0].get_ydata(), bm.yang_magnetization(yang[0].get_xdata()))
    np.testing.assert_allclose(ax_tau.lines[0].get_ydata(), scan["abs_magnetization"].tau)


def test_plot_phase_transition_checks_its_arguments(small_scan):
    T, scan = small_scan
    with pytest.raises(ValueError, match="has 3 values but there are 4 temperatures"):
        bm.plot_phase_transition(T[:2].tolist() + [4.0, 5.0], scan, L=8)
    with pytest.raises(ValueError, match="temperature_scan"):
        bm.plot_phase_transition(T, {"energy_per_unit": scan["energy_per_unit"]}, L=8)


# --- the widget -------------------------------------------------------------

def test_ising_widget_mimebundle_has_png_and_stable_text():
    widget = bm.ising_widget(L=16, sweeps=5)
    bundle, metadata = widget._repr_mimebundle_()  # the metadata carries the picture's alt text
    assert "application/vnd.jupyter.widget-view+json" in bundle
    png = base64.b64decode(bundle["image/png"])
    assert is_png(png) and png == widget.figure_png()
    assert metadata["image/png"]["alt"] == widget.figure_description.text
    text = bundle["text/plain"]
    assert text == bm.ising_widget(L=16, sweeps=5)._repr_mimebundle_()[0]["text/plain"]
    assert text.startswith("IsingWidget: 16 x 16 periodic lattice") and "0x" not in text
    assert widget.figure_description.plain("Figure: ") in text


def test_ising_widget_default_picture_is_reproducible():
    assert bm.ising_widget(L=16, sweeps=5).figure_png() == bm.ising_widget(L=16, sweeps=5).figure_png()
    assert bm.ising_widget(L=16, sweeps=5, rng=1).figure_png() != bm.ising_widget(L=16, sweeps=5).figure_png()


def test_temperature_slider_continues_the_chain_and_changes_the_picture():
    widget = bm.ising_widget(L=16, T=3.0, sweeps=20)
    before, state = widget.figure_png(), widget.state
    widget.temperature.value = 1.0
    assert widget.T == 1.0
    history = widget.history
    assert history.shape == (2, 3) and history[-1, 0] == 1.0
    assert widget.figure_png() != before and is_png(widget.figure_png())
    assert not np.array_equal(widget.state, state)
    # The recorded averages are those of the lattice's own energy and magnetization.
    assert -2.0 <= history[-1, 1] <= 0.0 and 0.0 <= history[-1, 2] <= 1.0


def test_widget_averages_match_a_direct_run():
    # The same seed and the same sweeps as bm.sample from the same start: the same averages.
    widget = bm.ising_widget(L=8, T=2.0, sweeps=30, initial="up", rng=5)
    result = bm.sample(bm.SquareLattice(8), T=2.0, n_samples=30, burn_in=0, initial=np.ones(64), rng=5)
    _, e, m = widget.history[0]
    assert e == pytest.approx(result.energies.mean() / 64)
    assert m == pytest.approx(np.abs(result.samples.mean(axis=2)).mean())
    np.testing.assert_array_equal(widget.state.ravel(), result.final_state[0])


def test_run_and_restart_buttons():
    widget = bm.ising_widget(L=16, T=1.5, sweeps=10)
    first = widget.figure_png()
    widget.run_button.click()
    assert widget.history.shape == (2, 3) and widget.figure_png() != first
    widget.up_button.click()
    assert widget.history.shape == (1, 3) and widget.history[0, 2] > 0.9
    widget.random_button.click()
    assert widget.history.shape == (1, 3)
    assert widget.figure_png() == first  # same seed, same start, same temperature


def test_history_is_bounded():
    widget = bm.ising_widget(L=8, sweeps=1)
    for _ in range(60):
        widget.run()
    assert widget.history.shape == (40, 3)


def test_fresh_draw_matches_the_widget_layout():
    from matplotlib.figure import Figure

    widget = bm.ising_widget(L=16, sweeps=5)
    fig = Figure()
    widget._draw(fig)
    lattice_ax = fig.axes[0]
    (image,) = [a for a in lattice_ax.get_children() if isinstance(a, AxesImage)]
    np.testing.assert_array_equal(image.get_array(), widget.state == 1)
    assert len(fig.axes) == 3


def test_widget_updates_do_not_touch_pyplot():
    widget = bm.ising_widget(L=16, sweeps=5)
    open_before = plt.get_fignums()
    widget.temperature.value = 2.0
    assert plt.get_fignums() == open_before


def test_field_slider_adds_minus_H_sum_s_to_the_energy():
    # One sweep per step, so the recorded e is the energy of the state the step ends in.
    widget = bm.ising_widget(L=8, T=2.0, sweeps=1, rng=5)
    W = bm.square_lattice_couplings(8)
    for H in (0.3, -0.45, 0.0):
        widget.field.value = H
        s = widget.state.ravel().astype(float)
        assert widget.h == H
        assert widget.history[-1, 1] == pytest.approx((bm.energy(s, W) - H * s.sum()) / 64, abs=1e-12)


def test_field_slider_continues_the_chain_and_the_lattice_follows_the_field():
    # Seed 0, 8 x 8 at T = 3 (no order of its own): 40 sweeps in H = -+0.5 give m near -+0.7.
    widget = bm.ising_widget(L=8, T=3.0, sweeps=40, rng=0)
    widget.field.value = -0.5
    assert widget.history.shape == (2, 3) and widget.state.mean() < -0.4
    widget.field.value = 0.5
    assert widget.state.mean() > 0.4
    # A restart keeps T and H; the first picture of a new chain shows H in its title.
    widget.up_button.click()
    assert widget.h == 0.5 and widget.T == 3.0 and "H = 0.50" in widget._describe()
    widget.field.value = -0.0
    assert "H = 0.00" in widget._describe() and bm.ising_widget(h=-0.0).h == 0.0


def _hysteresis(T):
    """First visit's m at each field: the default widget (seed 0, 40 sweeps per step) restarted all up
    at T, the field stepped by 0.05 down to -0.5 and back up to +0.5 (ising-ex-6)."""
    widget = bm.ising_widget(T=T, initial="up")
    down = np.round(np.arange(-0.05, -0.51, -0.05), 2)
    up = np.round(np.arange(-0.45, 0.51, 0.05), 2)
    m = {"down": {}, "up": {}}
    for way, fields in (("down", down), ("up", up)):
        for H in fields:
            widget.field.value = float(H)
            m[way][float(H)] = round(float(widget.state.mean()), 2)
    return m


def test_hysteresis_loops_as_the_chapter_describes_them():
    m = _hysteresis(1.5)
    assert min(m["down"][-0.3], m["down"][-0.35]) > 0.95 and m["down"][-0.4] == 0.36 and m["down"][-0.45] < -0.95
    assert max(m["up"][0.0], m["up"][0.3]) < -0.85 and m["up"][0.35] > 0 and m["up"][0.4] > 0.95
    m = _hysteresis(2.0)
    assert m["down"][-0.15] > 0.5 and m["down"][-0.2] == -0.73
    assert m["up"][0.15] < -0.5 and m["up"][0.2] > 0.8
    m = _hysteresis(3.0)  # no loop above T_c
    assert m["down"][-0.5] == -0.8 and m["up"][0.5] == 0.73 and abs(m["up"][0.0]) < 0.1
    assert 2 * 0.05 * 1024 / 1.5 == pytest.approx(68, abs=0.5)  # the e^68 of the answer


def test_ising_widget_checks_its_arguments():
    with pytest.raises(ValueError, match="even"):
        bm.ising_widget(L=15)
    with pytest.raises(ValueError, match="between"):
        bm.ising_widget(T=10.0)
    with pytest.raises(ValueError, match="<= 64"):
        bm.ising_widget(L=128)
    with pytest.raises(ValueError, match="initial"):
        bm.ising_widget(initial="down")
    with pytest.raises(ValueError, match="h must be between -0.5 and 0.5"):
        bm.ising_widget(h=0.8)
    with pytest.raises(ValueError, match="h must be between -1 and 1"):
        bm.ising_widget(J=2.0, h=-1.5)
    with pytest.raises(TypeError, match="h"):
        bm.ising_widget(h="strong")


# --- the self-check ---------------------------------------------------------

def roll_energy(grid, J, h):
    return -J * (grid * np.roll(grid, -1, 0) + grid * np.roll(grid, -1, 1)).sum() - h * grid.sum()


def loop_energy(grid, J, h):  # a correct draft with loops and modular indices
    rows, cols = grid.shape
    E = 0.0
    for r in range(rows):
        for c in range(cols):
            E -= J * grid[r, c] * (grid[r, (c + 1) % cols] + grid[(r + 1) % rows, c]) + h * grid[r, c]
    return E


def four_neighbours(grid):
    return np.roll(grid, 1, 0) + np.roll(grid, -1, 0) + np.roll(grid, 1, 1) + np.roll(grid, -1, 1)


def run(func, capsys):
    result = bm.check_lattice_energy(func, hint=True)
    # The checkers fold long lines to fit the column; read the words as one text.
    return result, " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("func", [roll_energy, loop_energy])
def test_lattice_checker_accepts_correct_versions(func, capsys):
    ok, out = run(func, capsys)
    assert ok and "Well done" in out


@pytest.mark.parametrize("func, words", [
    (lambda g, J, h: -J * ((g[:, :-1] * g[:, 1:]).sum() + (g[:-1] * g[1:]).sum()) - h * g.sum(),
     ["wrap-around bonds are missing", "np.roll"]),
    (lambda g, J, h: -J * (g * four_neighbours(g)).sum() - h * g.sum(), ["counted twice", "1/2"]),
    (lambda g, J, h: -0.5 * J * (g * np.roll(g, -1, 0) + g * np.roll(g, -1, 1)).sum() - h * g.sum(),
     ["half", "no factor 1/2"]),
    (lambda g, J, h: -J * (g * np.roll(g, -1, 1)).sum() - h * g.sum(), ["Only the horizontal"]),
    (lambda g, J, h: -J * (g * np.roll(g, -1, 0)).sum() - h * g.sum(), ["Only the vertical"]),
    (lambda g, J, h: roll_energy(g, J, 0.0), ["field term", "missing"]),
    (lambda g, J, h: roll_energy(g, J, -h), ["field term has the wrong sign"]),
    (lambda g, J, h: roll_energy(g, -J, h), ["bond term has the wrong sign"]),
    (lambda g, J, h: -roll_energy(g, J, h), ["overall sign"]),
    (lambda g, J, h: roll_energy(g, 1.0, h), ["J is not used"]),
    (lambda g, J, h: roll_energy(g, J, h) / g.size, ["energy per spin"]),
])
def test_lattice_checker_names_the_mistake(func, words, capsys):
    ok, out = run(func, capsys)
    assert not ok
    assert "expected E =" in out and "Input" in out
    for word in words:
        assert word in out


def test_lattice_checker_reports_errors_shapes_and_missing_returns(capsys):
    ok, out = run(lambda g, J, h: g[10, 10], capsys)
    assert not ok and "IndexError" in out
    ok, out = run(lambda g, J, h: g * J, capsys)
    assert not ok and "single number" in out
    ok, out = run(lambda g, J, h: None, capsys)
    assert not ok and "return statement" in out
    ok, out = run(lambda g, J, h: 0.0, capsys)
    assert not ok and "do not fit a simple pattern" in out


def test_lattice_checker_is_deterministic_and_keeps_its_inputs(capsys):
    outputs = {run(lambda g, J, h: roll_energy(g, J, 0.0), capsys)[1] for _ in range(2)}
    assert len(outputs) == 1

    def vandal(grid, J, h):
        grid[:] = 1
        return roll_energy(grid, J, h)

    run(vandal, capsys)
    assert run(roll_energy, capsys)[0]


def test_binder_cumulant_limits_and_exact_value():
    from bmlib.sampling.observables import _binder

    rng = np.random.default_rng(0)
    ordered = rng.choice([-1.0, 1.0], size=(4000, 4))  # m = +-1: U = 1 - 1/3 = 2/3
    assert _binder(ordered).value == pytest.approx(2 / 3)
    gaussian = rng.normal(size=(200_000, 4))  # U = 1 - 3 s^4 / (3 s^4) = 0
    assert abs(_binder(gaussian).value) < 0.01
    # Against enumeration on a 3 x 3 torus at T = 2.5 (seed 3; 8 chains of 20 000 sweeps):
    W = bm.square_lattice_couplings(3)
    S = bm.all_states(9)
    p = bm.boltzmann_distribution(W, T=2.5)
    m = S.mean(axis=1)
    exact = 1 - (p @ m**4) / (3 * (p @ m**2) ** 2)
    run = bm.sample(W, T=2.5, n_samples=20_000, n_chains=8, rng=3)
    got = bm.thermal_averages(run)["binder"]
    assert abs(got.value - exact) < 4 * got.error and got.error < 0.01


@pytest.mark.parametrize("draft, words", [
    (lambda m: 1 - np.mean(m**4) / (3 * np.mean(np.abs(m)) ** 4), "not the fourth power of <|m|>"),
    (lambda m: 1 - np.mean(m**4) / np.mean(m**2) ** 2, "factor 1/3 is missing"),
    (lambda m: 1 - np.mean(m**2) ** 2 / (3 * np.mean(m**4)), "swapped"),
])
def test_binder_checker_names_the_mistake(draft, words, capsys):
    assert bm.check_binder_cumulant(lambda m: 1 - np.mean(m**4) / (3 * np.mean(m**2) ** 2)) is True
    capsys.readouterr()
    assert bm.check_binder_cumulant(draft, hint=True) is False
    assert words in " ".join(capsys.readouterr().out.split())


# --- finite-size scaling of the susceptibility ------------------------------

def _scans(T, sides=(4, 8)):
    return {L: bm.temperature_scan(bm.SquareLattice(L), None, T, n_samples=200, n_chains=2, rng=L) for L in sides}


def test_susceptibility_scaling_draws_the_peaks_and_a_line_of_the_given_slope():
    T = np.array([2.0, 2.3, 2.6, 3.0])
    scans = _scans(T)
    fig = bm.plot_susceptibility_scaling(T, scans, exponent=1.75)
    ax_T, ax_L = fig.axes
    (line,) = [ln for ln in ax_L.get_lines() if ln.get_label().startswith("$\\propto")]
    points = [c for c in ax_L.containers]
    peaks = [np.max(scans[L]["susceptibility"].value) for L in (4, 8)]
    np.testing.assert_allclose([c.lines[0].get_ydata()[0] for c in points], peaks)
    x, y = (np.asarray(v, dtype=float) for v in line.get_data())
    assert x.size == 50
    np.testing.assert_allclose(np.diff(np.log(y)) / np.diff(np.log(x)), 1.75)
    # Through the middle of the points: the geometric mean of peak / L^1.75 is the line's amplitude.
    amplitude = y[0] / x[0] ** 1.75
    assert amplitude == pytest.approx(np.exp(np.mean(np.log(np.array(peaks) / np.array([4, 8]) ** 1.75))))
    assert len(ax_T.containers) == 2
    plt.close(fig)


def test_peak_ties_go_to_the_lowest_temperature():
    from bmlib.plotting.finite_size import _peak

    T = np.array([2.0, 2.5, 3.0])
    estimate = bm.sampling.Estimate(np.array([1.0, 3.0, 3.0]), np.array([0.1, 0.2, 0.3]), np.ones(3))
    assert _peak(T, estimate) == (2.5, 3.0, 0.2)


def test_susceptibility_scaling_checks_its_arguments():
    T = np.array([2.0, 3.0])
    scans = _scans(T)
    with pytest.raises(ValueError, match="at least two lattice sizes"):
        bm.plot_susceptibility_scaling(T, {4: scans[4]})
    with pytest.raises(ValueError, match=r"scans\[4\] must be a temperature_scan at the 3 temperatures"):
        bm.plot_susceptibility_scaling([2.0, 2.5, 3.0], scans)
    with pytest.raises(ValueError, match="exponent"):
        bm.plot_susceptibility_scaling(T, scans, exponent=-1.0)
    with pytest.raises(TypeError, match="non-empty dict"):
        bm.plot_susceptibility_scaling(T, [scans[4], scans[8]])


def test_susceptibility_checker_agrees_with_thermal_averages():
    from bmlib.exercises.ising import _susceptibility_value

    run = bm.sample(bm.SquareLattice(6), T=2.3, n_samples=300, n_chains=4, rng=2)
    m = run.samples.mean(axis=2)
    got = bm.thermal_averages(run)["susceptibility"].value
    assert got == pytest.approx(_susceptibility_value(m, 36, 2.3), rel=1e-12)


@pytest.mark.parametrize("draft, words", [
    (lambda m, n, T: n * np.var(m) / T, "You subtracted <m>^2"),
    (lambda m, n, T: np.var(np.abs(m)) / T, "factor n is missing"),
    (lambda m, n, T: n * n * np.var(np.abs(m)) / T, "one n, not two"),
    (lambda m, n, T: n * np.var(np.abs(m)), "The 1 / T is missing"),
    (lambda m, n, T: n * np.var(np.abs(m)) / T**2, "You divided by T^2"),
    (lambda m, n, T: n * np.std(np.abs(m)) / T, "standard deviation"),
    (lambda m, n, T: n * np.mean(np.var(np.abs(m), axis=0)) / T, "variance within each chain"),
    (lambda m, n, T: 1.0, "fits no typical mistake"),
])
def test_susceptibility_checker_names_the_mistake(draft, words, capsys):
    assert bm.check_susceptibility(lambda m, n, T: n * (np.mean(m**2) - np.mean(np.abs(m)) ** 2) / T) is True
    # The same quantity written as the variance of |m| passes too.
    assert bm.check_susceptibility(lambda m, n, T: n * np.var(np.abs(m)) / T) is True
    capsys.readouterr()
    assert bm.check_susceptibility(draft, hint=True) is False
    assert words in " ".join(capsys.readouterr().out.split())
