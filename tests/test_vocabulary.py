"""One word per idea: every public parameter name is in bmlib._vocabulary, and every old word still works.

The table (bmlib._vocabulary.WORDS) fixes what each parameter name means; a
name outside it fails here, so a new word is chosen on purpose. The words
bmlib 1.1 replaced (RENAMED) are accepted until 2.0: the old keyword gives
the same result as the new one, with exactly one DeprecationWarning that
names the function and the new word, attributed to the caller's line.
"""
import dataclasses
import inspect
import warnings

import numpy as np
import pytest

import bmlib as bm
from bmlib._vocabulary import RENAMED, WORDS, class_members


def _public_callables():
    """(name, callable) for every public function, class (its constructor) and public method."""
    for name in sorted(bm.__all__):
        obj = getattr(bm, name)
        if inspect.isclass(obj):
            yield name, obj
            for attr, value in sorted(class_members(obj).items()):
                if attr.startswith("_") or isinstance(value, property):
                    continue
                if callable(value) or isinstance(value, (staticmethod, classmethod)):
                    yield f"{name}.{attr}", getattr(obj, attr)
        elif callable(obj):
            yield name, obj


def _parameters(obj):
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):  # exception classes written in C
        return []
    return [p.name for p in sig.parameters.values() if p.name not in ("self", "cls") and not p.name.startswith("_")]


def _renames():
    """(public name, wrapped callable, old, new) for every keyword still accepted under an old name."""
    for name, obj in _public_callables():
        wrapped = obj.__init__ if inspect.isclass(obj) else obj
        for old, new in (getattr(wrapped, "__renamed__", None) or {}).items():
            yield name, old, new


def test_every_public_parameter_name_is_in_the_table():
    outside = {}
    for name, obj in _public_callables():
        for p in _parameters(obj):
            if p not in WORDS:
                outside.setdefault(p, []).append(name)
    assert not outside, ("parameter names outside bmlib/_vocabulary.py WORDS (use the table's word for the idea, "
                         f"or add a new idea there): {outside}")


def test_the_table_has_no_word_that_nothing_uses():
    used = {p for _, obj in _public_callables() for p in _parameters(obj)}
    assert set(WORDS) <= used, f"words no public signature uses: {sorted(set(WORDS) - used)}"


def test_renamed_words_point_to_table_words_and_old_ones_are_gone_unless_they_mean_something_else():
    for old, new in RENAMED.items():
        assert new in WORDS and old != new
    # An old word that is still a word names another idea (its meaning says which), never the replaced one.
    assert {old for old in RENAMED if old in WORDS} == {"schedule", "order", "start", "max_sweeps"}


def test_every_rename_in_the_table_is_applied_and_every_applied_one_is_in_the_table():
    applied = {(old, new) for _, old, new in _renames()}
    assert applied == set(RENAMED.items())


# One cheap call per renamed keyword: (public name, make the call's target, positional args, the new keyword).
def _W(n=4, seed=1):
    gen = np.random.default_rng(seed)
    W = gen.normal(0, 0.4, (n, n))
    W = (W + W.T) / 2
    np.fill_diagonal(W, 0)
    return W


def _rbm(units="spins"):
    return bm.RBM(3, 2, rng=0, units=units)


CASES = [
    ("hebbian_recall", lambda: bm.hebbian_recall, (), {"n": 20, "loads": [0.1], "n_runs": 2, "rng": 0}),
    ("synchronous_updates", lambda: bm.synchronous_updates, ([1, -1, 1, -1], _W()), {"max_iter": 3}),
    ("cd_update_spread", lambda: bm.cd_update_spread, (_rbm(), [[1, -1, 1], [-1, 1, 1]]), {"n_runs": 3, "rng": 0}),
    ("energy_descent", lambda: bm.energy_descent, ([1, 1, -1, 1], _W()), {"scan": "random", "rng": 0}),
    ("energy_descent", lambda: bm.energy_descent, ([1, 1, -1, 1], _W()), {"max_iter": 2}),
    ("naive_mean_field", lambda: bm.naive_mean_field, (_W(),), {"initial": [0.1, -0.2, 0.3, 0.0]}),
    ("naive_mean_field", lambda: bm.naive_mean_field, (_W(),), {"scan": "parallel", "rng": 0}),
    ("tap_mean_field", lambda: bm.tap_mean_field, (_W(),), {"initial": [0.1, -0.2, 0.3, 0.0]}),
    ("tap_mean_field", lambda: bm.tap_mean_field, (_W(),), {"scan": "parallel", "rng": 0}),
    ("log_z_mean_field", lambda: bm.log_z_mean_field, (_W(),), {"scan": "parallel", "rng": 0}),
    ("log_z_tap", lambda: bm.log_z_tap, (_W(),), {"scan": "parallel", "rng": 0}),
    ("plot_self_consistency", lambda: bm.plot_self_consistency, (), {"n": 4, "initial": 0.3}),
    ("RBM.gibbs", lambda: _rbm().gibbs, ([[1, -1, 1]],), {"n_sweeps": 3, "rng": 0}),
    ("RBM.gibbs_chain", lambda: _rbm().gibbs_chain, ([1, -1, 1],), {"n_sweeps": 3, "rng": 0}),
    ("RBM.sample", lambda: _rbm().sample, (2,), {"n_sweeps": 3, "rng": 0}),
    ("inpaint", lambda: bm.inpaint, (_rbm("bits"), [[1, 0, 1]], [1]), {"n_sweeps": 5, "rng": 0}),
    ("IsingWidget", lambda: bm.IsingWidget, (), {"L": 4, "T": 3.0, "n_sweeps": 2}),
    ("ising_widget", lambda: bm.ising_widget, (), {"L": 4, "T": 3.0, "n_sweeps": 2}),
    ("DigitsWidget", lambda: bm.DigitsWidget, (),
     {"n_hidden": 4, "epoch": 1, "epochs": 1, "every": 1, "n_sweeps": 10}),
    ("digits_widget", lambda: bm.digits_widget, (),
     {"n_hidden": 4, "epoch": 1, "epochs": 1, "every": 1, "n_sweeps": 10}),
]


