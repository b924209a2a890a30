"""Save and load trained models as ``.npz`` archives, without pickle.

A model file is a plain NumPy ``.npz`` archive of named arrays, readable
with ``np.load(path, allow_pickle=False)`` by anyone, with or without bmlib.
Each field is one uncompressed member ``<field>.npy``; a file holds exactly
the fields of its kind, nothing else:

==============  ============  ==================================================
field           stored as     content
==============  ============  ==================================================
``format``      text          the tag ``"bmlib-model"``
``version``     integer       the file-format version (:data:`FORMAT_VERSION`)
``kind``        text          ``"BoltzmannMachine"`` or ``"RBM"``
``units``       text          ``"spins"`` or ``"bits"``
``T``           float         temperature
``n_visible``   integer       visible units
``n_hidden``    integer       hidden units
``W``, ``b``,   float, bool   BoltzmannMachine: weights (n, n), biases (n,),
``mask``                      connectivity (n, n), with n = n_visible + n_hidden
``W``,          float         RBM: weights (n_visible, n_hidden), biases of
``b_visible``,                each layer (n_visible,) and (n_hidden,)
``b_hidden``
==============  ============  ==================================================

Saving refuses a model that would not load back (a weight that became NaN, say),
replaces an existing file only when asked to (``overwrite=True``), and writes a
temporary file beside the destination that is renamed over it in one step: a
full disk or an interrupt leaves the old file whole and no temporary behind.
A save that is killed outright (SIGKILL, a power cut) cannot clean up; its
temporary file, named after the destination and the process id, is removed by
the next save of the same destination once that process is gone.

Loading reads only a regular file (a FIFO or a device such as ``/dev/zero``
is refused before anything is read from it). It first reads every member's
``.npy`` header and checks names, shapes, dtypes and declared sizes against
the model's kind and sizes, and the memory they need against
``bmlib.MEMORY_BUDGET``; only then are the arrays read (never with pickle),
and the model is rebuilt through its constructor. A damaged, truncated,
mismatched or hostile file (extra members, Python objects, sizes far beyond
the model's or the budget, zip bombs) is refused with a ``ValueError`` that
names the file and the member or field at fault, without reading the data it
declares.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import secrets

import numpy as np

from .._checks import MEMORY_BUDGET, _format_bytes, check_bool
from ._npz import Archive, write_npz
from ..learning.machine import BoltzmannMachine
from ..learning.rbm import RBM

FORMAT_TAG = "bmlib-model"
#: Version of the file layout written by :func:`save_model`; files of a newer
#: version are refused rather than misread.
FORMAT_VERSION = 1

_SCALARS = {"format": str, "version": int, "kind": str, "units": str, "T": float, "n_visible": int, "n_hidden": int}
_ARRAYS = {"BoltzmannMachine": ("W", "b", "mask"), "RBM": ("W", "b_visible", "b_hidden")}
_FIELDS = {*_SCALARS, *_ARRAYS["BoltzmannMachine"], *_ARRAYS["RBM"]}
#: Longest text field read; the longest legitimate value ("BoltzmannMachine") has 16 characters.
_MAX_TEXT = 64
#: Longest file name (in bytes) that the usual file systems allow; a temporary name is kept within it.
_NAME_MAX = 255


def _model_bytes(kind, n_visible, n_hidden):
    """The memory that the constructor of ``kind`` budgets for these sizes (see its ``check_memory`` call).

    Loading refuses a file whose sizes need more than ``MEMORY_BUDGET`` before
    it reads the arrays, where the constructor would refuse it only after.
    """
    n = n_visible + n_hidden
    return 4 * 8 * (n * n if kind == "BoltzmannMachine" else n_visible * n_hidden)


def save_model(path, model, *, overwrite=False):
    """Write a trained :class:`~bmlib.BoltzmannMachine` or :class:`~bmlib.RBM` to an ``.npz`` file.

    The file is written under a temporary name in the destination's directory
    and then renamed over ``path`` in one step, so an existing file is either
    replaced whole or left untouched, even if the disk fills up or the save is
    interrupted (``KeyboardInterrupt`` propagates); the temporary file is
    removed on any failure. Temporaries of this destination left by a save
    that was killed (their process is gone) are removed first.

    Parameters
    ----------
    path : str or os.PathLike
        Destination file; ``.npz`` is appended if it is missing. Its directory must exist.
    model : BoltzmannMachine or RBM
        Must be a model that :func:`load_model` would accept (finite weights and biases, ...).
    overwrite : bool, default False
        Whether an existing file at ``path`` may be replaced.

    Returns
    -------
    str
        The path written.

    Raises
    ------
    FileExistsError
        If ``path`` (after appending ``.npz``) exists and ``overwrite`` is False.
    FileNotFoundError
        If the directory of ``path`` does not exist.
    ValueError
        If ``path`` is a directory, holds a NUL byte, or its last part is empty or only
        ``".npz"``, or if the model is invalid, e.g. a weight became NaN in training
        (naming the field).
    OSError
        If the file cannot be written (no permission, a read-only or full disk, a
        name too long); the message names ``path`` and the ``errno`` is the system's.

    Examples
    --------
    >>> import os, tempfile, bmlib as bm
    >>> rbm = bm.RBM(4, 2, rng=0)
    >>> path = bm.save_model(os.path.join(tempfile.mkdtemp(), "rbm"), rbm)
    >>> path.endswith("rbm.npz"), bool((bm.load_model(path).W == rbm.W).all())
    (True, True)
    >>> bm.save_model(path, rbm)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    FileExistsError: ...rbm.npz already exists; pass overwrite=True to replace it
    >>> path = bm.save_model(path, rbm, overwrite=True)
    """
    kind = type(model).__name__
    if kind not in _ARRAYS or not isinstance(model, (BoltzmannMachine, RBM)):
        raise TypeError(f"model must be a bmlib BoltzmannMachine or RBM; got {kind}")
    overwrite = check_bool(overwrite, "overwrite")
    path = _destination(path)
    if not overwrite and os.path.lexists(path):
        raise FileExistsError(f"{path} already exists; pass overwrite=True to replace it")
    try:  # the checks load_model makes, so that a file that would not load back is never written
        clean = _build(kind, model.n_visible, model.n_hidden, {key: getattr(model, key) for key in _ARRAYS[kind]},
                       model.units, model.T)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"model cannot be saved, as load_model would refuse it: {exc}") from None
    fields = {"format": FORMAT_TAG, "version": FORMAT_VERSION, "kind": kind, "units": clean.units, "T": clean.T,
              "n_visible": clean.n_visible, "n_hidden": clean.n_hidden}
    fields.update({key: getattr(clean, key) for key in _ARRAYS[kind]})
    _replace(path, {key: np.asarray(value) for key, value in fields.items()})
    return path


def _str_path(path):
    """``path`` as a str (from a str or os.PathLike), else a TypeError naming it."""
    try:
        path = os.fspath(path)
    except TypeError:
        raise TypeError(f"path must be a str or os.PathLike; got {type(path).__name__}") from None
    if not isinstance(path, str):
        raise TypeError(f"path must be a str or os.PathLike giving a str; got {path!r}")
    if "\0" in path:  # no file can have such a name; the system calls would say only "embedded null byte"
        raise ValueError(f"path must not contain a NUL byte; got {path!r}")
    return path


def _source(path):
    """The file that ``load_model(path)`` reads: a str path to an existing file, else a clear error."""
    path = _str_path(path)
    if not os.path.exists(path):
        # The standard exception for a missing file, but saying which argument and what to check.
        hint = "" if path.endswith(".npz") or not os.path.exists(path + ".npz") else f"; did you mean {path + '.npz'!r}?"
        raise FileNotFoundError(f"path {path!r}: no such file{hint}")
    return path


def _destination(path):
    """The file that ``save_model(path, ...)`` writes, after refusing paths that name no file."""
    path = _str_path(path)
    if os.path.basename(path) in ("", ".npz"):
        raise ValueError(f"path must name a file, but its last part is {os.path.basename(path)!r}; got {path!r}")
    given, path = path, path if path.endswith(".npz") else path + ".npz"
    for candidate in (given, path):  # a directory "adir" must not quietly become the file "adir.npz"
        if os.path.isdir(candidate):
            raise ValueError(f"path must name a file, not a directory; {candidate!r} is a directory")
    folder = os.path.dirname(path)
    if folder and not os.path.isdir(folder):
        raise FileNotFoundError(f"cannot save {path!r}: the directory {folder!r} does not exist")
    return path


def _temporary_prefix(name):
    """The start of the temporary names of destination ``name``: ``.name.`` (a hidden file beside it).

    A name so long that the temporary would exceed ``_NAME_MAX`` bytes is cut
    short and followed by a hash of the whole name, so that it stays unique.
    """
    prefix = f".{name}."
    # Room for the process id (at most 10 digits), the token (8 hex digits), and the dots and ".tmp".
    room = _NAME_MAX - len(".0123456789.01234567.tmp")
    if len(prefix.encode("utf-8", "surrogateescape")) <= room:
        return prefix
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    short = name.encode("utf-8", "surrogateescape")[: room - 3 - len(digest)].decode("utf-8", "ignore")
    return f".{short}~{digest}."


def _remove_stale_temporaries(folder, prefix):
    """Remove the temporaries of this destination left by saves that were killed (their process is gone)."""
    pattern = re.compile(re.escape(prefix) + r"([0-9]+)\.[0-9a-f]{8}\.tmp")
    try:
        entries = list(os.scandir(folder or "."))
    except OSError:
        return  # the save itself reports what is wrong with the directory
    for entry in entries:
        found = pattern.fullmatch(entry.name)
        if found is None or int(found.group(1)) == os.getpid() or _running(int(found.group(1))):
            continue  # not one of ours, or a save in progress (in this process or another)
        with contextlib.suppress(OSError):  # gone already (another save cleaned it), or not ours to remove
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)


def _running(pid):
    """Whether a process with id ``pid`` exists on this machine."""
    if pid <= 0:
        return False
    if os.name == "nt":
        return True  # os.kill(pid, 0) would terminate the process there, not probe it: keep every file
    try:
        os.kill(pid, 0)  # signal 0: only checks that the process exists and may be signalled
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # PermissionError among them
        return True  # it exists (another user's), or cannot be checked: keep its file
    return True


def _replace(path, fields):
    """Write ``fields`` to a new file beside ``path``, then rename it over ``path`` (atomic)."""
    folder, name = os.path.split(path)
    prefix = _temporary_prefix(name)
    _remove_stale_temporaries(folder, prefix)
    temporary, step = None, "creating a temporary file beside it"
    try:
        for _ in range(100):
            # The process id lets a later save tell a killed save's file from one in progress.
            temporary = os.path.join(folder, f"{prefix}{os.getpid()}.{secrets.token_hex(4)}.tmp")
            try:  # O_EXCL: never reuses a file; mode 0o666 minus the umask, as for any new file
                descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
                                     | getattr(os, "O_CLOEXEC", 0), 0o666)
            except FileExistsError:
                temporary = None  # another's file, not ours to remove
                continue
            break
        else:
            raise FileExistsError(errno.EEXIST, "100 temporary names beside it were all taken")
        with os.fdopen(descriptor, "wb") as stream:
            step = "writing it"
            _write_archive(stream, fields)
            stream.flush()
            os.fsync(stream.fileno())  # the data reaches the disk before the rename does
        step = "renaming the temporary file over it"
        os.replace(temporary, path)
    except BaseException as exc:  # KeyboardInterrupt too: never leave the temporary behind
        # The name is set before the open: an interrupt right after the open still finds the file. It holds
        # this process's id and a fresh token, so a name whose file was never created is nobody else's either.
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        if isinstance(exc, OSError) and exc.errno is not None:
            # The system names the temporary file, which the caller never heard of: name the destination.
            raise OSError(exc.errno, f"cannot save the model to {path!r}: {exc.strerror} (while {step})") from exc
        raise


def _write_archive(stream, fields):
    """The ``.npz`` layout of ``np.savez`` (stored members), written without pickle."""
    write_npz(stream, fields)


def _build(kind, n_visible, n_hidden, arrays, units, T):
    """The model, rebuilt (and so checked) by its constructor."""
    if kind == "RBM":
        return RBM(n_visible, n_hidden, W=arrays["W"], b_visible=arrays["b_visible"], b_hidden=arrays["b_hidden"],
                   units=units, T=T)
    return BoltzmannMachine(n_visible, n_hidden, mask=arrays["mask"], W=arrays["W"], b=arrays["b"], units=units, T=T)


def _scalar(archive, key, kind):
    path = archive.path
    if key not in archive.members:
        raise ValueError(f"{path} is not a complete bmlib model file: the field {key!r} is missing")
    member = archive.members[key]
    ok = member.shape == () and (member.dtype.kind == "U" if kind is str else member.dtype.kind in "iuf")
    if not ok:
        raise ValueError(f"{path}: the field {key!r} must be a single {kind.__name__}; got {member.dtype} "
                         f"of shape {member.shape}")
    if member.dtype.itemsize > 4 * _MAX_TEXT:
        raise ValueError(f"{path}: the field {key!r} must have at most {_MAX_TEXT} characters; got {member.dtype}")
    value = archive.read(key).item()
    if kind is int:
        if not float(value).is_integer():  # a fractional size must not be truncated silently
            raise ValueError(f"{path}: the field {key!r} must be a whole number; got {value!r}")
        value = int(value)
    return value


def load_model(path):
    """Read a model written by :func:`save_model`.

    Only a regular file is read (symlinks are followed). Every member's
    ``.npy`` header is checked against the model's kind and sizes, and the
    memory they need against ``bmlib.MEMORY_BUDGET``, before any array is
    read, so a hostile file (an extra or oversized member, Python objects, a
    zip bomb) is refused without reading its data.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    BoltzmannMachine or RBM
        Bit-for-bit the parameters that were saved.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If ``path`` is not a regular file (a directory, a FIFO, a device such
        as ``/dev/zero``) or holds a NUL byte, if the file is damaged or
        truncated, is not a bmlib model file, has a newer format version, holds
        members other than its fields or arrays of Python objects, declares
        arrays or a model needing more than ``bmlib.MEMORY_BUDGET``, or its
        fields do not fit together (names, shapes, dtypes, sizes, units,
        temperature, symmetry, mask). The message names the file, and the
        member or field at fault.

    Examples
    --------
    >>> import os, tempfile, bmlib as bm
    >>> folder = tempfile.mkdtemp()
    >>> path = bm.save_model(os.path.join(folder, "m"), bm.RBM(3, 2, rng=0))
    >>> bm.load_model(path)
    RBM(n_visible=3, n_hidden=2, units='spins', T=1.0)
    >>> bm.load_model(folder)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ... is a directory, not a bmlib model file: only a regular file is read
    """
    path = _source(path)
    with Archive(path, _FIELDS) as archive:
        tag = _scalar(archive, "format", str)
        if tag != FORMAT_TAG:
            raise ValueError(f"{path} is not a bmlib model file: its format tag is {tag!r}, expected {FORMAT_TAG!r}")
        version = _scalar(archive, "version", int)
        if not 1 <= version <= FORMAT_VERSION:
            raise ValueError(f"{path} has file-format version {version}; this bmlib reads versions 1 to "
                             f"{FORMAT_VERSION}")
        kind = _scalar(archive, "kind", str)
        if kind not in _ARRAYS:
            raise ValueError(f"{path}: unknown model kind {kind!r}; expected one of {sorted(_ARRAYS)}")
        n_v, n_h = _scalar(archive, "n_visible", int), _scalar(archive, "n_hidden", int)
        need = _model_bytes(kind, n_v, n_h)
        if n_v >= 0 and n_h >= 0 and need > MEMORY_BUDGET:  # negative sizes: refused by the shapes below
            raise ValueError(f"{path}: a {kind} of n_visible = {n_v} and n_hidden = {n_h} would need "
                             f"{need:,} bytes ({_format_bytes(need)}) of memory (its weights and their working copies), above "
                             f"bmlib's budget of {_format_bytes(MEMORY_BUDGET)} (bmlib.MEMORY_BUDGET); the file "
                             f"is refused before its arrays are read")
        units, T = _scalar(archive, "units", str), _scalar(archive, "T", float)
        n = n_v + n_h
        shapes = {"W": (n, n), "b": (n,), "mask": (n, n)} if kind == "BoltzmannMachine" else {
            "W": (n_v, n_h), "b_visible": (n_v,), "b_hidden": (n_h,)}
        archive.refuse_others({*_SCALARS, *shapes})
        for key, shape in shapes.items():  # every header is checked before the first array is read
            if key not in archive.members:
                raise ValueError(f"{path} is not a complete bmlib model file: the field {key!r} is missing")
            member = archive.members[key]
            if member.shape != shape:
                raise ValueError(f"{path}: {key} has shape {member.shape} but n_visible = {n_v} and "
                                 f"n_hidden = {n_h} need {shape}")
            if member.dtype.kind not in "biuf":
                raise ValueError(f"{path}: {key} must hold real numbers; got dtype {member.dtype}")
        arrays = {key: archive.read(key) for key in shapes}
    try:
        return _build(kind, n_v, n_h, arrays, units, T)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path} holds an invalid {kind}: {exc}") from None
