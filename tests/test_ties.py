"""Choices between candidates that tie to rounding are decided by order, never by the last bit."""
import numpy as np
import pytest

import bmlib as bm
from bmlib._ties import TIE_RTOL, first_best, first_best_along_rows, order_with_ties
from bmlib.meanfield.solver import _kept_run

# The two bounds that decided the sign of the mean-field proposal on two CPUs differently.
TIED = (12.371867887850431, 12.371867887850433)


def test_first_best_prefers_the_first_of_values_tied_to_rounding():
    assert first_best(TIED) == 0
    assert first_best(TIED[::-1]) == 0
    assert first_best([1.0, 2.0, 2.0]) == 1  # an exact tie: the first
    assert first_best([1.0, 2.0, 2.0 + 1e-6]) == 2  # a real difference still wins
    assert first_best([3.0, 1.0, 1.0 + 1e-15], largest=False) == 1
    assert first_best([np.nan, 1.0, -np.inf]) == 1
    assert first_best([np.nan, np.nan]) == 0


def test_tolerance_is_relative_to_the_scale():
    big = 1e6
    assert first_best([big, big * (1 + 0.5 * TIE_RTOL)]) == 0
    assert first_best([big, big * (1 + 2 * TIE_RTOL)]) == 1


def test_rows_and_orders_with_ties():
    rows = np.array([[0.0, 1.0 + 1e-15, 1.0], [0.0, 1.0, 1.0 + 1e-15], [2.0, 0.0, 3.0]])
    assert first_best_along_rows(rows).tolist() == [1, 1, 2]
    assert first_best_along_rows(-rows, largest=False).tolist() == [1, 1, 2]
    assert order_with_ties([2.0, 1.0 + 1e-15, 1.0, 0.5]).tolist() == [3, 1, 2, 0]
    assert order_with_ties([2.0, 1.0, 1.0 + 1e-15, 0.5]).tolist() == [3, 1, 2, 0]
    assert order_with_ties([0.0, 5.0, 5.0 - 1e-15], descending=True).tolist() == [1, 2, 0]
    assert order_with_ties([]).tolist() == []


def _run(phi, converged=True):
    return (np.zeros(2), phi, converged, 1, 0.0)


def test_mean_field_keeps_the_earlier_start_when_bounds_tie_in_the_last_bit():
    ratios = [np.nan, np.nan]
    assert _kept_run([_run(TIED[0]), _run(TIED[1])], ratios) == 0
    assert _kept_run([_run(TIED[1]), _run(TIED[0])], ratios) == 0
    # Convergence still comes first, and a clearly better bound still wins.
    assert _kept_run([_run(TIED[1], converged=False), _run(TIED[0])], ratios) == 1
    assert _kept_run([_run(1.0), _run(1.5)], ratios) == 1
    # TAP: inside Plefka's range beats a slightly larger objective outside it.
    assert _kept_run([_run(2.0), _run(1.0)], [1.5, 0.5]) == 1


@pytest.mark.parametrize("tilt", [0.0, 1e-13, -1e-13])
def test_naive_mean_field_picks_the_first_mirror_solution_whatever_the_rounding(tilt):
    # A ferromagnetic torus far below its mean-field transition: the two ordered
    # solutions have the same bound in exact arithmetic. A bias of +-1e-13 moves
    # the bounds apart by far less than the tie tolerance, as rounding on another
    # CPU would; the answer must follow the order of the starts, not the tilt.
    W = bm.square_lattice_couplings(4)
    b = np.full(16, tilt)
    up, down = np.full(16, 0.9), np.full(16, -0.9)
    first_up = bm.naive_mean_field(W, b, T=1.0, initial=np.array([up, down]))
    first_down = bm.naive_mean_field(W, b, T=1.0, initial=np.array([down, up]))
    assert first_up.converged and first_down.converged
    assert np.all(first_up.m > 0.9) and np.all(first_down.m < -0.9)
    # The default starts (small random, +0.9, -0.9, ...) decide the same way on every tilt.
    default = bm.naive_mean_field(W, b, T=1.0, rng=0)
    reference = bm.naive_mean_field(W, T=1.0, rng=0)
    assert np.sign(default.m[0]) == np.sign(reference.m[0])


@pytest.mark.parametrize("tilt", [0.0, 1e-13, -1e-13])
def test_belief_propagation_picks_the_first_mirror_fixed_point(tilt):
    W = bm.square_lattice_couplings(4)
    b = np.full(16, tilt)
    signs = {np.sign(bm.belief_propagation(W, b, T=1.5, rng=s).m[0]) for s in range(3)}
    reference = {np.sign(bm.belief_propagation(W, T=1.5, rng=s).m[0]) for s in range(3)}
    assert signs == reference
    res = bm.belief_propagation(W, b, T=1.5, rng=0)
    assert res.converged and abs(res.m[0]) > 0.5  # ordered: a real choice was made


def test_encoder_report_reads_a_symmetric_mean_field_unit_as_low():
    # Zero weights: every mean-field unit sits exactly at the midpoint, so every
    # code and completion is "undecided" and reads as the low level.
    machine = bm.BoltzmannMachine(4, 2, mask=bm.encoder_mask(2, 2), units="bits", rng=0)
    machine.W[:] = 0.0
    machine.b[:] = 1e-14  # a last-bit nudge must not flip the reading
    report = bm.encoder_report(machine, method="mean_field", rng=0)
    assert np.all(report.codes == 0) and np.all(report.completions == 0)


def test_a_field_that_is_zero_up_to_rounding_decides_nothing():
    # Unit 0's field from the others is 0.1 + 0.2 - 0.3: zero in exact
    # arithmetic, 5.6e-17 in floating point. The biases hold units 1-3 at +1.
    W = np.zeros((4, 4))
    W[0, 1:] = W[1:, 0] = [0.1, 0.2, -0.3]
    b = np.array([0.0, 1.0, 1.0, 1.0])
    assert 0.1 + 0.2 - 0.3 != 0.0
    for s0 in (-1.0, 1.0):
        s = np.array([s0, 1.0, 1.0, 1.0])
        assert bm.energy_descent(s, W, b).flipped.size == 0  # indifferent: nothing flips
        assert bm.is_stable(s, W, b)
    # A real field still decides.
    assert bm.energy_descent([-1.0, 1, 1, 1], W, b + [1e-9, 0, 0, 0]).flipped.tolist() == [0]


def test_annealing_to_zero_temperature_ignores_fields_that_are_zero_up_to_rounding():
    W = np.zeros((4, 4))
    W[0, 1:] = W[1:, 0] = [0.1, 0.2, -0.3]
    b = np.array([0.0, 1.0, 1.0, 1.0])
    initial = np.array([[-1, 1, 1, 1], [1, 1, 1, 1]])
    result = bm.anneal(W, b, schedule=[(0.0, 3)], n_chains=2, initial=initial, rng=0)
    assert np.array_equal(result.final_state, initial)
