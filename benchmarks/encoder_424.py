"""The 4-2-4 encoder of Ackley, Hinton & Sejnowski (1985), learned with annealed and with mean-field statistics.

The task: two visible groups of 4 units (V1, V2) talk only through 2 hidden
units. In pattern k unit k of each group is on, so the hidden units must
learn a 2-bit code for each of the 4 patterns. The network is the paper's
(section 4.1): each group fully connected inside and to the hidden units,
the hidden units not connected to each other, units in bits, T = 10.

What counts as success (computed exactly, by enumeration, with
``bm.encoder_report`` on the stochastic machine at T = 10, after every
learning cycle):

codes
    the most probable hidden state given each full pattern, argmax_h p(h | v_k),
    is different for the 4 patterns: the paper's "four different codes".
solved
    codes, and the most probable completion of the other group (hidden units
    summed out) is right for every pattern, with V1 clamped and with V2
    clamped ("both ways"); for the input-output rows, with V1 clamped
    ("V1 -> V2"), the only direction they train.

A run stops at the first solved cycle, then trains ``--hold`` more cycles,
recording in how many of them it is solved and whether it still has four
different codes at the end (the paper: "once there it remained there").
Runs that are not solved within ``--max-cycles`` count as failures.

The methods (one learning cycle = one weight update from the 4 patterns):

annealed (1985)
    ``bm.AnnealedStatistics(noise=PAPER_NOISE)``: each pattern clamped twice
    with noisy clamping (on -> off 0.15, off -> on 0.05), the hidden units
    annealed 2@20, 2@15, 2@12, 4@10 and statistics collected for 10 sweeps at
    T = 10; the free phase as many annealings, nothing clamped; weights and
    biases moved by 2 in the sign of p+ - p- (``update="sign"``). All
    weights start at zero, as in the paper.
mean field
    ``bm.MeanFieldStatistics()``: one naive mean-field solution per pattern
    (visible clamped) and one free solution; same sign rule, step 2. The
    weights start at N(0, 1) (T = 10): a deterministic machine started at
    zero weights never tells its two hidden units apart.
... input -> output
    V1 clamped in both phases (``inputs=range(4)``), so the free phase of
    each pattern asks for V2 given V1. The mean-field free phase is then one
    solution per pattern instead of one product distribution that would
    have to hold four patterns at once.

Timings are of the training calls only (the success checks are excluded).
"unit updates" counts single-unit updates per cycle (chains x sweeps x free
units for sampling; sweeps x free units for mean field): a cost that does not
depend on how fast Python runs each one.

References printed next to the table: Ackley, Hinton & Sejnowski (1985),
section 4.1: 250 of 250 runs found four different codes, median 110
learning cycles, longest 1810. Peterson & Anderson (1987), abstract: speed-up
factors of 10 to 30 over the stochastic procedure on XOR, encoder and line
symmetry problems.

Usage::

    python benchmarks/encoder_424.py            # 20 seeds per method, about six minutes
    python benchmarks/encoder_424.py --quick    # 3 seeds, at most 300 cycles, about ten seconds
"""
from __future__ import annotations

import argparse
import time
import warnings
from dataclasses import dataclass

import numpy as np

import bmlib as bm
from bmlib.learning.annealed import PAPER_NOISE

N_GROUP, N_HIDDEN, T = 4, 2, 10.0
STEP = 2.0  # the paper's weight-step, for units in bits at T = 10
MF_INIT_SCALE = 1.0
SEED_BASE = 1000  # the mean-field settings were chosen in a pilot on seeds 0-9; these seeds are fresh
BOTH_WAYS, V1_TO_V2 = (0, 1), (0,)


@dataclass(frozen=True)
class Method:
    name: str
    make_provider: object  # () -> provider
    init_scale: float
    directions: tuple  # rows of EncoderReport.completed that must be right


