"""Annealed importance sampling for a restricted Boltzmann machine (Salakhutdinov & Murray 2008).

For an RBM the hidden units can be summed out exactly given the visible ones,
so AIS needs to move only the visible layer. The intermediate distributions

    p*_k(v) = exp(((1 - f_k) a + f_k b_visible)^T v / T)
              * prod_j sum_h exp(f_k h (W^T v + b_hidden)_j / T)

go from a base that has no couplings (k = 0, visible biases ``a``, hidden
units free) to the RBM (k = K). The base's normalizer is a product,
``log Z_0 = sum_i log sum_v exp(a_i v / T) + n_hidden log 2``; each step
adds ``log p*_k(v) - log p*_{k-1}(v)`` to a run's log weight, and one block
Gibbs sweep at ``f_k`` (all hidden units given v, then all visible units given
h) moves v. The mean of the weights is an unbiased estimate of ``Z / Z_0``.
The loop over the schedule and the summary of the weights are those of
:func:`bmlib.log_z_ais` (:mod:`bmlib._importance`); this module brings the
RBM's log ratio and sweep.

A good base matters: with ``a`` fitted to the training data (each visible
unit's probability of being on, smoothed), the first distributions already
look like the data, and the weights are far more equal than from a uniform
base (Salakhutdinov & Murray's choice, measured in benchmarks/).
"""
from __future__ import annotations

import numpy as np

from ..._checks import (
    LEVELS,
    check_approximation_temperature,
    check_bool,
    check_count,
    check_data,
    check_memory,
    check_rbm_parameters,
    check_temperature,
    check_units,
)
from ..._importance import ais_schedule, annealed_log_weights, weights_summary
from ..._random import as_generator
from ...sampling.rules import RULES
from ..._threads import thin_blas
from ...partition.variational import LogZEstimate


def _log_unnormalized(V, f, a, W, b_visible, b_hidden, T, low, high):
    """log p*_f(v) for each row of V: the visible terms plus every hidden unit summed out."""
    x = f * (V @ W + b_hidden) / T
    return V @ ((1.0 - f) * a + f * b_visible) / T + np.logaddexp(x * low, x * high).sum(axis=1)


def base_visible_biases(data, T=1.0, units="spins"):
    """Visible biases of the product distribution that matches the data's unit means.

    Each unit's probability of its high value is estimated with half a count
    added to each value, ``(count + 0.5) / (P + 1)``, so that a unit that is
    never (or always) on in the data keeps a finite bias.

    Parameters
    ----------
    data : array_like of shape (P, n_visible)
        Training patterns in ``units``.
    T : float
    units : {"spins", "bits"}

    Returns
    -------
    ndarray of shape (n_visible,)
        ``a`` with ``p(v_i = high) = sigmoid(a_i (high - low) / T)``.

    Examples
    --------
    >>> bm.base_visible_biases([[1, 0], [1, 1], [1, 0]], units="bits").round(4).tolist()
    [1.9459, -0.5108]
    """
    T, units = check_temperature(T), check_units(units)
    data = np.asarray(data)
    data = check_data(data, data.shape[-1] if data.ndim else 1, units)
    low, high = LEVELS[units]
    p = ((data == high).sum(axis=0) + 0.5) / (data.shape[0] + 1.0)
    return T * (np.log(p) - np.log1p(-p)) / (high - low)


