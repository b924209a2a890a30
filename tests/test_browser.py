"""Open every built page in headless Chromium, offline, as a reader would.

Fails on: a JavaScript error or console error, math left as raw TeX, a
chapter whose stored figures (widgets included) are missing from the page, a
broken internal link or image, a request for anything not served by the
book itself, and a search that finds nothing for a word the book uses.
Screenshots of two pages are saved in _build/screenshots/ for people to
look at.

Needs Debian's `chromium` (/usr/bin/chromium) and the `playwright` Python
package; without them these tests are skipped with a message saying so.
"""
import functools
import http.server
import json
import shutil
import threading
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pytest

from test_book import NOTEBOOKS, ROOT, toc_files

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="the browser tests need the playwright package (pip install -r requirements.txt)"
)
pytestmark = [
    pytest.mark.build,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="the browser tests need Chromium at /usr/bin/chromium (Debian: apt-get install chromium); skipped",
    ),
]

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def watch_offline(page, local):
    """Refuse every request whose URL does not start with ``local`` (a prefix or a tuple of
    prefixes) and collect refused requests, console errors and page errors; return that list."""
    problems = []

    def route(r):
        if r.request.url.startswith(local):
            r.continue_()
        else:
            problems.append(f"remote request ({r.request.resource_type}): {r.request.url}")
            r.abort()

    page.route("**/*", route)
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    return problems
SCREENSHOTS = ROOT / "_build" / "screenshots"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site(built_book):
    if built_book["returncode"] != 0:
        pytest.fail("the book did not build; see test_book_builds_with_warnings_as_errors")
    handler = functools.partial(QuietHandler, directory=str(built_book["html"]))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    # Playwright starts Chromium headless with a fresh temporary profile.
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def open_offline(browser, site, path):
    """Load a page with every request outside the book's own server refused.

    Returns the page, the problems seen (console errors, page errors,
    refused remote requests, failed requests) as a list of strings.
    """
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems = watch_offline(page, site)
    page.on("requestfailed", lambda r: problems.append(f"failed request: {r.url}") if r.url.startswith(site) else None)
    page.goto(urljoin(site, path), wait_until="load")
    # Wait until MathJax has typeset the page (pages without math have no MathJax).
    try:
        page.wait_for_function(
            "() => !window.MathJax || (window.MathJax.startup && window.MathJax.startup.promise)", timeout=10_000
        )
        page.evaluate("() => window.MathJax && window.MathJax.startup.promise")
    except sync_api.TimeoutError:
        problems.append("MathJax did not start within 10 s (did its script fail to load?)")
    return page, problems


PAGES = [entry + ".html" for entry in toc_files()]


@pytest.mark.parametrize("path", PAGES)
def test_page_reads_offline_without_errors(browser, site, path):
    page, problems = open_offline(browser, site, path)
    try:
        assert problems == [], "\n".join(problems)
        # Math: every math element typeset by MathJax, no raw TeX delimiters left.
        raw = page.evaluate(
            """() => [...document.querySelectorAll('.math')]
                   .filter(e => !e.querySelector('mjx-container'))
                   .map(e => e.textContent.slice(0, 60))"""
        )
        assert raw == [], f"math left as raw TeX: {raw[:5]}"
        text = page.inner_text("article")
        assert "$$" not in text and "\\(" not in text, "raw TeX delimiters in the page text"
        # Images: every one loaded.
        broken = page.evaluate(
            "() => [...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)"
        )
        assert broken == [], f"broken images: {broken}"
        # Internal links: each target exists, and each #fragment names an element there.
        links = page.evaluate("() => [...document.querySelectorAll('a[href]')].map(a => a.href)")
        for link in sorted(set(links)):
            if not link.startswith(site):
                continue
            target, fragment = urldefrag(link)
            response = page.request.get(target)
            assert response.ok, f"broken link {link} (HTTP {response.status})"
            if fragment and target.endswith(".html"):
                html = response.text()
                assert f'id="{fragment}"' in html, f"link {link}: no element with id {fragment!r}"
    finally:
        page.close()


#: What may stick out of its box: the content column itself, code and output blocks, display
#: math, tables. Inline elements have no width of their own to overflow.
_OVERFLOW_JS = """() => {
  const article = document.querySelector('article');
  const boxes = [article, ...article.querySelectorAll(
      'pre, .cell_output, mjx-container[display="true"], table, .admonition, .highlight')];
  return boxes.filter(e => e.scrollWidth > e.clientWidth + 1)
              .map(e => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} overflows by `
                        + `${e.scrollWidth - e.clientWidth} px: ${e.textContent.trim().slice(0, 70)}`);
}"""


