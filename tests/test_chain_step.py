"""The one CD/PCD step (bmlib/learning/chain_step.py) that train() and the providers' public call run.

contrastive_phases runs the Gibbs rounds and takes both phases through the hidden
layer; its phases give the statistics (what ContrastiveDivergence()(model, batch)
returns, and what update="sign" takes the difference of) and the gradient step
train() takes with update="gradient". The step computes clamped minus free in
another order of roundings, so it must agree with the statistics to a few units
in the last place; every caller must go through the step; and, as every gradient,
it must match the exact one (the free phase from chains at equilibrium).
"""
import itertools

import numpy as np
import pytest

import bmlib as bm
from bmlib.learning import chain_step
from bmlib.learning.chain_step import ContrastivePhases, contrastive_phases


def _random_rbm(units, T, seed):
    gen = np.random.default_rng(seed)
    return bm.RBM(7, 4, W=gen.normal(0, 0.8, (7, 4)), b_visible=gen.normal(0, 0.5, 7),
                  b_hidden=gen.normal(0, 0.5, 4), units=units, T=T)


def _data(units, rows, seed):
    bits = (np.random.default_rng(seed).random((rows, 7)) < 0.4).astype(float)
    return bits if units == "bits" else 2 * bits - 1


@pytest.mark.parametrize("units", ["bits", "spins"])
@pytest.mark.parametrize("T", [1.0, 0.7])
@pytest.mark.parametrize("k", [1, 3])
def test_the_step_is_the_scaled_difference_of_the_statistics_the_providers_return(units, T, k):
    rbm, batch = _random_rbm(units, T, 0), _data(units, 10, 1)
    for persistent in (False, True):
        start = _data(units, 13, 2) if persistent else batch
        provider = bm.PersistentContrastiveDivergence(k=k, n_chains=13) if persistent else bm.ContrastiveDivergence(k)
        if persistent:
            provider.chains = start.copy()
        statistics = provider(rbm, batch, rng=5)
        phases = contrastive_phases(rbm, batch, start, k, np.random.default_rng(5))
        # Same random numbers, same rounds: the same chains as RBM.gibbs, and the providers' own answer.
        np.testing.assert_array_equal(phases.chains, provider.chains if persistent else rbm.gibbs(batch, k, rng=5))
        for ours, theirs in zip(phases.statistics(), statistics):
            for a, b in zip(ours, theirs):
                np.testing.assert_array_equal(a, b)
        expected = rbm._gradient(*statistics)
        step = phases.step(scale=0.05)
        for name in rbm.parameter_names:
            assert step[name].shape == expected[name].shape
            np.testing.assert_allclose(step[name], 0.05 * expected[name], rtol=1e-12, atol=1e-15)


def _spy(monkeypatch):
    """Replace the step by one that records its callers' arguments and then runs the real step."""
    calls, real = [], chain_step.contrastive_phases

    def recorded(model, batch, start, k, gen):
        calls.append((len(batch), len(start), k))
        return real(model, batch, start, k, gen)

    monkeypatch.setattr(chain_step, "contrastive_phases", recorded)
    return calls


@pytest.mark.parametrize("make", [lambda: bm.ContrastiveDivergence(2),
                                  lambda: bm.PersistentContrastiveDivergence(1, 15)], ids=["cd", "pcd"])
@pytest.mark.parametrize("settings", [{}, {"momentum": 0.5, "weight_decay": 0.01}, {"update": "sign"}],
                         ids=["gradient", "gradient-momentum", "sign"])
def test_train_takes_every_update_through_the_one_step(monkeypatch, make, settings):
    calls, provider = _spy(monkeypatch), make()
    data = _data("bits", 40, 6)
    bm.train(_random_rbm("bits", 1.0, 7), data, epochs=2, learning_rate=0.1, batch_size=7, statistics=provider,
             monitor=None, rng=8, **settings)
    # 40 rows in batches of 7: five batches of 7 and one of 5, in each of two epochs.
    assert [b for b, _, _ in calls] == [7, 7, 7, 7, 7, 5] * 2
    assert {(c, k) for _, c, k in calls} == ({(15, 1)} if provider.k == 1 else {(7, 2), (5, 2)})


def test_the_providers_called_directly_go_through_the_one_step(monkeypatch):
    calls = _spy(monkeypatch)
    rbm, batch = _random_rbm("spins", 1.0, 0), _data("spins", 10, 1)
    bm.ContrastiveDivergence(3)(rbm, batch, rng=0)
    bm.PersistentContrastiveDivergence(2, 13)(rbm, batch, rng=0)
    assert calls == [(10, 10, 3), (10, 13, 2)]


