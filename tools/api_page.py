"""Write book/api.md: every public name of bmlib, in one section per chapter.

Usage:  python tools/api_page.py          (rewrites book/api.md)
        python tools/api_page.py --check  (exit 1 if book/api.md is out of date)

A name goes to the chapter of the module that defines it (the table below);
a few names are placed by hand. tests/test_book.py runs ``--check``, so a
new public name cannot be left off the page or put on it twice. The page ends
with the table of bmlib/_vocabulary.py: one word per idea, and the words 1.1
renamed.
"""
from __future__ import annotations

import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import bmlib  # noqa: E402
from bmlib import _vocabulary as vocabulary  # noqa: E402

# (title, chapter file, modules whose public names it documents), in reading order.
SECTIONS = [
    ("Energy and states", "energy",
     ["bmlib.models.states", "bmlib.models.energy", "bmlib.models.descent", "bmlib.models.hebbian",
      "bmlib.plotting.style", "bmlib.plotting.energy", "bmlib.widgets.energy", "bmlib.exercises.energy"]),
    ("The Boltzmann-Gibbs distribution: exact sums", "boltzmann_gibbs", ["bmlib.exact.enumeration", "bmlib.exact.clamped", "bmlib.exact.free_energy"]),
    ("Sampling: heat bath and Metropolis", "sampling",
     ["bmlib.sampling.chains", "bmlib.sampling.rules", "bmlib.sampling.rule_arguments", "bmlib.sampling.schedules",
      "bmlib.sampling.transition", "bmlib.sampling.diagnostics", "bmlib.sampling.goodness", "bmlib.sampling.couplings",
      "bmlib.sampling.tempering",
      "bmlib.plotting.sampling", "bmlib.plotting.annealing", "bmlib.widgets.sampling", "bmlib.exercises.sampling",
      "bmlib.exercises.gibbs"]),
    ("The Ising model", "ising",
     ["bmlib.models.lattices", "bmlib.exact.closed_forms", "bmlib.exact.kaufman", "bmlib.sampling.observables",
      "bmlib.plotting.ising", "bmlib.plotting.finite_size", "bmlib.widgets.ising", "bmlib.exercises.ising"]),
    ("Beyond single flips", "beyond_single_flips",
     ["bmlib.sampling.clusters", "bmlib.sampling.valleys", "bmlib.exercises.tempering"]),
    ("Learning", "learning_rule",
     ["bmlib.learning.machine", "bmlib.learning.training", "bmlib.learning.history", "bmlib.learning.statistics",
      "bmlib.learning.held_out", "bmlib.models.datasets",
      "bmlib.models.digit_images", "bmlib.meanfield.inverse_ising",
      "bmlib.models.io", "bmlib.plotting.learning", "bmlib.widgets.learning", "bmlib.exercises.learning"]),
    ("Hidden units", "hidden_units",
     ["bmlib.learning.encoder", "bmlib.learning.annealed", "bmlib.plotting.hidden", "bmlib.plotting.statistics"]),
    ("Restricted Boltzmann machines", "restricted_boltzmann",
     ["bmlib.learning.rbm.model", "bmlib.learning.rbm.block_gibbs", "bmlib.learning.rbm.likelihood", "bmlib.learning.rbm.exact", "bmlib.learning.rbm.ais", "bmlib.learning.cd_theory",
      "bmlib.widgets.hidden", "bmlib.exercises.hidden", "bmlib.exercises.cd"]),
    ("Learning real images", "real_images",
     ["bmlib.learning.rbm.images", "bmlib.learning.rbm.tempering", "bmlib.plotting.images", "bmlib.widgets.images",
      "bmlib.exercises.images"]),
    ("Mean field: the deterministic Boltzmann machine", "deterministic",
     ["bmlib.meanfield.theories", "bmlib.learning.deterministic",
      "bmlib.plotting.meanfield", "bmlib.widgets.meanfield", "bmlib.exercises.meanfield"]),
    ("The normalizing constant Z", "normalizing_constant",
     ["bmlib.partition.variational", "bmlib.partition.sampled", "bmlib.partition.sandwich", "bmlib.exact.samples", "bmlib.partition.study", "bmlib.meanfield.bethe", "bmlib.exact.elimination", "bmlib.exact._elimination_plan",
      "bmlib.plotting.partition", "bmlib.widgets.partition", "bmlib.exercises.partition", "bmlib.exercises.ais"]),
    ("Shared pieces", None, ["bmlib._checks", "bmlib._checks.solvers", "bmlib._warnings", "bmlib.widgets._base"]),
]
# Names whose home is not their module's chapter, and constants (which have no module).
PLACED = {
    "SquareLattice": "ising",
    "plot_critical_slowing": "beyond_single_flips",
    "curie_weiss_couplings": "deterministic",
    "MAX_EXACT_UNITS": "boltzmann_gibbs",
    "MAX_TABLE_UNITS": "boltzmann_gibbs",
    "check_energy_moments": "boltzmann_gibbs",
    "plot_free_energy": "boltzmann_gibbs",
    "ContrastiveDivergence": "restricted_boltzmann",
    "PersistentContrastiveDivergence": "restricted_boltzmann",
    "bars_and_stripes": "restricted_boltzmann",
    "encoder_patterns": "hidden_units",
    "encoder_mask": "hidden_units",
    "TEN_PIXEL_PROTOTYPES": "learning_rule",
    "MAX_COUNT": None,
    "MEMORY_BUDGET": None,
}

