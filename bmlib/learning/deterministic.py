"""The deterministic Boltzmann machine: clamped and free statistics from mean-field fixed points.

Peterson & Anderson (1987) replaced the two sampled phases of Boltzmann
learning by solutions of the naive mean-field equations (spins,
``beta = 1/T``)

    m_i = tanh(beta (sum_j W_ij m_j + b_i))

clamped phase (+)
    one solution per pattern, the visible units held at the pattern;
free phase (-)
    one solution with nothing clamped (for an input-output task, one per
    pattern with only its input units clamped);

and used ``<s_i s_j> ~ m_i m_j`` (``i != j``) in the learning rule. Every
statistic is then a deterministic function of the weights: no sampling
noise, and one solution costs a few sweeps of ``n`` updates instead of
many annealed sweeps of many chains. The price is a bias: a product
distribution has a single mode and no correlations, so the free phase
cannot hold several patterns at once the way the true distribution does.

Explained in the chapter "The deterministic Boltzmann machine".
"""
from __future__ import annotations

import numpy as np

from .._checks import check_bool, check_count, check_real, check_unit_indices
from .._random import as_generator
from ..meanfield.theories import naive_mean_field
from ._full import full_machine, in_model_layout, listed


def _check_factors(anneal):
    """Temperature factors of a mean-field annealing path: a non-empty sequence of finite numbers > 0."""
    try:
        factors = [float(f) for f in anneal]
    except TypeError:
        raise TypeError(f"anneal must be None or a sequence of temperature factors > 0; got {anneal!r}") from None
    if not factors or not all(np.isfinite(f) and f > 0 for f in factors):
        raise ValueError(f"anneal must hold at least one temperature factor, each finite and > 0; got {anneal!r}")
    return tuple(factors)


