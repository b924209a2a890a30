"""Self-check for a from-scratch CD-1 update of an RBM (chapter "Restricted Boltzmann machines")."""
from __future__ import annotations

import numpy as np

from .._numerics import sigmoid as _sigmoid
from ..models.states import all_states
from ._common import _SEED, _call, _clean, _fix, _real, _shape, fits_column

# --- one CD-1 step of an RBM in bits, checked in expectation (chapter "Restricted Boltzmann machines") ---

_CD_CALLS = 2000  # calls per case: the mean change of every parameter has a standard error near 0.002 lr
_CD_Z = 5.0  # every parameter's mean change must lie within this many standard errors of the exact one


def _cd_cases():
    """(W, a, c, batch, lr) for RBMs in bits at T = 1: 4 x 3 and 3 x 4, weights of order 1."""
    rng = np.random.default_rng(_SEED + 51)
    cases = []
    for n_v, n_h, lr in ((4, 3, 0.1), (3, 4, 0.05)):
        W = rng.integers(-4, 5, size=(n_v, n_h)) / 2
        b = rng.choice([-1.0, -0.5, 0.5, 1.0], size=n_v)
        c = rng.choice([-1.0, -0.5, 0.5, 1.0], size=n_h)
        batch = rng.integers(0, 2, size=(5, n_v)).astype(float)
        cases.append((W, b, c, batch, lr))
    return cases


def _bernoulli(states, p):
    """Probability of each row of ``states`` (bits) under independent units with p(1) = ``p``, per row of p."""
    return np.prod(np.where(states[None, :, :] > 0, p[:, None, :], 1 - p[:, None, :]), axis=2)


def _cd1_mean(W, b, c, batch, variant="right"):
    """The exact expected CD-1 update divided by the learning rate, (dW, db, dc), or that of a wrong variant.

    ``right``: h0 ~ p(h | v0), v1 ~ p(v | h0); statistics v h^T with the hidden
    probabilities (using samples of h instead has the same expectation).
    ``v1 means``: v1 = p(v = 1 | h0), probabilities instead of a sample.
    ``h0 means``: v1 ~ p(v | p(h | v0)), the hidden probabilities fed down unsampled.
    ``no c`` / ``no b``: the hidden / visible biases left out of the conditionals.
    """
    c_up = np.zeros_like(c) if variant == "no c" else c
    b_down = np.zeros_like(b) if variant == "no b" else b
    H = all_states(W.shape[1], "bits").astype(float)
    V = all_states(W.shape[0], "bits").astype(float)
    ph0 = _sigmoid(batch @ W + c_up)  # (P, n_h)
    if variant == "h0 means":
        pv = _sigmoid(ph0 @ W.T + b_down)  # (P, n_v)
        weights = _bernoulli(V, pv)  # (P, 2**n_v): p(v1 | v0)
    else:
        p_h = _bernoulli(H, ph0)  # (P, 2**n_h): p(h0 | v0)
        pv = _sigmoid(H @ W.T + b_down)  # (2**n_h, n_v)
        if variant == "v1 means":
            V, weights = pv, p_h  # v1 is the probability vector itself, one per h0
        else:
            weights = p_h @ _bernoulli(V, pv)  # (P, 2**n_v)
    ph1 = _sigmoid(V @ W + c_up)
    w = weights.mean(axis=0)  # the negative phase's distribution over v1, averaged over the batch
    dW = batch.T @ ph0 / len(batch) - (V * w[:, None]).T @ ph1
    return dW, batch.mean(axis=0) - w @ V, ph0.mean(axis=0) - w @ ph1


def _returned(case, variant="right", how="right"):
    """What a draft returns on average: the parameters after the step, in ``variant`` and ``how``."""
    W, b, c, batch, lr = case
    step = _cd1_mean(W, b, c, batch, variant)
    scale = {"right": lr, "reversed": -lr, "summed": lr * len(batch), "no lr": 1.0, "none": 0.0}.get(how, lr)
    new = [p + scale * d for p, d in zip((W, b, c), step)]
    if how == "step only":
        new = [lr * d for d in step]
    if how == "weights only":
        new = [new[0], b, c]
    return new


