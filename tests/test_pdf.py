"""The whole book as one PDF (tools/book_pdf.py), printed by Chromium from the built HTML, read back.

The PDF is made with the book the tests build (tests/conftest.py), then checked page by page
with pypdf: a sane number of sheets; each page of the book starting, with its
title, on the sheet the table of contents gives; no TeX left untypeset; every
image of the HTML pages in it, tagged as a figure with its words as /Alt; every solution, at the end of its chapter;
internal links that land on a sheet; none of the site's navigation.
Skipped without Chromium, like the browser tests.
"""
import re
import sys
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import book_pdf  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(book_pdf.chromium() is None,
                       reason="Chromium is not installed (Debian: apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def pdf(built_book):
    if built_book["returncode"] != 0:
        pytest.fail("the book did not build; see test_book_builds_with_warnings_as_errors")
    from pypdf import PdfReader

    made = built_book["pdf"]  # made with the book, as the README's book command makes it
    assert made["returncode"] == 0, made["log"]
    path = built_book["html"] / book_pdf.PDF_NAME
    reader = PdfReader(str(path))
    # NFKC undoes the font's typographic ligatures ("fl" printed as one glyph, U+FB02), which a
    # reader's eye, and a search in the PDF viewer, reads as two letters.
    return {"path": path, "reader": reader, "html": built_book["html"],
            "text": [" ".join(unicodedata.normalize("NFKC", page.extract_text()).split()) for page in reader.pages]}


def _articles(html):
    from bs4 import BeautifulSoup

    for docname in book_pdf.pages_in_order():
        soup = BeautifulSoup((html / f"{docname}.html").read_text(), "html.parser")
        yield docname, soup.find("article", class_="bd-article")


def test_the_pdf_has_a_sane_size(pdf):
    sheets = len(pdf["reader"].pages)
    assert 120 <= sheets <= 400, sheets
    assert pdf["path"].stat().st_size < 40e6


def test_every_page_of_the_book_starts_with_its_title_where_the_contents_say(pdf):
    sheets = book_pdf.first_sheets(pdf["path"], book_pdf.pages_in_order())
    assert list(sheets.values()) == sorted(sheets.values())
    for docname, article in _articles(pdf["html"]):
        for anchor in article.select("a.headerlink"):
            anchor.decompose()
        title = " ".join(article.find("h1").get_text(" ", strip=True).split())
        first = pdf["text"][sheets[docname] - 1]
        # (Text order on a sheet follows layout: the bibliography's labels come out before its title.)
        assert title in first, f"{docname}: sheet {sheets[docname]} has {first[:80]!r}"
        assert f"{title} {sheets[docname]}" in pdf["text"][1], f"{docname} is not in the contents with its sheet"


def test_no_tex_survives(pdf):
    text = " ".join(pdf["text"])
    for raw in ("$$", "\\frac", "\\(", "\\[", "\\begin", "\\sum", "\\mathbb", "\\langle"):
        assert raw not in text, f"untypeset TeX {raw!r} in the PDF"


def test_every_image_of_the_html_is_in_the_pdf(pdf):
    in_html = sum(len(article.find_all("img")) for _, article in _articles(pdf["html"]))
    in_pdf = sum(len(page.images) for page in pdf["reader"].pages)
    assert in_html >= 40
    assert in_pdf == in_html


def _figures_with_alt(reader):
    """The ``/Alt`` of every ``/Figure`` element in the PDF's structure tree (its tags), in order."""
    found, stack, seen = [], [reader.trailer["/Root"]["/StructTreeRoot"]], set()
    while stack:
        node = stack.pop()
        if hasattr(node, "get_object"):
            if id(node.get_object()) in seen:
                continue
            node = node.get_object()
            seen.add(id(node))
        if isinstance(node, list):
            stack.extend(reversed(node))
            continue
        if not hasattr(node, "get"):
            continue  # a marked-content number
        if node.get("/S") == "/Figure":
            found.append(str(node.get("/Alt", "")))
        kids = node.get("/K")
        if kids is not None:
            stack.append(kids)
    return found


def test_the_pdf_is_tagged_and_every_figure_has_its_words(pdf):
    """Tagged PDF (PDF/UA's start): each image is a /Figure with bmlib's summary as its /Alt."""
    reader = pdf["reader"]
    assert reader.trailer["/Root"].get("/MarkInfo", {}).get("/Marked"), "the PDF is not tagged"
    alts = _figures_with_alt(reader)
    in_html = [img.get("alt", "") for _, article in _articles(pdf["html"]) for img in article.find_all("img")]
    assert len(alts) >= len(in_html) >= 40, f"{len(alts)} tagged figures for {len(in_html)} images"
    empty = [a for a in alts if not a.strip() or re.search(r"\.(png|jpe?g|svg)$", a.strip())]
    assert empty == [], f"{len(empty)} figures without words: {empty[:3]}"
    missing = [a[:60] for a in in_html if " ".join(a.split()) not in {" ".join(x.split()) for x in alts}]
    assert missing == [], f"images whose alt did not reach the PDF: {missing[:3]}"


def test_solutions_are_open_at_the_end_of_their_chapters(pdf):
    sheets = book_pdf.first_sheets(pdf["path"], book_pdf.pages_in_order())
    order = list(sheets)
    for docname, article in _articles(pdf["html"]):
        solutions = len(article.select("div.solution"))
        if not solutions:
            continue
        start = sheets[docname] - 1
        end = sheets[order[order.index(docname) + 1]] - 1 if docname != order[-1] else len(pdf["text"])
        chapter = pdf["text"][start:end]
        # The sheet with the chapter's "Solutions" heading, then every solution, none beside its exercise.
        heading = next((k for k, text in enumerate(chapter) if re.search(r"(^| )Solutions ", text)), None)
        assert heading is not None, f"{docname}: no solutions section"
        assert sum(text.count("Solution to") for text in chapter[heading:]) == solutions, docname
        assert not any("Solution to" in text for text in chapter[:heading]), docname


def test_internal_links_land_on_a_sheet_and_no_navigation_is_printed(pdf):
    reader = pdf["reader"]
    internal = 0
    for page in reader.pages:
        for annotation in page.get("/Annots") or []:
            annotation = annotation.get_object()
            if annotation.get("/Subtype") == "/Link" and "/Dest" in annotation:
                destination = reader.named_destinations.get(str(annotation["/Dest"]))
                assert destination is not None, f"a link to {annotation['/Dest']} that goes nowhere"
                reader.get_destination_page_number(destination)
                internal += 1
    assert internal > 100
    text = " ".join(pdf["text"])
    for chrome in ("Skip to main content", "Ctrl+K", "Back to top", "previous next"):
        assert chrome not in text, f"navigation printed: {chrome!r}"


def test_the_home_page_offers_the_pdf(pdf):
    from bs4 import BeautifulSoup

    home = pdf["html"] / "book" / "preface.html"
    links = [a["href"] for a in BeautifulSoup(home.read_text(), "html.parser").find_all("a", href=True)
             if a["href"].endswith(book_pdf.PDF_NAME)]
    assert links, "the preface has no link to the PDF"
    assert all((home.parent / href).resolve() == pdf["path"].resolve() for href in links)
