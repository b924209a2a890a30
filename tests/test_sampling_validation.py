"""Every bad input to the samplers raises a short error naming the argument, the rule and the value."""
import numpy as np
import pytest

import bmlib as bm

W3 = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, -0.5], [0.0, -0.5, 0.0]])


def run(**kwargs):
    """A tiny, fast call to bm.sample with the given arguments changed."""
    arguments = {"n_samples": 2, "burn_in": 1, "n_chains": 2, "rng": 0}
    arguments.update(kwargs)
    return bm.sample(W3, None, **arguments)


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("n_samples", 0, "n_samples must be >= 1; got 0"),
        ("n_samples", -5, "n_samples must be >= 1; got -5"),
        ("n_chains", 0, "n_chains must be >= 1; got 0"),
        ("burn_in", -1, "burn_in must be >= 0; got -1"),
        ("thin", 0, "thin must be >= 1; got 0"),
    ],
)
def test_counts_must_be_positive(name, value, message):
    with pytest.raises(ValueError, match=message):
        run(**{name: value})


@pytest.mark.parametrize("name", ["n_samples", "n_chains", "burn_in", "thin"])
def test_counts_must_be_integers(name):
    with pytest.raises(TypeError, match=f"{name} must be an integer; got 2.5"):
        run(**{name: 2.5})


@pytest.mark.parametrize("T", [0, -1.0, np.inf, np.nan])
def test_sample_temperature(T):
    with pytest.raises(ValueError, match="T must be (finite and )?> 0"):
        run(T=T)


def test_rule_and_scan_names():
    with pytest.raises(ValueError, match='rule must be "heat_bath" .*, "metropolis", a bm.UpdateRule or a function .*; got \'glauber\''):
        run(rule="glauber")
    with pytest.raises(ValueError, match='scan must be one of "sequential", "random", "colouring"; got \'zigzag\''):
        run(scan="zigzag")
    with pytest.raises(ValueError, match='units must be "spins" or "bits"; got \'ising\''):
        run(units="ising")


def test_a_rule_that_returns_the_wrong_shape():
    with pytest.raises(ValueError, match=r"rule '<lambda>' returned shape \(2,\) for values of shape \(2, 1\)"):
        run(rule=lambda values, fields, T, units, rng: values[:, 0])


@pytest.mark.parametrize(
    "clamped, values, error, message",
    [
        ([0, 3], [1, 1], ValueError, r"clamped indices must be in 0\.\.2; got 3"),
        ([-1], [1], ValueError, r"clamped indices must be in 0\.\.2; got -1"),
        ([1, 1], [1, 1], ValueError, r"clamped indices must not repeat; got \[1, 1\]"),
        ([0.5], [1], TypeError, "clamped must be a 1-D sequence of unit indices"),
        ([0, 1], [1, 0], ValueError, r"values must hold spins \(-1/\+1\) because units='spins'; values\[1\] = 0"),
        ([0, 1], [1, 1, 1], ValueError, r"values must have shape \(2,\) for one pattern or \(P, 2\)"),
        ([0], [[1], [1], [1]], ValueError, r"values must have shape \(1,\) .* or \(n_chains, 1\) = \(2, 1\)"),
        ([0], None, ValueError, r"values must have shape \(1,\)"),
        (None, [1], ValueError, "values were given but clamped is None"),
    ],
)
def test_bad_clamping(clamped, values, error, message):
    with pytest.raises(error, match=message):
        run(clamped=clamped, values=values)


def test_clamp_values_in_bits():
    with pytest.raises(ValueError, match=r"values must hold bits \(0/1\) because units='bits'; values\[0\] = -1"):
        run(units="bits", clamped=[0], values=[-1])


def test_n_chains_is_inferred_or_must_agree():
    assert run(n_chains=None, initial=np.ones((4, 3))).samples.shape == (2, 4, 3)
    assert run(n_chains=None, clamped=[1], values=[[1], [-1], [1]]).samples.shape == (2, 3, 3)
    assert run(n_chains=None).samples.shape == (2, 1, 3)
    with pytest.raises(ValueError, match=r"values must have shape \(1,\) .* or \(n_chains, 1\) = \(4, 1\)"):
        run(n_chains=None, initial=np.ones((4, 3)), clamped=[1], values=[[1], [-1]])


def test_bad_initial_states():
    with pytest.raises(ValueError, match=r"initial must hold spins \(-1/\+1\) because units='spins'; initial\[2\] = 0"):
        run(initial=[1, -1, 0])
    with pytest.raises(ValueError, match=r"initial must have shape \(3,\) or \(n_chains, 3\) = \(2, 3\); got shape"):
        run(initial=np.ones((3, 3)))
    with pytest.raises(ValueError, match=r"initial must have shape \(n,\) or \(\.\.\., n\) with n = 3"):
        run(initial=[1, 1])


