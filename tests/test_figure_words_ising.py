"""The Ising chapter's figures in words (issue 24): each figure's description is set, its numbers are the
data's (worked out here independently), the widget's words follow its controls, and curves told apart by
colour also differ by dash or marker."""
import numpy as np
import pytest

import bmlib as bm
from bmlib.plotting.words import FALLBACK_OPENING, number
from bmlib.sampling import Estimate
from bmlib.sampling.clusters import CriticalSlowing
from conftest import described



def words(fig):
    """The figure's own description (never the made-up fallback), as one text."""
    return described(fig).text


def percent(fraction):
    """A fraction as the figures write it: a percentage with two significant digits, no exponent."""
    return f"{float(f'{100 * fraction:.2g}'):g}%"


def alike_pairs(grid):
    """Fraction of the periodic lattice's neighbour pairs with equal spins, by a loop over the sites."""
    rows, cols = grid.shape
    same = [grid[r, c] == grid[r, (c + 1) % cols] for r in range(rows) for c in range(cols)]
    same += [grid[r, c] == grid[(r + 1) % rows, c] for r in range(rows) for c in range(cols)]
    return np.mean(same)


def fake_scan(name, values, errors=None):
    values = np.asarray(values, dtype=float)
    errors = np.full(values.shape, 0.01) if errors is None else np.asarray(errors, dtype=float)
    return {name: Estimate(values, errors, np.ones(values.shape))}


def distinct_styles(lines):
    """Each line differs from every other by its dash or its marker."""
    styles = [(line.get_linestyle(), line.get_marker()) for line in lines]
    return len(set(styles)) == len(styles)


# --- plot_lattices ----------------------------------------------------------

def test_lattices_words_give_each_panel_its_energy_magnetization_and_pattern():
    rng = np.random.default_rng(3)
    states = np.stack([np.ones(36), rng.choice([-1, 1], 36), np.tile([1, -1], 18)])
    fig = bm.plot_lattices(states, labels=["up", "random", "columns"], J=1.0, h=0.0)
    text = words(fig)
    W = bm.square_lattice_couplings(6)
    e = [bm.energy(s, W) / 36 for s in states]
    m = states.mean(axis=1)
    assert fig.description.summary.startswith("3 6 x 6 periodic lattices of spins")
    assert f"m runs from {number(m.min())} to {number(m.max())}" in text
    for label, s, e_i, m_i in zip(["up", "random", "columns"], states, e, m):
        grid = s.reshape(6, 6)
        assert (f"“{label}”: e = {number(e_i)}, m = {number(m_i)}, {percent((s == 1).mean())} of spins +1, "
                f"{percent(alike_pairs(grid))} of neighbouring pairs alike") in text
    # The columns alternate: every horizontal pair differs, every vertical one agrees.
    assert "“columns”: e = 0, m = 0, 50% of spins +1, 50% of neighbouring pairs alike" in text


def test_a_single_lattice_is_described_in_its_summary():
    grid = np.array([[1, 1, -1], [1, 1, 1], [-1, 1, 1]])
    fig = bm.plot_lattices(grid[None], labels=["seven up"])
    E = bm.energy(grid.ravel(), bm.square_lattice_couplings(3)) / 9
    summary = fig.description.summary
    assert "titled “seven up”" in summary
    assert f"e = {number(E)}" in summary and f"m = {number(grid.mean())}" in summary
    assert f"{percent(7 / 9)} of spins +1, {percent(alike_pairs(grid))} of neighbouring pairs alike" in summary


# --- plot_coupling_matrices -------------------------------------------------

def test_coupling_matrix_words_count_the_pairs_and_their_signs():
    W_ring, W_sk = bm.chain_couplings(5, J=-1.0), bm.sk_couplings(7, rng=0)
    fig = bm.plot_coupling_matrices([W_ring, W_sk], ["ring", "SK"])
    text = words(fig)
    assert "“ring”: 5 units, 5 of the 10 pairs coupled" in fig.description.summary
    assert "“ring”: couplings all −1 (0 positive, 5 negative); every unit is coupled to 2 others" in text
    upper = W_sk[np.triu_indices(7, 1)]
    assert "“SK”: 7 units, 21 of the 21 pairs coupled" in fig.description.summary
    assert (f"“SK”: couplings from {number(upper.min())} to {number(upper.max())} "
            f"({(upper > 0).sum()} positive, {(upper < 0).sum()} negative)") in text
    assert f"colour scale ±{number(np.abs(W_sk).max())}" in text


