"""RBM training at small mini-batches on the digits: bmlib against scikit-learn's BernoulliRBM.

Both train an RBM on the 1498 training images of ``bm.digits("train")``
(bits) with scikit-learn's algorithm: persistent CD-1 with one chain per
batch row, learning rate 0.05, N(0, 0.01**2) initial weights, no momentum,
no weight decay. For 16 and 64 hidden units and batches of 10 and 100 it
times the epochs of each (the two alternate, so that a burst of load on a
shared machine hits both alike) and prints the best time per epoch and the
ratio scikit-learn / bmlib: above 1, bmlib is faster. Both run with the
BLAS on one thread (bmlib always does, ``bmlib/_threads.py``; scikit-learn
here under ``threadpoolctl.threadpool_limits(1)``): an earlier version let
scikit-learn use every core, which on a busy machine slows its larger
products and flattered bmlib at batch 100. The quality check
trains both for 30 epochs at 16 hidden units, batch 10, from six seeds each,
and scores the held-out images by the exact log-likelihood (the hidden layer
summed out). One run's value moves by 0.5 to 1 nat from seed to seed (small
batches make PCD noisy), so the two are compared by their means over the
seeds, within three standard errors of the difference.

It is a measurement, not a test: the exit code is non-zero only if the two
reach different held-out log-likelihoods by that criterion.

Usage::

    python benchmarks/rbm_small_batches.py          # about a minute
    python benchmarks/rbm_small_batches.py --quick  # a few seconds
"""
from __future__ import annotations

import argparse
import platform
import sys
import time

import numpy as np
import threadpoolctl

import bmlib as bm

try:
    from sklearn.neural_network import BernoulliRBM
except ImportError:  # the "bench" extra in pyproject.toml installs it
    BernoulliRBM = None

LEARNING_RATE = 0.05
QUALITY_SEEDS = 6


def _bmlib(data, n_hidden, batch, epochs, seed):
    rbm = bm.RBM(data.shape[1], n_hidden, units="bits", rng=seed)
    start = time.perf_counter()
    bm.train(rbm, data, epochs=epochs, learning_rate=LEARNING_RATE, batch_size=batch,
             statistics=bm.PersistentContrastiveDivergence(k=1, n_chains=batch), monitor=None, progress=False,
             rng=seed)
    return (time.perf_counter() - start) / epochs, rbm


def _sklearn(data, n_hidden, batch, epochs, seed):
    sk = BernoulliRBM(n_components=n_hidden, learning_rate=LEARNING_RATE, batch_size=batch, n_iter=epochs,
                      random_state=seed)
    with threadpoolctl.threadpool_limits(1, user_api="blas"):  # as bmlib's own thin_blas
        start = time.perf_counter()
        sk.fit(data)
        elapsed = (time.perf_counter() - start) / epochs
    return elapsed, bm.RBM(data.shape[1], n_hidden, W=sk.components_.T, b_visible=sk.intercept_visible_,
                           b_hidden=sk.intercept_hidden_, units="bits")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer epochs and repeats")
    args = parser.parse_args()
    epochs, repeats, quality_epochs = (2, 2, 5) if args.quick else (10, 5, 30)
    import sklearn  # noqa: F401  (reported below, if present)

    print(f"Python {platform.python_version()}, NumPy {np.__version__}, bmlib {bm.__version__}, "
          f"{platform.machine()}")
    if BernoulliRBM is None:
        print("scikit-learn is not installed (.venv/bin/pip install -e '.[bench]'); nothing to compare with.")
        return 0
    print(f"scikit-learn {sklearn.__version__}; digits 1498 x 64 (bits), persistent CD-1 with one chain per "
          f"batch row, learning rate {LEARNING_RATE}; BLAS on one thread for both "
          f"({threadpoolctl.threadpool_info()[0].get('internal_api')}, "
          f"{threadpoolctl.threadpool_info()[0].get('architecture')} kernel)\n")
    train = bm.digits("train", units="bits").images
    held = bm.digits("held_out", units="bits").images
    print(f"{'hidden':>6} {'batch':>6} {'bmlib ms/epoch':>15} {'sklearn ms/epoch':>17} {'sklearn / bmlib':>16}")
    for n_hidden in (16, 64):
        for batch in (10, 100):
            times = {"bmlib": [], "sklearn": []}
            for seed in range(repeats):
                times["bmlib"].append(_bmlib(train, n_hidden, batch, epochs, seed)[0])
                times["sklearn"].append(_sklearn(train, n_hidden, batch, epochs, seed)[0])
            b, s = min(times["bmlib"]), min(times["sklearn"])
            print(f"{n_hidden:6d} {batch:6d} {1e3 * b:15.1f} {1e3 * s:17.1f} {s / b:16.2f}")
    print(f"\nQuality: 16 hidden units, batch 10, {quality_epochs} epochs, exact held-out log-likelihood "
          "(mean over the 299 held-out images, nats)")
    means, errors = {}, {}
    for name, run in (("bmlib", _bmlib), ("scikit-learn", _sklearn)):
        values = [run(train, 16, 10, quality_epochs, seed)[1].log_likelihood(held) for seed in range(QUALITY_SEEDS)]
        means[name], errors[name] = np.mean(values), np.std(values, ddof=1) / np.sqrt(len(values))
        print(f"  {name:13s} {means[name]:.2f} +/- {errors[name]:.2f}  (mean and standard error over seeds "
              f"0-{QUALITY_SEEDS - 1}; single runs {min(values):.2f} to {max(values):.2f})")
    difference = means["bmlib"] - means["scikit-learn"]
    allowed = 3 * np.hypot(errors["bmlib"], errors["scikit-learn"])
    agree = abs(difference) < allowed
    print(f"  difference {difference:+.2f} nats; same quality (within 3 standard errors, {allowed:.2f}): "
          f"{'yes' if agree else 'NO'}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
