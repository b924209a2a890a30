"""The widget of the chapter "The Ising model": temperature and field sliders over a running lattice."""
from __future__ import annotations

from io import BytesIO

import ipywidgets
import numpy as np
import PIL.Image
from matplotlib.backends.backend_agg import FigureCanvasAgg

from .._deprecation import renamed
from .._checks import (
    check_choice,
    check_count,
    check_integer,
    check_real,
    check_temperature,
)
from .._random import as_generator
from ..exact.closed_forms import critical_temperature, onsager_energy_per_spin, yang_magnetization
from ..exact.kaufman import kaufman_energy_per_spin
from ..plotting.fit import BookFigure
from ..plotting.style import FONT_SIZE, HIGHLIGHT, NEUTRAL, NEUTRAL_TEXT, UNIT_ON
from ..plotting.words import count, describe, description_of
from ..plotting.words import number, span
from ..plotting.ising import draw_lattice, lattice_words, reference_curves
from ..sampling.chains import sample
from ..sampling.couplings import SquareLattice
from ._base import FigureWidget

#: Range of the temperature slider, in units of J.
T_RANGE = (0.5, 4.0)
#: Largest |H| of the field slider, in units of J (the energy axis makes room for it).
H_MAX = 0.5
#: Batches remembered (and drawn as a trail) next to the exact curves.
HISTORY = 40
#: Largest side the widget accepts: above it one step takes longer than 100 ms.
MAX_WIDGET_SIDE = 64


