"""Every chapter as a student runs it: JupyterLab, in headless Chromium.

JupyterLab is started the way the README's lab command starts it
(``tools/lab.py`` in this environment, with the extensions
requirements-lab.txt installs), on a free port of 127.0.0.1 with a token of
the test's own, serving a copy of the chapters so that nothing in book/ is
touched. Each chapter is opened, checked as rendered, run with "Run All",
its widgets moved, saved, closed, and reopened with a fresh kernel.

The outputs "Run All" leaves are compared with the chapter's stored ones, by
nbval's rules (pictures too where this machine draws them byte for byte, as
tests/conftest.py decides for nbval): this run is the chapters' re-execution in
this environment, so CI need not run them under nbval here a second time.
tests/test_any_machine.py re-executes them once more under nbval, with floating
point perturbed.

Fails on: a chapter that opens already modified (metadata JupyterLab rewrites),
an output that differs from the stored one, an error output, a raw MyST directive or role, raw ``$...$`` or a citation
JupyterLab cannot resolve in a rendered Markdown cell, a solution visible
before it is clicked, a widget button whose label is cut, a widget that does
not redraw after a slider step, a saved notebook without widget state or
missing the state of a model it refers to, a widget cell without a figure after
save and reopen, and a JavaScript error in the console. (One known race of
ipywidgets' JupyterLab manager can leave a reopened widget "model not found"
on a loaded machine although its state was saved: then the chapter is reopened
once more, which must show every figure, and the report says so.) Screenshots of the Energy chapter go to _build/screenshots/; the
run-all time of each chapter and the slider-step redraw latency of each widget
are printed at the end of the run (and written next to the screenshots): the
median of three slider steps, from the key press to the new picture loaded.
Timings are measured, never asserted.

Needs Debian's `chromium`, the `playwright` package and JupyterLab with
jupyterlab-myst (``pip install -r requirements.txt`` installs both); without
them the tests are skipped with a message saying so.
"""
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import _fingerprint, record_timing
from test_book import NOTEBOOKS, ROOT, store_outputs
from test_browser import CHROMIUM, CHROMIUM_ARGS, SCREENSHOTS, sync_api, watch_offline

pytest.importorskip("jupyterlab", reason="the JupyterLab test needs JupyterLab (pip install -r requirements.txt)")
pytest.importorskip("jupyterlab_myst", reason="the JupyterLab test needs jupyterlab-myst (pip install -r requirements.txt)")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="the JupyterLab test needs Chromium at /usr/bin/chromium (Debian: apt-get install chromium); skipped",
    ),
]

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
SCREENSHOT_CHAPTER = "energy.ipynb"
RUN_ALL_TIMEOUT = 300_000  # ms: a generous bound for a loaded CI machine, not a performance limit
# A visible remnant of MyST source: a directive or role name in braces, a fence, a directive option.
RAW_MYST = re.compile(r"\{(?:exercise|solution|cite(?::\w+)?|numref|ref|eq|doc|admonition|note|math)\}|```|:::"
                      r"|:class:|:label:")
