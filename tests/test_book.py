"""The book itself: its rules, and a full build with warnings as errors."""
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def load(path, name):
    """A module of tools/ or book/_ext/ by its file (the two folders share module names)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


store_outputs = load("tools/store_outputs.py", "tools_store_outputs")
students_copies = load("tools/students_copies.py", "tools_students_copies")
citations = load("book/_ext/readable_citations.py", "ext_readable_citations")
column_check = load("tools/column_check.py", "tools_column_check")


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
    # What JupyterLab writes on opening the chapter, or it opens already marked unsaved.
    assert nb["metadata"]["kernelspec"] == store_outputs.kernelspec(), "run tools/store_outputs.py"
    # nbformat 4.5 cells carry ids; a cell pasted in without one makes the students' copy differ.
    missing_ids = ["".join(c["source"])[:60] for c in nb["cells"] if not c.get("id")]
    assert missing_ids == [], f"cells without an id (run tools/store_outputs.py): {missing_ids}"
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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_carries_its_words(path):
    """Every stored figure has bmlib's description: the summary as the image's alt, the whole text under it.

    A figure drawn without bmlib (plain pyplot) or by a bmlib function that
    wrote no words would show here as Matplotlib's "<Figure size ...>" or as
    the made-up text that starts with ``FALLBACK_OPENING``.
    """
    from bmlib.plotting.words import FALLBACK_OPENING

    nb = json.loads(path.read_text())
    problems, figures = [], 0
    for n, cell in enumerate(nb["cells"]):
        outputs = cell.get("outputs", [])
        for k, output in enumerate(outputs):
            data = output.get("data", {})
            if "image/png" not in data:
                continue
            figures += 1
            alt = output.get("metadata", {}).get("image/png", {}).get("alt", "")
            text = "".join(data.get("text/plain", ""))
            widget = "application/vnd.jupyter.widget-view+json" in data
            if not widget and max(map(len, text.split("\n"))) > column_check.WIDTH:
                problems.append(f"cell {n}: the figure's text/plain is not folded to the column")
            if not alt.strip() or alt.startswith(FALLBACK_OPENING):
                problems.append(f"cell {n}: figure without words (alt {alt[:60]!r})")
            elif not widget and " ".join(text.split()) != f"Figure: {alt}":
                problems.append(f"cell {n}: the figure's text/plain is not its summary: {text[:60]!r}")
            if widget:
                continue  # a widget's words are its alt here, and live under its picture
            after = outputs[k + 1].get("data", {}) if k + 1 < len(outputs) else {}
            if "bm-figure-words" not in "".join(after.get("text/html", "")):
                problems.append(f"cell {n}: no folded description after the figure")
            elif alt not in " ".join("".join(after.get("text/plain", "")).split()):
                problems.append(f"cell {n}: the folded description does not start from the alt")
            elif max(map(len, "".join(after["text/plain"]).split("\n"))) > column_check.WIDTH:
                problems.append(f"cell {n}: the description's text/plain is not folded to the column")
    assert figures > 0, "every chapter has figures"
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_fits_the_column_and_refers_by_label(path):
    """Code, solutions' code and printed lines within the column; no "exercise 2" typed by hand.

    The width (77 characters) is what the built page shows before a code
    block scrolls sideways; test_browser.py checks the pages themselves.
    """
    found = column_check.problems(path)
    assert found == [], "\n".join(found[:15]) + (f"\n... and {len(found) - 15} more" if len(found) > 15 else "")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_labels_referred_to_are_in_the_same_chapter(path):
    """A {numref} or {ref} points at a label of its own chapter: JupyterLab (jupyterlab-myst) resolves
    labels within one notebook only, so another chapter is reached by a Markdown link instead."""
    markdown = "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"]
                         if c["cell_type"] == "markdown")
    defined = set(re.findall(r"^:label:\s*(\S+)", markdown, re.M)) | set(re.findall(r"^\(([\w-]+)\)=", markdown, re.M))
    used = re.findall(r"\{(?:numref|ref)\}`(?:[^`<]*<)?([\w-]+)>?`", markdown)
    elsewhere = sorted({label for label in used if label not in defined})
    assert elsewhere == [], f"{path.name} refers to labels it does not define (use a link to the chapter): {elsewhere}"


@pytest.mark.parametrize("path", NOTEBOOKS + [ROOT / "book" / "preface.md"], ids=lambda p: p.name)
def test_citations_read_as_text_and_match_the_bibliography(path):
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text())
        markdown = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    else:
        markdown = path.read_text()
    roles = citations.ROLE.findall(markdown)
    assert roles == [], f"{{cite}} roles show as 'Citation Not Found' in JupyterLab: run tools/readable_citations.py {path.name}"
    entries = citations.read_bib(ROOT / "book" / citations.BIB_NAME)
    problems = []
    converted = citations.links_to_roles(markdown, entries, problems)
    assert problems == [], "\n".join(problems)
    if path.suffix == ".ipynb":
        assert "{cite" in converted, "a chapter cites its sources"


def test_citation_links_become_the_roles_the_book_had():
    entries = citations.read_bib(ROOT / "book" / citations.BIB_NAME)
    text = "{cite:t}`hopfield1982neural` and {cite}`hinton1983optimal,ackley1985learning`"
    links = citations.roles_to_links(text, entries)
    assert links == ("[Hopfield (1982)](references.bib#hopfield1982neural) and "
                     "[(Hinton and Sejnowski, 1983; Ackley et al., 1985)]"
                     "(references.bib#hinton1983optimal,ackley1985learning)")
    problems = []
    assert citations.links_to_roles(links, entries, problems) == text and problems == []
    citations.links_to_roles("[Hopfield (1983)](references.bib#hopfield1982neural)", entries, problems)
    assert problems and "Hopfield (1982)" in problems[0], "a link text that disagrees with the .bib is reported"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_students_copy_has_no_solution_and_everything_else(path):
    import nbformat

    chapter = nbformat.read(path, as_version=4)
    copy = students_copies.without_solutions(chapter)
    markdown = "\n".join(c.source for c in copy.cells if c.cell_type == "markdown")
    assert "{solution}" not in markdown
    assert markdown.count("{exercise}") == "\n".join(c.source for c in chapter.cells).count("{exercise}")
    # The code cells, outputs included, are the chapter's, in order: the copy runs as the chapter does.
    assert [c for c in copy.cells if c.cell_type == "code"] == [c for c in chapter.cells if c.cell_type == "code"]
    # Every other line of Markdown is kept: the copy's prose is the chapter's minus solution blocks.
    kept = [line for c in copy.cells if c.cell_type == "markdown" for line in c.source.splitlines() if line.strip()]
    chapter_lines = [line for c in chapter.cells if c.cell_type == "markdown" for line in c.source.splitlines()]
    assert set(kept) <= set(chapter_lines)
    removed = len([line for line in chapter_lines if line.strip()]) - len(kept)
    solution_lines = sum(len(block.group(0).splitlines()) for block in re.finditer(
        r"^(`{3,}|:{3,})\{solution\}.*?^\1\s*$", "\n".join(c.source for c in chapter.cells if c.cell_type == "markdown"),
        flags=re.DOTALL | re.MULTILINE))
    assert 0 < removed <= solution_lines


def test_students_copy_removes_only_solution_blocks():
    text = ("Intro.\n\n````{exercise}\n:label: x-1\n\nDo it.\n````\n\n````{solution} x-1\n:class: dropdown\n\n"
            "```python\nprint(1)\n```\n````\n\nAfter.\n")
    stripped, removed = students_copies.strip_solutions(text)
    assert removed == 1
    assert stripped == "Intro.\n\n````{exercise}\n:label: x-1\n\nDo it.\n````\n\nAfter."
    with pytest.raises(ValueError, match="never closed"):
        students_copies.strip_solutions("````{solution} x\nunfinished\n```\n")


def test_a_students_copy_executes(tmp_path):
    """One students' copy, run top to bottom in a fresh kernel.

    One, not all: the copies' code cells are the chapters' own (checked for
    every chapter above), which the JupyterLab test and nbval already run;
    executing every copy again would add minutes of CI for no new code.
    Energy is the quickest.
    """
    import nbformat
    from nbclient import NotebookClient

    target = students_copies.write_students_copy(ROOT / "book" / "energy.ipynb", tmp_path)
    nb = nbformat.read(target, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT / "book")}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    assert all(c.execution_count for c in nb.cells if c.cell_type == "code" and c.source.strip())


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
    for marker in ("book-command", "test-command", "lab-command"):
        assert readme_command(marker) in preface, f"the preface's copy of the README {marker} is out of date"


def test_requirements_use_ranges_not_exact_pins():
    for name in ("requirements.txt", "requirements-lab.txt"):
        for line in (ROOT / name).read_text().splitlines():
            assert "==" not in line.split("#")[0], f"exact pin in {name}: {line}"


def test_test_command_installs_what_the_lab_command_does():
    # tests/test_jupyterlab.py starts JupyterLab from the test command's environment.
    assert "-r requirements-lab.txt" in (ROOT / "requirements.txt").read_text().splitlines()
    assert "requirements-lab.txt" in readme_command("lab-command")


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
    # Each chapter's students' copy is built from the chapter (book/_ext/students_copies.py).
    import nbformat

    for notebook in NOTEBOOKS:
        copy = nbformat.read(html / "_students" / notebook.name, as_version=4)
        assert copy == students_copies.without_solutions(nbformat.read(notebook, as_version=4)), notebook.name
    # Citations written as links (book/_ext/readable_citations.py) are bibtex citations on the page.
    assert energy.count('class="bibtex-citation"') >= 5 and "references.bib#" not in energy
    # MathJax is served from the book's own files (book/_ext/offline_reading.py).
    assert (html / "_static" / "mathjax" / "tex-chtml.js").exists()
    assert 'src="../_static/mathjax/tex-chtml.js' in energy.replace('defer="defer" ', '')


def test_api_page_is_generated_from_the_public_names():
    import subprocess
    import sys

    result = subprocess.run([sys.executable, str(ROOT / "tools" / "api_page.py"), "--check"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr + result.stdout


def test_bibliography_labels_read_like_the_citations():
    """The list's labels are "Hinton and Sejnowski, 1983", not alpha-style "[HS83]"; each is unique."""
    from pybtex.database import parse_file

    ext = load("book/_ext/author_year_bibliography.py", "ext_author_year_bibliography")
    entries = sorted(parse_file(ROOT / "book" / "references.bib").entries.values(), key=lambda e: e.key)
    labels = list(ext.AuthorYearLabels().format_labels(entries))
    assert len(set(labels)) == len(labels), "two entries share a label"
    pattern = re.compile(r"^[A-Z][^,]+(?: and [^,]+| et al\.)?, \d{4}[a-z]?$")
    assert [label for label in labels if not pattern.match(label)] == []
    by_key = dict(zip((e.key for e in entries), labels))
    assert by_key["hinton1983optimal"] == "Hinton and Sejnowski, 1983"
    assert by_key["ackley1985learning"] == "Ackley et al., 1985"
    # ``quoted'' renders as curly quotes; a single `quote' shows a literal backtick.
    assert not re.search(r"(?<![`\\])`(?!`)", (ROOT / "book" / "references.bib").read_text()), "a single backtick"