class IsingWidget(FigureWidget):
    """A square-lattice Ising model that keeps running while you move the temperature.

    Build it with :func:`ising_widget`. Each change of ``T`` or of the field
    ``H`` (or a press of "run more") continues the chain from its current
    state for ``n_sweeps`` heat-bath sweeps at the new setting, then shows the
    lattice and the averages of ``e`` and ``|m|`` over those sweeps as a
    point next to the exact curves. The state, the generator and the
    history are kept, so the same actions from the same seed give the same
    pictures.
    """

    figsize = (9.0, 4.0)

    @renamed(sweeps="n_sweeps")
    def __init__(self, L=32, T=2.5, J=1.0, n_sweeps=40, initial="random", rng=0, h=0.0):
        self.L = check_integer(L, "L", minimum=4, maximum=MAX_WIDGET_SIDE)
        if self.L % 2:
            raise ValueError(f"L must be even (the checkerboard layout of SquareLattice); got {self.L}")
        self.J = check_real(J, "J", positive=True)
        T = check_temperature(T)
        lo, hi = T_RANGE[0] * self.J, T_RANGE[1] * self.J
        if not lo <= T <= hi:
            raise ValueError(f"T must be between {lo:g} and {hi:g} (the slider's range, {T_RANGE[0]:g} J to "
                             f"{T_RANGE[1]:g} J with J = {self.J:g}); got {T!r}")
        h = check_real(h, "h") + 0.0  # + 0.0 turns -0.0 into 0.0, so the title never reads "H = -0.00"
        if not abs(h) <= H_MAX * self.J:
            raise ValueError(f"h must be between {-H_MAX * self.J:g} and {H_MAX * self.J:g} (the field slider's "
                             f"range, +-{H_MAX:g} J with J = {self.J:g}); got {h!r}")
        self.sweeps_per_step = check_count(n_sweeps, "n_sweeps", minimum=1)
        self._initial = check_choice(initial, "initial", ("random", "up"))
        self._seed = rng
        self._canvas = None  # the persistent figure, built on the first render (see _render_png)
        self._lattice = SquareLattice(self.L, J=self.J, h=h)
        # The exact curves depend only on L and J: computed once, drawn on every update.
        self._T_grid = np.linspace(lo, hi, 200)
        self.temperature = ipywidgets.FloatSlider(value=T, min=lo, max=hi, step=0.05 * self.J,
                                                  readout_format=".2f", description="T",
                                                  continuous_update=False)
        # The chapter calls the external field H (h is the local field there); bmlib's argument is h.
        self.field = ipywidgets.FloatSlider(value=h, min=-H_MAX * self.J, max=H_MAX * self.J,
                                            step=0.05 * self.J, readout_format=".2f", description="field H",
                                            continuous_update=False)
        # Width from the label: ipywidgets' fixed default width cut "run 40 more sweeps".
        fit = dict(layout=ipywidgets.Layout(width="auto"))
        self.run_button = ipywidgets.Button(description=f"run {self.sweeps_per_step} more sweeps", **fit)
        self.random_button = ipywidgets.Button(description="restart: random", **fit)
        self.up_button = ipywidgets.Button(description="restart: all up", **fit)
        self.temperature.observe(self._set_temperature, names="value")
        self.field.observe(self._set_field, names="value")
        self.run_button.on_click(self.run)
        self.random_button.on_click(lambda button: self.restart("random"))
        self.up_button.on_click(lambda button: self.restart("up"))
        self._start(self._initial, T, as_generator(rng))
        super().__init__([ipywidgets.HBox([self.temperature, self.run_button]),
                          ipywidgets.HBox([self.field, self.random_button, self.up_button])])

    # --- the chain ---------------------------------------------------------

    def _start(self, initial, T, rng):
        self._rng = rng
        n = self.L * self.L
        if initial == "up":
            self._state = np.ones((1, n), dtype=np.int8)
        else:
            self._state = np.where(self._rng.random((1, n)) < 0.5, 1, -1).astype(np.int8)
        self._start_kind = initial
        self._T = T
        self._total_sweeps = 0
        self._history = []  # (T, mean e, mean |m|) per batch
        self._advance()

    def _advance(self):
        """Run one batch of sweeps at the current T from the current state; record its averages."""
        result = sample(self._lattice, T=self._T, n_samples=self.sweeps_per_step, burn_in=0, initial=self._state,
                        rng=self._rng)
        self._state = result.final_state
        n = self.L * self.L
        e = float(result.energies.mean()) / n
        m = float(np.abs(result.samples.mean(axis=2, dtype=float)).mean())
        self._total_sweeps += self.sweeps_per_step
        self._history = (self._history + [(self._T, e, m)])[-HISTORY:]

    @property
    def T(self):
        """The temperature of the latest batch."""
        return self._T

    @property
    def h(self):
        """The external field of the latest batch (the chapter's H), added to every spin's local field."""
        return self._lattice.h

    @property
    def state(self):
        """The current lattice, a copy of shape (L, L) with spins +-1."""
        return self._state.reshape(self.L, self.L).copy()

    @property
    def history(self):
        """Per batch (oldest first, at most the last 40): ``(T, mean e, mean |m|)``, shape (k, 3)."""
        return np.array(self._history)

    # --- controls ----------------------------------------------------------

    def _set_temperature(self, change):
        self._T = float(change["new"])
        self._advance()
        self._refresh()

    def _set_field(self, change):
        self._lattice = SquareLattice(self.L, J=self.J, h=float(change["new"]) + 0.0)
        self._advance()
        self._refresh()

    def run(self, button=None):
        """Run another batch of sweeps at the current temperature."""
        self._advance()
        self._refresh()

    def restart(self, initial="random"):
        """Start a new chain ("random" or "up") at the current temperature, the generator re-seeded from ``rng``."""
        initial = check_choice(initial, "initial", ("random", "up"))
        self._start(initial, self._T, as_generator(self._seed))
        self._refresh()

    # --- picture -----------------------------------------------------------

    def _describe(self):
        return (f"IsingWidget: {self.L} x {self.L} periodic lattice, J = {self.J:g}, T = {self._T:.2f}, "
                f"H = {self.h:.2f}, {self.sweeps_per_step} heat-bath sweeps per step; run the notebook live "
                "to move T and H")

    def _layout(self, fig, animated):
        """Axes, exact curves and labels (static), and the artists that change (returned)."""
        grid = fig.add_gridspec(2, 2, width_ratios=[1.05, 1.0], left=0.02, right=0.98, top=0.86, bottom=0.12,
                                wspace=0.28, hspace=0.12)
        ax_lattice = fig.add_subplot(grid[:, 0])
        ax_m = fig.add_subplot(grid[0, 1])
        ax_e = fig.add_subplot(grid[1, 1], sharex=ax_m)
        draw_lattice(ax_lattice, self.state, "")
        reference_curves(ax_m, ax_e, self.L, self.J, self._T_grid)
        ax_m.set_ylim(-0.03, 1.05)
        # A field lowers e by up to |H| per spin: room for the whole slider, so the axis never jumps.
        ax_e.set_ylim(-(2.05 + H_MAX) * self.J, 0.02)
        ax_m.tick_params(labelbottom=False)
        ax_e.set_xlabel("temperature T", fontsize=FONT_SIZE)
        ax_m.set_ylabel("|m| per spin", fontsize=FONT_SIZE)
        ax_e.set_ylabel("e = E / N", fontsize=FONT_SIZE)
        ax_m.legend(fontsize=FONT_SIZE - 2, frameon=False, loc="upper right")
        ax_e.legend(fontsize=FONT_SIZE - 2, frameon=False, loc="lower right")
        # Shape and size tell the two kinds of point apart, not only their colours.
        ax_m.text(0.01, 0.04, "dots: earlier steps\ndiamond: now", color=NEUTRAL_TEXT,
                  fontsize=FONT_SIZE - 2, transform=ax_m.transAxes)
        ax_e.text(0.01, 0.9, "exact curves: H = 0", color=NEUTRAL_TEXT, fontsize=FONT_SIZE - 2,
                  transform=ax_e.transAxes, va="top")
        dynamic = {
            "lattice": ax_lattice.images[0],
            "title": ax_lattice.title,
            # Earlier steps in plain grey (3 : 1 on white, unlike the faint dark they were); now a diamond.
            "past_m": ax_m.plot([], [], "o", color=NEUTRAL, ms=4)[0],
            "past_e": ax_e.plot([], [], "o", color=NEUTRAL, ms=4)[0],
            "now_m": ax_m.plot([], [], "D", color=HIGHLIGHT, mec=UNIT_ON, ms=8, zorder=4)[0],
            "now_e": ax_e.plot([], [], "D", color=HIGHLIGHT, mec=UNIT_ON, ms=8, zorder=4)[0],
        }
        # The frame goes on top of the lattice image, so it changes with it.
        dynamic.update({f"spine {side}": spine for side, spine in ax_lattice.spines.items()})
        for artist in dynamic.values():
            artist.set_animated(animated)
        return dynamic

    def _update(self, dynamic):
        """Put the current lattice, title and points into the changing artists, and describe the figure anew."""
        T, e, m = self._history[-1]
        past = np.array(self._history[:-1]).reshape(-1, 3)
        start = "random" if self._start_kind == "random" else "all up"
        self._describe_figure(dynamic["lattice"].figure, T, e, m, past, start)
        dynamic["lattice"].set_data(self.state == 1)
        dynamic["title"].set_text(f"T = {T:.2f} (T/T_c = {T / critical_temperature(self.J):.2f}), "
                                  f"H = {self.h:.2f}, {self._total_sweeps} sweeps from {start}\n"
                                  f"last {self.sweeps_per_step} sweeps: e = {e:.3f}, |m| = {m:.3f}")
        dynamic["past_m"].set_data(past[:, 0], past[:, 2])
        dynamic["past_e"].set_data(past[:, 0], past[:, 1])
        dynamic["now_m"].set_data([T], [m])
        dynamic["now_e"].set_data([T], [e])

    def _describe_figure(self, fig, T, e, m, past, start):
        """The words of the picture: the lattice now, the last batch's averages, and the exact values at T."""
        grid = self.state
        J, L = self.J, self.L
        describe(fig, [
            f"A {L} x {L} Ising lattice (dark +1, white −1) at T = {number(T, 3)} "
            f"(T/T_c = {number(T / critical_temperature(J), 3)}) and field H = {number(self.h)}, "
            f"after {self._total_sweeps} sweeps from {start}: m = {number(grid.mean())}, "
            f"{lattice_words(grid)}.",
            f"The last {count(self.sweeps_per_step, 'sweep')} average |m| = {number(m)} and e = {number(e)}, "
            "drawn as a large diamond beside the exact curves against T.",
        ], [
            f"Exact values at this T for H = 0: Yang's |m| = {number(yang_magnetization(T, J))} (infinite lattice), "
            f"Onsager's e = {number(onsager_energy_per_spin(T, J))} (infinite lattice), Kaufman's "
            f"e = {number(kaufman_energy_per_spin(L, L, T, J))} ({L} x {L}).",
            (f"{count(len(past), 'earlier step')} as grey dots: {_values('T', past[:, 0], 3)}, "
             f"{_values('|m|', past[:, 2])}, {_values('e', past[:, 1])}." if len(past) else "No earlier steps yet."),
        ])

    def _draw(self, fig):
        self._update(self._layout(fig, animated=False))

    def _render_png(self):
        # Only the lattice, its title and the points change from one step to the next. The rest
        # (axes, ticks, curves, legends: most of the text, and text is what costs) is drawn once
        # into a background; each step restores it and draws the changing artists on top.
        if self._canvas is None:
            fig = BookFigure(figsize=self.figsize, dpi=self.dpi)
            self._canvas = FigureCanvasAgg(fig)
            self._dynamic = self._layout(fig, animated=True)
            self._canvas.draw()
            self._background = self._canvas.copy_from_bbox(fig.bbox)
        self._update(self._dynamic)  # also re-describes the figure: its words follow the chain
        self.figure_description = description_of(self._canvas.figure)
        self._canvas.restore_region(self._background)
        for artist in self._dynamic.values():
            self._canvas.figure.draw_artist(artist)
        rgb = np.asarray(self._canvas.buffer_rgba())[..., :3]
        buffer = BytesIO()
        PIL.Image.fromarray(rgb).save(buffer, format="png", compress_level=1)
        return buffer.getvalue()


