"""Learning in a Boltzmann machine, against exact answers.

The references: central finite differences of the exact log-likelihood, the
moment-matching conditions that characterise the maximum-likelihood model,
and the exact bound on what a machine without hidden units can do on parity.
"""
import itertools
import math
import subprocess
import sys
import time

import numpy as np
import pytest

import bmlib as bm
import bmlib._progress
from conftest import ROOT, random_model


def random_machine(n_visible, n_hidden, units, T, rng, mask=None):
    """A machine with random weights (on the mask) and random biases."""
    W, b = random_model(n_visible + n_hidden, rng, scale=0.7)
    machine = bm.BoltzmannMachine(n_visible, n_hidden, mask=mask, units=units, T=T, rng=0)
    machine.W = W * machine.mask
    machine.b = b
    return machine


def random_data(P, n, units, rng):
    x = rng.integers(0, 2, size=(P, n))
    return x if units == "bits" else 2 * x - 1


# --- the gradient ------------------------------------------------------------


@pytest.mark.parametrize("units", ["spins", "bits"])
@pytest.mark.parametrize(
    "n_visible, n_hidden, mask",
    [(4, 0, None), (3, 2, None), (4, 1, bm.encoder_mask(2, 1, hidden_connected=False))],
    ids=["visible-only", "hidden", "encoder-mask"],
)
def test_exact_gradient_equals_finite_differences(n_visible, n_hidden, mask, units, rng):
    T = 0.7  # not 1, so that a missing 1/T factor would show
    machine = random_machine(n_visible, n_hidden, units, T, rng, mask)
    data = random_data(6, n_visible, units, rng)
    dW, db = machine.gradient(data)
    h = 1e-5  # central differences: error O(h**2) ~ 1e-10, round-off ~ 1e-11

    def L(W, b):
        return bm.BoltzmannMachine(n_visible, n_hidden, mask=machine.mask, W=W, b=b, units=units,
                                   T=T).log_likelihood(data)

    n = machine.n_units
    for i, j in itertools.combinations(range(n), 2):
        if not machine.mask[i, j]:
            assert dW[i, j] == 0 and dW[j, i] == 0
            continue
        step = np.zeros((n, n))
        step[i, j] = step[j, i] = h  # W_ij and W_ji are one parameter
        fd = (L(machine.W + step, machine.b) - L(machine.W - step, machine.b)) / (2 * h)
        assert dW[i, j] == pytest.approx(fd, abs=1e-7)
        assert dW[j, i] == dW[i, j]
    for i in range(n):
        step = np.zeros(n)
        step[i] = h
        fd = (L(machine.W, machine.b + step) - L(machine.W, machine.b - step)) / (2 * h)
        assert db[i] == pytest.approx(fd, abs=1e-7)
    assert np.all(np.diag(dW) == 0)


def test_log_likelihood_of_a_machine_without_hidden_units_is_minus_energy_minus_log_z(rng):
    machine = random_machine(5, 0, "spins", 1.3, rng)
    data = random_data(7, 5, "spins", rng)
    expected = np.mean(-bm.energy(data, machine.W, machine.b) / 1.3) - bm.log_partition(machine.W, machine.b, 1.3)
    assert machine.log_likelihood(data) == pytest.approx(expected, abs=1e-12)


def test_log_probabilities_with_hidden_units_sum_to_one(rng):
    machine = random_machine(3, 3, "bits", 0.8, rng)
    p = np.exp(machine.log_probability(bm.all_states(3, "bits")))
    assert p.sum() == pytest.approx(1.0, abs=1e-12)


# --- learning without hidden units -------------------------------------------


