"""A Boltzmann machine with visible and hidden units and any symmetric connectivity.

Units ``0 .. n_visible - 1`` are visible, the remaining ``n_hidden`` are hidden,
and ``mask[i, j]`` says whether units ``i`` and ``j`` are connected. The
probability of a visible pattern sums over the hidden units:

    p(v) = Z(v) / Z,   Z(v) = sum_h exp(-E(v, h)/T),   Z = sum_s exp(-E(s)/T)

so ``log p(v) = log Z(v) - log Z`` (:func:`~bmlib.clamped_log_partition` and
:func:`~bmlib.log_partition`). Its gradient is the learning rule of Ackley,
Hinton & Sejnowski (1985), with ``<.>_clamped`` averaged over the data with
the visible units clamped and ``<.>_free`` over the machine running freely:

    dL/dW_ij = (<s_i s_j>_clamped - <s_i s_j>_free) / T   (connected i != j)
    dL/db_i  = (<s_i>_clamped     - <s_i>_free)     / T
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._checks import (
    _as_real_array,
    _check_finite,
    check_bias,
    check_bool,
    check_count,
    check_data,
    check_integer,
    check_mask,
    check_masked_weights,
    check_memory,
    check_real,
    check_temperature,
    check_units,
    check_weights,
)
from .._random import as_generator
from ..models.energy import energy, flip_energy_changes
from ..exact.enumeration import boltzmann_distribution, exact_moments, log_partition
from ..exact.clamped import clamped_log_partition, clamped_moments
from ..models.states import all_states


def _full_mask(n):
    return ~np.eye(n, dtype=bool)


def _checked_parameter(value, name, shape, shape_rule):
    """``value`` as a real array of ``shape`` with finite entries, else the ValueError/TypeError naming ``name``.

    A float ndarray (what the constructors and training store) is neither
    copied nor compared entry by entry: the sum of finite numbers is finite
    unless it overflows, and a NaN or an infinity makes it non-finite, so one
    reduction clears it and only a non-finite sum looks for the bad entry.
    ``shape_rule`` is the message for a wrong shape, with ``{}`` for the shape found.
    Call it under ``np.errstate(over="ignore", invalid="ignore")`` (the sum may overflow).
    """
    arr = value if isinstance(value, np.ndarray) and value.dtype.kind == "f" else _as_real_array(value, name)
    if arr.shape != shape:
        raise ValueError(shape_rule.format(arr.shape))
    if not math.isfinite(np.add.reduce(arr, axis=None)):
        _check_finite(arr, name)
    return arr


def _as_model_fault(check):
    """Run ``check()``; re-raise its ValueError/TypeError as a fault of the model's attribute it names."""
    try:
        with np.errstate(over="ignore", invalid="ignore"):  # for _checked_parameter's sums
            check()
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"the model's {exc}") from None


def encoder_mask(n_group, n_hidden, hidden_connected=True):
    """Connectivity of the n-m-n encoder network (Ackley, Hinton & Sejnowski 1985).

    Units ``0 .. n_group - 1`` are the first visible group, ``n_group ..
    2 n_group - 1`` the second, and the last ``n_hidden`` units are hidden.
    Each visible group is fully connected within itself and to every hidden
    unit; the two visible groups are not connected to each other, so what one
    group knows about the other must pass through the hidden units.

    Parameters
    ----------
    n_group : int
        Units per visible group (4 for the 4-2-4 encoder).
    n_hidden : int
        Hidden units (2 for the 4-2-4 encoder), >= 1.
    hidden_connected : bool
        Whether the hidden units are also connected to each other.

    Returns
    -------
    mask : ndarray of shape (2 n_group + n_hidden, 2 n_group + n_hidden), dtype bool
        Symmetric, False on the diagonal; pass it to :class:`BoltzmannMachine`.

    Notes
    -----
    Explained in the chapter "Hidden units".

    Examples
    --------
    >>> m = bm.encoder_mask(4, 2)
    >>> m.shape, bool(m[0, 1]), bool(m[0, 4]), bool(m[0, 8]), bool(m[8, 9])
    ((10, 10), True, False, True, True)
    >>> print(bm.encoder_mask(2, 1).astype(int))
    [[0 1 0 0 1]
     [1 0 0 0 1]
     [0 0 0 1 1]
     [0 0 1 0 1]
     [1 1 1 1 0]]
    """
    n_group = check_count(n_group, "n_group", minimum=1)
    n_hidden = check_count(n_hidden, "n_hidden", minimum=1)
    hidden_connected = check_bool(hidden_connected, "hidden_connected")
    g1, g2 = slice(0, n_group), slice(n_group, 2 * n_group)
    hidden = slice(2 * n_group, None)
    n = 2 * n_group + n_hidden
    check_memory(n * n, f"a connectivity mask of {n} x {n} units (2 n_group + n_hidden)")
    mask = np.zeros((n, n), dtype=bool)
    for group in (g1, g2):
        mask[group, group] = True
        mask[group, hidden] = mask[hidden, group] = True
    mask[hidden, hidden] = hidden_connected
    np.fill_diagonal(mask, False)
    return mask


