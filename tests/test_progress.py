"""progress= on bmlib's long calls: a bar when asked, nothing by default, a clear error for a bad value.

The samplers and estimators default to ``progress=False`` (train to None, a
bar after two seconds): they run inside loops, widgets and the book's
chapters, where a bar that shows only on a slow machine would change what
is printed. A bar never changes a result.
"""
import numpy as np
import pytest

import bmlib as bm

W6 = bm.sk_couplings(6, rng=0)
BITS = bm.bars_and_stripes(3, units="bits")
RBM_W = np.random.default_rng(0).normal(scale=0.3, size=(9, 3))

CALLS = {
    "sample": (lambda **kw: bm.sample(W6, n_samples=20, rng=0, **kw).samples, "sweep"),
    "anneal": (lambda **kw: bm.anneal(W6, schedule=[(2.0, 5), (1.0, 5)], rng=0, **kw).samples, "sweep"),
    "log_z_ais": (lambda **kw: bm.log_z_ais(W6, n_runs=4, n_steps=20, rng=0, **kw).log_z, "step"),
    "compare_log_z": (lambda **kw: bm.compare_log_z(W6, temperatures=[1.0], budgets=[200], methods=["mean_field", "ais"],
                                                    rng=0, **kw).log_z["ais"], "run"),
    "parallel_tempering": (lambda **kw: bm.parallel_tempering(W6, n_samples=10, burn_in=2, rng=0, **kw).samples,
                           "round"),
    "rbm_parallel_tempering": (lambda **kw: bm.rbm_parallel_tempering(bm.RBM(9, 3, W=RBM_W, units="bits"),
                                                                      n_samples=10, burn_in=2, rng=0, **kw).samples,
                               "round"),
    "temperature_scan": (lambda **kw: bm.temperature_scan(W6, None, [2.0, 1.0], n_samples=20, n_chains=2, burn_in=2,
                                                          rng=0, **kw)["energy_per_unit"].value, "temperature"),
    "ais_sandwich": (lambda **kw: bm.ais_sandwich(W6, n_runs=4, n_steps=10, rng=0, **kw).gap, "step"),
    "log_z_rbm_ais": (lambda **kw: bm.log_z_rbm_ais(RBM_W, n_runs=4, n_steps=20, rng=0, **kw).log_z, "step"),
    "rbm_learning_curves": (lambda **kw: bm.rbm_learning_curves(BITS[:8], BITS[8:], [2], epochs=4, every=2,
                                                                batch_size=4, rng=0, **kw)[2].train, "epoch"),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_bar_when_asked_none_by_default_and_the_same_result(name, capsys):
    run, unit = CALLS[name]
    quiet = run()
    assert capsys.readouterr().err == ""
    loud = run(progress=True)
    err = capsys.readouterr().err
    assert f"{unit}" in err and "100%" in err
    np.testing.assert_array_equal(loud, quiet)
    run(progress=None)  # a short call: the delayed bar never shows
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_bad_progress_is_refused_by_name(name):
    run, _ = CALLS[name]
    with pytest.raises(TypeError, match="progress must be True, False or None; got 'yes'"):
        run(progress="yes")