class MeanFieldStatistics:
    """Clamped and free statistics from naive mean field: the deterministic Boltzmann machine.

    A provider for :func:`~bmlib.train` (``statistics=MeanFieldStatistics()``,
    or ``statistics="mean_field"`` for the defaults). For each pattern of
    the batch it solves the mean-field equations with the visible units
    clamped (:func:`~bmlib.naive_mean_field`), and once more with nothing
    clamped; the moments of each solution are ``<s_i> = m_i`` and
    ``<s_i s_j> = m_i m_j`` for ``i != j`` (:meth:`~bmlib.MeanFieldResult.moments`).

    Parameters
    ----------
    linear_response : bool
        Add the linear-response covariance to ``m_i m_j`` (Kappen & Rodriguez
        1998), more accurate at weak couplings. Default False: the naive
        statistics of Peterson & Anderson (1987).
    anneal : sequence of float, optional
        Mean-field annealing: solve first at ``anneal[0] * T``, then at each
        following factor times ``T``, each from the previous solution, and
        finally at ``T``, e.g. ``(4, 2, 1.5)``. It follows the solution that
        is unique at high temperature down to ``T``. Peterson & Anderson
        lower ``T`` while iterating their equations; these factors are ours,
        not their schedule. None (default): solve at ``T`` directly.
    n_starts : int
        Starts per solution without annealing, >= 1. Default 1: small random
        means near ``m = 0`` (spins), the high-temperature solution, from
        which the iteration settles into one fixed point. With more starts
        (all +, all -, random signs; see :func:`~bmlib.naive_mean_field`) the
        fixed point with the largest Gibbs-Bogoliubov bound on ``log Z`` is
        kept, at a cost of one solution per start. With annealing: one start.
    tol : float
        Convergence threshold on the residual of the equations, > 0. Default
        1e-6, far below the noise of any sampled statistics.
    max_iter : int
        Sweeps per solution at most, >= 1.
    inputs : sequence of int, optional
        Visible units that are inputs of an input-output task: clamped to
        each pattern in the free phase too (one solution per pattern), so that
        learning fits the other visible units given the inputs (the
        ``log_likelihood`` that :func:`~bmlib.train` records stays the joint
        one). None (default):
        one free solution with nothing clamped. A single product distribution
        has one mode, so it cannot stand for a free phase that should hold
        several patterns at once (the encoder's four); with the inputs
        clamped, each free solution has only one pattern to hold.

    Attributes
    ----------
    n_updates : int
        Single-unit updates done by all calls so far (sweeps times free
        units, every start and every temperature counted): the cost, in the
        same currency as :attr:`AnnealedStatistics.n_updates`.

    Notes
    -----
    A machine without hidden units needs no equations in the clamped phase:
    all its units are clamped, and the statistics are those of the patterns,
    exactly. A solution that does not converge within ``max_iter`` sweeps
    issues a :class:`~bmlib.ConvergenceWarning` and is used as it is.

    Explained in the chapter "The deterministic Boltzmann machine".

    Examples
    --------
    For weak couplings mean field is close to the exact statistics:

    >>> import numpy as np
    >>> import bmlib as bm
    >>> machine = bm.BoltzmannMachine(3, 1, init_scale=0.1, rng=0)
    >>> data = [[1, 1, -1], [1, -1, -1]]
    >>> (mean_c, second_c), (mean_f, second_f) = bm.MeanFieldStatistics()(machine, data)
    >>> (exact_mean_c, _), (exact_mean_f, _) = bm.exact_statistics(machine, data)
    >>> bool(np.abs(mean_c - exact_mean_c).max() < 1e-3), bool(np.abs(mean_f - exact_mean_f).max() < 1e-3)
    (True, True)
    """

    def __init__(self, linear_response=False, anneal=None, n_starts=1, tol=1e-6, max_iter=1000, inputs=None):
        self.linear_response = check_bool(linear_response, "linear_response")
        self.anneal = None if anneal is None else _check_factors(anneal)
        self.n_starts = check_count(n_starts, "n_starts", minimum=1)
        self.tol = check_real(tol, "tol", positive=True)
        self.max_iter = check_count(max_iter, "max_iter", minimum=1)
        self.inputs = None if inputs is None else check_unit_indices(inputs, None, "inputs")
        self.n_updates = 0

    def __repr__(self):
        return (f"MeanFieldStatistics(linear_response={self.linear_response}, anneal={self.anneal}, "
                f"n_starts={self.n_starts}, tol={self.tol!r}, max_iter={self.max_iter}, inputs={listed(self.inputs)})")

    def _solve(self, machine, rng, clamped=None, values=None):
        """The mean-field solution at the machine's T (annealed to it if asked)."""
        W, b, T, units = machine.W, machine.b, machine.T, machine.units
        kwargs = {"clamped": clamped, "values": values, "tol": self.tol, "max_iter": self.max_iter, "rng": rng}
        n_free = machine.n_units - (0 if clamped is None else len(clamped))
        if self.anneal is None:
            result = naive_mean_field(W, b, T, units, n_starts=self.n_starts, **kwargs)
            self.n_updates += result.total_iterations * n_free
            return result
        result = naive_mean_field(W, b, self.anneal[0] * T, units, n_starts=1, **kwargs)
        self.n_updates += result.total_iterations * n_free
        for factor in self.anneal[1:] + (1.0,):
            result = naive_mean_field(W, b, factor * T, units, initial=result.m, **kwargs)
            self.n_updates += result.total_iterations * n_free
        return result

    def __call__(self, model, batch, rng=None):
        machine = full_machine(model, "MeanFieldStatistics")
        batch = model._check_data(batch, "batch")
        gen = as_generator(rng)
        if machine.n_hidden == 0:
            clamped = batch.mean(axis=0), batch.T @ batch / len(batch)
        else:
            clamped = self._average([self._solve(machine, gen, machine.visible, v) for v in batch])
        if self.inputs is None:
            free = self._solve(machine, gen).moments(self.linear_response)
        else:
            inputs = check_unit_indices(self.inputs, machine.n_visible, "inputs (visible units)")
            free = self._average([self._solve(machine, gen, inputs, v[inputs]) for v in batch])
        return in_model_layout(model, *clamped), in_model_layout(model, *free)

    def _average(self, results):
        """Moments averaged over several solutions (one per pattern)."""
        moments = [result.moments(self.linear_response) for result in results]
        return np.mean([m for m, _ in moments], axis=0), np.mean([s for _, s in moments], axis=0)
