"""Model files at the edges: atomic and explicit saves, and hostile files refused before they are read."""
import errno
import io
import os
import shutil
import struct
import subprocess
import tracemalloc
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

import bmlib as bm
import bmlib.models.io
from bmlib.models._npz import Archive

#: Loading a refused file may allocate this much at most (the good files here are a few hundred bytes).
FEW_MB = 4 * 2**20


@pytest.fixture
def rbm():
    return bm.RBM(4, 2, units="spins", T=1.3, init_scale=0.5, rng=2)


@pytest.fixture
def machine():
    return bm.BoltzmannMachine(4, n_hidden=2, mask=bm.encoder_mask(2, 2), units="bits", T=0.7, init_scale=0.8, rng=3)


def assert_same(a, b):
    assert type(a) is type(b) and (a.n_visible, a.n_hidden, a.units, a.T) == (b.n_visible, b.n_hidden, b.units, b.T)
    for key in ("W", "b", "mask") if isinstance(a, bm.BoltzmannMachine) else ("W", "b_visible", "b_hidden"):
        np.testing.assert_array_equal(getattr(a, key), getattr(b, key))


# --- saving: overwrite, paths, invalid models ---


def test_an_existing_file_is_replaced_only_when_asked(rbm, tmp_path):
    path = bm.save_model(tmp_path / "model", rbm)
    before = Path(path).read_bytes()
    other = bm.RBM(4, 2, rng=9)
    for target in (tmp_path / "model", tmp_path / "model.npz"):  # "model" means model.npz, which exists
        with pytest.raises(FileExistsError, match=r"model.npz already exists; pass overwrite=True to replace it"):
            bm.save_model(target, other)
        assert Path(path).read_bytes() == before
    assert bm.save_model(tmp_path / "model", other, overwrite=True) == path
    assert_same(bm.load_model(path), other)
    assert os.listdir(tmp_path) == ["model.npz"]
    with pytest.raises(TypeError, match="overwrite must be True or False; got 'yes'"):
        bm.save_model(tmp_path / "model", other, overwrite="yes")


def test_a_new_file_gets_the_usual_permissions(rbm, tmp_path):
    # The temporary file is renamed into place: it must be created like any other new file (umask applies),
    # not with the owner-only mode of tempfile.mkstemp.
    umask = os.umask(0o022)
    try:
        path = bm.save_model(tmp_path / "model", rbm)
    finally:
        os.umask(umask)
    assert os.stat(path).st_mode & 0o777 == 0o644


@pytest.mark.parametrize("given, message", [
    ("adir", r"path must name a file, not a directory; '.*adir' is a directory"),
    ("adir.npz", r"path must name a file, not a directory; '.*adir.npz' is a directory"),
    ("adir/", r"path must name a file, but its last part is ''"),
    ("adir/.npz", r"path must name a file, but its last part is '.npz'"),
])
def test_a_path_that_names_no_file_is_refused(rbm, tmp_path, given, message):
    (tmp_path / "adir").mkdir()
    (tmp_path / "adir.npz").mkdir()
    with pytest.raises(ValueError, match=message):
        bm.save_model(os.path.join(tmp_path, given), rbm, overwrite=True)
    assert sorted(os.listdir(tmp_path)) == ["adir", "adir.npz"] and os.listdir(tmp_path / "adir") == []


def test_other_bad_paths(rbm, tmp_path):
    with pytest.raises(ValueError, match=r"path must name a file, but its last part is ''; got ''"):
        bm.save_model("", rbm)
    with pytest.raises(FileNotFoundError, match=r"the directory '.*missing' does not exist"):
        bm.save_model(tmp_path / "missing" / "m", rbm)
    with pytest.raises(TypeError, match="path must be a str or os.PathLike; got int"):
        bm.save_model(3, rbm)
    with pytest.raises(TypeError, match="path must be a str or os.PathLike giving a str; got b'm'"):
        bm.save_model(b"m", rbm)


