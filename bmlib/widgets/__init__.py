"""Widgets for the book, one module per chapter, all built on :class:`FigureWidget`.

See ``_base.py`` for why every widget shows its figure as PNG bytes.
"""
from ._base import FigureWidget
from .energy import MAX_WIDGET_UNITS, EnergyWidget, energy_widget