@pytest.mark.parametrize("units, learning_rate", [("spins", 0.2), ("bits", 1.0)])
def test_learning_without_hidden_units_reaches_the_maximum_likelihood_model(units, learning_rate):
    """With every state in the data, the ML model exists and is the one whose moments match the data's.

    The log-likelihood of a machine without hidden units is concave in (W, b),
    so a model with model moments = data moments is the global maximum.
    """
    gen = np.random.default_rng(5)
    n = 6
    W_true, b_true = random_model(n, gen)
    p = bm.boltzmann_distribution(W_true, b_true, units=units)
    S = bm.all_states(n, units)
    data = np.concatenate([S, S[gen.choice(len(S), size=136, p=p)]])  # full support: ML is finite
    machine = bm.BoltzmannMachine(n, units=units, rng=0)
    bm.train(machine, data, epochs=600, learning_rate=learning_rate, momentum=0.9, monitor=None, progress=False)
    (mean_data, second_data), (mean_model, second_model) = bm.exact_statistics(machine, data)
    np.testing.assert_allclose(mean_model, mean_data, atol=1e-8)
    np.testing.assert_allclose(second_model, second_data, atol=1e-8)
    # ... and so no other model does better, not even the one that generated the data.
    best = machine.log_likelihood(data)
    generator = bm.BoltzmannMachine(n, W=W_true, b=b_true, units=units)
    assert best >= generator.log_likelihood(data)
    for _ in range(5):
        nudged = machine.copy()
        nudged.W += 1e-3 * random_model(n, gen)[0]
        assert nudged.log_likelihood(data) < best


def test_parity_cannot_be_learned_without_hidden_units():
    """A machine without hidden units cannot beat -3 log 2 per pattern on 3-bit parity.

    Why: its log-likelihood is L = sum_ij W_ij <s_i s_j>_data / 2 + b . <s>_data - log Z,
    which depends on the data only through the first and second moments. Those
    of the 4 parity patterns equal the uniform distribution's (<s_i> = 0,
    <s_i s_j> = 0), so L equals the mean log p_model under the uniform
    distribution: -3 log 2 - KL(uniform || p_model) <= -3 log 2, with equality
    only at W = 0, b = 0.
    """
    data = bm.parity_patterns(3, units="spins")
    bound = -3 * math.log(2)
    machine = bm.BoltzmannMachine(3, init_scale=1.0, rng=1)
    machine.b[:] = [0.5, -0.3, 0.2]
    history = bm.train(machine, data, epochs=300, learning_rate=0.3, progress=False)
    assert np.all(history.values <= bound + 1e-12)
    assert history.values[-1] == pytest.approx(bound, abs=1e-6)  # it converges to the uniform model
    np.testing.assert_allclose(machine.W, 0, atol=1e-3)


def test_parity_is_learned_with_hidden_units():
    """With two hidden units, exact statistics take 3-bit parity close to the best, -log 4 = -1.386.

    Seed 0 reaches -1.389 per pattern after 1000 epochs (seeds 0-4 all reach
    -1.389 to -1.390), far above the -3 log 2 = -2.079 of any machine without
    hidden units.
    """
    data = bm.parity_patterns(3, units="spins")
    machine = bm.BoltzmannMachine(3, n_hidden=2, init_scale=0.5, rng=0)
    history = bm.train(machine, data, epochs=1000, learning_rate=0.5, momentum=0.5, progress=False)
    assert history.values[0] < -2.0
    assert history.values[-1] > -1.395
    assert history.values[-1] <= -math.log(4) + 1e-12  # nothing beats the data's own distribution
    p = np.exp(machine.log_probability(bm.all_states(3, "spins")))
    assert p[[0, 3, 5, 6]].sum() > 0.99  # the even-parity patterns (odd count of -1 in spins)


def test_encoder_training_keeps_unconnected_weights_at_zero():
    data = bm.encoder_patterns(4, units="bits")
    mask = bm.encoder_mask(4, 2)
    machine = bm.BoltzmannMachine(8, n_hidden=2, mask=mask, units="bits", init_scale=0.5, rng=1)
    history = bm.train(machine, data, epochs=300, learning_rate=1.0, momentum=0.5, weight_decay=1e-4,
                       progress=False)
    assert np.all(machine.W[~mask] == 0)
    np.testing.assert_array_equal(machine.W, machine.W.T)
    # Seed 1: from -5.70 to about -1.44 per pattern (the best possible is -log 4 = -1.386).
    assert history.values[-1] > -1.6


