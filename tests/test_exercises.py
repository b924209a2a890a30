"""The self-checks: they accept bmlib's own answers and name typical mistakes."""
import math

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
    (bm.check_swap_probability, lambda bk, bk1, Ek, Ek1: np.exp(np.minimum(0, (bk - bk1) * (Ek1 - Ek))),
     ["Input 0", "expected 0.135335, your function gave 1.0"], "wrong sign"),
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


# --- the from-scratch exercises: a Gibbs sampler, a CD-1 step, AIS ---------------------------------

def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def gibbs_sweep(p_plus=lambda h, T: _sigmoid(2 * h / T), order=None, from_old=False):
    """A sweep as a reader might write it; the defaults are right."""
    def sweep(s, W, b, T, rng):
        old = s.copy()
        units = range(len(s)) if order is None else order(len(s), rng)
        for i in units:
            h = W[i] @ (old if from_old else s) + b[i]
            s[i] = 1 if rng.random() < p_plus(h, T) else -1
        return s
    return sweep


@pytest.mark.parametrize("sweep", [
    gibbs_sweep(),
    gibbs_sweep(order=lambda n, rng: range(n - 1, -1, -1)),  # another order of units
    gibbs_sweep(order=lambda n, rng: rng.integers(n, size=n)),  # random scan: a different chain, same p
    gibbs_sweep(p_plus=lambda h, T: (1 + np.tanh(h / T)) / 2),  # the same probability, written otherwise
], ids=["sequential", "reversed", "random scan", "tanh"])
def test_gibbs_checker_accepts_any_correct_sweep(sweep, capsys):
    ok, out = run(bm.check_gibbs_sampler, sweep, capsys)
    assert ok and "Well done" in out


@pytest.mark.parametrize("sweep, fix", [
    (gibbs_sweep(p_plus=lambda h, T: _sigmoid(h / T)), "factor 2 is missing"),
    (gibbs_sweep(p_plus=lambda h, T: _sigmoid(-2 * h / T)), "prefers HIGH energies"),
    (gibbs_sweep(p_plus=lambda h, T: _sigmoid(2 * h * T)), "multiplied by T"),
    (gibbs_sweep(from_old=True), "from the OLD state"),
    (lambda s, W, b, T, rng: s, "never moves"),
    (gibbs_sweep(p_plus=lambda h, T: float(h > 0)), "never moves"),  # descent: stuck in the first minimum
], ids=["no factor 2", "sign", "times T", "parallel", "frozen", "descent"])
def test_gibbs_checker_tiers(sweep, fix, capsys):
    ok, out = run(bm.check_gibbs_sampler, sweep, capsys)
    assert not ok
    assert "Input" in out and "exact p(s) =" in out and "your chain was there in" in out
    assert fix not in out and "bm.check_gibbs_sampler(" in out and "hint=True)" in out
    ok, out = run(bm.check_gibbs_sampler, sweep, capsys, hint=True)
    assert not ok and fix in out


def test_gibbs_checker_reports_shapes_values_and_a_missing_return(capsys):
    ok, out = run(bm.check_gibbs_sampler, lambda s, W, b, T, rng: s[0], capsys)
    assert not ok and "expected (3,)" in out
    ok, out = run(bm.check_gibbs_sampler, lambda s, W, b, T, rng: (s + 1) / 2, capsys)
    assert not ok and "spins are +1 or -1 (0 and 1 are bits)" in out
    ok, out = run(bm.check_gibbs_sampler, lambda s, W, b, T, rng: None, capsys)
    assert not ok and "also return it" in out


def cd1_step(sign=1.0, n_of=len, with_lr=True, v1_means=False, h0_means=False, no_c=False, v0_again=False,
             biases=True, sampled_h=False, step_only=False):
    """A CD-1 step as a reader might write it; the defaults are right."""
    def cd1(W, b, c, batch, lr, rng):
        c_up = 0 * c if no_c else c
        p0 = _sigmoid(batch @ W + c_up)
        h0 = (rng.random(p0.shape) < p0).astype(float)
        pv = _sigmoid((p0 if h0_means else h0) @ W.T + b)
        v1 = pv if v1_means else (rng.random(pv.shape) < pv).astype(float)
        v1 = batch if v0_again else v1
        p1 = _sigmoid(v1 @ W + c_up)
        pos = h0 if sampled_h else p0
        rate = sign * (lr if with_lr else 1.0) / n_of(batch)
        dW, db, dc = rate * (batch.T @ pos - v1.T @ p1), rate * (batch - v1).sum(0), rate * (pos - p1).sum(0)
        if not biases:
            db, dc = 0 * db, 0 * dc
        return (dW, db, dc) if step_only else (W + dW, b + db, c + dc)
    return cd1


