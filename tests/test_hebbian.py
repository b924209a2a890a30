"""Hebb's rule as weights, and the energy gradient it follows."""
import numpy as np
import pytest

import bmlib as bm


def test_energy_gradient_in_a_weight_is_minus_the_product():
    # dE/dw_ij = -s_i s_j, checked by finite differences on a random model.
    rng = np.random.default_rng(3)
    A = np.triu(rng.normal(size=(10, 10)), 1)
    W, b = A + A.T, rng.normal(size=10)
    s = rng.choice([-1, 1], size=10)
    for i, j in [(3, 8), (0, 1), (2, 9)]:
        step = np.zeros_like(W)
        step[i, j] = step[j, i] = 1e-3
        slope = (bm.energy(s, W + step, b) - bm.energy(s, W - step, b)) / 2e-3
        assert slope == pytest.approx(-s[i] * s[j])


def test_one_pattern_is_stable_under_its_hebbian_weights():
    rng = np.random.default_rng(4)
    s = rng.choice([-1, 1], size=10)
    W = bm.hebbian_weights(s)
    np.testing.assert_array_equal(W, W.T)
    assert np.all(np.diag(W) == 0)
    assert bm.is_stable(s, W) and bm.is_stable(-s, W)
    np.testing.assert_allclose(bm.local_fields(s, W), 9 * s)


def test_hebbian_weights_average_over_patterns():
    P = np.array([[1, 1, -1], [1, -1, -1]])
    W = bm.hebbian_weights(P, scale=2.0)
    expected = 2.0 * (np.outer(P[0], P[0]) + np.outer(P[1], P[1])) / 2
    np.fill_diagonal(expected, 0)
    np.testing.assert_array_equal(W, expected)


def test_hebbian_weights_want_spins():
    with pytest.raises(ValueError, match="spins"):
        bm.hebbian_weights([0, 1, 1])


def test_one_stored_pattern_is_kept_and_descent_never_raises_the_energy():
    curve = bm.hebbian_recall(n=30, loads=[1 / 30], n_runs=3, rng=0)
    assert curve.overlap[0] == 1.0 and curve.retrieved[0] == 1.0
    from bmlib.models.hebbian import _descend_all

    rng = np.random.default_rng(5)
    patterns = rng.choice([-1.0, 1.0], size=(8, 40))
    W = bm.hebbian_weights(patterns)
    starts = rng.choice([-1.0, 1.0], size=(20, 40))
    ends = _descend_all(starts, W)
    assert np.all(bm.energy(ends, W) <= bm.energy(starts, W) + 1e-12)
    assert all(bm.is_stable(s, W) for s in ends)  # every row stopped at a fixed point


def test_recall_collapses_above_the_capacity():
    """Seed 1: at alpha = 0.05 descent keeps the patterns; at 0.3, far above 0.138, it does not."""
    curve = bm.hebbian_recall(n=200, loads=[0.05, 0.3], n_runs=2, rng=1)
    assert curve.overlap[0] > 0.99 and curve.retrieved[0] > 0.95
    assert curve.overlap[1] < 0.8 and curve.retrieved[1] < 0.5


def test_recall_matches_a_plain_count_on_small_n():
    from bmlib.models.hebbian import _descend_all

    rng = np.random.default_rng(2)
    patterns = rng.choice([-1.0, 1.0], size=(3, 12))
    W = bm.hebbian_weights(patterns)
    ends = _descend_all(patterns, W)
    for p, e in zip(patterns, ends):  # the same as energy_descent, unit by unit
        np.testing.assert_array_equal(e, bm.energy_descent(p, W).final_state)


def test_synchronous_updates_find_fixed_points_and_two_cycles():
    path = bm.synchronous_updates([1, -1], [[0, 1], [1, 0]])
    assert path.period == 2 and np.all(path.energies == 1.0)
    path = bm.synchronous_updates([1, 1, -1], bm.hebbian_weights([1, 1, 1]))
    assert path.period == 1 and path.states[-1].tolist() == [1.0, 1.0, 1.0]
    # Symmetric weights: every run ends in a fixed point or a two-cycle (never a longer cycle).
    rng = np.random.default_rng(3)
    for _ in range(50):
        A = np.triu(rng.normal(size=(7, 7)), 1)
        path = bm.synchronous_updates(rng.choice([-1, 1], size=7), A + A.T, max_iter=200)
        assert path.period in (1, 2)


def test_bad_input_for_recall_and_synchronous_updates():
    with pytest.raises(ValueError, match=r"loads\[0\] must give between 1 and 10 n patterns"):
        bm.hebbian_recall(n=10, loads=[0.01])
    with pytest.raises(ValueError, match="n must be at most 1000"):
        bm.hebbian_recall(n=2000)
    with pytest.raises(ValueError, match="s must hold spins"):
        bm.synchronous_updates([1, 0], [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match=r"s must have shape \(2,\)"):
        bm.synchronous_updates([[1, 1], [1, 1]], [[0, 1], [1, 0]])


@pytest.mark.parametrize("draft, words", [
    (lambda s, W, b: __import__("bmlib.exercises.energy", fromlist=["_sequential"])._sequential(s, W, b),
     "asynchronous sweep"),
    (lambda s, W, b: np.sign(W @ s + b), "np.sign gives 0"),
    (lambda s, W, b: np.where(W @ s + b >= 0, 1.0, -1.0), "turns it to +1"),
])
def test_synchronous_checker_names_the_mistake(draft, words, capsys):
    assert bm.check_synchronous_step(draft, hint=True) is False
    assert words in " ".join(capsys.readouterr().out.split())


def test_a_field_that_is_zero_in_exact_arithmetic_keeps_its_unit():
    """Weights in thirds: some fields are exactly 0 but compute as +-1e-17; the unit must keep its value."""
    rng = np.random.default_rng(7)
    patterns = rng.choice([-1.0, 1.0], size=(3, 9))
    W = bm.hebbian_weights(patterns)
    K = patterns.T @ patterns  # 3 W off the diagonal, in exact integers
    np.fill_diagonal(K, 0)
    found = 0
    for s in bm.all_states(9):
        zero = np.flatnonzero(K @ s == 0)
        if zero.size:
            step = bm.synchronous_updates(s, W, max_iter=1).states[1]
            np.testing.assert_array_equal(step[zero], s[zero])
            found += 1
    assert found > 50  # the case is common, so the test means something
