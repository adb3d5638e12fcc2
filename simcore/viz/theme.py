"""One look for every figure in the book: fonts, colours, margins, legends."""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio

COLORS = ["#1f5fa8", "#d1495b", "#2e933c", "#edae49", "#6c4f9c", "#00798c", "#8c564b", "#555555"]


def apply_theme(fig: go.Figure, height: int = 420) -> go.Figure:
    """Apply the book's layout defaults; returns the same figure.

    The title sits at the top left and a horizontal legend just above the plot;
    :func:`simcore.viz.layout.fit_layout` (run by ``show``) later puts the legend under
    the title and fits the top margin to them.
    """
    fig.update_layout(
        template="plotly_white",
        colorway=COLORS,
        height=height,
        margin=dict(l=60, r=20, t=110, b=50),
        font=dict(family="Helvetica, Arial, sans-serif", size=13),
        title=dict(x=0.01, xanchor="left", y=0.98, yanchor="top", font=dict(size=17)),
        # paper units: a live figure themed again after fit_layout moved its legend
        legend=dict(orientation="h", yref="paper", yanchor="bottom", y=1.02, xanchor="left",
                    x=0),
        hoverlabel=dict(namelength=-1),
    )
    return fig


def legend_below(fig: go.Figure, rows: int = 3) -> go.Figure:
    """Move a long legend to the bottom of the figure, under the x-axis title.

    ``rows`` is how many rows the legend takes at the book's width; the bottom margin keeps
    that much room under the axis title.
    """
    fig.update_layout(legend=dict(orientation="h", yref="container", yanchor="bottom", y=0,
                                  xanchor="left", x=0),
                      margin=dict(b=72 + 21 * rows))
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
