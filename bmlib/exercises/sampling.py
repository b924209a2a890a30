"""Self-checks for two chapters: the heat-bath update ("Sampling: heat bath and Metropolis")
and energy moments as derivatives of log Z ("The Boltzmann-Gibbs distribution")."""
from __future__ import annotations

import numpy as np

from .._numerics import sigmoid as _sigmoid
from ..models.energy import local_fields
from ._common import _SEED, _fix, _models, _real, _shape, _show_input, fits_column

# --- the heat-bath update of one unit (chapter "Sampling: heat bath and Metropolis") ---------------

_HEAT_BATH_CALLS = 2000  # calls per case: the standard error of a frequency is at most 0.011


def _heat_bath_cases():
    """(s, i, W, b, T) for spins: both values of s_i, both signs of h_i, biases, T below and above 1."""
    rng = np.random.default_rng(_SEED + 3)
    spin_models = [(W, b) for units, W, b in _models() if units == "spins"]
    cases = []
    for (W, b), temperatures in zip(spin_models, [(1.0, 2.0), (0.5, 1.0), (1.5, 1.0)]):
        n = len(b)
        for T in temperatures:
            while True:  # a unit whose field is neither 0 nor so strong that the answer is certain
                s = rng.choice([-1.0, 1.0], size=n)
                i = int(rng.integers(n))
                h = local_fields(s, W, b)[i]
                if 0.2 <= abs(h) / T <= 1.6:
                    break
            cases.append((s, i, W, b, T))
    return cases



# p(s_i = +1) that a plausible wrong draft produces, from (s_i, h_i, b_i, T), and what to tell its author.
_HEAT_BATH_MISTAKES = [
    (lambda si, h, bi, T: _sigmoid(h / T),
     "You used p(+1) = 1 / (1 + exp(-h_i / T)): the factor 2 is missing. That is the rule for bits (0/1). "
     "For spins the two values of s_i differ in energy by 2 h_i (E contains -h_i s_i, and s_i goes from "
     "-1 to +1), so p(s_i = +1 | rest) = 1 / (1 + exp(-2 h_i / T))."),
    (lambda si, h, bi, T: _sigmoid(-2 * h / T),
     "Your unit turns AGAINST its field: either the sign in the exponent is flipped, or +1 and -1 are "
     "swapped when you compare with the random number. A positive field must make +1 more likely: "
     "p(s_i = +1 | rest) = 1 / (1 + exp(-2 h_i / T))."),
    (lambda si, h, bi, T: _sigmoid(2 * h * T),
     "You multiplied by T instead of dividing: the exponent is -2 h_i / T. A high temperature must make "
     "the unit MORE random."),
    (lambda si, h, bi, T: _sigmoid(2 * h),
     "The temperature is missing: the exponent is -2 h_i / T."),
    (lambda si, h, bi, T: _sigmoid(2 * (h - bi) / T),
     "Your local field leaves out the bias: h_i = sum_j w_ij s_j + b_i."),
    (lambda si, h, bi, T: _sigmoid(-2 * si * h / T),
     "You return +1 with the probability of FLIPPING the unit, 1 / (1 + exp(Delta E_i / T)). Heat bath "
     "draws the new value from p(s_i = +1 | rest) = 1 / (1 + exp(-2 h_i / T)), whatever the old value."),
    (lambda si, h, bi, T: np.where(si > 0, 1 - np.exp(np.minimum(0, -2 * h / T)), np.exp(np.minimum(0, 2 * h / T))),
     "This is the Metropolis rule (flip with probability min(1, exp(-Delta E_i / T))). It is a correct "
     "sampler too, but not the heat-bath update: draw s_i = +1 with probability 1 / (1 + exp(-2 h_i / T)), "
     "whatever the old value."),
    (lambda si, h, bi, T: (h > 0).astype(float),
     "Your unit always takes the sign of its field: that is energy descent, the limit T -> 0. At T > 0 "
     "draw s_i = +1 with probability 1 / (1 + exp(-2 h_i / T))."),
]


