"""Record bmlib's public API (names, signatures, result fields) in tests/api_snapshot.json.

Usage:  python tools/api_snapshot.py          (rewrites the snapshot)
        python tools/api_snapshot.py --diff   (prints what changed, exit 1 if anything did)

tests/test_api_snapshot.py compares the library with the snapshot, so a change
to a public name, a parameter, a default or a result field fails the tests
until the snapshot is rewritten on purpose, in the same commit, whose message
says why. That is the README's stability promise made checkable.

A renamed keyword is not a removal when the old name is still accepted
(bmlib._deprecation.renamed): the entry records it under ``renamed`` (old ->
new; ``renamed_members`` for methods), and ``--diff`` reports the change as
``r`` (renamed, old name still accepted) instead of ``~`` (changed). A
parameter renamed without keeping the old name reads as ``~``: a removal.
"""
from __future__ import annotations

import dataclasses
import inspect
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "tests" / "api_snapshot.json"
sys.path.insert(0, str(ROOT))

import bmlib  # noqa: E402
from bmlib._vocabulary import class_members  # noqa: E402


def _plain(value):
    """A default value as version-independent text (NumPy 2 prints np.float64(1.0) where 1.x prints 1.0)."""
    if isinstance(value, tuple):
        return "(" + ", ".join(_plain(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if hasattr(value, "item") and getattr(value, "shape", None) == ():
        return repr(value.item())
    return repr(value)


def _signature(obj):
    """Parameter names, kinds and defaults; annotations left out (their text differs between Pythons)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    parts, star = [], False
    for p in sig.parameters.values():
        if p.name.startswith("_"):
            continue  # private fields of result records are not part of the API
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        star = star or p.kind is p.VAR_POSITIONAL
        default = "" if p.default is p.empty else "=" + _plain(p.default)
        parts.append(prefix + p.name + default)
    return "(" + ", ".join(parts) + ")"


def _fields(cls):
    if dataclasses.is_dataclass(cls):
        return [f.name for f in dataclasses.fields(cls) if not f.name.startswith("_")]
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return list(cls._fields)
    return None


def _renamed(obj):
    """Old keyword -> new of a callable wrapped by bmlib._deprecation.renamed, else None."""
    renamed = getattr(obj, "__renamed__", None)
    return dict(sorted(renamed.items())) if renamed else None


def _describe(name):
    obj = getattr(bmlib, name)
    if inspect.isclass(obj):
        entry = {"kind": "class", "signature": _signature(obj)}
        if _renamed(obj.__init__):
            entry["renamed"] = _renamed(obj.__init__)
        fields = _fields(obj)
        if fields is not None:
            entry["fields"] = fields
        members, renamed_members = {}, {}
        for attr, value in sorted(class_members(obj).items()):
            if attr.startswith("_") or (fields and attr in fields):
                continue
            if isinstance(value, property):
                members[attr] = "property"
            elif callable(value) or isinstance(value, (staticmethod, classmethod)):
                members[attr] = _signature(getattr(obj, attr))
                if _renamed(getattr(obj, attr)):
                    renamed_members[attr] = _renamed(getattr(obj, attr))
            else:
                members[attr] = "attribute"
        entry["members"] = members
        if renamed_members:
            entry["renamed_members"] = renamed_members
        return entry
    if callable(obj):
        entry = {"kind": "function", "signature": _signature(obj)}
        if _renamed(obj):
            entry["renamed"] = _renamed(obj)
        return entry
    return {"kind": "constant", "type": type(obj).__name__}


def snapshot():
    return {"version": bmlib.__version__, "names": {name: _describe(name) for name in sorted(bmlib.__all__)}}


def _with_old_names(signature, renamed):
    """A signature text with each renamed parameter written under its old name again."""
    for old, new in (renamed or {}).items():
        signature = re.sub(rf"(?<=[(*\s]){new}(?=[=,)])", old, signature)
    return signature


def _as_before_renames(entry):
    """The entry as it read before its recorded renames: the old names in place of the new ones."""
    entry = dict(entry)
    renamed, renamed_members = entry.pop("renamed", None), entry.pop("renamed_members", {})
    if entry.get("signature"):
        entry["signature"] = _with_old_names(entry["signature"], renamed)
    if "members" in entry:
        entry["members"] = {attr: _with_old_names(text, renamed_members.get(attr))
                            for attr, text in entry["members"].items()}
    return entry


def _only_renamed(old, new):
    """True if ``new`` differs from ``old`` only by renames that still accept the old names.

    Both entries are read with every recorded rename undone: an alias that
    ``old`` had and ``new`` dropped leaves the new name in ``new``, so they differ.
    """
    return _as_before_renames(old) == _as_before_renames(new)


def _parameters(signature):
    """The parameter texts of a signature text, split at top-level commas (defaults may hold tuples)."""
    parts, depth, start = [], 0, 1
    for i, ch in enumerate(signature[1:-1], start=1):
        depth += ch in "([{" and 1 or (ch in ")]}" and -1 or 0)
        if ch == "," and depth == 0:
            parts.append(signature[start:i].strip())
            start = i + 1
    last = signature[start:-1].strip()
    return parts + [last] if last else parts


def _grown_signature(old, new):
    """True if ``new`` is ``old`` plus parameters with defaults that no old call can reach by position.

    That is, added keyword-only parameters, or added positional ones after
    the last old positional parameter (growth, not change).
    """
    if old is None or new is None:
        return old == new
    a, b = _parameters(old), _parameters(new)
    added = [k for k, p in enumerate(b) if p not in a and p != "*"]
    if any("=" not in b[k] or b[k].startswith("*") for k in added):
        return False
    if [p for k, p in enumerate(b) if k not in added and not (p == "*" and "*" not in a)] != a:
        return False
    old_positional = [k for k, p in enumerate(b) if p in a and ("*" not in b or k < b.index("*"))]
    last = max(old_positional, default=-1)
    return all(k > last for k in added)


def _only_grown(old, new):
    """True if ``new`` differs from ``old`` only by added keyword-only parameters with defaults (and members)."""
    old, new = _as_before_renames(old), _as_before_renames(new)
    if set(old) != set(new) or old.get("kind") != new.get("kind") or old.get("fields") != new.get("fields"):
        return False
    if not _grown_signature(old.get("signature"), new.get("signature")):
        return False
    members_a, members_b = old.get("members", {}), new.get("members", {})
    return all(attr in members_b and (members_a[attr] == members_b[attr]
                                      or (members_a[attr].startswith("(")
                                          and _grown_signature(members_a[attr], members_b[attr])))
               for attr in members_a)


def differences(old, new):
    lines = []
    if old.get("version") != new["version"]:
        lines.append(f"version: {old.get('version')} -> {new['version']}")
    for name in sorted(set(old["names"]) | set(new["names"])):
        a, b = old["names"].get(name), new["names"].get(name)
        if a is None:
            lines.append(f"+ {name}: {b}")
        elif b is None:
            lines.append(f"- {name}")
        elif a != b and _only_renamed(a, b):
            lines.append(f"r {name}: renamed, old names still accepted: {b.get('renamed') or b.get('renamed_members')}")
        elif a != b and _only_grown(a, b):
            lines.append(f"g {name}: grew (new parameters with defaults that no old call reaches, or new members): {b}")
        elif a != b:
            lines.append(f"~ {name}:\n    was {a}\n    now {b}")
    return lines


def main(argv):
    new = snapshot()
    if "--diff" in argv:
        old = json.loads(SNAPSHOT.read_text())
        lines = differences(old, new)
        print("\n".join(lines) or "no change")
        return 1 if lines else 0
    SNAPSHOT.write_text(json.dumps(new, indent=1, sort_keys=True) + "\n")
    print(f"wrote {SNAPSHOT} ({len(new['names'])} names)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
