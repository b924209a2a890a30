"""Self-check for a from-scratch Gibbs sampler (chapter "Sampling: heat bath and Metropolis")."""
from __future__ import annotations

import numpy as np

from .._numerics import sigmoid as _sigmoid
from ..exact.enumeration import boltzmann_distribution
from ..models.states import all_states
from ._common import _SEED, _call, _clean, _fix, _real, _shape, fits_column

# --- one sequential heat-bath sweep, run as a chain (chapter "Sampling: heat bath and Metropolis") ------

_GIBBS_SWEEPS = 6000  # sweeps per case, after the burn-in
_GIBBS_BURN_IN = 50
_GIBBS_BATCHES = 20  # batch means, for an error bar that holds for any correct sweep
_GIBBS_Z = 5.0  # a state's frequency must lie within this many standard errors of p(s)


def _gibbs_cases():
    """(W, b, T) for spins: 3 and 4 units, T = 0.5, 1 and 2, weights and biases in steps of 0.5."""
    rng = np.random.default_rng(_SEED + 31)
    cases = []
    for n, T in ((3, 1.0), (4, 2.0), (4, 0.5)):
        A = np.triu(rng.integers(-2, 3, size=(n, n)) / 2, 1)
        b = rng.integers(-1, 2, size=n) / 2
        cases.append((A + A.T, b, T))
    return cases


def _state_index(states):
    """Index of each spin state in all_states order (first unit most significant, -1 before +1)."""
    n = states.shape[-1]
    return ((states > 0).astype(int) * (1 << np.arange(n - 1, -1, -1))).sum(axis=-1)


def _exact_error(W, b, T, n_sweeps):
    """Standard error of every state's frequency after ``n_sweeps`` sequential heat-bath sweeps.

    From the exact sweep matrix P: the asymptotic variance of an indicator f is
    sum_s p(s) g(s) (2 (Z g)(s) - g(s)), with g = f - p(f) and Z the fundamental
    matrix (I - P + 1 p^T)^-1.
    """
    from ..sampling import transition_matrix

    P = transition_matrix(W, b, T)
    p = boltzmann_distribution(W, b, T)
    Z = np.linalg.inv(np.eye(len(p)) - P + np.outer(np.ones(len(p)), p))
    G = np.eye(len(p)) - p[None, :]  # column k: the indicator of state k, centred
    variance = np.einsum("s,sk,sk->k", p, G, 2 * Z @ G - G)
    return np.sqrt(np.maximum(variance, p * (1 - p)) / n_sweeps)


def _run_chain(func, case, k):
    """Run the reader's sweep as a chain; return (state indices after the burn-in, None) or (None, message)."""
    W, b, T = case
    n = len(b)
    rng = np.random.default_rng(_SEED + 40 + k)
    s = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)  # start in +-+- ...
    visited = np.empty((_GIBBS_BURN_IN + _GIBBS_SWEEPS, n))
    for t in range(len(visited)):
        value, error = _call(func, (s, W, b, T, rng), k)
        if error:
            return None, error + ("" if "None" not in error else " If you update s in place, also return it.")
        if _shape(value) != (n,):
            return None, (f"Input {k}: your sweep returned shape {_shape(value)}; expected ({n},), "
                          "the new state of every unit.")
        try:
            s = _real(value)
        except (TypeError, ValueError):
            return None, f"Input {k}: your sweep returned {value!r:.60}; expected an array of spins."
        visited[t] = s
    if not np.all(np.isin(visited, (-1.0, 1.0))):
        bad = visited[~np.isin(visited, (-1.0, 1.0))][0]
        return None, (f"Input {k}: your sweep returned a unit with value {bad:g}; spins are +1 or -1"
                      + (" (0 and 1 are bits)." if bad == 0 else "."))
    return _state_index(visited[_GIBBS_BURN_IN:]), None


def _parallel_distribution(W, b, T):
    """Stationary distribution of a 'sweep' that updates every unit from the OLD state (heat bath, spins)."""
    S = all_states(len(b)).astype(float)
    p_plus = _sigmoid(2 * (S @ W + b) / T)  # row: the old state; column: unit
    P = np.prod(np.where(S[None, :, :] > 0, p_plus[:, None, :], 1 - p_plus[:, None, :]), axis=2)
    values, vectors = np.linalg.eig(P.T)
    pi = np.abs(np.real(vectors[:, np.argmin(np.abs(values - 1))]))
    return pi / pi.sum()


# The distribution a plausible wrong sweep samples in the long run, and what to tell its author.
_GIBBS_MISTAKES = [
    (lambda W, b, T: boltzmann_distribution(W, b, 2 * T),
     "Your chain samples the distribution at temperature 2T: the factor 2 is missing from p(s_i = +1 | rest) = "
     "1 / (1 + exp(-2 h_i / T)). Without it you used the rule for bits (0/1); for spins the two values of s_i "
     "differ in energy by 2 h_i."),
    (lambda W, b, T: boltzmann_distribution(-W, -b, T),
     "Your chain prefers HIGH energies: the sign in the exponent is flipped, or +1 and -1 are swapped. A unit "
     "must follow its field: s_i = +1 with probability 1 / (1 + exp(-2 h_i / T))."),
    (lambda W, b, T: boltzmann_distribution(W, b, 1 / T),
     "You multiplied by T instead of dividing: the exponent is -2 h_i / T (a high T must make the chain MORE "
     "random)."),
    (lambda W, b, T: boltzmann_distribution(W, b, 1.0),
     "The temperature is missing: the exponent is -2 h_i / T (the inputs use T = 0.5, 1 and 2)."),
    (lambda W, b, T: boltzmann_distribution(W, np.zeros_like(b), T),
     "Your local field leaves out the bias: h_i = sum_j w_ij s_j + b_i."),
    (_parallel_distribution,
     "You update every unit from the OLD state (h = W @ s + b once, before the loop). That chain does not "
     "sample p(s): a Gibbs sweep visits the units in turn, and each one's field uses the NEW values of the "
     "units already updated. Compute h_i = W[i] @ s + b[i] inside the loop, right before you set s[i]."),
]


