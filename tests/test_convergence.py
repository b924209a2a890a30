"""Error bars that see stuck chains, R-hat and bulk ESS, budgets and scale-free formulas.

References written out plainly here, independently of bmlib's vectorized code:
the rank-normalized split-R-hat and bulk effective sample size follow Vehtari,
Gelman, Simpson, Carpenter & Buerkner (2021), "Rank-normalization, folding, and
localization: an improved R-hat for assessing convergence of MCMC", Bayesian
Analysis 16(2), eqs. (1)-(4) and (10)-(14), with Geyer's initial monotone
sequence as in Stan's and ArviZ's code. The normal quantile is checked against
the standard library's ``statistics.NormalDist``.
"""
import math
import statistics
import tracemalloc
import warnings

import re

import numpy as np
import pytest

import bmlib as bm
from _series import ar1, ar1_standard_error
from bmlib.sampling import convergence, diagnostics

SEED = 20261126


# --- references, written from the paper's formulas -------------------------------------------


def ref_ranks(values):
    """Average ranks (1-based) of a flat list, ties sharing the mean of their positions."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def ref_z_scale(chains):
    """Rank-normalize a list of chains: z = Phi^-1((r - 3/8) / (S + 1/4)) (Vehtari et al., eq. 14)."""
    flat = [v for chain in chains for v in chain]
    ranks = ref_ranks(flat)
    S = len(flat)
    z = [statistics.NormalDist().inv_cdf((r - 0.375) / (S + 0.25)) for r in ranks]
    out, k = [], 0
    for chain in chains:
        out.append(z[k : k + len(chain)])
        k += len(chain)
    return out


def ref_split(chains):
    """Each chain's first and last halves (the middle draw dropped when the length is odd)."""
    half = len(chains[0]) // 2
    return [c[:half] for c in chains] + [c[len(c) - half :] for c in chains]


def ref_rhat(chains):
    """sqrt(var_plus / W), var_plus = (n - 1)/n W + B/n (eqs. 1-4)."""
    m, n = len(chains), len(chains[0])
    means = [sum(c) / n for c in chains]
    grand = sum(means) / m
    B = n / (m - 1) * sum((mu - grand) ** 2 for mu in means)
    W = sum(sum((v - mu) ** 2 for v in c) / (n - 1) for c, mu in zip(chains, means)) / m
    return math.sqrt(((n - 1) / n * W + B / n) / W)


def ref_ess(chains):
    """Multi-chain ESS with Geyer's initial monotone sequence, as a plain loop (eqs. 10-13)."""
    m, n = len(chains), len(chains[0])
    means = [sum(c) / n for c in chains]

    def acov(c, mu, t):  # biased autocovariance of one chain at lag t
        return sum((c[i] - mu) * (c[i + t] - mu) for i in range(n - t)) / n

    acovs = [[acov(c, mu, t) for t in range(n)] for c, mu in zip(chains, means)]
    mean_acov = [sum(a[t] for a in acovs) / m for t in range(n)]
    W = mean_acov[0] * n / (n - 1)
    grand = sum(means) / m
    B_over_n = sum((mu - grand) ** 2 for mu in means) / (m - 1)
    var_plus = W * (n - 1) / n + B_over_n
    rho = [0.0] * n
    rho[0] = 1.0
    even, odd = 1.0, 1 - (W - mean_acov[1]) / var_plus
    rho[1] = odd
    t = 1
    while t < n - 3 and even + odd > 0:
        even = 1 - (W - mean_acov[t + 1]) / var_plus
        odd = 1 - (W - mean_acov[t + 2]) / var_plus
        if even + odd >= 0:
            rho[t + 1], rho[t + 2] = even, odd
        t += 2
    max_t = t - 2
    if even > 0:
        rho[max_t + 1] = even
    t = 1
    while t <= max_t - 2:
        if rho[t + 1] + rho[t + 2] > rho[t - 1] + rho[t]:
            rho[t + 1] = rho[t + 2] = (rho[t - 1] + rho[t]) / 2
        t += 2
    tau = -1 + 2 * sum(rho[: max_t + 1]) + sum(rho[max_t + 1 : max_t + 2])
    tau = max(tau, 1 / math.log10(m * n))
    return m * n / tau


