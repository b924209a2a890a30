"""The widget of the chapter "Sampling: heat bath and Metropolis": sampled against exact, live."""
from __future__ import annotations

import ipywidgets
import numpy as np

from .._checks import (
    check_choice,
    check_count,
    check_integer,
    check_model,
    check_states,
    check_temperature,
    check_units,
)
from .._random import as_generator
from ..exact.enumeration import boltzmann_distribution
from ..plotting.style import state_labels
from ..plotting.words import number
from ..plotting.sampling import RULE_STYLE, draw_sampled_distribution
from ..sampling.chains import sample
from ..sampling.transition import state_frequencies, total_variation
from ._base import FigureWidget

#: Largest network the sampling widget accepts: it redraws 2**n bars and
#: reruns the chains on every slider step.
MAX_SAMPLING_WIDGET_UNITS = 6


class SamplingWidget(FigureWidget):
    """Sliders for T and the number of sweeps above the sampled and the exact distribution.

    Build it with :func:`sampling_widget`. Every redraw reruns the chains
    from the same seed, so a slider setting always gives the same picture.
    The current frequencies and exact probabilities are in the read-only
    properties :attr:`frequencies` and :attr:`exact`.
    """

    figsize = (7.0, 3.6)

    def __init__(self, W, b=None, T=1.0, units="spins", *, initial=None, n_chains=100, n_sweeps=20,
                 max_sweeps=200, rule="heat_bath", rng=0):
        W, b = check_model(W, b)
        n = W.shape[0]
        if not 1 <= n <= MAX_SAMPLING_WIDGET_UNITS:
            raise ValueError(f"sampling_widget needs 1 <= n <= {MAX_SAMPLING_WIDGET_UNITS} units; got n = {n}")
        self.units = check_units(units)
        self._W, self._b = W, b
        self._initial = None if initial is None else check_states(initial, n, self.units, name="initial")
        self._n_chains = check_count(n_chains, "n_chains", minimum=1)
        max_sweeps = check_count(max_sweeps, "max_sweeps", minimum=1)
        n_sweeps = check_integer(n_sweeps, "n_sweeps", minimum=1, maximum=max_sweeps)
        T = check_temperature(T)
        rule = check_choice(rule, "rule", tuple(RULE_STYLE))
        if isinstance(rng, np.random.Generator):
            raise TypeError("rng must be an int seed (or None), not a Generator: every redraw starts afresh "
                            "from the same seed")
        as_generator(rng)  # checks the seed; each redraw makes a fresh generator from it
        self._seed = rng
        self._max_sweeps = max_sweeps
        self._runs = {}  # (T, rule) -> states of every sweep, shape (max_sweeps, n_chains, n)
        self._frequencies = self._exact = None
        self.temperature = ipywidgets.FloatLogSlider(value=T, base=10, min=min(-0.7, np.log10(T)),
                                                     max=max(1, np.log10(T)), step=0.05, description="T")
        self.sweeps = ipywidgets.IntSlider(value=n_sweeps, min=1, max=max_sweeps, description="sweeps")
        self.rule = ipywidgets.ToggleButtons(options=[(name, key) for key, (_, name) in RULE_STYLE.items()],
                                             value=rule, description="rule")
        for control in (self.temperature, self.sweeps, self.rule):
            control.observe(self._refresh, names="value")
        super().__init__([ipywidgets.HBox([self.temperature, self.sweeps]), self.rule])

    @property
    def T(self):
        """The temperature as currently set."""
        return float(self.temperature.value)

    @property
    def frequencies(self):
        """Fraction of the sampled states in each state, shape (2**n,), as last drawn."""
        return self._frequencies.copy()

    @property
    def exact(self):
        """The exact Boltzmann-Gibbs probabilities, shape (2**n,), at the current T."""
        return self._exact.copy()

    def _describe(self):
        n = self._W.shape[0]
        return (f"SamplingWidget: n={n} units ({self.units}), {self._n_chains} chains started from {self._start()}; "
                "run the notebook live to drag the sliders for T and the number of sweeps")

    def _start(self):
        return "random states" if self._initial is None else "the state " + state_labels(self._initial, self.units)

    def _states(self, T, rule):
        """The chains' states after sweeps 1 to max_sweeps, from the widget's seed.

        The first t sweeps of this run are exactly a run of t sweeps from the
        same seed, so moving the sweeps slider only takes a prefix; the last
        few runs are kept, so moving back and forth costs nothing.
        """
        key = (T, rule)
        if key not in self._runs:
            if len(self._runs) >= 8:
                self._runs.pop(next(iter(self._runs)))
            self._runs[key] = sample(self._W, self._b, T, self.units, n_samples=self._max_sweeps,
                                     n_chains=self._n_chains, burn_in=0, rule=rule, initial=self._initial,
                                     rng=self._seed).samples
        return self._runs[key]

    def _draw(self, fig):
        T, n_sweeps, rule = self.T, int(self.sweeps.value), self.rule.value
        states = self._states(T, rule)[:n_sweeps]
        self._frequencies = state_frequencies(states, self.units)
        self._exact = boltzmann_distribution(self._W, self._b, T, self.units)
        note = (f"{RULE_STYLE[rule][1]}, T = {T:.2f}: {self._n_chains} chains x {n_sweeps} sweeps, all states "
                f"counted\ntotal-variation distance {total_variation(self._frequencies, self._exact):.3f}")
        grid = fig.add_gridspec(1, 1, left=0.1, right=0.98, top=0.86, bottom=0.12)
        # No text label under each state (as in the energy widget): each costs about a millisecond per redraw.
        start = "random states" if self._initial is None else state_labels(self._initial, self.units)
        subject = (f"the states of {self._n_chains:,} {RULE_STYLE[rule][1]} chain{'s' * (self._n_chains != 1)} "
                   f"over {n_sweeps} sweep{'s' * (n_sweeps != 1)} from {start} at T = {number(T, 3)}")
        draw_sampled_distribution(fig, self._frequencies, self._exact, self.units, spec=grid[0], labels=False,
                                   note=note, subject=subject)


