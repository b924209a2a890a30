"""Self-checks for the book's coding exercises.

Each checker calls the reader's function on a fixed set of small inputs,
compares with bmlib, and prints in plain words what is wrong: which input,
what was expected, what came back, and, when the pattern of errors gives it
away, the likely mistake. The inputs come from a fixed seed and use weights
in steps of 0.5, so every printed number is short and the same on every run.
"""
from __future__ import annotations

import numpy as np

from .energy import energy, flip_energy_changes, is_stable, local_fields
from .exact import boltzmann_distribution
from .lattices import square_lattice_couplings
from .learning.machine import BoltzmannMachine
from .states import all_states

_SEED = 20261127  # chosen so that the first inputs have a nonzero pair energy


def _models():
    """Small (units, W, b) models: spins and bits, with and without biases."""
    rng = np.random.default_rng(_SEED)
    models = []
    for n, units, with_bias in [(3, "spins", False), (4, "spins", True), (5, "spins", True),
                                (3, "bits", False), (4, "bits", True), (5, "bits", True)]:
        A = np.triu(rng.integers(-4, 5, size=(n, n)) / 2, 1)
        b = rng.integers(-4, 5, size=n) / 2 if with_bias else np.zeros(n)
        models.append((units, A + A.T, b))
    return models


def _energy_cases():
    """Two random states per model: (units, s, W, b)."""
    rng = np.random.default_rng(_SEED + 1)
    values = {"spins": [-1.0, 1.0], "bits": [0.0, 1.0]}
    return [(units, rng.choice(values[units], size=len(b)), W, b)
            for units, W, b in _models() for _ in range(2)]


def _clean(x):
    """Rounded, as a list, with -0.0 shown as 0.0."""
    return (np.round(np.asarray(x, dtype=float), 6) + 0.0).tolist()


def _call(func, args, k):
    """Run the reader's function on copies of the arrays (so it cannot change our inputs).

    Other arguments (a temperature, a units name) are passed as they are.
    Returns ``(result, None)``, or ``(None, message)`` when the function raised
    or returned nothing.
    """
    try:
        result = func(*(np.array(a) if isinstance(a, (np.ndarray, list)) else a for a in args))
    except Exception as exc:  # the reader's bug, reported in words below
        return None, f"Input {k}: your function raised {type(exc).__name__}: {exc}"
    if result is None:
        return None, f"Input {k}: your function returned None; is its return statement missing?"
    return result, None


def _show_input(k, units, s, W, b):
    W_text = np.array2string(W, precision=2, separator=", ", prefix="  W = ")
    print(f"Input {k} ({units}, n = {len(s)}):\n  s = {s.astype(int).tolist()}\n  W = {W_text}\n  b = {_clean(b)}")


# What a fitted factor means, for the energy and for the local field: got =
# alpha * (pair part) + beta * (bias part), where both factors should be 1.
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


def check_energy_function(func):
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

    Returns
    -------
    bool
        True if every input gives the right energy (to 1e-8).

    Examples
    --------
    >>> check_energy_function(lambda s, W, b: energy(s, W, b))
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
            number = float(np.asarray(value, dtype=float).item())
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
    print(_diagnose(got, pair, bias, _ENERGY_MISTAKES)
          or "The results do not fit a simple pattern: check the loop bounds and that each term is w_ij s_i s_j.")
    return False


