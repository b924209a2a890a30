"""Checkerboard heat-bath sweeps of a square lattice, with the rule's test worked out per temperature.

On a :class:`~bmlib.SquareLattice` a site's field is ``J`` times the sum of
its four neighbours plus ``h``, and the neighbour sum is an integer from -4 to
4 (0 to 4 for bits): the field takes at most nine values. The general chain
runner still evaluates the heat-bath rule's ``tanh`` (in float64, so that the
decisions do not depend on the machine's SIMD level) at every site of every
sweep, which costs most of a lattice update.

Here the rule's test is turned into nine integer thresholds once per
temperature (:meth:`bmlib.sampling.rules.HeatBath.bit_thresholds`), and a
site goes high when its 24-bit uniform integer is below the threshold of its
neighbour sum. The uniforms are the ones the rule draws, and the integer test
is exactly the rule's float test (the rules module shows why), so the chains
are the general path's bit for bit (``tests/test_sampling.py`` checks it), on
any machine. ``benchmarks/sampling.py`` measures it against compiled numba
sweeps.
"""
import numpy as np

from .uniforms import set_levels, uniform_bits24

#: Neighbour sums run from -4 to 4; adding 4 makes them indices into the table of thresholds.
_OFFSET = 4


class CheckerboardHeatBath:
    """Heat-bath sweeps of a :class:`~bmlib.SquareLattice`, one checkerboard colour at a time.

    Parameters
    ----------
    lattice : SquareLattice
    schedule : FixedOrder
        The lattice's colouring schedule (its colours that have free sites).
    units : {"spins", "bits"}
    rule : HeatBath
        The rule whose test this is (its :meth:`~bmlib.sampling.rules.HeatBath.bit_thresholds`).

    Examples
    --------
    One sweep of two chains of a 4 x 4 torus, the same as one sweep of
    :func:`bmlib.sample` with the same seed:

    >>> import numpy as np
    >>> import bmlib as bm
    >>> from bmlib.sampling.rules import RULES
    >>> lattice = bm.SquareLattice(4)
    >>> start = np.ones((2, 16), dtype=np.int8)
    >>> state = lattice.start(start)
    >>> colouring = lattice.schedule("colouring", np.arange(16), 2)
    >>> sweeper = RULES["heat_bath"].lattice_sweeper(lattice, colouring, "spins")
    >>> sweeper.sweep(state, 2.5, np.random.default_rng(0))   # sites that turned over
    2
    >>> run = bm.sample(lattice, T=2.5, n_samples=1, burn_in=0, initial=start, rng=0)
    >>> bool((lattice.states(state) == run.final_state).all())
    True
    """

    def __init__(self, lattice, schedule, units, *, rule):
        self.lattice, self.rule = lattice, rule
        self.colours = list(schedule.sweep(None))
        self.units = units
        # The fields of the nine neighbour sums, by the lattice's own float32 arithmetic.
        sums = np.arange(-_OFFSET, _OFFSET + 1, dtype=np.int8)
        self.fields = lattice._fields_of_sums(sums)
        self._T = None
        self._thresholds = None

    def thresholds(self, T):
        """The rule's integer thresholds for the nine neighbour sums at ``T`` (kept while T stays)."""
        if T != self._T:
            self._thresholds = self.rule.bit_thresholds(self.fields, T, self.units)
            self._T = T
        return self._thresholds

    def sweep(self, state, T, rng):
        """Update every free site once at temperature ``T > 0``; return how many (site, chain) values changed."""
        thresholds = self.thresholds(T)
        changed = 0
        for colour in self.colours:
            sums = self.lattice._neighbour_sums(state, colour)
            sums += _OFFSET
            bits = uniform_bits24(rng, sums.shape)
            new = set_levels(bits < thresholds.take(sums), self.units, np.int8)
            changed += self.lattice.assign(state, colour, new)
        return int(changed)
