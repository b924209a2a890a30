"""Sphinx extension: each chapter's students' copy (solutions removed), built and offered for download.

The copies are made by ``tools/students_copies.py`` from the chapter
notebooks at every build and written to ``_students/<chapter>.ipynb`` in the
HTML output; nothing generated is committed. Each chapter page's download menu
(top right, beside the notebook's own ``.ipynb``) gets an entry for its copy.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

FOLDER = "_students"
TOOLS = Path(__file__).resolve().parents[2] / "tools"


def chapters(app):
    """{docname: source path} of every notebook page."""
    found = {docname: Path(app.env.doc2path(docname)) for docname in app.env.found_docs}
    return {docname: path for docname, path in found.items() if path.suffix == ".ipynb"}


def copy_name(docname):
    return f"{FOLDER}/{Path(docname).name}.ipynb"


def add_download_entry(app, pagename, templatename, context, doctree):
    if pagename not in chapters(app):
        return
    for group in context.get("header_buttons", []):
        if group.get("label") != "download-buttons":
            continue
        buttons = group["buttons"]
        # After the chapter's own file (.ipynb), which stays the first notebook link of the menu; before .pdf.
        at = next((k for k, b in enumerate(buttons) if b.get("label") == "download-pdf-button"), len(buttons))
        buttons.insert(at, {
            "type": "link",
            "url": context["pathto"](copy_name(pagename), 1),
            "text": ".ipynb, no solutions",
            "icon": "fas fa-pencil-alt",
            "tooltip": "Download the notebook without the exercises' solutions",
            "label": "download-students-copy-button",
        })


def write_copies(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    # The tool has this module's name, so it is loaded from its file rather than imported.
    spec = importlib.util.spec_from_file_location("tools_students_copies", TOOLS / "students_copies.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    for docname, source in chapters(app).items():
        target = Path(app.outdir) / copy_name(docname)
        tool.write_students_copy(source, target.parent)


def setup(app):
    # After sphinx-book-theme has built its header buttons (priority 501).
    app.connect("html-page-context", add_download_entry, priority=600)
    app.connect("build-finished", write_copies)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
