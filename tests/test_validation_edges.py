"""The validation holes of "Robust at the edges": each one a silent wrong answer or an unclear error before."""
import dataclasses

import numpy as np
import pytest

import bmlib as bm
from bmlib import _checks

W3 = np.array([[0.0, 1.0, -0.5], [1.0, 0.0, 0.25], [-0.5, 0.25, 0.0]])
DATA3 = bm.parity_patterns(3, units="spins")


# --- the public update rules validate; the runner's unchecked copies stay fast ------------------


@pytest.mark.parametrize("rule", [bm.heat_bath, bm.metropolis])
@pytest.mark.parametrize(
    "change, error, message",
    [
        ({"fields": [np.nan, 0.0]}, ValueError, r"fields must be finite; fields\[0\] = nan"),
        ({"T": -1.0}, ValueError, "T must be finite and > 0; got -1.0"),
        ({"T": 0.0}, ValueError, "T must be finite and > 0"),
        ({"units": "spin"}, ValueError, 'units must be "spins" or "bits"'),
        ({"values": [0.5, 1.0]}, ValueError, r"values must hold spins .*values\[0\] = 0.5"),
        ({"fields": [0.0]}, ValueError, r"fields must have the shape of values, \(2,\)"),
        ({"rng": "seed"}, TypeError, "rng must be None"),
    ],
)
def test_rules_refuse_bad_arguments(rule, change, error, message):
    args = {"values": [1.0, -1.0], "fields": [0.3, -0.2], "T": 1.0, "units": "spins", "rng": 0}
    with pytest.raises(error, match=message):
        rule(**{**args, **change})


@pytest.mark.parametrize("rule", [bm.heat_bath, bm.metropolis])
def test_rules_take_an_int_seed_and_return_levels(rule):
    values = np.array([1, -1, 1, -1] * 250, dtype=np.int8)
    fields = np.linspace(-1, 1, values.size)
    first = rule(values, fields, 1.0, "spins", 7)
    assert first.dtype == np.int8 and set(np.unique(first)) <= {-1, 1}
    np.testing.assert_array_equal(first, rule(values, fields, 1.0, "spins", 7))
    bits = rule(np.zeros(values.size), fields, 1.0, "bits", np.random.default_rng(0))
    assert set(np.unique(bits)) <= {0.0, 1.0}


def test_the_runner_uses_the_unchecked_rules():
    # Passing the public function runs the same private one as the rule's name: same samples.
    by_name = bm.sample(W3, T=1.0, n_samples=50, n_chains=3, rule="metropolis", rng=4).samples
    by_function = bm.sample(W3, T=1.0, n_samples=50, n_chains=3, rule=bm.metropolis, rng=4)
    np.testing.assert_array_equal(by_name, by_function.samples)
    assert by_function.rule == "metropolis"
    # ... and does not re-validate its arguments at every update: the public names map to the private rules.
    from bmlib.sampling.rule_arguments import resolve_rule
    from bmlib.sampling.rules import RULES

    for rule in (bm.heat_bath, bm.metropolis):
        assert resolve_rule(rule) is RULES[rule.__name__]


@pytest.mark.parametrize("returned", [0.5, np.nan, 2.0, "up"])
def test_a_custom_rule_must_return_unit_levels(returned):
    def bad_rule(values, fields, T, units, rng):
        return np.full(values.shape, returned, dtype=object if isinstance(returned, str) else float)

    with pytest.raises(ValueError, match=r"rule 'bad_rule' must return spins \(-1/1\)"):
        bm.sample(W3, T=1.0, n_samples=2, rule=bad_rule, rng=0)


def test_a_custom_rule_returning_levels_runs():
    def flip(values, fields, T, units, rng):
        return -values

    result = bm.sample(W3, T=1.0, n_samples=4, burn_in=0, initial=[1, 1, 1], rule=flip, scan="sequential")
    np.testing.assert_array_equal(result.samples[:, 0], [[-1, -1, -1], [1, 1, 1]] * 2)


# --- distributions, scales, colourings, flags ---------------------------------------------------


@pytest.mark.parametrize(
    "p, message",
    [
        ([0.5, np.nan], r"p must be finite; p\[1\] = nan"),
        ([1.5, -0.5], r"p must hold probabilities >= 0; p\[1\] = -0.5"),
        ([0.5, 1.0], "p must sum to 1 along its last axis .* sums to 1.5"),
        ([], r"p must have shape \(m,\) or \(\.\.\., m\) with m >= 1"),
    ],
)
def test_total_variation_refuses_what_is_not_a_distribution(p, message):
    with pytest.raises(ValueError, match=message):
        bm.total_variation(p, [0.5, 0.5])


