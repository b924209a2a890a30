"""What a machine trained on the n-m-n encoder does: its hidden codes and its completions.

A machine has solved the encoder (Ackley, Hinton & Sejnowski 1985) when

codes
    each pattern ``k`` (both visible groups at pattern ``k``) has its own
    most probable hidden state ``h_k = argmax_h p(h | v_k)``, and the ``n``
    codes are distinct (the paper's "four different codes" for 4-2-4);
completion
    with either visible group clamped to pattern ``k``, the most probable
    state of the other group, the hidden units summed out, is pattern ``k``'s.

Both are computed exactly by enumeration (``"exact"``: the stochastic
machine at its ``T``), or from mean-field fixed points (``"mean_field"``:
the deterministic machine, units read as on where ``m_i`` is above the
midpoint of the two levels).

Explained in the chapter "Hidden units".
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import LEVELS, check_choice, check_exact_size
from .._random import as_generator
from .._ties import first_best_along_rows
from ..models.datasets import encoder_patterns
from ..exact.clamped import clamped_log_partition
from ..meanfield.theories import naive_mean_field
from ..models.states import all_states
from .machine import BoltzmannMachine


@dataclass(frozen=True)
class EncoderReport:
    """How a machine handles the n-m-n encoder patterns; see :func:`encoder_report`.

    Attributes
    ----------
    codes : ndarray of shape (n_group, n_hidden), dtype int8
        Row ``k``: the hidden state given pattern ``k`` on both groups.
    completions : ndarray of shape (2, n_group, n_group), dtype int8
        ``completions[0, k]``: the second group completed with the first
        clamped to pattern ``k``; ``completions[1, k]`` the other way round.
    distinct : bool
        Whether the ``n_group`` codes are all different.
    completed : ndarray of shape (2, n_group), dtype bool
        Whether each completion is the pattern's own group, and decided: for
        ``"exact"``, the machine gives that group a probability above one
        half given the clamped group, so that two completions at 0.49 each
        (a coin flip) do not count as right even when the tie goes the
        right way; for ``"mean_field"``, every completed unit's mean lies
        at least 0.1 of its range away from the midpoint.
    method : {"exact", "mean_field"}
    completion_probabilities : ndarray of shape (2, n_group)
        For ``"exact"``: the machine's probability of the right completion
        given the clamped group; ``nan`` for ``"mean_field"``.
    """

    codes: np.ndarray
    completions: np.ndarray
    distinct: bool
    completed: np.ndarray
    method: str
    completion_probabilities: np.ndarray

    @property
    def perfect(self):
        """Distinct codes and every completion right, in both directions."""
        return bool(self.distinct and self.completed.all())


def _check_encoder_machine(machine):
    if not isinstance(machine, BoltzmannMachine):
        raise TypeError(f"machine must be a bmlib BoltzmannMachine; got {type(machine).__name__}")
    machine._check_parameters()
    if machine.n_visible % 2 or machine.n_visible < 4 or machine.n_hidden < 1:
        raise ValueError(
            "machine must have two visible groups of n_group >= 2 units and at least one hidden unit "
            f"(see encoder_mask); got n_visible = {machine.n_visible}, n_hidden = {machine.n_hidden}"
        )
    return machine.n_visible // 2


def _exact(machine, patterns, groups):
    g, m = len(patterns), machine.n_hidden
    check_exact_size(g + m, "the exact encoder report")
    W, b, T, units = machine.W, machine.b, machine.T, machine.units
    H = all_states(m, units).astype(float)
    states = np.concatenate([np.broadcast_to(patterns[:, None, :], (g, len(H), 2 * g)),
                             np.broadcast_to(H, (g, len(H), m))], axis=2)
    # Hidden states whose energies tie to rounding go to the first in all_states order.
    codes = H[first_best_along_rows(machine.energy(states), largest=False)]
    options = all_states(g, units).astype(float)  # every state of the group to complete
    completions, right = [], []
    for this, other in groups:
        values = np.zeros((g, len(options), 2 * g))
        values[:, :, this] = patterns[:, None, this]
        values[:, :, other] = options
        log_z = clamped_log_partition(W, b, T, units, clamped=np.arange(2 * g), values=values.reshape(-1, 2 * g))
        log_z = log_z.reshape(g, len(options))
        completions.append(options[first_best_along_rows(log_z)])
        # p(other group = its own pattern | this group), a softmax over the completions.
        target = np.array([np.flatnonzero((options == patterns[k, other]).all(axis=1))[0] for k in range(g)])
        top = log_z.max(axis=1, keepdims=True)
        p = np.exp(log_z - top) / np.exp(log_z - top).sum(axis=1, keepdims=True)
        right.append(p[np.arange(g), target])
    return codes, np.array(completions), np.array(right)


#: A completion counts as decided when its probability of the right group exceeds this.
_DECIDED_PROBABILITY = 0.5
#: ... or, for mean field, when every completed mean is this fraction of its range from the midpoint.
_DECIDED_MEAN = 0.1


#: Half-width around the midpoint inside which a mean-field unit counts as undecided (read as low).
_UNDECIDED = 1e-9


def _mean_field(machine, patterns, groups, rng):
    g, gen = len(patterns), as_generator(rng)
    W, b, T, units = machine.W, machine.b, machine.T, machine.units
    middle = 0.0 if units == "spins" else 0.5
    low = LEVELS[units][0]

    def read(m):
        # A mean at the midpoint up to rounding (a symmetric solution) reads as low on every machine.
        return np.where(m > middle + _UNDECIDED, 1.0, low)

    codes = [read(naive_mean_field(W, b, T, units, clamped=np.arange(2 * g), values=v, rng=gen).m[2 * g:])
             for v in patterns]
    means = np.array([[naive_mean_field(W, b, T, units, clamped=this, values=v[this], rng=gen).m[other]
                       for v in patterns] for this, other in groups])
    span = 1.0 - low
    decided = (np.abs(means - middle) >= _DECIDED_MEAN * span).all(axis=2)
    return np.array(codes), read(means), decided


def encoder_report(machine, method="exact", rng=None):
    """Hidden codes and completions of a machine trained on the encoder patterns.

    Parameters
    ----------
    machine : BoltzmannMachine
        Visible units ``0 .. 2 n_group - 1`` in two groups (as
        :func:`~bmlib.encoder_mask`), at least one hidden unit.
    method : {"exact", "mean_field"}
        ``"exact"``: the most probable codes and completions of the machine
        at its ``T``, by enumeration (``n_group + n_hidden`` units at a
        time). ``"mean_field"``: read off the naive mean-field solutions with
        the pattern (or one group) clamped, as a deterministic Boltzmann
        machine would answer (a unit whose mean is within 1e-9 of the
        midpoint reads as low).
    rng : None, int or numpy.random.Generator
        Random starts of the mean-field solver (unused for "exact").

    Returns
    -------
    EncoderReport
        ``codes``, ``completions``, ``distinct``, ``completed`` and ``perfect``.

    Notes
    -----
    Explained in the chapter "Hidden units".

    Examples
    --------
    A hand-made solution of the 4-2-4 encoder in bits: pattern ``k`` uses the
    hidden code ``k`` in binary (weights +-4 between visible and hidden
    units, -4 inside a group, biases that favour a unit whose code matches):

    >>> import numpy as np
    >>> import bmlib as bm
    >>> codes = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> W = np.zeros((10, 10))
    >>> for group in (range(0, 4), range(4, 8)):
    ...     for k, i in enumerate(group):
    ...         W[i, 8:] = W[8:, i] = 4 * (2 * codes[k] - 1)
    ...         W[i, [j for j in group if j != i]] = -4
    >>> b = np.r_[np.tile(-4 * codes.sum(axis=1) + 2, 2), [0, 0]]
    >>> machine = bm.BoltzmannMachine(8, 2, mask=bm.encoder_mask(4, 2), W=W, b=b, units="bits")
    >>> report = bm.encoder_report(machine)
    >>> report.perfect, report.codes.tolist()
    (True, [[0, 0], [0, 1], [1, 0], [1, 1]])
    """
    g = _check_encoder_machine(machine)
    method = check_choice(method, "method", ("exact", "mean_field"))
    rng = as_generator(rng)  # checked even where the exact method does not draw from it
    patterns = encoder_patterns(g, machine.units).astype(float)
    groups = ((np.arange(g), np.arange(g, 2 * g)), (np.arange(g, 2 * g), np.arange(g)))
    targets = np.stack([patterns[:, g:], patterns[:, :g]])
    if method == "exact":
        codes, completions, p_right = _exact(machine, patterns, groups)
        decided = p_right > _DECIDED_PROBABILITY
    else:
        codes, completions, decided = _mean_field(machine, patterns, groups, rng)
        p_right = np.full((2, g), np.nan)
    return EncoderReport(
        codes=codes.astype(np.int8),
        completions=completions.astype(np.int8),
        distinct=len({tuple(c) for c in codes.tolist()}) == g,
        completed=(completions == targets).all(axis=2) & decided,
        method=method,
        completion_probabilities=p_right,
    )