def check_local_fields(func):
    """Check a reader's ``func(s, W, b)`` against :func:`~bmlib.local_fields`.

    The function must return the vector of local fields
    ``h_i = sum_j w_ij s_j + b_i``, shape (n,).

    Parameters
    ----------
    func : callable
        ``func(s, W, b)`` with ``s`` of shape (n,), ``W`` of shape (n, n), ``b`` of shape (n,).

    Returns
    -------
    bool

    Examples
    --------
    >>> check_local_fields(lambda s, W, b: W @ s)  # doctest: +ELLIPSIS
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
        if np.shape(value) != s.shape:
            print(f"Input {k}: your function returned shape {np.shape(value)}; "
                  f"expected one field per unit, shape {s.shape}.")
            return False
        got.append(np.asarray(value, dtype=float))
    expected = [local_fields(s, W, b) for _, s, W, b in cases]
    wrong = [k for k in range(len(cases)) if not np.allclose(got[k], expected[k], atol=1e-8)]
    if not wrong:
        print(f"All {len(cases)} inputs give the right local fields (spins and bits, 3 to 5 units). Well done.")
        return True
    k = wrong[0]
    _show_input(k, *cases[k])
    print(f"  expected h = {_clean(expected[k])}, your function gave {_clean(got[k])}")
    if all(np.allclose(g, s * h) for g, (_, s, _, _), h in zip(got, cases, expected)):
        print("You returned s_i h_i (how much unit i agrees with its field); return the field h_i itself.")
        return False
    pair = np.concatenate([W @ s for _, s, W, _ in cases])
    bias = np.concatenate([b for _, _, _, b in cases])
    named = _diagnose(np.concatenate(got), pair, bias, _FIELD_MISTAKES)
    print(named or "The results do not fit a simple pattern: h_i sums w_ij s_j over all j "
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


def check_is_stable(func, units="spins"):
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

    Returns
    -------
    bool

    Examples
    --------
    >>> check_is_stable(lambda s, W, b: bool(np.all(s * (W @ s + b) >= 0)))
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
        if np.size(value) != 1:
            print(f"Input {k}: your function returned shape {np.shape(value)}; expected one True or False.")
            return False
        got.append(bool(np.asarray(value).ravel()[0]))
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
            print(text)
            break
    return False


# ----------------------------------------------------------------------------
# The chapter "The Ising model": the energy of a lattice configuration
# ----------------------------------------------------------------------------


def _lattice_cases():
    """Random spin grids on tori of several shapes, with couplings J and fields h in steps of 0.5."""
    rng = np.random.default_rng(_SEED + 3)
    shapes = [(4, 4), (3, 5), (5, 4), (6, 6), (4, 3), (5, 5)]
    couplings = [(1.0, 0.0), (0.5, 1.0), (-1.0, 0.5), (2.0, -0.5), (1.0, 1.5), (-0.5, -1.0)]
    cases = []
    for (rows, cols), (J, h) in zip(shapes * 2, couplings + couplings[::-1]):
        cases.append((rng.choice([-1, 1], size=(rows, cols)), J, h))
    return cases


def _lattice_parts(grid):
    """Bond sums of a periodic grid: (right neighbours inside, right across the edge, down inside, down across)."""
    s = grid.astype(float)
    return (float(np.sum(s[:, :-1] * s[:, 1:])), float(np.sum(s[:, -1] * s[:, 0])),
            float(np.sum(s[:-1, :] * s[1:, :])), float(np.sum(s[-1, :] * s[0, :])))


def _lattice_reference(grid, J, h):
    """E of a periodic grid from bmlib's couplings (sides >= 3, so no doubled bonds)."""
    rows, cols = grid.shape
    W = square_lattice_couplings(rows, cols, J)
    return float(energy(grid.ravel().astype(float), W, np.full(rows * cols, h)))


def _lattice_mistakes(cases):
    """Plausible wrong energies per input, each with what to tell the reader who wrote it."""
    rows = []
    for grid, J, h in cases:
        right_in, right_wrap, down_in, down_wrap = _lattice_parts(grid)
        bonds = right_in + right_wrap + down_in + down_wrap
        M = float(grid.sum())
        rows.append({
            "open": -J * (right_in + down_in) - h * M,
            "double": -2 * J * bonds - h * M,
            "half": -0.5 * J * bonds - h * M,
            "right only": -J * (right_in + right_wrap) - h * M,
            "down only": -J * (down_in + down_wrap) - h * M,
            "no field": -J * bonds,
            "field sign": -J * bonds + h * M,
            "field twice": -J * bonds - 2 * h * M,
            "bond sign": J * bonds - h * M,
            "all signs": J * bonds + h * M,
            "no J": -bonds - h * M,
            "per spin": (-J * bonds - h * M) / grid.size,
            "open, double": -2 * J * (right_in + down_in) - h * M,
        })
    texts = {
        "open": "The wrap-around bonds are missing: on a periodic lattice the last column is bonded to the "
                "first and the last row to the first. Slicing s[:, :-1] * s[:, 1:] gives only the bonds "
                "inside the grid; np.roll(s, -1, axis=1) also gives the ones across the edge.",
        "double": "Every bond is counted twice: summing s_i times all four neighbours of every site meets each "
                  "bond from both ends. Multiply by 1/2, or use only the right and the lower neighbour of each site.",
        "half": "The bond term is half what it should be: with only the right and the lower neighbour of each "
                "site, every bond is already counted once, so no factor 1/2 is needed.",
        "right only": "Only the horizontal bonds are there: each site also has a bond to its lower neighbour.",
        "down only": "Only the vertical bonds are there: each site also has a bond to its right neighbour.",
        "no field": "The field term -h sum_i s_i is missing.",
        "field sign": "The field term has the wrong sign: it is -h sum_i s_i, so that spins along h lower E.",
        "field twice": "The field term is counted twice: it is -h sum_i s_i, once per site.",
        "bond sign": "The bond term has the wrong sign: it is -J sum_<ij> s_i s_j, so that for J > 0 aligned "
                     "neighbours lower the energy.",
        "all signs": "The overall sign is flipped: E = -J sum_<ij> s_i s_j - h sum_i s_i, both with a minus.",
        "no J": "J is not used: the bond sum must be multiplied by the coupling J.",
        "per spin": "You returned the energy per spin E / N; the exercise asks for the total energy E.",
        "open, double": "Two mistakes: the bonds inside the grid are counted twice and the wrap-around bonds "
                        "are missing. On the torus use np.roll, and only the right and the lower neighbour.",
    }
    return rows, texts


