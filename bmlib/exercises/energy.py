"""Self-checks for the chapter "Energy": energy, local fields, stability."""
from __future__ import annotations

import numpy as np

from ..models.energy import energy, flip_energy_changes, is_stable, local_fields
from ..models.states import all_states
from ._common import (
    _SEED,
    _call,
    _clean,
    _energy_cases,
    _models,
    _real,
    _shape,
    _fix,
    _show_input,
    fits_column,
)

_ENERGY_MISTAKES = {
    "both -1": "The overall sign is flipped. Both terms need a minus sign, so that agreeing with "
               "positive weights and biases gives LOW energy.",
    "pair": {2: "The pair term is twice too large: a sum over all i and j counts every pair twice, as (i, j) "
                "and as (j, i). Multiply that sum by 1/2, or sum over i < j only.",
             0.5: "The pair term is half what it should be: summing over i < j and multiplying by 1/2 are "
                  "two ways of counting each pair once; use only one of them.",
             -1: "The pair term has the wrong sign: it needs a minus in front.",
             0: "The pair term is missing."},
    "bias": {0: "The bias term -sum_i b_i s_i is missing.", -1: "The bias term has the wrong sign.",
             2: "The bias term is counted twice.",
             0.5: "The bias term is halved: the 1/2 belongs to the pair term only."},
}
_FIELD_MISTAKES = {
    "both -1": "The sign is flipped: that is dE/ds_i. The field is minus that derivative, "
               "h_i = sum_j w_ij s_j + b_i, so that a unit lowers E by agreeing with it.",
    "pair": {0.5: "The weighted sum is half what it should be. The 1/2 in E(s) is there because the "
                  "double sum meets each pair from both ends; unit i's field meets each of its bonds "
                  "once, so h_i has no 1/2.",
             2: "The weighted sum is twice too large: each bond of unit i should enter once.",
             -1: "The weighted sum has the wrong sign.",
             0: "The weighted sum over the other units is missing."},
    "bias": {0: "The bias b_i is missing from the field.", -1: "The bias has the wrong sign.",
             2: "The bias is counted twice.", 0.5: "The bias is halved."},
}


def _diagnose(got, pair, bias, mistakes):
    """Fit got = alpha * pair + beta * bias over all inputs; name the mistake if the fit is exact."""
    X = np.column_stack([pair, bias])
    (alpha, beta), *_ = np.linalg.lstsq(X, got, rcond=None)
    if not np.allclose(X @ [alpha, beta], got, atol=1e-8):
        return None
    near = lambda x, y: abs(x - y) < 1e-6  # noqa: E731
    if near(alpha, -1) and near(beta, -1):
        return mistakes["both -1"]
    found = [text for key, text in mistakes["pair"].items() if near(alpha, key)]
    found += [text for key, text in mistakes["bias"].items() if near(beta, key)]
    return " ".join(found) or (
        f"Your results equal {alpha:.3g} times the pair part plus {beta:.3g} times the bias part; "
        "both factors should be 1."
    )


