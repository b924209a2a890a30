"""Widgets for the book: sliders above a figure that is re-drawn as they move.

Why the figure is an ``ipywidgets.Image`` of PNG bytes and not an ``Output``
widget with pyplot inside: the PNG is drawn on a fresh
:class:`matplotlib.figure.Figure` (no pyplot state, no ``clear_output``
messages that trip nbval), and the same bytes can be handed to the static
HTML page through ``_repr_mimebundle_``, so a reader without a kernel still
sees the widget's picture.

Each picture also comes with its words (``bmlib/plotting/words.py``),
written by the same drawing function: live, in a text line under the picture
that changes with it (and as the picture's tooltip, which gives the image an
accessible name); in the static page, as the stored picture's ``alt``.
"""
from __future__ import annotations

import base64
import html
from io import BytesIO

import ipywidgets
from traitlets import Unicode
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.image import imsave

from ..plotting.fit import DPI, BookFigure, raise_small_text
from ..plotting.words import description_of


class _NamedImage(ipywidgets.Image):
    """An ``ipywidgets.Image`` whose ``tooltip`` can name it for a screen reader.

    ipywidgets 8 shows a widget's tooltip as the ``title`` of its element only
    when the widget's ``description`` is empty, and reads
    ``description.length`` to find out; ``Image`` has no ``description``, so
    setting its tooltip throws in the browser and the picture is replaced by
    an error box. An empty ``description`` here makes the tooltip the
    ``title`` of the ``<img>``, its accessible name. (Checked in JupyterLab by
    tests/test_jupyterlab.py.)
    """

    description = Unicode("").tag(sync=True)


class FigureWidget(ipywidgets.VBox):
    """Rows of controls above a picture that subclasses draw in :meth:`_draw`.

    A subclass sets up its model and controls, then calls
    ``super().__init__(rows)``; it calls :meth:`_refresh` whenever a control
    changes the picture.

    Parameters
    ----------
    rows : list of ipywidgets.Widget
        Control rows, shown top to bottom above the picture.
    """

    figsize = (7.0, 4.2)
    dpi = DPI  # the same resolution as the chapters' other figures

    def __init__(self, rows, **kwargs):
        self._image = _NamedImage(format="png")
        # Announced when it changes (aria-live), so a screen reader hears what a slider did.
        self._words = ipywidgets.HTML()
        self._words.add_class("bm-figure-words-live")
        self.figure_description = None
        super().__init__(children=[*rows, self._image, self._words], **kwargs)
        self._refresh()

    def _draw(self, fig):
        raise NotImplementedError("a FigureWidget subclass must define _draw(fig)")

    def _describe(self):
        return type(self).__name__

    def _render_png(self):
        # No layout engine: constrained layout would draw the figure twice per
        # update; subclasses place their axes with fixed margins instead.
        fig = BookFigure(figsize=self.figsize, dpi=self.dpi)
        self._draw(fig)
        self.figure_description = description_of(fig)
        buffer = BytesIO()
        fig.savefig(buffer, format="png", dpi=self.dpi)
        return buffer.getvalue()

    def _refresh(self, change=None):
        self._image.value = self._render_png()
        self._image.tooltip = self.figure_description.summary
        self._words.value = f'<p aria-live="polite">{html.escape(self.figure_description.text)}</p>'

    def figure_png(self):
        """The PNG bytes of the picture as it is now."""
        return bytes(self._image.value)  # the Image trait may hold a memoryview

    def _repr_mimebundle_(self, **kwargs):
        # ipywidgets gives text/plain and the live widget view; add the picture
        # as image/png for pages without a kernel, and a text/plain without the
        # widget's model id so that stored outputs stay the same run to run.
        data = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = f"{self._describe()}\n{self.figure_description.plain('Figure: ')}"
        data["image/png"] = base64.b64encode(self.figure_png()).decode("ascii")
        return data, {"image/png": {"alt": self.figure_description.text}}


class BlittedFigureWidget(FigureWidget):
    """A :class:`FigureWidget` that draws its figure once and then moves only what changes.

    Drawing a fresh figure costs most of a slider step (axes, ticks and text
    dominate). Here the figure is drawn once; the artists returned by
    :meth:`_moving_artists` are marked animated, so that full draw leaves them
    out and becomes a kept background. Each step calls :meth:`_update` (which
    changes those artists' data), restores the background and draws only them.
    The first picture goes the same way, so a state looks the same however one
    arrives at it.

    Subclasses define ``_draw(fig)``, ``_moving_artists()`` and ``_update()``.
    """

    def _moving_artists(self):
        raise NotImplementedError("a BlittedFigureWidget subclass must define _moving_artists()")

    def _update(self):
        raise NotImplementedError("a BlittedFigureWidget subclass must define _update()")

    def _render_png(self):
        if getattr(self, "_figure", None) is None:
            self._figure = BookFigure(figsize=self.figsize, dpi=self.dpi)
            FigureCanvasAgg(self._figure)
            self._draw(self._figure)
            self.figure_description = description_of(self._figure)
            self._moving = self._moving_artists()
            for artist in self._moving:
                artist.set_animated(True)
            self._figure.canvas.draw()
            self._background = self._figure.canvas.copy_from_bbox(self._figure.bbox)
        else:
            self._update()  # also re-describes the figure: its words follow its data
            self.figure_description = description_of(self._figure)
            raise_small_text(self._figure)  # artists made by _update have not been through a full draw
        canvas = self._figure.canvas
        canvas.restore_region(self._background)
        for artist in self._moving:
            self._figure.draw_artist(artist)
        buffer = BytesIO()
        imsave(buffer, np.asarray(canvas.buffer_rgba()), format="png")
        return buffer.getvalue()

