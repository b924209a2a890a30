"""Self-check for the chapter "The learning rule": the exact gradient."""
from __future__ import annotations

import numpy as np

from ..exact.enumeration import boltzmann_distribution
from ..learning.machine import BoltzmannMachine
from ..models.states import all_states
from ._common import _SEED, _call, _clean, _fix, _models, _real, fits_column

# --- the gradient of the mean log-likelihood (chapter "The learning rule") ------------------------


def _gradient_cases():
    """(units, W, b, T, data) for visible-only machines: spins and bits, 3 to 5 units, T = 0.5, 1 and 2."""
    rng = np.random.default_rng(_SEED + 5)
    cases = []
    for (units, W, b), T in zip(_models(), (0.5, 1.0, 2.0, 2.0, 0.5, 1.0)):
        x = rng.integers(0, 2, size=(6, len(b))).astype(float)
        cases.append((units, W, b, T, x if units == "bits" else 2 * x - 1))
    return cases


def _gradient_parts(units, W, b, T, data):
    """Data and model averages: (<s_i s_j>_data, <s_i s_j>_model, <s_i>_data, <s_i>_model)."""
    S = all_states(len(b), units).astype(float)
    p = boltzmann_distribution(W, b, T, units)
    return data.T @ data / len(data), S.T @ (p[:, None] * S), data.mean(axis=0), p @ S


def _off_diagonal(M):
    return M - np.diag(np.diag(M))


# What a plausible wrong draft returns, from (C_data, C_model, m_data, m_model, T), and what to tell its author.
_GRADIENT_W_MISTAKES = [
    (lambda Cd, Cm, T: (Cm - Cd) / T,
     "Your dW is exactly minus the gradient: you computed model minus data. That is the gradient of -L, and "
     "stepping along it would make the data LESS likely (a common sign slip). The Hebbian term, "
     "the data average, comes first: dL/dw_ij = (<s_i s_j>_data - <s_i s_j>_model) / T."),
    (lambda Cd, Cm, T: Cd - Cm,
     "Your dW is T times the gradient: the 1/T is missing. log p(s) = -E(s)/T - log Z, so every derivative "
     "carries a 1/T (the inputs use T = 0.5, 1 and 2, which is how this shows)."),
    (lambda Cd, Cm, T: Cm - Cd,
     "Your dW has the wrong sign AND misses the 1/T: dL/dw_ij = (<s_i s_j>_data - <s_i s_j>_model) / T."),
    (lambda Cd, Cm, T: (Cd - Cm) / (2 * T),
     "Your dW is half the gradient. w_ij and w_ji are ONE parameter, which appears in E once, as "
     "-w_ij s_i s_j (the 1/2 in -1/2 s^T W s only undoes the double count), so d(-E/T)/dw_ij = s_i s_j / T."),
    (lambda Cd, Cm, T: Cd / T,
     "Your dW holds only the data (Hebbian) term <s_i s_j>_data / T. The unlearning term "
     "-<s_i s_j>_model / T, which comes from differentiating log Z, is missing."),
    (lambda Cd, Cm, T: -Cm / T,
     "Your dW holds only the model (unlearning) term; the Hebbian data term <s_i s_j>_data / T is missing."),
]
_GRADIENT_B_MISTAKES = [
    (lambda md, mm, T: (mm - md) / T, "db has the wrong sign: it is (<s_i>_data - <s_i>_model) / T."),
    (lambda md, mm, T: md - mm, "db misses the 1/T: it is (<s_i>_data - <s_i>_model) / T."),
    (lambda md, mm, T: mm - md, "db has the wrong sign and misses the 1/T: it is (<s_i>_data - <s_i>_model) / T."),
    (lambda md, mm, T: 0 * md, "db is zero: the bias term (<s_i>_data - <s_i>_model) / T is missing."),
    (lambda md, mm, T: md / T, "db holds only <s_i>_data / T; subtract the model average <s_i>_model / T."),
]


def _call_gradient(func, case, k):
    """Call the reader's function on copies; return ((dW, db), None) or (None, message)."""
    units, W, b, T, data = case
    n = len(b)
    result, error = _call(func, (W, b, data, T, units), k)
    if error:
        return None, error
    try:
        dW, db = (_real(part) for part in result)
    except (TypeError, ValueError):
        return None, f"Input {k}: your function must return two arrays, (dW, db); got {type(result).__name__}."
    if dW.shape != (n, n) or db.shape != (n,):
        return None, (f"Input {k}: your function returned dW of shape {dW.shape} and db of shape {db.shape}; "
                      f"expected ({n}, {n}) and ({n},).")
    return (dW, db), None