class BoltzmannMachineGradient(NamedTuple):
    """Gradient of a :class:`BoltzmannMachine`'s log-likelihood: one array per parameter, named as it."""

    W: np.ndarray
    """shape (n_units, n_units)"""
    b: np.ndarray
    """shape (n_units,)"""


class BoltzmannMachine:
    """A Boltzmann machine over visible and hidden units, with a connectivity mask.

    ``E(s) = -1/2 s^T W s - b^T s`` over all ``n = n_visible + n_hidden``
    units, visible units first; ``W`` is symmetric, zero on the diagonal and
    zero wherever ``mask`` is False.

    Parameters
    ----------
    n_visible : int
        Visible units, >= 1.
    n_hidden : int
        Hidden units, >= 0.
    mask : array_like of bool, shape (n, n), optional
        True where two units are connected; symmetric with a False diagonal.
        Fully connected if omitted. See :func:`encoder_mask`.
    W : array_like of shape (n, n), optional
        Initial weights (zero where ``mask`` is False). Random if omitted:
        Normal(0, ``init_scale**2``) on every connection.
    b : array_like of shape (n,), optional
        Initial biases; zeros if omitted.
    units : {"spins", "bits"}
    T : float
        Temperature, > 0.
    init_scale : float, optional
        Standard deviation of the random initial weights, >= 0. Hidden units
        need nonzero weights to start: with ``W = 0`` they all receive the same
        gradient and never become different. The default is 0.1 for spins and
        0.5 for bits: a weight between bits moves a unit's field a quarter as
        much as between spins (``W_bits = 4 W_spins`` for the same model), and
        with 0.1 in bits a machine with hidden units stays at the symmetric
        start on 3-bit parity for thousands of epochs.
    rng : None, int or numpy.random.Generator
        Source of the random initial weights.

    Attributes
    ----------
    W : ndarray of shape (n, n)
    b : ndarray of shape (n,)
    mask : ndarray of shape (n, n), dtype bool
    n_visible, n_hidden : int
    units : str
    T : float

    Notes
    -----
    Explained in the chapters "The learning rule" and "Hidden units".

    The attributes may be changed after construction, replaced
    (``machine.T = 2.0``, ``machine.mask = new_mask``) or written in place
    (``machine.W[0, 1] = machine.W[1, 0] = 0.3``). Every method that uses
    the parameters, and :func:`~bmlib.train`, first checks the whole model
    by the constructor's rules (``T`` finite and > 0, ``units``, the shapes,
    a symmetric ``mask`` with a False diagonal, finite ``W`` and ``b``, ``W``
    symmetric and zero where ``mask`` is False) and refuses a broken model
    with a ValueError or TypeError that names the attribute, the rule and
    the bad value, the same message whichever method found it. The check is
    made before each use rather than on assignment because no assignment
    sees an array written in place, and because a mask and its weights are
    often changed one after the other, in either order, through a state
    that is invalid in between. It costs a few comparisons over the
    ``n x n`` parameters, without a copy in the usual case (a bool mask and
    an exactly symmetric ``W``, as the constructor and training keep them):
    about what a method spends reading the parameters, once per call.

    Examples
    --------
    >>> import bmlib as bm
    >>> machine = bm.BoltzmannMachine(3, n_hidden=1, rng=0)
    >>> machine.W.shape, machine.n_units
    ((4, 4), 4)
    >>> data = bm.parity_patterns(3, units="spins")
    >>> round(machine.log_likelihood(data), 3)  # near -3 log 2 = -2.079 for small weights
    -2.09
    """

    #: The learned parameters, in the order of :meth:`gradient`'s fields.
    parameter_names = ("W", "b")
    _decayed = ("W",)

    def __init__(self, n_visible, n_hidden=0, *, mask=None, W=None, b=None, units="spins", T=1.0,
                 init_scale=None, rng=None):
        self.n_visible = check_count(n_visible, "n_visible", minimum=1)
        self.n_hidden = check_count(n_hidden, "n_hidden", minimum=0)
        self.units = check_units(units)
        self.T = check_temperature(T)
        n = self.n_units
        # W, its mask, and the gradient's temporaries: a few n x n matrices.
        check_memory(4 * 8 * n * n, f"the weights of {n} units (n_visible + n_hidden)")
        self.mask = _full_mask(n) if mask is None else check_mask(mask, n)
        if W is None:
            if init_scale is None:
                init_scale = 0.1 if self.units == "spins" else 0.5
            self.W = self._random_weights(check_real(init_scale, "init_scale", nonnegative=True), as_generator(rng))
        else:
            W = check_weights(W)
            if W.shape != (n, n):
                raise ValueError(f"W must have shape ({n}, {n}) for {n} units; got shape {W.shape}")
            self.W = check_masked_weights(W, self.mask)
        self.b = check_bias(b, n)

    @property
    def n_units(self):
        """Number of units, visible and hidden."""
        return self.n_visible + self.n_hidden

    @property
    def visible(self):
        """Indices of the visible units, ``0 .. n_visible - 1``."""
        return np.arange(self.n_visible)

    def _random_weights(self, scale, rng):
        n = self.n_units
        upper = np.triu(rng.normal(0.0, scale, size=(n, n)), 1)
        return (upper + upper.T) * self.mask

    def _check_data(self, data, name="data"):
        return check_data(data, self.n_visible, self.units, name)

    def _check_parameters(self):
        """Refuse a model whose attributes were changed into an invalid one (see Notes); O(n_units**2)."""
        _as_model_fault(self._check_attributes)

    def _check_attributes(self):
        check_temperature(self.T)
        check_units(self.units)
        check_integer(self.n_visible, "n_visible", minimum=1)
        check_integer(self.n_hidden, "n_hidden", minimum=0)
        n = self.n_units
        mask = self.mask
        # The common case (a bool mask, an exactly symmetric W, as the constructor and training keep them) is
        # cleared by comparisons without copies; anything else goes to the full check, which names the fault.
        if not (isinstance(mask, np.ndarray) and mask.dtype == bool and mask.shape == (n, n)
                and np.array_equal(mask, mask.T) and not mask.diagonal().any()):
            mask = check_mask(mask, n)
        W = _checked_parameter(self.W, "W", (n, n), f"W must have shape ({n}, {n}) for {n} units; got shape {{}}")
        if not np.array_equal(W, W.T) or W.diagonal().any():
            check_weights(W)  # symmetric up to round-off, zero diagonal
        if ((W != 0) & ~mask).any():
            check_masked_weights(W, mask)
        _checked_parameter(self.b, "b", (n,), f"b must have shape ({n},) to match W of shape ({n}, {n}); got shape {{}}")

    def __repr__(self):
        return (
            f"BoltzmannMachine(n_visible={self.n_visible}, n_hidden={self.n_hidden}, "
            f"units={self.units!r}, T={self.T!r}, connections={int(self.mask.sum()) // 2})"
        )

    def copy(self):
        """An independent copy (same parameters, mask, units and T)."""
        self._check_parameters()
        return BoltzmannMachine(self.n_visible, self.n_hidden, mask=self.mask.copy(), W=self.W.copy(),
                                b=self.b.copy(), units=self.units, T=self.T)

    def energy(self, s):
        """Energy of full states ``s`` of shape (n_units,) or (..., n_units); see :func:`~bmlib.energy`."""
        self._check_parameters()
        return energy(s, self.W, self.b, self.units)

    def log_partition(self):
        """Exact ``log Z`` over all ``2**n_units`` states (:func:`~bmlib.log_partition`)."""
        self._check_parameters()
        return self._log_partition()

    def _log_partition(self):
        return log_partition(self.W, self.b, self.T, self.units)

    def log_probability(self, v):
        """Exact ``log p(v)`` of visible patterns, the hidden units summed out.

        Parameters
        ----------
        v : array_like of shape (n_visible,) or (P, n_visible)

        Returns
        -------
        float, or ndarray of shape (P,)

        Examples
        --------
        >>> machine = bm.BoltzmannMachine(2, W=[[0, 1], [1, 0]])
        >>> machine.log_probability([[1, 1], [1, -1]]).round(4)  # aligned spins are e**2 times likelier
        array([-0.8201, -2.8201])
        """
        self._check_parameters()
        log_p = self._log_probability(self._check_data(v, "v"))
        return float(log_p[0]) if np.ndim(v) == 1 else log_p

    def _log_probability(self, V):
        log_z_clamped = clamped_log_partition(self.W, self.b, self.T, self.units, clamped=self.visible, values=V)
        return log_z_clamped - self._log_partition()

    def log_likelihood(self, data):
        """Exact mean log-likelihood ``L = (1/P) sum_mu log p(v_mu)`` of the data, in nats per pattern.

        Parameters
        ----------
        data : array_like of shape (P, n_visible)

        Returns
        -------
        float
            At most 0; ``-log P`` for P distinct patterns learned perfectly.

        Examples
        --------
        >>> machine = bm.BoltzmannMachine(2, W=[[0, 1], [1, 0]])
        >>> round(machine.log_likelihood([[1, 1], [-1, -1]]), 4)
        -0.8201
        """
        self._check_parameters()
        return float(np.mean(self._log_probability(self._check_data(data))))

    def pseudo_log_likelihood(self, data):
        """Mean over patterns of ``sum_i log p(s_i | all other units)`` (machines without hidden units).

        It needs no ``Z``, so it stays cheap for any number of units.

        Parameters
        ----------
        data : array_like of shape (P, n_visible)

        Returns
        -------
        float

        Examples
        --------
        >>> machine = bm.BoltzmannMachine(2, W=[[0, 1], [1, 0]])
        >>> round(machine.pseudo_log_likelihood([[1, 1]]), 4)  # 2 log(1 / (1 + e**-2))
        -0.2539
        """
        self._check_parameters()
        if self.n_hidden:
            raise ValueError(
                f"pseudo_log_likelihood needs every unit observed; this machine has n_hidden = {self.n_hidden}"
            )
        S = self._check_data(data)
        dE = flip_energy_changes(S, self.W, self.b, self.units)
        # p(s_i | rest) = 1 / (1 + exp(-dE_i / T)); logaddexp keeps it finite for any dE.
        return float(-np.logaddexp(0.0, -dE / self.T).sum(axis=1).mean())

    def _exact_statistics(self, batch):
        clamped = clamped_moments(self.W, self.b, self.T, self.units, clamped=self.visible, values=batch)
        free = exact_moments(self.W, self.b, self.T, self.units)
        return clamped, free

    def _statistics_shapes(self):
        n = self.n_units
        return (n,), (n, n)

    def _gradient(self, clamped, free):
        (mean_c, second_c), (mean_f, second_f) = clamped, free
        dW = np.where(self.mask, second_c - second_f, 0.0) / self.T
        # Exact symmetry keeps W valid after any number of updates.
        return {"W": 0.5 * (dW + dW.T), "b": (mean_c - mean_f) / self.T}

    def gradient(self, data):
        """Exact gradient of :meth:`log_likelihood` with respect to ``W`` and ``b``.

        ``dW[i, j] = (<s_i s_j>_clamped - <s_i s_j>_free) / T`` for connected
        units (0 elsewhere, and on the diagonal), with ``W[i, j]`` and ``W[j, i]``
        one parameter; ``db[i] = (<s_i>_clamped - <s_i>_free) / T``.

        Parameters
        ----------
        data : array_like of shape (P, n_visible)

        Returns
        -------
        BoltzmannMachineGradient
            A named tuple with one array per parameter, named as the model's
            attributes: ``.W`` of shape (n_units, n_units) and ``.b`` of shape
            (n_units,); it unpacks as ``dW, db``. :meth:`RBM.gradient
            <bmlib.RBM.gradient>` follows the same rule.

        Examples
        --------
        >>> import bmlib as bm
        >>> machine = bm.BoltzmannMachine(2, W=[[0, 0], [0, 0]])
        >>> dW, db = machine.gradient([[1, 1], [1, 1], [-1, -1]])
        >>> print(dW.round(3) + 0, db.round(3))  # <s_0 s_1>_data = 1, <s_0>_data = 1/3
        [[0. 1.]
         [1. 0.]] [0.333 0.333]
        """
        self._check_parameters()
        return BoltzmannMachineGradient(**self._gradient(*self._exact_statistics(self._check_data(data))))

    def sample(self, n_samples, rng=None):
        """Draw visible patterns exactly from the model's ``p(v)``, by enumeration.

        Exact (no Markov chain): a state is drawn from the full Boltzmann-Gibbs
        table, so it is limited to ``n_units <= MAX_TABLE_UNITS``.

        Parameters
        ----------
        n_samples : int
        rng : None, int or numpy.random.Generator

        Returns
        -------
        v : ndarray of shape (n_samples, n_visible), dtype int8

        Examples
        --------
        >>> bm.BoltzmannMachine(2, W=[[0, 1], [1, 0]]).sample(4, rng=0)
        array([[ 1,  1],
               [-1, -1],
               [-1, -1],
               [-1, -1]], dtype=int8)
        """
        self._check_parameters()
        n_samples = check_count(n_samples, "n_samples", minimum=0)
        check_memory(8 * n_samples + self.n_visible * n_samples, f"{n_samples} samples (n_samples)")
        p = boltzmann_distribution(self.W, self.b, self.T, self.units)
        k = as_generator(rng).choice(p.size, size=n_samples, p=p)
        return all_states(self.n_units, self.units)[k, : self.n_visible]
