"""What contrastive divergence follows, computed exactly for a tiny RBM.

CD-k replaces the model's statistics by those of the data after k block Gibbs
rounds. Its *expected* update, averaged over the sampling, is

    E_q[ v E[h|v]^T ] - E_{q T^k}[ v E[h|v]^T ]      (and likewise for the biases),

with ``q`` the data distribution over visible states and ``T`` the block
Gibbs transition ``v -> h -> v'``. For a few units both expectations are
sums over all visible states, so the expected update is exact. As ``k``
grows, ``q T^k`` tends to the model's own marginal and the update to the
gradient of the log-likelihood. That gradient's Jacobian is the Hessian of
the log-likelihood, a symmetric matrix; the Jacobian of the CD-1 update is
not symmetric, and a vector field whose Jacobian is not symmetric is not the
gradient of any function (Sutskever and Tieleman 2010). Explained in the
chapter "Restricted Boltzmann machines".
"""
from __future__ import annotations

import numpy as np

from .._deprecation import renamed
from .._checks import check_count, check_data, check_exact_size, check_real
from ..models.states import all_states
from .rbm import RBM

#: Largest total number of units (visible + hidden) for the exact expectations.
MAX_CD_THEORY_UNITS = 12


def _check_small(rbm):
    if not isinstance(rbm, RBM):
        raise TypeError(f"rbm must be a bmlib RBM; got {type(rbm).__name__}")
    rbm._check_parameters()
    if rbm.n_visible + rbm.n_hidden > MAX_CD_THEORY_UNITS:
        raise ValueError(f"rbm must have at most {MAX_CD_THEORY_UNITS} units in all for the exact expected update "
                         f"(2**n_visible x 2**n_hidden transition); got {rbm.n_visible} + {rbm.n_hidden}")
    check_exact_size(rbm.n_visible + rbm.n_hidden)


def _parts(rbm):
    V = all_states(rbm.n_visible, rbm.units).astype(float)
    H = all_states(rbm.n_hidden, rbm.units).astype(float)
    return V, H


def _data_distribution(rbm, data, V):
    data = check_data(data, rbm.n_visible, rbm.units)
    index = {tuple(v): k for k, v in enumerate(V.tolist())}
    q = np.zeros(len(V))
    for row in data.tolist():
        q[index[tuple(row)]] += 1.0
    return q / q.sum()


def _statistics(rbm, weights, V):
    """(mean of [v, E[h|v]], mean of v E[h|v]^T) under ``weights`` over the visible states V."""
    Hbar = rbm.hidden_means(V)
    mean = np.concatenate([weights @ V, weights @ Hbar])
    return mean, (V * weights[:, None]).T @ Hbar


def _transition(rbm, V, H):
    """Block Gibbs v -> h -> v' over all visible states, shape (2**n_v, 2**n_v)."""
    def conditional(means, states, low):
        # p(state | other layer) for every state: product over units of p(unit value).
        p_high = means if rbm.units == "bits" else 0.5 * (1.0 + means)
        on = states == 1.0
        return np.prod(np.where(on[None, :, :], p_high[:, None, :], 1.0 - p_high[:, None, :]), axis=2)

    p_h_given_v = conditional(rbm.hidden_means(V), H, None)
    p_v_given_h = conditional(rbm.visible_means(H), V, None)
    return p_h_given_v @ p_v_given_h


def expected_cd_update(rbm, data, k=1):
    """The exact expected CD-k update of a tiny RBM, per parameter; ``k=None`` for the log-likelihood gradient.

    Parameters
    ----------
    rbm : RBM
        At most ``MAX_CD_THEORY_UNITS`` (12) units in all.
    data : array_like of shape (P, n_visible)
    k : int or None
        Gibbs rounds of CD-k, >= 1; ``None`` gives the exact gradient of the
        mean log-likelihood (what ``rbm.gradient(data)`` returns).

    Returns
    -------
    RBMGradient
        ``(W, b_visible, b_hidden)`` of the expected update divided by the
        learning rate (so ``k=None`` is the gradient itself).

    Examples
    --------
    >>> import numpy as np
    >>> rbm = bm.RBM(3, 2, units="bits", init_scale=1.0, rng=0)
    >>> data = [[1, 0, 1], [0, 1, 1]]
    >>> exact = bm.expected_cd_update(rbm, data, k=None)
    >>> bool(np.allclose(exact.W, rbm.gradient(data).W))
    True
    """
    _check_small(rbm)
    V, H = _parts(rbm)
    q = _data_distribution(rbm, data, V)
    clamped = _statistics(rbm, q, V)
    if k is None:
        log_p = rbm.log_probability(V)
        free = _statistics(rbm, np.exp(log_p - log_p.max()) / np.exp(log_p - log_p.max()).sum(), V)
    else:
        k = check_count(k, "k", minimum=1)
        q_k = q @ np.linalg.matrix_power(_transition(rbm, V, H), k)
        free = _statistics(rbm, q_k, V)
    from .rbm import RBMGradient

    return RBMGradient(**rbm._gradient(clamped, free))


