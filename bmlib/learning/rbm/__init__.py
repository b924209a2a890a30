"""Everything RBM in one place: the model, its sampler, its exact and estimated log Z, and its studies.

==============  ================================================================
module          what it holds
==============  ================================================================
model           ``RBM`` and ``RBMGradient``: parameters, conditionals, energy,
                free energy, the exact gradient
block_gibbs     the block Gibbs sampler (``gibbs``, ``sample``, ...), through
                the heat-bath rule's layer form
likelihood      exact log Z, log p(v), likelihoods and the free-phase moments,
                by summing out one layer; ``complete`` fills in missing units
exact           ``rbm_log_partition``: enumerate only the smaller layer
ais             ``log_z_rbm_ais``: AIS with the hidden units summed out
tempering       ``rbm_parallel_tempering``: block Gibbs replicas that exchange
images          what an RBM learns from images: learning curves, inpainting,
                hidden units as features (the chapter "Learning real images")
==============  ================================================================

The learning itself (CD, PCD, ``train``) is the same for every machine and
lives one level up, in :mod:`bmlib.learning`. The public names are flat in
:mod:`bmlib`; this package re-exports those of the former module
``bmlib.learning.rbm`` (``from bmlib.learning.rbm import RBM`` keeps working).
"""
from .model import RBM, RBMGradient

__all__ = ["RBM", "RBMGradient"]
