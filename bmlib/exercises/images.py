"""Self-checks for the chapter "Learning real images": an RBM's free energy, a nearest-centroid classifier."""
from __future__ import annotations

import warnings

import numpy as np

from ._common import _SEED, _call, _fix, _real, fits_column

# --- the free energy of an RBM in bits ---------------------------------------------------------------


def _free_energy_cases():
    """(v, W, a, c): four small RBMs in bits, the last with fields over 1000 (overflow)."""
    rng = np.random.default_rng(_SEED + 21)
    cases = []
    for n_v, n_h, scale in ((4, 3, 1.0), (5, 2, 2.0), (3, 3, 1.0), (6, 4, 400.0)):
        W = rng.normal(0.0, scale, size=(n_v, n_h))
        a = rng.choice([-1.0, -0.5, 0.5, 1.0], size=n_v)
        c = rng.choice([-1.0, -0.5, 0.5, 1.0], size=n_h)
        v = rng.integers(0, 2, size=(5, n_v)).astype(float)
        v[0] = 1.0  # every visible unit on: the largest fields of the last case
        cases.append((v, W, a, c))
    return cases


def _free_energy(v, W, a, c):
    return -v @ a - np.logaddexp(0.0, v @ W + c).sum(axis=1)


_FREE_ENERGY_MISTAKES = [
    (lambda v, W, a, c: -v @ a + np.logaddexp(0.0, v @ W + c).sum(axis=1),
     "The hidden sum enters with the wrong sign: F(v) = -a.v - sum_j log(1 + exp(u_j)), with u = v @ W + c. "
     "Summing out h lowers the free energy."),
    (lambda v, W, a, c: -np.logaddexp(0.0, v @ W + c).sum(axis=1),
     "The visible biases are missing: F(v) = -a.v - sum_j log(1 + exp(u_j)). The term -a.v does not involve h, "
     "so it comes out of the sum over h unchanged."),
    (lambda v, W, a, c: -v @ a - np.logaddexp(0.0, v @ W).sum(axis=1),
     "The hidden biases are missing: the field on hidden unit j is u_j = sum_i v_i W[i, j] + c_j."),
    (lambda v, W, a, c: v @ a - np.logaddexp(0.0, v @ W + c).sum(axis=1),
     "The visible term has the wrong sign: E(v, h) contains -a.v, so F(v) does too."),
    (lambda v, W, a, c: -v @ a - np.log(2 * np.cosh(v @ W + c)).sum(axis=1),
     "You summed h_j over -1 and +1 (spins), which gives log(2 cosh u_j). Here h_j is a bit, 0 or 1: "
     "sum over h_j of exp(h_j u_j) = 1 + exp(u_j)."),
    (lambda v, W, a, c: -v @ a - np.maximum(0.0, v @ W + c).sum(axis=1),
     "You kept only the larger term of each hidden sum, max(0, u_j): that is the energy of the best h, not the "
     "free energy. The sum is log(1 + exp(u_j)) = np.logaddexp(0, u_j)."),
    (lambda v, W, a, c: -v @ a - np.log1p(np.exp(v @ W + c)).sum(axis=1),
     "Right formula, but exp(u_j) overflows to inf for the fields over 1000 in the last input. Compute "
     "log(1 + exp(u)) as np.logaddexp(0, u), which never overflows."),
]


