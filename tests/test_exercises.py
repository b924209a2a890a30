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
    ok, out = run(bm.check_energy_function, func, capsys)
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
    ok, out = run(bm.check_local_fields, func, capsys)
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
    ok, out = run(bm.check_is_stable, func, capsys, units=units)
    assert not ok and "expected" in out
    for word in words:
        assert word in out


@pytest.mark.parametrize("checker", [bm.check_energy_function, bm.check_local_fields, bm.check_is_stable])
def test_checkers_notice_a_missing_return(checker, capsys):
    ok, out = run(checker, lambda s, W, b: None, capsys)
    assert not ok and "return statement" in out
