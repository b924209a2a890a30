"""Every built page checked with axe-core for WCAG 2.1 A and AA, and every image's text alternative.

axe-core (the engine behind Lighthouse's and Deque's accessibility audits,
bundled for Playwright by the ``axe-playwright-python`` package) runs in
headless Chromium on each page of the book, offline, with the WCAG 2.0/2.1
A and AA rules, axe's best practices and its experimental rules. A page fails on any finding of
impact "serious" or "critical"; findings of lower impact are written, with
the serious ones, to ``_build/accessibility.json`` (rule, impact, count per
page) so that the counts can be followed from build to build.

An image passes only with a text alternative a person can use: not empty,
and not a file name (myst-nb's default, a hash a screen reader would read
out). In the chapters every figure's ``alt`` is the summary bmlib wrote from
its data (``bmlib/plotting/words.py``); ``tests/test_book.py`` checks the
stored outputs, this checks what reaches the page.

The book's own fixes for what its theme gets wrong are in
``book/_static/accessibility.js`` and ``book/_static/book.css``; the
reasons are there.
"""
import json
import re
from collections import Counter

import pytest

from test_browser import CHROMIUM, PAGES, ROOT, browser, open_offline, site  # noqa: F401  (fixtures)

axe_playwright = pytest.importorskip(
    "axe_playwright_python.sync_playwright",
    reason="the accessibility tests need axe-playwright-python (pip install -r requirements.txt)",
)
pytestmark = [
    pytest.mark.build,
    pytest.mark.skipif(CHROMIUM is None, reason="the accessibility tests need Chromium at /usr/bin/chromium"),
]

#: The rule sets run: WCAG 2.0 and 2.1, levels A and AA, axe's best practices, and its experimental rules
#: (label-content-name-mismatch, WCAG 2.5.3, is one: it found the theme's mislabelled buttons).
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice", "experimental"]
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": AXE_TAGS}, "resultTypes": ["violations"]}
#: Impacts that fail the page.
FAILING = {"serious", "critical"}
#: Rules left out of the failing count because the fault is upstream and cannot be fixed in the
#: book's own templates or CSS: {rule id: reason, with the upstream report}. Empty today.
UPSTREAM_ONLY = {}

REPORT = ROOT / "_build" / "accessibility.json"
_FILE_NAME = re.compile(r"(^|/)[^/\s]+\.(png|jpe?g|gif|svg|webp)$", re.IGNORECASE)

_found = {}
_CHAPTER_PAGES = [p.relative_to(ROOT).with_suffix(".html").as_posix() for p in sorted((ROOT / "book").glob("*.ipynb"))]


@pytest.fixture(scope="module")
def axe():
    return axe_playwright.Axe()


@pytest.fixture(scope="module", autouse=True)
def _write_report():
    yield
    if _found:
        REPORT.parent.mkdir(parents=True, exist_ok=True)
        totals = Counter()
        for rules in _found.values():
            for rule, (impact, nodes) in rules.items():
                totals[f"{rule} ({impact})"] += nodes
        REPORT.write_text(json.dumps({"pages": _found, "totals": dict(sorted(totals.items()))}, indent=1))


@pytest.mark.parametrize("path", PAGES)
def test_no_serious_or_critical_axe_finding(browser, site, axe, path):  # noqa: F811
    page, _ = open_offline(browser, site, path)
    try:
        results = axe.run(page, options=AXE_OPTIONS).response
    finally:
        page.close()
    violations = results["violations"]
    _found[path] = {v["id"]: (v["impact"], len(v["nodes"])) for v in violations}
    failing = [v for v in violations if v["impact"] in FAILING and v["id"] not in UPSTREAM_ONLY]
    lines = [f"{v['id']} ({v['impact']}, {len(v['nodes'])} elements): {v['help']}; "
             f"first: {v['nodes'][0]['target']} {v['nodes'][0].get('failureSummary', '')[:200]}"
             for v in failing]
    assert failing == [], f"{path}:\n" + "\n".join(lines)


@pytest.mark.parametrize("path", PAGES)
def test_every_image_has_a_text_alternative(browser, site, path):  # noqa: F811
    page, _ = open_offline(browser, site, path)
    try:
        images = page.evaluate("() => [...document.querySelectorAll('article img')].map(i => "
                               "[i.getAttribute('src'), i.getAttribute('alt')])")
    finally:
        page.close()
    bad = [(src, alt) for src, alt in images
           if not alt or not alt.strip() or _FILE_NAME.search(alt.strip()) or alt.strip() == src]
    assert bad == [], f"{len(bad)} of {len(images)} images without a usable alt on {path}: {bad[:3]}"
    if path in _CHAPTER_PAGES:
        assert images, f"{path} is a chapter with figures, but no image was found"


@pytest.mark.parametrize("path", _CHAPTER_PAGES)
def test_figure_words_are_on_the_page_and_unfold(browser, site, path):  # noqa: F811
    """Under each figure, its whole description in a folded box a keyboard can open."""
    nb = json.loads((ROOT / path).with_suffix(".ipynb").read_text())
    stored = [o["data"]["text/html"] for c in nb["cells"] if c["cell_type"] == "code" for o in c["outputs"]
              if "bm-figure-words" in "".join(o.get("data", {}).get("text/html", ""))]
    page, _ = open_offline(browser, site, path)
    try:
        boxes = page.locator("details.bm-figure-words")
        assert boxes.count() == len(stored) > 0, f"{len(stored)} descriptions stored, {boxes.count()} on the page"
        first = boxes.first.locator("summary")
        first.focus()
        page.keyboard.press("Enter")
        assert boxes.first.evaluate("d => d.open"), "Enter on the summary did not open the description"
        assert boxes.first.locator("p").inner_text().strip(), "the opened description is empty"
    finally:
        page.close()
