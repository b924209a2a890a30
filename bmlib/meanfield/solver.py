"""The mean-field equations and how they are solved, for naive mean field and TAP alike.

The objective ``Phi(m)`` (with TAP's second-order term), the entropy of
independent units, the exact per-unit update (``tanh(beta h_i)``, or for TAP
the single root of ``x = tanh(a - k x)`` found by Newton's method inside a
bracket), sequential and parallel sweeps with damping, the choice among
several starts, Plefka's convergence ratio and the linear-response
covariance. Everything here works in spins on checked arguments; the public
functions and their result are in :mod:`bmlib.meanfield.theories`, whose
docstring states the two theories and the solution method.
"""
from __future__ import annotations

import math

import numpy as np

from .._random import as_generator
from .._ties import first_best

#: Starting means of the "biased" starts: close to +-1, but not at it, so the
#: first sweep can still move every unit.
_BIASED_START = 0.9
#: Half-width of the "small random" start, near the high-temperature solution m = 0.
_SMALL_START = 0.01


def _kept_run(runs, ratios):
    """Index of the run to keep: converged first, then (TAP) inside Plefka's range, then the best objective.

    Within the best tier, objectives that tie to rounding (mirror-image
    solutions of a model without biases have the same objective in exact
    arithmetic) are decided by the order of the starts, never by the last bit
    of a computed value: see :mod:`bmlib._ties`.
    """
    tiers = [(bool(run[2]), not ratio >= 1.0) for run, ratio in zip(runs, ratios)]
    top = max(tiers)
    candidates = [k for k, tier in enumerate(tiers) if tier == top]
    return candidates[first_best([runs[k][1] for k in candidates])]


def _starts(n, initial, n_starts, rng):
    """Starting spin means, shape (k, n)."""
    if initial is not None:
        return initial.copy()
    gen = as_generator(rng)
    rows = [gen.uniform(-_SMALL_START, _SMALL_START, size=n), np.full(n, _BIASED_START), np.full(n, -_BIASED_START)]
    rows += [_BIASED_START * gen.choice([-1.0, 1.0], size=n) for _ in range(n_starts - len(rows))]
    return np.array(rows[:n_starts])


def _entropy(m):
    """Entropy of independent spins with means m (0 log 0 = 0 at m = +-1)."""
    total = 0.0
    for p in ((1.0 + m) / 2.0, (1.0 - m) / 2.0):
        safe = np.where(p > 0, p, 1.0)
        total -= np.sum(p * np.log(safe))
    return float(total)


#: TAP squares the couplings. Beyond this size W * W would overflow (while
#: beta W, all that matters, can be moderate), so there W is scaled down by a
#: power of two, exactly, and beta up by the same factor (_squared_couplings).
_SQUARE_LIMIT = 2.0**500


def _squared_couplings(W, beta):
    """Return ``(W2, beta2)`` with ``beta2 * W2 = beta**2 * W * W`` elementwise and neither overflowing.

    For ``max|W| <= _SQUARE_LIMIT`` this is ``(W * W, beta**2)`` itself.
    """
    top = float(np.abs(W).max(initial=0.0))
    if top <= _SQUARE_LIMIT:
        return W * W, beta**2
    c = 2.0 ** (int(np.frexp(top)[1]) - 1)  # top / c in [1, 2)
    scaled = W / c
    return scaled * scaled, (beta * c) ** 2


def _objective(m, W, b, beta, method):
    """Phi(m), the naive bound, plus the Onsager term for TAP."""
    phi = beta * (0.5 * m @ W @ m + b @ m) + _entropy(m)
    if method == "tap":
        v = 1.0 - m * m
        W2, beta2 = _squared_couplings(W, beta)
        phi += 0.25 * beta2 * v @ W2 @ v
    return float(phi)


def _unit_root(a, k, x):
    """The one root of ``x = tanh(a - k x)`` for ``k >= 0``, by Newton's method kept in a bracket.

    ``g(x) = x - tanh(a - k x)`` rises from ``g(-1) <= 0`` to ``g(1) >= 0``, with
    ``g' = 1 + k (1 - tanh^2) >= 1``. Plain Python floats: this runs once per
    unit per sweep, where NumPy's per-call overhead would dominate.
    """
    # A root at an end (tanh saturated to +-1 in floating point) is returned at
    # once; otherwise both ends are known not to be roots, and a Newton step
    # that does not land strictly inside the bracket is replaced by bisection.
    if 1.0 - math.tanh(a - k) == 0.0:
        return 1.0
    if -1.0 - math.tanh(a + k) == 0.0:
        return -1.0
    lo, hi = -1.0, 1.0
    dx = dx_old = 2.0
    for _ in range(200):
        t = math.tanh(a - k * x)
        g = x - t
        if g == 0.0:
            return x
        if g > 0.0:
            hi = x
        else:
            lo = x
        slope = 1.0 + k * (1.0 - t * t)
        step = g / slope
        if abs(step) <= 1e-15:  # a few units in the last place of |x| <= 1
            return x - step
        new = x - step
        # Bisect when Newton leaves the bracket or does not halve the step
        # before last (it can circle the inflection point of tanh slowly).
        if not lo < new < hi or abs(2.0 * step) > dx_old:
            new = 0.5 * (lo + hi)
        dx_old, dx = dx, abs(new - x)
        x = new
    return x


