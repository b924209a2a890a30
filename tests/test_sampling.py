"""Samplers against exact enumeration: chi-square tests of sampled states, lattices, clamping, annealing.

How the statistical tests are set up, so that a failure means a bug:

* Every test draws from ``rng=SEED`` (a named seed) and passes if the
  chi-square p-value exceeds ``ALPHA = 1e-4``. This file checks about 70
  p-values, so a correct sampler fails at least one for a fresh seed with
  probability ~0.7% (at 1e-3 it would be ~7%: with SEED, one clamped case
  gave p = 5e-4 and p > 0.4 with 40 times more chains). The broken rules
  below give p < 1e-12, so the tests keep their power.
* Samples are independent: many chains, one state from each after
  ``BURN_IN`` sweeps. ``test_burn_in_reaches_equilibrium`` checks with the
  exact one-sweep transition matrix (built here independently of bmlib) that
  after ``BURN_IN`` sweeps every configuration tested is within 1e-6 of the
  Boltzmann distribution in total variation, so burn-in bias cannot hide in
  (or cause) a p-value.
* ``test_chi_square_rejects_broken_rules`` shows the same test rejects
  plausible wrong rules (wrong sign of the field, missing factor 2).
"""
import warnings

import numpy as np
import pytest
from _stats import chi_square_pvalue

import bmlib as bm

SEED = 20261122
ALPHA = 1e-4
N_CHAINS = 5000
BURN_IN = 100


def _test_model():
    """6 units, couplings N(0, 0.8^2) on 60% of the pairs, so that colouring has groups of several units."""
    rng = np.random.default_rng(3)
    A = rng.normal(scale=0.8, size=(6, 6)) * (rng.random((6, 6)) < 0.6)
    W = np.triu(A, 1)
    return W + W.T, rng.normal(scale=0.8, size=6)


W6, B6 = _test_model()
TEMPERATURES = (0.8, 2.0)
RULES = ("heat_bath", "metropolis")
SCANS = ("sequential", "random", "colouring")
UNITS = ("spins", "bits")
# Small lattices: (rows, cols, periodic, J, h, T, rules). Metropolis is left out at h = 0 with
# the checkerboard: zero-field cycles make it non-ergodic there (see bm.metropolis, Notes).
LATTICES = (
    (2, 4, True, 0.5, 0.0, 1.5, ("heat_bath",)),
    (4, 2, False, 0.7, 0.3, 1.2, RULES),
)


def one_state_per_chain(W, b, T, units, **kwargs):
    """The state of each of N_CHAINS independent chains after BURN_IN sweeps, shape (N_CHAINS, n)."""
    result = bm.sample(W, b, T, units, n_samples=1, n_chains=N_CHAINS, burn_in=BURN_IN, rng=SEED, **kwargs)
    return result.samples[0]


def pvalue(states, p):
    return bm.chi_square_test(states, p).p_value


# --- the burn-in is long enough (exact, independent of bmlib) ------------------------


def exact_sweep_matrix(W, b, T, units, rule, scan):
    """Transition matrix of one sweep over all 2**n states, from the rules' formulas."""
    n = len(b)
    low, high = (-1, 1) if units == "spins" else (0, 1)
    S = bm.all_states(n, units).astype(float)
    fields = S @ W + b
    codes = np.arange(2**n)
    kernels = []
    for i in range(n):
        flipped = codes ^ (1 << (n - 1 - i))  # all_states order: unit 0 is the most significant digit
        new_value = low + high - S[:, i]
        if rule == "heat_bath":
            p_high = 1 / (1 + np.exp(-(high - low) * fields[:, i] / T))
            move = np.where(new_value == high, p_high, 1 - p_high)
        else:
            move = np.minimum(1, np.exp((new_value - S[:, i]) * fields[:, i] / T))
        K = np.diag(1 - move)
        K[codes, flipped] += move
        kernels.append(K)
    if scan == "random":
        return np.linalg.matrix_power(sum(kernels) / n, n)
    order = range(n) if scan == "sequential" else np.concatenate(bm.greedy_colouring(W))
    P = np.eye(2**n)
    for i in order:
        P = P @ kernels[i]
    return P


