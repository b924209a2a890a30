"""Self-checks for the chapter "The normalizing constant Z": log-mean-exp, the mean-field bound."""
from __future__ import annotations

import numpy as np

from .._importance import log_mean_exp
from ._common import _SEED, _call, _clean, _fix, _real, fits_column

# --- log-mean-exp and the mean-field bound (chapter "The normalizing constant Z") --------------------


def _log_mean_exp(x):
    """The reference answer: the library's own log-mean-exp, the one its estimators of log Z end with."""
    return log_mean_exp(np.asarray(x, dtype=float))


def _log_weight_cases():
    """Log importance weights: ordinary sizes first, then ones whose exp overflows or underflows float64."""
    rng = np.random.default_rng(_SEED + 7)
    return [
        np.round(rng.normal(0.0, 1.0, size=5), 2),
        np.round(rng.normal(2.0, 0.5, size=8), 2),
        np.array([-1.0, 0.0, 1.0, 2.0]),
        np.round(rng.normal(3.0, 2.0, size=20), 2),
        np.round(800.0 + rng.normal(0.0, 1.0, size=6), 2),  # exp(800) = inf in float64
        np.round(-800.0 + rng.normal(0.0, 1.0, size=6), 2),  # exp(-800) = 0 in float64
        np.round(1000.0 + rng.normal(0.0, 3.0, size=10), 2),
    ]


def _quietly_call(func, x, k):
    """Call the reader's function on a copy with NumPy's overflow warnings off (we diagnose them)."""
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        value, error = _call(func, (x,), k)
    if error:
        return None, error
    try:
        return float(_real(value).item()), None
    except (TypeError, ValueError):
        return None, f"Input {k}: your function returned {value!r:.60}; the log-mean-exp is a single number."


# What a plausible wrong draft returns, and what to tell its author.
_LOG_MEAN_EXP_MISTAKES = [
    (lambda x: _log_mean_exp(x) + np.log(len(x)),
     "You returned the log of the SUM of the weights. The estimate of Z / Z_0 is their MEAN: subtract log N."),
    (lambda x: float(np.mean(x)),
     "You averaged the log weights. That is the log of their geometric mean, which by Jensen's inequality is "
     "below the log of their mean: the estimate would be biased low. Average the weights, then take the log."),
    (lambda x: float(np.max(x)),
     "You returned the largest log weight only. Add log(mean(exp(log_w - max))) to it."),
    (lambda x: _log_mean_exp(x) - float(np.max(x)),
     "You subtracted the largest log weight m before exponentiating, but did not add it back: "
     "return m + log(mean(exp(log_w - m)))."),
    (lambda x: float(np.mean(np.exp(x - np.max(x)))),
     "You returned the mean of the shifted weights, not its logarithm (and without the shift added back)."),
]


