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
