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

The class is written in three modules, one idea each: its parameters,
conditionals, energies and gradient here; its sampler in ``block_gibbs.py``;
its exact likelihood in ``likelihood.py``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..._checks import (
    _as_real_array,
    _check_finite,
    check_bias,
    check_count,
    check_data,
    check_integer,
    check_means,
    check_memory,
    check_real,
    check_states,
    check_temperature,
    check_units,
)
from ..._numerics import unit_mean
from ..._random import as_generator
from ..machine import BoltzmannMachine, _as_model_fault, _checked_parameter
from .block_gibbs import BlockGibbs
from .exact import _log_unit_sum
from .likelihood import ExactLikelihood


class RBMGradient(NamedTuple):
    """Gradient of an :class:`RBM`'s log-likelihood: one array per parameter, named as it."""

    W: np.ndarray
    """shape (n_visible, n_hidden)"""
    b_visible: np.ndarray
    """shape (n_visible,)"""
    b_hidden: np.ndarray
    """shape (n_hidden,)"""


class RBM(BlockGibbs, ExactLikelihood):
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
        (and the chapter "Restricted Boltzmann machines") uses bits, ``units="bits"``.
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
    Explained in the chapter "Restricted Boltzmann machines".

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
