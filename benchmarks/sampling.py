"""Benchmark bmlib's samplers against compiled and pure-Python references.

Two workloads, each timed in one run so that the ratios are meaningful:

1. 2-D Ising model, 16 chains of 64 x 64 spins near T_c, heat bath:
   ``bmlib.sample(bmlib.SquareLattice(64), ...)`` (checkerboard colouring, all
   chains at once) against
   * a plain numba sequential heat-bath sweep, one chain at a time (the issue's
     reference): exp per update, neighbours by index arithmetic;
   * the same numba sweep with a lookup table of the 5 possible heat-bath
     probabilities (a tuned compiled reference, for context);
   * two pure-Python loops, each timed for a few sweeps of one chain and
     extrapolated to the whole workload (labelled so): a first attempt (a
     Python loop over a NumPy array, NumPy scalars and random numbers) and a
     tuned one (lists, math.exp, random.random), which is about ten times
     faster. The ratio to "pure Python" depends a lot on which one is meant,
     so both are printed.
2. A dense Boltzmann machine, n = 100, 64 chains, sequential heat bath:
   ``bmlib.sample(W, b, ...)`` against a numba loop and the same two kinds of
   Python loop (first attempt: one NumPy dot product per unit update); then
   bmlib against numba over chain counts (1 to 512) and sizes (30 to 300),
   to show where each wins. The numba sweep computes no energies while it is
   timed (an energy costs as much as a sweep, n**2 per chain).

Speed is reported as single-unit (spin) updates per second. Before timing,
each implementation is checked against an exact or independent answer (mean
energy per spin vs Kaufman for the lattice at T = 3; bmlib vs numba mean
energy for the dense model, within 5 standard errors); the exit code is
non-zero only if such a check fails. Timings on a shared machine are noisy:
read the ratios of one run.

Usage::

    python benchmarks/sampling.py            # about a minute
    python benchmarks/sampling.py --quick    # fewer sweeps, a few seconds
"""
from __future__ import annotations

import argparse
import math
import os
import platform
import random
import sys
import time

import numpy as np

import bmlib

try:
    import numba
    from numba import njit
except ImportError:  # the numba columns are optional; the "bench" extra in pyproject.toml installs it
    numba = None

SEED = 2024
L, N_CHAINS_LATTICE = 64, 16
N_DENSE, N_CHAINS_DENSE, T_DENSE = 100, 64, 1.0


# --- references: 2-D Ising -------------------------------------------------------------


def naive_lattice_sweep(s, beta, rng):
    """A first attempt: one sequential heat-bath sweep as a Python loop over a NumPy array."""
    rows, cols = s.shape
    for r in range(rows):
        for c in range(cols):
            h = s[(r - 1) % rows, c] + s[(r + 1) % rows, c] + s[r, (c - 1) % cols] + s[r, (c + 1) % cols]
            p = 1 / (1 + np.exp(-2 * beta * h))
            s[r, c] = 1 if rng.random() < p else -1


def python_lattice_sweep(s, beta, rng):
    """One sequential heat-bath sweep of a rows x cols torus stored as a list of lists of +-1."""
    rows, cols = len(s), len(s[0])
    for r in range(rows):
        up, down = s[r - 1], s[(r + 1) % rows]
        row = s[r]
        for c in range(cols):
            h = up[c] + down[c] + row[c - 1] + row[(c + 1) % cols]
            row[c] = 1 if rng.random() < 1.0 / (1.0 + math.exp(-2.0 * beta * h)) else -1


