"""The update rule a reader opens is the rule that runs: every sampler goes through the rule objects.

bmlib/sampling/rules.py holds each rule as one object with all its forms
(elementwise, flip probability, a bipartite layer, the fast dense and lattice
sweeps). The samplers look the heat-bath rule up in ``RULES`` when they are
called, so a rule put there runs everywhere. Two instruments:

- ``Hotter``, the heat bath with every form evaluated at 2 T: a sampler that
  goes through the rule then gives, with the same seed, exactly what the
  plain rule gives at 2 T (where the rest of the algorithm does not use T),
  and something else where it does (AIS, tempering, CD);
- ``Counting``, the heat bath itself, counting the calls of each form: the
  result stays identical to the last bit and the forms were called.

A sampler that kept its own copy of the rule would give the plain answer
under ``Hotter`` and record no calls.
"""
import numpy as np
import pytest

import bmlib as bm
from bmlib.sampling.rules import RULES, HeatBath

W8 = bm.sk_couplings(8, rng=3)
B8 = np.random.default_rng(3).normal(scale=0.3, size=8)


class Hotter(HeatBath):
    """The heat bath at twice the temperature it is given, in every form."""

    def scale(self, T, units):
        return super().scale(2 * T, units)

    def layer_mean(self, fields, T, units):
        return super().layer_mean(fields, 2 * T, units)

    def flip_probability(self, delta_e, T):
        return super().flip_probability(delta_e, 2 * T)


class Counting(HeatBath):
    """The heat bath unchanged, counting how often each form is asked for."""

    def __init__(self):
        self.calls = {}

    def _count(self, form):
        self.calls[form] = self.calls.get(form, 0) + 1

    def scale(self, T, units):
        self._count("scale")
        return super().scale(T, units)

    def layer_mean(self, fields, T, units):
        self._count("layer_mean")
        return super().layer_mean(fields, T, units)

    def draw(self, mean, units, rng):
        self._count("draw")
        return super().draw(mean, units, rng)

    def flip_probability(self, delta_e, T):
        self._count("flip_probability")
        return super().flip_probability(delta_e, T)


# --- every form, replaced: the sampler gives the plain rule's answer at 2 T -----------------------

@pytest.mark.parametrize("scan", ["sequential", "random"])  # the fast dense sweep, and the elementwise form
@pytest.mark.parametrize("units", ["spins", "bits"])
def test_sample_on_a_dense_model_runs_the_rule_object(monkeypatch, scan, units):
    def run(T):
        return bm.sample(W8, B8, T, units, n_samples=30, n_chains=4, scan=scan, rng=5).samples

    at_two = run(2.0)
    monkeypatch.setitem(RULES, "heat_bath", Hotter())
    np.testing.assert_array_equal(run(1.0), at_two)
    assert not np.array_equal(run(2.0), at_two)


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_sample_on_a_lattice_runs_the_rule_object(monkeypatch, units):
    lattice = bm.SquareLattice(6, J=1.0, h=0.2)

    def run(T):
        return bm.sample(lattice, T=T, units=units, n_samples=20, n_chains=3, rng=2).samples

    at_three = run(3.0)
    monkeypatch.setitem(RULES, "heat_bath", Hotter())
    np.testing.assert_array_equal(run(1.5), at_three)


def test_anneal_runs_the_rule_object(monkeypatch):
    def run(schedule):
        return bm.anneal(W8, B8, schedule=schedule, n_chains=3, rng=1).samples

    doubled = run([(4.0, 5), (2.0, 5), (0.0, 2)])  # T = 0 is descent, which has no temperature to double
    monkeypatch.setitem(RULES, "heat_bath", Hotter())
    np.testing.assert_array_equal(run([(2.0, 5), (1.0, 5), (0.0, 2)]), doubled)


@pytest.mark.parametrize("scan", ["sequential", "random"])
def test_transition_matrix_takes_the_rule_objects_flip_probability(monkeypatch, scan):
    at_two = bm.transition_matrix(W8[:4, :4], B8[:4], T=2.0, scan=scan)
    monkeypatch.setitem(RULES, "heat_bath", Hotter())
    np.testing.assert_array_equal(bm.transition_matrix(W8[:4, :4], B8[:4], T=1.0, scan=scan), at_two)
    # A rule object given directly is taken as it is.
    np.testing.assert_array_equal(bm.transition_matrix(W8[:4, :4], B8[:4], T=1.0, scan=scan, rule=Hotter()), at_two)


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_rbm_block_gibbs_runs_the_rule_objects_layer_form(monkeypatch, units):
    W = np.random.default_rng(0).normal(scale=0.8, size=(6, 4))
    start = np.random.default_rng(1).integers(0, 2, size=(20, 6))
    start = 2 * start - 1 if units == "spins" else start
    at_two = bm.RBM(6, 4, W=W, units=units, T=2.0).gibbs(start, n_sweeps=7, rng=3)
    monkeypatch.setitem(RULES, "heat_bath", Hotter())
    np.testing.assert_array_equal(bm.RBM(6, 4, W=W, units=units, T=1.0).gibbs(start, n_sweeps=7, rng=3), at_two)
    # The exact conditional means are the model's, not the rule's: unchanged.
    plain_means = np.tanh(start @ W) if units == "spins" else 1 / (1 + np.exp(-(start @ W)))
    np.testing.assert_allclose(bm.RBM(6, 4, W=W, units=units).hidden_means(start), plain_means, rtol=1e-12)


