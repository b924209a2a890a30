"""Two-sided checks on a sampling estimate of ``log Z``: forward and reverse AIS.

Forward AIS (:func:`bmlib.log_z_ais`) starts from a product distribution and
anneals to ``p``; its ``log_z`` is a *stochastic lower bound*: its expectation
is at most ``log Z`` (Jensen), and it exceeds ``log Z + t`` with probability
at most ``e^{-t}`` (Markov). Reverse AIS runs the same path backwards,
starting from exact samples of ``p``; the mean of its weights estimates
``Z_0 / Z``, so ``log Z_0`` minus its log-mean-exp is a stochastic *upper*
bound. Together they sandwich ``log Z`` (bidirectional Monte Carlo, Grosse,
Ghahramani and Adams 2015; reverse AIS, Burda, Grosse and Salakhutdinov
2015). An AIS run that misses a mode is short on the forward side and
silent about it; the reverse runs start in every mode in proportion to its
probability, so the two bounds stay far apart until the path is good.

Exact samples of ``p`` come from :func:`bmlib.exact_samples` (variable
elimination), so the reverse half runs wherever ``bm.log_partition`` is
exact: small models, and sparse ones such as lattices. Explained in the
chapter "The normalizing constant Z".
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._checks import LEVELS, check_bool, check_count, check_model, check_temperature, check_units
from .._importance import ais_schedule, annealed_log_weights, weights_summary
from .._random import as_generator
from .._threads import thin_blas
from ..exact.samples import exact_samples
from ..sampling.couplings import DenseCouplings
from ..sampling.kernel import sweep_checked
from .sampled import log_z_ais


@dataclass(frozen=True)
class AISSandwich:
    """A stochastic lower and upper bound on ``log Z`` (see :func:`ais_sandwich`).

    Attributes
    ----------
    lower : float
        Forward AIS from the base distribution: ``log Z_0 + log mean(w)``.
    upper : float
        Reverse AIS from exact samples of ``p``: ``log Z_0 - log mean(w_rev)``.
    lower_error, upper_error : float
        Delta-method standard errors of the two, from their own weights.
    n_runs : int
        Runs in each direction.
    n_steps : int
        Steps ``K`` of the schedule, the same in both directions.
    cost : int
        Sweeps spent, both directions together: ``2 * n_runs * (K - 1)``.
    """

    lower: float
    upper: float
    lower_error: float
    upper_error: float
    n_runs: int
    n_steps: int
    cost: int

    @property
    def gap(self):
        """``upper - lower``: wide when either direction failed; near 0 when both agree."""
        return self.upper - self.lower

    def __repr__(self):
        return (f"AISSandwich({self.lower:.6g} <= log Z <= {self.upper:.6g}, gap {self.gap:.3g}; "
                f"{self.n_runs} runs of {self.n_steps} steps each way)")


@thin_blas
def ais_sandwich(W, b=None, T=1.0, units="spins", *, n_runs=100, n_steps=None, fractions=None,
                 base="uniform", progress=False, rng=None):
    """Forward and reverse AIS: a stochastic lower and upper bound on ``log Z``.

    The forward half is :func:`~bmlib.log_z_ais` with the same arguments.
    The reverse half draws ``n_runs`` exact samples of ``p`` and runs the
    schedule backwards, ``f_K = 1, ..., f_0 = 0``: at each step it adds
    ``log p*_{f_{k-1}}(s) - log p*_{f_k}(s)`` to its log weight and then moves
    ``s`` by one heat-bath sweep that leaves ``p_{f_{k-1}}`` invariant. The
    mean of those weights is an unbiased estimate of ``Z_0 / Z``, so
    ``upper = log Z_0 - log mean(w_rev)`` is at least ``log Z`` on average
    (Burda et al. 2015; Grosse et al. 2015). The true ``log Z`` lies between
    the two with high probability; a gap much wider than the error bars
    means the path is too short or misses a mode, whatever the forward error
    bar says.

    Parameters
    ----------
    W : array_like of shape (n, n)
    b : array_like of shape (n,), optional
    T : float
        Temperature, > 0.
    units : {"spins", "bits"}
    n_runs : int
        Runs in each direction, >= 2.
    n_steps : int, optional
        Steps ``K`` of a linear schedule, >= 2 (default 1000 if ``fractions``
        is not given).
    fractions : array_like of shape (K + 1,), optional
        The schedule itself, as in :func:`~bmlib.log_z_ais`.
    base : {"uniform", "mean_field"} or array_like of shape (n,)
        The product distribution at ``f = 0``, as in :func:`~bmlib.log_z_ais`;
        both directions use the same one.
    progress : bool or None
        A progress bar over the annealing steps, one bar for each half: True
        shows one at once, None after two seconds of work (as
        :func:`~bmlib.train`), False (the default) none. Off by default
        because this also runs inside loops, widgets and the book's chapters,
        where a bar that shows only on a slow machine would change what is
        printed.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    AISSandwich
        ``lower``, ``upper``, their error bars, ``gap`` and ``cost``.

    Raises
    ------
    ValueError
        If an argument breaks its rule (the message names it), or if exact
        samples cannot be drawn: ``p`` must be small or sparse enough for
        :func:`~bmlib.log_partition` to be exact (the message says why not).

    Notes
    -----
    Both bounds are *stochastic*: each is a random number whose expectation
    lies on its side of ``log Z``, and which crosses ``log Z`` by more than
    ``t`` with probability at most ``e^{-t}``. Exact samples are drawn by
    variable elimination, which costs about as much as ``log Z`` itself: the
    check is for models where the truth can be had, to learn how long a
    schedule a family of models needs before trusting forward AIS alone on
    larger ones. Explained in the chapter "The normalizing constant Z".

    Examples
    --------
    >>> import bmlib as bm

    The 4 x 4 torus at T = 1: a short schedule leaves a gap, a longer one
    closes it (the two may then cross by their noise, as here):

    >>> W = bm.square_lattice_couplings(4)
    >>> round(bm.log_partition(W, T=1.0), 1)
    32.7
    >>> for K in (10, 300):
    ...     s = bm.ais_sandwich(W, T=1.0, n_runs=50, n_steps=K, rng=2)
    ...     print(K, round(s.lower, 1), round(s.upper, 1))
    10 32.9 34.4
    300 32.8 32.7
    """
    checked_W, checked_b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    n_runs = check_count(n_runs, "n_runs", minimum=2)
    progress = check_bool(progress, "progress", allow_none=True)
    if fractions is None and n_steps is not None:
        n_steps = check_count(n_steps, "n_steps", minimum=2)
    schedule = ais_schedule(n_steps, fractions)
    K = schedule.size - 1
    if K < 2:
        raise ValueError(f"fractions must have at least 3 entries (2 steps) for the reverse runs to move; got {K + 1}")
    gen = as_generator(rng)
    forward = log_z_ais(W, b, T, units, n_runs=n_runs, fractions=schedule, base=base, progress=progress, rng=gen)
    means = np.asarray(forward.details["base_means"], dtype=float)
    low, high = LEVELS[units]
    p_high = (means - low) / (high - low)
    a = (np.log(p_high) - np.log1p(-p_high)) / (high - low)
    log_z0 = float(np.logaddexp(a * high, a * low).sum())
    W, b = checked_W, checked_b
    S = exact_samples(W, b, T, units, n_samples=n_runs, rng=gen)

    def log_ratio(S, g_old, g_new):
        # g = 1 - f: log p*_f(s) = f h(s) + a^T s with h(s) = -E(s)/T - a^T s, so the step adds (g_old - g_new) h(s).
        X = S.astype(float)
        return (g_old - g_new) * ((0.5 * np.sum((X @ W) * X, axis=1) + X @ b) / T - X @ a)

    def move(S, g):
        f = 1.0 - g
        return sweep_checked(DenseCouplings._trusted(f * W, f * b + (1.0 - f) * T * a), S, T, units, "sequential", gen)

    reverse_schedule = 1.0 - schedule[::-1]
    log_w_rev, _ = annealed_log_weights(reverse_schedule, S, log_ratio, move, progress)
    log_mean_rev, upper_error, _ = weights_summary(log_w_rev)
    return AISSandwich(
        lower=forward.log_z,
        upper=log_z0 - log_mean_rev,
        lower_error=forward.error,
        upper_error=upper_error if not math.isnan(upper_error) else float("nan"),
        n_runs=n_runs,
        n_steps=K,
        cost=2 * n_runs * (K - 1),
    )
