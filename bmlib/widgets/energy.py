"""The widget of the chapter "Energy": one weight, one bias and T above the landscape."""
from __future__ import annotations

import ipywidgets
import numpy as np

from .._checks import check_model, check_temperature, check_units
from ..plotting.style import draw_network
from ..plotting.words import describe
from ..plotting.energy import TEMPERATURE_FORMAT, draw_energy_landscape, network_words
from ._base import FigureWidget

#: Largest network the energy widget accepts: above it, redrawing 2**n bars
#: on every slider step becomes too slow to feel live.
MAX_WIDGET_UNITS = 8


class EnergyWidget(FigureWidget):
    """Sliders for one weight, one bias and T above the energy landscape.

    Build it with :func:`energy_widget`. The model as currently set by the
    sliders is in the read-only properties :attr:`W`, :attr:`b` and :attr:`T`.
    """

    figsize = (9.0, 4.2)

    def __init__(self, W, b=None, T=1.0, units="spins"):
        W, b = check_model(W, b)
        n = W.shape[0]
        if not 2 <= n <= MAX_WIDGET_UNITS:
            raise ValueError(f"energy_widget needs 2 <= n <= {MAX_WIDGET_UNITS} units; got n = {n}")
        self.units = check_units(units)
        self._defaults = (W.copy(), b.copy(), check_temperature(T))
        self._W, self._b, self._T = W.copy(), b.copy(), self._defaults[2]
        self._syncing = False  # True while a dropdown moves its slider: no model change
        limit = float(max(2.0, np.ceil(max(np.abs(W).max(), np.abs(b).max()))))
        slider = dict(min=-limit, max=limit, step=0.1, readout_format=".1f")
        self.pair = ipywidgets.Dropdown(options=[(f"{i}, {j}", (i, j)) for i, j in zip(*np.triu_indices(n, 1))],
                                        description="pair i, j")
        self.weight = ipywidgets.FloatSlider(value=W[0, 1], description="w_ij", **slider)
        self.unit = ipywidgets.Dropdown(options=list(range(n)), description="unit i")
        self.bias = ipywidgets.FloatSlider(value=b[0], description="b_i", **slider)
        self.temperature = ipywidgets.FloatLogSlider(value=self._T, base=10, min=min(-1, np.log10(self._T)),
                                                     max=max(1, np.log10(self._T)), step=0.05, description="T",
                                                     # as the figure's "p(s) at T = ..." writes it
                                                     readout_format=TEMPERATURE_FORMAT)
        self.reset_button = ipywidgets.Button(description="reset")
        self.pair.observe(self._show_weight, names="value")
        self.unit.observe(self._show_bias, names="value")
        self.weight.observe(self._set_weight, names="value")
        self.bias.observe(self._set_bias, names="value")
        self.temperature.observe(self._set_temperature, names="value")
        self.reset_button.on_click(self.reset)
        HBox = ipywidgets.HBox
        super().__init__([HBox([self.pair, self.weight]), HBox([self.unit, self.bias]),
                          HBox([self.temperature, self.reset_button])])

    @property
    def W(self):
        """The weights as currently set, a copy of shape (n, n)."""
        return self._W.copy()

    @property
    def b(self):
        """The biases as currently set, a copy of shape (n,)."""
        return self._b.copy()

    @property
    def T(self):
        """The temperature as currently set."""
        return self._T

    def _describe(self):
        n = self._W.shape[0]
        return (f"EnergyWidget: n={n} units ({self.units}), {2**n} states; "
                "run the notebook live to drag the sliders for w_ij, b_i and T")

    def _draw(self, fig):
        grid = fig.add_gridspec(1, 2, width_ratios=[1.2, 2], left=0.02, right=0.98, top=0.97,
                                bottom=0.1, wspace=0.2)
        draw_network(fig.add_subplot(grid[0]), self._W, self._b)
        draw_energy_landscape(fig, self._W, self._b, self._T, self.units, spec=grid[1], labels=False)
        # The landscape's words lead (they change with every slider); the network's follow, "Left, ...".
        landscape = fig.description
        network, weights = network_words(self._W, self._b, opening="On the left, a network")
        describe(fig, landscape.summary, [landscape.details, *network, *weights])

    def _quietly(self, slider, value):
        self._syncing = True
        try:
            slider.value = value
        finally:
            self._syncing = False

    def _show_weight(self, change):
        self._quietly(self.weight, self._W[change["new"]])

    def _show_bias(self, change):
        self._quietly(self.bias, self._b[change["new"]])

    def _set_weight(self, change):
        if not self._syncing:
            i, j = self.pair.value
            self._W[i, j] = self._W[j, i] = change["new"]  # both halves: W stays symmetric
            self._refresh()

    def _set_bias(self, change):
        if not self._syncing:
            self._b[self.unit.value] = change["new"]
            self._refresh()

    def _set_temperature(self, change):
        if not self._syncing:
            self._T = float(change["new"])
            self._refresh()

    def reset(self, button=None):
        """Put every slider and the model back to the values the widget was built with."""
        W, b, T = self._defaults
        self._W, self._b = W.copy(), b.copy()
        self._quietly(self.weight, W[self.pair.value])
        self._quietly(self.bias, b[self.unit.value])
        self._quietly(self.temperature, T)
        self._T = T
        self._refresh()


def energy_widget(W, b=None, T=1.0, units="spins"):
    """An interactive energy landscape: move one weight, one bias or T and watch.

    Shows the network (left) and the energy and Boltzmann probability of
    every state (right). Pick a pair ``(i, j)`` and drag ``w_ij`` (``w_ji``
    follows, so W stays symmetric); pick a unit ``i`` and drag ``b_i``; drag
    ``T``. In a static page the widget shows its picture at the moment it was
    displayed. Explained in the chapter "Energy".

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric weights with zero diagonal, ``2 <= n <= 8``.
    b : array_like of shape (n,), optional
    T : float
    units : {"spins", "bits"}

    Returns
    -------
    EnergyWidget

    Examples
    --------
    >>> w = bm.energy_widget([[0, 1], [1, 0]], b=[0.5, 0])
    >>> w.weight.value = -1.0
    >>> w.W.tolist()
    [[0.0, -1.0], [-1.0, 0.0]]
    >>> w.figure_png()[:4]
    b'\\x89PNG'
    """
    return EnergyWidget(W, b, T, units)
