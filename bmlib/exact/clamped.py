"""Exact statistics with some units clamped: the clamped phase of the learning rule.

With the units ``c`` clamped to values ``v``, the free units ``f`` see the
clamped ones as an extra bias, ``E(v, f) = E_cc(v) + E_ff(f) - f . (W_fc v)``,
and are summed exactly by the enumeration of :mod:`bmlib.exact.enumeration`
(its energy scaling, its blocks and its running log-sum-exp are used as they
are). Few free units: every pattern at once, one matrix product for all
completions; many: pattern by pattern, in blocks.
"""
from __future__ import annotations

import numpy as np

from .._checks import check_bool, check_clamp, check_exact_size, check_model, check_temperature, check_units
from .._threads import thin_blas
from ..models.states import all_states
from . import enumeration
from .enumeration import Moments, _beyond_range, _block_energy, _moments, _over_T, _scaled_model


def _clamped(W, b, T, units, clamped, values):
    """Per-pattern log Z_clamped (P,), free means (P, n_f), and free second moments (P, n_f, n_f)."""
    n = W.shape[0]
    free = np.setdiff1d(np.arange(n), clamped)
    V = np.atleast_2d(values)
    W, b, k = _scaled_model(W, b)
    # E(v, f) = E_cc(v) + E_ff(f) - f . (W_fc v): the clamped units act on the
    # free ones as an extra bias.
    e_c = _block_energy(V, W[np.ix_(clamped, clamped)], b[clamped])
    b_eff = b[free] + V @ W[np.ix_(clamped, free)]
    W_ff = W[np.ix_(free, free)]
    n_f = free.size
    log_z, means, seconds = np.empty(len(V)), np.empty((len(V), n_f)), np.empty((len(V), n_f, n_f))
    with np.errstate(over="ignore"):  # an overflowing log Z is reported by the caller
        if n_f <= enumeration._TRAILING_UNITS:  # read at call time: one constant for both modules
            # Few free units: all patterns at once, -E_ff of every completion in one product,
            # then -(E - E_min) / T as in _RunningSums.
            S = all_states(n_f, units).astype(float)
            neg_e = b_eff @ S.T - _block_energy(S, W_ff, np.zeros(n_f))[None, :]
            top = neg_e.max(axis=1, keepdims=True)
            w = np.exp(_over_T(neg_e - top, T, k))
            z = w.sum(axis=1)
            p = w / z[:, None]
            log_z = _over_T(top[:, 0] - e_c, T, k) + np.log(z)
            means = p @ S
            seconds = np.einsum("pk,ki,kj->pij", p, S, S) if n_f else seconds
        else:
            check_exact_size(n_f, "clamped enumeration")
            for r in range(len(V)):
                shift, log_sum, means[r], seconds[r] = _moments(W_ff, b_eff[r], T, units, k)
                log_z[r] = _over_T(shift - e_c[r], T, k) + log_sum
    return free, log_z, means, seconds, k


@thin_blas
def clamped_log_partition(W, b=None, T=1.0, units="spins", *, clamped, values):
    """Exact log of the partition function with some units clamped.

    ``log Z(v) = log sum_f exp(-E(v, f)/T)`` sums over the free units only,
    with the units in ``clamped`` held at ``values``. With the visible units
    clamped, ``log p(v) = log Z(v) - log Z`` is the exact log-likelihood of a
    pattern in a machine with hidden units.

    Parameters
    ----------
    W : array_like of shape (n, n)
    b : array_like of shape (n,), optional
    T : float
    units : {"spins", "bits"}
    clamped : sequence of int, length k
        Indices of the clamped units (distinct, in ``0..n-1``); keyword only,
        as in :func:`~bmlib.naive_mean_field`, so the model comes first as
        everywhere else.
    values : array_like of shape (k,) or (P, k)
        One pattern, or P patterns, in ``units``.

    Returns
    -------
    float for one pattern, or ndarray of shape (P,)

    Examples
    --------
    >>> import bmlib as bm
    >>> W = [[0, 1], [1, 0]]
    >>> round(bm.clamped_log_partition(W, clamped=[0], values=[1]), 4)  # log(e + 1/e)
    1.1269
    """
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    idx, vals = check_clamp(clamped, values, W.shape[0], units)
    _, log_z, _, _, k = _clamped(W, b, T, units, idx, vals)
    if not np.all(np.isfinite(log_z)):
        raise _beyond_range("clamped_log_partition", "log Z", T, k)
    return float(log_z[0]) if vals.ndim == 1 else log_z


@thin_blas
def clamped_moments(W, b=None, T=1.0, units="spins", *, clamped, values, average=True):
    """Exact ``<s_i>`` and ``<s_i s_j>`` with some units clamped to given values.

    The free units follow the Boltzmann-Gibbs distribution conditioned on
    the clamped ones; the clamped units keep their values. Averaged over a
    batch of patterns these are the "clamped" (data) statistics of the
    learning rule.

    Parameters
    ----------
    W : array_like of shape (n, n)
    b : array_like of shape (n,), optional
    T : float
    units : {"spins", "bits"}
    clamped : sequence of int, length k
        Indices of the clamped units (distinct, in ``0..n-1``); keyword only,
        as in :func:`~bmlib.naive_mean_field`, so the model comes first as
        everywhere else.
    values : array_like of shape (k,) or (P, k)
        One pattern, or P patterns, in ``units``.
    average : bool
        For a batch, return the average over patterns (default) or one
        result per pattern.

    Returns
    -------
    mean : ndarray of shape (n,), or (P, n) if ``average=False``
    second : ndarray of shape (n, n), or (P, n, n) if ``average=False``

    Examples
    --------
    >>> import bmlib as bm
    >>> W = [[0, 1], [1, 0]]
    >>> mean, second = bm.clamped_moments(W, clamped=[0], values=[1])
    >>> print(mean.round(4))  # <s_1> = tanh(1) given s_0 = +1
    [1.     0.7616]
    """
    average = check_bool(average, "average")
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    n = W.shape[0]
    idx, vals = check_clamp(clamped, values, n, units)
    free, _, means_f, seconds_f, _ = _clamped(W, b, T, units, idx, vals)
    V = np.atleast_2d(vals)
    P = len(V)
    mean = np.empty((P, n))
    mean[:, idx], mean[:, free] = V, means_f
    second = np.empty((P, n, n))
    second[:, idx[:, None], idx[None, :]] = V[:, :, None] * V[:, None, :]
    cross = V[:, :, None] * means_f[:, None, :]
    second[:, idx[:, None], free[None, :]] = cross
    second[:, free[:, None], idx[None, :]] = cross.transpose(0, 2, 1)
    second[:, free[:, None], free[None, :]] = seconds_f
    if average or vals.ndim == 1:
        return Moments(mean.mean(axis=0), second.mean(axis=0))
    return Moments(mean, second)
