"""CD-1 against persistent CD on bars and stripes 3 x 3, scored by the exact log-likelihood.

The data are the 14 bars-and-stripes images of 3 x 3 pixels; a model that
spreads its probability evenly over them scores the best possible
log-likelihood, -log 14 = -2.639 nats per pattern. Every number below is the
*exact* log-likelihood of a trained RBM (its 9 visible units enumerated,
the hidden units summed analytically), so the comparison has no estimation
error.

Part 1 trains an RBM with 16 hidden units three ways, with the same
learning rate and full batches: CD-1, persistent CD-1 (500 chains), and the
exact gradient (the best any statistics could do with this optimizer). It
prints the log-likelihood during training, averaged over three seeds.

Part 2, if scikit-learn is installed, trains ``sklearn.neural_network.BernoulliRBM``
and bmlib's RBM with identical hyper-parameters (16 hidden units, learning
rate 0.1, batches of 14, N(0, 0.01**2) initial weights, persistent CD-1 with
one chain per batch row: scikit-learn's algorithm) and prints the exact
log-likelihood each reaches and the time per epoch, as ratios from this run.

It is a measurement, not a test: the exit code is non-zero only if the
free energies of bmlib and scikit-learn disagree for the same parameters.

Usage::

    python benchmarks/learning_rbm.py            # 2000 epochs, about half a minute
    python benchmarks/learning_rbm.py --quick    # 300 epochs, a few seconds
"""
from __future__ import annotations

import argparse
import math
import platform
import sys
import time

import numpy as np

import bmlib as bm

try:
    from sklearn.neural_network import BernoulliRBM
except ImportError:  # part 2 is optional; the "bench" extra in pyproject.toml installs it
    BernoulliRBM = None

N_HIDDEN = 16
LEARNING_RATE = 0.1
SEEDS = (0, 1, 2)
PCD_CHAINS = 500


def part1(data, epochs):
    best = -math.log(len(data))
    methods = {
        "CD-1": lambda: bm.ContrastiveDivergence(k=1),
        f"PCD-1 ({PCD_CHAINS} chains)": lambda: bm.PersistentContrastiveDivergence(k=1, n_chains=PCD_CHAINS),
        "exact gradient": lambda: "exact",
    }
    checkpoints = sorted({0, epochs // 20, epochs // 10, epochs // 4, epochs // 2, epochs})
    print(f"Part 1: RBM 9-{N_HIDDEN}, learning rate {LEARNING_RATE}, full batch, initial weights N(0, 0.1**2),")
    print(f"        exact log-likelihood per pattern, mean over seeds {SEEDS}; best possible -log 14 = {best:.3f}\n")
    print(f"{'epoch':>22}" + "".join(f"{c:>9}" for c in checkpoints) + f"{'final range':>18}{'ms/epoch':>10}")
    finals = {}
    for name, make in methods.items():
        curves, seconds = [], 0.0
        for seed in SEEDS:
            rbm = bm.RBM(9, N_HIDDEN, init_scale=0.1, rng=seed, units="bits")
            start = time.perf_counter()
            history = bm.train(rbm, data, epochs=epochs, learning_rate=LEARNING_RATE, statistics=make(),
                               progress=False, rng=seed + 10)
            seconds += time.perf_counter() - start
            curves.append(history.values)
        curves = np.array(curves)
        finals[name] = curves[:, -1]
        row = "".join(f"{curves[:, c].mean():9.3f}" for c in checkpoints)
        spread = f"[{curves[:, -1].min():.3f}, {curves[:, -1].max():.3f}]"
        # Time per epoch includes the exact log-likelihood recorded after every epoch.
        print(f"{name:>22}{row}{spread:>18}{1e3 * seconds / (len(SEEDS) * max(epochs, 1)):10.3f}")
    print("\n  gap to the best possible (mean over seeds): "
          + ", ".join(f"{name} {best - f.mean():.3f}" for name, f in finals.items()))
    return finals


def sklearn_free_energy(model, v):
    # scikit-learn's own formula (BernoulliRBM._free_energy), written out here
    # so that the check does not depend on a private method.
    return -v @ model.intercept_visible_ - np.logaddexp(0, v @ model.components_.T + model.intercept_hidden_).sum(axis=1)


def part2(data, epochs):
    print("\nPart 2: bmlib.RBM against sklearn.neural_network.BernoulliRBM, identical hyper-parameters")
    if BernoulliRBM is None:
        print("  scikit-learn is not installed (.venv/bin/pip install -e '.[bench]'); skipped.")
        return True
    import sklearn

    best = -math.log(len(data))
    batch = len(data)
    print(f"  scikit-learn {sklearn.__version__}; RBM 9-{N_HIDDEN}, learning rate {LEARNING_RATE}, batch {batch}, "
          f"{epochs} epochs, persistent CD-1 with {batch} chains, seeds {SEEDS}\n")
    results = {"bmlib": ([], []), "scikit-learn": ([], [])}
    agree = True
    for seed in SEEDS:
        # Alternate the two so that a burst of load on a shared machine hits both alike.
        rbm = bm.RBM(9, N_HIDDEN, init_scale=0.01, rng=seed, units="bits")
        start = time.perf_counter()
        bm.train(rbm, data, epochs=epochs, learning_rate=LEARNING_RATE, batch_size=batch,
                 statistics=bm.PersistentContrastiveDivergence(k=1, n_chains=batch), monitor=None, progress=False,
                 rng=seed)
        results["bmlib"][0].append((time.perf_counter() - start) / max(epochs, 1))
        results["bmlib"][1].append(rbm.log_likelihood(data))

        sk = BernoulliRBM(n_components=N_HIDDEN, learning_rate=LEARNING_RATE, batch_size=batch, n_iter=epochs,
                          random_state=seed)
        start = time.perf_counter()
        sk.fit(data.astype(float))
        results["scikit-learn"][0].append((time.perf_counter() - start) / max(epochs, 1))
        as_bmlib = bm.RBM(9, N_HIDDEN, W=sk.components_.T, b_visible=sk.intercept_visible_,
                          b_hidden=sk.intercept_hidden_, units="bits", T=1.0)
        results["scikit-learn"][1].append(as_bmlib.log_likelihood(data))
        states = bm.all_states(9, "bits").astype(float)
        agree &= bool(np.allclose(as_bmlib.free_energy(states), sklearn_free_energy(sk, states), atol=1e-10))

    print(f"{'':>14}{'log-likelihood (mean)':>24}{'gap to best':>13}{'ms/epoch (best)':>17}")
    for name, (times, lls) in results.items():
        print(f"{name:>14}{np.mean(lls):24.3f}{best - np.mean(lls):13.3f}{1e3 * min(times):17.3f}")
    (t_b, ll_b), (t_s, ll_s) = results["bmlib"], results["scikit-learn"]
    print(f"\n  ratios bmlib / scikit-learn: time per epoch {min(t_b) / min(t_s):.2f}, "
          f"gap to the best log-likelihood {(best - np.mean(ll_b)) / (best - np.mean(ll_s)):.2f} (< 1: bmlib closer)")
    print(f"  free energies of the same parameters agree to 1e-10: {'yes' if agree else 'NO'}")
    return agree


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=2000, help="training epochs (default 2000)")
    parser.add_argument("--quick", action="store_true", help="300 epochs")
    args = parser.parse_args()
    epochs = 300 if args.quick else args.epochs
    print(f"Python {platform.python_version()}, NumPy {np.__version__}, bmlib {bm.__version__}, "
          f"{platform.machine()}\n")
    data = bm.bars_and_stripes(3, units="bits")
    part1(data, epochs)
    ok = part2(data, epochs)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
