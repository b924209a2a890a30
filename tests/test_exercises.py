"""The self-checks: they accept bmlib's own answers and name typical mistakes."""
import numpy as np
import pytest

import bmlib as bm


# Typical first drafts, written the way a reader would write them.
def energy_all_pairs(s, W, b):  # forgets the 1/2
    return -sum(W[i, j] * s[i] * s[j] for i in range(len(s)) for j in range(len(s))) - b @ s


def energy_wrong_sign(s, W, b):
    return 0.5 * s @ W @ s + b @ s


def energy_no_bias(s, W, b):
    return -0.5 * s @ W @ s


def energy_loops(s, W, b):  # a correct draft with loops
    E = 0.0
    for i in range(len(s)):
        E -= b[i] * s[i]
        for j in range(i + 1, len(s)):
            E -= W[i, j] * s[i] * s[j]
    return E


def run(checker, func, capsys, **kwargs):
    result = checker(func, **kwargs)
    # The checkers fold long lines to fit the column; read the words as one text.
    return result, " ".join(capsys.readouterr().out.split())


def test_energy_checker_accepts_bmlib_and_a_loop_version(capsys):
    assert run(bm.check_energy_function, bm.energy, capsys)[0]
    ok, out = run(bm.check_energy_function, energy_loops, capsys)
    assert ok and "Well done" in out


@pytest.mark.parametrize("func, words", [
    (energy_all_pairs, ["twice", "1/2"]),
    (energy_wrong_sign, ["sign is flipped"]),
    (energy_no_bias, ["bias term", "missing"]),
])
def test_energy_checker_names_the_mistake(func, words, capsys):
    ok, out = run(bm.check_energy_function, func, capsys, hint=True)
    assert not ok
    assert "expected E =" in out and "Input" in out
    for word in words:
        assert word in out


def test_energy_checker_output_is_deterministic(capsys):
    outputs = {run(bm.check_energy_function, energy_all_pairs, capsys)[1] for _ in range(2)}
    assert len(outputs) == 1


def test_energy_checker_reports_errors_and_shapes(capsys):
    ok, out = run(bm.check_energy_function, lambda s, W, b: s[10], capsys)
    assert not ok and "IndexError" in out
    ok, out = run(bm.check_energy_function, lambda s, W, b: -0.5 * s * (W @ s) - b * s, capsys)
    assert not ok and "single number" in out


def test_energy_checker_cannot_have_its_inputs_changed(capsys):
    def vandal(s, W, b):
        W[:] = 0.0
        return bm.energy(s, W, b)

    run(bm.check_energy_function, vandal, capsys)  # wrong, but must not corrupt later checks
    assert run(bm.check_energy_function, bm.energy, capsys)[0]


@pytest.mark.parametrize("func, words", [
    (lambda s, W, b: 0.5 * W @ s + b, ["half", "no 1/2"]),
    (lambda s, W, b: -(W @ s + b), ["sign is flipped"]),
    (lambda s, W, b: W @ s, ["bias", "missing"]),
    (lambda s, W, b: s * (W @ s + b), ["s_i h_i"]),
])
def test_local_field_checker(func, words, capsys):
    assert run(bm.check_local_fields, bm.local_fields, capsys)[0]
    ok, out = run(bm.check_local_fields, func, capsys, hint=True)
    assert not ok
    for word in words:
        assert word in out


def field(s, W, b):
    return W @ s + b


@pytest.mark.parametrize("units", ["spins", "bits"])
def test_stability_checker_accepts_bmlib(units, capsys):
    ok, out = run(bm.check_is_stable, lambda s, W, b: bm.is_stable(s, W, b), capsys, units=units)
    assert ok and "Well done" in out


@pytest.mark.parametrize("func, units, words", [
    (lambda s, W, b: np.all(s * field(s, W, b) > 0), "spins", [">= 0, not > 0"]),
    (lambda s, W, b: np.any(s * field(s, W, b) >= 0), "spins", ["EVERY unit"]),
    (lambda s, W, b: np.all(s * field(s, W, b) <= 0), "spins", ["reversed"]),
    (lambda s, W, b: np.all(s * (W @ s) >= 0), "spins", ["leaves out the bias"]),
    (lambda s, W, b: np.all(s * field(s, W, b) >= 0), "bits", ["spin rule", "(2 x_i - 1) h_i"]),
])
def test_stability_checker_names_the_mistake(func, units, words, capsys):
    ok, out = run(bm.check_is_stable, func, capsys, units=units, hint=True)
    assert not ok and "expected" in out
    for word in words:
        assert word in out


@pytest.mark.parametrize("checker", [bm.check_energy_function, bm.check_local_fields, bm.check_is_stable])
def test_checkers_notice_a_missing_return(checker, capsys):
    ok, out = run(checker, lambda s, W, b: None, capsys)
    assert not ok and "return statement" in out


# --- tiers: the first call says what went wrong and where; hint=True adds the likely mistake and its fix ---

def _energy_moments_in_T(W, b, T):  # the boltzmann_gibbs chapter's draft: derivatives in T, not beta
    mean, var = bm.exact_energy_moments(W, b, T)
    return mean / T**2, var


def _sweep_parallel(m, W, b, T, damping):
    return damping * m + (1 - damping) * np.tanh((W @ m + b) / T)


