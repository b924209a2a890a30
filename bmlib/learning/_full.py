"""What the sampled and mean-field providers share: any model seen as one full machine.

Both providers work on ``E(s) = -1/2 s^T W s - b^T s`` over all units, visible
first. A :class:`~bmlib.BoltzmannMachine` is that already; an
:class:`~bmlib.RBM` becomes it through :meth:`~bmlib.RBM.to_boltzmann_machine`,
and its statistics are cut back to the RBM's layout (the ``<v_i h_j>`` block).
"""
from __future__ import annotations

import numpy as np

from .machine import BoltzmannMachine
from .rbm import RBM


def full_machine(model, who):
    """The model as a :class:`BoltzmannMachine` (the model itself if it is one), checked for changes since construction."""
    if isinstance(model, BoltzmannMachine):
        model._check_parameters()
        return model
    if isinstance(model, RBM):
        model._check_parameters()
        return model.to_boltzmann_machine()
    raise TypeError(f"{who} needs a bmlib BoltzmannMachine or RBM; got {type(model).__name__}")


def in_model_layout(model, mean, second):
    """Full-machine statistics ``(mean (n,), second (n, n))`` in the layout ``model`` expects."""
    if isinstance(model, RBM):
        return mean, second[: model.n_visible, model.n_visible :]
    return mean, second


def state_moments(states):
    """``(mean, second)`` of states of shape (..., n): averages of ``s_i`` and ``s_i s_j`` over all rows."""
    S = np.asarray(states, dtype=float).reshape(-1, np.shape(states)[-1])
    return S.mean(axis=0), S.T @ S / len(S)


def listed(indices):
    """Indices as a plain list for a repr (None stays None)."""
    return None if indices is None else [int(i) for i in indices]
