"""Wolff's cluster update against exact answers, and the critical slowing down it removes."""
import numpy as np
import pytest

import bmlib as bm
from bmlib.sampling import clusters


def _exact_observables(lattice, T):
    """<E>, <|m|>, <m^2> of the lattice by enumeration of its dense model."""
    W, b = lattice.dense_model()
    S = bm.all_states(lattice.n_units).astype(float)
    p = bm.boltzmann_distribution(W, b, T)
    m = S.mean(axis=1)
    return p @ bm.energy(S, W, b), p @ np.abs(m), p @ m**2


LATTICES = [
    pytest.param(bm.SquareLattice(4), 2.3, id="4x4-torus-near-Tc"),
    pytest.param(bm.SquareLattice(4), 1.6, id="4x4-torus-ordered"),
    pytest.param(bm.SquareLattice(2, 4), 2.0, id="2x4-torus-doubled-bonds"),
    pytest.param(bm.SquareLattice(4, 2, periodic=False), 1.5, id="4x2-open"),
    pytest.param(bm.SquareLattice(4, J=-0.7), 1.2, id="4x4-antiferromagnet"),
    pytest.param(bm.SquareLattice(4, J=1.5), 4.0, id="4x4-torus-disordered"),
]


@pytest.mark.parametrize("lattice, T", LATTICES)
def test_wolff_samples_the_exact_averages(lattice, T):
    # Seed 11; each average within 4 of its blocking error bars of the exact value (a false alarm
    # about 1 in 10^4 per average). With p_add = 1 - exp(-J/T) instead of 1 - exp(-2J/T) every
    # case fails (checked once by breaking the code).
    run = bm.wolff_sample(lattice, T=T, n_samples=6000, n_chains=8, burn_in=50, rng=11)
    m = run.samples.mean(axis=2, dtype=float)
    exact = _exact_observables(lattice, T)
    for name, series, truth in zip(("<E>", "<|m|>", "<m^2>"), (run.energies, np.abs(m), m**2), exact):
        e = bm.estimate(series)
        assert abs(e.value - truth) < 4 * e.error, f"{name}: {e} against exact {truth:.5f}"


def test_wolff_distribution_passes_a_chi_square_test_against_enumeration():
    # 3 x 2 states are too few for a 2-D lattice of SquareLattice; 2 x 4 (256 states) with the
    # samples thinned to about one per autocorrelation time. Seed 3, level 0.001.
    lattice = bm.SquareLattice(2, 4)
    W, b = lattice.dense_model()
    run = bm.wolff_sample(lattice, T=2.0, n_samples=4000, n_chains=8, thin=3, rng=3)
    result = bm.chi_square_test(run.samples.reshape(-1, 8), bm.boltzmann_distribution(W, b, 2.0))
    assert result.p_value > 1e-3, result


def test_energies_and_final_state_are_those_of_the_dense_model():
    lattice = bm.SquareLattice(4, 6, J=-0.8, periodic=False)
    W, b = lattice.dense_model()
    run = bm.wolff_sample(lattice, T=1.0, n_samples=20, n_chains=3, rng=0)
    np.testing.assert_allclose(run.energies, bm.energy(run.samples.astype(float), W, b))
    np.testing.assert_array_equal(run.final_state, run.samples[-1])
    assert run.rule == "wolff" and run.scan == "clusters" and run.n_sweeps == 100 + 20


def test_a_cluster_at_zero_temperature_is_the_whole_aligned_region():
    # At T -> 0 every satisfied bond is added (p_add -> 1): from all up, one update flips everything.
    lattice = bm.SquareLattice(6)
    run = bm.wolff_sample(lattice, T=1e-3, n_samples=1, burn_in=0, initial=np.ones(36), rng=0)
    assert np.all(run.samples == -1) and run.acceptance[0] == 1.0


def test_the_same_seed_gives_the_same_run_and_the_initial_state_is_not_changed():
    start = np.ones((2, 16), dtype=np.int8)
    a = bm.wolff_sample(bm.SquareLattice(4), T=2.3, n_samples=50, initial=start, rng=5)
    b = bm.wolff_sample(bm.SquareLattice(4), T=2.3, n_samples=50, initial=start, rng=5)
    np.testing.assert_array_equal(a.samples, b.samples)
    assert np.all(start == 1)


def test_wolff_matches_kaufman_on_an_8x8_torus():
    # Kaufman's exact <E> per spin of the finite torus; seed 2, 4 error bars.
    T = 2.4
    run = bm.wolff_sample(bm.SquareLattice(8), T=T, n_samples=3000, n_chains=8, rng=2)
    e = bm.estimate(run.energies / 64)
    exact = bm.kaufman_energy_per_spin(8, 8, T=T)
    assert abs(e.value - exact) < 4 * e.error, (e, exact)


def test_cluster_updates_beat_critical_slowing_down():
    # Seed 0, at T_c: heat bath's tau of |m| grows about fourfold from L = 8 to 16 (z ~ 2);
    # Wolff's, in sweeps, stays below 4 and grows by less than 1.6x.
    run = bm.critical_slowing_down((8, 16), n_sweeps=3000, n_updates=400, n_chains=8, rng=0)
    assert run.heat_bath[1] > 2.8 * run.heat_bath[0]
    assert np.all(run.wolff < 4) and run.wolff[1] < 1.6 * run.wolff[0]
    assert np.all(run.heat_bath > 4 * run.wolff)
    assert np.all((0.3 < run.cluster_fraction) & (run.cluster_fraction < 0.9))


def test_wolff_sweeps_is_the_mean_flipped_fraction():
    run = bm.wolff_sample(bm.SquareLattice(8), T=3.5, n_samples=300, thin=2, rng=1)
    assert bm.wolff_sweeps(run) == pytest.approx(run.acceptance.mean())
    assert 0 < bm.wolff_sweeps(run) < 0.1  # far above T_c the clusters are small


def test_neighbour_table_of_a_doubled_periodic_side():
    table = clusters._neighbour_table(2, 4, True)
    assert table[0].tolist() == [4, 4, 3, 1]  # up and down are the same site: two bonds
    assert clusters._neighbour_table(2, 4, False)[0].tolist() == [-1, 4, -1, 1]


@pytest.mark.parametrize("kwargs, message", [
    (dict(lattice=bm.SquareLattice(4, h=0.1)), "no field"),
    (dict(lattice=bm.SquareLattice(4, J=0.0)), "J != 0"),
    (dict(lattice=bm.square_lattice_couplings(4)), "SquareLattice"),
    (dict(lattice=bm.SquareLattice(4), initial=np.ones((2, 16)), n_chains=3), "initial has 2 rows"),
    (dict(lattice=bm.SquareLattice(4), initial=np.zeros(16)), "initial"),
    (dict(lattice=bm.SquareLattice(4), T=0.0), "T"),
])
def test_bad_input_is_refused_with_the_rule(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        bm.wolff_sample(**kwargs)


def test_critical_slowing_down_refuses_bad_sides():
    with pytest.raises(ValueError, match="at least two"):
        bm.critical_slowing_down([8])
    with pytest.raises(ValueError, match="even"):
        bm.critical_slowing_down([8, 9])
    with pytest.raises(ValueError, match="rule 'heat_bath'"):
        bm.wolff_sweeps(bm.sample([[0, 1], [1, 0]], n_samples=3, rng=0))