@thin_blas
def log_z_rbm_ais(W, b_visible=None, b_hidden=None, T=1.0, units="spins", *, data=None, n_runs=100,
                  n_steps=None, fractions=None, progress=False, rng=None):
    """AIS estimate of an RBM's ``log Z``, with the hidden units summed out (Salakhutdinov & Murray 2008).

    Parameters
    ----------
    W : array_like of shape (n_visible, n_hidden)
    b_visible : array_like of shape (n_visible,), optional
    b_hidden : array_like of shape (n_hidden,), optional
    T : float
    units : {"spins", "bits"}
    data : array_like of shape (P, n_visible), optional
        Training data for the base distribution (see
        :func:`base_visible_biases`); without it the base is uniform.
    n_runs : int
        Independent annealing runs, >= 2.
    n_steps : int, optional
        Steps ``K`` of a linear schedule ``f_k = k / K`` (default 1000).
    fractions : array_like of shape (K + 1,), optional
        The schedule itself, from exactly 0 to exactly 1, non-decreasing.
    progress : bool or None
        A progress bar over the annealing steps: True shows one at once, None
        after two seconds of work (as :func:`~bmlib.train`), False (the
        default) none. Off by default because this also runs inside loops,
        widgets and the book's chapters, where a bar that shows only on a slow
        machine would change what is printed.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    LogZEstimate
        ``method = "rbm_ais"``; ``error`` by the delta method,
        ``sd(w) / (sqrt(n_runs) mean(w))``; ``cost`` = ``n_runs * (K - 1)``
        block Gibbs sweeps. ``details``: ``ess`` (effective sample size
        ``(sum w)^2 / sum w^2``), ``log_weights`` (with ``log Z_0`` added),
        ``n_steps``, ``base_biases``.

    Notes
    -----
    The weights' mean is unbiased for ``Z``, but its logarithm is biased low
    (Jensen: ``E[log Z_hat] <= log E[Z_hat] = log Z``), by about
    ``error**2 / 2`` when the error is small, and more when a mode of the RBM
    is never reached. A log-likelihood ``-E(v)/T - log Z_hat`` computed with it
    is then biased *high*: optimistic. Check against
    :func:`~bmlib.rbm_log_partition` wherever the smaller layer allows it
    (up to about 25 units), and distrust an estimate whose ``ess`` is a small
    fraction of ``n_runs``.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.random.default_rng(0).normal(scale=0.5, size=(12, 6))
    >>> est = bm.log_z_rbm_ais(W, n_runs=200, n_steps=200, rng=1)
    >>> exact = bm.rbm_log_partition(W)
    >>> abs(est.log_z - exact) < 3 * est.error, est.details["ess"] > 100
    (True, True)
    """
    W, b_visible, b_hidden = check_rbm_parameters(W, b_visible, b_hidden)
    T, units = check_temperature(T), check_units(units)
    check_approximation_temperature(T, W, np.concatenate([b_visible, b_hidden]), "annealed importance sampling",
                                    b_name="b_visible|, max|b_hidden")
    n_runs = check_count(n_runs, "n_runs", minimum=2)
    progress = check_bool(progress, "progress", allow_none=True)
    n_visible, n_hidden = W.shape
    check_memory(8 * n_runs * (n_visible + 2 * n_hidden), f"{n_runs} annealing runs (n_runs)")
    fractions = ais_schedule(n_steps, fractions)
    gen = as_generator(rng)
    low, high = LEVELS[units]
    if data is None:
        a = np.zeros(n_visible)
    else:
        data = np.asarray(data)
        if data.ndim != 2 or data.shape[1] != n_visible:
            raise ValueError(f"data must have shape (P, {n_visible}) to match W of shape {W.shape}; "
                             f"got shape {data.shape}")
        a = base_visible_biases(data, T, units)
    log_z0 = float(np.logaddexp(a * low / T, a * high / T).sum() + n_hidden * np.log(2.0))
    rule = RULES["heat_bath"]  # its layer form, as the RBM's own block Gibbs; looked up once per call
    V = rule.layer(np.broadcast_to(a, (n_runs, n_visible)), T, units, gen)  # the base: independent units
    parts = (a, W, b_visible, b_hidden, T, low, high)

    def log_ratio(V, f_old, f_new):
        return _log_unnormalized(V, f_new, *parts) - _log_unnormalized(V, f_old, *parts)

    def move(V, f):
        # One block Gibbs sweep that leaves p_f invariant: every hidden unit given v, then every visible given h.
        H = rule.layer(f * (V @ W + b_hidden), T, units, gen)
        return rule.layer((1.0 - f) * a + f * (H @ W.T + b_visible), T, units, gen)

    logw, _ = annealed_log_weights(fractions, V, log_ratio, move, progress)
    log_z, error, ess = weights_summary(logw, offset=log_z0)
    K = fractions.size - 1
    return LogZEstimate(
        log_z=log_z,
        error=error,
        converged=True,
        cost=n_runs * (K - 1),
        cost_unit="sweeps",
        method="rbm_ais",
        details={"ess": ess, "log_weights": logw + log_z0, "n_steps": K, "base_biases": a},
    )
