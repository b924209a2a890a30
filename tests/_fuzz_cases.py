"""The table of valid example calls that tests/test_fuzz.py perturbs, one argument at a time.

Each case is ``(name, function, kwargs)``: ``function(**kwargs)`` must succeed
and return finite numbers. The fuzz test then replaces one keyword argument
by each bad value that fits it (see ``bad_values`` in test_fuzz.py).

Objects that a case needs (trained models, results, comparisons) are built
once, lazily, by the small factories below, so that importing this module
costs nothing and a failing factory shows up as a failing case.
"""
from __future__ import annotations

import functools
from pathlib import Path
import tempfile

import numpy as np

import bmlib as bm

W3 = np.array([[0.0, 1.0, -0.5], [1.0, 0.0, 0.25], [-0.5, 0.25, 0.0]])
B3 = np.array([0.1, -0.2, 0.3])
S3 = np.array([1.0, -1.0, 1.0])
DATA3 = bm.parity_patterns(3, units="spins")


@functools.cache
def machine():
    return bm.BoltzmannMachine(3, 1, rng=0)


@functools.cache
def visible_machine():
    return bm.BoltzmannMachine(3, rng=0)


@functools.cache
def learning_curves():
    data = bm.bars_and_stripes(2, units="bits")
    return bm.rbm_learning_curves(data, data, [2], epochs=2, every=1, batch_size=2, rng=0)


@functools.cache
def wolff_run():
    return bm.wolff_sample(bm.SquareLattice(4), T=2.0, n_samples=5, rng=0)


@functools.cache
def slowing_run():
    return bm.critical_slowing_down((4, 6), n_sweeps=100, n_updates=100, n_chains=2, rng=0)


@functools.cache
def rbm():
    return bm.RBM(3, 2, units="bits", rng=0)


@functools.cache
def history():
    return bm.train(bm.BoltzmannMachine(3, rng=0), DATA3, epochs=2, progress=False, rng=0)


@functools.cache
def sample_result():
    return bm.sample(W3, B3, T=1.0, n_samples=20, n_chains=2, burn_in=2, rng=0)


@functools.cache
def anneal_result():
    return bm.anneal(W3, schedule=[(1.0, 2), (0.0, 1)], n_chains=2, rng=0)


@functools.cache
def descent_path():
    return bm.energy_descent(S3, W3)


@functools.cache
def comparison():
    return bm.compare_log_z(W3, temperatures=[2.0, 1.0], budgets=[200], rng=0)


@functools.cache
def scan():
    return bm.temperature_scan(bm.SquareLattice(4), None, [2.0, 3.0], n_samples=10, n_chains=2, burn_in=2, rng=0)


@functools.cache
def mean_field_result():
    return bm.naive_mean_field(W3, B3, T=2.0, rng=0)


@functools.cache
def bethe_result():
    return bm.belief_propagation(W3, B3, T=2.0, rng=0)


@functools.cache
def stats():
    return bm.exact_statistics(machine(), DATA3)


def _good_energy(s, W, b):
    return -0.5 * s @ W @ s - b @ s


def _model_file():
    path = Path(tempfile.mkdtemp()) / "model.npz"
    bm.save_model(path, machine())
    return path


def method(factory, name):
    """A function calling ``factory().name(**kwargs)`` on a fresh copy when the object has one."""
    def call(**kwargs):
        obj = factory()
        obj = obj.copy() if hasattr(obj, "copy") else obj
        return getattr(obj, name)(**kwargs)
    call.__name__ = f"{factory.__name__}.{name}"
    return call