def _burn_in_cases():
    for rule in RULES:
        for scan in SCANS:
            for T in TEMPERATURES:
                for units in UNITS:
                    yield W6, B6, T, units, rule, scan
    for rows, cols, periodic, J, h, T, rules in LATTICES:
        W = bm.square_lattice_couplings(rows, cols, J, periodic)
        for rule in rules:
            for units in UNITS:
                yield W, np.full(rows * cols, h), T, units, rule, "colouring"


def test_burn_in_reaches_equilibrium():
    for W, b, T, units, rule, scan in _burn_in_cases():
        P = exact_sweep_matrix(W, b, T, units, rule, scan)
        q = np.full(len(P), 1.0 / len(P))  # a uniformly random start, as bm.sample's default
        for _ in range(BURN_IN):
            q = q @ P
        distance = 0.5 * np.abs(q - bm.boltzmann_distribution(W, b, T, units)).sum()
        assert distance < 1e-6, (rule, scan, T, units, distance)


# --- sampled states against the Boltzmann distribution -------------------------------


@pytest.mark.parametrize("units", UNITS)
@pytest.mark.parametrize("T", TEMPERATURES)
@pytest.mark.parametrize("scan", SCANS)
@pytest.mark.parametrize("rule", RULES)
def test_sampled_states_follow_boltzmann(rule, scan, T, units):
    states = one_state_per_chain(W6, B6, T, units, rule=rule, scan=scan)
    assert pvalue(states, bm.boltzmann_distribution(W6, B6, T, units)) > ALPHA


@pytest.mark.parametrize("units", UNITS)
@pytest.mark.parametrize("scan", SCANS)
@pytest.mark.parametrize("rule", RULES)
def test_clamped_states_follow_the_conditional_distribution(rule, scan, units):
    T, clamped = 1.0, [4, 1]
    patterns = bm.all_states(2, units)[[2, 0]]  # (high, low) and (low, low)
    values = patterns[np.arange(N_CHAINS) % 2]  # one pattern per chain, alternating
    states = one_state_per_chain(W6, B6, T, units, rule=rule, scan=scan, clamped=clamped, values=values)
    np.testing.assert_array_equal(states[:, clamped], values)
    p, table = bm.boltzmann_distribution(W6, B6, T, units), bm.all_states(6, units)
    for k, pattern in enumerate(patterns):
        conditional = np.where(np.all(table[:, clamped] == pattern, axis=1), p, 0.0)
        assert pvalue(states[k::2], conditional / conditional.sum()) > ALPHA


def test_one_pattern_clamps_every_chain():
    clamped, pattern = [0, 5, 2], [1, -1, -1]
    states = one_state_per_chain(W6, B6, 1.0, "spins", clamped=clamped, values=pattern)
    np.testing.assert_array_equal(states[:, clamped], np.broadcast_to(pattern, (N_CHAINS, 3)))
    p = bm.boltzmann_distribution(W6, B6, 1.0)
    conditional = np.where(np.all(bm.all_states(6)[:, clamped] == pattern, axis=1), p, 0.0)
    assert pvalue(states, conditional / conditional.sum()) > ALPHA


def test_one_long_chain_thinned_beyond_its_autocorrelation():
    result = bm.sample(W6, B6, 2.0, n_samples=3000, n_chains=1, burn_in=BURN_IN, thin=5, scan="colouring", rng=SEED)
    # Kept states 5 sweeps apart are nearly independent, so the chi-square test applies.
    assert bm.autocorrelation_time(result.energies) < 1.5
    assert pvalue(result.samples[:, 0], bm.boltzmann_distribution(W6, B6, 2.0)) > ALPHA


def _missing_factor_two(values, fields, T, units, rng):
    """Spin heat bath with p(+1) = 1 / (1 + exp(-h / T)): the bits formula used for spins."""
    return bm.heat_bath(values, fields / 2, T, units, rng)


def _wrong_sign(values, fields, T, units, rng):
    return bm.heat_bath(values, -fields, T, units, rng)


def _metropolis_wrong_sign(values, fields, T, units, rng):
    return bm.metropolis(values, -fields, T, units, rng)


@pytest.mark.parametrize("broken", [_missing_factor_two, _wrong_sign, _metropolis_wrong_sign])
def test_chi_square_rejects_broken_rules(broken):
    states = one_state_per_chain(W6, B6, 0.8, "spins", rule=broken)
    assert pvalue(states, bm.boltzmann_distribution(W6, B6, 0.8)) < 1e-12