# --- stored pictures cannot go stale ----------------------------------------
# tests/conftest.py removes image/png from what nbval leaves out when the running machine's
# fingerprint (tools/figure_environment.py) is the one the chapter was stored with. A one-cell
# notebook with a figure is stored, then checked three ways: as stored (passes), with its
# picture replaced by another one (fails), and with that other picture but a foreign
# fingerprint (passes: on another machine pictures are not compared).

figure_environment = load("tools/figure_environment.py", "tools_figure_environment")

CELL = """import matplotlib
matplotlib.use("module://matplotlib_inline.backend_inline")
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(2, 1), dpi=50)
ax.plot([0, 1, 2], [0, SLOPE, 2 * SLOPE])
plt.show()
"""


def _notebook(path, slope):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(CELL.replace("SLOPE", str(slope)))]
    nbformat.write(nb, path)
    store_outputs.store_outputs(path)
    return json.loads(path.read_text())


def _picture(nb):
    """The output data holding the one figure of a one-cell notebook (a dict, changed in place)."""
    return next(o["data"] for o in nb["cells"][0]["outputs"] if "image/png" in o.get("data", {}))


def _nbval(path):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests")}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                          "-p", "conftest", "--nbval", "--nbval-current-env", str(path)],
                         cwd=path.parent, env=env, capture_output=True, text=True, timeout=300)
    return run.returncode, run.stdout