def cases():
    """Every (name, function, kwargs) case; built on call so that the objects are made lazily."""
    e = np.array([0.1, 0.3, -0.2, 0.5, 0.0, 0.4, -0.1, 0.2] * 4)
    P = np.array([0.1, 0.2, 0.3, 0.4])
    return [
        # --- energy, states, small models
        ("energy", bm.energy, dict(s=S3, W=W3, b=B3, units="spins")),
        ("local_fields", bm.local_fields, dict(s=S3, W=W3, b=B3, units="spins")),
        ("flip_energy_changes", bm.flip_energy_changes, dict(s=S3, W=W3, b=B3, units="spins")),
        ("is_stable", bm.is_stable, dict(s=S3, W=W3, b=B3, units="spins")),
        ("energy_descent", bm.energy_descent,
         dict(s=S3, W=W3, b=B3, units="spins", scan="random", max_iter=10, rng=0)),
        ("all_states", bm.all_states, dict(n=3, units="bits")),
        ("to_bits", bm.to_bits, dict(s=S3)),
        ("to_spins", bm.to_spins, dict(x=np.array([0.0, 1.0, 1.0]))),
        ("to_bits_parameters", bm.to_bits_parameters, dict(W=W3, b=B3)),
        ("to_spins_parameters", bm.to_spins_parameters, dict(W=W3, b=B3)),
        ("hebbian_weights", bm.hebbian_weights, dict(patterns=DATA3, scale=1.0)),
        ("brief_warnings", bm.brief_warnings, dict(enable=True)),
        ("cd_update_spread", bm.cd_update_spread,
         dict(rbm=bm.RBM(3, 2, units="bits", rng=0), data=np.array([[1.0, 0.0, 1.0]]), n_runs=3, rng=0)),
        ("expected_cd_update", bm.expected_cd_update,
         dict(rbm=bm.RBM(3, 2, units="bits", rng=0), data=np.array([[1.0, 0.0, 1.0]]), k=1)),
        ("update_jacobian", bm.update_jacobian,
         dict(rbm=bm.RBM(2, 1, units="bits", rng=0), data=np.array([[1.0, 0.0]]), k=1, step=1e-5)),
        ("held_out_curves", bm.held_out_curves,
         dict(train_data=DATA3, held_out_data=DATA3[:2], weight_decays=[0.0, 0.1], epochs=3, learning_rate=0.1,
              units="spins")),
        ("plot_held_out_curves", bm.plot_held_out_curves,
         dict(curves=bm.held_out_curves(DATA3, DATA3[:2], epochs=3))),
        ("mean_field_inverse_ising", bm.mean_field_inverse_ising,
         dict(data=bm.ten_pixel_images(), T=1.0, method="tap", units="spins")),
        ("hebbian_recall", bm.hebbian_recall, dict(n=10, loads=[0.2, 0.3], n_runs=1, rng=0)),
        ("synchronous_updates", bm.synchronous_updates, dict(s=S3, W=W3, b=B3, max_iter=5)),
        ("state_frequencies", bm.state_frequencies, dict(states=DATA3, units="spins")),
        ("state_labels", bm.state_labels, dict(states=DATA3, units="spins")),
        # --- lattices and data sets
        ("chain_couplings", bm.chain_couplings, dict(n=5, J=1.0, periodic=True)),
        ("digits", bm.digits, dict(split="held_out", units="bits")),
        ("sk_couplings", bm.sk_couplings, dict(n=5, J=1.0, rng=0)),
        ("edwards_anderson_couplings", bm.edwards_anderson_couplings,
         dict(rows=3, cols=4, J=1.0, periodic=True, rng=0)),
        ("curie_weiss_couplings", bm.curie_weiss_couplings, dict(n=5, J=1.0)),
        ("square_lattice_couplings", bm.square_lattice_couplings, dict(rows=3, cols=4, J=1.0, periodic=False)),
        ("bars_and_stripes", bm.bars_and_stripes, dict(n=3, units="bits")),
        ("parity_patterns", bm.parity_patterns, dict(n=3, units="bits")),
        ("encoder_patterns", bm.encoder_patterns, dict(n_group=4, units="bits")),
        ("ten_pixel_images", bm.ten_pixel_images, dict(n_copies=2, flip=0.1, units="bits", rng=0)),
        ("ten_pixel_probabilities", bm.ten_pixel_probabilities,
         dict(images=bm.ten_pixel_images(n_copies=1), flip=0.1, units="spins")),
        ("encoder_mask", bm.encoder_mask, dict(n_group=4, n_hidden=2, hidden_connected=False)),
        # --- exact enumeration
        ("boltzmann_distribution", bm.boltzmann_distribution, dict(W=W3, b=B3, T=1.0, units="spins")),
        ("log_partition", bm.log_partition, dict(W=W3, b=B3, T=1.0, units="spins")),
        ("parallel_tempering", bm.parallel_tempering,
         dict(W=W3, b=B3, temperatures=[0.5, 1.0], units="spins", n_samples=5, burn_in=2, initial=S3,
              progress=False, rng=0)),
        ("valley_crossings", bm.valley_crossings, dict(samples=[[1, 1, -1], [-1, -1, 1]], ground=[1, 1, 1])),
        ("wolff_sample", bm.wolff_sample,
         dict(lattice=bm.SquareLattice(4), T=2.0, n_samples=3, n_chains=2, burn_in=1, thin=1, initial=None, rng=0)),
        ("wolff_sweeps", bm.wolff_sweeps, dict(result=wolff_run())),
        ("critical_slowing_down", bm.critical_slowing_down,
         dict(sides=[4, 6], T=2.5, n_sweeps=100, n_updates=100, n_chains=1, rng=0)),
        ("plot_critical_slowing", bm.plot_critical_slowing, dict(result=slowing_run(), exponent=2.0)),
        ("rbm_parallel_tempering", bm.rbm_parallel_tempering,
         dict(rbm=rbm(), temperatures=[1.0, 2.0], n_samples=3, burn_in=1, initial=[0.0, 1.0, 1.0],
              progress=False, rng=0)),
        ("inpaint", bm.inpaint,
         dict(rbm=rbm(), images=[[0.0, 1.0, 1.0]], missing=[1], n_sweeps=3, burn_in=1, n_chains=2, rng=0)),
        ("nearest_centroid_labels", bm.nearest_centroid_labels,
         dict(train_features=[[0.0, 1.0], [2.0, 1.0]], train_labels=np.array([0, 1]), features=[[0.5, 0.0]])),
        ("nearest_centroid_accuracy", bm.nearest_centroid_accuracy,
         dict(train_features=[[0.0, 1.0], [2.0, 1.0]], train_labels=np.array([0, 1]), test_features=[[0.5, 0.0]],
              test_labels=np.array([0]))),
        ("rbm_learning_curves", bm.rbm_learning_curves,
         dict(train_data=bm.bars_and_stripes(2, units="bits"), held_out_data=bm.bars_and_stripes(2, units="bits"),
              hidden_sizes=[2], epochs=2, every=1, learning_rate=0.1, batch_size=2, n_chains=3, units="bits",
              progress=False, rng=0)),
        ("plot_rbm_learning_curves", bm.plot_rbm_learning_curves, dict(curves=learning_curves())),
        ("plot_filters", bm.plot_filters, dict(rbm=rbm(), shape=(1, 3), n_columns=2)),
        ("plot_inpainting", bm.plot_inpainting,
         dict(images=[[0.0, 1.0, 1.0]], probabilities=[[0.0, 0.5, 1.0]], missing=[1], shape=(1, 3),
              titles=("a", "b", "c"))),
        ("digits_widget", bm.digits_widget, dict(n_hidden=4, epoch=1, n_sweeps=1, epochs=1, every=1, rng=0)),
        ("check_rbm_free_energy", bm.check_rbm_free_energy, dict(func=lambda v, W, a, c: -v @ a, hint=False)),
        ("check_nearest_centroid", bm.check_nearest_centroid, dict(func=bm.nearest_centroid_labels, hint=False)),
        ("exact_free_energy", bm.exact_free_energy, dict(W=W3, b=B3, T=1.0, units="spins")),
        ("variational_free_energy", bm.variational_free_energy,
         dict(q=np.full(8, 0.125), W=W3, b=B3, T=1.0, units="spins")),
        ("free_energy_curves", bm.free_energy_curves, dict(W=W3, b=B3, temperatures=[0.5, 1.0], units="bits")),
        ("sparse_log_partition", bm.sparse_log_partition, dict(W=W3, b=B3, T=1.0, units="spins", order="auto")),
        ("sparse_moments", bm.sparse_moments, dict(W=W3, b=B3, T=1.0, units="bits", order="min_fill")),
        ("most_probable_state", bm.most_probable_state, dict(W=W3, b=B3, units="spins", order=[2, 0, 1])),
        ("elimination_plan", bm.elimination_plan, dict(W=W3, order="min_degree")),
        ("sparse_magnetization", bm.sparse_magnetization, dict(W=W3, b=B3, T=1.0, units="spins", step=1e-5)),
        ("exact_moments", bm.exact_moments, dict(W=W3, b=B3, T=1.0, units="spins")),
        ("exact_energy_moments", bm.exact_energy_moments, dict(W=W3, b=B3, T=1.0, units="spins")),
        ("clamped_log_partition", bm.clamped_log_partition,
         dict(W=W3, b=B3, clamped=[0], values=[1.0], T=1.0, units="spins")),
        ("clamped_moments", bm.clamped_moments,
         dict(W=W3, b=B3, clamped=[0], values=[1.0], T=1.0, units="spins", average=True)),
        ("log_z_rbm_ais", bm.log_z_rbm_ais,
         dict(W=W3, b_visible=B3, b_hidden=B3, T=1.0, units="bits", data=np.array([[0.0, 1.0, 1.0]]),
              n_runs=4, n_steps=3, progress=False, rng=0)),
        ("base_visible_biases", bm.base_visible_biases, dict(data=DATA3, T=1.0, units="spins")),
        ("rbm_log_partition", bm.rbm_log_partition,
         dict(W=np.ones((3, 2)) * 0.5, b_visible=B3, b_hidden=np.array([0.1, 0.2]), T=1.0, units="bits")),
        # --- Ising exact results
        ("chain_log_partition", bm.chain_log_partition, dict(n=5, T=1.0, J=1.0, h=0.1, periodic=True)),
        ("critical_temperature", bm.critical_temperature, dict(J=1.0)),
        ("kaufman_energy_per_spin", bm.kaufman_energy_per_spin, dict(rows=4, cols=4, T=2.0, J=1.0)),
        ("kaufman_log_partition", bm.kaufman_log_partition, dict(rows=4, cols=4, T=2.0, J=1.0)),
        ("kaufman_specific_heat_per_spin", bm.kaufman_specific_heat_per_spin, dict(rows=4, cols=4, T=2.0, J=1.0)),
        ("onsager_energy_per_spin", bm.onsager_energy_per_spin, dict(T=2.0, J=1.0)),
        ("onsager_free_energy_per_spin", bm.onsager_free_energy_per_spin, dict(T=2.0, J=1.0)),
        ("yang_magnetization", bm.yang_magnetization, dict(T=2.0, J=1.0)),
        # --- sampling
        ("sample", bm.sample, dict(W=W3, b=B3, T=1.0, units="spins", n_samples=5, n_chains=2, burn_in=2, thin=1,
                                   rule="metropolis", scan="random", clamped=[0], values=[1.0], initial=S3,
                                   progress=False, rng=0)),
        ("anneal", bm.anneal, dict(W=W3, b=B3, schedule=[(1.0, 2), (0.0, 1)], units="spins", n_chains=2,
                                   rule="heat_bath", scan="sequential", initial=S3, progress=False, rng=0)),
        ("temperature_scan", bm.temperature_scan,
         dict(W=W3, b=B3, temperatures=[2.0, 1.0], units="spins", n_samples=10, n_chains=2, burn_in=2, thin=1,
              rule="heat_bath", scan="sequential", initial=S3, progress=False, rng=0)),
        ("convergence_curves", bm.convergence_curves,
         dict(W=W3, b=B3, T=1.0, units="spins", initial=S3, n_sweeps=3, n_chains=10, rules=("heat_bath",),
              scan="sequential", rng=0)),
        ("transition_matrix", bm.transition_matrix,
         dict(W=W3, b=B3, T=1.0, units="spins", rule="metropolis", scan="sequential", unit=None)),
        ("greedy_colouring", bm.greedy_colouring, dict(W=W3, free=np.array([0, 2]))),
        ("heat_bath", bm.heat_bath, dict(values=S3, fields=B3, T=1.0, units="spins", rng=0)),
        ("metropolis", bm.metropolis, dict(values=S3, fields=B3, T=1.0, units="spins", rng=0)),
        ("HeatBath", _checked_call(bm.HeatBath()), dict(values=S3, fields=B3, T=1.0, units="spins", rng=0)),
        ("Metropolis", _checked_call(bm.Metropolis()), dict(values=S3, fields=B3, T=1.0, units="spins", rng=0)),
        ("Descent", _checked_call(bm.Descent()), dict(values=S3, fields=B3, T=1.0, units="spins", rng=0)),
        ("total_variation", bm.total_variation, dict(p=P, q=P[::-1])),
        ("chi_square_test", bm.chi_square_test, dict(samples=DATA3, p=bm.boltzmann_distribution(W3, B3), min_expected=5.0)),
        ("state_index", bm.state_index, dict(states=DATA3, units="spins")),
        ("autocorrelation_time", bm.autocorrelation_time, dict(x=e, window=5.0)),
        ("autocorrelation", bm.autocorrelation, dict(x=e, max_lag=5)),
        ("blocking_error", bm.blocking_error, dict(x=e, return_levels=True)),
        ("estimate", bm.estimate, dict(x=e)),
        ("thermal_averages", bm.thermal_averages, dict(result=sample_result())),
        ("DenseCouplings", bm.DenseCouplings, dict(W=W3, b=B3)),
        ("SquareLattice", bm.SquareLattice, dict(rows=4, cols=6, J=1.0, h=0.1, periodic=False)),
        ("SampleResult.acceptance_rate", lambda: sample_result().acceptance_rate, dict()),
        # --- mean field, Bethe, log Z
        ("naive_mean_field", bm.naive_mean_field,
         dict(W=W3, b=B3, T=2.0, units="spins", clamped=[0], values=[1.0], n_starts=2, scan="parallel",
              damping=0.5, tol=1e-8, max_iter=200, rng=0)),
        ("tap_mean_field", bm.tap_mean_field,
         dict(W=W3, b=B3, T=2.0, units="spins", n_starts=2, scan="sequential", damping=0.1, tol=1e-8,
              max_iter=200, rng=0)),
        ("MeanFieldResult.moments", method(mean_field_result, "moments"), dict(linear_response=True)),
        ("MeanFieldResult.free_energy", lambda: mean_field_result().free_energy, dict()),
        ("belief_propagation", bm.belief_propagation,
         dict(W=W3, b=B3, T=2.0, units="spins", n_starts=2, damping=0.5, tol=1e-8, max_iter=200, rng=0)),
        ("BetheResult.moments", method(bethe_result, "moments"), dict()),
        ("log_z_ais", bm.log_z_ais, dict(W=W3, b=B3, T=1.0, units="spins", n_runs=5, n_steps=5, base="uniform",
                                         scan="sequential", progress=False, rng=0)),
        ("ais_sandwich", bm.ais_sandwich, dict(W=W3, b=B3, T=1.0, units="spins", n_runs=5, n_steps=5,
                                               base="uniform", progress=False, rng=0)),
        ("exact_samples", bm.exact_samples, dict(W=W3, b=B3, T=1.0, units="spins", n_samples=5, rng=0)),
        ("log_z_bethe", bm.log_z_bethe, dict(W=W3, b=B3, T=2.0, units="spins", n_starts=2, damping=0.5, tol=1e-8,
                                             max_iter=200, rng=0)),
        ("log_z_importance", bm.log_z_importance,
         dict(W=W3, b=B3, T=1.0, units="spins", n_samples=50, proposal="uniform", rng=0)),
        ("log_z_mean_field", bm.log_z_mean_field, dict(W=W3, b=B3, T=2.0, units="spins", n_starts=2,
                                                       scan="sequential", damping=0.0, tol=1e-8, max_iter=200,
                                                       rng=0)),
        ("log_z_tap", bm.log_z_tap, dict(W=W3, b=B3, T=2.0, units="spins", n_starts=2, scan="sequential",
                                         damping=0.0, tol=1e-8, max_iter=200, rng=0)),
        ("log_z_visited_states", bm.log_z_visited_states,
         dict(W=W3, b=B3, T=1.0, units="spins", n_samples=20, n_chains=2, burn_in=2, thin=1, scan="sequential",
              initial=S3, rng=0)),
        ("compare_log_z", bm.compare_log_z,
         dict(W=W3, b=B3, temperatures=[2.0, 1.0], units="spins", budgets=[200], methods=("mean_field",),
              n_chains=2, progress=False, rng=0)),
        ("LogZComparison.errors", method(comparison, "errors"), dict(method="mean_field", budget=200)),
        ("LogZComparison.table", method(comparison, "table"), dict(budget=200, digits=2)),
        ("LogZComparison.labels", method(comparison, "labels"), dict()),
        # --- learning
        ("BoltzmannMachine", bm.BoltzmannMachine,
         dict(n_visible=3, n_hidden=1, mask=None, W=None, b=None, units="spins", T=1.0, init_scale=0.1, rng=0)),
        ("BoltzmannMachine.energy", method(machine, "energy"), dict(s=np.array([1.0, -1.0, 1.0, 1.0]))),
        ("BoltzmannMachine.log_partition", method(machine, "log_partition"), dict()),
        ("BoltzmannMachine.log_probability", method(machine, "log_probability"), dict(v=S3)),
        ("BoltzmannMachine.log_likelihood", method(machine, "log_likelihood"), dict(data=DATA3)),
        ("BoltzmannMachine.pseudo_log_likelihood", method(visible_machine, "pseudo_log_likelihood"),
         dict(data=DATA3)),
        ("BoltzmannMachine.gradient", method(machine, "gradient"), dict(data=DATA3)),
        ("BoltzmannMachine.sample", method(machine, "sample"), dict(n_samples=5, rng=0)),
        ("RBM", bm.RBM, dict(n_visible=3, n_hidden=2, W=None, b_visible=None, b_hidden=None, units="bits", T=1.0,
                             init_scale=0.01, rng=0)),
        ("RBM.hidden_means", method(rbm, "hidden_means"), dict(v=np.array([0.0, 1.0, 1.0]))),
        ("RBM.visible_means", method(rbm, "visible_means"), dict(h=np.array([0.0, 1.0]))),
        ("RBM.gibbs", method(rbm, "gibbs"), dict(v=np.array([0.0, 1.0, 1.0]), n_sweeps=2, rng=0)),
        ("RBM.complete", method(rbm, "complete"), dict(v=np.array([0.0, 1.0, 1.0]), missing=[0, 2])),
        ("RBM.sample", method(rbm, "sample"), dict(n_samples=3, n_sweeps=5, rng=0)),
        ("RBM.reconstruct", method(rbm, "reconstruct"), dict(v=np.array([0.0, 1.0, 1.0]))),
        ("RBM.gibbs_chain", method(rbm, "gibbs_chain"), dict(v=np.array([0.0, 1.0, 1.0]), n_sweeps=3, rng=0)),
        ("RBM.energy", method(rbm, "energy"), dict(v=np.array([0.0, 1.0, 1.0]), h=np.array([1.0, 0.0]))),
        ("RBM.free_energy", method(rbm, "free_energy"), dict(v=np.array([0.0, 1.0, 1.0]))),
        ("RBM.log_partition", method(rbm, "log_partition"), dict()),
        ("RBM.log_probability", method(rbm, "log_probability"), dict(v=np.array([0.0, 1.0, 1.0]))),
        ("RBM.log_likelihood", method(rbm, "log_likelihood"), dict(data=bm.parity_patterns(3))),
        ("RBM.pseudo_log_likelihood", method(rbm, "pseudo_log_likelihood"), dict(data=bm.parity_patterns(3))),
        ("RBM.gradient", method(rbm, "gradient"), dict(data=bm.parity_patterns(3))),
        ("RBM.to_boltzmann_machine", method(rbm, "to_boltzmann_machine"), dict()),
        ("exact_statistics", bm.exact_statistics, dict(model=machine(), batch=DATA3, rng=0)),
        ("SampledStatistics", bm.SampledStatistics,
         dict(n_chains=4, n_samples=2, burn_in=2, thin=1, persistent=True, rule="metropolis")),
        ("MeanFieldStatistics", bm.MeanFieldStatistics,
         dict(linear_response=True, n_starts=1, tol=1e-6, max_iter=100)),
        ("AnnealedStatistics", bm.AnnealedStatistics,
         dict(schedule=[(2.0, 1), (1.0, 1)], n_collect=2, chains_per_pattern=1, n_free_chains=2, noise=None,
              scan="random")),
        ("ContrastiveDivergence", bm.ContrastiveDivergence, dict(k=2)),
        ("PersistentContrastiveDivergence", bm.PersistentContrastiveDivergence, dict(k=1, n_chains=4)),
        ("train", bm.train, dict(model=bm.BoltzmannMachine(3, rng=0), data=DATA3, epochs=2, learning_rate=0.1,
                                 momentum=0.5, weight_decay=0.01, batch_size=2, statistics="exact",
                                 update="gradient", monitor="auto", progress=False, rng=0, step_decay=30.0)),
        ("TrainingHistory.restore_best", method(history, "restore_best"), dict(model=bm.BoltzmannMachine(3, rng=0))),
        ("train(sampled)", bm.train, dict(model=bm.BoltzmannMachine(3, rng=0), data=DATA3, epochs=2,
                                          statistics=bm.SampledStatistics(n_chains=4, n_samples=2, burn_in=1),
                                          progress=False, rng=0)),
        ("encoder_report", bm.encoder_report,
         dict(machine=bm.BoltzmannMachine(8, 2, mask=bm.encoder_mask(4, 2), units="bits", rng=0),
              method="exact", rng=0)),
        ("save_model", bm.save_model, dict(path=Path(tempfile.mkdtemp()) / "m.npz", model=machine(), overwrite=True)),
        ("load_model", bm.load_model, dict(path=_model_file())),
        # --- plotting
        ("plot_annealing", bm.plot_annealing, dict(result=anneal_result(), descent=None, ground_energy=-1.0,
                                                   n_traces=2)),
        ("plot_autocorrelation", bm.plot_autocorrelation, dict(series=sample_result().energies, label="E",
                                                               n_trace=10, max_lag=5)),
        ("plot_convergence", bm.plot_convergence,
         dict(W=W3, b=B3, T=1.0, units="spins", initial=S3, n_sweeps=3, n_chains=10, rules=("heat_bath",),
              scan="sequential", rng=0)),
        ("plot_coupling_matrices", bm.plot_coupling_matrices, dict(matrices=[W3], titles=["W"])),
        ("plot_descent", bm.plot_descent, dict(path=descent_path(), W=W3, b=None, units="spins")),
        ("plot_encoder_codes", bm.plot_encoder_codes,
         dict(machines=bm.BoltzmannMachine(8, 2, mask=bm.encoder_mask(4, 2), units="bits", rng=0), titles=None)),
        ("plot_energy_landscape", bm.plot_energy_landscape, dict(W=W3, b=B3, T=1.0, units="spins")),
        ("plot_estimated_statistics", bm.plot_estimated_statistics,
         dict(reference=stats(), estimates={"again": stats()}, mask=None)),
        ("plot_flip_probabilities", bm.plot_flip_probabilities, dict(T=1.0, max_delta=4.0)),
        ("plot_binder_crossing", bm.plot_binder_crossing,
         dict(temperatures=[2.0, 3.0],
              scans={4: bm.temperature_scan(bm.SquareLattice(4), None, [2.0, 3.0], n_samples=20, rng=0)})),
        ("plot_susceptibility_scaling", bm.plot_susceptibility_scaling,
         dict(temperatures=[2.0, 3.0],
              scans={L: bm.temperature_scan(bm.SquareLattice(L), None, [2.0, 3.0], n_samples=20, rng=0)
                     for L in (4, 6)},
              exponent=1.75)),
        ("plot_hebbian_recall", bm.plot_hebbian_recall,
         dict(curve=bm.hebbian_recall(n=10, loads=[0.2], n_runs=1, rng=0))),
        ("plot_free_energy", bm.plot_free_energy, dict(W=W3, b=B3, temperatures=[0.5, 1.0], units="spins")),
        ("plot_hidden_mixture", bm.plot_hidden_mixture, dict(machine=machine(), data=DATA3)),
        ("plot_lattices", bm.plot_lattices, dict(states=[np.ones(16)], labels=["up"], shape=(4, 4), J=1.0, h=0.0)),
        ("plot_log_likelihood_curves", bm.plot_log_likelihood_curves,
         dict(runs={"a": history()}, levels={"x": -2.0}, ylim=(-3.0, 0.0))),
        ("plot_log_z_cost", bm.plot_log_z_cost, dict(comparison=comparison(), temperatures=[1.0])),
        ("plot_log_z_errors", bm.plot_log_z_errors,
         dict(comparison=comparison(), budget=200, mark_T=1.0, mark_label="here")),
        ("plot_mean_field_accuracy", bm.plot_mean_field_accuracy,
         dict(models=[(W3, B3, 2.0)], titles=["a"], linear_response=False, method="naive", rng=0)),
        ("plot_moment_match", bm.plot_moment_match, dict(models=[bm.BoltzmannMachine(3, rng=0)], data=DATA3,
                                                         titles=["a"])),
        ("plot_network", bm.plot_network, dict(W=W3, b=B3, s=S3, ax=None, show_values=True)),
        ("plot_phase_transition", bm.plot_phase_transition, dict(temperatures=[2.0, 3.0], scan=scan(), L=4, J=1.0)),
        ("plot_pixel_images", bm.plot_pixel_images,
         dict(images=bm.ten_pixel_images(n_copies=1), samples=None, shape=(2, 5), n_show=4, n_columns=2)),
        ("plot_sampled_distribution", bm.plot_sampled_distribution,
         dict(samples=sample_result(), W=W3, b=B3, T=1.0, units="spins")),
        ("plot_self_consistency", bm.plot_self_consistency,
         dict(J=1.0, b=0.1, temperatures=(1.5,), n=5, T_range=(0.5, 2.0), initial=0.1)),
        ("plot_training_history", bm.plot_training_history, dict(histories={"a": history()}, labels=None,
                                                                best=-2.0)),
        # --- exercises: a self-check must print a diagnosis for any answer, never crash
        ("check_energy_function", bm.check_energy_function, dict(func=_good_energy, hint=False)),
        ("check_local_fields", bm.check_local_fields, dict(func=lambda s, W, b: W @ s + b, hint=False)),
        ("check_is_stable", bm.check_is_stable, dict(func=lambda s, W, b: True, units="spins", hint=False)),
        ("check_heat_bath_update", bm.check_heat_bath_update, dict(func=lambda h, T: 0.5, hint=False)),
        ("check_binder_cumulant", bm.check_binder_cumulant, dict(func=lambda m: 0.5, hint=False)),
        ("check_susceptibility", bm.check_susceptibility, dict(func=lambda m, n, T: 1.0, hint=False)),
        ("check_synchronous_step", bm.check_synchronous_step, dict(func=lambda s, W, b: s, hint=False)),
        ("check_energy_moments", bm.check_energy_moments, dict(func=lambda W, b, T: (0.0, 1.0), hint=False)),
        ("check_lattice_energy", bm.check_lattice_energy, dict(func=lambda s: 0.0, hint=False)),
        ("check_log_mean_exp", bm.check_log_mean_exp, dict(func=lambda x: 0.0, hint=False)),
        ("check_mean_field_bound", bm.check_mean_field_bound, dict(func=lambda *a: 0.0, hint=False)),
        ("check_swap_probability", bm.check_swap_probability, dict(func=lambda *a: 0.5, hint=False)),
        ("check_mean_field_sweep", bm.check_mean_field_sweep, dict(func=lambda *a: 0.0, hint=False)),
        ("check_gradient_function", bm.check_gradient_function, dict(func=lambda *a: 0.0, hint=False)),
        ("check_hidden_probabilities", bm.check_hidden_probabilities, dict(func=lambda *a: 0.5, hint=False)),
        ("check_gibbs_sampler", bm.check_gibbs_sampler, dict(func=lambda s, W, b, T, rng: s, hint=False)),
        ("check_cd1", bm.check_cd1, dict(func=lambda W, b, c, batch, lr, rng: (W, b, c), hint=False)),
        ("check_ais", bm.check_ais, dict(func=lambda W, b, T, fractions, n_runs, rng: np.zeros(n_runs), hint=False)),
        # --- widgets: built without a kernel (their figures render to PNG)
        ("energy_widget", bm.energy_widget, dict(W=W3, b=B3, T=1.0, units="spins")),
        ("sampling_widget", bm.sampling_widget, dict(W=W3, b=B3, T=1.0, units="spins", initial=None, n_chains=4,
                                                     n_sweeps=2, max_sweeps=4, rule="heat_bath", rng=0)),
        ("mean_field_widget", bm.mean_field_widget, dict(W=W3, b=B3, T=1.0, units="spins", coupling=1.0,
                                                         T_range=(0.5, 3.0))),
        ("ising_widget", bm.ising_widget, dict(L=4, T=2.5, J=1.0, n_sweeps=2, initial="random", rng=0, h=0.1)),
        ("learning_widget", bm.learning_widget,
         dict(data=DATA3, n_hidden=0, epochs=2, learning_rate=0.1, momentum=0.0, statistics="exact",
              units="spins", T=1.0, init_scale=0.1, epoch=0, rng=0)),
        ("hidden_widget", bm.hidden_widget, dict(rbm=None, data=None, n_hidden=2, epochs=2, pattern=0,
                                                 hide="nothing", rng=0)),
        ("partition_widget", bm.partition_widget, dict(source=comparison(), b=None, units="spins", T=None,
                                                       mark_T=None, rng=0)),
    ]


