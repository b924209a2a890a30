"""Autocorrelation time and error bars against an AR(1) process; thermal averages against exact answers.

AR(1): x_t = phi x_{t-1} + e_t with e_t ~ N(0, 1), started in its stationary
distribution. Its autocorrelation is rho(t) = phi^t, so its integrated
autocorrelation time is tau = (1 + phi) / (1 - phi), and the variance of the
mean of n samples is exactly Var(x) / n * (1 + 2 sum_{t<n} (1 - t/n) phi^t).
"""
import math

import numpy as np
import pytest

import bmlib as bm
from _series import ar1, ar1_standard_error

SEED = 20261122


@pytest.mark.parametrize("phi", [0.0, 0.5, 0.9])
def test_autocorrelation_time_and_blocking_error_of_ar1(phi):
    n, chains = 2**17, 4
    x = ar1(phi, n, chains, np.random.default_rng([SEED, int(10 * phi)]))
    tau = bm.autocorrelation_time(x)
    # Statistical error of tau here is under 3% (Sokal: var ~ 2 (2M + 1) / N tau^2 with M ~ 5 tau).
    assert tau == pytest.approx((1 + phi) / (1 - phi), rel=0.1)
    # Error of the blocking estimate of one chain: ~1 / sqrt(2 n_blocks), under 5% at the chosen level.
    for j in range(chains):
        assert bm.blocking_error(x[:, j]) == pytest.approx(ar1_standard_error(phi, n, 1), rel=0.15)
    # Several chains: the larger of the per-chain errors combined and the spread of the chain means.
    within = math.sqrt(sum(bm.blocking_error(x[:, j]) ** 2 for j in range(chains))) / chains
    between = x.mean(axis=0).std(ddof=1) / math.sqrt(chains)
    assert bm.blocking_error(x) == pytest.approx(max(within, between), rel=1e-12)
    e = bm.estimate(x)
    assert e.value == pytest.approx(x.mean()) and e.error == bm.blocking_error(x) and e.tau == tau