@fits_column
def check_energy_function(func, *, hint=False):
    """Check a reader's ``func(s, W, b)`` against :func:`~bmlib.energy`.

    The function must return the energy ``E(s) = -sum_{i<j} w_ij s_i s_j - sum_i b_i s_i``
    of one state ``s`` (spins or bits) as a number. It is called on 12 fixed
    inputs; on a mismatch the first wrong input is printed with the expected
    and the returned value, and a diagnosis when the pattern of errors shows
    one (pairs counted twice, a sign flipped, the bias term missing).

    Parameters
    ----------
    func : callable
        ``func(s, W, b)`` with ``s`` of shape (n,), ``W`` of shape (n, n), ``b`` of shape (n,).
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool
        True if every input gives the right energy (to 1e-8).

    Examples
    --------
    >>> bm.check_energy_function(lambda s, W, b: bm.energy(s, W, b))
    All 12 inputs give the right energy (spins and bits, 3 to 5 units). Well done.
    True
    """
    cases = _energy_cases()
    got = []
    for k, (units, s, W, b) in enumerate(cases):
        value, error = _call(func, (s, W, b), k)
        if error:
            print(error)
            return False
        try:
            number = float(_real(value).item())
        except (TypeError, ValueError):  # not a single number: a vector, None, a string...
            print(f"Input {k}: your function returned {value!r:.60}; "
                  "the energy of one state is a single number.")
            return False
        got.append(number)
    got = np.array(got)
    expected = np.array([energy(s, W, b) for _, s, W, b in cases])
    if np.allclose(got, expected, atol=1e-8):
        print(f"All {len(cases)} inputs give the right energy (spins and bits, 3 to 5 units). Well done.")
        return True
    k = int(np.flatnonzero(~np.isclose(got, expected, atol=1e-8))[0])
    _show_input(k, *cases[k])
    print(f"  expected E = {expected[k]:g}, your function gave {got[k]:.6g}")
    pair = np.array([-0.5 * s @ W @ s for _, s, W, _ in cases])
    bias = np.array([-(b @ s) for _, s, _, b in cases])
    _fix(_diagnose(got, pair, bias, _ENERGY_MISTAKES)
         or "The results do not fit a simple pattern: check the loop bounds and that each term is w_ij s_i s_j.")
    return False


@fits_column
def check_local_fields(func, *, hint=False):
    """Check a reader's ``func(s, W, b)`` against :func:`~bmlib.local_fields`.

    The function must return the vector of local fields
    ``h_i = sum_j w_ij s_j + b_i``, shape (n,).

    Parameters
    ----------
    func : callable
        ``func(s, W, b)`` with ``s`` of shape (n,), ``W`` of shape (n, n), ``b`` of shape (n,).
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool

    Examples
    --------
    >>> bm.check_local_fields(lambda s, W, b: W @ s, hint=True)  # doctest: +ELLIPSIS
    Input 2 (spins, n = 4):
    ...
    The bias b_i is missing from the field.
    False
    """
    cases = _energy_cases()
    got = []
    for k, (units, s, W, b) in enumerate(cases):
        value, error = _call(func, (s, W, b), k)
        if error:
            print(error)
            return False
        if _shape(value) != s.shape:
            print(f"Input {k}: your function returned shape {_shape(value)}; "
                  f"expected one field per unit, shape {s.shape}.")
            return False
        try:
            got.append(_real(value))
        except (TypeError, ValueError):  # text, complex numbers...
            print(f"Input {k}: your function returned {value!r:.60}; the local fields are real numbers.")
            return False
    expected = [local_fields(s, W, b) for _, s, W, b in cases]
    wrong = [k for k in range(len(cases)) if not np.allclose(got[k], expected[k], atol=1e-8)]
    if not wrong:
        print(f"All {len(cases)} inputs give the right local fields (spins and bits, 3 to 5 units). Well done.")
        return True
    k = wrong[0]
    _show_input(k, *cases[k])
    print(f"  expected h = {_clean(expected[k])}, your function gave {_clean(got[k])}")
    if all(np.allclose(g, s * h) for g, (_, s, _, _), h in zip(got, cases, expected)):
        _fix("You returned s_i h_i (how much unit i agrees with its field); return the field h_i itself.")
        return False
    pair = np.concatenate([W @ s for _, s, W, _ in cases])
    bias = np.concatenate([b for _, _, _, b in cases])
    named = _diagnose(np.concatenate(got), pair, bias, _FIELD_MISTAKES)
    _fix(named or "The results do not fit a simple pattern: h_i sums w_ij s_j over all j "
                  "(j = i adds nothing, as w_ii = 0), then adds b_i.")
    return False


def _stability_cases(units):
    """Every state of three small models with integer weights (so ties, h_i = 0, occur)."""
    rng = np.random.default_rng(_SEED + 2)
    cases = []
    for n in (3, 4, 4):
        A = np.triu(rng.integers(-2, 3, size=(n, n)).astype(float), 1)
        W, b = A + A.T, rng.integers(-1, 2, size=n).astype(float)
        cases += [(s, W, b) for s in all_states(n, units).astype(float)]
    return cases