def _unit_roots(a, k, x):
    """:func:`_unit_root` for every unit at once (arrays)."""
    x = np.where(1.0 - np.tanh(a - k) == 0.0, 1.0, np.where(-1.0 - np.tanh(a + k) == 0.0, -1.0, x))
    lo, hi = -np.ones_like(x), np.ones_like(x)
    dx = dx_old = np.full_like(x, 2.0)
    for _ in range(200):
        t = np.tanh(a - k * x)
        g = x - t
        hi = np.where(g > 0, x, hi)
        lo = np.where(g < 0, x, lo)
        step = g / (1.0 + k * (1.0 - t * t))
        done = np.abs(step) <= 1e-15
        new = x - step
        newton_ok = (lo < new) & (new < hi) & (np.abs(2.0 * step) <= dx_old)
        new = np.where(done | newton_ok, new, 0.5 * (lo + hi))
        dx_old, dx = dx, np.abs(new - x)
        x = new
        if done.all():
            break
    return x


def _targets(m, W, W2, b, beta):
    """The undamped update of every unit given all the others; ``W2`` is None or ``_squared_couplings``."""
    a = beta * (W @ m + b)
    if W2 is None:
        return np.tanh(a)
    W2, beta2 = W2
    return _unit_roots(a, beta2 * (W2 @ (1.0 - m * m)), m)


def _sequential_sweep(m, W, W2, b, beta, free, damping):
    if W2 is not None:
        W2, beta2 = W2
    for i in free:
        a = beta * float(W[i] @ m + b[i])
        if W2 is None:
            x = math.tanh(a)
        else:
            # The reaction coefficient excludes j = i automatically: W2[i, i] = 0.
            x = _unit_root(a, beta2 * float(W2[i] @ (1.0 - m * m)), float(m[i]))
        m[i] = damping * m[i] + (1.0 - damping) * x


def _solve(m, W, b, beta, method, free, scan, damping, tol, max_iter):
    """One run from start m: (m, objective, converged, sweeps, residual)."""
    m = m.copy()
    W2 = _squared_couplings(W, beta) if method == "tap" else None
    target = _targets(m, W, W2, b, beta)
    residual = np.inf
    for sweep in range(1, max_iter + 1):
        if scan == "sequential":
            _sequential_sweep(m, W, W2, b, beta, free, damping)
        else:
            m[free] = damping * m[free] + (1.0 - damping) * target[free]
        target = _targets(m, W, W2, b, beta)
        residual = float(np.max(np.abs(target[free] - m[free]), initial=0.0))
        if residual <= tol:
            return m, _objective(m, W, b, beta, method), True, sweep, residual
    return m, _objective(m, W, b, beta, method), False, max_iter, residual


def _plefka_ratio(m, W, beta):
    """Largest eigenvalue of ``beta^2 W_ij^2 v_i v_j`` with ``v = 1 - m^2`` (TAP is trusted below 1)."""
    v = 1.0 - m * m
    if m.size == 0:
        return 0.0
    W2, beta2 = _squared_couplings(W, beta)
    return float(np.linalg.eigvalsh(beta2 * W2 * np.outer(v, v))[-1])


def _linear_response(m, W, beta, method, free):
    """Covariance of the free units, ``(D^{-1} + K)^{-1} = (I + D K)^{-1} D`` with ``D = diag(1 - m^2)``.

    The second form needs no division by ``1 - m^2``, so units saturated at
    ``m = +-1`` (zero variance) are harmless.
    """
    mf, Wf = m[free], W[np.ix_(free, free)]
    d = 1.0 - mf * mf
    K = -beta * Wf
    if method == "tap":
        W2, beta2 = _squared_couplings(W, beta)
        K = K + np.diag(beta2 * (W2[free] @ (1.0 - m * m))) - 2.0 * beta2 * W2[np.ix_(free, free)] * np.outer(mf, mf)
    A = np.eye(free.size) + d[:, None] * K
    try:
        C = np.linalg.solve(A, np.diag(d))
    except np.linalg.LinAlgError:
        raise ValueError(
            "linear_response is undefined here: the response matrix is singular (a critical point of the "
            "mean-field equations); use linear_response=False"
        ) from None
    return 0.5 * (C + C.T)
