"""Students' copies of the chapters: every ``{solution}`` block removed, everything else kept.

Usage:  python tools/students_copies.py OUTDIR book/energy.ipynb [more.ipynb ...]

writes ``OUTDIR/energy.ipynb`` and so on. The book build makes them itself
(``book/_ext/students_copies.py`` puts them in ``_build/html/_students/`` and
links them from each chapter's download menu), so a copy is never edited by
hand and never out of date: change the chapter instead.

What is removed: each ``{solution}`` directive in a Markdown cell, from its
opening fence to its closing fence (a fence of the same character, at least as
long: code blocks inside a solution use shorter fences), and a Markdown cell
left empty by that. Code cells, their stored outputs, the exercises and the
rest of the prose stay as they are, so a copy runs exactly as its chapter does.
"""
from __future__ import annotations

import copy
import re
import sys
from pathlib import Path

import nbformat

OPENING = re.compile(r"^\s*(`{3,}|:{3,})\{solution\}")


def strip_solutions(markdown):
    """`markdown` without its {solution} blocks; (text, number of blocks removed)."""
    kept, removed, closing = [], 0, None
    for line in markdown.splitlines(keepends=True):
        if closing is None:
            opening = OPENING.match(line)
            if opening:
                fence = opening.group(1)
                closing = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
                removed += 1
            else:
                kept.append(line)
        elif closing.match(line):
            closing = None
    if closing is not None:
        raise ValueError(f"a {{solution}} block is never closed in:\n{markdown[:200]}")
    # The blank lines around a removed block would pile up: keep at most one.
    text = re.sub(r"\n{3,}", "\n\n", "".join(kept)).strip("\n") if removed else markdown
    return text, removed


def without_solutions(nb):
    """A copy of the notebook `nb` (nbformat v4) with every {solution} block removed."""
    nb = copy.deepcopy(nb)
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            text, removed = strip_solutions(cell.source)
            if removed and not text.strip():
                continue  # the cell held solutions only
            cell.source = text
        cells.append(cell)
    nb.cells = cells
    return nb


def write_students_copy(chapter, outdir):
    """Write the students' copy of the chapter notebook at `chapter` into `outdir`; return its path."""
    chapter, outdir = Path(chapter), Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    target = outdir / chapter.name
    nbformat.write(without_solutions(nbformat.read(chapter, as_version=4)), target)
    return target


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    for name in sys.argv[2:]:
        print(f"wrote {write_students_copy(name, sys.argv[1])}")