if numba is not None:

    @njit(cache=False)
    def numba_lattice_sweeps(s, beta, n_sweeps):
        """Plain sequential heat bath on one chain (rows, cols) of int8 spins, J = 1, h = 0."""
        rows, cols = s.shape
        for _ in range(n_sweeps):
            for r in range(rows):
                up = r - 1 if r > 0 else rows - 1
                down = r + 1 if r < rows - 1 else 0
                for c in range(cols):
                    left = c - 1 if c > 0 else cols - 1
                    right = c + 1 if c < cols - 1 else 0
                    h = s[up, c] + s[down, c] + s[r, left] + s[r, right]
                    p = 1.0 / (1.0 + math.exp(-2.0 * beta * h))
                    s[r, c] = 1 if np.random.random() < p else -1

    @njit(cache=False)
    def numba_lattice_sweeps_table(s, beta, n_sweeps):
        """As above, with the heat-bath probability looked up for the 5 possible neighbour sums."""
        rows, cols = s.shape
        table = np.empty(9)
        for k in range(9):
            table[k] = 1.0 / (1.0 + math.exp(-2.0 * beta * (k - 4)))
        for _ in range(n_sweeps):
            for r in range(rows):
                up = r - 1 if r > 0 else rows - 1
                down = r + 1 if r < rows - 1 else 0
                for c in range(cols):
                    left = c - 1 if c > 0 else cols - 1
                    right = c + 1 if c < cols - 1 else 0
                    h = s[up, c] + s[down, c] + s[r, left] + s[r, right]
                    s[r, c] = 1 if np.random.random() < table[h + 4] else -1

    @njit(cache=False)
    def numba_seed(seed):
        np.random.seed(seed)

    @njit(cache=False)
    def numba_dense_sweeps(S, W, b, T, n_sweeps, energies, record):
        """Sequential heat bath on every chain of S (n_chains, n) of +-1 floats.

        With ``record`` the energy after each sweep goes to ``energies`` (the check); the timing
        runs without it, since computing E costs as much as the sweep itself (n**2 each).
        """
        n_chains, n = S.shape
        for chain in range(n_chains):
            s = S[chain]
            for sweep in range(n_sweeps):
                for i in range(n):
                    h = b[i]
                    for j in range(n):
                        h += W[i, j] * s[j]
                    s[i] = 1.0 if np.random.random() < 1.0 / (1.0 + math.exp(-2.0 * h / T)) else -1.0
                if not record:
                    continue
                e = 0.0
                for i in range(n):
                    acc = 0.0
                    for j in range(n):
                        acc += W[i, j] * s[j]
                    e -= s[i] * (0.5 * acc + b[i])
                energies[sweep, chain] = e


def naive_dense_sweep(s, W, b, T, rng):
    """A first attempt: one NumPy dot product per unit update, in a Python loop."""
    for i in range(s.size):
        h = W[i] @ s + b[i]
        s[i] = 1.0 if rng.random() < 1 / (1 + np.exp(-2 * h / T)) else -1.0


def python_dense_sweep(s, W, b, T, rng):
    """One sequential heat-bath sweep of one chain, lists only."""
    n = len(s)
    for i in range(n):
        row = W[i]
        h = b[i]
        for j in range(n):
            h += row[j] * s[j]
        s[i] = 1.0 if rng.random() < 1.0 / (1.0 + math.exp(-2.0 * h / T)) else -1.0


# --- helpers -------------------------------------------------------------------------


def print_environment():
    print("Environment")
    print(f"  Python {platform.python_version()} on {platform.platform()}, {os.cpu_count()} logical CPUs")
    numba_version = numba.__version__ if numba is not None else "not installed"
    print(f"  numpy {np.__version__}, bmlib {bmlib.__version__}, numba {numba_version}")
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        print(f"  {var}={os.environ.get(var, '(unset)')}")
    print()


def best_of(plan, rounds):
    """Interleaved best-of-``rounds`` wall-clock seconds of each function in ``plan`` (name -> fn)."""
    best = {name: math.inf for name in plan}
    for _ in range(rounds):
        for name, fn in plan.items():
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def print_table(header, rows):
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    for row in (header, *rows):
        print("  " + "  ".join(str(cell).rjust(width) for cell, width in zip(row, widths)))


def dense_model():
    rng = np.random.default_rng([SEED, N_DENSE])
    A = rng.normal(scale=1.0 / math.sqrt(N_DENSE), size=(N_DENSE, N_DENSE))
    W = (A + A.T) / math.sqrt(2.0)
    np.fill_diagonal(W, 0.0)
    return W, rng.normal(scale=0.1, size=N_DENSE)


# --- checks before timing --------------------------------------------------------------


