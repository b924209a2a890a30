"""Exact Boltzmann-Gibbs statistics by enumerating every state, in blocks.

``p(s) = exp(-E(s)/T) / Z`` with ``Z = sum_s exp(-E(s)/T)``.

How the enumeration is organised (and why it is fast in pure NumPy): the
units are split into a *leading* block (the most significant units of the
:func:`~bmlib.all_states` order) and a *trailing* block of at most
``_TRAILING_UNITS`` units. For a chunk of leading states, ``-E/T`` of every
completion is one matrix product, because

    -E(h, l)/T = [h W_hl / T, 1, -e(h)/T] . [l, -e(l)/T, 1]

where ``e(h)`` and ``e(l)`` are the energies of each block on its own. The
chunks are bounded (``_CHUNK_STATES`` states), so memory stays small for any
n, and the sums are combined with a running maximum (log-sum-exp), so there
is no overflow at any temperature.
"""
from __future__ import annotations

import numpy as np

from ._checks import check_bool, check_clamp, check_exact_size, check_model, check_temperature, check_units
from .states import MAX_TABLE_UNITS, all_states

_TRAILING_UNITS = 14
_CHUNK_STATES = 2**21  # 16 MiB of float64 per chunk


def _block_energy(S, W, b):
    """Energy of each row of S under (W, b) on its own (rows of shape (m,))."""
    # (S @ W) * S summed by rows is a BLAS product plus one pass; a three-operand
    # einsum here was ten times slower and dominated small models.
    return -0.5 * np.sum((S @ W) * S, axis=1) - S @ b


def _chunks(W, b, T, units):
    """Yield ``(lead, trail, logw)`` covering all states in all_states order.

    lead : (H, n_lead) leading states of the chunk; trail : (2**L, L) trailing
    states; logw : (H, 2**L) with ``logw[a, c] = -E(lead[a], trail[c]) / T``.
    """
    n = W.shape[0]
    L = min(n, _TRAILING_UNITS)
    n_lead = n - L
    trail = all_states(L, units).astype(float)
    lead_all = np.arange(2**n_lead, dtype=np.int64)
    per_chunk = max(1, _CHUNK_STATES >> L)
    # Right factor of the product: [l, -e(l)/T, 1]^T, shape (L + 2, 2**L).
    right = np.empty((L + 2, 2**L))
    right[:L] = trail.T
    right[L] = -_block_energy(trail, W[n_lead:, n_lead:], b[n_lead:]) / T
    right[L + 1] = 1.0
    low, high = (-1.0, 1.0) if units == "spins" else (0.0, 1.0)
    for start in range(0, 2**n_lead, per_chunk):
        codes = lead_all[start : start + per_chunk, None]
        digits = (codes >> np.arange(n_lead - 1, -1, -1)) & 1
        lead = np.where(digits == 1, high, low)
        left = np.empty((lead.shape[0], L + 2))
        left[:, :L] = lead @ W[:n_lead, n_lead:] / T
        left[:, L] = 1.0
        left[:, L + 1] = -_block_energy(lead, W[:n_lead, :n_lead], b[:n_lead]) / T
        yield lead, trail, left @ right


class _RunningSums:
    """Sums of ``w = exp(logw - shift)`` that stay finite: ``shift`` tracks the running max."""

    def __init__(self):
        self.shift = -np.inf
        self.sums = {}

    def weights(self, logw):
        top = float(logw.max())
        if top > self.shift:
            factor = np.exp(self.shift - top)
            for key in self.sums:
                self.sums[key] = self.sums[key] * factor
            self.shift = top
        np.subtract(logw, self.shift, out=logw)
        return np.exp(logw, out=logw)

    def add(self, key, value):
        self.sums[key] = self.sums[key] + value if key in self.sums else value

    def log_total(self):
        return self.shift + np.log(self.sums["Z"])


def _log_partition(W, b, T, units):
    acc = _RunningSums()
    for _, _, logw in _chunks(W, b, T, units):
        acc.add("Z", acc.weights(logw).sum())
    return float(acc.log_total())


def _moments(W, b, T, units):
    """Return (log Z, mean (n,), second (n, n)) in one pass."""
    n = W.shape[0]
    acc = _RunningSums()
    for lead, trail, logw in _chunks(W, b, T, units):
        w = acc.weights(logw)
        w_lead, w_trail = w.sum(axis=1), w.sum(axis=0)
        acc.add("Z", w_lead.sum())
        acc.add("m_lead", w_lead @ lead)
        acc.add("m_trail", w_trail @ trail)
        acc.add("ll", lead.T @ (w_lead[:, None] * lead))
        acc.add("lt", lead.T @ (w @ trail))
        acc.add("tt", trail.T @ (w_trail[:, None] * trail))
    s = acc.sums
    Z = s["Z"]
    k = lead.shape[1]
    mean = np.concatenate([s["m_lead"], s["m_trail"]]) / Z
    second = np.empty((n, n))
    second[:k, :k] = s["ll"] / Z
    second[:k, k:] = s["lt"] / Z
    second[k:, :k] = second[:k, k:].T
    second[k:, k:] = s["tt"] / Z
    return float(acc.log_total()), mean, second


