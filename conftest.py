"""Docstring examples run as a reader pastes them: after ``import bmlib as bm``.

pytest's doctests (``--doctest-modules``) see the names of the module they
are in; this adds ``bm``, which every example may assume. The stricter check,
with nothing but ``bm`` defined, is tests/test_docstring_examples.py.
"""
import pytest


@pytest.fixture(autouse=True)
def _bmlib_as_bm(doctest_namespace):
    import bmlib

    doctest_namespace["bm"] = bmlib