def update_jacobian(rbm, data, k=1, step=1e-5):
    """Jacobian of the expected update with respect to the parameters, by central differences.

    Parameters
    ----------
    rbm, data, k
        As in :func:`expected_cd_update` (``k=None``: the log-likelihood gradient,
        whose Jacobian is the Hessian of the log-likelihood).
    step : float
        Finite-difference step, > 0.

    Returns
    -------
    ndarray of shape (m, m)
        ``J[a, c] = d update_a / d theta_c`` over the ``m`` parameters in the
        order ``W`` (row by row), ``b_visible``, ``b_hidden``. A gradient field
        has a symmetric Jacobian; ``np.abs(J - J.T).max()`` measures how far
        the update is from being one.

    Examples
    --------
    >>> import numpy as np
    >>> rbm = bm.RBM(2, 2, units="bits", init_scale=1.0, rng=1)
    >>> data = [[1, 0], [1, 1]]
    >>> J_ml = bm.update_jacobian(rbm, data, k=None)
    >>> J_cd = bm.update_jacobian(rbm, data, k=1)
    >>> bool(np.abs(J_ml - J_ml.T).max() < 1e-6), bool(np.abs(J_cd - J_cd.T).max() > 1e-3)
    (True, True)
    """
    _check_small(rbm)
    step = check_real(step, "step", positive=True)
    if step > 0.01:
        raise ValueError(f"step must be at most 0.01 (a larger step makes the derivative inexact); got {step!r}")
    names = ("W", "b_visible", "b_hidden")
    theta = np.concatenate([np.ravel(getattr(rbm, p)) for p in names])
    shapes = [np.shape(getattr(rbm, p)) for p in names]

    def update(flat):
        probe = rbm.copy()
        start = 0
        for p, shape in zip(names, shapes):
            size = int(np.prod(shape))
            setattr(probe, p, flat[start:start + size].reshape(shape))
            start += size
        return np.concatenate([np.ravel(u) for u in expected_cd_update(probe, data, k)])

    J = np.empty((theta.size, theta.size))
    for c in range(theta.size):
        up, down = theta.copy(), theta.copy()
        up[c] += step
        down[c] -= step
        J[:, c] = (update(up) - update(down)) / (2 * step)
    return J


@renamed(n_repeats="n_runs")
def cd_update_spread(rbm, data, n_runs=200, rng=None):
    """How noisy one CD-1 estimate of the weight update is, with hidden probabilities or with samples.

    CD-1 runs ``v -> h -> v' -> h'`` from each data vector. Its update is
    ``<v h>_data - <v' h'>`` averaged over the batch; each ``h`` may enter as
    a sampled state or as its probability ``E[h | v]``. Hinton's practical
    guide (2010) advises probabilities wherever the choice is free, since they
    carry the same expectation with less noise. This repeats the CD-1
    estimate ``n_runs`` times with fresh randomness and reports the
    spread of the W update, both ways.

    Parameters
    ----------
    rbm : RBM
    data : array_like of shape (P, n_visible)
    n_runs : int
        Independent estimates, >= 2.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dict of str to float
        ``"probabilities"`` and ``"samples"``: the standard deviation of the
        W update across repeats, averaged over the weights; and
        ``"difference_of_means"``: the largest difference between the two
        ways' average updates, which shrinks with ``n_runs`` (the two
        share their expectation).

    Examples
    --------
    >>> rbm = bm.RBM(6, 3, units="bits", init_scale=1.0, rng=0)
    >>> spread = bm.cd_update_spread(rbm, [[1, 0, 1, 0, 1, 0], [0, 1, 0, 1, 0, 1]], rng=1)
    >>> bool(spread["probabilities"] < spread["samples"])
    True
    """
    from .._random import as_generator

    if not isinstance(rbm, RBM):
        raise TypeError(f"rbm must be a bmlib RBM; got {type(rbm).__name__}")
    rbm._check_parameters()
    data = check_data(data, rbm.n_visible, rbm.units)
    n_runs = check_count(n_runs, "n_runs", minimum=2)
    gen = as_generator(rng)
    updates = {"probabilities": [], "samples": []}
    for _ in range(n_runs):
        for way in updates:
            h_mean = rbm.hidden_means(data)
            h = h_mean if way == "probabilities" else rbm._sample_layer(h_mean, gen)
            v2 = rbm._sample_layer(rbm.visible_means(rbm._sample_layer(h_mean, gen)), gen)
            h2_mean = rbm.hidden_means(v2)
            h2 = h2_mean if way == "probabilities" else rbm._sample_layer(h2_mean, gen)
            updates[way].append((data.T @ h - v2.T @ h2) / len(data) / rbm.T)
    stds = {way: float(np.std(np.array(u), axis=0, ddof=1).mean()) for way, u in updates.items()}
    stds["difference_of_means"] = float(np.abs(np.mean(updates["probabilities"], axis=0)
                                               - np.mean(updates["samples"], axis=0)).max())
    return stds