def _reference_blocking_levels(y):
    """Naive error of the mean at every blocking level, written out plainly (Flyvbjerg & Petersen)."""
    levels = []
    while y.size >= 2:
        levels.append(math.sqrt(np.var(y) / (y.size - 1)))
        y = y[: y.size // 2 * 2].reshape(-1, 2).mean(axis=1)
    return np.array(levels)


def test_blocking_levels_match_a_plain_implementation():
    x = ar1(0.7, 3000, 3, np.random.default_rng(SEED))  # 3000: odd block counts at several levels
    _, levels = bm.blocking_error(x[:, 0], return_levels=True)
    assert levels == pytest.approx(_reference_blocking_levels(x[:, 0]), rel=1e-12)
    # Several chains: each chain blocked on its own, the levels combined as independent errors.
    _, levels = bm.blocking_error(x, return_levels=True)
    per_chain = [_reference_blocking_levels(x[:, j]) for j in range(3)]
    assert levels == pytest.approx(np.sqrt(sum(lv**2 for lv in per_chain)) / 3, rel=1e-12)


def test_blocking_error_averages_to_the_exact_one_on_many_ar1_series():
    # 256 independent single chains, tau = 19. Seed SEED; the mean ratio is RATIO
    # with a standard error of SE over the 256 chains. The docstring's promise (the
    # extra level moves the error bar from ~93% to ~97% of the exact one) is what the
    # window 0.945 ... 1.0 checks: choosing one level lower gives ~0.92 and fails.
    phi, n, chains = 0.9, 2**15, 256
    x = ar1(phi, n, chains, np.random.default_rng([SEED, 99]))
    exact = ar1_standard_error(phi, n, 1)
    ratios = [bm.blocking_error(x[:, k]) / exact for k in range(chains)]
    assert 0.945 < np.mean(ratios) < 1.0, (np.mean(ratios), np.std(ratios) / np.sqrt(chains))


def test_blocking_levels_rise_to_a_plateau():
    x = ar1(0.9, 2**14, 1, np.random.default_rng(SEED))[:, 0]
    error, levels = bm.blocking_error(x, return_levels=True)
    naive = x.std() / math.sqrt(x.size - 1)
    assert levels[0] == pytest.approx(naive)  # level 0 ignores correlation
    assert levels[0] < 0.3 * error  # ... and underestimates by ~sqrt(tau) = sqrt(19)
    assert levels.size == 14 and error in levels


def test_one_chain_and_several_chains_shapes():
    x = np.random.default_rng(SEED).normal(size=(1000, 3))
    assert bm.blocking_error(x[:, 0]) > bm.blocking_error(x)  # more chains, smaller error
    assert bm.autocorrelation_time(x[:, :1]) == bm.autocorrelation_time(x[:, 0])


def test_constant_series():
    x = np.full((64, 2), 3.0)
    assert bm.blocking_error(x) == 0.0
    assert math.isnan(bm.autocorrelation_time(x))
    assert str(bm.estimate(x)) == "3.0000 +/- 0.0000"


def test_estimate_prints_to_the_precision_of_its_error():
    e = bm.sampling.Estimate(-1.23456, 0.0123, 2.0)
    assert str(e) == "-1.235 +/- 0.012"


def _exact_lattice_averages(rows, cols, T):
    """<e>, <|m|>, n (<m^2> - <|m|>^2) / T and n Var(e) / T^2 of the zero-field torus, by enumeration."""
    n = rows * cols
    W = bm.square_lattice_couplings(rows, cols)
    states = bm.all_states(n)
    p = bm.boltzmann_distribution(W, None, T)
    e = bm.energy(states, W) / n
    abs_m = np.abs(states.mean(axis=1))
    return {
        "energy_per_unit": p @ e,
        "abs_magnetization": p @ abs_m,
        "susceptibility": n * (p @ abs_m**2 - (p @ abs_m) ** 2) / T,
        "specific_heat": n * (p @ e**2 - (p @ e) ** 2) / T**2,
        "magnetization": 0.0,
    }


def test_thermal_averages_of_the_4x4_torus_match_enumeration():
    T = 2.5
    result = bm.sample(bm.SquareLattice(4), T=T, n_samples=2000, n_chains=16, burn_in=100, rng=SEED)
    averages = bm.thermal_averages(result)
    exact = _exact_lattice_averages(4, 4, T)
    assert exact["energy_per_unit"] == pytest.approx(bm.kaufman_energy_per_spin(4, 4, T), abs=1e-12)
    assert exact["specific_heat"] == pytest.approx(bm.kaufman_specific_heat_per_spin(4, 4, T), abs=1e-12)
    for name, value in exact.items():
        estimate = averages[name]
        # Teeth: error bars of 2% (m = 0 flips sign slowly on 4 x 4 at this T, tau ~ 30 sweeps: 0.05).
        assert 0 < estimate.error < (0.05 if name == "magnetization" else 0.02 * abs(value)), name
        assert abs(estimate.value - value) < 3 * estimate.error, (name, estimate, value)


def test_temperature_scan_continues_each_run_from_the_previous_one():
    lattice = bm.SquareLattice(4)
    temperatures = [3.0, 2.0]
    scan = bm.temperature_scan(lattice, None, temperatures, n_samples=50, n_chains=2, burn_in=5, rng=SEED)
    assert set(scan) == {"energy_per_unit", "magnetization", "abs_magnetization", "susceptibility", "specific_heat", "binder"}
    assert scan["energy_per_unit"].value.shape == (2,)
    # The same as two calls to sample sharing one generator and chaining final states.
    gen = np.random.default_rng(SEED)
    first = bm.sample(lattice, None, 3.0, n_samples=50, n_chains=2, burn_in=5, rng=gen)
    second = bm.sample(lattice, None, 2.0, n_samples=50, n_chains=2, burn_in=5, initial=first.final_state, rng=gen)
    expected = [bm.thermal_averages(r)["energy_per_unit"].value for r in (first, second)]
    np.testing.assert_allclose(scan["energy_per_unit"].value, expected)
