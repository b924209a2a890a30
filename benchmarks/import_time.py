"""How long ``import bmlib`` takes, against ``import numpy``, each in a fresh interpreter.

bmlib loads Matplotlib, ipywidgets, PIL and tqdm only when a figure, a widget
or a progress bar is asked for, so a script or a grader that never draws pays
for NumPy and bmlib's own modules only; since 1.1 every public name loads on
first use, so ``import bmlib`` itself loads little beyond NumPy. The target
(issue 26) is ``import bmlib`` within 0.1 s of ``import numpy`` timed in the
same rounds; because absolute times move with the load of a shared machine,
the script also prints them as ratios to ``import numpy``.

Every case runs in its own ``python -c`` subprocess (nothing is cached in
``sys.modules``; the operating system's file cache is warm after the first
round, as it is for a student importing bmlib twice). The subprocess times its
own import statements with ``time.perf_counter``, so interpreter start-up,
which every case pays alike, is left out. The cases take turns, round after
round, and the median over the rounds is printed.

Cases:
  numpy                  import numpy
  bmlib                  import bmlib
  bmlib, first figure    import bmlib; bmlib.plot_energy_landscape(W, b)
  bmlib, first widget    import bmlib; bmlib.energy_widget(W, b)
  everything eagerly     import bmlib, then every public name, and tqdm: what
                         ``import bmlib`` cost before names were loaded on
                         first use

The script exits non-zero if ``import bmlib`` leaves Matplotlib, ipywidgets,
PIL or tqdm in ``sys.modules``.

Usage:  python benchmarks/import_time.py [--rounds N]     (default 7 rounds, about 30 s)
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

HEAVY = ("matplotlib", "ipywidgets", "PIL", "tqdm")

# Each snippet prints a JSON dict of named times in seconds; "total" is what
# the table reports, the others are its parts.
_TIMER = "import time, json, sys\nt0 = time.perf_counter()\n"
_MODEL = "W = [[0.0, 1.0, -1.0], [1.0, 0.0, 0.5], [-1.0, 0.5, 0.0]]; b = [0.5, 0.0, -0.5]\n"
CASES = {
    "numpy": _TIMER + "import numpy\nprint(json.dumps({'total': time.perf_counter() - t0}))",
    "bmlib": _TIMER + "import bmlib\n"
    "t1 = time.perf_counter()\n"
    f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
    "print(json.dumps({'total': t1 - t0, 'heavy': heavy}))",
    "bmlib, first figure": _TIMER + "import bmlib\nt1 = time.perf_counter()\n" + _MODEL
    + "bmlib.plot_energy_landscape(W, b)\n"
    "print(json.dumps({'total': time.perf_counter() - t0, 'import': t1 - t0}))",
    "bmlib, first widget": _TIMER + "import bmlib\nt1 = time.perf_counter()\n" + _MODEL
    + "bmlib.energy_widget(W, b)\n"
    "print(json.dumps({'total': time.perf_counter() - t0, 'import': t1 - t0}))",
    "everything eagerly": _TIMER + "import bmlib, tqdm.auto\n[getattr(bmlib, name) for name in bmlib.__all__]\n"
    "print(json.dumps({'total': time.perf_counter() - t0}))",
}


def run(code):
    # Agg: no window and no GUI toolkit import in the figure case.
    env = {**os.environ, "MPLBACKEND": "Agg"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="fresh subprocesses per case (median reported)")
    args = parser.parse_args()

    run(CASES["everything eagerly"])  # warm the file cache and the .pyc files once
    times = {name: [] for name in CASES}
    parts = {name: [] for name in CASES}
    heavy = set()
    for _ in range(args.rounds):
        for name, code in CASES.items():
            result = run(code)
            times[name].append(result["total"])
            if "import" in result:
                parts[name].append(result["import"])
            heavy.update(result.get("heavy", []))

    med = {name: statistics.median(ts) for name, ts in times.items()}
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores, median of {args.rounds} fresh subprocesses\n")
    print(f"{'case':<22} {'median s':>9} {'min s':>7} {'/ numpy':>8}")
    for name, ts in times.items():
        print(f"{name:<22} {med[name]:9.3f} {min(ts):7.3f} {med[name] / med['numpy']:8.2f}")
    for name in ("bmlib, first figure", "bmlib, first widget"):
        first_use = med[name] - statistics.median(parts[name])
        print(f"  of which the first {name.split()[-1]} itself: {first_use:.3f} s")
    over = med["bmlib"] - med["numpy"]
    verdict = "PASS" if over < 0.1 else "MISS"
    print(f"\nimport bmlib: {med['bmlib']:.3f} s = import numpy + {over:.3f} s = {med['bmlib'] / med['numpy']:.2f} x "
          f"(target: within 0.1 s of numpy: {verdict}); loading everything eagerly: "
          f"{med['everything eagerly']:.3f} s")
    print(f"Matplotlib, ipywidgets, PIL, tqdm loaded by import bmlib: {sorted(heavy) or 'none'}")
    return 1 if heavy else 0


if __name__ == "__main__":
    sys.exit(main())
