"""Graded assignments in nbgrader's format, made from the chapters' coding exercises.

Usage:  python tools/make_assignments.py COURSE [book/energy.ipynb ...]

writes ``COURSE/source/<chapter>/<chapter>.ipynb`` for every chapter (all of
them if none is named) that has coding exercises, ready for nbgrader's
``generate_assignment`` and ``autograde`` (the teachers' page of the book gives
the commands). Nothing generated is committed: run this again after a chapter
changes, and the assignments follow.

A coding exercise is an ``{exercise}`` block whose next code cell defines a
draft function and calls one of bmlib's self-checks on it, as in::

    def my_free_energy(v, W, a, c):
        ...
    bm.check_rbm_free_energy(my_free_energy)

Its assignment gets, in order:

- the exercise's text (locked), with the chapter's draft shown as code;
- a solution cell: the function as the chapter's ``{solution}`` writes it,
  between nbgrader's ``### BEGIN SOLUTION`` and ``### END SOLUTION``
  (students receive ``raise NotImplementedError()`` in its place);
- an autograder test cell (locked, ``POINTS`` points) asserting that the same
  self-check the book uses accepts the function. When it does not, the
  check's message (which names the mistake) is the cell's output, and so part
  of the student's feedback: one checker serves the book and the grading.

:func:`coding_exercises` is also what ``tests/test_assignments.py`` uses to
build the three submissions it grades (the reference, an empty one, and the
chapter's own draft as the typical mistake).
"""
from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

BOOK = Path(__file__).resolve().parents[1] / "book"
#: Points per coding exercise.
POINTS = 2
CHECK_CALL = re.compile(r"^bm\.(check_\w+)\((\w+)\)\s*$", re.M)
EXERCISE = re.compile(r"^(`{3,}|:{3,})\{exercise\}[^\n]*\n:label:\s*(\S+)\s*\n(.*?)^\1\s*$", re.M | re.S)
SOLUTION = re.compile(r"^(`{3,}|:{3,})\{solution\}\s*(\S+)\s*\n(.*?)^\1\s*$", re.M | re.S)
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```\s*$", re.M | re.S)
# MyST that has no meaning outside the book: links to the bibliography and to chapters become text.
BIB_LINK = re.compile(r"\[([^\]]*)\]\(references\.bib#[^)]*\)")
PAGE_LINK = re.compile(r"\[([^\]]*)\]\([\w-]+\.(?:ipynb|md)(?:#[^)]*)?\)")


@dataclass(frozen=True)
class CodingExercise:
    """One coding exercise of a chapter: what the assignment and its test submissions are made of."""

    label: str
    prompt: str
    """The exercise's text (MyST links turned into plain text)."""
    draft: str
    """The chapter's draft code, without the check call: the typical mistake."""
    solution: str
    """The function (and any helper it defines) from the chapter's solution."""
    check: str
    """The self-check's name, such as ``check_rbm_free_energy``."""
    function: str
    """The name of the function the student writes."""


def _plain(markdown):
    return PAGE_LINK.sub(r"\1", BIB_LINK.sub(r"\1", markdown)).strip()


def _definitions(code, wanted, where):
    """The source of every function definition in ``code``; ``wanted`` must be among them."""
    tree = ast.parse(code)
    found = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    if wanted not in {node.name for node in found}:
        raise ValueError(f"{where}: the solution's code defines no function {wanted!r}")
    return "\n\n".join(ast.get_source_segment(code, node) for node in found)


def coding_exercises(chapter, nb=None):
    """The coding exercises of the chapter notebook at ``chapter``, in order (a list of CodingExercise).

    ``nb``: the notebook, if it has been read already.
    """
    nb = nbformat.read(chapter, as_version=4) if nb is None else nb
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    solutions = {m.group(2): m.group(3) for m in SOLUTION.finditer(markdown)}
    exercises = []
    for previous, cell in zip(nb.cells, nb.cells[1:]):
        call = CHECK_CALL.search(cell.source) if cell.cell_type == "code" else None
        blocks = list(EXERCISE.finditer(previous.source)) if previous.cell_type == "markdown" else []
        if call is None or not blocks:
            continue
        label, text = blocks[-1].group(2), blocks[-1].group(3)
        where = f"{Path(chapter).name}, exercise {label}"
        code = PYTHON_BLOCK.findall(solutions.get(label, ""))
        if not code:
            raise ValueError(f"{where}: its {{solution}} has no ```python block with the function")
        check, function = call.groups()
        exercises.append(CodingExercise(
            label=label,
            prompt=_plain(text),
            draft=CHECK_CALL.sub("", cell.source).strip(),
            solution=_definitions("\n".join(code), function, where),
            check=check,
            function=function,
        ))
    return exercises


def _nbgrader(grade_id, *, solution=False, grade=False, locked=True, points=None):
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution,
            "task": False}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def assignment(chapter):
    """The nbgrader source notebook for the chapter at ``chapter``, or None if it has no coding exercise."""
    chapter_nb = nbformat.read(chapter, as_version=4)
    exercises = coding_exercises(chapter, chapter_nb)
    if not exercises:
        return None
    title = chapter_nb.cells[0].source.splitlines()[0].lstrip("# ").strip()
    total = POINTS * len(exercises)
    cells = [
        new_markdown_cell(
            f"# Assignment: {title}\n\n"
            f"{len(exercises)} coding exercise{'s' if len(exercises) > 1 else ''} from the chapter "
            f"\"{title}\", {POINTS} points each, {total} in all. Write each function in the cell marked "
            "`YOUR CODE HERE` (delete the `raise NotImplementedError()` line). The cell after it runs the "
            "same self-check as the book: run it to see whether your function is right, and if not, what is "
            "wrong. Do not change or delete the other cells; they are graded as they are.",
            metadata=_nbgrader("header")),
        new_code_cell("import numpy as np\nimport bmlib as bm", metadata=_nbgrader("setup")),
    ]
    for k, exercise in enumerate(exercises, 1):
        cells.append(new_markdown_cell(
            f"## Exercise {k} ({POINTS} points)\n\n{exercise.prompt}\n\nThe chapter's draft, which the check "
            f"rejects:\n\n```python\n{exercise.draft}\n```",
            metadata=_nbgrader(f"{exercise.label}-text")))
        cells.append(new_code_cell(
            f"### BEGIN SOLUTION\n{exercise.solution}\n### END SOLUTION",
            metadata=_nbgrader(exercise.label, solution=True, locked=False)))
        cells.append(new_code_cell(
            f"# The book's self-check: it prints what is wrong, if anything.\n"
            f"assert bm.{exercise.check}({exercise.function}), "
            f"\"bm.{exercise.check} does not accept {exercise.function}: see its message above\"",
            metadata=_nbgrader(f"{exercise.label}-check", grade=True, points=POINTS)))
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    return nb


def write_assignments(course, chapters=None):
    """Write the source notebook of every chapter with coding exercises under ``course/source``; return the paths."""
    chapters = sorted(BOOK.glob("*.ipynb")) if not chapters else [Path(c) for c in chapters]
    written = []
    for chapter in chapters:
        nb = assignment(chapter)
        if nb is None:
            continue
        target = Path(course) / "source" / chapter.stem / chapter.name
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)
        written.append(target)
    return written


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in write_assignments(sys.argv[1], sys.argv[2:]):
        print(f"wrote {path}")
