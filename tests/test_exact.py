"""Exact enumeration against an independent brute-force sum and exact identities.

The reference here is deliberately plain: itertools.product over states and
a Python sum of exp(-E/T), written without any bmlib helper.
"""
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bmlib as bm
from conftest import random_model


def brute_force(W, b, T, units):
    """log Z, probabilities, <s_i>, <s_i s_j>, <E> and Var(E) by a plain loop."""
    n = len(b)
    values = (-1, 1) if units == "spins" else (0, 1)
    states, energies = [], []
    for s in itertools.product(values, repeat=n):
        e = 0.0
        for i in range(n):
            e -= b[i] * s[i]
            for j in range(i + 1, n):
                e -= W[i][j] * s[i] * s[j]
        states.append(s)
        energies.append(e)
    e_min = min(energies)
    weights = [math.exp(-(e - e_min) / T) for e in energies]
    Z = sum(weights)
    p = np.array(weights) / Z
    S = np.array(states, dtype=float)
    E = np.array(energies)
    mean_E = float(p @ E)
    return {
        "log_z": math.log(Z) - e_min / T,
        "p": p,
        "mean": p @ S,
        "second": S.T @ (p[:, None] * S),
        "mean_energy": mean_E,
        "var_energy": float(p @ (E - mean_E) ** 2),
        "states": S,
    }


