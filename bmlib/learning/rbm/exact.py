"""The exact ``log Z`` of a restricted Boltzmann machine, enumerating only its smaller layer."""
from __future__ import annotations

import numpy as np

from ..._checks import LEVELS, check_exact_size, check_rbm_parameters, check_temperature, check_units
from ..._threads import thin_blas
from ...exact.enumeration import BIG_EXPONENT as _BIG_EXPONENT, BIG_PARAMETER as _BIG_PARAMETER
from ...models.states import states_of_index as _states_of_index

#: Rows of states per block times the width of the summed layer: bounds memory (16 MiB of float64).
_BLOCK_ENTRIES = 2**21


def _log_unit_sum(field, T, units):
    """log sum_{s in units} exp(s * field / T), unit by unit (a softplus for bits)."""
    z = field / T
    return np.logaddexp(0.0, z) if units == "bits" else np.logaddexp(z, -z)


def _layer_blocks(n, units, size):
    """All states of n units in all_states order, in blocks of at most ``size`` rows."""
    low, high = LEVELS[units]
    for start in range(0, 2**n, size):
        yield _states_of_index(np.arange(start, min(start + size, 2**n)), n, low, high, dtype=float)


@thin_blas
def rbm_log_partition(W, b_visible=None, b_hidden=None, T=1.0, units="spins"):
    """Exact ``log Z`` of a restricted Boltzmann machine, enumerating only its smaller layer.

    ``E(v, h) = -v^T W h - b_visible^T v - b_hidden^T h``: the Boltzmann machine
    with the block couplings ``[[0, W], [W^T, 0]]`` (the parameters of
    :class:`~bmlib.RBM`, with the same names). Given one layer, the units of
    the other are independent, so their sum is a product:
    ``sum_h exp(-E(v, h)/T) = exp(b_visible^T v / T) prod_j g((W^T v + b_hidden)_j / T)``
    with ``g(a) = 1 + e^a`` for bits and ``2 cosh a`` for spins, computed in
    logs as ``logaddexp(0, a)`` and ``logaddexp(a, -a)``. Only the
    ``2**min(n_visible, n_hidden)`` states of the smaller layer are enumerated, in blocks.

    Parameters
    ----------
    W : array_like of shape (n_visible, n_hidden)
        Visible-hidden couplings.
    b_visible : array_like of shape (n_visible,), optional
    b_hidden : array_like of shape (n_hidden,), optional
    T : float
    units : {"spins", "bits"}

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If the smaller layer has more than ``MAX_EXACT_UNITS`` units, or if
        ``log Z`` itself is beyond the float range (``T`` near 0 with a
        ground energy other than 0). As ``T -> 0`` the result tends to
        ``-E_min / T + log g`` with ``g`` ground states, as for
        :func:`~bmlib.log_partition`.

    Notes
    -----
    Explained in the chapter "Restricted Boltzmann machines".

    Examples
    --------
    One visible and one hidden bit with coupling 1: ``Z = 3 + e``.

    >>> import numpy as np
    >>> import bmlib as bm
    >>> round(bm.rbm_log_partition([[1.0]], units="bits"), 6), round(float(np.log(3 + np.e)), 6)
    (1.743668, 1.743668)
    """
    W, b_v, b_h = check_rbm_parameters(W, b_visible, b_hidden)
    T, units = check_temperature(T), check_units(units)
    if W.shape[0] < W.shape[1]:  # enumerate the smaller layer, sum out the larger
        W, b_v, b_h = W.T, b_h, b_v
    k = check_exact_size(W.shape[1], "rbm_log_partition (enumerating the smaller layer)")
    low = LEVELS[units][0]
    block = max(1, _BLOCK_ENTRIES // W.shape[0])
    # Parameters near the float limit are scaled by 2**-e (exact), as in exact
    # enumeration, so that fields and energies (sums of them) stay finite;
    # energies are then in units of 2**e, and over_T(x) = x 2**e / T.
    top = max(float(np.abs(W).max()), float(np.abs(b_v).max(initial=0.0)), float(np.abs(b_h).max(initial=0.0)))
    e = _BIG_EXPONENT if top > _BIG_PARAMETER else 0
    W, b_v, b_h = W / 2.0**e, b_v / 2.0**e, b_h / 2.0**e

    def over_T(x):
        with np.errstate(over="ignore"):  # inf is the right limit: its weight exp(-inf) is 0
            return x / T * 2.0**e

    # As in exact enumeration, energies are divided by T only as differences from
    # the running maximum, so that any T > 0 (down to 5e-324) gives the T -> 0
    # limit instead of inf - inf = NaN. log g(a / T), g(x) = 1 + e^x (bits) or
    # 2 cosh x (spins), is split into an energy part, max(a, 0) or |a|, and an
    # entropy part in [0, log 2] kept apart (times a subnormal T it would be lost).
    width = 1.0 if units == "bits" else 2.0
    shift, log_total = -np.inf, -np.inf
    for start in range(0, 2**k, block):
        H = _states_of_index(np.arange(start, min(start + block, 2**k)), k, low, 1.0, dtype=float)
        a = H @ W.T + b_v  # field on every unit of the summed layer, shape (rows, n_large)
        entropy = np.log1p(np.exp(-over_T(width * np.abs(a)))).sum(axis=1)
        # max(a, 0) or |a| directly: (|a| + a) / 2 would overflow for a near the float limit.
        neg_f = H @ b_h + (np.maximum(a, 0.0) if units == "bits" else np.abs(a)).sum(axis=1)
        top = float(neg_f.max())
        if top > shift:  # running log-sum-exp: re-reference what was summed so far
            log_total -= over_T(top - shift)
            shift = top
        rel = over_T(neg_f - shift) + entropy  # <= n_large log 2, never NaN
        peak = float(rel.max())
        log_total = float(np.logaddexp(log_total, peak + np.log(np.exp(rel - peak).sum())))
    with np.errstate(over="ignore"):
        log_z = over_T(shift) + log_total
    if not np.isfinite(log_z):
        raise ValueError(
            f"rbm_log_partition: log Z is beyond the float range (about 1.8e308) at T = {T!r}"
            f"{' and couplings near the float limit' if e else ''}. The probabilities depend only on W / T, "
            "b_visible / T and b_hidden / T; rescale W, b_visible, b_hidden and T by a common factor, or find "
            "the ground states with energy_descent or anneal."
        )
    return log_z


# ----------------------------------------------------------------------------
