"""Benchmark bmlib's one-BLAS-thread rule (bmlib/_threads.py) on an idle and a loaded machine.

bmlib runs its hot loops with the BLAS limited to one thread. This script
times four workloads both ways in the same run, taking turns:

* ``one thread``   -- bmlib as shipped (``bmlib._threads.ENABLED = True``);
* ``BLAS default`` -- the BLAS's own thread count (``ENABLED = False``), the
  reference.

and that three times: on the machine as it is, with a second process
spinning on one core (what a student's laptop running a browser, or a shared
CI machine, looks like), and with both cores busy. It prints seconds (best of a few turns) and the ratio
``BLAS default / one thread``: above 1 means the rule helps. Results are
also checked to be identical both ways (the exit code is non-zero if not).

Workloads: the exact log Z of n = 24 units; 64 chains of a dense n = 100
model sampled for 200 sweeps; AIS with 200 steps and 100 runs on an RBM
with 16 visible and 8 hidden units (as its full machine); CD-1 training of
that RBM for 200 epochs on random data.

Usage::

    .venv/bin/python benchmarks/blas_threads.py           # about two minutes
    .venv/bin/python benchmarks/blas_threads.py --quick   # about half a minute
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import sys
import time

import numpy as np

import bmlib as bm
from bmlib import _threads


def _spin(stop):
    """Busy loop on one core until told to stop (the 'load')."""
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x += 1


def _workloads(quick):
    rng = np.random.default_rng(7)
    n_exact = 20 if quick else 24
    W = np.triu(rng.normal(scale=0.3, size=(n_exact, n_exact)), 1)
    W_exact, b_exact = W + W.T, rng.normal(scale=0.3, size=n_exact)
    W = np.triu(rng.normal(scale=0.1, size=(100, 100)), 1)
    W_dense = W + W.T
    rbm = bm.RBM(16, 8, rng=1, units="bits")
    rbm.W[:] = rng.normal(scale=0.5, size=rbm.W.shape)
    full = rbm.to_boltzmann_machine()
    data = (rng.random((64, 16)) < 0.5).astype(float)
    sweeps, steps, epochs = (50, 50, 50) if quick else (200, 200, 200)
    return {
        f"exact log Z, n = {n_exact}": lambda: bm.log_partition(W_exact, b_exact),
        f"sample, dense n = 100, 64 chains, {sweeps} sweeps":
            lambda: bm.sample(W_dense, n_samples=sweeps, n_chains=64, rng=3).samples.sum(),
        f"AIS, RBM 16 x 8 as a full machine, {steps} steps x 100 runs":
            lambda: bm.log_z_ais(full.W, full.b, units="bits", n_steps=steps, n_runs=100, rng=4).log_z,
        f"CD-1 training, RBM 16 x 8, {epochs} epochs": lambda: _cd_training(rbm, data, epochs),
    }


def _cd_training(rbm, data, epochs):
    model = rbm.copy()  # train updates its model in place; every turn starts from the same one
    bm.train(model, data, epochs=epochs, learning_rate=0.05, statistics="cd", rng=5, progress=False)
    return model.W.sum()


def _time(func, enabled):
    _threads.ENABLED = enabled
    try:
        start = time.perf_counter()
        value = func()
        return time.perf_counter() - start, value
    finally:
        _threads.ENABLED = True


def _measure(workloads, repeats):
    rows, same = [], True
    for name, func in workloads.items():
        best = {True: np.inf, False: np.inf}
        values = {}
        for _ in range(repeats):
            for enabled in (True, False):  # take turns, so a burst of load hits both
                seconds, values[enabled] = _time(func, enabled)
                best[enabled] = min(best[enabled], seconds)
        same &= bool(np.all(values[True] == values[False]))
        rows.append((name, best[True], best[False], values[True] == values[False]))
    return rows, same


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller workloads")
    args = parser.parse_args(argv)
    repeats = 2 if args.quick else 3
    print(f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs, "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE')}")
    try:
        from threadpoolctl import threadpool_info
        for info in threadpool_info():
            print(f"  {info['user_api']}: {info['internal_api']} {info.get('version')} "
                  f"{info.get('architecture')}, {info['num_threads']} threads")
    except ImportError:
        print("  threadpoolctl is missing: bmlib cannot limit the BLAS threads, both columns are the same")
    workloads = _workloads(args.quick)
    all_same = True
    for label, n_spinners in (("idle", 0), ("loaded (one core busy)", 1), ("loaded (both cores busy)", 2)):
        stop = multiprocessing.Event()
        spinners = [multiprocessing.Process(target=_spin, args=(stop,), daemon=True) for _ in range(n_spinners)]
        for spinner in spinners:
            spinner.start()
        if spinners:
            time.sleep(0.5)
        try:
            rows, same = _measure(workloads, repeats)
        finally:
            stop.set()
            for spinner in spinners:
                spinner.join()
        all_same &= same
        print(f"\n{label}:")
        print(f"  {'workload':58s} {'one thread':>11s} {'BLAS default':>13s} {'ratio':>7s}  identical")
        for name, one, default, identical in rows:
            print(f"  {name:58s} {one:10.3f}s {default:12.3f}s {default / one:7.2f}  {identical}")
    print("\nratio = BLAS default / one thread (above 1: the one-thread rule is faster)")
    if not all_same:
        print("RESULTS DIFFER between one thread and the BLAS default", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
