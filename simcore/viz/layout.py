"""Last layout pass before a figure is shown: readable log axes, a title and legend that fit.

:func:`fit_layout` runs in :func:`simcore.viz.static.show`, so every figure of the book gets it
whatever builder or chapter cell drew it. It only touches layout: tick spacing on log axes, the
title's line breaks, where a top legend sits, the top margin and the slider's inset.
"""

from __future__ import annotations

import base64
import math
import textwrap
from collections.abc import Iterable

import numpy as np
import plotly.graph_objects as go

TITLE_SIZE = 17      # px, the title font (theme.apply_theme sets the same)
TITLE_CHARS = 72     # wrap the title after about this many characters (a 690 px wide figure)
BOOK_WIDTH = 690     # px, a figure in the book's text column (a figure without a width)
TITLE_PAD = 10       # px above the title
LINE = 1.3           # line height of a wrapped title, in font sizes
GAP = 6              # px between the title and a legend under it
SUBPLOT_TITLE = 24   # px a row of subplot titles needs above the plot area


def wrap_title(text: str, width: int = TITLE_CHARS) -> str:
    """Break a long title into lines of at most ``width`` characters (plotly does not wrap)."""
    if not text or "<br" in text or len(text) <= width:
        return text
    return "<br>".join(textwrap.wrap(text, width=width, break_long_words=False))


def _axis_values(fig: go.Figure, axis: str) -> Iterable[float]:
    """Every positive number drawn against ``axis`` ("xaxis", "yaxis2", ...), frames included."""
    letter, ref = axis[0], axis[0] + axis[5:]  # "yaxis2" -> ("y", "y2")
    base = list(fig.data)
    traces: list = list(base)
    for frame in fig.frames or ():
        for i, tr in enumerate(frame.data or ()):
            traces.append((tr, base[i] if i < len(base) else tr))
    for item in traces:
        tr, owner = item if isinstance(item, tuple) else (item, item)
        if (getattr(owner, letter + "axis", None) or letter) != ref:
            continue
        values = getattr(tr, letter, None)
        if values is None:
            continue
        if isinstance(values, dict) and "bdata" in values:  # plotly's typed-array JSON form
            values = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        for v in values:
            try:
                f = float(v)
            except (TypeError, ValueError):
                continue
            if f > 0 and math.isfinite(f):
                yield f


def tidy_log_axes(fig: go.Figure) -> go.Figure:
    """Label log axes so they read: decades only, or 1-2-5 steps with full numbers.

    Plotly's own choice on a log axis spanning one to four decades labels the 2s and 5s with
    a bare small digit ("2", "5", "1000", "2"), which reads as nonsense. An axis whose ticks the
    builder set (``tickvals`` or a numeric ``dtick``) is left alone; decades with minor ticks
    every D1 are this function's own choice, made again (a live figure's data change).
    """
    for name in [k for k in fig.layout.to_plotly_json() if k[:5] in ("xaxis", "yaxis")]:
        ax = fig.layout[name]
        if ax.type != "log" or ax.tickvals is not None:
            continue
        ours = ax.dtick == 1 and ax.minor.dtick == "D1"
        if ax.dtick is not None and not str(ax.dtick).startswith("D") and not ours:
            continue
        if ours:
            ax.minor = None
        if ax.range is not None and ax.autorange is not True:
            lo, hi = sorted(float(r) for r in ax.range)
        else:
            vals = list(_axis_values(fig, name))
            if not vals:
                continue
            lo, hi = math.log10(min(vals)), math.log10(max(vals))
        span = hi - lo
        if span < 1:  # plotly labels every tick in full inside one decade
            ax.dtick = None
        elif span < 2.5:
            ax.update(dtick="D2", tickformat=ax.tickformat or "~g")
        else:
            ax.update(dtick=1, minor=dict(dtick="D1", ticks="outside", ticklen=3, showgrid=False))
    return fig


def _shows_legend(fig: go.Figure) -> bool:
    if fig.layout.showlegend is False:
        return False
    named = [t for t in fig.data if t.showlegend is not False and t.name]
    return fig.layout.showlegend is True or len(named) >= 2


