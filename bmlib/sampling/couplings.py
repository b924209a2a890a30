"""Coupling operators: the one thing about a model that the sampler needs.

The chain runner (:mod:`bmlib.sampling.chains`) and the update rules
(:mod:`bmlib.sampling.rules`) are the same for every model. What differs is
how the local fields of a group of units are computed, and how the state of
many chains is stored so that this is fast:

==================  ===========================================================
operator            local fields of a group
==================  ===========================================================
DenseCouplings      any (W, b): a matrix product ``s W[:, group] + b[group]``
SquareLattice       uniform J and h on a square lattice: sums of the four
                    neighbours, on a checkerboard layout, for half the sites
                    at a time
==================  ===========================================================

An operator provides, for a state ``state`` of all chains (in its own layout):

* ``start(states)`` / ``states(state)``: to and from states of shape
  ``(n_chains, n)`` (unit order as everywhere in bmlib);
* ``schedule(scan, free, n_chains)``: the groups of a sweep (see
  :mod:`bmlib.sampling.schedules`);
* ``values(state, group)``, ``fields(state, group)``: current values and
  local fields of a group, arrays of the same shape;
* ``assign(state, group, new)``: store new values (clamped units keep
  theirs), return how many units changed;
* ``energy(state)``: ``E`` of every chain, shape ``(n_chains,)``.

Explained in the chapter "Sampling: heat bath and Metropolis".
"""
from __future__ import annotations

import functools

import numpy as np

from .._checks import check_bool, check_choice, check_count, check_memory, check_model, check_real
from .._ties import TIE_RTOL, zero_field_tolerance
from ..models.energy import scale_exponent as _scale_exponent, scaled_parameters as _scaled, unscaled as _unscaled
from ..models.lattices import square_lattice_couplings
from .schedules import SCANS, FixedOrder, RandomScan, _greedy_colouring


class CouplingOperator:
    """Base class of coupling operators (see the module docstring for the protocol)."""

    n_units: int

    def describe(self):
        """A short description for error messages and reprs."""
        return type(self).__name__

    def clamp(self, state, index, values):
        """Hold units ``index`` (shape (k,)) at ``values`` (shape (n_chains, k)) from now on."""
        raise NotImplementedError

    def zero_field(self):
        """Fields at most this large in magnitude count as zero at T = 0 (see :mod:`bmlib._ties`)."""
        return 0.0

    def dense_model(self):
        """The model as arrays ``(W, b)`` of shapes (n, n) and (n,).

        :func:`~bmlib._checks.check_model` calls it, so every function that takes
        ``W, b`` (the exact sums, mean field, the log Z estimators) also takes the
        operator that :func:`~bmlib.sample` takes.
        """
        raise NotImplementedError


# ----------------------------------------------------------------------------
# Dense couplings: any Boltzmann machine
# ----------------------------------------------------------------------------


class _Units:
    """A group of units shared by all chains, with its columns of W cut out once."""

    def __init__(self, index, W, b):
        index = np.asarray(index)
        self.bias = b[index]
        if index.size == 1:
            # A single unit as a slice, so that its values and assignment are views; its
            # column of W is row i (W is symmetric), also a view: no copy of W per unit.
            i = int(index[0])
            self.index = slice(i, i + 1)
            self.columns = W[i][:, None]
        else:
            self.index = index
            self.columns = np.ascontiguousarray(W[:, index])


class _OneUnitPerChain:
    """One unit per chain (random scan): ``units`` has shape (n_chains,)."""

    def __init__(self, units):
        self.units = units
        self.chains = np.arange(units.size)