# --- the training loop --------------------------------------------------------


def test_one_epoch_is_the_documented_update(rng):
    machine = random_machine(3, 1, "spins", 1.0, rng)
    data = random_data(5, 3, "spins", rng)
    lr, mom, wd = 0.3, 0.6, 0.05
    W, b = machine.W.copy(), machine.b.copy()
    g1W, g1b = machine.gradient(data)
    v1W, v1b = lr * (g1W - wd * W), lr * g1b  # no decay on biases
    W1, b1 = W + v1W, b + v1b
    g2W, g2b = bm.BoltzmannMachine(3, 1, W=W1, b=b1).gradient(data)
    W2 = W1 + mom * v1W + lr * (g2W - wd * W1)
    b2 = b1 + mom * v1b + lr * g2b
    bm.train(machine, data, epochs=2, learning_rate=lr, momentum=mom, weight_decay=wd, progress=False)
    np.testing.assert_allclose(machine.W, W2, atol=1e-14)
    np.testing.assert_allclose(machine.b, b2, atol=1e-14)


def test_mini_batches_are_seeded_and_full_batch_is_the_default(rng):
    data = random_data(8, 4, "bits", rng)
    base = bm.BoltzmannMachine(4, units="bits", rng=0)
    runs = []
    for batch_size, seed in [(None, None), (8, None), (3, 7), (3, 7), (3, 8)]:
        m = base.copy()
        bm.train(m, data, epochs=3, batch_size=batch_size, monitor=None, progress=False, rng=seed)
        runs.append(m.W)
    np.testing.assert_array_equal(runs[0], runs[1])  # one batch of all patterns = full batch
    np.testing.assert_array_equal(runs[2], runs[3])  # same seed, same shuffles
    assert not np.allclose(runs[2], runs[4])
    assert not np.allclose(runs[0], runs[2])


def test_a_callable_provider_plugs_in(rng):
    data = random_data(6, 3, "spins", rng)
    a = bm.BoltzmannMachine(3, n_hidden=1, rng=2)
    b = a.copy()
    calls = []

    def provider(model, batch, rng):
        calls.append(len(batch))
        return bm.exact_statistics(model, batch)

    bm.train(a, data, epochs=4, statistics="exact", progress=False)
    history = bm.train(b, data, epochs=4, statistics=provider, progress=False)
    np.testing.assert_array_equal(a.W, b.W)
    assert calls == [6] * 4 and history.statistics is provider


def test_a_provider_with_wrong_shapes_is_named(rng):
    machine = bm.BoltzmannMachine(3, rng=0)
    data = random_data(4, 3, "spins", rng)

    def bad(model, batch, rng):
        return (np.zeros(3), np.zeros((3, 3))), (np.zeros(4), np.zeros((3, 3)))

    with pytest.raises(ValueError, match=r"the free mean from the statistics provider must have shape \(3,\); got \(4,\)"):
        bm.train(machine, data, epochs=1, statistics=bad, progress=False)


def test_chain_statistics_need_an_rbm():
    machine = bm.BoltzmannMachine(3, rng=0)
    with pytest.raises(TypeError, match="ContrastiveDivergence runs block Gibbs chains and needs an RBM"):
        bm.train(machine, bm.parity_patterns(3, "spins"), statistics="cd", progress=False)


def test_progress_bar_is_silent_when_asked(capsys):
    machine = bm.BoltzmannMachine(3, rng=0)
    data = bm.parity_patterns(3, "spins")
    bm.train(machine, data, epochs=3, progress=False)
    assert capsys.readouterr().err == ""
    bm.train(machine, data, epochs=3, progress=True)
    assert "3/3" in capsys.readouterr().err


def _slow_monitor(model, data):
    time.sleep(0.03)  # ten epochs take at least 0.3 s
    return 0.0


