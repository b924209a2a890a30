"""Widgets for the book, one module per chapter, all built on :class:`FigureWidget`.

See ``_base.py`` for why every widget shows its figure as PNG bytes.
"""
from ._base import BlittedFigureWidget, FigureWidget
from .energy import MAX_WIDGET_UNITS, EnergyWidget, energy_widget
from .hidden import HiddenWidget, hidden_widget
from .images import DigitsWidget, digits_widget
from .ising import IsingWidget, ising_widget
from .learning import MAX_LEARNING_WIDGET_UNITS, LearningWidget, learning_widget
from .meanfield import MAX_MEAN_FIELD_WIDGET_UNITS, MeanFieldWidget, mean_field_widget
from .partition import PartitionWidget, partition_widget
from .sampling import MAX_SAMPLING_WIDGET_UNITS, SamplingWidget, sampling_widget
