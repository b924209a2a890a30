"""Single-unit update rules: how one unit takes a new value given its local field.

Each rule is one object, an :class:`UpdateRule`, that owns every form in
which bmlib's samplers apply it. The forms differ in how many units and
chains they treat per NumPy call, never in the rule:

=========================  =====================================  ==========================================
form                       method                                 run by
=========================  =====================================  ==========================================
one unit, elementwise      ``update(values, fields, T, units,     the chain kernel's general sweep: any
                           rng)``                                 model, scan and rule (also ``rule(...)``)
single-flip probability    ``flip_probability(delta_e, T)``       :func:`bmlib.transition_matrix`
a layer of a bipartite     ``layer_mean``, ``draw``, ``layer``    the RBM's block Gibbs: ``gibbs``, CD and
machine                                                           PCD, ``inpaint``, RBM AIS and tempering
a dense sequential sweep   ``dense_sweeper(W, b, free, units)``   ``sample``, ``anneal``, AIS, tempering
a checkerboard lattice     ``lattice_sweeper(lattice,             ``sample`` and ``anneal`` on a
sweep                      colouring, units)``                    :class:`~bmlib.SquareLattice`
=========================  =====================================  ==========================================

A rule without a fast form (``None``) is run by the general sweep, which
calls ``update``: the same chain, more NumPy calls. In ``update`` the
runner guarantees that the units of a group share no coupling, so each
unit is updated from the others' values exactly as if it were updated
alone: the rule is the book's single-unit equation, applied elementwise.
No form modifies its inputs.

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

The samplers look a rule up in :data:`RULES` when they are called, so a rule
replaced there (or a subclass passed as ``rule=``) is the rule that runs, in
every form: ``tests/test_rule_objects.py`` checks it for every sampler.
Explained in the chapter "Sampling: heat bath and Metropolis".
"""
from __future__ import annotations

import numpy as np

from .._checks import LEVELS
from .._numerics import unit_mean
from .uniforms import set_levels, uniform

class UpdateRule:
    """A single-unit update rule, in every form bmlib's samplers apply it.

    Subclass it to write a rule of your own: define :meth:`update`, and
    :meth:`flip_probability` if :func:`bmlib.transition_matrix` should take
    it. The forms that a subclass leaves out are run through :meth:`update`
    (the sweeps) or refused with a message (the others). A plain function
    ``(values, fields, T, units, rng) -> new_values`` is accepted wherever a
    rule is (``rule=``), as a rule with only that form.

    Examples
    --------
    A rule that ignores the temperature and follows the sign of the field
    with probability 0.9:

    >>> import numpy as np
    >>> import bmlib as bm
    >>> class NoisySign(bm.UpdateRule):
    ...     name = "noisy sign"
    ...     def update(self, values, fields, T, units, rng):
    ...         follow = rng.random(np.shape(fields)) < 0.9
    ...         return np.where(follow == (fields > 0), 1, -1).astype(values.dtype)
    >>> run = bm.sample(np.array([[0.0, 1.0], [1.0, 0.0]]), rule=NoisySign(), n_samples=500, rng=0)
    >>> run.rule
    'noisy sign'
    """

    #: The name results carry (``SampleResult.rule``).
    name = "custom"
    #: False: the runner checks every output for the two unit levels (True for bmlib's own rules).
    trusted = False

    def __call__(self, values, fields, T, units, rng=None):
        """The elementwise form with its arguments checked: a reader's direct call (the samplers call
        :meth:`update`, with arguments they checked once)."""
        from .rule_arguments import _check_rule_arguments  # (that module imports this one)

        return self.update(*_check_rule_arguments(values, fields, T, units, rng))

    def update(self, values, fields, T, units, rng):
        """New values of a group of uncoupled units, given their local fields.

        Parameters
        ----------
        values : ndarray of shape (...)
            Current values, spins or bits.
        fields : ndarray of the same shape
            Local fields ``h_i``.
        T : float, or ndarray broadcasting against ``fields``
            Temperature > 0 (one per chain in parallel tempering).
        units : {"spins", "bits"}
        rng : numpy.random.Generator

        Returns
        -------
        ndarray of the shape and dtype of ``values``
        """
        raise NotImplementedError(f"the rule {self.name!r} has no update(values, fields, T, units, rng)")

    def flip_probability(self, delta_e, T):
        """Probability that one update moves a unit to its other value, given the energy change of that flip.

        Parameters
        ----------
        delta_e : ndarray
            ``E(flipped) - E(current)`` for each state and unit.
        T : float
            Temperature > 0.
        """
        raise ValueError(
            f"rule {self.name!r} has no flip_probability(delta_e, T), which transition_matrix needs: "
            "define it in a subclass of bm.UpdateRule"
        )

    def dense_sweeper(self, W, b, free, units):
        """A fast sequential sweep of a dense machine, or None (then :meth:`update` is swept)."""
        return None

    def lattice_sweeper(self, lattice, colouring, units):
        """A fast checkerboard sweep of a square lattice, or None (then :meth:`update` is swept)."""
        return None

    def __repr__(self):
        return f"<update rule {self.name!r}>"


