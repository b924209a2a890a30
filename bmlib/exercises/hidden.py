"""Self-check for the chapter "Restricted Boltzmann machines": the RBM's hidden conditional probabilities."""
from __future__ import annotations

import numpy as np

from .._numerics import sigmoid as _sigmoid
from ._common import _SEED, _call, _clean, _fix, _real, fits_column

# --- the hidden units' conditional probability in an RBM (chapter "Restricted Boltzmann machines")


def _rbm_cases():
    """(v, W, c, T) for RBMs in bits: square W first (a transposed W then gives numbers, not an error)."""
    rng = np.random.default_rng(_SEED + 11)
    cases = []
    for n_v, n_h, T in ((3, 3, 1.0), (4, 4, 0.5), (3, 3, 2.0), (4, 2, 1.0), (3, 5, 2.0), (5, 3, 0.5)):
        W = rng.integers(-4, 5, size=(n_v, n_h)) / 2
        c = rng.choice([-1.5, -1.0, -0.5, 0.5, 1.0, 1.5], size=n_h)  # never 0: a missing bias must show
        v = rng.integers(0, 2, size=(4, n_v)).astype(float)
        cases.append((v, W, c, T))
    return cases


def _field(v, W, c):
    return v @ W + c


# What a plausible wrong draft returns, from (v, W, c, T), and what to tell its author. None: not defined here.
_RBM_MISTAKES = [
    (lambda v, W, c, T: _sigmoid(2 * _field(v, W, c) / T),
     "You used the spin formula 1 / (1 + exp(-2 u_j / T)), with its factor 2 (heat bath for spins, chapter "
     "\"The Boltzmann-Gibbs distribution\"). Here the hidden units are bits: h_j = 1 and h_j = 0 differ in energy "
     "by u_j, not 2 u_j, so p(h_j = 1 | v) = 1 / (1 + exp(-u_j / T)) with u = v @ W + c."),
    (lambda v, W, c, T: np.tanh(_field(v, W, c) / T),
     "You returned tanh(u_j / T), the MEAN of a spin +-1 in the field u_j. For bits the mean is the probability "
     "of being on, p(h_j = 1 | v) = 1 / (1 + exp(-u_j / T)) with u = v @ W + c."),
    (lambda v, W, c, T: _sigmoid(_field(v, W, c)),
     "The temperature is missing: p(h_j = 1 | v) = 1 / (1 + exp(-u_j / T)) (the inputs use T = 0.5, 1 and 2, "
     "which is how this shows)."),
    (lambda v, W, c, T: _sigmoid(_field(v, W, c) * T),
     "You multiplied by T instead of dividing: p(h_j = 1 | v) = 1 / (1 + exp(-u_j / T)). A high temperature "
     "must make the hidden units MORE random."),
    (lambda v, W, c, T: _sigmoid(-_field(v, W, c) / T),
     "You returned p(h_j = 0 | v), or the sign in the exponent is flipped: a positive field u_j must make "
     "h_j = 1 MORE likely. p(h_j = 1 | v) = 1 / (1 + exp(-u_j / T))."),
    (lambda v, W, c, T: _sigmoid(v @ W / T),
     "The hidden biases are missing: the field on hidden unit j is u_j = sum_i v_i W[i, j] + c_j."),
    (lambda v, W, c, T: _sigmoid((v @ W - c) / T),
     "The hidden biases enter with the wrong sign: u_j = sum_i v_i W[i, j] + c_j (E contains -c^T h)."),
    (lambda v, W, c, T: _sigmoid((v @ W.T + c) / T) if W.shape[0] == W.shape[1] else None,
     "Your W is transposed: W has shape (n_visible, n_hidden), W[i, j] joins visible unit i to hidden unit j, "
     "so the field on hidden unit j is u_j = sum_i v_i W[i, j] + c_j, which is v @ W + c (shape (P, n_hidden))."),
    (lambda v, W, c, T: _sigmoid(_field(v, W, c) / T).T if len(v) == W.shape[1] else None,
     "Your result is transposed: return one row per pattern and one column per hidden unit, shape (P, n_hidden), "
     "as v @ W + c has."),
    (lambda v, W, c, T: np.exp(_field(v, W, c) / T),
     "You returned exp(u_j / T) without normalizing it. h_j has two values, with weights exp(u_j / T) for "
     "h_j = 1 and 1 for h_j = 0, so p(h_j = 1 | v) = exp(u_j / T) / (1 + exp(u_j / T)) = 1 / (1 + exp(-u_j / T))."),
    (lambda v, W, c, T: (lambda e: e / e.sum(axis=1, keepdims=True))(np.exp(_field(v, W, c) / T)),
     "You normalized across the hidden units (a softmax), as if exactly one of them were on. Given v the hidden "
     "units are independent, each normalized over its OWN two values: p(h_j = 1 | v) = 1 / (1 + exp(-u_j / T))."),
]


def _call_rbm(func, case, k):
    """Call the reader's function on copies; return (array of shape (P, n_hidden), None) or (None, message)."""
    v, W, c, T = case
    result, error = _call(func, (v, W, c, T), k)
    if error:
        if "raised ValueError" in error and W.shape[0] != W.shape[1]:
            error += (f"\n  Here v has shape {v.shape} (P, n_visible) and W has shape {W.shape} (n_visible, n_hidden): "
                      "the field on hidden unit j is sum_i v_i W[i, j] + c_j, which is v @ W + c.")
        return None, error
    try:
        p = _real(result)
    except (TypeError, ValueError):
        return None, f"Input {k}: your function must return an array; got {type(result).__name__}."
    P, n_h = len(v), W.shape[1]
    if p.shape == (n_h, P) and P != n_h:
        return None, (f"Input {k}: your function returned shape {p.shape}, the transpose of (P, n_hidden) = {(P, n_h)}: "
                      "return one row per pattern, one column per hidden unit.")
    if p.shape != (P, n_h):
        return None, (f"Input {k}: your function returned shape {p.shape}; expected (P, n_hidden) = {(P, n_h)}, "
                      "one row per pattern.")
    return p, None


