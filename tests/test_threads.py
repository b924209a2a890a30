"""bmlib's thin products run on one BLAS thread, and the caller's setting comes back afterwards."""
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


def test_results_do_not_depend_on_the_thread_count(rng):
    W = np.triu(rng.normal(size=(14, 14)), 1)
    W = W + W.T
    one = bm.exact_moments(W, T=0.7)
    _threads.ENABLED = False
    try:
        with threadpoolctl.threadpool_limits(2, user_api="blas"):
            two = bm.exact_moments(W, T=0.7)
    finally:
        _threads.ENABLED = True
    assert all(np.array_equal(a, b) for a, b in zip(one, two))
