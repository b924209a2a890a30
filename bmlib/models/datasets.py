"""Small data sets that the book learns: every pattern listed, in a documented order.

Each function returns an ``int8`` array of shape ``(P, n)``, one pattern per
row, in spins (-1/+1, the default everywhere in bmlib, so that
``bm.BoltzmannMachine(9).log_likelihood(bm.bars_and_stripes(3))`` just works)
or, with ``units="bits"``, in bits (0/1).

=====================  =======================================================
function               patterns
=====================  =======================================================
bars_and_stripes       n x n images whose rows, or whose columns, are all equal
encoder_patterns       two one-hot groups that agree (the 4-2-4 / 8-3-8 encoder)
parity_patterns        every n-bit pattern with an even number of ones
ten_pixel_images       noisy copies of three 2 x 5 prototypes (learning without
                       hidden units)
=====================  =======================================================

:func:`ten_pixel_probabilities` gives the exact probability with which the
process behind :func:`ten_pixel_images` makes any image, the yardstick a model
trained on its copies can be held to.
"""
from __future__ import annotations

import numpy as np

from .._checks import check_count, check_integer, check_memory, check_real, check_state_batch, check_units
from .._random import as_generator
from .states import all_states

#: The three prototypes of :func:`ten_pixel_images`, as 2 x 5 images in bits:
#: the top row lit, the bottom row lit, and a checkerboard.
TEN_PIXEL_PROTOTYPES = np.array(
    [
        [1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 1, 1, 1, 1, 1],
        [1, 0, 1, 0, 1, 0, 1, 0, 1, 0],
    ],
    dtype=np.int8,
)
TEN_PIXEL_PROTOTYPES.flags.writeable = False


def _check_flip(flip):
    """The pixel-flip probability of the ten-pixel images, a number in [0, 0.5]."""
    flip = check_real(flip, "flip", nonnegative=True)
    if flip > 0.5:
        raise ValueError(f"flip must be a probability in [0, 0.5]; got {flip!r}")
    return flip


def _in_units(bits, units):
    return bits if check_units(units) == "bits" else (2 * bits - 1).astype(np.int8)


def bars_and_stripes(n=3, units="spins"):
    """Every n x n bars-and-stripes image, each once, flattened row by row.

    An image is a *stripes* image if each row is all on or all off, and a
    *bars* image if each column is. The all-off and all-on images are both, so
    there are ``2**(n + 1) - 2`` distinct images.

    Parameters
    ----------
    n : int
        Side of the square image, >= 1.
    units : {"spins", "bits"}
        Off/on as -1/+1 (the default, as everywhere in bmlib) or 0/1.

    Returns
    -------
    patterns : ndarray of shape (2**(n + 1) - 2, n * n), dtype int8
        Pixel ``(r, c)`` is column ``r * n + c``. First the ``2**n`` stripes
        images, row ``r`` lit where bit ``r`` of ``k`` (most significant
        first, as in :func:`~bmlib.all_states`) is 1; then the bars images,
        same order over columns, without all-off and all-on.

    Notes
    -----
    A model that puts probability ``1/P`` on each of the ``P`` images and none
    elsewhere has log-likelihood ``-log P`` per pattern, the best possible:
    ``-log 14 = -2.639`` for ``n = 3``. Explained in the chapter "Restricted
    Boltzmann machines".

    Examples
    --------
    >>> import bmlib as bm
    >>> X = bm.bars_and_stripes(3, units="bits")
    >>> X.shape
    (14, 9)
    >>> print(X[1].reshape(3, 3))
    [[0 0 0]
     [0 0 0]
     [1 1 1]]
    """
    n = check_integer(n, "n", minimum=1, maximum=12)
    lines = all_states(n, "bits")
    stripes = np.repeat(lines, n, axis=1)  # row r of the image repeats bit r
    bars = np.tile(lines[1:-1], n)  # column c of every row repeats bit c
    return _in_units(np.concatenate([stripes, bars]), units)


def encoder_patterns(n_group=4, units="spins"):
    """The patterns of the n-m-n encoder problem (Ackley, Hinton & Sejnowski 1985).

    The visible units form two groups of ``n_group`` units. In pattern ``k``
    unit ``k`` of each group is on and all others are off, so each group
    "names" the pattern and the two groups always agree. A machine that
    learns them must pass the name from one group to the other through a few
    hidden units (2 for the 4-2-4 encoder, 3 for the 8-3-8 encoder); see
    :func:`~bmlib.encoder_mask`.

    Parameters
    ----------
    n_group : int
        Units per visible group, >= 2.
    units : {"spins", "bits"}

    Returns
    -------
    patterns : ndarray of shape (n_group, 2 * n_group), dtype int8
        Columns ``0 .. n_group - 1`` are the first group, the rest the second.

    Notes
    -----
    Explained in the chapter "Hidden units".

    Examples
    --------
    >>> import bmlib as bm
    >>> bm.encoder_patterns(4, units="bits")
    array([[1, 0, 0, 0, 1, 0, 0, 0],
           [0, 1, 0, 0, 0, 1, 0, 0],
           [0, 0, 1, 0, 0, 0, 1, 0],
           [0, 0, 0, 1, 0, 0, 0, 1]], dtype=int8)
    """
    n_group = check_count(n_group, "n_group", minimum=2)
    check_memory(2 * n_group * n_group, f"{n_group} patterns of {2 * n_group} units (n_group = {n_group})")
    one_hot = np.eye(n_group, dtype=np.int8)
    return _in_units(np.hstack([one_hot, one_hot]), units)


