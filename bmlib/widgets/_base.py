"""Widgets for the book: sliders above a figure that is re-drawn as they move.

Why the figure is an ``ipywidgets.Image`` of PNG bytes and not an ``Output``
widget with pyplot inside: the PNG is drawn on a fresh
:class:`matplotlib.figure.Figure` (no pyplot state, no ``clear_output``
messages that trip nbval), and the same bytes can be handed to the static
HTML page through ``_repr_mimebundle_``, so a reader without a kernel still
sees the widget's picture.
"""
from __future__ import annotations

import base64
from io import BytesIO

import ipywidgets
from matplotlib.figure import Figure


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
    dpi = 80

    def __init__(self, rows, **kwargs):
        self._image = ipywidgets.Image(format="png")
        super().__init__(children=[*rows, self._image], **kwargs)
        self._refresh()

    def _draw(self, fig):
        raise NotImplementedError("a FigureWidget subclass must define _draw(fig)")

    def _describe(self):
        return type(self).__name__

    def _render_png(self):
        # No layout engine: constrained layout would draw the figure twice per
        # update; subclasses place their axes with fixed margins instead.
        fig = Figure(figsize=self.figsize, dpi=self.dpi)
        self._draw(fig)
        buffer = BytesIO()
        fig.savefig(buffer, format="png", dpi=self.dpi)
        return buffer.getvalue()

    def _refresh(self, change=None):
        self._image.value = self._render_png()

    def figure_png(self):
        """The PNG bytes of the picture as it is now."""
        return bytes(self._image.value)  # the Image trait may hold a memoryview

    def _repr_mimebundle_(self, **kwargs):
        # ipywidgets gives text/plain and the live widget view; add the picture
        # as image/png for pages without a kernel, and a text/plain without the
        # widget's model id so that stored outputs stay the same run to run.
        data = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = self._describe()
        data["image/png"] = base64.b64encode(self.figure_png()).decode("ascii")
        return data