# Constants are described here: autodoc would show an ndarray's own docstring.
CONSTANTS = {
    "MAX_EXACT_UNITS": "Largest number of units that exact enumeration accepts (2**n states summed in blocks).",
    "MAX_TABLE_UNITS": "Largest number of units for which a full table of 2**n rows (states, probabilities) is returned.",
    "TEN_PIXEL_PROTOTYPES": "The three prototypes behind ``ten_pixel_images``, 2 x 5 images in bits, one per row.",
    "MAX_COUNT": "Largest count (samples, chains, sweeps, epochs, steps, ...) any function accepts; larger is refused.",
    "MEMORY_BUDGET": "Bytes a single call may allocate; work that needs more is refused with the amount it would need.",
}

INTRO = """# API reference

Every public name of `bmlib`, generated from the docstrings in the library
itself (the examples in them run as tests, so they stay true), grouped by the
chapter that explains it. Import the library as

```python
import bmlib as bm
```

and call any name below as `bm.<name>`. Within a section, functions come
first, then classes and result types, then constants.

<!-- Written by tools/api_page.py from bmlib's public names; do not edit by hand. -->
"""


def _home(name):
    if name in PLACED:
        return PLACED[name]
    module = getattr(getattr(bmlib, name), "__module__", None)
    for _, chapter, modules in SECTIONS:
        if module in modules:
            return chapter
    raise SystemExit(f"tools/api_page.py: no section for bmlib.{name} (module {module}); add its module to SECTIONS")


def _directive(name):
    obj = getattr(bmlib, name)
    if inspect.isclass(obj):
        # A class written with bmlib base classes only (RBM: its sampler and likelihood; the rules) shows
        # their methods too; a widget's bases include ipywidgets', whose members are not bmlib's to list.
        bases = obj.__mro__[1:-1]  # without the class itself and object
        inherits = bool(bases) and all(base.__module__.startswith("bmlib") for base in bases)
        return f".. autoclass:: bmlib.{name}\n   :members:\n" + ("   :inherited-members:\n" if inherits else "")
    if callable(obj):
        return f".. autofunction:: bmlib.{name}\n"
    return f".. py:data:: bmlib.{name}\n   :value: {_value(obj)}\n\n   {CONSTANTS[name]}\n"


def _value(obj):
    return f"array of shape {obj.shape}" if hasattr(obj, "shape") else repr(obj)


def _kind(name):
    obj = getattr(bmlib, name)
    return 1 if inspect.isclass(obj) else 0 if callable(obj) else 2


VOCABULARY_INTRO = """
## One word per idea

Every parameter name in the signatures above means one thing, the same in
every function: `n_sweeps` is always a run length in sweeps, `initial`
always where a chain or a solver starts, `scan` always the order units are
updated in. The table is `bmlib/_vocabulary.py`, and a test fails when a
public signature uses a word outside it.

bmlib 1.1 replaced these words of 1.0. The old words are still accepted
until bmlib 2.0, with the same result and a `DeprecationWarning` that names
the new word.
"""


def _cell(text):
    """Table-cell text for MyST: no raw angle brackets (they would read as HTML)."""
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _renamed_where():
    """Old word -> the public names that still accept it (constructors and methods included)."""
    where = {}
    for name in sorted(bmlib.__all__):
        obj = getattr(bmlib, name)
        targets = [(name, obj.__init__ if inspect.isclass(obj) else obj)]
        if inspect.isclass(obj):
            targets += [(f"{name}.{attr}", value) for attr, value in sorted(vocabulary.class_members(obj).items())
                        if not attr.startswith("_") and callable(value)]
        for label, target in targets:
            for old in getattr(target, "__renamed__", None) or {}:
                where.setdefault(old, []).append(label)
    return where


def vocabulary_section():
    where = _renamed_where()
    rows = ["| old word (1.0) | new word | accepted by |", "| --- | --- | --- |"]
    rows += [f"| `{old}` | `{new}` | {', '.join(f'`{n}`' for n in where.get(old, []))} |"
             for old, new in sorted(vocabulary.RENAMED.items(), key=lambda item: (item[1], item[0]))]
    words = ["| word | meaning |", "| --- | --- |"]
    words += [f"| `{word}` | {_cell(vocabulary.WORDS[word])} |" for word in sorted(vocabulary.WORDS, key=str.lower)]
    return (VOCABULARY_INTRO + "\n" + "\n".join(rows) + "\n\nEvery word, with its meaning:\n\n"
            + "\n".join(words) + "\n")


def page():
    homes = {name: _home(name) for name in bmlib.__all__}
    parts = [INTRO]
    for title, chapter, _ in SECTIONS:
        names = sorted((n for n, home in homes.items() if home == chapter), key=lambda n: (_kind(n), n.lower()))
        if not names:
            continue
        see = f"\nExplained in the chapter {{doc}}`{chapter}`.\n" if chapter else "\n"
        parts.append(f"\n## {title}\n{see}\n```{{eval-rst}}\n" + "\n".join(_directive(n) for n in names) + "```\n")
    parts.append(vocabulary_section())
    return "".join(parts)


def main(argv):
    target = ROOT / "book" / "api.md"
    text = page()
    if "--check" in argv:
        if target.read_text() != text:
            print("book/api.md is out of date: run python tools/api_page.py", file=sys.stderr)
            return 1
        return 0
    target.write_text(text)
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
