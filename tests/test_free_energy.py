"""Free energy, entropy and the variational principle (bmlib/exact/free_energy.py), against enumeration."""
import numpy as np
import pytest

import bmlib as bm
from conftest import random_model


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_free_energy_entropy_and_heat_capacity_equal_their_definitions(units):
    W, b = random_model(6, np.random.default_rng(4))
    S = bm.all_states(6, units)
    E = bm.energy(S, W, b)
    for T in (0.3, 1.0, 4.0):
        p = bm.boltzmann_distribution(W, b, T, units)
        res = bm.exact_free_energy(W, b, T, units)
        assert res.free_energy == pytest.approx(-T * np.log(np.exp(-E / T).sum()), rel=1e-12)
        assert res.entropy == pytest.approx(-np.sum(p * np.log(p)), rel=1e-10)
        assert res.free_energy == pytest.approx(res.mean_energy - T * res.entropy, rel=1e-12, abs=1e-12)
        assert res.heat_capacity == pytest.approx((p @ E**2 - (p @ E) ** 2) / T**2, rel=1e-9)


def test_energy_moments_are_derivatives_of_log_z_in_beta():
    W, b = random_model(5, np.random.default_rng(7))
    f = lambda beta: bm.log_partition(W, b, T=1 / beta)  # noqa: E731
    for T in (0.5, 2.0):
        beta, d = 1 / T, 1e-4
        res = bm.exact_free_energy(W, b, T)
        assert -(f(beta + d) - f(beta - d)) / (2 * d) == pytest.approx(res.mean_energy, rel=1e-6)
        second = (f(beta + d) - 2 * f(beta) + f(beta - d)) / d**2
        assert second == pytest.approx(res.heat_capacity * T**2, rel=1e-4)


def test_entropy_limits():
    n = 5
    assert bm.exact_free_energy(np.zeros((n, n)), T=1.0).entropy == pytest.approx(n * np.log(2))
    # A ferromagnetic chain at low T: two ground states, entropy log 2.
    assert bm.exact_free_energy(bm.chain_couplings(6), T=0.05).entropy == pytest.approx(np.log(2), abs=1e-6)


def test_variational_free_energy_is_above_f_by_t_times_kl():
    rng = np.random.default_rng(2)
    W, b = random_model(4, rng)
    T = 1.3
    F = bm.exact_free_energy(W, b, T).free_energy
    p = bm.boltzmann_distribution(W, b, T)
    assert bm.variational_free_energy(p, W, b, T) == pytest.approx(F, abs=1e-12)
    for _ in range(20):
        q = rng.dirichlet(np.ones(16))
        kl = np.sum(q * np.log(q / p))
        assert bm.variational_free_energy(q, W, b, T) - F == pytest.approx(T * kl, rel=1e-10)
    point = np.zeros(16)
    point[3] = 1.0  # a single state: no entropy, F[q] = E(state)
    assert bm.variational_free_energy(point, W, b, T) == pytest.approx(bm.energy(bm.all_states(4)[3], W, b))


def test_bad_input_is_named():
    with pytest.raises(ValueError, match=r"q must have shape \(4,\)"):
        bm.variational_free_energy([0.5, 0.5], [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="q must sum to 1"):
        bm.variational_free_energy([0.5, 0.5, 0.5, 0.5], [[0, 1], [1, 0]])


def _good(W, b, T):
    f = lambda beta: bm.log_partition(W, b, T=1 / beta)  # noqa: E731
    beta, d = 1 / T, 1e-4
    return -(f(beta + d) - f(beta - d)) / (2 * d), (f(beta + d) - 2 * f(beta) + f(beta - d)) / d**2


@pytest.mark.parametrize("draft, words", [
    (lambda W, b, T: (-_good(W, b, T)[0], _good(W, b, T)[1]), "wrong sign: <E> = -d log Z / d beta"),
    (lambda W, b, T: (_good(W, b, T)[0] / T**2, _good(W, b, T)[1]), "derivative with respect to T"),
    (lambda W, b, T: (_good(W, b, T)[0], _good(W, b, T)[1] / T**2), "the heat capacity"),
    (lambda W, b, T: (_good(W, b, T)[0], _good(W, b, T)[1] + _good(W, b, T)[0] ** 2), "the second moment"),
])
def test_energy_moments_checker_names_the_mistake(draft, words, capsys):
    assert bm.check_energy_moments(_good) is True
    capsys.readouterr()
    assert bm.check_energy_moments(draft, hint=True) is False
    assert words in " ".join(capsys.readouterr().out.split())