@pytest.mark.parametrize("units", ["spins", "bits"])
@pytest.mark.parametrize("n", [1, 2, 5, 9])
@pytest.mark.parametrize("T", [0.3, 1.0, 4.0])
def test_matches_brute_force(n, T, units, rng):
    W, b = random_model(n, rng)
    ref = brute_force(W.tolist(), b.tolist(), T, units)
    assert bm.log_partition(W, b, T, units) == pytest.approx(ref["log_z"], rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(bm.boltzmann_distribution(W, b, T, units), ref["p"], rtol=1e-10, atol=1e-15)
    mean, second = bm.exact_moments(W, b, T, units)
    np.testing.assert_allclose(mean, ref["mean"], atol=1e-12)
    np.testing.assert_allclose(second, ref["second"], atol=1e-12)
    mean_e, var_e = bm.exact_energy_moments(W, b, T, units)
    assert mean_e == pytest.approx(ref["mean_energy"], abs=1e-10)
    assert var_e == pytest.approx(ref["var_energy"], abs=1e-10)
    # The documented state order: row k is k in binary, unit 0 most significant.
    np.testing.assert_array_equal(bm.all_states(n, units), ref["states"])


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_blocked_enumeration_matches_brute_force_across_blocks(units, rng, monkeypatch):
    """Force several leading blocks and chunks so the block bookkeeping is exercised."""
    import bmlib.exact.enumeration as exact

    monkeypatch.setattr(exact, "_TRAILING_UNITS", 3)
    monkeypatch.setattr(exact, "_CHUNK_STATES", 16)
    n, T = 9, 0.7
    W, b = random_model(n, rng)
    ref = brute_force(W.tolist(), b.tolist(), T, units)
    assert bm.log_partition(W, b, T, units) == pytest.approx(ref["log_z"], rel=1e-12)
    np.testing.assert_allclose(bm.boltzmann_distribution(W, b, T, units), ref["p"], rtol=1e-10, atol=1e-15)
    mean, second = bm.exact_moments(W, b, T, units)
    np.testing.assert_allclose(mean, ref["mean"], atol=1e-12)
    np.testing.assert_allclose(second, ref["second"], atol=1e-12)


def test_energy_matches_definition(rng):
    W, b = random_model(6, rng)
    S = bm.all_states(6)
    for s in S[::7]:
        plain = -sum(W[i, j] * s[i] * s[j] for i in range(6) for j in range(i + 1, 6)) - b @ s
        assert bm.energy(s, W, b) == pytest.approx(plain, abs=1e-12)
    np.testing.assert_allclose(bm.energy(S, W, b), [bm.energy(s, W, b) for s in S], atol=1e-12)
    assert bm.energy(S.reshape(4, 16, 6), W, b).shape == (4, 16)


def test_flip_energy_changes_are_energy_differences(rng):
    W, b = random_model(7, rng)
    for units in ("spins", "bits"):
        for s in bm.all_states(7, units)[::11]:
            dE = bm.flip_energy_changes(s, W, b, units)
            for i in range(7):
                t = s.astype(float).copy()
                t[i] = -t[i] if units == "spins" else 1 - t[i]
                assert dE[i] == pytest.approx(bm.energy(t, W, b) - bm.energy(s, W, b), abs=1e-12)


def test_stable_states_are_exactly_the_local_minima(rng):
    W, b = random_model(6, rng)
    S = bm.all_states(6)
    E = bm.energy(S, W, b)
    index = {tuple(s): k for k, s in enumerate(S)}
    for k, s in enumerate(S):
        neighbours = []
        for i in range(6):
            t = s.copy()
            t[i] = -t[i]
            neighbours.append(E[index[tuple(t)]])
        assert bm.is_stable(s, W, b) == (E[k] <= min(neighbours))


def test_energy_descent_ends_in_a_stable_state_and_always_goes_down(rng):
    W, b = random_model(12, rng)
    for start in range(5):
        s0 = rng.choice([-1, 1], size=12)
        for order in ("sequential", "random"):
            path = bm.energy_descent(s0, W, b, scan=order, rng=start)
            assert path.converged
            assert bm.is_stable(path.final_state, W, b)
            assert np.all(np.diff(path.energies) < 0)
            np.testing.assert_allclose(path.energies, bm.energy(path.states, W, b))


# --- limits in temperature ------------------------------------------------


def test_no_overflow_at_low_temperature_and_ground_state_limit(rng):
    W, b = random_model(10, rng)
    T = 1e-3
    E = bm.energy(bm.all_states(10), W, b)
    log_z = bm.log_partition(W, b, T)
    assert np.isfinite(log_z)
    # As T -> 0, log Z -> -E_min / T (the ground state is unique for random couplings).
    assert log_z == pytest.approx(-E.min() / T, rel=1e-9)
    p = bm.boltzmann_distribution(W, b, T)
    assert p[np.argmin(E)] == pytest.approx(1.0, abs=1e-12)
    mean, _ = bm.exact_moments(W, b, T)
    np.testing.assert_allclose(mean, bm.all_states(10)[np.argmin(E)], atol=1e-12)


def test_high_temperature_limit_is_n_log_2(rng):
    W, b = random_model(8, rng)
    for T in (1e3, 1e6, 1e9):
        # log Z = n log 2 + O(1/T)
        assert bm.log_partition(W, b, T) == pytest.approx(8 * math.log(2), abs=20 / T)
    assert bm.log_partition(W, b, 1e12) == pytest.approx(8 * math.log(2), rel=1e-10)


# --- clamped statistics ---------------------------------------------------


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_clamped_moments_match_conditioned_brute_force(units, rng):
    n, T = 7, 0.8
    W, b = random_model(n, rng)
    ref = brute_force(W.tolist(), b.tolist(), T, units)
    clamped = [5, 1, 3]
    patterns = bm.all_states(3, units)[[0, 3, 6]]
    per_mean, per_second, per_logz = [], [], []
    for v in patterns:
        mask = np.all(ref["states"][:, clamped] == v, axis=1)
        p = ref["p"][mask] / ref["p"][mask].sum()
        S = ref["states"][mask]
        per_mean.append(p @ S)
        per_second.append(S.T @ (p[:, None] * S))
        # log Z(v) = log Z + log P(v)
        per_logz.append(ref["log_z"] + math.log(ref["p"][mask].sum()))
        mean, second = bm.clamped_moments(W, b, T, units, clamped=clamped, values=v)
        np.testing.assert_allclose(mean, per_mean[-1], atol=1e-12)
        np.testing.assert_allclose(second, per_second[-1], atol=1e-12)
    mean, second = bm.clamped_moments(W, b, T, units, clamped=clamped, values=patterns, average=False)
    np.testing.assert_allclose(mean, per_mean, atol=1e-12)
    np.testing.assert_allclose(second, per_second, atol=1e-12)
    mean, second = bm.clamped_moments(W, b, T, units, clamped=clamped, values=patterns)
    np.testing.assert_allclose(mean, np.mean(per_mean, axis=0), atol=1e-12)
    np.testing.assert_allclose(second, np.mean(per_second, axis=0), atol=1e-12)
    np.testing.assert_allclose(bm.clamped_log_partition(W, b, T, units, clamped=clamped, values=patterns), per_logz, atol=1e-10)


def test_clamped_with_many_free_units_uses_blocked_path(rng, monkeypatch):
    import bmlib.exact.enumeration as exact

    monkeypatch.setattr(exact, "_TRAILING_UNITS", 2)
    n, T = 8, 1.3
    W, b = random_model(n, rng)
    ref = brute_force(W.tolist(), b.tolist(), T, "spins")
    v = np.array([1, -1])
    mask = np.all(ref["states"][:, [0, 7]] == v, axis=1)
    p = ref["p"][mask] / ref["p"][mask].sum()
    mean, _ = bm.clamped_moments(W, b, T, clamped=[0, 7], values=v)
    np.testing.assert_allclose(mean, p @ ref["states"][mask], atol=1e-12)
    assert bm.clamped_log_partition(W, b, T, clamped=[0, 7], values=v) == pytest.approx(
        ref["log_z"] + math.log(ref["p"][mask].sum()), abs=1e-10
    )


def test_clamping_every_unit_gives_the_pattern(rng):
    W, b = random_model(4, rng)
    v = np.array([1, -1, -1, 1])
    mean, second = bm.clamped_moments(W, b, clamped=[0, 1, 2, 3], values=v)
    np.testing.assert_array_equal(mean, v)
    np.testing.assert_array_equal(second, np.outer(v, v))
    assert bm.clamped_log_partition(W, b, clamped=[0, 1, 2, 3], values=v) == pytest.approx(-bm.energy(v, W, b))


# --- properties -----------------------------------------------------------

models = st.integers(min_value=1, max_value=7).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.integers(min_value=0, max_value=2**32 - 1),
        st.floats(min_value=0.2, max_value=5.0),
        st.sampled_from(["spins", "bits"]),
    )
)


