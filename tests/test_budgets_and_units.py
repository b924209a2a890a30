"""Memory budgets, units inferred from a state, overflow in partial sums, and clear messages.

The items of the issue "Trustworthy numbers": every public function that allocates in
proportion to its input refuses work above bmlib.MEMORY_BUDGET before it allocates (or
works in blocks within it); an ambiguous state (all +1) reads as spins everywhere; energies
and fields that fit in a float are computed without overflowing partial sums.
"""
from __future__ import annotations

import inspect
import re
import tracemalloc
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import bmlib as bm  # noqa: E402
import bmlib._checks as checks  # noqa: E402

# --- helpers ---------------------------------------------------------------------------


def traced_peak(fn, *args, **kwargs):
    """(result or exception, peak bytes traced by tracemalloc while ``fn`` ran; NumPy reports its arrays)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    try:
        outcome = fn(*args, **kwargs)
    except (ValueError, MemoryError) as exc:
        outcome = exc
    finally:
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
    return outcome, peak


def assert_within_budget(monkeypatch, budget, fn, *args, **kwargs):
    """With MEMORY_BUDGET = ``budget``, ``fn`` either refuses (a ValueError naming the budget)
    or runs with a traced peak <= budget. Returns the outcome."""
    monkeypatch.setattr(checks, "MEMORY_BUDGET", budget)
    outcome, peak = traced_peak(fn, *args, **kwargs)
    assert not isinstance(outcome, MemoryError)
    if isinstance(outcome, ValueError):
        assert "MEMORY_BUDGET" in str(outcome), outcome
        assert peak <= budget, (peak, budget)  # refused before the work
    else:
        assert peak <= budget, f"{fn.__name__} used {peak} bytes with a budget of {budget}"
    return outcome


MiB = 2**20

# --- item 3: the reproducers of the issue ------------------------------------------------


def test_hebbian_weights_refuses_a_matrix_above_the_budget():
    patterns = np.ones((2, 40000), np.int8)  # W would be 40000 x 40000 floats: 11.9 GiB
    outcome, peak = traced_peak(bm.hebbian_weights, patterns)
    assert isinstance(outcome, ValueError) and "MEMORY_BUDGET" in str(outcome)
    assert "40000" in str(outcome)
    assert peak < 64 * MiB  # refused before the work


def test_mean_field_inverse_ising_refuses_a_matrix_above_the_budget():
    data = np.resize(np.array([1, -1], np.int8), (100, 20000))
    outcome, peak = traced_peak(bm.mean_field_inverse_ising, data)
    assert isinstance(outcome, ValueError) and "MEMORY_BUDGET" in str(outcome)
    assert peak < 64 * MiB


def test_state_frequencies_counts_in_blocks_within_the_budget(monkeypatch):
    # The reproducer's 10**7 x 24 int8 states, scaled down with the budget: 2 * 10**5 states
    # of 16 units (3.2 MB as int8, 25.6 MB as floats) counted within 8 MiB.
    gen = np.random.default_rng(3)
    states = gen.choice(np.array([-1, 1], np.int8), size=(200_000, 16))
    freq = assert_within_budget(monkeypatch, 8 * MiB, bm.state_frequencies, states)
    assert not isinstance(freq, Exception)
    codes = (states == 1).astype(np.int64) @ (1 << np.arange(15, -1, -1))
    np.testing.assert_array_equal(freq, np.bincount(codes, minlength=2**16) / len(states))


def test_local_fields_in_blocks_within_the_budget(monkeypatch):
    gen = np.random.default_rng(4)
    W = np.triu(gen.integers(-3, 4, size=(50, 50)), 1).astype(float)
    W = W + W.T  # integers: every field is exact, whatever the order of the sums
    s = gen.choice(np.array([-1, 1], np.int8), size=(40_000, 50))  # fields: 16 MB of floats
    h = assert_within_budget(monkeypatch, 24 * MiB, bm.local_fields, s, W)
    assert not isinstance(h, Exception)
    np.testing.assert_array_equal(h[:5], s[:5].astype(float) @ W)
    np.testing.assert_array_equal(h[-3:], s[-3:].astype(float) @ W)
    # Fields that cannot fit at all are refused with the size, never a MemoryError.
    outcome = assert_within_budget(monkeypatch, 8 * MiB, bm.local_fields, s, W)
    assert isinstance(outcome, ValueError) and "MEMORY_BUDGET" in str(outcome)


def test_local_fields_of_a_huge_batch_is_refused_up_front():
    # 10**7 x 100 fields are 8 GB of floats: refused before anything is allocated. A read-only
    # broadcast view stands for the 1 GB int8 array of the issue.
    s = np.broadcast_to(np.ones(100, np.int8), (10**7, 100))
    outcome, peak = traced_peak(bm.local_fields, s, np.zeros((100, 100)))
    assert isinstance(outcome, ValueError) and "MEMORY_BUDGET" in str(outcome)
    assert peak < 64 * MiB


def test_total_variation_refuses_a_broadcast_above_the_budget():
    p = np.full((20000, 1, 16), 1 / 16)
    q = np.full((20000, 16), 1 / 16)  # p - q would be 20000 x 20000 x 16 floats: 47.7 GiB
    outcome, peak = traced_peak(bm.total_variation, p, q)
    assert isinstance(outcome, ValueError) and "MEMORY_BUDGET" in str(outcome), outcome
    assert peak < 64 * MiB
    assert bm.total_variation(p[:2], q[:3]).shape == (2, 3)
    with pytest.raises(ValueError, match="p and q must broadcast"):
        bm.total_variation(np.full((2, 4), 0.25), np.full((3, 4), 0.25))


def test_paths_that_outgrow_the_budget_stop_with_a_value_error(monkeypatch):
    # Energy descent of a ferromagnet of 200 units from all -1 with a field +1: 200 flips, each
    # a row of the path; with a 128 KiB budget the path (24 n bytes per flip) is refused part way.
    W, b = np.full((200, 200), 0.001) - 0.001 * np.eye(200), np.ones(200)
    monkeypatch.setattr(checks, "MEMORY_BUDGET", 128 * 2**10)
    with pytest.raises(ValueError, match=r"descent path of 28 states of 200 units .*MEMORY_BUDGET"):
        bm.energy_descent(-np.ones(200), W, b)
    # Synchronous updates (a two-cycle of the antiferromagnet, three states) within 8 KiB: the
    # third state would make the path 9.6 KB.
    monkeypatch.setattr(checks, "MEMORY_BUDGET", 8 * 2**10)
    with pytest.raises(ValueError, match=r"path of 3 synchronous steps of 200 units .*MEMORY_BUDGET"):
        bm.synchronous_updates(np.ones(200), -W)
    monkeypatch.undo()
    assert bm.synchronous_updates(np.ones(200), -W).period == 2
    assert bm.energy_descent(-np.ones(200), W, b).final_state.tolist() == [1.0] * 200


# --- item 3: every function that allocates in proportion to its input -------------------


def _spins(shape, seed):
    return np.random.default_rng(seed).choice(np.array([-1, 1], np.int8), size=shape)


_RING = bm.chain_couplings(30)

# Each case builds its input (outside the traced call) and names the function to call.
CASES = {
    "hebbian_weights": lambda: (bm.hebbian_weights, (_spins((5, 1500), 0),), {}),
    "hebbian_weights_many": lambda: (bm.hebbian_weights, (_spins((20000, 40), 0),), {}),
    "mean_field_inverse_ising": lambda: (bm.mean_field_inverse_ising, (_spins((400, 300), 1),), {}),
    "tap": lambda: (bm.mean_field_inverse_ising, (_spins((400, 300), 1),), {"method": "tap"}),
    "mean_field_inverse_ising_bits": lambda: (bm.mean_field_inverse_ising, ((_spins((400, 300), 1) + 1) // 2,),
                                              {"units": "bits"}),
    "energy": lambda: (bm.energy, (_spins((60000, 30), 2), _RING), {}),
    "local_fields": lambda: (bm.local_fields, (_spins((60000, 30), 2), _RING), {}),
    "flip_energy_changes": lambda: (bm.flip_energy_changes, (_spins((60000, 30), 2), _RING), {}),
    "is_stable": lambda: (bm.is_stable, (_spins((60000, 30), 2), _RING), {}),
    "state_index": lambda: (bm.state_index, (_spins((60000, 30), 2),), {}),
    "state_frequencies": lambda: (bm.state_frequencies, (_spins((60000, 16), 2),), {}),
    "to_bits": lambda: (bm.to_bits, (_spins((60000, 30), 2),), {}),
    "to_spins": lambda: (bm.to_spins, ((_spins((60000, 30), 2) + 1) // 2,), {}),
    "all_states": lambda: (bm.all_states, (18,), {}),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("budget", [4 * MiB, 48 * MiB])
def test_every_function_stays_within_the_budget_or_refuses(case, budget, monkeypatch):
    fn, args, kwargs = CASES[case]()
    outcome = assert_within_budget(monkeypatch, budget, fn, *args, **kwargs)
    if budget == 48 * MiB:
        assert not isinstance(outcome, Exception), outcome  # small enough to run


# --- item 5: units inferred from a state ---------------------------------------------


def test_flip_energy_changes_of_an_all_ones_state_reads_as_spins():
    W = bm.chain_couplings(3)  # every unit has two neighbours: h_i = 2
    np.testing.assert_array_equal(bm.flip_energy_changes([1, 1, 1], W), [4.0, 4.0, 4.0])  # 2 s h
    np.testing.assert_array_equal(bm.flip_energy_changes([1, 1, 1], W, units="spins"), [4.0, 4.0, 4.0])
    np.testing.assert_array_equal(bm.flip_energy_changes([1, 1, 1], W, units="bits"), [2.0, 2.0, 2.0])
    # Unambiguous states: bits (a 0) and spins (a -1), without units.
    np.testing.assert_array_equal(bm.flip_energy_changes([1, 0, 1], W), [1.0, -2.0, 1.0])
    np.testing.assert_array_equal(bm.flip_energy_changes([1, -1, 1], W), [0.0, -4.0, 0.0])


def test_energy_descent_of_an_all_ones_state_reads_as_spins():
    W = -bm.chain_couplings(4)  # antiferromagnetic ring of 4
    path = bm.energy_descent([1, 1, 1, 1], W)
    assert path.final_state.tolist() == [-1, 1, -1, 1]
    assert path.energies.tolist() == [4.0, 0.0, -4.0]
    bits = bm.energy_descent([1, 1, 1, 1], W, units="bits")
    assert bits.final_state.tolist() == [0, 0, 0, 1]
    assert bits.energies.tolist() == [4.0, 2.0, 1.0, 0.0]
    assert set(np.unique(bits.states).tolist()) <= {0.0, 1.0}
    assert bm.energy_descent([1, 0, 1, 1], W).final_state.tolist() == [0, 0, 0, 1]
    assert bm.energy_descent([1, -1, 1, 1], W).final_state.tolist() == [1, -1, 1, -1]


def test_is_stable_of_ambiguous_and_unambiguous_states():
    # For the all-ones state both readings flip a unit against the same field h_i (2 s_i h_i
    # for spins, h_i for bits), so stability agrees; it is checked against the exact energies.
    W, b = [[0, 2], [2, 0]], [-1.5, -2.5]  # h(1, 1) = (0.5, -0.5): unit 1 wants to flip
    assert bm.is_stable([1, 1], W, b) is False and bm.is_stable([1, 1], W, b, units="bits") is False
    W, b = [[0, 2], [2, 0]], [-1.5, -1.5]  # h(1, 1) = (0.5, 0.5)
    assert bm.is_stable([1, 1], W, b) and bm.is_stable([1, 1], W, b, units="bits")
    assert bm.is_stable([0, 0], W, b)  # bits: h(0, 0) = (-1.5, -1.5), turning a unit on raises E
    assert bm.is_stable([-1, -1], W, b)  # spins: h = (-3.5, -3.5) agrees with -1


def test_state_index_and_frequencies_of_all_ones_read_as_spins():
    assert bm.state_index([1, 1, 1]) == 7
    assert bm.state_index([1, 0, 1]) == 5 and bm.state_index([1, -1, 1]) == 5
    np.testing.assert_array_equal(bm.state_frequencies([[1, 1], [1, 1]]), [0, 0, 0, 1])
    np.testing.assert_array_equal(bm.state_frequencies([[1, 1], [0, 1]]), [0, 0.5, 0, 0.5])
    np.testing.assert_array_equal(bm.state_frequencies([[1, 1], [-1, 1]]), [0, 0.5, 0, 0.5])


def test_energy_and_local_fields_of_all_ones():
    W, b = bm.chain_couplings(3), [0.5, 0.0, -1.0]
    assert bm.energy([1, 1, 1], W, b) == -2.5
    assert bm.energy([1, 0, 1], W, b) == -0.5  # bond 0-2 of the ring, biases 0.5 - 1
    assert bm.energy([1, -1, 1], W, b) == 1.5
    np.testing.assert_array_equal(bm.local_fields([1, 1, 1], W, b), [2.5, 2.0, 1.0])


def test_plot_sampled_distribution_reads_all_ones_samples_as_spins():
    W = [[0, 1], [1, 0]]
    for units, legend in ((None, "dark +1, light -1"), ("spins", "dark +1, light -1"), ("bits", "dark 1, light 0")):
        fig = bm.plot_sampled_distribution(np.ones((10, 2)), W, units=units)
        assert legend in fig.axes[1].get_xlabel()
        plt.close(fig)
    fig = bm.plot_sampled_distribution([[0, 1], [1, 1]], W)
    assert "dark 1, light 0" in fig.axes[1].get_xlabel()
    plt.close(fig)


def test_every_function_that_infers_units_says_so():
    missing = []
    for name in bm.__all__:
        obj = getattr(bm, name)
        if not callable(obj) or isinstance(obj, type):
            continue
        try:
            param = inspect.signature(obj).parameters.get("units")
        except (TypeError, ValueError):
            continue
        if param is not None and param.default is None and not re.search(r"reads?\s+as\s+spins", obj.__doc__ or ""):
            missing.append(name)
    assert not missing, missing
    import bmlib.models.states

    assert re.search(r"all-ones state reads as spins", bmlib.models.states.__doc__)


# --- item 9: overflow in partial sums -------------------------------------------------


def _exact_energy(s, W, b=None):
    n = len(s)
    W = [[Fraction(float(W[i][j])) for j in range(n)] for i in range(n)]
    b = [Fraction(0)] * n if b is None else [Fraction(float(v)) for v in b]
    s = [Fraction(int(v)) for v in s]
    E = -sum(W[i][j] * s[i] * s[j] for i in range(n) for j in range(i + 1, n)) - sum(bi * si for bi, si in zip(b, s))
    return float(E)


def _big_W():
    W = np.zeros((4, 4))
    W[0, 1:] = W[1:, 0] = 1e308
    for i, j in [(1, 2), (2, 3), (1, 3)]:
        W[i, j] = W[j, i] = -0.6e308
    return W


def test_energy_with_couplings_near_the_float_limit():
    W = _big_W()
    exact = _exact_energy([1, 1, 1, 1], W)
    assert exact == pytest.approx(-1.2e308, rel=1e-12)
    assert bm.energy(np.ones(4), W) == pytest.approx(exact, rel=1e-15)
    b = np.array([1e308, 1e308, -0.5e308, 0.5e308])
    s = np.array([1, -1, 1, -1])
    assert bm.energy(s, W, b) == pytest.approx(_exact_energy(s, W, b), rel=1e-15)
    batch = bm.energy(np.array([np.ones(4), s]), W)
    assert batch[0] == pytest.approx(exact, rel=1e-15)
    assert batch[1] == pytest.approx(_exact_energy(s, W), rel=1e-15)


def test_dense_couplings_energy_near_the_float_limit():
    W = np.array([[0.0, 1.5e308], [1.5e308, 0.0]])
    op = bm.DenseCouplings(W)
    assert bm.energy(np.ones(2), W) == -1.5e308
    np.testing.assert_array_equal(op.energy(op.start(np.ones((2, 2), np.int8))), [-1.5e308, -1.5e308])
    op = bm.DenseCouplings(_big_W())
    assert op.energy(op.start(np.ones((1, 4), np.int8)))[0] == pytest.approx(-1.2e308, rel=1e-15)


def test_local_fields_near_the_float_limit():
    W = np.zeros((4, 4))
    W[0, 1] = W[0, 2] = 1e308
    W[0, 3] = -0.5e308
    W = W + W.T
    h = bm.local_fields(np.ones(4), W)
    np.testing.assert_array_equal(h, [1.5e308, 1e308, 1e308, -0.5e308])
    np.testing.assert_array_equal(bm.flip_energy_changes(np.ones(4), W, units="bits"), h)  # dE = h for bits


def test_ordinary_inputs_keep_their_exact_bits():
    gen = np.random.default_rng(7)
    W = gen.normal(size=(9, 9))
    W = W + W.T
    np.fill_diagonal(W, 0)
    b = gen.normal(size=9)
    S = bm.all_states(9).astype(float)
    expected = -0.5 * np.einsum("...i,ij,...j->...", S, W, S) - S @ b + 0.0
    big = np.abs(W).max() > 1.0
    if big:
        expected = -np.einsum("...i,ij,...j->...", S, 0.5 * W, S) - S @ b + 0.0
    np.testing.assert_array_equal(bm.energy(S, W, b), expected)
    np.testing.assert_array_equal(bm.local_fields(S, W, b), S @ W + b)


# --- item 9: invalid units and unclear messages -----------------------------------------


def test_plot_sampled_distribution_refuses_empty_units():
    result = bm.sample([[0, 1], [1, 0]], T=1.0, n_samples=20, n_chains=2, rng=0)
    with pytest.raises(ValueError, match='units must be "spins" or "bits"; got \'\''):
        bm.plot_sampled_distribution(result, [[0, 1], [1, 0]], units="")
    with pytest.raises(ValueError, match='units must be "spins" or "bits"'):
        bm.plot_sampled_distribution(result.samples, [[0, 1], [1, 0]], units="")


def test_state_frequencies_names_complex_and_ragged_states():
    with pytest.raises(TypeError, match="states must be real"):
        bm.state_frequencies(np.array([[1 + 1j, 1]]))
    with pytest.raises((TypeError, ValueError), match="states must .*(ragged|same length|one shape)"):
        bm.state_frequencies([[1, 1], [1]])
    with pytest.raises(TypeError, match="states must be a numeric array"):
        bm.state_frequencies([["a", "b"]])


def test_plot_encoder_codes_names_a_machine_that_is_not_an_encoder():
    with pytest.raises(ValueError, match=r"machines\[0\] must .*encoder_mask.*n_visible = 3"):
        bm.plot_encoder_codes(bm.BoltzmannMachine(3, 1, rng=0))
    with pytest.raises(ValueError, match=r"machines\[1\] must .*n_hidden = 0"):
        bm.plot_encoder_codes([bm.BoltzmannMachine(4, 1, rng=0), bm.BoltzmannMachine(4, 0, rng=0)])


def test_plot_descent_refuses_empty_units():
    # "" was taken for omitted (units or infer_units(...)), as plot_sampled_distribution did.
    path = bm.energy_descent([1, -1, 1], bm.chain_couplings(3), rng=0)
    with pytest.raises(ValueError, match=r'units must be "spins" or "bits"'):
        bm.plot_descent(path, units="")
