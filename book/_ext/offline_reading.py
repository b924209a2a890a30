"""Sphinx extension: make the built book read fully offline.

1. MathJax from the book's own files. Sphinx points ``mathjax_path`` at a
   CDN by default, so a reader without a network sees raw TeX. The MathJax 3
   files come from the ``django-static-mathjax`` package on PyPI (installed
   by requirements.txt; it ships MathJax's own ``es5`` build and nothing of
   Django is imported). They are copied into ``_static/mathjax`` at build
   time, never committed: they are not our code.
2. One copy of each inline script. sphinx-thebe registers its inline
   ``const THEBE_JS_URL = ...`` script on every ``env-before-read-docs``
   event, which fires more than once in a Jupyter Book build, so pages
   declared the constant twice and the browser reported a SyntaxError.
   Duplicate scripts are dropped per page.
"""
from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from sphinx.errors import ExtensionError

MATHJAX_ENTRY = "tex-chtml.js"
# What tex-chtml.js loads at run time besides itself: TeX extensions
# (autoload), the CommonHTML fonts, the menu and the accessibility helpers.
MATHJAX_PARTS = ("input", "output/chtml", "output/chtml.js", "ui", "a11y", "adaptors")


def mathjax_source():
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise ExtensionError(
            "offline_reading: the package django-static-mathjax is not installed; "
            "run `pip install -r requirements.txt` (it serves MathJax from the book itself)"
        )
    root = Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax" / "es5"
    if not (root / MATHJAX_ENTRY).exists():
        raise ExtensionError(f"offline_reading: {root / MATHJAX_ENTRY} is missing; reinstall django-static-mathjax")
    return root


def use_local_mathjax(app, config):
    mathjax_source()  # fail early, before reading any page, if the files are missing
    # A relative mathjax_path is resolved against _static by Sphinx.
    config.mathjax_path = f"mathjax/{MATHJAX_ENTRY}"


def copy_mathjax(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    source = mathjax_source()
    target = Path(app.outdir) / "_static" / "mathjax"
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source / MATHJAX_ENTRY, target / MATHJAX_ENTRY)
    for part in MATHJAX_PARTS:
        src, dst = source / part, target / part
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True)
        else:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)


def drop_duplicate_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        # The two copies differ only in filename None vs "" (registry vs builder).
        key = (str(getattr(script, "filename", script) or ""), str(sorted(getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    # In place: the list is the builder's own, and handlers that run later
    # (sphinx.ext.mathjax adds its script here) append to that same list.
    scripts[:] = unique


def setup(app):
    app.connect("config-inited", use_local_mathjax, priority=900)
    app.connect("build-finished", copy_mathjax)
    # Early: html-page-context is emitted with emit_firstresult, so a handler
    # that returns a template name would stop later handlers from running.
    app.connect("html-page-context", drop_duplicate_scripts, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
