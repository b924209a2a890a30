"""The restricted Boltzmann machine: visible and hidden layers, no connections within a layer.

    E(v, h) = -v^T W h - a^T v - c^T h,     p(v, h) = exp(-E(v, h)/T) / Z

with ``W`` of shape (n_visible, n_hidden), ``a = b_visible`` and ``c = b_hidden``.
Because no unit is connected to another of its own layer, each layer is
independent given the other: a whole layer is sampled at once (block Gibbs),
and the sum over one layer is a product of one-unit sums. Summing out the
hidden units gives the free energy,

    F(v) = -a^T v - T sum_j log sum_{h_j} exp(h_j (v^T W + c)_j / T),
    p(v) = exp(-F(v)/T) / Z,

so ``Z`` needs an enumeration of the *smaller* layer only.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._deprecation import renamed
from .._checks import (
    LEVELS,
    _as_real_array,
    _check_finite,
    check_bias,
    check_count,
    check_data,
    check_exact_size,
    check_indices,
    check_integer,
    check_means,
    check_memory,
    check_real,
    check_states,
    check_temperature,
    check_units,
)
from .._numerics import unit_mean
from .._random import as_generator
from .._threads import thin_blas
from ..rbm_exact import rbm_log_partition
from ..models.states import states_of_index as _states_of_index
from ..sampling.rules import RULES
from .machine import BoltzmannMachine, _as_model_fault, _checked_parameter

# States of the enumerated layer per block, times the width of the other layer:
# bounds the memory of one block (2**21 floats = 16 MiB).
_BLOCK_ENTRIES = 2**21
#: Largest number of missing units :meth:`RBM.complete` enumerates the fillings of.
_MAX_MISSING = 20


def _log_unit_sum(field, T, units):
    """log sum_{s in units} exp(s * field / T), unit by unit (a softplus for bits)."""
    z = field / T
    return np.logaddexp(0.0, z) if units == "bits" else np.logaddexp(z, -z)


def _layer_blocks(n, units, size):
    """All states of n units in all_states order, in blocks of at most ``size`` rows."""
    low, high = LEVELS[units]
    for start in range(0, 2**n, size):
        yield _states_of_index(np.arange(start, min(start + size, 2**n)), n, low, high, dtype=float)


class RBMGradient(NamedTuple):
    """Gradient of an :class:`RBM`'s log-likelihood: one array per parameter, named as it."""

    W: np.ndarray
    """shape (n_visible, n_hidden)"""
    b_visible: np.ndarray
    """shape (n_visible,)"""
    b_hidden: np.ndarray
    """shape (n_hidden,)"""