def _show_grid(k, grid, J, h):
    rows, cols = grid.shape
    print(f"Input {k} ({rows} x {cols} periodic lattice, J = {J:g}, h = {h:g}), the grid of spins:")
    for row in grid:
        print("    " + " ".join("+" if v > 0 else "-" for v in row))


def check_lattice_energy(func):
    """Check a reader's ``func(grid, J, h)``: the energy of a spin configuration on a periodic square lattice.

    The function must return the total energy
    ``E = -J sum_<ij> s_i s_j - h sum_i s_i`` of the spins ``grid`` (+-1, shape
    ``(rows, cols)``) on a torus, every nearest-neighbour bond counted once,
    the bonds across the edges included. It is called on 12 fixed grids of
    sizes 3 to 6 with several ``J`` and ``h``; on a mismatch the first wrong
    input is printed with the expected and the returned energy, and a
    diagnosis when the pattern of errors shows one (wrap-around bonds
    missing, bonds counted twice, a sign, the field, J left out).

    Parameters
    ----------
    func : callable
        ``func(grid, J, h)`` with ``grid`` an int array of shape (rows, cols)
        and ``J``, ``h`` floats; returns a number.

    Returns
    -------
    bool
        True if every input gives the right energy (to 1e-8).

    Notes
    -----
    Explained in the chapter "The Ising model".

    Examples
    --------
    >>> def lattice_energy(grid, J, h):
    ...     bonds = grid * np.roll(grid, -1, axis=1) + grid * np.roll(grid, -1, axis=0)
    ...     return -J * bonds.sum() - h * grid.sum()
    >>> check_lattice_energy(lattice_energy)
    All 12 lattices give the right energy (sides 3 to 6, several J and h). Well done.
    True
    """
    cases = _lattice_cases()
    got = []
    for k, (grid, J, h) in enumerate(cases):
        try:
            value = func(grid.copy(), J, h)
        except Exception as exc:  # the reader's bug, reported in words
            print(f"Input {k}: your function raised {type(exc).__name__}: {exc}")
            return False
        if value is None:
            print(f"Input {k}: your function returned None; is its return statement missing?")
            return False
        try:
            got.append(float(np.asarray(value, dtype=float).item()))
        except (TypeError, ValueError):
            print(f"Input {k}: your function returned {value!r:.60}; the energy of a lattice is a single number.")
            return False
    got = np.array(got)
    expected = np.array([_lattice_reference(grid, J, h) for grid, J, h in cases])
    if np.allclose(got, expected, atol=1e-8):
        print(f"All {len(cases)} lattices give the right energy (sides 3 to 6, several J and h). Well done.")
        return True
    k = int(np.flatnonzero(~np.isclose(got, expected, atol=1e-8))[0])
    _show_grid(k, *cases[k])
    print(f"  expected E = {expected[k]:g}, your function gave {got[k]:.6g}")
    rows, texts = _lattice_mistakes(cases)
    for name, text in texts.items():
        if np.allclose(got, [row[name] for row in rows], atol=1e-8):
            print(text)
            return False
    print("The results do not fit a simple pattern. Each site has one bond to its right neighbour and one to "
          "its lower neighbour (wrapping around the edges); add -J s_i s_j for those, and -h s_i for each site.")
    return False


