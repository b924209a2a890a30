"""Handwritten digits: a small real image set that ships with bmlib.

The 1797 test images of the UCI "Optical Recognition of Handwritten Digits"
data (Alpaydin and Kaynak, 1998; UCI Machine Learning Repository,
https://doi.org/10.24432/C50P49; licensed CC BY 4.0, attribution above). Each
image is 8 x 8 pixels, the ink counts of 4 x 4 blocks of a 32 x 32 bitmap
(0 ... 16), binarized here at half the range: a pixel is on if its count is 8
or more. The file ``bmlib/data/digits.npz`` (8.5 kB: packed bits and labels)
is written by ``tools/make_digits.py`` and is checked against its SHA-256
before it is read, so a damaged or replaced file is refused, never half-used.

The split into training and held-out images is fixed: image ``k`` (in the
UCI order) is held out if ``k % 6 == 5``, which gives 1498 training and 299
held-out images with every digit in both.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .._checks import check_choice, check_units

_FILE = Path(__file__).parent.parent / "data" / "digits.npz"  # bmlib/data/, shipped as package data
_SHA256 = "8f7dc2d53e98b2ecbc73b3d8f30ce16e7c933d0ac7d85fe6fbda9740d8675b25"
N_DIGIT_IMAGES = 1797
#: Pixels per side of a digit image.
DIGIT_SIDE = 8
#: Every HELD_OUT_EVERY-th image (k % 6 == 5) is held out.
HELD_OUT_EVERY = 6
SPLITS = ("train", "held_out", "all")

class Digits(NamedTuple):
    """Digit images and their labels (see :func:`digits`)."""

    images: np.ndarray
    """One image per row, shape (m, 64), pixels row by row (reshape a row to
    (8, 8) to show it), in the requested units."""
    labels: np.ndarray
    """The digit shown, 0 ... 9, shape (m,), int64."""


_cache = {}


def _load():
    if "bits" not in _cache:
        try:
            raw = _FILE.read_bytes()
        except OSError as exc:
            raise FileNotFoundError(f"bmlib's digits file {_FILE} cannot be read ({exc}); reinstall bmlib") from None
        digest = hashlib.sha256(raw).hexdigest()
        if digest != _SHA256:
            raise ValueError(
                f"bmlib's digits file {_FILE} is damaged or was replaced: its SHA-256 is {digest[:16]}..., "
                f"expected {_SHA256[:16]}...; reinstall bmlib or run tools/make_digits.py"
            )
        # The bytes are the ones checked above: a verified file, read without pickle.
        import io

        with np.load(io.BytesIO(raw), allow_pickle=False) as archive:
            packed, labels = archive["packed_bits"], archive["labels"]
        _cache["bits"] = np.unpackbits(packed, axis=1)[:, : DIGIT_SIDE**2].astype(np.int8)
        _cache["labels"] = labels.astype(np.int64)
    return _cache["bits"], _cache["labels"]


def digits(split="train", units="spins"):
    """The UCI handwritten digits, binarized 8 x 8 images, with a fixed train / held-out split.

    Parameters
    ----------
    split : {"train", "held_out", "all"}
        ``"train"``: the 1498 images with ``k % 6 != 5``; ``"held_out"``: the
        299 others; ``"all"``: all 1797 in the UCI order.
    units : {"spins", "bits"}
        Pixels as -1/+1 (on = +1) or 0/1.

    Returns
    -------
    Digits
        ``images`` of shape (m, 64), float; ``labels`` of shape (m,).

    Notes
    -----
    Data: Alpaydin and Kaynak (1998), UCI Machine Learning Repository,
    https://doi.org/10.24432/C50P49, CC BY 4.0. Shipped with bmlib (no
    download); see the module docstring for the binarization.

    Examples
    --------
    >>> train = bm.digits("train", units="bits")
    >>> train.images.shape, train.labels[:10].tolist()
    ((1498, 64), [0, 1, 2, 3, 4, 6, 7, 8, 9, 0])
    >>> bm.digits("held_out").images.shape
    (299, 64)
    >>> for row in bm.state_labels(train.images[0].reshape(8, 8), units="bits"):
    ...     print(row)
    00011000
    00111100
    00100110
    00100110
    00100110
    00100100
    00101100
    00011000
    """
    check_choice(split, "split", SPLITS)
    units = check_units(units)
    bits, labels = _load()
    k = np.arange(N_DIGIT_IMAGES)
    keep = {"train": k % HELD_OUT_EVERY != HELD_OUT_EVERY - 1,
            "held_out": k % HELD_OUT_EVERY == HELD_OUT_EVERY - 1,
            "all": np.ones(N_DIGIT_IMAGES, bool)}[split]
    images = bits[keep].astype(float)
    return Digits(2.0 * images - 1.0 if units == "spins" else images, labels[keep].copy())
