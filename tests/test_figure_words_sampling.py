"""The figures of the chapter "The Boltzmann-Gibbs distribution" in words, and colour never their only carrier.

Each test draws a small case, checks that the drawing function wrote the
figure's description (not the fallback made up from the labels) and that the
numbers in it are the data's, computed here independently (by enumeration,
from the transition matrix, from a fresh run); the widget's words must follow
its controls.
"""
import re

import numpy as np
from matplotlib.colors import to_rgb

import bmlib as bm
from bmlib.plotting.fit import contrast_on_white
from bmlib.plotting.words import FALLBACK_OPENING, number
from conftest import described

W4 = np.array([[0, 1, -1, -0.5], [1, 0, -0.5, -1], [-1, -0.5, 0, 1], [-0.5, -1, 1, 0]])
B4 = np.array([0.5, 0, 0, -0.5])
SUMMARY_LIMIT = 360  # characters: the alt text stays one or two sentences



def words(fig):
    """The figure's own description, checked to be written by its drawing function."""
    return described(fig, max_summary=SUMMARY_LIMIT)


def boltzmann(T, W=W4, b=B4, units="spins"):
    """p(s) by enumeration, and the states in all_states order."""
    S = bm.all_states(W.shape[0], units)
    E = np.array([-0.5 * s @ W @ s - b @ s for s in S.astype(float)])
    weights = np.exp(-(E - E.min()) / T)
    return weights / weights.sum(), S, E


def distinct(values):
    return len(set(map(str, values))) == len(values)


def readable(lines):
    """Every line and its markers at 3 : 1 contrast on white, as drawn (its alpha blended with white)."""
    for line in lines:
        for colour in (line.get_color(), line.get_markerfacecolor()):
            rgb = np.array(to_rgb(colour))
            alpha = 1.0 if line.get_alpha() is None else line.get_alpha()
            assert contrast_on_white(alpha * rgb + (1 - alpha)) >= 3.0, (line.get_label(), colour, alpha)
    return True


# --- plot_sampled_distribution -----------------------------------------------------------------

def test_sampled_distribution_words_are_its_numbers():
    result = bm.sample(W4, B4, 2.0, n_samples=300, n_chains=4, rng=0)
    fig = bm.plot_sampled_distribution(result, W4, B4, T=2.0)
    d = words(fig)
    p, S, _ = boltzmann(2.0)
    counts = {}
    for s in result.samples.reshape(-1, 4):
        counts[tuple(s)] = counts.get(tuple(s), 0) + 1
    frequencies = np.array([counts.get(tuple(s), 0) for s in S]) / result.samples.reshape(-1, 4).shape[0]
    top = int(np.argmax(p))  # ++--, well ahead of the next state
    assert bm.state_labels(S[top]) == "++--"
    assert f"the most probable state, ++--, has p = {number(p[top])}" in d.summary
    assert f"sampled a fraction {number(frequencies[top])}" in d.summary
    assert f"Total-variation distance {number(0.5 * np.abs(frequencies - p).sum())}" in d.summary
    assert "1,200 samples at T = 2" in d.summary and "16 states of 4 units" in d.summary
    # The key names the bars by their width, not only by their colour.
    keys = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert "narrow bars: sampled frequency" in keys and "wide bars: exact p(s)" in keys


# --- plot_flip_probabilities --------------------------------------------------------------------

def test_flip_probability_words_and_styles():
    fig = bm.plot_flip_probabilities(T=2.0, max_delta=6.0)
    d = words(fig)
    assert "from −6 to 6 at T = 2" in d.summary
    assert "heat bath flips with probability 0.5 and Metropolis with 1" in d.summary
    assert f"heat bath {number(1 / (1 + np.exp(3.0)))}, Metropolis {number(np.exp(-3.0))}" in d.details
    heat_bath, metropolis = fig.axes[0].lines[:2]
    assert heat_bath.get_linestyle() != metropolis.get_linestyle()
    assert heat_bath.get_marker() != metropolis.get_marker()
    assert readable([heat_bath, metropolis])


# --- plot_convergence ---------------------------------------------------------------------------

