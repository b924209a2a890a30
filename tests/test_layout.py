"""The package layout that shows the book (issue 26): small modules, packages by domain, no borrowed privates.

1. No module of bmlib is over 500 lines: a reader opening one finds one idea.
2. No private name crosses a top-level package: a module does not import
   ``_name`` from another package (``from ..sampling.diagnostics import _series``),
   nor anything from another package's private module (``from ..plotting._x
   import ...`` in ``widgets/``). What packages share is promoted to a documented
   internal name (no underscore, in a module whose docstring says it is shared
   inside bmlib) or to a root internal module ``bmlib/_x``, which every package
   may import from. Within one package privates are free.
3. The root holds only ``__init__.py`` and private modules and packages
   (``_checks/``, ``_random.py``, ...); everything public lives in a package
   about its domain (``models/``, ``exact/``, ``sampling/``, ``meanfield/``,
   ``partition/``, ``learning/``, ``plotting/``, ``widgets/``, ``exercises/``).

Each module is its own test case, so a failure names the file.
"""
import ast
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = Path(ROOT) / "bmlib"
MAX_LINES = 500
MODULES = sorted(PACKAGE.rglob("*.py"))


def _name(path):
    """Dotted module name of a file under bmlib/ (a package is named by its __init__)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _domain(module):
    """The top-level unit a module belongs to: ``bmlib.<first part>`` (a root module is its own)."""
    return ".".join(module.split(".")[:2])


def _is_root_internal(module):
    """A root internal module or package (``bmlib._checks``, ``bmlib._random``, ...): shared by all."""
    parts = module.split(".")
    return len(parts) >= 2 and parts[1].startswith("_")


def _imports(path, source=None):
    """``(line, imported module, names)`` of every bmlib import in a file (or ``source`` as if it were there)."""
    name = _name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text() if source is None else source, str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module == "bmlib" or module.startswith("bmlib."):
                yield node.lineno, module, [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("bmlib."):
                    yield node.lineno, alias.name, []


def _borrowed(path, source=None):
    """The imports of ``path`` that take a private name or module from another top-level package."""
    here = _domain(_name(path))
    found = []
    for line, module, names in _imports(path, source):
        for name in names or [None]:
            # "from ..plotting import _style" imports the module bmlib.plotting._style.
            target = module if name is None or module != _domain(module) or not name.startswith("_") else f"{module}.{name}"
            if _is_root_internal(target) or _domain(target) == here:
                continue
            private_path = any(part.startswith("_") for part in target.split(".")[2:])
            private_name = name is not None and name.startswith("_") and target == module
            if private_path or private_name:
                found.append(f"line {line}: from {module} import {name}")
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_is_over_500_lines(path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"bmlib/{path.relative_to(PACKAGE)} has {lines} lines (at most {MAX_LINES}): split it by idea"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_private_name_is_imported_from_another_package(path):
    borrowed = _borrowed(path)
    assert not borrowed, (
        f"bmlib/{path.relative_to(PACKAGE)} borrows privates of another package (promote them to a documented "
        "internal name or a root internal module bmlib/_x):\n" + "\n".join(borrowed)
    )


def test_the_root_holds_only_the_init_and_private_modules():
    public = sorted(p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py" and not p.name.startswith("_"))
    assert public == [], f"public modules at the root of bmlib (move each into the package of its domain): {public}"
    for directory in PACKAGE.iterdir():
        if directory.is_dir() and directory.name != "__pycache__" and not (directory / "__init__.py").exists():
            # Data only (bmlib/data/ holds the digits file, shipped as package data): no code outside packages.
            assert not list(directory.rglob("*.py")), f"Python files outside a package: bmlib/{directory.name}/"


def test_the_rule_catches_what_it_should():
    """The check itself: borrowed private names and modules are found; root internals and one's own package not."""
    source = ("from ..plotting import _style\nfrom ..plotting._fit import BookFigure\n"
              "from ..models.states import _convert\nfrom ..models.states import all_states\n"
              "from .._checks import _show\nfrom .. import _random\nfrom ._base import _anything\n"
              "import bmlib.sampling._hidden\n")
    assert _borrowed(PACKAGE / "widgets" / "example.py", source) == [
        "line 1: from bmlib.plotting import _style",
        "line 2: from bmlib.plotting._fit import BookFigure",
        "line 3: from bmlib.models.states import _convert",
        "line 8: from bmlib.sampling._hidden import None",
    ]
