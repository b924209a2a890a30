"""Importance weights: their log-mean-exp, error bar and effective sample size, and the AIS path that makes them.

Every sampling estimate of ``log Z`` in bmlib ends the same way: log weights
``log w_r`` whose mean ``w`` estimates a ratio of normalizers. This module
holds that ending once (:func:`weights_summary`, used by
:func:`bmlib.log_z_importance`, :func:`bmlib.log_z_ais` and
:func:`bmlib.log_z_rbm_ais`), and the annealing loop that AIS adds in front
of it (:func:`ais_schedule`, :func:`annealed_log_weights`, used by both AIS
functions, each with its own model's log ratio and sweep).

Internal: the public functions check their inputs and call these with
checked values. Explained in the chapter "The normalizing constant Z".
"""
from __future__ import annotations

import numpy as np

from ._checks import _check_finite, check_count
from ._progress import progress_bar

#: Steps of the AIS schedule when neither n_steps nor fractions is given.
DEFAULT_AIS_STEPS = 1000


def log_mean_exp(log_w, offset=0.0):
    """``offset + log(mean(exp(log_w)))``, with no overflow: the largest term is taken out first.

    Parameters
    ----------
    log_w : ndarray of shape (N,), N >= 1
    offset : float
        Added first (``log Z_0`` for AIS), so that the sum is the same float as
        ``offset + top + log(mean(exp(log_w - top)))`` written out.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from bmlib._importance import log_mean_exp
    >>> round(log_mean_exp(np.array([1000.0, 1000.0 + np.log(3.0)])), 6)   # log((e^1000 + 3 e^1000) / 2)
    1000.693147
    """
    return weights_summary(log_w, offset)[0]


def weights_summary(log_w, offset=0.0):
    """The estimate, its error bar and effective sample size from log weights.

    With ``w_r = exp(log_w_r - top)``, ``top = max(log_w)`` (no overflow):

    - estimate ``offset + top + log(mean(w))``, the log of the mean weight;
    - error ``sd(w) / (sqrt(N) mean(w))``, the delta-method standard error of
      that logarithm (``nan`` for N = 1);
    - ``ess = (sum w)^2 / sum w^2``, the effective sample size.

    Parameters
    ----------
    log_w : ndarray of shape (N,), N >= 1
    offset : float

    Returns
    -------
    (float, float, float)
        ``(log_mean, error, ess)``.

    Examples
    --------
    >>> import numpy as np
    >>> from bmlib._importance import weights_summary
    >>> log_mean, error, ess = weights_summary(np.log([1.0, 1.0, 1.0, 1.0]))
    >>> log_mean, error, ess
    (0.0, 0.0, 4.0)
    """
    n = log_w.size
    top = float(log_w.max())
    w = np.exp(log_w - top)
    mean_w = float(w.mean())
    error = float(w.std(ddof=1) / (np.sqrt(n) * mean_w)) if n > 1 else float("nan")
    return offset + top + float(np.log(mean_w)), error, float(w.sum() ** 2 / np.sum(w * w))


def annealed_log_weights(fractions, state, log_ratio, move, progress=False):
    """The AIS loop: each run's log weight along the path ``f_0 = 0, ..., f_K = 1``.

    For ``k = 1 .. K``: if ``f_k > f_{k-1}``, add
    ``log_ratio(state, f_{k-1}, f_k) = log p*_{f_k}(s) - log p*_{f_{k-1}}(s)``
    (the unnormalized log probabilities) to every run's log weight; then, for
    ``k < K``, move the runs by one sweep that leaves ``p_{f_k}`` invariant,
    ``state = move(state, f_k)``. The mean of the weights is an unbiased
    estimate of ``Z_1 / Z_0`` (Neal 2001).

    Parameters
    ----------
    fractions : ndarray of shape (K + 1,)
        A checked schedule (:func:`ais_schedule`).
    state : ndarray of shape (n_runs, n)
        The runs, drawn from the base distribution ``p_0``.
    log_ratio : callable ``(state, f_old, f_new) -> ndarray of shape (n_runs,)``
    move : callable ``(state, f) -> state``
    progress : bool or None
        A progress bar over the K steps (see :mod:`bmlib._progress`).

    Returns
    -------
    log_w : ndarray of shape (n_runs,)
    n_ratios : int
        How many steps had ``f_k > f_{k-1}`` (each one evaluation of ``log_ratio``).
    """
    log_w = np.zeros(state.shape[0])
    n_ratios = 0
    K = fractions.size - 1
    with progress_bar(progress, total=K, desc="AIS", unit="step") as bar:
        for k in range(1, K + 1):
            f_old, f_new = float(fractions[k - 1]), float(fractions[k])
            if f_new > f_old:
                log_w += log_ratio(state, f_old, f_new)
                n_ratios += 1
            if k < K:
                state = move(state, f_new)
            bar.update()
    return log_w, n_ratios


def ais_schedule(n_steps, fractions):
    """The AIS schedule f_0 = 0 <= ... <= f_K = 1 as a float array, from n_steps or fractions.

    Parameters
    ----------
    n_steps : int or None
        ``K`` of a linear schedule ``f_k = k / K``, >= 1 (default :data:`DEFAULT_AIS_STEPS`).
    fractions : array_like of shape (K + 1,) or None
        The schedule itself: finite, non-decreasing, from exactly 0 to exactly 1.

    Returns
    -------
    ndarray of shape (K + 1,)
    """
    if n_steps is not None and fractions is not None:
        raise ValueError("give either n_steps (a linear schedule) or fractions (the schedule itself), not both")
    if fractions is None:
        K = check_count(DEFAULT_AIS_STEPS if n_steps is None else n_steps, "n_steps", minimum=1)
        return np.linspace(0.0, 1.0, K + 1)
    try:
        arr = np.asarray(fractions, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"fractions must be a 1-D sequence of numbers from 0 to 1; got {fractions!r:.60}") from None
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"fractions must be a 1-D sequence of at least 2 numbers, from 0 to 1; got shape {arr.shape}")
    _check_finite(arr, "fractions")
    if arr[0] != 0.0:
        raise ValueError(f"fractions must start at 0 (the base distribution); got fractions[0] = {arr[0]:.6g}")
    if arr[-1] != 1.0:
        raise ValueError(f"fractions must end at 1 (the target distribution); got fractions[-1] = {arr[-1]:.6g}")
    down = np.flatnonzero(np.diff(arr) < 0)
    if down.size:
        k = int(down[0]) + 1
        raise ValueError(f"fractions must be non-decreasing; fractions[{k}] = {arr[k]:.6g} < fractions[{k - 1}] = {arr[k - 1]:.6g}")
    return arr