def test_default_progress_shows_a_bar_only_for_long_training(capsys, monkeypatch):
    """progress=None: a bar once training has run for PROGRESS_DELAY seconds, nothing before."""
    machine = bm.BoltzmannMachine(3, rng=0)
    data = bm.parity_patterns(3, "spins")
    # Short work under the real delay (2 s): not a character on stderr.
    bm.train(machine, data, epochs=3)
    assert capsys.readouterr().err == ""
    # The same slow run twice: hidden under a delay it never reaches, shown under one it passes.
    monkeypatch.setattr(bmlib._progress, "PROGRESS_DELAY", 60.0)
    bm.train(machine, data, epochs=10, monitor=_slow_monitor)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(bmlib._progress, "PROGRESS_DELAY", 0.1)
    bm.train(machine, data, epochs=10, monitor=_slow_monitor)
    err = capsys.readouterr().err
    assert "training" in err and "10/10" in err


def test_silent_training_never_imports_tqdm():
    code = (
        "import sys, bmlib as bm\n"
        "bm.train(bm.BoltzmannMachine(3, rng=0), bm.parity_patterns(3, 'spins'), epochs=3, progress=False)\n"
        "print('tqdm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"


def test_history_and_monitors():
    data = bm.parity_patterns(3, "spins")
    machine = bm.BoltzmannMachine(3, rng=0)
    h = bm.train(machine, data, epochs=5, progress=False)
    assert h.monitor == "log_likelihood" and h.epochs.tolist() == list(range(6)) and h.values.shape == (6,)
    assert h.values[-1] == pytest.approx(machine.log_likelihood(data))
    h = bm.train(machine, data, epochs=2, monitor="pseudo_log_likelihood", progress=False)
    assert h.values[-1] == pytest.approx(machine.pseudo_log_likelihood(data))
    h = bm.train(machine, data, epochs=2, monitor=lambda m, d: 42.0, progress=False)
    assert h.monitor == "<lambda>" and h.values.tolist() == [42.0] * 3
    h = bm.train(machine, data, epochs=2, monitor=None, progress=False)
    assert h.monitor is None and h.values.shape == (0,)
    # Too many units to enumerate after every epoch: the pseudo-likelihood instead.
    big = bm.BoltzmannMachine(24, W=np.zeros((24, 24)))
    h = bm.train(big, np.ones((2, 24)), epochs=0, statistics=lambda *a: None, progress=False)
    assert h.monitor == "pseudo_log_likelihood" and h.values[0] == pytest.approx(-24 * math.log(2))


def test_pseudo_log_likelihood_matches_brute_force_conditionals(rng):
    machine = random_machine(4, 0, "bits", 0.9, rng)
    data = random_data(5, 4, "bits", rng)
    S = bm.all_states(4, "bits")
    logp = machine.log_probability(S)
    index = {tuple(s): k for k, s in enumerate(S)}
    total = 0.0
    for v in data:
        for i in range(4):
            w = v.copy()
            w[i] = 1 - w[i]
            total += logp[index[tuple(v)]] - np.logaddexp(logp[index[tuple(v)]], logp[index[tuple(w)]])
    assert machine.pseudo_log_likelihood(data) == pytest.approx(total / len(data), abs=1e-12)
    with pytest.raises(ValueError, match="pseudo_log_likelihood needs every unit observed"):
        bm.BoltzmannMachine(2, 1, rng=0).pseudo_log_likelihood([[1, 1]])


def test_exact_sampling_matches_the_model_distribution(rng):
    """Chi-squared test of 20 000 exact samples against p(v) (seed 11; 99.9% quantile, 7 dof = 24.3)."""
    machine = random_machine(3, 2, "spins", 1.0, rng)
    samples = machine.sample(20000, rng=11)
    assert samples.shape == (20000, 3) and samples.dtype == np.int8
    codes = ((samples + 1) // 2) @ [4, 2, 1]
    counts = np.bincount(codes, minlength=8)
    expected = 20000 * np.exp(machine.log_probability(bm.all_states(3)))
    assert np.sum((counts - expected) ** 2 / expected) < 24.3


# --- bad input ----------------------------------------------------------------


def test_bad_data_is_refused_with_a_named_reason():
    machine = bm.BoltzmannMachine(3, rng=0)
    with pytest.raises(ValueError, match=r"data must hold spins \(-1/\+1\) because units='spins'; data\[0, 1\] = 0"):
        machine.log_likelihood([[1, 0, 1]])
    with pytest.raises(ValueError, match=r"data must have shape \(P, 3\), one row per pattern .*got shape \(2, 4\)"):
        bm.train(machine, np.ones((2, 4)), progress=False)
    with pytest.raises(ValueError, match=r"data must hold at least one pattern; got shape \(0, 3\)"):
        bm.train(machine, np.ones((0, 3)), progress=False)
    with pytest.raises(ValueError, match=r"data must be finite; data\[0, 2\] = nan"):
        machine.gradient([[1, 1, np.nan]])


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"learning_rate": np.nan}, ValueError, "learning_rate must be finite; got nan"),
        ({"learning_rate": 0}, ValueError, "learning_rate must be > 0; got 0.0"),
        ({"momentum": 1.0}, ValueError, r"momentum must be in \[0, 1\); got 1.0"),
        ({"weight_decay": -1}, ValueError, "weight_decay must be >= 0"),
        ({"epochs": -1}, ValueError, "epochs must be >= 0; got -1"),
        ({"batch_size": 0}, ValueError, "batch_size must be >= 1; got 0"),
        ({"progress": "no"}, TypeError, "progress must be True, False or None; got 'no' of type str"),
        ({"statistics": "gibbs"}, ValueError, "statistics must be \"exact\", \"sampled\", \"annealed\", "
                                             "\"mean_field\", \"cd\", \"pcd\" or a provider"),
        ({"monitor": "kl"}, ValueError, "monitor must be \"auto\", \"log_likelihood\""),
    ],
)
def test_bad_training_arguments(kwargs, error, message):
    kwargs = {"progress": False, **kwargs}
    with pytest.raises(error, match=message):
        bm.train(bm.BoltzmannMachine(3, rng=0), bm.parity_patterns(3, "spins"), **kwargs)


