"""Shared by every test: docstring examples see ``bm``.

pytest's doctests (``--doctest-modules``) see the names of the module they
are in; this adds ``bm``, which every example may assume. The stricter check,
with nothing but ``bm`` defined, is tests/test_docstring_examples.py.

The README's test command runs on every core (pytest-xdist, ``-n auto
--dist loadfile``): each file goes whole to one worker, in order, so a
chapter's cells run top to bottom in one kernel (nbval) and a test module's
fixtures are built once. The built book, which four test files read, is
built once per session by whichever worker asks first (``built_book`` in
tests/conftest.py). (``--dist loadgroup`` would say this with marks, but
pytest-xdist 3.8 cannot tag node ids under pytest 9.2, which made nbval run
one chapter's cells on two workers.)
"""
import pytest


@pytest.fixture(autouse=True)
def _bmlib_as_bm(doctest_namespace):
    import bmlib

    doctest_namespace["bm"] = bmlib
