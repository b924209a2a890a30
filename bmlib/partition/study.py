"""Every log Z estimator of :mod:`bmlib.partition` on one model, across temperatures and budgets.

:func:`compare_log_z` runs the estimators against exact enumeration and
keeps, for each method, temperature and budget, the estimate, its error bar
and the work it took. The chapter's table, its two figures and its widget
are all drawn from one such :class:`LogZComparison`, so the numbers agree
and the widget only redraws.

Work is counted in *passes over W*: one sampling sweep (n local fields), one
energy evaluation, one mean-field sweep or one update of all BP messages
each cost about one pass over the couplings (n**2 multiply-adds for a dense
model). Exact enumeration costs ``2**n`` energy evaluations. These are counts,
the same on every machine; seconds are measured in ``benchmarks/``.

Explained in the chapter "The normalizing constant Z".
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .._checks import (
    check_bool,
    ApproximationWarning,
    ConvergenceWarning,
    check_choice,
    check_count,
    check_exact_size,
    check_integer,
    check_model,
    check_sequence,
    check_temperatures,
    check_units,
)
from .._progress import progress_bar
from .._random import as_generator
from .._threads import thin_blas
from ..exact.enumeration import exact_route, log_partition
from .variational import log_z_bethe, log_z_mean_field, log_z_tap
from .sampled import log_z_ais, log_z_importance, log_z_visited_states

#: Errors smaller than this are rounding noise of log Z (about 1e-13 here) and print as "+0.00".
_NOISE = 1e-9

#: The methods, in the order of tables and legends: key -> label.
METHODS = {
    "visited": "visited",
    "mean_field": "naive MF",
    "tap": "TAP",
    "bethe": "Bethe",
    "is_uniform": "IS unif",
    "is_mean_field": "IS MF",
    "ais": "AIS",
}
#: Methods whose work grows with the budget; the others run to convergence once.
SAMPLING = ("visited", "is_uniform", "is_mean_field", "ais")
#: Independent annealing runs of AIS at every budget (the budget sets the number of steps).
AIS_RUNS = 50


@dataclass(frozen=True)
class LogZComparison:
    """Estimates of log Z by every method, against the exact value, on a grid of temperatures and budgets.

    Build it with :func:`compare_log_z`. Explained in the chapter "The normalizing constant Z".

    Attributes
    ----------
    temperatures : ndarray of shape (m,)
    exact : ndarray of shape (m,)
        Exact ``log Z`` at each temperature.
    budgets : tuple of int, length k
        Work allowed to each sampling method, in passes over W.
    methods : tuple of str
        Keys of :data:`METHODS`, in table order.
    log_z, error, work : dict of str to ndarray of shape (k, m)
        Per method: the estimate, its standard error (nan for the
        deterministic methods and the visited-states sum) and the work spent.
        Deterministic methods do not use the budget; their rows repeat.
    flags : dict of str to ndarray of shape (m,) of str
        Per method and temperature: "" or a warning mark, "NC" (did not
        converge) or "P!" (TAP outside its range, Plefka ratio >= 1).
    n_units : int
    units : str
    exact_method : {"enumeration", "elimination"}
        How the exact values were computed (elimination for a sparse machine
        above 20 units, where it is cheaper; see :func:`~bmlib.log_partition`).
    exact_work : int
        Work of one exact value: ``2**n`` energy evaluations, or the entries
        of the elimination's tables.
    """

    temperatures: np.ndarray
    exact: np.ndarray
    budgets: tuple
    methods: tuple
    log_z: dict
    error: dict
    work: dict
    flags: dict
    n_units: int
    units: str
    exact_method: str = "enumeration"
    exact_work: int = 0

    def labels(self):
        """Display names of the methods, in order."""
        return [METHODS[key] for key in self.methods]

    def _budget_index(self, budget):
        if budget is None:
            return len(self.budgets) - 1
        if budget not in self.budgets:
            raise ValueError(f"budget must be one of {list(self.budgets)}; got {budget!r}")
        return self.budgets.index(budget)

    def errors(self, method, budget=None):
        """``estimate - exact`` of one method at every temperature, shape (m,) (default: the largest budget)."""
        if method not in self.methods:
            raise ValueError(f"method must be one of {list(self.methods)}; got {method!r}")
        return self.log_z[method][self._budget_index(budget)] - self.exact

    def table(self, budget=None, digits=2):
        """The errors as a text table: one row per temperature, one column per method.

        Parameters
        ----------
        budget : int, optional
            Which budget of the sampling methods (default: the largest).
        digits : int
            Decimals of the errors, 0 to 15 (float64 holds no more).

        Returns
        -------
        str
        """
        k = self._budget_index(budget)
        digits = check_integer(digits, "digits", minimum=0, maximum=15)
        header = ["T", "exact log Z", *self.labels()]
        rows = []
        for t, T in enumerate(self.temperatures):
            cells = [f"{T:.3g}", f"{self.exact[t]:.3f}"]
            for key in self.methods:
                err = float(self.log_z[key][k, t] - self.exact[t])
                # An error too small to show keeps its sign ("-0.00" for a lower bound's -0.0017), but
                # float noise has none worth printing: its sign can differ between machines.
                if abs(err) < _NOISE:
                    err = 0.0
                cells.append(f"{err:+.{digits}f}{self.flags[key][t]}")
            rows.append(cells)
        widths = [max(len(row[c]) for row in [header, *rows]) for c in range(len(header))]
        lines = ["  ".join(cell.rjust(w) for cell, w in zip(row, widths)) for row in [header, *rows]]
        # The note in short lines, so the table fits a book column (77 characters). The exact work is
        # in its own unit: energies of states for enumeration, table entries for elimination.
        unit = "energy evaluations" if self.exact_method == "enumeration" else "table entries"
        notes = ["(error = estimate - exact log Z; NC: did not converge; P!: TAP out of range;",
                 f" sampling methods with {self.budgets[k]} passes over W;",
                 f" exact, by {self.exact_method}: {self.exact_work} {unit})"]
        return "\n".join(lines + notes)

    def __repr__(self):
        return (f"LogZComparison(n={self.n_units} {self.units}, {len(self.temperatures)} temperatures, "
                f"budgets {list(self.budgets)}, methods {list(self.methods)})")


@thin_blas
def compare_log_z(W, b=None, temperatures=(2.0, 1.0, 0.5), units="spins", *, budgets=(10_000,), methods=None,
                  n_chains=10, progress=False, rng=None):
    """Run every log Z estimator on one model across temperatures and budgets, against enumeration.

    Parameters
    ----------
    W : array_like of shape (n, n)
        Couplings; ``n <= MAX_EXACT_UNITS``, or sparse enough for exact elimination (the exact value is the reference).
    b : array_like of shape (n,), optional
    temperatures : sequence of float, length m
    units : {"spins", "bits"}
    budgets : sequence of int, length k
        Work allowed to each sampling method, in passes over W (>= 100 each):
        the visited-states sum runs ``n_chains`` chains of ``budget // n_chains``
        sweeps ("colouring" scan) and pools their states; importance sampling
        draws ``budget`` samples; AIS runs 50 runs of ``budget // 100`` steps
        from the uniform base (a sweep and an energy per run and step).
    methods : sequence of str, optional
        Keys of :data:`METHODS` (default: all seven).
    n_chains : int
        Chains of the visited-states sum, >= 1.
    progress : bool or None
        A progress bar over the estimator runs (one per temperature, method
        and budget): True shows one at once, None after two seconds of work
        (as :func:`~bmlib.train`), False (the default) none. Off by default
        because this also runs inside loops, widgets and the book's chapters,
        where a bar that shows only on a slow machine would change what is
        printed.
    rng : None, int or numpy.random.Generator
        One seed draws the seeds of every run, in a fixed order.

    Returns
    -------
    LogZComparison

    Notes
    -----
    Warnings of the deterministic methods (non-convergence, TAP outside its
    range) are not raised but kept as ``flags``. Explained in the chapter
    "The normalizing constant Z".

    Examples
    --------
    >>> import numpy as np
    >>> import bmlib as bm
    >>> comp = bm.compare_log_z(bm.sk_couplings(8, rng=0), temperatures=[2.0, 0.5], budgets=[1000], rng=0)
    >>> bool(np.all(comp.errors("mean_field") <= 0)), bool(np.all(comp.errors("visited") <= 0))
    (True, True)
    >>> comp.work["ais"][0].tolist()
    [950, 950]
    """
    W, b = check_model(W, b)
    units = check_units(units)
    n = W.shape[0]
    plan = exact_route(W)  # sparse and large: exact by elimination
    if plan is None:
        check_exact_size(n, "compare_log_z (it needs the exact log Z)")
    temps = check_temperatures(temperatures)
    # An empty list of budgets or methods would give an empty comparison: refused.
    budgets = tuple(check_count(B, f"budgets[{k}]", minimum=100)
                    for k, B in enumerate(check_sequence(np.atleast_1d(budgets).tolist() if np.ndim(budgets) == 0
                                                         else budgets, "budgets", "a sequence of work budgets")))
    n_chains = check_count(n_chains, "n_chains", minimum=1)
    if methods is None:
        methods = tuple(METHODS)
    else:
        methods = tuple(check_sequence(methods, "methods", f"a sequence of method names from {list(METHODS)}"))
    for k, key in enumerate(methods):
        check_choice(key, f"methods[{k}]", tuple(METHODS))
    progress = check_bool(progress, "progress", allow_none=True)
    gen = as_generator(rng)
    shape = (len(budgets), temps.size)
    log_z = {key: np.empty(shape) for key in methods}
    error = {key: np.full(shape, np.nan) for key in methods}
    work = {key: np.zeros(shape, dtype=np.int64) for key in methods}
    flags = {key: np.full(temps.size, "", dtype=object) for key in methods}
    exact = np.array([log_partition(W, b, T, units) for T in temps])
    total = temps.size * len(methods) * len(budgets)
    with progress_bar(progress, total=total, desc="log Z estimators", unit="run") as bar:
        for t, T in enumerate(temps.tolist()):
            for key in methods:
                for k, budget in enumerate(budgets):
                    bar.update()
                    if key not in SAMPLING and k > 0:  # deterministic: the same for every budget
                        log_z[key][k, t], work[key][k, t] = log_z[key][0, t], work[key][0, t]
                        continue
                    est = _run(key, W, b, T, units, budget, n_chains, int(gen.integers(2**31)))
                    log_z[key][k, t], error[key][k, t], work[key][k, t] = est.log_z, est.error, _work(est)
                    if not est.converged:
                        flags[key][t] = " NC"
                    elif est.details.get("plefka_ratio", 0.0) >= 1.0:
                        flags[key][t] = " P!"
    exact_method, exact_work = ("enumeration", 2**n) if plan is None else ("elimination", plan.work)
    return LogZComparison(temps, exact, budgets, methods, log_z, error, work, flags, n, units, exact_method,
                          exact_work)


def _run(key, W, b, T, units, budget, n_chains, seed):
    with warnings.catch_warnings():
        # Shown as flags in the comparison instead.
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", ApproximationWarning)
        if key == "visited":
            return log_z_visited_states(W, b, T, units, n_samples=max(1, budget // n_chains), n_chains=n_chains,
                                        scan="colouring", rng=seed)
        if key == "mean_field":
            return log_z_mean_field(W, b, T, units, rng=seed)
        if key == "tap":
            return log_z_tap(W, b, T, units, rng=seed)
        if key == "bethe":
            return log_z_bethe(W, b, T, units, rng=seed)
        if key in ("is_uniform", "is_mean_field"):
            proposal = "uniform" if key == "is_uniform" else "mean_field"
            return log_z_importance(W, b, T, units, budget, proposal, rng=seed)
        return log_z_ais(W, b, T, units, n_runs=AIS_RUNS, n_steps=max(1, budget // (2 * AIS_RUNS)), rng=seed)


def _work(est):
    """Passes over W: the estimator's own cost plus the energies and mean-field sweeps it also spent."""
    extra = sum(int(est.details.get(name, 0)) for name in ("energy_evaluations", "proposal_sweeps", "base_sweeps"))
    return int(est.cost) + extra