def lattice_energy_per_spin(s):
    """E / N of one (rows, cols) torus of +-1 spins with J = 1: each bond once, as (right, down) pairs."""
    return -float(np.sum(s * (np.roll(s, -1, axis=0) + np.roll(s, -1, axis=1)), dtype=np.int64)) / s.size


def check_lattice(quick):
    """Mean energy per spin at T = 3 on the 64 x 64 torus, bmlib and numba, against Kaufman."""
    T, sweeps = 3.0, (300 if quick else 1000)
    exact = bmlib.kaufman_energy_per_spin(L, L, T)
    ok = True
    result = bmlib.sample(bmlib.SquareLattice(L), T=T, n_samples=sweeps, n_chains=4, burn_in=100, rng=SEED)
    e = bmlib.estimate(result.energies / L**2)
    lines = [("bmlib SquareLattice", e.value, e.error)]
    if numba is not None:
        numba_seed(SEED)
        s = np.where(np.random.default_rng(SEED).random((L, L)) < 0.5, 1, -1).astype(np.int8)
        numba_lattice_sweeps(s, 1.0 / T, 100)
        series = []
        for _ in range(sweeps):
            numba_lattice_sweeps(s, 1.0 / T, 1)
            series.append(lattice_energy_per_spin(s))
        e = bmlib.estimate(np.array(series))
        lines.append(("numba sequential", e.value, e.error))
    print(f"Check: energy per spin on the {L} x {L} torus at T = {T} (Kaufman: {exact:.5f})")
    for name, value, error in lines:
        agree = abs(value - exact) < 5 * error
        ok &= agree
        print(f"  {name:22s} {value:.5f} +/- {error:.5f}  {'OK' if agree else 'DISAGREES'}")
    print()
    return ok


def check_dense(quick):
    """Mean energy of the dense model at T_DENSE: bmlib against numba."""
    W, b = dense_model()
    sweeps = 200 if quick else 600
    result = bmlib.sample(W, b, T_DENSE, n_samples=sweeps, n_chains=16, burn_in=100, rng=SEED)
    ours = bmlib.estimate(result.energies)
    print(f"Check: mean energy of the dense model (n = {N_DENSE}, T = {T_DENSE})")
    print(f"  bmlib                  {ours.value:.4f} +/- {ours.error:.4f}")
    if numba is None:
        print()
        return True
    numba_seed(SEED)
    S = np.where(np.random.default_rng(SEED).random((16, N_DENSE)) < 0.5, 1.0, -1.0)
    energies = np.empty((100 + sweeps, 16))
    numba_dense_sweeps(S, W, b, T_DENSE, 100 + sweeps, energies, True)
    ref = bmlib.estimate(energies[100:])
    agree = abs(ours.value - ref.value) < 5 * math.hypot(ours.error, ref.error)
    print(f"  numba                  {ref.value:.4f} +/- {ref.error:.4f}  {'OK' if agree else 'DISAGREES'}")
    print()
    return agree


# --- timings -----------------------------------------------------------------------------


def report(title, plan, rounds, reference):
    """Time ``plan`` (name -> (fn, unit updates it makes, label)) in interleaved rounds; print; return ns/update."""
    seconds = best_of({name: fn for name, (fn, _, _) in plan.items()}, rounds)
    per_update = {name: seconds[name] / plan[name][1] for name in plan}
    print(title)
    rows = []
    for name, (_, updates, label) in plan.items():
        rows.append((label, f"{updates:,}", f"{seconds[name]:.4g}", f"{1e-6 / per_update[name]:.3g}",
                     f"{per_update[name] * 1e9:.3g}", f"{per_update[name] / per_update[reference]:.3g}"))
    print_table(("implementation", "updates timed", "seconds", "M updates/s", "ns/update",
                 f"time per update / {reference}"), rows)
    print("  Python loops run one sweep of one chain per round; all rows are per single-unit update.")
    print()
    return per_update


