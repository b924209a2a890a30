"""Sphinx extension: the bibliography lists its entries under author–year labels.

The chapters cite author–year ("Hinton & Sejnowski (1983)"), but
sphinxcontrib-bibtex's default list style labels entries alpha-style
("[HS83]"), so a reader could not match a citation to its entry by eye.
This registers a pybtex style, ``author_year``, whose labels are the
citation's own words ("Hinton and Sejnowski, 1983"; "Ackley et al., 1985"),
with a, b, ... added when two entries would share one, and whose list is
sorted by author, then year. ``_config.yml`` selects it with
``bibtex_default_style``.
"""
from __future__ import annotations

import re
from collections import Counter

from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle


def _surname(person):
    # BibTeX protects capitals with braces ({S}ejnowski); the label shows plain text.
    return re.sub(r"[{}\\]", "", " ".join(person.prelast_names + person.last_names))


def author_year_label(entry):
    """``"Hinton and Sejnowski, 1983"`` for one entry (authors, or editors if it has none)."""
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [_surname(p) for p in people]
    if not names:
        who = entry.fields.get("organization", entry.key)
    elif len(names) == 1:
        who = names[0]
    elif len(names) == 2:
        who = f"{names[0]} and {names[1]}"
    else:
        who = f"{names[0]} et al."
    return f"{who}, {entry.fields.get('year', 'n.d.')}"


class AuthorYearLabels(BaseLabelStyle):
    def format_labels(self, sorted_entries):
        entries = list(sorted_entries)
        labels = [author_year_label(e) for e in entries]
        counts, seen = Counter(labels), Counter()
        for label in labels:
            if counts[label] > 1:  # "Hinton, 1989a", "Hinton, 1989b" in list order
                seen[label] += 1
                yield label + "abcdefghijklmnopqrstuvwxyz"[seen[label] - 1]
            else:
                yield label


class AuthorYearStyle(UnsrtStyle):
    default_label_style = "author_year"
    default_sorting_style = "author_year_title"


def setup(app):
    register_plugin("pybtex.style.labels", "author_year", AuthorYearLabels)
    register_plugin("pybtex.style.formatting", "author_year", AuthorYearStyle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
