"""Self-checks for the book's coding exercises, one module per chapter.

Each checker calls the reader's function on a fixed set of small inputs,
compares with bmlib, and prints in plain words what is wrong: which input,
what was expected and what came back. Called again with ``hint=True``, it
also names the likely mistake and its fix, when the pattern of errors gives
it away: a reader first debugs from the failing input, then asks. The
inputs come from a fixed seed and use weights in steps of 0.5, so every
printed number is short and the same on every run. Three checks test a
whole algorithm written from scratch, by what it computes rather than by
its random numbers: a Gibbs sampler (long-run frequencies against exact
enumeration), a CD-1 step (its mean against the exact expected update) and
the log-weights of AIS (the estimate against the exact log Z).
"""
from .ais import check_ais
from .cd import check_cd1
from .energy import check_energy_function, check_is_stable, check_local_fields, check_synchronous_step
from .gibbs import check_gibbs_sampler
from .hidden import check_hidden_probabilities
from .images import check_nearest_centroid, check_rbm_free_energy
from .ising import check_binder_cumulant, check_lattice_energy, check_susceptibility
from .learning import check_gradient_function
from .meanfield import check_mean_field_sweep
from .partition import check_log_mean_exp, check_mean_field_bound
from .sampling import check_energy_moments, check_heat_bath_update
from .tempering import check_swap_probability
