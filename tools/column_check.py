"""List what in a chapter will not fit the book's text column, or refers by a typed number.

    python tools/column_check.py [book/energy.ipynb ...]    (default: every chapter)

Reports, cell by cell:
- code lines, and lines of code blocks in the Markdown, longer than ``WIDTH``
  characters: the code column shows 77 characters before it scrolls sideways,
  and 74 inside an exercise or solution box (``BOXED_WIDTH``; measured in
  Chromium, and tests/test_browser.py fails on any overflow in the built pages);
- printed output lines (streams, and ``text/plain`` where it is what the page
  shows) longer than ``WIDTH``;
- references typed with a number, such as "exercise 2" or "the third exercise":
  the rendered numbering runs across the book, so refer with {ref} to a label.

Exit status 1 if anything is found. ``tests/test_book.py`` runs the same checks.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Characters a code or output line may have (the column holds 77 at 14 px monospace).
WIDTH = 77
#: Inside an exercise or solution box (its padding takes three characters).
BOXED_WIDTH = 74

_ORDINALS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last"
_TYPED_REFERENCE = re.compile(
    rf"\b(?:exercises?|figures?|sections?|equations?|eqs?\.)\s+\(?\d"  # "exercise 2", "figure 3"
    rf"|\bthe\s+(?:{_ORDINALS})\s+exercise\b",  # "the third exercise"
    re.IGNORECASE,
)
_FENCE = re.compile(r"^\s*(?:(?:\d+\.|[-*+])\s+)?(`{3,}|~{3,})")  # also "2. ```python" in a list


def _markdown_prose_and_code(source):
    """Split a Markdown cell into (prose lines, code-block lines) with their line numbers.

    A fence of three backticks that opens a directive (```{exercise}) holds
    prose; one without a brace, or with {code-cell}, holds code.
    """
    prose, code = [], []
    stack = []  # open fences: (marker, is_code)
    for k, line in enumerate(source.split("\n"), start=1):
        fence = _FENCE.match(line)
        if fence:
            marker = fence.group(1)
            rest = line[fence.end():].strip()
            if stack and marker[0] == stack[-1][0][0] and len(marker) >= len(stack[-1][0]) and not rest:
                stack.pop()
                continue
            stack.append((marker, not rest.startswith("{") or rest.startswith("{code")))
            continue
        if stack and stack[-1][1]:
            boxed = any(not is_code for _, is_code in stack[:-1])  # a code block inside a directive
            code.append((k, line, BOXED_WIDTH if boxed else WIDTH))
        else:
            prose.append((k, line))
    return prose, code


def _output_lines(output):
    if output.get("output_type") == "stream":
        yield from "".join(output["text"]).split("\n")
    data = output.get("data", {})
    # text/plain is what the page shows only when nothing richer is there: a figure
    # (its text/plain is the figure's summary, the image's alt), a figure's words
    # (text/html, which wraps like prose) or a widget each show something else.
    shown_instead = ("image/png", "text/html", "application/vnd.jupyter.widget-view+json")
    if "text/plain" in data and not any(kind in data for kind in shown_instead):
        yield from "".join(data["text/plain"]).split("\n")


def problems(path):
    """Every problem in the notebook at ``path``, as ``"cell N: ..."`` strings."""
    nb = json.loads(Path(path).read_text())
    found = []
    for n, cell in enumerate(nb["cells"]):
        source = "".join(cell["source"])
        if cell["cell_type"] == "code":
            for k, line in enumerate(source.split("\n"), start=1):
                if len(line) > WIDTH:
                    found.append(f"cell {n}: code line {k} has {len(line)} characters: {line[:60]!r}")
            for output in cell.get("outputs", []):
                for line in _output_lines(output):
                    if len(line) > WIDTH:
                        found.append(f"cell {n}: output line has {len(line)} characters: {line[:60]!r}")
        elif cell["cell_type"] == "markdown":
            prose, code = _markdown_prose_and_code(source)
            for k, line, width in code:
                if len(line) > width:
                    found.append(f"cell {n}: code line {k} has {len(line)} characters (at most {width} "
                                 f"in a box): {line[:60]!r}" if width < WIDTH else
                                 f"cell {n}: code line {k} has {len(line)} characters: {line[:60]!r}")
            for k, line in prose:
                for match in _TYPED_REFERENCE.finditer(re.sub(r"`[^`]*`", "", line)):
                    found.append(f"cell {n}: line {k} refers by a typed number: {match.group(0)!r} (use {{ref}})")
    return found


def main(paths):
    paths = paths or sorted((ROOT / "book").glob("*.ipynb"))
    failed = False
    for path in paths:
        for problem in problems(path):
            print(f"{Path(path).name}: {problem}")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
