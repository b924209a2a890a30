"""What :func:`~bmlib.train` returns: the record of a run, and the best epoch's parameters to go back to.

Kept apart from :mod:`bmlib.learning.training` (which re-exports it) so that the
record a reader plots and the loop that fills it are each one short module.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .machine import BoltzmannMachine
from .rbm import RBM


@dataclass
class TrainingHistory:
    """What :func:`train` records, one entry per epoch.

    Attributes
    ----------
    epochs : ndarray of shape (n_epochs + 1,)
        0 (before training), 1, ..., n_epochs.
    values : ndarray of shape (n_epochs + 1,)
        The monitored quantity after each epoch, in nats per pattern (empty
        if nothing was monitored).
    monitor : str or None
        What ``values`` holds: ``"log_likelihood"`` (exact),
        ``"pseudo_log_likelihood"``, the name of a callable, or None.
    statistics : callable
        The provider that gave the statistics.
    velocity : dict of str to ndarray
        The last step of every parameter (what momentum carries into the
        next one). Pass the history as ``resume=`` to :func:`train` to go on
        with the same momentum, provider (persistent chains) and epoch count.
    stopped_early : bool
        True if the ``callback`` ended training before ``epochs``.
    best_epoch : int or None
        The epoch (counted as ``epochs``) with the highest monitored value of
        this run, the first one on a tie (epoch 0 if training never improved
        on the start); None without a monitor or with a callable one (whose
        direction, higher or lower is better, bmlib cannot know).
    best_parameters : dict of str to ndarray
        Copies of the model's parameters (``W`` and the biases, named as in
        ``model.parameter_names``) at ``best_epoch``; empty when
        ``best_epoch`` is None. :meth:`restore_best` puts them back into the model.
    """

    epochs: np.ndarray
    values: np.ndarray
    monitor: str | None
    statistics: object
    velocity: dict = field(default_factory=dict, repr=False)
    stopped_early: bool = False
    best_epoch: int | None = None
    best_parameters: dict = field(default_factory=dict, repr=False)

    def __repr__(self):
        last = f", last value {self.values[-1]:.4f}" if len(self.values) else ""
        best = f", best at epoch {self.best_epoch}" if self.best_epoch is not None else ""
        return f"TrainingHistory({len(self.epochs) - 1} epochs, monitor={self.monitor!r}{last}{best})"

    def restore_best(self, model):
        """Put the parameters of :attr:`best_epoch` back into ``model`` (in place) and return it.

        Parameters
        ----------
        model : BoltzmannMachine or RBM
            The model this history trained (or one of the same shape).

        Returns
        -------
        BoltzmannMachine or RBM
            ``model``, now with the best epoch's ``W`` and biases (copies:
            training it further leaves the history unchanged).

        Raises
        ------
        ValueError
            If nothing was monitored (no best epoch), or ``model``'s
            parameters do not have the shapes recorded.

        Examples
        --------
        >>> import bmlib as bm
        >>> data = bm.bars_and_stripes(3)
        >>> machine = bm.BoltzmannMachine(9, rng=0)
        >>> import warnings
        >>> with warnings.catch_warnings(record=True):  # a step of 2 overshoots at once: a TrainingWarning
        ...     history = bm.train(machine, data, epochs=100, learning_rate=2.0)
        >>> history.best_epoch, history.values[[0, 1]].round(2), bool(history.values[-1] < -20)
        (1, array([-6.12, -3.89]), True)
        >>> round(history.restore_best(machine).log_likelihood(data), 2)
        -3.89
        """
        model = _check_model(model)
        if self.best_epoch is None:
            raise ValueError("restore_best needs a monitored run: this history has no best epoch "
                             f"(monitor={self.monitor!r})")
        for p in model.parameter_names:
            if p not in self.best_parameters or np.shape(self.best_parameters[p]) != np.shape(getattr(model, p)):
                raise ValueError(f"model must be the one this history trained: its {p} has shape "
                                 f"{np.shape(getattr(model, p))}, the best parameters' "
                                 f"{np.shape(self.best_parameters.get(p))}")
        for p in model.parameter_names:
            setattr(model, p, np.array(self.best_parameters[p], dtype=float))
        return model


def _check_model(model):
    if not isinstance(model, (BoltzmannMachine, RBM)):
        raise TypeError(f"model must be a bmlib BoltzmannMachine or RBM; got {type(model).__name__}")
    return model