#: Public callables that the table does not call, each with its reason. Not listed because they are
#: not names of bmlib: the coupling operators' methods (start, states, schedule, values, fields,
#: assign, energy, clamp) are the chain runner's internal protocol, called only with the runner's
#: own validated arrays; the widgets' button callbacks (step, run, reset, restart) take no
#: arguments from a reader.
def _checked_call(rule):
    """A rule object's checked call, ``rule(values, fields, T, units, rng)``, as a named function for the harness."""
    def call(values, fields, T, units, rng=None):
        return rule(values, fields, T, units, rng)

    call.__name__ = type(rule).__name__
    return call


NOT_FUZZED = {
    # The base of a reader's own rule: its update raises NotImplementedError until a subclass
    # defines it; the checked call it gives every rule is fuzzed through HeatBath and Metropolis.
    "UpdateRule": "abstract base class (its checked call is fuzzed through HeatBath, Metropolis, Descent)",
    # Exception classes: nothing to call with arguments.
    "ApproximationWarning": "a warning class",
    "ConvergenceWarning": "a warning class",
    "TrainingWarning": "a warning class",
    # Result records: built by bmlib from validated values, never by readers; their
    # methods and properties are fuzzed above through a result bmlib made.
    "BetheResult": "result record (its moments() is fuzzed)",
    "BoltzmannMachineGradient": "result record (made by BoltzmannMachine.gradient, fuzzed)",
    "ChiSquareResult": "result record (made by chi_square_test, fuzzed)",
    "RBMGradient": "result record (made by RBM.gradient, fuzzed)",
    "DescentPath": "result record (plotted by plot_descent, fuzzed)",
    "Digits": "result record (made by digits, fuzzed)",
    "Estimate": "result record (made by estimate, thermal_averages and temperature_scan, fuzzed)",
    "EliminationPlan": "result record (made by elimination_plan, fuzzed)",
    "SparseMoments": "result record (made by sparse_moments, fuzzed)",
    "SparseMagnetization": "result record (made by sparse_magnetization, fuzzed)",
    "HeldOutCurve": "result record (made by held_out_curves, fuzzed)",
    "TemperingResult": "result record (made by parallel_tempering, fuzzed)",
    "ValleyCrossings": "result record (made by valley_crossings, fuzzed)",
    "Moments": "result record (made by exact_moments and clamped_moments, fuzzed)",
    "EnergyMoments": "result record (made by exact_energy_moments, fuzzed)",
    "RBMTemperingResult": "result record (made by rbm_parallel_tempering, fuzzed)",
    "CriticalSlowing": "result record (made by critical_slowing_down, fuzzed)",
    "RBMLearningCurve": "result record (made by rbm_learning_curves, fuzzed)",
    "FreeEnergy": "result record (made by exact_free_energy, fuzzed)",
    "RecallCurve": "result record (made by hebbian_recall, fuzzed)",
    "SynchronousPath": "result record (made by synchronous_updates, fuzzed)",
    "EncoderReport": "result record (made by encoder_report, fuzzed)",
    "LogZComparison": "result record (its methods are fuzzed)",
    "LogZEstimate": "result record (made by the log_z_* functions, fuzzed)",
    "AISSandwich": "result record (made by ais_sandwich, fuzzed)",
    "MeanFieldResult": "result record (its methods are fuzzed)",
    "SampleResult": "result record (its properties are fuzzed)",
    "TrainingHistory": "result record (made by train, fuzzed; its restore_best() is fuzzed)",
    # Widget classes: the lower-case factories build them with the same arguments (fuzzed above);
    # FigureWidget is their abstract base (its rows come from subclasses).
    "EnergyWidget": "built by energy_widget, fuzzed",
    "DigitsWidget": "built by digits_widget, fuzzed",
    "HiddenWidget": "built by hidden_widget, fuzzed",
    "IsingWidget": "built by ising_widget, fuzzed",
    "LearningWidget": "built by learning_widget, fuzzed",
    "MeanFieldWidget": "built by mean_field_widget, fuzzed",
    "PartitionWidget": "built by partition_widget, fuzzed",
    "SamplingWidget": "built by sampling_widget, fuzzed",
    "FigureWidget": "abstract base of the widgets",
}
