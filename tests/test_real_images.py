"""The chapter "Learning real images": RBM parallel tempering, inpainting, learning curves, the
nearest-centroid classifier, their figures, the widget and the self-checks, against exact answers."""
import matplotlib.pyplot as plt
import numpy as np
import pytest

import bmlib as bm
from bmlib.exercises import images as exercises


def _visible_distribution(rbm, T):
    """Exact p_T(v) over all_states order, by the free energy at temperature T."""
    replica = rbm.copy()
    replica.T = T
    low = 0 if rbm.units == "bits" else -1
    V = bm.all_states(rbm.n_visible, units=rbm.units) if low == 0 else bm.all_states(rbm.n_visible)
    log_w = -replica.free_energy(V) / T
    return np.exp(log_w - np.logaddexp.reduce(log_w))


def _strong_rbm(units, scale=2.0):
    rng = np.random.default_rng(3)
    return bm.RBM(6, 3, W=rng.normal(0, scale, (6, 3)), b_visible=rng.normal(0, 1, 6), b_hidden=rng.normal(0, 1, 3),
                  units=units)


# --- parallel tempering -------------------------------------------------------------------------


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_every_replica_samples_its_own_temperature(units):
    # Seed 1; chi-square against the exact visible marginal at each temperature, thinned to 1 in 10;
    # level 0.001. Accepting every proposed swap fails both cases (checked once by breaking the code).
    rbm = _strong_rbm(units)
    temperatures = [1.0, 1.7, 3.0]
    run = bm.rbm_parallel_tempering(rbm, temperatures, n_samples=40_000, rng=1)
    for k, T in enumerate(temperatures):
        result = bm.chi_square_test(run.samples[::10, k], _visible_distribution(rbm, T))
        assert result.p_value > 1e-3, (T, result)
    assert np.all((run.swap_acceptance > 0.2) & (run.swap_acceptance <= 1))


def test_tempering_crosses_a_barrier_that_one_chain_does_not():
    # Two bits tied by a strong hidden unit at T = 0.5: "both on" and "both off" are equally likely.
    # Seed 0: one Gibbs chain from "off" flips its pair rarely; the T = 0.5 replica gets 0.5 to within 0.05.
    rbm = bm.RBM(2, 1, W=[[6.0], [6.0]], b_visible=[-3.0, -3.0], b_hidden=[-6.0], units="bits", T=0.5)
    run = bm.rbm_parallel_tempering(rbm, [0.5, 1.0, 2.0, 4.0], n_samples=4000, initial=[0, 0], rng=0)
    both_on = np.all(run.samples[:, 0] == 1, axis=1)
    assert abs(both_on.mean() - 0.5) < 0.05
    v, gen, switches, previous = np.zeros((1, 2)), np.random.default_rng(0), 0, False
    for _ in range(4000):
        v = rbm.gibbs(v, 1, rng=gen)
        now = bool(np.all(v == 1))
        switches += now != previous
        previous = now
    assert switches < np.sum(both_on[1:] != both_on[:-1]) / 4


def test_tempering_free_energies_are_the_replicas_free_energies_and_the_path_is_a_permutation():
    rbm = _strong_rbm("bits")
    run = bm.rbm_parallel_tempering(rbm, [1.0, 2.0], n_samples=50, rng=2)
    for k, T in enumerate([1.0, 2.0]):
        replica = rbm.copy()
        replica.T = T
        np.testing.assert_allclose(run.free_energies[:, k], replica.free_energy(run.samples[:, k]))
    assert np.all(np.sort(run.replica_temperature, axis=1) == [0, 1])