class HeatBath(UpdateRule):
    """The heat-bath (Gibbs) rule: each unit is drawn from its conditional distribution.

    ``p(s_i = high | rest) = (1 + tanh(h_i * scale)) / 2`` with
    ``scale = (high - low) / (2 T)``: ``1 / (1 + exp(-2 h_i / T))`` for spins
    and ``1 / (1 + exp(-h_i / T))`` for bits. The tanh form cannot overflow
    for any ``h / T``. Every form below is this one probability; they differ
    in how many units a NumPy call treats, and the dense and lattice sweeps
    give the elementwise form's chains (``tests/test_sampling.py``).

    Examples
    --------
    >>> import numpy as np
    >>> from bmlib.sampling.rules import HeatBath
    >>> rule = HeatBath()
    >>> rule.layer_mean(np.array([0.0, 1.0]), 1.0, "spins").round(4)   # E[s | h] = tanh(h / T)
    array([0.    , 0.7616])
    >>> rule.flip_probability(np.array([0.0, 2.0]), 1.0).round(4)      # 1 / (1 + exp(dE / T))
    array([0.5   , 0.1192])
    """

    name = "heat_bath"
    trusted = True

    def scale(self, T, units):
        """The factor taking a field h to the rule's tanh argument: ``(high - low) / (2 T)``.

        Multiplying by the reciprocal is the fast path; below T ~ 1e-308 the
        reciprocal overflows, and 0 * inf = NaN would bias a unit with zero
        field (whose T -> 0 probability is 1/2), so there the result is None
        and :meth:`argument` divides by ``2 T / (high - low)`` instead. ``T``
        may also be an array of temperatures (one per chain, broadcast
        against the fields): then the factors are an array of that shape,
        elementwise the same numbers.
        """
        low, high = LEVELS[units]
        with np.errstate(over="ignore"):
            factor = np.float64(1.0) / (2.0 * T / (high - low))
        if np.ndim(factor):  # one temperature per chain (parallel tempering's replicas): one factor each
            return factor if np.all(np.isfinite(factor)) else None
        return float(factor) if np.isfinite(factor) else None

    def argument(self, fields, T, units):
        """``fields * scale`` in float64, the argument of the rule's tanh."""
        factor = self.scale(T, units)
        with np.errstate(over="ignore"):  # fields / half_width = +-inf is the right limit
            if factor is not None:
                return np.multiply(fields, factor, dtype=np.float64)
            low, high = LEVELS[units]
            return np.divide(fields, 2.0 * T / (high - low), dtype=np.float64)

    def update(self, values, fields, T, units, rng):
        """The elementwise form (unchecked; :func:`heat_bath` is the checked one)."""
        # u < (1 + tanh) / 2  <=>  2u - 1 < tanh, with 2u - 1 exact in u's precision. tanh is
        # evaluated in float64 even for the lattice's float32 fields: NumPy's float32 tanh
        # differs by an ulp (6e-8) between SIMD levels, and with ~1e8 decisions in a chapter
        # some u falls in between, so the chain (and a printed number) would differ between
        # machines; float64 moves that to ~1e-16 per decision.
        u = uniform(rng, fields)
        u *= 2
        u -= 1
        return set_levels(u < np.tanh(self.argument(fields, T, units)), units, values.dtype)

    def flip_probability(self, delta_e, T):
        """``1 / (1 + exp(delta_e / T))``, written with tanh so that no ``delta_e / T`` overflows.

        The probability of the other value, ``p(s') / (p(s) + p(s'))``, for
        spins and bits alike.
        """
        return 0.5 * (1.0 - np.tanh(delta_e / (2.0 * T)))

    def layer_mean(self, fields, T, units):
        """``E[s_i | fields]`` of uncoupled units: ``tanh(h / T)`` for spins, ``sigmoid(h / T)`` for bits.

        The block form for a layer of a bipartite machine (an RBM), whose
        units are independent given the other layer; :meth:`draw` samples from it.
        """
        return unit_mean(fields, T, units)

    def draw(self, mean, units, rng):
        """A sample of a layer from its means (float 0/1 or -1/+1, the shape of ``mean``).

        ``p(high) = mean`` for bits and ``(1 + mean) / 2`` for spins.
        """
        p_on = mean if units == "bits" else 0.5 * (1.0 + mean)
        u = rng.random(mean.shape)  # (mean is an array: .shape, not np.shape, saves a call per layer)
        if units == "bits":
            return np.less(u, p_on, out=u)  # True/False written as 1.0/0.0 into u: no second array
        return np.where(u < p_on, 1.0, -1.0)

    def layer(self, fields, T, units, rng):
        """A sample of a layer of uncoupled units given their fields: ``draw(layer_mean(...))``."""
        return self.draw(self.layer_mean(fields, T, units), units, rng)

    def bit_thresholds(self, fields, T, units):
        """The heat-bath test of :meth:`update` on 24-bit integer uniforms, for a few possible fields.

    On a lattice with integer neighbour sums the field takes a handful of
    values, so the rule's test can be worked out once per temperature instead
    of once per site. With ``u = k / 2**24`` (``k`` from :func:`~bmlib.sampling.uniforms.uniform_bits24`,
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
    >>> from bmlib.sampling.rules import HeatBath
    >>> K = HeatBath().bit_thresholds(np.array([-1.0, 0.0, 1.0], dtype=np.float32), 1.0, "spins")
    >>> (K / 2**24).round(4)   # p(+1) = 1 / (1 + exp(-2 h / T)) at h = -1, 0, 1
    array([0.1192, 0.5   , 0.8808])
    """
        # t in [-1, 1], so the thresholds lie in [0, 2**24]: exact in float64 and in uint32.
        t = np.tanh(self.argument(fields, T, units))
        return (2.0**23 + np.ceil(t * 2.0**23)).astype(np.uint32)

    def dense_sweeper(self, W, b, free, units):
        """A :class:`~bmlib.sampling.dense_sweep.SequentialHeatBath`: this rule's test, turned around per sweep."""
        from .dense_sweep import SequentialHeatBath

        return SequentialHeatBath(W, b, free, units, rule=self)

    def lattice_sweeper(self, lattice, colouring, units):
        """A :class:`~bmlib.sampling.lattice_sweep.CheckerboardHeatBath`: :meth:`bit_thresholds` per temperature."""
        from .lattice_sweep import CheckerboardHeatBath

        return CheckerboardHeatBath(lattice, colouring, units, rule=self)