@settings(max_examples=40, deadline=None)
@given(models)
def test_probabilities_sum_to_one_and_mean_is_gradient_of_log_z(model):
    n, seed, T, units = model
    W, b = random_model(n, np.random.default_rng(seed))
    p = bm.boltzmann_distribution(W, b, T, units)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(p >= 0)
    mean, second = bm.exact_moments(W, b, T, units)
    # <s_i> = T d(log Z)/d b_i, central differences with step h (error O(h^2)).
    h = 1e-5
    for i in range(n):
        e = np.zeros(n)
        e[i] = h
        fd = T * (bm.log_partition(W, b + e, T, units) - bm.log_partition(W, b - e, T, units)) / (2 * h)
        assert fd == pytest.approx(mean[i], abs=1e-6)
    # <s_i s_j> = T d(log Z)/d W_ij for i != j (W_ij and W_ji move together).
    if n >= 2:
        D = np.zeros((n, n))
        D[0, n - 1] = D[n - 1, 0] = h
        fd = T * (bm.log_partition(W + D, b, T, units) - bm.log_partition(W - D, b, T, units)) / (2 * h)
        assert fd == pytest.approx(second[0, n - 1], abs=1e-6)


@settings(max_examples=30, deadline=None)
@given(models)
def test_bits_and_spins_parametrizations_give_identical_distributions(model):
    n, seed, T, _ = model
    W, b = random_model(n, np.random.default_rng(seed))
    Wx, bx, offset = bm.to_bits_parameters(W, b)
    np.testing.assert_allclose(
        bm.boltzmann_distribution(W, b, T, "spins"), bm.boltzmann_distribution(Wx, bx, T, "bits"), atol=1e-12
    )
    assert bm.log_partition(W, b, T, "spins") == pytest.approx(bm.log_partition(Wx, bx, T, "bits") - offset / T)
    s = bm.all_states(n, "spins")
    np.testing.assert_allclose(bm.energy(s, W, b), bm.energy(bm.to_bits(s), Wx, bx) + offset, atol=1e-10)
    Ws, bs, back = bm.to_spins_parameters(Wx, bx)
    np.testing.assert_allclose(Ws, W, atol=1e-12)
    np.testing.assert_allclose(bs, b, atol=1e-12)
    assert back == pytest.approx(-offset)
    # The same sense both ways (as book/notation.md says): E_in = E_out + offset, log Z_in = log Z_out - offset / T.
    np.testing.assert_allclose(bm.energy(bm.to_bits(s), Wx, bx), bm.energy(s, Ws, bs) + back, atol=1e-10)
    assert bm.log_partition(Wx, bx, T, "bits") == pytest.approx(bm.log_partition(Ws, bs, T, "spins") - back / T)


