"""Shared test set-up: a headless plotting backend and small random models."""
import matplotlib

matplotlib.use("Agg")

import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


#: Lines the JupyterLab test measures (run-all time, redraw latency), printed after the run.
TIMINGS = []


def pytest_terminal_summary(terminalreporter):
    if TIMINGS:
        terminalreporter.section("measured in JupyterLab (not asserted)")
        for line in TIMINGS:
            terminalreporter.write_line(line)
        folder = ROOT / "_build" / "screenshots"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "jupyterlab-timings.txt").write_text("\n".join(TIMINGS) + "\n")


def random_model(n, rng, scale=1.0):
    """A random symmetric W with zero diagonal and a random b (both Gaussian)."""
    A = rng.normal(scale=scale, size=(n, n))
    W = np.triu(A, 1)
    return W + W.T, rng.normal(scale=scale, size=n)


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


@pytest.fixture(scope="session")
def built_book(tmp_path_factory):
    """Build the whole book once per test session, warnings as errors, and its PDF if Chromium is installed.

    The build result (return code and log) is kept so that the build test can
    report it, and the browser tests can skip cleanly if the build failed.
    """
    out = tmp_path_factory.mktemp("book")
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    result = subprocess.run(
        [str(jupyter_book), "build", str(ROOT), "--path-output", str(out), "--warningiserror", "--keep-going"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    html = out / "_build" / "html"
    built = {"returncode": result.returncode, "log": result.stdout[-4000:] + result.stderr[-4000:], "html": html}
    # Then the PDF, as the README's book command makes it (the preface links to it); without
    # Chromium the script says so and writes nothing, and tests/test_pdf.py skips.
    if result.returncode == 0:
        pdf = subprocess.run([sys.executable, str(ROOT / "tools" / "book_pdf.py"), str(html)],
                             capture_output=True, text=True, timeout=900)
        built["pdf"] = {"returncode": pdf.returncode, "log": pdf.stdout[-4000:] + pdf.stderr[-4000:]}
    return built
