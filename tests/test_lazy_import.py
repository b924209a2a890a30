"""`import bmlib` stays light: figures, widgets and progress bars load their libraries on first use.

Each check that looks at sys.modules runs in a fresh interpreter, because the
test session itself has Matplotlib loaded (conftest.py). No timings here: the
import time is measured in benchmarks/import_time.py.
"""
import importlib
import json
import os
import subprocess
import sys

import pytest

import bmlib
from conftest import ROOT

HEAVY = ("matplotlib", "ipywidgets", "PIL", "tqdm")


def fresh_python(code):
    """Run ``code`` in a new interpreter from the repository root; return the JSON it prints last."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={**os.environ, "MPLBACKEND": "Agg"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def loaded(heavy=HEAVY):
    """Source of an expression: which of the heavy libraries are in sys.modules."""
    return f"[m for m in {heavy!r} if m in sys.modules]"


def test_import_bmlib_loads_no_plotting_widget_or_progress_library():
    assert fresh_python(f"import json, sys, bmlib\nprint(json.dumps({loaded()}))") == []


def test_each_library_loads_when_its_first_user_is_asked_for():
    code = f"""import json, sys, bmlib
steps = {{}}
bmlib.energy  # an eager name: loads nothing
steps["energy"] = {loaded()}
bmlib.plot_energy_landscape
steps["figure"] = {loaded()}
bmlib.energy_widget
steps["widget"] = {loaded()}
print(json.dumps(steps))"""
    steps = fresh_python(code)
    assert steps["energy"] == []
    assert "matplotlib" in steps["figure"] and "ipywidgets" not in steps["figure"]  # Matplotlib brings PIL
    assert set(steps["widget"]) == {"matplotlib", "ipywidgets", "PIL"}


def test_star_import_brings_every_public_name():
    code = ("import json\nfrom bmlib import *\nimport bmlib\n"
            "g = globals()\nprint(json.dumps([n for n in bmlib.__all__ if n not in g]))")
    assert fresh_python(code) == []


@pytest.mark.parametrize("name", sorted(bmlib._LAZY_NAMES))
def test_lazy_name_is_the_submodules_object_and_public(name):
    module = importlib.import_module(f"bmlib.{bmlib._LAZY_NAMES[name]}")
    assert getattr(bmlib, name) is getattr(module, name)
    assert name in bmlib.__all__ and name in dir(bmlib)


def test_dir_lists_every_public_name_before_any_is_used():
    # Sphinx autodoc finds the members of bmlib through dir(), before anything has loaded them.
    code = ("import json, sys, bmlib\nnames = dir(bmlib)\n"
            f"print(json.dumps([[n for n in bmlib.__all__ if n not in names], {loaded()}]))")
    assert fresh_python(code) == [[], []]


def test_flat_namespace_resolves_every_public_name():
    for name in bmlib.__all__:
        assert getattr(bmlib, name) is not None
    assert bmlib.plotting is importlib.import_module("bmlib.plotting")
    assert bmlib.widgets is importlib.import_module("bmlib.widgets")


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="module 'bmlib' has no attribute 'plot_nothing'"):
        bmlib.plot_nothing
    assert not hasattr(bmlib, "energy_widgets")
