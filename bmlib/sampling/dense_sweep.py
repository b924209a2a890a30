"""Sequential heat-bath sweeps of a dense Boltzmann machine, with the per-step overhead cut.

The general chain kernel (:func:`bmlib.sampling.kernel.run`) updates a unit
through the generic interfaces of the coupling operator and the rule: about
fifteen NumPy calls per unit, each with a fixed cost of about a microsecond.
For a dense machine of n = 100 units and 64 chains that fixed cost, not the
arithmetic, is most of the time. This module runs the same sweep with three
calls per unit (two for bits):

- the uniform numbers of the whole sweep are drawn in one call (NumPy's
  ``Generator.random`` hands out the same doubles in one call of size k * c as
  in k calls of size c), and turned into thresholds on the fields in five
  more: the rule's test ``2u - 1 < tanh((h_i + b_i) * scale)``, with
  ``h_i = sum_j W_ij s_j``, holds exactly when
  ``h_i > arctanh(2u - 1) / scale - b_i``, tanh being increasing;
- per unit, what is left is the field of all chains (one matrix-vector
  product) and the comparison, which writes the new values (for spins, the
  sign of field minus threshold, copied onto 1.0);
- the state is held with units as rows for the sweep, so that the values a
  unit takes in all chains are written contiguously;
- the changed units are counted once per sweep: in a sequential sweep every
  free unit is updated exactly once, so it changed if and only if it differs
  between the start and the end of the sweep.

The random numbers and the test are the rule's, so the chains are those of the
general path except where a uniform falls within rounding (about 1e-16) of its
threshold, where the two orders of rounding may decide differently: in
``tests/test_sampling.py`` the chains of the two are identical.
``benchmarks/sampling.py`` measures it against a compiled numba sweep.
"""
import numpy as np


class SequentialHeatBath:
    """Sequential heat-bath sweeps over ``order`` for a dense machine ``(W, b)``.

    Parameters
    ----------
    W : ndarray of shape (n, n)
        Checked symmetric couplings (float64).
    b : ndarray of shape (n,)
        Checked biases (float64).
    order : sequence of int
        The free units, in the order a sweep visits them.
    units : {"spins", "bits"}
    rule : HeatBath
        The rule whose test this is: its :meth:`~bmlib.sampling.rules.HeatBath.scale`
        gives the tanh factor of each sweep's temperature.

    Examples
    --------
    One sweep of four chains of two coupled spins, all up; the same as one sweep of
    :func:`bmlib.sample` with the same seed:

    >>> import numpy as np
    >>> import bmlib as bm
    >>> from bmlib.sampling.rules import RULES
    >>> W = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> state = np.ones((4, 2))
    >>> sweeper = RULES["heat_bath"].dense_sweeper(W, np.zeros(2), [0, 1], "spins")
    >>> sweeper.sweep(state, 1.0, np.random.default_rng(0))
    1
    >>> state[:, 1]
    array([ 1., -1.,  1.,  1.])
    >>> bm.sample(W, None, 1.0, n_samples=1, burn_in=0, initial=np.ones((4, 2)), rng=0).final_state[:, 1]
    array([ 1, -1,  1,  1], dtype=int8)
    """

    def __init__(self, W, b, order, units, *, rule):
        self.rule, self.units = rule, units
        self.order = [int(i) for i in order]
        # Row i of W is column i (W is symmetric): a view.
        self.rows = [W[i] for i in self.order]
        self.biases = b[self.order][:, None]  # (k, 1), beside the sweep's thresholds
        self.spins = units == "spins"

    def sweep(self, state, T, rng):
        """Update every unit of ``order`` once, in place; return how many (unit, chain) values changed.

        ``state`` is the float array of shape (n_chains, n) of the dense
        operator; ``T`` the temperature > 0, or a row of one per chain. None,
        with nothing drawn, where the rule's factor overflows (T below about
        1e-308): the caller then sweeps the elementwise form.
        """
        scale = self.rule.scale(T, self.units)
        if scale is None:
            return None
        n_chains = state.shape[0]
        # The rule's test, 2u - 1 < tanh((sum_j W_ij s_j + b_i) * scale), is turned around once per
        # sweep for all units: sum_j W_ij s_j > arctanh(2u - 1) / scale - b_i, tanh being increasing.
        thresholds = rng.random((len(self.order), n_chains))
        thresholds *= 2
        thresholds -= 1
        with np.errstate(divide="ignore", over="ignore"):  # u = 0 gives -inf, and a huge T +-inf: the limits
            np.arctanh(thresholds, out=thresholds)
            thresholds /= scale
        thresholds -= self.biases
        # Units as rows: one unit's values in all chains are contiguous, which halves the cost of
        # writing them (one copy each way per sweep, against n writes).
        by_unit = state.T.copy()
        before = by_unit[self.order]
        fields = np.empty(n_chains)
        for i, row, threshold in zip(self.order, self.rows, thresholds):
            np.dot(row, by_unit, out=fields)
            if self.spins:  # the sign of field - threshold: +1 where it passes, -1 where not
                np.subtract(fields, threshold, out=fields)
                np.copysign(1.0, fields, out=by_unit[i])
            else:  # 1.0 where the field passes, else 0.0
                np.greater(fields, threshold, out=by_unit[i])
        # (A field exactly at its threshold, a chance of about 1e-16 per update, gives +1 for spins
        # since x - x = +0, and 0 for bits; the rule's strict test would give the low value to both.)
        state[...] = by_unit.T
        return int(np.count_nonzero(by_unit[self.order] != before))