# --- lattices: the checkerboard schedule of the same runner ---------------------------


@pytest.mark.parametrize("units", UNITS)
@pytest.mark.parametrize("rows, cols, periodic, J, h, T, rules", LATTICES)
def test_lattice_checkerboard_follows_boltzmann(rows, cols, periodic, J, h, T, rules, units):
    lattice = bm.SquareLattice(rows, cols, J=J, h=h, periodic=periodic)
    W, b = bm.square_lattice_couplings(rows, cols, J, periodic), np.full(rows * cols, h)
    p = bm.boltzmann_distribution(W, b, T, units)
    for rule in rules:
        states = one_state_per_chain(lattice, None, T, units, rule=rule)
        assert pvalue(states, p) > ALPHA, rule


def test_lattice_clamping_follows_the_conditional_distribution():
    lattice = bm.SquareLattice(4, 2, J=0.7, h=0.3, periodic=False)
    W, b, T = bm.square_lattice_couplings(4, 2, 0.7, periodic=False), np.full(8, 0.3), 1.2
    clamped, patterns = [5, 2], np.array([[1, -1], [-1, -1]])
    values = patterns[np.arange(N_CHAINS) % 2]
    states = one_state_per_chain(lattice, None, T, "spins", clamped=clamped, values=values)
    np.testing.assert_array_equal(states[:, clamped], values)
    p, table = bm.boltzmann_distribution(W, b, T), bm.all_states(8)
    for k, pattern in enumerate(patterns):
        conditional = np.where(np.all(table[:, clamped] == pattern, axis=1), p, 0.0)
        assert pvalue(states[k::2], conditional / conditional.sum()) > ALPHA


@pytest.mark.parametrize("units", UNITS)
@pytest.mark.parametrize("rows, cols, periodic", [(2, 2, True), (4, 6, True), (6, 4, False), (2, 8, False)])
def test_lattice_stencil_equals_the_coupling_matrix(rows, cols, periodic, units):
    """Energies, and a deterministic descent sweep (which uses every local field), match the dense model."""
    J, h = 0.7, -0.3
    lattice = bm.SquareLattice(rows, cols, J=J, h=h, periodic=periodic)
    W, b = bm.square_lattice_couplings(rows, cols, J, periodic), np.full(rows * cols, h)
    start = bm.all_states(1, units)[np.random.default_rng(SEED).integers(2, size=(5, rows * cols)), 0]
    np.testing.assert_allclose(lattice.energy(lattice.start(start)), bm.energy(start, W, b), atol=1e-12)
    # The dense colouring of a lattice with even sides is the checkerboard: colour k = sites with r + c = k mod 2.
    parity = np.add(*np.indices((rows, cols))).ravel() % 2
    groups = bm.greedy_colouring(W)
    assert len(groups) == 2 and all((parity[g] == k).all() for k, g in enumerate(groups))
    schedule = [(0.0, 1)]
    on_lattice = bm.anneal(lattice, None, schedule, units, n_chains=5, initial=start)
    on_matrix = bm.anneal(W, b, schedule, units, n_chains=5, scan="colouring", initial=start)
    np.testing.assert_array_equal(on_lattice.final_state, on_matrix.final_state)
    np.testing.assert_allclose(on_lattice.energies, on_matrix.energies, atol=1e-9)


def _energy_levels_4x4(T):
    """Exact distribution of the energy of the 4 x 4 Ising torus (J = 1) at T: (levels, probabilities)."""
    W = bm.square_lattice_couplings(4)
    energies = bm.energy(bm.all_states(16), W)
    levels, which = np.unique(np.round(energies).astype(int), return_inverse=True)
    return levels, np.bincount(which, weights=bm.boltzmann_distribution(W, None, T))


@pytest.mark.parametrize("sampler", ["checkerboard SquareLattice", "sequential dense W"])
def test_4x4_torus_energy_histogram_matches_enumeration(sampler):
    T = 2.5
    levels, p = _energy_levels_4x4(T)
    if sampler.startswith("checkerboard"):
        result = bm.sample(bm.SquareLattice(4), T=T, n_samples=1, n_chains=N_CHAINS, burn_in=BURN_IN, rng=SEED)
    else:
        W = bm.square_lattice_couplings(4)
        result = bm.sample(W, None, T, n_samples=1, n_chains=N_CHAINS, burn_in=BURN_IN, scan="sequential", rng=SEED)
    counts = np.bincount(np.searchsorted(levels, np.round(result.energies[0]).astype(int)), minlength=levels.size)
    assert chi_square_pvalue(counts, p) > ALPHA


