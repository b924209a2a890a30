"""bmlib: the companion library of the course book on Boltzmann machines.

Every figure, number and widget in the book comes from a call into bmlib.
The public names are flat (``import bmlib as bm; bm.energy(...)``); each is
re-exported from a small module about one idea, in a package about its domain:
``models/`` (states, energy, lattices, data), ``exact/`` (enumeration,
elimination, closed forms), ``sampling/``, ``learning/``, ``meanfield/``,
``partition/`` (estimates of log Z), and ``plotting/``, ``widgets/``,
``exercises/``. Only the flat names are promised; submodule paths may move.
Each name is loaded the first time it is asked for, not at ``import bmlib``:
the figures (``plot_*``) and widgets (``*_widget``) bring Matplotlib and
ipywidgets with them, and a script that never draws never loads them.

Conventions
-----------
============  =========================================================
energy        E(s) = -1/2 s^T W s - b^T s, W symmetric, zero diagonal
distribution  p(s) = exp(-E(s)/T) / Z,  T > 0,  beta = 1/T
units         "spins": s_i in {-1, +1} (default);  "bits": x_i in {0, 1}
state order   row k of all_states(n) is k in binary, unit 0 most significant
============  =========================================================
"""
import importlib

from ._warnings import brief_warnings
from ._checks import MAX_COUNT, MAX_EXACT_UNITS, MEMORY_BUDGET, ApproximationWarning, ConvergenceWarning

