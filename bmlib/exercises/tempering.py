"""Self-check for the chapter "Beyond single flips": the swap probability of parallel tempering."""
from __future__ import annotations

import numpy as np

from ._common import _call, _clean, _fix, _real, _shape, fits_column

# --- the swap probability of parallel tempering (chapter "Beyond single flips") ----------------------


def _swap_cases():
    """(what the input shows, beta_k, beta_k1, E_k, E_k1): rung k is the colder one, beta_k > beta_k1.

    In order: the usual case (the colder state has the lower energy: a swap
    is uphill for it), a swap that helps, equal temperatures, equal energies,
    one round of a five-rung ladder, three rounds of it at once (the
    temperatures broadcast against rows of energies), and energies of a
    large model at low temperature, whose exponent is in the thousands.
    """
    betas = np.array([3.0, 2.0, 1.5, 1.0, 0.5])
    energies = np.array([-9.5, -8.0, -8.5, -5.0, -2.0])
    rounds = np.array([[-9.5, -8.0, -8.5, -5.0, -2.0],
                       [-8.0, -9.5, -6.0, -6.5, -1.5],
                       [-9.0, -8.5, -7.0, -4.0, -4.5]])
    return [
        ("the colder state has the lower energy", 2.0, 1.0, -5.0, -3.0),
        ("the colder state has the higher energy", 2.0, 1.0, -3.0, -5.0),
        ("equal temperatures", 1.0, 1.0, -4.0, 2.0),
        ("equal energies", 2.0, 0.5, -2.5, -2.5),
        ("one round of a ladder of 5 rungs", betas[:-1], betas[1:], energies[:-1], energies[1:]),
        ("3 rounds of that ladder: beta of shape (4,), E of shape (3, 4)",
         betas[:-1], betas[1:], rounds[:, :-1], rounds[:, 1:]),
        ("a large model at low temperature: the exponent is in the thousands",
         np.array([10.0, 10.0]), np.array([1.0, 1.0]), np.array([-1500.0, -2500.0]), np.array([-2500.0, -1500.0])),
    ]


def _exponent(beta_k, beta_k1, E_k, E_k1):
    return (np.asarray(beta_k, dtype=float) - beta_k1) * (np.asarray(E_k, dtype=float) - E_k1)


def _swap_probability(beta_k, beta_k1, E_k, E_k1):
    """The reference answer, in the form that cannot overflow: exp(min(0, x))."""
    return np.exp(np.minimum(0.0, _exponent(beta_k, beta_k1, E_k, E_k1)))


# What a plausible wrong draft returns (on inputs where it does not raise), and what to tell its author.
_SWAP_MISTAKES = [
    (lambda bk, bk1, Ek, Ek1: np.exp(np.minimum(0.0, -_exponent(bk, bk1, Ek, Ek1))),
     "The exponent has the wrong sign. Swapping gives rung k the energy E_{k+1} and rung k+1 the energy E_k; "
     "the ratio of the Boltzmann factors after and before is exp(-beta_k E_{k+1} - beta_{k+1} E_k + beta_k E_k "
     "+ beta_{k+1} E_{k+1}) = exp((beta_k - beta_{k+1}) (E_k - E_{k+1})). With it, a swap that brings the colder "
     "rung a lower energy is always accepted, and one that brings it a higher energy only sometimes."),
    (lambda bk, bk1, Ek, Ek1: np.exp(_exponent(bk, bk1, Ek, Ek1)),
     "The min(1, ...) is missing: a probability cannot exceed 1. When the swap raises the probability of the "
     "pair of states, it is always accepted: min(1, exp(x)), best computed as exp(min(0, x))."),
    (lambda bk, bk1, Ek, Ek1: np.exp(np.minimum(0.0, (np.asarray(bk, dtype=float) - bk1) * Ek)),
     "Only E_k is in the exponent: it needs the difference of the energies, (beta_k - beta_{k+1}) (E_k - "
     "E_{k+1})."),
    (lambda bk, bk1, Ek, Ek1: np.exp(np.minimum(0.0, (1 / np.asarray(bk, dtype=float) - 1 / bk1)
                                                 * (np.asarray(Ek, dtype=float) - Ek1))),
     "You used the temperatures 1/beta in the exponent: the rule has the inverse temperatures, "
     "(beta_k - beta_{k+1}) (E_k - E_{k+1})."),
]

_STABLE = ("exp overflows above about 709.8: exp(9000) is inf in float64, so min(1, exp(x)) passes through "
           "inf (np.where(x < 0, np.exp(x), 1) too, since it computes exp of every x), and a ratio of two "
           "Boltzmann factors becomes inf / inf = nan. Take the min in the exponent, before the exp: "
           "exp(min(0, x)), with np.minimum(0, x) for arrays. Then exp only sees numbers <= 0, and returns "
           "1 exactly when x >= 0.")

_ELEMENTWISE = ("Python's min and math.exp work on one number at a time: for arrays use np.minimum and np.exp, "
                "which work element by element and broadcast, so that the same function serves one pair of "
                "rungs, a whole ladder and many rounds at once.")


def _swap_answer(func, args, k):
    """``(value, got, error)``: what the reader's function returned, as floats (None if it is not numbers),
    and the message when it raised; NumPy's overflow and invalid-value warnings raise while it runs."""
    with np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"):
        value, error = _call(func, args, k)
    if error is not None:
        return None, None, error
    try:
        return value, _real(value), None
    except (TypeError, ValueError):
        return value, None, None