@fits_column
def check_gradient_function(func, *, hint=False):
    """Check a reader's exact gradient of the mean log-likelihood of a machine without hidden units.

    The function is called as ``func(W, b, data, T, units)`` and must return
    ``(dW, db)``, the gradient of ``L = (1/P) sum_mu log p(s_mu)``:

    ``dW[i, j] = (<s_i s_j>_data - <s_i s_j>_model) / T`` for ``i != j``, 0 on the diagonal;
    ``db[i] = (<s_i>_data - <s_i>_model) / T``.

    It is compared with :meth:`BoltzmannMachine.gradient <bmlib.BoltzmannMachine.gradient>`
    (itself tested against finite differences of the exact log-likelihood) on
    six fixed machines, spins and bits, 3 to 5 units, ``T`` = 0.5, 1 and 2,
    six patterns each. On a mismatch the first wrong input and its largest
    error are printed, and the pattern of errors over all inputs is compared
    with typical mistakes: data and model reversed, the 1/T missing, half the
    gradient, a missing data or model term, a nonzero diagonal, a wrong or
    missing bias term.

    Parameters
    ----------
    func : callable
        ``func(W, b, data, T, units)`` with ``W`` of shape (n, n), ``b`` of
        shape (n,), ``data`` of shape (P, n), ``T`` a float and ``units``
        ``"spins"`` or ``"bits"``.
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool
        True if every input gives the right gradient (to 1e-8).

    Notes
    -----
    Explained in the chapter "The learning rule".

    Examples
    --------
    >>> from bmlib import BoltzmannMachine
    >>> bm.check_gradient_function(lambda W, b, data, T, units:
    ...                         BoltzmannMachine(len(b), W=W, b=b, units=units, T=T).gradient(data))
    All 6 inputs give the right gradient (spins and bits, 3 to 5 units, T = 0.5, 1 and 2). Well done.
    True
    """
    cases = _gradient_cases()
    got = []
    for k, case in enumerate(cases):
        value, error = _call_gradient(func, case, k)
        if error:
            print(error)
            return False
        got.append(value)
    expected = [BoltzmannMachine(len(b), W=W, b=b, units=units, T=T).gradient(data) for units, W, b, T, data in cases]
    wrong = [k for k in range(len(cases)) if not all(np.allclose(g, e, atol=1e-8) for g, e in zip(got[k], expected[k]))]
    if not wrong:
        print(f"All {len(cases)} inputs give the right gradient (spins and bits, 3 to 5 units, T = 0.5, 1 and 2). "
              "Well done.")
        return True
    k = wrong[0]
    units, W, b, T, data = cases[k]
    (dW, db), (eW, eb) = got[k], expected[k]
    print(f"Your gradient is wrong on {len(wrong)} of {len(cases)} inputs. The first one:")
    W_text = np.array2string(W, precision=2, separator=", ", prefix="  W = ")
    print(f"Input {k} ({units}, n = {len(b)}, T = {T:g}, {len(data)} patterns):\n  W = {W_text}\n  b = {_clean(b)}")
    errors_W, errors_b = np.abs(dW - eW), np.abs(db - eb)
    if errors_W.max() >= errors_b.max():
        i, j = np.unravel_index(np.argmax(errors_W), eW.shape)
        print(f"  expected dW[{i}, {j}] = {eW[i, j]:.4f}, your function gave {dW[i, j]:.4f}")
    else:
        i = int(np.argmax(errors_b))
        print(f"  expected db[{i}] = {eb[i]:.4f}, your function gave {db[i]:.4f}")
    parts = [_gradient_parts(*case) for case in cases]
    found = []
    if not all(np.allclose(g[0], g[0].T, atol=1e-8) for g in got):
        found.append("Your dW is not symmetric: w_ij and w_ji are one weight, so dW[i, j] must equal dW[j, i].")
    elif not all(np.allclose(_off_diagonal(g[0]), e[0], atol=1e-8) for g, e in zip(got, expected)):
        for mistake, text in _GRADIENT_W_MISTAKES:
            if all(np.allclose(_off_diagonal(g[0]), _off_diagonal(mistake(Cd, Cm, T)), atol=1e-8)
                   for g, (Cd, Cm, _, _), (_, _, _, T, _) in zip(got, parts, cases)):
                found.append(text)
                break
    if any(np.abs(np.diag(g[0])).max() > 1e-8 for g in got):
        found.append("The diagonal of dW must be 0: there is no weight w_ii (W has a zero diagonal), so nothing "
                     "is learned there. With bits <x_i x_i> = <x_i>, so data minus model is not 0 on the "
                     "diagonal; set it to 0, e.g. with np.fill_diagonal(dW, 0).")
    if not all(np.allclose(g[1], e[1], atol=1e-8) for g, e in zip(got, expected)):
        for mistake, text in _GRADIENT_B_MISTAKES:
            if all(np.allclose(g[1], mistake(md, mm, T), atol=1e-8)
                   for g, (_, _, md, mm), (_, _, _, T, _) in zip(got, parts, cases)):
                found.append(text)
                break
    _fix("\n".join(found) or "The errors fit no typical mistake. Average s_i s_j over the data and over "
                             "the model's distribution (every state, weighted by p(s)), subtract, divide by T, "
                             "and set the diagonal to 0; db is the same with s_i.")
    return False
