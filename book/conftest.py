"""nbval compares the chapters' pictures too, where this machine draws what the stored ones were drawn on.

nbval leaves PNG outputs out of its comparison, because pictures differ
between machines; a figure that no longer matches the library would then pass
unnoticed. ``tools/store_outputs.py`` records a fingerprint of what the
pixels depend on in each chapter's metadata (``tools/figure_environment.py``).
Where the running machine has the same fingerprint, as the machine the
chapters are stored on does, every PNG must be the same byte for byte; where
it differs (another machine, or the perturbed runs of
``tests/test_any_machine.py``), the pictures are left out as before.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from figure_environment import fingerprint

_HERE = None


def pytest_collection_modifyitems(session, config, items):
    global _HERE
    for notebook in {item.parent for item in items if hasattr(item.parent, "skip_compare")}:
        nb = getattr(notebook, "nb", None)
        stored = (nb.metadata.get("bmlib", {}) if nb is not None else {}).get("figure_environment")
        if stored is None:
            continue
        if _HERE is None:
            _HERE = fingerprint()
        if stored == _HERE:
            notebook.skip_compare = tuple(k for k in notebook.skip_compare if k != "image/png")