RAW_MATH = re.compile(r"\$[^$\s][^$]*\$|\$\$|\\\(|\\\[")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab from tools/lab.py on a copy of book/; yields (base URL, token, served folder)."""
    tmp = tmp_path_factory.mktemp("jupyterlab")
    served = tmp / "book"
    served.mkdir()
    for path in (ROOT / "book").iterdir():
        if path.suffix in (".ipynb", ".md", ".bib"):
            shutil.copy2(path, served / path.name)
    # Fresh per-user folders: no settings, workspace, trusted-notebook database or
    # runtime files of whoever runs the tests; what the environment presets still applies.
    env = dict(os.environ)
    for var, name in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                      ("JUPYTER_RUNTIME_DIR", "runtime"), ("JUPYTERLAB_SETTINGS_DIR", "settings"),
                      ("JUPYTERLAB_WORKSPACES_DIR", "workspaces")):
        env[var] = str(tmp / name)
    # The kernel imports the bmlib of this checkout, as nbval's kernels do.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    # The one setting of the test's own: attach every cell to the page. JupyterLab's default
    # draws off-screen cells only when they scroll into view, and the test inspects them all.
    tracker = tmp / "settings" / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    tracker.write_text(json.dumps({"windowingMode": "none"}))
    # And one extension left out: the debugger asks every new kernel for its state, and the test
    # shuts kernels down faster than a person would, before some have answered; the debugger then
    # logs "Could not restore the debugger state" to the console. The chapters never use it.
    page_config = tmp / "config" / "labconfig" / "page_config.json"
    page_config.parent.mkdir(parents=True)
    page_config.write_text(json.dumps({"disabledExtensions": {"@jupyterlab/debugger-extension": True}}))
    port, token = free_port(), secrets.token_hex(16)
    log = open(tmp / "jupyterlab.log", "w")
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tools" / "lab.py"), "--no-browser", f"--port={port}", "--ServerApp.port_retries=0",
         "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={served}",
         "--LabApp.expose_app_in_browser=True", "--allow-root"],
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if server.poll() is not None:
                pytest.fail(f"JupyterLab exited with {server.returncode}:\n{(tmp / 'jupyterlab.log').read_text()[-3000:]}")
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not answer within 120 s:\n{(tmp / 'jupyterlab.log').read_text()[-3000:]}")
                time.sleep(0.5)
        yield base, token, served
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="module")
def app(lab):
    """One Chromium page with JupyterLab loaded; yields (page, problems seen so far)."""
    base, token, _ = lab
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        problems = watch_offline(page, (base, "data:", "blob:"))
        page.goto(f"{base}/lab?token={token}", wait_until="load")
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.started", timeout=120_000)
        page.evaluate("() => window.jupyterapp.restored")
        yield page, problems
        browser.close()


# --- what runs in the page -------------------------------------------------

OPEN = """async (path) => {
  const app = window.jupyterapp;
  const panel = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
  await panel.context.ready;
  await panel.sessionContext.ready;
  app.shell.activateById(panel.id);
  window.__chapter = panel;
}"""
KERNEL_IDLE = """() => { const s = window.__chapter.sessionContext.session;
                         return !!(s && s.kernel && s.kernel.status === 'idle'); }"""
RENDERED = """() => { const cells = [...window.__chapter.node.querySelectorAll('.jp-MarkdownCell')];
                      return cells.length > 0 && cells.every(c => c.querySelector('.myst')); }"""
RUN_ALL = """() => { window.__ran = false;
  window.jupyterapp.commands.execute('notebook:run-all-cells').then(() => { window.__ran = true; }); }"""
# Run All has returned, every code cell has run and none is still running.
ALL_RUN = """() => { const p = window.__chapter;
  return window.__ran && p.sessionContext.session.kernel.status === 'idle'
    && [...p.content.model.cells].every(c => c.type !== 'code' || (c.executionCount !== null && c.executionState !== 'running')); }"""
# Text of each rendered Markdown cell, typeset math and code left out.
MARKDOWN_TEXT = """() => [...window.__chapter.node.querySelectorAll('.jp-MarkdownCell .myst')].map(m => {
  const copy = m.cloneNode(true);
  copy.querySelectorAll('.katex, pre, code').forEach(e => e.remove());
  return copy.textContent; })"""
MATH_STATS = """() => ({typeset: window.__chapter.node.querySelectorAll('.jp-MarkdownCell .katex').length,
                       failed: [...window.__chapter.node.querySelectorAll('.jp-MarkdownCell .katex-error')].map(e => e.textContent)})"""
UNRESOLVED = """() => [...window.__chapter.node.querySelectorAll('.jp-MarkdownCell [title]')]
  .filter(e => /not found|no label|unknown/i.test(e.title)).map(e => `${e.title}: ${e.textContent}`)"""
# The widget views in output areas: the outer box of each bmlib widget (boxes inside it left out).
WIDGETS = ("[...window.__chapter.node.querySelectorAll('.jp-OutputArea-output .widget-vbox')]"
           ".filter(v => !v.parentElement.closest('.widget-vbox'))")
# Each code cell with a widget output: does its output area show a loaded figure, and what text.
WIDGET_CELLS = f"""() => {{ const p = window.__chapter;
  return p.content.widgets.filter((cell, i) => cell.model.type === 'code'
      && cell.model.outputs.toJSON().some(o => o.data && o.data['{WIDGET_MIME}']))
    .map(cell => {{ const img = cell.outputArea.node.querySelector('img');
      return {{figure: !!(img && img.complete && img.naturalWidth > 0),
              text: cell.outputArea.node.textContent.trim().slice(0, 120)}}; }}); }}"""
CUT_BUTTONS = f"""() => {WIDGETS}.flatMap(v => [...v.querySelectorAll('button')])
  .filter(b => b.textContent.trim() && b.scrollWidth > b.clientWidth + 1).map(b => b.textContent)"""
# Watch widget k's picture: resolves with the ms from the key press reaching the page
# until the new picture has loaded (kernel round trip, drawing, PNG decode). The picture is
# looked up afresh on every check: JupyterLab may render an output's view again (a new <img>),
# and a listener on the old element would wait for a load that never comes. One CI run timed
# out that way after 30 s although redraws take well under a second.
WATCH = f"""(k) => {{ const before = {WIDGETS}[k].querySelector('img').src; let t0 = performance.now();
  document.addEventListener('keydown', () => {{ t0 = performance.now(); }}, {{once: true, capture: true}});
  window.__redraw = new Promise(resolve => {{
    const check = () => {{ const img = {WIDGETS}[k].querySelector('img');
      if (img && img.src !== before && img.complete && img.naturalWidth > 0) {{
        resolve(performance.now() - t0); return true; }}
      return false; }};
    const poll = () => {{ if (!check()) requestAnimationFrame(poll); }};
    requestAnimationFrame(poll); }}); }}"""
# Widget k's live description (bmlib/widgets/_base.py) and its picture's accessible name.
WIDGET_WORDS = f"""(k) => {{ const w = {WIDGETS}[k]; const p = w.querySelector('.bm-figure-words-live p');
  const img = w.querySelector('img');
  return {{text: p ? p.textContent : '', live: p ? p.getAttribute('aria-live') : null,
          tooltip: img ? (img.getAttribute('title') || img.getAttribute('alt') || '') : ''}}; }}"""
# Controls of widget k that a keyboard cannot reach or a screen reader cannot name: each slider
# handle, button and select needs tabindex >= 0 (or to be natively focusable) and a label,
# the widget's description (ipywidgets puts it in a label beside the control) or its own text.
UNLABELLED_CONTROLS = f"""(k) => {{ const w = {WIDGETS}[k];
  return [...w.querySelectorAll('.noUi-handle, button, select, input')].filter(c => {{
    if (c.offsetParent === null) return false;  // not shown
    const row = c.closest('.widget-inline-hbox, .jupyter-widgets');
    const label = (c.getAttribute('aria-label') || c.textContent.trim() || c.getAttribute('title')
                   || (row && row.querySelector('.widget-label') ? row.querySelector('.widget-label').textContent.trim() : ''));
    return !label || c.tabIndex < 0; }}).map(c => c.outerHTML.slice(0, 100)); }}"""
# Number the widget views, so that the test can point Playwright at each one.
MARK_WIDGETS = f"() => {WIDGETS}.forEach((v, k) => v.setAttribute('data-test-widget', k))"
SLIDER_RANGE = f"""(k) => {{ const h = {WIDGETS}[k].querySelector('.noUi-handle');
  return ['aria-valuenow', 'aria-valuemin', 'aria-valuemax'].map(a => Number(h.getAttribute(a))); }}"""


# What nbval leaves out of its comparison (nbval.plugin.IPyNbFile.skip_compare): bookkeeping, and
# widget views, whose model ids are random. Pictures are compared only where tests/conftest.py
# would have nbval compare them: on a machine with the fingerprint the chapter was stored with.
NOT_COMPARED = {"metadata", "traceback", "execution_count", "output_type", "transient", WIDGET_MIME}
PICTURES = {"image/png", "image/jpeg"}


def _text(value):
    return "".join(value) if isinstance(value, list) else value


def comparable(outputs, pictures):
    """A code cell's outputs as nbval compares them: each output key's values in order.

    Consecutive stream outputs of one name are joined first, as JupyterLab's output area and
    tools/store_outputs.py join them: only their text matters.
    """
    joined = store_outputs.joined_streams(outputs)
    values = {}
    for output in joined:
        for key, value in output.items():
            if key == "data":
                for mime, content in value.items():
                    if mime not in NOT_COMPARED and (pictures or mime not in PICTURES):
                        values.setdefault(mime, []).append(_text(content))
            elif key not in NOT_COMPARED:
                values.setdefault(key, []).append(_text(value))
    return values


def output_differences(stored, ran, pictures):
    """Where the run's code cells differ from the stored ones: one line per cell, at most five."""
    cells = [(c, r) for c, r in zip(stored["cells"], ran["cells"]) if c["cell_type"] == "code"]
    assert len(cells) == sum(c["cell_type"] == "code" for c in ran["cells"]), "the saved chapter has other cells"
    found = []
    for k, (cell, run) in enumerate(cells):
        want, got = comparable(cell["outputs"], pictures), comparable(run["outputs"], pictures)
        if want != got:
            key = next(key for key in sorted(set(want) | set(got)) if want.get(key) != got.get(key))
            show = (lambda v: f"{len(v)} outputs" if key in PICTURES else repr(v)[:400])
            found.append(f"code cell {k + 1} ({_text(cell['source'])[:50]!r}), {key}:\n  stored {show(want.get(key, []))}"
                         f"\n  ran    {show(got.get(key, []))}")
    return found[:5]


