"""The chain kernel: the one loop that every sampler of bmlib runs, for inputs already checked.

:func:`bmlib.sample` and :func:`bmlib.anneal` check their arguments once and
call :func:`run`; so do the loops that run chains step by step, skipping
the checks a public call would repeat at every step: annealed importance
sampling, a new model at every step, through :func:`sweep_checked`, and
parallel tempering, one temperature per chain and exchanges between
sweeps, through a :class:`Sweeper` built once. One sweep::

    for each group of the schedule:          # units that share no coupling
        h   = local fields of the group
        new = rule.update(values, h, T, units, rng)   # descent if T == 0
        store new (clamped units keep their values)

A rule may own faster forms of the same sweep (:mod:`bmlib.sampling.rules`):
the heat bath has one for a dense model swept in order (``dense_sweep.py``)
and one for a square lattice (``lattice_sweep.py``), with the same random
numbers and the same decisions. The kernel asks the rule for them.

Nothing here checks its arguments: the callers do, once.
"""
from __future__ import annotations

import numpy as np

from .couplings import DenseCouplings, SquareLattice
from .._progress import progress_bar
from .rule_arguments import check_rule_output
from .rules import DESCENT, RULES


def energy_bound(op):
    """A cheap bound on ``|E|`` and on every local field: ``sum|W|/2 + sum|b|`` (inf if that overflows).

    For a square lattice, ``n (2|J| + |h|)`` (at most 2 bonds per site). 0 for an operator of
    unknown kind (a reader's own), which is not checked.
    """
    with np.errstate(over="ignore"):
        if isinstance(op, DenseCouplings):
            scale = float(np.max(np.abs(op.W), initial=0.0))
            if scale == 0:
                return float(np.sum(np.abs(op.b)))
            # Summed on W / max|W| so that the sum itself cannot overflow before the comparison.
            return scale * float(np.sum(np.abs(op.W / scale))) / 2 + float(np.sum(np.abs(op.b)))
        if isinstance(op, SquareLattice):
            return op.n_units * (2.0 * abs(op.J) + abs(op.h))
    return 0.0


def check_energy_range(op):
    """Refuse models whose energies (or local fields) could overflow the float range."""
    bound = energy_bound(op)
    if not bound <= np.finfo(float).max:
        what = (f"a {op.describe()}: n (2|J| + |h|)" if isinstance(op, SquareLattice)
                else "W and b: sum|W|/2 + sum|b|")
        raise ValueError(
            f"W (and b) are too large: the energies would overflow the float range (the bound {what} = "
            f"{bound:.3g} is above the float maximum {np.finfo(float).max:.3g}); scale W, b and T down together "
            "(the samples depend only on W/T and b/T)"
        )


class Sweeper:
    """The sweeps of one model, built once: its schedule, and the sweep of the case at hand.

    :func:`run` makes one per call; a loop that sweeps the same model again
    and again with something of its own between sweeps (the replicas of
    parallel tempering, which exchange states) makes one and calls
    :meth:`sweep`. A rule may bring a fast sweep of its own for a dense model
    swept in order, or for a square lattice (the heat bath has both: the same
    random numbers and test with a fifth of the NumPy calls per unit, and a
    table of the nine possible fields of a lattice site); every other case
    is :func:`general_sweep`, which calls the rule's ``update``.

    Parameters
    ----------
    op : coupling operator
    free : ndarray of int
        The units a sweep updates (the others are clamped).
    n_chains : int
    rule : UpdateRule
        The rule (:mod:`bmlib.sampling.rules`); its ``update`` is called unchecked.
    scan : {"sequential", "random", "colouring"}
    units : {"spins", "bits"}
    per_chain : bool
        True if :meth:`sweep` will get one temperature per chain (then a
        lattice takes the general sweep, its table being for one temperature).
    """

    def __init__(self, op, free, n_chains, *, rule, scan, units, per_chain=False):
        self.op, self.rule, self.units = op, rule, units
        self.schedule = op.schedule(scan, free, n_chains)
        self.zero = op.zero_field()  # at T = 0 a field within rounding of 0 leaves the unit as it is
        self.fast = None  # the rule's own sweep of this case, if it has one
        if type(op) is DenseCouplings and scan == "sequential":
            self.fast = rule.dense_sweeper(op.W, op.b, free, units)
        elif type(op) is SquareLattice and not per_chain:  # (the lattice's table is for one temperature)
            self.fast = rule.lattice_sweeper(op, self.schedule, units)

    def sweep(self, state, T, rng):
        """One sweep of the operator's ``state``, in place; return how many (unit, chain) values changed.

        ``T`` is a Python float >= 0 (a NumPy float64 scalar would turn the
        lattice's float32 fields into float64), or a row of shape (n_chains,)
        of temperatures > 0, chain c at ``T[c]``: the fast sweep divides its
        thresholds, of shape (units, n_chains), by the row of factors, and a
        rule gets ``T`` as a column of shape (n_chains, 1), broadcast against
        its fields.
        """
        per_chain = np.ndim(T) == 1
        hot = True if per_chain else T > 0
        if self.fast is not None and hot:
            changed = self.fast.sweep(state, T, rng)
            if changed is not None:  # None: this T is beyond the fast form (it drew nothing)
                return changed
        return general_sweep(self.op, state, self.schedule, self.rule if hot else DESCENT,
                             T[:, None] if per_chain else T, self.units, self.zero, rng)


