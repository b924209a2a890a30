"""Thermal averages from samples, with error bars: energy, magnetization, susceptibility, specific heat.

For ``n`` units at temperature ``T``, with ``e = E / n`` and ``m = sum_i s_i / n``:

====================  ============================================  =====================
name                  definition                                    exact reference
====================  ============================================  =====================
energy_per_unit       ``<e>``                                       kaufman_energy_per_spin
magnetization         ``<m>``                                       (0 by symmetry at h = 0)
abs_magnetization     ``<|m|>``                                     yang_magnetization
susceptibility        ``n (<m^2> - <|m|>^2) / T``
specific_heat         ``n (<e^2> - <e>^2) / T^2`` (per unit)        kaufman_specific_heat_per_spin
binder                ``1 - <m^4> / (3 <m^2>^2)``                   2/3 ordered, 0 disordered
====================  ============================================  =====================

The susceptibility uses ``|m|`` because on a finite lattice below ``T_c``
the magnetization flips sign rarely and ``<m>`` over a finite run depends
on how many flips happened; with ``|m|`` the estimate is stable at every T.
For bits, ``m`` is the mean activity. The Binder cumulant tends to 2/3 in the
ordered phase (``m`` near +-m0) and to 0 in the disordered one (``m``
Gaussian around 0); at ``T_c`` it takes a value that hardly depends on the
lattice size, so the curves of several sizes cross there.

Every error bar comes from :mod:`bmlib.sampling.diagnostics`: blocking per
chain, or the spread between the chains if larger, with R-hat and the bulk
effective sample size, so chains stuck in different modes show up as a wide
error bar and a :class:`~bmlib.ConvergenceWarning` (one per call, naming the
quantities and temperatures concerned). The fluctuations and the Binder
cumulant are means of series too: ``scale (x_t - <x>)^2`` for the former,
and for the cumulant its linearization in ``m^2`` and ``m^4`` (the delta
method), ``-(m^4_t) / (3 <m^2>^2) + 2 <m^4> m^2_t / (3 <m^2>^3)``, whose
mean's error is the cumulant's to first order.

Explained in the chapter "The Ising model".
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from .._checks import check_bool, check_temperatures
from .._progress import progress_bar
from .._random import as_generator
from .._threads import thin_blas
from .chains import SampleResult, _operator, sample
from .kernel import energy_bound
from .convergence import _badness, _problems, _warn
from .diagnostics import Estimate, _estimate, _scaled, _workspace_bytes, checked_series as _series

OBSERVABLES = ("energy_per_unit", "magnetization", "abs_magnetization", "susceptibility", "specific_heat", "binder")


def _times(est, factors, name):
    """``est`` with value and error multiplied by each of ``factors`` in turn (Python floats).

    In turn, so that a zero stays zero (0 x 1e200 x 1e200 is 0, where 0 x (1e200 x 1e200) is NaN).
    """
    value, error = est.value, est.error
    for factor in factors:
        value, error = value * factor, error * factor
    if not (math.isfinite(value) and math.isfinite(error)):
        raise ValueError(
            f"result: the {name} overflows the float range (its energies or magnetizations, squared, exceed "
            "1.8e308); scale W, b and T down together (the samples depend only on W / T and b / T)"
        )
    return dataclasses.replace(est, value=value, error=error)


def _fluctuation(x, scale, name):
    """``scale * Var(x)`` as the mean of the series ``scale * (x - <x>)^2``, so it gets an error bar.

    Squared on ``x / max|x|`` and scaled back, so energies near 1e200 do not overflow when squared.
    """
    y, s = _scaled(x)
    return _times(_estimate((y - y.mean()) ** 2), (s, s, scale), name)


def _binder(m):
    """``1 - <m^4> / (3 <m^2>^2)``; its error from the delta-method series (module docstring)."""
    y, s = _scaled(m)  # m is in [-1, 1] already for spins; the scaling keeps bits' tiny m honest too
    y2, y4 = y**2, y**4
    M2, M4 = float(y2.mean()), float(y4.mean())
    if M2 == 0:
        return Estimate(math.nan, math.nan, math.nan, math.nan, math.nan)
    linear = -y4 / (3.0 * M2**2) + 2.0 * M4 * y2 / (3.0 * M2**3)
    return dataclasses.replace(_estimate(linear), value=1.0 - M4 / (3.0 * M2**2))


def _averages(result):
    """The six Estimates of a checked result, without warnings."""
    n = result.n_units
    T = float(result.temperatures[0])
    e = result.energies / n
    m = result.samples.mean(axis=2, dtype=float)
    abs_m = np.abs(m)
    return {
        "energy_per_unit": _estimate(e),
        "magnetization": _estimate(m),
        "abs_magnetization": _estimate(abs_m),
        "susceptibility": _fluctuation(abs_m, n / T, "susceptibility"),
        "specific_heat": _fluctuation(e, n / T / T, "specific heat"),  # T**2 raises OverflowError past 1e154
        "binder": _binder(m),
    }


def _check_result(result):
    """Refuse what is not the run of one temperature with at least 2 kept states per chain."""
    if not isinstance(result, SampleResult):
        raise TypeError(f"result must be a SampleResult from bm.sample; got {type(result).__name__}")
    T = np.unique(result.temperatures)
    if T.size != 1 or T[0] <= 0:
        raise ValueError(
            f"result must come from one temperature T > 0 (bm.sample, not bm.anneal); got temperatures {T[:5]}"
        )
    if result.samples.shape[0] < 2:
        raise ValueError(
            f"result must hold at least 2 kept states per chain for error bars; got {result.samples.shape[0]}. "
            "Raise n_samples"
        )
    # Six estimates, one after the other: the budget of two (the series, the estimate's workspace).
    _series(result.energies, "result.energies",
            budget=lambda n, m: (2 * _workspace_bytes(n, m), "the thermal averages"))


def _failing(averages, n_chains):
    """The names of the averages whose error bars fail the checks, and the worst of them (or None)."""
    names = [name for name, est in averages.items() if _problems(est, n_chains)]
    worst = max(names, key=lambda name: _badness(averages[name], n_chains), default=None)
    return names, worst


def thermal_averages(result):
    """Energy, magnetization, susceptibility and specific heat of a run, each with an error bar.

    Parameters
    ----------
    result : SampleResult
        From :func:`~bmlib.sample` (one temperature), with at least 2 kept
        states per chain.

    Returns
    -------
    dict of str to Estimate
        Keys ``"energy_per_unit"``, ``"magnetization"``, ``"abs_magnetization"``,
        ``"susceptibility"``, ``"specific_heat"``, ``"binder"`` (defined in the module
        docstring); each an :class:`~bmlib.Estimate` ``(value, error, tau)``
        with ``r_hat`` and ``ess``.

    Raises
    ------
    ValueError
        If a fluctuation overflows the float range (energies near 1e154 or
        more), or the work would exceed :data:`bmlib.MEMORY_BUDGET`.

    Warns
    -----
    ConvergenceWarning
        Once, naming the quantities whose R-hat exceeds 1.01 or whose bulk
        effective sample size is below 100 per chain (see :func:`~bmlib.estimate`).

    Notes
    -----
    Error bars as in :func:`~bmlib.estimate` (blocking per chain, or the
    spread between chains if larger). For the two fluctuations, the series
    ``(x_t - <x>)^2`` is blocked; this neglects the (smaller, O(1/N))
    uncertainty of ``<x>`` itself. Explained in the chapter "The Ising model".

    Examples
    --------
    >>> import bmlib as bm
    >>> result = bm.sample(bm.SquareLattice(8), T=3.0, n_samples=1000, n_chains=8, rng=0)
    >>> averages = bm.thermal_averages(result)
    >>> print(averages["energy_per_unit"], round(bm.kaufman_energy_per_spin(8, 8, 3.0), 3))
    -0.8409 +/- 0.0051 -0.841
    >>> round(averages["energy_per_unit"].r_hat, 3)
    1.002
    """
    _check_result(result)
    averages = _averages(result)
    n_chains = result.samples.shape[1]
    names, worst = _failing(averages, n_chains)
    if names:
        _warn(f"thermal_averages at T = {float(result.temperatures[0]):g}: {', '.join(names)} (worst: {worst}, "
              f"{' and '.join(_problems(averages[worst], n_chains))})")
    return averages


@thin_blas
def temperature_scan(
    W,
    b=None,
    temperatures=(3.0, 2.5, 2.0),
    units="spins",
    *,
    n_samples=1000,
    n_chains=None,
    burn_in=100,
    thin=1,
    rule="heat_bath",
    scan=None,
    initial=None,
    progress=False,
    rng=None,
):
    """Thermal averages at a list of temperatures, each run continuing from the previous one.

    At each temperature in turn, :func:`~bmlib.sample` runs ``burn_in`` sweeps
    from the final state of the previous temperature (a slow cooling if the
    temperatures decrease), then keeps ``n_samples``; :func:`~bmlib.thermal_averages`
    summarizes them.

    Parameters
    ----------
    W : array_like of shape (n, n), or a coupling operator
    b : array_like of shape (n,), optional
    temperatures : array_like of shape (n_T,)
        Temperatures, each finite and > 0, in the order they are run.
    units, n_samples, n_chains, burn_in, thin, rule, scan, initial, rng
        As in :func:`~bmlib.sample` (``initial`` is the start of the first run).
    progress : bool or None
        A progress bar over the temperatures: True shows one at once, None
        after two seconds of work (as :func:`~bmlib.train`), False (the
        default) none. Off by default because this also runs inside loops,
        widgets and the book's chapters, where a bar that shows only on a slow
        machine would change what is printed.

    Returns
    -------
    dict of str to Estimate
        The keys of :func:`~bmlib.thermal_averages`; each value, error, tau,
        r_hat and ess an ndarray of shape (n_T,).

    Raises
    ------
    ValueError
        Before sampling, if the energies of ``W`` and ``b`` (bounded by
        ``sum|W|/2 + sum|b|``) are so large that their squares overflow the
        float range in the specific heat.

    Warns
    -----
    ConvergenceWarning
        Once for the whole scan, naming each temperature and quantity whose
        R-hat exceeds 1.01 or whose bulk-ESS is below 100 per chain.

    Examples
    --------
    >>> import bmlib as bm
    >>> T = [4.0, 3.0, 2.0]
    >>> scan = bm.temperature_scan(bm.SquareLattice(8), None, T, n_samples=1000, n_chains=8, rng=0)
    >>> print(scan["energy_per_unit"])  # a ConvergenceWarning names the magnetization at T = 2
    [-0.5562 -0.8438 -1.7463] +/- [0.0027 0.0059 0.0048]
    >>> scan["magnetization"].r_hat.round(2)  # on 8 x 8 at T = 2, m flips sign rarely
    array([1.  , 1.03, 1.69])
    >>> bm.kaufman_energy_per_spin(8, 8, T).round(4)
    array([-0.5585, -0.8413, -1.7457])
    """
    op = _operator(W, b)
    temperatures = check_temperatures(temperatures)
    _check_squares(op, float(np.min(temperatures)))
    progress = check_bool(progress, "progress", allow_none=True)
    gen = as_generator(rng)
    rows, state, failing, flagged = [], initial, [], {}
    with progress_bar(progress, total=len(temperatures), desc="temperature scan", unit="temperature") as bar:
        for T in temperatures:
            result = sample(
                op, None, float(T), units, n_samples=n_samples, n_chains=n_chains, burn_in=burn_in, thin=thin,
                rule=rule, scan=scan, initial=state, rng=gen,
            )
            state = result.final_state
            _check_result(result)
            rows.append(_averages(result))
            names, worst = _failing(rows[-1], result.samples.shape[1])
            if names:
                failing.append((float(T), worst, rows[-1][worst], result.samples.shape[1]))
                for name in names:
                    flagged[name] = flagged.get(name, 0) + 1
            bar.update()
    if failing:
        # One line for the whole scan: where, the worst case with its numbers, and for each observable
        # at how many temperatures its error bar failed (the others' can be trusted everywhere).
        T_worst, name, est, n_chains = max(failing, key=lambda f: _badness(f[2], f[3]))
        where = ", ".join(f"{f[0]:g}" for f in failing)
        order = sorted((key for key in rows[0] if key in flagged), key=lambda key: -flagged[key])  # stable
        each = ", ".join(f"{key} at {flagged[key]}" + (f" of the {len(rows)} temperatures" if k == 0 else "")
                         for k, key in enumerate(order))
        trusted = [key for key in rows[0] if key not in flagged]
        _warn(f"temperature_scan at {len(failing)} of {len(rows)} temperatures (T = {where}); worst: {name} at "
              f"T = {T_worst:g}, {' and '.join(_problems(est, n_chains))}; flagged: {each}"
              + (f"; never flagged: {', '.join(trusted)}" if trusted else ""), stacklevel=4)  # 4: through thin_blas
    fields = [f.name for f in dataclasses.fields(Estimate)]
    return {
        name: Estimate(*(np.array([getattr(row[name], field) for row in rows]) for field in fields))
        for name in rows[0]
    }


def _check_squares(op, T_min):
    """Refuse, before sampling, couplings whose squared energies (the specific heat) overflow floats.

    ``n Var(E / n) / T^2 <= B^2 / (n T^2)`` with ``B = sum|W|/2 + sum|b|`` bounding ``|E|``.
    """
    bound = energy_bound(op)
    if bound == 0:
        return
    if not math.isfinite(bound) or (
        2.0 * math.log(bound) - math.log(op.n_units) - 2.0 * math.log(T_min) > math.log(np.finfo(float).max)
    ):
        raise ValueError(
            f"W (with b) is too large for temperature_scan: its energies reach up to {bound:.3g} "
            f"(sum|W|/2 + sum|b|), and their squares, in the specific heat n Var(E/n)/T^2 at T = {T_min:g}, "
            "overflow the float range; scale W, b and the temperatures down together (only W/T and b/T matter)"
        )
