"""Self-check for the chapter "The deterministic Boltzmann machine": one mean-field sweep."""
from __future__ import annotations

import numpy as np

from .._numerics import sigmoid as _sigmoid
from ._common import _SEED, _call, _clean, _fix, _real, fits_column

# --- one sweep of the mean-field equations (chapter "The deterministic Boltzmann machine") --------


def _mean_field_sweep_cases():
    """(m, W, b, T, damping) for spins: 3 to 6 units, T = 0.5, 1 and 2, damping 0 and 0.5, means inside (-1, 1)."""
    rng = np.random.default_rng(_SEED + 9)
    cases = []
    for n, T, damping in ((3, 1.0, 0.0), (4, 0.5, 0.0), (4, 2.0, 0.5), (5, 2.0, 0.0), (5, 1.0, 0.5), (6, 0.5, 0.5)):
        A = np.triu(rng.integers(-4, 5, size=(n, n)) / 2, 1)
        b = rng.integers(-4, 5, size=n) / 2
        m = np.round(rng.uniform(-0.9, 0.9, size=n), 1)
        cases.append((m, A + A.T, b, T, damping))
    return cases


# The new mean of unit i from its field h_i (bias included), its bias b_i and T, as a draft might compute it.
_SWEEP_RULES = {
    "right": lambda h, bi, T: np.tanh(h / T),
    "no 1/T": lambda h, bi, T: np.tanh(h),
    "times T": lambda h, bi, T: np.tanh(h * T),
    "sigmoid": lambda h, bi, T: _sigmoid(h / T),
    "probability": lambda h, bi, T: _sigmoid(2 * h / T),
    "factor 2": lambda h, bi, T: np.tanh(2 * h / T),
    "no bias": lambda h, bi, T: np.tanh((h - bi) / T),
    "sign": lambda h, bi, T: np.tanh(-h / T),
    "descent": lambda h, bi, T: np.sign(h),
}
_SWEEP_RULE_TEXT = {
    "no 1/T": "The temperature is missing: each unit's equation is m_i = tanh(h_i / T), not tanh(h_i) (the inputs "
              "use T = 0.5, 1 and 2, which is how this shows).",
    "times T": "You multiplied the field by T instead of dividing: m_i = tanh(h_i / T). A high temperature must "
               "pull the means towards 0.",
    "sigmoid": "You used 1 / (1 + exp(-h_i / T)), the equation for BITS: it gives <x_i> in (0, 1). These units "
               "are spins, whose mean lies in (-1, 1): m_i = tanh(h_i / T) = 2 sigmoid(2 h_i / T) - 1.",
    "probability": "You returned p(s_i = +1 | rest) = 1 / (1 + exp(-2 h_i / T)), the heat-bath PROBABILITY of +1, "
                   "not the mean. The mean of a spin is p(+1) - p(-1) = 2 p(+1) - 1 = tanh(h_i / T).",
    "factor 2": "The factor 2 of the heat-bath rule belongs to the probability, not to the mean: "
                "2 sigmoid(2 h_i / T) - 1 = tanh(h_i / T), so m_i = tanh(h_i / T), not tanh(2 h_i / T).",
    "no bias": "The bias is missing from the field: h_i = sum_j w_ij m_j + b_i.",
    "sign": "The sign is flipped: a unit's mean follows its field, m_i = tanh(+h_i / T).",
    "descent": "Your units jump to the sign of their field: that is energy descent, the limit T -> 0. "
               "Mean field keeps the average, m_i = tanh(h_i / T), which lies strictly between -1 and 1.",
}
_SWEEP_DAMPING_TEXT = {
    "reversed": "The damping is reversed: you keep the fraction (1 - damping) of the old value, so with damping 0 "
                "your sweep returns m unchanged. `damping` is the fraction of the OLD value kept: "
                "m_i <- damping * m_i + (1 - damping) * tanh(h_i / T).",
    "none": "The damping is ignored: with damping d, m_i <- d * m_i + (1 - d) * tanh(h_i / T) "
            "(the inputs use damping 0 and 0.5).",
}
_SWEEP_PARALLEL_TEXT = (
    "You update all units at once, each from the OLD values of the others (h = W @ m + b before the loop). "
    "A sequential sweep visits the units in turn, 0, 1, ..., n-1, and each uses the NEW values of the units "
    "already visited: compute h_i = W[i] @ m + b[i] inside the loop, right before you overwrite m[i]."
)