@fits_column
def check_rbm_free_energy(func, *, hint=False):
    """Check ``func(v, W, a, c)``, the free energy of visible patterns of an RBM in bits at T = 1.

    ``F(v) = -a.v - sum_j log(1 + exp(u_j))`` with ``u = v @ W + c``: the
    hidden units summed out, so that ``p(v) = exp(-F(v)) / Z``. Compared with
    the exact value on four RBMs, the last with fields over 1000,
    where ``log(1 + exp(u))`` written as it reads overflows. On a mismatch the
    pattern of errors is compared with typical mistakes.

    Parameters
    ----------
    func : callable
        ``func(v, W, a, c)`` with ``v`` of shape (P, n_visible) in bits, ``W``
        of shape (n_visible, n_hidden), ``a`` and ``c`` the visible and hidden
        biases; returning shape (P,).
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool
        True if every input gives the right free energies (to 1e-8 relative).

    Notes
    -----
    Explained in the chapter "Learning real images".

    Examples
    --------
    >>> import numpy as np
    >>> def free_energy(v, W, a, c):
    ...     return -v @ a - np.logaddexp(0, v @ W + c).sum(axis=1)
    >>> bm.check_rbm_free_energy(free_energy)
    All 4 inputs give the right free energies (large fields too). Well done.
    True
    """
    cases = _free_energy_cases()
    for k, case in enumerate(cases):
        v, W, a, c = case
        with warnings.catch_warnings():  # the reader's overflow is diagnosed below, not warned about
            warnings.simplefilter("ignore", RuntimeWarning)
            result, error = _call(func, case, k)
        if error:
            print(error)
            return False
        try:
            got = _real(result)
        except (TypeError, ValueError):
            print(f"Input {k}: your function must return an array of numbers; got {type(result).__name__}.")
            return False
        expected = _free_energy(v, W, a, c)
        if got.shape != expected.shape:
            print(f"Input {k}: your function returned shape {got.shape}; expected ({len(v)},), one free energy "
                  "per pattern (sum over the hidden units with axis=1).")
            return False
        if np.allclose(got, expected, rtol=1e-8, atol=1e-8):
            continue
        print(f"Input {k} ({len(v)} patterns, {W.shape[0]} visible, {W.shape[1]} hidden): expected "
              f"F = {np.round(expected[:3], 4).tolist()}..., your function gave {np.round(got[:3], 4).tolist()}...")
        for mistake, text in _FREE_ENERGY_MISTAKES:
            with np.errstate(over="ignore"):
                guess = mistake(v, W, a, c)
            if np.allclose(got, guess, rtol=1e-8, atol=1e-8, equal_nan=True):
                _fix(text)
                break
        else:
            _fix("The result fits no typical mistake. F(v) = -a.v - sum_j log(1 + exp(u_j)) with u = v @ W + c.")
        return False
    print(f"All {len(cases)} inputs give the right free energies (large fields too). Well done.")
    return True


# --- the nearest-centroid classifier -----------------------------------------------------------------


def _centroid_cases():
    """(train_x, train_y, x): labels that are not 0, 1, 2, ... and clusters where 1-NN and centroids differ."""
    rng = np.random.default_rng(_SEED + 22)
    cases = []
    for labels, d in (((3, 5, 7), 2), ((1, 4), 3), ((0, 2, 9, 6), 4)):
        centres = rng.normal(0.0, 3.0, size=(len(labels), d))
        train_x = np.concatenate([c + rng.normal(0.0, 1.5, size=(12, d)) for c in centres])
        train_y = np.repeat(np.array(labels), 12)
        x = rng.normal(0.0, 3.0, size=(30, d))
        cases.append((train_x, train_y, x))
    return cases


def _centroid_labels(train_x, train_y, x):
    from ..learning.rbm.images import nearest_centroid_labels

    return nearest_centroid_labels(train_x, train_y, x)


def _nearest_neighbour(train_x, train_y, x):
    d = ((x[:, None, :] - train_x[None, :, :]) ** 2).sum(axis=2)
    return train_y[np.argmin(d, axis=1)]


def _centroid_index(train_x, train_y, x):
    classes = np.unique(train_y)
    centroids = np.array([train_x[train_y == k].mean(axis=0) for k in classes])
    return np.argmin(((x[:, None, :] - centroids[None]) ** 2).sum(axis=2), axis=1)