def run(op, states, temperatures, keep, *, first_counted, rule, scan, units, clamp, rng, progress=False):
    """Run sweeps at ``temperatures[t]``; keep the state after sweep t where ``keep[t]``.

    ``temperatures`` has shape (n_sweeps,), or (n_sweeps, n_chains) for one
    temperature per chain (chain c of sweep t at ``temperatures[t, c]``, all
    > 0; see :meth:`Sweeper.sweep`).
    Acceptance is counted from sweep ``first_counted`` on (burn-in excluded).
    ``progress`` as :func:`bmlib.sample`'s, one step per sweep.
    Every output of a rule that is not ``trusted`` (a reader's own) is
    checked to hold only the two unit levels before it is stored.
    """
    n_chains, n = states.shape
    state = op.start(states)
    free = np.arange(n)
    if clamp is not None:
        op.clamp(state, *clamp)
        free = np.setdiff1d(free, clamp[0])
    per_chain = temperatures.ndim == 2
    sweeper = Sweeper(op, free, n_chains, rule=rule, scan=scan, units=units, per_chain=per_chain)
    updates_per_sweep = free.size * n_chains

    n_kept = int(np.count_nonzero(keep))
    samples = np.empty((n_kept, n_chains, n), dtype=np.int8)
    energies = np.empty((n_kept, n_chains))
    acceptance = np.empty(n_kept)
    changed = updates = kept = 0
    with progress_bar(progress, total=len(temperatures), desc="sampling", unit="sweep") as bar:
        for sweep, T in enumerate(temperatures if per_chain else temperatures.tolist()):
            changed_now = sweeper.sweep(state, T, rng)
            bar.update()
            if sweep >= first_counted:
                changed += changed_now
                updates += updates_per_sweep
            if keep[sweep]:
                samples[kept] = op.states(state)
                energies[kept] = op.energy(state)
                acceptance[kept] = changed / updates if updates else np.nan
                changed = updates = 0
                kept += 1
    return samples, energies, acceptance, op.states(state)


def sweep_checked(op, states, T, units, scan, rng):
    """One heat-bath sweep at ``T > 0`` of chains ``states`` (n_chains, n), for callers that checked everything.

    The chain kernel without :func:`sample`'s checks and without energies or
    kept states: what a loop that calls it at every step (annealed importance
    sampling) needs. The same random numbers and decisions
    as ``sample(..., n_samples=1, burn_in=0, initial=states).final_state``.

    Parameters
    ----------
    op : coupling operator
    states : ndarray of shape (n_chains, n)
    T : float, or ndarray of shape (n_chains,)
        The temperature, > 0; or one per chain (chain c at ``T[c]``, all > 0).
    units : {"spins", "bits"}
    scan : {"sequential", "random", "colouring"}
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int8, shape (n_chains, n)
    """
    temperatures = np.array([T], dtype=float)  # (1,) or (1, n_chains)
    return run(op, states, temperatures, np.zeros(1, dtype=bool), first_counted=1, rule=RULES["heat_bath"],
                scan=scan, units=units, clamp=None, rng=rng)[3]


def general_sweep(op, state, schedule, rule, T, units, zero, rng):
    """One sweep of any operator, schedule and rule; return how many (unit, chain) values changed."""
    changed = 0
    for group in schedule.sweep(rng):
        old = op.values(state, group)
        fields = op.fields(state, group)
        if zero > 0 and np.ndim(T) == 0 and T == 0:  # (a per-chain T is a column, never 0)
            fields = np.where(np.abs(fields) <= zero, 0.0, fields)
        new = rule.update(old, fields, T, units, rng)
        if rule.trusted:
            new = np.asarray(new, dtype=old.dtype)
        else:
            new = check_rule_output(new, old, units, rule.name)
        changed += op.assign(state, group, new)
    return changed
