"""Exact Boltzmann-Gibbs statistics by enumerating every state, in blocks.

``p(s) = exp(-E(s)/T) / Z`` with ``Z = sum_s exp(-E(s)/T)``.

How the enumeration is organised (and why it is fast in pure NumPy): the
units are split into a *leading* block (the most significant units of the
:func:`~bmlib.all_states` order) and a *trailing* block of at most
``_TRAILING_UNITS`` units. For a chunk of leading states, ``-E`` of every
completion is one matrix product, because

    -E(h, l) = [h W_hl, 1, -e(h)] . [l, -e(l), 1]

where ``e(h)`` and ``e(l)`` are the energies of each block on its own. The
chunks are bounded (``_CHUNK_STATES`` states), so memory stays small for any
n, and the sums are combined with a running maximum (log-sum-exp).

Extreme inputs. Energies are formed first and divided by ``T`` only as
differences from the lowest energy found so far, ``(E - E_min) / T >= 0``:
that quotient may overflow to ``inf`` (its weight is then exactly 0, as it
should be), but never meets ``inf - inf``. So every ``T > 0``, down to
``5e-324``, gives the ``T -> 0`` limit where it is one (the distribution
spreads evenly over the ground states), and couplings near the float limit
are handled by carrying energies in units of ``2**k`` (exact power-of-two
scaling, ``k = 0`` for ordinary parameters). Only a returned number that is
itself beyond the float range (``log Z = -E_min / T + ...`` at such ``T``, or
``<E>`` of 1e308-scale couplings) raises a ``ValueError``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._checks import LEVELS, MAX_EXACT_UNITS, check_exact_size, check_model, check_temperature, check_units
from .._threads import thin_blas
from ._elimination_plan import (
    MAX_ELIMINATION_UNITS,
    EliminationPlan,
    _lattice_refusal,
    _plan_for,
    _refusal_message,
    _unit_limit,
)
from .elimination import sparse_log_partition
from ..models.states import MAX_TABLE_UNITS, states_of_index, all_states

_TRAILING_UNITS = 14
_CHUNK_STATES = 2**21  # 16 MiB of float64 per chunk
#: Parameters larger than this are scaled down by 2**BIG_EXPONENT before energies are
#: formed: 465 couplings and 30 biases of 2**1000 (n = 30) still sum to a finite energy.
#: Shared inside bmlib (the RBM's exact log Z scales the same way); not in the flat namespace.
BIG_PARAMETER = 2.0**1000
BIG_EXPONENT = 30


def _scaled_model(W, b):
    """Return ``(W / 2**k, b / 2**k, k)`` with ``k`` chosen so that no energy overflows.

    ``k = 0`` (no change) unless a parameter exceeds ``BIG_PARAMETER``. Dividing
    by a power of two is exact, except for entries below ~1e-300 next to ones
    near 1e308, which cannot move an energy of that size anyway.
    """
    top = max(float(np.abs(W).max(initial=0.0)), float(np.abs(b).max(initial=0.0)))
    if top <= BIG_PARAMETER:
        return W, b, 0
    return W / 2.0**BIG_EXPONENT, b / 2.0**BIG_EXPONENT, BIG_EXPONENT


def _over_T(x, T, k, out=None):
    """``x * 2**k / T`` for scaled energies ``x``; overflows to +-inf, never NaN for finite ``x``."""
    with np.errstate(over="ignore"):  # inf is the right value: its weight exp(-inf) is 0
        out = np.divide(x, T) if out is None else np.divide(x, T, out=out)
        return out * 2.0**k if k else out


def _beyond_range(what, quantity, T, k):
    scale = "" if k == 0 else " and couplings near the float limit"
    return ValueError(
        f"{what}: {quantity} is beyond the float range (about 1.8e308) at T = {T!r}{scale}. "
        "The probabilities depend only on W / T and b / T and are still available "
        "(boltzmann_distribution, exact_moments); for the ground states themselves use "
        "energy_descent or anneal, or rescale W, b and T by a common factor."
    )


def _block_energy(S, W, b):
    """Energy of each row of S under (W, b) on its own (rows of shape (m,))."""
    # (S @ W) * S summed by rows is a BLAS product plus one pass; a three-operand
    # einsum here was ten times slower and dominated small models.
    return -0.5 * np.sum((S @ W) * S, axis=1) - S @ b


def _chunks(W, b, units):
    """Yield ``(lead, trail, neg_e)`` covering all states in all_states order.

    lead : (H, n_lead) leading states of the chunk; trail : (2**L, L) trailing
    states; neg_e : (H, 2**L) with ``neg_e[a, c] = -E(lead[a], trail[c])``.
    """
    n = W.shape[0]
    L = min(n, _TRAILING_UNITS)
    n_lead = n - L
    trail = all_states(L, units).astype(float)
    lead_all = np.arange(2**n_lead, dtype=np.int64)
    per_chunk = max(1, _CHUNK_STATES >> L)
    # Right factor of the product: [l, -e(l), 1]^T, shape (L + 2, 2**L).
    right = np.empty((L + 2, 2**L))
    right[:L] = trail.T
    right[L] = -_block_energy(trail, W[n_lead:, n_lead:], b[n_lead:])
    right[L + 1] = 1.0
    low, high = LEVELS[units]
    for start in range(0, 2**n_lead, per_chunk):
        lead = states_of_index(lead_all[start : start + per_chunk], n_lead, low, high, dtype=float)
        left = np.empty((lead.shape[0], L + 2))
        left[:, :L] = lead @ W[:n_lead, n_lead:]
        left[:, L] = 1.0
        left[:, L + 1] = -_block_energy(lead, W[:n_lead, :n_lead], b[:n_lead])
        yield lead, trail, left @ right


class _RunningSums:
    """Sums of ``w = exp((-E - shift) / T)`` that stay finite: ``shift`` tracks the running max of ``-E``.

    Energies are in units of ``2**k`` (see :func:`_scaled_model`).
    """

    def __init__(self, T, k):
        self.T, self.k = T, k
        self.shift = -np.inf
        self.sums = {}

    def weights(self, neg_e):
        top = float(neg_e.max())
        if top > self.shift:
            factor = np.exp(-_over_T(top - self.shift, self.T, self.k))
            for key in self.sums:
                self.sums[key] = self.sums[key] * factor
            self.shift = top
        np.subtract(neg_e, self.shift, out=neg_e)  # -(E - E_min) <= 0
        return np.exp(_over_T(neg_e, self.T, self.k, out=neg_e), out=neg_e)

    def add(self, key, value):
        self.sums[key] = self.sums[key] + value if key in self.sums else value

    def log_total(self):
        """``log Z = -E_min / T + log(sum of weights)``: +-inf if beyond the float range."""
        with np.errstate(over="ignore"):
            return float(_over_T(self.shift, self.T, self.k)) + float(np.log(self.sums["Z"]))


def _log_partition(W, b, T, units, what="log_partition"):
    W, b, k = _scaled_model(W, b)
    acc = _RunningSums(T, k)
    for _, _, neg_e in _chunks(W, b, units):
        acc.add("Z", acc.weights(neg_e).sum())
    log_z = acc.log_total()
    if not np.isfinite(log_z):
        raise _beyond_range(what, "log Z", T, k)
    return log_z


def _moments(W, b, T, units, k):
    """Return (shift, log of the weights' sum, mean (n,), second (n, n)) in one pass.

    ``log Z = shift * 2**k / T + log_sum`` with energies in units of ``2**k``;
    ``W`` and ``b`` must already be scaled (:func:`_scaled_model`) with that ``k``.
    """
    n = W.shape[0]
    acc = _RunningSums(T, k)
    for lead, trail, neg_e in _chunks(W, b, units):
        w = acc.weights(neg_e)
        w_lead, w_trail = w.sum(axis=1), w.sum(axis=0)
        acc.add("Z", w_lead.sum())
        acc.add("m_lead", w_lead @ lead)
        acc.add("m_trail", w_trail @ trail)
        acc.add("ll", lead.T @ (w_lead[:, None] * lead))
        acc.add("lt", lead.T @ (w @ trail))
        acc.add("tt", trail.T @ (w_trail[:, None] * trail))
    s = acc.sums
    Z = s["Z"]
    m = n - min(n, _TRAILING_UNITS)  # the leading units of every chunk (as _chunks splits them)
    mean = np.concatenate([s["m_lead"], s["m_trail"]]) / Z
    second = np.empty((n, n))
    second[:m, :m] = s["ll"] / Z
    second[:m, m:] = s["lt"] / Z
    second[m:, :m] = second[:m, m:].T
    second[m:, m:] = s["tt"] / Z
    return acc.shift, float(np.log(Z)), mean, second


def _check(W, b, T, units, what):
    n_units = getattr(W, "n_units", None)  # a coupling operator: refuse its size before building its matrix
    if isinstance(n_units, int):
        check_exact_size(n_units, what)
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    check_exact_size(W.shape[0], what)
    return W, b, T, units


#: Above this many units, log_partition asks whether variable elimination is cheaper.
#: Up to it enumeration takes milliseconds, and its results stay exactly as they were.
SPARSE_FROM_UNITS = 20
#: Elimination is chosen when its tables hold this many times fewer entries than 2**n
#: (an entry of a table costs more than a state of the enumeration).
ELIMINATION_ADVANTAGE = 16


@thin_blas
def log_partition(W, b=None, T=1.0, units="spins"):
    """Exact ``log Z = log sum_s exp(-E(s)/T)``, summed over all 2**n states or by elimination.

    Above ``SPARSE_FROM_UNITS`` (20) units, a machine whose coupling graph is
    sparse (a lattice, a chain, a tree) is summed by variable elimination
    (:func:`sparse_log_partition`) when that is cheaper; the result is the same
    number up to rounding, and then ``n`` may exceed ``MAX_EXACT_UNITS``.

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric couplings with zero diagonal, ``n <= MAX_EXACT_UNITS`` unless
        the graph is sparse enough for elimination.
    b : array_like of shape (n,), optional
        Biases (zeros if omitted).
    T : float
        Temperature, finite and > 0.
    units : {"spins", "bits"}

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``log Z`` itself is beyond the float range (``|log Z| > ~1.8e308``,
        e.g. ``T = 5e-324`` with a ground energy other than 0), or if ``n``
        exceeds ``MAX_EXACT_UNITS`` and no elimination order fits either; the
        message then gives the cost of both. Such a refusal comes before the
        work: a lattice's or a dense graph's width is bounded from below
        without planning, and planning stops at the first order's cluster past
        the limit (see :func:`sparse_log_partition`).

    Notes
    -----
    Computed as a log-sum-exp over blocks of states, as
    ``-E_min / T + log sum_s exp(-(E(s) - E_min) / T)``: no overflow for any T,
    memory bounded for any n. As ``T -> inf`` it tends to ``n log 2``; as
    ``T -> 0``, to ``-E_min / T + log g`` with ``g`` ground states.
    Explained in the chapter "The Boltzmann-Gibbs distribution".

    Examples
    --------
    >>> round(bm.log_partition([[0, 1], [1, 0]]), 6)  # log(2 e + 2 / e)
    1.820075
    """
    # A lattice operator too wide for elimination and too large to enumerate is refused
    # before its dense matrix is built.
    refused = _lattice_refusal(W, _unit_limit())
    if refused is not None and W.n_units > MAX_EXACT_UNITS:
        _refuse_both(W.n_units, refused)
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    plan, refused = _route(W)
    if plan is not None:
        return sparse_log_partition(W, b, T, units, order=plan.order)
    if W.shape[0] > MAX_EXACT_UNITS and refused is not None:
        _refuse_both(W.shape[0], refused)
    check_exact_size(W.shape[0], "log_partition")
    return _log_partition(W, b, T, units)


def _refuse_both(n, refused):
    """Refuse log_partition when neither enumeration nor elimination can do it, with both costs."""
    try:
        check_exact_size(n, "log_partition")
    except ValueError as too_many:
        raise ValueError(f"{too_many} Nor is the graph sparse enough: {_refusal_message('log Z', refused)}.") from None


def _route(W):
    """``(plan, None)`` if log_partition eliminates ``W``, else ``(None, why elimination is refused or None)``.

    The planning is bounded (:func:`~bmlib.exact._elimination_plan._plan_for`): a graph that
    no order can fit is found out without planning it to the end. A plan that
    fits is the one the full planner chooses whenever that one fits.
    """
    n = W.shape[0]
    if n > SPARSE_FROM_UNITS:
        plan = _plan_for(W, W, "auto", _unit_limit())
        if not isinstance(plan, EliminationPlan):
            return None, plan
        if plan.width < MAX_ELIMINATION_UNITS and plan.work * ELIMINATION_ADVANTAGE < 2.0**n:
            return plan, None
    return None, None


def exact_route(W):
    """The elimination plan :func:`log_partition` uses for ``W`` (checked), or None if it enumerates."""
    return _route(W)[0]


@thin_blas
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
    >>> bm.boltzmann_distribution([[0, 1], [1, 0]], T=1.0).round(4)
    array([0.4404, 0.0596, 0.0596, 0.4404])
    """
    W, b, T, units = _check(W, b, T, units, "boltzmann_distribution")
    n = W.shape[0]
    if n > MAX_TABLE_UNITS:
        raise ValueError(
            f"boltzmann_distribution returns 2**n probabilities and is limited to n <= {MAX_TABLE_UNITS}; "
            f"got n = {n}. log_partition and exact_moments handle larger models."
        )
    W, b, k = _scaled_model(W, b)
    logw = np.concatenate([chunk.ravel() for _, _, chunk in _chunks(W, b, units)])
    logw -= logw.max()  # -(E - E_min) <= 0, then divided by T: -inf at worst, never NaN
    p = np.exp(_over_T(logw, T, k, out=logw))
    return p / p.sum()


class Moments(NamedTuple):
    """First and second moments of the units, exact; unpacks as ``mean, second = ...``."""

    mean: np.ndarray
    """``<s_i>``, shape (n,) (or (P, n): one row per clamped pattern)."""
    second: np.ndarray
    """``<s_i s_j>``, shape (n, n) (or (P, n, n)); its diagonal is ``<s_i**2>``."""


class EnergyMoments(NamedTuple):
    """Mean and variance of the energy, exact; unpacks as ``mean_energy, energy_variance = ...``."""

    mean_energy: float
    """``<E>``."""
    energy_variance: float
    """``<E**2> - <E>**2``."""


@thin_blas
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
    >>> mean, second = bm.exact_moments([[0, 1], [1, 0]])
    >>> print(mean.round(6) + 0, second.round(4))  # <s_0 s_1> = tanh(1)
    [0. 0.] [[1.     0.7616]
     [0.7616 1.    ]]
    """
    W, b, T, units = _check(W, b, T, units, "exact_moments")
    W, b, k = _scaled_model(W, b)
    _, _, mean, second = _moments(W, b, T, units, k)
    return Moments(mean, second)


@thin_blas
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

    Raises
    ------
    ValueError
        If ``<E>`` or ``Var(E)`` is beyond the float range (couplings near
        1e308 with ``T`` of the same size).

    Notes
    -----
    Accumulated around the lowest energy, with weights ``exp(-(E - E_min) / T)``:
    exact at any ``|E| / T``; as ``T -> 0`` it returns ``E_min`` and 0.

    Examples
    --------
    >>> E, varE = bm.exact_energy_moments([[0, 1], [1, 0]])
    >>> round(E, 4), round(varE, 4)  # -tanh(1), 1 - tanh(1)**2
    (-0.7616, 0.42)
    """
    W, b, T, units = _check(W, b, T, units, "exact_energy_moments")
    W, b, k = _scaled_model(W, b)
    # Centred on the lowest energy E_min: d = E - E_min >= 0 carries the weights
    # exp(-d / T) <= 1 and the sums, so nothing depends on the size of E_min / T
    # (at |E| / T = 1e15 a sum of E exp(-E / T + log Z) has lost every digit).
    # Three passes: E_min, then the mean of d, then the variance around that
    # mean (no cancellation of <d^2> - <d>^2).
    shift = max(float(neg_e.max()) for _, _, neg_e in _chunks(W, b, units))  # -E_min
    z = total = 0.0
    for _, _, neg_e in _chunks(W, b, units):
        d = shift - neg_e
        w = np.exp(-_over_T(d, T, k))
        z += float(w.sum())
        total += float((w * d).sum())
    mu = total / z
    var = 0.0
    for _, _, neg_e in _chunks(W, b, units):
        d = shift - neg_e
        w = np.exp(-_over_T(d, T, k))
        # (sqrt(w) (d - mu))^2, not w (d - mu)^2: a state of weight 0 adds 0 even
        # where its (d - mu)^2 would overflow.
        with np.errstate(over="ignore"):  # an infinite variance is reported below
            var += float(np.sum((np.sqrt(w) * (d - mu)) ** 2))
    with np.errstate(over="ignore"):
        mean = float((mu - shift) * 2.0**k)
        variance = float(var / z * 4.0**k)
    if not np.isfinite(mean):
        raise _beyond_range("exact_energy_moments", "the mean energy", T, k)
    if not np.isfinite(variance):
        raise _beyond_range("exact_energy_moments", "the energy variance", T, k)
    return EnergyMoments(mean, variance)