def test_total_variation_stays_within_0_and_1():
    assert bm.total_variation([1.0, 0.0], [0.0, 1.0]) == 1.0
    assert bm.total_variation([[0.5, 0.5], [1.0, 0.0]], [0.5, 0.5]).tolist() == [0.0, 0.5]


@pytest.mark.parametrize("scale, error", [(np.nan, ValueError), (np.inf, ValueError), (1j, TypeError),
                                          ("2", TypeError), (True, TypeError)])
def test_hebbian_scale_must_be_a_finite_real(scale, error):
    with pytest.raises(error, match="scale must be"):
        bm.hebbian_weights(DATA3, scale=scale)


@pytest.mark.parametrize(
    "free, error, message",
    [
        (0.5, TypeError, "free must be a non-empty 1-D sequence of unit indices; got 0.5"),
        ([0.5], TypeError, "free must be a non-empty 1-D sequence of unit indices"),
        ([-1], ValueError, "free must be unit indices >= 0; got -1"),
        ([3], ValueError, r"free must be indices in 0..2; got 3"),
        ([0, 0], ValueError, "free must not repeat"),
    ],
)
def test_greedy_colouring_checks_free(free, error, message):
    with pytest.raises(error, match=message):
        bm.greedy_colouring(W3, free=free)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda v: bm.clamped_moments(W3, None, clamped=[0], values=[1], average=v), "average"),
        (lambda v: bm.blocking_error(np.arange(64.0), return_levels=v), "return_levels"),
        (lambda v: bm.plot_mean_field_accuracy([(W3, None, 2.0)], linear_response=v), "linear_response"),
        (lambda v: bm.plot_network(W3, show_values=v), "show_values"),
    ],
)
@pytest.mark.parametrize("flag", ["False", 0, 1.0, None])
def test_flags_must_be_true_or_false(call, name, flag):
    if flag is None and name == "show_values":  # None means "decide by size" there
        return
    with pytest.raises(TypeError, match=f"{name} must be True or False"):
        call(flag)


def test_every_public_flag_is_checked():
    """A boolean default anywhere in the public API: 'False' (a string) must be refused."""
    import inspect

    found = []
    for name in bm.__all__:
        obj = getattr(bm, name)
        if not callable(obj) or isinstance(obj, type) and issubclass(obj, BaseException):
            continue
        try:
            params = inspect.signature(obj).parameters.values()
        except (TypeError, ValueError):
            continue
        found += [(name, p.name) for p in params if isinstance(p.default, bool)]
    # The fuzz table calls each of these with "False" (see tests/test_fuzz.py); here we only make sure
    # no flag was added without an entry there.
    from _fuzz_cases import cases

    fuzzed = {(case[0], arg) for case in cases() for arg in case[2]}
    not_fuzzed = [f for f in found if f not in fuzzed and f[0] not in ("LogZEstimate", "TrainingHistory")]
    assert not not_fuzzed, f"boolean flags missing from the fuzz table: {not_fuzzed}"


# --- empty or string sequences ------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"budgets": []}, ValueError, "budgets must hold at least one item"),
        ({"methods": []}, ValueError, "methods must hold at least one item"),
        ({"methods": "tap"}, TypeError, "methods must be a sequence of method names"),
        ({"budgets": [10**12]}, ValueError, r"budgets\[0\] must be <= 100_000_000 \(bmlib.MAX_COUNT"),
    ],
)
def test_compare_log_z_refuses_an_empty_comparison(kwargs, error, message):
    with pytest.raises(error, match=message):
        bm.compare_log_z(W3, temperatures=[1.0], **kwargs)


@pytest.mark.parametrize(
    "rules, error, message",
    [
        ("heat_bath", TypeError, "rules must be a sequence of rule names"),
        ([], ValueError, "rules must hold at least one item"),
        (["heat_bath", "glauber"], ValueError, r"rules\[1\] must be one of"),
    ],
)
def test_convergence_curves_checks_rules(rules, error, message):
    with pytest.raises(error, match=message):
        bm.convergence_curves(W3, rules=rules, n_sweeps=2, n_chains=2)


# --- counts and memory ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: bm.sample(W3, n_samples=10**12), "n_samples"),
        (lambda: bm.sample(W3, n_samples=10, n_chains=2**64), "n_chains"),
        (lambda: bm.sample(W3, n_samples=10, burn_in=10**12), "burn_in"),
        (lambda: bm.train(bm.BoltzmannMachine(3), DATA3, epochs=10**12, progress=False), "epochs"),
        (lambda: bm.naive_mean_field(W3, n_starts=10**12), "n_starts"),
        (lambda: bm.ContrastiveDivergence(k=10**12), "k"),
        (lambda: bm.RBM(3, 2, units="bits").gibbs([0, 1, 1], n_sweeps=10**12), "n_sweeps"),
        (lambda: bm.convergence_curves(W3, n_sweeps=10**12), "n_sweeps"),
    ],
)
def test_counts_have_a_documented_maximum(call, name):
    with pytest.raises(ValueError, match=rf"{name} must be <= 100_000_000 \(bmlib.MAX_COUNT"):
        call()