def chapter_sources(path):
    nb = json.loads(path.read_text())
    markdown = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    widgets = sum(1 for c in nb["cells"] if c["cell_type"] == "code" for o in c["outputs"]
                  if WIDGET_MIME in o.get("data", {}))
    return markdown, widgets


def missing_widget_models(nb):
    """Model ids a saved notebook refers to (widget outputs, and models inside models) without their state."""
    state = nb["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    wanted = {o["data"][WIDGET_MIME]["model_id"] for c in nb["cells"] if c["cell_type"] == "code"
              for o in c["outputs"] if WIDGET_MIME in o.get("data", {})}
    wanted |= set(re.findall(r'"IPY_MODEL_([0-9a-f]+)"', json.dumps(state)))
    return sorted(wanted - set(state))


# jupyterlab-manager 5.0.16 registers the models of a notebook's saved state only after a kernel
# round trip (ManagerBase.set_state awaits _get_comm_info), while a widget output asked to render
# gives up after 2 s (get_model) once the manager calls itself restored, which a fresh kernel's
# "connected" signal can make it do first. On a loaded machine the round trip can take longer.
MODEL_RACE = "Error displaying widget: model not found"


def reopened_widget_cells(page, name, n_widgets):
    """Open a closed chapter again (fresh kernel) and say what each widget cell shows."""
    open_chapter(page, name)
    try:
        page.wait_for_function(
            f"() => {{ const w = ({WIDGET_CELLS})(); return w.length === {n_widgets} && w.every(c => c.figure); }}",
            timeout=30_000)
    except sync_api.TimeoutError:
        pass  # the caller reports what each widget cell shows instead
    return page.evaluate(WIDGET_CELLS)


