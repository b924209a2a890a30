"""The book itself: its rules, and a full build with warnings as errors."""
import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [chapter["file"] for chapter in part["chapters"]]
    return files


def resolve(entry):
    for suffix in (".ipynb", ".md"):
        if (ROOT / (entry + suffix)).exists():
            return ROOT / (entry + suffix)
    raise AssertionError(f"_toc.yml lists {entry!r} but no {entry}.ipynb or {entry}.md exists")


NOTEBOOKS = [p for p in map(resolve, toc_files()) if p.suffix == ".ipynb"]


def test_every_toc_entry_exists_and_every_chapter_is_listed():
    listed = {resolve(entry) for entry in toc_files()}
    on_disk = set((ROOT / "book").glob("*.ipynb")) | set((ROOT / "book").glob("*.md"))
    assert on_disk - listed == set(), "pages in book/ missing from _toc.yml"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_follows_the_book_rules(path):
    nb = json.loads(path.read_text())
    assert "widgets" not in nb["metadata"], "saved widget state: run tools/store_outputs.py"
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert any("bmlib" in "".join(c["source"]) for c in code), "a chapter imports bmlib"
    for cell in code:
        source = "".join(cell["source"])
        assert cell["execution_count"] is not None or not source.strip(), f"unexecuted cell: {source[:60]!r}"
        assert "NBVAL_IGNORE_OUTPUT" not in source and "NBVAL_SKIP" not in source
        assert not any(o["output_type"] == "error" for o in cell["outputs"]), f"stored error in {source[:60]!r}"
    markdown = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    exercises = re.findall(r"\{exercise\}", markdown)
    solutions = re.findall(r"\{solution\}[^\n]*\n(?:\s*:label:[^\n]*\n)?\s*:class: dropdown", markdown)
    assert len(exercises) >= 3, "every chapter ends with at least three exercises"
    assert len(solutions) >= len(exercises), "every exercise has a solution hidden in a dropdown"


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "<!-- test-command -->" in readme and "README.md" in ci


def readme_command(marker):
    readme = (ROOT / "README.md").read_text()
    block = readme.split(f"<!-- {marker} -->", 1)[1]
    return block.split("```bash\n", 1)[1].split("```", 1)[0].strip()


def test_preface_gives_the_readme_commands_verbatim():
    preface = (ROOT / "book" / "preface.md").read_text()
    for marker in ("book-command", "test-command"):
        assert readme_command(marker) in preface, f"the preface's copy of the README {marker} is out of date"


def test_requirements_use_ranges_not_exact_pins():
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        assert "==" not in line.split("#")[0], f"exact pin in requirements.txt: {line}"


@pytest.mark.build
def test_book_builds_with_warnings_as_errors(built_book):
    assert built_book["returncode"] == 0, built_book["log"]
    html = built_book["html"]
    for entry in toc_files():
        assert (html / (entry + ".html")).exists(), f"{entry}.html was not built"
    energy = (html / "book" / "energy.html").read_text()
    # The widget's default-state figure is in the static page, not a blank widget view.
    assert re.search(r'<img[^>]+src="[^"]*\.png"', energy), "no PNG figure on the Energy page"
    assert "application/vnd.jupyter.widget-view+json" not in energy
    assert 'class="exercise' in energy and "solution" in energy
    # The API page documents every public name, from its docstring.
    import bmlib

    api = (html / "book" / "api.html").read_text()
    documented = [name for name in bmlib.__all__ if callable(getattr(bmlib, name))]
    missing = [name for name in documented if f'id="bmlib.{name}"' not in api]
    assert missing == [], f"public names missing from the API page: {missing}"
    # MathJax is served from the book's own files (book/_ext/offline_reading.py).
    assert (html / "_static" / "mathjax" / "tex-chtml.js").exists()
    assert 'src="../_static/mathjax/tex-chtml.js' in energy.replace('defer="defer" ', '')


def test_api_page_is_generated_from_the_public_names():
    import subprocess
    import sys

    result = subprocess.run([sys.executable, str(ROOT / "tools" / "api_page.py"), "--check"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr + result.stdout
