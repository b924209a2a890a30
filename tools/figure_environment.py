"""What a chapter's figures depend on besides its code: where pixel-identical pictures are expected.

nbval compares the text a chapter prints, not its pictures (a PNG differs
between machines: another FreeType, Pillow or Matplotlib, or floats that
round differently and move an antialiased edge by a pixel). So a stale
figure, one whose stored picture no longer matches what bmlib draws, would
pass. ``tools/store_outputs.py`` records this fingerprint in each chapter's
metadata (``bmlib.figure_environment``); a hook in ``tests/conftest.py`` has nbval
compare the pictures byte for byte wherever the fingerprint of the running
machine is the same, and leaves them out, as nbval does, everywhere else.

Usage:  python tools/figure_environment.py   (prints the fingerprint)
"""
import hashlib
import json
import platform
from pathlib import Path


def _cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("model name", "Model", "CPU part")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def describe():
    """The facts the pictures depend on, as a dict of strings."""
    import matplotlib
    import numpy
    import PIL
    from matplotlib import ft2font

    facts = {
        "machine": platform.machine(),
        "cpu": _cpu_model(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "matplotlib": matplotlib.__version__,
        "freetype": ft2font.__freetype_version__,
        "pillow": PIL.__version__,
    }
    try:  # NumPy's SIMD loops in use, and the BLAS kernel and threads: both move the last bits of floats
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # NumPy 1.x
        from numpy.core import _multiarray_umath as umath
    facts["simd"] = ",".join(f for f in umath.__cpu_dispatch__ if umath.__cpu_features__.get(f))
    try:
        import threadpoolctl
    except ImportError:
        facts["blas"] = "unknown"
    else:
        facts["blas"] = ";".join(f"{i['internal_api']} {i.get('version')} {i.get('architecture')} {i['num_threads']}"
                                 for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas")
    return facts


def fingerprint():
    """A short hash of :func:`describe`: equal on two runs where the same code draws the same pixels."""
    return hashlib.sha256(json.dumps(describe(), sort_keys=True).encode()).hexdigest()[:16]


if __name__ == "__main__":
    print(fingerprint())
    for key, value in describe().items():
        print(f"  {key}: {value}")
