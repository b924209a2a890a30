"""Coupling matrices of standard spin models, in bmlib's ``(W, b)`` form.

An Ising model ``E(s) = -J sum_<ij> s_i s_j - h sum_i s_i`` is the Boltzmann
machine with ``W_ij = J`` on every bond ``<ij>`` (each bond once) and
``b = h * ones(n)``, because ``-1/2 s^T W s`` counts every pair twice. The
functions here return ``W``; the field is left to the caller.

============================  =================================================
chain_couplings               1-D chain, open or closed into a ring
square_lattice_couplings      2-D square lattice, open or on a torus
sk_couplings                  Sherrington-Kirkpatrick spin glass (all-to-all)
curie_weiss_couplings         fully connected ferromagnet (mean field is exact as n grows)
============================  =================================================
"""
from __future__ import annotations

import numpy as np

from .._checks import check_bool, check_count, check_memory, check_real
from .._random import as_generator


def chain_couplings(n, J=1.0, periodic=True):
    """Couplings of a 1-D Ising chain: ``W[i, i+1] = W[i+1, i] = J``.

    Parameters
    ----------
    n : int
        Number of spins; ``n >= 3`` if ``periodic``, ``n >= 1`` otherwise.
    J : float
        Coupling on every bond (> 0 ferromagnetic, < 0 antiferromagnetic).
    periodic : bool
        Close the chain into a ring with the bond ``(n - 1, 0)``.

    Returns
    -------
    W : ndarray of shape (n, n)
        ``n`` bonds if periodic, ``n - 1`` otherwise.

    Notes
    -----
    A ring of 2 spins is refused: its closing bond would be the same pair as
    its first bond, so ``W[0, 1]`` would have to hold ``2 J``. Use
    ``periodic=False`` (one bond) or build that matrix by hand.

    Examples
    --------
    >>> bm.chain_couplings(4)
    array([[0., 1., 0., 1.],
           [1., 0., 1., 0.],
           [0., 1., 0., 1.],
           [1., 0., 1., 0.]])
    >>> bm.chain_couplings(3, J=0.5, periodic=False)
    array([[0. , 0.5, 0. ],
           [0.5, 0. , 0.5],
           [0. , 0.5, 0. ]])
    """
    periodic = check_bool(periodic, "periodic")
    if periodic:
        n = check_count(n, "n", minimum=None)
        if n < 3:
            raise ValueError(
                f"n must be >= 3 for a periodic chain (a ring of {n} would join a spin to itself or "
                f"count the same bond twice); got {n}. Use periodic=False for a short open chain"
            )
    else:
        n = check_count(n, "n", minimum=1)
    J = check_real(J, "J")
    check_memory(8 * n * n, f"a weight matrix of {n} x {n} units (n = {n})")
    W = np.zeros((n, n))
    i = np.arange(n - 1)
    W[i, i + 1] = J
    if periodic:
        W[n - 1, 0] = J
    return W + W.T


def square_lattice_couplings(rows, cols=None, J=1.0, periodic=True):
    """Couplings of a 2-D square-lattice Ising model with nearest-neighbour bonds.

    Site ``(r, c)`` (row ``r``, column ``c``) is unit ``r * cols + c``: units
    are numbered row by row, as ``np.arange(rows * cols).reshape(rows, cols)``.

    Parameters
    ----------
    rows : int
        Number of rows, >= 1 (>= 2 if ``periodic``).
    cols : int, optional
        Number of columns (defaults to ``rows``: a square lattice).
    J : float
        Coupling on every bond.
    periodic : bool
        Wrap both directions, making a torus.

    Returns
    -------
    W : ndarray of shape (rows * cols, rows * cols)

    Notes
    -----
    On the torus every site has four bonds, one to each neighbour, so there
    are ``2 * rows * cols`` bonds in all. When a side has length 2, a site's
    neighbour "up" and its neighbour "down" are the same site: the two bonds
    are kept and added, so that pair has ``W = 2 J``. This is the lattice of
    Kaufman's exact solution (``kaufman_log_partition``), which counts
    ``2 * rows * cols`` bonds for every size. A periodic side of length 1
    would bond a site to itself and is refused.

    Examples
    --------
    >>> W = bm.square_lattice_couplings(3)
    >>> W.shape, float(W.sum() / 2)  # 2 * 3 * 3 bonds on the 3 x 3 torus
    ((9, 9), 18.0)
    >>> float(bm.square_lattice_couplings(2, 3, periodic=False).sum() / 2)  # 2 * 2 + 3 bonds
    7.0
    >>> float(bm.square_lattice_couplings(2, 3)[0, 3])  # up and down neighbours coincide
    2.0
    """
    periodic = check_bool(periodic, "periodic")
    low = 2 if periodic else 1
    rows = check_count(rows, "rows", minimum=1)
    cols = rows if cols is None else check_count(cols, "cols", minimum=1)
    check_memory(8 * (rows * cols) ** 2, f"a weight matrix of {rows * cols} x {rows * cols} units (rows x cols)")
    for name, size in (("rows", rows), ("cols", cols)):
        if size < low:
            raise ValueError(
                f"{name} must be >= 2 for a periodic lattice (a side of length 1 would bond "
                f"every site to itself); got {size}. Use periodic=False"
            )
    J = check_real(J, "J")
    N = rows * cols
    W = np.zeros((N, N))
    site = np.arange(N).reshape(rows, cols)
    # Each site bonds to its right and its lower neighbour: every bond once.
    # np.add.at (not fancy assignment) so that a wrapped bond that coincides
    # with an ordinary one (side of length 2) is added, not overwritten.
    right = site[:, 1:] if not periodic else np.roll(site, -1, axis=1)
    down = site[1:, :] if not periodic else np.roll(site, -1, axis=0)
    pairs = [(site[:, : right.shape[1]], right), (site[: down.shape[0], :], down)]
    for a, c in pairs:
        np.add.at(W, (a.ravel(), c.ravel()), J)
    return W + W.T


