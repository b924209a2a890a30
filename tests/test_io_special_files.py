"""Model files that are not plain files, declared sizes beyond the budget, and saves that are killed or fail.

Loading must refuse a FIFO or a device before reading from it (a FIFO would block for ever, /dev/zero would
be read until memory runs out), and a file whose declared sizes need more than ``bmlib.MEMORY_BUDGET``
before inflating anything. Saving must clean up the temporaries that a killed save left, name the
destination the user gave in every error, and let an interrupt through with the old file intact.
"""
import errno
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

import bmlib as bm
import bmlib.models.io

#: A refusal may allocate this much at most before it is raised.
FEW_MB = 4 * 2**20
#: Bound on how long a load of a special file may take before the test calls it a hang (not a timing assert:
#: a refusal comes back at once, a regression would block or read for ever).
HANG = 60


@pytest.fixture
def rbm():
    return bm.RBM(4, 2, units="spins", T=1.3, init_scale=0.5, rng=2)


def load_in_thread(path):
    """Run ``bm.load_model(path)`` in a daemon thread; return what it raised, or fail if it does not return."""
    outcome = []

    def run():
        try:
            bm.load_model(path)
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG)
    assert outcome, f"load_model({str(path)!r}) did not return within {HANG} s: it blocks or reads without end"
    return outcome[0]


# --- loading: only regular files are read ---


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "model.npz"
    os.mkfifo(fifo)
    error = load_in_thread(fifo)  # no writer ever opens the FIFO: opening it to read would block for ever
    assert isinstance(error, ValueError)
    assert str(error) == f"path {str(fifo)!r} is a FIFO (named pipe), not a bmlib model file: only a regular file is read"


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
@pytest.mark.parametrize("through_link", [False, True], ids=["direct", "symlink"])
def test_a_device_is_refused_before_reading(device, through_link, tmp_path):
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    path = device
    if through_link:
        path = tmp_path / "model.npz"
        path.symlink_to(device)
    tracemalloc.start()
    try:
        error = load_in_thread(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(error, ValueError)
    assert str(error) == f"path {str(path)!r} is a character device, not a bmlib model file: only a regular file is read"
    assert peak < FEW_MB


def test_a_symlink_to_a_model_file_still_loads(rbm, tmp_path):
    path = bm.save_model(tmp_path / "m", rbm)
    link = tmp_path / "link.npz"
    link.symlink_to(path)
    np.testing.assert_array_equal(bm.load_model(link).W, rbm.W)


def test_the_opened_file_is_checked_not_only_the_path(tmp_path, monkeypatch):
    # A path that is a regular file when looked at but a FIFO when opened (it was swapped in between):
    # the check on the opened descriptor must catch it, and opening must not block.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    regular = tmp_path / "model.npz"
    regular.write_bytes(b"PK")
    real_open = os.open

    def swapping_open(path, flags, *args, **kwargs):
        if os.fspath(path) == str(regular):
            path = fifo
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(bmlib.models._npz.os, "open", swapping_open)
    error = load_in_thread(regular)
    assert isinstance(error, ValueError) and "is a FIFO (named pipe), not a bmlib model file" in str(error)


# --- loading: declared sizes against the budget, before anything is inflated ---


def deflated_zeros(archive, name, header, nbytes, chunk=2**24):
    """A deflated member ``name``: an .npy ``header`` then ``nbytes`` zero bytes, streamed (never held whole)."""
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    info._compresslevel = 1  # twice as fast as the default on zeros, at 1/230 of their size
    zeros = bytes(chunk)
    with archive.open(info, "w", force_zip64=True) as member:
        member.write(header)
        for start in range(0, nbytes, chunk):
            member.write(zeros[: min(chunk, nbytes - start)])


def npy_header(shape, dtype):
    import io
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": np.dtype(dtype).str, "fortran_order": False,
                                                  "shape": shape})
    return buffer.getvalue()