METHODS = (
    Method("annealed (1985)", lambda: bm.AnnealedStatistics(noise=PAPER_NOISE), 0.0, BOTH_WAYS),
    Method("mean field", lambda: bm.MeanFieldStatistics(), MF_INIT_SCALE, BOTH_WAYS),
    Method("annealed, input -> output",
           lambda: bm.AnnealedStatistics(noise=PAPER_NOISE, inputs=range(N_GROUP)), 0.0, V1_TO_V2),
    Method("mean field, input -> output", lambda: bm.MeanFieldStatistics(inputs=range(N_GROUP)), MF_INIT_SCALE,
           V1_TO_V2),
)


@dataclass(frozen=True)
class Run:
    codes_at: int | None  # first cycle with four different codes
    solved_at: int | None  # first solved cycle
    held: bool  # four different codes after the hold cycles
    hold_solved: float  # fraction of the hold cycles after which it was solved
    cycles: int  # cycles trained
    seconds: float  # time in training calls
    updates: int  # single-unit updates of the provider


def _solved(report, directions):
    return report.distinct and bool(report.completed[list(directions)].all())


def run_one(method, seed, max_cycles, hold):
    """Train one machine from ``seed`` until it is solved (then ``hold`` more cycles) or ``max_cycles``."""
    mask = bm.encoder_mask(N_GROUP, N_HIDDEN, hidden_connected=False)
    machine = bm.BoltzmannMachine(2 * N_GROUP, N_HIDDEN, mask=mask, units="bits", T=T, init_scale=method.init_scale,
                                  rng=np.random.default_rng([seed, 0]))
    data = bm.encoder_patterns(N_GROUP, "bits")
    provider = method.make_provider()
    gen = np.random.default_rng([seed, 1])
    codes_at = solved_at = None
    seconds, cycle = 0.0, 0

    def train_cycle():
        nonlocal seconds
        start = time.perf_counter()
        bm.train(machine, data, epochs=1, learning_rate=STEP, update="sign", statistics=provider, monitor=None,
                 progress=False, rng=gen)
        seconds += time.perf_counter() - start

    while cycle < max_cycles and solved_at is None:
        train_cycle()
        cycle += 1
        report = bm.encoder_report(machine)
        if codes_at is None and report.distinct:
            codes_at = cycle
        if _solved(report, method.directions):
            solved_at = cycle
    held, hold_solved = False, []
    if solved_at is not None:
        for _ in range(hold):
            train_cycle()
            report = bm.encoder_report(machine)
            hold_solved.append(_solved(report, method.directions))
        held = bm.encoder_report(machine).distinct
    return Run(codes_at, solved_at, held, float(np.mean(hold_solved)) if hold_solved else float("nan"),
               cycle + (hold if solved_at else 0), seconds, provider.n_updates)


def run_method(method, seeds, max_cycles, hold):
    # Mean field may stop at max_iter on the way (large weights, slow fixed points); the result is still used.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bm.ConvergenceWarning)
        return [run_one(method, seed, max_cycles, hold) for seed in seeds]


def _quartiles(values):
    if not values:
        return "-"
    q1, q2, q3 = np.percentile(values, [25, 50, 75])
    return f"{q2:.0f} [{q1:.0f}, {q3:.0f}]"


def _percent(x):
    return "-" if np.isnan(x) else f"{x:.0%}"