def test_bad_model_for_training():
    with pytest.raises(TypeError, match="model must be a bmlib BoltzmannMachine or RBM; got ndarray"):
        bm.train(np.zeros((3, 3)), [[1, 1, 1]])


def test_bad_masks_and_weights_are_refused():
    with pytest.raises(ValueError, match=r"mask must be symmetric; mask\[0, 1\] = True but mask\[1, 0\] = False"):
        bm.BoltzmannMachine(3, mask=[[0, 1, 0], [0, 0, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match=r"mask must have a False diagonal \(no self-couplings\); mask\[2, 2\] = True"):
        bm.BoltzmannMachine(3, mask=np.diag([False, False, True]))
    with pytest.raises(ValueError, match=r"mask must have shape \(4, 4\)"):
        bm.BoltzmannMachine(3, n_hidden=1, mask=np.zeros((3, 3), dtype=bool))
    with pytest.raises(ValueError, match="mask must be boolean"):
        bm.BoltzmannMachine(2, mask=[[0, 0.5], [0.5, 0]])
    mask = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=bool)
    W = np.array([[0, 1, 2], [1, 0, 0], [2, 0, 0]])
    with pytest.raises(ValueError, match=r"W must be 0 where mask is False \(units 0 and 2 are not connected\); W\[0, 2\] = 2"):
        bm.BoltzmannMachine(3, mask=mask, W=W)
    with pytest.raises(ValueError, match=r"W must be symmetric"):
        bm.BoltzmannMachine(2, W=[[0, 1], [2, 0]])
    with pytest.raises(ValueError, match=r"W must have shape \(3, 3\) for 3 units; got shape \(2, 2\)"):
        bm.BoltzmannMachine(2, n_hidden=1, W=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="n_visible must be >= 1"):
        bm.BoltzmannMachine(0)
    with pytest.raises(ValueError, match="T must be finite and > 0"):
        bm.BoltzmannMachine(2, T=0)


def test_encoder_mask_structure():
    m = bm.encoder_mask(4, 3, hidden_connected=False)
    g1, g2, h = range(4), range(4, 8), range(8, 11)
    for i in range(11):
        for j in range(11):
            same_group = (i in g1 and j in g1) or (i in g2 and j in g2)
            visible_hidden = (i in h) != (j in h)
            assert m[i, j] == (i != j and (same_group or visible_hidden))
    assert bm.encoder_mask(4, 3)[8, 9]  # hidden units connected by default


def test_callback_sees_every_epoch_and_can_stop_training():
    data = bm.parity_patterns(3)
    seen = []

    def stop_at_three(epoch, model, value):
        seen.append((epoch, round(value, 12)))
        return epoch == 3

    machine = bm.BoltzmannMachine(3, 1, rng=0)
    history = bm.train(machine, data, epochs=10, callback=stop_at_three)
    assert [e for e, _ in seen] == [1, 2, 3] and history.stopped_early
    assert history.epochs.tolist() == [0, 1, 2, 3]
    assert [v for _, v in seen] == [round(v, 12) for v in history.values[1:]]
    assert history.values[-1] == pytest.approx(machine.log_likelihood(data))


def test_resuming_keeps_momentum_so_two_halves_equal_one_run():
    data = bm.parity_patterns(3)
    one, two = bm.BoltzmannMachine(3, 1, rng=0), bm.BoltzmannMachine(3, 1, rng=0)
    whole = bm.train(one, data, epochs=20, learning_rate=0.3, momentum=0.7)
    half = bm.train(two, data, epochs=10, learning_rate=0.3, momentum=0.7)
    rest = bm.train(two, data, epochs=10, learning_rate=0.3, momentum=0.7, resume=half)
    np.testing.assert_allclose(two.W, one.W, rtol=1e-12, atol=1e-15)
    assert rest.epochs.tolist() == list(range(10, 21)) and rest.values[-1] == pytest.approx(whole.values[-1])
    # Without resume the second half restarts at rest: a different path.
    three = bm.BoltzmannMachine(3, 1, rng=0)
    bm.train(three, data, epochs=10, learning_rate=0.3, momentum=0.7)
    bm.train(three, data, epochs=10, learning_rate=0.3, momentum=0.7)
    assert not np.allclose(three.W, one.W)
    with pytest.raises(ValueError, match="resume is a history of another model"):
        bm.train(bm.BoltzmannMachine(5, rng=0), bm.parity_patterns(5), epochs=1, resume=half)
    with pytest.raises(TypeError, match="callback must be a function"):
        bm.train(two, data, epochs=1, callback="stop")


def test_held_out_curves_score_both_sets_exactly_and_weight_decay_shrinks_the_weights():
    data = bm.ten_pixel_images()
    train_set, held_out = data[:20], data[20:]
    curves = bm.held_out_curves(train_set, held_out, weight_decays=[0.0, 0.1], epochs=40, learning_rate=0.2)
    plain, decayed = curves[0.0], curves[0.1]
    assert plain.train.shape == plain.held_out.shape == (41,)
    assert plain.held_out[0] == pytest.approx(-10 * np.log(2))  # W = 0: every state 1/1024
    # Retrain by hand: the curve's last points are the exact log-likelihoods of the same machine.
    machine = bm.BoltzmannMachine(10, init_scale=0.0)
    bm.train(machine, train_set, epochs=40, learning_rate=0.2, weight_decay=0.1, progress=False)
    assert decayed.train[-1] == pytest.approx(machine.log_likelihood(train_set), rel=1e-12)
    assert decayed.held_out[-1] == pytest.approx(machine.log_likelihood(held_out), rel=1e-12)
    assert plain.train[-1] > decayed.train[-1]  # the penalty costs training likelihood