def _check(W, b, T, units, what):
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    check_exact_size(W.shape[0], what)
    return W, b, T, units


def log_partition(W, b=None, T=1.0, units="spins"):
    """Exact ``log Z = log sum_s exp(-E(s)/T)``, summed over all 2**n states.

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric couplings with zero diagonal, ``n <= MAX_EXACT_UNITS``.
    b : array_like of shape (n,), optional
        Biases (zeros if omitted).
    T : float
        Temperature, finite and > 0.
    units : {"spins", "bits"}

    Returns
    -------
    float

    Notes
    -----
    Computed as a log-sum-exp over blocks of states: no overflow for any T,
    memory bounded for any n. As ``T -> inf`` it tends to ``n log 2``.
    Explained in the chapter "The Boltzmann-Gibbs distribution".

    Examples
    --------
    >>> round(log_partition([[0, 1], [1, 0]]), 6)  # log(2 e + 2 / e)
    1.820075
    """
    W, b, T, units = _check(W, b, T, units, "log_partition")
    return _log_partition(W, b, T, units)


def boltzmann_distribution(W, b=None, T=1.0, units="spins"):
    """Probability of every state, in :func:`~bmlib.all_states` order.

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric couplings with zero diagonal, ``n <= MAX_TABLE_UNITS``.
    b : array_like of shape (n,), optional
    T : float
    units : {"spins", "bits"}

    Returns
    -------
    p : ndarray of shape (2**n,)
        ``p[k]`` is the probability of ``all_states(n, units)[k]``; sums to 1.

    Examples
    --------
    >>> boltzmann_distribution([[0, 1], [1, 0]], T=1.0).round(4)
    array([0.4404, 0.0596, 0.0596, 0.4404])
    """
    W, b, T, units = _check(W, b, T, units, "boltzmann_distribution")
    n = W.shape[0]
    if n > MAX_TABLE_UNITS:
        raise ValueError(
            f"boltzmann_distribution returns 2**n probabilities and is limited to n <= {MAX_TABLE_UNITS}; "
            f"got n = {n}. log_partition and exact_moments handle larger models."
        )
    logw = np.concatenate([chunk.ravel() for _, _, chunk in _chunks(W, b, T, units)])
    logw -= logw.max()
    p = np.exp(logw)
    return p / p.sum()


def exact_moments(W, b=None, T=1.0, units="spins"):
    """Exact first and second moments ``<s_i>`` and ``<s_i s_j>``.

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric couplings with zero diagonal, ``n <= MAX_EXACT_UNITS``.
    b : array_like of shape (n,), optional
    T : float
    units : {"spins", "bits"}

    Returns
    -------
    mean : ndarray of shape (n,)
        ``mean[i] = <s_i>``.
    second : ndarray of shape (n, n)
        ``second[i, j] = <s_i s_j>``; its diagonal is ``<s_i**2>`` (1 for spins,
        ``<x_i>`` for bits).

    Notes
    -----
    ``mean`` is the derivative of ``T log Z`` with respect to ``b``, and the
    off-diagonal ``second`` the derivative with respect to ``W_ij``: the
    "model" statistics of the learning rule.

    Examples
    --------
    >>> mean, second = exact_moments([[0, 1], [1, 0]])
    >>> print(mean.round(6) + 0, second.round(4))  # <s_0 s_1> = tanh(1)
    [0. 0.] [[1.     0.7616]
     [0.7616 1.    ]]
    """
    W, b, T, units = _check(W, b, T, units, "exact_moments")
    _, mean, second = _moments(W, b, T, units)
    return mean, second


def exact_energy_moments(W, b=None, T=1.0, units="spins"):
    """Exact mean energy ``<E>`` and energy variance ``Var(E)``.

    The specific heat of the model is ``Var(E) / T**2``.

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric couplings with zero diagonal, ``n <= MAX_EXACT_UNITS``.
    b : array_like of shape (n,), optional
    T : float
    units : {"spins", "bits"}

    Returns
    -------
    mean_energy : float
    energy_variance : float

    Examples
    --------
    >>> E, varE = exact_energy_moments([[0, 1], [1, 0]])
    >>> round(E, 4), round(varE, 4)  # -tanh(1), 1 - tanh(1)**2
    (-0.7616, 0.42)
    """
    W, b, T, units = _check(W, b, T, units, "exact_energy_moments")
    # Two passes: the variance is accumulated around the exact mean, which
    # avoids the cancellation of <E^2> - <E>^2 at low temperature.
    log_z = _log_partition(W, b, T, units)
    mean = var = 0.0
    for _, _, logw in _chunks(W, b, T, units):
        mean += float((np.exp(logw - log_z) * (-T * logw)).sum())
    for _, _, logw in _chunks(W, b, T, units):
        var += float((np.exp(logw - log_z) * (-T * logw - mean) ** 2).sum())
    return mean, var


