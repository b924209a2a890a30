"""Sphinx extension: citations that read as text in a notebook and as citations in the book.

A chapter cites as a Markdown link whose text is the citation and whose target
is the entry in ``references.bib``::

    [Hopfield (1982)](references.bib#hopfield1982neural)
    [(Hinton and Sejnowski, 1983; Ackley et al., 1985)](references.bib#hinton1983optimal,ackley1985learning)

Why not the ``{cite}`` role directly: JupyterLab (with or without the
jupyterlab-myst extension) cannot read a ``.bib`` file, so a role shows the
bare key marked "Citation Not Found", while a link reads as the citation it is
everywhere a notebook is opened, and in JupyterLab it opens the bibliography.

For the HTML book nothing changes: before a page is parsed, each such link
becomes the role sphinxcontrib-bibtex always had (text in parentheses: the
parenthetical ``{cite}``, otherwise the narrative ``{cite:t}``), so the built
pages are what they were. The link's text is checked against the entry (first
author's surname or the two surnames, "et al." for three or more, the year);
a text that disagrees with ``references.bib`` is a build warning, which the
book's ``-W`` build turns into an error, so the notebook's text cannot drift
from what the book prints.

``tools/readable_citations.py`` turns ``{cite}`` roles into such links.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

BIB_NAME = "references.bib"
#: [text](references.bib#key1,key2): the text has no brackets, the keys no spaces.
LINK = re.compile(r"\[([^\[\]\n]+)\]\(" + re.escape(BIB_NAME) + r"#([^()\s]+)\)")
#: {cite}`key1,key2` and {cite:t}`key` as sphinxcontrib-bibtex reads them.
ROLE = re.compile(r"\{cite(?::(t|p))?\}`([^`]+)`")


@lru_cache(maxsize=4)
def read_bib(path):
    """{key: (author text, year)} for every entry of the .bib file at `path`."""
    from pybtex.database import parse_file
    from pybtex.richtext import Text

    def surname(person):
        return Text.from_latex(" ".join(person.prelast_names + person.last_names)).render_as("text")

    entries = {}
    for key, entry in parse_file(str(path)).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        if len(people) == 1:
            who = surname(people[0])
        elif len(people) == 2:
            who = f"{surname(people[0])} and {surname(people[1])}"
        else:
            who = f"{surname(people[0])} et al."
        entries[key] = (who, entry.fields.get("year", "n.d."))
    return entries


def citation_text(keys, narrative, entries):
    """What a reader of the notebook sees for a citation of `keys`."""
    if narrative:
        return "; ".join(f"{entries[k][0]} ({entries[k][1]})" for k in keys)
    return "(" + "; ".join(f"{entries[k][0]}, {entries[k][1]}" for k in keys) + ")"


def split_keys(text):
    return [k.strip() for k in text.split(",") if k.strip()]


def links_to_roles(markdown, entries, problems):
    """`markdown` with every citation link made a {cite} role; disagreements appended to `problems`."""

    def role(match):
        text, keys = match.group(1), split_keys(match.group(2))
        narrative = not text.startswith("(")
        unknown = [k for k in keys if k not in entries]
        if unknown:
            problems.append(f"citation link {match.group(0)!r}: no entry {', '.join(unknown)} in {BIB_NAME}")
        elif text != citation_text(keys, narrative, entries):
            problems.append(f"citation link {match.group(0)!r}: {BIB_NAME} says "
                            f"{citation_text(keys, narrative, entries)!r} (run tools/readable_citations.py)")
        return ("{cite:t}" if narrative else "{cite}") + f"`{','.join(keys)}`"

    return LINK.sub(role, markdown)


def roles_to_links(markdown, entries):
    """`markdown` with every {cite} / {cite:t} role written as a citation link."""

    def link(match):
        keys = split_keys(match.group(2))
        text = citation_text(keys, match.group(1) == "t", entries)
        return f"[{text}]({BIB_NAME}#{','.join(keys)})"

    return ROLE.sub(link, markdown)


def rewrite_source(app, docname, source):
    """source-read: citation links to roles, before myst-nb / myst-parser parse the page."""
    path = Path(app.env.doc2path(docname))
    entries = read_bib(Path(app.srcdir) / app.config.bibtex_bibfiles[0])
    problems = []
    if path.suffix == ".ipynb":
        nb = json.loads(source[0])
        for cell in nb.get("cells", []):
            if cell.get("cell_type") == "markdown":
                text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                cell["source"] = links_to_roles(text, entries, problems)
        source[0] = json.dumps(nb, ensure_ascii=False)
    else:
        source[0] = links_to_roles(source[0], entries, problems)
    if problems:
        from sphinx.util import logging

        logger = logging.getLogger(__name__)
        for problem in problems:
            logger.warning(problem, location=docname)


def setup(app):
    app.connect("source-read", rewrite_source)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