def ref_diagnostics(x):
    """(R-hat, bulk ESS) of x of shape (n, m): max of bulk and folded split-R-hat; bulk ESS."""
    chains = [list(map(float, x[:, j])) for j in range(x.shape[1])]
    flat = sorted(v for c in chains for v in c)
    S = len(flat)
    median = (flat[(S - 1) // 2] + flat[S // 2]) / 2
    folded = [[abs(v - median) for v in c] for c in chains]
    bulk = ref_z_scale(ref_split(chains))
    tail = ref_z_scale(ref_split(folded))
    return max(ref_rhat(bulk), ref_rhat(tail)), ref_ess(bulk)


# --- the normal quantile ---------------------------------------------------------------------


def test_normal_quantile_matches_the_standard_library():
    p = np.concatenate([np.geomspace(1e-300, 0.49, 400), [0.5], 1 - np.geomspace(1e-16, 0.49, 400)])
    ours = convergence._normal_quantile(p)
    ref = np.array([statistics.NormalDist().inv_cdf(float(q)) for q in p])
    np.testing.assert_allclose(ours, ref, rtol=1e-13, atol=1e-15)
    assert ours[400] == 0.0


# --- R-hat and ESS against the references ----------------------------------------------------


@pytest.mark.parametrize("case", ["ar1", "stuck", "ties", "odd_one_chain", "two_chains"])
def test_r_hat_and_bulk_ess_match_the_paper_formulas(case):
    rng = np.random.default_rng([SEED, len(case)])
    if case == "ar1":
        x = ar1(0.7, 200, 4, rng)
    elif case == "stuck":  # two chains in each of two modes
        x = ar1(0.5, 150, 4, rng) * 0.1 + np.array([1.0, -1.0, 1.0, -1.0])
    elif case == "ties":  # few distinct values, many ties
        x = rng.integers(0, 3, size=(120, 3)).astype(float)
    elif case == "odd_one_chain":
        x = ar1(0.3, 301, 1, rng)
    else:
        x = ar1(0.9, 100, 2, rng)
    r_hat, ess = ref_diagnostics(x)
    e = bm.estimate(x if x.shape[1] > 1 else x[:, 0])
    assert e.r_hat == pytest.approx(r_hat, rel=1e-10)
    assert e.ess == pytest.approx(ess, rel=1e-10)


def test_r_hat_and_bulk_ess_match_arviz_if_installed():
    az = pytest.importorskip("arviz", reason="arviz is not installed: the comparison with ArviZ is skipped")
    x = ar1(0.8, 500, 4, np.random.default_rng(SEED))
    e = bm.estimate(x)
    assert e.r_hat == pytest.approx(float(az.rhat(x.T, method="rank")), rel=1e-8)
    assert e.ess == pytest.approx(float(az.ess(x.T, method="bulk")), rel=1e-8)


# --- honest error bars ------------------------------------------------------------------------


def test_error_bars_of_independent_ar1_chains_cover_the_mean_95_percent_of_the_time():
    # 200 seeded runs of 4 AR(1) chains (phi = 0.5, tau = 3) of 2048 samples; the exact mean is 0.
    # The error bar is the larger of the within-chain and the between-chain estimates, so it is a
    # little above the exact standard error: over 400 other seeds its mean ratio to the exact one is
    # 1.09 and it covers 0 within 2 error bars in 97% of runs (95.4% for an exact error bar). A
    # binomial fraction of 200 has a standard deviation of ~1.3 points: the band 92% ... 99.5% is
    # ~3.5 of them either side of 96.5%. The ratio band 0.95 ... 1.25 catches an error bar 5% too
    # small or 25% too large. Seed SEED gives a fraction of 0.93 and a mean ratio of 1.10.
    phi, n, m, runs = 0.5, 2048, 4, 200
    exact = ar1_standard_error(phi, n, m)
    hits, ratios = 0, []
    with warnings.catch_warnings():
        warnings.simplefilter("error", bm.ConvergenceWarning)  # well-mixed chains: no warning
        for k in range(runs):
            e = bm.estimate(ar1(phi, n, m, np.random.default_rng([SEED, k])))
            hits += abs(e.value) < 2 * e.error
            ratios.append(e.error / exact)
    fraction, ratio = hits / runs, float(np.mean(ratios))
    assert 0.92 <= fraction <= 0.995 and 0.95 < ratio < 1.25, (fraction, ratio)


def _stuck_reproducers():
    W = np.full((8, 8), 0.5)
    np.fill_diagonal(W, 0)
    r = bm.sample(W, T=0.5, n_samples=4000, n_chains=8, rng=2)
    yield "dense", lambda: bm.estimate(r.samples.mean(axis=2))
    lattice = bm.sample(bm.SquareLattice(10), T=2.0, n_samples=2000, n_chains=8, burn_in=500, rng=0)
    yield "lattice", lambda: bm.thermal_averages(lattice)["magnetization"]


@pytest.mark.parametrize("name", ["dense", "lattice"])
def test_stuck_chains_get_an_error_bar_that_covers_zero_and_a_warning(name):
    call = dict(_stuck_reproducers())[name]
    with pytest.warns(bm.ConvergenceWarning, match="R-hat"):
        e = call()
    # Exact <m> = 0 by symmetry; the chains sit in +m0 and -m0.
    assert abs(e.value) < 2 * e.error, e
    assert e.r_hat > 1.01 and e.error > 0.1


def test_convergence_warning_is_a_user_warning():
    assert issubclass(bm.ConvergenceWarning, UserWarning)
    assert bm.ConvergenceWarning is bm.sampling.ConvergenceWarning


def test_too_few_effective_samples_warn():
    x = ar1(0.95, 400, 4, np.random.default_rng(SEED))  # tau ~ 39: ESS ~ 40, far below 100 per chain
    with pytest.warns(bm.ConvergenceWarning, match=r"bulk ESS \d+ < 400"):
        e = bm.estimate(x)
    assert e.ess < 400


def test_the_scan_warning_names_where_and_the_worst_case_in_one_line():
    # Below T_c a lattice's magnetization flips sign rarely: the chains disagree on it.
    lattice = bm.SquareLattice(8)
    with pytest.warns(bm.ConvergenceWarning) as caught:
        bm.temperature_scan(lattice, None, [1.8, 5.0], n_samples=300, n_chains=4, burn_in=50, rng=SEED)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "\n" not in message
    assert re.match(r"temperature_scan at [12] of 2 temperatures \(T = 1\.8(, 5)?\); worst: magnetization at T = 1\.8, "
                    r"R-hat \d+\.\d{3} > 1\.01", message), message


def test_the_scan_warning_counts_each_observables_flagged_temperatures():
    # Which error bars to distrust: every observable whose R-hat or bulk ESS fails at some
    # temperature is listed with its count, read here off the returned diagnostics.
    T = [1.8, 2.3, 5.0]
    with pytest.warns(bm.ConvergenceWarning) as caught:
        scan = bm.temperature_scan(bm.SquareLattice(8), None, T, n_samples=300, n_chains=4, burn_in=50, rng=SEED)
    message = str(caught[0].message)
    counts = {name: int(np.sum((est.r_hat > 1.01) | (est.ess < 400))) for name, est in scan.items()}
    flagged = {name: k for name, k in counts.items() if k}
    listed = dict(re.findall(r"(\w+) at (\d+)(?: of the 3 temperatures)?(?=[,:;])", message.split("flagged: ")[1]))
    assert {name: int(k) for name, k in listed.items()} == flagged, message
    assert max(flagged.values()) == int(re.search(r"flagged: \w+ at (\d+) of the 3 temperatures", message).group(1))
    never = [name for name, k in counts.items() if not k]
    assert (f"never flagged: {', '.join(never)}" in message) == bool(never)


# --- Estimate stays a 3-tuple to its users ----------------------------------------------------


def test_estimate_unpacks_indexes_and_prints_as_before():
    e = bm.sampling.Estimate(-1.23456, 0.0123, 2.0)
    value, error, tau = e
    assert (value, error, tau) == (-1.23456, 0.0123, 2.0) and e[0] == -1.23456 and e[2] == 2.0
    assert len(e) == 3 and tuple(e) == (-1.23456, 0.0123, 2.0)
    assert str(e) == "-1.235 +/- 0.012"
    assert math.isnan(e.r_hat) and math.isnan(e.ess)
    full = bm.estimate(np.random.default_rng(SEED).normal(size=(1000, 4)))
    assert full.r_hat == pytest.approx(1.0, abs=0.01) and full.ess == pytest.approx(4000, rel=0.2)


def test_thermal_averages_and_temperature_scan_carry_r_hat_and_ess():
    result = bm.sample(bm.SquareLattice(4), T=3.0, n_samples=500, n_chains=4, burn_in=50, rng=SEED)
    averages = bm.thermal_averages(result)
    for name, e in averages.items():
        assert np.isfinite(e.r_hat) and np.isfinite(e.ess), name
    # The Binder cumulant's error also sees the between-chain spread and the blocking of m^2 and m^4.
    assert averages["binder"].error > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bm.ConvergenceWarning)
        scan = bm.temperature_scan(bm.SquareLattice(4), None, [3.0, 2.5], n_samples=200, n_chains=4, rng=SEED)
    for e in scan.values():
        assert e.r_hat.shape == (2,) and e.ess.shape == (2,) and e.value.shape == (2,)


def test_temperature_scan_gathers_its_warnings_into_one():
    with pytest.warns(bm.ConvergenceWarning) as record:
        bm.temperature_scan(bm.SquareLattice(6), None, [2.0, 1.5], n_samples=100, n_chains=4,
                            initial=None, rng=SEED)
    assert len([w for w in record if issubclass(w.category, bm.ConvergenceWarning)]) == 1
    assert "T = 1.5" in str(record[0].message)


# --- budgets -----------------------------------------------------------------------------------


def test_autocorrelation_of_a_huge_series_is_refused_before_any_work():
    x = np.zeros(10**8)  # 800 MB of untouched zero pages
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"x of shape \(100000000,\).*budget"):
            bm.autocorrelation(x)
        with pytest.raises(ValueError, match="budget"):
            bm.autocorrelation_time(x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10**6  # refused before allocating anything of the series' size


def test_estimate_of_a_huge_array_is_refused_before_any_work():
    x = np.zeros((10**7, 4))
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"x of shape \(10000000, 4\).*budget"):
            bm.estimate(x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10**6


def test_the_memory_check_bounds_what_estimate_really_uses():
    x = np.random.default_rng(SEED).normal(size=(30_001, 3))
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bm.ConvergenceWarning)
            bm.estimate(x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= diagnostics._workspace_bytes(*x.shape)


# --- scale -------------------------------------------------------------------------------------


@pytest.mark.parametrize("factor", [1e155, 1e300, 1e-300])
def test_results_scale_with_the_data(factor):
    x = np.random.default_rng(0).normal(size=1000)
    y = np.random.default_rng(1).normal(size=(500, 3))
    assert bm.blocking_error(x * factor) == pytest.approx(bm.blocking_error(x) * factor, rel=1e-12)
    assert bm.blocking_error(y * factor) == pytest.approx(bm.blocking_error(y) * factor, rel=1e-12)
    assert bm.autocorrelation_time(x * factor) == pytest.approx(bm.autocorrelation_time(x), rel=1e-12)
    np.testing.assert_allclose(bm.autocorrelation(x * factor), bm.autocorrelation(x), rtol=1e-12, atol=1e-14)
    big, small = bm.estimate(y * factor), bm.estimate(y)
    assert big.value == pytest.approx(small.value * factor, rel=1e-12)
    assert big.error == pytest.approx(small.error * factor, rel=1e-12)
    assert big.tau == pytest.approx(small.tau, rel=1e-12)
    assert big.r_hat == pytest.approx(small.r_hat, rel=1e-12) and big.ess == pytest.approx(small.ess, rel=1e-12)
    text = str(big)
    value, error = (float(part) for part in text.split(" +/- "))
    assert value == pytest.approx(big.value, rel=0.01) and error == pytest.approx(big.error, rel=0.06)


def test_temperature_scan_refuses_couplings_whose_energies_overflow_before_sampling():
    W = np.full((6, 6), 1e300)
    np.fill_diagonal(W, 0)
    with pytest.raises(ValueError, match="W.*overflow"):
        bm.temperature_scan(W, None, [2.0, 1.0], n_samples=10, n_chains=2, rng=0)


def test_sample_refuses_couplings_whose_energies_overflow_the_float_range():
    W = np.full((6, 6), 1e308)
    np.fill_diagonal(W, 0)
    with pytest.raises(ValueError, match="W.*overflow"):
        bm.sample(W, T=1.0, n_samples=10, n_chains=2, rng=0)
    with pytest.raises(ValueError, match="overflow"):
        bm.sample(bm.SquareLattice(4, J=1e307), T=1.0, n_samples=10, rng=0)
    with pytest.raises(ValueError, match="b.*overflow"):
        bm.sample(np.zeros((3, 3)), np.full(3, 1e308), T=1.0, n_samples=10, rng=0)


def test_binder_error_matches_the_spread_of_independent_replicas():
    # m i.i.d. from a mixture of N(+-0.5, 0.3^2): 300 replicas of 4 chains x 250 samples (seed SEED).
    # The delta-method error bar should match the standard deviation of U over the replicas; the
    # standard error of that standard deviation is ~4% (300 replicas), and the max of within and
    # between errors runs ~9% high, so the mean reported error lies within 0.9 ... 1.25 of it.
    from bmlib.sampling import observables

    rng = np.random.default_rng([SEED, 7])
    values, errors = [], []
    for _ in range(300):
        m = rng.choice([-0.5, 0.5], size=(250, 4)) + 0.3 * rng.normal(size=(250, 4))
        e = observables._binder(m)
        values.append(e.value)
        errors.append(e.error)
    ratio = np.mean(errors) / np.std(values, ddof=1)
    assert 0.9 < ratio < 1.25, ratio


def test_thermal_averages_refuse_fluctuations_beyond_the_float_range():
    # Two units, coupling 1e200 and fields 0.5e200 at T = 1: both (+, +) and (-, -) are frozen local
    # minima, 2e200 apart in energy, so n Var(E / n) / T^2 ~ 1e400 truly overflows. Frozen chains
    # in the same minimum give a specific heat of exactly 0, not NaN (0 x 1e200 x 1e200).
    W, b = [[0.0, 1e200], [1e200, 0.0]], [0.5e200, 0.5e200]
    both = bm.sample(W, b, T=1.0, n_samples=50, initial=[[1, 1], [-1, -1]], rng=0)
    assert np.ptp(both.energies) == pytest.approx(2e200)
    with pytest.raises(ValueError, match="result: the specific heat overflows the float range"):
        bm.thermal_averages(both)
    same = bm.sample(W, b, T=1.0, n_samples=50, initial=[[1, 1], [1, 1]], rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bm.ConvergenceWarning)
        assert bm.thermal_averages(same)["specific_heat"].value == 0.0
