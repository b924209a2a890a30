"""Sequential heat-bath sweeps of a dense Boltzmann machine, with the per-step overhead cut.

The general chain runner (:func:`bmlib.sampling.chains._run`) updates a unit
through the generic interfaces of the coupling operator and the rule: about
fifteen NumPy calls per unit, each with a fixed cost of about a microsecond.
For a dense machine of n = 100 units and 64 chains that fixed cost, not the
arithmetic, is most of the time. This module runs the same sweep with seven
calls per unit:

- the uniform numbers of the whole sweep are drawn in one call (NumPy's
  ``Generator.random`` hands out the same doubles in one call of size k * c as
  in k calls of size c);
- the fields, the heat-bath probability and the comparison are the general
  path's operations in the general path's order, on the same arrays (the
  column of ``W`` is the same view, the product the same matrix product, the
  factor from field to tanh argument the rule's own ``_heat_bath_scale``);
- the changed units are counted once per sweep: in a sequential sweep every
  free unit is updated exactly once, so it changed if and only if it differs
  between the start and the end of the sweep.

The chains are therefore bit for bit those of the general path
(``tests/test_sampling.py`` checks it), only faster; ``benchmarks/sampling.py``
measures it against a compiled numba sweep.
"""
import numpy as np

from .._checks import LEVELS


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

    Examples
    --------
    One sweep of four chains of two coupled spins, all up; the same as one sweep of
    :func:`bmlib.sample` with the same seed:

    >>> import numpy as np
    >>> import bmlib as bm
    >>> from bmlib.sampling.dense_sweep import SequentialHeatBath
    >>> from bmlib.sampling.rules import _heat_bath_scale
    >>> W = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> state = np.ones((4, 2))
    >>> sweeper = SequentialHeatBath(W, np.zeros(2), [0, 1], "spins")
    >>> sweeper.sweep(state, _heat_bath_scale(1.0, "spins"), np.random.default_rng(0))
    1
    >>> state[:, 1]
    array([ 1., -1.,  1.,  1.])
    >>> bm.sample(W, None, 1.0, n_samples=1, burn_in=0, initial=np.ones((4, 2)), rng=0).final_state[:, 1]
    array([ 1, -1,  1,  1], dtype=int8)
    """

    def __init__(self, W, b, order, units):
        self.order = [int(i) for i in order]
        # Row i of W is column i (W is symmetric): a view, as the general path uses.
        self.columns = [W[i][:, None] for i in self.order]
        self.biases = [b[i : i + 1] for i in self.order]
        self.slices = [slice(i, i + 1) for i in self.order]
        low, high = LEVELS[units]
        self.low, self.high = float(low), float(high)

    def sweep(self, state, scale, rng):
        """Update every unit of ``order`` once, in place; return how many (unit, chain) values changed.

        ``state`` is the float array of shape (n_chains, n) of the dense
        operator; ``scale`` is the heat-bath rule's factor for the sweep's
        temperature, :func:`bmlib.sampling.rules._heat_bath_scale` (not None).
        """
        n_chains = state.shape[0]
        # 2u - 1 < tanh(h * scale) is the heat-bath rule's test (bmlib.sampling.rules._heat_bath).
        u = rng.random((len(self.order), n_chains, 1))
        u *= 2
        u -= 1
        before = state[:, self.order]
        high, low = self.high, self.low
        with np.errstate(over="ignore"):  # h * scale = +-inf at tiny T is the right limit, as in the rule
            for k, (column, bias, where) in enumerate(zip(self.columns, self.biases, self.slices)):
                fields = state @ column
                fields += bias
                fields *= scale
                np.tanh(fields, out=fields)
                state[:, where] = np.where(u[k] < fields, high, low)
        return int(np.count_nonzero(state[:, self.order] != before))