_CD_VARIANTS = {
    "v1 means": "Your negative phase uses the probabilities p(v = 1 | h0) as v1, not a sample of them. That is "
                "a common shortcut, but a different update: this exercise asks for CD-1 as defined, with v1 "
                "drawn from p(v | h0) (v1 = (rng.random(shape) < p).astype(float)).",
    "h0 means": "You computed p(v | h) from the hidden PROBABILITIES p(h | v0). CD-1 draws a binary h0 first "
                "(h0 = (rng.random(shape) < p_h0).astype(float)) and computes p(v | h0) from that sample; "
                "feeding probabilities down is a different update.",
    "no c": "The hidden biases c are missing from p(h_j = 1 | v) = 1 / (1 + exp(-(v @ W + c)_j)).",
    "no b": "The visible biases a are missing from p(v_i = 1 | h) = 1 / (1 + exp(-(W @ h + a)_i)).",
}
_CD_HOW = {
    "reversed": "Your step goes the wrong way: CD-1 adds lr times (data statistics - reconstruction "
                "statistics), <v h>_0 - <v h>_1, not the reverse.",
    "summed": "Your step is as many times too large as there are patterns in the batch: average the "
              "statistics over the batch (divide by len(batch)), do not sum them.",
    "no lr": "The learning rate is missing: the step is lr times the statistics' difference.",
    "none": "Your parameters do not change on average: the negative phase must use the reconstruction v1 "
            "(and p(h | v1)), not the data v0 again.",
    "step only": "You returned the step lr * (<v h>_0 - <v h>_1) itself; return the new parameters, W + step "
                 "(and the same for a and c).",
    "weights only": "Your W is right but a and c do not change: the biases learn too, a += lr * (v0 - v1) and "
                    "c += lr * (p(h | v0) - p(h | v1)), averaged over the batch.",
}


def _cd_calls(func, case, k):
    """Call the reader's update ``_CD_CALLS`` times; return ((W, a, c) arrays of shape (calls, ...), None)."""
    W, b, c, batch, lr = case
    rng = np.random.default_rng(_SEED + 60 + k)
    out = [[], [], []]
    for _ in range(_CD_CALLS):
        value, error = _call(func, (W, b, c, batch, lr, rng), k)
        if error:
            return None, error
        try:
            parts = [_real(p) for p in value]
            if len(parts) != 3:
                raise ValueError
        except (TypeError, ValueError):
            return None, f"Input {k}: your function must return three arrays, the new (W, a, c); got {value!r:.60}."
        for name, got, want, store in zip("Wac", parts, (W, b, c), out):
            if got.shape != want.shape:
                return None, (f"Input {k}: your function returned {name} of shape {_shape(got)}; expected "
                              f"{want.shape} (W is (n_visible, n_hidden) = {W.shape}).")
            store.append(got)
    return [np.array(store) for store in out], None


def _fits(means, errors, target):
    return all(np.all(np.abs(m - t) <= _CD_Z * e) for m, e, t in zip(means, errors, target))


