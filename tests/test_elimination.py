"""Variable elimination (bmlib/exact/elimination.py) against independent exact answers.

Truth: enumeration of all 2**n states (n <= 16) on random sparse graphs,
trees, cycles and lattices with random fields and couplings, in both units;
Kaufman's formula on uniform tori; the 1-D transfer matrix; means as finite
differences of log Z; the lowest energy by brute force.
"""
import numpy as np
import pytest

import bmlib as bm
from bmlib.exact.elimination import MAX_ELIMINATION_UNITS, ORDERS


def random_sparse(n, rng, p=0.3, scale=1.0):
    mask = np.triu(rng.random((n, n)) < p, 1)
    W = np.where(mask, rng.normal(scale=scale, size=(n, n)), 0.0)
    return W + W.T, rng.normal(scale=scale, size=n)


def random_tree(n, rng):
    W = np.zeros((n, n))
    for v in range(1, n):
        u = int(rng.integers(v))
        W[u, v] = W[v, u] = rng.normal()
    return W, rng.normal(size=n)


def cycle(n, rng):
    W = np.zeros((n, n))
    for v in range(n):
        u = (v + 1) % n
        W[u, v] = W[v, u] = rng.normal()
    return W, rng.normal(size=n)


def lattice(rows, cols, rng, periodic=True):
    base = bm.square_lattice_couplings(rows, cols, periodic=periodic)
    W = np.triu(base * rng.normal(size=base.shape), 1)
    return W + W.T, rng.normal(size=rows * cols)


GRAPHS = {
    "sparse-12": lambda rng: random_sparse(12, rng),
    "sparse-16": lambda rng: random_sparse(16, rng, p=0.2),
    "tree-15": lambda rng: random_tree(15, rng),
    "cycle-13": lambda rng: cycle(13, rng),
    "torus-4x4": lambda rng: lattice(4, 4, rng),
    "open-3x5": lambda rng: lattice(3, 5, rng, periodic=False),
    "disconnected": lambda rng: (np.zeros((6, 6)), rng.normal(size=6)),
}