@fits_column
def check_log_mean_exp(func, *, hint=False):
    """Check a reader's ``func(log_w)``: the log of the mean of the weights ``exp(log_w)``, without overflow.

    ``log(mean(exp(log_w)))`` is what importance sampling and AIS return as
    their estimate of ``log Z`` (plus ``log Z_0``). Computed as written it
    overflows: ``exp(800)`` is ``inf`` in float64, and log weights of
    hundreds are ordinary for a model of a few hundred units. The checker
    tries 7 fixed arrays, 4 of ordinary size and 3 whose exponentials
    overflow or underflow, and names the likely mistake: the mean of
    ``exp`` computed directly, the log of the sum, the mean of the logs, the
    maximum without the correction, or the shift not added back.

    Parameters
    ----------
    func : callable
        ``func(log_w)`` with ``log_w`` of shape (N,), returning a number.
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool
        True if every input gives ``log(mean(exp(log_w)))`` to 1e-9.

    Notes
    -----
    Explained in the chapter "The normalizing constant Z".

    Examples
    --------
    >>> import numpy as np
    >>> def log_mean_exp(log_w):
    ...     m = np.max(log_w)
    ...     return m + np.log(np.mean(np.exp(log_w - m)))
    >>> bm.check_log_mean_exp(log_mean_exp)
    All 7 inputs give the right log-mean-exp, including 3 whose exp overflows or underflows. Well done.
    True
    """
    cases = _log_weight_cases()
    got = []
    for k, x in enumerate(cases):
        value, error = _quietly_call(func, x, k)
        if error:
            print(error)
            return False
        got.append(value)
    got = np.array(got)
    expected = np.array([_log_mean_exp(x) for x in cases])
    right = np.isclose(got, expected, rtol=1e-12, atol=1e-9)
    if right.all():
        print(f"All {len(cases)} inputs give the right log-mean-exp, including 3 whose exp overflows or "
              "underflows. Well done.")
        return True
    k = int(np.flatnonzero(~right)[0])
    x = cases[k]
    print(f"Input {k}: log_w = {_clean(x)}")
    print(f"  expected {expected[k]:.6f}, your function gave {got[k]:.6g}")
    overflow = ("you computed exp(log_w) directly, and it overflows to inf (or underflows to 0) for the last "
                "inputs. Subtract the largest log weight m first, m + log(mean(exp(log_w - m))): every "
                "exponential is then at most 1, and the largest is exactly 1.")
    ordinary = slice(0, 4)  # the inputs whose exponentials fit in float64
    for mistake, text in _LOG_MEAN_EXP_MISTAKES:
        matches = np.isclose(got, [mistake(x) for x in cases], rtol=1e-12, atol=1e-9)
        if matches.all():
            _fix(text)
            return False
        if matches[ordinary].all():
            _fix(text + " Also, " + overflow)
            return False
    if right[ordinary].all():
        print("Right on the ordinary inputs (0 to 3), wrong on the large and small ones (4 to 6).")
        _fix("On those " + overflow)
    else:
        _fix("The results fit no typical mistake: the answer is log(mean(exp(log_w))), computed as "
             "m + log(mean(exp(log_w - m))) with m the largest log weight.")
    return False


def _mean_field_cases():
    """(m, W, b, T) for spins: 3 to 6 units, T = 0.5, 1 and 2, means strictly inside (-1, 1)."""
    rng = np.random.default_rng(_SEED + 8)
    cases = []
    for n, T in ((3, 1.0), (4, 0.5), (4, 2.0), (5, 1.0), (6, 0.5), (6, 2.0)):
        A = np.triu(rng.integers(-4, 5, size=(n, n)) / 2, 1)
        b = rng.integers(-4, 5, size=n) / 2
        m = np.round(rng.uniform(-0.9, 0.9, size=n), 1)
        cases.append((m, A + A.T, b, T))
    return cases


def _mean_field_parts(m, W, b, T):
    """The three parts of the bound: pair term, bias term (both divided by T), entropy."""
    p, q = (1 + m) / 2, (1 - m) / 2
    return 0.5 * m @ W @ m / T, b @ m / T, float(-np.sum(p * np.log(p) + q * np.log(q)))


