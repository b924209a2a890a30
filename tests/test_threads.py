"""bmlib's thin products run on one BLAS thread, and the caller's setting comes back afterwards."""
import warnings

import numpy as np
import pytest

import bmlib as bm
from bmlib import _threads

threadpoolctl = pytest.importorskip("threadpoolctl")


def _blas_threads():
    """Threads of NumPy's own BLAS: the one bmlib's products run on.

    Another BLAS loaded later in the same process (SciPy ships its own, pulled
    in by a test that imports scikit-learn) is not bmlib's concern.
    """
    return [i["num_threads"] for i in threadpoolctl.threadpool_info()
            if i["user_api"] == "blas" and "numpy" in i["filepath"]]


@pytest.fixture
def two_blas_threads():
    if not _blas_threads():
        pytest.skip("threadpoolctl finds no BLAS in this NumPy")
    with threadpoolctl.threadpool_limits(2, user_api="blas"):
        yield


def test_decorated_functions_run_on_one_blas_thread_and_restore(two_blas_threads):
    seen = []

    @_threads.thin_blas
    def outer():
        seen.append(_blas_threads())
        inner()
        seen.append(_blas_threads())

    @_threads.thin_blas
    def inner():
        seen.append(_blas_threads())

    before = _blas_threads()
    outer()
    assert all(threads == [1] * len(before) for threads in seen)
    assert _blas_threads() == before  # restored after the call


def test_restored_after_an_error(two_blas_threads):
    before = _blas_threads()
    with pytest.raises(ValueError):
        bm.log_partition(np.zeros((2, 3)))
    assert _blas_threads() == before


def test_public_hot_loops_are_wrapped():
    for func in (bm.log_partition, bm.exact_moments, bm.sample, bm.anneal, bm.log_z_ais, bm.train,
                 bm.RBM.log_partition, bm.compare_log_z):
        assert getattr(func, "__wrapped__", None) is not None, func.__qualname__


def test_results_do_not_depend_on_the_callers_thread_count(rng):
    # What bmlib promises: its own calls run on one BLAS thread, so the same call gives the
    # same bits whatever thread count the caller has set.
    W = np.triu(rng.normal(size=(14, 14)), 1)
    W = W + W.T
    with threadpoolctl.threadpool_limits(1, user_api="blas"):
        one = bm.exact_moments(W, T=0.7)
    with threadpoolctl.threadpool_limits(2, user_api="blas"):
        two = bm.exact_moments(W, T=0.7)
    assert all(np.array_equal(a, b) for a, b in zip(one, two))


def test_without_the_guard_results_agree_to_a_few_ulps(rng):
    # OpenBLAS does not promise the same sums on one and on two threads (its Haswell kernel
    # splits some products differently), so without bmlib's guard the results may differ in
    # the last bits, and no more: a few units in the last place of each moment's magnitude.
    W = np.triu(rng.normal(size=(14, 14)), 1)
    W = W + W.T
    one = bm.exact_moments(W, T=0.7)
    _threads.ENABLED = False
    try:
        with threadpoolctl.threadpool_limits(2, user_api="blas"):
            two = bm.exact_moments(W, T=0.7)
    finally:
        _threads.ENABLED = True
    for a, b in zip(one, two):
        np.testing.assert_allclose(a, b, rtol=0, atol=16 * np.finfo(float).eps * max(1.0, np.abs(a).max()))


_CONCURRENT = """
import threading, threadpoolctl, bmlib as bm
from bmlib import _threads
def blas():
    return [i["num_threads"] for i in threadpoolctl.threadpool_info()
            if i["user_api"] == "blas" and "numpy" in i["filepath"]]
before = blas()
# The order that lost the setting: A enters, B enters, A leaves, B leaves.
a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
@_threads.thin_blas
def a():
    a_in.set(); b_in.wait(30)
@_threads.thin_blas
def b():
    a_in.wait(30); b_in.set(); a_out.wait(30)
threads = [threading.Thread(target=a), threading.Thread(target=b)]
for t in threads: t.start()
threads[0].join(); a_out.set(); threads[1].join()
print(before, blas())
W = bm.square_lattice_couplings(4)
threads = [threading.Thread(target=bm.sample, kwargs=dict(W=W, T=2.5, n_samples=200, n_chains=4))
           for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print(before, blas())
"""


def test_concurrent_calls_restore_the_count_they_found():
    # The BLAS limit is process-wide. Python threads inside bmlib at once used to leave
    # OpenBLAS at one thread for the rest of the process: a call that entered while another
    # held the limit recorded "1" and put it back last. A fresh process with two BLAS threads,
    # where no limit was set before (as in a user's script).
    import os
    import subprocess
    import sys

    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"}
    out = subprocess.run([sys.executable, "-c", _CONCURRENT], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")[:2]
    if lines[0].startswith("[] "):
        pytest.skip("threadpoolctl finds no BLAS in this NumPy")
    assert lines == ["[2] [2]", "[2] [2]"], out.stdout


class _StubbornBlas:
    """A stand-in for threadpoolctl's controller whose BLAS ignores the first ``ignored`` limit calls."""

    def __init__(self, ignored):
        self.ignored, self.threads, self.calls = ignored, 1, 0

    def limit(self, limits):
        self.calls += 1
        if self.calls > self.ignored:
            self.threads = limits["libopenblas"]

    def info(self):
        return [{"prefix": "libopenblas", "num_threads": self.threads}]


def test_a_restore_the_blas_ignores_is_made_again_until_it_takes(monkeypatch):
    # OpenBLAS 0.3.31 sometimes ignores the call that raises the count right after concurrent
    # BLAS calls, and takes it a moment later: the restore checks and tries again.
    monkeypatch.setattr(_threads, "_RESTORE_RETRIES", (0.0,) * 5)
    blas = _StubbornBlas(ignored=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _threads._restore(blas, [{"prefix": "libopenblas", "num_threads": 2}])
    assert blas.threads == 2 and blas.calls == 4


def test_a_restore_that_never_takes_is_reported():
    blas = _StubbornBlas(ignored=100)
    with pytest.warns(RuntimeWarning, match=r"could not restore the BLAS thread count.*'libopenblas': 2"):
        _threads._restore(blas, [{"prefix": "libopenblas", "num_threads": 2}])
    assert blas.calls == 1 + len(_threads._RESTORE_RETRIES)