@pytest.mark.parametrize("units", ["spins", "bits"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_log_z_means_and_edge_moments_equal_enumeration(name, units):
    rng = np.random.default_rng(sorted(GRAPHS).index(name))
    W, b = GRAPHS[name](rng)
    for T in (0.4, 1.0, 3.0):
        exact = bm.log_partition(W, b, T, units)
        assert bm.sparse_log_partition(W, b, T, units) == pytest.approx(exact, rel=1e-12, abs=1e-12)
        result = bm.sparse_moments(W, b, T, units)
        mean, second = bm.exact_moments(W, b, T, units)
        assert result.log_z == pytest.approx(exact, rel=1e-12, abs=1e-12)
        np.testing.assert_allclose(result.mean, mean, atol=1e-11)
        i, j = np.triu_indices(len(b), 1)
        coupled = W[i, j] != 0
        np.testing.assert_array_equal(result.edges, np.column_stack([i[coupled], j[coupled]]))
        np.testing.assert_allclose(result.edge_moments, second[i[coupled], j[coupled]], atol=1e-11)


@pytest.mark.parametrize("order", [o for o in ORDERS if o not in ("rows", "columns")])
def test_every_order_gives_the_same_answer(order):
    W, b = lattice(4, 3, np.random.default_rng(5))
    exact = bm.log_partition(W, b, 1.3)
    assert bm.sparse_log_partition(W, b, 1.3, order=order) == pytest.approx(exact, rel=1e-12)
    reverse = list(range(12))[::-1]
    assert bm.sparse_log_partition(W, b, 1.3, order=reverse) == pytest.approx(exact, rel=1e-12)


def test_the_lattice_operator_is_the_same_model_and_offers_rows_and_columns():
    operator = bm.SquareLattice(4, 6, J=0.8, h=0.3)
    W, b = operator.dense_model()
    exact = bm.log_partition(W, b, 2.0)
    for order in ("auto", "rows", "columns"):
        assert bm.sparse_log_partition(operator, T=2.0, order=order) == pytest.approx(exact, rel=1e-12)
    # Rows of 6 on a torus cut 2 x 6 bonds; columns of 4 cut 2 x 4: columns are cheaper.
    assert bm.elimination_plan(operator, "columns").width < bm.elimination_plan(operator, "rows").width
    assert bm.elimination_plan(operator).work <= bm.elimination_plan(operator, "columns").work


@pytest.mark.parametrize("L", [4, 6, 8, 10])
def test_uniform_torus_equals_kaufman(L):
    W = bm.square_lattice_couplings(L)
    for T in (1.5, bm.critical_temperature(), 3.5):
        assert bm.sparse_log_partition(W, T=T) == pytest.approx(bm.kaufman_log_partition(L, T=T), rel=1e-13)


def test_open_chain_equals_the_transfer_matrix_and_has_width_one():
    W = bm.chain_couplings(200, J=0.7, periodic=False)
    assert bm.elimination_plan(W).width == 1
    for T in (0.3, 1.0, 4.0):
        assert bm.sparse_log_partition(W, T=T) == pytest.approx(bm.chain_log_partition(200, T=T, J=0.7, periodic=False), rel=1e-13)


def test_means_are_derivatives_of_log_z():
    W, b = lattice(6, 6, np.random.default_rng(9), periodic=False)  # 36 units: past enumeration
    T, h = 1.7, 1e-5
    result = bm.sparse_moments(W, b, T)
    for i in (0, 17, 35):
        step = np.zeros(36)
        step[i] = h
        derivative = T * (bm.sparse_log_partition(W, b + step, T) - bm.sparse_log_partition(W, b - step, T)) / (2 * h)
        assert result.mean[i] == pytest.approx(derivative, abs=1e-8)
    i, j = result.edges[3]
    D = np.zeros((36, 36))
    D[i, j] = D[j, i] = h
    derivative = T * (bm.sparse_log_partition(W + D, b, T) - bm.sparse_log_partition(W - D, b, T)) / (2 * h)
    assert result.edge_moments[3] == pytest.approx(derivative, abs=1e-8)


@pytest.mark.parametrize("units", ["spins", "bits"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_most_probable_state_has_the_lowest_energy(name, units):
    W, b = GRAPHS[name](np.random.default_rng(40 + sorted(GRAPHS).index(name)))
    state, energy = bm.most_probable_state(W, b, units)
    energies = bm.energy(bm.all_states(len(b), units), W, b)
    assert energy == pytest.approx(energies.min(), abs=1e-12)
    assert bm.energy(state, W, b) == pytest.approx(energy, abs=1e-12)


def test_ties_in_the_most_probable_state_go_to_the_first_value():
    # Zero couplings and fields: every state ties; the rule picks -1 (bits: 0) everywhere.
    state, energy = bm.most_probable_state(np.zeros((5, 5)))
    assert state.tolist() == [-1.0] * 5 and energy == 0.0
    # A ferromagnetic chain without field has two ground states; the all -1 one is first.
    state, _ = bm.most_probable_state(bm.chain_couplings(6))
    assert state.tolist() == [-1.0] * 6


def test_cost_is_stated_and_large_work_refused_with_the_alternatives():
    plan = bm.elimination_plan(bm.square_lattice_couplings(16))  # torus: width about 2 L
    assert plan.width + 1 > MAX_ELIMINATION_UNITS
    with pytest.raises(ValueError, match=r"table of 2\*\*\d+ entries.*log_z_ais.*kaufman_log_partition"):
        bm.sparse_log_partition(bm.square_lattice_couplings(16))
    dense = bm.sk_couplings(40, rng=0)
    with pytest.raises(ValueError, match="too densely connected"):
        bm.sparse_moments(dense)


def test_bad_orders_are_refused_by_name():
    W = bm.chain_couplings(4)
    with pytest.raises(ValueError, match="order must list every unit 0..3 exactly once"):
        bm.sparse_log_partition(W, order=[0, 1, 1, 3])
    with pytest.raises(ValueError, match="order must be one of"):
        bm.sparse_log_partition(W, order="fastest")
    with pytest.raises(ValueError, match="needs a SquareLattice"):
        bm.elimination_plan(W, "rows")
    with pytest.raises(TypeError, match="order must be a method name or a sequence"):
        bm.sparse_log_partition(W, order=3.5)


def test_extreme_temperatures_stay_finite():
    W, b = lattice(3, 3, np.random.default_rng(2))
    for T in (1e-6, 1e6):
        assert bm.sparse_log_partition(W, b, T) == pytest.approx(bm.log_partition(W, b, T), rel=1e-12)
    result = bm.sparse_moments(W, b, 1e-6)
    assert np.all(np.isfinite(result.mean)) and np.all(np.abs(result.mean) <= 1)


def test_log_partition_chooses_elimination_where_it_is_cheaper():
    # 36 units on an open lattice: past enumeration, cheap to eliminate.
    W, b = lattice(6, 6, np.random.default_rng(11), periodic=False)
    assert bm.log_partition(W, b, 1.5) == pytest.approx(bm.sparse_log_partition(W, b, 1.5), rel=1e-14)
    # 24 units on a chain: both routes possible; elimination is taken and agrees with the transfer matrix.
    assert bm.log_partition(bm.chain_couplings(24), T=0.8) == pytest.approx(
        bm.chain_log_partition(24, T=0.8), rel=1e-13)
    # Dense and large: still refused, and the message names the sparse route.
    with pytest.raises(ValueError, match="sparse_log_partition"):
        bm.log_partition(bm.sk_couplings(32, rng=1))


def test_belief_propagation_can_return_the_symmetric_fixed_point():
    """Zero-field 4 x 4 torus at beta = 0.44: exact <s_i> = 0; "best" orders, "uniform" does not."""
    W = bm.square_lattice_couplings(4)
    T = 1 / 0.44
    exact_mean = bm.sparse_moments(W, T=T).mean
    assert np.abs(exact_mean).max() < 1e-12
    best = bm.belief_propagation(W, T=T, rng=0)
    uniform = bm.belief_propagation(W, T=T, start="uniform")
    assert np.abs(best.m).min() > 0.8  # an ordered fixed point (|m| = 0.8513)
    assert uniform.converged and np.abs(uniform.m).max() < 1e-12
    assert best.log_z > uniform.log_z  # why "best" keeps the ordered one
    assert bm.log_z_bethe(W, T=T, start="uniform").log_z == pytest.approx(uniform.log_z)


def test_belief_propagation_on_a_tree_makes_one_run():
    rng = np.random.default_rng(3)
    W, b = random_tree(12, rng)
    one = bm.belief_propagation(W, b, start="uniform")
    several = bm.belief_propagation(W, b, n_starts=4, rng=0)
    assert several.total_iterations == one.total_iterations  # no extra starts on a tree
    assert several.log_z == pytest.approx(bm.log_partition(W, b), rel=1e-10)
    np.testing.assert_allclose(several.m, bm.sparse_moments(W, b).mean, atol=1e-9)
    cyc, bc = cycle(8, rng)
    assert bm.belief_propagation(cyc, bc, n_starts=4, rng=0).total_iterations > \
        bm.belief_propagation(cyc, bc, start="uniform").total_iterations  # a loop: several starts run


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_magnetization_and_susceptibility_equal_enumeration(units):
    W, b = lattice(4, 4, np.random.default_rng(21))
    for T in (0.8, 2.0, 5.0):
        res = bm.sparse_magnetization(W, b, T, units)
        mean, second = bm.exact_moments(W, b, T, units)
        chi = (second.sum() - mean.sum() ** 2) / (16 * T)  # Var(M) / (n T)
        assert res.m == pytest.approx(mean.mean(), abs=1e-12)
        assert res.chi == pytest.approx(chi, rel=1e-8, abs=1e-10)
    with pytest.raises(ValueError, match="step must be at most 0.01"):
        bm.sparse_magnetization(W, b, step=0.1)


def test_edwards_anderson_lattice_is_a_signed_square_lattice():
    base = bm.square_lattice_couplings(6, 4)
    W = bm.edwards_anderson_couplings(6, 4, J=0.7, rng=3)
    np.testing.assert_array_equal(W != 0, base != 0)  # the same bonds
    np.testing.assert_allclose(np.abs(W), 0.7 * base)
    assert np.allclose(W, W.T) and 40 < (W > 0).sum() < 56  # 48 bonds, about half positive
    np.testing.assert_array_equal(bm.edwards_anderson_couplings(6, 4, J=0.7, rng=3), W)
    # A spin glass past enumeration still has an exact log Z by elimination:
    glass = bm.edwards_anderson_couplings(4, rng=1)
    assert bm.sparse_log_partition(glass, T=0.7) == pytest.approx(bm.log_partition(glass, T=0.7), rel=1e-13)