def _farthest(train_x, train_y, x):
    classes = np.unique(train_y)
    centroids = np.array([train_x[train_y == k].mean(axis=0) for k in classes])
    return classes[np.argmax(((x[:, None, :] - centroids[None]) ** 2).sum(axis=2), axis=1)]


def _largest_dot(train_x, train_y, x):
    classes = np.unique(train_y)
    centroids = np.array([train_x[train_y == k].mean(axis=0) for k in classes])
    return classes[np.argmax(x @ centroids.T, axis=1)]


_CENTROID_MISTAKES = [
    (_nearest_neighbour, "You returned the label of the nearest training EXAMPLE (1-nearest neighbour). The "
     "nearest-centroid rule first averages each class's examples into one centroid, then picks the nearest "
     "centroid."),
    (_centroid_index, "You returned the position of the nearest centroid (0, 1, 2, ...) rather than its class "
     "label: the labels here are not 0, 1, 2, ... Map the position back with classes[k], "
     "classes = np.unique(train_y)."),
    (_farthest, "You picked the FARTHEST centroid: use np.argmin of the distances, not np.argmax."),
    (_largest_dot, "You picked the centroid with the largest dot product x.c. That favours long centroids; the "
     "rule uses the distance |x - c|^2 = |x|^2 - 2 x.c + |c|^2, which also counts |c|^2."),
]


@fits_column
def check_nearest_centroid(func, *, hint=False):
    """Check ``func(train_x, train_y, x)``: the label of the nearest class mean for each row of ``x``.

    Compared with :func:`~bmlib.nearest_centroid_labels` on three sets of
    clusters in 2, 3 and 4 dimensions whose labels are not 0, 1, 2, ...
    (so a position is not a label). Typical mistakes are recognized: the
    nearest single example instead of the nearest mean, positions for
    labels, argmax for argmin, and the largest dot product.

    Parameters
    ----------
    func : callable
        ``func(train_x, train_y, x)`` with ``train_x`` of shape (P, d),
        ``train_y`` of shape (P,) (integer labels) and ``x`` of shape (Q, d);
        returning Q labels.
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool

    Notes
    -----
    Explained in the chapter "Learning real images".

    Examples
    --------
    >>> import numpy as np
    >>> def nearest(train_x, train_y, x):
    ...     classes = np.unique(train_y)
    ...     c = np.array([train_x[train_y == k].mean(axis=0) for k in classes])
    ...     d = ((x[:, None, :] - c[None, :, :]) ** 2).sum(axis=2)
    ...     return classes[np.argmin(d, axis=1)]
    >>> bm.check_nearest_centroid(nearest)
    All 3 inputs get the right labels (labels 3, 5, 7 and others). Well done.
    True
    """
    cases = _centroid_cases()
    for k, case in enumerate(cases):
        result, error = _call(func, case, k)
        if error:
            print(error)
            return False
        try:
            got = _real(result)
        except (TypeError, ValueError):
            print(f"Input {k}: your function must return an array of labels; got {type(result).__name__}.")
            return False
        expected = _centroid_labels(*case)
        if got.shape != expected.shape:
            print(f"Input {k}: your function returned shape {got.shape}; expected ({len(expected)},), one label "
                  "per row of x.")
            return False
        if np.array_equal(got, expected):
            continue
        wrong = int(np.sum(got != expected))
        print(f"Input {k} (labels {np.unique(case[1]).tolist()}, {case[0].shape[1]} dimensions): {wrong} of "
              f"{len(expected)} labels differ; the first expected {expected[:6].tolist()}, your function gave "
              f"{got[:6].astype(int).tolist()}")
        for mistake, text in _CENTROID_MISTAKES:
            if np.array_equal(got, mistake(*case)):
                _fix(text)
                break
        else:
            _fix("The result fits no typical mistake. Average each class's rows into a centroid, then give each "
                 "row of x the label of the nearest centroid (smallest squared distance).")
        return False
    print(f"All {len(cases)} inputs get the right labels (labels 3, 5, 7 and others). Well done.")
    return True
