"""The shipped handwritten digits (bmlib/models/digit_images.py): the data, the split, and a damaged file refused."""
import shutil

import numpy as np
import pytest

import bmlib as bm
import bmlib.models.digit_images as digits_module


def test_sizes_split_and_units():
    train, held_out, everything = (bm.digits(s, units="bits") for s in ("train", "held_out", "all"))
    assert train.images.shape == (1498, 64) and held_out.images.shape == (299, 64)
    assert everything.images.shape == (1797, 64)
    k = np.arange(1797)
    np.testing.assert_array_equal(everything.images[k % 6 == 5], held_out.images)
    np.testing.assert_array_equal(everything.labels[k % 6 != 5], train.labels)
    # Every digit in both parts, in roughly equal numbers.
    assert np.bincount(train.labels, minlength=10).min() >= 140
    assert np.bincount(held_out.labels, minlength=10).min() >= 25
    assert set(np.unique(train.images)) == {0.0, 1.0}
    spins = bm.digits("train")
    np.testing.assert_array_equal(spins.images, 2 * train.images - 1)
    # Not all blank, not all ink: about a third of the pixels are on.
    assert 0.25 < train.images.mean() < 0.45


def test_the_data_are_the_uci_digits_binarized_at_8():
    """Independent copy: scikit-learn ships the same UCI images (skipped if it is not installed)."""
    datasets = pytest.importorskip("sklearn.datasets")
    uci = datasets.load_digits()
    ours = bm.digits("all", units="bits")
    np.testing.assert_array_equal(ours.images, (uci.data >= 8).astype(float))
    np.testing.assert_array_equal(ours.labels, uci.target)


def test_results_are_copies_the_caller_may_change():
    a = bm.digits("train")
    a.images[:] = 0
    a.labels[:] = 0
    assert bm.digits("train").images.any() and bm.digits("train").labels.any()


def test_a_damaged_file_is_refused(tmp_path, monkeypatch):
    damaged = tmp_path / "digits.npz"
    shutil.copy(digits_module._FILE, damaged)
    raw = bytearray(damaged.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    damaged.write_bytes(bytes(raw))
    monkeypatch.setattr(digits_module, "_FILE", damaged)
    monkeypatch.setattr(digits_module, "_cache", {})
    with pytest.raises(ValueError, match="digits file .* is damaged or was replaced: its SHA-256"):
        bm.digits()
    monkeypatch.setattr(digits_module, "_FILE", tmp_path / "missing.npz")
    with pytest.raises(FileNotFoundError, match="reinstall bmlib"):
        bm.digits()


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match='split must be one of "train", "held_out", "all"'):
        bm.digits("test")
    with pytest.raises(ValueError, match="units"):
        bm.digits("train", units="pixels")