# --- where the algorithm also uses T itself, a replaced rule changes the answer ------------------

def _differs_under_hotter(monkeypatch, run):
    plain = run()
    again = run()
    monkeypatch.setitem(RULES, "heat_bath", Hotter())
    hot = run()
    monkeypatch.setitem(RULES, "heat_bath", HeatBath())
    return plain, again, hot


def test_ais_runs_the_rule_object(monkeypatch):
    def run():
        return bm.log_z_ais(W8, B8, T=1.0, n_runs=20, n_steps=30, rng=4).log_z

    plain, again, hot = _differs_under_hotter(monkeypatch, run)
    assert plain == again and hot != plain


def test_rbm_ais_runs_the_rule_object(monkeypatch):
    W = np.random.default_rng(1).normal(scale=0.5, size=(8, 5))

    def run():
        return bm.log_z_rbm_ais(W, T=1.0, n_runs=20, n_steps=30, rng=4).log_z

    plain, again, hot = _differs_under_hotter(monkeypatch, run)
    assert plain == again and hot != plain


def test_parallel_tempering_runs_the_rule_object(monkeypatch):
    def run():
        return bm.parallel_tempering(W8, B8, temperatures=[0.5, 1.0, 2.0], n_samples=30, burn_in=5, rng=6).samples

    plain, again, hot = _differs_under_hotter(monkeypatch, run)
    np.testing.assert_array_equal(plain, again)
    assert not np.array_equal(hot, plain)


@pytest.mark.parametrize("statistics", ["cd", "pcd"])
@pytest.mark.parametrize("update", ["gradient", "sign"])
def test_contrastive_divergence_runs_the_rule_object(monkeypatch, statistics, update):
    data = bm.bars_and_stripes(3, units="bits")

    def run():
        rbm = bm.RBM(9, 4, units="bits", rng=0)
        provider = (bm.ContrastiveDivergence() if statistics == "cd"
                    else bm.PersistentContrastiveDivergence(n_chains=10))
        bm.train(rbm, data, epochs=3, batch_size=7, learning_rate=0.05, update=update, statistics=provider,
                 monitor=None, rng=1)
        return rbm.W

    plain, again, hot = _differs_under_hotter(monkeypatch, run)
    np.testing.assert_array_equal(plain, again)
    assert not np.array_equal(hot, plain)


# --- the plain rule, instrumented: identical results, and the forms were called -----------------

def test_instrumented_rule_leaves_every_sampler_identical_and_is_called(monkeypatch):
    rbm = bm.RBM(9, 4, units="bits", rng=0)
    data = bm.bars_and_stripes(3, units="bits")
    lattice = bm.SquareLattice(4)
    runs = {
        "sample, dense": lambda: bm.sample(W8, B8, 1.0, n_samples=10, n_chains=2, rng=0).samples,
        "sample, lattice": lambda: bm.sample(lattice, T=2.0, n_samples=10, n_chains=2, rng=0).samples,
        "anneal": lambda: bm.anneal(W8, B8, schedule=[(2.0, 3), (1.0, 3)], n_chains=2, rng=0).samples,
        "log_z_ais": lambda: bm.log_z_ais(W8, B8, n_runs=5, n_steps=10, rng=0).log_z,
        "parallel_tempering": lambda: bm.parallel_tempering(W8, B8, n_samples=10, burn_in=2, rng=0).samples,
        "transition_matrix": lambda: bm.transition_matrix(W8[:3, :3]),
        "rbm.gibbs": lambda: rbm.gibbs(data, n_sweeps=2, rng=0),
        "log_z_rbm_ais": lambda: bm.log_z_rbm_ais(rbm.W, n_runs=5, n_steps=10, rng=0).log_z,
        "rbm_parallel_tempering": lambda: bm.rbm_parallel_tempering(rbm, n_samples=5, burn_in=1, rng=0).samples,
        "inpaint": lambda: bm.inpaint(rbm, data[:2], np.arange(3), n_sweeps=5, burn_in=1, n_chains=2, rng=0),
        "CD-1": lambda: bm.ContrastiveDivergence()(rbm, data)[0],
        "PCD-1": lambda: bm.PersistentContrastiveDivergence(n_chains=5)(rbm, data)[0],
    }
    for name, run in runs.items():
        plain = run()
        rule = Counting()
        monkeypatch.setitem(RULES, "heat_bath", rule)
        counted = run()
        monkeypatch.setitem(RULES, "heat_bath", HeatBath())
        _assert_same(counted, plain, name)
        assert rule.calls, f"{name} never asked the rule object for any of its forms"


def _assert_same(a, b, name):
    if hasattr(a, "_fields") or isinstance(a, tuple):
        for x, y in zip(a, b):
            _assert_same(x, y, name)
    elif hasattr(a, "__dataclass_fields__"):
        for field in a.__dataclass_fields__:
            _assert_same(getattr(a, field), getattr(b, field), f"{name}.{field}")
    else:
        np.testing.assert_array_equal(a, b, err_msg=name)
