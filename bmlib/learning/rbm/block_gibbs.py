"""Block Gibbs sampling of an RBM: a whole layer at once, given the other.

No unit of an RBM is connected to another of its own layer, so given the
visible layer the hidden units are independent, and the other way round.
One round ``v -> h -> v'`` therefore updates every unit with two draws of a
layer, each the heat-bath rule's layer form (``layer`` and ``draw`` in
:mod:`bmlib.sampling.rules`), looked up in ``RULES`` at each call, so that
the rule there is the rule that runs. :class:`BlockGibbs` gives
:class:`~bmlib.RBM` these methods; the model's parameters and exact
quantities live in ``model.py`` and ``likelihood.py``.
"""
from __future__ import annotations

import numpy as np

from ..._checks import check_count, check_memory
from ..._deprecation import renamed
from ..._random import as_generator
from ..._threads import thin_blas
from ...sampling.rules import RULES


class BlockGibbs:
    """The sampling methods of :class:`~bmlib.RBM` (a base class of it, not used alone)."""

    # Block Gibbs: a layer's units are independent given the other layer, so the heat-bath rule
    # updates a whole layer at once, in its layer form (bmlib/sampling/rules.py), looked up at
    # each call so that the rule there is the rule that runs.
    def _sample_layer(self, mean, rng):
        return RULES["heat_bath"].draw(mean, self.units, rng)

    def _sample_hidden(self, V, rng):
        return RULES["heat_bath"].layer(V @ self.W + self.b_hidden, self.T, self.units, rng)

    def _sample_visible(self, H, rng):
        return RULES["heat_bath"].layer(H @ self.W.T + self.b_visible, self.T, self.units, rng)

    def _random_states(self, n, rng):
        # Uniform visible states: every unit on with probability 1/2 (mean 1/2 for bits, 0 for spins).
        return self._sample_layer(np.full((n, self.n_visible), 0.5 if self.units == "bits" else 0.0), rng)

    def _gibbs_steps(self, v, n_sweeps, rng):
        # The rounds of CD, PCD and gibbs(): the rule and the parameters are looked up once per call
        # (a small batch's round is a few microseconds of arithmetic, and every Python call shows).
        layer = RULES["heat_bath"].layer
        W, b_visible, b_hidden, T, units = self.W, self.b_visible, self.b_hidden, self.T, self.units
        for _ in range(n_sweeps):
            h = layer(v @ W + b_hidden, T, units, rng)
            v = layer(h @ W.T + b_visible, T, units, rng)
        return v

    @renamed(steps="n_sweeps")
    @thin_blas
    def gibbs(self, v, n_sweeps=1, rng=None):
        """Run ``n_sweeps`` rounds of block Gibbs sampling ``v -> h -> v'`` from each row of ``v``.

        Parameters
        ----------
        v : array_like of shape (n_visible,) or (P, n_visible)
            Starting visible states, one chain per row.
        n_sweeps : int
            Number of full rounds (sample all hidden units, then all visible units).
        rng : None, int or numpy.random.Generator

        Returns
        -------
        v : ndarray of the shape of the input, dtype int8

        Examples
        --------
        >>> rbm = bm.RBM(2, 1, W=[[2.0], [-1.0]], units="bits")
        >>> rbm.gibbs([[1, 0], [0, 1]], n_sweeps=5, rng=0)
        array([[0, 0],
               [1, 0]], dtype=int8)
        """
        self._check_parameters()
        V = self._check_data(v, "v")
        n_sweeps = check_count(n_sweeps, "n_sweeps", minimum=0)
        out = self._gibbs_steps(V, n_sweeps, as_generator(rng)).astype(np.int8)
        return out[0] if np.ndim(v) == 1 else out

    @renamed(steps="n_sweeps")
    @thin_blas
    def gibbs_chain(self, v, n_sweeps, rng=None):
        """Every visible state of block Gibbs chains ``v -> h -> v' -> ...``, one per step.

        The same chains as :meth:`gibbs` with the same ``rng``, but all
        ``n_sweeps`` states are returned, to follow where a chain goes.

        Parameters
        ----------
        v : array_like of shape (n_visible,) or (P, n_visible)
            Starting visible states, one chain per row.
        n_sweeps : int
            Rounds, >= 1.
        rng : None, int or numpy.random.Generator

        Returns
        -------
        ndarray of shape (n_sweeps, n_visible) or (n_sweeps, P, n_visible), dtype int8
            The state after each round (the start not included).

        Examples
        --------
        >>> rbm = bm.RBM(2, 1, W=[[2.0], [-1.0]], units="bits")
        >>> chain = rbm.gibbs_chain([1, 0], n_sweeps=5, rng=0)
        >>> chain.shape, bool((chain[-1] == rbm.gibbs([1, 0], n_sweeps=5, rng=0)).all())
        ((5, 2), True)
        """
        self._check_parameters()
        V = self._check_data(v, "v")
        n_sweeps = check_count(n_sweeps, "n_sweeps", minimum=1)
        check_memory(1.0 * n_sweeps * V.size,
                     f"{n_sweeps} states of {V.shape[0]} chains of {self.n_visible} units (n_sweeps)")
        gen = as_generator(rng)
        out = np.empty((n_sweeps, *V.shape), dtype=np.int8)
        for t in range(n_sweeps):
            V = self._gibbs_steps(V, 1, gen)
            out[t] = V
        return out[:, 0] if np.ndim(v) == 1 else out

    @renamed(steps="n_sweeps")
    @thin_blas
    def sample(self, n_samples, n_sweeps=1000, rng=None):
        """Draw visible patterns by block Gibbs sampling from uniformly random starts.

        Parameters
        ----------
        n_samples : int
            Independent chains; one pattern is returned from each.
        n_sweeps : int
            Gibbs rounds per chain (long enough to forget the start).
        rng : None, int or numpy.random.Generator

        Returns
        -------
        v : ndarray of shape (n_samples, n_visible), dtype int8

        Examples
        --------
        >>> rbm = bm.RBM(2, 1, W=[[2.0], [-1.0]], units="bits")
        >>> rbm.sample(3, n_sweeps=10, rng=0)
        array([[0, 0],
               [1, 0],
               [0, 0]], dtype=int8)
        """
        self._check_parameters()
        n_samples = check_count(n_samples, "n_samples", minimum=0)
        n_sweeps = check_count(n_sweeps, "n_sweeps", minimum=0)
        check_memory(2 * 8 * n_samples * (self.n_visible + self.n_hidden),
                     f"{n_samples} chains of {self.n_visible} + {self.n_hidden} units (n_samples)")
        gen = as_generator(rng)
        return self._gibbs_steps(self._random_states(n_samples, gen), n_sweeps, gen).astype(np.int8)

    def reconstruct(self, v):
        """Mean-field reconstruction ``E[v' | h = E[h | v]]``: one pass up and down with means.

        Parameters
        ----------
        v : array_like of shape (n_visible,) or (P, n_visible)

        Returns
        -------
        ndarray of the shape of ``v``, values in [0, 1] (bits) or [-1, 1] (spins)

        Examples
        --------
        >>> rbm = bm.RBM(2, 1, W=[[2.0], [-1.0]], units="bits")
        >>> rbm.reconstruct([1, 0]).round(4)
        array([0.8534, 0.293 ])
        """
        self._check_parameters()
        V = self._check_data(v, "v")
        out = self._visible_means(self._hidden_means(V))
        return out[0] if np.ndim(v) == 1 else out
