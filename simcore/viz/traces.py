"""Figures for "Traces: capture, statistics, replay".

Builders take workloads (or the dicts of :mod:`simcore.trace_stats`) and return
plotly traces or figures; the book's static twins and the live explorer in
:mod:`simcore.widgets.traces` both draw through them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from ..metrics import cdf
from ..workloads import stats as ts
from .theme import COLORS, apply_theme


def _color(k: int) -> str:
    return COLORS[k % len(COLORS)]


def _thin(x: np.ndarray, y: np.ndarray, points: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """At most ``points`` points of a step curve (a figure does not need 100,000)."""
    if len(x) <= points:
        return x, y
    idx = np.unique(np.linspace(0, len(x) - 1, points).astype(int))
    return x[idx], y[idx]


def interarrival_cdf_traces(workloads: Mapping[str, object], op: str | None = None,
                            floor_ms: float = 0.01) -> list[go.Scatter]:
    """One CDF of inter-arrival times (ms, log axis) per workload; ``op`` 'R' or 'W' for one
    direction (seed 003 Figs 2.1-2.16)."""
    out = []
    for k, (name, wl) in enumerate(workloads.items()):
        gaps = np.maximum(ts.interarrival_ms(wl, op), floor_ms)
        x, y = _thin(*cdf(gaps)) if len(gaps) else (np.zeros(0), np.zeros(0))
        out.append(go.Scatter(x=x, y=y, mode="lines", name=name, line=dict(color=_color(k),
                                                                             shape="hv")))
    return out


def style_interarrival(fig: go.Figure, title: str = "Time between requests") -> go.Figure:
    fig.update_xaxes(type="log", title="inter-arrival time (ms, log scale)")
    fig.update_yaxes(title="fraction of gaps at most this long", range=[0, 1.02])
    fig.update_layout(title=title)
    return apply_theme(fig)


def size_histogram_traces(workloads: Mapping[str, object]) -> list[go.Bar]:
    """Share of requests of each size (KiB) per workload (seed 003 Figs 2.17-2.24).

    Every trace carries every size seen in any workload, smallest first (zero where a workload
    has none), so the category axis runs in numeric order whatever the workloads' order."""
    hists = {name: ts.size_histogram(wl) for name, wl in workloads.items()}
    sizes = sorted({s for h in hists.values() for s in h})
    out = []
    for k, (name, h) in enumerate(hists.items()):
        total = sum(h.values()) or 1
        out.append(go.Bar(x=[f"{s:g}" for s in sizes], y=[h.get(s, 0) / total for s in sizes],
                          name=name, marker_color=_color(k)))
    return out


def style_sizes(fig: go.Figure) -> go.Figure:
    fig.update_xaxes(title="request size (KiB)", type="category")
    fig.update_yaxes(title="share of requests", tickformat=".0%")
    fig.update_layout(title="Request sizes", barmode="group")
    return apply_theme(fig)


def burst_cdf_traces(workloads: Mapping[str, object], gap_ms: float = 10.0,
                     max_len: int = 30) -> list[go.Scatter]:
    """CDF of burst lengths under the rule 'within ``gap_ms`` of the previous request'
    (seed 003 §2.6, Figs 2.25-2.28)."""
    out = []
    for k, (name, wl) in enumerate(workloads.items()):
        b = ts.bursts(wl, gap_ms)
        x = np.arange(1, max_len + 1)
        y = [float(np.mean(b <= v)) for v in x] if len(b) else [0.0] * len(x)
        out.append(go.Scatter(x=x, y=y, mode="lines+markers", name=name,
                              line=dict(color=_color(k), shape="hv"), marker=dict(size=4)))
    return out


def style_bursts(fig: go.Figure, gap_ms: float | None = None) -> go.Figure:
    fig.update_xaxes(title="requests in a burst", range=[0.5, 20.5], dtick=2)
    fig.update_yaxes(title="fraction of bursts at most this long", range=[0, 1.02])
    rule = f"{gap_ms:g} ms" if gap_ms is not None else "the gap"
    fig.update_layout(title=f"Bursts: requests within {rule} of the one before")
    return apply_theme(fig)


def popularity_traces(workloads: Mapping[str, object], unit_sectors: int = 8) -> list[go.Scatter]:
    """References per 4 KiB block against the block's rank (log-log): skew at a glance."""
    out = []
    for k, (name, wl) in enumerate(workloads.items()):
        _, counts = ts.popularity(wl, unit_sectors)
        rank = np.arange(1, len(counts) + 1)
        idx = np.unique(np.geomspace(1, max(len(counts), 1), 300).astype(int)) - 1
        out.append(go.Scatter(x=rank[idx], y=counts[idx], mode="lines", name=name,
                              line=dict(color=_color(k))))
    return out


def style_popularity(fig: go.Figure) -> go.Figure:
    fig.update_xaxes(type="log", title="block rank (hottest first)")
    fig.update_yaxes(type="log", title="references to the block")
    fig.update_layout(title="Block popularity")
    return apply_theme(fig)


def heat_map_trace(workload, capacity: int, lba_bins: int = 80, time_bins: int = 60,
                   showscale: bool = True, zmax: float | None = None) -> go.Heatmap:
    """References binned by address (y) and time (x), log colour scale."""
    h = ts.heat_map(workload, capacity, lba_bins, time_bins)
    x = 0.5 * (h["time_edges_ms"][1:] + h["time_edges_ms"][:-1]) / 60_000.0
    y = 0.5 * (h["lba_edges"][1:] + h["lba_edges"][:-1]) / 1e6
    z = np.log10(1.0 + h["counts"])
    return go.Heatmap(x=x, y=y, z=z, colorscale="Viridis", showscale=showscale,
                      zmin=0, zmax=zmax if zmax is not None else float(z.max() or 1),
                      colorbar=dict(title="log10(1+refs)") if showscale else None,
                      hovertemplate="t %{x:.1f} min<br>LBA %{y:.1f} M<br>log10(1+refs) "
                                    "%{z:.2f}<extra></extra>")


def heat_map_figure(workload, capacity: int, title: str = "Where the requests go") -> go.Figure:
    fig = go.Figure(heat_map_trace(workload, capacity))
    fig.update_xaxes(title="time (minutes)")
    fig.update_yaxes(title="address (million sectors; 0 = outer edge)", autorange="reversed")
    fig.update_layout(title=title)
    return apply_theme(fig)


def reuse_traces(rows: Sequence[dict], name: str, k: int = 0) -> list[go.Bar]:
    """Per window: share of blocks touched again within it, and share seen the window before."""
    w = [r["window"] for r in rows]
    return [go.Bar(x=w, y=[r["reuse_fraction"] for r in rows], name=f"{name}: reused within",
                   marker_color=_color(k)),
            go.Bar(x=w, y=[r["seen_before_fraction"] for r in rows],
                   name=f"{name}: seen the window before", marker_color=_color(k + 4))]
