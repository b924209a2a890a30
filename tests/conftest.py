"""Shared test set-up: a headless plotting backend, small random models, and the chapters' pictures compared.

nbval leaves PNG outputs out of its comparison, because pictures differ
between machines; a figure that no longer matches the library would then pass
unnoticed. ``tools/store_outputs.py`` records a fingerprint of what the pixels
depend on in each chapter's metadata (``tools/figure_environment.py``). Where
the running machine has the same fingerprint, as the machine the chapters are
stored on does, every PNG must be the same byte for byte; where it differs
(another machine, or the perturbed runs of ``tests/test_any_machine.py``), the
pictures are left out as before. The hook is here, not in a ``book/conftest.py``:
two ``conftest`` modules would shadow each other for ``from conftest import``.
It acts on a run that collects chapters beside ``tests/`` (``pytest tests
book/energy.ipynb``). The default run does not collect them: its unperturbed
re-execution of every chapter is "Run All" in ``tests/test_jupyterlab.py``,
which applies the same rule to the pictures it gets.
"""
import matplotlib

matplotlib.use("Agg")

import importlib.util  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _fingerprint():
    """tools/figure_environment.py's fingerprint, loaded by its file (tools/ is scripts, not a package)."""
    spec = importlib.util.spec_from_file_location("tools_figure_environment", ROOT / "tools" / "figure_environment.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.fingerprint()


#: The one test file that is a long serial chain: a single nbval process re-executes every chapter and its
#: exercise solutions under perturbed floating point, about six minutes on one core.
SERIAL_FIRST = "test_any_machine.py"


def pytest_configure(config):
    # pytest-xdist's --dist loadfile hands out the files with the most tests first. That starts the
    # two-test SERIAL_FIRST last, so a 2-core CI ended with it alone on one core and the other core
    # idle (measured with vmstat: the last 3 of 18 minutes). The order is set in
    # pytest_collection_modifyitems instead.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def _serial_file_first(items):
    """The items of SERIAL_FIRST first, then every other file in xdist's own order (most tests first)."""
    by_file = {}
    for item in items:
        by_file.setdefault(item.nodeid.split("::")[0], []).append(item)
    order = sorted(by_file, key=lambda name: (not name.endswith(SERIAL_FIRST), -len(by_file[name])))
    return [item for name in order for item in by_file[name]]


def pytest_collection_modifyitems(session, config, items):
    items[:] = _serial_file_first(items)
    here = None
    for notebook in {item.parent for item in items if hasattr(item.parent, "skip_compare")}:
        nb = getattr(notebook, "nb", None)
        stored = (nb.metadata.get("bmlib", {}) if nb is not None else {}).get("figure_environment")
        if stored is None:
            continue
        here = here or _fingerprint()
        if stored == here:
            notebook.skip_compare = tuple(k for k in notebook.skip_compare if k != "image/png")


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (the README's test command): one worker more than this process may use cores.

    Several tests spend minutes waiting rather than computing: on a subprocess
    (the perturbed re-execution of every chapter, the book's build, nbgrader),
    on a lock (the browser tests wait while another worker builds the book) or
    on JupyterLab and Chromium. With one worker per core a waiting worker leaves
    its core idle (CI on 2 cores used about half of the machine's time); one
    more worker fills that time. Memory is no concern (a worker with Chromium or
    JupyterLab takes well under 2 GB).
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return cores + 1


#: Lines the JupyterLab test measures (run-all time, redraw latency), not asserted. They are
#: written to a file as they come (under pytest-xdist the test runs in a worker process, whose
#: list the main process never sees) and printed after the run from that file.
TIMINGS = []
TIMINGS_FILE = ROOT / "_build" / "screenshots" / "jupyterlab-timings.txt"


def record_timing(line):
    TIMINGS.append(line)
    TIMINGS_FILE.parent.mkdir(parents=True, exist_ok=True)
    TIMINGS_FILE.write_text("\n".join(TIMINGS) + "\n")


def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):  # the main process: forget the last run's lines
        TIMINGS_FILE.unlink(missing_ok=True)


def pytest_terminal_summary(terminalreporter):
    if TIMINGS_FILE.exists():
        terminalreporter.section("measured in JupyterLab (not asserted)")
        for line in TIMINGS_FILE.read_text().splitlines():
            terminalreporter.write_line(line)


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every pyplot figure after each test (a test that never drew leaves pyplot unimported)."""
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


#: Longest summary (alt text) the figure-word tests accept: one or two sentences.
MAX_SUMMARY = 400


def described(fig, max_summary=MAX_SUMMARY):
    """The figure's own description, checked to be written by its drawing function (not the fallback)."""
    from bmlib.plotting.words import FALLBACK_OPENING

    words = fig.description
    assert words is not None, "the drawing function did not describe the figure"
    assert not words.summary.startswith(FALLBACK_OPENING)
    assert 0 < len(words.summary) <= max_summary, (len(words.summary), words.summary)
    return words


def random_model(n, rng, scale=1.0):
    """A random symmetric W with zero diagonal and a random b (both Gaussian)."""
    A = rng.normal(scale=scale, size=(n, n))
    W = np.triu(A, 1)
    return W + W.T, rng.normal(scale=scale, size=n)


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


def _build_book(out):
    """Build the book into ``out`` with warnings as errors, then its PDF; the results as a dict."""
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    result = subprocess.run(
        [str(jupyter_book), "build", str(ROOT), "--path-output", str(out), "--warningiserror", "--keep-going"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    html = out / "_build" / "html"
    built = {"returncode": result.returncode, "log": result.stdout[-4000:] + result.stderr[-4000:], "html": str(html)}
    # Then the PDF, as the README's book command makes it (the preface links to it); without
    # Chromium the script says so and writes nothing, and tests/test_pdf.py skips.
    if result.returncode == 0:
        pdf = subprocess.run([sys.executable, str(ROOT / "tools" / "book_pdf.py"), str(html)],
                             capture_output=True, text=True, timeout=900)
        built["pdf"] = {"returncode": pdf.returncode, "log": pdf.stdout[-4000:] + pdf.stderr[-4000:]}
    return built


@pytest.fixture(scope="session")
def built_book(tmp_path_factory):
    """Build the whole book once per test session, warnings as errors, and its PDF if Chromium is installed.

    The build result (return code and log) is kept so that the build test can
    report it, and the browser tests can skip cleanly if the build failed.

    Under pytest-xdist (the README's command runs the tests on every core, one
    test file per worker at a time) several workers may ask for the book. The
    first one builds it into the session's shared temporary folder while holding
    a lock; the others wait for the lock and read what it left, so the book is
    built once per session whatever the order.
    """
    import fcntl
    import json

    worker = os.environ.get("PYTEST_XDIST_WORKER")
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if worker else base  # xdist: .../pytest-N/popen-gwK -> .../pytest-N, this session's
    out, done = shared / "built-book", shared / "built-book.json"
    with open(shared / "built-book.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not done.exists():
                out.mkdir(exist_ok=True)
                done.write_text(json.dumps(_build_book(out)))
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    built = json.loads(done.read_text())
    built["html"] = Path(built["html"])
    return built
