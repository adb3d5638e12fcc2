"""Figures for "Today's drive": durability costs, data at risk, queue depth, tails, the SSD.

Builders take the dicts of :mod:`simcore.durability`, :mod:`simcore.queue_depth`,
:mod:`simcore.tail` and :mod:`simcore.ssd` (or plain numbers) and return plotly figures;
they never run the simulator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .theme import COLORS, apply_theme, legend_below

SETTING_COLORS = {"cache on": COLORS[2], "cache on + fsync": COLORS[0], "FUA": COLORS[4],
                  "cache off": COLORS[1]}


def durability_figure(rows: Mapping[str, Mapping[str, dict]],
                      group: Mapping[str, Sequence[dict]]) -> go.Figure:
    """Left: commit latency per setting for a log append and a random write (bars, log axis).
    Right: latency per commit against writes per fsync (group commit), one line per setting."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.15,
                        subplot_titles=("one 4 KiB write per commit",
                                        "random 4 KiB writes, group commit"))
    patterns = list(next(iter(rows.values())))
    for k, (setting, by_pattern) in enumerate(rows.items()):
        fig.add_trace(go.Bar(
            x=patterns, y=[by_pattern[p]["mean_ms"] for p in patterns], name=setting,
            marker_color=SETTING_COLORS.get(setting, COLORS[k % len(COLORS)]),
            legendgroup=setting,
            text=[f"{by_pattern[p]['mean_ms']:.2g}" for p in patterns], textposition="outside",
            textfont=dict(size=10), cliponaxis=False,
            hovertemplate=f"{setting}, %{{x}}: %{{y:.2f}} ms per commit<extra></extra>"),
            row=1, col=1)
    for k, (setting, pts) in enumerate(group.items()):
        fig.add_trace(go.Scatter(
            x=[p["writes_per_fsync"] for p in pts], y=[p["mean_ms"] for p in pts],
            mode="lines+markers", name=setting, legendgroup=setting, showlegend=False,
            line=dict(color=SETTING_COLORS.get(setting, COLORS[k % len(COLORS)]), width=3),
            hovertemplate=f"{setting}: %{{x}} writes per commit, %{{y:.1f}} ms<extra></extra>"),
            row=1, col=2)
    apply_theme(fig, height=470)
    legend_below(fig, rows=1)
    fig.update_layout(barmode="group", title="What a durable commit costs on each setting")
    fig.update_yaxes(title="mean commit latency (ms)", type="log", row=1, col=1)
    fig.update_yaxes(title="mean commit latency (ms)", rangemode="tozero", row=1, col=2)
    fig.update_xaxes(title="writes per fsync", type="log", tickvals=[1, 2, 4, 8, 16, 32],
                     row=1, col=2)
    return fig


def at_risk_figure(runs: Mapping[str, dict]) -> go.Figure:
    """KiB acknowledged but not yet on the platter, over time, one line per write rate."""
    fig = go.Figure()
    for k, (label, r) in enumerate(runs.items()):
        fig.add_trace(go.Scatter(
            x=r["t_ms"], y=r["kib"], mode="lines", name=label, line_shape="hv",
            line=dict(color=COLORS[k % len(COLORS)], width=2),
            hovertemplate=f"{label}: %{{y:.0f}} KiB at risk at %{{x:.0f}} ms<extra></extra>"))
    apply_theme(fig, height=400)
    fig.update_layout(title="Data a power cut would lose (write cache on)")
    fig.update_xaxes(title="time (ms)")
    fig.update_yaxes(title="KiB reported written, not yet on the platter", rangemode="tozero")
    return fig