def sampling_widget(W, b=None, T=1.0, units="spins", *, initial=None, n_chains=100, n_sweeps=20, max_sweeps=200,
                    rule="heat_bath", rng=0):
    """Sample a small network live: drag T and the number of sweeps, compare with the exact distribution.

    ``n_chains`` chains start in ``initial`` (or in random states) and run
    ``n_sweeps`` sweeps of sequential dynamics at temperature ``T``; every
    state they pass through is counted. The picture shows these frequencies
    (narrow dark bars) against the exact Boltzmann-Gibbs probabilities (wide
    grey bars), with the total-variation distance between them. The same
    seed is used on every redraw. Explained in the chapter
    "Sampling: heat bath and Metropolis".

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric weights with zero diagonal, ``1 <= n <= 6``.
    b : array_like of shape (n,), optional
    T : float
        Starting temperature.
    units : {"spins", "bits"}
    initial : array_like of shape (n,), optional
        The state every chain starts in (default: random states).
    n_chains : int
    n_sweeps : int
        Starting value of the sweeps slider, ``1 <= n_sweeps <= max_sweeps``.
    max_sweeps : int
    rule : {"heat_bath", "metropolis"}
        Starting value of the rule buttons.
    rng : int or None
        The seed used for every redraw.

    Returns
    -------
    SamplingWidget

    Examples
    --------
    >>> w = bm.sampling_widget([[0, 1], [1, 0]], T=1.0, n_chains=50)
    >>> w.sweeps.value = 100
    >>> round(float(w.frequencies.sum()), 6), w.exact.shape
    (1.0, (4,))
    >>> w.figure_png()[:4]
    b'\\x89PNG'
    """
    return SamplingWidget(W, b, T, units, initial=initial, n_chains=n_chains, n_sweeps=n_sweeps,
                          max_sweeps=max_sweeps, rule=rule, rng=rng)