def test_convergence_words_are_the_exact_distances():
    kwargs = dict(initial=[-1, -1, 1, 1], n_sweeps=12, n_chains=200, rng=5)
    fig = bm.plot_convergence(W4, B4, 1.0, **kwargs)
    d = words(fig)
    p, S, _ = boltzmann(1.0)
    start = np.all(S == [-1, -1, 1, 1], axis=1).astype(float)
    for rule, name in (("heat_bath", "heat bath"), ("metropolis", "Metropolis")):
        q = start @ np.linalg.matrix_power(bm.transition_matrix(W4, B4, 1.0, rule=rule), 12)
        assert f"{number(0.5 * np.abs(q - p).sum())} for {name}" in d.summary
    assert f"From {number(0.5 * np.abs(start - p).sum())}" in d.summary
    assert "started in the state --++ at T = 1" in d.summary and "200 sampled chains" in d.summary
    exact_hb, sampled_hb, exact_m, sampled_m = fig.axes[0].lines
    assert exact_hb.get_linestyle() != exact_m.get_linestyle()  # the exact lines differ by dash
    assert sampled_hb.get_marker() != sampled_m.get_marker()  # the sampled points by marker
    assert readable(fig.axes[0].lines)


# --- plot_autocorrelation -----------------------------------------------------------------------

def test_autocorrelation_words_give_tau():
    runs = {rule: bm.sample(W4, B4, 1.0, n_samples=600, n_chains=2, rule=rule, rng=1).energies
            for rule in ("heat_bath", "metropolis")}
    fig = bm.plot_autocorrelation(runs)
    d = words(fig)
    for rule, name in (("heat_bath", "heat bath"), ("metropolis", "Metropolis")):
        assert f"{name} \u03c4 = {number(bm.autocorrelation_time(runs[rule]))} sweeps" in d.summary
    first = runs["heat_bath"][:400, 0]
    assert f"runs from {number(first.min())} to {number(first.max())}" in d.details
    rho = [line for line in fig.axes[1].lines if line.get_label().startswith(("heat", "Metro"))]
    assert len(rho) == 2 and distinct([line.get_linestyle() for line in rho])
    assert distinct([line.get_marker() for line in rho]) and readable(rho)
    # One bare series: its tau, no comparison.
    single = words(bm.plot_autocorrelation(runs["metropolis"], label="energy E"))
    assert f"\u03c4 = {number(bm.autocorrelation_time(runs['metropolis']))} sweeps" in single.summary


def test_autocorrelation_of_other_names_keeps_curves_apart():
    x = bm.sample(W4, B4, 1.0, n_samples=300, n_chains=2, rng=2).energies
    fig = bm.plot_autocorrelation({"heat_bath": x, "run a": x[::-1], "run b": x + 1.0, "run c": -x})
    rho = [line for line in fig.axes[1].lines if ":" in line.get_label()]
    assert len(rho) == 4
    assert distinct([line.get_linestyle() for line in rho]) and distinct([line.get_marker() for line in rho])
    assert readable(rho)
    assert "run a" in words(fig).summary


# --- plot_annealing -----------------------------------------------------------------------------

def test_annealing_words_count_the_chains_at_the_ground_state():
    W = bm.sk_couplings(8, J=2.0, rng=2)  # annealing and descent reach the ground state in different fractions
    result = bm.anneal(W, schedule=[(2.0, 5), (1.0, 5), (0.0, 2)], n_chains=30, rng=0)
    descent = bm.anneal(W, schedule=[(0.0, 10)], n_chains=30, rng=0)
    _, S, E = boltzmann(1.0, W, np.zeros(8))
    ground = E.min()
    fig = bm.plot_annealing(result, descent=descent, ground_energy=ground, n_traces=3)
    d = words(fig)
    at_ground = np.isclose(result.energies[-1], ground).mean()
    descent_at_ground = np.isclose(descent.energies[-1], ground).mean()
    assert number(at_ground) != number(descent_at_ground)
    assert f"a fraction {number(at_ground)} of the annealed chains end at the lowest energy" in d.summary
    assert f"against {number(descent_at_ground)} with energy descent alone" in d.summary
    assert f"The mean energy falls from {number(result.energies[0].mean())}" in d.summary
    assert "3 single chains" in d.details
    assert readable(fig.axes[0].lines) and readable(fig.axes[1].lines)  # the schedule, the traces and the mean
    # The two histograms differ by hatching as well as by colour.
    assert len({p.get_hatch() for p in fig.axes[2].patches}) == 2
    # Without descent or ground energy the words still come from the data.
    alone = words(bm.plot_annealing(result))
    assert f"end at the lowest final energy found, {number(result.energies[-1].min())}" in alone.summary


# --- plot_free_energy ---------------------------------------------------------------------------