def depth_figure(sweep: dict) -> go.Figure:
    """Left: IOPS against queue depth per arrangement. Right: the worst response time."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=("throughput", "longest response time"))
    depths = sweep["depths"]
    for k, (name, t) in enumerate(sweep["by"].items()):
        color = COLORS[k % len(COLORS)]
        for col, key, fmt in ((1, "iops", "%{y:.0f} IOPS"), (2, "max_ms", "%{y:.0f} ms")):
            fig.add_trace(go.Scatter(
                x=depths, y=t[key], mode="lines+markers", name=name, legendgroup=name,
                showlegend=col == 1, line=dict(color=color, width=3,
                                               dash="dot" if "host" in name else "solid"),
                hovertemplate=f"{name}, depth %{{x}}: {fmt}<extra></extra>"), row=1, col=col)
    apply_theme(fig, height=500)
    legend_below(fig, rows=2)
    fig.update_layout(title=f"Random 4 KiB reads on the {sweep['disk']} against queue depth",
                      margin=dict(t=90))
    for col in (1, 2):
        fig.update_xaxes(title="requests outstanding (queue depth)", type="log",
                         tickvals=depths, row=1, col=col)
    fig.update_yaxes(title="IOPS", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title="max response (ms)", rangemode="tozero", row=1, col=2)
    return fig


def ccdf_figure(runs: Mapping[str, dict], quantiles=(50, 99, 99.9)) -> go.Figure:
    """Complementary CDF of response time (log-log), one line per scenario, with the
    percentiles marked: the tail read off directly."""
    fig = go.Figure()
    seen: list[np.ndarray] = []
    for k, (name, r) in enumerate(runs.items()):
        x = np.asarray(r["sorted_ms"])
        n = len(x)
        keep = np.unique(np.concatenate([np.linspace(0, n - 1, 400).astype(int),
                                         np.arange(max(0, n - 400), n)]))
        y = 1.0 - keep / n
        # a run identical to an earlier one would hide it: dashed, drawn over it
        same = any(len(s) == n and np.array_equal(s, x) for s in seen)
        seen.append(x)
        fig.add_trace(go.Scatter(
            x=x[keep], y=y, mode="lines", name=name,
            line=dict(color=COLORS[k % len(COLORS)], width=3 - 0.3 * k,
                      dash="dash" if same else None),
            hovertemplate=f"{name}: P(response > %{{x:.1f}} ms) = %{{y:.2g}}<extra></extra>"))
    for q in quantiles:
        fig.add_hline(y=1 - q / 100, line=dict(color="#999", dash="dot"))
        # on a log axis an annotation's y is the exponent
        fig.add_annotation(x=1, xref="paper", y=np.log10(1 - q / 100), yref="y",
                           text=f"p{q:g}", showarrow=False, xanchor="right", yanchor="bottom",
                           font=dict(color="#666"))
    apply_theme(fig, height=460)
    fig.update_layout(title="How often a read takes longer than x (one program, reads back to back)")
    fig.update_xaxes(title="response time (ms)", type="log")
    n_min = min(len(r["sorted_ms"]) for r in runs.values())
    fig.update_yaxes(title="fraction of reads slower", type="log", exponentformat="power",
                     range=[np.log10(0.5 / n_min), 0.05])
    return fig


def ssd_figure(distance_gib: Sequence[float], hdd_ms: Sequence[float], ssd_ms: float,
               wa: Mapping[str, dict]) -> go.Figure:
    """Left: a 4 KiB read's time against how far it is from the previous one, disk and SSD.
    Right: write amplification against over-provisioning, simulated and analytic."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.15,
                        subplot_titles=("a read: does distance matter?",
                                        "write amplification, random writes"))
    fig.add_trace(go.Scatter(x=list(distance_gib), y=list(hdd_ms), mode="lines", name="disk",
                             line=dict(color=COLORS[0], width=3),
                             hovertemplate="disk, %{x:.0f} GiB away: %{y:.2f} ms<extra></extra>"),
                  row=1, col=1)
    fig.add_trace(go.Scatter(x=[distance_gib[0], distance_gib[-1]], y=[ssd_ms, ssd_ms],
                             mode="lines", name="SSD", line=dict(color=COLORS[1], width=3),
                             hovertemplate="SSD: %{y:.3f} ms anywhere<extra></extra>"),
                  row=1, col=1)
    styles = {"greedy (simulated)": dict(color=COLORS[2], dash="solid", mode="lines+markers"),
              "FIFO (simulated)": dict(color=COLORS[4], dash="solid", mode="lines+markers"),
              "FIFO/LRW model": dict(color=COLORS[4], dash="dot", mode="lines"),
              "greedy bound 1/(1-U/T)": dict(color="#777", dash="dash", mode="lines"),
              "sequential writes": dict(color=COLORS[3], dash="solid", mode="lines+markers")}
    for name, pts in wa.items():
        st = styles.get(name, dict(color=COLORS[5], dash="solid", mode="lines"))
        fig.add_trace(go.Scatter(x=[100 * x for x in pts["op"]], y=pts["wa"], mode=st["mode"],
                                 name=name, line=dict(color=st["color"], dash=st["dash"], width=3),
                                 hovertemplate=f"{name}: %{{x:.0f}}% spare, WA %{{y:.2f}}"
                                               "<extra></extra>"), row=1, col=2)
    apply_theme(fig, height=520)
    legend_below(fig, rows=3)
    fig.update_layout(title="Where the model stops: a disk's read against an SSD's, and the "
                            "SSD's own cost", margin=dict(t=90))
    fig.update_xaxes(title="distance from the previous read (GiB)", row=1, col=1)
    fig.update_yaxes(title="service time (ms)", type="log", row=1, col=1)
    fig.update_xaxes(title="over-provisioning (spare / user, %)", type="log", row=1, col=2)
    fig.update_yaxes(title="flash writes per host write", type="log", row=1, col=2)
    return fig