def _reference_sweep(m, W, b, T, damping, rule="right", schedule="sequential", damp="right"):
    """One sweep as a draft might do it; the default arguments are the right sweep."""
    m = np.array(m, dtype=float)
    f = _SWEEP_RULES[rule]
    keep = {"right": damping, "reversed": 1.0 - damping, "none": 0.0}[damp]
    if schedule == "parallel":
        return keep * m + (1.0 - keep) * f(W @ m + b, b, T)
    for i in range(len(m)):
        m[i] = keep * m[i] + (1.0 - keep) * f(W[i] @ m + b[i], b[i], T)
    return m


def _call_sweep(func, case, k):
    """Call the reader's sweep on copies; return (new m, None) or (None, message)."""
    m, W, b, T, damping = case
    value, error = _call(lambda m_, W_, b_: func(m_, W_, b_, T, damping), (m, W, b), k)
    if error:
        return None, error + (" If you update m in place, also return it." if "None" in error else "")
    try:
        new = _real(value)
    except (TypeError, ValueError):
        return None, f"Input {k}: your function returned {value!r:.60}; return the new means, one per unit."
    if new.shape != m.shape:
        return None, f"Input {k}: your function returned shape {new.shape}; expected ({len(m)},), one mean per unit."
    return new, None


def _show_oscillation(func):
    """Run the reader's sweep on two strongly coupled spins from (0.9, -0.9); print where it goes."""
    W, b, T = np.array([[0.0, 2.0], [2.0, 0.0]]), np.zeros(2), 1.0
    theirs, ours = [np.array([0.9, -0.9])], [np.array([0.9, -0.9])]
    for _ in range(4):
        value, error = _call(lambda m_, W_, b_: func(m_, W_, b_, T, 0.0), (theirs[-1], W, b), 0)
        if error:
            return
        try:
            theirs.append(_real(value))
        except (TypeError, ValueError):  # already diagnosed by the main check
            return
        ours.append(_reference_sweep(ours[-1], W, b, T, 0.0))
    show = lambda path: " ".join(f"({m[0]:+.2f}, {m[1]:+.2f})" for m in path)  # noqa: E731
    print("Why it matters: two spins with w_01 = 2 at T = 1, no damping, four sweeps from (+0.90, -0.90):")
    print(f"  your sweeps:       {show(theirs)}")
    print(f"  sequential sweeps: {show(ours)}")
    if np.allclose(theirs[-1], theirs[-3], atol=1e-2) and not np.allclose(theirs[-1], theirs[-2], atol=1e-2):
        print("  Parallel updates swap the two units at every sweep and never settle; sequential ones converge "
              "in two sweeps. Damping can stop the swapping, but sequential sweeps never need it.")


