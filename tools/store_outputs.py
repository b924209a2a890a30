"""Execute chapter notebooks in a fresh kernel and store their outputs in place.

Usage:  python tools/store_outputs.py book/energy.ipynb [more.ipynb ...]

The book is built from these stored outputs, and the tests re-execute every
notebook with nbval and compare, so run this after changing a chapter or the
library code it calls. It also strips what would make the stored notebook
differ from run to run: execution timing metadata and saved widget state
(the static page shows each widget's PNG instead), and gives any cell without
an id one. It records where the pictures were drawn (``figure_environment.py``),
so that the tests compare them too on a machine that draws the same pixels.
It then runs the code of every exercise solution after the chapter, as a
reader would, and records what it prints (``solutions.py``), so that the
numbers a solution quotes are checked too.
Consecutive pieces of printed text are stored as one output, as they read.
It writes the kernelspec as
the installed kernel describes itself ("Python 3 (ipykernel)"), which is what
JupyterLab writes on opening a notebook: with anything else every chapter
would open already marked unsaved.
"""
import copy
import sys
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient
from nbformat.v4.nbbase import random_cell_id

sys.path.insert(0, str(Path(__file__).resolve().parent))
from figure_environment import fingerprint
from solutions import KEY, recorded_outputs, with_solutions

KERNEL = "python3"


def kernelspec(name=KERNEL):
    """The notebook metadata JupyterLab writes for kernel `name`: its name, display name, language."""
    spec = KernelSpecManager().get_kernel_spec(name)
    return {"display_name": spec.display_name, "language": spec.language, "name": name}


def joined_streams(outputs):
    """``outputs`` with each run of consecutive stream outputs of one name joined into one (a new list).

    The kernel sends what a cell prints in pieces, as its buffer is flushed, so
    one ``print`` can arrive as two outputs (``"period"`` and ``" 2 ..."``) and a
    page would show two boxes, split where the timing happened to fall.
    JupyterLab's output area joins them too, and tests/test_jupyterlab.py
    compares through this function.
    """
    joined = []
    for output in outputs:
        if output.get("output_type") == "stream":
            output = copy.copy(output)  # the caller's outputs stay as they were
            output["text"] = "".join(output["text"]) if isinstance(output["text"], list) else output["text"]
            previous = joined[-1] if joined else {}
            if previous.get("output_type") == "stream" and previous.get("name") == output.get("name"):
                previous["text"] += output["text"]
                continue
        joined.append(output)
    return joined


def store_outputs(path):
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    # The chapter, then its solutions' code as a reader runs it: after the chapter, in one kernel.
    combined = with_solutions(nb, recorded=False)
    NotebookClient(combined, timeout=300, kernel_name=KERNEL,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    for cell in combined.cells:
        if cell.cell_type == "code":
            cell.outputs = joined_streams(cell.outputs)
    nb.cells = combined.cells[:len(nb.cells)]
    nb.metadata["kernelspec"] = kernelspec()
    nb.metadata.pop("widgets", None)
    nb.metadata["bmlib"] = {"figure_environment": fingerprint(), KEY: recorded_outputs(combined)}
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if not cell.get("id"):  # a cell pasted in as JSON; nbformat 4.5 wants an id on every cell
            cell["id"] = random_cell_id()
    nbformat.write(nb, path)
    print(f"stored outputs of {path}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for name in sys.argv[1:]:
        store_outputs(name)
