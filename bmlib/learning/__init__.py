"""Learning: models with a log-likelihood and its gradient, sources of statistics, training.

=================  ==========================================================
module             idea
=================  ==========================================================
``machine``        BoltzmannMachine (visible + hidden units, connectivity mask)
``rbm``            RBM (bipartite; block Gibbs; exact likelihood of small layers)
``statistics``     providers of the clamped and free statistics (exact, CD, PCD)
``training``       gradient ascent with momentum, weight decay, mini-batches
=================  ==========================================================

The names are re-exported flat from :mod:`bmlib`.
"""
from .machine import BoltzmannMachine, encoder_mask
from .rbm import RBM
from .statistics import ContrastiveDivergence, PersistentContrastiveDivergence, exact_statistics
from .training import TrainingHistory, train

__all__ = [
    "RBM",
    "BoltzmannMachine",
    "ContrastiveDivergence",
    "PersistentContrastiveDivergence",
    "TrainingHistory",
    "encoder_mask",
    "exact_statistics",
    "train",
]