def time_lattice(quick):
    T = bmlib.critical_temperature()
    beta = 1.0 / T
    sweeps, rounds = (20, 2) if quick else (100, 5)
    updates = sweeps * N_CHAINS_LATTICE * L * L
    lattice = bmlib.SquareLattice(L)
    start = np.where(np.random.default_rng(SEED).random((N_CHAINS_LATTICE, L * L)) < 0.5, 1, -1).astype(np.int8)
    gen = np.random.default_rng(SEED)
    plan = {"bmlib": (lambda: bmlib.sample(lattice, T=T, n_samples=1, n_chains=N_CHAINS_LATTICE, burn_in=sweeps - 1,
                                           initial=start, rng=gen), updates, "bmlib SquareLattice (checkerboard)")}
    if numba is not None:
        chains = [start[k].reshape(L, L).copy() for k in range(N_CHAINS_LATTICE)]
        numba_lattice_sweeps(chains[0].copy(), beta, 1)  # compile outside the timings
        numba_lattice_sweeps_table(chains[0].copy(), beta, 1)

        def run_numba(sweep_fn):
            for s in chains:  # one chain at a time, as a plain loop would
                sweep_fn(s, beta, sweeps)

        plan["numba"] = (lambda: run_numba(numba_lattice_sweeps), updates, "numba sequential, exp per update")
        plan["numba table"] = (lambda: run_numba(numba_lattice_sweeps_table), updates, "numba sequential, lookup table")
    grid, rng = start[0].reshape(L, L).tolist(), random.Random(SEED)
    array, np_rng = start[0].reshape(L, L).copy(), np.random.default_rng(SEED)
    plan["python tuned"] = (lambda: python_lattice_sweep(grid, beta, rng), L * L, "Python loop, tuned (lists, math)")
    plan["python first"] = (lambda: naive_lattice_sweep(array, beta, np_rng), L * L,
                            "Python loop, first attempt (NumPy array)")
    title = (f"2-D Ising, {N_CHAINS_LATTICE} chains of {L} x {L} at T_c = {T:.4f}, heat bath; "
             f"best of {rounds} interleaved rounds")
    per_update = report(title, plan, rounds, "bmlib")
    workload = sweeps * N_CHAINS_LATTICE * L * L
    for name in ("python tuned", "python first"):
        print(f"  {plan[name][2]}: the whole workload ({workload:,} updates) would take "
              f"~{per_update[name] * workload:.3g} s (EXTRAPOLATED from one sweep of one chain)")
    print()
    return per_update


def time_dense(quick):
    W, b = dense_model()
    sweeps, rounds = (5, 2) if quick else (20, 5)
    updates = sweeps * N_CHAINS_DENSE * N_DENSE
    start = np.where(np.random.default_rng(SEED).random((N_CHAINS_DENSE, N_DENSE)) < 0.5, 1, -1)
    gen = np.random.default_rng(SEED)
    plan = {
        f"bmlib {scan}": ((lambda scan=scan: bmlib.sample(W, b, T_DENSE, n_samples=1, n_chains=N_CHAINS_DENSE,
                                                           burn_in=sweeps - 1, scan=scan, initial=start, rng=gen)),
                          updates, f"bmlib, {scan} scan")
        for scan in ("sequential", "random")
    }
    if numba is not None:
        S = start.astype(float)
        energies = np.empty((sweeps, N_CHAINS_DENSE))
        numba_dense_sweeps(S[:1].copy(), W, b, T_DENSE, 1, energies[:1, :1], False)  # compile
        plan["numba"] = (lambda: numba_dense_sweeps(S, W, b, T_DENSE, sweeps, energies, False), updates,
                         "numba sequential, one chain at a time")
    s, Wl, bl, rng = start[0].astype(float).tolist(), W.tolist(), b.tolist(), random.Random(SEED)
    array, np_rng = start[0].astype(float), np.random.default_rng(SEED)
    plan["python tuned"] = (lambda: python_dense_sweep(s, Wl, bl, T_DENSE, rng), N_DENSE, "Python loop, lists")
    plan["python first"] = (lambda: naive_dense_sweep(array, W, b, T_DENSE, np_rng), N_DENSE,
                            "Python loop, NumPy dot per unit")
    title = (f"Dense Boltzmann machine, n = {N_DENSE}, {N_CHAINS_DENSE} chains, T = {T_DENSE}, heat bath; "
             f"best of {rounds} interleaved rounds")
    return report(title, plan, rounds, "bmlib sequential")


