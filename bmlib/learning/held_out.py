"""Learning curves on training and held-out data, with and without weight decay.

A machine trained to the maximum likelihood of its training set also learns
the set's accidents; how much shows only on data it never saw. Weight decay
(an L2 penalty ``weight_decay * w_ij`` subtracted from each weight's
gradient) keeps the weights small and trades a little training likelihood
for held-out likelihood. Explained in the chapter "The learning rule".
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._checks import check_count, check_data, check_real, check_sequence, check_units
from .machine import BoltzmannMachine
from .training import train


class HeldOutCurve(NamedTuple):
    """Exact log-likelihoods per epoch on the training and the held-out data."""

    epochs: np.ndarray
    """0, 1, ..., epochs."""
    train: np.ndarray
    """Mean log-likelihood of the training data after each epoch."""
    held_out: np.ndarray
    """Mean log-likelihood of the held-out data after each epoch."""


def held_out_curves(train_data, held_out_data, weight_decays=(0.0,), epochs=300, learning_rate=0.1,
                    units="spins"):
    """Train a machine without hidden units from W = 0 for each weight decay, scoring both data sets.

    Exact statistics and exact log-likelihoods (enumeration), so the curves
    carry no sampling noise; ``n`` is at most about 20.

    Parameters
    ----------
    train_data, held_out_data : array_like of shape (P, n) and (Q, n)
        Patterns in ``units``.
    weight_decays : sequence of float
        Penalties to compare, each >= 0.
    epochs : int
    learning_rate : float
    units : {"spins", "bits"}

    Returns
    -------
    dict of float to HeldOutCurve
        One curve per weight decay, in the order given.

    Examples
    --------
    >>> data = bm.ten_pixel_images()
    >>> curves = bm.held_out_curves(data[:20], data[20:], weight_decays=[0.0], epochs=50)
    >>> curve = curves[0.0]
    >>> bool(curve.train[-1] > curve.train[0]), curve.train.shape
    (True, (51,))
    """
    units = check_units(units)
    arr = np.asarray(train_data)
    if arr.ndim != 2 or 0 in arr.shape:
        raise ValueError(f"train_data must have shape (P, n), one row per pattern, P and n >= 1; got shape {arr.shape}")
    n = arr.shape[1]
    train_data = check_data(arr, n, units, "train_data")
    held = np.asarray(held_out_data)
    if held.ndim != 2 or held.shape[1] != n:
        raise ValueError(f"held_out_data must have one column per unit, as many as train_data has ({n}): "
                         f"shape (Q, {n}); got shape {held.shape}")
    held_out_data = check_data(held, n, units, "held_out_data")
    decays = [check_real(d, f"weight_decays[{k}]", nonnegative=True)
              for k, d in enumerate(check_sequence(weight_decays if np.ndim(weight_decays) else [weight_decays],
                                                    "weight_decays", "a sequence of penalties"))]
    epochs = check_count(epochs, "epochs", minimum=1)
    curves = {}
    for decay in decays:
        machine = BoltzmannMachine(n, units=units, init_scale=0.0)
        held = [machine.log_likelihood(held_out_data)]
        history = train(machine, train_data, epochs=epochs, learning_rate=learning_rate, weight_decay=decay,
                        monitor="log_likelihood", progress=False,
                        callback=lambda e, model, value: held.append(model.log_likelihood(held_out_data)))
        curves[decay] = HeldOutCurve(history.epochs, history.values, np.array(held))
    return curves