def small_npy(value):
    import io
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asarray(value), allow_pickle=False)
    return buffer.getvalue()


def crafted_machine(path, n):
    """A consistent BoltzmannMachine file of ``n`` units with zero weights, deflated to about n**2 / 25 bytes."""
    with zipfile.ZipFile(path, "w") as archive:
        for key, value in {"format": "bmlib-model", "version": 1, "kind": "BoltzmannMachine", "units": "spins",
                           "T": 1.0, "n_visible": n, "n_hidden": 0}.items():
            archive.writestr(key + ".npy", small_npy(value))
        deflated_zeros(archive, "W.npy", npy_header((n, n), "<f8"), 8 * n * n)
        deflated_zeros(archive, "b.npy", npy_header((n,), "<f8"), 8 * n)
        deflated_zeros(archive, "mask.npy", npy_header((n, n), "|b1"), n * n)
    return path


def test_a_crafted_deflated_file_beyond_the_model_budget_is_refused_before_inflating(tmp_path):
    # As the file (a 16000-unit machine in 2.2 MB, inflated to 2.2 GB before the constructor refused it),
    # with the fewest units that the constructor refuses (its weights and working copies need 4 GiB and 1 kB): a
    # file of 5 MB whose W and mask would inflate to 1.2 GB.
    n = 11586
    path = crafted_machine(tmp_path / "crafted.npz", n)
    assert path.stat().st_size < 8 * 2**20
    with pytest.raises(ValueError, match="above bmlib's budget"):
        bm.BoltzmannMachine(n)  # the constructor's own refusal, made before it allocates
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as raised:
            bm.load_model(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(raised.value) == (
        f"{path}: a BoltzmannMachine of n_visible = 11586 and n_hidden = 0 would need 4,295,532,672 bytes "
        f"(4 GiB) of memory (its weights and their working copies), above bmlib's budget of 4 GiB "
        f"(bmlib.MEMORY_BUDGET); the file is refused before its arrays are read")
    assert peak < FEW_MB, f"loading allocated {peak / 2**20:.0f} MiB before refusing the file"


@pytest.mark.parametrize("kind, sizes", [("BoltzmannMachine", (11585, 0)), ("BoltzmannMachine", (5000, 6585)),
                                         ("RBM", (2**13, 2**14)), ("RBM", (2**7, 2**20))])
def test_the_loader_refuses_exactly_what_the_constructor_refuses_for_memory(kind, sizes):
    # At the budget's edge: the loader's bound (checked before reading) is the constructor's, not another one.
    n_v, n_h = sizes
    assert bmlib.models.io._model_bytes(kind, n_v, n_h) <= bm.MEMORY_BUDGET
    bigger = (n_v + 1, n_h)
    assert bmlib.models.io._model_bytes(kind, *bigger) > bm.MEMORY_BUDGET
    with pytest.raises(ValueError, match="above bmlib's budget"):
        getattr(bm, kind)(*bigger)


def test_members_declaring_more_than_the_budget_together_are_refused_unread(tmp_path, monkeypatch):
    # Each member alone is consistent (its zeros deflate to what it occupies), but together they declare more
    # than the budget. The budget is lowered to 1 MiB for the test, so that the file is small and quick to make.
    monkeypatch.setattr(bmlib.models._npz, "MEMORY_BUDGET", 2**20)
    path = tmp_path / "big.npz"
    with zipfile.ZipFile(path, "w") as archive:
        for name in ("W.npy", "mask.npy", "b.npy"):
            deflated_zeros(archive, name, npy_header((2**16,), "<f8"), 8 * 2**16)  # 512 KiB each
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as raised:
            bm.load_model(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(raised.value) == (
        f"{path}: its members declare arrays of 1,572,864 bytes (1.5 MiB) in all (W.npy, mask.npy, b.npy), "
        f"above bmlib's budget of 1 MiB (bmlib.MEMORY_BUDGET); the file is refused before they are read")
    assert peak < 2**19  # less than one member
    monkeypatch.setattr(bmlib.models._npz, "MEMORY_BUDGET", 3 * 8 * 2**16)  # exactly what they declare: not refused
    with pytest.raises(ValueError, match="the field 'format' is missing"):
        bm.load_model(path)


# --- saving: temporaries of killed saves are removed by the next save ---


def temporaries(folder):
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


def dead_pid():
    """The id of a process that has just exited (and been reaped)."""
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                           check=True)
    return int(child.stdout)


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_killed_save_leaves_a_temporary_that_the_next_save_removes(signum, rbm, tmp_path):
    path = tmp_path / "model.npz"
    # The child writes the whole archive into its temporary file, says so, and waits there to be killed:
    # it dies mid-save every time, whatever the speed of this machine.
    script = textwrap.dedent(f"""
        import sys, threading
        sys.path.insert(0, {str(Path(bmlib.__file__).parents[1])!r})
        import bmlib as bm, bmlib.models.io
        write = bmlib.models.io._write_archive

        def write_then_hang(stream, fields):
            write(stream, fields)
            stream.flush()
            print("written", flush=True)
            threading.Event().wait()

        bmlib.models.io._write_archive = write_then_hang
        bm.save_model({str(path)!r}, bm.RBM(50, 20, rng=0))
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "written\n"
        os.kill(child.pid, signum)
        assert child.wait(HANG) == -signum
    finally:
        child.kill()
        child.wait()
    left = temporaries(tmp_path)
    assert len(left) == 1 and left[0].startswith(f".model.npz.{child.pid}.") and os.listdir(tmp_path) == left
    assert os.path.getsize(tmp_path / left[0]) > 8000  # the child's archive, whole
    bm.save_model(path, rbm)
    assert os.listdir(tmp_path) == ["model.npz"]
    np.testing.assert_array_equal(bm.load_model(path).W, rbm.W)


def test_only_stale_temporaries_of_the_same_destination_are_removed(rbm, tmp_path):
    dead = dead_pid()
    stale = [f".model.npz.{dead}.0123abcd.tmp"]
    kept = [f".model.npz.{os.getppid()}.0123abcd.tmp",  # a live process: a save in progress
            f".model.npz.{os.getpid()}.0123abcd.tmp",  # this process: maybe another thread's save
            f".other.npz.{dead}.0123abcd.tmp",  # another destination
            ".model.npz.0123abcd.tmp",  # no process id: written by an older bmlib, whose owner is unknown
            f".model.npz.{dead}.notes.tmp", f"model.npz.{dead}.0123abcd.tmp"]  # not bmlib's names
    for name in stale + kept:
        (tmp_path / name).write_bytes(b"half a model")
    bm.save_model(tmp_path / "model", rbm)
    assert sorted(os.listdir(tmp_path)) == sorted(kept + ["model.npz"])


# --- saving: every error names the destination ---


def mount_read_only(folder):
    """A read-only tmpfs at ``folder`` (root cannot write there either), or skip."""
    if shutil.which("mount") is None:
        pytest.skip("no mount command to make a read-only directory that root cannot write to")
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(folder)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a read-only tmpfs here (needed because root can write to any directory): "
                    f"{done.stderr.strip() or done.returncode}")


@pytest.mark.parametrize("case", ["proc", "proc-self", "sys", "read-only", "long-name"])
def test_a_failed_save_names_the_destination(case, rbm, tmp_path):
    name = "model"
    if case == "proc":
        folder = "/proc"
    elif case == "proc-self":
        folder = "/proc/self"
    elif case == "sys":
        folder = "/sys"
    elif case == "read-only":
        folder = tmp_path / "ro"
        mount_read_only(folder)
    else:
        folder, name = tmp_path, "x" * 252  # the destination's name has 256 characters with .npz: too long
    if not os.path.isdir(folder):
        pytest.skip(f"no {folder} here")
    path = os.path.join(folder, name + ".npz")
    try:
        with pytest.raises(OSError) as raised:
            bm.save_model(os.path.join(folder, name), rbm)
    finally:
        if case == "read-only":
            subprocess.run(["umount", str(folder)], check=True)
    message = str(raised.value)
    assert f"cannot save the model to {path!r}" in message, message
    assert ".tmp" not in message, message
    assert raised.value.errno in (errno.ENOENT, errno.EACCES, errno.EROFS, errno.ENAMETOOLONG, errno.EPERM)


def test_a_long_name_that_fits_is_saved_although_its_temporary_would_not(rbm, tmp_path):
    name = "x" * (255 - len(".npz"))  # the longest name a file may have here; the temporary adds to it
    path = bm.save_model(tmp_path / name, rbm)
    assert os.listdir(tmp_path) == [name + ".npz"]
    np.testing.assert_array_equal(bm.load_model(path).W, rbm.W)


def test_a_nul_byte_in_the_path_is_refused_by_name(rbm, tmp_path):
    bad = str(tmp_path / "a\0b")
    with pytest.raises(ValueError, match=r"path must not contain a NUL byte; got '.*a\\x00b'"):
        bm.save_model(bad, rbm)
    with pytest.raises(ValueError, match=r"path must not contain a NUL byte; got '.*a\\x00b'"):
        bm.load_model(bad)
    assert os.listdir(tmp_path) == []


def test_a_full_disk_names_the_destination_and_keeps_errno(rbm, tmp_path, monkeypatch):
    path = bm.save_model(tmp_path / "model", rbm)

    def full(stream, fields):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(bmlib.models.io, "_write_archive", full)
    with pytest.raises(OSError) as raised:
        bm.save_model(path, rbm, overwrite=True)
    assert raised.value.errno == errno.ENOSPC
    assert str(raised.value) == (f"[Errno 28] cannot save the model to {path!r}: No space left on device "
                                 f"(while writing it)")
    assert os.listdir(tmp_path) == ["model.npz"]


# --- saving: an interrupt goes through, the old file stays ---


def test_an_interrupt_at_any_line_of_a_save_propagates_and_leaves_old_or_new_file_whole(rbm, tmp_path):
    """Ctrl-C at each Python line that a save runs, in turn (it surfaced as "ValueError: Can't close the ZIP file").

    The interrupt is raised by a trace function at the k-th line event of ``save_model`` and everything it
    calls, for every k: the save must end in KeyboardInterrupt, with no temporary left behind, and the
    destination holding either the old file or (once the rename has happened) the new one, whole.
    """
    path = bm.save_model(tmp_path / "model", rbm)
    before = Path(path).read_bytes()
    new = bm.RBM(4, 2, rng=5)
    after = Path(bm.save_model(tmp_path / "reference", new)).read_bytes()
    os.unlink(tmp_path / "reference.npz")
    outcomes, previous = set(), sys.gettrace()  # a coverage tool's tracer, say: put back afterwards
    for k in range(1, 100_000):
        count = [0]

        def tracer(frame, event, arg):
            if event == "line":
                count[0] += 1
                if count[0] == k:
                    raise KeyboardInterrupt
            return tracer

        sys.settrace(tracer)
        try:
            bm.save_model(path, new, overwrite=True)
            finished = True
        except KeyboardInterrupt:
            finished = False
        finally:
            sys.settrace(previous)
        assert os.listdir(tmp_path) == ["model.npz"], f"interrupted at line event {k}: {os.listdir(tmp_path)}"
        content = Path(path).read_bytes()
        assert content in (before, after), f"interrupted at line event {k}: the file is neither the old nor the new"
        outcomes.add(content == after)
        if finished:
            break
        Path(path).write_bytes(before)
    assert finished and k > 100 and outcomes == {False, True}
