"""Figures for the host-interface chapter: mode rates, one request's timeline, rate and CPU.

Builders take numbers (a :class:`~simcore.host_io.HostResult`, the
``interface`` experiment's dict, the mode table) and return plotly figures or
traces; they never run the simulator.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from ..drive.interface import Mode
from .theme import COLORS, apply_theme

#: lanes of a timeline, top to bottom, and the kinds of interval drawn in each
LANES = {"CPU": ("setup", "pio", "irq", "copy", "hog"), "bus": ("data",),
         "media": ("seek", "rotation", "media", "read-ahead", "destage")}
KIND_STYLE = {
    "setup": ("issue command, set up DMA", COLORS[4]),
    "pio": ("PIO: CPU moves the words", COLORS[1]),
    "irq": ("interrupt", COLORS[3]),
    "copy": ("copy to user space", COLORS[6]),
    "hog": ("another job", "#bbbbbb"),
    "data": ("data on the cable", COLORS[0]),
    "seek": ("seek / head switch", COLORS[5]),
    "rotation": ("rotational wait", COLORS[7]),
    "media": ("media transfer", COLORS[2]),
    "read-ahead": ("read-ahead", "#9fd3a8"),
    "destage": ("destage (write-back)", "#9fd3a8"),
}
FAMILY_COLORS = {"pio": COLORS[1], "swdma": COLORS[6], "mwdma": COLORS[3], "udma": COLORS[0],
                 "scsi": COLORS[4], "sata": COLORS[5]}


def _intervals(result) -> list[tuple[str, str, float, float]]:
    """(lane, kind, start, end) of every interval a traced HostResult recorded."""
    out = []
    for _owner, kind, s, e in result.cpu_trace or []:
        out.append(("CPU", kind, s, e))
    for _who, kind, s, e in result.bus_trace or []:
        if kind == "data":
            out.append(("bus", "data", s, e))
    for _who, kind, s, e in result.media_trace or []:
        if kind == "bus":  # the drive's own note of a DMA burst
            out.append(("bus", "data", s, e))
        elif kind != "pio":  # PIO bursts are on the CPU and channel lanes already
            out.append(("media", kind, s, e))
    return out


READ_KINDS = ("setup", "pio", "irq", "copy", "data", "seek", "rotation", "media", "read-ahead")


def timeline_traces(result, kinds: Sequence[str] | None = None) -> list[go.Bar]:
    """One horizontal-bar trace per kind of interval (always the same list, for frames)."""
    kinds = list(kinds or READ_KINDS)
    iv = _intervals(result)
    traces = []
    for kind in kinds:
        label, color = KIND_STYLE[kind]
        rows = [(lane, s, e) for lane, k, s, e in iv if k == kind and e > s]
        traces.append(go.Bar(
            y=[r[0] for r in rows], x=[r[2] - r[1] for r in rows], base=[r[1] for r in rows],
            orientation="h", name=label, marker=dict(color=color),
            legendgroup=kind,
            hovertemplate=f"{label}<br>%{{base:.3f}} to %{{x:.3f}} ms long<extra></extra>"))
    return traces


def style_timeline(fig: go.Figure, title: str = "", x_max: float | None = None) -> go.Figure:
    """Lanes top to bottom CPU, bus, media; the legend above (room for a slider below)."""
    fig.update_layout(barmode="overlay", bargap=0.35,
                      legend=dict(orientation="h", x=0, y=1.02, xanchor="left",
                                  yanchor="bottom"))
    if title:
        fig.update_layout(title=title)
    fig.update_yaxes(categoryorder="array", categoryarray=["media", "bus", "CPU"], title="")
    fig.update_xaxes(title="time since the program issued the read (ms)",
                     range=[0, x_max] if x_max else None)
    return fig


def timeline_figure(result, title: str = "") -> go.Figure:
    """CPU, bus and media activity of a traced run (e.g. :func:`simcore.host_io.one_request`)."""
    fig = go.Figure(timeline_traces(result))
    apply_theme(fig, height=360)
    return style_timeline(fig, title or result.job)


FAMILY_LABELS = {"pio": "PIO", "swdma": "single-word DMA", "mwdma": "multiword DMA",
                 "udma": "Ultra DMA", "scsi": "SCSI", "sata": "Serial ATA"}


def mode_rate_traces(modes: Sequence[Mode]) -> list[go.BaseTraceType]:
    """Burst rate of each mode from its cycle time (a bar trace per family), and the seed's
    Table 1 values as crosses."""
    traces: list[go.BaseTraceType] = []
    for fam in dict.fromkeys(m.family for m in modes):
        ms = [m for m in modes if m.family == fam]
        traces.append(go.Bar(
            x=[m.label for m in ms], y=[m.rate_mb_s for m in ms],
            name=f"{FAMILY_LABELS.get(fam, fam)}: 2 bytes / cycle",
            marker=dict(color=FAMILY_COLORS.get(fam, COLORS[7])),
            customdata=[[m.transfer_ns, m.standard] for m in ms],
            hovertemplate="%{x}: %{y:.1f} MB/s (%{customdata[0]} ns, "
                          "%{customdata[1]})<extra></extra>"))
    seed = [(m.label, m.seed_mb_s) for m in modes if m.seed_mb_s is not None]
    traces.append(go.Scatter(x=[s[0] for s in seed], y=[s[1] for s in seed], mode="markers",
                             name="Gray's Table 1", marker=dict(symbol="x", size=11,
                                                                color="black"),
                             hovertemplate="the seed says %{y} MB/s<extra></extra>"))
    return traces


def mode_rate_figure(modes: Sequence[Mode], title: str = "ATA transfer modes") -> go.Figure:
    fig = go.Figure(mode_rate_traces(modes))
    fig.update_yaxes(title="burst rate (MB/s, log scale)", type="log",
                     tickvals=[2, 5, 10, 20, 50, 100], ticktext=["2", "5", "10", "20", "50", "100"])
    fig.update_xaxes(tickangle=-40, categoryorder="array", categoryarray=[m.label for m in modes])
    fig.update_layout(title=title)
    apply_theme(fig, height=480)
    fig.update_layout(margin=dict(t=90))
    return fig


def rate_cpu_traces(by_mode: dict[str, dict], labels: dict[str, str] | None = None
                    ) -> list[go.BaseTraceType]:
    """hdparm rate (bars: PIO and DMA modes) and CPU use (line, right axis) for each mode."""
    names = list(by_mode)
    x = [labels.get(n, n) if labels else n for n in names]
    traces: list[go.BaseTraceType] = []
    for pio, label, color in ((True, "PIO: MiB/s", COLORS[1]), (False, "DMA: MiB/s", COLORS[0])):
        keep = [i for i, n in enumerate(names) if bool(by_mode[n]["pio"]) == pio]
        traces.append(go.Bar(x=[x[i] for i in keep], y=[by_mode[names[i]]["mib_s"] for i in keep],
                             name=label, marker=dict(color=color),
                             hovertemplate="%{x}: %{y:.2f} MiB/s<extra></extra>"))
    traces.append(go.Scatter(x=x, y=[by_mode[n]["cpu_pct"] for n in names], name="CPU busy (%)",
                             mode="lines+markers", yaxis="y2",
                             line=dict(color=COLORS[3], width=3),
                             hovertemplate="%{x}: CPU %{y:.0f}%<extra></extra>"))
    return traces


def style_rate_cpu(fig: go.Figure, title: str = "", y_max: float | None = None) -> go.Figure:
    fig.update_layout(title=title, barmode="overlay",
                      yaxis=dict(title="MiB/s", rangemode="tozero",
                                 range=[0, y_max] if y_max else None),
                      yaxis2=dict(title="CPU busy (%)", overlaying="y", side="right",
                                  range=[0, 105], showgrid=False, tickmode="array",
                                  tickvals=[0, 25, 50, 75, 100]))
    fig.update_xaxes(tickangle=-40)
    if fig.layout.sliders:
        fig.layout.sliders[0].pad.t = 95
    return fig


def comparison_figure(result: dict) -> go.Figure:
    """The interface experiment beside the thesis: rates and CPU, PIO and DMA."""
    from plotly.subplots import make_subplots

    paper = result["paper"]
    fig = make_subplots(rows=1, cols=2, subplot_titles=("throughput", "CPU busy"),
                        horizontal_spacing=0.12)
    rows = [("Bonnie block read", "block_read_kb_s", 1 / 1024),
            ("Bonnie block write", "block_write_kb_s", 1 / 1024),
            ("hdparm -t", "hdparm_mb_s", 1.0)]
    for j, (who, color) in enumerate((("model", COLORS[0]), ("thesis", COLORS[7]))):
        src = result if who == "model" else paper
        for k, m in enumerate(("pio", "dma")):
            x = [f"{lbl} ({m.upper()})" for lbl, _, _ in rows]
            y = [src[key][m] * scale for _, key, scale in rows]
            fig.add_trace(go.Bar(x=x, y=y, name=who, marker=dict(color=color),
                                 opacity=1.0 if m == "dma" else 0.65, legendgroup=who,
                                 showlegend=k == 0, offsetgroup=str(j),
                                 hovertemplate=f"{who}: %{{y:.2f}} MiB/s<extra></extra>"),
                          row=1, col=1)
        x = ["block read PIO", "block read DMA", "block write PIO", "block write DMA"]
        y = [src["cpu_pct_read"]["pio"], src["cpu_pct_read"]["dma"],
             src["cpu_pct_write"]["pio"], src["cpu_pct_write"]["dma"]]
        fig.add_trace(go.Bar(x=x, y=y, name=who, marker=dict(color=color), legendgroup=who,
                             showlegend=False, offsetgroup=str(j),
                             hovertemplate=f"{who}: %{{y:.1f}}%<extra></extra>"), row=1, col=2)
    fig.update_yaxes(title="MiB/s", row=1, col=1)
    fig.update_yaxes(title="% of the CPU", range=[0, 105], row=1, col=2)
    fig.update_xaxes(tickangle=-35)
    fig.update_layout(barmode="group", title="The model beside Gray's Tables 6, 7 and 9")
    apply_theme(fig, height=500)
    fig.update_layout(margin=dict(t=110), legend=dict(y=1.08))
    return fig