@fits_column
def check_cd1(func, *, hint=False):
    """Check a reader's CD-1 step ``func(W, a, c, batch, lr, rng)`` for an RBM in bits, in expectation.

    The function returns the new parameters ``(W, a, c)`` (``a`` visible,
    ``c`` hidden biases, T = 1, as in :func:`check_rbm_free_energy`) after one step of contrastive divergence on
    ``batch`` (shape (P, n_visible)): ``h0 ~ p(h | v0)``, a reconstruction
    ``v1 ~ p(v | h0)``, then ``W += lr * (v0^T p(h | v0) - v1^T p(h | v1)) / P``
    and the biases likewise, drawing every random number from ``rng``. A
    single step is random, so the checker calls the function 2000 times
    from the same parameters on two RBMs (4 x 3 and 3 x 4 units) and
    compares the mean change of every parameter with the exact expected
    CD-1 update (:func:`~bmlib.expected_cd_update`, computed by summing
    over all hidden and visible states). Each must lie within 5 standard
    errors, estimated from the reader's own calls: a correct step passes
    whatever order it draws its random numbers in, and whether it uses
    samples or probabilities of h in the statistics (their expectations
    agree). The first tier prints the parameter furthest off; ``hint=True``
    matches all the means against typical mistakes (the sign, a sum for a
    mean, no learning rate, the step returned instead of the parameters,
    biases not learned or missing, probabilities where CD-1 samples).

    Parameters
    ----------
    func : callable
        ``func(W, a, c, batch, lr, rng)`` with ``W`` of shape (n_visible,
        n_hidden), ``a`` (n_visible,), ``c`` (n_hidden,), ``batch`` (P,
        n_visible) in bits, ``lr`` a float, ``rng`` a
        :class:`numpy.random.Generator`; returns ``(W, a, c)``.
    hint : bool
        False (the default): on a failure, print the failing input, what was
        expected and what came back, but not the fix. True: also name the
        likely mistake and how to fix it.

    Returns
    -------
    bool
        True if the mean step agrees with the exact expected CD-1 update.

    Notes
    -----
    Explained in the chapter "Restricted Boltzmann machines".

    Examples
    --------
    >>> import numpy as np
    >>> def cd1(W, a, c, batch, lr, rng):
    ...     sig = lambda x: 1 / (1 + np.exp(-x))
    ...     p0 = sig(batch @ W + c)
    ...     h0 = (rng.random(p0.shape) < p0).astype(float)
    ...     pv = sig(h0 @ W.T + a)
    ...     v1 = (rng.random(pv.shape) < pv).astype(float)
    ...     p1 = sig(v1 @ W + c)
    ...     P = len(batch)
    ...     return (W + lr * (batch.T @ p0 - v1.T @ p1) / P,
    ...             a + lr * (batch - v1).mean(axis=0), c + lr * (p0 - p1).mean(axis=0))
    >>> bm.check_cd1(cd1)
    Both RBMs get the right expected CD-1 step (4 x 3 and 3 x 4 units, 2000
      calls each). Well done.
    True
    """
    cases = _cd_cases()
    means, errors = [], []
    for k, case in enumerate(cases):
        calls, error = _cd_calls(func, case, k)
        if error:
            print(error)
            return False
        means.append([x.mean(axis=0) for x in calls])
        lr = case[4]
        errors.append([np.maximum(x.std(axis=0) / np.sqrt(_CD_CALLS), 1e-4 * lr) for x in calls])
    expected = [_returned(case) for case in cases]
    good = [_fits(m, e, t) for m, e, t in zip(means, errors, expected)]
    if all(good):
        print(f"Both RBMs get the right expected CD-1 step (4 x 3 and 3 x 4 units, {_CD_CALLS} calls each). "
              "Well done.")
        return True
    k = good.index(False)
    W, b, c, batch, lr = cases[k]
    z = [np.abs(m - t) / e for m, e, t in zip(means[k], errors[k], expected[k])]
    part = int(np.argmax([x.max() for x in z]))
    name = "Wac"[part]
    where = np.unravel_index(np.argmax(z[part]), z[part].shape)
    label = f"{name}[{', '.join(map(str, where))}]"
    old = (W, b, c)[part][where]
    print(f"Your mean CD-1 step is wrong on {good.count(False)} of {len(cases)} RBMs. The first one:")
    W_text = np.array2string(W, precision=2, separator=", ", prefix="  W = ")
    print(f"Input {k} (n_visible = {W.shape[0]}, n_hidden = {W.shape[1]}, lr = {lr:g}, {len(batch)} patterns):\n"
          f"  W = {W_text}\n  a = {_clean(b)}\n  c = {_clean(c)}\n  batch = {batch.astype(int).tolist()}")
    print(f"  {label} starts at {old:g}; the exact expected change is {expected[k][part][where] - old:+.4f}, "
          f"your {_CD_CALLS} calls changed it by {means[k][part][where] - old:+.4f} on average "
          f"(standard error {errors[k][part][where]:.4f})")
    for how, text in _CD_HOW.items():
        if all(_fits(m, e, _returned(case, how=how)) for m, e, case in zip(means, errors, cases)):
            _fix(text)
            return False
    for variant, text in _CD_VARIANTS.items():
        if all(_fits(m, e, _returned(case, variant)) for m, e, case in zip(means, errors, cases)):
            _fix(text)
            return False
    _fix("The mean step fits no typical mistake. p0 = sigmoid(batch @ W + c); h0 = (rng.random(p0.shape) < p0); "
         "pv = sigmoid(h0 @ W.T + a); v1 = (rng.random(pv.shape) < pv); p1 = sigmoid(v1 @ W + c); then "
         "W + lr * (batch.T @ p0 - v1.T @ p1) / P, a + lr * mean(batch - v1), c + lr * mean(p0 - p1).")
    return False