@fits_column
def check_hidden_probabilities(func, *, hint=False):
    """Check a reader's ``p(h_j = 1 | v)`` for an RBM in bits against the exact conditional.

    The function is called as ``func(v, W, c, T)`` and must return, for every
    pattern (row of ``v``) and every hidden unit ``j``,

    ``p(h_j = 1 | v) = 1 / (1 + exp(-u_j / T))``,  ``u = v @ W + c``,

    with ``v`` of shape (P, n_visible) in bits, ``W`` of shape (n_visible,
    n_hidden) and ``c`` the hidden biases. It is compared with
    :meth:`RBM.hidden_means <bmlib.RBM.hidden_means>` on six fixed RBMs
    (square and rectangular ``W``, T = 0.5, 1 and 2, four patterns each). On
    a mismatch the first wrong value is printed, and the pattern of errors
    over all inputs is compared with typical mistakes: a transposed ``W``,
    the hidden biases missing or with the wrong sign, the 1/T missing or
    multiplied, the sign of the field flipped, the spin formula (a factor 2
    or tanh), an unnormalized exponential, a softmax across hidden units, and
    a sample of ``h`` returned instead of its probability.

    Parameters
    ----------
    func : callable
        ``func(v, W, c, T)`` with ``v`` of shape (P, n_visible), ``W`` of
        shape (n_visible, n_hidden), ``c`` of shape (n_hidden,), ``T`` a float.
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool
        True if every input gives the right probabilities (to 1e-8).

    Notes
    -----
    Explained in the chapter "Restricted Boltzmann machines".

    Examples
    --------
    >>> import numpy as np
    >>> bm.check_hidden_probabilities(lambda v, W, c, T: 1 / (1 + np.exp(-(v @ W + c) / T)))
    All 6 inputs give the right p(h_j = 1 | v) (square and rectangular W, T = 0.5, 1 and 2). Well done.
    True
    """
    from ..learning.rbm import RBM

    cases = _rbm_cases()
    got, errors = [], []
    for k, case in enumerate(cases):
        value, error = _call_rbm(func, case, k)
        got.append(value)
        if error:
            errors.append(error)
    expected = [RBM(W.shape[0], W.shape[1], W=W, b_hidden=c, T=T, units="bits").hidden_means(v) for v, W, c, T in cases]
    returned = [k for k in range(len(cases)) if got[k] is not None]
    wrong = [k for k in returned if not np.allclose(got[k], expected[k], atol=1e-8)]
    if not errors and not wrong:
        print(f"All {len(cases)} inputs give the right p(h_j = 1 | v) (square and rectangular W, T = 0.5, 1 and 2). "
              "Well done.")
        return True
    if not wrong:  # right where it returned something: report the first failure
        print(errors[0])
        return False
    k = wrong[0]
    v, W, c, T = cases[k]
    row, col = np.unravel_index(np.argmax(np.abs(got[k] - expected[k])), expected[k].shape)
    raised = f" (and gave no usable answer on {len(errors)} more)" if errors else ""
    print(f"Your probabilities are wrong on {len(wrong)} of {len(cases)} inputs{raised}. The first one:")
    W_text = np.array2string(W, precision=2, separator=", ", prefix="  W = ")
    print(f"Input {k} (n_visible = {W.shape[0]}, n_hidden = {W.shape[1]}, T = {T:g}):\n  W = {W_text}\n"
          f"  c = {_clean(c)}\n  pattern v = {v[row].astype(int).tolist()}")
    print(f"  expected p(h_{col} = 1 | v) = {expected[k][row, col]:.4f}, your function gave {got[k][row, col]:.4f}")
    values = np.concatenate([got[j].ravel() for j in returned])
    if np.all(np.isin(values, (0.0, 1.0))):
        print("Your function returned only 0s and 1s.")
        _fix("That is a SAMPLE of the hidden units, not their probability. "
             "Return p(h_j = 1 | v) = 1 / (1 + exp(-u_j / T)) itself; sampling comes after (h_j = 1 if a uniform "
             "random number is below it), and the learning rule uses the probabilities, which are less noisy.")
    elif np.all(np.isin(values, (-1.0, 1.0))):
        print("Your function returned only -1s and +1s.")
        _fix("That is a sample of spins. Return the probability p(h_j = 1 | v) = 1 / (1 + exp(-u_j / T)) "
             "of bits.")
    else:
        for mistake, text in _RBM_MISTAKES:
            guesses = [mistake(*cases[j]) for j in returned]
            if all(g is None or (g.shape == got[j].shape and np.allclose(got[j], g, atol=1e-8))
                   for g, j in zip(guesses, returned)) and any(g is not None for g in guesses):
                _fix(text)
                break
        else:
            _fix("The errors fit no typical mistake. Compute the field u = v @ W + c on every hidden unit, then "
                 "p = 1 / (1 + exp(-u / T)), one row per pattern.")
    if errors:
        print("Also, " + errors[0][0].lower() + errors[0][1:])
    return False
