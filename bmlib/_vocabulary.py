"""One word per idea: every parameter name in bmlib's public signatures, with what it means.

A reader who learns ``n_sweeps`` in one chapter should find the same word,
meaning the same thing, in every function of the library. This table is the
one place the words are fixed:

- :data:`WORDS`: every name a public function, class, method or result record
  uses for a parameter or field, with its meaning. tests/test_vocabulary.py
  walks ``bmlib.__all__`` and fails on a name missing here, so a new word
  is added on purpose (or an existing one used instead).
- :data:`RENAMED`: the words of bmlib 1.0 that 1.1 replaced, old -> new. The
  old words are still accepted, with a ``DeprecationWarning``, until bmlib 2.0
  (:func:`bmlib._deprecation.renamed`). Four old words live on in
  :data:`WORDS` with the other meaning they always had elsewhere:
  ``schedule`` (temperature pairs of an annealing), ``order`` (an elimination
  order), ``start`` (how belief propagation starts) and ``max_sweeps`` (the
  upper end of a widget's sweeps slider).

How the new words were chosen: the word the chapters (book/*.ipynb) already
passed most often, and counts spelled ``n_<thing>`` as elsewhere in bmlib.

- repeats: ``n_runs`` (``log_z_ais``, ``log_z_rbm_ais``; 4 chapter calls)
  over ``n_trials`` (1) and ``n_repeats`` (1);
- iteration caps: ``max_iter`` (7 functions) over ``max_sweeps`` and ``max_steps``;
- the start state: ``initial`` (8 chapter calls) over ``init`` (3) and ``start``;
- run length: ``n_sweeps`` (a count, and the word of the sampling chapter,
  where a sweep is one update of every unit; an RBM's ``v -> h -> v`` round
  is one sweep of its two layers) over ``steps`` and ``sweeps``;
- update order: ``scan`` (13 functions) over ``order`` and ``schedule``.

``progress`` (a progress bar) exists on :func:`~bmlib.train` only; it is one
word for one idea, so nothing was renamed for it.
"""
from __future__ import annotations

#: Old word (bmlib 1.0) -> new word (1.1); the old one is accepted until 2.0.
RENAMED = {
    "n_trials": "n_runs",  # hebbian_recall
    "n_repeats": "n_runs",  # cd_update_spread
    "max_steps": "max_iter",  # synchronous_updates
    "max_sweeps": "max_iter",  # energy_descent (SamplingWidget's max_sweeps is a slider's end, kept)
    "init": "initial",  # naive_mean_field, tap_mean_field
    "start": "initial",  # plot_self_consistency (belief_propagation's start is a strategy, kept)
    "steps": "n_sweeps",  # RBM.gibbs, RBM.gibbs_chain, RBM.sample, inpaint, DigitsWidget, digits_widget
    "sweeps": "n_sweeps",  # IsingWidget, ising_widget
    "order": "scan",  # energy_descent (elimination's order is an elimination order, kept)
    "schedule": "scan",  # naive_mean_field, tap_mean_field, log_z_mean_field, log_z_tap
}

