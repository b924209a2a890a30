"""Read an ``.npz`` archive header first, so that a hostile file is refused before anything large is read.

``np.load`` reads a member in full (allocating whatever its header declares)
before the caller can look at it. :class:`Archive` instead lists the members,
parses every ``.npy`` header from a bounded number of bytes, and checks that
each member's size as declared by the zip directory is exactly what its header
needs. The caller then checks the shapes and dtypes against what it expects and
reads only the members it wants, with ``allow_pickle=False``.

Memory: a stored member (the way numpy and bmlib write) cannot make a read
allocate more than the file's size on disk; a deflated one no more than
deflate's largest expansion of the bytes it occupies.
"""
from __future__ import annotations

import io
import math
import os
import tokenize
import zipfile
import zlib
from typing import NamedTuple

import numpy as np

_MAGIC = b"\x93NUMPY"
#: Longest ``.npy`` header text accepted; numpy's own default limit for untrusted files.
_MAX_HEADER = 10_000
#: Deflate expands its input at most about 1032-fold (258-byte matches in under 2 bits each);
#: a member declaring more than that is lying about its size.
_MAX_DEFLATE_RATIO = 1032
_READERS = {1: np.lib.format.read_array_header_1_0, 2: np.lib.format.read_array_header_2_0}
#: numpy's header parser can raise any of these on a malformed header (tokenize and ast leak through).
_HEADER_ERRORS = (ValueError, TypeError, SyntaxError, OverflowError, RecursionError, tokenize.TokenError)
_READ_ERRORS = (OSError, EOFError, ValueError, zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error)


def damaged(path, exc):
    """The error for a file that cannot be read at all, with the low-level cause in brackets."""
    return ValueError(
        f"{path} cannot be read as a bmlib model: the file is damaged, truncated or not an .npz archive "
        f"({type(exc).__name__}: {exc})"
    )


class Member(NamedTuple):
    """One ``.npy`` member as its header declares it."""

    shape: tuple
    dtype: np.dtype
    info: zipfile.ZipInfo

    @property
    def nbytes(self):
        # Python integers: a hostile shape cannot overflow this product.
        return math.prod(self.shape) * self.dtype.itemsize


