"""Sphinx extension: repairs, in every built page, what the theme and docutils get wrong for assistive technology.

Each repair is a plain text substitution in the written HTML, listed in
``REPAIRS`` with the rule it answers (axe-core's rule id, and the WCAG
clause). They run at the end of the build. A repair that finds nothing to
change in the whole book logs a warning, which fails the build (warnings are
errors): the theme's markup has changed, and the repair must be looked at
again, not left to rot. ``tests/test_accessibility.py`` runs axe-core on the
result.

Why substitutions and not template overrides: the buttons come from
pydata-sphinx-theme's components and the bibliography's roles from
docutils' HTML writer; overriding either means copying their templates or
translator into the book, which would then drift from the installed versions
silently. A substitution either applies or says that it no longer does.
"""
from __future__ import annotations

import re
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

#: (name, pattern, replacement, why). Patterns are regular expressions on the page's HTML.
REPAIRS = [
    (
        "search field name",
        re.compile(r'(<button class="btn search-button-field search-button__button[^"]*"[^>]*?) aria-label="Search"'),
        r"\1",
        "label-content-name-mismatch (WCAG 2.5.3): the button shows 'Search Ctrl+K' but was named "
        "'Search'; without the aria-label its name is the text it shows, as speech input expects",
    ),
    (
        "colour-mode icons",
        re.compile(r'(<i class="theme-switch [^"]*" data-mode="[a-z]+")\s+title="[^"]*"'),
        r'\1 aria-hidden="true"',
        "label-content-name-mismatch (WCAG 2.5.3): the icons' titles counted as the button's text, "
        "which its name 'Color mode' did not contain; the icons are decoration, the name stays",
    ),
    (
        "bibliography entries",
        re.compile(r'(<div class="citation" id="[^"]+") role="doc-biblioentry"'),
        r'\1 role="listitem"',
        "aria-required-children (critical, WCAG 1.3.1), aria-deprecated-role and aria-allowed-role: "
        "docutils marks the list role='list' and each entry with ARIA 1.1's doc-biblioentry, deprecated "
        "in ARIA 1.2 and not a list item; a list's children must be list items",
    ),
    (
        "book title landmark",
        re.compile(r'<div class="sidebar-primary-item">(\s*<a class="navbar-brand logo")'),
        r'<div class="sidebar-primary-item" role="region" aria-label="Book title">\1',
        "region (best practice): the book's title in the sidebar sat outside every landmark, so a "
        "screen reader's landmark list skipped it",
    ),
]


def repair_pages(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    applied = {name: 0 for name, *_ in REPAIRS}
    for page in Path(app.outdir).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        new = text
        for name, pattern, replacement, _ in REPAIRS:
            new, n = pattern.subn(replacement, new)
            applied[name] += n
        if new != text:
            page.write_text(new, encoding="utf-8")
    for name, pattern, _, why in REPAIRS:
        if applied[name] == 0:
            logger.warning(f"accessible_pages: the repair {name!r} found nothing to change in the built book "
                           f"(pattern {pattern.pattern!r}); the theme's markup changed, so check whether "
                           f"it is still needed: {why}")


def setup(app):
    app.connect("build-finished", repair_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
