"""Every docstring example runs as a reader pastes it: into a fresh Python after ``import bmlib as bm``.

pytest's own doctests (``--doctest-modules``) run each example with the names
of its module in scope, so an example that uses ``np`` or a bare function
name passes there and fails for a reader. Here each docstring's examples run
with nothing but ``bm`` defined.
"""
import doctest
import importlib
import io
import pkgutil

import pytest

import bmlib


def _docstrings():
    for info in pkgutil.walk_packages(bmlib.__path__, "bmlib."):
        module = importlib.import_module(info.name)
        for test in doctest.DocTestFinder(exclude_empty=True).find(module):
            if test.examples:
                yield pytest.param(test, id=test.name)


@pytest.mark.parametrize("test", list(_docstrings()))
def test_example_runs_after_import_bmlib_as_bm(test):
    test.globs = {"bm": bmlib}
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    runner.run(test, out=report.write, clear_globs=True)
    assert runner.failures == 0, f"{test.name} fails when pasted after 'import bmlib as bm':\n{report.getvalue()}"
