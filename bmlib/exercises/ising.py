"""Self-checks for the chapter "The Ising model": the energy of a lattice, the Binder cumulant, the susceptibility."""
from __future__ import annotations

import numpy as np

from ..models.energy import energy
from ..models.lattices import square_lattice_couplings
from ._common import _SEED, _fix, _real, fits_column

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


@fits_column
def check_lattice_energy(func, *, hint=False):
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
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool
        True if every input gives the right energy (to 1e-8).

    Notes
    -----
    Explained in the chapter "The Ising model".

    Examples
    --------
    >>> import numpy as np
    >>> def lattice_energy(grid, J, h):
    ...     bonds = grid * np.roll(grid, -1, axis=1) + grid * np.roll(grid, -1, axis=0)
    ...     return -J * bonds.sum() - h * grid.sum()
    >>> bm.check_lattice_energy(lattice_energy)
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
            got.append(float(_real(value).item()))
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
            _fix(text)
            return False
    _fix("The results do not fit a simple pattern. Each site has one bond to its right neighbour and one to "
         "its lower neighbour (wrapping around the edges); add -J s_i s_j for those, and -h s_i for each site.")
    return False


# --- the Binder cumulant (chapter "The Ising model") ----------------------------------------------

def _binder_cases():
    """Magnetization series m of shape (n_samples, n_chains): ordered, disordered, in between."""
    rng = np.random.default_rng(_SEED + 11)
    ordered = rng.choice([-1.0, 1.0], size=(400, 4)) * (0.8 + 0.05 * rng.normal(size=(400, 4)))
    disordered = 0.1 * rng.normal(size=(400, 4))
    between = rng.choice([-1.0, 1.0], size=(400, 4)) * np.abs(0.4 + 0.3 * rng.normal(size=(400, 4)))
    return [ordered, disordered, between]


def _binder_value(m):
    return 1.0 - np.mean(m**4) / (3.0 * np.mean(m**2) ** 2)


_BINDER_MISTAKES = [
    (lambda m: 1.0 - np.mean(m**4) / (3.0 * np.mean(np.abs(m)) ** 4),
     "You divided by 3 <|m|>^4: the cumulant uses <m^2>^2, the square of the mean of m^2, "
     "not the fourth power of <|m|>."),
    (lambda m: 1.0 - np.mean(m**4) / np.mean(m**2) ** 2,
     "The factor 1/3 is missing: with it, a Gaussian m (for which <m^4> = 3 <m^2>^2) gives U = 0."),
    (lambda m: 1.0 - np.mean(m**4) / (3.0 * np.mean(m) ** 2 * np.mean(m**2)),
     "You used <m>^2 somewhere: below T_c the two signs of m cancel in <m>. Use <m^2>^2."),
    (lambda m: 1.0 - np.mean(m**2) ** 2 / (3.0 * np.mean(m**4)),
     "Numerator and denominator are swapped: U = 1 - <m^4> / (3 <m^2>^2)."),
]


@fits_column
def check_binder_cumulant(func, *, hint=False):
    """Check ``func(m) -> U``, the Binder cumulant of magnetization samples ``m``.

    Parameters
    ----------
    func : callable
        ``func(m)`` with ``m`` of shape (n_samples, n_chains), returning one number.
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
    >>> bm.check_binder_cumulant(lambda m: 1 - np.mean(m**4) / (3 * np.mean(m**2) ** 2))
    All 3 series give the right cumulant (ordered, disordered, in between). Well done.
    True
    """
    cases = _binder_cases()
    for k, m in enumerate(cases):
        try:
            got = float(_real(func(m.copy())))
        except Exception as exc:  # the reader's bug, reported in words
            print(f"Input {k}: your function raised or returned something else than a number "
                  f"({type(exc).__name__}: {exc})")
            return False
        expected = _binder_value(m)
        if abs(got - expected) <= 1e-9:
            continue
        print(f"Input {k} ({len(m)} samples x {m.shape[1]} chains): expected U = {expected:.4f}, "
              f"your function gave {got:.4f}")
        for mistake, text in _BINDER_MISTAKES:
            if abs(got - mistake(m)) <= 1e-9:
                _fix(text)
                break
        else:
            _fix("The result fits no typical mistake. U = 1 - <m^4> / (3 <m^2>^2), the averages "
                  "over all samples of all chains.")
        return False
    print(f"All {len(cases)} series give the right cumulant (ordered, disordered, in between). Well done.")
    return True


# --- the susceptibility (chapter "The Ising model") -----------------------------------------------

