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
lattice size, so the curves of several sizes cross there. Its error bar is
the spread of the per-chain values (chains are independent; ``nan`` for one
chain).

Explained in the chapter "The Ising model".
"""
from __future__ import annotations

import numpy as np

from .._checks import check_temperatures
from .._random import as_generator
from .._threads import thin_blas
from .chains import SampleResult, sample
from .diagnostics import Estimate, estimate

OBSERVABLES = ("energy_per_unit", "magnetization", "abs_magnetization", "susceptibility", "specific_heat", "binder")


def _fluctuation(x, scale):
    """``scale * Var(x)`` as the mean of the series ``scale * (x - <x>)^2``, so it gets an error bar."""
    return estimate(scale * (x - x.mean()) ** 2)


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
        docstring); each an :class:`~bmlib.sampling.Estimate` ``(value, error, tau)``.

    Notes
    -----
    Error bars by blocking (:func:`~bmlib.blocking_error`). For the two
    fluctuations, the series ``(x_t - <x>)^2`` is blocked; this neglects the
    (smaller, O(1/N)) uncertainty of ``<x>`` itself. Explained in the chapter
    "The Ising model".

    Examples
    --------
    >>> import bmlib as bm
    >>> result = bm.sample(bm.SquareLattice(8), T=3.0, n_samples=1000, n_chains=8, rng=0)
    >>> averages = bm.thermal_averages(result)
    >>> print(averages["energy_per_unit"], round(bm.kaufman_energy_per_spin(8, 8, 3.0), 3))
    -0.8409 +/- 0.0056 -0.841
    """
    if not isinstance(result, SampleResult):
        raise TypeError(f"result must be a SampleResult from bm.sample; got {type(result).__name__}")
    T = np.unique(result.temperatures)
    if T.size != 1 or T[0] <= 0:
        raise ValueError(
            f"result must come from one temperature T > 0 (bm.sample, not bm.anneal); got temperatures {T[:5]}"
        )
    T = float(T[0])
    if result.samples.shape[0] < 2:
        raise ValueError(
            f"result must hold at least 2 kept states per chain for error bars; got {result.samples.shape[0]}. "
            "Raise n_samples"
        )
    n = result.n_units
    e = result.energies / n
    m = result.samples.mean(axis=2, dtype=float)
    abs_m = np.abs(m)
    return {
        "energy_per_unit": estimate(e),
        "magnetization": estimate(m),
        "abs_magnetization": estimate(abs_m),
        "susceptibility": _fluctuation(abs_m, n / T),
        "specific_heat": _fluctuation(e, n / T**2),
        "binder": _binder(m),
    }


def _binder(m):
    """``1 - <m^4> / (3 <m^2>^2)`` over all samples; error from the spread of the chains' own values."""
    m2, m4 = m**2, m**4
    value = 1.0 - m4.mean() / (3.0 * m2.mean() ** 2) if m2.mean() > 0 else float("nan")
    per_chain = 1.0 - m4.mean(axis=0) / (3.0 * np.maximum(m2.mean(axis=0), 1e-300) ** 2)
    error = per_chain.std(ddof=1) / np.sqrt(per_chain.size) if per_chain.size > 1 else float("nan")
    return Estimate(float(value), float(error), estimate(m2).tau)


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

    Returns
    -------
    dict of str to Estimate
        The keys of :func:`~bmlib.thermal_averages`; each value, error and tau
        an ndarray of shape (n_T,).

    Examples
    --------
    >>> import bmlib as bm
    >>> T = [4.0, 3.0, 2.0]
    >>> scan = bm.temperature_scan(bm.SquareLattice(8), None, T, n_samples=1000, n_chains=8, rng=0)
    >>> print(scan["energy_per_unit"])
    [-0.5562 -0.8438 -1.7463] +/- [0.0028 0.0054 0.0048]
    >>> bm.kaufman_energy_per_spin(8, 8, T).round(4)
    array([-0.5585, -0.8413, -1.7457])
    """
    temperatures = check_temperatures(temperatures)
    gen = as_generator(rng)
    rows, state = [], initial
    for T in temperatures:
        result = sample(
            W, b, float(T), units, n_samples=n_samples, n_chains=n_chains, burn_in=burn_in, thin=thin,
            rule=rule, scan=scan, initial=state, rng=gen,
        )
        state = result.final_state
        rows.append(thermal_averages(result))
    return {
        name: Estimate(*(np.array([getattr(row[name], field) for row in rows]) for field in Estimate._fields))
        for name in rows[0]
    }