def _clamped(W, b, T, units, clamped, values):
    """Per-pattern log Z_clamped (P,), free means (P, n_f), and free second moments (P, n_f, n_f)."""
    n = W.shape[0]
    free = np.setdiff1d(np.arange(n), clamped)
    V = np.atleast_2d(values)
    # E(v, f) = E_cc(v) + E_ff(f) - f . (W_fc v): the clamped units act on the
    # free ones as an extra bias.
    e_c = _block_energy(V, W[np.ix_(clamped, clamped)], b[clamped])
    b_eff = b[free] + V @ W[np.ix_(clamped, free)]
    W_ff = W[np.ix_(free, free)]
    n_f = free.size
    log_z, means, seconds = np.empty(len(V)), np.empty((len(V), n_f)), np.empty((len(V), n_f, n_f))
    if n_f <= _TRAILING_UNITS:
        # Few free units: all patterns at once, -E/T of every completion in one product.
        S = all_states(n_f, units).astype(float)
        logw = (b_eff @ S.T - _block_energy(S, W_ff, np.zeros(n_f))[None, :]) / T
        top = logw.max(axis=1, keepdims=True)
        w = np.exp(logw - top)
        z = w.sum(axis=1)
        p = w / z[:, None]
        log_z = top[:, 0] + np.log(z) - e_c / T
        means = p @ S
        seconds = np.einsum("pk,ki,kj->pij", p, S, S) if n_f else seconds
    else:
        check_exact_size(n_f, "clamped enumeration")
        for k in range(len(V)):
            lz, means[k], seconds[k] = _moments(W_ff, b_eff[k], T, units)
            log_z[k] = lz - e_c[k] / T
    return free, log_z, means, seconds


def clamped_log_partition(W, b, clamped, values, T=1.0, units="spins"):
    """Exact log of the partition function with some units clamped.

    ``log Z(v) = log sum_f exp(-E(v, f)/T)`` sums over the free units only,
    with the units in ``clamped`` held at ``values``. With the visible units
    clamped, ``log p(v) = log Z(v) - log Z`` is the exact log-likelihood of a
    pattern in a machine with hidden units.

    Parameters
    ----------
    W : array_like of shape (n, n)
    b : array_like of shape (n,) or None
    clamped : sequence of int, length k
        Indices of the clamped units (distinct, in ``0..n-1``).
    values : array_like of shape (k,) or (P, k)
        One pattern, or P patterns, in ``units``.
    T : float
    units : {"spins", "bits"}

    Returns
    -------
    float for one pattern, or ndarray of shape (P,)

    Examples
    --------
    >>> W = [[0, 1], [1, 0]]
    >>> round(clamped_log_partition(W, None, [0], [1]), 4)  # log(e + 1/e)
    1.1269
    """
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    idx, vals = check_clamp(clamped, values, W.shape[0], units)
    _, log_z, _, _ = _clamped(W, b, T, units, idx, vals)
    return float(log_z[0]) if vals.ndim == 1 else log_z


def clamped_moments(W, b, clamped, values, T=1.0, units="spins", average=True):
    """Exact ``<s_i>`` and ``<s_i s_j>`` with some units clamped to given values.

    The free units follow the Boltzmann-Gibbs distribution conditioned on
    the clamped ones; the clamped units keep their values. Averaged over a
    batch of patterns these are the "clamped" (data) statistics of the
    learning rule.

    Parameters
    ----------
    W : array_like of shape (n, n)
    b : array_like of shape (n,) or None
    clamped : sequence of int, length k
        Indices of the clamped units (distinct, in ``0..n-1``).
    values : array_like of shape (k,) or (P, k)
        One pattern, or P patterns, in ``units``.
    T : float
    units : {"spins", "bits"}
    average : bool
        For a batch, return the average over patterns (default) or one
        result per pattern.

    Returns
    -------
    mean : ndarray of shape (n,), or (P, n) if ``average=False``
    second : ndarray of shape (n, n), or (P, n, n) if ``average=False``

    Examples
    --------
    >>> W = [[0, 1], [1, 0]]
    >>> mean, second = clamped_moments(W, None, [0], [1])
    >>> print(mean.round(4))  # <s_1> = tanh(1) given s_0 = +1
    [1.     0.7616]
    """
    average = check_bool(average, "average")
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    n = W.shape[0]
    idx, vals = check_clamp(clamped, values, n, units)
    free, _, means_f, seconds_f = _clamped(W, b, T, units, idx, vals)
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
        return mean.mean(axis=0), second.mean(axis=0)
    return mean, second
