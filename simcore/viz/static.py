"""Static twins: figures whose sliders switch between frames computed at build time.

The built book has no kernel, so a "movable" figure carries all its frames and
a plotly slider. :func:`show` emits the figure as HTML that uses the page's
own copy of plotly.js (shipped with the book), because the default notebook
renderer comes out blank in Jupyter Book 1.x.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import plotly.graph_objects as go


def frames_figure(
    values: Sequence[Any],
    make_traces: Callable[[Any], list[go.BaseTraceType]],
    label: str,
    fmt: Callable[[Any], str] = str,
    active: int = 0,
    layout_for: Callable[[Any], dict] | None = None,
) -> go.Figure:
    """A figure with one frame per value of a parameter and a slider to move between them.

    ``make_traces(value)`` returns the traces for one value; every value must
    return the same number of traces. ``layout_for(value)`` may return layout
    updates (titles, axis ranges) applied when that frame is shown.
    """
    frames = []
    for v in values:
        layout = layout_for(v) if layout_for else {}
        frames.append(go.Frame(data=make_traces(v), name=fmt(v), layout=layout or None))
    fig = go.Figure(data=frames[active].data, frames=frames)
    if layout_for:
        fig.update_layout(layout_for(values[active]))
    steps = [
        dict(method="animate", label=fmt(v),
             args=[[fmt(v)], dict(mode="immediate", frame=dict(duration=0, redraw=True),
                                  transition=dict(duration=0))])
        for v in values
    ]
    fig.update_layout(sliders=[dict(active=active, currentvalue=dict(prefix=f"{label}: "),
                                    pad=dict(t=40), steps=steps)])
    return fig


def show(fig: go.Figure, div_id: str, height: int | None = None):
    """Display a figure: as HTML with a stable id in the book build, natively elsewhere.

    Either way the figure first gets :func:`simcore.viz.layout.fit_layout` (log ticks,
    title and legend placement, margins); on a phone ``book/_static/disklab_figures.js``
    adapts it further.

    The book build sets ``DISKLAB_BOOK=1``; there the page's own plotly.js
    draws the figure. In JupyterLab or Binder the figure is returned as it is,
    so plotly's own renderer shows it.
    """
    import os

    from IPython.display import HTML

    from .layout import fit_layout

    fit_layout(fig)
    if os.environ.get("DISKLAB_BOOK") != "1":
        return fig
    html = fig.to_html(include_plotlyjs=False, full_html=False, div_id=div_id, auto_play=False,
                       default_height=height or fig.layout.height or 420,
                       config={"displaylogo": False, "responsive": True})
    return HTML(html)