class DenseCouplings(CouplingOperator):
    """The couplings of any Boltzmann machine, as a dense matrix ``W`` and biases ``b``.

    The state of ``n_chains`` chains is a float array of shape ``(n_chains, n)``;
    the local fields of a group of units are one matrix product.

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric couplings with zero diagonal.
    b : array_like of shape (n,), optional
        Biases (zeros if omitted).

    Notes
    -----
    Supports every scan: "sequential", "random" and "colouring" (a greedy
    colouring of the non-zero pattern of ``W``). Explained in the chapter
    "Sampling: heat bath and Metropolis".

    Examples
    --------
    >>> import numpy as np
    >>> op = bm.DenseCouplings([[0, 1], [1, 0]], [0.5, 0.0])
    >>> state = op.start(np.array([[1, -1], [1, 1]], dtype=np.int8))
    >>> op.energy(state)
    array([ 0.5, -1.5])
    """

    def __init__(self, W, b=None):
        self.W, self.b = check_model(W, b)
        self.n_units = self.W.shape[0]

    @functools.cached_property
    def _energy_scale(self):
        # Couplings so large that s W s could overflow where E is finite: energies are
        # computed on W and b divided by 2**k (exact) and multiplied back (see bmlib.energy).
        # Worked out on first use: annealed importance sampling builds an operator per step
        # and never asks for its energies.
        return _scale_exponent(self.W, self.b)

    @classmethod
    def _trusted(cls, W, b):
        """The operator of a model its caller has already checked (float64 ``W`` (n, n), ``b`` (n,)).

        For loops that build a new model at every step from one checked model
        (annealed importance sampling scales ``W``); checking an n x n matrix
        again at every step cost more than the sweep.
        """
        op = cls.__new__(cls)
        op.W, op.b = W, b
        op.n_units = W.shape[0]
        return op

    def describe(self):
        return f"DenseCouplings with n = {self.n_units}"

    def start(self, states):
        return np.array(states, dtype=float)

    def zero_field(self):
        return zero_field_tolerance(self.W, self.b)

    def dense_model(self):
        return self.W, self.b

    def states(self, state):
        return state.astype(np.int8)

    def schedule(self, scan, free, n_chains):
        check_choice(scan, "scan", SCANS)
        if scan == "sequential":
            return FixedOrder(_Units([i], self.W, self.b) for i in free)
        if scan == "random":
            return RandomScan(free, n_chains, _OneUnitPerChain)
        groups = _greedy_colouring(self.W, np.asarray(free, dtype=int))
        return FixedOrder(_Units(group, self.W, self.b) for group in groups)

    def values(self, state, group):
        if isinstance(group, _OneUnitPerChain):
            return state[group.chains, group.units][:, None]
        return state[:, group.index]

    def fields(self, state, group):
        if isinstance(group, _OneUnitPerChain):
            rows = self.W[group.units]  # (n_chains, n): row i of W is column i, W being symmetric
            return (np.einsum("cn,cn->c", state, rows) + self.b[group.units])[:, None]
        return state @ group.columns + group.bias

    def assign(self, state, group, new):
        old = self.values(state, group)
        changed = np.count_nonzero(new != old)
        if isinstance(group, _OneUnitPerChain):
            state[group.chains, group.units] = new[:, 0]
        else:
            state[:, group.index] = new
        return changed

    def energy(self, state):
        k = self._energy_scale
        if k == 0:
            return -0.5 * np.einsum("ci,ci->c", state @ self.W, state) - state @ self.b
        W, b = _scaled(self.W, self.b, k)
        return _unscaled(-0.5 * np.einsum("ci,ci->c", state @ W, state) - state @ b, k)

    def clamp(self, state, index, values):
        # Dense schedules leave clamped units out of every group, so setting
        # them once is enough.
        state[:, index] = values


# ----------------------------------------------------------------------------
# Square lattice: uniform J and h, checkerboard layout
# ----------------------------------------------------------------------------

# The lattice is stored as four sub-lattices of shape (rows/2, cols/2):
#   A = sites (even r, even c)   D = (odd r, odd c)    -> colour 0 (r + c even)
#   B = sites (even r, odd c)    C = (odd r, even c)   -> colour 1 (r + c odd)
# state.colours[colour] has shape (2, n_chains, rows/2, cols/2): slot 0 is A
# or B, slot 1 is D or C, each slot contiguous. All four neighbours of a site
# have the other colour, and in sub-lattice coordinates (a, b) they are
#   A(a,b): C(a,b) C(a-1,b)  B(a,b) B(a,b-1)      B(a,b): D(a,b) D(a-1,b)  A(a,b) A(a,b+1)
#   D(a,b): B(a,b) B(a+1,b)  C(a,b) C(a,b+1)      C(a,b): A(a,b) A(a+1,b)  D(a,b) D(a,b-1)
# so each neighbour sum is two sub-lattices plus the same two shifted by one
# row or one column: plain slices, no fancy indexing, half the sites per step.
# _STENCIL[colour][slot] = (vertical source slot, row shift, horizontal
# source slot, column shift), the sources being of the other colour.
_STENCIL = (((1, -1, 0, -1), (0, +1, 1, +1)), ((1, -1, 0, +1), (0, +1, 1, -1)))
# (row, column) parity of the sites in state.colours[colour][slot].
_PARITY = (((0, 0), (1, 1)), ((0, 1), (1, 0)))