def dense_crossover(quick):
    """bmlib's sequential sweep against numba's over chain counts and sizes: where each one wins.

    bmlib pays a fixed cost per unit update (three NumPy calls, two for bits, shared by all chains) plus
    BLAS work that grows with n * n_chains; numba pays only the arithmetic, n * n_chains per unit.
    So bmlib gains with many chains and loses with few. Returns {(n, n_chains): numba / bmlib}.
    """
    if numba is None:
        return {}
    cases = [(100, c) for c in (1, 8, 64, 512)] + [(n, 64) for n in (30, 300)]
    ratios = {}
    rows = []
    for n, n_chains in cases:
        rng = np.random.default_rng([SEED, n])
        A = rng.normal(scale=1.0 / math.sqrt(n), size=(n, n))
        W = (A + A.T) / math.sqrt(2.0)
        np.fill_diagonal(W, 0.0)
        b = rng.normal(scale=0.1, size=n)
        start = np.where(rng.random((n_chains, n)) < 0.5, 1, -1)
        sweeps = max(2, min(50, 200_000 // (n * n_chains)))
        S, energies, gen = start.astype(float), np.empty((1, 1)), np.random.default_rng(SEED)
        seconds = best_of({
            "bmlib": lambda: bmlib.sample(W, b, T_DENSE, n_samples=1, n_chains=n_chains, burn_in=sweeps - 1,
                                          initial=start, rng=gen),
            "numba": lambda: numba_dense_sweeps(S, W, b, T_DENSE, sweeps, energies, False),
        }, 2 if quick else 5)
        ratios[n, n_chains] = seconds["numba"] / seconds["bmlib"]
        per = 1e9 / (sweeps * n * n_chains)
        rows.append((n, n_chains, f"{seconds['bmlib'] * per:.3g}", f"{seconds['numba'] * per:.3g}",
                     f"{ratios[n, n_chains]:.2f}"))
    print("Dense sequential heat bath: where bmlib and numba cross over (ns per single-unit update)")
    print_table(("n", "chains", "bmlib", "numba", "numba / bmlib"), rows)
    print()
    return ratios


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer sweeps (smoke run)")
    args = parser.parse_args(argv)
    print_environment()
    if numba is None:
        print("numba is not installed: the numba columns are skipped (.venv/bin/pip install -e '.[bench]').\n")

    ok = check_lattice(args.quick) & check_dense(args.quick)
    lattice = time_lattice(args.quick)
    dense = time_dense(args.quick)
    dense_crossover(args.quick)

    print("Issue targets (informational: they do not affect the exit code); ratio = its time / bmlib's, per update")
    if "numba" in lattice:
        ratio = lattice["numba"] / lattice["bmlib"]
        print(f"  lattice, vs plain numba sequential: {ratio:.2f} (issue 26: >= 5) -> {'PASS' if ratio >= 5 else 'MISS'}")
        ratio = lattice["numba table"] / lattice["bmlib"]
        print(f"  lattice, vs numba with lookup table: {ratio:.2f} (issue 26: >= 2) -> {'PASS' if ratio >= 2 else 'MISS'}")
    for name, label in (("python first", "first attempt"), ("python tuned", "tuned")):
        ratio = lattice[name] / lattice["bmlib"]
        print(f"  lattice, vs Python loop, {label}: {ratio:.0f} (target > 100) -> {'PASS' if ratio > 100 else 'MISS'}")
    if "numba" in dense:
        ratio = dense["numba"] / dense["bmlib sequential"]
        print(f"  dense, n = {N_DENSE}, {N_CHAINS_DENSE} chains, vs numba: {ratio:.2f} (target >= 1) -> "
              f"{'PASS' if ratio >= 1 else 'MISS'}")
    for name, label in (("python first", "first attempt"), ("python tuned", "tuned")):
        print(f"  dense, vs Python loop, {label} (no target): {dense[name] / dense['bmlib sequential']:.0f}")
    print()
    if ok:
        print("All checks passed.")
        return 0
    print("ERROR: an implementation disagrees with its reference (see the checks above).", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