def test_energy_per_spin_on_a_32x32_torus_matches_kaufman():
    """beta = 0.4 (T = 2.5, above T_c): the exact finite-lattice energy, within three standard errors."""
    result = bm.sample(bm.SquareLattice(32), T=2.5, n_samples=2000, n_chains=16, burn_in=200, rng=SEED)
    e = bm.estimate(result.energies / 32**2)
    assert e.error < 2e-3  # the test has teeth: 0.2% of |e|
    assert abs(e.value - bm.kaufman_energy_per_spin(32, 32, 2.5)) < 3 * e.error


def test_magnetization_on_a_64x64_torus_is_near_yang():
    """beta = 0.5 (T = 2.0, below T_c), from an ordered start.

    The correlation length at T = 2 is about one lattice spacing, so on a
    64 x 64 torus <|m|> differs from Yang's infinite-lattice value by far
    less than 1e-3 (finite-size corrections decay like exp(-L / xi)). The
    tolerance is three standard errors plus 1e-3 for that.
    """
    result = bm.sample(
        bm.SquareLattice(64), T=2.0, n_samples=500, n_chains=8, burn_in=200, initial=np.ones(64 * 64), rng=SEED
    )
    m = bm.thermal_averages(result)["abs_magnetization"]
    assert m.error < 1e-3
    assert abs(m.value - bm.yang_magnetization(2.0)) < 3 * m.error + 1e-3


# --- acceptance rates ----------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES)
def test_acceptance_rate_of_one_unit(rule):
    """One spin in a field h at T: heat bath changes it with probability 2 p (1 - p), Metropolis 2 min(p, 1 - p)."""
    h, T = 0.4, 1.0
    p = 1 / (1 + np.exp(-2 * h / T))
    exact = 2 * p * (1 - p) if rule == "heat_bath" else 2 * min(p, 1 - p)
    result = bm.sample([[0.0]], [h], T, n_samples=100, n_chains=10_000, burn_in=20, rule=rule, rng=SEED)
    assert result.acceptance.shape == (100,)
    assert result.acceptance_rate == pytest.approx(exact, abs=0.005)


def test_acceptance_excludes_burn_in_and_clamped_units():
    # From all spins down in a strong upward field, the burn-in flips nearly everything;
    # afterwards almost nothing changes. Clamped units never count.
    W, b = np.zeros((4, 4)), np.full(4, 5.0)
    result = bm.sample(W, b, 1.0, n_samples=10, burn_in=5, n_chains=100, clamped=[0], values=[-1],
                       initial=-np.ones(4), rng=SEED)
    assert result.acceptance_rate < 1e-3
    assert np.all(result.samples[:, :, 0] == -1)


# --- the dense sequential heat-bath sweep (bmlib/sampling/dense_sweep.py) ----------------


@pytest.mark.parametrize("units", ["spins", "bits"])
@pytest.mark.parametrize("T", [0.2, 1.0, 7.0])
def test_dense_sequential_heat_bath_gives_the_chains_of_the_general_path(units, T):
    # The general path, forced by passing the public rule as a reader's own function, draws the
    # same random numbers; the fast sweep tests them in another form (a threshold on the field),
    # which decides differently only for a uniform within rounding of its threshold (about 1e-16
    # per update): over these 9 chains x 30 units x 20 sweeps, the very same chains.
    rng = np.random.default_rng(SEED)
    n = 30
    A = rng.normal(size=(n, n))
    W = (A + A.T) / np.sqrt(2 * n)
    np.fill_diagonal(W, 0.0)
    b = rng.normal(size=n)
    level = 1 if units == "spins" else 0
    for clamp in ({}, {"clamped": [3, 17], "values": [1, level]}):
        fast = bm.sample(W, b, T, units, n_samples=6, n_chains=9, burn_in=2, thin=3, rng=SEED, **clamp)
        general = bm.sample(W, b, T, units, n_samples=6, n_chains=9, burn_in=2, thin=3, rng=SEED, **clamp,
                            rule=lambda v, h, T, u, r: bm.heat_bath(v, h, T, u, r))
        np.testing.assert_array_equal(fast.samples, general.samples)
        np.testing.assert_array_equal(fast.energies, general.energies)
        np.testing.assert_array_equal(fast.acceptance, general.acceptance)


