"""The whole book as one PDF, printed by Chromium from the built HTML.

Usage:  python tools/book_pdf.py [HTML]      (HTML: the built book, default _build/html)

Run it after the build command. It writes ``HTML/boltzmann-machines-live.pdf``,
which the preface links to. No TeX and nothing downloaded: the pages are the
built HTML, MathJax typesets the math from the book's own copy, and Debian's
Chromium prints (through Playwright, as in the browser tests).

How the PDF is made:

1. One HTML document, ``HTML/book/_print.html``, holds the preface, every
   chapter in the order of ``_toc.yml``, the page for teachers, the notation and
   the bibliography (not the API reference, which is long and lives online).
   Each page's article is copied with its ids prefixed by the page's name, so
   that links between pages become links inside the document. Each chapter's
   solutions move from their folded boxes to the chapter's end, open. The
   navigation, buttons and heading anchors are left out. Each figure's
   description (its folded "figure in words" box) is printed open.
2. Print CSS starts every page of the book on a new sheet and keeps figures,
   code cells, tables and boxes from being split across sheets.
3. Chromium prints it twice from the same loaded page (MathJax typesets once).
   The first print is read back (with pypdf) to see on which sheet each page
   of the book starts, by following the links of the table of contents; the
   numbers are then written into the table, and the second print carries them.
   The numbers in the table are the sheet numbers printed at the bottom.

If Chromium is not installed it says so and writes nothing (exit status 0,
so that the build command still builds the HTML book).
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PDF_NAME = "boltzmann-machines-live.pdf"
TITLE = "Boltzmann Machines, Live"
# Pages of the book left out of the PDF (the API reference: long, generated from docstrings, read online).
LEFT_OUT = {"book/api"}
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PRINT_CSS = """
@page { size: A4; margin: 16mm 15mm 18mm 15mm; }
html, body { background: white !important; }
body { font-size: 10.5pt; }
.print-page { break-before: page; }
.print-title { text-align: center; padding-top: 35vh; }
.print-title h1 { font-size: 28pt; }
.print-toc ol { list-style: none; padding-left: 0; }
.print-toc li { display: flex; margin: 0.35em 0; }
.print-toc li a { color: inherit; text-decoration: none; }
.print-toc li .dots { flex: 1; border-bottom: 1px dotted #888; margin: 0 0.4em 0.3em; }
.print-toc li .sheet { min-width: 2.5em; text-align: right; font-variant-numeric: tabular-nums; }
figure, img, pre, table, .cell, .cell_output, .admonition, .math-wrapper, .highlight { break-inside: avoid; }
h1, h2, h3 { break-after: avoid; }
.bd-article { padding: 0 !important; }
.solution.admonition { display: block !important; }
a { color: #1a4f8b; }
"""


def pages_in_order(root=ROOT):
    """The book's pages (docnames such as ``book/energy``) in the order of ``_toc.yml``, minus LEFT_OUT."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    pages = [toc["root"]]
    for part in toc.get("parts", []):
        pages += [entry["file"] for entry in part.get("chapters", [])]
    return [p for p in pages if p not in LEFT_OUT]


def _slug(docname):
    return Path(docname).name


def _article(html_dir, docname, known):
    """The page's article as a BeautifulSoup tag, ids prefixed and links made internal; and its title."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((html_dir / f"{docname}.html").read_text(), "html.parser")
    article = soup.find("article", class_="bd-article")
    slug = _slug(docname)
    for junk in article.select("a.headerlink, button, script, .toggle-hidden-hint, .copybtn"):
        junk.decompose()
    for tag in article.find_all(id=True):
        tag["id"] = f"{slug}--{tag['id']}"
    for link in article.find_all("a", href=True):
        href = link["href"]
        page, _, fragment = href.partition("#")
        if not page:
            link["href"] = f"#{slug}--{fragment}"
        elif page.endswith(".html") and "/" not in page and f"book/{page[:-5]}" in known:
            target = page[:-5]
            link["href"] = f"#{target}--{fragment}" if fragment else f"#{target}--page"
    # Each figure's words (bmlib's description of it) printed open under the figure: on paper
    # nothing unfolds, and the PDF's figure carries only the summary, as its /Alt (from the alt).
    for box in article.select("details.bm-figure-words"):
        box["open"] = ""
    # Solutions: out of their folded boxes, to the end of the chapter, open.
    solutions = [box.extract() for box in article.select("div.solution")]
    if solutions:
        section = soup.new_tag("section", attrs={"class": "print-solutions", "id": f"{slug}--solutions"})
        heading = soup.new_tag("h2")
        heading.string = "Solutions"
        section.append(heading)
        for box in solutions:
            box["class"] = [c for c in box.get("class", []) if c != "dropdown"]
            section.append(box)
        article.append(section)
    title = article.find("h1").get_text(" ", strip=True)
    return article, title, soup


def combined_html(html_dir, pages):
    """The whole book as one HTML document (a string), its table of contents numbered 000 for now."""
    from bs4 import BeautifulSoup

    known = set(pages)
    articles = [(_slug(p), *_article(html_dir, p, known)) for p in pages]
    head = articles[0][3].head
    style = articles[0][3].new_tag("style")
    style.string = PRINT_CSS
    head.append(style)
    toc_rows = []
    for slug, _, title, _ in articles:
        number = "000"  # replaced after the first print; wide enough for any number, so no line moves
        toc_rows.append(f'<li><a href="#{slug}--page">{title}</a><span class="dots"></span>'
                        f'<a class="sheet" href="#{slug}--page">{number}</a></li>')
    body = [f'<section class="print-title"><h1>{TITLE}</h1><p>A course book on Boltzmann machines that runs '
            f"live, with its companion library bmlib.</p></section>",
            '<section class="print-page print-toc"><h1>Contents</h1><ol>' + "".join(toc_rows) + "</ol></section>"]
    for slug, article, _, _ in articles:
        body.append(f'<section class="print-page" id="{slug}--page"><div class="bd-article">'
                    f"{article.decode_contents()}</div></section>")
    document = BeautifulSoup("<!DOCTYPE html><html><head></head><body></body></html>", "html.parser")
    document.head.replace_with(head)
    # A plain <main>: the theme's containers size themselves to the window and would clip the print.
    document.body.append(BeautifulSoup("<main class='print-book'>" + "".join(body) + "</main>", "html.parser"))
    return str(document)


def chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _open(browser, html_file):
    """The combined document loaded in a page, its math typeset."""
    page = browser.new_page()
    page.goto(html_file.resolve().as_uri(), wait_until="load")
    # MathJax typesets after load; print only once it has finished.
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=60_000)
    page.evaluate("() => MathJax.startup.promise")
    page.emulate_media(media="print")
    return page


def _print(page, pdf_file):
    page.pdf(path=str(pdf_file), format="A4", print_background=True, outline=True, tagged=True,
             display_header_footer=True, header_template="<span></span>",
             footer_template='<div style="font-size:8pt;width:100%;text-align:center;color:#555">'
                             '<span class="pageNumber"></span></div>',
             margin={"top": "16mm", "bottom": "18mm", "left": "15mm", "right": "15mm"})


def first_sheets(pdf_file, pages):
    """{docname: 1-based sheet} where each page of the book starts, read from the table's links."""
    from pypdf import PdfReader

    reader = PdfReader(str(pdf_file))
    index = {page.indirect_reference.idnum: k for k, page in enumerate(reader.pages)}
    targets = []
    for number, page in enumerate(reader.pages):
        if targets and number + 1 >= targets[0]:
            break  # past the table of contents: the first page it lists has begun
        for annotation in page.get("/Annots") or []:
            annotation = annotation.get_object()
            if annotation.get("/Subtype") != "/Link":
                continue
            destination = annotation.get("/Dest")
            if destination is None and "/A" in annotation:
                destination = annotation["/A"].get("/D")
            if isinstance(destination, str) or hasattr(destination, "original_bytes"):
                destination = reader.named_destinations[str(destination)].page
            else:
                destination = destination[0]
            targets.append(index[destination.get_object().indirect_reference.idnum] + 1)
    # Two links per row (the title and the number), in the table's order.
    sheets = targets[0::2]
    if len(sheets) != len(pages):
        raise RuntimeError(f"found {len(sheets)} contents links for {len(pages)} pages in {pdf_file}")
    return dict(zip(pages, sheets))


def book_pdf(html_dir):
    """Write ``html_dir/PDF_NAME``; return its path."""
    from playwright import sync_api

    html_dir = Path(html_dir)
    pages = pages_in_order()
    print_file = html_dir / "book" / "_print.html"
    target = html_dir / PDF_NAME
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
        print_file.write_text(combined_html(html_dir, pages))
        page = _open(browser, print_file)
        _print(page, target)
        sheets = first_sheets(target, pages)
        # The numbers go into the loaded page (the math stays typeset), and it is printed again.
        page.evaluate("numbers => document.querySelectorAll('.print-toc a.sheet')"
                      ".forEach((a, k) => { a.textContent = numbers[k]; })", [str(sheets[d]) for d in pages])
        _print(page, target)
        browser.close()
    print_file.unlink()  # a means to the PDF, not a page of the site
    if first_sheets(target, pages) != sheets:
        raise RuntimeError("the table of contents moved the pages it numbers; the PDF's numbers would be wrong")
    return target


if __name__ == "__main__":
    if chromium() is None:
        # The build command runs this too: without a browser the HTML book is still built, without its PDF.
        print("book_pdf: Chromium is not installed (Debian: apt-get install chromium); no PDF written")
        sys.exit(0)
    html = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "_build" / "html"
    if not (html / "book").is_dir():
        sys.exit(f"book_pdf: {html} holds no built book; run the README's build command first")
    out = book_pdf(html)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")
