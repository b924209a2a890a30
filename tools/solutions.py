"""The code of each chapter's exercise solutions, run after the chapter, and what it prints.

A solution's text quotes what its code prints ("which prints `-45.0 5.0 252`",
"L = -2.666 after 2000 epochs"). The reader runs that code after the whole
chapter, in the same kernel, so that is how it is run here:
:func:`with_solutions` appends one code cell per ```python block of every
``{solution}`` to a copy of the chapter.

- ``tools/store_outputs.py`` executes that copy, stores the chapter's cells'
  outputs in the chapter as always, and records the solutions' outputs in the
  chapter's metadata (``bmlib.solution_outputs``, one entry per block, pictures
  left out: the text is what the prose quotes, and the book never shows them).
- ``tests/test_prose_numbers.py`` checks every number typed in a solution
  against the chapter's outputs and that solution's recorded ones.
- ``tests/test_any_machine.py`` re-executes the copy under nbval, the recorded
  outputs as the stored ones, so a record that no longer matches the library
  fails as a stale chapter output does.
"""
from __future__ import annotations

import copy
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_assignments import PYTHON_BLOCK, SOLUTION  # noqa: E402  (one reading of the MyST blocks)

#: Where a chapter keeps its solutions' outputs, under ``metadata["bmlib"]``.
KEY = "solution_outputs"
#: Output data that is not recorded: pictures (a figure's words, in text/html, are).
PICTURES = ("image/png", "image/jpeg", "image/svg+xml")


def solution_blocks(nb):
    """Every ```python block of the chapter's ``{solution}`` blocks, in reading order.

    Returns a list of ``(key, code)`` with ``key`` = ``"<label>/<k>"``, the k-th block (from 0) of
    the solution to exercise ``label``.
    """
    blocks = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for solution in SOLUTION.finditer(cell.source):
            label = solution.group(2)
            for k, code in enumerate(PYTHON_BLOCK.findall(solution.group(3))):
                blocks.append((f"{label}/{k}", code.rstrip("\n")))
    return blocks


def with_solutions(nb, recorded=True):
    """A copy of the chapter with one code cell per solution block appended after its last cell.

    With ``recorded``, each appended cell carries the outputs recorded in the chapter's metadata
    (empty where none are), so that nbval compares a re-execution with them.
    """
    combined = copy.deepcopy(nb)
    stored = nb.metadata.get("bmlib", {}).get(KEY, {}) if recorded else {}
    for key, code in solution_blocks(nb):
        cell = new_code_cell(code, metadata={"bmlib": {"solution": key}})
        cell.outputs = [nbformat.from_dict(o) for o in stored.get(key, [])]
        cell.execution_count = 1 if cell.outputs else None
        combined.cells.append(cell)
    return combined


def recorded_outputs(executed):
    """The appended solution cells' outputs of an executed :func:`with_solutions` copy, as a dict by key."""
    record = {}
    for cell in executed.cells:
        key = cell.metadata.get("bmlib", {}).get("solution")
        if key is None:
            continue
        outputs = []
        for output in cell.outputs:
            output = copy.deepcopy(output)
            output.pop("metadata", None)
            if "data" in output:
                output["data"] = {mime: value for mime, value in output["data"].items() if mime not in PICTURES}
            outputs.append(output)
        record[key] = outputs
    return record