def test_coupling_noise_is_no_coupling():
    W = np.zeros((3, 3))
    W[0, 1] = W[1, 0] = 1.0
    W[1, 2] = W[2, 1] = 1e-17  # float noise where a zero was meant
    fig = bm.plot_coupling_matrices([W])
    assert "matrix 1: 3 units, 1 of the 3 pairs coupled" in fig.description.summary
    assert "each unit is coupled to 0 to 1 others" in fig.description.details


# --- plot_phase_transition --------------------------------------------------

@pytest.fixture(scope="module")
def small_scan():
    T = np.array([1.8, 2.3, 3.0])
    return T, bm.temperature_scan(bm.SquareLattice(4), None, T, n_samples=100, n_chains=2, burn_in=20,
                                  initial=np.ones(16), rng=0)


def test_phase_transition_words_give_the_measured_and_exact_numbers(small_scan):
    T, scan = small_scan
    fig = bm.plot_phase_transition(T, scan, L=4)
    text = words(fig)
    m, e, c = (scan[name].value for name in ("abs_magnetization", "energy_per_unit", "specific_heat"))
    assert "T from 1.8 to 3 for the 4 x 4 periodic Ising lattice" in text
    assert f"from {number(m[0])} at T = 1.8 to {number(m[2])} at T = 3" in text
    top = max(range(3), key=lambda k: (float(number(c[k])), -k))
    assert f"the measured c is largest, {number(c[top])} at T = {number(T[top], 3)}" in text
    assert f"Yang's dashed curve for the infinite lattice is {number(bm.yang_magnetization(1.8))} at T = 1.8" in text
    off = max(abs(e[k] - bm.kaufman_energy_per_spin(4, 4, T[k])) for k in range(3))
    assert f"at most {number(off)} from Kaufman's exact 4 x 4 curve, solid" in text
    # The infinite lattice's dashed curve against the 4 x 4 one, read off the drawn lines themselves.
    lines = {line.get_label(): line for line in fig.axes[1].get_lines()}
    onsager, kaufman = lines["Onsager (infinite lattice)"], lines["Kaufman (4 x 4, exact)"]
    assert onsager.get_linestyle() == "--" and kaufman.get_linestyle() == "-"
    gap = np.abs(onsager.get_ydata() - kaufman.get_ydata())
    assert f"Onsager's dashed curve for the infinite lattice is at most {number(gap.max())} from it" in text
    assert f"T_c = {number(bm.critical_temperature(), 3)}" in text


def test_phase_transition_autocorrelation_curves_differ_by_more_than_colour(small_scan):
    T, scan = small_scan
    ax_tau = bm.plot_phase_transition(T, scan, L=4).axes[3]
    tau_lines = [line for line in ax_tau.get_lines() if line.get_label() in ("of |m|", "of e")]
    assert len(tau_lines) == 2 and distinct_styles(tau_lines)
    assert tau_lines[0].get_marker() != tau_lines[1].get_marker()


# --- plot_binder_crossing ---------------------------------------------------

T4 = np.array([2.0, 2.2, 2.4, 2.6])


def test_binder_words_find_where_the_curves_cross():
    scans = {4: fake_scan("binder", [0.6, 0.5, 0.4, 0.3]),
             8: fake_scan("binder", [0.65, 0.55, 0.35, 0.2]),
             16: fake_scan("binder", [0.66, 0.6, 0.3, 0.1])}
    fig = bm.plot_binder_crossing(T4, scans)
    text = words(fig)
    assert "lattice sides L = 4, 8 and 16" in text
    # L = 16 minus L = 4: +0.06, +0.1, -0.1, -0.2; zero halfway between 2.2 and 2.4.
    assert "The curves of L = 4 and L = 16 cross once, at T ≈ 2.3." in fig.description.summary
    assert "L = 8 and L = 16 cross once, at T ≈ 2.3" in text  # +0.01, +0.05, -0.05
    assert "L = 4 and L = 8 cross once, at T ≈ 2.3" in text
    assert "L = 16: U is 0.66 at T = 2 and 0.1 at T = 2.6" in text


def test_binder_words_say_when_curves_do_not_cross():
    scans = {4: fake_scan("binder", [0.6, 0.5, 0.4, 0.3]), 8: fake_scan("binder", [0.65, 0.55, 0.45, 0.35])}
    text = words(bm.plot_binder_crossing(T4, scans))
    assert "L = 4 and L = 8 do not cross between T = 2 and 2.6" in text


def test_binder_curves_differ_by_dash_and_marker():
    scans = {L: fake_scan("binder", np.linspace(0.6, 0.1 * k, 4)) for k, L in enumerate((4, 8, 16))}
    ax = bm.plot_binder_crossing(T4, scans).axes[0]
    lines = [container.lines[0] for container in ax.containers]
    assert len(lines) == 3 and distinct_styles(lines)
    assert len({line.get_marker() for line in lines}) == 3 and len({str(line.get_linestyle()) for line in lines}) == 3