def _shifted_slices(axis, shift, periodic):
    """Index pairs (target, source) that add ``X[a + shift]`` to ``out[a]`` along ``axis``.

    ``axis`` is 1 (rows) or 2 (columns) of an array of shape (n_chains, rows/2, cols/2);
    with ``periodic`` the shift wraps around, otherwise the edge gets nothing.
    """

    def cut(start, stop):
        index = [slice(None)] * 3
        index[axis] = slice(start, stop)
        return tuple(index)

    if shift < 0:
        pairs = [(cut(1, None), cut(None, -1)), (cut(0, 1), cut(-1, None))]
    else:
        pairs = [(cut(None, -1), cut(1, None)), (cut(-1, None), cut(0, 1))]
    return pairs if periodic else pairs[:1]


class _LatticeState:
    """Both colours of all chains, plus what is clamped."""

    def __init__(self, colours):
        self.colours = colours  # [colour 0, colour 1], int8 of shape (2, n_chains, rows/2, cols/2)
        self.clamp_mask = None  # per colour: bool of shape (2, 1, rows/2, cols/2)
        self.clamp_values = None  # per colour: int8 of shape (2, n_chains, rows/2, cols/2)


class SquareLattice(CouplingOperator):
    """Ising couplings on a square lattice, as a stencil: ``E = -J sum_<ij> s_i s_j - h sum_i s_i``.

    The same model as ``W = square_lattice_couplings(rows, cols, J, periodic)``
    with ``b = h * ones(rows * cols)``, site ``(r, c)`` being unit
    ``r * cols + c``; but no matrix is built. The lattice is stored as its two
    checkerboard colours, and the local fields of a colour are sums of
    neighbours on half the sites, for all chains at once.

    Parameters
    ----------
    rows : int
        Number of rows, even and >= 2.
    cols : int, optional
        Number of columns, even and >= 2 (defaults to ``rows``).
    J : float
        Coupling on every bond.
    h : float
        Field (bias) on every site.
    periodic : bool
        Wrap both directions (a torus). A periodic side of length 2 has
        doubled bonds, as in :func:`~bmlib.square_lattice_couplings`.

    Notes
    -----
    Supports the scan "colouring" only: its groups are the two checkerboard
    colours. For single-site scans, or odd sides, sample the matrix
    ``square_lattice_couplings(...)`` instead (same model, slower). The
    state is stored as int8 and the fields as float32 (exact for the
    neighbour sums; ``J`` and ``h`` to 7 digits), and the update
    probabilities are resolved to 2**-24 ~ 6e-8, which matters only for
    events rarer than about 1e-6 per update. Explained in the chapter
    "The Ising model".

    Examples
    --------
    >>> import numpy as np
    >>> import bmlib as bm
    >>> lattice = bm.SquareLattice(4, 4, J=1.0, h=0.5)
    >>> s = np.ones((1, 16), dtype=np.int8)
    >>> W, b = bm.square_lattice_couplings(4), np.full(16, 0.5)
    >>> float(lattice.energy(lattice.start(s))[0]), bm.energy(s[0], W, b)
    (-40.0, -40.0)
    """

    def __init__(self, rows, cols=None, J=1.0, h=0.0, periodic=True):
        rows = check_count(rows, "rows", minimum=2)
        cols = rows if cols is None else check_count(cols, "cols", minimum=2)
        for name, size in (("rows", rows), ("cols", cols)):
            if size % 2:
                raise ValueError(
                    f"{name} must be even for SquareLattice (its checkerboard layout splits each side in two); "
                    f"got {size}. For odd sides sample W = bm.square_lattice_couplings(...) instead"
                )
        check_memory(8 * 8 * rows * cols, f"the field buffers of a {rows} x {cols} lattice (rows x cols)")
        self.rows, self.cols = rows, cols
        self.J, self.h = check_real(J, "J"), check_real(h, "h")
        self.periodic = check_bool(periodic, "periodic")
        self.n_units = rows * cols
        # Per colour and slot: the two source slots and the shifted slices to add.
        self._plan = [
            [
                (
                    v_slot,
                    _shifted_slices(1, v_shift, self.periodic),
                    h_slot,
                    _shifted_slices(2, h_shift, self.periodic),
                )
                for v_slot, v_shift, h_slot, h_shift in _STENCIL[colour]
            ]
            for colour in (0, 1)
        ]

    def describe(self):
        kind = "periodic" if self.periodic else "open"
        return f"SquareLattice {self.rows} x {self.cols} ({kind}, J = {self.J:g}, h = {self.h:g})"

    def __repr__(self):
        return (
            f"SquareLattice(rows={self.rows}, cols={self.cols}, J={self.J!r}, h={self.h!r}, "
            f"periodic={self.periodic})"
        )

    def _split(self, S):
        """(n_chains, rows * cols) -> [colour 0, colour 1] in the checkerboard layout."""
        grid = S.reshape(-1, self.rows, self.cols)
        return [
            np.ascontiguousarray(np.stack([grid[:, r::2, c::2] for r, c in _PARITY[colour]]))
            for colour in (0, 1)
        ]

    def start(self, states):
        return _LatticeState(self._split(np.asarray(states, dtype=np.int8)))

    def zero_field(self):
        return 1e-3 * TIE_RTOL * (4.0 * abs(self.J) + abs(self.h))  # four neighbours and the field

    def dense_model(self):
        return square_lattice_couplings(self.rows, self.cols, self.J, self.periodic), np.full(self.n_units, self.h)

    def states(self, state):
        n_chains = state.colours[0].shape[1]
        grid = np.empty((n_chains, self.rows, self.cols), dtype=np.int8)
        for colour in (0, 1):
            for slot, (r, c) in enumerate(_PARITY[colour]):
                grid[:, r::2, c::2] = state.colours[colour][slot]
        return grid.reshape(n_chains, self.n_units)

    def schedule(self, scan, free, n_chains):
        check_choice(scan, "scan", SCANS)
        if scan != "colouring":
            raise ValueError(
                f'scan must be "colouring" for a SquareLattice (it updates a whole checkerboard colour at once); '
                f'got "{scan}". For single-site scans sample W = bm.square_lattice_couplings(...) instead'
            )
        is_free = np.zeros((1, self.n_units), dtype=np.int8)
        is_free[0, free] = 1
        free_by_colour = self._split(is_free)
        return FixedOrder(colour for colour in (0, 1) if free_by_colour[colour].any())

    def values(self, state, colour):
        return state.colours[colour]

    def _neighbour_sums(self, state, colour):
        """Sum of the four neighbours of every site of ``colour``: int8 of shape (2, n_chains, rows/2, cols/2)."""
        other = state.colours[1 - colour]
        total = np.empty_like(other)
        for slot, (v_slot, v_pairs, h_slot, h_pairs) in enumerate(self._plan[colour]):
            out, V, H = total[slot], other[v_slot], other[h_slot]
            np.add(V, H, out=out)
            for target, source in v_pairs:
                out[target] += V[source]
            for target, source in h_pairs:
                out[target] += H[source]
        return total

    def fields(self, state, colour):
        return self._fields_of_sums(self._neighbour_sums(state, colour))

    def _fields_of_sums(self, sums):
        """``J * sums + h`` in float32, from int8 neighbour sums (also the heat-bath sweep's table)."""
        h = np.multiply(sums, np.float32(self.J), dtype=np.float32)
        if self.h != 0.0:
            h += np.float32(self.h)
        return h

    def assign(self, state, colour, new):
        if state.clamp_mask is not None:
            np.copyto(new, state.clamp_values[colour], where=state.clamp_mask[colour])
        changed = np.count_nonzero(new != state.colours[colour])
        state.colours[colour] = new
        return changed

    def energy(self, state):
        # Every bond joins a colour-0 site to a colour-1 site, so summing
        # s_i * (neighbour sum)_i over colour 0 counts each bond once.
        bonds = (state.colours[0].astype(np.int64) * self._neighbour_sums(state, 0)).sum(axis=(0, 2, 3))
        total = sum(state.colours[c].sum(axis=(0, 2, 3), dtype=np.int64) for c in (0, 1))
        return -self.J * bonds - self.h * total

    def clamp(self, state, index, values):
        n_chains = state.colours[0].shape[1]
        mask = np.zeros((1, self.n_units), dtype=np.int8)
        mask[0, index] = 1
        full = np.zeros((n_chains, self.n_units), dtype=np.int8)
        full[:, index] = values
        state.clamp_mask = [m.astype(bool) for m in self._split(mask)]
        state.clamp_values = self._split(full)
        for colour in (0, 1):
            np.copyto(state.colours[colour], state.clamp_values[colour], where=state.clamp_mask[colour])
