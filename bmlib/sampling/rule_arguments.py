"""A rule as a caller gives it: by name, as a rule object or as a function; checked once.

:func:`heat_bath` and :func:`metropolis` are the rules' elementwise forms with
their arguments checked, for a reader who calls a rule directly (the chain
kernel calls the unchecked :meth:`~bmlib.sampling.rules.UpdateRule.update`
with arguments it checked once per run). :func:`resolve_rule` turns what a
sampler's ``rule=`` received into an :class:`~bmlib.sampling.rules.UpdateRule`,
and :func:`check_rule_output` checks what a reader's own rule returns.
"""
from __future__ import annotations

import numpy as np

from .._checks import LEVELS, _as_real_array, _check_finite, check_choice, check_temperature, check_units
from .._random import as_generator
from .rules import ALIASES, RULES, UpdateRule


def _check_rule_arguments(values, fields, T, units, rng):
    """Validate the arguments of a public rule call; return ``(values, fields, T, units, generator)``.

    The chain runner calls the unchecked ``_heat_bath``/``_metropolis`` with
    values it validated once per run; a reader calling a rule directly gets
    these checks: spins or bits in ``values``, finite ``fields`` of the same
    shape, ``T > 0``, and ``rng`` as everywhere (None, an int seed or a Generator).
    """
    units = check_units(units)
    T = check_temperature(T)
    raw = np.asarray(values) if isinstance(values, (np.ndarray, list, tuple)) else values
    check = _as_real_array(raw, "values")
    low, high = LEVELS[units]
    bad = ~np.isin(check, (low, high))
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"values must hold {units} ({low}/{high}) because units={units!r}; "
            f"values[{', '.join(map(str, idx))}] = {check[idx]:g}"
        )
    if not (isinstance(fields, np.ndarray) and fields.dtype.kind == "f"):  # keep float32 lattice fields as they are
        fields = _as_real_array(fields, "fields")
    if fields.shape != check.shape:
        raise ValueError(f"fields must have the shape of values, {check.shape}; got shape {fields.shape}")
    _check_finite(fields, "fields")
    # Keep the caller's dtype for the result (ints stay ints); bools become ints.
    values = raw if isinstance(raw, np.ndarray) and raw.dtype.kind in "iuf" else check
    return values, fields, T, units, as_generator(rng)


def heat_bath(values, fields, T, units, rng=None):
    """Heat-bath (Gibbs) update: draw each unit from its conditional distribution.

    Given the rest of the state, unit ``i`` is ``high`` (+1 or 1) with probability

    ``p_i = 1 / (1 + exp(-(high - low) h_i / T))``

    that is ``1 / (1 + exp(-2 h_i / T))`` for spins and ``1 / (1 + exp(-h_i / T))``
    for bits, whatever its current value.

    Parameters
    ----------
    values : array_like of shape (...)
        Current values of the units, spins or bits (used only for their dtype).
    fields : array_like of the same shape
        Local fields ``h_i``, finite.
    T : float
        Temperature, finite and > 0.
    units : {"spins", "bits"}
    rng : None, int or numpy.random.Generator

    Returns
    -------
    new_values : ndarray of the shape and dtype of ``values``

    Notes
    -----
    Written with ``p = (1 + tanh(x / 2)) / 2``, which equals ``1 / (1 + exp(-x))``
    but cannot overflow for any ``h / T``. Explained in the chapter
    "Sampling: heat bath and Metropolis".

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = bm.heat_bath(np.ones(100_000), np.full(100_000, 0.5), 1.0, "spins", rng)
    >>> round(float((s == 1).mean()), 2), round(float(1 / (1 + np.exp(-2 * 0.5))), 2)
    (0.73, 0.73)
    """
    return RULES["heat_bath"].update(*_check_rule_arguments(values, fields, T, units, rng))