def _values(name, values, digits=2):
    """``"T = 2.5"`` when all ``values`` read the same, else ``"T from 1.5 to 2.5"``."""
    words = span(values, digits)
    return f"{name} = {words[4:]}" if words.startswith("all ") else f"{name} {words}"


@renamed(sweeps="n_sweeps")
def ising_widget(L=32, T=2.5, J=1.0, n_sweeps=40, initial="random", rng=0, h=0.0):
    """A running square-lattice Ising model with sliders for the temperature and the field.

    Left: the ``L x L`` periodic lattice (dark +1, white -1). Right: the
    mean ``|m|`` and energy per spin of each batch of ``n_sweeps`` heat-bath
    sweeps (checkerboard), as points next to Yang's and Onsager's curves
    for the infinite lattice and Kaufman's exact energy for this ``L``.
    Moving ``T`` continues the chain from where it is, like a slowly
    heated or cooled magnet; moving the field ``H`` adds ``-H sum_i s_i``
    to the energy (the ``h`` of :class:`~bmlib.SquareLattice`), so the
    recorded ``e`` includes it, while the exact curves stay those of
    ``H = 0``. The buttons run more sweeps or restart from a random or an
    all-up lattice (keeping ``T`` and ``H``). Explained in the chapter
    "The Ising model".

    Parameters
    ----------
    L : int
        Side of the lattice, even, ``4 <= L <= 64``.
    T : float
        Starting temperature, between ``0.5 J`` and ``4 J``.
    J : float
        Coupling, > 0.
    n_sweeps : int
        Sweeps run after each change, >= 1.
    initial : {"random", "up"}
        Starting lattice.
    rng : None, int or numpy.random.Generator
        Seed of the chain (default 0, so the first picture is always the same).
    h : float
        Starting external field (the chapter's ``H``), between ``-0.5 J``
        and ``0.5 J``.

    Returns
    -------
    IsingWidget

    Examples
    --------
    >>> w = bm.ising_widget(L=16, T=3.0, n_sweeps=10)
    >>> w.temperature.value = 1.5
    >>> w.field.value = 0.25
    >>> w.history.shape, w.state.shape, w.h
    ((3, 3), (16, 16), 0.25)
    >>> w.figure_png()[:4]
    b'\\x89PNG'
    """
    return IsingWidget(L, T, J, n_sweeps, initial, rng, h)
