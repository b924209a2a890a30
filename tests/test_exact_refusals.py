"""Exact answers refuse hopeless work before doing it, and stay right at the float range's edges.

Refusals are tested by what they say (the cost) and by what they never do
(build the dense matrix of a lattice operator, run the greedy planner on a
graph whose core already rules elimination out, or plan past the first
cluster beyond the limit), never by a clock. The plans that fit are pinned to
the ones bmlib chose before planning stopped early (fingerprints recorded
from the full planner), so no stored chapter output can move.
"""
import hashlib
import re
import tracemalloc

import numpy as np
import pytest

import bmlib as bm
from bmlib.exact import _elimination_plan as planner
from bmlib.exact.elimination import MAX_ELIMINATION_UNITS

# --- item 2: oversized exact requests are refused before the work -------------------------


@pytest.fixture
def no_dense_lattice(monkeypatch):
    """Make building a SquareLattice's dense matrix an error: a refusal must come before it."""
    def never(self):
        raise AssertionError(f"the dense matrix of {self.describe()} was built")
    monkeypatch.setattr(bm.SquareLattice, "dense_model", never)


@pytest.mark.parametrize("call", [
    lambda: bm.sparse_log_partition(bm.SquareLattice(100), T=2.5),
    lambda: bm.sparse_moments(bm.SquareLattice(100), T=2.5),
    lambda: bm.most_probable_state(bm.SquareLattice(100)),
    lambda: bm.sparse_magnetization(bm.SquareLattice(100, 60), T=2.5),
], ids=["log_z", "moments", "most_probable", "magnetization"])
def test_a_lattice_operator_past_the_limit_is_refused_before_its_matrix_is_built(call, no_dense_lattice):
    # The r x c grid has treewidth min(r, c): every order has a cluster of at least min(r, c) + 1 units.
    with pytest.raises(ValueError, match=r"x \d+ lattice has treewidth at least (100|60).*cluster of at least "
                                         r"(101|61) units, a table of 2\*\*(101|61) entries.*log_z_ais"):
        call()


def test_log_partition_of_a_large_lattice_operator_is_refused_before_its_matrix_is_built(no_dense_lattice):
    with pytest.raises(ValueError, match=r"log_partition over 2\*\*10000 states is refused.*"
                                         r"100 x 100 lattice has treewidth at least 100"):
        bm.log_partition(bm.SquareLattice(100), T=2.5)


def test_the_refusal_of_a_60_x_60_lattice_allocates_next_to_nothing():
    # Before: 640 MB (its dense matrix and the copies made checking it), 21.6 s.
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"treewidth at least 60"):
            bm.sparse_log_partition(bm.SquareLattice(60), T=2.5)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20


def eliminated_before_refusal(message, method):
    found = re.search(rf"{method}[^;]*?after eliminating (\d+) of (\d+) units", message)
    assert found, message
    return int(found.group(1)), int(found.group(2))


def shuffled_lattice(L, seed):
    """A torus with its units renumbered at random: no grid is visible in the numbering, so it must be planned."""
    order = np.random.default_rng(seed).permutation(L * L)
    return bm.square_lattice_couplings(L)[np.ix_(order, order)]


def test_planning_stops_at_the_first_cluster_past_the_limit():
    """The counts in the message are where the full orders first pass the limit (30 x 30 torus)."""
    W = shuffled_lattice(30, seed=1)
    with pytest.raises(ValueError) as refused:
        bm.sparse_log_partition(W, T=2.5)
    message = str(refused.value)
    smallest = []
    for method in ("min_fill", "natural"):
        full = bm.elimination_plan(W, method)  # the public planner still plans to the end
        sizes = [len(scope) + 1 for scope in full.scopes]
        first = next(k for k, size in enumerate(sizes) if size > MAX_ELIMINATION_UNITS)
        assert eliminated_before_refusal(message, method) == (first, 900)
        assert re.search(rf"{method}( makes)? a cluster of {sizes[first]} units", message), message
        smallest.append(sizes[first])
    # The cost stated first is the smallest of those clusters.
    assert re.search(rf"a cluster of {min(smallest)} units, a table of 2\*\*{min(smallest)} entries", message)


