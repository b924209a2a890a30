"""What an RBM learns from images, measured: learning curves, inpainting, hidden units as features.

- :func:`rbm_learning_curves` trains one RBM per hidden-layer size with
  persistent CD and scores it along the way by the exact mean
  log-likelihood of the training and the held-out images (the hidden layer
  summed exactly, so at most 20 hidden units) and by the
  pseudo-log-likelihood of the held-out images.
- :func:`inpaint` fills in unknown pixels by block Gibbs sampling with the
  known ones clamped, and returns each pixel's probability of being on.
- :func:`nearest_centroid_labels` and :func:`nearest_centroid_accuracy`: the
  simplest classifier, one mean per class, to ask whether the hidden units'
  probabilities are better features than the pixels.

Explained in the chapter "Learning real images".
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..._deprecation import renamed
from ..._checks import (
    check_bool,
    LEVELS,
    _as_real_array,
    _check_finite,
    check_count,
    check_indices,
    check_instance,
    check_memory,
    check_real,
    check_sequence,
    check_units,
)
from ..._progress import progress_bar
from ..._random import as_generator
from ..._threads import thin_blas
from .model import RBM
from ..statistics import PersistentContrastiveDivergence
from ..training import train


#: Largest hidden layer rbm_learning_curves scores exactly (2**20 hidden states: about a second per score).
MAX_CURVE_HIDDEN = 20


class RBMLearningCurve(NamedTuple):
    """Scores of one RBM along its training (see :func:`rbm_learning_curves`)."""

    n_hidden: int
    """Hidden units."""
    epochs: np.ndarray
    """Epochs at which the scores were taken, shape (k,), starting at 0."""
    train: np.ndarray
    """Exact mean log-likelihood of the training images, shape (k,)."""
    held_out: np.ndarray
    """Exact mean log-likelihood of the held-out images, shape (k,)."""
    held_out_pseudo: np.ndarray
    """Mean pseudo-log-likelihood of the held-out images, shape (k,)."""
    model: RBM
    """The trained RBM (after the last epoch)."""


def rbm_learning_curves(train_data, held_out_data, hidden_sizes=(4, 8, 16), *, epochs=60, every=5,
                        learning_rate=0.05, batch_size=20, n_chains=100, units="bits", progress=False,
                        rng=None):
    """Train one RBM per hidden-layer size with persistent CD and score it every few epochs.

    Each RBM starts from small random weights (``init_scale`` 0.01) and
    zero biases, and learns by :func:`~bmlib.train` with
    ``PersistentContrastiveDivergence(k=1, n_chains=n_chains)`` on
    mini-batches. Every ``every`` epochs (and at epoch 0) the exact mean
    log-likelihood of both image sets is computed by summing out the hidden
    layer, and the pseudo-log-likelihood of the held-out set beside it.

    Parameters
    ----------
    train_data, held_out_data : array_like of shape (P, n) and (Q, n)
        Images in ``units``, one per row.
    hidden_sizes : sequence of int
        Hidden-layer sizes, each between 1 and 20 (the exact likelihood
        enumerates the 2**n_hidden states of the hidden layer at every score).
    epochs : int
        Passes over the training images, >= 1.
    every : int
        Epochs between scores, >= 1.
    learning_rate : float
        > 0.
    batch_size : int
        Images per update, >= 1.
    n_chains : int
        Persistent chains of the free phase, >= 1.
    units : {"spins", "bits"}
    progress : bool or None
        A progress bar over all epochs of all sizes: True shows one at once,
        None after two seconds of work (as :func:`~bmlib.train`), False (the
        default) none. Off by default because this also runs inside loops,
        widgets and the book's chapters, where a bar that shows only on a slow
        machine would change what is printed.
    rng : None, int or numpy.random.Generator
        Initial weights and training; one generator for all sizes, in order.

    Returns
    -------
    dict of int to RBMLearningCurve
        One curve per size, in the order given.

    Examples
    --------
    >>> data = bm.bars_and_stripes(3, units="bits")
    >>> curves = bm.rbm_learning_curves(data[:10], data[10:], [4], epochs=20, every=10, batch_size=2, rng=0)
    >>> curve = curves[4]
    >>> curve.epochs.tolist(), bool(curve.train[-1] > curve.train[0])
    ([0, 10, 20], True)
    """
    units = check_units(units)
    train_data = _images(train_data, "train_data", units)
    held_out_data = _images(held_out_data, "held_out_data", units, n=train_data.shape[1])
    sizes = [check_count(k, "hidden_sizes", minimum=1) for k in check_sequence(hidden_sizes, "hidden_sizes")]
    for k in sizes:
        if k > MAX_CURVE_HIDDEN:
            raise ValueError(f"hidden_sizes must be at most {MAX_CURVE_HIDDEN} (the exact likelihood sums the "
                             f"2**n_hidden hidden states at every score); got {k}. For larger layers use "
                             f"bm.log_z_rbm_ais")
    if len(set(sizes)) != len(sizes):
        raise ValueError(f"hidden_sizes must be distinct; got {sizes}")
    epochs = check_count(epochs, "epochs", minimum=1)
    every = check_count(every, "every", minimum=1)
    learning_rate = check_real(learning_rate, "learning_rate", positive=True)
    batch_size = check_count(batch_size, "batch_size", minimum=1)
    n_chains = check_count(n_chains, "n_chains", minimum=1)
    progress = check_bool(progress, "progress", allow_none=True)
    gen = as_generator(rng)
    curves = {}
    with progress_bar(progress, total=epochs * len(sizes), desc="learning curves", unit="epoch") as bar:
        for n_hidden in sizes:
            curves[n_hidden] = _learning_curve(train_data, held_out_data, n_hidden, epochs, every, learning_rate,
                                               batch_size, n_chains, units, gen, bar)
    return curves


def _learning_curve(train_data, held_out_data, n_hidden, epochs, every, learning_rate, batch_size, n_chains, units,
                    gen, bar):
    """One size's curve for :func:`rbm_learning_curves`, one ``bar`` step per epoch."""
    rbm = RBM(train_data.shape[1], n_hidden, units=units, rng=gen)
    scores = [_scores(rbm, train_data, held_out_data, 0)]

    def record(epoch, model, value):
        bar.update()
        if epoch % every == 0 or epoch == epochs:
            scores.append(_scores(model, train_data, held_out_data, epoch))

    train(rbm, train_data, epochs=epochs, learning_rate=learning_rate, batch_size=batch_size,
          statistics=PersistentContrastiveDivergence(k=1, n_chains=n_chains), monitor=None,
          callback=record, progress=False, rng=gen)
    columns = np.array(scores).T
    return RBMLearningCurve(n_hidden, columns[0].astype(int), columns[1], columns[2], columns[3], rbm)