@pytest.mark.parametrize("kind, key, message", [
    ("rbm", "W", r"W must be finite; W\[0, 1\] = nan"),
    ("rbm", "b_visible", r"b_visible must be finite; b_visible\[1\] = nan"),
    ("rbm", "b_hidden", r"b_hidden must be finite; b_hidden\[1\] = inf"),
    ("machine", "W", r"W must be finite; W\[0, 1\] = nan"),
    ("machine", "b", r"b must be finite; b\[1\] = nan"),
])
def test_a_model_that_became_nan_is_refused_at_save(kind, key, message, request, tmp_path):
    model = request.getfixturevalue(kind)
    array = getattr(model, key)
    if array.ndim == 2:
        array[1, 0] = array[0, 1] = np.nan
    else:
        array[1] = np.inf if key == "b_hidden" else np.nan
    with pytest.raises(ValueError, match="model cannot be saved, as load_model would refuse it: " + message):
        bm.save_model(tmp_path / "m", model)
    assert os.listdir(tmp_path) == []


def test_an_invalid_temperature_or_mask_is_refused_at_save(machine, tmp_path):
    machine.T = float("nan")
    with pytest.raises(ValueError, match="model cannot be saved.*T must be finite and > 0; got nan"):
        bm.save_model(tmp_path / "m", machine)
    machine.T = 1.0
    machine.mask[0, 1] = False  # W[0, 1] is not 0: the file would be refused by load_model
    with pytest.raises(ValueError, match=r"model cannot be saved.*mask must be symmetric; mask\[0, 1\] = False"):
        bm.save_model(tmp_path / "m", machine)
    assert os.listdir(tmp_path) == []


# --- saving: atomic replacement ---


def failing_writer(limit, error):
    """A replacement for ``bmlib.models.io._write_archive`` that writes ``limit`` bytes of the real file, then fails."""
    real = bmlib.models.io._write_archive

    class Stream:
        def __init__(self, stream):
            self.stream, self.written = stream, 0

        def write(self, data):
            if self.written + len(data) > limit:
                self.stream.write(bytes(data)[: limit - self.written])
                self.written = limit
                raise error
            self.written += len(data)
            return self.stream.write(data)

        def __getattr__(self, name):  # seek, tell, flush: the real file's
            return getattr(self.stream, name)

    def write(stream, fields):
        real(Stream(stream), fields)
        raise AssertionError(f"the writer was expected to fail within {limit} bytes")

    return write


@pytest.mark.parametrize("error", [KeyboardInterrupt(), OSError(errno.ENOSPC, "No space left on device")],
                         ids=["interrupt", "disk-full"])
@pytest.mark.parametrize("limit", [0, 300, 1200])  # nothing, inside the first members, inside W
def test_a_failed_save_leaves_the_old_file_intact(rbm, tmp_path, monkeypatch, error, limit):
    path = bm.save_model(tmp_path / "model", rbm)
    before = Path(path).read_bytes()
    assert limit < len(before)
    monkeypatch.setattr(bmlib.models.io, "_write_archive", failing_writer(limit, error))
    with pytest.raises(type(error)):
        bm.save_model(path, bm.RBM(4, 2, rng=5), overwrite=True)
    assert os.listdir(tmp_path) == ["model.npz"]  # the temporary file is gone
    assert Path(path).read_bytes() == before
    assert_same(bm.load_model(path), rbm)
    with pytest.raises(type(error)):
        bm.save_model(tmp_path / "new", rbm)
    assert os.listdir(tmp_path) == ["model.npz"]  # and no half-written new file either


def test_a_full_disk_leaves_the_old_file_intact(rbm, tmp_path):
    """On a real 64 KiB tmpfs (needs root or CAP_SYS_ADMIN to mount; skipped otherwise)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no mount command to make a small tmpfs")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        path = bm.save_model(disk / "model", rbm)
        before = Path(path).read_bytes()
        big = bm.RBM(100, 100, rng=0)  # 80 kB of weights: more than the disk holds
        with pytest.raises(OSError) as raised:
            bm.save_model(path, big, overwrite=True)
        assert raised.value.errno == errno.ENOSPC
        assert os.listdir(disk) == ["model.npz"]
        assert Path(path).read_bytes() == before
        assert_same(bm.load_model(path), rbm)
    finally:
        subprocess.run(["umount", str(disk)], check=True)


# --- loading hostile files ---


def fields_of(model):
    """The arrays save_model writes, by field name."""
    kind = type(model).__name__
    fields = {"format": "bmlib-model", "version": 1, "kind": kind, "units": model.units, "T": model.T,
              "n_visible": model.n_visible, "n_hidden": model.n_hidden}
    keys = ("W", "b", "mask") if kind == "BoltzmannMachine" else ("W", "b_visible", "b_hidden")
    fields.update({key: getattr(model, key) for key in keys})
    return {key: np.asarray(value) for key, value in fields.items()}


def npy(array):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asarray(array), allow_pickle=True)
    return buffer.getvalue()


def npy_header(shape, dtype="<f8"):
    """Only the header of an .npy file declaring ``shape`` (no data)."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buffer.getvalue()