# --- the heat-bath update of one unit (chapter "The Boltzmann-Gibbs distribution") ---------------

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


def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


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
        if np.size(value) != 1:
            return None, (f"Input {k}: your function returned shape {np.shape(value)}; return only the new value "
                          f"of unit i, +1 or -1 (not the whole state).")
        values.append(float(np.asarray(value, dtype=float).ravel()[0]))
    values = np.array(values)
    if set(np.unique(values)) <= {0.0, 1.0} and 0.0 in values:
        return None, (f"Input {k}: your function returned 0 and 1. These are spins: return +1 or -1 "
                      "(and use the spin formula, with its factor 2).")
    if not set(np.unique(values)) <= {-1.0, 1.0}:
        return None, f"Input {k}: your function returned {values[~np.isin(values, (-1, 1))][0]:g}; return +1 or -1."
    return values, None


def check_heat_bath_update(func):
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

    Returns
    -------
    bool
        True if every case agrees with the exact conditional probability.

    Notes
    -----
    Explained in the chapter "The Boltzmann-Gibbs distribution".

    Examples
    --------
    >>> def update(s, i, W, b, T, rng):
    ...     h = W[i] @ s + b[i]
    ...     return 1 if rng.random() < 1 / (1 + np.exp(-2 * h / T)) else -1
    >>> check_heat_bath_update(update)
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
            print(text)
            break
    else:
        print("The frequencies fit no typical mistake. Compute h_i = sum_j w_ij s_j + b_i, then "
              "p = 1 / (1 + exp(-2 h_i / T)), and return +1 if rng.random() < p, else -1.")
    return False


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
     "stepping along it would make the data LESS likely (the sign slip of the seed notes). The Hebbian term, "
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
        dW, db = (np.asarray(part, dtype=float) for part in result)
    except (TypeError, ValueError):
        return None, f"Input {k}: your function must return two arrays, (dW, db); got {type(result).__name__}."
    if dW.shape != (n, n) or db.shape != (n,):
        return None, (f"Input {k}: your function returned dW of shape {dW.shape} and db of shape {db.shape}; "
                      f"expected ({n}, {n}) and ({n},).")
    return (dW, db), None