def _fits(got, expected):
    """The answer has the broadcast shape (for single numbers, any one-element array will do)."""
    return np.shape(got) == np.shape(expected) or (np.ndim(expected) == 0 and np.size(got) == 1)


def _diagnose_swap(cases, answers):
    """Name the mistake from every input the reader's function answered (in the right shape)."""
    answered = [(args, got.reshape(np.shape(_swap_probability(*args))))
                for (_, *args), (_, got, _) in zip(cases, answers)
                if got is not None and _fits(got, _swap_probability(*args))]
    if any(np.isnan(got).any() for _, got in answered):
        return _STABLE
    for mistake, text in _SWAP_MISTAKES:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            if all(np.allclose(got, mistake(*args), rtol=1e-12, atol=1e-12) for args, got in answered):
                return text
    if any((got > 1).any() or (got < 0).any() for _, got in answered):
        return ("A probability lies between 0 and 1: min(1, exp(x)), with x = (beta_k - beta_{k+1}) "
                "(E_k - E_{k+1}).")
    return ("The results fit no typical mistake: the answer is min(1, exp(x)) with x = (beta_k - "
            "beta_{k+1}) (E_k - E_{k+1}), computed as np.exp(np.minimum(0, x)).")


def _show_swap_input(k, what, beta_k, beta_k1, E_k, E_k1):
    print(f"Input {k} ({what}):")
    print(f"  beta_k = {_clean(beta_k)}, beta_k1 = {_clean(beta_k1)}")
    print(f"  E_k = {_clean(E_k)}")
    print(f"  E_k1 = {_clean(E_k1)}")


@fits_column
def check_swap_probability(func, *, hint=False):
    """Check ``func(beta_k, beta_k1, E_k, E_k1)``, the probability of accepting a parallel-tempering swap.

    Parallel tempering proposes to exchange the states of the neighbouring
    rungs ``k`` and ``k+1`` of a ladder of temperatures (inverse
    temperatures ``beta_k > beta_k1``, energies ``E_k`` and ``E_k1``) and
    accepts with probability

    ``min(1, exp((beta_k - beta_k1) * (E_k - E_k1)))``,

    which keeps every rung's Boltzmann-Gibbs distribution exact. The checker
    tries 7 fixed inputs: single numbers (a swap that is uphill for the
    colder rung, one that helps it, equal temperatures, equal energies),
    arrays that must broadcast (one round of a five-rung ladder, then three
    rounds at once), and energies of a large model whose exponent is in the
    thousands, where the answer must be 0 or 1 without an overflow. It
    names the likely mistake: the exponent's sign reversed, the ``min``
    missing, Python's ``min``/``math.exp`` on arrays, or an ``exp`` that
    overflows (the stable form is ``exp(min(0, x))``).

    Parameters
    ----------
    func : callable
        ``func(beta_k, beta_k1, E_k, E_k1)``, numbers or arrays that
        broadcast together, returning the acceptance probability with their
        broadcast shape.
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool
        True if every input gives the swap probability to 1e-12, without an
        overflow.

    Notes
    -----
    Explained in the chapter "Beyond single flips". NumPy's overflow
    warnings are turned into errors while ``func`` runs, so an ``exp`` that
    overflows is reported even when ``min`` would have mended the result.

    Examples
    --------
    >>> import numpy as np
    >>> def swap_probability(beta_k, beta_k1, E_k, E_k1):
    ...     x = (beta_k - beta_k1) * (E_k - E_k1)
    ...     return np.exp(np.minimum(0.0, x))
    >>> bm.check_swap_probability(swap_probability)
    All 7 inputs give the right swap probability, including 2 of arrays that
      broadcast and 1 whose exponent is in the thousands. Well done.
    True
    """
    cases = _swap_cases()
    answers = [_swap_answer(func, args, k) for k, (_, *args) in enumerate(cases)]
    for k, ((what, *args), (value, got, error)) in enumerate(zip(cases, answers)):
        expected = _swap_probability(*args)
        if got is not None and _fits(got, expected) and np.allclose(got, expected, rtol=1e-12, atol=1e-12):
            continue
        _show_swap_input(k, what, *args)
        if error is None and got is None:
            print(f"  expected {_clean(expected)}, your function returned {value!r:.60}: not numbers.")
            _fix("Return the probability as a number, or an array of numbers for arrays.")
        elif error is not None:
            print(f"  expected {_clean(expected)}")
            print(error.replace(f"Input {k}: y", "  Y", 1))
            if "overflow" in error.lower() or "invalid value" in error.lower():
                _fix(_STABLE)
            elif np.ndim(expected) > 0 and any(words in error for words in (
                    "truth value", "length-1", "0-dimensional", "size-1", "must be real number")):
                _fix(_ELEMENTWISE)
            else:
                _fix("Compute x = (beta_k - beta_k1) * (E_k - E_k1) with NumPy and return "
                     "np.exp(np.minimum(0, x)).")
        elif not _fits(got, expected):
            print(f"  expected shape {np.shape(expected)}, your function returned shape {_shape(value)}")
            _fix("Return one probability per pair of energies, with the shape the arguments broadcast to: "
                 "compute with NumPy operations element by element, and do not sum, average or loop over "
                 "only one axis. " + _ELEMENTWISE)
        else:
            print(f"  expected {_clean(expected)}, your function gave {_clean(got)}")
            _fix(_diagnose_swap(cases, answers))
        return False
    print(f"All {len(cases)} inputs give the right swap probability, including 2 of arrays that broadcast and "
          "1 whose exponent is in the thousands. Well done.")
    return True
