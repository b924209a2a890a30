"""Learning: models with a log-likelihood and its gradient, sources of statistics, training.

=================  ==========================================================
module             idea
=================  ==========================================================
``machine``        BoltzmannMachine (visible + hidden units, connectivity mask)
``rbm``            RBM (bipartite; block Gibbs; exact likelihood of small layers)
``statistics``     providers of the clamped and free statistics (exact, sampled, CD, PCD)
``annealed``       the annealed two-phase procedure of Ackley, Hinton & Sejnowski (1985)
``deterministic``  mean-field statistics: the deterministic Boltzmann machine (1987)
``encoder``        hidden codes and completions of a machine trained on the encoder
``cd_theory``      the exact expected CD-k update of a tiny RBM, and its Jacobian
``training``       gradient ascent with momentum, weight decay, mini-batches
``held_out``       learning curves on training and held-out data, with weight decay
=================  ==========================================================

The names are re-exported flat from :mod:`bmlib`.
"""
from .annealed import AnnealedStatistics
from .cd_theory import cd_update_spread, expected_cd_update, update_jacobian
from .deterministic import MeanFieldStatistics
from .encoder import EncoderReport, encoder_report
from .held_out import HeldOutCurve, held_out_curves
from .machine import BoltzmannMachine, BoltzmannMachineGradient, encoder_mask
from .rbm import RBM, RBMGradient
from .statistics import (
    ContrastiveDivergence,
    PersistentContrastiveDivergence,
    SampledStatistics,
    exact_statistics,
)
from .training import TrainingHistory, TrainingWarning, train

__all__ = [
    "cd_update_spread",
    "expected_cd_update",
    "update_jacobian",
    "HeldOutCurve",
    "held_out_curves",
    "RBM",
    "RBMGradient",
    "AnnealedStatistics",
    "BoltzmannMachine",
    "BoltzmannMachineGradient",
    "ContrastiveDivergence",
    "EncoderReport",
    "MeanFieldStatistics",
    "PersistentContrastiveDivergence",
    "SampledStatistics",
    "TrainingHistory",
    "TrainingWarning",
    "encoder_mask",
    "encoder_report",
    "exact_statistics",
    "train",
]
