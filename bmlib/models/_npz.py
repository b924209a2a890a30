"""Read an ``.npz`` archive header first, so that a hostile file is refused before anything large is read.

``np.load`` reads a member in full (allocating whatever its header declares)
before the caller can look at it. :class:`Archive` instead lists the members,
parses every ``.npy`` header from a bounded number of bytes, and checks that
each member's size as declared by the zip directory is exactly what its header
needs. The caller then checks the shapes and dtypes against what it expects and
reads only the members it wants, with ``allow_pickle=False``.

Only a regular file is read (symlinks followed): a FIFO would block the
reader for ever and a device such as ``/dev/zero`` has no end. The file is
opened without blocking and checked through the opened descriptor, so that it
cannot be swapped for something else between the check and the read.

Memory: a stored member (the way numpy and bmlib write) cannot make a read
allocate more than the file's size on disk; a deflated one no more than
deflate's largest expansion of the bytes it occupies; and all members together
no more than ``bmlib.MEMORY_BUDGET``, checked before any is read.

:func:`write_npz` writes such an archive itself (stored members, as
``np.savez``), so that an interrupt at any point leaves nothing half-open that
would turn it into another error.
"""
from __future__ import annotations

import io
import math
import os
import stat
import struct
import tokenize
import zipfile
import zlib
from typing import NamedTuple

import numpy as np