def cd1_other_order(W, b, c, batch, lr, rng):
    """Right, but draws the visible layer's numbers first and loops over the patterns."""
    P = len(batch)
    u_v, u_h = rng.random((P, len(b))), rng.random((P, len(c)))
    dW, db, dc = np.zeros_like(W), np.zeros_like(b), np.zeros_like(c)
    for mu in range(P):
        v0 = batch[mu]
        p0 = _sigmoid(v0 @ W + c)
        h0 = (u_h[mu] < p0).astype(float)
        v1 = (u_v[mu] < _sigmoid(W @ h0 + b)).astype(float)
        p1 = _sigmoid(v1 @ W + c)
        dW += np.outer(v0, p0) - np.outer(v1, p1)
        db += v0 - v1
        dc += p0 - p1
    return W + lr * dW / P, b + lr * db / P, c + lr * dc / P


@pytest.mark.parametrize("step", [cd1_step(), cd1_step(sampled_h=True), cd1_other_order],
                         ids=["probabilities", "sampled h in the statistics", "other order"])
def test_cd1_checker_accepts_any_correct_step(step, capsys):
    ok, out = run(bm.check_cd1, step, capsys)
    assert ok and "Well done" in out


def test_cd1_checker_agrees_with_bmlibs_expected_update():
    from bmlib.exercises.cd import _cd1_mean, _cd_cases

    for W, b, c, batch, _ in _cd_cases():
        rbm = bm.RBM(W.shape[0], W.shape[1], W=W, b_visible=b, b_hidden=c, units="bits")
        exact = bm.expected_cd_update(rbm, batch, k=1)
        for got, want in zip(_cd1_mean(W, b, c, batch), (exact.W, exact.b_visible, exact.b_hidden)):
            np.testing.assert_allclose(got, want, atol=1e-12)


@pytest.mark.parametrize("step, fix", [
    (cd1_step(sign=-1.0), "wrong way"),
    (cd1_step(n_of=lambda batch: 1), "do not sum"),
    (cd1_step(with_lr=False), "learning rate is missing"),
    (cd1_step(step_only=True), "return the new parameters"),
    (cd1_step(v1_means=True), "not a sample of them"),
    (cd1_step(h0_means=True), "hidden PROBABILITIES"),
    (cd1_step(no_c=True), "hidden biases c are missing"),
    (cd1_step(v0_again=True), "not the data v0 again"),
    (cd1_step(biases=False), "a and c do not change"),
], ids=["sign", "sum", "no lr", "step only", "v1 means", "h0 means", "no c", "v0 again", "no bias update"])
def test_cd1_checker_tiers(step, fix, capsys):
    ok, out = run(bm.check_cd1, step, capsys)
    assert not ok
    assert "Input 0" in out and "the exact expected change is" in out and "your 2000 calls changed it by" in out
    assert fix not in out and "bm.check_cd1(cd1, hint=True)" in out
    ok, out = run(bm.check_cd1, step, capsys, hint=True)
    assert not ok and fix in out


def test_cd1_checker_reports_a_transposed_w_and_a_missing_return(capsys):
    ok, out = run(bm.check_cd1, lambda W, b, c, batch, lr, rng: (W.T, b, c), capsys)
    assert not ok and "W of shape (3, 4)" in out
    ok, out = run(bm.check_cd1, lambda W, b, c, batch, lr, rng: None, capsys)
    assert not ok and "returned None" in out


def ais_weights(increment=lambda f_old, f_new, g, T: (f_new - f_old) * g, move_at=lambda f: f):
    """AIS log weights as a reader might write them; the defaults are right."""
    def ais(W, b, T, fractions, n_runs, rng):
        s = rng.choice([-1.0, 1.0], size=(n_runs, len(b)))
        log_w = np.zeros(n_runs)
        for f_old, f_new in zip(fractions[:-1], fractions[1:]):
            log_w += increment(f_old, f_new, -bm.energy(s, W, b) / T, T)
            f = move_at(f_new)
            s = bm.sample(f * W, f * b, T, n_samples=1, burn_in=0, initial=s, rng=rng).final_state
        return log_w
    return ais


def ais_own_sweep(W, b, T, fractions, n_runs, rng):
    """Right, with a hand-written random-scan heat-bath move instead of bm.sample."""
    s = rng.choice([-1.0, 1.0], size=(n_runs, len(b)))
    log_w = np.zeros(n_runs)
    for f_old, f_new in zip(fractions[:-1], fractions[1:]):
        log_w += (f_new - f_old) * (0.5 * np.einsum("ri,ij,rj->r", s, W, s) + s @ b) / T  # -E/T
        for i in rng.integers(len(b), size=len(b)):
            h = f_new * (s @ W[i] + b[i])
            s[:, i] = np.where(rng.random(n_runs) < _sigmoid(2 * h / T), 1.0, -1.0)
    return log_w


@pytest.mark.parametrize("ais", [ais_weights(), ais_own_sweep], ids=["bm.sample", "own sweep"])
def test_ais_checker_accepts_a_right_ais(ais, capsys):
    ok, out = run(bm.check_ais, ais, capsys)
    assert ok and "Well done" in out