@pytest.mark.parametrize(
    "call, what",
    [
        (lambda: bm.sample(W3, n_samples=10**7, n_chains=1000), r"keeping 10000000 states of 1000 chains"),
        (lambda: bm.sk_couplings(10**6), r"a weight matrix of 1000000 x 1000000 units"),
        (lambda: bm.BoltzmannMachine(10**5), r"the weights of 100000 units"),
        (lambda: bm.square_lattice_couplings(1000), r"a weight matrix of 1000000 x 1000000 units"),
        (lambda: bm.encoder_patterns(10**6), r"1000000 patterns"),
    ],
)
def test_work_beyond_the_memory_budget_is_refused_before_allocating(call, what):
    budget = r"would need [0-9.]+ (GiB|TiB) of memory, above bmlib's budget of 4 GiB"
    with pytest.raises(ValueError, match=rf"{what}.* {budget}"):
        call()


def test_check_memory_says_how_much():
    assert _checks.check_memory(_checks.MEMORY_BUDGET, "x") == _checks.MEMORY_BUDGET
    with pytest.raises(ValueError, match=r"the arrays would need 5 GiB of memory"):
        _checks.check_memory(5 * 2**30, "the arrays")


# --- objects of the wrong kind, and errors that name the argument passed -----------------------------


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: bm.exact_statistics(42, DATA3), TypeError, "model must be a bmlib BoltzmannMachine or RBM; got 42"),
        (lambda: bm.plot_annealing(None), TypeError, "result must be a SampleResult from bm.anneal; got None"),
        (lambda: bm.plot_descent(None), TypeError, "path must be a DescentPath"),
        (lambda: bm.plot_phase_transition([2.0], None, 4), TypeError, "scan must be the dict returned"),
        (lambda: bm.plot_training_history(None), TypeError, "histories must be a TrainingHistory"),
        (lambda: bm.plot_log_likelihood_curves({"a": None}), TypeError, r"runs\['a'\] must be a TrainingHistory"),
        (lambda: bm.plot_estimated_statistics(None, {}), TypeError, "reference must be a pair"),
        (lambda: bm.plot_network(W3, ax="axes"), TypeError, "ax must be a matplotlib Axes"),
        (lambda: bm.plot_coupling_matrices(3.0), TypeError, "matrices must be a sequence"),
        (lambda: bm.plot_mean_field_accuracy([(W3, None, -1.0)]), ValueError, r"models\[0\]: T must be finite"),
        (lambda: bm.temperature_scan(W3, None, [1.0, np.nan]), ValueError, r"temperatures\[1\] = nan"),
        (lambda: bm.plot_self_consistency(T_range=1.0), TypeError, "T_range must be a pair"),
        (lambda: bm.plot_moment_match([bm.BoltzmannMachine(3)], np.ones((2, 4))), ValueError,
         r"data must have shape \(P, 3\)"),
        (lambda: bm.state_labels(np.ones((1, 2, 3))), ValueError, r"states must have shape \(n,\) or \(m, n\)"),
        (lambda: bm.SampledStatistics(rule="glauber"), ValueError, "rule must be one of"),
        (lambda: bm.encoder_report(bm.BoltzmannMachine(8, 2, mask=bm.encoder_mask(4, 2), units="bits"),
                                   rng="seed"), TypeError, "rng must be None"),
        (lambda: bm.compare_log_z(W3, temperatures=[1.0], budgets=[100]).table(digits=-1),
         ValueError, "digits must be >= 0"),
    ],
)
def test_wrong_objects_get_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_comparison_refuses_arguments_it_would_ignore():
    comparison = bm.compare_log_z(W3, temperatures=[1.0], budgets=[100], methods=["mean_field"], rng=0)
    with pytest.raises(ValueError, match="b must be None when source is a LogZComparison"):
        bm.partition_widget(comparison, b=[0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="units must be the comparison's units 'spins'"):
        bm.partition_widget(comparison, units="bits")


# --- plots refuse non-finite data --------------------------------------------------------------------


def test_plots_refuse_non_finite_data():
    run = bm.anneal(W3, schedule=[(1.0, 2)], n_chains=2, rng=0)
    broken = dataclasses.replace(run, energies=np.where(np.arange(2) == 0, np.nan, run.energies))
    with pytest.raises(ValueError, match=r"result.energies must be finite; result.energies\[0, 0\] = nan"):
        bm.plot_annealing(broken)
    with pytest.raises(ValueError, match="ground_energy must be finite; got inf"):
        bm.plot_annealing(run, ground_energy=np.inf)
    history = bm.train(bm.BoltzmannMachine(3, rng=0), DATA3, epochs=2, progress=False)
    with pytest.raises(ValueError, match="best must be finite; got nan"):
        bm.plot_training_history(history, best=np.nan)
    nan_history = dataclasses.replace(history, values=np.array([np.nan, -2.0, -2.0]))
    with pytest.raises(ValueError, match=r"histories\[0\].values must be finite"):
        bm.plot_training_history(nan_history)
    with pytest.raises(ValueError, match=r"levels\['x'\] must be finite"):
        bm.plot_log_likelihood_curves({"a": history}, levels={"x": np.inf})
    with pytest.raises(ValueError, match=r"mark_T must be finite and > 0; got nan"):
        bm.plot_log_z_errors(bm.compare_log_z(W3, temperatures=[1.0], budgets=[100], rng=0), mark_T=np.nan)


# --- training that overflows stops, naming the step size --------------------------------------------


def test_training_that_overflows_names_the_learning_rate():
    machine = bm.BoltzmannMachine(3, rng=0)
    # Epoch 1 makes W ~ 1e300; in epoch 2 the decay term 1e300 * W overflows.
    with pytest.raises(ValueError, match=r"training diverged in epoch 2: the update made W non-finite; "
                                         r"lower learning_rate \(= 1e\+300\) or weight_decay \(= 1\)"):
        bm.train(machine, DATA3, epochs=3, learning_rate=1e300, weight_decay=1.0, progress=False)
    assert np.isfinite(machine.W).all()  # the model keeps its last finite weights, not inf


# --- self-checks diagnose any answer ----------------------------------------------------------------


@pytest.mark.parametrize("answer", ["abc", 1j, np.array(["1", "2", "3"]), np.ones(3) * 1j, None, [1, [2]]])
@pytest.mark.parametrize("check", [bm.check_energy_function, bm.check_local_fields, bm.check_heat_bath_update,
                                   bm.check_is_stable,
                                   bm.check_log_mean_exp, bm.check_lattice_energy, bm.check_mean_field_sweep,
                                   bm.check_mean_field_bound, bm.check_gradient_function,
                                   bm.check_hidden_probabilities, bm.check_swap_probability])
def test_self_checks_diagnose_strings_and_complex_answers(check, answer, capsys):
    def reader(*args):
        # The right shape where the check wants a vector, so that the conversion itself is exercised.
        if isinstance(answer, np.ndarray) and args and np.ndim(args[0]) == 1:
            return np.resize(answer, np.shape(args[0]))
        return answer

    assert check(reader) is False
    assert "Input 0" in capsys.readouterr().out


def test_a_right_answer_written_as_text_is_not_accepted(capsys):
    """NumPy would parse "0.25" as a number; a self-check says the answer must be a number instead."""
    def as_text(x):
        top = np.max(x)
        return str(top + np.log(np.mean(np.exp(x - top))))

    def as_number(x):
        return float(as_text(x))

    assert bm.check_log_mean_exp(as_number) is True
    capsys.readouterr()
    assert bm.check_log_mean_exp(as_text) is False
    assert "the log-mean-exp is a single number" in " ".join(capsys.readouterr().out.split())


def test_cd_training_that_overflows_restores_the_epochs_start():
    # bmlib's CD/PCD check their steps once per epoch; a divergence puts back the parameters
    # the epoch began with (recorded here by the callback after each finished epoch).
    data = bm.digits("train", units="bits").images[:40]
    rbm = bm.RBM(64, 4, units="bits", rng=0)
    seen = [{p: getattr(rbm, p).copy() for p in rbm.parameter_names}]

    def record(epoch, model, value):
        seen.append({p: getattr(model, p).copy() for p in model.parameter_names})

    with pytest.raises(ValueError, match=r"training diverged in epoch \d+: the update made W non-finite; "
                                         r"lower learning_rate \(= 1e\+300\) or weight_decay \(= 1\)"):
        bm.train(rbm, data, epochs=5, learning_rate=1e300, weight_decay=1.0, batch_size=10,
                 statistics="pcd", monitor=None, callback=record, progress=False, rng=0)
    for p in rbm.parameter_names:
        np.testing.assert_array_equal(getattr(rbm, p), seen[-1][p])
    assert np.isfinite(rbm.W).all()