def sk_couplings(n, J=1.0, rng=None):
    """Couplings of a Sherrington-Kirkpatrick spin glass.

    Every pair ``i < j`` is bonded with an independent ``W_ij ~ Normal(0, J**2 / n)``;
    ``W`` is symmetric with zero diagonal. The ``1 / n`` variance keeps the
    energy per spin finite as ``n`` grows; the SK model's spin-glass
    transition (at zero field) is at ``T = J``.

    Parameters
    ----------
    n : int
        Number of spins, >= 1.
    J : float
        Scale of the couplings, >= 0 (their standard deviation is ``J / sqrt(n)``).
    rng : None, int or numpy.random.Generator
        Source of randomness (see :func:`bmlib._random.as_generator`).

    Returns
    -------
    W : ndarray of shape (n, n)

    Examples
    --------
    >>> import numpy as np
    >>> W = bm.sk_couplings(4, rng=0)
    >>> W.shape, bool((W == W.T).all()), bool((W.diagonal() == 0).all())
    ((4, 4), True, True)
    >>> W_big = bm.sk_couplings(400, J=2.0, rng=1)
    >>> round(float(W_big[np.triu_indices(400, 1)].std() * np.sqrt(400)), 1)
    2.0
    """
    n = check_count(n, "n", minimum=1)
    check_memory(3 * 8 * n * n, f"a weight matrix of {n} x {n} units (n = {n}) and its random draws")
    J = check_real(J, "J", nonnegative=True)
    gen = as_generator(rng)
    i, j = np.triu_indices(n, 1)
    W = np.zeros((n, n))
    W[i, j] = gen.normal(0.0, J / np.sqrt(n), size=i.size)
    return W + W.T


def curie_weiss_couplings(n, J=1.0):
    """Couplings of the Curie-Weiss model: every pair of ``n`` spins coupled by ``J / (n - 1)``.

    With this scaling a spin in a uniform state of magnetization ``m`` feels
    the field ``J m`` whatever ``n``, so the model has a transition at
    ``T = J`` as ``n`` grows, where naive mean field becomes exact.

    Parameters
    ----------
    n : int
        Number of spins, ``n >= 2``.
    J : float
        Total coupling of one spin to all the others.

    Returns
    -------
    W : ndarray of shape (n, n)
        ``J / (n - 1)`` off the diagonal, 0 on it.

    Notes
    -----
    Explained in the chapter "The deterministic Boltzmann machine".

    Examples
    --------
    >>> import bmlib as bm
    >>> bm.curie_weiss_couplings(3, J=2.0)
    array([[0., 1., 1.],
           [1., 0., 1.],
           [1., 1., 0.]])
    """
    n = check_count(n, "n", minimum=2)
    J = check_real(J, "J")
    W = np.full((n, n), J / (n - 1))
    np.fill_diagonal(W, 0.0)
    return W


def edwards_anderson_couplings(rows, cols=None, J=1.0, periodic=True, rng=None):
    """Couplings of a +-J spin glass on a square lattice (Edwards and Anderson).

    Every nearest-neighbour bond of :func:`square_lattice_couplings` gets the
    coupling ``+J`` or ``-J`` with probability 1/2 each, independently: a
    lattice full of frustrated plaquettes, sparse like the ferromagnet (so
    elimination gives its exact ``log Z``), disordered like the SK model.

    Parameters
    ----------
    rows, cols, periodic
        As in :func:`square_lattice_couplings`.
    J : float
        Size of every coupling.
    rng : None, int or numpy.random.Generator
        The signs.

    Returns
    -------
    W : ndarray of shape (rows * cols, rows * cols)

    Examples
    --------
    >>> W = bm.edwards_anderson_couplings(4, rng=0)
    >>> sorted(set(W[W != 0].tolist())), int((W != 0).sum() / 2)  # 32 bonds on the 4 x 4 torus
    ([-1.0, 1.0], 32)
    """
    W = square_lattice_couplings(rows, cols, J=1.0, periodic=periodic)
    J = check_real(J, "J")
    i, j = np.nonzero(np.triu(W, 1))
    signs = as_generator(rng).choice([-1.0, 1.0], size=i.size)
    out = np.zeros_like(W)
    # W[i, j] is 2 where a side of length 2 makes two bonds join one pair: they share one sign here.
    out[i, j] = out[j, i] = J * signs * W[i, j]
    return out