def check_gradient_function(func):
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
    >>> check_gradient_function(lambda W, b, data, T, units:
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
    print("\n".join(found) or "The errors fit no typical mistake. Average s_i s_j over the data and over "
                              "the model's distribution (every state, weighted by p(s)), subtract, divide by T, "
                              "and set the diagonal to 0; db is the same with s_i.")
    return False


# --- log-mean-exp and the mean-field bound (chapter "The normalizing constant Z") --------------------


def _log_mean_exp(x):
    top = float(np.max(x))
    return top + float(np.log(np.mean(np.exp(x - top))))


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
        return float(np.asarray(value, dtype=float).item()), None
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


def check_log_mean_exp(func):
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

    Returns
    -------
    bool
        True if every input gives ``log(mean(exp(log_w)))`` to 1e-9.

    Notes
    -----
    Explained in the chapter "The normalizing constant Z".

    Examples
    --------
    >>> def log_mean_exp(log_w):
    ...     m = np.max(log_w)
    ...     return m + np.log(np.mean(np.exp(log_w - m)))
    >>> check_log_mean_exp(log_mean_exp)
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
            print(text)
            return False
        if matches[ordinary].all():
            print(text + " Also, " + overflow)
            return False
    if right[ordinary].all():
        print("Right on the ordinary inputs, wrong on the large and small ones: " + overflow)
    else:
        print("The results fit no typical mistake: the answer is log(mean(exp(log_w))), computed as "
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


def check_mean_field_bound(func):
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

    Returns
    -------
    bool
        True if every input gives ``Phi(m)`` to 1e-8.

    Notes
    -----
    Explained in the chapter "The normalizing constant Z".

    Examples
    --------
    >>> def bound(m, W, b, T):
    ...     p, q = (1 + m) / 2, (1 - m) / 2
    ...     return (0.5 * m @ W @ m + b @ m) / T - np.sum(p * np.log(p) + q * np.log(q))
    >>> check_mean_field_bound(bound)
    All 6 inputs give the right bound (3 to 6 spins, T = 0.5, 1 and 2), and each lies below log Z. Well done.
    True
    """
    from .exact import log_partition

    cases = _mean_field_cases()
    got = []
    for k, (m, W, b, T) in enumerate(cases):
        value, error = _call(lambda m_, W_, b_: func(m_, W_, b_, T), (m, W, b), k)
        if error:
            print(error)
            return False
        try:
            got.append(float(np.asarray(value, dtype=float).item()))
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
    print(_diagnose_mean_field(got, parts, np.array([T for *_, T in cases])))
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


# --- the hidden units' conditional probability in an RBM (chapter "Hidden units") ---------------------


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
     "You used the spin formula 1 / (1 + exp(-2 x_j / T)), with its factor 2 (heat bath for spins, chapter "
     "\"The Boltzmann-Gibbs distribution\"). Here the hidden units are bits: h_j = 1 and h_j = 0 differ in energy "
     "by x_j, not 2 x_j, so p(h_j = 1 | v) = 1 / (1 + exp(-x_j / T)) with x = v @ W + c."),
    (lambda v, W, c, T: np.tanh(_field(v, W, c) / T),
     "You returned tanh(x_j / T), the MEAN of a spin +-1 in the field x_j. For bits the mean is the probability "
     "of being on, p(h_j = 1 | v) = 1 / (1 + exp(-x_j / T)) with x = v @ W + c."),
    (lambda v, W, c, T: _sigmoid(_field(v, W, c)),
     "The temperature is missing: p(h_j = 1 | v) = 1 / (1 + exp(-x_j / T)) (the inputs use T = 0.5, 1 and 2, "
     "which is how this shows)."),
    (lambda v, W, c, T: _sigmoid(_field(v, W, c) * T),
     "You multiplied by T instead of dividing: p(h_j = 1 | v) = 1 / (1 + exp(-x_j / T)). A high temperature "
     "must make the hidden units MORE random."),
    (lambda v, W, c, T: _sigmoid(-_field(v, W, c) / T),
     "You returned p(h_j = 0 | v), or the sign in the exponent is flipped: a positive field x_j must make "
     "h_j = 1 MORE likely. p(h_j = 1 | v) = 1 / (1 + exp(-x_j / T))."),
    (lambda v, W, c, T: _sigmoid(v @ W / T),
     "The hidden biases are missing: the field on hidden unit j is x_j = sum_i v_i W[i, j] + c_j."),
    (lambda v, W, c, T: _sigmoid((v @ W - c) / T),
     "The hidden biases enter with the wrong sign: x_j = sum_i v_i W[i, j] + c_j (E contains -c^T h)."),
    (lambda v, W, c, T: _sigmoid((v @ W.T + c) / T) if W.shape[0] == W.shape[1] else None,
     "Your W is transposed: W has shape (n_visible, n_hidden), W[i, j] joins visible unit i to hidden unit j, "
     "so the field on hidden unit j is x_j = sum_i v_i W[i, j] + c_j, which is v @ W + c (shape (P, n_hidden))."),
    (lambda v, W, c, T: _sigmoid(_field(v, W, c) / T).T if len(v) == W.shape[1] else None,
     "Your result is transposed: return one row per pattern and one column per hidden unit, shape (P, n_hidden), "
     "as v @ W + c has."),
    (lambda v, W, c, T: np.exp(_field(v, W, c) / T),
     "You returned exp(x_j / T) without normalizing it. h_j has two values, with weights exp(x_j / T) for "
     "h_j = 1 and 1 for h_j = 0, so p(h_j = 1 | v) = exp(x_j / T) / (1 + exp(x_j / T)) = 1 / (1 + exp(-x_j / T))."),
    (lambda v, W, c, T: (lambda e: e / e.sum(axis=1, keepdims=True))(np.exp(_field(v, W, c) / T)),
     "You normalized across the hidden units (a softmax), as if exactly one of them were on. Given v the hidden "
     "units are independent, each normalized over its OWN two values: p(h_j = 1 | v) = 1 / (1 + exp(-x_j / T))."),
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
        p = np.asarray(result, dtype=float)
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


def check_hidden_probabilities(func):
    """Check a reader's ``p(h_j = 1 | v)`` for an RBM in bits against the exact conditional.

    The function is called as ``func(v, W, c, T)`` and must return, for every
    pattern (row of ``v``) and every hidden unit ``j``,

    ``p(h_j = 1 | v) = 1 / (1 + exp(-x_j / T))``,  ``x = v @ W + c``,

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

    Returns
    -------
    bool
        True if every input gives the right probabilities (to 1e-8).

    Notes
    -----
    Explained in the chapter "Hidden units".

    Examples
    --------
    >>> check_hidden_probabilities(lambda v, W, c, T: 1 / (1 + np.exp(-(v @ W + c) / T)))
    All 6 inputs give the right p(h_j = 1 | v) (square and rectangular W, T = 0.5, 1 and 2). Well done.
    True
    """
    from .learning.rbm import RBM

    cases = _rbm_cases()
    got, errors = [], []
    for k, case in enumerate(cases):
        value, error = _call_rbm(func, case, k)
        got.append(value)
        if error:
            errors.append(error)
    expected = [RBM(W.shape[0], W.shape[1], W=W, b_hidden=c, T=T).hidden_means(v) for v, W, c, T in cases]
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
        print("Your function returned only 0s and 1s: that is a SAMPLE of the hidden units, not their probability. "
              "Return p(h_j = 1 | v) = 1 / (1 + exp(-x_j / T)) itself; sampling comes after (h_j = 1 if a uniform "
              "random number is below it), and the learning rule uses the probabilities, which are less noisy.")
    elif np.all(np.isin(values, (-1.0, 1.0))):
        print("Your function returned only -1s and +1s: a sample of spins. Return the probability "
              "p(h_j = 1 | v) = 1 / (1 + exp(-x_j / T)) of bits.")
    else:
        for mistake, text in _RBM_MISTAKES:
            guesses = [mistake(*cases[j]) for j in returned]
            if all(g is None or (g.shape == got[j].shape and np.allclose(got[j], g, atol=1e-8))
                   for g, j in zip(guesses, returned)) and any(g is not None for g in guesses):
                print(text)
                break
        else:
            print("The errors fit no typical mistake. Compute the field x = v @ W + c on every hidden unit, then "
                  "p = 1 / (1 + exp(-x / T)), one row per pattern.")
    if errors:
        print("Also, " + errors[0][0].lower() + errors[0][1:])
    return False


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
        new = np.asarray(value, dtype=float)
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
        theirs.append(np.asarray(value, dtype=float))
        ours.append(_reference_sweep(ours[-1], W, b, T, 0.0))
    show = lambda path: " ".join(f"({m[0]:+.2f}, {m[1]:+.2f})" for m in path)  # noqa: E731
    print("Why it matters: two spins with w_01 = 2 at T = 1, no damping, four sweeps from (+0.90, -0.90):")
    print(f"  your sweeps:       {show(theirs)}")
    print(f"  sequential sweeps: {show(ours)}")
    if np.allclose(theirs[-1], theirs[-3], atol=1e-2) and not np.allclose(theirs[-1], theirs[-2], atol=1e-2):
        print("  Parallel updates swap the two units at every sweep and never settle; sequential ones converge "
              "in two sweeps. Damping can stop the swapping, but sequential sweeps never need it.")


def check_mean_field_sweep(func):
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

    Returns
    -------
    bool
        True if every input gives the right sweep (to 1e-8).

    Notes
    -----
    Explained in the chapter "The deterministic Boltzmann machine".

    Examples
    --------
    >>> def sweep(m, W, b, T, damping):
    ...     m = m.copy()
    ...     for i in range(len(m)):
    ...         m[i] = damping * m[i] + (1 - damping) * np.tanh((W[i] @ m + b[i]) / T)
    ...     return m
    >>> check_mean_field_sweep(sweep)
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
            print("Your sweep returns only -1 and +1. Mean field is deterministic and keeps averages: "
                  "m_i = tanh(h_i / T), strictly between -1 and 1 (a random +-1 is a heat-bath sample).")
        else:
            print("The results fit no typical mistake. For i = 0, ..., n-1 in turn: h_i = W[i] @ m + b[i] with the "
                  "current m, then m[i] = damping * m[i] + (1 - damping) * tanh(h_i / T).")
        return False
    _, rule, schedule, damp = min(matches)
    if rule != "right":
        print(_SWEEP_RULE_TEXT[rule])
    if damp != "right":
        print(_SWEEP_DAMPING_TEXT[damp])
    if schedule == "parallel":
        print(_SWEEP_PARALLEL_TEXT)
        _show_oscillation(func)
    return False