def write_zip(path, members, compress=zipfile.ZIP_STORED):
    """A zip archive of ``members`` (name: bytes or array), written member by member."""
    with zipfile.ZipFile(path, "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # duplicate names, on purpose
        for name, data in members:
            info = zipfile.ZipInfo(name)
            info.compress_type = compress
            archive.writestr(info, data if isinstance(data, bytes) else npy(data))
    return path


def model_zip(path, model, compress=zipfile.ZIP_STORED, **changes):
    """A model file with some members replaced (bytes or arrays) or removed (None); ``x_npy=`` adds member x.npy."""
    members = {key + ".npy": value for key, value in fields_of(model).items()}
    for key, value in changes.items():
        name = key[: -len("_npy")] + ".npy" if key.endswith("_npy") else key + ".npy"
        if value is None:
            del members[name]
        else:
            members[name] = value
    return write_zip(path, members.items(), compress)


def declare_size(path, member, size):
    """Rewrite the uncompressed size that the zip directory (and local header) declare for ``member``."""
    data = bytearray(Path(path).read_bytes())
    with zipfile.ZipFile(path) as archive:
        start, info = archive.start_dir, archive.getinfo(member)
    struct.pack_into("<I", data, info.header_offset + 22, size)
    while data[start: start + 4] == b"PK\x01\x02":
        name_length, extra_length, comment_length = struct.unpack_from("<HHH", data, start + 28)
        if data[start + 46: start + 46 + name_length].decode() == member:
            struct.pack_into("<I", data, start + 24, size)
        start += 46 + name_length + extra_length + comment_length
    Path(path).write_bytes(bytes(data))
    return path


def refused_within_few_mb(path, match):
    """Load ``path``: a ValueError matching ``match``, while Python allocated at most a few MB."""
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=match):
            bm.load_model(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < FEW_MB, f"loading {path} allocated {peak / 2**20:.0f} MiB before refusing it"


def test_an_extra_member_declaring_a_gibibyte_is_refused_unread(rbm, tmp_path):
    gib = 2**27  # float64 values
    path = model_zip(tmp_path / "extra.npz", rbm, zipfile.ZIP_DEFLATED,
                     extra_npy=npy_header((gib,)) + bytes(2**16))
    declare_size(path, "extra.npy", 128 + 8 * gib)
    refused_within_few_mb(path, r"extra.npz is not a bmlib model file: it holds the unexpected member 'extra.npy' "
                                r"\(expected only T.npy, W.npy")


def test_a_member_declaring_eight_tebibytes_is_refused_unread(machine, tmp_path):
    n = 2**20  # W of shape (n, n): 8 TiB of float64, and sizes in the file that ask for exactly that
    path = model_zip(tmp_path / "huge.npz", machine, n_visible=np.array(n - 2), W=npy_header((n, n)),
                     b=np.zeros(n), mask=npy_header((n, n), "|b1"))
    refused_within_few_mb(path, r"huge.npz: the member 'W.npy' declares 128 bytes but its .npy header "
                                r"\(shape \(1048576, 1048576\), dtype float64\) needs 8,796,093,022,336")
    path = model_zip(tmp_path / "huge.npz", machine, W=npy_header((n, n)))  # sizes in the file: n = 6
    refused_within_few_mb(path, r"the member 'W.npy' declares 128 bytes but its .npy header")


def test_a_zip_bomb_is_refused_before_decompression(tmp_path):
    # An RBM whose sizes ask for a 1 GiB W, and a deflated W whose zip entry declares that 1 GiB
    # (consistent with its .npy header) from a few kB of compressed zeros.
    n_v, n_h = 2**13, 2**14
    model = bm.RBM(2, 2)
    path = model_zip(tmp_path / "bomb.npz", model, zipfile.ZIP_DEFLATED, n_visible=np.array(n_v),
                     n_hidden=np.array(n_h), W=npy_header((n_v, n_h)) + bytes(2**20), b_visible=np.zeros(n_v),
                     b_hidden=np.zeros(n_h))
    declare_size(path, "W.npy", 128 + 8 * n_v * n_h)
    refused_within_few_mb(path, r"bomb.npz: the member 'W.npy' declares 1,073,741,952 bytes, more than its "
                                r"[0-9,]+ bytes on disk can hold")


def test_a_member_longer_than_the_file_is_refused(rbm, tmp_path):
    path = model_zip(tmp_path / "m.npz", rbm)
    data = bytearray(Path(path).read_bytes())
    with zipfile.ZipFile(path) as archive:
        start = archive.start_dir
    struct.pack_into("<II", data, start + 20, 2**31, 2**31)  # compressed and uncompressed size
    Path(path).write_bytes(bytes(data))
    refused_within_few_mb(path, r"damaged, truncated or not an .npz archive \(EOFError: format.npy declares "
                                r"2,147,483,648 bytes but the file has only")
    path = declare_size(model_zip(tmp_path / "m.npz", rbm), "W.npy", 200)
    refused_within_few_mb(path, r"damaged, truncated or not an .npz archive \(EOFError: W.npy is stored "
                                r"uncompressed but declares 200 bytes in 192\)")


@pytest.mark.parametrize("member, content, message", [
    ("W.npy", b"PK\x03\x04 half of something", r"the member 'W.npy' is not a .npy array \(it starts with b'PK"),
    ("W.npy", b"", r"the member 'W.npy' is not a .npy array \(it starts with b''\)"),
    ("W.npy", npy(np.zeros((4, 2)))[:150], r"the member 'W.npy' declares 150 bytes but its .npy header "
                                           r"\(shape \(4, 2\), dtype float64\) needs 192"),
    ("W", npy(np.zeros((4, 2))), r"it holds the unexpected member 'W' \("),
    ("b.npy", npy(np.zeros(6)), r"it holds the unexpected member 'b.npy' \(expected only T.npy, W.npy, b_hidden.npy"),
    ("notes.txt", b"hello", r"it holds the unexpected member 'notes.txt'"),
])
def test_a_member_that_is_not_a_model_array_is_refused(rbm, tmp_path, member, content, message):
    members = {key + ".npy": value for key, value in fields_of(rbm).items()}
    if member.startswith("W"):
        del members["W.npy"]
    members[member] = content
    path = write_zip(tmp_path / "m.npz", members.items())
    with pytest.raises(ValueError, match=r"m.npz(:| is not a bmlib model file:) .*" + message):
        bm.load_model(path)


def test_a_repeated_member_is_refused(rbm, tmp_path):
    members = [(key + ".npy", value) for key, value in fields_of(rbm).items()] + [("W.npy", np.zeros((4, 2)))]
    path = write_zip(tmp_path / "m.npz", members)
    with pytest.raises(ValueError, match=r"m.npz is not a bmlib model file: it holds the member 'W.npy' twice"):
        bm.load_model(path)


def raw_npy(header_text, version=b"\x01\x00"):
    """An .npy member with a hand-written header text."""
    text = header_text.encode("latin1")
    length = struct.pack("<H" if version == b"\x01\x00" else "<I", len(text))
    return b"\x93NUMPY" + version + length + text


@pytest.mark.parametrize("content, message", [
    # Not closed: numpy's Python-2 header filter lets tokenize.TokenError escape.
    (raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4, 2), \n"), r"malformed .npy header \(TokenError"),
    (raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4, 2) 'x'}\n"),
     r"malformed .npy header \(ValueError: Cannot parse header"),
    (raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4, 2.5)}\n"), r"malformed .*shape is not valid"),
    (raw_npy("{'descr': 'no such dtype', 'fortran_order': False, 'shape': (4, 2)}\n"), r"malformed .*descr"),
    (raw_npy("[1, 2]\n"), r"malformed .npy header \(ValueError: Header is not a dictionary"),
    (raw_npy("{'descr': '<f8', 'shape': (4, 2)}\n"), r"malformed .*correct keys"),
    (raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4, 2)}")[:20], r"malformed .npy header \(ValueError: EOF"),
    (raw_npy("{}", b"\x03\x00"), r"uses .npy format version 3.0; bmlib reads 1.0 and 2.0"),
    (b"\x93NUMPY\x02\x00" + struct.pack("<I", 2**32 - 1), r"declares a .npy header of 4,294,967,295 bytes; at most 10,000"),
])
def test_a_malformed_npy_header_is_refused_by_name(rbm, tmp_path, content, message):
    path = model_zip(tmp_path / "m.npz", rbm, W=content)
    with pytest.raises(ValueError, match=r"m.npz: the member 'W.npy' .*" + message):
        bm.load_model(path)