@pytest.mark.parametrize("kwargs, message", [
    (dict(rbm=[[1.0]]), "RBM"),
    (dict(rbm=bm.RBM(2, 1), temperatures=[1.0]), "at least two"),
    (dict(rbm=bm.RBM(2, 1), temperatures=[2.0, 1.0]), "increasing"),
    (dict(rbm=bm.RBM(2, 1), temperatures=[0.0, 1.0]), "temperatures"),
    (dict(rbm=bm.RBM(2, 1), n_samples=0), "n_samples"),
    (dict(rbm=bm.RBM(2, 1), initial=[0, 1, 1]), "initial"),
])
def test_tempering_refuses_bad_input(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        bm.rbm_parallel_tempering(**kwargs)


# --- inpainting -----------------------------------------------------------------------------------


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_inpainting_matches_the_exact_conditional(units):
    # rbm.complete enumerates the 2**3 fillings exactly; the marginal of each missing pixel must agree
    # to 0.02 (seed 4; the Monte Carlo error of 20 chains x 2000 steps is below 0.005). Weights of scale
    # 1: with scale 2 in spins, clamped Gibbs chains stay in one mode and miss a pixel by 0.2.
    rbm = _strong_rbm(units, scale=1.0)
    low = 0 if units == "bits" else -1
    image = np.array([1, low, 1, low, 1, 1], dtype=float)
    missing = [1, 3, 4]
    patterns, p = rbm.complete(image, missing)
    exact_on = p @ (patterns[:, missing] == 1)
    got = bm.inpaint(rbm, image[None, :], missing, n_sweeps=2000, n_chains=20, rng=4)
    np.testing.assert_allclose(got[0, missing], exact_on, atol=0.02)
    known = [0, 2, 5]
    np.testing.assert_array_equal(got[0, known], (image[known] == 1).astype(float))


def test_inpainting_beats_the_pixel_means_on_held_out_digits():
    # A trained 16-hidden RBM (seed 0) fills the bottom half of held-out digits with fewer wrong
    # pixels than the training images' mean of each pixel does.
    train, held = bm.digits("train", units="bits"), bm.digits("held_out", units="bits")
    rbm = bm.RBM(64, 16, units="bits", rng=0)
    bm.train(rbm, train.images, epochs=20, learning_rate=0.05, batch_size=20,
             statistics=bm.PersistentContrastiveDivergence(n_chains=100), monitor=None, progress=False, rng=0)
    bottom = np.arange(32, 64)
    p = bm.inpaint(rbm, held.images, bottom, rng=0)
    wrong = np.mean((p[:, bottom] > 0.5) != held.images[:, bottom])
    baseline = np.mean((train.images[:, bottom].mean(axis=0) > 0.5) != held.images[:, bottom])
    assert wrong < baseline - 0.03, (wrong, baseline)


def test_inpainting_refuses_bad_input():
    rbm = bm.RBM(3, 2, units="bits")
    with pytest.raises(ValueError, match="missing"):
        bm.inpaint(rbm, [[0, 1, 1]], missing=[3])
    with pytest.raises(ValueError, match="images"):
        bm.inpaint(rbm, [[0, 2, 1]], missing=[0])
    with pytest.raises(TypeError, match="rbm"):
        bm.inpaint("rbm", [[0, 1, 1]], missing=[0])


# --- nearest centroid -----------------------------------------------------------------------------


def test_nearest_centroid_by_hand_and_its_tie_rule():
    train_x = [[0.0, 0.0], [2.0, 0.0], [10.0, 0.0]]
    assert bm.nearest_centroid_labels(train_x, [7, 7, 3], [[1.0, 0.0], [9.0, 0.0]]).tolist() == [7, 3]
    # x = 5.5 is 4.5 from both centroids (1 and 10): the smaller label wins.
    assert bm.nearest_centroid_labels(train_x, [7, 7, 3], [[5.5, 0.0]]).tolist() == [3]
    assert bm.nearest_centroid_accuracy(train_x, [7, 7, 3], [[1.0, 0.0], [9.0, 0.0]], [7, 7]) == 0.5


def test_nearest_centroid_on_digit_pixels():
    # 90% of the held-out digits by the pixels (the chapter's number), far above the 10% of chance.
    train, held = bm.digits("train", units="bits"), bm.digits("held_out", units="bits")
    accuracy = bm.nearest_centroid_accuracy(train.images, train.labels, held.images, held.labels)
    assert accuracy == pytest.approx(269 / 299)


@pytest.mark.parametrize("args, error, message", [
    (([[0.0]], [0], [[0.0, 1.0]]), ValueError, "columns"),
    (([[0.0], [1.0]], [0], [[0.0]]), ValueError, "2 labels"),
    (([[0.0]], [0.5], [[0.0]]), TypeError, "integer"),
    (([[np.nan]], [0], [[0.0]]), ValueError, "train_features"),
])
def test_nearest_centroid_refuses_bad_input(args, error, message):
    with pytest.raises(error, match=message):
        bm.nearest_centroid_labels(*args)


# --- learning curves ------------------------------------------------------------------------------


def test_learning_curves_are_the_exact_scores_of_the_models():
    data = bm.bars_and_stripes(3, units="bits")
    curves = bm.rbm_learning_curves(data[:10], data[10:], [3, 5], epochs=12, every=4, batch_size=2, rng=0)
    assert list(curves) == [3, 5]
    for n_hidden, curve in curves.items():
        assert curve.epochs.tolist() == [0, 4, 8, 12]
        assert curve.model.n_hidden == n_hidden
        # The last score is the trained model's, exactly.
        assert curve.train[-1] == pytest.approx(curve.model.log_likelihood(data[:10]))
        assert curve.held_out[-1] == pytest.approx(curve.model.log_likelihood(data[10:]))
        assert curve.held_out_pseudo[-1] == pytest.approx(curve.model.pseudo_log_likelihood(data[10:]))
        # At epoch 0 the weights are 0.01-small: every score is near 9 log(1/2).
        assert abs(curve.train[0] - 9 * np.log(0.5)) < 0.05
    again = bm.rbm_learning_curves(data[:10], data[10:], [3, 5], epochs=12, every=4, batch_size=2, rng=0)
    np.testing.assert_array_equal(again[5].held_out, curves[5].held_out)


def test_learning_curves_refuse_layers_too_large_for_the_exact_likelihood():
    data = bm.bars_and_stripes(3, units="bits")
    with pytest.raises(ValueError, match="at most 20"):
        bm.rbm_learning_curves(data, data, [21])
    with pytest.raises(ValueError, match="distinct"):
        bm.rbm_learning_curves(data, data, [2, 2])
    with pytest.raises(ValueError, match="held_out_data must have 9 columns"):
        bm.rbm_learning_curves(data, data[:, :4], [2])


# --- figures and the widget -------------------------------------------------------------------------


def test_figures_draw_and_refuse_bad_input():
    rbm = bm.RBM(64, 16, units="bits", rng=0)
    fig = bm.plot_filters(rbm)
    assert len(fig.axes) == 17
    plt.close(fig)
    images = bm.digits("held_out", units="bits").images[:5]
    fig = bm.plot_inpainting(images, np.full((5, 64), 0.25), missing=range(32, 64))
    assert len(fig.axes) == 15
    assert [ax.get_title() for ax in fig.axes[:5]] == ["1", "2", "3", "4", "5"]  # columns numbered by default
    plt.close(fig)
    fig = bm.plot_inpainting(images, np.full((5, 64), 0.25), missing=range(32, 64), labels=[5, 1, 7, 3, 0])
    assert [ax.get_title() for ax in fig.axes[:5]] == ["5", "1", "7", "3", "0"]
    plt.close(fig)
    with pytest.raises(ValueError, match="labels must have one label per image"):
        bm.plot_inpainting(images, np.full((5, 64), 0.25), missing=[0], labels=[1, 2])
    with pytest.raises(ValueError, match="shape 8 x 8 must hold the 9"):
        bm.plot_filters(bm.RBM(9, 2))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        bm.plot_inpainting(images, np.full((5, 64), 2.0), missing=[0])
    with pytest.raises(TypeError, match="curves"):
        bm.plot_rbm_learning_curves([])


def test_digits_widget_shows_the_model_trained_with_its_settings():
    widget = bm.digits_widget(n_hidden=4, epoch=3, epochs=3, every=1, n_sweeps=10, rng=0)
    seed = widget._seed
    rbm = bm.RBM(64, 4, units="bits", rng=seed + 4)
    bm.train(rbm, bm.digits("train", units="bits").images, epochs=3, learning_rate=0.05, batch_size=20,
             statistics=bm.PersistentContrastiveDivergence(n_chains=100), monitor=None, progress=False,
             rng=seed + 4)
    np.testing.assert_array_equal(widget.model.W, rbm.W)
    before = widget.figure_png()
    widget.steps.value = 1
    assert widget.figure_png() != before
    assert widget.samples().shape == (16, 64)
    with pytest.raises(ValueError, match="n_hidden must be one of"):
        bm.digits_widget(n_hidden=5)
    with pytest.raises(ValueError, match="multiple of every"):
        bm.digits_widget(epoch=7)


# --- the self-checks ----------------------------------------------------------------------------


def test_free_energy_checker_accepts_the_rbm_and_names_each_mistake(capsys):
    def right(v, W, a, c):
        return bm.RBM(W.shape[0], W.shape[1], W=W, b_visible=a, b_hidden=c, units="bits").free_energy(v)

    assert bm.check_rbm_free_energy(right)
    for mistake, text in exercises._FREE_ENERGY_MISTAKES:
        capsys.readouterr()
        assert not bm.check_rbm_free_energy(mistake, hint=True)
        printed = " ".join(capsys.readouterr().out.split())
        assert " ".join(text.split()) in printed, (text, printed)


def test_centroid_checker_accepts_bmlib_and_names_each_mistake(capsys):
    assert bm.check_nearest_centroid(bm.nearest_centroid_labels)
    for mistake, text in exercises._CENTROID_MISTAKES:
        capsys.readouterr()
        assert not bm.check_nearest_centroid(mistake, hint=True)
        printed = " ".join(capsys.readouterr().out.split())
        assert " ".join(text.split()) in printed, (text, printed)


def test_checkers_report_a_missing_return(capsys):
    assert not bm.check_rbm_free_energy(lambda v, W, a, c: None)
    assert not bm.check_nearest_centroid(lambda train_x, train_y, x: None)
    assert "returned None" in capsys.readouterr().out


def test_rbm_tempering_records_free_energies_and_the_old_name_still_reads_them():
    # The RBM version records F_T(v), not E(v, h): the field says so. 1.0's name works, with a warning.
    rbm = bm.RBM(3, 2, W=[[1.0, -0.5], [0.3, 0.8], [-1.0, 0.2]], units="bits")
    run = bm.rbm_parallel_tempering(rbm, [1.0, 2.0], n_samples=5, burn_in=0, rng=0)
    for k, T in enumerate([1.0, 2.0]):
        at_T = bm.RBM(3, 2, W=rbm.W, units="bits", T=T)
        np.testing.assert_allclose(run.free_energies[:, k], at_T.free_energy(run.samples[:, k]), rtol=1e-12)
    with pytest.warns(DeprecationWarning, match="energies is now free_energies"):
        np.testing.assert_array_equal(run.energies, run.free_energies)
    temperatures, samples, free_energies, swaps, path = run  # unpacks as in 1.0
    assert free_energies is run.free_energies