class RBM:
    """A restricted Boltzmann machine, with block Gibbs sampling.

    Parameters
    ----------
    n_visible : int
        Visible units, >= 1.
    n_hidden : int
        Hidden units, >= 1.
    W : array_like of shape (n_visible, n_hidden), optional
        Initial weights; random if omitted: Normal(0, ``init_scale**2``).
    b_visible : array_like of shape (n_visible,), optional
        Initial visible biases; zeros if omitted.
    b_hidden : array_like of shape (n_hidden,), optional
        Initial hidden biases; zeros if omitted.
    units : {"spins", "bits"}
        Spins by default, as everywhere in bmlib; most of the RBM literature
        (and the chapter "Hidden units") uses bits, ``units="bits"``.
    T : float
        Temperature, > 0.
    init_scale : float
        Standard deviation of the random initial weights, >= 0 (0.01 as in
        Hinton's practical guide, 2010).
    rng : None, int or numpy.random.Generator
        Source of the random initial weights.

    Attributes
    ----------
    W : ndarray of shape (n_visible, n_hidden)
    b_visible : ndarray of shape (n_visible,)
    b_hidden : ndarray of shape (n_hidden,)
    n_visible, n_hidden : int
    units : str
    T : float

    Notes
    -----
    The exact methods (:meth:`log_partition`, :meth:`log_likelihood`,
    :meth:`gradient`) enumerate the smaller layer, so they need
    ``min(n_visible, n_hidden) <= MAX_EXACT_UNITS``.
    Explained in the chapter "Hidden units" (faster statistics).

    The attributes may be changed after construction, replaced
    (``rbm.T = 0.5``, ``rbm.b_hidden = new``) or written in place
    (``rbm.W[0, 1] = 0.3``). Every method that uses the parameters, and
    :func:`~bmlib.train`, first checks the whole model by the constructor's
    rules (``T`` finite and > 0, ``units``, the shapes of ``W``,
    ``b_visible`` and ``b_hidden`` against ``n_visible`` and ``n_hidden``,
    finite entries) and refuses a broken model with a ValueError or
    TypeError that names the attribute, the rule and the bad value, the same
    message whichever method found it. The check is made before each use
    rather than on assignment because no assignment sees an array written in
    place, and because :func:`~bmlib.train` replaces the parameter arrays at
    every step, where a check on assignment would cost as much as a tenth of
    a small CD step. It is one pass over the parameters without a copy (as
    much as one Gibbs half-step of a single chain), once per call: not again
    at every Gibbs step of :meth:`sample` or every step of training.

    Examples
    --------
    >>> import bmlib as bm
    >>> rbm = bm.RBM(9, 6, units="bits", rng=0)
    >>> data = bm.bars_and_stripes(3, units="bits")
    >>> round(rbm.log_likelihood(data), 2)  # near -9 log 2 = -6.24 at the start
    -6.24
    >>> rbm.gibbs(data[:2], n_sweeps=3, rng=1).shape
    (2, 9)
    """

    #: The learned parameters, in the order of :meth:`gradient`'s fields.
    parameter_names = ("W", "b_visible", "b_hidden")
    _decayed = ("W",)

    def __init__(self, n_visible, n_hidden, *, W=None, b_visible=None, b_hidden=None, units="spins", T=1.0,
                 init_scale=0.01, rng=None):
        self.n_visible = check_count(n_visible, "n_visible", minimum=1)
        self.n_hidden = check_count(n_hidden, "n_hidden", minimum=1)
        self.units = check_units(units)
        self.T = check_temperature(T)
        shape = (self.n_visible, self.n_hidden)
        # W and the gradient's temporaries: a few n_visible x n_hidden matrices.
        check_memory(4 * 8 * self.n_visible * self.n_hidden,
                     f"the weights of {self.n_visible} x {self.n_hidden} units (n_visible x n_hidden)")
        if W is None:
            scale = check_real(init_scale, "init_scale", nonnegative=True)
            self.W = as_generator(rng).normal(0.0, scale, size=shape)
        else:
            self.W = _as_real_array(W, "W")
            if self.W.shape != shape:
                raise ValueError(f"W must have shape (n_visible, n_hidden) = {shape}; got shape {self.W.shape}")
            _check_finite(self.W, "W")
        self.b_visible = check_bias(b_visible, self.n_visible, "b_visible")
        self.b_hidden = check_bias(b_hidden, self.n_hidden, "b_hidden")

    def __repr__(self):
        return f"RBM(n_visible={self.n_visible}, n_hidden={self.n_hidden}, units={self.units!r}, T={self.T!r})"

    def copy(self):
        """An independent copy (same parameters, units and T)."""
        self._check_parameters()
        return RBM(self.n_visible, self.n_hidden, W=self.W.copy(), b_visible=self.b_visible.copy(),
                   b_hidden=self.b_hidden.copy(), units=self.units, T=self.T)

    def _check_data(self, data, name="data"):
        return check_data(data, self.n_visible, self.units, name)

    def _check_parameters(self):
        """Refuse a model whose attributes were changed into an invalid one (see Notes); O(parameters)."""
        _as_model_fault(self._check_attributes)

    def _check_attributes(self):
        check_temperature(self.T)
        check_units(self.units)
        n_v = check_integer(self.n_visible, "n_visible", minimum=1)
        n_h = check_integer(self.n_hidden, "n_hidden", minimum=1)
        _checked_parameter(self.W, "W", (n_v, n_h),
                           f"W must have shape (n_visible, n_hidden) = {(n_v, n_h)}; got shape {{}}")
        _checked_parameter(self.b_visible, "b_visible", (n_v,),
                           f"b_visible must have shape (n_visible,) = ({n_v},); got shape {{}}")
        _checked_parameter(self.b_hidden, "b_hidden", (n_h,),
                           f"b_hidden must have shape (n_hidden,) = ({n_h},); got shape {{}}")

    # --- the two conditionals and block Gibbs sampling ------------------------

    def _hidden_means(self, V):
        return unit_mean(V @ self.W + self.b_hidden, self.T, self.units)

    def _visible_means(self, H):
        return unit_mean(H @ self.W.T + self.b_visible, self.T, self.units)

    def hidden_means(self, v):
        """``E[h_j | v]`` for every hidden unit: ``sigmoid(x_j / T)`` (bits) or ``tanh(x_j / T)`` (spins).

        Here ``x = v^T W + b_hidden`` is the field on the hidden layer; given
        ``v`` the hidden units are independent.

        Parameters
        ----------
        v : array_like of shape (n_visible,) or (P, n_visible)
            Visible states, or their means (mean-field states).

        Returns
        -------
        ndarray of shape (n_hidden,) or (P, n_hidden)

        Examples
        --------
        >>> bm.RBM(2, 1, W=[[2.0], [-1.0]], units="bits").hidden_means([[0, 0], [1, 0]]).round(4)  # sigmoid(0), sigmoid(2)
        array([[0.5   ],
               [0.8808]])
        """
        self._check_parameters()
        out = self._hidden_means(check_means(v, self.n_visible, self.units, "v"))
        return out[0] if np.ndim(v) == 1 else out

    def visible_means(self, h):
        """``E[v_i | h]`` for every visible unit, the mirror image of :meth:`hidden_means`.

        Parameters
        ----------
        h : array_like of shape (n_hidden,) or (P, n_hidden)
            Hidden states, or their means.

        Returns
        -------
        ndarray of shape (n_visible,) or (P, n_visible)

        Examples
        --------
        >>> bm.RBM(2, 1, W=[[2.0], [-1.0]], units="spins").visible_means([1]).round(4)  # tanh(2), tanh(-1)
        array([ 0.964 , -0.7616])
        """
        self._check_parameters()
        out = self._visible_means(check_means(h, self.n_hidden, self.units, "h"))
        return out[0] if np.ndim(h) == 1 else out

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
        for _ in range(n_sweeps):
            v = self._sample_visible(self._sample_hidden(v, rng), rng)
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

    # --- energies and exact probabilities -----------------------------------

    def energy(self, v, h):
        """``E(v, h) = -v^T W h - a^T v - c^T h`` of one pair or a batch; float or shape (P,)."""
        self._check_parameters()
        V = self._check_data(v, "v")
        H = np.atleast_2d(check_states(h, self.n_hidden, self.units, "h"))
        if H.shape != (len(V), self.n_hidden):
            raise ValueError(f"v and h must hold the same number of states; got shapes {V.shape} and {H.shape}")
        E = -np.sum((V @ self.W) * H, axis=1) - V @ self.b_visible - H @ self.b_hidden
        return float(E[0]) if np.ndim(v) == 1 else E

    def _log_hidden_sum(self, field):
        """sum_j log sum_{h_j} exp(h_j field_j / T): the hidden units summed out, one at a time."""
        return _log_unit_sum(field, self.T, self.units).sum(axis=-1)

    def _free_energy(self, V):
        return -V @ self.b_visible - self.T * self._log_hidden_sum(V @ self.W + self.b_hidden)

    def free_energy(self, v):
        """Free energy ``F(v) = -T log sum_h exp(-E(v, h)/T)``, so that ``p(v) ∝ exp(-F(v)/T)``.

        Parameters
        ----------
        v : array_like of shape (n_visible,) or (P, n_visible)

        Returns
        -------
        float, or ndarray of shape (P,)

        Examples
        --------
        >>> rbm = bm.RBM(2, 1, W=[[2.0], [-1.0]], units="bits")
        >>> rbm.free_energy([[0, 0], [1, 0]]).round(4)  # -log 2, -log(1 + e**2)
        array([-0.6931, -2.1269])
        """
        self._check_parameters()
        F = self._free_energy(self._check_data(v, "v"))
        return float(F[0]) if np.ndim(v) == 1 else F

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
        block = max(1, _BLOCK_ENTRIES // max(C.shape[1], n_a))
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
        Explained in the chapter "Hidden units".

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
        rows = max(1, _BLOCK_ENTRIES // (n_v * self.n_hidden))
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

    # --- statistics and the gradient ----------------------------------------

    def _statistics_given_visible(self, V):
        """(mean of [v, E[h|v]], mean of v E[h|v]^T) over the rows of V."""
        H = self._hidden_means(V)
        # sum / len is what ndarray.mean computes, without its Python-level overhead (small batches).
        total = np.add.reduce
        return np.concatenate([total(V, axis=0), total(H, axis=0)]) / len(V), V.T @ H / len(V)

    def _exact_statistics(self, batch):
        _, mean_v, mean_h, vh = self._free_moments()
        return self._statistics_given_visible(batch), (np.concatenate([mean_v, mean_h]), vh)

    def _statistics_shapes(self):
        return (self.n_visible + self.n_hidden,), (self.n_visible, self.n_hidden)

    def _gradient(self, clamped, free):
        (mean_c, vh_c), (mean_f, vh_f) = clamped, free
        d_mean, d_vh = mean_c - mean_f, vh_c - vh_f
        if self.T != 1.0:  # x / 1.0 is x exactly: two NumPy calls less per step at T = 1
            d_mean, d_vh = d_mean / self.T, d_vh / self.T
        return {"W": d_vh, "b_visible": d_mean[: self.n_visible], "b_hidden": d_mean[self.n_visible :]}

    def gradient(self, data):
        """Exact gradient of :meth:`log_likelihood` (free phase by enumeration of the smaller layer).

        Parameters
        ----------
        data : array_like of shape (P, n_visible)

        Returns
        -------
        RBMGradient
            A named tuple with one array per parameter, named as the model's
            attributes: ``.W`` of shape (n_visible, n_hidden), ``(<v_i h_j>_data
            - <v_i h_j>_model) / T`` with ``h`` averaged given ``v`` in the data
            term, ``.b_visible`` (n_visible,) and ``.b_hidden`` (n_hidden,); it
            unpacks as ``dW, db_visible, db_hidden``.

        Examples
        --------
        >>> rbm = bm.RBM(2, 1, W=[[2.0], [-1.0]], units="bits")
        >>> dW, db_v, db_h = rbm.gradient([[1, 0]])
        >>> dW.round(4).ravel(), db_v.round(4), db_h.round(4)
        (array([ 0.2277, -0.1994]), array([ 0.2176, -0.3287]), array([0.1393]))
        """
        self._check_parameters()
        return RBMGradient(**self._gradient(*self._exact_statistics(self._check_data(data))))

    def to_boltzmann_machine(self):
        """The same model as a :class:`BoltzmannMachine` with a bipartite mask.

        Returns
        -------
        BoltzmannMachine
            Visible units first; ``W_full = [[0, W], [W^T, 0]]``, ``b = [b_visible, b_hidden]``.

        Examples
        --------
        >>> rbm = bm.RBM(2, 1, W=[[2.0], [-1.0]], units="bits")
        >>> full = rbm.to_boltzmann_machine()
        >>> full.W
        array([[ 0.,  0.,  2.],
               [ 0.,  0., -1.],
               [ 2., -1.,  0.]])
        >>> round(full.log_likelihood([[1, 0]]), 4)  # the same model
        -0.6123
        """
        self._check_parameters()
        n_v, n = self.n_visible, self.n_visible + self.n_hidden
        W = np.zeros((n, n))
        W[:n_v, n_v:], W[n_v:, :n_v] = self.W, self.W.T
        mask = np.zeros((n, n), dtype=bool)
        mask[:n_v, n_v:] = mask[n_v:, :n_v] = True
        return BoltzmannMachine(n_v, self.n_hidden, mask=mask, W=W, b=np.concatenate([self.b_visible, self.b_hidden]),
                                units=self.units, T=self.T)
