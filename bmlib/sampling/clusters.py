"""The Wolff cluster algorithm for the square-lattice Ising model, and how it beats critical slowing down.

Near the critical temperature the ordered regions of the lattice grow to the
size of the lattice, and a single-spin update (heat bath, Metropolis) can
only turn such a region around one spin at a time, from its edges in. Its
autocorrelation time grows like ``L**z`` with ``z ~ 2.17``. Wolff's update
(Wolff 1989, after Swendsen and Wang 1987) flips a whole region at once:

1. pick a random seed site;
2. grow a cluster from it: every bond from a cluster site to a neighbour with
   the same spin (a satisfied bond, for ``J > 0``) is added with probability
   ``p_add = 1 - exp(-2 J / T)``, each bond tested once;
3. flip the whole cluster, always.

The choice of ``p_add`` makes the ratio of proposal probabilities equal to the
Boltzmann factor of the flip, so detailed balance holds with acceptance 1.
At ``T_c`` the clusters are of the size of the ordered regions, and the
autocorrelation time, measured in sweeps (cluster updates times the mean
fraction of the lattice they flip), hardly grows with ``L``.

Here the clusters of all chains grow together, one shell of neighbours at a
time: each step of the loop looks up the four neighbours of the newest
sites (the frontier) of every chain in a neighbour table, so its cost is the
size of the frontiers and not of the lattices. Explained in the chapter
"Beyond single flips".
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._checks import check_count, check_instance, check_memory, check_states, check_temperature
from .._random import as_generator
from .chains import SampleResult
from .couplings import SquareLattice


def _neighbour_table(rows, cols, periodic):
    """(rows * cols, 4) neighbours of each site (up, down, left, right), -1 across an open edge.

    A periodic side of length 2 lists the same neighbour twice: the two bonds
    of :func:`~bmlib.square_lattice_couplings` (a doubled coupling), each
    tested on its own.
    """
    r, c = np.divmod(np.arange(rows * cols), cols)
    table = np.empty((rows * cols, 4), dtype=np.int64)
    for k, (dr, dc) in enumerate(((-1, 0), (1, 0), (0, -1), (0, 1))):
        rr, cc = r + dr, c + dc
        inside = (rr >= 0) & (rr < rows) & (cc >= 0) & (cc < cols)
        table[:, k] = np.where(inside | periodic, (rr % rows) * cols + cc % cols, -1)
    return table


def _gauge(rows, cols, J):
    """+1 everywhere for J >= 0; the checkerboard of signs for J < 0 (it turns the antiferromagnet
    into the ferromagnet, on even sides also across the periodic edges)."""
    if J >= 0:
        return np.ones(rows * cols, dtype=np.int8)
    r, c = np.divmod(np.arange(rows * cols), cols)
    return np.where((r + c) % 2 == 0, 1, -1).astype(np.int8)


def _lattice_energies(S, lattice, neighbours):
    """E = -J sum over bonds of s_i s_j - h sum_i s_i, for S of shape (n_chains, n)."""
    S = S.astype(float)
    # The "down" and "right" neighbours count every bond once (-1: no bond across an open edge).
    bonds = 0.0
    for k in (1, 3):
        j = neighbours[:, k]
        present = j >= 0
        bonds = bonds + np.sum(S[:, present] * S[:, j[present]], axis=1)
    return -lattice.J * bonds - lattice.h * S.sum(axis=1)


def _wolff_update(S, p_add, neighbours, rng):
    """One cluster flip in every chain of the gauged ferromagnet ``S`` (n_chains, n), in place.

    Returns the number of spins flipped in each chain.
    """
    n_chains, n = S.shape
    flat = S.reshape(-1)  # a view: S is C-contiguous
    in_cluster = np.zeros(n_chains * n, dtype=bool)
    frontier = np.arange(n_chains) * n + rng.integers(n, size=n_chains)  # one seed per chain
    in_cluster[frontier] = True
    while frontier.size:
        chain_start = frontier - frontier % n
        reached = neighbours[frontier % n]  # (k, 4) sites in the frontier's chains
        candidates = (reached + chain_start[:, None]).reshape(-1)
        spin = np.repeat(flat[frontier], 4)
        ok = (reached.reshape(-1) >= 0)
        ok[ok] &= flat[candidates[ok]] == spin[ok]
        candidates = candidates[ok]
        candidates = candidates[~in_cluster[candidates]]
        # One test per bond: a site reached over two bonds joins if either test passes.
        frontier = np.unique(candidates[rng.random(candidates.size) < p_add])
        in_cluster[frontier] = True
    flat[in_cluster] *= -1
    return in_cluster.reshape(n_chains, n).sum(axis=1)


def wolff_sample(lattice, T=2.5, *, n_samples=1000, n_chains=None, burn_in=100, thin=1, initial=None, rng=None):
    """Sample the square-lattice Ising model with Wolff's cluster updates.

    Each chain makes ``burn_in`` cluster updates, then ``n_samples * thin``
    more, and the state after every ``thin``-th is kept. An update grows one
    cluster of aligned spins from a random seed, adding each satisfied bond
    with probability ``1 - exp(-2 |J| / T)``, and flips it. The samples come
    from the same distribution as those of :func:`sample` (tested against
    exact enumeration); near ``T_c`` they are far less correlated.

    Parameters
    ----------
    lattice : SquareLattice
        The model, with no field (``h = 0``): Wolff's update flips clusters,
        and a field would favour one sign of them. ``J`` may be negative.
    T : float
        Temperature, finite and > 0.
    n_samples : int
        States kept per chain, >= 1.
    n_chains : int, optional
        Independent chains, >= 1, updated together. Default: the number of
        rows of a 2-D ``initial``, else 1.
    burn_in : int
        Cluster updates run and discarded first, >= 0.
    thin : int
        Cluster updates between kept states, >= 1.
    initial : array_like of shape (n,) or (n_chains, n), optional
        Starting states in spins, site ``(r, c)`` at ``r * cols + c``
        (default: uniformly random).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    SampleResult
        With ``rule="wolff"`` and ``scan="clusters"``. Its ``acceptance``
        holds the fraction of the lattice flipped per cluster update (an
        update is never rejected), and ``n_sweeps`` counts cluster updates,
        burn-in included. One cluster update costs about ``acceptance``
        sweeps of work: :func:`wolff_sweeps` converts.

    Examples
    --------
    >>> import numpy as np
    >>> run = bm.wolff_sample(bm.SquareLattice(8), T=2.0, n_samples=500, n_chains=4, rng=0)
    >>> run.samples.shape, run.rule
    ((500, 4, 64), 'wolff')
    >>> m = np.abs(run.samples.mean(axis=2)).mean()   # |m| per spin; Yang: 0.911 on the infinite lattice
    >>> round(float(m), 2)
    0.91
    """
    check_instance(lattice, "lattice", SquareLattice, "a bm.SquareLattice")
    if lattice.h != 0:
        raise ValueError(f"lattice must have no field for Wolff's update (it flips whole clusters, and a field "
                         f"favours one sign of them); got h = {lattice.h!r}. Use bm.sample for h != 0")
    if lattice.J == 0:
        raise ValueError("lattice must have J != 0: without couplings every cluster is one spin; use bm.sample")
    T = check_temperature(T)
    n_samples = check_count(n_samples, "n_samples", minimum=1)
    burn_in = check_count(burn_in, "burn_in")
    thin = check_count(thin, "thin", minimum=1)
    n = lattice.n_units
    if initial is not None:
        initial = check_states(initial, n, "spins", name="initial")
        if initial.ndim == 2 and n_chains is not None and initial.shape[0] != n_chains:
            raise ValueError(f"initial has {initial.shape[0]} rows but n_chains = {n_chains}")
    n_chains = (initial.shape[0] if initial is not None and initial.ndim == 2 else 1) if n_chains is None \
        else check_count(n_chains, "n_chains", minimum=1)
    check_memory(1.0 * n_samples * n_chains * n + 24.0 * n_chains * n,
                 f"{n_samples} kept states of {n_chains} chains of {n} spins (n_samples x n_chains)")
    gen = as_generator(rng)
    if initial is None:
        S = np.where(gen.random((n_chains, n)) < 0.5, 1, -1).astype(np.int8)
    else:
        # order="C": a copy of a broadcast keeps its strides by default, and _wolff_update flips through a flat view.
        S = np.array(np.broadcast_to(initial, (n_chains, n)), dtype=np.int8, order="C")
    gauge = _gauge(lattice.rows, lattice.cols, lattice.J)
    S *= gauge  # in the gauged variables every bond is ferromagnetic
    neighbours = _neighbour_table(lattice.rows, lattice.cols, lattice.periodic)
    p_add = -np.expm1(-2.0 * abs(lattice.J) / T)
    samples = np.empty((n_samples, n_chains, n), dtype=np.int8)
    flipped = np.zeros(n_samples)
    for _ in range(burn_in):
        _wolff_update(S, p_add, neighbours, gen)
    for t in range(n_samples):
        for _ in range(thin):
            flipped[t] += _wolff_update(S, p_add, neighbours, gen).mean()
        samples[t] = S * gauge
    energies = _lattice_energies(samples.reshape(-1, n), lattice, neighbours).reshape(n_samples, n_chains)
    return SampleResult(
        samples=samples,
        energies=energies,
        temperatures=np.full(n_samples, T),
        acceptance=flipped / (thin * n),
        final_state=S * gauge,
        units="spins",
        rule="wolff",
        scan="clusters",
        n_sweeps=burn_in + n_samples * thin,
    )


def wolff_sweeps(result):
    """Sweeps of single-spin work that the kept cluster updates of a Wolff run amount to.

    A cluster update that flips a fraction ``f`` of the lattice visits about
    ``f n`` spins, as ``f`` of a heat-bath sweep does; this is the usual unit
    for comparing their autocorrelation times.

    Parameters
    ----------
    result : SampleResult
        From :func:`wolff_sample`.

    Returns
    -------
    float
        The mean fraction of the lattice flipped per kept update, times ``thin``:
        multiply an autocorrelation time in kept samples by it to get sweeps.

    Examples
    --------
    >>> run = bm.wolff_sample(bm.SquareLattice(8), T=3.0, n_samples=200, rng=0)
    >>> 0 < bm.wolff_sweeps(run) < 0.2   # small clusters above T_c
    True
    """
    check_instance(result, "result", SampleResult, "a SampleResult of bm.wolff_sample")
    if result.rule != "wolff":
        raise ValueError(f"result must come from bm.wolff_sample; got one of rule {result.rule!r}")
    return float(result.acceptance.mean())


def _size_of_m(run):
    """|m| per spin of every kept state, shape (n_kept, n_chains)."""
    return np.abs(run.samples.mean(axis=2, dtype=float))


class CriticalSlowing(NamedTuple):
    """Autocorrelation times of ``|m|`` at one temperature, for several lattice sides
    (see :func:`critical_slowing_down`)."""

    sides: np.ndarray
    """Lattice sides L, shape (k,)."""
    temperature: float
    """The temperature of every run."""
    heat_bath: np.ndarray
    """Autocorrelation time of ``|m|`` under heat-bath sweeps, in sweeps, shape (k,); NaN where ``|m|``
    never changed (chains frozen at a very low temperature)."""
    wolff: np.ndarray
    """The same under Wolff's cluster updates, converted to sweeps (:func:`wolff_sweeps`), shape (k,);
    NaN where ``|m|`` never changed."""
    cluster_fraction: np.ndarray
    """Mean fraction of the lattice one cluster update flips, shape (k,)."""


def critical_slowing_down(sides=(8, 16, 32), T=None, *, n_sweeps=4000, n_updates=300, n_chains=16, rng=None):
    """Measure how the autocorrelation time of single-spin and cluster updates grows with the lattice.

    For each side ``L`` it runs heat-bath sweeps (:func:`sample`, checkerboard
    order) and Wolff cluster updates (:func:`wolff_sample`) on the periodic
    ``L x L`` lattice with ``J = 1``, from all spins up, and measures the
    autocorrelation time of ``|m|``, the size of the magnetization per spin
    (the slowest of the usual observables), with
    :func:`autocorrelation_time`. Both are in sweeps: Wolff's in updates is
    multiplied by the mean fraction of the lattice an update flips.

    Parameters
    ----------
    sides : sequence of int
        Even sides >= 4, at least two.
    T : float, optional
        Temperature (default: Onsager's ``T_c = 2 / log(1 + sqrt 2)``).
    n_sweeps : int
        Heat-bath sweeps kept per chain (after a quarter as many of burn-in),
        >= 100. The estimate of tau is sound when this is 50 tau or more;
        shorter runs underestimate it.
    n_updates : int
        Wolff updates kept per chain (after 100 of burn-in), >= 100.
    n_chains : int
        Chains per run, >= 1.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    CriticalSlowing

    Examples
    --------
    >>> run = bm.critical_slowing_down((4, 8), n_sweeps=400, n_updates=200, n_chains=4, rng=0)
    >>> run.sides.tolist(), bool(run.heat_bath[1] > run.wolff[1])
    ([4, 8], True)
    """
    from ..exact.closed_forms import critical_temperature  # noqa: PLC0415 (kept out of the import of bmlib)
    from .chains import sample  # noqa: PLC0415
    from .diagnostics import autocorrelation_time  # noqa: PLC0415

    if isinstance(sides, (str, bytes)) or np.ndim(sides) != 1 or len(sides) < 2:
        raise ValueError(f"sides must be a sequence of at least two lattice sides; got {sides!r}")
    sides = [check_count(L, "sides", minimum=4) for L in sides]
    if any(L % 2 for L in sides):
        raise ValueError(f"sides must all be even (SquareLattice's checkerboard); got {sides}")
    T = critical_temperature() if T is None else check_temperature(T)
    n_sweeps = check_count(n_sweeps, "n_sweeps", minimum=100)
    n_updates = check_count(n_updates, "n_updates", minimum=100)
    n_chains = check_count(n_chains, "n_chains", minimum=1)
    gen = as_generator(rng)
    heat_bath, wolff, fraction = [], [], []
    for L in sides:
        lattice = SquareLattice(L)
        up = np.ones(L * L, dtype=np.int8)
        run = sample(lattice, T=T, n_samples=n_sweeps, n_chains=n_chains, burn_in=n_sweeps // 4, initial=up, rng=gen)
        heat_bath.append(autocorrelation_time(_size_of_m(run)))
        run = wolff_sample(lattice, T=T, n_samples=n_updates, n_chains=n_chains, burn_in=100, initial=up, rng=gen)
        fraction.append(wolff_sweeps(run))
        wolff.append(autocorrelation_time(_size_of_m(run)) * fraction[-1])
    return CriticalSlowing(np.array(sides), float(T), np.array(heat_bath), np.array(wolff), np.array(fraction))
