"""A docstring that names the chapter explaining it names a real one, where the API page files it.

bmlib's docstrings end with ``Explained in the chapter "..."`` (or ``chapters "..." and "..."``),
and book/api.md files every public name under one chapter (tools/api_page.py). Readers follow
both, from the chapter into the library and back, so the two must agree: a reader sent from the
Sampling chapter to ``bm.sample`` found it "explained in" the Boltzmann-Gibbs chapter, which never
samples, a leftover of an earlier layout of the book.
"""
import inspect
import json
import re
import sys

import bmlib
from test_book import NOTEBOOKS, ROOT

sys.path.insert(0, str(ROOT / "tools"))
import api_page  # noqa: E402

EXPLAINED = re.compile(r'Explained in the chapters? ((?:"[^"]+"(?:,? and |, )?)+)')


def chapter_titles():
    """Chapter title (as docstrings write it, with a plain hyphen) -> notebook stem."""
    titles = {}
    for path in NOTEBOOKS:
        first = "".join(json.loads(path.read_text())["cells"][0]["source"])
        titles[re.search(r"^# (.+)$", first, re.M).group(1).replace("\u2013", "-")] = path.stem
    return titles


def named_chapters(obj):
    """The chapters a public name's docstring says explain it (empty if it names none)."""
    found = EXPLAINED.search(" ".join((inspect.getdoc(obj) or "").split()))
    return re.findall(r'"([^"]+)"', found.group(1)) if found else []


def test_docstring_chapters_exist_and_hold_the_api_entry():
    titles = chapter_titles()
    unknown, elsewhere, checked = [], [], 0
    for name in bmlib.__all__:
        chapters = named_chapters(getattr(bmlib, name))
        if not chapters:
            continue
        checked += 1
        unknown += [f"{name}: {c!r}" for c in chapters if c not in titles]
        home = api_page._home(name)
        if home not in [titles.get(c) for c in chapters]:
            elsewhere.append(f"{name}: docstring {chapters}, API page section {home!r}")
    assert checked >= 90, f"only {checked} public names name their chapter: is the pattern still right?"
    assert unknown == [], f"docstrings naming a chapter the book does not have: {unknown}"
    assert elsewhere == [], "docstring and API page disagree on the chapter:\n" + "\n".join(elsewhere)


def test_the_pattern_reads_one_and_two_chapters():
    def f():
        """Does a thing. Explained in the chapters "Energy" and
        "The learning rule"."""

    def g():
        """Explained in the chapter
        "Sampling: heat bath and Metropolis"."""

    assert named_chapters(f) == ["Energy", "The learning rule"]
    assert named_chapters(g) == ["Sampling: heat bath and Metropolis"]
