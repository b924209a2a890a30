"""Write bmlib/data/digits.npz: the UCI optical digits, binarized, as packed bits.

    python tools/make_digits.py [path/to/digits.csv.gz]

Source: "Optical Recognition of Handwritten Digits" (Alpaydin and Kaynak,
1998), UCI Machine Learning Repository, https://doi.org/10.24432/C50P49,
licensed CC BY 4.0. Its 1797 test images (8 x 8 pixels, each the count of
ink in a 4 x 4 block of a 32 x 32 bitmap, 0 ... 16, with the digit's label)
ship inside scikit-learn as ``sklearn/datasets/data/digits.csv.gz`` (one row
per image: 64 pixels, row by row, then the label); by default the script
reads that copy. Only the data are taken, no code.

Binarized at half the range: a pixel is on if its count is 8 or more. The
file holds the packed bits (1797 x 64 bits, ``np.packbits`` along each
image) and the labels, and the loader in ``bmlib/models/digit_images.py`` checks the
file's SHA-256 before reading it, so re-running this script must reproduce
the same bytes (the archive is written stored, with fixed member order and
timestamps).
"""
from __future__ import annotations

import gzip
import hashlib
import io
import sys
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "bmlib" / "data" / "digits.npz"
THRESHOLD = 8


def sklearn_copy():
    import sklearn

    return Path(sklearn.__file__).parent / "datasets" / "data" / "digits.csv.gz"


def main(argv):
    source = Path(argv[0]) if argv else sklearn_copy()
    with gzip.open(source, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.int64)
    if table.shape != (1797, 65) or table[:, :64].min() < 0 or table[:, :64].max() > 16:
        raise SystemExit(f"{source}: expected 1797 rows of 64 pixels in 0..16 and a label; got {table.shape}")
    bits = (table[:, :64] >= THRESHOLD).astype(np.uint8)
    labels = table[:, 64].astype(np.uint8)
    members = {"packed_bits": np.packbits(bits, axis=1), "labels": labels}
    buffer = io.BytesIO()
    # A zip written by hand, not np.savez: fixed timestamps make the bytes reproducible.
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, array in members.items():
            npy = io.BytesIO()
            np.lib.format.write_array(npy, array, allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1998, 7, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, npy.getvalue())
    TARGET.write_bytes(buffer.getvalue())
    print(f"wrote {TARGET} ({TARGET.stat().st_size} bytes), sha256 {hashlib.sha256(buffer.getvalue()).hexdigest()}")


if __name__ == "__main__":
    main(sys.argv[1:])
