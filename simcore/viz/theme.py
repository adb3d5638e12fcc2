"""One look for every figure in the book: fonts, colours, margins, legends."""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio

COLORS = ["#1f5fa8", "#d1495b", "#2e933c", "#edae49", "#6c4f9c", "#00798c", "#8c564b", "#555555"]


def apply_theme(fig: go.Figure, height: int = 420) -> go.Figure:
    """Apply the book's layout defaults; returns the same figure.

    The title sits at the top left and a horizontal legend just above the plot,
    with room between them so long legends never cover the title.
    """
    fig.update_layout(
        template="plotly_white",
        colorway=COLORS,
        height=height,
        margin=dict(l=60, r=20, t=110, b=50),
        font=dict(family="Helvetica, Arial, sans-serif", size=13),
        title=dict(x=0.01, xanchor="left", y=0.98, yanchor="top"),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0),
        hoverlabel=dict(namelength=-1),
    )
    return fig


def legend_below(fig: go.Figure, rows: int = 3) -> go.Figure:
    """Move a long legend under the plot (for figures with many or long trace names)."""
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.22, xanchor="left", x=0),
                      margin=dict(t=60, b=90 + 22 * rows))
    return fig


def use_theme() -> None:
    """Make the book's look plotly's default template ("disklab"), for figures built by hand.

    The labs draw their own ``go.Figure``s; with this (run when ``simcore.labkit`` is imported)
    they look like the book's figures instead of plotly's grey default.
    """
    if "disklab" not in pio.templates:
        base = go.layout.Template(pio.templates["plotly_white"])
        base.layout.update(
            colorway=COLORS, font=dict(family="Helvetica, Arial, sans-serif", size=13),
            margin=dict(l=60, r=20, t=90, b=50),
            title=dict(x=0.01, xanchor="left", y=0.98, yanchor="top"),
            legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0),
            hoverlabel=dict(namelength=-1))
        pio.templates["disklab"] = base
    pio.templates.default = "disklab"