def _no_negative_phase(model, batch, start, k, gen):
    """A step whose free phase is the batch itself: every statistic agrees, every gradient is zero."""
    X = np.concatenate((batch, batch))
    return ContrastivePhases(X, model._hidden_means(X), len(batch), start, model.T)


@pytest.mark.parametrize("update", ["gradient", "sign"])
def test_a_replaced_step_changes_what_train_and_the_providers_produce(monkeypatch, update):
    monkeypatch.setattr(chain_step, "contrastive_phases", _no_negative_phase)
    rbm, data = _random_rbm("bits", 1.0, 7), _data("bits", 20, 6)
    before = {name: getattr(rbm, name).copy() for name in rbm.parameter_names}
    for provider in (bm.ContrastiveDivergence(1), bm.PersistentContrastiveDivergence(1, 9)):
        bm.train(rbm, data, epochs=3, learning_rate=0.1, batch_size=6, statistics=provider, update=update,
                 monitor=None, rng=1)
        clamped, free = provider(rbm, data, rng=2)
        for a, b in zip(clamped, free):
            np.testing.assert_array_equal(a, b)
    for name in rbm.parameter_names:  # the sign of an exact zero is zero; the gradient step rounds to ~0
        np.testing.assert_allclose(getattr(rbm, name), before[name], rtol=0, atol=1e-14 if update == "gradient" else 0)


def test_the_step_matches_the_exact_gradient_at_equilibrium():
    """Chains started from exact samples (drawn by enumeration) stay exact: the gradient agrees with RBM.gradient.

    40,000 chains, seed 3: the standard error of every entry is below 0.005, and the
    largest of the 39 differences must stay below 0.02 (4 standard errors).
    """
    rbm, batch = _random_rbm("spins", 1.0, 4), _data("spins", 12, 5)
    exact = rbm.gradient(batch)
    gen = np.random.default_rng(3)
    states = np.array(list(itertools.product((-1.0, 1.0), repeat=7)))
    start = states[gen.choice(len(states), 40_000, p=np.exp(rbm.log_probability(states)))]
    step = contrastive_phases(rbm, batch, start, 2, gen).step()
    for name in rbm.parameter_names:
        np.testing.assert_allclose(step[name], getattr(exact, name), atol=0.02)


class _SameCD(bm.ContrastiveDivergence):
    """Overrides __call__, so train() asks it for statistics (the slow, checked path)."""

    def __call__(self, model, batch, rng=None):
        return super().__call__(model, batch, rng)


class _SamePCD(bm.PersistentContrastiveDivergence):
    def __call__(self, model, batch, rng=None):
        return super().__call__(model, batch, rng)


@pytest.mark.parametrize("units", ["bits", "spins"])
@pytest.mark.parametrize("settings", [{}, {"momentum": 0.5, "weight_decay": 0.01}])
def test_train_through_the_step_learns_what_the_statistics_teach(units, settings):
    data = _data(units, 40, 6)
    for fast, slow in ((bm.ContrastiveDivergence(2), _SameCD(2)),
                       (bm.PersistentContrastiveDivergence(1, 15), _SamePCD(1, 15))):
        models = [_random_rbm(units, 1.0, 7) for _ in range(2)]
        for model, provider in zip(models, (fast, slow)):
            bm.train(model, data, epochs=5, learning_rate=0.1, batch_size=7, statistics=provider, monitor=None,
                     rng=8, **settings)
        for name in models[0].parameter_names:
            np.testing.assert_allclose(getattr(models[0], name), getattr(models[1], name), rtol=1e-9, atol=1e-12)


def test_sign_updates_keep_the_statistics_own_difference():
    # A component whose statistics agree exactly must not move under update="sign": train takes the
    # statistics' difference there, so the fast and the checked path agree bit for bit.
    data = _data("bits", 30, 9)
    models = [_random_rbm("bits", 1.0, 10) for _ in range(2)]
    for model, provider in zip(models, (bm.PersistentContrastiveDivergence(1, 10), _SamePCD(1, 10))):
        bm.train(model, data, epochs=3, learning_rate=0.01, batch_size=10, statistics=provider, update="sign",
                 monitor=None, rng=11)
    for name in models[0].parameter_names:
        np.testing.assert_array_equal(getattr(models[0], name), getattr(models[1], name))