@pytest.mark.parametrize("key, value, message", [
    ("n_visible", 3.9, r"the field 'n_visible' must be a whole number; got 3.9"),
    ("n_hidden", 2.5, r"the field 'n_hidden' must be a whole number; got 2.5"),
    ("version", 1.5, r"the field 'version' must be a whole number; got 1.5"),
    ("n_visible", np.nan, r"the field 'n_visible' must be a whole number; got nan"),
    ("n_visible", "4", r"the field 'n_visible' must be a single int; got <U1 of shape \(\)"),
    ("n_visible", [4], r"the field 'n_visible' must be a single int; got int64 of shape \(1,\)"),
    ("units", "spins" * 20, r"the field 'units' must have at most 64 characters; got <U100"),
    ("W", np.zeros((4, 2), complex), r"W must hold real numbers; got dtype complex128"),
    ("b_hidden", np.array(["a", "b"]), r"b_hidden must hold real numbers; got dtype <U1"),
])
def test_fractional_sizes_and_wrong_dtypes_are_refused(rbm, tmp_path, key, value, message):
    path = model_zip(tmp_path / "m.npz", rbm, **{key: np.asarray(value)})
    with pytest.raises(ValueError, match=r"m.npz: " + message):
        bm.load_model(path)


def test_whole_number_sizes_stored_as_floats_still_load(rbm, tmp_path):
    path = model_zip(tmp_path / "m.npz", rbm, n_visible=np.array(4.0), n_hidden=np.array(2.0))
    assert_same(bm.load_model(path), rbm)