def _legend_rows(fig: go.Figure, width: int = 600) -> int:
    """How many rows a horizontal legend takes across ``width`` px (an estimate).

    Entries that do not fit in one row go into a grid of equal columns, as wide as the
    widest entry (or ``legend.entrywidth`` as a fraction).
    """
    widths = [40 + 7 * len(str(t.name)) for t in fig.data if t.showlegend is not False and t.name]
    if not widths or sum(widths) <= width:
        return 1
    leg = fig.layout.legend
    column = (leg.entrywidth * width if leg.entrywidth and leg.entrywidthmode == "fraction"
              else max(widths))
    return math.ceil(len(widths) / max(1, int(width // column)))


def _top_subplot_titles(fig: go.Figure) -> int:
    """Lines of the tallest annotation standing on the plot's top edge (subplot titles); 0: none."""
    return max((str(a.text or "").count("<br>") + 1 for a in fig.layout.annotations or ()
                if a.yref == "paper" and (a.y or 0) >= 1 and a.yanchor == "bottom"), default=0)


def _plot_width(fig: go.Figure) -> int:
    """px between the side margins: the figure's own width, else the book's column."""
    lay = fig.layout
    if not lay.width:
        return 600
    return int(lay.width - (lay.margin.l if lay.margin.l is not None else 80)
               - (lay.margin.r if lay.margin.r is not None else 80))


def fit_layout(fig: go.Figure) -> go.Figure:
    """Fit the title, a top legend and the margins to what the figure has; returns ``fig``.

    The title sits at the top of the figure and a horizontal "top" legend just under it, both
    placed in figure (container) coordinates: the legend never covers the title, and plotly
    pushes the plot area down by what the legend takes at the reader's width. With no title and
    no legend the top margin is small. A figure with its own ``width`` (a live explorer's) gets
    its title wrapped and its legend rows counted for that width instead of the book's.
    """
    tidy_log_axes(fig)
    lay = fig.layout
    height = lay.height or 420
    chars = max(30, TITLE_CHARS * lay.width // BOOK_WIDTH) if lay.width else TITLE_CHARS
    plot_px = _plot_width(fig)
    text = lay.title.text if lay.title else None
    lines = 0
    for frame in fig.frames or ():  # a slider may show a new title with each frame
        if frame.layout is not None and frame.layout.title.text:
            frame.layout.title.text = wrap_title(frame.layout.title.text, chars)
            lines = max(lines, frame.layout.title.text.count("<br>") + 1)
    if text:
        text = wrap_title(text, chars)
        lines = max(lines, text.count("<br>") + 1)
        size = (lay.title.font.size if lay.title.font and lay.title.font.size else TITLE_SIZE)
        title_px = TITLE_PAD + LINE * size * lines
        # plotly centres the lines of a wrapped title on its anchor, so anchor the middle
        lay.title.update(text=text, yref="container", y=1 - (TITLE_PAD + (title_px - TITLE_PAD) / 2)
                         / height, yanchor="middle", pad=dict(t=0, b=0), automargin=False,
                         font=dict(size=size))
    else:
        title_px = 0
    top = title_px + (GAP if text else 8)
    leg = lay.legend
    on_top = (_shows_legend(fig) and leg.orientation == "h"
              and ((leg.yref in (None, "paper") and (leg.y or 0) >= 1 and leg.yanchor == "bottom")
                   or (leg.yref == "container" and leg.yanchor == "top" and (leg.y or 0) > 0.5)))
    if leg.yref in (None, "paper") and leg.y is not None and leg.y < 0 and leg.yanchor == "top":
        # an older "legend below" (paper units) lands on the axis title at some heights
        leg.update(yref="container", y=0, yanchor="bottom")
    if (_shows_legend(fig) and leg.yref == "container" and leg.yanchor == "bottom"
            and (leg.y or 0) < 0.5):
        # room under the x-axis title for as many rows as the legend will take
        lay.margin.b = max(lay.margin.b or 0, 72 + 21 * _legend_rows(fig, plot_px))
    for a in lay.annotations or ():  # make_subplots' 16 px titles crowd a half-width plot
        if a.yref == "paper" and (a.y or 0) >= 1 and a.yanchor == "bottom" and a.font.size == 16:
            a.font.size = 14
    sub_lines = _top_subplot_titles(fig)
    subtitles = SUBPLOT_TITLE + 17 * (sub_lines - 1) if sub_lines else 0
    if on_top:
        leg.update(yref="container", y=1 - top / height, yanchor="top")
        top += 21 * _legend_rows(fig, plot_px) + 4
    menus_px = 0
    for menu in lay.updatemenus or ():
        if (menu.y or 0) >= 1 and menu.yanchor == "bottom":
            menus_px = max(menus_px, 34)
    # the legend and title push the margin themselves; what sits on the plot's top edge
    # (subplot titles, buttons) needs the room added by hand
    lay.margin.t = int(top + max(subtitles, menus_px) + (4 if text or on_top else 12))
    _inset_sliders(fig, plot_px)
    return fig


def _inset_sliders(fig: go.Figure, width: int = 600) -> None:
    """Keep a slider's end labels inside the figure and its track clear of the x-axis title."""
    lay = fig.layout
    margin_l = lay.margin.l if lay.margin.l is not None else 80
    margin_r = lay.margin.r if lay.margin.r is not None else 80
    titled = any(lay[k].title.text for k in lay.to_plotly_json() if k.startswith("xaxis"))
    for slider in lay.sliders or ():
        labels = [str(s.label or "") for s in slider.steps or ()]
        if not labels:
            continue
        x0 = slider.x if slider.x is not None else 0
        x1 = x0 + (slider.len if slider.len is not None else 1)
        # the end labels are centred on the end steps, which sit about 15 px inside the track
        left = max(0.0, 4.2 * len(labels[0]) - 15 - margin_l + 8) / width
        right = max(0.0, 4.2 * len(labels[-1]) - 15 - margin_r + 8) / width
        if x0 < left or x1 > 1 - right:
            x0, x1 = max(x0, left), min(x1, 1 - right)
            slider.update(x=x0, len=x1 - x0)
        if titled and (slider.y or 0) <= 0 and (slider.pad.t or 0) < 58:
            slider.pad.t = 58