def _stability_mistakes(units):
    """Plausible wrong tests, each with what to tell the reader who wrote it."""
    mistakes = [
        (lambda s, W, b: np.all(flip_energy_changes(s, W, b, units) > 0),
         "You treat a flip that leaves E unchanged (Delta E_i = 0: the unit's field is exactly 0) as a way "
         "down. Stable means no single flip LOWERS the energy: test >= 0, not > 0."),
        (lambda s, W, b: np.any(flip_energy_changes(s, W, b, units) >= 0),
         "You accept a state when SOME unit is content; stable needs EVERY unit content (np.all, not np.any)."),
        (lambda s, W, b: np.all(flip_energy_changes(s, W, b, units) <= 0),
         "Your test is reversed: a unit is content when flipping it would RAISE the energy, that is when "
         "it agrees with its field."),
        (lambda s, W, b: is_stable(s, W, np.zeros_like(b), units),
         "Your local field leaves out the bias: h_i = sum_j w_ij s_j + b_i."),
    ]
    if units == "bits":
        mistakes.append((lambda s, W, b: np.all(s * local_fields(s, W, b) >= 0),
                         "x_i h_i >= 0 is the spin rule; for bits it never checks the units that are off. An "
                         "off unit (x_i = 0) would switch on if h_i > 0, so test (2 x_i - 1) h_i >= 0."))
    return mistakes


@fits_column
def check_is_stable(func, units="spins", *, hint=False):
    """Check a reader's stability test ``func(s, W, b)`` against :func:`~bmlib.is_stable`.

    The function must return True when no single flip lowers the energy of
    the state ``s``, else False. It is called on every state of three small
    models with integer weights, where ties (a local field of exactly 0) occur.

    Parameters
    ----------
    func : callable
        ``func(s, W, b)`` returning a bool.
    units : {"spins", "bits"}
        Which kind of states to test with.
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> bm.check_is_stable(lambda s, W, b: bool(np.all(s * (W @ s + b) >= 0)))
    All 40 states are classified correctly (spins, 3 and 4 units). Well done.
    True
    """
    cases = _stability_cases(units)
    got = []
    for k, (s, W, b) in enumerate(cases):
        value, error = _call(func, (s, W, b), k)
        if error:
            print(error)
            return False
        if _shape(value) is None or np.prod(_shape(value)) != 1:
            print(f"Input {k}: your function returned shape {_shape(value)}; expected one True or False.")
            return False
        try:
            got.append(bool(_real(value).ravel()[0]))
        except (TypeError, ValueError):  # text, a complex number...
            print(f"Input {k}: your function returned {value!r:.60}; expected one True or False.")
            return False
    expected = [is_stable(s, W, b, units) for s, W, b in cases]
    wrong = [k for k in range(len(cases)) if got[k] != expected[k]]
    sizes = " and ".join(sorted({str(len(s)) for s, _, _ in cases}))
    if not wrong:
        print(f"All {len(cases)} states are classified correctly ({units}, {sizes} units). Well done.")
        return True
    k = wrong[0]
    s, W, b = cases[k]
    print(f"Your function is wrong on {len(wrong)} of {len(cases)} states. The first one:")
    _show_input(k, units, s, W, b)
    print(f"  local fields h = {_clean(local_fields(s, W, b))}, "
          f"flip energy changes Delta E = {_clean(flip_energy_changes(s, W, b, units))}")
    print(f"  expected {expected[k]}, your function gave {got[k]}")
    for mistake, text in _stability_mistakes(units):
        if all(bool(mistake(s, W, b)) == g for (s, W, b), g in zip(cases, got)):
            _fix(text)
            break
    else:
        _fix("The answers fit no typical mistake. A state is stable when every unit agrees with its "
             "field or has a field of exactly 0: for spins s_i h_i >= 0 for every i, for bits "
             "(2 x_i - 1) h_i >= 0, with h = W @ s + b.")
    return False