def _susceptibility_cases():
    """(m, n_units, T): magnetization series of shape (n_samples, n_chains), ordered with chains on both
    sides, disordered, in between."""
    rng = np.random.default_rng(_SEED + 12)
    sides = np.array([1.0, -1.0, 1.0, -1.0])  # two chains ordered up, two down
    # An 8 x 8 lattice at T = 1.5: |m| = 1 - 2k/64 with k flipped spins, on
    # average 0.45 of them, so <|m|> = 0.986 as in Yang's formula.
    ordered = sides * (1.0 - 2.0 * rng.poisson(0.45, size=(400, 4)) / 64)
    disordered = 0.1 * rng.normal(size=(400, 4))
    between = rng.choice([-1.0, 1.0], size=(400, 4)) * np.abs(0.4 + 0.3 * rng.normal(size=(400, 4)))
    return [(ordered, 64, 1.5), (disordered, 256, 3.5), (between, 100, 2.3)]


def _susceptibility_value(m, n, T):
    return n * (np.mean(m**2) - np.mean(np.abs(m)) ** 2) / T


_SUSCEPTIBILITY_MISTAKES = [
    (lambda m, n, T: n * np.var(m) / T,
     "You subtracted <m>^2: on a finite lattice <m> is 0 by symmetry, and chains on both sides make "
     "n Var(m) / T the size of n <m^2> / T. The book's chi subtracts <|m|>^2."),
    (lambda m, n, T: (np.mean(m**2) - np.mean(np.abs(m)) ** 2) / T,
     "The factor n is missing: chi per spin is n (<m^2> - <|m|>^2) / T, since m = M / n averages away "
     "the fluctuations of the total M."),
    (lambda m, n, T: n**2 * (np.mean(m**2) - np.mean(np.abs(m)) ** 2) / T,
     "That is n times too large: with the total M = n m, chi per spin is Var(|M|) / (n T), one n, not two."),
    (lambda m, n, T: n * (np.mean(m**2) - np.mean(np.abs(m)) ** 2),
     "The 1 / T is missing: chi = n (<m^2> - <|m|>^2) / T, a fluctuation divided by the temperature."),
    (lambda m, n, T: n * (np.mean(m**2) - np.mean(np.abs(m)) ** 2) / T**2,
     "You divided by T^2, as for the specific heat: chi has 1 / T."),
    (lambda m, n, T: n * np.std(np.abs(m)) / T,
     "You used the standard deviation of |m|: chi takes its variance, <m^2> - <|m|>^2."),
    (lambda m, n, T: n * np.mean(np.var(np.abs(m), axis=0)) / T,
     "You took the variance within each chain and averaged those: the book's chi (and bm.thermal_averages) "
     "averages m^2 and |m| over all samples of all chains at once."),
]


@fits_column
def check_susceptibility(func, *, hint=False):
    """Check ``func(m, n_units, T) -> chi``, the susceptibility per spin from magnetization samples.

    The book's definition: ``chi = n_units (<m^2> - <|m|>^2) / T``, the
    averages over all samples of all chains (what
    :func:`~bmlib.thermal_averages` reports as ``"susceptibility"``).

    Parameters
    ----------
    func : callable
        ``func(m, n_units, T)`` with ``m`` of shape (n_samples, n_chains)
        (magnetization per spin), the number of spins and the temperature;
        returning one number.
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
    >>> bm.check_susceptibility(lambda m, n, T: n * (np.mean(m**2) - np.mean(abs(m)) ** 2) / T)
    All 3 series give the right susceptibility (ordered, disordered, in between).
      Well done.
    True
    """
    cases = _susceptibility_cases()
    for k, (m, n, T) in enumerate(cases):
        try:
            got = float(_real(func(m.copy(), n, T)))
        except Exception as exc:  # the reader's bug, reported in words
            print(f"Input {k}: your function raised or returned something else than a number "
                  f"({type(exc).__name__}: {exc})")
            return False
        expected = _susceptibility_value(m, n, T)
        if abs(got - expected) <= 1e-9 * max(1.0, abs(expected)):
            continue
        print(f"Input {k} ({len(m)} samples x {m.shape[1]} chains, n_units = {n}, T = {T:g}): "
              f"expected chi = {expected:.4f}, your function gave {got:.4f}")
        for mistake, text in _SUSCEPTIBILITY_MISTAKES:
            if abs(got - mistake(m, n, T)) <= 1e-9 * max(1.0, abs(got)):
                _fix(text)
                break
        else:
            _fix("The result fits no typical mistake. chi = n_units (<m^2> - <|m|>^2) / T, the averages "
                  "over all samples of all chains.")
        return False
    print(f"All {len(cases)} series give the right susceptibility (ordered, disordered, in between). Well done.")
    return True