def test_a_dense_lattice_matrix_is_refused_by_its_grid_without_planning(monkeypatch):
    # Before: 20.9 s and the bare "n = 3600 units exceeds the limit of 30" refusal.
    def never(*args, **kwargs):
        raise AssertionError("the greedy planner ran")
    monkeypatch.setattr(planner, "_greedy_order", never)
    W = bm.square_lattice_couplings(60)
    with pytest.raises(ValueError, match=r"log_partition over 2\*\*3600 states is refused.*by variable elimination "
                                         r"is refused: its couplings contain a 60 x 60 grid.*cluster of at least 61 "
                                         r"units, a table of 2\*\*61 entries"):
        bm.log_partition(W, T=2.5)
    # A spin glass on a 30 x 40 lattice: the same bonds, signed; its narrow side decides.
    glass = bm.edwards_anderson_couplings(30, 40, rng=0)
    with pytest.raises(ValueError, match=r"contain a 30 x 40 grid.*treewidth is 30.*at least 31 units"):
        bm.sparse_moments(glass, T=1.0)


def test_a_shuffled_lattice_is_refused_after_a_partial_plan():
    W = shuffled_lattice(40, seed=2)
    with pytest.raises(ValueError) as refused:
        bm.log_partition(W, T=2.5)
    message = str(refused.value)
    assert "log_partition over 2**1600 states is refused" in message
    eliminated, n = eliminated_before_refusal(message, "min_fill")
    assert n == 1600 and 0 < eliminated < 1600