def parity_patterns(n=3, units="spins"):
    """Every n-bit pattern with an even number of ones (even parity).

    For ``n = 3`` these are 000, 011, 101 and 110: each unit is the parity
    (XOR) of the other two. Every pair of units, and every single unit, is
    uniformly distributed over the patterns, so a machine without hidden
    units sees nothing to learn (chapter "Hidden units").

    Parameters
    ----------
    n : int
        Number of bits, >= 2.
    units : {"spins", "bits"}
        In spins the patterns are those whose product of spins is ``(-1)**n``.

    Returns
    -------
    patterns : ndarray of shape (2**(n - 1), n), dtype int8
        In :func:`~bmlib.all_states` order.

    Examples
    --------
    >>> import bmlib as bm
    >>> bm.parity_patterns(3, units="bits")
    array([[0, 0, 0],
           [0, 1, 1],
           [1, 0, 1],
           [1, 1, 0]], dtype=int8)
    """
    n = check_integer(n, "n", minimum=2, maximum=20)
    states = all_states(n, "bits")
    return _in_units(states[states.sum(axis=1) % 2 == 0], units)


def ten_pixel_images(n_copies=20, flip=0.1, units="spins", rng=0):
    """Noisy copies of three 10-pixel images, for learning without hidden units.

    The pixels form a 2 x 5 image (``reshape(-1, 2, 5)`` to draw it). The
    prototypes are :data:`TEN_PIXEL_PROTOTYPES`: the top row lit, the bottom
    row lit, and a checkerboard. Each copy flips every pixel independently
    with probability ``flip``. A fully connected machine of 10 units learns
    their pairwise statistics: pixels of one row are on together, so their
    coupling grows positive (Hebb), while the two rows rarely are.

    Parameters
    ----------
    n_copies : int
        Copies per prototype, >= 1.
    flip : float
        Probability that a pixel is flipped, in [0, 0.5].
    units : {"spins", "bits"}
    rng : None, int or numpy.random.Generator
        Source of the noise. The default seed 0 makes ``ten_pixel_images()``
        the same data set on every machine: the one the book uses.

    Returns
    -------
    images : ndarray of shape (3 * n_copies, 10), dtype int8
        The copies of prototype 0, then of 1, then of 2.

    Notes
    -----
    Explained in the chapter "The learning rule".

    Examples
    --------
    >>> import bmlib as bm
    >>> X = bm.ten_pixel_images()
    >>> X.shape
    (60, 10)
    >>> bm.ten_pixel_images(n_copies=1, flip=0.0)[2].reshape(2, 5)
    array([[ 1, -1,  1, -1,  1],
           [-1,  1, -1,  1, -1]], dtype=int8)
    """
    n_copies = check_count(n_copies, "n_copies", minimum=1)
    flip = _check_flip(flip)
    units = check_units(units)
    gen = as_generator(rng)
    check_memory(10 * TEN_PIXEL_PROTOTYPES.size * n_copies, f"{n_copies} copies of the ten-pixel images (n_copies)")
    clean = np.repeat(TEN_PIXEL_PROTOTYPES, n_copies, axis=0)
    noisy = clean ^ (gen.random(clean.shape) < flip).astype(np.int8)
    return _in_units(noisy, units)


def ten_pixel_probabilities(images, flip=0.1, units=None):
    """The probability that the process of :func:`ten_pixel_images` makes each image.

    That process picks one of the three :data:`TEN_PIXEL_PROTOTYPES` with
    probability 1/3 and flips each of its 10 pixels independently with
    probability ``flip``. An image ``d_k`` pixels away from prototype ``k``
    therefore has probability
    ``(1/3) * sum_k flip**d_k * (1 - flip)**(10 - d_k)``. This is the true
    distribution of the data set, against which a model trained on a finite
    sample of it can be measured: it does not memorise the sample, and it
    generalises perfectly.

    Parameters
    ----------
    images : array_like of shape (10,) or (..., 10)
        Images in spins (-1/+1) or bits (0/1), one per row.
    flip : float
        Probability that a pixel is flipped, in [0, 0.5], as in
        :func:`ten_pixel_images`.
    units : {"spins", "bits"} or None
        The units of ``images``; ``None`` reads them from the values: a 0
        means bits, and a batch of all-ones images reads as spins (the rule in
        :mod:`bmlib.models.states`; here both readings are the all-lit image).

    Returns
    -------
    p : ndarray of shape ``images.shape[:-1]``
        The probability of each image; over all ``2**10`` images it sums to 1.

    Notes
    -----
    Explained in the chapter "The learning rule".

    Examples
    --------
    >>> import bmlib as bm
    >>> p = bm.ten_pixel_probabilities(bm.all_states(10))
    >>> round(float(p.sum()), 12)
    1.0
    >>> top_row = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    >>> round(float(bm.ten_pixel_probabilities(top_row, units="bits")), 4)
    0.1162
    """
    flip = _check_flip(flip)
    arr, units = check_state_batch(images, 10, units, "images")
    bits = arr.astype(float) if units == "bits" else (arr + 1) / 2.0
    distances = np.abs(bits[..., None, :] - TEN_PIXEL_PROTOTYPES).sum(axis=-1)  # (..., 3)
    # flip**0 is 1 also for flip = 0, so each clean prototype gets probability 1/3.
    return (flip ** distances * (1 - flip) ** (10 - distances)).mean(axis=-1)
