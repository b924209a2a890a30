"""The fused CD/PCD step train() takes (bmlib/learning/chain_step.py) against the statistics it replaces.

chain_gradient computes clamped-minus-free in another order of roundings, with the
same block Gibbs rounds, so it must agree with the providers' public statistics to a
few units in the last place, give the same chains bit for bit, and train the same
model; and, as every gradient, match the exact one (the free phase from chains at
equilibrium).
"""
import itertools

import numpy as np
import pytest

import bmlib as bm
from bmlib.learning.chain_step import chain_gradient


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
def test_chain_gradient_is_the_scaled_difference_of_the_providers_statistics(units, T, k):
    rbm, batch = _random_rbm(units, T, 0), _data(units, 10, 1)
    for persistent in (False, True):
        start = _data(units, 13, 2) if persistent else batch
        provider = bm.PersistentContrastiveDivergence(k=k, n_chains=13) if persistent else bm.ContrastiveDivergence(k)
        if persistent:
            provider.chains = start.copy()
        expected = rbm._gradient(*provider(rbm, batch, rng=5))
        step, chains = chain_gradient(rbm, batch, start, k, np.random.default_rng(5), scale=0.05)
        # Same random numbers, same rounds: the same chains, exactly.
        np.testing.assert_array_equal(chains, provider.chains if persistent else rbm.gibbs(batch, k, rng=5))
        for name in rbm.parameter_names:
            assert step[name].shape == expected[name].shape
            np.testing.assert_allclose(step[name], 0.05 * expected[name], rtol=1e-12, atol=1e-15)


def test_chain_gradient_matches_the_exact_gradient_at_equilibrium():
    """Chains started from exact samples (drawn by enumeration) stay exact: the gradient agrees with RBM.gradient.

    40,000 chains, seed 3: the standard error of every entry is below 0.005, and the
    largest of the 39 differences must stay below 0.02 (4 standard errors).
    """
    rbm, batch = _random_rbm("spins", 1.0, 4), _data("spins", 12, 5)
    exact = rbm.gradient(batch)
    gen = np.random.default_rng(3)
    states = np.array(list(itertools.product((-1.0, 1.0), repeat=7)))
    start = states[gen.choice(len(states), 40_000, p=np.exp(rbm.log_probability(states)))]
    step, _ = chain_gradient(rbm, batch, start, 2, gen)
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
def test_train_through_chain_gradient_learns_what_the_statistics_teach(units, settings):
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
