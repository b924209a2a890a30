"""Open the chapters in JupyterLab, set up as the chapters need.

Usage (the README's lab command runs it):  .venv/bin/python tools/lab.py [jupyter lab options]

Before starting JupyterLab it presets, for this environment only, the one
setting the chapters need that JupyterLab does not have on by default:
"Save Widget State Automatically" (and it turns off JupyterLab's offer to fetch
news from the web, since the book is meant to run offline). Without it a chapter that was run, saved and
reopened with a fresh kernel shows "Error displaying widget: model not found"
where each widget was; with it the saved notebook carries each widget's last
picture. The setting goes in a file of its own under the environment's
``share/jupyter/lab/settings/overrides.d/`` (a default, not a lock: a reader can
still turn it off in Settings), so the environment's own ``overrides.json`` is
never touched.

JupyterLab opens on ``book/`` unless a ``--ServerApp.root_dir`` (or
``--notebook-dir``) is given; every other option is passed to ``jupyter lab``
unchanged (the JupyterLab test passes a port, a token and ``--no-browser``).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Plugin id -> settings, as in JupyterLab's Settings > Advanced Settings Editor (JSON).
SETTINGS = {
    # ipywidgets' JupyterLab extension: write widget state into the notebook on save.
    "@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": True},
    # No "get notified about Jupyter news?" prompt and no request to jupyter.org: the book runs offline.
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
}
SETTINGS_FILE = "bmlib-book.json"


def settings_path():
    """Where this environment's JupyterLab reads the book's preset settings."""
    from jupyterlab.commands import get_app_dir  # the folder `jupyter lab` itself uses

    return Path(get_app_dir()) / "settings" / "overrides.d" / SETTINGS_FILE


def write_settings():
    path = settings_path()
    text = json.dumps(SETTINGS, indent=2) + "\n"
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return path


def main(argv):
    try:
        from jupyterlab.labapp import main as lab_main
    except ImportError:
        sys.exit("tools/lab.py: JupyterLab is not installed here; run `.venv/bin/pip install -r requirements-lab.txt`")
    write_settings()
    if not any(a.startswith(("--ServerApp.root_dir", "--notebook-dir", "--ServerApp.notebook_dir")) for a in argv):
        argv = [*argv, f"--ServerApp.root_dir={ROOT / 'book'}"]
    return lab_main(argv=argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