def test_a_dense_graph_is_refused_by_its_core_without_planning(monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("the greedy planner ran")
    monkeypatch.setattr(planner, "_greedy_order", never)
    W = bm.sk_couplings(1500, rng=0)  # every unit coupled to the 1499 others
    with pytest.raises(ValueError, match=r"cluster of at least 1500 units, a table of 2\*\*1500 entries.*"
                                         r"too densely connected"):
        bm.sparse_log_partition(W)
    with pytest.raises(ValueError, match=r"log_partition over 2\*\*1500 states is refused.*at least 1500 units"):
        bm.log_partition(W)
    # A clique of 28 units hidden in a sparse graph: its core rules every order out.
    W = bm.chain_couplings(200, periodic=False)
    W[:28, :28] = 1.0 - np.eye(28)
    with pytest.raises(ValueError, match=r"28 units each coupled to at least 27 others.*cluster of at least 28"):
        bm.sparse_log_partition(W)


def test_a_given_order_stops_at_its_first_cluster_past_the_limit():
    W = shuffled_lattice(40, seed=3)
    order = list(range(1600))
    sizes = [len(scope) + 1 for scope in bm.elimination_plan(W, order).scopes]
    first = next(k for k, size in enumerate(sizes) if size > MAX_ELIMINATION_UNITS)
    with pytest.raises(ValueError) as refused:
        bm.sparse_log_partition(W, order=order)
    assert eliminated_before_refusal(str(refused.value), "given") == (first, 1600)


def graphs():
    for L in (4, 6, 8, 10, 12):
        yield f"torus{L}", bm.square_lattice_couplings(L)
    for L in (5, 9, 16):
        yield f"open{L}", bm.square_lattice_couplings(L, periodic=False)
    yield "op4x6", bm.SquareLattice(4, 6, J=0.8, h=0.3)
    yield "op10x8", bm.SquareLattice(10, 8)
    yield "ea8", bm.edwards_anderson_couplings(8, rng=2)
    for n, p, seed in ((40, 0.08, 1), (120, 0.03, 2), (300, 0.012, 3)):
        rng = np.random.default_rng(seed)
        mask = np.triu(rng.random((n, n)) < p, 1)
        yield f"rand{n}", (mask + mask.T).astype(float)
    yield "chain200", bm.chain_couplings(200, periodic=False)


# (method, width, work, peak_bytes, sha1 of the order): elimination_plan's answers before the
# planner learned to stop early, recorded with the code of commit d3e86ee.
RECORDED_PLANS = {
    "torus4": ("min_fill", 6, 638, 2048, "0d748ece6370"),
    "torus6": ("min_fill", 11, 16446, 51456, "e475810805d8"),
    "torus8": ("min_fill", 16, 529406, 1376256, "20c9716f8070"),
    "torus10": ("min_fill", 23, 41775166, 142876672, "22f62ef5530d"),
    "torus12": ("min_fill", 26, 315313406, 1091076096, "b135e1d54b6c"),
    "open5": ("min_fill", 5, 574, 1152, "5c92b8bfb266"),
    "open9": ("min_fill", 11, 22798, 57856, "066dc50d0b9e"),
    "open16": ("natural", 16, 29884406, 1572864, "ba7069a59f8e"),
    "op4x6": ("min_fill", 8, 2430, 6912, "eea1bb29b316"),
    "op10x8": ("min_fill", 20, 5068030, 17473536, "f0a43fea285c"),
    "ea8": ("min_fill", 16, 529406, 1376256, "20c9716f8070"),
    "rand40": ("min_fill", 6, 772, 1984, "7bd070fd7d07"),
    "rand120": ("min_fill", 22, 26537002, 100692800, "f499746cd143"),
    "rand300": ("min_fill", 57, 622077954480741950, 2451084380664234704, "7bf1325b35c7"),
    "chain200": ("min_fill", 1, 798, 48, "08e3c3769990"),
}


def fingerprint(plan):
    return (plan.method, plan.width, plan.work, plan.peak_bytes, hashlib.sha1(repr(plan.order).encode()).hexdigest()[:12])


@pytest.mark.parametrize("name", sorted(RECORDED_PLANS))
def test_plans_are_the_ones_chosen_before(name):
    W = dict(graphs())[name]
    planner._PLANS.clear()
    assert fingerprint(bm.elimination_plan(W)) == RECORDED_PLANS[name]
    planner._PLANS.clear()
    operator = W
    dense, _ = bm._checks.check_model(W)
    bounded = planner._plan_for(dense, operator, "auto", limit=planner._unit_limit())
    if RECORDED_PLANS[name][1] + 1 <= MAX_ELIMINATION_UNITS:
        assert fingerprint(bounded) == RECORDED_PLANS[name]  # the plan that fits is the one used before
    else:
        assert not isinstance(bounded, planner.EliminationPlan)  # refused, as before


def old_greedy_order(adjacency, score):
    """The greedy ordering as it was written before (a scan of all remaining units per step)."""
    n = len(adjacency)
    sets = [set(a) for a in adjacency]
    bits = [sum(1 << u for u in a) for a in adjacency]
    remaining = set(range(n))
    scores = {v: score(sets, bits, v) for v in remaining}
    order = []
    while remaining:
        v = min(remaining, key=lambda u: (scores[u], u))
        order.append(v)
        remaining.discard(v)
        nbrs, nbr_bits = sets[v], bits[v]
        touched = set(nbrs)
        for u in nbrs:
            sets[u] |= nbrs
            sets[u].discard(u)
            sets[u].discard(v)
            bits[u] = (bits[u] | nbr_bits) & ~(1 << u) & ~(1 << v)
            touched |= sets[u]
        sets[v], bits[v] = set(), 0
        for u in touched & remaining:
            scores[u] = score(sets, bits, u)
    return order


@pytest.mark.parametrize("seed", range(12))
def test_the_greedy_orders_are_the_orders_of_before(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(5, 90))
    mask = np.triu(rng.random((n, n)) < rng.uniform(0.02, 0.3), 1)
    adjacency = planner._neighbours((mask + mask.T).astype(float))
    for score in (planner._fill, planner._degree):
        assert planner._greedy_order(adjacency, score) == old_greedy_order(adjacency, score)


# --- item 9: the edges of the float range ---------------------------------------------------

TINY = [1e-300, 1e-305, 1e-307, 1e-308, 1e-320, 5e-324]


@pytest.mark.parametrize("T", TINY)
def test_kaufman_far_below_the_transition_is_the_ground_state(T):
    """E = -2 J per spin (2N bonds, all satisfied) and C = 0, as enumeration of the 4 x 4 torus says."""
    mean, variance = bm.exact_energy_moments(bm.square_lattice_couplings(4), T=T)
    assert (mean / 16, variance) == (-2.0, 0.0)
    assert bm.kaufman_energy_per_spin(4, T=T) == -2.0
    assert bm.kaufman_specific_heat_per_spin(4, T=T) == 0.0
    assert bm.kaufman_energy_per_spin(4, 6, T=T, J=0.5) == -1.0
    assert bm.kaufman_specific_heat_per_spin(6, 4, T=T, J=0.5) == 0.0
    np.testing.assert_array_equal(bm.kaufman_energy_per_spin(4, T=[T, 1e-300]), [-2.0, -2.0])


@pytest.mark.parametrize("rows, T", [(4, 1e-307), (4, 1e-308), (4, 5e-324), (2, 3e-308)])
def test_kaufman_log_partition_refuses_beyond_the_float_range_as_log_partition_does(rows, T):
    W = bm.square_lattice_couplings(rows)
    with pytest.raises(ValueError, match=r"log_partition: log Z is beyond the float range"):
        bm.log_partition(W, T=T)
    with pytest.raises(ValueError, match=rf"kaufman_log_partition: log Z is beyond the float range \(about "
                                         rf"1.8e308\) at T = {T!r}"):
        bm.kaufman_log_partition(rows, T=T)
    with pytest.raises(ValueError, match=rf"at T\[1\] = {T!r}"):
        bm.kaufman_log_partition(rows, T=[1.0, T])


@pytest.mark.parametrize("rows, T", [(4, 1e-300), (4, 1e-305), (4, 1e-306), (2, 1e-307), (2, 5e-308)])
def test_kaufman_log_partition_near_the_float_range_is_log_partitions(rows, T):
    """log Z = 2 N J / T + log 2 (two ground states) to double precision: 3.2e307 for the 4 x 4 torus at 1e-306."""
    W = bm.square_lattice_couplings(rows)
    assert bm.kaufman_log_partition(rows, T=T) == pytest.approx(bm.log_partition(W, T=T), rel=4e-16, abs=0)


def rbm_as_boltzmann_machine(W):
    W = np.asarray(W, dtype=float)
    n_v, n_h = W.shape
    full = np.zeros((n_v + n_h, n_v + n_h))
    full[:n_v, n_v:], full[n_v:, :n_v] = W, W.T
    return full


@pytest.mark.parametrize("units", ["bits", "spins"])
@pytest.mark.parametrize("W, T", [
    ([[1e308]], 1.0), ([[-1e308]], 1.0), ([[1e308]], 10.0), ([[1.7e308, -1.7e308]], 2.0),
    ([[1e308, 1e308], [1e308, 1e308]], 8.0), ([[1e308, -3.0], [2.0, 1e-300]], 1.0), ([[1e308]], 1e300),
])
def test_rbm_log_partition_near_the_float_limit_is_the_full_machines(W, T, units):
    expected = bm.log_partition(rbm_as_boltzmann_machine(W), T=T, units=units)
    assert bm.rbm_log_partition(W, T=T, units=units) == pytest.approx(expected, rel=4e-16, abs=0)


def test_rbm_log_partition_refuses_as_log_partition_does_and_names_its_parameters():
    W = [[1e308, 1e308], [1e308, 1e308]]  # ground energy -4e308 (bits): log Z beyond the float range at T = 1
    with pytest.raises(ValueError, match="log Z is beyond the float range"):
        bm.log_partition(rbm_as_boltzmann_machine(W), units="bits")
    with pytest.raises(ValueError, match="log Z is beyond the float range") as refused:
        bm.rbm_log_partition(W, units="bits")
    message = str(refused.value)
    assert "W_vh" not in message and "W / T" in message and "b_visible" in message and "b_hidden" in message


@pytest.mark.parametrize("function", [bm.exact_moments, bm.exact_energy_moments, bm.boltzmann_distribution])
def test_enumeration_of_a_large_lattice_operator_is_refused_before_its_matrix_is_built(function, no_dense_lattice):
    with pytest.raises(ValueError, match=rf"{function.__name__} over 2\*\*10000 states is refused"):
        function(bm.SquareLattice(100), T=2.5)