@fits_column
def check_mean_field_sweep(func, *, hint=False):
    """Check a reader's sweep of the naive mean-field equations for spins, ``func(m, W, b, T, damping)``.

    One sweep visits the units in order ``0, 1, ..., n-1`` and sets each to

    ``m_i <- damping * m_i + (1 - damping) * tanh(h_i / T)``,  ``h_i = sum_j w_ij m_j + b_i``,

    where ``h_i`` uses the values the other units have at that moment (the
    new ones for units already visited). The function returns the new means,
    shape (n,). Six fixed inputs (3 to 6 spins, T = 0.5, 1 and 2, damping 0
    and 0.5) are compared with the reference. On a mismatch the first wrong
    input is printed, and the pattern over all inputs is matched against
    typical mistakes: a missing or misplaced 1/T, the bits equation (a
    sigmoid) or the heat-bath probability instead of the spin mean, the
    bias left out, the damping reversed or ignored, and parallel updates
    instead of sequential ones, which are then run on two spins to show
    them oscillating.

    Parameters
    ----------
    func : callable
        ``func(m, W, b, T, damping)`` with ``m`` of shape (n,), ``W`` (n, n),
        ``b`` (n,), ``T`` and ``damping`` floats; returns the new ``m``.
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool
        True if every input gives the right sweep (to 1e-8).

    Notes
    -----
    Explained in the chapter "The deterministic Boltzmann machine".

    Examples
    --------
    >>> import numpy as np
    >>> def sweep(m, W, b, T, damping):
    ...     m = m.copy()
    ...     for i in range(len(m)):
    ...         m[i] = damping * m[i] + (1 - damping) * np.tanh((W[i] @ m + b[i]) / T)
    ...     return m
    >>> bm.check_mean_field_sweep(sweep)
    All 6 inputs give the right sweep (3 to 6 spins, T = 0.5, 1 and 2, damping 0 and 0.5). Well done.
    True
    """
    cases = _mean_field_sweep_cases()
    got = []
    for k, case in enumerate(cases):
        new, error = _call_sweep(func, case, k)
        if error:
            print(error)
            return False
        got.append(new)
    expected = [_reference_sweep(*case) for case in cases]
    right = [np.allclose(g, e, atol=1e-8) for g, e in zip(got, expected)]
    if all(right):
        print(f"All {len(cases)} inputs give the right sweep (3 to 6 spins, T = 0.5, 1 and 2, damping 0 and 0.5). "
              "Well done.")
        return True
    k = right.index(False)
    m, W, b, T, damping = cases[k]
    print(f"Your sweep is wrong on {right.count(False)} of {len(cases)} inputs. The first one:")
    W_text = np.array2string(W, precision=2, separator=", ", prefix="  W = ")
    print(f"Input {k} (spins, n = {len(m)}, T = {T:g}, damping = {damping:g}):\n  m = {_clean(m)}\n  W = {W_text}\n"
          f"  b = {_clean(b)}")
    print(f"  expected new m = {np.round(expected[k], 4).tolist()}")
    print(f"  your function gave {np.round(got[k], 4).tolist()}")
    # Which combination of typical mistakes reproduces every input? Prefer the fewest mistakes.
    matches = []
    for rule in _SWEEP_RULES:
        for schedule in ("sequential", "parallel"):
            for damp in ("right", "reversed", "none"):
                wrong = (rule != "right") + (schedule != "sequential") + (damp != "right")
                if wrong and all(np.allclose(g, _reference_sweep(*case, rule, schedule, damp), atol=1e-8)
                                 for g, case in zip(got, cases)):
                    matches.append((wrong, rule, schedule, damp))
    if not matches:
        if all(set(np.unique(g)) <= {-1.0, 1.0} for g in got):
            print("Your sweep returns only -1 and +1.")
            _fix("Mean field is deterministic and keeps averages: "
                 "m_i = tanh(h_i / T), strictly between -1 and 1 (a random +-1 is a heat-bath sample).")
        else:
            _fix("The results fit no typical mistake. For i = 0, ..., n-1 in turn: h_i = W[i] @ m + b[i] with the "
                 "current m, then m[i] = damping * m[i] + (1 - damping) * tanh(h_i / T).")
        return False
    _, rule, schedule, damp = min(matches)
    if rule != "right":
        _fix(_SWEEP_RULE_TEXT[rule])
    if damp != "right":
        _fix(_SWEEP_DAMPING_TEXT[damp])
    if schedule == "parallel":
        _fix(_SWEEP_PARALLEL_TEXT)
        if hint:
            _show_oscillation(func)
    return False