def _images(data, name, units, n=None):
    data = _as_real_array(data, name)
    _check_finite(data, name)
    if data.ndim != 2 or data.shape[0] < 1:
        raise ValueError(f"{name} must be a 2-D array of images, one per row; got shape {data.shape}")
    if n is not None and data.shape[1] != n:
        raise ValueError(f"{name} must have {n} columns, as the training images (train_data); got {data.shape[1]}")
    levels = LEVELS[units]
    if not np.all((data == levels[0]) | (data == levels[1])):
        raise ValueError(f"{name} must hold only {levels[0]:g} and {levels[1]:g} ({units}); got other values")
    return data


def _scores(rbm, train_data, held_out_data, epoch):
    return (epoch, rbm.log_likelihood(train_data), rbm.log_likelihood(held_out_data),
            rbm.pseudo_log_likelihood(held_out_data))


@renamed(steps="n_sweeps")
@thin_blas
def inpaint(rbm, images, missing, *, n_sweeps=200, burn_in=50, n_chains=10, rng=None):
    """Fill in unknown pixels: block Gibbs sampling with the known pixels clamped.

    For each image, ``n_chains`` chains start with the missing pixels at
    random and alternate ``h ~ p(h | v)`` and ``v ~ p(v | h)``, resetting
    the known pixels after every step, so they sample the missing pixels
    given the known ones. The result averages ``p(v_i on | h)`` (not the
    sampled 0/1) over the kept sweeps and chains: the same expectation, with
    less noise.

    Parameters
    ----------
    rbm : RBM
    images : array_like of shape (m, n_visible)
        Images in the RBM's units; the values at ``missing`` are ignored.
    missing : sequence of int
        Indices of the unknown pixels (the same for every image), distinct.
    n_sweeps : int
        Gibbs sweeps (v -> h -> v) kept per chain, >= 1.
    burn_in : int
        Sweeps run first and discarded, >= 0.
    n_chains : int
        Chains per image, >= 1.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of shape (m, n_visible)
        The probability that each pixel is on: 1 or 0 where it was known, the
        estimate where it was missing.

    Examples
    --------
    >>> import numpy as np
    >>> rbm = bm.RBM(2, 1, W=[[3.0], [3.0]], b_hidden=[-3.0], units="bits")
    >>> p = bm.inpaint(rbm, [[1, 0]], missing=[1], n_sweeps=2000, rng=0)
    >>> p.round(2).tolist()                 # rbm.complete gives 0.913 exactly
    [[1.0, 0.91]]
    """
    check_instance(rbm, "rbm", RBM, "a bm.RBM")
    rbm._check_parameters()
    images = rbm._check_data(images, "images")
    index = check_indices(missing, rbm.n_visible, "missing")
    n_sweeps = check_count(n_sweeps, "n_sweeps", minimum=1)
    burn_in = check_count(burn_in, "burn_in")
    n_chains = check_count(n_chains, "n_chains", minimum=1)
    m, n = images.shape
    check_memory(8.0 * m * n_chains * (2 * n + rbm.n_hidden), f"{m} images x {n_chains} chains (n_chains)")
    gen = as_generator(rng)
    known = np.ones(n, dtype=bool)
    known[index] = False
    V = np.repeat(images.astype(float), n_chains, axis=0)
    clamped = V[:, known].copy()
    V[:, ~known] = rbm._random_states(V.shape[0], gen)[:, ~known]
    total = np.zeros_like(V)
    for step in range(burn_in + n_sweeps):
        means = rbm._visible_means(rbm._sample_hidden(V, gen))
        V = rbm._sample_layer(means, gen).astype(float)
        V[:, known] = clamped
        if step >= burn_in:
            total += means
    low, high = LEVELS[rbm.units]
    on = (total / n_sweeps - low) / (high - low)  # the mean of a unit, as the probability that it is on
    on = on.reshape(m, n_chains, n).mean(axis=1)
    on[:, known] = (images[:, known] == high).astype(float)
    return on


