"""Run bmlib's thin matrix products on one BLAS thread.

bmlib's hot loops multiply many small or thin matrices: a block of states by
``W`` in exact enumeration, a few hundred chains by one row of ``W`` per
Gibbs step, a handful of replicas per AIS step. Splitting such a product over
BLAS threads gains nothing, and on a busy machine (two cores, another process
on one of them) the threads wait for each other: the exact ``log Z`` of 24
units took 2-8 times longer with OpenBLAS's two threads than with one, and an
RBM AIS run 35 times longer (``benchmarks/blas_threads.py`` measures it).

:func:`thin_blas` wraps a public function so that its body runs with the BLAS
limited to one thread (threadpoolctl, set and restored around the call, about
10 microseconds). Nested calls do not set it again, and calls from several
Python threads at once share one limit, restored when the last of them
ends. Results do not depend on it: OpenBLAS splits a product by output blocks, so every entry is summed in
the same order either way (the chapters are re-executed under both in
``tests/test_any_machine.py``).

Without threadpoolctl (a browser kernel, say) the functions run unchanged.
"""
from __future__ import annotations

import functools
import threading
import time
import warnings

_state = threading.local()
_controller = None
#: Set to False to run with the BLAS's own thread count (the benchmark's reference).
ENABLED = True


def _blas_controller():
    """threadpoolctl's controller for the loaded BLAS, made once (it scans the loaded libraries)."""
    global _controller
    if _controller is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - threadpoolctl is a dependency; tolerate its absence
            _controller = False
        else:
            _controller = ThreadpoolController().select(user_api="blas")
    return _controller


def thin_blas(func):
    """Decorator: run ``func`` with the BLAS on one thread (once, at the outermost call).

    The BLAS thread count is a setting of the whole process, while calls may
    come from several Python threads at once. So the limit is shared: the
    first call to enter records the count it finds and sets one thread, and
    the last call to leave puts the recorded count back. (Each call limiting
    and restoring on its own would let a call that entered while another held
    the limit "restore" one thread, for the rest of the process.)

    Examples
    --------
    >>> import numpy as np
    >>> from bmlib._threads import thin_blas
    >>> @thin_blas
    ... def trace_of_square(A):
    ...     return float(np.trace(A @ A))
    >>> trace_of_square(np.eye(3))
    3.0
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if getattr(_state, "inside", False) or not ENABLED:
            return func(*args, **kwargs)
        controller = _blas_controller()
        if not controller:
            return func(*args, **kwargs)
        _state.inside = True
        _enter(controller)
        try:
            return func(*args, **kwargs)
        finally:
            _leave(controller)
            _state.inside = False

    return wrapper


# How many calls are inside a thin_blas function right now, over all Python threads,
# and the BLAS setting the first of them found; both guarded by _lock.
_lock = threading.Lock()
_active = 0
_found = None


def _enter(controller):
    global _active, _found
    with _lock:
        if _active == 0:
            _found = controller.info()
            controller.limit(limits=1)
        _active += 1


#: Pauses before each renewed attempt to restore the count (seconds), see _leave.
_RESTORE_RETRIES = (0.001, 0.004, 0.016, 0.064, 0.256)


def _leave(controller):
    global _active, _found
    with _lock:
        _active -= 1
        if _active == 0:
            _restore(controller, _found)
            _found = None


def _restore(controller, found):
    """Put each BLAS library back to the count it had, and check that it took.

    threadpoolctl's limit() takes a {prefix: threads} mapping, as its own restore
    does. The check is needed: right after several Python threads have run BLAS
    calls, OpenBLAS 0.3.31 was seen to ignore the call that raises the count
    again (2 runs in 60 of tests/test_threads.py's concurrent case on a loaded
    machine), leaving one thread for the rest of the process; the same call
    took 2 ms later. If it never takes, the caller is told.
    """
    want = {lib["prefix"]: lib["num_threads"] for lib in found}
    for pause in (0.0, *_RESTORE_RETRIES):
        time.sleep(pause)
        controller.limit(limits=want)
        now = {lib["prefix"]: lib["num_threads"] for lib in controller.info()}
        if all(now.get(prefix) == threads for prefix, threads in want.items()):
            return
    warnings.warn(f"bmlib could not restore the BLAS thread count after its call: {want} wanted, {now} set; "
                  "set it again with threadpoolctl.threadpool_limits if it matters", RuntimeWarning, stacklevel=4)