def test_dense_sequential_heat_bath_at_a_tiny_temperature_warns_nothing():
    # h / T overflows to +-inf at T = 1e-300 with a field of 1e10; tanh(+-inf) = +-1 is the right
    # limit, as in the rule, and no RuntimeWarning may reach the reader. T = 1e-310 takes the rule's
    # other branch (its reciprocal overflows), which the fast sweep leaves to the general path.
    W, b = np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([1e10, -1e10])
    for T in (1e-300, 1e-310):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            result = bm.sample(W, b, T, n_samples=2, n_chains=3, rng=SEED)
        assert np.all(result.samples[..., 0] == 1) and np.all(result.samples[..., 1] == -1)


# --- the lattice heat-bath sweep (bmlib/sampling/lattice_sweep.py) ------------------------


@pytest.mark.parametrize("units", ["spins", "bits"])
@pytest.mark.parametrize("T", [1e-300, 0.3, 2.269, 7.0, 1e300])
@pytest.mark.parametrize("lattice", [bm.SquareLattice(6, 4, J=0.7, h=0.3), bm.SquareLattice(2, 4, J=-1.3, periodic=True),
                                     bm.SquareLattice(4, 6, J=1.0, h=-0.1, periodic=False)], ids=["torus-h", "L2-afm", "open"])
def test_lattice_heat_bath_gives_the_chains_of_the_general_path(units, T, lattice):
    # The table of integer thresholds must decide every site exactly as the rule's float test on
    # the same uniforms (the rules module's argument), whatever the field, sign of J, boundary,
    # units and temperature, including the extremes where the rule divides instead of multiplying.
    # The general path is forced by passing the public rule as a reader's own function.
    level = 1 if units == "spins" else 0
    for clamp in ({}, {"clamped": [3, 6], "values": [1, level]}):
        fast = bm.sample(lattice, None, T, units, n_samples=6, n_chains=5, burn_in=2, thin=3, rng=SEED, **clamp)
        general = bm.sample(lattice, None, T, units, n_samples=6, n_chains=5, burn_in=2, thin=3, rng=SEED, **clamp,
                            rule=lambda v, h, T, u, r: bm.heat_bath(v, h, T, u, r))
        np.testing.assert_array_equal(fast.samples, general.samples)
        np.testing.assert_array_equal(fast.energies, general.energies)
        np.testing.assert_array_equal(fast.acceptance, general.acceptance)


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_integer_thresholds_decide_every_uniform_as_the_rules_float_test(units):
    # All 2**24 possible uniforms, for fields from a lattice of odd J and h at several temperatures:
    # k < K must hold exactly where the rule's own test 2u - 1 < tanh(x) holds on u = k / 2**24
    # (an off-by-one in K changes one uniform in 2**24, which no sampled chain would show).
    from bmlib.sampling.rules import HeatBath

    k = np.arange(2**24, dtype=np.uint32)
    u = np.multiply(k, np.float32(2.0**-24), dtype=np.float32)
    u *= 2
    u -= 1
    fields = bm.SquareLattice(4, J=0.7, h=0.3)._fields_of_sums(np.arange(-4, 5, dtype=np.int8))
    for T in (0.9, 2.269):
        K = HeatBath().bit_thresholds(fields, T, units)
        scale = HeatBath().scale(T, units)
        for field, threshold in zip(fields, K):
            rule = u < np.tanh(np.multiply(field, scale, dtype=np.float64))
            assert np.count_nonzero(rule) == threshold
            np.testing.assert_array_equal(k < threshold, rule)


def test_lattice_heat_bath_follows_an_annealing_schedule_like_the_general_path():
    # The thresholds are kept while T stays and made anew when it changes (down to T = 0, where
    # the zero-temperature rule takes over).
    lattice = bm.SquareLattice(8, h=0.05)
    schedule = [(4.0, 2), (3.0, 1), (2.0, 2), (1.0, 1), (0.5, 1), (0.0, 2)]
    fast = bm.anneal(lattice, None, schedule, n_chains=4, rng=SEED)
    general = bm.anneal(lattice, None, schedule, n_chains=4, rng=SEED,
                        rule=lambda v, h, T, u, r: bm.heat_bath(v, h, T, u, r))
    np.testing.assert_array_equal(fast.samples, general.samples)


