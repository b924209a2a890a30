"""Saving and loading models: exact round trips, and every kind of bad file refused by name."""
import zipfile
from pathlib import Path

import numpy as np
import pytest

import bmlib as bm


@pytest.fixture
def machine():
    m = bm.BoltzmannMachine(4, n_hidden=2, mask=bm.encoder_mask(2, 2), units="bits", T=0.7, init_scale=0.8, rng=3)
    m.b[:] = np.random.default_rng(4).normal(size=6)
    return m


@pytest.fixture
def rbm():
    r = bm.RBM(5, 3, units="spins", T=1.3, init_scale=0.5, rng=2)
    r.b_visible[:] = [0.1, -0.2, 0.3, 0.0, 1e-300]
    return r


def test_boltzmann_machine_round_trip_is_exact(machine, tmp_path):
    path = bm.save_model(tmp_path / "machine", machine)
    assert path.endswith("machine.npz")
    loaded = bm.load_model(path)
    assert type(loaded) is bm.BoltzmannMachine
    for name in ("W", "b", "mask"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(machine, name))
    assert (loaded.n_visible, loaded.n_hidden, loaded.units, loaded.T) == (4, 2, "bits", 0.7)
    data = bm.encoder_patterns(2, units="bits")
    assert loaded.log_likelihood(data) == machine.log_likelihood(data)


def test_rbm_round_trip_is_exact(rbm, tmp_path):
    loaded = bm.load_model(bm.save_model(tmp_path / "rbm.npz", rbm))
    assert type(loaded) is bm.RBM
    for name in ("W", "b_visible", "b_hidden"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(rbm, name))
    assert (loaded.n_visible, loaded.n_hidden, loaded.units, loaded.T) == (5, 3, "spins", 1.3)


def test_the_file_is_plain_npz_without_pickle(rbm, tmp_path):
    path = bm.save_model(tmp_path / "rbm.npz", rbm)
    with np.load(path, allow_pickle=False) as f:
        assert str(f["format"]) == "bmlib-model" and int(f["version"]) == 1 and str(f["kind"]) == "RBM"
        assert f["W"].shape == (5, 3)


def rewrite(path, **changes):
    """Copy an archive with some fields replaced (None removes a field)."""
    with np.load(path, allow_pickle=False) as f:
        fields = {k: f[k] for k in f.files}
    for key, value in changes.items():
        if value is None:
            del fields[key]
        else:
            fields[key] = np.asarray(value)
    np.savez(path, **fields)
    return path


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"format": "something-else"}, r"is not a bmlib model file: its format tag is 'something-else'"),
        ({"format": None}, r"the field 'format' is missing"),
        ({"version": 2}, r"has file-format version 2; this bmlib reads versions 1 to 1"),
        ({"kind": "DeepBeliefNet"}, r"unknown model kind 'DeepBeliefNet'"),
        ({"units": 3}, r"the field 'units' must be a single str"),
        ({"W": np.zeros((6, 5))}, r"W has shape \(6, 5\) but n_visible = 4 and n_hidden = 2 need \(6, 6\)"),
        ({"n_hidden": 3}, r"W has shape \(6, 6\) but n_visible = 4 and n_hidden = 3 need \(7, 7\)"),
        ({"mask": None}, r"the field 'mask' is missing"),
        ({"T": -1.0}, r"holds an invalid BoltzmannMachine: T must be finite and > 0; got -1.0"),
        ({"units": "pixels"}, r"holds an invalid BoltzmannMachine: units must be \"spins\" or \"bits\""),
        ({"mask": np.eye(6, dtype=bool)}, r"invalid BoltzmannMachine: mask must have a False diagonal"),
    ],
)
def test_mismatched_fields_are_refused(machine, tmp_path, changes, message):
    path = rewrite(bm.save_model(tmp_path / "m.npz", machine), **changes)
    with pytest.raises(ValueError, match=message):
        bm.load_model(path)


def test_asymmetric_or_unmasked_weights_are_refused(machine, tmp_path):
    W = machine.W.copy()
    W[0, 1] += 1.0
    path = rewrite(bm.save_model(tmp_path / "m.npz", machine), W=W)
    with pytest.raises(ValueError, match=r"invalid BoltzmannMachine: W must be symmetric; W\[0, 1\]"):
        bm.load_model(path)
    W = machine.W.copy()
    W[0, 2] = W[2, 0] = 0.5  # the two visible groups are not connected in the encoder mask
    path = rewrite(path, W=W)
    with pytest.raises(ValueError, match=r"W must be 0 where mask is False \(units 0 and 2 are not connected\)"):
        bm.load_model(path)


def test_truncated_file_is_refused(rbm, tmp_path):
    path = bm.save_model(tmp_path / "rbm.npz", rbm)
    data = Path(path).read_bytes()
    Path(path).write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"rbm.npz cannot be read as a bmlib model: the file is damaged, truncated"):
        bm.load_model(path)


def test_corrupted_bytes_are_caught_by_the_checksum(rbm, tmp_path):
    path = bm.save_model(tmp_path / "rbm.npz", rbm)
    data = bytearray(Path(path).read_bytes())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("W.npy")
    # Flip one byte inside the stored W values (the .npy header is 128 bytes, after the local file header).
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 128
    data[start + 5] ^= 0xFF
    Path(path).write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"damaged, truncated or not an .npz archive \(BadZipFile: Bad CRC-32"):
        bm.load_model(path)


def test_other_files_are_refused(tmp_path, rbm):
    text = tmp_path / "notes.npz"
    text.write_text("not a model")
    with pytest.raises(ValueError, match=r"notes.npz cannot be read as a bmlib model"):
        bm.load_model(text)
    single = tmp_path / "array.npy"
    np.save(single, np.zeros(3))
    with pytest.raises(ValueError, match=r"array.npy is not a bmlib model file: it holds a single array"):
        bm.load_model(single)
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, format=np.array("bmlib-model"), W=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ValueError, match=r"cannot be read as a bmlib model.*allow_pickle=False"):
        bm.load_model(pickled)
    with pytest.raises(FileNotFoundError):
        bm.load_model(tmp_path / "missing.npz")
    with pytest.raises(TypeError, match="model must be a bmlib BoltzmannMachine or RBM; got dict"):
        bm.save_model(tmp_path / "x.npz", {"W": rbm.W})
