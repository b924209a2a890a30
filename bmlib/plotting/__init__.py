"""The book's figures: one public function per kind of figure, one module per chapter.

Every figure is drawn by a private ``_draw_*`` function on a given
:class:`matplotlib.figure.Figure` (or axes), never through pyplot, so that the
widgets can re-draw the same picture on a fresh figure in a slider callback.
The public ``plot_*`` functions create the figure with ``pyplot.figure`` (so a
notebook shows it once, inline) and return it.

Colours and fonts are fixed here, once, for the whole book: red for positive
weights (the two units prefer to agree), blue for negative ones (they prefer
to disagree), dark for a unit that is on (+1 or 1), white for one that is off.
"""
from .style import (
    FONT_SIZE,
    HIGHLIGHT,
    MAX_LABELLED_UNITS,
    MAX_LANDSCAPE_UNITS,
    MAX_TEXT_LABEL_UNITS,
    NEGATIVE,
    NEUTRAL,
    POSITIVE,
    UNIT_OFF,
    UNIT_ON,
    state_labels,
)
from .energy import plot_descent, plot_energy_landscape, plot_hebbian_recall, plot_network
from .hidden import plot_encoder_codes, plot_hidden_mixture, plot_log_likelihood_curves
from .statistics import plot_estimated_statistics
from .images import plot_filters, plot_inpainting, plot_rbm_learning_curves
from .finite_size import plot_binder_crossing, plot_critical_slowing, plot_susceptibility_scaling
from .ising import plot_coupling_matrices, plot_lattices, plot_phase_transition
from .learning import plot_held_out_curves, plot_moment_match, plot_pixel_images, plot_training_history
from .meanfield import plot_mean_field_accuracy, plot_self_consistency
from .partition import plot_log_z_cost, plot_log_z_errors
from .annealing import plot_annealing, plot_autocorrelation, plot_free_energy
from .sampling import plot_convergence, plot_flip_probabilities, plot_sampled_distribution