# --- reproducibility and continuation ------------------------------------------------


@pytest.mark.parametrize(
    "model, b, scan", [(W6, B6, "random"), (W6, B6, "colouring"), (bm.SquareLattice(4, 6, h=0.2), None, "colouring")]
)
def test_same_seed_same_samples_and_continuation_equals_one_run(model, b, scan):
    kwargs = {"rule": "metropolis", "scan": scan}
    once = bm.sample(model, b, 1.5, n_samples=20, burn_in=10, n_chains=3, rng=SEED, **kwargs)
    again = bm.sample(model, b, 1.5, n_samples=20, burn_in=10, n_chains=3, rng=SEED, **kwargs)
    np.testing.assert_array_equal(once.samples, again.samples)
    gen = np.random.default_rng(SEED)
    first = bm.sample(model, b, 1.5, n_samples=12, burn_in=10, n_chains=3, rng=gen, **kwargs)
    # Continuing: n_chains is taken from initial.
    rest = bm.sample(model, b, 1.5, n_samples=8, burn_in=0, initial=first.final_state, rng=gen, **kwargs)
    np.testing.assert_array_equal(np.concatenate([first.samples, rest.samples]), once.samples)
    np.testing.assert_allclose(np.concatenate([first.energies, rest.energies]), once.energies)


def test_samples_energies_and_final_state_agree():
    result = bm.sample(W6, B6, 1.0, "bits", n_samples=30, n_chains=4, thin=3, rng=SEED)
    assert result.samples.dtype == np.int8 and result.samples.shape == (30, 4, 6)
    np.testing.assert_allclose(result.energies, bm.energy(result.samples, W6, B6), atol=1e-12)
    np.testing.assert_array_equal(result.final_state, result.samples[-1])
    assert result.n_sweeps == 100 + 30 * 3
    np.testing.assert_array_equal(result.temperatures, np.full(30, 1.0))


# --- annealing --------------------------------------------------------------------


def test_zero_temperature_is_energy_descent():
    rng = np.random.default_rng(SEED)
    W, b = W6, B6
    for start in bm.all_states(6)[rng.choice(64, size=8, replace=False)]:
        path = bm.energy_descent(start, W, b, scan="sequential")
        result = bm.anneal(W, b, [(0.0, 20)], initial=start)
        np.testing.assert_array_equal(result.final_state[0], path.final_state)


def test_annealing_schedule_is_followed_and_ends_in_local_minima():
    W = bm.sk_couplings(16, rng=SEED)
    schedule = [(3.0, 5), (1.5, 5), (0.5, 5), (0.0, 6)]
    result = bm.anneal(W, None, schedule, n_chains=20, rng=SEED)
    np.testing.assert_array_equal(result.temperatures, np.repeat([3.0, 1.5, 0.5, 0.0], [5, 5, 5, 6]))
    assert result.samples.shape == (21, 20, 16)
    assert bm.is_stable(result.final_state, W).all()
    assert result.acceptance[-1] == 0.0  # the last descent sweep changed nothing


def test_lattice_quench_reaches_stable_states():
    lattice = bm.SquareLattice(8, 8, h=0.05)
    result = bm.anneal(lattice, None, [(1.5, 20), (0.0, 5)], n_chains=6, rng=SEED)
    W, b = bm.square_lattice_couplings(8), np.full(64, 0.05)
    assert bm.is_stable(result.final_state, W, b).all()
    np.testing.assert_allclose(result.energies[-1], bm.energy(result.final_state, W, b), atol=1e-6)


def test_default_schedule_is_ackley_hinton_sejnowski():
    result = bm.anneal(W6, B6, n_chains=2, rng=SEED)
    np.testing.assert_array_equal(result.temperatures, [20, 20, 15, 15, 12, 12, 10, 10, 10, 10])


# --- colouring --------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_greedy_colouring_is_proper_and_complete(seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(12, 12)) * (rng.random((12, 12)) < 0.3)
    W = np.triu(A, 1)
    W = W + W.T
    free = np.sort(rng.choice(12, size=9, replace=False))
    groups = bm.greedy_colouring(W, free)
    np.testing.assert_array_equal(np.sort(np.concatenate(groups)), free)
    for g in groups:
        assert not W[np.ix_(g, g)].any()