def _old_keywords(target, kwargs):
    """The same keywords with every renamed one under its old name."""
    wrapped = target.__init__ if inspect.isclass(target) else target
    old_of = {new: old for old, new in wrapped.__renamed__.items()}
    return {old_of.get(k, k): v for k, v in kwargs.items()}


def _comparable(result):
    """What a call produced, as nested lists and arrays that np.testing.assert_equal compares."""
    if dataclasses.is_dataclass(result):
        return dataclasses.asdict(result)
    if hasattr(result, "figure_png"):  # a widget: the state it holds and the picture it draws
        held = [getattr(result, a) for a in ("history", "state", "samples") if hasattr(type(result), a)]
        return [value() if callable(value) else value for value in held] + [result.figure_png()]
    if hasattr(result, "axes"):  # a figure: the data of every line
        return [line.get_xydata() for ax in result.axes for line in ax.lines]
    return result


def test_the_cases_cover_every_renamed_keyword():
    covered = set()
    for name, make, _, kwargs in CASES:
        target = make()
        wrapped = target.__init__ if inspect.isclass(target) else target
        covered |= {(name, old) for old, new in wrapped.__renamed__.items() if new in kwargs}
    assert covered == {(name, old) for name, old, _ in _renames()}


@pytest.mark.parametrize("name, make, args, kwargs", CASES, ids=[f"{c[0]}-{sorted(c[3])[0]}" for c in CASES])
def test_an_old_keyword_gives_the_same_result_with_one_warning_naming_the_new_word(name, make, args, kwargs):
    target = make()
    old_kwargs = _old_keywords(target, kwargs)
    assert old_kwargs != kwargs
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the new words never warn
        expected = _comparable(target(*args, **kwargs))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = _comparable(make()(*args, **old_kwargs))
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    [old] = set(old_kwargs) - set(kwargs)
    [new] = set(kwargs) - set(old_kwargs)
    assert len(deprecations) == 1, [str(w.message) for w in deprecations]
    message = str(deprecations[0].message)
    assert f"'{new}'" in message and f"'{old}'" in message and f"{name}()" in message
    assert deprecations[0].filename == __file__  # attributed to the caller's line, not to bmlib
    np.testing.assert_equal(got, expected)


def test_old_and_new_keyword_together_is_an_error():
    with pytest.raises(TypeError, match="got both 'n_trials' and its new name 'n_runs'"):
        bm.hebbian_recall(n=20, loads=[0.1], n_runs=2, n_trials=2)
    # The new word given by position counts too.
    with pytest.raises(TypeError, match="got both 'steps' and its new name 'n_sweeps'"):
        _rbm().gibbs([[1, -1, 1]], 3, steps=3)
    with pytest.raises(TypeError, match="got both 'sweeps' and its new name 'n_sweeps'"):
        bm.IsingWidget(4, 3.0, 1.0, 2, sweeps=2)


def test_a_wrapped_function_shows_the_new_words_and_its_own_docstring():
    sig = inspect.signature(bm.naive_mean_field)
    assert "initial" in sig.parameters and "scan" in sig.parameters and "init" not in sig.parameters
    assert bm.naive_mean_field.__doc__.startswith(bm.naive_mean_field.__wrapped__.__doc__[:40])
    assert bm.RBM.gibbs.__name__ == "gibbs"


def test_a_warning_from_inside_a_wrapped_function_still_points_at_the_caller():
    # naive_mean_field's ConvergenceWarning counts the renamed() frame in its stacklevel.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bm.naive_mean_field(_W(6, seed=3) * 8, T=0.3, scan="parallel", max_iter=1, rng=0)
    assert caught and all(w.filename == __file__ for w in caught)


def test_every_result_record_has_public_fields_only():
    # A result a reader unpacks or prints shows no private field: what a method of the record needs
    # besides its fields is a private attribute set by the function that makes it (issue 26).
    for name in bm.__all__:
        obj = getattr(bm, name)
        if not inspect.isclass(obj):
            continue
        if dataclasses.is_dataclass(obj):
            fields = [f.name for f in dataclasses.fields(obj)]
        elif issubclass(obj, tuple) and hasattr(obj, "_fields"):
            fields = list(obj._fields)
        else:
            continue
        assert not [f for f in fields if f.startswith("_")], f"{name} has private fields: {fields}"