def test_printed_text_is_stored_as_one_output_per_run_of_prints():
    out = lambda name, text: nbformat.v4.new_output("stream", name=name, text=text)
    figure = nbformat.v4.new_output("display_data", data={"text/plain": "Figure"})
    joined = store_outputs.joined_streams([out("stdout", "period"), out("stdout", " 2\n"), out("stderr", "w\n"),
                                           figure, out("stdout", "a\n"), out("stdout", "b\n")])
    assert [(o.get("name"), o.get("text")) for o in joined] == [
        ("stdout", "period 2\n"), ("stderr", "w\n"), (None, None), ("stdout", "a\nb\n")]
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        for k, cell in enumerate(json.loads(path.read_text())["cells"]):
            kinds = [(o["output_type"], o.get("name")) for o in cell.get("outputs", [])]
            assert all(a != b or a[0] != "stream" for a, b in zip(kinds, kinds[1:])), (
                f"{path.name} cell {k}: printed text split over two outputs; store it with tools/store_outputs.py")


def test_every_chapter_records_where_its_pictures_were_drawn():
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        stored = json.loads(path.read_text())["metadata"].get("bmlib", {}).get("figure_environment")
        assert stored and len(stored) == 16, f"{path.name}: store it with tools/store_outputs.py"


@pytest.mark.slow
def test_a_stale_picture_fails_where_the_pixels_should_match(tmp_path):
    good = _notebook(tmp_path / "good.ipynb", 1)
    other = _notebook(tmp_path / "other.ipynb", -1)
    assert good["metadata"]["bmlib"]["figure_environment"] == figure_environment.fingerprint()
    code, out = _nbval(tmp_path / "good.ipynb")
    assert code == 0, out

    stale = json.loads(json.dumps(good))
    _picture(stale)["image/png"] = _picture(other)["image/png"]
    (tmp_path / "stale.ipynb").write_text(json.dumps(stale))
    code, out = _nbval(tmp_path / "stale.ipynb")
    assert code != 0 and "1 failed" in out, out

    stale["metadata"]["bmlib"]["figure_environment"] = "another machine"
    (tmp_path / "elsewhere.ipynb").write_text(json.dumps(stale))
    code, out = _nbval(tmp_path / "elsewhere.ipynb")
    assert code == 0, out