@fits_column
def check_gibbs_sampler(func, *, hint=False):
    """Check a reader's Gibbs sweep ``func(s, W, b, T, rng)`` by the long-run frequencies of its chain.

    The function must return the state after one sweep of heat-bath updates
    (spins): each unit ``i`` in turn is set to +1 with probability
    ``1 / (1 + exp(-2 h_i / T))``, ``h_i = sum_j w_ij s_j + b_i`` computed from
    the current state (the new values of units already updated), using
    ``rng`` (a :class:`numpy.random.Generator`) for its random numbers. The
    checker runs it as a chain on three models (3 and 4 spins, T = 1, 2 and
    0.5), 6000 sweeps after a burn-in of 50, each from ``+-+-...`` with a
    fixed seed, and compares how often the chain visits each state with the
    exact ``p(s) = exp(-E(s)/T) / Z`` (:func:`~bmlib.boltzmann_distribution`).
    Every frequency must lie within 5 standard errors of ``p(s)``; the
    standard error is the larger of the exact one of a sequential sweep
    (from its transition matrix) and a batch-means estimate from the
    reader's own chain (20 batches), so any correct sampler passes,
    whatever its order of units or of random numbers. The first tier
    prints the worst state of the first failing model; ``hint=True``
    matches all the frequencies against what typical wrong sweeps sample
    (the factor 2 missing, a flipped sign, T multiplied or missing, no bias,
    every unit updated from the old state).

    Parameters
    ----------
    func : callable
        ``func(s, W, b, T, rng)`` with ``s`` of shape (n,) (spins), ``W`` of
        shape (n, n), ``b`` of shape (n,), ``T`` a float; returns the new state.
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool
        True if every state's frequency agrees with p(s) on every model.

    Notes
    -----
    Explained in the chapter "Sampling: heat bath and Metropolis".

    Examples
    --------
    >>> import numpy as np
    >>> def sweep(s, W, b, T, rng):
    ...     for i in range(len(s)):
    ...         h = W[i] @ s + b[i]
    ...         s[i] = 1 if rng.random() < 1 / (1 + np.exp(-2 * h / T)) else -1
    ...     return s
    >>> bm.check_gibbs_sampler(sweep)
    All 3 chains visit every state as often as p(s) says (3 and 4 spins,
      T = 0.5, 1 and 2; 6000 sweeps each). Well done.
    True
    """
    cases = _gibbs_cases()
    frequencies, errors = [], []
    for k, case in enumerate(cases):
        visits, error = _run_chain(func, case, k)
        if error:
            print(error)
            return False
        size = 2 ** len(case[1])
        batches = np.array([np.bincount(part, minlength=size) / len(part)
                            for part in np.array_split(visits, _GIBBS_BATCHES)])
        frequencies.append(np.bincount(visits, minlength=size) / len(visits))
        errors.append(np.maximum(_exact_error(*case, _GIBBS_SWEEPS),
                                 batches.std(axis=0, ddof=1) / np.sqrt(_GIBBS_BATCHES)))
    exact = [boltzmann_distribution(*case) for case in cases]

    def fits(q):
        return [bool(np.all(np.abs(f - qk) <= _GIBBS_Z * e + 1.0 / _GIBBS_SWEEPS))
                for f, qk, e in zip(frequencies, q, errors)]

    good = fits(exact)
    if all(good):
        print(f"All {len(cases)} chains visit every state as often as p(s) says (3 and 4 spins, T = 0.5, 1 "
              f"and 2; {_GIBBS_SWEEPS} sweeps each). Well done.")
        return True
    k = good.index(False)
    W, b, T = cases[k]
    f, p, e = frequencies[k], exact[k], errors[k]
    worst = int(np.argmax(np.abs(f - p) / e))
    states = all_states(len(b)).astype(int)
    print(f"Your chain disagrees with p(s) on {good.count(False)} of {len(cases)} models. The first one:")
    W_text = np.array2string(W, precision=2, separator=", ", prefix="  W = ")
    print(f"Input {k} (spins, n = {len(b)}, T = {T:g}):\n  W = {W_text}\n  b = {_clean(b)}")
    print(f"  the state furthest off, s = {states[worst].tolist()}: exact p(s) = {p[worst]:.3f}, your chain "
          f"was there in {f[worst]:.3f} of {_GIBBS_SWEEPS} sweeps (standard error {e[worst]:.3f})")
    print(f"  over all {len(p)} states, half the summed |frequency - p(s)| is {0.5 * np.abs(f - p).sum():.3f}")
    seen = np.flatnonzero(f > 0)
    if len(seen) == 1:
        print(f"  your chain never left the state {states[seen[0]].tolist()}")
        _fix("A chain that never moves returns the state it was given: set s[i] to the value you draw (on the "
             "array you return), and draw a new value for every unit, not only when it lowers the energy.")
        return False
    for mistake, text in _GIBBS_MISTAKES:
        if all(fits([mistake(*case) for case in cases])):
            _fix(text)
            break
    else:
        _fix("The frequencies fit no typical mistake. For i = 0, ..., n-1 in turn: h = W[i] @ s + b[i] with the "
             "current s, then s[i] = +1 if rng.random() < 1 / (1 + exp(-2 h / T)), else -1; return s.")
    return False
