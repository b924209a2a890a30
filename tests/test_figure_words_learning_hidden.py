"""The figures of the chapters "The learning rule" and "Hidden units" in words, and colour never their only carrier.

Each test draws a small case, checks that the drawing function described the
figure (not the fallback made up from its labels), and that the numbers in
the words are the data's, worked out here independently (by enumeration
where the figure's own code uses bmlib's exact routines).
"""
import numpy as np
import pytest

import bmlib as bm
from bmlib.plotting.words import number, share
from conftest import described

SPINS = bm.to_spins(bm.ten_pixel_images(units="bits"))
PARITY = bm.parity_patterns(3, units="spins")
BAS = bm.bars_and_stripes(3, units="bits")



def words(fig):
    return described(fig).text


def boltzmann(W, b, units, T=1.0):
    """Every state of the machine and its probability, by brute force."""
    states = bm.all_states(len(b), units).astype(float)
    energies = -0.5 * np.einsum("ki,ij,kj->k", states, W, states) - states @ b
    p = np.exp(-(energies - energies.min()) / T)
    return states, p / p.sum()


def gaps(machine, data):
    """max |data average - model average| over the pairs, and over the units, of a fully visible machine."""
    states, p = boltzmann(machine.W, machine.b, machine.units, machine.T)
    data = np.asarray(data, dtype=float)
    i, j = np.triu_indices(machine.n_units, 1)
    model_pairs = np.einsum("k,ki,kj->ij", p, states, states)[i, j]
    data_pairs = (data.T @ data / len(data))[i, j]
    return np.abs(model_pairs - data_pairs).max(), np.abs(p @ states - data.mean(axis=0)).max()


def largest_gap(machine, data):
    return max(gaps(machine, data))


def distinct_styles(lines):
    """True if no two of ``lines`` share both their dash and their marker."""
    styles = [(str(line.get_linestyle()), line.get_marker()) for line in lines]
    return len(set(styles)) == len(styles)


# --- "The learning rule" ---------------------------------------------------------


def test_pixel_images_give_the_fraction_of_pixels_on_and_spell_small_images():
    fig = bm.plot_pixel_images(SPINS, bm.TEN_PIXEL_PROTOTYPES, n_show=4)
    text = words(fig)
    shown = SPINS[np.linspace(0, len(SPINS) - 1, 4).round().astype(int)] == 1
    assert f"4 of 60, evenly spaced; {number(shown.mean())} of the pixels on" in text
    assert f"all 3; {number((bm.TEN_PIXEL_PROTOTYPES == 1).mean())} of the pixels on" in text
    first = "/".join("".join(str(int(x)) for x in row) for row in bm.TEN_PIXEL_PROTOTYPES[0].reshape(2, 5))
    assert first in text and "2 × 5 pixels" in text


def test_moment_match_gives_each_panels_largest_gap():
    start = bm.BoltzmannMachine(4, init_scale=0.0)
    trained = bm.BoltzmannMachine(4, rng=0)
    bm.train(trained, SPINS[:, :4], epochs=10, progress=False)
    fig = bm.plot_moment_match([start, trained], SPINS[:, :4], titles=["before", "after"])
    text = words(fig)
    assert f"{number(largest_gap(start, SPINS[:, :4]))} (before)" in text
    assert f"{number(largest_gap(trained, SPINS[:, :4]))} (after)" in text
    pairs, units = gaps(trained, SPINS[:, :4])
    assert f"6 pairs with data averages" in text and f"largest gap {number(pairs)}; 4 units" in text
    assert text.endswith(f"largest gap {number(units)}.")
    # Data whose unit averages are further from the model's than its pair averages: the gap is the units'.
    biased = bm.all_states(4)
    biased[:6, 0] = 1  # unit 0 on in 14 of 16 patterns, the other units balanced
    pairs, units = gaps(start, biased)
    assert units > pairs
    assert f"the largest gap between the two is {number(units)}." in words(bm.plot_moment_match(start, biased))