@settings(max_examples=30, deadline=None)
@given(models)
def test_permuting_units_permutes_the_results(model):
    n, seed, T, units = model
    rng = np.random.default_rng(seed)
    W, b = random_model(n, rng)
    perm = rng.permutation(n)
    Wp, bp = W[np.ix_(perm, perm)], b[perm]
    assert bm.log_partition(Wp, bp, T, units) == pytest.approx(bm.log_partition(W, b, T, units), rel=1e-12)
    mean, second = bm.exact_moments(W, b, T, units)
    mean_p, second_p = bm.exact_moments(Wp, bp, T, units)
    np.testing.assert_allclose(mean_p, mean[perm], atol=1e-12)
    np.testing.assert_allclose(second_p, second[np.ix_(perm, perm)], atol=1e-12)
    # The probability of a state does not depend on how its units are numbered.
    S = bm.all_states(n, units)
    p = bm.boltzmann_distribution(W, b, T, units)
    p_perm = bm.boltzmann_distribution(Wp, bp, T, units)
    codes = (S[:, perm] > 0).astype(int) @ (1 << np.arange(n - 1, -1, -1))
    np.testing.assert_allclose(p_perm[codes], p, atol=1e-12)


def test_conversions_of_states():
    np.testing.assert_array_equal(bm.to_spins(bm.all_states(3, "bits")), bm.all_states(3, "spins"))
    np.testing.assert_array_equal(bm.to_bits(bm.all_states(3, "spins")), bm.all_states(3, "bits"))
    assert bm.to_bits(np.array([-1.0, 1.0])).dtype == float


def test_large_n_runs_in_bounded_memory():
    """n = 22 goes through many chunks; the answer matches the closed form of free spins."""
    n = 22
    b = np.linspace(-1, 1, n)
    # With W = 0 the units are independent: log Z = sum log(2 cosh(b_i / T)).
    T = 0.7
    assert bm.log_partition(np.zeros((n, n)), b, T) == pytest.approx(np.sum(np.log(2 * np.cosh(b / T))), rel=1e-12)
    mean, _ = bm.exact_moments(np.zeros((n, n)), b, T)
    np.testing.assert_allclose(mean, np.tanh(b / T), atol=1e-12)


def test_moments_are_named_and_unpack_as_before():
    # 1.1 names the pairs that 1.0 returned as bare tuples; unpacking and indexing are unchanged.
    W = bm.sk_couplings(4, rng=0)
    moments = bm.exact_moments(W)
    mean, second = moments
    assert isinstance(moments, bm.Moments) and moments.mean is mean and moments[1] is second
    clamped = bm.clamped_moments(W, clamped=[0], values=[1])
    assert isinstance(clamped, bm.Moments) and clamped.second.shape == (4, 4)
    energy = bm.exact_energy_moments(W)
    mean_energy, variance = energy
    assert isinstance(energy, bm.EnergyMoments) and energy.mean_energy == mean_energy
    assert energy.energy_variance == variance