# --- plot_susceptibility_scaling --------------------------------------------

T3 = np.array([2.1, 2.3, 2.5])


def test_susceptibility_words_give_the_peaks_and_how_they_grow():
    values = {4: [1.0, 2.0, 1.5], 8: [2.0, 6.0, 4.0], 16: [5.0, 11.0, 20.0]}
    scans = {L: fake_scan("susceptibility", v, [0.1, 0.2, 0.3]) for L, v in values.items()}
    fig = bm.plot_susceptibility_scaling(T3, scans, exponent=1.75)
    text = words(fig)
    x, y = np.log([4.0, 8.0, 16.0]), np.log([2.0, 6.0, 20.0])
    slope = ((x - x.mean()) * (y - y.mean())).sum() / ((x - x.mean()) ** 2).sum()
    assert f"The peak grows from 2 at L = 4 to 20 at L = 16, like L^{number(slope)}." in fig.description.summary
    assert "proportional to L^1.75" in text
    assert "L = 8: largest 6 ± 0.2 at T = 2.3, over a range from 2 to 6." in text
    assert "L = 16: largest 20 ± 0.3 at T = 2.5" in text


def test_susceptibility_words_name_the_peak_drawn_and_printed():
    # 1.786 and 1.818 both read 1.8, yet the peak is at the second: the words, the point drawn on the right and
    # the chapter's printed peak (np.argmax of the values) all name T = 2.5 and its own error bar.
    values, errors = [1.0, 1.786, 1.818], [0.01, 0.046, 0.032]
    scans = {4: fake_scan("susceptibility", values, errors), 8: fake_scan("susceptibility", [2, 5, 4])}
    fig = bm.plot_susceptibility_scaling(T3, scans)
    k = int(np.argmax(values))
    assert f"L = 4: largest {values[k]:.3g} ± {errors[k]:.2g} at T = {T3[k]:g}," in words(fig)
    assert fig.axes[1].containers[0].lines[0].get_ydata()[0] == values[k]
    # Equal values: the first, as np.argmax takes it.
    scans[4] = fake_scan("susceptibility", [1.0, 3.0, 3.0])
    assert "L = 4: largest 3 ± 0.01 at T = 2.3," in words(bm.plot_susceptibility_scaling(T3, scans))


def test_ising_chapter_prints_the_susceptibility_peaks_its_figure_describes():
    # The chapter prints each size's peak from np.argmax; its figure's stored words must name the same ones.
    import re
    from pathlib import Path

    import nbformat

    nb = nbformat.read(Path(__file__).parents[1] / "book" / "ising.ipynb", 4)
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and "plot_susceptibility_scaling" in c.source]
    text = " ".join(" ".join(o.get("text", "") + o.get("data", {}).get("text/plain", "")
                             for o in cell.outputs).split())
    printed = re.findall(r"L = *(\d+): largest chi = *([\d.]+) \+/- ([\d.]+) at T = ([\d.]+)", text)
    described_ = dict((L, (v, e, t)) for L, v, e, t in
                      re.findall(r"L = (\d+): largest ([\d.]+) ± ([\d.]+) at T = ([\d.]+),", text))
    assert len(printed) == 3 and len(described_) == 3
    for L, value, error, T in printed:
        v, e, t = described_[L]
        assert float(t) == float(T)
        assert float(v) == pytest.approx(float(value), rel=0.01)
        assert float(e) == pytest.approx(float(error), rel=0.05, abs=0.006)  # each rounded its own way


def test_susceptibility_sizes_differ_by_dash_and_marker():
    scans = {L: fake_scan("susceptibility", [1.0 * L, 2.0 * L, 1.5 * L]) for L in (4, 8, 16)}
    ax_T, ax_L = bm.plot_susceptibility_scaling(T3, scans).axes
    curves = [container.lines[0] for container in ax_T.containers]
    peaks = [container.lines[0] for container in ax_L.containers]
    assert len(curves) == 3 and distinct_styles(curves) and len({c.get_marker() for c in curves}) == 3
    # Each peak on the right has its curve's marker and colour: the legend there names the curves on the left.
    assert [p.get_marker() for p in peaks] == [c.get_marker() for c in curves]
    assert [p.get_color() for p in peaks] == [c.get_color() for c in curves]


# --- plot_critical_slowing --------------------------------------------------

