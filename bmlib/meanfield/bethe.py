"""Loopy belief propagation and the Bethe approximation of log Z, for pairwise binary models.

The graph has one edge per pair with ``W_ij != 0``. In spins, with
``beta = 1/T`` and ``J_ij = beta W_ij``, the message from unit ``i`` to its
neighbour ``j`` is a *cavity field* ``u_{i->j}``: unit ``i`` tells ``j`` that it
favours ``s_j`` by a factor ``exp(u_{i->j} s_j)``. With the cavity field of ``i``
without ``j``,

    c_{i\\j} = beta b_i + sum_{k in N(i), k != j} u_{k->i},

summing out ``s_i`` gives ``sum_{s_i} exp(J_ij s_i s_j + c_{i\\j} s_i) = 2 cosh(J_ij s_j + c_{i\\j})``, so

    u_{i->j} = 1/2 [log cosh(c_{i\\j} + J_ij) - log cosh(c_{i\\j} - J_ij)]

(the familiar ``atanh(tanh J_ij tanh c_{i\\j})``, written so that it stays exact
for any ``J`` and ``c``). At a fixed point the beliefs are

    <s_i> = tanh(beta b_i + sum_k u_{k->i}),
    b_ij(s_i, s_j) proportional to exp(J_ij s_i s_j + c_{i\\j} s_i + c_{j\\i} s_j),

and the Bethe estimate of ``log Z`` is minus the Bethe free energy of those beliefs:

    log Z_Bethe = sum_(ij) <J_ij s_i s_j>_{b_ij} + sum_i beta b_i <s_i>
                  + sum_(ij) H(b_ij) - sum_i (d_i - 1) H(b_i),

with ``d_i`` the number of neighbours of ``i`` and ``H`` the entropy. On a tree
(no loops) all of this is exact. On a graph with loops it is an
approximation and BP may fail to converge; for ferromagnetic couplings
(``W_ij >= 0`` in spins, any biases) the Bethe estimate at the best fixed
point is a lower bound on ``log Z`` (Ruozzi 2012), and in general it is not.

Messages are updated all at once ("flooding") with damping:
``u <- damping u + (1 - damping) u_new``; the residual is ``max |u_new - u|``.
Like the mean-field solvers, BP runs from several starts and keeps the
converged fixed point with the largest ``log Z_Bethe`` (the smallest Bethe
free energy): from all-zero messages a model without biases stays at the
symmetric fixed point even where a broken-symmetry one is better.
Bits are handled through the exact re-parametrization :func:`~bmlib.to_spins_parameters`.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .._checks import (
    LEVELS,
    ConvergenceWarning,
    check_approximation_temperature,
    check_choice,
    check_count,
    check_damping,
    check_model,
    check_real,
    check_temperature,
    check_units,
)
from .._random import as_generator
from .._ties import first_best
from ..models.states import to_spins_parameters

_LN2 = float(np.log(2.0))
#: Cavity field of the biased starts: each unit starts believing in its sign with odds e^4 : 1.
_BIASED_FIELD = 2.0
#: Half-width of the small random cavity fields of the first start.
_SMALL_FIELD = 0.01


@dataclass(frozen=True)
class BetheResult:
    """The outcome of loopy belief propagation: beliefs, Bethe log Z, and a convergence report.

    Attributes
    ----------
    m : ndarray of shape (n,)
        Unit beliefs as means: ``<s_i>`` for spins, ``<x_i>`` for bits.
    log_z : float
        The Bethe estimate of ``log Z`` (exact on a tree, at convergence).
    edges : ndarray of shape (n_edges, 2)
        The pairs ``(i, j)``, ``i < j``, with ``W_ij != 0``, in row-major order.
    pair_beliefs : ndarray of shape (n_edges, 2, 2)
        ``pair_beliefs[e, a, c]`` is the belief that unit ``edges[e, 0]`` takes
        its low value (``a = 0``: -1 or 0) or high value (``a = 1``: +1 or 1)
        and unit ``edges[e, 1]`` takes value ``c``; each 2 x 2 table sums to 1.
    converged : bool
        Whether the kept run met the tolerance.
    iterations : int
        Message updates taken by the kept run.
    residual : float
        Largest change of a message in the last update of the kept run.
    total_iterations : int
        Message updates taken by all starts together (the cost).
    units : {"spins", "bits"}
    T : float
    """

    m: np.ndarray
    log_z: float
    edges: np.ndarray
    pair_beliefs: np.ndarray
    converged: bool
    iterations: int
    residual: float
    total_iterations: int
    units: str
    T: float
    # moments() also needs the number of units: set as a private attribute (_n) by the function that
    # makes the record, not a field, so that a public record has public fields only.

    def moments(self):
        """BP's estimates of ``<s_i>`` and ``<s_i s_j>``, laid out as :func:`~bmlib.exact_moments`.

        Returns
        -------
        mean : ndarray of shape (n,)
        second : ndarray of shape (n, n)
            On an edge, the pair belief's ``<s_i s_j>``; between two units that
            share no edge, ``m_i m_j`` (BP has no belief about such pairs); on
            the diagonal, the exact ``<s_i^2>`` (1 for spins, ``<x_i>`` for bits).
        """
        second = np.outer(self.m, self.m)
        high = 1.0
        low = LEVELS[self.units][0]
        values = np.array([low, high])
        pair = np.einsum("eac,a,c->e", self.pair_beliefs, values, values)
        i, j = self.edges.T
        second[i, j] = second[j, i] = pair
        np.fill_diagonal(second, 1.0 if self.units == "spins" else self.m)
        return self.m.copy(), second


def belief_propagation(
    W,
    b=None,
    T=1.0,
    units="spins",
    *,
    n_starts=4,
    start="best",
    damping=0.5,
    tol=1e-12,
    max_iter=2000,
    rng=None,
):
    """Run loopy belief propagation and return beliefs and the Bethe estimate of log Z.

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric couplings with zero diagonal; every ``W_ij != 0`` is an edge.
    b : array_like of shape (n,), optional
        Biases (zeros if omitted).
    T : float
        Temperature, > 0 and at least ``1e-100 * max(1, max|W|, max|b|)`` (below, the
        method's arithmetic overflows; a ValueError points to energy_descent and anneal).
    units : {"spins", "bits"}
    n_starts : int
        Number of starts, >= 1, in this order: small random cavity fields
        (``|c| <= 0.01``), all units believing +1, all believing -1 (cavity
        fields ``+-2``), then random signs. The converged run with the largest
        ``log_z`` is kept (if none converged, the one with the smallest residual);
        runs that tie to rounding (relative 1e-9) go to the earlier start, so
        the answer is the same on every machine.
    start : {"best", "uniform"}
        ``"best"``: run the ``n_starts`` starts and keep the fixed point with
        the largest Bethe ``log Z`` (the smallest Bethe free energy).
        ``"uniform"``: one run from uniform messages (every cavity field 0),
        which is standard BP; ``n_starts`` is then not used. See Notes for
        which to choose. On a tree or forest BP has a single fixed point, so
        either way only the uniform run is made.
    damping : float
        Fraction of the old message kept at each update, in ``[0, 1)``.
    tol : float
        Convergence threshold on the largest message change, > 0.
    max_iter : int
        Largest number of message updates per start, >= 1.
    rng : None, int or numpy.random.Generator
        Randomness of the random starts.

    Returns
    -------
    BetheResult
        ``m`` (n,), ``log_z``, ``edges`` (n_edges, 2), ``pair_beliefs``
        (n_edges, 2, 2), ``converged``, ``iterations``, ``residual``,
        ``total_iterations``; ``.moments()`` gives ``<s_i s_j>``.

    Warns
    -----
    ConvergenceWarning
        If no run converged within ``max_iter`` updates.

    Notes
    -----
    Exact on trees (chains, stars, any graph without loops), up to the
    tolerance. On a graph with loops below its Bethe critical temperature
    (for the square lattice ``T = 1 / atanh(1/3) = 2.885`` with ``J = 1``) a model
    without biases has several fixed points: the symmetric one (all
    ``m_i = 0``, reached from uniform messages) and mirror-image ordered ones.
    ``start="uniform"`` returns the symmetric one, which has the right
    symmetry for the marginals of a finite model (its exact ``<s_i>`` is 0).
    ``start="best"`` returns an ordered one, whose Bethe ``log Z`` is larger
    and closer to the true ``log Z`` there, and whose ``m`` describes one of
    the two phases (the magnetization a large system keeps). Explained in
    the chapter "The normalizing constant Z".

    Examples
    --------
    On a chain of three spins BP is exact:

    >>> import bmlib as bm
    >>> W = bm.chain_couplings(3, J=0.8, periodic=False)
    >>> res = bm.belief_propagation(W, [0.3, 0.0, -0.2], rng=0)
    >>> res.converged, round(res.log_z, 10) == round(bm.log_partition(W, [0.3, 0.0, -0.2]), 10)
    (True, True)
    """
    W, b = check_model(W, b)
    T, units = check_temperature(T), check_units(units)
    check_approximation_temperature(T, W, b, "belief propagation")
    n_starts = check_count(n_starts, "n_starts", minimum=1)
    check_choice(start, "start", ("best", "uniform"))
    damping = check_damping(damping)
    tol = check_real(tol, "tol", positive=True)
    max_iter = check_count(max_iter, "max_iter", minimum=1)
    n = W.shape[0]
    if units == "bits":
        W, b, offset = to_spins_parameters(W, b)  # exact: E_bits(x) = E_spins(s) + offset
    else:
        offset = 0.0
    beta = 1.0 / T
    graph = _Graph(W, beta * b, beta)
    if start == "uniform" or graph.is_forest():
        starts = [np.zeros(n)]  # standard BP; on a tree the only fixed point, so one run is enough
    else:
        starts = _start_fields(n, n_starts, rng)
    runs = [graph.run(c0, damping, tol, max_iter) for c0 in starts]
    # Ties to rounding (mirror-image fixed points) go to the earlier start: see bmlib._ties.
    converged = [run for run in runs if run[1]]
    if converged:
        u, ok, iterations, residual, log_z = converged[first_best([run[4] for run in converged])]
    else:
        u, ok, iterations, residual, log_z = runs[first_best([run[3] for run in runs], largest=False)]
        warnings.warn(
            f"belief propagation did not converge: after max_iter = {max_iter} updates the largest message "
            f"change is {residual:.3g} > tol = {tol:g} (best of {len(runs)} starts). Raise max_iter or "
            "damping; on graphs with short loops and strong couplings BP may have no stable fixed point",
            ConvergenceWarning,
            stacklevel=2,
        )
    m, pairs = graph.beliefs(u)
    result = BetheResult(
        m=m if units == "spins" else (1.0 + m) / 2.0,
        log_z=log_z - offset / T,
        edges=np.column_stack([graph.i, graph.j]),
        pair_beliefs=pairs,
        converged=ok,
        iterations=iterations,
        residual=residual,
        total_iterations=sum(run[2] for run in runs),
        units=units,
        T=T,
    )
    object.__setattr__(result, "_n", n)  # (frozen: set past the dataclass's guard, once, here)
    return result


def _start_fields(n, n_starts, rng):
    """Starting cavity fields per unit, shape (k, n)."""
    gen = as_generator(rng)
    rows = [gen.uniform(-_SMALL_FIELD, _SMALL_FIELD, size=n), np.full(n, _BIASED_FIELD), np.full(n, -_BIASED_FIELD)]
    rows += [_BIASED_FIELD * gen.choice([-1.0, 1.0], size=n) for _ in range(n_starts - len(rows))]
    return rows[:n_starts]


def _log_cosh(x):
    """log cosh x without overflow: |x| + log1p(e^{-2|x|}) - log 2."""
    a = np.abs(x)
    return a + np.log1p(np.exp(-2.0 * a)) - _LN2


class _Graph:
    """Edges of a spin model, with messages stored per directed edge.

    Directed edge ``e < E`` goes ``i[e] -> j[e]``; edge ``e + E`` is its reverse.
    """

    def __init__(self, W, field, beta):
        self.n = W.shape[0]
        self.i, self.j = (idx.astype(int) for idx in np.nonzero(np.triu(W, 1)))
        self.src = np.concatenate([self.i, self.j])
        self.dst = np.concatenate([self.j, self.i])
        E = self.i.size
        self.rev = np.concatenate([np.arange(E, 2 * E), np.arange(E)])
        self.J = beta * W[self.src, self.dst]
        self.field = field
        self.degree = np.bincount(self.src, minlength=self.n)

    def is_forest(self):
        """True if the graph has no loop: n - (number of connected parts) edges."""
        parent = list(range(self.n))

        def root(a):
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a

        for a, c in zip(self.i.tolist(), self.j.tolist()):
            ra, rc = root(a), root(c)
            if ra == rc:
                return False  # this edge closes a loop
            parent[ra] = rc
        return True

    def _totals(self, u):
        """Field on every unit: its bias plus every incoming message."""
        return self.field + np.bincount(self.dst, weights=u, minlength=self.n)

    def _cavities(self, u):
        """Cavity field of the source of every directed edge, without that edge's target."""
        return self._totals(u)[self.src] - u[self.rev]

    def _messages(self, cavity):
        return 0.5 * (_log_cosh(cavity + self.J) - _log_cosh(cavity - self.J))

    def run(self, unit_cavity, damping, tol, max_iter):
        """One run from per-unit starting cavity fields: (u, converged, updates, residual, log Z)."""
        u = self._messages(unit_cavity[self.src])
        residual = np.inf
        for it in range(1, max_iter + 1):
            new = self._messages(self._cavities(u))
            residual = float(np.max(np.abs(new - u), initial=0.0))
            u = damping * u + (1.0 - damping) * new
            if residual <= tol:
                return u, True, it, residual, self.log_z(u)
        return u, False, max_iter, residual, self.log_z(u)

    def _pair_logp(self, u):
        """Normalized log pair beliefs, shape (E, 2, 2), index 0 = spin -1, 1 = spin +1."""
        E = self.i.size
        cav = self._cavities(u)
        ci, cj, J = cav[:E], cav[E:], self.J[:E]
        s = np.array([-1.0, 1.0])
        logp = J[:, None, None] * s[None, :, None] * s[None, None, :] + ci[:, None, None] * s[None, :, None]
        logp = logp + cj[:, None, None] * s[None, None, :]
        top = logp.max(axis=(1, 2), keepdims=True)
        return logp - (top + np.log(np.exp(logp - top).sum(axis=(1, 2), keepdims=True)))

    def beliefs(self, u):
        """Unit means <s_i> (n,) and pair beliefs (E, 2, 2)."""
        return np.tanh(self._totals(u)), np.exp(self._pair_logp(u))

    def log_z(self, u):
        """Minus the Bethe free energy of the beliefs defined by the messages u."""
        E = self.i.size
        m, pairs = self.beliefs(u)
        logp = self._pair_logp(u)
        s = np.array([-1.0, 1.0])
        energy = float(np.sum(pairs * (self.J[:E, None, None] * s[None, :, None] * s[None, None, :])))
        energy += float(self.field @ m)
        h_pairs = -float(np.sum(pairs * logp))
        # Unit entropies from the fields, not from m: log p(s_i) = s_i H_i - log(2 cosh H_i)
        # keeps the tiny probabilities that 1 - tanh(H_i) would round to zero.
        H = self._totals(u)
        log_norm = _log_cosh(H) + _LN2
        h_units = -sum(np.exp(s * H - log_norm) * (s * H - log_norm) for s in (-1.0, 1.0))
        return energy + h_pairs - float((self.degree - 1) @ h_units)