@fits_column
def check_mean_field_bound(func, *, hint=False):
    """Check a reader's naive mean-field lower bound ``func(m, W, b, T)`` on ``log Z`` (spins).

    For independent spins with means ``m`` the bound is

    ``Phi(m) = (1/2 m^T W m + b^T m) / T + sum_i H(m_i)``,
    ``H(m) = -(1+m)/2 log((1+m)/2) - (1-m)/2 log((1-m)/2)``,

    minus the mean energy over T plus the entropy: ``Phi(m) <= log Z`` for
    every ``m`` (Gibbs-Bogoliubov). Six fixed models (3 to 6 spins, T = 0.5,
    1 and 2) are tried with means strictly inside (-1, 1). On a mismatch the
    checker fits the reader's numbers as a combination of the pair term, the
    bias term and the entropy, names the mistake (missing entropy, a sign,
    a missing 1/2 or 1/T, the entropy in bits) and says whether the reader's
    value still lies below the exact ``log Z``.

    Parameters
    ----------
    func : callable
        ``func(m, W, b, T)`` with ``m`` of shape (n,), ``W`` (n, n), ``b`` (n,), ``T`` a float.
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool
        True if every input gives ``Phi(m)`` to 1e-8.

    Notes
    -----
    Explained in the chapter "The normalizing constant Z".

    Examples
    --------
    >>> import numpy as np
    >>> def bound(m, W, b, T):
    ...     p, q = (1 + m) / 2, (1 - m) / 2
    ...     return (0.5 * m @ W @ m + b @ m) / T - np.sum(p * np.log(p) + q * np.log(q))
    >>> bm.check_mean_field_bound(bound)
    All 6 inputs give the right bound (3 to 6 spins, T = 0.5, 1 and 2), and each lies below log Z. Well done.
    True
    """
    from ..exact.enumeration import log_partition

    cases = _mean_field_cases()
    got = []
    for k, (m, W, b, T) in enumerate(cases):
        value, error = _call(lambda m_, W_, b_: func(m_, W_, b_, T), (m, W, b), k)
        if error:
            print(error)
            return False
        try:
            got.append(float(_real(value).item()))
        except (TypeError, ValueError):
            print(f"Input {k}: your function returned {value!r:.60}; the bound is a single number.")
            return False
    got = np.array(got)
    parts = np.array([_mean_field_parts(*case) for case in cases])
    expected = parts.sum(axis=1)
    log_z = np.array([log_partition(W, b, T) for _, W, b, T in cases])
    right = np.isclose(got, expected, atol=1e-8)
    if right.all():
        print(f"All {len(cases)} inputs give the right bound (3 to 6 spins, T = 0.5, 1 and 2), and each lies "
              "below log Z. Well done.")
        return True
    k = int(np.flatnonzero(~right)[0])
    m, W, b, T = cases[k]
    W_text = np.array2string(W, precision=2, separator=", ", prefix="  W = ")
    print(f"Input {k} (spins, n = {len(m)}, T = {T:g}):\n  m = {_clean(m)}\n  W = {W_text}\n  b = {_clean(b)}")
    print(f"  expected Phi(m) = {expected[k]:.6f}, your function gave {got[k]:.6g} (exact log Z = {log_z[k]:.6f})")
    _fix(_diagnose_mean_field(got, parts, np.array([T for *_, T in cases])))
    above = np.flatnonzero(got > log_z + 1e-9)
    if above.size:
        print(f"Your value lies ABOVE the exact log Z for {above.size} of {len(cases)} inputs, so it is no "
              "lower bound; the true Phi(m) never does, for any m.")
    return False


def _diagnose_mean_field(got, parts, T):
    """Name the mistake from a fit got = a * pair + c * bias + d * entropy (or the same without 1/T)."""
    near = lambda x, y: abs(x - y) < 1e-6  # noqa: E731
    energy_times_T = parts[:, :2] * T[:, None]
    if np.allclose(got, energy_times_T.sum(axis=1) + parts[:, 2], atol=1e-8):
        return ("The energy term is not divided by T: Phi = (1/2 m^T W m + b^T m) / T + H (the inputs use "
                "T = 0.5, 1 and 2, which is how this shows). The entropy has no 1/T.")
    (a, c, d), *_ = np.linalg.lstsq(parts, got, rcond=None)
    if not np.allclose(parts @ [a, c, d], got, atol=1e-8):
        return ("The results fit no simple pattern: Phi(m) = (1/2 m^T W m + b^T m) / T + sum_i H(m_i), with "
                "H(m) = -(1+m)/2 log((1+m)/2) - (1-m)/2 log((1-m)/2).")
    found = []
    if near(a, -1) and near(c, -1):
        found.append("The energy term has the wrong sign: Phi = -<E>_q / T + H, and -<E>_q = +(1/2 m^T W m + b^T m).")
    else:
        if near(a, 2):
            found.append("The pair term is twice too large: m^T W m counts every pair twice; keep the 1/2.")
        elif near(a, 0):
            found.append("The pair term 1/2 m^T W m / T is missing.")
        elif not near(a, 1):
            found.append(f"The pair term is {a:.3g} times what it should be.")
        if near(c, 0):
            found.append("The bias term b^T m / T is missing.")
        elif not near(c, 1):
            found.append(f"The bias term is {c:.3g} times what it should be.")
    if near(d, 0):
        found.append("The entropy term is missing. -<E>_q / T alone is at most -E_min / T, the log of the single "
                     "largest term of Z: it ignores that Z adds up MANY states, which is what the entropy counts.")
    elif near(d, -1):
        found.append("The entropy enters with the wrong sign: Phi = -<E>_q / T + H(q), and H >= 0.")
    elif near(d, 1 / np.log(2)):
        found.append("The entropy is in bits (log base 2); log Z is in nats: use the natural log.")
    elif not near(d, 1):
        found.append(f"The entropy term is {d:.3g} times what it should be.")
    return " ".join(found)
