"""Old keyword names still accepted for one release: the one place a renamed parameter is handled.

bmlib 1.1 gave each idea one word in its public signatures (the table is
:mod:`bmlib._vocabulary`). A caller that still writes an old word, say
``hebbian_recall(n_trials=4)``, gets the same result as with the new word
(``n_runs=4``) and one :class:`DeprecationWarning` naming the function and the
new word. Passing both the old and the new word is a ``TypeError``: which one
was meant cannot be guessed.

The wrapper adds one frame between the caller and the function; a warning
raised inside a wrapped function with a fixed ``stacklevel`` counts it (see
:mod:`bmlib.meanfield.theories`). :func:`inspect.signature` follows ``__wrapped__``, so
the signature shown (and recorded by tools/api_snapshot.py) has the new words
only; ``__renamed__`` on the wrapper lists the old ones.
"""
from __future__ import annotations

import functools
import inspect
import warnings

#: The release in which the old words stop being accepted.
REMOVED_IN = "bmlib 2.0"


def _public_name(func):
    """``naive_mean_field``, ``RBM.gibbs``; a constructor is named by its class."""
    name = func.__qualname__
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


def renamed(**old_to_new):
    """Decorator: accept each keyword ``old`` as ``new`` for a release, with a DeprecationWarning.

    Parameters
    ----------
    **old_to_new : str
        Old keyword name -> the parameter of the decorated function that
        replaces it (which must exist).

    Returns
    -------
    callable
        A decorator. The wrapped function has the decorated one's signature
        and docstring, and ``__renamed__``, a dict old -> new.

    Examples
    --------
    >>> import warnings
    >>> from bmlib._deprecation import renamed
    >>> @renamed(n_trials="n_runs")
    ... def f(n_runs=1):
    ...     return n_runs
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     f(n_trials=3)
    3
    >>> print(caught[0].message)
    f(): the keyword 'n_trials' is now 'n_runs'; 'n_trials' is accepted until bmlib 2.0
    """
    def decorate(func):
        params = list(inspect.signature(func).parameters.values())
        names = [p.name for p in params]
        for old, new in old_to_new.items():
            if new not in names or old in names:
                raise AssertionError(f"{func.__qualname__}: cannot rename {old!r} to {new!r} (parameters {names})")
        # Where each new word sits when passed by position (None: keyword-only), to refuse it twice.
        position = {new: (names.index(new) if params[names.index(new)].kind is params[0].POSITIONAL_OR_KEYWORD
                          else None) for new in old_to_new.values()}
        written_as = _public_name(func)
        method = "." in func.__qualname__

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if kwargs and not kwargs.keys().isdisjoint(old_to_new):
                # A method is named by the class the reader called it on (RBM.gibbs, written in
                # the base class BlockGibbs); a constructor by its class.
                name = written_as
                if method and args:
                    cls_name = type(args[0]).__name__
                    name = cls_name if func.__name__ == "__init__" else f"{cls_name}.{func.__name__}"
                for old, new in old_to_new.items():
                    if old not in kwargs:
                        continue
                    given_by_position = position[new] is not None and len(args) > position[new]
                    if new in kwargs or given_by_position:
                        raise TypeError(f"{name}() got both {old!r} and its new name {new!r}; pass only {new!r}")
                    warnings.warn(f"{name}(): the keyword {old!r} is now {new!r}; {old!r} is accepted until "
                                  f"{REMOVED_IN}", DeprecationWarning, stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        wrapper.__renamed__ = dict(old_to_new)
        return wrapper

    return decorate