class Metropolis(UpdateRule):
    """The Metropolis rule: propose flipping each unit, accept with ``min(1, exp(-Delta E / T))``.

    Examples
    --------
    >>> import numpy as np
    >>> from bmlib.sampling.rules import Metropolis
    >>> Metropolis().flip_probability(np.array([-1.0, 0.0, 1.0]), 1.0).round(4)
    array([1.    , 1.    , 0.3679])
    """

    name = "metropolis"
    trusted = True

    def update(self, values, fields, T, units, rng):
        """The elementwise form (unchecked; :func:`metropolis` is the checked one)."""
        low, high = LEVELS[units]
        flipped = ((low + high) - values).astype(values.dtype)
        delta_e = (values - flipped) * fields
        # min(1, exp(-dE/T)) as exp(min(0, -dE/T)): no overflow when dE << 0. In float64 for
        # float32 fields too, so that the decision does not depend on NumPy's SIMD level (see
        # HeatBath.update), and divided where 1/T overflows, so that a move with Delta E = 0 is
        # always accepted.
        with np.errstate(over="ignore"):  # -inf is the right limit of an uphill move
            rate = np.float64(-1.0) / T
            if np.isfinite(rate):
                log_accept = np.multiply(delta_e, float(rate), dtype=np.float64)
            else:
                log_accept = np.divide(-delta_e, T, dtype=np.float64)
        accept = uniform(rng, fields) < np.exp(np.minimum(0.0, log_accept))
        return np.where(accept, flipped, values)

    def flip_probability(self, delta_e, T):
        """``min(1, exp(-delta_e / T))``, as ``exp(min(0, -delta_e / T))``: no overflow when ``delta_e << 0``."""
        return np.exp(np.minimum(0.0, -delta_e / T))


class Descent(UpdateRule):
    """The zero-temperature rule: each unit takes the value its field favours.

    The ``T -> 0`` limit of both rules above, and the step of
    :func:`bmlib.energy_descent`: ``high`` if ``h_i > 0``, ``low`` if
    ``h_i < 0``, unchanged if ``h_i = 0``. ``T`` and ``rng`` are not used.

    Examples
    --------
    >>> import numpy as np
    >>> from bmlib.sampling.rules import Descent
    >>> Descent().update(np.array([1, 1, -1]), np.array([-2.0, 0.0, 0.5]), 0.0, "spins", None)
    array([-1,  1,  1])
    """

    name = "descent"
    trusted = True

    def update(self, values, fields, T, units, rng):
        low, high = LEVELS[units]
        return np.where(fields > 0, high, np.where(fields < 0, low, values)).astype(values.dtype)

    def flip_probability(self, delta_e, T):
        """1 for a flip that lowers the energy, else 0 (``T`` is not used)."""
        return (np.asarray(delta_e) < 0).astype(float)


#: The rules by name, as every sampler looks them up when it is called: the one place to replace one.
RULES = {"heat_bath": HeatBath(), "metropolis": Metropolis()}

#: The rule every sweep at T = 0 applies.
DESCENT = Descent()

#: Other names of the rules: the heat-bath rule is Gibbs sampling of one unit.
ALIASES = {"gibbs": "heat_bath"}
