"""Plotly figure builders shared by the book's static twins and the live explorers.

Builders take result records or plain numbers and return a ``plotly`` figure;
they never run the simulator themselves and never import ipywidgets.
"""

from .static import frames_figure, show
from .theme import COLORS, apply_theme, legend_below

__all__ = ["COLORS", "apply_theme", "frames_figure", "legend_below", "show"]