def open_chapter(page, name):
    page.evaluate(OPEN, name)
    page.wait_for_function(KERNEL_IDLE, timeout=120_000)
    try:
        page.wait_for_function(RENDERED, timeout=60_000)
    except sync_api.TimeoutError:
        pytest.fail(f"{name}: Markdown cells not rendered by jupyterlab-myst within 60 s (is it installed and enabled?)")


def close_chapter(page):
    """Shut the kernel down and close the notebook, so the next open starts a fresh kernel."""
    page.evaluate("""() => { window.__closed = false;
        window.__chapter.sessionContext.shutdown().then(() => { window.__closed = true; }); }""")
    page.wait_for_function("() => window.__closed", timeout=60_000)
    page.evaluate("() => window.__chapter.dispose()")


def close_everything(page):
    """Shut down every kernel and close every document: a failed test leaves nothing running."""
    page.evaluate("""() => { window.__closed = false;
        window.jupyterapp.serviceManager.sessions.shutdownAll().then(() => { window.__closed = true; }); }""")
    page.wait_for_function("() => window.__closed", timeout=60_000)
    page.evaluate("() => [...window.jupyterapp.shell.widgets('main')].forEach(w => w.dispose())")


def screenshot(page, locator, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    locator.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    page.screenshot(path=str(SCREENSHOTS / name))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_in_jupyterlab(app, lab, notebook):
    page, problems = app
    served = lab[2]
    seen = len(problems)
    name = notebook.name
    markdown, n_widgets = chapter_sources(notebook)
    n_exercises, n_solutions = len(re.findall(r"\{exercise\}", markdown)), len(re.findall(r"\{solution\}", markdown))
    shots = name == SCREENSHOT_CHAPTER
    report = []

    close_everything(page)
    # Opened, nothing changed yet: JupyterLab must find the metadata it would write itself.
    open_chapter(page, name)
    assert page.evaluate("() => window.__chapter.context.model.dirty") is False, \
        "the chapter opens already modified (stored metadata differs from what JupyterLab writes)"

    # Rendered Markdown: no MyST source left, math typeset, every reference resolved.
    for text in page.evaluate(MARKDOWN_TEXT):
        raw = RAW_MYST.search(text) or RAW_MATH.search(text)
        if raw is not None:
            context = text[max(0, raw.start() - 80):raw.end() + 80]
            pytest.fail(f"raw source {raw.group(0)!r} in a rendered Markdown cell: ...{context}...")
    math = page.evaluate(MATH_STATS)
    assert math["failed"] == [], f"TeX that KaTeX could not typeset: {math['failed'][:5]}"
    assert ("$" not in markdown) or math["typeset"] > 0, "the chapter has math but none was typeset"
    assert page.evaluate(UNRESOLVED) == [], "unresolved citation or reference in a rendered Markdown cell"

    # Exercises shown, solutions folded until clicked.
    boxes = page.locator(".jp-MarkdownCell .myst-exercise")
    titles = boxes.locator(".myst-exercise-title").all_inner_texts()
    solutions = page.locator(".jp-MarkdownCell details.myst-exercise")
    assert sum(not t.startswith("Solution") for t in titles) == n_exercises, titles
    assert solutions.count() == n_solutions >= 1, f"{n_solutions} solutions in the chapter, {solutions.count()} folded"
    for k in range(n_solutions):
        assert not solutions.nth(k).locator(".details-body").is_visible(), f"solution {k + 1} is visible before a click"
    first = solutions.first
    if shots:
        screenshot(page, first, "jupyterlab-energy-exercises.png")
    first.locator("summary").click()
    assert first.locator(".details-body").is_visible(), "a clicked solution does not open"
    first.evaluate("d => { d.open = false; }")  # a second click this soon would be a double click: edit mode

    # Run All, timed; no error output.
    t0 = time.perf_counter()
    page.evaluate(RUN_ALL)
    page.wait_for_function(ALL_RUN, timeout=RUN_ALL_TIMEOUT, polling=100)
    run_all = time.perf_counter() - t0
    report.append(f"run all {run_all:.1f} s")
    errors = page.evaluate("""() => [...window.__chapter.content.model.cells].filter(c => c.type === 'code')
        .flatMap(c => c.outputs.toJSON()).filter(o => o.output_type === 'error').map(o => `${o.ename}: ${o.evalue}`)""")
    assert errors == [], f"error outputs: {errors}"

    # Each figure's words folded under it: JupyterLab shows no alt text of its own, so this box
    # is what a screen reader finds there (bmlib/plotting/fit.py), and it must survive the sanitizer.
    stored = sum("bm-figure-words" in "".join(o.get("data", {}).get("text/html", ""))
                 for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "code" for o in c["outputs"])
    shown = page.evaluate("""() => [...window.__chapter.node.querySelectorAll(
        '.jp-OutputArea-output details.bm-figure-words')].filter(d => d.querySelector('summary')
        && d.textContent.length > 60).length""")
    assert shown == stored > 0, f"{stored} figure descriptions stored, {shown} shown whole in JupyterLab"

    # Every widget live: labels whole, and a slider step redraws its picture.
    page.wait_for_function(f"() => {WIDGETS}.length === {n_widgets}", timeout=60_000)
    assert page.evaluate(CUT_BUTTONS) == [], "widget buttons whose label is cut"
    page.evaluate(MARK_WIDGETS)
    for k in range(n_widgets):
        handle = page.locator(f'[data-test-widget="{k}"] .noUi-handle').first
        handle.scroll_into_view_if_needed()
        latencies = []
        for key, back in (("ArrowRight", "ArrowLeft"), ("ArrowLeft", "ArrowRight"), ("ArrowRight", "ArrowLeft")):
            # Decide the direction before the step: at an end, step the other way. (Pressing and
            # then pressing back could leave the slider, and so the picture, where it started.)
            value, low, high = page.evaluate(SLIDER_RANGE, k)
            if value == (high if key == "ArrowRight" else low):
                key = back
            page.evaluate(WATCH, k)
            handle.press(key)
            latency = page.evaluate(
                "() => Promise.race([window.__redraw, new Promise(r => setTimeout(() => r(null), 30000))])")
            assert latency is not None, f"widget {k + 1} did not redraw within 30 s of a slider step"
            latencies.append(latency)
        report.append(f"widget {k + 1} redraw {sorted(latencies)[1]:.0f} ms (median of 3 steps: "
                      + ", ".join(f"{t:.0f}" for t in latencies) + ")")
        # Its words, live under the picture and announced (aria-live) when a step changes them.
        words = page.evaluate(WIDGET_WORDS, k)
        assert words["live"] == "polite" and len(words["text"]) > 40, f"widget {k + 1}: no live words: {words}"
        assert words["tooltip"], f"widget {k + 1}: its picture has no accessible name (tooltip)"
        # Keyboard: every slider, button and menu of the widget is reachable by Tab, with a label.
        unlabelled = page.evaluate(UNLABELLED_CONTROLS, k)
        assert unlabelled == [], f"widget {k + 1}: controls without a label or out of the tab order: {unlabelled}"
    if shots:
        screenshot(page, page.locator('[data-test-widget="0"]'),
                   "jupyterlab-energy-widget.png")

    # Save (with widget state, as tools/lab.py presets), close, reopen with a fresh kernel.
    page.evaluate("async () => { await window.jupyterapp.commands.execute('docmanager:save'); }")
    saved = json.loads((served / name).read_text())
    assert "widgets" in saved["metadata"], "the saved notebook has no widget state (tools/lab.py's setting missing?)"
    missing = missing_widget_models(saved)
    assert missing == [], f"widget models the saved chapter refers to but whose state it lacks: {missing}"
    # The outputs of Run All, before any widget moved, are the stored ones: the widgets' slider
    # steps above changed only their own views, which the comparison leaves out.
    stored_nb = json.loads(notebook.read_text())
    pictures = stored_nb["metadata"].get("bmlib", {}).get("figure_environment") == _fingerprint()
    differences = output_differences(stored_nb, saved, pictures)
    assert differences == [], (f"{name}: Run All gives other outputs than the stored ones "
                               f"({'pictures compared' if pictures else 'pictures not compared'}):\n"
                               + "\n".join(differences))
    close_chapter(page)
    shown = reopened_widget_cells(page, name, n_widgets)
    if any(MODEL_RACE in w["text"] for w in shown):
        # The saved state is complete (checked above), so this is the widget manager's race
        # (see MODEL_RACE): a student who reopens sees the figures. Reopen once, say so in the
        # report, and hold the second opening to the same rule.
        report.append("reopened twice (widget manager's 2 s race on the first opening)")
        problems[seen:] = [p for p in problems[seen:] if "widget model not found" not in p]
        close_chapter(page)
        shown = reopened_widget_cells(page, name, n_widgets)
    page.evaluate(MARK_WIDGETS)
    assert len(shown) == n_widgets and all(w["figure"] for w in shown), \
        f"widget cells without a figure after save and reopen: {shown}"
    if shots:
        screenshot(page, page.locator('[data-test-widget="0"]'),
                   "jupyterlab-energy-reopened.png")
    close_chapter(page)

    record_timing(f"{name}: " + ", ".join(report))
    assert problems[seen:] == [], "\n".join(problems[seen:])
