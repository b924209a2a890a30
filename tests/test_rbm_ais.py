"""AIS for RBMs (bmlib/learning/rbm/ais.py) against the exact log Z of the smaller layer.

Statistical tests name their seeds and tolerances; each fails if log Z_0, the
weight increments or the Gibbs sweep is wrong (tried by breaking each once).
"""
import numpy as np
import pytest

import bmlib as bm


def rbm(n_visible, n_hidden, seed, scale=0.7):
    rng = np.random.default_rng(seed)
    return (rng.normal(scale=scale, size=(n_visible, n_hidden)), rng.normal(scale=0.5, size=n_visible),
            rng.normal(scale=0.5, size=n_hidden))


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_error_bars_cover_the_exact_value_at_the_stated_rate(units):
    """30 independent estimates (seeds 0..29); about 95% should fall within 2 error bars. Demand 24."""
    W, bv, bh = rbm(10, 8, seed=3)
    exact = bm.rbm_log_partition(W, bv, bh, units=units)
    inside = 0
    for seed in range(30):
        est = bm.log_z_rbm_ais(W, bv, bh, units=units, n_runs=50, n_steps=100, rng=seed)
        inside += abs(est.log_z - exact) <= 2 * est.error
    assert inside >= 24, f"only {inside} of 30 estimates within 2 error bars of the exact log Z"


def test_sixteen_hidden_units_against_the_exact_value():
    W, bv, bh = rbm(30, 16, seed=5, scale=0.4)
    exact = bm.rbm_log_partition(W, bv, bh, units="bits")
    est = bm.log_z_rbm_ais(W, bv, bh, units="bits", n_runs=100, n_steps=500, rng=7)
    assert abs(est.log_z - exact) < 3 * est.error
    assert est.error < 0.05 and est.details["ess"] > 50


def test_log_of_the_estimate_is_biased_low():
    """Jensen: E[log Z_hat] <= log Z. With 2 runs of 5 steps the bias is large enough to see.

    Seeds 0..399; the mean of log Z_hat must lie below log Z by more than 3 standard errors.
    """
    W, bv, bh = rbm(10, 6, seed=11, scale=1.2)
    exact = bm.rbm_log_partition(W, bv, bh)
    logs = np.array([bm.log_z_rbm_ais(W, bv, bh, n_runs=2, n_steps=5, rng=s).log_z for s in range(400)])
    se = logs.std(ddof=1) / np.sqrt(logs.size)
    assert logs.mean() + 3 * se < exact


def test_a_base_fitted_to_the_data_gives_more_equal_weights():
    """Data drawn from the RBM itself (exactly, by its smaller layer); the fitted base beats the uniform one."""
    W, bv, bh = rbm(16, 4, seed=2, scale=0.5)
    bv = bv + np.linspace(-2.0, 2.0, 16)  # strong, varied visible biases: the uniform base is far off
    rng = np.random.default_rng(0)
    # Exact samples: h from its marginal (16 states), then v given h.
    H = bm.all_states(4)
    log_ph = H @ bh + np.logaddexp(-(W @ H.T + bv[:, None]), W @ H.T + bv[:, None]).sum(axis=0)
    ph = np.exp(log_ph - log_ph.max())
    h = H[rng.choice(16, size=500, p=ph / ph.sum())]
    p_on = 1 / (1 + np.exp(-2 * (h @ W.T + bv)))
    data = np.where(rng.random(p_on.shape) < p_on, 1.0, -1.0)
    fitted = bm.log_z_rbm_ais(W, bv, bh, data=data, n_runs=100, n_steps=20, rng=1)
    uniform = bm.log_z_rbm_ais(W, bv, bh, n_runs=100, n_steps=20, rng=1)
    assert fitted.details["ess"] > 2 * uniform.details["ess"]
    assert fitted.error < uniform.error


def test_one_step_is_importance_sampling_from_the_base():
    W, bv, bh = rbm(6, 3, seed=4)
    est = bm.log_z_rbm_ais(W, bv, bh, n_runs=20000, n_steps=1, rng=0)
    assert abs(est.log_z - bm.rbm_log_partition(W, bv, bh)) < 4 * est.error
    assert est.cost == 0  # no sweep is needed between the base and the target


def test_bad_input_is_named():
    W, bv, bh = rbm(4, 3, seed=0)
    with pytest.raises(ValueError, match=r"data must have shape \(P, 4\)"):
        bm.log_z_rbm_ais(W, bv, bh, data=np.ones((5, 3)))
    with pytest.raises(ValueError, match="n_runs must be >= 2"):
        bm.log_z_rbm_ais(W, n_runs=1)
    with pytest.raises(ValueError, match="give either n_steps"):
        bm.log_z_rbm_ais(W, n_steps=5, fractions=[0, 1])
    with pytest.raises(ValueError, match="data must hold bits"):
        bm.base_visible_biases([[2, 0]], units="bits")
