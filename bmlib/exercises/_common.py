"""What every self-check shares: seeded inputs, calling the reader's function safely, printing inputs."""
from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import io
import textwrap

import numpy as np

from .._checks import check_bool

_SEED = 20261127  # chosen so that the first inputs have a nonzero pair energy


def _models():
    """Small (units, W, b) models: spins and bits, with and without biases."""
    rng = np.random.default_rng(_SEED)
    models = []
    for n, units, with_bias in [(3, "spins", False), (4, "spins", True), (5, "spins", True),
                                (3, "bits", False), (4, "bits", True), (5, "bits", True)]:
        A = np.triu(rng.integers(-4, 5, size=(n, n)) / 2, 1)
        b = rng.integers(-4, 5, size=n) / 2 if with_bias else np.zeros(n)
        models.append((units, A + A.T, b))
    return models


def _energy_cases():
    """Two random states per model: (units, s, W, b)."""
    rng = np.random.default_rng(_SEED + 1)
    values = {"spins": [-1.0, 1.0], "bits": [0.0, 1.0]}
    return [(units, rng.choice(values[units], size=len(b)), W, b)
            for units, W, b in _models() for _ in range(2)]


def _clean(x):
    """Rounded, as a list, with -0.0 shown as 0.0."""
    return (np.round(np.asarray(x, dtype=float), 6) + 0.0).tolist()


def _call(func, args, k):
    """Run the reader's function on copies of the arrays (so it cannot change our inputs).

    Other arguments (a temperature, a units name) are passed as they are.
    Returns ``(result, None)``, or ``(None, message)`` when the function raised
    or returned nothing.
    """
    try:
        result = func(*(np.array(a) if isinstance(a, (np.ndarray, list)) else a for a in args))
    except Exception as exc:  # the reader's bug, reported in words below
        return None, f"Input {k}: your function raised {type(exc).__name__}: {exc}"
    if result is None:
        return None, f"Input {k}: your function returned None; is its return statement missing?"
    return result, None


def _real(value):
    """The reader's answer as a float array, or TypeError/ValueError if it is not real numbers.

    Every self-check converts answers through this one function inside a
    ``try`` that turns the error into a printed diagnosis. A string (even
    "1.5") or a complex number is refused rather than converted: NumPy would
    parse the string, or drop the imaginary part with only a warning.
    """
    arr = np.asarray(value)
    if arr.dtype.kind == "c":
        raise TypeError("a complex number")
    if arr.dtype.kind in "USV":
        raise TypeError("text, not a number")
    return arr.astype(float)


def _shape(value):
    """``np.shape`` of the reader's answer, or None for a ragged one (``[1, [2]]``) that has no shape."""
    try:
        return np.shape(value)
    except ValueError:
        return None


def _show_input(k, units, s, W, b):
    W_text = np.array2string(W, precision=2, separator=", ", prefix="  W = ")
    print(f"Input {k} ({units}, n = {len(s)}):\n  s = {s.astype(int).tolist()}\n  W = {W_text}\n  b = {_clean(b)}")


#: Widest line a checker prints: what fits the book's code column (77 characters
#: measured in tests/test_browser.py) and a JupyterLab output without scrolling.
REPORT_WIDTH = 76


def _wrap_line(line):
    """One printed line folded to REPORT_WIDTH, continuation lines indented two more spaces."""
    if len(line) <= REPORT_WIDTH:
        return line
    indent = line[: len(line) - len(line.lstrip())]
    return textwrap.fill(line.strip(), width=REPORT_WIDTH, initial_indent=indent,
                         subsequent_indent=indent + "  ", break_long_words=False, break_on_hyphens=False)


# --- tiers: what went wrong first, the likely mistake and its fix only when asked -----------------

#: The running self-check's state: whether it may print fixes, and how to call it again with hint=True.
_TIER = contextvars.ContextVar("bmlib_self_check_tier", default=None)


def _again(check, bound):
    """The call that shows the hint: ``bm.check_x(my_func, hint=True)``, with the other arguments given."""
    func = bound.arguments.get("func")
    name = getattr(func, "__name__", "")
    parts = [name if name.isidentifier() else "your_function"]
    for key, param in inspect.signature(check).parameters.items():
        if key in ("func", "hint") or key not in bound.arguments:
            continue
        value = bound.arguments[key]
        if param.default is param.empty or value != param.default:
            parts.append(f'{key}="{value}"' if isinstance(value, str) else f"{key}={value!r}")
    return f"bm.{check.__name__}({', '.join(parts + ['hint=True'])})"


def _fix(text):
    """Print the likely mistake and its fix, or, on a first call (``hint=False``), how to ask for it.

    The first tier (the failing input, what was expected, what came back) is
    printed by the checker itself; every sentence that says what to change
    goes through here. Without the hint, the reader gets one closing line
    instead: find the cause from the input, or run the check with
    ``hint=True``. Outside a checker (state None) the text is printed.
    """
    state = _TIER.get()
    if state is None or state["hint"]:
        print(text)
    elif not state["told"]:
        state["told"] = True
        print("Find the cause from this input: work it by hand, or print what your function computes step "
              "by step. For the likely mistake and its fix, run")
        print(f"  {state['again']}")


def _hinting():
    """True when the running check was called with ``hint=True`` (or outside a checker)."""
    state = _TIER.get()
    return state is None or state["hint"]


def fits_column(check):
    """Decorate a self-check: tiers for its messages, and everything it prints folded to REPORT_WIDTH.

    The checkers write their verdicts as natural sentences; folding them in one
    place keeps each message whole (the key sentence is never cut off at the
    column edge) without hand-breaking every string. The checker's ``hint``
    argument decides what :func:`_fix` prints.
    """
    signature = inspect.signature(check)

    @functools.wraps(check)
    def wrapper(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:  # a wrong call: let the checker itself raise the usual error
            return check(*args, **kwargs)
        bound.apply_defaults()
        hint = check_bool(bound.arguments.get("hint", False), "hint")
        token = _TIER.set({"hint": hint, "told": False,
                           "again": _again(check, bound)})
        buffer = io.StringIO()
        try:
            with contextlib.redirect_stdout(buffer):
                return check(*args, **kwargs)
        finally:
            _TIER.reset(token)
            text = buffer.getvalue()
            if text:
                print("\n".join(_wrap_line(line) for line in text.rstrip("\n").split("\n")))
    return wrapper