# (check, a planted bug, words of the first tier, words of the fix that only hint=True prints)
TIERS = [
    (bm.check_energy_function, energy_all_pairs, ["Input 0", "expected E ="], "counts every pair twice"),
    (bm.check_local_fields, lambda s, W, b: W @ s, ["Input", "expected h ="], "bias b_i is missing"),
    (bm.check_is_stable, lambda s, W, b: np.all(s * field(s, W, b) > 0), ["expected True"], ">= 0, not > 0"),
    (bm.check_synchronous_step, lambda s, W, b: np.sign(W @ s + b), ["expected", "local fields h ="],
     "np.sign gives 0"),
    (bm.check_heat_bath_update,
     lambda s, i, W, b, T, rng: 1 if rng.random() < 1 / (1 + np.exp(-(W[i] @ s + b[i]) / T)) else -1,
     ["exact p(s_0 = +1 | rest) = 0.731", "your function returned +1 in"], "the factor 2 is missing"),
    (bm.check_energy_moments, _energy_moments_in_T, ["expected <E> =", "your function gave"],
     "derivative with respect to T"),
    (bm.check_hidden_probabilities, lambda v, W, c, T: 1 / (1 + np.exp(-(v @ W) / T)),
     ["expected p(h_", "your function gave"], "biases"),
    (bm.check_gradient_function,
     lambda W, b, data, T, units: tuple(-g for g in bm.BoltzmannMachine(len(b), W=W, b=b, units=units,
                                                                       T=T).gradient(data)),
     ["expected dW[", "your function gave"], "model minus data"),
    (bm.check_log_mean_exp, lambda x: np.log(np.mean(np.exp(x))), ["Right on the ordinary inputs", "expected"],
     "Subtract the largest log weight"),
    (bm.check_mean_field_bound,
     lambda m, W, b, T: (0.5 * m @ W @ m + b @ m) / T, ["expected Phi(m) =", "your function gave"],
     "entropy term is missing"),
    (bm.check_mean_field_sweep, _sweep_parallel, ["expected new m =", "your function gave"],
     "A sequential sweep visits the units in turn"),
    (bm.check_rbm_free_energy, lambda v, W, a, c: -np.logaddexp(0.0, v @ W + c).sum(axis=1),
     ["expected F =", "your function gave"], "visible biases are missing"),
    (bm.check_nearest_centroid,
     lambda tx, ty, x: np.unique(ty)[np.argmax(((x[:, None] - np.array(
         [tx[ty == k].mean(axis=0) for k in np.unique(ty)])[None]) ** 2).sum(axis=2), axis=1)],
     ["labels differ", "your function gave"], "FARTHEST centroid"),
    (bm.check_lattice_energy, lambda g, J, h: -J * np.sum(g[:, :-1] * g[:, 1:]) - J * np.sum(g[:-1] * g[1:])
     - h * g.sum(), ["expected E =", "your function gave"], "wrap-around bonds are missing"),
    (bm.check_binder_cumulant, lambda m: 1 - np.mean(m**4) / np.mean(m**2) ** 2,
     ["expected U =", "your function gave"], "factor 1/3 is missing"),
    (bm.check_susceptibility, lambda m, n, T: (np.mean(m**2) - np.mean(np.abs(m)) ** 2) / T,
     ["expected chi =", "your function gave"], "factor n is missing"),
]


@pytest.mark.parametrize("check, bug, first, fix", TIERS, ids=[t[0].__name__ for t in TIERS])
def test_first_tier_says_where_and_hint_says_the_fix(check, bug, first, fix, capsys):
    ok, out = run(check, bug, capsys)
    assert ok is False
    for words in first:
        assert words in out, (words, out)
    assert fix not in out, "the first call must not give the fix away"
    assert f"bm.{check.__name__}(" in out and "hint=True)" in out, "it says how to ask for the hint"
    ok, hinted = run(check, bug, capsys, hint=True)
    assert ok is False and fix in hinted
    assert "hint=True)" not in hinted
    # The hint adds to the first tier and changes nothing in it.
    assert hinted.startswith(out[: out.index("Find the cause")].strip())


def test_the_hint_prompt_names_the_readers_function_and_other_arguments(capsys):
    def my_test(s, W, b):
        return bool(np.all(s * field(s, W, b) >= 0))

    ok, out = run(bm.check_is_stable, my_test, capsys, units="bits")
    assert not ok and 'bm.check_is_stable(my_test, units="bits", hint=True)' in out
    ok, out = run(bm.check_local_fields, lambda s, W, b: W @ s, capsys)
    assert "bm.check_local_fields(your_function, hint=True)" in out


def test_a_passing_solution_prints_the_same_with_or_without_hint(capsys):
    assert run(bm.check_energy_function, energy_loops, capsys) == run(bm.check_energy_function, energy_loops,
                                                                       capsys, hint=True)


@pytest.mark.parametrize("bad", ["True", 1, None])
def test_hint_must_be_true_or_false(bad):
    with pytest.raises(TypeError, match="hint must be True or False"):
        bm.check_energy_function(bm.energy, hint=bad)


def test_every_printed_line_fits_the_column_in_both_tiers(capsys):
    from bmlib.exercises._common import REPORT_WIDTH

    for check, bug, _, _ in TIERS:
        for hint in (False, True):
            check(bug, hint=hint)
            lines = capsys.readouterr().out.split("\n")
            assert max(map(len, lines)) <= REPORT_WIDTH, (check.__name__, hint)