def summary(runs):
    """Numbers of one method's table row, as a dict."""
    solved = [r.solved_at for r in runs if r.solved_at is not None]
    codes = [r.codes_at for r in runs if r.codes_at is not None]
    cycles = sum(r.cycles for r in runs)
    return {
        "solved": len(solved),
        "codes": len(codes),
        "runs": len(runs),
        "held": sum(r.held for r in runs),
        "hold_solved": float(np.mean([r.hold_solved for r in runs if r.solved_at is not None] or [np.nan])),
        "codes_cycles": _quartiles(codes),
        "solved_cycles": _quartiles(solved),
        "median_solved": float(np.median(solved)) if solved else float("nan"),
        "seconds_per_run": float(np.mean([r.seconds for r in runs])),
        "ms_per_cycle": 1e3 * sum(r.seconds for r in runs) / cycles,
        "updates_per_cycle": sum(r.updates for r in runs) / cycles,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 seeds, at most 300 cycles, hold 10")
    parser.add_argument("--seeds", type=int, default=None, help="runs per method (default 20; 3 with --quick)")
    parser.add_argument("--max-cycles", type=int, default=None, help="cap per run (default 2000; 300 with --quick)")
    parser.add_argument("--hold", type=int, default=None, help="cycles after success (default 50; 10 with --quick)")
    args = parser.parse_args(argv)
    n_seeds = args.seeds or (3 if args.quick else 20)
    max_cycles = args.max_cycles or (300 if args.quick else 2000)
    hold = args.hold if args.hold is not None else (10 if args.quick else 50)
    seeds = range(SEED_BASE, SEED_BASE + n_seeds)

    print(f"4-2-4 encoder, units in bits, T = {T:g}, weight-step {STEP:g} in the sign of p+ - p-; "
          f"{n_seeds} runs per method (seeds {seeds[0]}..{seeds[-1]}), at most {max_cycles} cycles, "
          f"hold {hold} cycles after success.\n")
    header = (f"{'method':<29}{'solved':>8}{'4 codes':>9}{'cycles to 4 codes':>19}{'cycles to solved':>18}"
              f"{'held':>7}{'hold ok':>9}{'s/run':>8}{'ms/cycle':>10}{'updates/cycle':>15}")
    print(header)
    print("-" * len(header))
    results = {}
    for method in METHODS:
        row = summary(run_method(method, seeds, max_cycles, hold))
        results[method.name] = row
        print(f"{method.name:<29}{row['solved']:>4}/{row['runs']:<3}{row['codes']:>5}/{row['runs']:<3}"
              f"{row['codes_cycles']:>19}{row['solved_cycles']:>18}{row['held']:>4}/{row['solved']:<2}"
              f"{_percent(row['hold_solved']):>9}{row['seconds_per_run']:>8.2f}{row['ms_per_cycle']:>10.2f}"
              f"{row['updates_per_cycle']:>15.0f}")
    print("\nsolved: both ways for the first two rows, V1 -> V2 for the input -> output rows; "
          "cycles: median [lower quartile, upper quartile]\nover the runs that got there; held: solved runs with "
          f"four different codes after {hold} more cycles; hold ok: share of those cycles\nafter which a run was "
          "solved; s/run: mean training time per run (failures ran to the cap).")
    print("\nAckley, Hinton & Sejnowski (1985), sec. 4.1: 250/250 runs found four different codes, "
          "median 110 cycles, longest 1810.")
    print("Peterson & Anderson (1987), abstract: mean-field learning 10 to 30 times faster on XOR, encoder and "
          "line symmetry problems.\n")
    for sampled, deterministic in ((METHODS[0], METHODS[1]), (METHODS[2], METHODS[3])):
        a, m = results[sampled.name], results[deterministic.name]
        if not (a["solved"] and m["solved"]):
            print(f"no speed-up of {deterministic.name!r} over {sampled.name!r}: one of them never solved it "
                  f"(success {m['solved']}/{m['runs']} against {a['solved']}/{a['runs']})")
            continue
        time_ratio = (a["median_solved"] * a["ms_per_cycle"]) / (m["median_solved"] * m["ms_per_cycle"])
        update_ratio = (a["median_solved"] * a["updates_per_cycle"]) / (m["median_solved"] * m["updates_per_cycle"])
        print(f"speed-up of {deterministic.name!r} over {sampled.name!r} to the median solution: "
              f"{time_ratio:.1f}x in time, {update_ratio:.1f}x in unit updates "
              f"(success {m['solved']}/{m['runs']} against {a['solved']}/{a['runs']})")
    return results


if __name__ == "__main__":
    main()