# Every public name is loaded on first use (PEP 562 module __getattr__ below),
# from the module that defines it, so that ``import bmlib`` costs little more
# than NumPy: a script that only samples never loads the learning code, and one
# that never draws never loads Matplotlib, ipywidgets and PIL (about half a
# second). The names stay in the flat namespace, in __all__ and in dir(bmlib).
# Only the warning helpers and the shared limits load at once.
_LAZY_SUBMODULES = {
    "meanfield.bethe": ("BetheResult", "belief_propagation"),
    "partition.sandwich": ("AISSandwich", "ais_sandwich"),
    "exact.samples": ("exact_samples",),
    "models.datasets": (
        "TEN_PIXEL_PROTOTYPES", "bars_and_stripes", "encoder_patterns", "parity_patterns", "ten_pixel_images",
        "ten_pixel_probabilities"),
    "models.descent": ("DescentPath", "energy_descent"),
    "models.digit_images": ("Digits", "digits"),
    "exact.elimination": (
        "EliminationPlan", "SparseMagnetization", "SparseMoments", "elimination_plan", "most_probable_state",
        "sparse_log_partition", "sparse_magnetization", "sparse_moments"),
    "models.energy": ("energy", "flip_energy_changes", "is_stable", "local_fields"),
    "exact.enumeration": (
        "EnergyMoments", "Moments", "boltzmann_distribution", "exact_energy_moments", "exact_moments",
        "log_partition"),
    "exact.clamped": ("clamped_log_partition", "clamped_moments"),
    "exact.free_energy": ("FreeEnergy", "exact_free_energy", "free_energy_curves", "variational_free_energy"),
    "models.hebbian": ("RecallCurve", "SynchronousPath", "hebbian_recall", "hebbian_weights", "synchronous_updates"),
    "meanfield.inverse_ising": ("mean_field_inverse_ising",),
    "models.io": ("load_model", "save_model"),
    "exact.closed_forms": (
        "chain_log_partition", "critical_temperature", "onsager_energy_per_spin", "onsager_free_energy_per_spin",
        "yang_magnetization"),
    "exact.kaufman": ("kaufman_energy_per_spin", "kaufman_log_partition", "kaufman_specific_heat_per_spin"),
    "models.lattices": (
        "chain_couplings", "curie_weiss_couplings", "edwards_anderson_couplings", "sk_couplings",
        "square_lattice_couplings"),
    "learning": (
        "RBM", "AnnealedStatistics", "BoltzmannMachine", "BoltzmannMachineGradient", "ContrastiveDivergence",
        "EncoderReport", "HeldOutCurve", "MeanFieldStatistics", "PersistentContrastiveDivergence", "RBMGradient",
        "SampledStatistics", "TrainingHistory", "TrainingWarning", "encoder_mask", "encoder_report",
        "cd_update_spread", "exact_statistics", "expected_cd_update", "held_out_curves", "train", "update_jacobian"),
    "meanfield.theories": ("MeanFieldResult", "naive_mean_field", "tap_mean_field"),
    "partition.variational": ("LogZEstimate", "log_z_bethe", "log_z_mean_field", "log_z_tap"),
    "partition.sampled": ("log_z_ais", "log_z_importance", "log_z_visited_states"),
    "partition.study": ("LogZComparison", "compare_log_z"),
    "learning.rbm.ais": ("base_visible_biases", "log_z_rbm_ais"),
    "learning.rbm.images": (
        "RBMLearningCurve", "inpaint", "nearest_centroid_accuracy", "nearest_centroid_labels", "rbm_learning_curves"),
    "learning.rbm.exact": ("rbm_log_partition",),
    "learning.rbm.tempering": ("RBMTemperingResult", "rbm_parallel_tempering"),
    "sampling": (
        "ChiSquareResult", "CriticalSlowing", "DenseCouplings", "Descent", "Estimate", "HeatBath", "Metropolis",
        "SampleResult", "SquareLattice", "TemperingResult", "UpdateRule", "ValleyCrossings", "anneal", "autocorrelation",
        "autocorrelation_time", "blocking_error", "chi_square_test", "convergence_curves", "critical_slowing_down",
        "estimate", "greedy_colouring", "heat_bath", "metropolis", "parallel_tempering", "sample",
        "state_frequencies", "temperature_scan", "thermal_averages", "total_variation", "transition_matrix",
        "valley_crossings", "wolff_sample", "wolff_sweeps"),
    "models.states": (
        "MAX_TABLE_UNITS", "all_states", "state_index", "to_bits", "to_bits_parameters", "to_spins",
        "to_spins_parameters"),
    # The exercises' self-checks: about a third of bmlib's import time, and wanted only by a
    # reader who has reached an exercise.
    "exercises": (
        "check_ais", "check_binder_cumulant", "check_cd1", "check_energy_function", "check_energy_moments",
        "check_gibbs_sampler", "check_gradient_function", "check_heat_bath_update", "check_hidden_probabilities",
        "check_is_stable", "check_lattice_energy", "check_local_fields", "check_log_mean_exp",
        "check_mean_field_bound", "check_mean_field_sweep", "check_nearest_centroid", "check_rbm_free_energy",
        "check_susceptibility", "check_swap_probability", "check_synchronous_step"),
    "plotting": (
        "plot_annealing", "plot_autocorrelation", "plot_convergence", "plot_binder_crossing",
        "plot_coupling_matrices", "plot_critical_slowing", "plot_descent", "plot_encoder_codes",
        "plot_energy_landscape", "plot_estimated_statistics", "plot_filters", "plot_flip_probabilities",
        "plot_free_energy", "plot_hebbian_recall", "plot_held_out_curves", "plot_hidden_mixture", "plot_inpainting",
        "plot_lattices", "plot_log_likelihood_curves", "plot_log_z_cost", "plot_log_z_errors",
        "plot_mean_field_accuracy", "plot_moment_match", "plot_network", "plot_phase_transition", "plot_pixel_images",
        "plot_rbm_learning_curves", "plot_sampled_distribution", "plot_self_consistency",
        "plot_susceptibility_scaling", "plot_training_history", "state_labels"),
    "widgets": (
        "EnergyWidget", "DigitsWidget", "FigureWidget", "HiddenWidget", "IsingWidget", "LearningWidget",
        "MeanFieldWidget", "PartitionWidget", "SamplingWidget", "energy_widget", "digits_widget", "hidden_widget",
        "ising_widget", "learning_widget", "mean_field_widget", "partition_widget", "sampling_widget"),
}
_LAZY_NAMES = {name: module for module, names in _LAZY_SUBMODULES.items() for name in names}

__version__ = "1.0.0"

#: Every public name: the few loaded at once, and every name of the table above.
__all__ = sorted(["ApproximationWarning", "ConvergenceWarning", "MAX_COUNT", "MAX_EXACT_UNITS", "MEMORY_BUDGET",
                  "brief_warnings", *_LAZY_NAMES])


def __getattr__(name):
    """Import the submodule that defines a public name on first access (and cache the name here)."""
    if name in _LAZY_SUBMODULES:  # bmlib.plotting, bmlib.sampling, ... themselves
        return importlib.import_module(f"{__name__}.{name}")
    module = _LAZY_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups find it without coming here
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY_NAMES) | set(_LAZY_SUBMODULES))
