"""bmlib: the companion library of the course book on Boltzmann machines.

Every figure, number and widget in the book comes from a call into bmlib.
The public names are flat (``import bmlib as bm; bm.energy(...)``); each is
re-exported from a small private module about one idea.

Conventions
-----------
============  =========================================================
energy        E(s) = -1/2 s^T W s - b^T s, W symmetric, zero diagonal
distribution  p(s) = exp(-E(s)/T) / Z,  T > 0,  beta = 1/T
units         "spins": s_i in {-1, +1} (default);  "bits": x_i in {0, 1}
state order   row k of all_states(n) is k in binary, unit 0 most significant
============  =========================================================
"""
from ._checks import MAX_EXACT_UNITS, ApproximationWarning, ConvergenceWarning
from .bethe import BetheResult, belief_propagation
from .datasets import (
    TEN_PIXEL_PROTOTYPES,
    bars_and_stripes,
    encoder_patterns,
    parity_patterns,
    ten_pixel_images,
)
from .descent import DescentPath, energy_descent
from .energy import energy, flip_energy_changes, is_stable, local_fields
from .exact import (
    boltzmann_distribution,
    clamped_log_partition,
    clamped_moments,
    exact_energy_moments,
    exact_moments,
    log_partition,
)
from .exercises import check_energy_function, check_is_stable, check_local_fields
from .hebbian import hebbian_weights
from .io import load_model, save_model
from .ising_exact import (
    chain_log_partition,
    critical_temperature,
    kaufman_energy_per_spin,
    kaufman_log_partition,
    kaufman_specific_heat_per_spin,
    onsager_energy_per_spin,
    onsager_free_energy_per_spin,
    yang_magnetization,
)
from .lattices import chain_couplings, sk_couplings, square_lattice_couplings
from .learning import (
    RBM,
    BoltzmannMachine,
    ContrastiveDivergence,
    PersistentContrastiveDivergence,
    TrainingHistory,
    encoder_mask,
    exact_statistics,
    train,
)
from .meanfield import MeanFieldResult, naive_mean_field, tap_mean_field
from .partition import (
    LogZEstimate,
    log_z_bethe,
    log_z_importance,
    log_z_mean_field,
    log_z_tap,
    rbm_log_partition,
)
from .plotting import plot_descent, plot_energy_landscape, plot_network, state_labels
from .sampling import (
    DenseCouplings,
    SampleResult,
    SquareLattice,
    anneal,
    autocorrelation_time,
    blocking_error,
    estimate,
    greedy_colouring,
    heat_bath,
    metropolis,
    sample,
    temperature_scan,
    thermal_averages,
)
from .states import (
    MAX_TABLE_UNITS,
    all_states,
    to_bits,
    to_bits_parameters,
    to_spins,
    to_spins_parameters,
)
from .widgets import EnergyWidget, FigureWidget, energy_widget

__version__ = "0.1.0"

__all__ = [
    "MAX_EXACT_UNITS",
    "MAX_TABLE_UNITS",
    "RBM",
    "TEN_PIXEL_PROTOTYPES",
    "ApproximationWarning",
    "BetheResult",
    "BoltzmannMachine",
    "ContrastiveDivergence",
    "ConvergenceWarning",
    "DenseCouplings",
    "DescentPath",
    "EnergyWidget",
    "FigureWidget",
    "LogZEstimate",
    "MeanFieldResult",
    "PersistentContrastiveDivergence",
    "SampleResult",
    "SquareLattice",
    "TrainingHistory",
    "all_states",
    "anneal",
    "autocorrelation_time",
    "bars_and_stripes",
    "belief_propagation",
    "blocking_error",
    "boltzmann_distribution",
    "chain_couplings",
    "chain_log_partition",
    "check_energy_function",
    "check_is_stable",
    "check_local_fields",
    "clamped_log_partition",
    "clamped_moments",
    "critical_temperature",
    "encoder_mask",
    "encoder_patterns",
    "energy",
    "energy_descent",
    "energy_widget",
    "estimate",
    "exact_energy_moments",
    "exact_moments",
    "exact_statistics",
    "flip_energy_changes",
    "greedy_colouring",
    "heat_bath",
    "hebbian_weights",
    "is_stable",
    "kaufman_energy_per_spin",
    "kaufman_log_partition",
    "kaufman_specific_heat_per_spin",
    "load_model",
    "local_fields",
    "log_partition",
    "log_z_bethe",
    "log_z_importance",
    "log_z_mean_field",
    "log_z_tap",
    "metropolis",
    "naive_mean_field",
    "onsager_energy_per_spin",
    "onsager_free_energy_per_spin",
    "parity_patterns",
    "plot_descent",
    "plot_energy_landscape",
    "plot_network",
    "rbm_log_partition",
    "sample",
    "save_model",
    "sk_couplings",
    "square_lattice_couplings",
    "state_labels",
    "tap_mean_field",
    "temperature_scan",
    "ten_pixel_images",
    "thermal_averages",
    "to_bits",
    "to_bits_parameters",
    "to_spins",
    "to_spins_parameters",
    "train",
    "yang_magnetization",
]
