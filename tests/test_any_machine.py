"""Every chapter gives the page the reader saw, on any machine.

The stored outputs were made on one CPU. Another machine rounds differently:
its BLAS uses another kernel (OpenBLAS picks one per CPU), another number of
threads, and NumPy dispatches other SIMD loops. A printed number that depends
on the last bit of a float (a tie decided by rounding, a value at a rounding
boundary, a chaotic trajectory) then changes, and nbval fails there but not
here. This test re-executes every chapter under nbval with floating point
perturbed in those ways *on this machine* and requires the stored outputs all
the same; each chapter is followed by the code of its exercise solutions,
compared with the outputs recorded for them (tools/solutions.py). It is the test suite's nbval run of the chapters: the unperturbed
re-execution is JupyterLab's "Run All" in tests/test_jupyterlab.py, which
compares its outputs with the stored ones too. Where no perturbation can be
applied, the chapters are re-executed here unperturbed, with a warning, so
that nbval still compares every chapter on a machine without Chromium.
The perturbed runs are independent processes and run side by side.

The library's docstrings and numerical tests run once more too, on one BLAS
thread with the other OpenBLAS kernel: two tests that asserted the last bit
of a BLAS sum passed here and failed on a machine whose OpenBLAS runs the
Haswell kernel, so a test that depends on this machine's rounding must fail
here first.

Each perturbation first checks in a child process that it took effect (the
BLAS kernel and thread count reported by threadpoolctl, NumPy's dispatched
features); one that cannot be applied here is skipped with the reason.
"""
import json
import os
import platform
import subprocess
import sys
import warnings
from pathlib import Path

import nbformat
import pytest
from test_book import load

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted(str(p) for p in (ROOT / "book").glob("*.ipynb"))

_PROBE = """
import json, numpy, threadpoolctl
from numpy._core import _multiarray_umath as umath
blas = [i for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
print(json.dumps({
    "blas": [(i["internal_api"], i.get("architecture"), i["num_threads"]) for i in blas],
    "found": [f for f in umath.__cpu_dispatch__ if umath.__cpu_features__.get(f)],
}))
"""


def _probe(env):
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _environment(**changes):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS_", "NPY_DISABLE", "NPY_ENABLE"))}
    env.update(changes)
    return env


BASE = _probe(_environment())
OPENBLAS = [b for b in BASE["blas"] if b[0] == "openblas"]
# OpenBLAS kernels: a generic one every CPU of the architecture runs, and a newer one (AVX2 on x86).
_GENERIC, _NEWER = {"x86_64": ("Nehalem", "Haswell"), "aarch64": ("ARMV8", "NEOVERSEN1")}.get(
    platform.machine(), (None, None))


def _has_avx2():
    try:
        return " avx2" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


def _perturbations():
    """One re-execution of every chapter, changing everything that can change at once.

    The other OpenBLAS thread count, the generic OpenBLAS kernel (where this CPU runs
    another) and NumPy's SIMD loops limited to its baseline. Each change alone was once
    a run of its own (three, then two in all); a printed number that hangs on the last
    bit moves under any one of them, so one run with all of them finds the same faults
    for a third of the CI time. The newer OpenBLAS kernel (Haswell) is what the library
    tests below run with, so both kernels other than this CPU's are exercised.
    """
    threads = OPENBLAS[0][2] if OPENBLAS else 1
    other = "1" if threads > 1 else "4"  # one thread where there are several, else several
    changes = {"OPENBLAS_NUM_THREADS": other, "OMP_NUM_THREADS": other}
    kernel = _GENERIC
    if OPENBLAS and kernel == OPENBLAS[0][1]:  # already this CPU's kernel: the newer one is the other
        kernel = _NEWER if _NEWER and (_NEWER != "Haswell" or _has_avx2()) else None
    if kernel:
        changes["OPENBLAS_CORETYPE"] = kernel
    name = f"blas-threads-{other}" + (f"-openblas-{kernel}" if kernel else "")
    if BASE["found"]:
        changes["NPY_DISABLE_CPU_FEATURES"] = ",".join(BASE["found"])
        name += "-numpy-baseline-simd"
    return [pytest.param(changes, id=name)]


def _took_effect(changes, probe):
    """Reasons why ``changes`` did not take effect in the child (empty if they did)."""
    problems = []
    blas = [b for b in probe["blas"] if b[0] == "openblas"]
    if "OPENBLAS_NUM_THREADS" in changes or "OPENBLAS_CORETYPE" in changes:
        if not blas:
            return ["NumPy's BLAS is not OpenBLAS here"]
    if "OPENBLAS_NUM_THREADS" in changes and blas[0][2] != int(changes["OPENBLAS_NUM_THREADS"]):
        problems.append(f"OpenBLAS runs {blas[0][2]} threads, not {changes['OPENBLAS_NUM_THREADS']}")
    # OpenBLAS may report a related name (Prescott runs as "Katmai"): what counts is another kernel.
    if "OPENBLAS_CORETYPE" in changes and blas[0][1] == OPENBLAS[0][1]:
        problems.append(f"OPENBLAS_CORETYPE={changes['OPENBLAS_CORETYPE']} still runs this CPU's kernel {blas[0][1]}")
    if "NPY_DISABLE_CPU_FEATURES" in changes and probe["found"]:
        problems.append(f"NumPy still dispatches {probe['found']}")
    return problems