def metropolis(values, fields, T, units, rng=None):
    """Metropolis update: propose flipping each unit, accept with ``min(1, exp(-Delta E / T))``.

    Flipping unit ``i`` from ``s_i`` to ``s_i'`` (``-s_i`` for spins, ``1 - x_i``
    for bits) changes the energy by ``Delta E_i = -(s_i' - s_i) h_i``. A flip
    that lowers the energy is always made; one that raises it by
    ``Delta E_i`` is made with probability ``exp(-Delta E_i / T)``.

    Parameters
    ----------
    values : array_like of shape (...)
        Current values of the units, spins or bits.
    fields : array_like of the same shape
        Local fields ``h_i``, finite.
    T : float
        Temperature, finite and > 0.
    units : {"spins", "bits"}
    rng : None, int or numpy.random.Generator

    Returns
    -------
    new_values : ndarray of the shape and dtype of ``values``

    Notes
    -----
    A flip with ``Delta E = 0`` is always made. With a fixed scan order this
    can trap a chain: on a lattice at ``h = 0`` updated by checkerboard
    colours, a state whose every site has as many neighbours up as down
    (e.g. diagonal stripes) flips entirely at every sweep and never leaves
    that cycle. Such states are rare at any useful temperature, and each
    update still leaves ``p`` unchanged, but the chain is then not ergodic.
    Heat bath has no such cycles. A random scan breaks this one, but not every
    trap: with no couplings at all, random-scan Metropolis flips one unit per
    step and so alternates between even and odd states, a periodic chain (an
    exercise of the chapter shows it). Explained in the chapter
    "Sampling: heat bath and Metropolis".

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = bm.metropolis(np.ones(100_000), np.full(100_000, 0.5), 1.0, "spins", rng)
    >>> round(float((s == -1).mean()), 2), round(float(np.exp(-2 * 0.5)), 2)  # flip costs 2 h = 1
    (0.37, 0.37)
    """
    return RULES["metropolis"].update(*_check_rule_arguments(values, fields, T, units, rng))


class FunctionRule(UpdateRule):
    """A reader's function ``(values, fields, T, units, rng)`` as a rule with only the elementwise form."""

    def __init__(self, function):
        self.function = function
        self.name = getattr(function, "__name__", "custom")

    def update(self, values, fields, T, units, rng):
        return self.function(values, fields, T, units, rng)


def rule_name(rule, name="rule"):
    """The canonical name of a built-in rule given by name or alias (``"gibbs"`` is ``"heat_bath"``)."""
    return check_choice(ALIASES.get(rule, rule) if isinstance(rule, str) else rule, name, tuple(RULES))


def resolve_rule(rule, name="rule"):
    """Return the :class:`UpdateRule` that ``rule`` names: a name, a rule object, or a reader's function.

    Looked up in :data:`RULES` at every call, so that what is there runs. The
    public checked functions :func:`heat_bath` and :func:`metropolis` name
    their rule.
    """
    if isinstance(rule, UpdateRule):
        return rule
    if rule is heat_bath or rule is metropolis:  # the public, checked names: run the unchecked forms
        return RULES[rule.__name__]
    if callable(rule):
        return FunctionRule(rule)
    rule = ALIASES.get(rule, rule) if isinstance(rule, str) else rule
    if not isinstance(rule, str) or rule not in RULES:
        raise ValueError(
            f'{name} must be "heat_bath" (also called "gibbs"), "metropolis", a bm.UpdateRule or a function '
            f"(values, fields, T, units, rng); got {rule!r}"
        )
    return RULES[rule]


def check_rule_output(new, old, units, rule_name):
    """Return a custom rule's output as ``old``'s dtype after checking it holds only the unit levels.

    A reader's rule returning 0.5 (or NaN) would otherwise be stored as 0 in the
    int8 state array: a silent wrong chain. Checked on every call of a custom
    rule (the built-in rules produce levels by construction).
    """
    arr = np.asarray(new)
    if arr.shape != old.shape:
        raise ValueError(f"rule {rule_name!r} returned shape {arr.shape} for values of shape {old.shape}")
    low, high = LEVELS[units]
    if arr.dtype.kind not in "iufb" or not np.isin(arr, (low, high)).all():
        bad = arr.ravel()[~np.isin(arr.ravel(), (low, high))][:3] if arr.dtype.kind in "iufb" else arr.dtype
        raise ValueError(
            f"rule {rule_name!r} must return {units} ({low}/{high}) because units={units!r}; it returned {bad}"
        )
    return arr.astype(old.dtype)
