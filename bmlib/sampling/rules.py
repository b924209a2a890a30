"""Single-unit update rules: how one unit takes a new value given its local field.

A rule is a function ``rule(values, fields, T, units, rng) -> new_values``.
``values`` holds the current values of a group of units (in any number of
chains), ``fields`` their local fields ``h_i = sum_j W_ij s_j + b_i``, both of
the same shape. The runner guarantees that the units of a group share no
coupling, so each unit is updated from the others' values exactly as if it
were updated alone: the rule is the book's single-unit equation, applied
elementwise. A rule must not modify its inputs.

=========  ====================================================================
rule       new value of unit i
=========  ====================================================================
heat bath  drawn from p(s_i | rest); spins: p(+1) = 1 / (1 + exp(-2 h_i / T)),
           bits: p(1) = 1 / (1 + exp(-h_i / T))
metropolis flipped with probability min(1, exp(-Delta E_i / T)),
           Delta E_i = -(s_i' - s_i) h_i the energy change of the flip
descent    (T = 0) the sign of its field: high if h_i > 0, low if h_i < 0,
           unchanged if h_i = 0 (as :func:`bmlib.energy_descent`)
=========  ====================================================================

Explained in the chapter "The Boltzmann-Gibbs distribution".
"""
from __future__ import annotations

import math

import numpy as np

from .._checks import LEVELS, _as_real_array, _check_finite, check_choice, check_temperature, check_units
from .._random import as_generator


def _uniform(rng, like):
    """Uniform numbers in [0, 1) of the shape of ``like``, in its float precision.

    float64 for float64 fields (dense models): ``rng.random``, resolution 2**-53.
    float32 for float32 fields (the lattice sampler): :func:`_uniform_bits24`
    times 2**-24, two numbers per 64-bit draw of the generator: this halves
    the cost of the random numbers, which dominate a lattice sweep. Their
    resolution is 2**-24: ``u < p`` then happens with probability ``p``
    rounded up to a multiple of 2**-24 ~ 6e-8. That error matters only for
    events rarer than about 1e-6 per update (on a lattice, a spin turning
    against four aligned neighbours below T ~ 0.6 J); use a dense model for
    such a study.
    """
    if like.dtype != np.float32:
        return rng.random(like.shape)
    bits = _uniform_bits24(rng, like.shape)
    return np.multiply(bits, np.float32(2.0**-24), dtype=np.float32)