def _chapters_with_solutions(folder):
    """Each chapter with its solutions' code appended, their recorded outputs as the stored ones.

    The solutions run after the chapter, as a reader runs them, and nbval compares what they print
    with what tools/store_outputs.py recorded, so a solution's quoted numbers cannot go stale.
    """
    solutions = load("tools/solutions.py", "tools_solutions")
    paths = []
    for chapter in CHAPTERS:
        target = folder / Path(chapter).name
        nbformat.write(solutions.with_solutions(nbformat.read(chapter, as_version=4)), target)
        paths.append(str(target))
    return paths


def _key(changes):
    return json.dumps(changes, sort_keys=True)


#: The library tests of the perturbed run: bmlib's docstrings (every number they print) and the tests that
#: compare results with exact values to a tight tolerance or across runs, where a last-bit assert would hide.
#: A chosen list, not all of tests/: the whole library suite again would add minutes to CI for tests that
#: check refusals, figures' layout, files and imports, which do not depend on rounding.
_NUMERICAL_TESTS = ("test_threads.py", "test_extremes.py", "test_exact.py", "test_ising_exact.py",
                    "test_training_defaults.py", "test_learning.py", "test_chain_step.py", "test_free_energy.py",
                    "test_partition.py", "test_meanfield.py", "test_ties.py", "test_rbm.py", "test_convergence.py",
                    "test_sampling.py")


def _library_perturbation():
    """One thread and the other OpenBLAS kernel at once, for the library tests."""
    kernel = _NEWER if _NEWER and (_NEWER != "Haswell" or _has_avx2()) else _GENERIC
    changes = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    if kernel:
        changes["OPENBLAS_CORETYPE"] = kernel
    return changes


def _library_command():
    tests = [f"tests/{name}" for name in _NUMERICAL_TESTS]
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "--doctest-modules",
            "-m", "not slow and not build", "bmlib", *tests]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every perturbation's re-execution, started at once: they are independent, and on a machine
    with two or more cores running them side by side takes about half the time of one after the other."""
    started = {}
    chapters = _chapters_with_solutions(tmp_path_factory.mktemp("chapters_with_solutions"))
    for param in _perturbations():
        changes = param.values[0]
        env = _environment(**changes)
        problems = _took_effect(changes, _probe(env))
        if problems:  # nbval still runs every chapter, in this environment as it is
            env = _environment()
        # One process for every chapter: two side by side overloaded a 2-core machine (CI 2 minutes slower).
        log = tmp_path_factory.mktemp("any_machine") / "pytest.log"
        with open(log, "w") as out:  # a file, not a pipe: a full pipe would stall a run we are not reading yet
            process = subprocess.Popen(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                 "--nbval", "--nbval-current-env", *chapters],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, text=True,
            )
        started[_key(changes)] = (problems, process, log)
    changes = _library_perturbation()
    env = _environment(**changes)
    problems = _took_effect(changes, _probe(env))
    log = tmp_path_factory.mktemp("any_machine_library") / "pytest.log"
    process = None
    if not problems:
        with open(log, "w") as out:
            process = subprocess.Popen(_library_command(), cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                       text=True)
    started["library"] = (problems, process, log)
    yield started
    for _, process, _ in started.values():
        if process is not None and process.poll() is None:
            process.kill()


def _require_passed(run, what, unperturbed_ok=False):
    """Wait for one perturbed run; fail with its summary if it failed.

    A perturbation that cannot be made here skips the run, or, with ``unperturbed_ok``, the run
    was made without it: then it must pass all the same, and a warning says what was not checked.
    """
    problems, process, log = run
    if problems and not unperturbed_ok:
        pytest.skip("perturbation not possible on this machine: " + "; ".join(problems))
    if problems:
        warnings.warn("perturbation not possible on this machine, chapters re-executed without it: "
                      + "; ".join(problems))
    returncode = process.wait(timeout=1800)
    stdout = log.read_text()
    summary = "\n".join(line for line in stdout.splitlines() if line.startswith(("FAILED", "ERROR")))
    # The failures' tracebacks, not the tail of the log: the tail is mostly the warnings summary.
    start = stdout.find("= FAILURES =")
    detail = stdout[start:start + 6000] if start >= 0 else stdout[-6000:]
    assert returncode == 0, f"{what}:\n{summary}\n\n{detail}"


@pytest.mark.slow
@pytest.mark.parametrize("changes", _perturbations())
def test_chapters_match_their_stored_outputs_with_perturbed_floating_point(changes, runs):
    _require_passed(runs[_key(changes)], f"with {changes} the chapters' outputs differ from the stored ones",
                    unperturbed_ok=True)


@pytest.mark.slow
def test_library_tests_pass_with_perturbed_floating_point(runs):
    _require_passed(runs["library"], f"with {_library_perturbation()} the library tests fail")
