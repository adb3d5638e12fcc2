"""Figures for the chapter "Sectors and shingles": Advanced Format and shingled recording.

Builders take numbers (per-case time breakdowns, rates, series) and return plotly figures.
They never run the simulator: :mod:`simcore.disk_today` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from .theme import COLORS, apply_theme

PARTS = (("seek_ms", "seek", "#d1495b"), ("rotation_ms", "rotational wait", "#edae49"),
         ("transfer_ms", "media transfer", "#2e933c"), ("overhead_ms", "command overhead",
                                                         "#bbbbbb"))


def breakdown_figure(cases: Mapping[str, Mapping[str, float]]) -> go.Figure:
    """Stacked bars: the mean time of one request in each case, by part (ms)."""
    names = list(cases)
    fig = go.Figure()
    for key, label, color in PARTS:
        fig.add_trace(go.Bar(
            y=names, x=[cases[n].get(key, 0.0) for n in names], name=label, orientation="h",
            marker_color=color,
            hovertemplate="%{y}: %{x:.2f} ms<extra>" + label + "</extra>"))
    fig.update_layout(barmode="stack", xaxis_title="mean time per 4 KiB write (ms)",
                      yaxis=dict(autorange="reversed"))
    return apply_theme(fig, height=330)


def offset_figure(offsets: Sequence[int], iops: Sequence[float], rev_iops: float | None = None
                  ) -> go.Figure:
    """Random 4 KiB writes per second against the partition's start LBA modulo 8."""
    colors = [COLORS[2] if o % 8 == 0 else COLORS[1] for o in offsets]
    fig = go.Figure(go.Bar(
        x=[str(o) for o in offsets], y=list(iops), marker_color=colors, showlegend=False,
        hovertemplate="start LBA ≡ %{x} (mod 8): %{y:.1f} writes/s<extra></extra>"))
    fig.update_layout(xaxis_title="partition start LBA minus 2048 (512-byte sectors)",
                      yaxis_title="random 4 KiB writes per second")
    return apply_theme(fig, height=380)


def smr_rate_figure(series: Mapping[str, tuple[Sequence[float], Sequence[float]]],
                    fill_s: float | None = None,
                    levels: Mapping[str, float] | None = None) -> go.Figure:
    """Written MB/s over time for each write pattern; the fill point and predicted levels."""
    fig = go.Figure()
    t_max = 0.0
    for i, (name, (t, mb)) in enumerate(series.items()):
        t_max = max([t_max, *t])
        fig.add_trace(go.Scatter(x=list(t), y=list(mb), mode="lines", name=name,
                                 line=dict(color=COLORS[i], width=2.2, shape="hv"),
                                 hovertemplate="%{x:.0f} s: %{y:.1f} MB/s<extra>" + name
                                 + "</extra>"))
    for j, (name, level) in enumerate((levels or {}).items()):
        # drawn as traces, not shapes: a shape's y on a log axis is in log10 units
        fig.add_trace(go.Scatter(x=[0, t_max], y=[level, level], mode="lines",
                                 name=f"predicted: {name}",
                                 line=dict(color=COLORS[j], dash="dash", width=1.2),
                                 hovertemplate=f"{name}: {level:.1f} MB/s<extra></extra>"))
    if fill_s is not None:
        fig.add_vline(x=fill_s, line=dict(color="#555555", dash="dot"),
                      annotation_text="media cache full", annotation_position="top right")
    fig.update_layout(xaxis_title="time (s)", yaxis_title="written (MB/s, 5 s windows)",
                      yaxis_type="log")
    return apply_theme(fig, height=420)


def zoned_rates_figure(rates: Mapping[str, float]) -> go.Figure:
    """Random 4 KiB updates per second: in place, and appended in batches on the zoned drive."""
    names = list(rates)
    colors = [COLORS[1] if "in place" in n else COLORS[0] for n in names]
    fig = go.Figure(go.Bar(
        # a long name breaks before its bracket, so neighbouring tick labels do not run together
        x=[n.replace(" (", "<br>(") for n in names], y=[rates[n] for n in names],
        marker_color=colors, showlegend=False, customdata=names,
        text=[f"{rates[n]:,.0f}" for n in names], textposition="outside", cliponaxis=False,
        hovertemplate="%{customdata}: %{y:,.0f} updates/s<extra></extra>"))
    fig.update_layout(yaxis_type="log", yaxis_title="4 KiB updates per second",
                      xaxis_title="how the updates reach the platter")
    return apply_theme(fig, height=400)