# --- one synchronous update (chapter "Energy") ---------------------------------------------------

def _synchronous_cases():
    """(s, W, b) for spins, with some fields exactly zero (weights in steps of 0.5)."""
    rng = np.random.default_rng(_SEED + 9)
    cases = []
    for units, W, b in _models():
        if units != "spins":
            continue
        for _ in range(3):
            cases.append((rng.choice([-1.0, 1.0], size=len(b)), W, b))
    return cases


def _synchronous(s, W, b):
    h = W @ s + b
    return np.where(h > 0, 1.0, np.where(h < 0, -1.0, s))


def _sequential(s, W, b):
    s = s.copy()
    for i in range(len(s)):
        h = W[i] @ s + b[i]
        s[i] = 1.0 if h > 0 else (-1.0 if h < 0 else s[i])
    return s


_SYNCHRONOUS_MISTAKES = [
    (_sequential, "You updated the units one after another, each seeing the new values of the ones "
                  "before it: that is an asynchronous sweep. In a synchronous step every unit reads "
                  "the OLD state: compute h = W @ s + b once, then set all units from it."),
    (lambda s, W, b: np.where(W @ s + b >= 0, 1.0, -1.0),
     "A unit whose field is exactly 0 should keep its value (no flip lowers the energy); yours "
     "turns it to +1."),
    (lambda s, W, b: np.sign(W @ s + b),
     "np.sign gives 0 where the field is 0, and 0 is not a spin: keep the unit's old value there."),
    (lambda s, W, b: np.where(W @ s + b > 0, -1.0, np.where(W @ s + b < 0, 1.0, s)),
     "Your units turn against their fields: a unit should take the sign of h_i, which lowers the energy."),
]


@fits_column
def check_synchronous_step(func, *, hint=False):
    """Check ``func(s, W, b)``: one synchronous update of every spin, ``sign(W s + b)``, 0 keeps.

    Parameters
    ----------
    func : callable
        ``func(s, W, b) -> new s`` for spins.
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> def step(s, W, b):
    ...     h = W @ s + b
    ...     return np.where(h > 0, 1, np.where(h < 0, -1, s))
    >>> bm.check_synchronous_step(step)
    All 9 states are updated right (3 to 5 spins, some fields exactly 0). Well done.
    True
    """
    cases = _synchronous_cases()
    wrong = []
    for k, (s, W, b) in enumerate(cases):
        value, error = _call(func, (s, W, b), k)
        if error:
            print(error)
            return False
        try:
            got = _real(value)
        except (TypeError, ValueError) as exc:
            print(f"Input {k}: your function returned {value!r:.60}; expected an array of spins ({exc}).")
            return False
        if got.shape != s.shape:
            print(f"Input {k}: your function returned shape {_shape(value)}; expected {s.shape}, one spin per unit.")
            return False
        if not np.array_equal(got, _synchronous(s, W, b)):
            wrong.append((k, got))
    if not wrong:
        print(f"All {len(cases)} states are updated right (3 to 5 spins, some fields exactly 0). Well done.")
        return True
    k, got = wrong[0]
    s, W, b = cases[k]
    print(f"Your update is wrong on {len(wrong)} of {len(cases)} states. The first one:")
    _show_input(k, "spins", s, W, b)
    print(f"  local fields h = {_clean(W @ s + b)}")
    print(f"  expected {_synchronous(s, W, b).astype(int).tolist()}, your function gave {_clean(got)}")
    for mistake, text in _SYNCHRONOUS_MISTAKES:
        if all(np.array_equal(g, mistake(*cases[j])) for j, g in wrong):
            _fix(text)
            break
    else:
        _fix("The results fit no typical mistake. Compute every field from the old state, "
             "h = W @ s + b, then give each unit the sign of its field (0: keep the old value).")
    return False