def _heat_bath_values(func, case, k):
    """Call the reader's update ``_HEAT_BATH_CALLS`` times; return (values, None) or (None, message)."""
    s, i, W, b, T = case
    rng = np.random.default_rng(_SEED + 100 + k)
    values = []
    for _ in range(_HEAT_BATH_CALLS):
        try:
            value = func(s.copy(), i, W.copy(), b.copy(), T, rng)
        except Exception as exc:  # the reader's bug, reported in words
            return None, f"Input {k}: your function raised {type(exc).__name__}: {exc}"
        if value is None:
            return None, f"Input {k}: your function returned None; is its return statement missing?"
        if _shape(value) is None or np.prod(_shape(value)) != 1:
            return None, (f"Input {k}: your function returned shape {_shape(value)}; return only the new value "
                          f"of unit i, +1 or -1 (not the whole state).")
        try:
            values.append(float(_real(value).ravel()[0]))
        except (TypeError, ValueError):  # a string, a complex number...
            return None, f"Input {k}: your function returned {value!r:.60}; return the new value of unit i, +1 or -1."
    values = np.array(values)
    if set(np.unique(values)) <= {0.0, 1.0} and 0.0 in values:
        return None, (f"Input {k}: your function returned 0 and 1. These are spins: return +1 or -1 "
                      "(and use the spin formula, with its factor 2).")
    if not set(np.unique(values)) <= {-1.0, 1.0}:
        return None, f"Input {k}: your function returned {values[~np.isin(values, (-1, 1))][0]:g}; return +1 or -1."
    return values, None


@fits_column
def check_heat_bath_update(func, *, hint=False):
    """Check a reader's heat-bath update of one spin against the exact conditional probability.

    The function is called as ``func(s, i, W, b, T, rng)`` and must return the
    new value of unit ``i``, +1 or -1, drawn from

    ``p(s_i = +1 | rest) = 1 / (1 + exp(-2 h_i / T))``,  ``h_i = sum_j w_ij s_j + b_i``,

    using ``rng`` (a :class:`numpy.random.Generator`) for its random number.
    Six cases (3 to 5 units, temperatures 0.5 to 2) are each run 2000
    times with a fixed seed; the fraction of +1 must lie within 5 standard
    errors of the exact probability in every case. Otherwise the first
    failing case is printed, and the pattern of frequencies over all cases
    is compared with typical mistakes (a missing factor 2, a flipped sign, T
    multiplied instead of divided, no bias, the flip probability taken for
    p(+1), the Metropolis rule, energy descent) to name the likely one.

    Parameters
    ----------
    func : callable
        ``func(s, i, W, b, T, rng)`` with ``s`` of shape (n,) (spins), ``i`` an int,
        ``W`` of shape (n, n), ``b`` of shape (n,), ``T`` a float.
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool
        True if every case agrees with the exact conditional probability.

    Notes
    -----
    Explained in the chapter "Sampling: heat bath and Metropolis".

    Examples
    --------
    >>> import numpy as np
    >>> def update(s, i, W, b, T, rng):
    ...     h = W[i] @ s + b[i]
    ...     return 1 if rng.random() < 1 / (1 + np.exp(-2 * h / T)) else -1
    >>> bm.check_heat_bath_update(update)
    All 6 cases agree with p(s_i = +1 | rest) = 1 / (1 + exp(-2 h_i / T)) (2000 draws each). Well done.
    True
    """
    cases = _heat_bath_cases()
    frequencies = []
    for k, case in enumerate(cases):
        values, error = _heat_bath_values(func, case, k)
        if error:
            print(error)
            return False
        frequencies.append(float(np.mean(values == 1.0)))
    frequencies = np.array(frequencies)
    s_i = np.array([s[i] for s, i, _, _, _ in cases])
    h = np.array([local_fields(s, W, b)[i] for s, i, W, b, _ in cases])
    b_i = np.array([b[i] for _, i, _, b, _ in cases])
    T = np.array([case[4] for case in cases])

    def fits(q):
        # Within 5 standard errors in every case (at least 1/N, so that q = 0 or 1 needs an exact match).
        se = np.maximum(np.sqrt(q * (1 - q) / _HEAT_BATH_CALLS), 1.0 / _HEAT_BATH_CALLS)
        return np.abs(frequencies - q) <= 5 * se

    exact = _sigmoid(2 * h / T)
    good = fits(exact)
    if good.all():
        print(f"All {len(cases)} cases agree with p(s_i = +1 | rest) = 1 / (1 + exp(-2 h_i / T)) "
              f"({_HEAT_BATH_CALLS} draws each). Well done.")
        return True
    k = int(np.flatnonzero(~good)[0])
    s, i, W, b, _ = cases[k]
    print(f"Your update disagrees with the exact conditional probability in {np.sum(~good)} of {len(cases)} "
          f"cases. The first one:")
    _show_input(k, "spins", s, W, b)
    print(f"  unit i = {i}, T = {T[k]:g}, local field h_{i} = {h[k]:g}")
    print(f"  exact p(s_{i} = +1 | rest) = {exact[k]:.3f}; your function returned +1 in {frequencies[k]:.3f} "
          f"of {_HEAT_BATH_CALLS} calls")
    for mistake, text in _HEAT_BATH_MISTAKES:
        if fits(mistake(s_i, h, b_i, T)).all():
            _fix(text)
            break
    else:
        _fix("The frequencies fit no typical mistake. Compute h_i = sum_j w_ij s_j + b_i, then "
             "p = 1 / (1 + exp(-2 h_i / T)), and return +1 if rng.random() < p, else -1.")
    return False