from .._checks import MEMORY_BUDGET, _format_bytes

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
#: What each kind of file that is not a regular one is called in a refusal.
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


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
        Naming the file (and the member) if the file is not a regular file (a
        directory, a FIFO, a device), is a single ``.npy`` array, not a zip
        archive, or has a member that is unexpected, repeated, encrypted,
        compressed other than by deflate, not an ``.npy`` array, holds Python
        objects, or whose declared size does not match its header; or if its
        members together declare more than ``bmlib.MEMORY_BUDGET`` bytes.
    """

    def __init__(self, path, fields):
        self.path = path
        self._file = open_regular(path)
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
            self._check_total()
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

    def _check_total(self):
        # Each member is consistent with its size on disk; together they must also fit the budget, since
        # the caller reads them all (a few MB of deflated zeros can declare gigabytes).
        total = sum(member.nbytes for member in self.members.values())
        if total > MEMORY_BUDGET:
            names = ", ".join(member.info.filename for member in self.members.values())
            raise ValueError(f"{self.path}: its members declare arrays of {total:,} bytes ({_format_bytes(total)}) "
                             f"in all ({names}), above bmlib's budget of {_format_bytes(MEMORY_BUDGET)} "
                             f"(bmlib.MEMORY_BUDGET); the file is refused before they are read")

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


def _kind_of(mode):
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(path):
    """``path`` opened for binary reading if it is a regular file (after following symlinks), else a ValueError.

    The file is opened with ``O_NONBLOCK``, so that a FIFO without a writer
    cannot block, and the opened descriptor is checked with ``fstat``: a path
    swapped for a FIFO or a device after a check of the path is still refused.
    """
    try:  # the path first, for a socket (which cannot be opened) and a directory (not everywhere opened)
        mode = os.stat(path).st_mode
    except OSError:
        mode = None  # missing, or no permission: open() below raises the standard error
    if mode is not None and not stat.S_ISREG(mode):
        raise ValueError(f"path {str(path)!r} is {_kind_of(mode)}, not a bmlib model file: only a regular file is read")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    descriptor = os.open(path, flags)
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise ValueError(f"path {str(path)!r} is {_kind_of(mode)}, not a bmlib model file: only a regular file is read")
        # O_NONBLOCK has no effect on a regular file: nothing to undo.
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


# --- writing ---

#: Zip format constants (PKWARE APPNOTE 6.3): version 4.5 (zip64), members stored (method 0), no flags.
_ZIP_VERSION = 45
#: Every timestamp is 1980-01-01 00:00 (the zip epoch, as zipfile.ZipInfo's default): the same model gives
#: the same bytes.
_DOS_TIME, _DOS_DATE = 0, (0 << 9) | (1 << 5) | 1
#: A regular file, rw-r--r--, in the Unix part of the external attributes (zipfile writes ?rw-------).
_EXTERNAL_ATTR = (stat.S_IFREG | 0o644) << 16
_FFFF = 0xFFFFFFFF


class _Checksummed:
    """A write-only stream that passes bytes on, counting them and keeping their CRC-32."""

    def __init__(self, stream):
        self.stream, self.size, self.crc = stream, 0, 0

    def write(self, data):
        data = memoryview(data).cast("B")
        self.crc = zlib.crc32(data, self.crc)
        self.size += len(data)
        self.stream.write(data)
        return len(data)


def _write_npy(stream, array):
    """``array`` in ``.npy`` format onto ``stream`` (a writer of bytes), never with pickle."""
    np.lib.format.write_array(stream, array, allow_pickle=False)


def _local_header(name, crc, size):
    # Sizes 0xFFFFFFFF here, the real ones in the zip64 extra field (id 1: size, compressed size).
    extra = struct.pack("<HHQQ", 1, 16, size, size)
    return struct.pack("<IHHHHHIIIHH", 0x04034B50, _ZIP_VERSION, 0, 0, _DOS_TIME, _DOS_DATE, crc, _FFFF, _FFFF,
                       len(name), len(extra)) + name + extra


def _central_header(name, crc, size, offset):
    extra = struct.pack("<HHQQQ", 1, 24, size, size, offset)  # zip64: size, compressed size, header offset
    return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, (3 << 8) | _ZIP_VERSION, _ZIP_VERSION, 0, 0, _DOS_TIME,
                       _DOS_DATE, crc, _FFFF, _FFFF, len(name), len(extra), 0, 0, 0, _EXTERNAL_ATTR,
                       _FFFF) + name + extra


def write_npz(stream, arrays):
    """Write ``arrays`` to ``stream`` as an ``.npz`` archive of stored (uncompressed) ``.npy`` members.

    The layout is ``np.savez``'s, with zip64 records throughout (as numpy's
    ``force_zip64``), readable by ``np.load``, :mod:`zipfile` and unzip tools.
    It is written here rather than through :class:`zipfile.ZipFile`, whose
    writer refuses to close after an interrupt that came while it opened a
    member ("Can't close the ZIP file while there is an open writing handle"),
    replacing the ``KeyboardInterrupt`` by that ``ValueError``; here an
    interrupt simply propagates, leaving a partial file that the caller discards.

    Parameters
    ----------
    stream : binary file
        Open for writing, seekable, positioned at 0.
    arrays : dict of str to ndarray
        Member names (without ``.npy``, ASCII) and arrays, none of dtype object.

    Examples
    --------
    >>> import io, numpy as np
    >>> from bmlib.models._npz import write_npz
    >>> buffer = io.BytesIO()
    >>> write_npz(buffer, {"a": np.arange(3), "b": np.eye(2, dtype=bool)})
    >>> with np.load(io.BytesIO(buffer.getvalue()), allow_pickle=False) as f:
    ...     f["a"].tolist(), f["b"].tolist()
    ([0, 1, 2], [[True, False], [False, True]])
    """
    directory = []
    for key, array in arrays.items():
        name = (key + ".npy").encode("ascii")
        offset = stream.tell()
        stream.write(_local_header(name, 0, 0))  # a placeholder of the same length until CRC and size are known
        member = _Checksummed(stream)
        _write_npy(member, np.asarray(array))
        end = stream.tell()
        stream.seek(offset)
        stream.write(_local_header(name, member.crc, member.size))
        stream.seek(end)
        directory.append(_central_header(name, member.crc, member.size, offset))
    start = stream.tell()
    central = b"".join(directory)
    stream.write(central)
    end = stream.tell()
    count = len(directory)
    # The zip64 end record and its locator, then the classic end record pointing to them.
    stream.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, (3 << 8) | _ZIP_VERSION, _ZIP_VERSION, 0, 0, count,
                             count, len(central), start))
    stream.write(struct.pack("<IIQI", 0x07064B50, 0, end, 1))
    stream.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(count, 0xFFFF), min(count, 0xFFFF),
                             min(len(central), _FFFF), min(start, _FFFF), 0))