#: Every parameter and field name of the public API -> its meaning (one idea each).
WORDS = {
    # The model and its units.
    "W": "couplings (weights), symmetric with zero diagonal; shape (n, n) or (n_visible, n_hidden) for an RBM",
    "b": "biases, shape (n,)",
    "b_visible": "biases of an RBM's visible units, shape (n_visible,)",
    "b_hidden": "biases of an RBM's hidden units, shape (n_hidden,)",
    "J": "coupling strength of a lattice or mean-field model",
    "h": "external field (a lattice's, or the chapter's H); for RBM methods, the hidden states",
    "T": "temperature, > 0 (beta = 1/T)",
    "units": 'the value convention, "spins" (-1/+1) or "bits" (0/1)',
    "n": "number of units",
    "n_visible": "number of visible units",
    "n_hidden": "number of hidden units",
    "n_units": "number of units of the model a result describes",
    "n_group": "units per visible group of an encoder",
    "mask": "which pairs of units are connected, boolean (n, n)",
    "hidden_connected": "whether an encoder's hidden units are connected to each other",
    "init_scale": "standard deviation of random initial weights",
    "model": "a BoltzmannMachine or RBM (trained, saved, or described)",
    "models": "several models (BoltzmannMachine, or (W, b, T) tuples) drawn side by side",
    "machine": "a BoltzmannMachine with hidden units (an RBM is not accepted)",
    "machines": "several BoltzmannMachines drawn side by side",
    "rbm": "an RBM (the functions that need its two layers)",
    "lattice": "a SquareLattice",
    "rows": "number of lattice rows; for FigureWidget, the rows of controls",
    "cols": "number of lattice columns",
    "L": "side of a square lattice",
    "periodic": "whether the lattice or chain wraps around",
    "sides": "lattice sides compared",
    "k": "Gibbs rounds per CD update (the book's CD-k)",
    # States, data and samples.
    "s": "a state or batch of states, shape (n,) or (..., n)",
    "v": "visible state(s), shape (n_visible,) or (P, n_visible)",
    "state": "the chains' states held by a couplings object, shape (n_chains, n)",
    "states": "a sequence of states (a path, a table, or the starting states of chains)",
    "initial": "the start: starting state(s) of chains, starting means of mean field, or a widget's starting lattice",
    "final_state": "state of every chain at the end of a run (pass it as initial to continue)",
    "data": "training patterns, shape (P, n) or (P, n_visible)",
    "batch": "the patterns of one clamped phase",
    "train_data": "training patterns of a learning curve",
    "held_out_data": "patterns kept out of training, to measure generalization",
    "patterns": "patterns to store in Hebbian weights",
    "pattern": "index of the pattern a widget shows first",
    "samples": "sampled states, shape (n_kept, n_chains, n) or (m, n)",
    "images": "images as rows of pixels",
    "missing": "indices of the unknown visible units",
    "clamped": "indices of units held fixed",
    "values": "values of the clamped units; for a result, the monitored values",
    "index": "indices of the units to clamp (couplings objects)",
    "new": "new values of the updated units (couplings objects)",
    "group": "a set of units updated together (DenseCouplings)",
    "colour": "one colour class of a lattice's checkerboard, updated together (SquareLattice)",
    "free": "indices of the units a sweep updates",
    "fields": "local fields h_i of the units",
    "delta_e": "energy change of flipping a unit, E(flipped) - E(current)",
    "colouring": "the colour classes of a checkerboard, swept in turn (an update rule's lattice sweep)",
    "features": "feature vectors to label",
    "train_features": "feature vectors of the training set",
    "train_labels": "labels of the training set",
    "test_features": "feature vectors of the test set",
    "test_labels": "labels of the test set",
    "split": 'which digit images: "train", "held_out" or "all"',
    "flip": "probability that a pixel is flipped",
    "n_copies": "copies per prototype image",
    "inputs": "visible units that are inputs of an input-output task",
    # Counts of work (n_ + noun).
    "n_samples": "number of samples (kept states) per chain, or independent draws",
    "n_chains": "number of independent chains",
    "n_sweeps": "run length in sweeps: one sweep updates every unit once (an RBM's v -> h -> v round)",
    "n_runs": "number of independent repeats of a whole estimate (annealing runs, trials, repeats)",
    "n_starts": "number of starting points of a fixed-point solver",
    "n_steps": "number of intermediate distributions of an annealing path (AIS)",
    "n_updates": "number of Wolff cluster updates kept per chain",
    "n_collect": "sweeps at the final temperature whose states are averaged",
    "n_free_chains": "annealings in the free phase",
    "chains_per_pattern": "annealings per pattern in the clamped phase",
    "burn_in": "sweeps run first and discarded",
    "thin": "sweeps between kept states",
    "max_iter": "the most iterations (sweeps, synchronous steps, fixed-point rounds) before giving up",
    "max_sweeps": "upper end of a widget's n_sweeps slider",
    "max_lag": "largest lag of an autocorrelation",
    "epochs": "number of training epochs; in a result, the epoch of each value",
    "epoch": "the epoch a widget shows first",
    "every": "epochs between kept models",
    "batch_size": "patterns per parameter update",
    "budget": "which sampling budget a table or figure shows",
    "budgets": "work allowed to each sampling method, in passes over W",
    "n_columns": "panels per row of a grid",
    "n_show": "at most this many images shown per group",
    "n_trace": "samples of the first chain drawn as a trace",
    "n_traces": "chains drawn individually",
    # Sampling and solving.
    "rule": 'the single-unit update rule, "heat_bath" or "metropolis"',
    "rules": "several update rules compared",
    "scan": "the order units are updated in within a sweep (sequential, random, colouring, parallel)",
    "schedule": "an annealing schedule: (temperature, n_sweeps) pairs",
    "order": "an elimination order (a method name or a permutation of the units)",
    "temperatures": "several temperatures",
    "temperature": "the temperature a result was computed at",
    "T_range": "(low, high) temperatures of a panel or slider",
    "mark_T": "a temperature marked with a dashed line",
    "mark_label": "label of the marked temperature",
    "fractions": "the annealing path itself, f_0 = 0 < ... < f_K = 1 (AIS)",
    "base": "the base distribution p_0 of AIS",
    "proposal": "the proposal distribution of importance sampling",
    "tol": "convergence threshold on a residual",
    "damping": "fraction of the old value kept at each update of a fixed-point iteration",
    "anneal": "mean-field annealing factors of the temperature",
    "start": 'how belief propagation starts: "best" of n_starts or "uniform" messages',
    "noise": "probabilities of noisy clamping",
    "persistent": "whether free chains continue between calls (PCD)",
    "linear_response": "whether mean-field correlations use linear response",
    "method": "which algorithm or approximation",
    "methods": "several methods compared",
    "unit": "one unit, instead of all",
    "rng": "source of randomness: None, a seed or a numpy.random.Generator",
    "x": "a series of numbers (samples of an observable)",
    "func": "a function the reader wrote, to be checked",
    "hint": "a self-check's second tier: also name the likely mistake and its fix (False: only the failing "
            "input, what was expected and what came back)",
    "window": "Sokal's window constant c",
    "return_levels": "also return the estimate at every blocking level",
    "min_expected": "expected count below which cells are pooled",
    "p": "a probability vector (exact)",
    "q": "a probability vector (approximate or empirical)",
    "step": "relative step of a finite difference",
    "average": "average over patterns, or one result per pattern",
    # Learning.
    "learning_rate": "size of a parameter step",
    "momentum": "fraction of the last step carried into the next",
    "weight_decay": "L2 penalty on the weights",
    "weight_decays": "several weight decays compared",
    "statistics": "the provider of clamped and free statistics (exact, sampled, mean field, CD, ...)",
    "update": 'how a gradient becomes a step, "gradient" or "sign"',
    "step_decay": "decay of the step size (Robbins-Monro)",
    "monitor": "what a training history records",
    "callback": "called after every epoch",
    "resume": "a previous TrainingHistory to continue",
    "progress": "show a progress bar",
    "hidden_sizes": "several hidden-layer sizes compared",
    "scale": "multiplies every Hebbian weight",
    "loads": "stored patterns per unit, P / n",
    # Output and drawing.
    "ax": "matplotlib axes to draw into",
    "titles": "one title per panel",
    "labels": "labels, one per item (panels, images or classes)",
    "label": "what a series is, for the axis",
    "shape": "(rows, cols) of one image",
    "ylim": "limits of the vertical axis",
    "levels": "horizontal reference lines, label -> value",
    "show_values": "write the numbers on the picture",
    "exponent": "slope of a reference line on log-log axes",
    "max_delta": "range of energy changes drawn",
    "ground_energy": "the lowest energy, drawn as a line",
    "descent": "a run to compare with",
    "reference": "exact values to compare with",
    "estimates": "estimated values, label -> value",
    "series": "one series per chain",
    "matrices": "coupling matrices to draw",
    "probabilities": "probability of each pixel being on",
    "path": "a file path; for plot_descent, a DescentPath",
    "overwrite": "whether an existing file may be replaced",
    "result": "a result record to draw or summarize",
    "curve": "a result curve to draw",
    "curves": "result curves to draw",
    "runs": "training histories to draw, label -> history",
    "histories": "training histories to draw",
    "best": "the best value reachable, drawn as a line",
    "scans": "temperature scans, lattice side -> scan",
    "comparison": "a LogZComparison",
    "source": "what a widget shows: a comparison or the couplings to compare on",
    "digits": "decimals shown",
    "coupling": "starting factor on the weights of a widget",
    "hide": "the pixels a widget hides first",
    "button": "the ipywidgets button that was clicked (callbacks)",
    "kwargs": "keyword arguments passed on",
    "enable": "switch on (True) or off (False)",
    # Result fields.
    "energies": "energy of each state",
    "acceptance": "fraction of updates that changed a unit",
    "swap_acceptance": "fraction of accepted replica swaps",
    "ground": "a state marking one of two mirror valleys (usually a ground state); its mirror marks the other",
    "valleys": "valley of each sample: +1 ground's, -1 its mirror's, 0 neither (overlap 0)",
    "share": "fraction of samples in ground's valley",
    "crossings": "sample numbers (from 1) of the first sample in the other valley after each crossing",
    "replica_temperature": "temperature index of each replica over time",
    "converged": "whether the tolerance was met",
    "iterations": "updates taken by the kept run",
    "total_iterations": "updates taken by all starts together",
    "residual": "largest change in the last update",
    "m": "means <s_i> (or <x_i>), shape (n,)",
    "mean": "means of the units",
    "second": "second moments <s_i s_j> of the units",
    "chi": "susceptibility",
    "log_z": "log of the partition function Z",
    "lower_bound": "whether log_z is guaranteed not to exceed log Z",
    "lower": "a stochastic lower bound on log Z (forward AIS)",
    "upper": "a stochastic upper bound on log Z (reverse AIS)",
    "lower_error": "standard error of lower",
    "upper_error": "standard error of upper",
    "plefka_ratio": "TAP's validity measure (< 1 inside its range)",
    "pair_beliefs": "Bethe beliefs of each edge, shape (n_edges, 2, 2)",
    "edges": "pairs (i, j), i < j, with W_ij != 0",
    "edge_moments": "<s_i s_j> on each edge",
    "value": "an estimate",
    "error": "its standard error",
    "tau": "integrated autocorrelation time",
    "ess": "effective sample size",
    "r_hat": "split-R-hat convergence diagnostic",
    "cost": "work spent",
    "cost_unit": "unit of cost",
    "details": "method-specific diagnostics",
    "exact": "exact values",
    "exact_method": "how the exact values were computed",
    "exact_work": "work of one exact value",
    "work": "work per method or per plan",
    "flags": "warning marks per method and temperature",
    "statistic": "the chi-square statistic",
    "dof": "degrees of freedom",
    "p_value": "p-value",
    "free_energy": "free energy F",
    "free_energies": "free energies F_T(v) of visible states, the hidden units summed out",
    "mean_energy": "mean energy <E>",
    "energy_variance": "variance of the energy, <E^2> - <E>^2",
    "entropy": "entropy S",
    "heat_capacity": "heat capacity C",
    "flipped": "which unit changed at each step",
    "period": "1 for a fixed point, 2 for a two-cycle",
    "overlap": "overlap of the recalled state with the stored pattern",
    "retrieved": "fraction of patterns recalled",
    "train": "the measure on the training data, per epoch",
    "held_out": "the measure on held-out data, per epoch",
    "held_out_pseudo": "held-out pseudo-log-likelihood per epoch",
    "best_epoch": "the epoch with the best monitored value",
    "best_parameters": "copies of the parameters at best_epoch",
    "stopped_early": "whether the callback ended training",
    "velocity": "the last step of every parameter (momentum)",
    "codes": "hidden codes of an encoder",
    "completions": "completed patterns of an encoder",
    "completion_probabilities": "probability of the right completion",
    "completed": "whether each completion was right",
    "distinct": "whether the codes are all different",
    "width": "induced width of an elimination order",
    "largest_table": "entries of the largest table",
    "peak_bytes": "peak memory of an elimination",
    "scopes": "units of each table",
    "heat_bath": "autocorrelation times of heat-bath sampling",
    "wolff": "autocorrelation times of Wolff sampling",
    "cluster_fraction": "mean size of a Wolff cluster, as a fraction of the lattice",
}


def class_members(cls):
    """A public class's attributes, its own and those of its bmlib base classes, by name.

    What a reader's ``obj.attr`` finds: :class:`~bmlib.RBM` is written as a
    model with two base classes (its block Gibbs sampler and its exact
    likelihood, one module each), and an update rule inherits the forms it
    does not override. The API snapshot, the API page and the vocabulary
    test read every public class through this, so a method moved to a base
    class is neither lost nor counted twice.
    """
    members = {}
    for klass in reversed(cls.__mro__):
        if klass.__module__.startswith("bmlib"):
            members.update(vars(klass))
    return members
