"""The chain runner: many independent chains, sweeps, burn-in, thinning, clamping, annealing.

:func:`sample` and :func:`anneal` check their arguments once, then hand the
chains to the kernel (:mod:`bmlib.sampling.kernel`), the one loop that drives
every model, rule and schedule, keeping the state after the sweeps asked
for. :func:`sample` runs it at one temperature, :func:`anneal` along a schedule
of temperatures. Both return a :class:`SampleResult`, whose ``final_state``
continues the chains when passed back as ``initial``.

Explained in the chapter "Sampling: heat bath and Metropolis".
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import (
    LEVELS,
    check_annealing_schedule,
    check_bool,
    check_clamp,
    check_count,
    check_memory,
    check_states,
    check_temperature,
    check_units,
)
from .._random import as_generator
from .._threads import thin_blas
from .couplings import CouplingOperator, DenseCouplings, SquareLattice
from .kernel import check_energy_range, run
from .rule_arguments import resolve_rule


@dataclass(frozen=True)
class SampleResult:
    """States visited by :func:`sample` or :func:`anneal`, and what is needed to trust and continue them.

    Attributes
    ----------
    samples : ndarray of shape (n_kept, n_chains, n), dtype int8
        The kept states, in the units of the run.
    energies : ndarray of shape (n_kept, n_chains)
        Energy ``E`` of each kept state.
    temperatures : ndarray of shape (n_kept,)
        Temperature of the sweep that produced each kept state.
    acceptance : ndarray of shape (n_kept,)
        Fraction of single-unit updates that changed a unit, over the sweeps
        since the previous kept state (after burn-in).
    final_state : ndarray of shape (n_chains, n), dtype int8
        State of every chain at the end; pass it as ``initial`` to continue.
    units : str
    rule : str
        Name of the update rule.
    scan : str
        Name of the update schedule.
    n_sweeps : int
        Sweeps run, burn-in included.
    """

    samples: np.ndarray
    energies: np.ndarray
    temperatures: np.ndarray
    acceptance: np.ndarray
    final_state: np.ndarray
    units: str
    rule: str
    scan: str
    n_sweeps: int

    @property
    def acceptance_rate(self):
        """Fraction of single-unit updates that changed a unit, over all kept sweeps."""
        return float(self.acceptance.mean())

    @property
    def n_chains(self):
        return self.samples.shape[1]

    @property
    def n_units(self):
        return self.samples.shape[2]

    def __repr__(self):
        n_kept, n_chains, n = self.samples.shape
        # Two short lines: a repr printed in a notebook should fit the book's column.
        return (
            f"SampleResult({n_kept} kept states x {n_chains} chains x {n} {self.units}, "
            f"{self.n_sweeps} sweeps,\n"
            f"             rule={self.rule!r}, scan={self.scan!r}, acceptance rate {self.acceptance_rate:.3f})"
        )


def _operator(W, b):
    if isinstance(W, CouplingOperator):
        if b is not None:
            raise ValueError(f"b must be None when W is a coupling operator ({W.describe()} holds its own field)")
        return W
    return DenseCouplings(W, b)


def _initial_states(initial, n, n_chains, units, rng):
    """Starting states, shape (n_chains, n) int8: uniformly random if ``initial`` is None."""
    low, high = LEVELS[units]
    if initial is None:
        return np.where(rng.random((n_chains, n)) < 0.5, high, low).astype(np.int8)
    states = check_states(initial, n, units, name="initial")
    if states.ndim == 1:
        states = np.broadcast_to(states, (n_chains, n))
    if states.shape != (n_chains, n):
        raise ValueError(
            f"initial must have shape ({n},) or (n_chains, {n}) = ({n_chains}, {n}); got shape {states.shape}"
        )
    return states.astype(np.int8)


def _clamp(clamped, values, n, n_chains, units):
    """Validated ``(indices (k,), values (n_chains, k))``, or ``None`` if nothing is clamped."""
    if clamped is None and values is None:
        return None
    if clamped is None:
        raise ValueError("values were given but clamped is None; pass the indices of the clamped units too")
    index, vals = check_clamp(clamped, values, n, units)
    if vals.ndim == 2 and vals.shape[0] != n_chains:
        raise ValueError(
            f"values must have shape ({index.size},) for one pattern or (n_chains, {index.size}) = "
            f"({n_chains}, {index.size}) for one pattern per chain; got shape {vals.shape}"
        )
    return index, np.broadcast_to(vals, (n_chains, index.size)).astype(np.int8)


@thin_blas
def sample(
    W,
    b=None,
    T=1.0,
    units="spins",
    *,
    n_samples=1000,
    n_chains=None,
    burn_in=100,
    thin=1,
    rule="heat_bath",
    scan=None,
    clamped=None,
    values=None,
    initial=None,
    progress=False,
    rng=None,
):
    """Sample the Boltzmann-Gibbs distribution ``p(s) ~ exp(-E(s)/T)`` with many chains at once.

    Each chain runs ``burn_in`` sweeps, then ``n_samples * thin`` more, and the
    state after every ``thin``-th of those is kept. A sweep updates every
    free unit once, in the order (and groups) given by ``scan``, each from
    its local field with ``rule``.

    Parameters
    ----------
    W : array_like of shape (n, n), or a coupling operator
        Symmetric couplings with zero diagonal, or an operator such as
        :class:`~bmlib.SquareLattice` (then ``b`` must be None).
    b : array_like of shape (n,), optional
        Biases (zeros if omitted).
    T : float
        Temperature, finite and > 0 (for ``T = 0`` use :func:`anneal`).
    units : {"spins", "bits"}
    n_samples : int
        States kept per chain, >= 1.
    n_chains : int, optional
        Independent chains, >= 1, all updated together. Default: the number
        of rows of a 2-D ``initial`` or ``values``, else 1.
    burn_in : int
        Sweeps run and discarded first, >= 0.
    thin : int
        Sweeps between kept states, >= 1.
    rule : {"heat_bath", "metropolis"}, UpdateRule or callable
        The single-unit update: a name, a rule object
        (:class:`~bmlib.UpdateRule`), or a function
        ``(values, fields, T, units, rng)`` like :func:`~bmlib.heat_bath`.
    scan : {"sequential", "random", "colouring"}, optional
        The update schedule (see :mod:`bmlib.sampling.schedules`). Default:
        "sequential" for a matrix ``W``, "colouring" (the checkerboard) for a
        :class:`~bmlib.SquareLattice`.
    clamped : sequence of int, length k, optional
        Units held fixed (distinct, in ``0..n-1``); they are never updated.
    values : array_like of shape (k,) or (n_chains, k)
        Their values: one pattern for all chains, or one per chain.
    initial : array_like of shape (n,) or (n_chains, n), optional
        Starting states (default: uniformly random). Clamped units are set to
        ``values`` whatever ``initial`` says. Pass a previous ``final_state``
        to continue its chains.
    progress : bool or None
        A progress bar over the sweeps: True shows one at once, None after two
        seconds of work (as :func:`~bmlib.train`), False (the default) none.
        Off by default because sampling also runs inside loops, widgets and
        the book's chapters, where a bar that shows only on a slow machine
        would change what is printed.
    rng : None, int or numpy.random.Generator
        Source of randomness; the same seed gives the same samples.

    Returns
    -------
    SampleResult
        ``samples`` of shape (n_samples, n_chains, n), their ``energies``, the
        ``acceptance`` rate, the ``final_state``.

    Raises
    ------
    ValueError
        Among the checks of every argument: before any sweep, if the energies
        could overflow the float range (the bound ``sum|W|/2 + sum|b|``, or
        ``n (2|J| + |h|)`` for a lattice, above 1.8e308).

    Notes
    -----
    The chains are independent: one sample from each of many chains gives
    independent draws; successive samples of one chain are correlated (see
    :func:`~bmlib.autocorrelation_time`). Continuing with the same
    ``Generator`` (``initial=result.final_state, burn_in=0``) gives exactly
    the states one longer run would have given (``n_chains`` is then taken
    from ``initial``). Explained in the chapter
    "Sampling: heat bath and Metropolis".

    Examples
    --------
    >>> import numpy as np
    >>> import bmlib as bm
    >>> W = [[0, 1], [1, 0]]
    >>> result = bm.sample(W, T=1.0, n_samples=2000, n_chains=8, rng=0)
    >>> result.samples.shape
    (2000, 8, 2)
    >>> s = result.samples.astype(float)
    >>> round(float((s[..., 0] * s[..., 1]).mean()), 2), round(float(np.tanh(1.0)), 2)  # <s_0 s_1>
    (0.76, 0.76)
    """
    op = _operator(W, b)
    try:
        T = check_temperature(T)
    except ValueError:
        if T != 0:
            raise
        raise ValueError("T must be > 0 for sample; at T = 0 the dynamics is energy descent: use "
                         "anneal(W, b, schedule=[(0.0, n_sweeps)]) or energy_descent") from None
    n_samples = check_count(n_samples, "n_samples", minimum=1)
    burn_in = check_count(burn_in, "burn_in", minimum=0)
    thin = check_count(thin, "thin", minimum=1)
    check_count(burn_in + n_samples * thin, "burn_in + n_samples * thin (the number of sweeps)", minimum=1)
    temperatures = np.full(burn_in + n_samples * thin, T)
    keep = np.zeros(temperatures.size, dtype=bool)
    keep[burn_in + thin - 1 :: thin] = True
    return _chains(op, temperatures, keep, units, first_counted=burn_in, n_chains=n_chains, rule=rule, scan=scan,
                   clamped=clamped, values=values, initial=initial, progress=progress, rng=rng)


@thin_blas
def anneal(
    W,
    b=None,
    schedule=((20.0, 2), (15.0, 2), (12.0, 2), (10.0, 4)),
    units="spins",
    *,
    n_chains=None,
    rule="heat_bath",
    scan=None,
    clamped=None,
    values=None,
    initial=None,
    progress=False,
    rng=None,
):
    """Simulated annealing: sample while lowering the temperature along a schedule.

    The chains run ``n_sweeps`` sweeps at each ``T`` of ``schedule`` in turn,
    and the state after every sweep is kept. ``T = 0`` in the schedule means
    energy descent: each unit takes the value its field favours (unchanged at
    zero field), the limit of both rules and the step of
    :func:`~bmlib.energy_descent`.

    Parameters
    ----------
    W : array_like of shape (n, n), or a coupling operator
    b : array_like of shape (n,), optional
    schedule : sequence of (T, n_sweeps) pairs
        Temperatures (finite, >= 0) and how many sweeps to spend at each.
        The default is the schedule of Ackley, Hinton & Sejnowski (1985):
        2 sweeps at T = 20, 2 at 15, 2 at 12, 4 at 10 (for weights of the
        size they used; scale it with your weights).
    units : {"spins", "bits"}
    n_chains : int, optional
    rule : {"heat_bath", "metropolis"}, UpdateRule or callable
    scan : {"sequential", "random", "colouring"}, optional
    clamped : sequence of int, optional
    values : array_like of shape (k,) or (n_chains, k)
    initial : array_like of shape (n,) or (n_chains, n), optional
    progress : bool or None
    rng : None, int or numpy.random.Generator
        See :func:`sample` for these.

    Returns
    -------
    SampleResult
        One kept state per sweep: ``samples`` of shape (total sweeps, n_chains, n),
        with ``temperatures`` giving each sweep's T.

    Notes
    -----
    Explained in the chapter "Sampling: heat bath and Metropolis".

    Examples
    --------
    >>> import bmlib as bm
    >>> W = bm.sk_couplings(12, rng=1)
    >>> result = bm.anneal(W, schedule=[(2.0, 10), (1.0, 10), (0.5, 10), (0.0, 2)], n_chains=4, rng=0)
    >>> result.samples.shape, result.temperatures[-1]
    ((32, 4, 12), np.float64(0.0))
    >>> bool(bm.is_stable(result.final_state, W).all())  # descent ends in local minima
    True
    """
    op = _operator(W, b)
    temps, sweeps = check_annealing_schedule(schedule)
    check_count(int(sweeps.sum()), "the total number of sweeps in schedule", minimum=1)
    temperatures = np.repeat(temps, sweeps)
    keep = np.ones(temperatures.size, dtype=bool)
    return _chains(op, temperatures, keep, units, first_counted=0, n_chains=n_chains, rule=rule, scan=scan,
                   clamped=clamped, values=values, initial=initial, progress=progress, rng=rng)


def _chains(op, temperatures, keep, units, *, first_counted, n_chains, rule, scan, clamped, values, initial, progress,
            rng):
    """Validate what :func:`sample` and :func:`anneal` share, then run."""
    units = check_units(units)
    check_energy_range(op)  # before any work: energies beyond the float range cannot be sampled
    if n_chains is None:
        # Continuing chains (initial=result.final_state) or one clamp pattern per chain fixes the number.
        two_d = [len(a) for a in (initial, values) if a is not None and np.ndim(a) == 2]
        n_chains = two_d[0] if two_d else 1
    n_chains = check_count(n_chains, "n_chains", minimum=1)
    rule = resolve_rule(rule)
    progress = check_bool(progress, "progress", allow_none=True)
    if scan is None:
        scan = "colouring" if isinstance(op, SquareLattice) else "sequential"
    n = op.n_units
    n_kept = int(np.count_nonzero(keep))
    # samples (int8) and energies (float64) of the kept sweeps, plus the chains' states.
    check_memory(n_kept * n_chains * (n + 8) + 16 * n_chains * n,
                 f"keeping {n_kept} states of {n_chains} chains x {n} units (n_samples x n_chains x n)")
    clamp = _clamp(clamped, values, n, n_chains, units)
    gen = as_generator(rng)
    states = _initial_states(initial, n, n_chains, units, gen)
    samples, energies, acceptance, final = run(
        op, states, temperatures, keep, first_counted=first_counted, rule=rule, scan=scan, units=units,
        clamp=clamp, rng=gen, progress=progress
    )
    return SampleResult(
        samples=samples,
        energies=energies,
        temperatures=temperatures[keep],
        acceptance=acceptance,
        final_state=final,
        units=units,
        rule=rule.name,
        scan=scan,
        n_sweeps=int(temperatures.size),
    )