def test_training_history_gives_the_end_and_distance_to_the_maximum_and_styles_each_run():
    runs = {"exact": bm.train(bm.BoltzmannMachine(3, rng=0), PARITY, epochs=12, progress=False),
            "sampled": bm.train(bm.BoltzmannMachine(3, rng=1), PARITY, epochs=12, statistics="sampled",
                                progress=False, rng=0)}
    best = -3 * np.log(2)
    fig = bm.plot_training_history(runs, best=best)
    text = words(fig)
    machine = bm.BoltzmannMachine(3, rng=0)
    bm.train(machine, PARITY, epochs=12, progress=False)
    end = machine.log_likelihood(PARITY)
    assert f"exact {number(best - end)}" in text and f"{number(end)} at epoch 12" in text
    left, right = fig.axes
    assert distinct_styles(left.lines[:2]) and distinct_styles(right.lines[:2])
    # One run alone: its words, and no marker needed.
    fig = bm.plot_training_history(runs["exact"])
    assert f"it ends at: the run at {number(end)}" in words(fig)


def test_held_out_curves_name_the_best_weight_decay_and_differ_by_marker():
    curves = bm.held_out_curves(SPINS[:20, :5], SPINS[20:, :5], weight_decays=[0.0, 1.0], epochs=5)
    fig = bm.plot_held_out_curves(curves)
    text = words(fig)
    finals = {d: c.held_out[-1] for d, c in curves.items()}
    top = max(finals, key=lambda d: float(number(finals[d]).replace("\u2212", "-")))
    assert f"highest, {number(finals[top])}, with weight decay {top:g}" in text
    # Each curve's highest value read off its drawn line, so a peak between first and last is named.
    lines = fig.axes[0].lines
    for d, (train, held) in zip((0.0, 1.0), (lines[:2], lines[2:])):
        assert (f"Weight decay {d:g}: training L from {number(train.get_ydata()[0])} to "
                f"{number(train.get_ydata()[-1])}, highest {number(max(train.get_ydata()))}; held-out L from "
                f"{number(held.get_ydata()[0])} to {number(held.get_ydata()[-1])}, "
                f"highest {number(max(held.get_ydata()))}.") in text
    train0, held0, train1, held1 = lines
    assert train0.get_marker() != train1.get_marker()  # the weight decays differ by more than colour
    assert train0.get_linestyle() != held0.get_linestyle()  # training solid, held out dashed


# --- "Hidden units" ----------------------------------------------------------------


def test_learning_curves_give_each_run_and_level_and_style_each_run():
    data = SPINS[:, :4]
    runs = {"no hidden units": bm.train(bm.BoltzmannMachine(4, init_scale=0.0), data, epochs=6, progress=False),
            "one hidden unit": bm.train(bm.BoltzmannMachine(4, 1, rng=0), data, epochs=6, progress=False)}
    fig = bm.plot_log_likelihood_curves(runs, levels={"best possible, -log 4": -np.log(4)})
    text = words(fig)
    assert f"No hidden units: {number(-4 * np.log(2))} at epoch 0" in text  # W = 0: the uniform distribution
    for label, h in runs.items():
        assert number(h.values[0]) != number(h.values[-1])
        assert f"{label} at {number(h.values[-1])}" in text
    assert f"best possible, -log 4, {number(-np.log(4))}" in text
    assert distinct_styles(fig.axes[0].lines)


def test_hidden_mixture_gives_p_of_h_by_enumeration_and_hatches_each_hidden_state():
    machine = bm.BoltzmannMachine(3, n_hidden=1, init_scale=1.0, rng=3)
    fig = bm.plot_hidden_mixture(machine, PARITY)
    text = words(fig)
    states, p = boltzmann(machine.W, machine.b, "spins")
    for h in (-1, 1):
        assert f"h = {h:+d} with p(h) = {number(p[states[:, 3] == h].sum())}" in text
    even = [s for s in bm.all_states(3) if s.prod() == -1]  # the parity patterns
    in_data = np.isin(states[:, :3] @ [4, 2, 1], np.array(even) @ [4, 2, 1])
    assert f"hold {share(p[in_data].sum())} of the model's probability" in text
    hatches = [stack[0].get_hatch() for stack in fig.axes[0].containers]
    assert len(set(hatches)) == len(hatches)