def test_free_energy_words_find_the_heat_capacity_peak():
    temperatures = [0.3, 0.6, 1.0, 1.5, 2.5, 5.0]
    fig = bm.plot_free_energy(W4, B4, temperatures=temperatures)
    d = words(fig)
    heat = []
    for T in temperatures:
        p, _, E = boltzmann(T)
        heat.append((p @ E**2 - (p @ E) ** 2) / T**2)
    peak = int(np.argmax(heat))
    assert 0 < peak < len(temperatures) - 1
    # The words place the peak between grid points: the top of the parabola in log T through the
    # largest value and its neighbours (three-point vertex formula, written out here).
    (x0, x1, x2), (y0, y1, y2) = np.log(temperatures[peak - 1:peak + 2]), heat[peak - 1:peak + 2]
    top = x1 - 0.5 * ((x1 - x0) ** 2 * (y1 - y2) - (x1 - x2) ** 2 * (y1 - y0)) / (
        (x1 - x0) * (y1 - y2) - (x1 - x2) * (y1 - y0))
    assert f"largest, {number(heat[peak])}, at T = {number(np.exp(top), 3)}" in d.summary
    _, _, E = boltzmann(1.0)
    F_low = -0.3 * np.log(np.exp(-(E - E.min()) / 0.3).sum()) + E.min()
    assert f"F falls from {number(F_low)}" in d.summary and "for 4 units" in d.summary
    lines = fig.axes[0].lines
    assert len(lines) == 3
    assert distinct([line.get_linestyle() for line in lines]) and distinct([line.get_marker() for line in lines])
    assert readable(lines) and readable(fig.axes[1].lines)


# --- sampling_widget ----------------------------------------------------------------------------

def test_sampling_widget_words_follow_its_controls():
    widget = bm.sampling_widget(W4, B4, T=1.0, initial=[-1, -1, 1, 1], n_chains=50, n_sweeps=10)
    for control in (widget.temperature, widget.sweeps, widget.rule):
        assert control.description  # announced by a screen reader
    first = widget.figure_description
    assert first is not None and not first.summary.startswith(FALLBACK_OPENING)

    def expected_distance(T, n_sweeps, rule="heat_bath"):
        run = bm.sample(W4, B4, T, n_samples=n_sweeps, n_chains=50, burn_in=0, rule=rule, initial=[-1, -1, 1, 1],
                        rng=0)
        states = run.samples.reshape(-1, 4)
        p, S, _ = boltzmann(T)
        frequencies = np.array([np.all(states == s, axis=1).mean() for s in S])
        return number(0.5 * np.abs(frequencies - p).sum())

    assert "over 10 sweeps from --++ at T = 1" in first.summary
    assert f"Total-variation distance {expected_distance(1.0, 10)}" in first.summary
    widget.sweeps.value = 120
    moved = widget.figure_description
    assert moved.summary != first.summary and "over 120 sweeps" in moved.summary
    assert f"Total-variation distance {expected_distance(1.0, 120)}" in moved.summary
    widget.temperature.value = 3.0
    p3 = boltzmann(3.0)[0]
    assert "at T = 3." in widget.figure_description.summary
    assert f"has p = {number(p3.max())}" in widget.figure_description.summary
    widget.rule.value = "metropolis"
    assert "50 Metropolis chains" in widget.figure_description.summary
    assert f"Total-variation distance {expected_distance(3.0, 120, 'metropolis')}" in widget.figure_description.summary


def test_free_energy_words_place_a_flat_peak_where_the_curve_peaks():
    # The chapter's network: C(T) reads "2" from T = 1.4 to 1.9, so a peak ranked on the printed
    # digits named the lowest of those temperatures (1.46) instead of the maximum (1.635, found
    # here by enumeration on a grid 1e-4 apart).
    W = np.array([[0, 1, -1, -0.5], [1, 0, -0.5, -1], [-1, -0.5, 0, 1], [-0.5, -1, 1, 0]])
    b = np.array([0.5, 0, 0, -0.5])
    fine = np.arange(1.0, 2.5, 1e-4)
    C = [bm.exact_free_energy(W, b, T=T).heat_capacity for T in fine]
    # The default grid (steps of 9% in T), and a fine one whose flat top holds many points reading "2".
    for temperatures in (None, np.geomspace(1.0, 2.5, 200)):
        fig = bm.plot_free_energy(W, b, temperatures=temperatures)
        written = float(re.search(r"largest, 2, at T = (\d\.\d+)", words(fig).summary).group(1))
        assert abs(written - fine[int(np.argmax(C))]) < 0.006  # 3 digits written
