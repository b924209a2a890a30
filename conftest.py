"""Shared by every test: docstring examples see ``bm``, and tests are grouped for parallel runs.

pytest's doctests (``--doctest-modules``) see the names of the module they
are in; this adds ``bm``, which every example may assume. The stricter check,
with nothing but ``bm`` defined, is tests/test_docstring_examples.py.

The README's test command runs on every core (pytest-xdist, ``-n auto
--dist loadgroup``). What must stay together is one group, run in order on
one worker:

- the cells of one chapter (nbval runs them in one kernel, top to bottom);
- the tests of one module (their module-scoped fixtures are built once);
- everything that reads the built book (the build test, the browser,
  accessibility and PDF tests): the session's one build is made on the
  worker that runs them, and only once.
"""
from pathlib import Path

import pytest

#: Test modules that use the built book (the session fixture ``built_book``).
BUILT_BOOK_MODULES = {"test_book.py", "test_browser.py", "test_accessibility.py", "test_pdf.py"}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(str(item.path))
        if path.name in BUILT_BOOK_MODULES:
            group = "built-book"
        else:
            group = path.as_posix()  # a chapter (all its cells) or a test module
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(autouse=True)
def _bmlib_as_bm(doctest_namespace):
    import bmlib

    doctest_namespace["bm"] = bmlib