def test_encoder_codes_give_the_codes_and_the_completion_probabilities():
    machine = bm.BoltzmannMachine(8, 2, mask=bm.encoder_mask(4, 2), units="bits", init_scale=1.0, rng=2)
    fig = bm.plot_encoder_codes(machine, titles=["trained a little"])
    text = words(fig)
    # p(V2 unit k on | V1 = pattern k), by enumeration over the other 6 units.
    states, p = boltzmann(machine.W, machine.b, "bits")
    right = []
    for k in range(4):
        keep = (states[:, :4] == np.eye(4)[k]).all(axis=1)
        right.append(p[keep] @ states[keep, 4 + k] / p[keep].sum())
    assert f"the V2 unit that should be on has p(on) from {number(min(right))} to {number(max(right))}" in text
    codes = bm.state_labels(bm.encoder_report(machine).codes, "bits")
    assert f"codes {', '.join(codes)}" in text and "trained a little (" in text


def test_estimated_statistics_give_each_largest_error_and_differ_by_marker():
    mask = bm.encoder_mask(4, 2, hidden_connected=False)
    machine = bm.BoltzmannMachine(8, 2, mask=mask, units="bits", init_scale=0.5, rng=1)
    exact = bm.exact_statistics(machine, bm.encoder_patterns(4, units="bits"))
    shifted = tuple((m, s + 0.01) for m, s in exact)
    fig = bm.plot_estimated_statistics(exact, {"same": exact, "shifted": shifted}, mask=mask)
    text = words(fig)
    assert "same, 0 and 0; shifted, 0.01 and 0.01" in text
    assert f"{int(np.triu(mask, 1).sum())} connected pairs" in text
    for ax in fig.axes:
        markers = [tuple(c.get_paths()[0].vertices.ravel().round(6)) for c in ax.collections[:2]]
        assert markers[0] != markers[1]


# --- the widgets ----------------------------------------------------------------------


def test_learning_widget_words_follow_the_epoch_slider():
    w = bm.learning_widget(SPINS[:, :4], epochs=6, init_scale=0.0, epoch=0)
    before = w.figure_description.text
    assert w.figure_description is not None and "after epoch 0 of 6" in before
    w.epoch_slider.value = 4
    after = w.figure_description.text
    assert after != before and "after epoch 4 of 6" in after
    machine = bm.BoltzmannMachine(4, W=w.W, b=w.b)
    assert f"the log-likelihood is {number(machine.log_likelihood(SPINS[:, :4]))}" in after
    assert f"averages is {number(largest_gap(machine, SPINS[:, :4]))}" in after
    assert w.epoch_slider.description and w.step_button.description


@pytest.fixture(scope="module")
def rbm():
    machine = bm.RBM(9, 4, init_scale=0.1, rng=0, units="bits")
    bm.train(machine, BAS, epochs=60, learning_rate=0.2, momentum=0.5, monitor=None, progress=False)
    return machine


def test_hidden_widget_words_follow_the_pattern_and_the_pixels_hidden(rbm):
    w = bm.hidden_widget(rbm, pattern=0, hide="nothing")
    before = w.figure_description.text
    w.pattern_slider.value = 9
    after = w.figure_description.text
    assert after != before and "Image 9 of 14" in after
    assert f"log p = {number(rbm.log_probability(BAS[9]))}" in after
    rows = "/".join("".join(str(x) for x in row) for row in BAS[9].reshape(3, 3))
    assert rows in after
    w.hide_menu.value = "right column"
    hidden = w.figure_description.text
    # The fill of pixels 2, 5, 8 by brute force over the 8 ways to fill them.
    states = bm.all_states(9, "bits")
    keep = (np.delete(states, [2, 5, 8], axis=1) == np.delete(BAS[9], [2, 5, 8])).all(axis=1)
    p = np.exp(rbm.log_probability(states[keep]))
    p /= p.sum()
    assert f"with p = {number(p.max())}" in hidden and "?/" in hidden
    assert f"pixel 2 {number(p @ states[keep][:, 2])}" in hidden
    # Hidden pixels carry a "?" as well as their grey.
    assert [t.get_text() for t in w._figure.axes[0].texts] == ["", "", "?", "", "", "?", "", "", "?"]
    assert w.pattern_slider.description and w.hide_menu.description
