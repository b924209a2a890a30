"""RBM-specific AIS against general AIS on the equivalent full machine, at equal cost, from one run.

An RBM with visible-hidden couplings W is also a Boltzmann machine with the
block couplings [[0, W], [W^T, 0]]. ``bmlib.log_z_ais`` anneals all its units
with heat-bath sweeps; ``bmlib.log_z_rbm_ais`` sums the hidden units out and
anneals only the visible ones with block Gibbs sweeps (Salakhutdinov & Murray
2008). Both get the same budget: ``n_runs`` runs of ``K`` steps, one sweep per
step. For each, the spread of log Z over independent repetitions (seeds
0 .. R-1) is measured against the exact value (``bmlib.rbm_log_partition``,
which enumerates the smaller layer): the bias (mean error), the standard
deviation, and the time. RBM-AIS is run twice, from a uniform base and from
a base fitted to data drawn exactly from the RBM.

Prints the ratio of standard deviations (general / RBM) and of times; a
ratio above 1 means RBM-AIS is better. Exits non-zero only if an estimate's
mean is off by more than 5 of its own standard errors (a broken estimator).

Usage::

    python benchmarks/rbm_ais.py           # about a minute
    python benchmarks/rbm_ais.py --quick   # a few seconds
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import bmlib

SEED = 2008


def exact_samples(W, bv, bh, size, rng):
    """Spins drawn exactly from the RBM: h from its marginal (the smaller layer), then v given h."""
    H = bmlib.all_states(W.shape[1])
    field = W @ H.T + bv[:, None]
    log_ph = H @ bh + np.logaddexp(-field, field).sum(axis=0)
    ph = np.exp(log_ph - log_ph.max())
    h = H[rng.choice(len(H), size=size, p=ph / ph.sum())]
    p_on = 1.0 / (1.0 + np.exp(-2.0 * (h @ W.T + bv)))
    return np.where(rng.random(p_on.shape) < p_on, 1.0, -1.0)


def measure(estimate, repeats):
    values, start = [], time.perf_counter()
    for seed in range(repeats):
        values.append(estimate(seed))
    return np.array(values), (time.perf_counter() - start) / repeats


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    repeats, n_runs, K = (8, 50, 100) if args.quick else (20, 100, 300)
    rng = np.random.default_rng(SEED)
    n_visible, n_hidden = 24, 12
    W = rng.normal(scale=0.3, size=(n_visible, n_hidden))
    bv = rng.normal(scale=1.0, size=n_visible)
    bh = rng.normal(scale=0.5, size=n_hidden)
    data = exact_samples(W, bv, bh, 1000, rng)
    exact = bmlib.rbm_log_partition(W, bv, bh)
    full_W = np.block([[np.zeros((n_visible, n_visible)), W], [W.T, np.zeros((n_hidden, n_hidden))]])
    full_b = np.concatenate([bv, bh])
    print(f"bmlib {bmlib.__version__}, NumPy {np.__version__}; RBM {n_visible} x {n_hidden} (spins), "
          f"exact log Z = {exact:.4f}")
    print(f"budget: {n_runs} runs x {K} steps, one sweep per step; {repeats} repetitions each\n")
    methods = {
        "log_z_ais, full machine": lambda s: bmlib.log_z_ais(full_W, full_b, n_runs=n_runs, n_steps=K, rng=s).log_z,
        "log_z_rbm_ais, uniform base": lambda s: bmlib.log_z_rbm_ais(W, bv, bh, n_runs=n_runs, n_steps=K,
                                                                     rng=s).log_z,
        "log_z_rbm_ais, data base": lambda s: bmlib.log_z_rbm_ais(W, bv, bh, data=data, n_runs=n_runs,
                                                                  n_steps=K, rng=s).log_z,
    }
    results, ok = {}, True
    print(f"{'method':<30}{'mean error':>12}{'sd':>10}{'time s':>10}")
    for name, estimate in methods.items():
        values, seconds = measure(estimate, repeats)
        error, sd = values.mean() - exact, values.std(ddof=1)
        results[name] = (sd, seconds)
        broken = abs(error) > 5 * sd / np.sqrt(repeats) + 1e-3
        ok &= not broken
        print(f"{name:<30}{error:>12.4f}{sd:>10.4f}{seconds:>10.3f}{'  OFF' if broken else ''}")
    full_sd, full_time = results["log_z_ais, full machine"]
    print()
    for name in list(methods)[1:]:
        sd, seconds = results[name]
        print(f"{name}: sd ratio (full / RBM) {full_sd / sd:.1f}, time ratio (full / RBM) {full_time / seconds:.1f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
