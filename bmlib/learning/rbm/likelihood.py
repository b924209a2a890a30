"""An RBM's exact likelihood: log Z, log p(v) and the free-phase moments, by summing out one layer.

Summing out the hidden units gives the free energy ``F(v)``, and
``p(v) = exp(-F(v)/T) / Z``; ``Z`` itself needs an enumeration of the
*smaller* layer only (:func:`~bmlib.rbm_log_partition`). These methods also
fill in missing pixels exactly (:meth:`~bmlib.RBM.complete`) and score a
model without ``Z`` (the pseudo-log-likelihood). :class:`ExactLikelihood`
gives :class:`~bmlib.RBM` these methods.
"""
from __future__ import annotations

import numpy as np

from ..._checks import LEVELS, check_exact_size, check_indices
from ..._numerics import unit_mean
from ..._threads import thin_blas
from ...models.states import states_of_index as _states_of_index
from . import exact as _exact  # its _BLOCK_ENTRIES is read at each call: one constant for every block
from .exact import _layer_blocks, _log_unit_sum, rbm_log_partition

#: Largest number of missing units :meth:`RBM.complete` enumerates the fillings of.
_MAX_MISSING = 20


class ExactLikelihood:
    """The exact methods of :class:`~bmlib.RBM` (a base class of it, not used alone)."""

    def _free_moments(self):
        """Exact free-phase moments by summing over the smaller layer in blocks: (log Z, <v>, <h>, <v h^T>).

        The enumerated layer ``a`` (states ``S``) and the other layer ``o``
        enter as ``log w(S) = S . b_a / T + sum_o log sum_{s_o} exp(s_o f_o / T)``
        with the field ``f = S C + b_o`` on the other layer.
        """
        by_hidden = self.n_hidden <= self.n_visible
        n_a = min(self.n_hidden, self.n_visible)
        check_exact_size(n_a, "exact RBM enumeration of the smaller layer")
        C, b_a, b_o = (self.W.T, self.b_hidden, self.b_visible) if by_hidden else (self.W, self.b_visible,
                                                                                   self.b_hidden)
        block = max(1, _exact._BLOCK_ENTRIES // max(C.shape[1], n_a))
        shift, sums = -np.inf, None
        for S in _layer_blocks(n_a, self.units, block):
            field = S @ C + b_o
            logw = S @ b_a / self.T + _log_unit_sum(field, self.T, self.units).sum(axis=1)
            top = float(logw.max())
            if top > shift:  # rescale what was summed so far to the new running maximum
                sums = None if sums is None else [x * np.exp(shift - top) for x in sums]
                shift = top
            w = np.exp(logw - shift)
            m_o = unit_mean(field, self.T, self.units)
            part = [w.sum(), w @ S, w @ m_o, S.T @ (w[:, None] * m_o)]
            sums = part if sums is None else [x + y for x, y in zip(sums, part)]
        log_z = shift + float(np.log(sums[0]))
        mean_a, mean_o, cross = (x / sums[0] for x in sums[1:])
        if by_hidden:
            return log_z, mean_o, mean_a, cross.T
        return log_z, mean_a, mean_o, cross

    def complete(self, v, missing):
        """Exact conditional distribution of some visible units given the others (inpainting).

        Every way of filling the ``missing`` units is scored by the free
        energy of the whole pattern, ``p(fill | rest) ~ exp(-F(v_fill) / T)``:
        exact, and cheap for a few missing units (``2**k`` patterns).

        Parameters
        ----------
        v : array_like of shape (n_visible,)
            A pattern in the model's units; the values at ``missing`` are ignored.
        missing : sequence of int
            Indices of the unknown visible units, distinct, at most 20.

        Returns
        -------
        patterns : ndarray of shape (2**k, n_visible), dtype int8
            ``v`` with every filling of the missing units, in
            :func:`~bmlib.all_states` order of those units.
        p : ndarray of shape (2**k,)
            Their conditional probabilities (sum 1); the most probable
            completion is ``patterns[np.argmax(p)]``.

        Notes
        -----
        Explained in the chapter "Restricted Boltzmann machines".

        Examples
        --------
        Two visible bits that the hidden unit ties together: knowing the first
        is on makes the second likely on too.

        >>> import bmlib as bm
        >>> rbm = bm.RBM(2, 1, W=[[3.0], [3.0]], b_hidden=[-3.0], units="bits")
        >>> patterns, p = rbm.complete([1, 0], missing=[1])
        >>> patterns.tolist(), p.round(3).tolist()   # (1 + e**0) : (1 + e**3), free energies summed over h
        ([[1, 0], [1, 1]], [0.087, 0.913])
        """
        self._check_parameters()
        if np.ndim(v) != 1:
            raise ValueError(f"v must be one pattern of shape ({self.n_visible},); got shape {np.shape(v)}")
        v = self._check_data(v, "v")[0]
        index = check_indices(missing, self.n_visible, "missing")
        if index.size > _MAX_MISSING:
            raise ValueError(f"missing must name at most {_MAX_MISSING} units (2**k completions are enumerated); "
                             f"got {index.size}")
        low = LEVELS[self.units][0]
        patterns = np.repeat(v[None, :].astype(np.int8), 2**index.size, axis=0)
        patterns[:, index] = _states_of_index(np.arange(2**index.size), index.size, low=low)
        log_w = -self._free_energy(patterns.astype(float)) / self.T
        w = np.exp(log_w - log_w.max())
        return patterns, w / w.sum()

    @thin_blas
    def log_partition(self):
        """Exact ``log Z``: the smaller layer enumerated, the other summed analytically.

        Returns
        -------
        float

        Examples
        --------
        >>> rbm = bm.RBM(2, 1, W=[[2.0], [-1.0]], units="bits")
        >>> round(rbm.log_partition(), 4)
        2.7392
        """
        self._check_parameters()
        return self._log_partition()

    @thin_blas  # as log_partition, for log_probability and log_likelihood, which call this one
    def _log_partition(self):
        # One owner of the exact RBM log Z (it also handles T -> 0 and huge fields).
        return rbm_log_partition(self.W, self.b_visible, self.b_hidden, self.T, self.units)

    def log_probability(self, v):
        """Exact ``log p(v) = -F(v)/T - log Z`` of visible patterns; float or shape (P,)."""
        self._check_parameters()
        log_p = self._log_probability(self._check_data(v, "v"))
        return float(log_p[0]) if np.ndim(v) == 1 else log_p

    def _log_probability(self, V):
        return -self._free_energy(V) / self.T - self._log_partition()

    @thin_blas
    def log_likelihood(self, data):
        """Exact mean log-likelihood of the data in nats per pattern (at most 0).

        Parameters
        ----------
        data : array_like of shape (P, n_visible)

        Returns
        -------
        float
            ``-log P`` is the best possible value for P distinct patterns.

        Examples
        --------
        >>> rbm = bm.RBM(2, 1, W=[[2.0], [-1.0]], units="bits")
        >>> round(rbm.log_likelihood([[1, 0]]), 4)  # -F/T - log Z = 2.1269 - 2.7392
        -0.6123
        """
        self._check_parameters()
        return float(np.mean(self._log_probability(self._check_data(data))))

    @thin_blas
    def pseudo_log_likelihood(self, data):
        """Mean over patterns of ``sum_i log p(v_i | v_others)``; needs no ``Z``.

        ``p(v_i | v_others) = 1 / (1 + exp((F(v) - F(v with i flipped)) / T))``.
        Unlike scikit-learn's ``score_samples`` (one random unit per pattern,
        times ``n_visible``), every unit is flipped, so it is deterministic.
        It is the estimate :func:`~bmlib.train` records when the exact
        likelihood is out of reach.

        Parameters
        ----------
        data : array_like of shape (P, n_visible)

        Returns
        -------
        float

        Examples
        --------
        >>> rbm = bm.RBM(2, 1, W=[[2.0], [-1.0]], units="bits")
        >>> round(rbm.pseudo_log_likelihood([[1, 0]]), 4)
        -0.5807
        """
        self._check_parameters()
        V = self._check_data(data)
        n_v = self.n_visible
        delta = (-V if self.units == "spins" else 1.0 - V) - V  # change of each unit when flipped
        rows = max(1, _exact._BLOCK_ENTRIES // (n_v * self.n_hidden))
        total = 0.0
        for start in range(0, len(V), rows):
            Vb, Db = V[start : start + rows], delta[start : start + rows]
            field = Vb @ self.W + self.b_hidden  # (B, n_h); flipping unit i adds delta_i W[i]
            flipped = field[:, None, :] + Db[:, :, None] * self.W[None, :, :]
            a = Vb @ self.b_visible
            own = a / self.T + self._log_hidden_sum(field)  # -F(v)/T, shape (B,)
            other = (a[:, None] + Db * self.b_visible) / self.T + self._log_hidden_sum(flipped)  # -F(v^i)/T
            # log p(v_i | rest) = -log(1 + exp(-F(v^i)/T + F(v)/T)), as a stable logaddexp.
            total += float(-np.logaddexp(0.0, other - own[:, None]).sum())
        return total / len(V)
