"""Self-check for the log-weights of annealed importance sampling (chapter "The normalizing constant Z")."""
from __future__ import annotations

import numpy as np

from .._importance import log_mean_exp
from .._numerics import sigmoid as _sigmoid
from ..models.energy import energy
from ._common import _SEED, _call, _clean, _fix, _hinting, _real, _shape, fits_column

# --- AIS from the uniform distribution over spins (chapter "The normalizing constant Z") ------------------

_AIS_RUNS = 500
_AIS_STEPS = 100  # K: fractions 0, 1/K, ..., 1
_AIS_TOLERANCE = 0.08  # |estimate - log Z| allowed: 6 standard deviations of a right AIS (0.006 and 0.013)


def _ais_cases():
    """(W, b, T) for spins: 5 units at T = 1, 6 at T = 0.5 (weights and biases in steps of 0.5 and 0.25)."""
    rng = np.random.default_rng(_SEED + 71)
    cases = []
    for n, T in ((5, 1.0), (6, 0.5)):
        A = np.triu(rng.integers(-2, 3, size=(n, n)) * T / 2, 1)
        b = rng.integers(-1, 2, size=n) * T / 2
        cases.append((A + A.T, b, T))
    return cases


def _sweep(s, W, b, T, rng):
    """One sequential heat-bath sweep of many chains (rows of s), spins."""
    for i in range(s.shape[1]):
        h = s @ W[i] + b[i]
        s[:, i] = np.where(rng.random(len(s)) < _sigmoid(2 * h / T), 1.0, -1.0)
    return s


def _ais_variant(W, b, T, variant, n_runs=500, seed=0):
    """log Z_0 + log-mean-exp of the log weights of AIS as a draft might do it (``right`` is right)."""
    rng = np.random.default_rng(_SEED + 80 + seed)
    n = len(b)
    f = np.linspace(0.0, 1.0, _AIS_STEPS + 1)
    s = rng.choice([-1.0, 1.0], size=(n_runs, n))
    log_w = np.zeros(n_runs)
    for f_old, f_new in zip(f[:-1], f[1:]):
        g = -energy(s, W, b) / T
        log_w += {"right": (f_new - f_old) * g, "no 1/T": (f_new - f_old) * g * T,
                  "sign": -(f_new - f_old) * g, "fractions": f_new * g, "target": (f_new - f_old) * g}[variant]
        move = 1.0 if variant == "target" else f_new
        s = _sweep(s, move * W, move * b, T, rng)
    return n * np.log(2.0) + log_mean_exp(log_w)


_AIS_MISTAKES = {
    "sign": "Your increments have the wrong sign: each step adds (f_k - f_(k-1)) g(s) with g(s) = -E(s)/T, the "
            "log of p's unnormalized probability over p_0's (which is constant here).",
    "no 1/T": "The 1/T is missing from the increments: g(s) = -E(s)/T (the second model has T = 0.5, which is how "
              "this shows).",
    "fractions": "You added f_k g(s) at every step, not the increment (f_k - f_(k-1)) g(s): the log weight is a "
                 "sum of small differences, which add up to one g over the whole path.",
    "target": "Your chains move at the final distribution p at every step: the move after step k must leave "
              "p_k invariant, couplings f_k W and biases f_k b.",
}