@pytest.mark.parametrize("path", PAGES)
def test_nothing_overflows_the_column(browser, site, path):
    """No code, output, math or table wider than the text column (nothing scrolls sideways).

    And every figure is shown at least as wide as bmlib assumes when it checks
    that figure text is 9 px or more (``bmlib.plotting.fit.COLUMN_PX``): a
    narrower column would shrink the text below that.
    """
    from bmlib.plotting.fit import COLUMN_PX

    page, _ = open_offline(browser, site, path)
    try:
        overflowing = page.evaluate(_OVERFLOW_JS)
        assert overflowing == [], "\n".join(overflowing[:10])
        shrunk = page.evaluate(
            """(column) => [...document.querySelectorAll('article .cell_output img')]
                 .map(i => [i.naturalWidth, i.getBoundingClientRect().width, i.src.slice(-40)])
                 .filter(([natural, shown]) => shown < Math.min(natural, column) - 1)""",
            COLUMN_PX,
        )
        assert shrunk == [], f"figures shown narrower than min(own width, {COLUMN_PX} px): {shrunk[:5]}"
    finally:
        page.close()


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_every_stored_figure_and_widget_is_on_the_page(browser, site, notebook):
    nb = json.loads(notebook.read_text())
    figures = sum(
        1 for c in nb["cells"] if c["cell_type"] == "code" for o in c["outputs"] if "image/png" in o.get("data", {})
    )
    widgets = sum(
        1
        for c in nb["cells"]
        if c["cell_type"] == "code"
        for o in c["outputs"]
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    )
    assert widgets >= 1, "every chapter has at least one widget"
    path = notebook.relative_to(ROOT).with_suffix(".html").as_posix()
    page, problems = open_offline(browser, site, path)
    try:
        shown = page.evaluate(
            "() => [...document.querySelectorAll('.cell_output img')].filter(i => i.naturalWidth > 0).length"
        )
        assert shown == figures, f"{figures} stored figures ({widgets} of them widgets) but {shown} on the page"
        # The page offers its notebook for download, and the file is the chapter.
        hrefs = page.evaluate("() => [...document.querySelectorAll('a[href$=\".ipynb\"]')].map(a => a.href)")
        assert hrefs, "no download link for the chapter's notebook"
        download = page.request.get(hrefs[0])
        assert download.ok and json.loads(download.text())["cells"] == nb["cells"]
        # And its students' copy: the exercises without their solutions.
        copies = [h for h in hrefs if "/_students/" in h]
        assert len(copies) == 1, f"no single download of the students' copy among {hrefs}"
        copy = page.request.get(copies[0])
        assert copy.ok, f"students' copy {copies[0]}: HTTP {copy.status}"
        markdown = "\n".join("".join(c["source"]) for c in json.loads(copy.text())["cells"] if c["cell_type"] == "markdown")
        assert "{solution}" not in markdown and markdown.count("{exercise}") >= 3
        assert problems == [], "\n".join(problems)
    finally:
        page.close()


def test_search_finds_words_from_the_book(browser, site):
    for word in ("Hebbian", "partition"):
        page, problems = open_offline(browser, site, f"search.html?q={word}")
        try:
            page.wait_for_selector("#search-results ul.search li", timeout=15000)
            hits = page.evaluate("() => document.querySelectorAll('#search-results ul.search li').length")
            assert hits > 0, f"search for {word!r} found nothing"
            assert problems == [], "\n".join(problems)
        finally:
            page.close()


def test_screenshots_for_people(browser, site):
    """The preface, and the Energy chapter scrolled to its widget's static figure."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    energy = json.loads((ROOT / "book" / "energy.ipynb").read_text())
    images = [o["data"] for c in energy["cells"] if c["cell_type"] == "code" for o in c["outputs"]
              if "image/png" in o.get("data", {})]
    widget = next(k for k, data in enumerate(images) if "application/vnd.jupyter.widget-view+json" in data)
    for path, name, figure in (("book/preface.html", "preface.png", None), ("book/energy.html", "energy-widget.png", widget)):
        page, _ = open_offline(browser, site, path)
        try:
            if figure is not None:
                page.locator(".cell_output img").nth(figure).scroll_into_view_if_needed()
            page.screenshot(path=str(SCREENSHOTS / name), full_page=False)
        finally:
            page.close()
        assert (SCREENSHOTS / name).stat().st_size > 10_000, f"screenshot {name} looks empty"


def test_no_remote_script_or_stylesheet_in_any_built_page(built_book):
    """Static check of every built HTML file: reading needs nothing from the network."""
    import re

    offenders = []
    for html in Path(built_book["html"]).rglob("*.html"):
        text = html.read_text(errors="replace")
        for tag in re.findall(r"<(?:script|link)\b[^>]*>", text):
            url = re.search(r'(?:src|href)="([^"]+)"', tag)
            if url and urlparse(url.group(1)).scheme in ("http", "https") and "stylesheet" in tag + "script":
                offenders.append(f"{html.name}: {tag[:120]}")
    assert offenders == [], "\n".join(offenders[:20])