@pytest.mark.parametrize("ais, fix", [
    (ais_weights(increment=lambda f_old, f_new, g, T: -(f_new - f_old) * g), "wrong sign"),
    (ais_weights(increment=lambda f_old, f_new, g, T: (f_new - f_old) * g * T), "1/T is missing"),
    (ais_weights(increment=lambda f_old, f_new, g, T: f_new * g), "not the increment"),
    (ais_weights(move_at=lambda f: 1.0), "move at the final distribution"),
], ids=["sign", "no 1/T", "fractions", "target"])
def test_ais_checker_tiers(ais, fix, capsys):
    ok, out = run(bm.check_ais, ais, capsys)
    assert not ok
    assert "Input" in out and "exact log Z =" in out and "log mean exp(your log weights) =" in out
    assert fix not in out and "bm.check_ais(ais, hint=True)" in out
    ok, out = run(bm.check_ais, ais, capsys, hint=True)
    assert not ok and fix in out


def test_ais_checker_reports_shapes_and_errors(capsys):
    ok, out = run(bm.check_ais, lambda W, b, T, fractions, n_runs, rng: np.zeros(3), capsys)
    assert not ok and "expected (500,)" in out
    ok, out = run(bm.check_ais, lambda W, b, T, fractions, n_runs, rng: 1 / 0, capsys)
    assert not ok and "ZeroDivisionError" in out


@pytest.mark.parametrize("check, right", [(bm.check_gibbs_sampler, gibbs_sweep()), (bm.check_cd1, cd1_step()),
                                          (bm.check_ais, ais_weights())], ids=["gibbs", "cd1", "ais"])
def test_from_scratch_checks_are_fast(check, right, capsys):
    import time

    start = time.process_time()
    assert check(right)
    assert time.process_time() - start < 2.0


# --- the swap probability of parallel tempering (chapter "Beyond single flips") ---------------------

def swap_stable(beta_k, beta_k1, E_k, E_k1):
    return np.exp(np.minimum(0.0, (beta_k - beta_k1) * (E_k - E_k1)))


def swap_one_at_a_time(beta_k, beta_k1, E_k, E_k1):  # right, if slow: np.vectorize over a scalar rule
    x = (beta_k - beta_k1) * (E_k - E_k1)
    return np.vectorize(lambda y: 1.0 if y >= 0 else math.exp(y))(x)


def test_swap_checker_accepts_the_stable_form_and_a_vectorized_one(capsys):
    for func in (swap_stable, swap_one_at_a_time):
        ok, out = run(bm.check_swap_probability, func, capsys)
        assert ok and "All 7 inputs" in out and "Well done" in out


@pytest.mark.parametrize("func, where, words", [
    (lambda bk, bk1, Ek, Ek1: np.minimum(1, np.exp((bk - bk1) * (Ek1 - Ek))), "Input 0", ["wrong sign"]),
    (lambda bk, bk1, Ek, Ek1: np.exp((bk - bk1) * (Ek - Ek1)), "Input 1", ["min(1, ...) is missing"]),
    (lambda bk, bk1, Ek, Ek1: np.exp(np.minimum(0, (1 / bk - 1 / bk1) * (Ek - Ek1))), "Input 0", ["1/beta"]),
    (lambda bk, bk1, Ek, Ek1: min(1.0, np.exp((bk - bk1) * (Ek - Ek1))), "Input 4", ["np.minimum and np.exp"]),
    (lambda bk, bk1, Ek, Ek1: min(1.0, math.exp((bk - bk1) * (Ek - Ek1))), "Input 4", ["np.minimum and np.exp"]),
    (lambda bk, bk1, Ek, Ek1: np.mean(swap_stable(bk, bk1, Ek, Ek1)), "Input 4", ["broadcast"]),
    # Right values, but exp overflows on the way: the naive min, np.where, a ratio of Boltzmann factors.
    (lambda bk, bk1, Ek, Ek1: np.minimum(1, np.exp((bk - bk1) * (Ek - Ek1))), "Input 6", ["exp(min(0, x))"]),
    (lambda bk, bk1, Ek, Ek1: np.where((bk - bk1) * (Ek - Ek1) < 0, np.exp((bk - bk1) * (Ek - Ek1)), 1.0),
     "Input 6", ["np.where", "exp(min(0, x))"]),
    (lambda bk, bk1, Ek, Ek1: np.minimum(1, np.exp(-bk * Ek1 - bk1 * Ek) / np.exp(-bk * Ek - bk1 * Ek1)),
     "Input 6", ["inf / inf = nan"]),
], ids=["sign", "no-min", "temperatures", "python-min", "math-exp", "averaged", "overflow", "where", "ratio"])
def test_swap_checker_catches_each_planted_bug(func, where, words, capsys):
    ok, out = run(bm.check_swap_probability, func, capsys)
    assert ok is False and where in out and "expected" in out
    for word in words:
        assert word not in out, "the first call must not give the fix away"
    ok, hinted = run(bm.check_swap_probability, func, capsys, hint=True)
    assert ok is False
    for word in words:
        assert word in hinted, (word, hinted)


def test_swap_checker_leaves_numpy_error_state_as_it_was(capsys):
    before = np.geterr()
    run(bm.check_swap_probability, lambda bk, bk1, Ek, Ek1: np.minimum(1, np.exp((bk - bk1) * (Ek - Ek1))), capsys)
    assert np.geterr() == before
