"""One look for every figure in the book: fonts, colours, margins."""

from __future__ import annotations

import plotly.graph_objects as go

COLORS = ["#1f5fa8", "#d1495b", "#2e933c", "#edae49", "#6c4f9c", "#00798c", "#8c564b", "#555555"]


def apply_theme(fig: go.Figure, height: int = 420) -> go.Figure:
    """Apply the book's layout defaults; returns the same figure."""
    fig.update_layout(
        template="plotly_white",
        colorway=COLORS,
        height=height,
        margin=dict(l=60, r=20, t=60, b=50),
        font=dict(family="Helvetica, Arial, sans-serif", size=13),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0),
        hoverlabel=dict(namelength=-1),
    )
    return fig
