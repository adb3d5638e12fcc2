"""Figures for the many-streams chapter (seed 004, Panagiotakis 2006).

Builders take the dicts of :mod:`simcore.experiments.multistream` (``reproduce``,
``host_curves``, ``segment_curves``, ``memory_tradeoff``, ``timelines``) or a
:class:`~simcore.multistream.StreamRun`'s ``disk_log``, and measurement records
of the ``multistream`` fio job; they return plotly traces or figures and never
run the simulator.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from .theme import COLORS, apply_theme, legend_below

__all__ = [
    "cliff_traces",
    "controller_figure",
    "headline_figure",
    "inset_slider",
    "measured_figure",
    "measured_traces",
    "memory_figure",
    "segment_size_figure",
    "streams_figure",
    "style_cliff",
    "style_measured",
    "style_timeline",
    "timeline_traces",
]

STREAM_TICKS = [1, 2, 5, 10, 20, 50, 100]


def inset_slider(fig: go.Figure, inset: float = 0.1) -> go.Figure:
    """Pull a static twin's slider in from both sides so that its end labels are not cut."""
    if fig.layout.sliders:
        fig.layout.sliders[0].update(x=inset, len=1 - 2 * inset)
    return fig


def _streams_axis(fig: go.Figure, title: str = "number of sequential streams") -> None:
    fig.update_xaxes(title=title, type="log", tickvals=STREAM_TICKS)


def streams_figure(curves: dict, metric: str = "series") -> go.Figure:
    """Throughput (``metric="series"``) or mean response time (``"response_ms"``) against the
    number of streams, one line per host configuration (thesis Figs. 5.1, 5.2, 5.6)."""
    fig = go.Figure()
    for i, (name, ys) in enumerate(curves[metric].items()):
        fig.add_trace(go.Scatter(
            x=curves["streams"], y=ys, mode="lines+markers", name=name,
            line=dict(color=COLORS[i % len(COLORS)], width=3),
            hovertemplate=f"{name}<br>%{{x}} streams: %{{y:.1f}}<extra></extra>"))
    apply_theme(fig, height=460)
    _streams_axis(fig)
    if metric == "series":
        fig.update_yaxes(title="total throughput (MB/s)", rangemode="tozero")
        fig.update_layout(title="Many streams on one disk, with and without the host's help")
    else:
        fig.update_yaxes(title="mean response time of a 64 KiB request (ms)", type="log")
        fig.update_layout(title="What a client waits for one 64 KiB request")
    return legend_below(fig, rows=3)


def timeline_traces(log: Sequence, start_ms: float, window_ms: float,
                    streams: int = 100) -> list[go.Scatter]:
    """The head's visits: one horizontal bar per disk command at its stream's height.

    ``log`` rows are ``(start_ms, finish_ms, stream, sectors, cache_hit)`` (as
    :func:`simcore.experiments.multistream.timelines` keeps them). Times are shown
    from ``start_ms``; only commands starting within ``window_ms`` are drawn.
    """
    miss_x: list = []
    miss_y: list = []
    hit_x: list = []
    hit_y: list = []
    moves_x: list = []
    moves_y: list = []
    prev = None
    for t0, t1, s, _n, hit in log:
        if t0 - start_ms > window_ms:
            break
        a, b = t0 - start_ms, t1 - start_ms
        xs, ys = (hit_x, hit_y) if hit else (miss_x, miss_y)
        xs += [a, b, None]
        ys += [s, s, None]
        if prev is not None and prev[1] != s:
            moves_x += [prev[0], a, None]
            moves_y += [prev[1], s, None]
        prev = (b, s)
    return [
        go.Scatter(x=moves_x, y=moves_y, mode="lines", name="head moves to another stream",
                   line=dict(color="#bbbbbb", width=1), hoverinfo="skip"),
        go.Scatter(x=miss_x, y=miss_y, mode="lines", name="media read (disk command)",
                   line=dict(color=COLORS[0], width=6),
                   hovertemplate="stream %{y} at %{x:.0f} ms<extra></extra>"),
        go.Scatter(x=hit_x, y=hit_y, mode="lines",
                   name="no new positioning (drive's buffer or read-ahead)",
                   line=dict(color=COLORS[2], width=6),
                   hovertemplate="stream %{y} at %{x:.0f} ms (buffer)<extra></extra>"),
    ]


def style_timeline(fig: go.Figure, window_ms: float, streams: int = 100) -> go.Figure:
    """Axes and theme of a timeline; the legend stays above the plot (a slider may sit below)."""
    apply_theme(fig, height=480)
    fig.update_xaxes(title="time (ms)", range=[0, window_ms])
    fig.update_yaxes(title="stream (by position on the disk)", range=[-2, streams + 1])
    return fig


