"""Write the citations of chapters as links a notebook reader can read.

Usage:  python tools/readable_citations.py book/energy.ipynb [more.ipynb or .md ...]

Turns every ``{cite}`key``` and ``{cite:t}`key``` role in the Markdown of the
given chapters into ``[(Author, year)](references.bib#key)`` or
``[Author (year)](references.bib#key)``, the text taken from
``book/references.bib``, and rewrites the text of existing citation links that
no longer match it. The book build turns these links back into the same
roles (``book/_ext/readable_citations.py`` explains why), so write a citation
either way and run this before committing; ``tests/test_book.py`` checks that
no role is left and that every link's text matches the bibliography.
"""
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from readable_citations import BIB_NAME, links_to_roles, read_bib, roles_to_links  # noqa: E402


def readable(markdown, entries):
    # Through the roles and back: new roles become links, stale link texts are redone.
    return roles_to_links(links_to_roles(markdown, entries, []), entries)


def rewrite(path, entries):
    path = Path(path)
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
        changed = False
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                new = readable(cell.source, entries)
                changed |= new != cell.source
                cell.source = new
        if changed:
            nbformat.write(nb, path)
    else:
        text = path.read_text()
        new = readable(text, entries)
        changed = new != text
        if changed:
            path.write_text(new)
    print(f"{'rewrote' if changed else 'unchanged'} {path}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    entries = read_bib(ROOT / "book" / BIB_NAME)
    for name in sys.argv[1:]:
        rewrite(name, entries)
