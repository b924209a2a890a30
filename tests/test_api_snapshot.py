"""bmlib's public API is frozen at 1.0: names, signatures and result fields change only on purpose.

If this fails after a deliberate change, run ``python tools/api_snapshot.py``
and commit the new tests/api_snapshot.json with a message that says why (the
README's "Stability" section says what may change in 1.x).
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import api_snapshot  # noqa: E402

import bmlib  # noqa: E402


def test_public_api_matches_the_snapshot():
    old = json.loads(api_snapshot.SNAPSHOT.read_text())
    changes = api_snapshot.differences(old, api_snapshot.snapshot())
    assert not changes, "the public API changed; if on purpose, run tools/api_snapshot.py:\n" + "\n".join(changes)


def test_version_is_one_point_something():
    major, minor, patch = (int(x) for x in bmlib.__version__.split("."))
    assert major == 1 and minor >= 0 and patch >= 0


def test_a_rename_that_keeps_the_old_keyword_is_growth_and_one_that_drops_it_is_removal():
    # 1.0's hebbian_recall, and 1.1's entry as the snapshot tool now describes it.
    before = {"kind": "function", "signature": "(n=100, loads=(0.05,), n_trials=4, rng=None)"}
    kept = {"kind": "function", "signature": "(n=100, loads=(0.05,), n_runs=4, rng=None)",
            "renamed": {"n_trials": "n_runs"}}
    dropped = {"kind": "function", "signature": "(n=100, loads=(0.05,), n_runs=4, rng=None)"}
    assert api_snapshot._only_renamed(before, kept)
    assert not api_snapshot._only_renamed(before, dropped)
    def diff(a, b):
        return api_snapshot.differences({"version": "1", "names": {"f": a}}, {"version": "1", "names": {"f": b}})

    assert [line[:12] for line in diff(before, kept)] == ["r f: renamed"]
    assert [line[:3] for line in diff(before, dropped)] == ["~ f"]
    # A method's rename is recorded under renamed_members.
    cls = {"kind": "class", "signature": "(n)", "members": {"gibbs": "(self, v, steps=1)"}}
    new_cls = {"kind": "class", "signature": "(n)", "members": {"gibbs": "(self, v, n_sweeps=1)"},
               "renamed_members": {"gibbs": {"steps": "n_sweeps"}}}
    assert api_snapshot._only_renamed(cls, new_cls)


def test_every_recorded_rename_is_in_the_vocabulary_table():
    from bmlib._vocabulary import RENAMED

    snap = api_snapshot.snapshot()["names"]
    pairs = [p for e in snap.values() for p in e.get("renamed", {}).items()]
    pairs += [p for e in snap.values() for m in e.get("renamed_members", {}).values() for p in m.items()]
    assert pairs and all(RENAMED.get(old) == new for old, new in pairs)


def test_a_new_parameter_with_a_default_that_no_old_call_reaches_is_growth_and_anything_else_is_change():
    before = {"kind": "function", "signature": "(W, b=None, *, schedule=((1.0, 2), (0.5, 2)), rng=None)"}

    def diff(signature):
        after = {"kind": "function", "signature": signature}
        return [line[:2] for line in api_snapshot.differences({"version": "1", "names": {"f": before}},
                                                              {"version": "1", "names": {"f": after}})]

    assert diff("(W, b=None, *, schedule=((1.0, 2), (0.5, 2)), progress=False, rng=None)") == ["g "]
    assert diff("(W, b=None, *, schedule=((1.0, 2), (0.5, 2)), progress, rng=None)") == ["~ "]  # no default
    assert diff("(W, b=None, c=1, *, schedule=((1.0, 2), (0.5, 2)), rng=None)") == ["g "]  # appended positional
    assert diff("(W, c=1, b=None, *, schedule=((1.0, 2), (0.5, 2)), rng=None)") == ["~ "]  # moves b's position
    assert diff("(W, b=None, c, *, schedule=((1.0, 2), (0.5, 2)), rng=None)") == ["~ "]  # no default
    assert diff("(W, b=None, *, rng=None)") == ["~ "]  # removed
    assert diff("(W, b=None, *, schedule=((1.0, 2),), rng=None)") == ["~ "]  # a default changed
