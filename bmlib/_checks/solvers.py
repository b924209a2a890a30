"""For the iterative solvers and log Z estimators (bmlib/meanfield/ and bmlib/partition/).

Their two warnings, and the checks of a damping factor and of mean activities.
"""
from __future__ import annotations

import numpy as np

from .arrays import _as_real_array, _check_finite
from .scalars import check_real
from .states import LEVELS


class ConvergenceWarning(RuntimeWarning, UserWarning):
    """A result that has not converged: an iterative method, or Markov chains that have not mixed.

    An iterative method stopped at its iteration limit before meeting its
    tolerance: its result is still returned, with ``converged=False``. Or
    Monte Carlo chains fail the R-hat or effective-sample-size checks of
    :func:`bmlib.estimate`: the error bar is returned but cannot be trusted.
    Turn the warning into an error with
    ``warnings.simplefilter("error", bmlib.ConvergenceWarning)``.
    """


class ApproximationWarning(RuntimeWarning):
    """An approximation was used where its own validity condition fails (e.g. TAP below its range).

    The result is still returned, with the condition's value in it.
    """


def check_damping(value, name="damping"):
    """Return ``value`` as a float in ``[0, 1)``: the fraction of the old value an update keeps."""
    value = check_real(value, name)
    if not 0.0 <= value < 1.0:
        raise ValueError(f"{name} must be in [0, 1) (the fraction of the old value kept by each update); got {value!r}")
    return value


def check_means(m, n, units, name):
    """Return mean activities of shape ``(n,)`` or ``(k, n)`` as a ``(k, n)`` float array.

    The rule: finite, in [-1, 1] for spins (``<s_i>``) or [0, 1] for bits (``<x_i>``).
    """
    arr = _as_real_array(m, name)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != n or arr.shape[0] == 0:
        raise ValueError(f"{name} must have shape ({n},) or (k, {n}) with k >= 1; got shape {np.shape(m)}")
    _check_finite(arr, name)
    low = LEVELS[units][0]
    bad = np.argwhere((arr < low) | (arr > 1.0))
    if bad.size:
        k, i = (int(j) for j in bad[0])
        raise ValueError(
            f"{name} must lie in [{low:g}, 1] because units={units!r}; {name}[{k}, {i}] = {arr[k, i]:.6g}"
        )
    return arr