# --- energy moments as derivatives of log Z (chapter "The Boltzmann-Gibbs distribution") ------

def _moment_cases():
    """(W, b, T) for spins: three small models at temperatures below, at and above 1."""
    spin_models = [(W, b) for units, W, b in _models() if units == "spins"]
    return [(W, b, T) for (W, b), T in zip(spin_models, (0.5, 1.0, 2.0))]


def _moment_mistakes(W, b, T):
    """Wrong means and wrong variances that plausible drafts return, each with what to say."""
    from ..exact.enumeration import exact_energy_moments

    mean, var = exact_energy_moments(W, b, T)
    means = [
        (-mean, "Your <E> has the wrong sign: <E> = -d log Z / d beta. Raising beta = 1/T favours low "
                "energies, so log Z grows fastest where the energies are most negative."),
        (mean / T**2, "Your <E> is d log Z / dT = <E> / T^2, the derivative with respect to T. "
                      "Differentiate with respect to beta = 1/T instead: <E> = -d log Z / d beta."),
    ]
    variances = [
        (var / T**2, "Your variance is divided by T^2: that is the heat capacity Var E / T^2. "
                     "The second derivative d^2 log Z / d beta^2 is Var E itself."),
        (-var, "Your variance has the wrong sign: d^2 log Z / d beta^2 = Var E >= 0 "
               "(log Z is convex in beta)."),
        (var + mean**2, "Your variance is <E^2>, the second moment: subtract <E>^2, or take the "
                        "second derivative of log Z, which does that for you."),
        (var / T**4 - 2 * mean / T**3, "Your variance is d^2 log Z / dT^2, the second derivative with "
                                       "respect to T. Take it with respect to beta = 1/T."),
    ]
    return means, variances


@fits_column
def check_energy_moments(func, *, hint=False):
    """Check ``func(W, b, T) -> (mean_energy, energy_variance)`` against the exact values.

    The exercise computes both from ``bm.log_partition`` alone, by finite
    differences in ``beta = 1/T``; answers within 1e-4 (relative to the
    energy scale) pass, which a central difference with a step near 1e-4 in
    beta reaches easily.

    Parameters
    ----------
    func : callable
        ``func(W, b, T)`` for spins, returning two numbers.
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool
        True if every case passes. Prints what is wrong otherwise.

    Examples
    --------
    >>> bm.check_energy_moments(lambda W, b, T: bm.exact_energy_moments(W, b, T))
    All 3 models give the right <E> and Var E (T = 0.5, 1 and 2). Well done.
    True
    """
    from ..exact.enumeration import exact_energy_moments

    cases = _moment_cases()
    for k, (W, b, T) in enumerate(cases):
        try:
            value = func(W.copy(), b.copy(), T)
            mean, var = (float(v) for v in _real(value).ravel())
        except (TypeError, ValueError) as exc:
            print(f"Input {k}: expected two numbers (mean energy, variance); got {value!r:.60} ({exc})"
                  if "value" in locals() else f"Input {k}: your function raised {type(exc).__name__}: {exc}")
            return False
        except Exception as exc:  # the reader's bug, reported in words
            print(f"Input {k}: your function raised {type(exc).__name__}: {exc}")
            return False
        exact_mean, exact_var = exact_energy_moments(W, b, T)
        scale = max(1.0, abs(exact_mean), exact_var)
        if abs(mean - exact_mean) <= 1e-4 * scale and abs(var - exact_var) <= 1e-4 * scale:
            continue
        print(f"Input {k} (spins, n = {len(b)}, T = {T:g}):")
        print(f"  expected <E> = {exact_mean:.5f}, Var E = {exact_var:.5f};"
              f" your function gave {mean:.5f} and {var:.5f}")
        named = []
        for got, right, mistakes in zip((mean, var), (exact_mean, exact_var), _moment_mistakes(W, b, T)):
            if abs(got - right) <= 1e-4 * scale:
                continue
            named += [text for wrong, text in mistakes if abs(got - wrong) <= 1e-3 * max(1.0, abs(wrong))][:1]
        _fix("\n".join(named) or "The numbers fit no typical mistake. With f(beta) = log Z at T = 1/beta: "
             "<E> = -(f(beta + d) - f(beta - d)) / (2 d) and "
             "Var E = (f(beta + d) - 2 f(beta) + f(beta - d)) / d^2, with d near 1e-4.")
        return False
    print(f"All {len(cases)} models give the right <E> and Var E (T = 0.5, 1 and 2). Well done.")
    return True