def test_critical_slowing_words_give_the_times_and_their_growth():
    run = CriticalSlowing(sides=np.array([4, 8, 16, 32]), temperature=2.269185314213022,
                          heat_bath=np.array([4.0, 16.0, 64.0, 256.0]), wolff=np.array([1.0, 1.0, 1.0, 1.0]),
                          cluster_fraction=np.full(4, 0.3))
    fig = bm.plot_critical_slowing(run, exponent=2.17)
    text = words(fig)
    summary = fig.description.summary
    assert "lattice side L = 4, 8, 16, 32 at T = 2.27" in summary
    # tau = L^2 / 4 exactly: a slope of 2; 256 is written "260", not "2.6e+02".
    assert "take from 4 to 260 sweeps, like L^2," in summary and "e+" not in text
    assert "Wolff's cluster updates (squares) take all 1 sweeps, like L^0" in summary
    assert "L = 32: heat bath 260, Wolff 1 sweeps." in text


def test_critical_slowing_without_enough_finite_times_names_no_slope():
    run = CriticalSlowing(sides=np.array([4, 8]), temperature=2.0, heat_bath=np.array([3.0, np.nan]),
                          wolff=np.array([1.0, 2.0]), cluster_fraction=np.full(2, 0.3))
    summary = bm.plot_critical_slowing(run).description.summary
    assert "take all 3 sweeps, beside" in summary and "like L^1" in summary  # Wolff: 1 to 2 over 4 to 8


def test_critical_slowing_curves_differ_by_marker():
    run = CriticalSlowing(sides=np.array([4, 8]), temperature=2.0, heat_bath=np.array([3.0, 9.0]),
                          wolff=np.array([1.0, 2.0]), cluster_fraction=np.full(2, 0.3))
    lines = bm.plot_critical_slowing(run).axes[0].get_lines()
    assert distinct_styles(lines) and lines[0].get_marker() != lines[1].get_marker()


# --- the widget -------------------------------------------------------------

def test_ising_widget_words_are_its_lattice_and_its_last_batch():
    widget = bm.ising_widget(L=8, T=2.5, n_sweeps=5, rng=1)
    described = widget.figure_description
    assert described is not None and not described.text.startswith(FALLBACK_OPENING)
    grid = widget.state
    _, e, m = widget.history[-1]
    assert described.summary.startswith("A 8 x 8 Ising lattice (dark +1, white −1) at T = 2.5")
    assert f"after 5 sweeps from random: m = {number(grid.mean())}, {percent((grid == 1).mean())} of spins +1, " \
           f"{percent(alike_pairs(grid))} of neighbouring pairs alike" in described.summary
    assert f"|m| = {number(m)} and e = {number(e)}" in described.summary
    assert f"Onsager's e = {number(bm.onsager_energy_per_spin(2.5))}" in described.details
    assert f"Kaufman's e = {number(bm.kaufman_energy_per_spin(8, 8, 2.5))} (8 x 8)" in described.details
    assert "No earlier steps yet." in described.details
    # The live words under the picture and the image's accessible name are these words.
    assert widget._image.tooltip == described.summary and "aria-live" in widget._words.value


def test_ising_widget_words_follow_the_sliders_and_buttons():
    widget = bm.ising_widget(L=8, T=2.5, n_sweeps=5, rng=1)
    before = widget.figure_description
    widget.temperature.value = 1.5
    after = widget.figure_description
    assert after != before
    _, e, m = widget.history[-1]
    assert "at T = 1.5 (T/T_c = " + number(1.5 / bm.critical_temperature(), 3) + ")" in after.summary
    assert f"|m| = {number(m)} and e = {number(e)}" in after.summary
    assert f"Yang's |m| = {number(bm.yang_magnetization(1.5))}" in after.details
    assert "1 earlier step as grey dots: T = 2.5" in after.details
    widget.field.value = 0.25
    assert "field H = 0.25, after 15 sweeps" in widget.figure_description.summary
    assert "2 earlier steps as grey dots: T from 1.5 to 2.5" in widget.figure_description.details
    widget.up_button.click()
    assert "after 5 sweeps from all up" in widget.figure_description.summary
    # A fresh drawing of the same state says the same.
    fresh = bm.plotting.fit.BookFigure()
    widget._draw(fresh)
    assert fresh.description == widget.figure_description


def test_ising_widget_controls_are_labelled_and_its_points_differ_by_shape():
    widget = bm.ising_widget(L=8, n_sweeps=2)
    for control in (widget.temperature, widget.field, widget.run_button, widget.random_button, widget.up_button):
        assert control.description.strip()
    widget.run()
    past, now = widget._dynamic["past_m"], widget._dynamic["now_m"]
    assert past.get_marker() != now.get_marker()
    assert bm.plotting.fit.contrast_on_white(past.get_color()) >= 3 and past.get_alpha() in (None, 1)