@fits_column
def check_ais(func, *, hint=False):
    """Check a reader's AIS log-weights ``func(W, b, T, fractions, n_runs, rng)`` against the exact log Z.

    The function runs ``n_runs`` annealing runs from the uniform distribution
    over spins (``Z_0 = 2**n``) to ``p(s) ~ exp(-E(s)/T)`` through
    ``p_k(s) ~ exp(-f_k E(s)/T)``, the ``fractions`` ``f_0 = 0 < ... < f_K = 1``:
    each run starts from a uniform random state; at each step ``k`` it adds
    ``(f_k - f_(k-1)) * (-E(s)/T)`` to its log weight and then moves ``s`` by a
    sweep that leaves ``p_k`` invariant. It returns the log weights, shape
    (n_runs,). The checker estimates ``log Z = n log 2 + log mean exp(log w)``
    on two models (5 spins at T = 1, 6 at T = 0.5; 500 runs, K = 100) and
    compares with :func:`~bmlib.log_partition`: the estimate must be within
    0.08 of the exact value (a right AIS here scatters by about 0.01). With
    ``hint=True`` it runs typical wrong versions (increments of the wrong
    sign, the 1/T missing, f_k for f_k - f_(k-1), chains moved at the
    final distribution) and names the one the reader's estimate matches.

    Parameters
    ----------
    func : callable
        ``func(W, b, T, fractions, n_runs, rng)`` with ``W`` of shape (n, n),
        ``b`` (n,), ``T`` a float, ``fractions`` of shape (K + 1,), ``n_runs``
        an int and ``rng`` a :class:`numpy.random.Generator`; returns the log
        weights, shape (n_runs,), without ``log Z_0``.
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool
        True if both estimates are within 0.08 of the exact log Z.

    Notes
    -----
    Explained in the chapter "The normalizing constant Z".

    Examples
    --------
    >>> import numpy as np
    >>> def ais(W, b, T, fractions, n_runs, rng):
    ...     s = rng.choice([-1.0, 1.0], size=(n_runs, len(b)))
    ...     log_w = np.zeros(n_runs)
    ...     for f_old, f_new in zip(fractions[:-1], fractions[1:]):
    ...         log_w += (f_new - f_old) * (-bm.energy(s, W, b) / T)
    ...         s = bm.sample(f_new * W, f_new * b, T, n_samples=1, burn_in=0,
    ...                       initial=s, rng=rng).final_state
    ...     return log_w
    >>> bm.check_ais(ais)
    Both AIS estimates are within 0.08 of the exact log Z (5 spins at T = 1, 6
      at T = 0.5; 500 runs, 100 steps). Well done.
    True
    """
    from ..exact.enumeration import log_partition

    cases = _ais_cases()
    fractions = np.linspace(0.0, 1.0, _AIS_STEPS + 1)
    estimates = []
    for k, (W, b, T) in enumerate(cases):
        rng = np.random.default_rng(_SEED + 90 + k)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            value, error = _call(func, (W, b, T, fractions, _AIS_RUNS, rng), k)
        if error:
            print(error)
            return False
        try:
            log_w = _real(value)
        except (TypeError, ValueError):
            print(f"Input {k}: your function returned {value!r:.60}; expected the log weights, real numbers.")
            return False
        if log_w.shape != (_AIS_RUNS,):
            print(f"Input {k}: your function returned shape {_shape(value)}; expected ({_AIS_RUNS},), one log "
                  "weight per run.")
            return False
        if not np.all(np.isfinite(log_w)):
            print(f"Input {k}: your log weights include {log_w[~np.isfinite(log_w)][0]}; they must be finite.")
            return False
        estimates.append((len(b) * np.log(2.0) + log_mean_exp(log_w), log_w))
    exact = [log_partition(W, b, T) for W, b, T in cases]
    off = [abs(e - z) > _AIS_TOLERANCE for (e, _), z in zip(estimates, exact)]
    if not any(off):
        print(f"Both AIS estimates are within {_AIS_TOLERANCE} of the exact log Z (5 spins at T = 1, 6 at T = 0.5; "
              f"{_AIS_RUNS} runs, {_AIS_STEPS} steps). Well done.")
        return True
    k = off.index(True)
    W, b, T = cases[k]
    estimate, log_w = estimates[k]
    print(f"Your AIS estimate is off by more than {_AIS_TOLERANCE} on {sum(off)} of {len(cases)} models. "
          "The first one:")
    W_text = np.array2string(W, precision=2, separator=", ", prefix="  W = ")
    print(f"Input {k} (spins, n = {len(b)}, T = {T:g}, {_AIS_RUNS} runs, {_AIS_STEPS} steps):\n  W = {W_text}\n"
          f"  b = {_clean(b)}")
    ess = np.exp(2 * log_mean_exp(log_w) - log_mean_exp(2 * log_w))  # (sum w)^2 / sum w^2 / n_runs
    print(f"  exact log Z = {exact[k]:.4f}; n log 2 + log mean exp(your log weights) = {estimate:.4f}")
    print(f"  your log weights range from {log_w.min():.3g} to {log_w.max():.3g}; their effective sample "
          f"size is {ess * _AIS_RUNS:.0f} of {_AIS_RUNS}")
    if not _hinting():
        _fix("")
        return False
    for variant, text in _AIS_MISTAKES.items():
        guesses = [_ais_variant(*case, variant, seed=j) for j, case in enumerate(cases)]
        if all(abs(e - g) <= max(_AIS_TOLERANCE, 0.25 * abs(g - z))
               for (e, _), g, z in zip(estimates, guesses, exact)):
            _fix(text)
            return False
    _fix("The estimates fit no typical mistake. Start every run from a uniform random state; for k = 1, ..., K "
         "add (f_k - f_(k-1)) * (-E(s)/T) to its log weight, then move s by one heat-bath sweep at couplings "
         "f_k W and biases f_k b.")
    return False
