"""Figures for the drive-cache chapter: hit rate against segments, policies, the buffer's contents.

Builders take the dicts of :func:`simcore.experiments.interface.read_ahead_hit_rates` and
:func:`~simcore.experiments.interface.read_ahead_policies` (or plain numbers) and return
plotly traces or figures; they never run the simulator.
"""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .theme import COLORS, apply_theme


def hit_rate_traces(grid: dict, streams: int, metric: str = "hit_rate") -> list[go.Scatter]:
    """One line per segment size: hit rate (or MB/s) against the number of segments."""
    traces = []
    for i, size in enumerate(grid["sizes_kib"]):
        y = grid[metric][f"{streams}/{size}"]
        traces.append(go.Scatter(
            x=grid["segments"], y=y, mode="lines+markers", name=f"{size} KiB segments",
            line=dict(color=COLORS[i % len(COLORS)], width=3),
            hovertemplate=f"{size} KiB x %{{x}} segments: %{{y:.2f}}<extra></extra>"))
    traces.append(go.Scatter(x=[streams, streams], y=[0, 1.0 if metric == "hit_rate" else
                                                      max(max(v) for v in grid[metric].values())],
                             mode="lines", name="segments = streams",
                             line=dict(color="black", dash="dot"), hoverinfo="skip"))
    return traces


def style_hit_rate(fig: go.Figure, metric: str = "hit_rate") -> go.Figure:
    fig.update_xaxes(title="number of segments", type="log", tickvals=[1, 2, 4, 8, 16, 32])
    if metric == "hit_rate":
        fig.update_yaxes(title="share of reads served from the buffer", range=[-0.02, 1.02])
    else:
        fig.update_yaxes(title="throughput (MB/s)", rangemode="tozero")
    return fig


def policy_traces(table: dict, workload: str) -> list[go.Bar]:
    """Hit rate and mean service time of each read-ahead policy for one workload."""
    pols = table["policies"]
    return [
        go.Bar(x=pols, y=table["hit_rate"][workload], name="hit rate", marker=dict(color=COLORS[2]),
               hovertemplate="%{x}: %{y:.0%} hits<extra></extra>"),
        go.Bar(x=pols, y=table["mean_ms"][workload], name="mean service time (ms)",
               marker=dict(color=COLORS[0]), xaxis="x2", yaxis="y2",
               hovertemplate="%{x}: %{y:.2f} ms<extra></extra>"),
    ]


def style_policies(fig: go.Figure, table: dict) -> go.Figure:
    top = max(max(v) for v in table["mean_ms"].values())
    fig.update_layout(
        xaxis=dict(domain=[0, 0.45], title="read-ahead policy"),
        xaxis2=dict(domain=[0.55, 1.0], title="read-ahead policy", anchor="y2"),
        yaxis=dict(title="hit rate", range=[0, 1.05], tickformat=".0%"),
        yaxis2=dict(title="mean service time (ms)", anchor="x2", range=[0, top * 1.05]))
    fig.update_xaxes(tickangle=-30)
    if fig.layout.sliders:  # below the slanted policy names and the axis titles
        fig.layout.sliders[0].pad.t = 105
    return fig


def policies_figure(table: dict, workload: str) -> go.Figure:
    fig = go.Figure(policy_traces(table, workload))
    style_policies(fig, table)
    fig.update_layout(title=f"Read-ahead policies: {workload}")
    return apply_theme(fig, height=420)


def contents_traces(samples: list[tuple[float, list[tuple[int, int, bool]], int]]
                    ) -> list[go.Scatter]:
    """What the buffer holds beyond the program (vertical bars of LBAs) and how far it got.

    ``samples`` as :func:`simcore.host_io.hdparm_t` records them with ``sample_ms``:
    ``(time, [(start, end, dirty), ...], LBA the program has reached)``.
    """
    xs: list = []
    ys: list = []
    for t, segs, reached in samples:
        for a, b, _dirty in segs:
            a = max(a, reached)  # only what the program does not have yet
            if b > a:
                xs += [t, t, None]
                ys += [a / 2048, b / 2048, None]
    # the program's line first, so the read-ahead ticks (often a few KiB) are drawn over it
    return [
        go.Scatter(x=[s[0] for s in samples], y=[s[2] / 2048 for s in samples], mode="lines",
                   name="data the program has", line=dict(color=COLORS[1], width=2),
                   hovertemplate="%{x:.0f} ms: %{y:.2f} MiB<extra></extra>"),
        go.Scatter(x=xs, y=ys, mode="lines", name="read ahead, waiting in the drive's buffer",
                   line=dict(color=COLORS[2], width=4), hoverinfo="skip"),
    ]


def contents_figure(snapshots: list[tuple[float, list[tuple[int, int, bool]]]],
                    requests: list[tuple[float, int, int]] | None = None,
                    title: str = "What the buffer holds") -> go.Figure:
    """Segments' LBA ranges over time (from ``SegmentCache.contents``) and the requests."""
    fig = go.Figure()
    xs, ys = [], []
    for t, segs in snapshots:
        for a, b, _dirty in segs:
            xs += [t, t, None]
            ys += [a, b, None]
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name="in the buffer",
                             line=dict(color=COLORS[2], width=6)))
    if requests:
        fig.add_trace(go.Scatter(x=[r[0] for r in requests], y=[r[1] for r in requests],
                                 mode="markers", name="request",
                                 marker=dict(color=COLORS[1], size=7)))
    fig.update_xaxes(title="time (ms)")
    fig.update_yaxes(title="LBA")
    fig.update_layout(title=title)
    return apply_theme(fig, height=400)


def write_policy_figure(rows: dict[str, dict[str, float]]) -> go.Figure:
    """Write-back against write-through: throughput and mean service time per case."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("throughput (MB/s)",
                                                        "mean service time (ms)"))
    names = list(rows)
    for i, key in enumerate(("mb_s", "mean_ms")):
        fig.add_trace(go.Bar(x=names, y=[rows[n][key] for n in names], showlegend=False,
                             marker=dict(color=[COLORS[0], COLORS[1], COLORS[3], COLORS[4]]
                                         [: len(names)]),
                             hovertemplate="%{x}: %{y:.2f}<extra></extra>"), row=1, col=i + 1)
    fig.update_layout(title="Sequential 64 KiB writes: who says 'done'?")
    return apply_theme(fig, height=380)
