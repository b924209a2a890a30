"""Forward and reverse AIS (bm.ais_sandwich) against exact log Z.

Both bounds are random: the tests average over the named seeds 0..19 and
state the measured values beside each threshold. What must hold: the mean
of the upper bound is not below log Z, the mean of the lower bound is not
above it (each up to the noise of a mean of 20), the gap closes as the
schedule grows, and on the chapter's 16 x 16 lattice the gap exposes the
forward run that falls short while its error bar stays small.
"""
import numpy as np
import pytest

import bmlib as bm

TORUS = bm.square_lattice_couplings(4)  # n = 16, two ordered states at T = 1
SK = bm.sk_couplings(16, rng=3)  # spin-glass temperature T = 1
SEEDS = range(20)


def sandwich_errors(W, T, n_steps, b=None):
    """(lower - log Z, upper - log Z, gap) over SEEDS, 50 runs each way, shape (20, 3)."""
    exact = bm.log_partition(W, b, T)
    runs = [bm.ais_sandwich(W, b, T, n_runs=50, n_steps=n_steps, rng=seed) for seed in SEEDS]
    return np.array([(s.lower - exact, s.upper - exact, s.gap) for s in runs])


@pytest.mark.parametrize("W, T", [(TORUS, 1.0), (SK, 1.0)], ids=["torus-T1", "sk-T1"])
@pytest.mark.parametrize("n_steps", [10, 100])
def test_the_bounds_lie_on_their_sides_of_log_z_on_average(W, T, n_steps):
    """Mean over 20 seeds of upper - log Z >= -0.05 and of lower - log Z <= +0.05.

    Measured (lower, upper): torus K = 10: -0.43, +0.83; K = 100: -0.02, +0.07.
    SK K = 10: -0.06, +0.09; K = 100: +0.01, -0.01. The tolerance 0.05 is
    about three standard errors of a mean of 20 at K = 100 (spread ~0.08).
    """
    errors = sandwich_errors(W, T, n_steps)
    assert errors[:, 1].mean() >= -0.05
    assert errors[:, 0].mean() <= 0.05


@pytest.mark.parametrize("W", [TORUS, SK], ids=["torus-T1", "sk-T1"])
def test_the_gap_closes_as_the_schedule_grows(W):
    """Mean gap over 20 seeds, K = 10 against K = 100 at T = 1.

    Measured: torus 1.26 -> 0.08, SK 0.14 -> -0.02. Asserted: at K = 10
    the mean gap is above 0.1, and at K = 100 it is below half of that.
    """
    short, long = sandwich_errors(W, 1.0, 10)[:, 2].mean(), sandwich_errors(W, 1.0, 100)[:, 2].mean()
    assert short > 0.1
    assert long < short / 2


def test_the_gap_exposes_the_chapters_silent_failure():
    """The 16 x 16 lattice in a field of the Z chapter, T = 1, 50 runs of 60 steps (seed 0).

    Forward AIS falls short by about 16 with an error bar under 1; the
    reverse runs, started from exact samples, land above log Z, and the gap
    (measured 27) is many times both error bars.
    """
    rng = np.random.default_rng(7)
    rng.normal(scale=0.5, size=100)  # the 10 x 10 lattice's field, drawn first in the chapter
    W = bm.square_lattice_couplings(16, periodic=False)
    b = rng.normal(scale=0.5, size=256)
    exact = bm.log_partition(W, b, T=1.0)
    s = bm.ais_sandwich(W, b, T=1.0, n_runs=50, n_steps=60, rng=0)
    assert s.lower < exact - 5 and s.lower_error < 1
    assert s.upper > exact
    assert s.gap > 10 * max(s.lower_error, s.upper_error)


