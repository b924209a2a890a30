"""Sphinx extension: a figure's words become its image's ``alt`` text.

Every bmlib figure is stored in the chapter with its summary in the output's
metadata, ``{"image/png": {"alt": "..."}}`` (see
``bmlib/plotting/fit.py``, ``BookFigure._ipython_display_``; widgets do the
same in ``bmlib/widgets/_base.py``). myst-nb 1.x reads only ``width`` and
``height`` from an output's metadata and takes ``alt`` from cell metadata
alone, so without this every image's ``alt`` would be its file name, and a
screen reader would read a hash. This wraps myst-nb's image renderer to set
``alt`` from the output's own metadata; Chromium then carries it into the
tagged PDF as the figure's ``/Alt``.

``tests/test_browser.py`` fails if any image in the built book has an empty
``alt`` or one that is a file name, so a myst-nb that renames the method
this wraps is caught there.
"""
from __future__ import annotations

import functools


def _alt_from_output_metadata(render_image):
    @functools.wraps(render_image)
    def wrapped(self, data):
        nodes = render_image(self, data)
        alt = data.output_metadata.get(data.mime_type, {}).get("alt")
        if alt:
            for node in nodes:
                node["alt"] = str(alt)
        return nodes

    wrapped._bm_figure_words = True
    return wrapped


def setup(app):
    from myst_nb.core.render import NbElementRenderer

    if not getattr(NbElementRenderer.render_image, "_bm_figure_words", False):
        NbElementRenderer.render_image = _alt_from_output_metadata(NbElementRenderer.render_image)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