UNPICKLED = []


def record_unpickling():
    UNPICKLED.append(True)


class Trap:
    """An object whose unpickling leaves a trace in UNPICKLED."""

    def __reduce__(self):
        return record_unpickling, ()


@pytest.mark.parametrize("kind, key", [("rbm", key) for key in fields_of(bm.RBM(1, 1))]
                         + [("machine", key) for key in ("W", "b", "mask")])
def test_pickled_objects_are_refused_in_every_field(kind, key, request, tmp_path):
    model = request.getfixturevalue(kind)
    shape = np.shape(fields_of(model)[key])
    trap = np.empty(shape, dtype=object)
    trap[...] = Trap()
    path = model_zip(tmp_path / "m.npz", model, **{key: trap})
    with pytest.raises(ValueError, match=rf"cannot be read as a bmlib model: the member '{key}.npy' holds Python "
                                         r"objects \(dtype object\), which need pickle; bmlib loads with "
                                         r"allow_pickle=False"):
        bm.load_model(path)
    assert UNPICKLED == []


def test_compressed_files_from_numpy_still_load(rbm, machine, tmp_path):
    for model in (rbm, machine):
        path = tmp_path / "compressed.npz"
        np.savez_compressed(path, **fields_of(model))
        assert_same(bm.load_model(path), model)


def test_other_zip_methods_and_encryption_are_refused(rbm, tmp_path):
    path = model_zip(tmp_path / "m.npz", rbm, zipfile.ZIP_BZIP2)
    with pytest.raises(ValueError, match=r"m.npz: the member 'format.npy' uses zip compression method 12; bmlib "
                                         r"reads only stored or deflated members"):
        bm.load_model(path)
    path = model_zip(tmp_path / "m.npz", rbm)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        start = archive.start_dir
    data[start + 8] |= 0x1  # the "encrypted" flag of the first member in the central directory
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"m.npz: the member 'format.npy' is encrypted"):
        bm.load_model(path)


def test_a_directory_is_not_a_model_file(tmp_path):
    with pytest.raises(ValueError, match=r"is a directory, not a bmlib model file"):
        bm.load_model(tmp_path)


def test_the_reader_reads_only_what_it_checked(rbm, tmp_path):
    path = bm.save_model(tmp_path / "m", rbm)
    with Archive(path, fields_of(rbm)) as archive:
        assert archive.members["W"].shape == (4, 2) and archive.members["W"].dtype == np.float64
        np.testing.assert_array_equal(archive.read("W"), rbm.W)
        archive.refuse_others(fields_of(rbm))
        with pytest.raises(ValueError, match=r"m.npz is not a bmlib model file: it holds the unexpected member "
                                             r"'W.npy' \(expected only T.npy, b_hidden.npy"):
            archive.refuse_others(set(fields_of(rbm)) - {"W"})