def cliff_traces(seg: dict, segments: int, cache_kib: float = 8192) -> list[go.Scatter]:
    """Throughput against streams for one segment count, with and without read-ahead
    (``seg`` as :func:`simcore.experiments.multistream.segment_curves` returns it)."""
    i = seg["segment_counts"].index(segments)
    kib = int(cache_kib // segments)
    top = max(max(v) for v in seg["read_ahead"].values())
    return [
        go.Scatter(x=seg["streams"], y=seg["read_ahead"][str(segments)], mode="lines+markers",
                   name=f"read-ahead fills each {kib} KiB segment",
                   line=dict(color=COLORS[i % len(COLORS)], width=3),
                   hovertemplate="%{x} streams: %{y:.1f} MB/s<extra></extra>"),
        go.Scatter(x=seg["streams"], y=seg["no_read_ahead"], mode="lines+markers",
                   name="no read-ahead", line=dict(color="#777777", width=2, dash="dash"),
                   hovertemplate="%{x} streams, no read-ahead: %{y:.1f} MB/s<extra></extra>"),
        go.Scatter(x=[segments, segments], y=[0, top * 1.05], mode="lines",
                   name="streams = segments", line=dict(color="black", dash="dot"),
                   hoverinfo="skip"),
    ]


def style_cliff(fig: go.Figure) -> go.Figure:
    """Axes and theme of a cliff figure; the legend stays above the plot."""
    apply_theme(fig, height=480)
    _streams_axis(fig)
    fig.update_yaxes(title="total throughput (MB/s)", rangemode="tozero")
    return fig


def segment_size_figure(seg: dict, paper: dict | None = None) -> go.Figure:
    """Thesis Fig. 3.4: 30 streams, 32 segments, throughput against the segment size."""
    fig = go.Figure(go.Scatter(
        x=seg["segment_kib"], y=seg["mb_s"], mode="lines+markers", name="simcore",
        line=dict(color=COLORS[0], width=3),
        hovertemplate="%{x} KiB segments: %{y:.1f} MB/s<extra></extra>"))
    if paper:
        fig.add_trace(go.Scatter(x=[32, 2048], y=[paper["32k"], paper["2m"]], mode="markers",
                                 name="thesis ('about')", marker=dict(size=14, symbol="x",
                                                                       color=COLORS[1])))
    apply_theme(fig, height=400)
    fig.update_xaxes(title="segment size (KiB), 32 segments", type="log",
                     tickvals=seg["segment_kib"])
    fig.update_yaxes(title="total throughput (MB/s)", rangemode="tozero")
    fig.update_layout(title="30 streams, 32 segments: bigger segments, more read-ahead")
    return fig


def controller_figure(ctrl: dict) -> go.Figure:
    """Thesis Fig. 3.6: throughput against the controller's read-ahead, one line per stream
    count; the cache holds ``cache_mib``."""
    fig = go.Figure()
    ra = [max(r, 64) for r in ctrl["read_ahead_kib"]]
    for i, (s, ys) in enumerate(zip(ctrl["streams"], ctrl["mb_s"], strict=True)):
        fig.add_trace(go.Scatter(
            x=ra, y=ys, mode="lines+markers", name=f"{s} stream{'s' if s > 1 else ''}",
            line=dict(color=COLORS[i % len(COLORS)], width=3),
            customdata=[r * s / 1024 for r in ctrl["read_ahead_kib"]],
            hovertemplate=(f"{s} streams, read-ahead %{{x}} KiB: %{{y:.1f}} MB/s<br>"
                           "read-ahead of all streams: %{customdata:.0f} MiB<extra></extra>")))
    apply_theme(fig, height=440)
    fig.update_xaxes(title="controller read-ahead (KiB; leftmost point: none)", type="log",
                     tickvals=ra, ticktext=["none"] + [str(r) for r in ctrl["read_ahead_kib"][1:]])
    fig.update_yaxes(title="total throughput (MB/s)", rangemode="tozero")
    fig.update_layout(title=f"A {ctrl['cache_mib']} MiB controller cache with read-ahead")
    return legend_below(fig, rows=1)


def memory_figure(mem: dict) -> go.Figure:
    """Thesis Fig. 5.2: throughput against host memory M, one line per read size R, with
    D = M/(R·N) active streams in the hover."""
    fig = go.Figure()
    for i, r in enumerate(mem["read_ahead_kib"]):
        ys = mem["mb_s"][str(r)]
        ds = mem["dispatch"][str(r)]
        xs = [m for m, y in zip(mem["memory_mib"], ys, strict=True) if y is not None]
        name = f"R = {r // 1024} MiB" if r >= 1024 else f"R = {r} KiB"
        fig.add_trace(go.Scatter(
            x=xs, y=[y for y in ys if y is not None], mode="lines+markers", name=name,
            customdata=[d for d in ds if d is not None],
            line=dict(color=COLORS[i % len(COLORS)], width=3),
            hovertemplate=(f"{name}, M = %{{x}} MiB: %{{y:.1f}} MB/s<br>"
                           "D = %{customdata} active streams<extra></extra>")))
    apply_theme(fig, height=440)
    fig.update_xaxes(title="host memory M for staging (MiB)", type="log",
                     tickvals=mem["memory_mib"])
    fig.update_yaxes(title="total throughput (MB/s)", rangemode="tozero")
    fig.update_layout(title=f"{mem['streams']} streams: memory buys active streams, "
                            "read size buys throughput")
    return legend_below(fig, rows=1)


def headline_figure(res: dict) -> go.Figure:
    """The experiment's Chapter-5 numbers beside the thesis's."""
    rows = [("no host scheme", "baseline_mb_s", 6.25),
            ("D = 1, R = 8 MiB", "single_active_r8m_mb_s", 40.0),
            ("all 100 active, R = 256 KiB", "all_active_r256k_mb_s", 14.0),
            ("D = 2, R = 8 MiB", "dispatch_mb_s", 50.0)]
    names = [r[0] for r in rows]
    fig = go.Figure([
        go.Bar(x=names, y=[res[k] for _, k, _ in rows], name="simcore",
               marker=dict(color=COLORS[0]), texttemplate="%{y:.1f}", textposition="outside"),
        go.Bar(x=names, y=[p for _, _, p in rows], name="thesis ('about'; baseline: 50/8)",
               marker=dict(color=COLORS[3]), texttemplate="%{y:.1f}", textposition="outside"),
    ])
    apply_theme(fig, height=420)
    fig.update_yaxes(title="total throughput of 100 streams (MB/s)", rangemode="tozero")
    fig.update_layout(barmode="group", title="100 streams on the WD800JD: simcore and the thesis")
    return fig


def measured_traces(record: dict, bs: str) -> list[go.Scatter]:
    """A ``multistream`` fio recording at request size ``bs``: total MB/s against readers, one
    line per buffered ``read_ahead_kb`` and one for O_DIRECT (which ignores read-ahead: its
    line is the mean over the record's ``read_ahead_kb`` values, the bars their range)."""
    pts = [p for p in record["summary"]["points"]
           if p.get("read_mb_s") is not None and str(p.get("bs")) == bs]
    ras = sorted({int(p.get("read_ahead_kb_during", p.get("read_ahead_kb", 0)) or 0)
                  for p in pts})
    traces = []
    direct: dict[int, list[float]] = {}
    for p in pts:
        if str(p.get("direct", "1")) == "1":
            direct.setdefault(int(p["streams"]), []).append(float(p["read_mb_s"]))
    if direct:
        xs = sorted(direct)
        mean = [sum(direct[x]) / len(direct[x]) for x in xs]
        traces.append(go.Scatter(
            x=xs, y=mean, mode="lines+markers", name="O_DIRECT (mean; bars: range)",
            line=dict(color="black", width=3, dash="dash"),
            error_y=dict(type="data", symmetric=False,
                         array=[max(direct[x]) - m for x, m in zip(xs, mean, strict=True)],
                         arrayminus=[m - min(direct[x]) for x, m in zip(xs, mean, strict=True)]),
            hovertemplate="%{x} readers, O_DIRECT: %{y:.0f} MB/s<extra></extra>"))
    for i, ra in enumerate(ras):
        sel = sorted((int(p["streams"]), float(p["read_mb_s"])) for p in pts
                     if str(p.get("direct", "1")) != "1"
                     and int(p.get("read_ahead_kb_during", p.get("read_ahead_kb", 0)) or 0) == ra)
        traces.append(go.Scatter(
            x=[s for s, _ in sel], y=[y for _, y in sel], mode="lines+markers",
            name=f"buffered, read_ahead_kb = {ra}", line=dict(color=COLORS[i % len(COLORS)],
                                                              width=3),
            hovertemplate=f"%{{x}} readers, read_ahead_kb {ra}: %{{y:.0f}} MB/s<extra></extra>"))
    return traces


def style_measured(fig: go.Figure, record: dict) -> go.Figure:
    """Axes and theme of a measured sweep (log throughput); the legend stays above the plot."""
    apply_theme(fig, height=500)
    fig.update_layout(margin=dict(t=130))
    _streams_axis(fig, "concurrent sequential readers (fio jobs, one request each)")
    fig.update_yaxes(title="total read (MB/s)", type="log",
                     tickvals=[1, 3, 10, 30, 100, 300, 1000, 3000, 10000])
    kind = record.get("device", {}).get("kind", "device")
    fig.update_layout(title=f"Measured on a {kind}")
    return fig


def measured_figure(record: dict, bs: str | None = None) -> go.Figure:
    """:func:`measured_traces` for one request size (the record's first by default)."""
    sizes = sorted({str(p.get("bs")) for p in record["summary"]["points"]})
    fig = go.Figure(measured_traces(record, bs or sizes[0]))
    return style_measured(fig, record)