def _features(x, name):
    x = _as_real_array(x, name)
    _check_finite(x, name)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise ValueError(f"{name} must be a 2-D array, one example per row; got shape {x.shape}")
    return x


def _labels(y, count, name, rows_name):
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != count:
        raise ValueError(f"{name} must be a 1-D array of {count} labels, one per row of {rows_name}; "
                         f"got shape {y.shape}")
    if not np.issubdtype(y.dtype, np.integer):
        raise TypeError(f"{name} must hold integer class labels; got dtype {y.dtype}")
    return y


def nearest_centroid_labels(train_features, train_labels, features):
    """Classify each row by the class whose mean training row is nearest (Euclidean).

    Parameters
    ----------
    train_features : array_like of shape (P, d)
    train_labels : array_like of int, shape (P,)
    features : array_like of shape (Q, d)

    Returns
    -------
    ndarray of int, shape (Q,)
        The nearest class for each row; at equal distances the smallest label.

    Examples
    --------
    >>> bm.nearest_centroid_labels([[0, 0], [0, 2], [4, 4]], [0, 0, 1], [[1, 1], [3, 3]]).tolist()
    [0, 1]
    """
    return _nearest(train_features, train_labels, features, "features")


def _nearest(train_features, train_labels, features, name):
    train_features = _features(train_features, "train_features")
    train_labels = _labels(train_labels, train_features.shape[0], "train_labels", "train_features")
    features = _features(features, name)
    if features.shape[1] != train_features.shape[1]:
        raise ValueError(f"{name} must have {train_features.shape[1]} columns, as train_features; "
                         f"got {features.shape[1]}")
    classes = np.unique(train_labels)  # sorted: argmin's first minimum is the smallest label
    centroids = np.array([train_features[train_labels == c].mean(axis=0) for c in classes])
    # Differences, not the expanded |x|^2 - 2 x.c + |c|^2: equal distances must come out equal.
    distances = np.stack([((features - c) ** 2).sum(axis=1) for c in centroids], axis=1)
    return classes[np.argmin(distances, axis=1)]


def nearest_centroid_accuracy(train_features, train_labels, test_features, test_labels):
    """Fraction of test rows that :func:`nearest_centroid_labels` classifies correctly.

    Parameters
    ----------
    train_features : array_like of shape (P, d)
    train_labels : array_like of int, shape (P,)
    test_features : array_like of shape (Q, d)
    test_labels : array_like of int, shape (Q,)

    Returns
    -------
    float

    Examples
    --------
    >>> bm.nearest_centroid_accuracy([[0, 0], [4, 4]], [0, 1], [[1, 1], [3, 3], [0, 1]], [0, 1, 1])
    0.6666666666666666
    """
    predicted = _nearest(train_features, train_labels, test_features, "test_features")
    test_labels = _labels(test_labels, predicted.shape[0], "test_labels", "test_features")
    return float(np.mean(predicted == test_labels))
