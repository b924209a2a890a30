"""Save and load trained models as ``.npz`` archives, without pickle.

A model file is a plain NumPy ``.npz`` archive of named arrays, readable
with ``np.load(path, allow_pickle=False)`` by anyone, with or without bmlib:

==============  ===============================================================
field           content
==============  ===============================================================
``format``      the tag ``"bmlib-model"``
``version``     the file-format version (:data:`FORMAT_VERSION`)
``kind``        ``"BoltzmannMachine"`` or ``"RBM"``
``units``       ``"spins"`` or ``"bits"``
``T``           temperature
``n_visible``   visible units
``n_hidden``    hidden units
``W``, ``b``,   BoltzmannMachine: weights (n, n), biases (n,), connectivity (n, n)
``mask``
``W``,          RBM: weights (n_visible, n_hidden), biases of each layer
``b_visible``,
``b_hidden``
==============  ===============================================================

Loading checks every field and rebuilds the model through its constructor,
so a damaged, truncated or mismatched file is refused with a ``ValueError``
that names the file and the problem.
"""
from __future__ import annotations

import os
import zipfile

import numpy as np

from .learning.machine import BoltzmannMachine
from .learning.rbm import RBM

FORMAT_TAG = "bmlib-model"
#: Version of the file layout written by :func:`save_model`; files of a newer
#: version are refused rather than misread.
FORMAT_VERSION = 1

_ARRAYS = {"BoltzmannMachine": ("W", "b", "mask"), "RBM": ("W", "b_visible", "b_hidden")}


def save_model(path, model):
    """Write a trained :class:`~bmlib.BoltzmannMachine` or :class:`~bmlib.RBM` to an ``.npz`` file.

    Parameters
    ----------
    path : str or os.PathLike
        Destination; ``.npz`` is appended if it is missing.
    model : BoltzmannMachine or RBM

    Returns
    -------
    str
        The path written.

    Examples
    --------
    >>> import os, tempfile, bmlib as bm
    >>> rbm = bm.RBM(4, 2, rng=0)
    >>> path = bm.save_model(os.path.join(tempfile.mkdtemp(), "rbm"), rbm)
    >>> path.endswith("rbm.npz"), bool((bm.load_model(path).W == rbm.W).all())
    (True, True)
    """
    kind = type(model).__name__
    if kind not in _ARRAYS or not isinstance(model, (BoltzmannMachine, RBM)):
        raise TypeError(f"model must be a bmlib BoltzmannMachine or RBM; got {kind}")
    path = os.fspath(path)
    if not path.endswith(".npz"):
        path += ".npz"
    fields = {
        "format": np.array(FORMAT_TAG),
        "version": np.array(FORMAT_VERSION),
        "kind": np.array(kind),
        "units": np.array(model.units),
        "T": np.array(float(model.T)),
        "n_visible": np.array(model.n_visible),
        "n_hidden": np.array(model.n_hidden),
    }
    fields.update({name: np.asarray(getattr(model, name)) for name in _ARRAYS[kind]})
    np.savez(path, **fields)
    return path


_READ_ERRORS = (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile, zipfile.LargeZipFile)


def _damaged(path, exc):
    return ValueError(
        f"{path} cannot be read as a bmlib model: the file is damaged, truncated or not an .npz archive "
        f"({type(exc).__name__}: {exc})"
    )


def _read(path):
    """All arrays of the archive, read in full so that a damaged member fails here (CRC check)."""
    try:
        archive = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise
    except _READ_ERRORS as exc:
        raise _damaged(path, exc) from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(f"{path} is not a bmlib model file: it holds a single array, not an .npz archive")
    try:
        with archive:
            return {key: archive[key] for key in archive.files}
    except _READ_ERRORS as exc:
        raise _damaged(path, exc) from None


def _scalar(fields, key, path, kind):
    if key not in fields:
        raise ValueError(f"{path} is not a complete bmlib model file: the field {key!r} is missing")
    value = fields[key]
    ok = value.ndim == 0 and (value.dtype.kind == "U" if kind is str else value.dtype.kind in "iuf")
    if not ok:
        raise ValueError(f"{path}: the field {key!r} must be a single {kind.__name__}; got {value.dtype} "
                         f"of shape {value.shape}")
    return value.item()


def load_model(path):
    """Read a model written by :func:`save_model`.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    BoltzmannMachine or RBM
        Bit-for-bit the parameters that were saved.

    Raises
    ------
    ValueError
        If the file is damaged or truncated, is not a bmlib model file, has a
        newer format version, or its fields do not fit together (shapes,
        units, temperature, symmetry, mask).
    """
    path = os.fspath(path)
    fields = _read(path)
    tag = _scalar(fields, "format", path, str)
    if tag != FORMAT_TAG:
        raise ValueError(f"{path} is not a bmlib model file: its format tag is {tag!r}, expected {FORMAT_TAG!r}")
    version = _scalar(fields, "version", path, int)
    if version != int(version) or not 1 <= version <= FORMAT_VERSION:
        raise ValueError(f"{path} has file-format version {version}; this bmlib reads versions 1 to {FORMAT_VERSION}")
    kind = _scalar(fields, "kind", path, str)
    if kind not in _ARRAYS:
        raise ValueError(f"{path}: unknown model kind {kind!r}; expected one of {sorted(_ARRAYS)}")
    n_v, n_h = (int(_scalar(fields, key, path, int)) for key in ("n_visible", "n_hidden"))
    units, T = _scalar(fields, "units", path, str), _scalar(fields, "T", path, float)
    n = n_v + n_h
    shapes = {"W": (n, n), "b": (n,), "mask": (n, n)} if kind == "BoltzmannMachine" else {
        "W": (n_v, n_h), "b_visible": (n_v,), "b_hidden": (n_h,)}
    for key, shape in shapes.items():
        if key not in fields:
            raise ValueError(f"{path} is not a complete bmlib model file: the field {key!r} is missing")
        if fields[key].shape != shape:
            raise ValueError(f"{path}: {key} has shape {fields[key].shape} but n_visible = {n_v} and "
                             f"n_hidden = {n_h} need {shape}")
    try:
        if kind == "RBM":
            return RBM(n_v, n_h, W=fields["W"], b_visible=fields["b_visible"], b_hidden=fields["b_hidden"],
                       units=units, T=T)
        return BoltzmannMachine(n_v, n_h, mask=fields["mask"], W=fields["W"], b=fields["b"], units=units, T=T)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path} holds an invalid {kind}: {exc}") from None