def test_exact_samples_follow_the_boltzmann_distribution():
    """20 000 exact samples of a 5-unit model in a field: every state's frequency within 4 sigma of p."""
    rng = np.random.default_rng(1)
    W = bm.sk_couplings(5, rng=2) * 2
    b = rng.normal(size=5)
    for units in ("spins", "bits"):
        S = bm.exact_samples(W, b, 0.7, units, n_samples=20_000, rng=0)
        p = bm.boltzmann_distribution(W, b, T=0.7, units=units)
        index = bm.state_index(S, units=units)
        freq = np.bincount(index, minlength=32) / 20_000
        assert np.all(np.abs(freq - p) <= 4 * np.sqrt(p * (1 - p) / 20_000) + 1e-12)


def test_exact_samples_of_a_sparse_model_and_of_an_rbm():
    """A 12-unit RBM (8 visible, 4 hidden, strong weights) at T = 0.6, 200 000 samples.

    Pearson chi-square over the 2263 states expected more than 20 times:
    measured 2221; asserted below dof + 5 sqrt(2 dof). A 30-unit chain,
    beyond enumeration's comfort, has the exact nearest-neighbour moments.
    """
    rbm = bm.RBM(8, 4, units="bits", rng=1)
    rbm.W = rbm.W * 40
    full = rbm.to_boltzmann_machine()
    p = bm.boltzmann_distribution(full.W, full.b, T=0.6, units="bits")
    S = bm.exact_samples(full.W, full.b, T=0.6, units="bits", n_samples=200_000, rng=0)
    counts = np.bincount(bm.state_index(S, units="bits"), minlength=2**12)
    expected = p * 200_000
    big = expected > 20
    chi2 = np.sum((counts[big] - expected[big]) ** 2 / expected[big])
    assert chi2 < big.sum() + 5 * np.sqrt(2 * big.sum())
    chain = bm.chain_couplings(30, periodic=False)
    S = bm.exact_samples(chain, T=1.0, n_samples=20_000, rng=1)
    # Open chain, no field: <s_i s_{i+1}> = tanh(1) = 0.7616 for every bond; sd of a mean of 20 000 about 0.005.
    assert np.allclose((S[:, :-1] * S[:, 1:]).mean(axis=0), np.tanh(1.0), atol=0.025)


def test_exact_samples_check_their_arguments():
    with pytest.raises(ValueError, match="n_samples"):
        bm.exact_samples(TORUS, n_samples=0)
    with pytest.raises(ValueError, match="T"):
        bm.exact_samples(TORUS, T=-1.0)
    with pytest.raises(ValueError, match="exact samples"):
        bm.exact_samples(bm.sk_couplings(40, rng=0))


def test_bits_and_the_mean_field_base():
    """Bits and base="mean_field" run and bracket log Z of a small model (seed 0, 200 steps)."""
    W, b = bm.sk_couplings(8, rng=1), np.full(8, 0.2)
    for units, base in (("bits", "uniform"), ("spins", "mean_field")):
        s = bm.ais_sandwich(W, b, T=1.0, units=units, n_runs=50, n_steps=200, base=base, rng=0)
        exact = bm.log_partition(W, b, T=1.0, units=units)
        assert abs(s.lower - exact) < 0.1 and abs(s.upper - exact) < 0.1
        assert s.n_steps == 200 and s.cost == 2 * 50 * 199


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"n_runs": 1}, "n_runs"),
        ({"n_steps": 1}, "n_steps"),
        ({"fractions": [0.0, 1.0]}, "fractions"),
        ({"base": "normal"}, "base"),
        ({"T": 0.0}, "T"),
        ({"units": "volts"}, "units"),
    ],
)
def test_bad_arguments_are_named(kwargs, name):
    args = {"W": TORUS, "n_runs": 5, "n_steps": 5, **kwargs}
    if "fractions" in kwargs:
        del args["n_steps"]
    with pytest.raises(ValueError, match=name):
        bm.ais_sandwich(**args)


def test_a_model_too_large_for_exact_samples_is_refused():
    with pytest.raises(ValueError, match="exact samples"):
        bm.ais_sandwich(bm.sk_couplings(40, rng=0), n_runs=5, n_steps=5, rng=0)