def _uniform_bits24(rng, shape):
    """Integers uniform in [0, 2**24) of ``shape`` (uint32): the float32 uniforms times 2**24.

    Built from the generator's raw 64-bit output, cut into two 32-bit halves
    of which the top 24 bits are kept (exactly representable in float32).
    """
    size = math.prod(shape)  # not np.prod: this runs twice per lattice sweep, and np.prod costs ~10 us
    bits = rng.bit_generator.random_raw((size + 1) // 2).view(np.uint32)[:size]
    bits >>= 8
    return bits.reshape(shape)


def _set_levels(high_mask, units, dtype):
    """``high`` where ``high_mask`` is True, ``low`` elsewhere, as an array of ``dtype``."""
    new = high_mask.astype(dtype)
    if units == "spins":  # 0/1 -> -1/+1, in place (no int64 temporaries)
        new *= 2
        new -= 1
    return new


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
    "The Boltzmann-Gibbs distribution".

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = bm.heat_bath(np.ones(100_000), np.full(100_000, 0.5), 1.0, "spins", rng)
    >>> round(float((s == 1).mean()), 2), round(float(1 / (1 + np.exp(-2 * 0.5))), 2)
    (0.73, 0.73)
    """
    return _heat_bath(*_check_rule_arguments(values, fields, T, units, rng))


def _heat_bath_scale(T, units):
    """The factor taking a field h to the heat-bath rule's tanh argument, 1 / half_width.

    ``half_width = 2 T / (high - low)``. Multiplying by the reciprocal is the
    fast path; below T ~ 1e-308 the reciprocal overflows, and 0 * inf = NaN
    would bias a unit with zero field (whose T -> 0 probability is 1/2), so
    there the result is None and the fields are divided by ``half_width``
    instead. Shared with the dense sweep (``dense_sweep.py``), which runs
    this rule's test in another form. ``T`` may also be an array of
    temperatures (one per chain, broadcast against the fields): then the
    factors are an array of that shape, elementwise the same numbers.
    """
    low, high = LEVELS[units]
    with np.errstate(over="ignore"):
        scale = np.float64(1.0) / (2.0 * T / (high - low))
    if np.ndim(scale):  # one temperature per chain (parallel tempering's replicas): one factor each
        return scale if np.all(np.isfinite(scale)) else None
    return float(scale) if np.isfinite(scale) else None


def _heat_bath(values, fields, T, units, rng):
    """:func:`heat_bath` without the checks: the chain runner's inner loop (arguments already valid)."""
    # u < (1 + tanh) / 2  <=>  2u - 1 < tanh, with 2u - 1 exact in u's precision. tanh is
    # evaluated in float64 even for the lattice's float32 fields: NumPy's float32 tanh
    # differs by an ulp (6e-8) between SIMD levels, and with ~1e8 decisions in a chapter
    # some u falls in between, so the chain (and a printed number) would differ between
    # machines; float64 moves that to ~1e-16 per decision.
    u = _uniform(rng, fields)
    u *= 2
    u -= 1
    return _set_levels(u < np.tanh(_heat_bath_argument(fields, T, units)), units, values.dtype)


def _heat_bath_argument(fields, T, units):
    """``fields / half_width`` in float64, the argument of the rule's tanh (``half_width = 2 T / (high - low)``)."""
    scale = _heat_bath_scale(T, units)
    with np.errstate(over="ignore"):  # fields / half_width = +-inf is the right limit
        if scale is not None:
            return np.multiply(fields, scale, dtype=np.float64)
        low, high = LEVELS[units]
        return np.divide(fields, 2.0 * T / (high - low), dtype=np.float64)


def _heat_bath_bit_thresholds(fields, T, units):
    """The heat-bath test of :func:`_heat_bath` on 24-bit integer uniforms, for a few possible fields.

    On a lattice with integer neighbour sums the field takes a handful of
    values, so the rule's test can be worked out once per temperature instead
    of once per site. With ``u = k / 2**24`` (``k`` from :func:`_uniform_bits24`,
    as the float32 uniforms) and ``t = tanh(field * scale)`` in float64, the
    test ``2u - 1 < t`` reads ``k - 2**23 < t * 2**23``; the right side is
    exact (a power of 2 times t), and for an integer left side ``a < y`` holds
    exactly when ``a < ceil(y)``. So the unit goes high exactly when
    ``k < 2**23 + ceil(t * 2**23)``: the same decisions, bit for bit, as the
    float test on every site, at the cost of one table look-up.

    Parameters
    ----------
    fields : ndarray of float32, shape (m,)
        The possible local fields, computed as the sampler computes them.
    T : float
        Temperature > 0.
    units : {"spins", "bits"}

    Returns
    -------
    ndarray of uint32, shape (m,)
        ``K``: a unit with field ``fields[j]`` goes high exactly when ``k < K[j]``.

    Examples
    --------
    >>> import numpy as np
    >>> from bmlib.sampling.rules import _heat_bath_bit_thresholds
    >>> K = _heat_bath_bit_thresholds(np.array([-1.0, 0.0, 1.0], dtype=np.float32), 1.0, "spins")
    >>> (K / 2**24).round(4)   # p(+1) = 1 / (1 + exp(-2 h / T)) at h = -1, 0, 1
    array([0.1192, 0.5   , 0.8808])
    """
    # t in [-1, 1], so the thresholds lie in [0, 2**24]: exact in float64 and in uint32.
    t = np.tanh(_heat_bath_argument(fields, T, units))
    return (2.0**23 + np.ceil(t * 2.0**23)).astype(np.uint32)


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
    update still leaves ``p`` unchanged, but the chain is then not ergodic;
    heat bath, or a random scan, has no such cycles. Explained in the
    chapter "The Boltzmann-Gibbs distribution".

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = bm.metropolis(np.ones(100_000), np.full(100_000, 0.5), 1.0, "spins", rng)
    >>> round(float((s == -1).mean()), 2), round(float(np.exp(-2 * 0.5)), 2)  # flip costs 2 h = 1
    (0.37, 0.37)
    """
    return _metropolis(*_check_rule_arguments(values, fields, T, units, rng))


def _metropolis(values, fields, T, units, rng):
    """:func:`metropolis` without the checks: the chain runner's inner loop (arguments already valid)."""
    low, high = LEVELS[units]
    flipped = ((low + high) - values).astype(values.dtype)
    delta_e = (values - flipped) * fields
    # min(1, exp(-dE/T)) as exp(min(0, -dE/T)): no overflow when dE << 0. In float64 for
    # float32 fields too, so that the decision does not depend on NumPy's SIMD level (see
    # heat_bath), and divided where 1/T overflows, so that a move with Delta E = 0 is always accepted.
    with np.errstate(over="ignore"):  # -inf is the right limit of an uphill move
        rate = np.float64(-1.0) / T
        if np.isfinite(rate):
            log_accept = np.multiply(delta_e, float(rate), dtype=np.float64)
        else:
            log_accept = np.divide(-delta_e, T, dtype=np.float64)
    accept = _uniform(rng, fields) < np.exp(np.minimum(0.0, log_accept))
    return np.where(accept, flipped, values)


def descend(values, fields, T, units, rng):
    """Zero-temperature update: each unit takes the value its field favours.

    The ``T -> 0`` limit of both rules above, and the step of
    :func:`bmlib.energy_descent`: ``high`` if ``h_i > 0``, ``low`` if ``h_i < 0``,
    unchanged if ``h_i = 0``. ``T`` and ``rng`` are not used.

    Examples
    --------
    >>> import numpy as np
    >>> from bmlib.sampling.rules import descend
    >>> descend(np.array([1, 1, -1]), np.array([-2.0, 0.0, 0.5]), 0.0, "spins", None)
    array([-1,  1,  1])
    """
    low, high = LEVELS[units]
    return np.where(fields > 0, high, np.where(fields < 0, low, values)).astype(values.dtype)


#: The built-in rules as the runner calls them: unchecked, since it validated their arguments once per run.
RULES = {"heat_bath": _heat_bath, "metropolis": _metropolis}


#: Other names of the rules: the heat-bath rule is Gibbs sampling of one unit.
ALIASES = {"gibbs": "heat_bath"}


def rule_name(rule, name="rule"):
    """The canonical name of a built-in rule given by name or alias (``"gibbs"`` is ``"heat_bath"``)."""
    return check_choice(ALIASES.get(rule, rule) if isinstance(rule, str) else rule, name, tuple(RULES))


def resolve_rule(rule, name="rule"):
    """Return ``(function, name, builtin)`` for a rule given by name or as a callable.

    ``builtin`` is False for a reader's own function, whose output the runner checks.
    """
    if rule is heat_bath or rule is metropolis:  # the public, checked names: run the unchecked ones
        return RULES[rule.__name__], rule.__name__, True
    if callable(rule):
        return rule, getattr(rule, "__name__", "custom"), False
    rule = ALIASES.get(rule, rule) if isinstance(rule, str) else rule
    if not isinstance(rule, str) or rule not in RULES:
        raise ValueError(
            f'{name} must be "heat_bath" (also called "gibbs"), "metropolis" or a function '
            f"(values, fields, T, units, rng); got {rule!r}"
        )
    return RULES[rule], rule, True


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