@pytest.mark.parametrize(
    "schedule, error, message",
    [
        (
            [(1.0, 2), (-0.5, 2)],
            ValueError,
            r"schedule\[1\] temperature must be finite and >= 0 \(T = 0 means energy descent\); got -0\.5",
        ),
        ([(np.inf, 2)], ValueError, r"schedule\[0\] temperature must be finite and >= 0 .*got inf"),
        ([(np.nan, 2)], ValueError, r"schedule\[0\] temperature must be finite and >= 0 .*got nan"),
        ([(1.0, 0)], ValueError, r"schedule\[0\] number of sweeps must be >= 1; got 0"),
        ([(1.0, -3)], ValueError, r"schedule\[0\] number of sweeps must be >= 1; got -3"),
        ([(1.0, 2.5)], TypeError, r"schedule\[0\] number of sweeps must be an integer; got 2\.5"),
        ([("hot", 2)], TypeError, r"schedule\[0\] temperature must be a real number; got 'hot'"),
        ([], ValueError, "schedule must hold at least one"),
        ([(1.0, 2, 3)], ValueError, r"schedule\[0\] must be a pair \(T, n_sweeps\)"),
        ([1.0, 2.0], ValueError, r"schedule\[0\] must be a pair \(T, n_sweeps\); got 1\.0"),
        (5, TypeError, "schedule must be a sequence of"),
    ],
)
def test_bad_annealing_schedules(schedule, error, message):
    with pytest.raises(error, match=message):
        bm.anneal(W3, None, schedule)


def test_lattice_arguments():
    with pytest.raises(ValueError, match="rows must be even for SquareLattice .*got 5"):
        bm.SquareLattice(5)
    with pytest.raises(ValueError, match="cols must be even for SquareLattice .*got 3"):
        bm.SquareLattice(4, 3)
    with pytest.raises(ValueError, match="rows must be >= 2; got 0"):
        bm.SquareLattice(0)
    with pytest.raises(ValueError, match='scan must be "colouring" for a SquareLattice .*got "sequential"'):
        bm.sample(bm.SquareLattice(4), T=2.0, scan="sequential")
    with pytest.raises(ValueError, match=r"b must be None when W is a coupling operator \(SquareLattice 4 x 4"):
        bm.sample(bm.SquareLattice(4), np.zeros(16), T=2.0)
    with pytest.raises(ValueError, match="h must be finite"):
        bm.SquareLattice(4, h=np.nan)


def test_model_is_checked():
    with pytest.raises(ValueError, match=r"W must be symmetric"):
        bm.sample([[0, 1], [0, 0]])
    with pytest.raises(ValueError, match=r"b must have shape \(3,\)"):
        bm.sample(W3, [0, 0])


def test_bad_diagnostics_input():
    with pytest.raises(ValueError, match=r"x must have shape \(n_samples,\) or \(n_samples, n_chains\).* >= 2"):
        bm.blocking_error([1.0])
    with pytest.raises(ValueError, match=r"x must have shape .*got shape \(2, 2, 2\)"):
        bm.autocorrelation_time(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match=r"x must be finite; x\[1\] = nan"):
        bm.estimate([1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="window must be > 0"):
        bm.autocorrelation_time(np.zeros(10), window=0)


def test_thermal_averages_need_one_temperature():
    annealed = bm.anneal(W3, None, [(2.0, 2), (1.0, 2)])
    with pytest.raises(ValueError, match="result must come from one temperature T > 0"):
        bm.thermal_averages(annealed)
    with pytest.raises(ValueError, match="result must hold at least 2 kept states per chain for error bars; got 1"):
        bm.thermal_averages(run(n_samples=1))
    with pytest.raises(TypeError, match="result must be a SampleResult"):
        bm.thermal_averages(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="temperatures must be a non-empty 1-D sequence"):
        bm.temperature_scan(W3, None, [])


def test_gibbs_is_another_name_for_heat_bath():
    W = bm.square_lattice_couplings(4)
    a = bm.sample(W, T=2.0, n_samples=20, rule="gibbs", rng=3)
    b = bm.sample(W, T=2.0, n_samples=20, rule="heat_bath", rng=3)
    assert np.array_equal(a.samples, b.samples)
    assert np.array_equal(bm.transition_matrix(W[:4, :4], rule="gibbs"), bm.transition_matrix(W[:4, :4]))
    with pytest.raises(ValueError, match='"heat_bath" \\(also called "gibbs"\\)'):
        bm.sample(W, T=2.0, rule="gibs")