class Archive:
    """An open ``.npz`` file whose members' shapes and dtypes are known before any data is read.

    Parameters
    ----------
    path : str
        The file; a missing file raises ``FileNotFoundError``.
    fields : collection of str
        The member names (without ``.npy``) that may appear; any other member is refused.

    Raises
    ------
    ValueError
        Naming the file (and the member) if the file is a directory, a single
        ``.npy`` array, not a zip archive, or has a member that is unexpected,
        repeated, encrypted, compressed other than by deflate, not an ``.npy``
        array, holds Python objects, or whose declared size does not match its header.
    """

    def __init__(self, path, fields):
        self.path = path
        if os.path.isdir(path):
            raise ValueError(f"{path} is a directory, not a bmlib model file")
        self._file = open(path, "rb")
        try:
            if self._file.read(len(_MAGIC)) == _MAGIC:
                raise ValueError(f"{path} is not a bmlib model file: it holds a single array, not an .npz archive")
            self._file.seek(0)
            try:
                self._zip = zipfile.ZipFile(self._file)
            except _READ_ERRORS as exc:
                raise damaged(path, exc) from None
            infos = self._zip.infolist()
            self._check_names([info.filename for info in infos], fields)
            file_size = os.fstat(self._file.fileno()).st_size
            self.members = {}
            for info in infos:
                self._check_size(info, file_size)
                self.members[info.filename[: -len(".npy")]] = self._read_header(info)
        except BaseException:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if getattr(self, "_zip", None) is not None:
            self._zip.close()
        self._file.close()

    def refuse_others(self, fields):
        """Raise if the archive holds a member other than ``fields``."""
        for name in self.members:
            if name not in fields:
                raise self._unexpected(name + ".npy", fields)

    def read(self, name):
        """The array of member ``name``, read without pickle; its checksum is verified."""
        member = self.members[name]
        try:
            with self._zip.open(member.info) as stream:
                return np.lib.format.read_array(stream, allow_pickle=False)
        except _READ_ERRORS as exc:
            raise damaged(self.path, exc) from None

    def _unexpected(self, member, fields):
        listed = ", ".join(f"{name}.npy" for name in sorted(fields))
        return ValueError(f"{self.path} is not a bmlib model file: it holds the unexpected member {member!r} "
                          f"(expected only {listed})")

    def _check_names(self, names, fields):
        # Names first, so that nothing of an unexpected member is read.
        seen = set()
        for name in names:
            if not name.endswith(".npy") or name[: -len(".npy")] not in fields:
                raise self._unexpected(name, fields)
            if name in seen:
                raise ValueError(f"{self.path} is not a bmlib model file: it holds the member {name!r} twice")
            seen.add(name)

    def _check_size(self, info, file_size):
        where = f"{self.path}: the member {info.filename!r}"
        if info.flag_bits & 0x1:
            raise ValueError(f"{where} is encrypted; bmlib model files are not")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise ValueError(f"{where} uses zip compression method {info.compress_type}; bmlib reads only "
                             f"stored or deflated members (as numpy writes them)")
        if info.compress_size > file_size:
            raise damaged(self.path, EOFError(f"{info.filename} declares {info.compress_size:,} bytes but the "
                                              f"file has only {file_size:,}"))
        if info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
            raise damaged(self.path, EOFError(f"{info.filename} is stored uncompressed but declares "
                                              f"{info.file_size:,} bytes in {info.compress_size:,}"))
        # Checked before anything is decompressed: reading allocates what the member declares.
        if info.file_size > _MAX_DEFLATE_RATIO * info.compress_size + 1024:
            raise ValueError(f"{where} declares {info.file_size:,} bytes, more than its {info.compress_size:,} "
                             f"bytes on disk can hold")

    def _read_header(self, info):
        where = f"{self.path}: the member {info.filename!r}"
        try:
            with self._zip.open(info) as stream:
                # Magic, version, length field and the longest header allowed: a bounded read even
                # when a version 2.0 header declares a length of up to 4 GiB.
                head = stream.read(len(_MAGIC) + 2 + 4 + _MAX_HEADER)
        except _READ_ERRORS as exc:
            raise damaged(self.path, exc) from None
        start = len(_MAGIC) + 2  # the magic string, then the format version (major, minor)
        if len(head) < start or not head.startswith(_MAGIC):
            raise ValueError(f"{where} is not a .npy array (it starts with {head[:start]!r})")
        major, minor = head[start - 2], head[start - 1]
        if major not in _READERS or minor != 0:
            raise ValueError(f"{where} uses .npy format version {major}.{minor}; bmlib reads 1.0 and 2.0")
        field = 2 if major == 1 else 4  # the header length is a little-endian uint16 (1.0) or uint32 (2.0)
        length = int.from_bytes(head[start: start + field], "little")
        if length > _MAX_HEADER:
            raise ValueError(f"{where} declares a .npy header of {length:,} bytes; at most {_MAX_HEADER:,} are allowed")
        try:
            shape, _, dtype = _READERS[major](io.BytesIO(head[start: start + field + length]))
        except _HEADER_ERRORS as exc:
            raise ValueError(f"{where} has a malformed .npy header ({type(exc).__name__}: {exc})") from None
        member = Member(shape, dtype, info)
        if dtype.hasobject:
            raise ValueError(f"{self.path} cannot be read as a bmlib model: the member {info.filename!r} holds "
                             f"Python objects (dtype {dtype}), which need pickle; bmlib loads with "
                             f"allow_pickle=False")
        needed = start + field + length + member.nbytes
        if info.file_size != needed:
            raise ValueError(f"{where} declares {info.file_size:,} bytes but its .npy header (shape {shape}, "
                             f"dtype {dtype}) needs {needed:,}")
        return member
