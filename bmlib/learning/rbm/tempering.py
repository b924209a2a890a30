"""Parallel tempering for a restricted Boltzmann machine: block Gibbs replicas that trade visible states.

Each replica ``k`` samples the visible marginal of the RBM at its own
temperature ``T_k``, ``p_k(v) ~ exp(-F_{T_k}(v) / T_k)`` with the free energy
``F_T(v) = -T log sum_h exp(-E(v, h) / T)``, by one block Gibbs round
``v -> h -> v'`` per step. After every round, neighbouring temperatures
propose to exchange their visible states, accepted with probability

    min(1, p_k(v_{k+1}) p_{k+1}(v_k) / (p_k(v_k) p_{k+1}(v_{k+1}))),

which keeps the product of the K marginals invariant, so the replica at the
lowest temperature samples the model while states from the hot end, where
the landscape is flat, keep arriving in other valleys. The hidden units are
summed out in the exchange (the free energies), so nothing but ``v`` is
carried between rounds. The rounds (exchange proposals, acceptance counts,
the record) are those of the general parallel tempering,
:func:`bmlib.sampling.tempering.exchange_rounds`; this module brings the
RBM's sweep and exchange ratio. Explained in the chapter "Learning real images".
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from ..._checks import check_bool, check_count, check_instance, check_memory
from ..._random import as_generator
from ..._threads import thin_blas
from .model import RBM
from ...sampling.tempering import check_ladder, exchange_rounds


class RBMTemperingResult(NamedTuple):
    """The samples of an RBM parallel-tempering run (see :func:`rbm_parallel_tempering`).

    As :class:`~bmlib.TemperingResult`, field for field, but what is
    recorded beside each visible state is its free energy ``F_{T_k}(v)``
    (the hidden units summed out), not an energy: hence ``free_energies``.
    ``energies``, the name in 1.0, still reads it, with a DeprecationWarning.
    """

    temperatures: np.ndarray
    """The temperatures, increasing, shape (K,)."""
    samples: np.ndarray
    """Visible states kept after each round, shape (n_samples, K, n_visible), int8."""
    free_energies: np.ndarray
    """Their free energies ``F_{T_k}(v) = -T_k log sum_h exp(-E(v, h) / T_k)``, shape (n_samples, K)."""
    swap_acceptance: np.ndarray
    """Fraction of accepted swaps between temperatures k and k+1, shape (K - 1,)."""
    replica_temperature: np.ndarray
    """Index of the temperature each replica holds after each round, shape (n_samples, K)."""

    @property
    def energies(self):
        """The 1.0 name of :attr:`free_energies` (deprecated: they are free energies, not energies)."""
        warnings.warn("RBMTemperingResult.energies is now free_energies (they are the visible states' free "
                      "energies F_T(v), not energies); energies is accepted until bmlib 2.0",
                      DeprecationWarning, stacklevel=2)
        return self.free_energies


@thin_blas
def rbm_parallel_tempering(rbm, temperatures=(1.0, 1.5, 2.0), *, n_samples=1000, burn_in=100, initial=None,
                           progress=False, rng=None):
    """Sample an RBM's visible units at several temperatures at once, exchanging states between them.

    Parameters
    ----------
    rbm : RBM
        The model; its own ``T`` is ignored in favour of ``temperatures``
        (pass ``rbm.T`` as the lowest to sample the model itself).
    temperatures : sequence of float
        At least two, all > 0 and strictly increasing.
    n_samples : int
        Rounds kept after the burn-in, >= 1. A round is one block Gibbs step
        of every replica, then exchange proposals between neighbours (pairs
        (0, 1), (2, 3), ... in even rounds, (1, 2), (3, 4), ... in odd ones).
    burn_in : int
        Rounds discarded first, >= 0.
    initial : array_like of shape (n_visible,) or (K, n_visible), optional
        Starting visible states (default: uniformly random).
    progress : bool or None
        A progress bar over the rounds (burn-in included): True shows one at
        once, None after two seconds of work (as :func:`~bmlib.train`), False
        (the default) none. Off by default because this also runs inside
        loops, widgets and the book's chapters, where a bar that shows only on
        a slow machine would change what is printed.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    RBMTemperingResult
        ``samples`` of shape (n_samples, K, n_visible), int8: the visible
        state at each temperature; ``free_energies``: the free energy
        ``F_{T_k}(v)`` of each; ``swap_acceptance`` per neighbouring pair;
        ``replica_temperature``: the temperature index each replica holds
        after each round.

    Examples
    --------
    Two visible bits tied by a strong hidden unit: both on, or both off. A
    single chain at T = 0.5 keeps its pair for hundreds of steps; with
    replicas up to T = 4 both pairs are visited about equally.

    >>> import numpy as np
    >>> rbm = bm.RBM(2, 1, W=[[6.0], [6.0]], b_visible=[-3.0, -3.0], b_hidden=[-6.0], units="bits")
    >>> run = bm.rbm_parallel_tempering(rbm, [0.5, 1.0, 2.0, 4.0], n_samples=4000, rng=0)
    >>> both_on = np.all(run.samples[:, 0] == 1, axis=1).mean()
    >>> round(float(both_on), 1)
    0.5
    """
    check_instance(rbm, "rbm", RBM, "a bm.RBM")
    rbm._check_parameters()
    T = check_ladder(temperatures)
    n_samples = check_count(n_samples, "n_samples", minimum=1)
    burn_in = check_count(burn_in, "burn_in")
    progress = check_bool(progress, "progress", allow_none=True)
    K, n = T.size, rbm.n_visible
    check_memory(1.0 * n_samples * K * (n + 18), f"{n_samples} rounds of {K} replicas of {n} units (n_samples)")
    gen = as_generator(rng)
    replicas = []
    for Tk in T:
        replica = rbm.copy()
        replica.T = float(Tk)
        replicas.append(replica)
    if initial is None:
        V = rbm._random_states(K, gen).astype(float)
    else:
        V = np.array(np.broadcast_to(rbm._check_data(initial, "initial"), (K, n)), dtype=float)

    def sweep(states, gen):
        # One block Gibbs round v -> h -> v' of every replica at its own temperature, in place.
        for k, replica in enumerate(replicas):
            states[k] = replica._sample_visible(replica._sample_hidden(states[k:k + 1], gen), gen)[0]
        return states

    def free_energies(states):
        # F_k of the state held at temperature k; log p_k(v) = -F_k(v) / T_k + constant.
        return np.array([replicas[k]._free_energy(states[k:k + 1])[0] for k in range(K)])

    def exchange(k, states, F):
        # log of the exchange ratio: each state scored at the other temperature, minus as they are.
        F_k_of_next = replicas[k]._free_energy(states[k + 1:k + 2])[0]
        F_next_of_k = replicas[k + 1]._free_energy(states[k:k + 1])[0]
        log_ratio = (-(F_k_of_next / T[k]) - F_next_of_k / T[k + 1]) + (F[k] / T[k] + F[k + 1] / T[k + 1])
        return log_ratio, F_k_of_next, F_next_of_k

    run = exchange_rounds(T, V, sweep, free_energies, exchange, n_samples=n_samples, burn_in=burn_in, gen=gen,
                          progress=progress)
    return RBMTemperingResult(*run)
