"""Figures for "Scheduling the disk": the head's path, response-time distributions,
Seltzer's curves and the WSTF aging function.

Builders take records or experiment results (and a ``cylinder_of`` mapping
where they need positions) and return plotly traces or figures; they never run
the simulator.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise

import numpy as np
import plotly.graph_objects as go

from ..records import Completed
from .theme import COLORS, apply_theme

POLICY_COLORS = {
    "fcfs": COLORS[7], "FCFS": COLORS[7],
    "sstf": COLORS[0], "SSTF": COLORS[0],
    "scan": COLORS[5], "SCAN": COLORS[5], "look": COLORS[5],
    "cscan": COLORS[4], "C-SCAN": COLORS[4], "clook": COLORS[4],
    "vscan": COLORS[6],
    "sptf": COLORS[1], "STF": COLORS[1],
    "gstf": COLORS[3], "GSTF": COLORS[3], "gstf-freeze": COLORS[3],
    "wstf": COLORS[2], "WSTF": COLORS[2],
    "aged-sptf": COLORS[6],
}


def color_of(name: str, k: int = 0) -> str:
    return POLICY_COLORS.get(name, COLORS[k % len(COLORS)])


def head_path_traces(records: Sequence[Completed], cylinder_of: Callable[[int], int], name: str,
                     color: str | None = None, until_ms: float | None = None,
                     xaxis: str = "x", yaxis: str = "y") -> list[go.Scatter]:
    """The arm's path: the cylinder of each served request at the time it finished."""
    recs = sorted(records, key=lambda r: r.finish_ms)
    if until_ms is not None:
        recs = [r for r in recs if r.start_ms <= until_ms]
    return [go.Scatter(
        x=[r.finish_ms for r in recs], y=[cylinder_of(r.lba) for r in recs], name=name,
        mode="lines+markers", line=dict(color=color, width=1.3), marker=dict(size=4),
        xaxis=xaxis, yaxis=yaxis, legendgroup=name,
        hovertemplate=f"{name}: cylinder %{{y}} at %{{x:.0f}} ms<extra></extra>")]


def response_cdf_traces(records: Sequence[Completed], name: str, color: str | None = None,
                        xaxis: str = "x", yaxis: str = "y", showlegend: bool = True
                        ) -> list[go.Scatter]:
    """The empirical distribution of response times (ms), with the maximum marked."""
    resp = np.sort([r.response_ms for r in records])
    p = np.arange(1, len(resp) + 1) / max(1, len(resp))
    return [go.Scatter(x=resp, y=p, name=name, mode="lines", line=dict(color=color, width=2),
                       xaxis=xaxis, yaxis=yaxis, legendgroup=name, showlegend=showlegend,
                       hovertemplate=f"{name}: %{{y:.0%}} within %{{x:.0f}} ms<extra></extra>")]


def race_path_traces(results: Mapping[str, Sequence[Completed]],
                     cylinder_of: Callable[[int], int], until_ms: float | None = None
                     ) -> list[go.Scatter]:
    """One head path per policy, each on its own row (axes ``y``, ``y2``, ...; see
    :func:`style_race_paths`)."""
    traces: list[go.Scatter] = []
    for k, (name, recs) in enumerate(results.items()):
        ax = "y" if k == 0 else f"y{k + 1}"
        traces += head_path_traces(recs, cylinder_of, name, color_of(name, k), until_ms,
                                   yaxis=ax)
    return traces


def style_race_paths(fig: go.Figure, names: Sequence[str], cylinders: int,
                     until_ms: float | None = None) -> go.Figure:
    """Stack the paths of :func:`race_path_traces`: one row per policy, a shared time axis."""
    n = len(names)
    gap = 0.04
    h = (1.0 - gap * (n - 1)) / n
    layout: dict = {"xaxis": dict(title="time (ms); each row: the arm's cylinder under one policy",
                                  range=[0, until_ms] if until_ms else None,
                                  anchor="y" if n == 1 else f"y{n}")}
    for k, name in enumerate(names):
        top = 1.0 - k * (h + gap)
        key = "yaxis" if k == 0 else f"yaxis{k + 1}"
        layout[key] = dict(domain=[max(0.0, top - h), min(1.0, top)], range=[0, cylinders],
                           anchor="x",
                           title=dict(text=name, font=dict(size=12)), tickfont=dict(size=10),
                           nticks=3)
    fig.update_layout(**layout, showlegend=False)
    return apply_theme(fig, height=110 + 95 * n)


def race_cdf_traces(results: Mapping[str, Sequence[Completed]],
                    dashed: Sequence[str] = ()) -> list[go.Scatter]:
    """Response-time distributions of several policies on one axis; the policies in
    ``dashed`` are drawn dashed (a curve that may lie on another stays visible)."""
    traces: list[go.Scatter] = []
    for k, (name, recs) in enumerate(results.items()):
        for tr in response_cdf_traces(recs, name, color_of(name, k)):
            if name in dashed:
                tr.line.dash = "dash"
            traces.append(tr)
    return traces


def style_race_cdf(fig: go.Figure) -> go.Figure:
    fig.update_xaxes(title="response time (ms, log scale)", type="log", dtick="D2")
    fig.update_yaxes(title="fraction of requests", range=[0, 1.02])
    return apply_theme(fig, height=400)


def race_figures(results: Mapping[str, Sequence[Completed]], cylinder_of: Callable[[int], int],
                 cylinders: int, until_ms: float | None = None) -> tuple[go.Figure, go.Figure]:
    """The race as two figures: the arm's paths (one row per policy) and the distributions."""
    paths = style_race_paths(go.Figure(race_path_traces(results, cylinder_of, until_ms)),
                             list(results), cylinders, until_ms)
    paths.update_layout(title="Where the arm went")
    cdf = style_race_cdf(go.Figure(race_cdf_traces(results)))
    cdf.update_layout(title="How long requests took")
    return paths, cdf


def seltzer_traces(result: dict, metric: str = "mean_io_ms",
                   policies: Sequence[str] | None = None) -> list[go.Scatter]:
    """One line per policy against queue length, from :mod:`simcore.experiments.seltzer`."""
    q = result["queue_lengths"]
    names = policies or list(result[metric])
    return [go.Scatter(x=q, y=result[metric][n], name=n, mode="lines+markers",
                       line=dict(color=color_of(n, k), width=2),
                       hovertemplate=f"{n}: %{{y:.1f}} ms at queue %{{x}}<extra></extra>")
            for k, n in enumerate(names)]


def seltzer_figure(result: dict, metric: str = "mean_io_ms") -> go.Figure:
    """Mean I/O time (with the seed's FCFS prediction) or maximum response time."""
    fig = go.Figure(seltzer_traces(result, metric))
    if metric == "mean_io_ms":
        pred = result["paper"]["fcfs_predicted_ms"]
        fig.add_hrect(y0=0.9 * pred, y1=1.1 * pred, fillcolor="#999", opacity=0.15, line_width=0)
        fig.add_hline(y=pred, line_dash="dot", line_color="#555",
                      annotation_text=f"seed: 18 + 8.3 ms + transfer = {pred:.1f} ms",
                      annotation_position="bottom right")
        fig.update_layout(title="Mean I/O (service) time against queue length, Fujitsu Eagle")
        fig.update_yaxes(title="mean I/O time (ms)", rangemode="tozero")
    else:
        fig.update_layout(title="Maximum response time against queue length")
        fig.update_yaxes(title="maximum response time (ms)", type="log")
    fig.update_xaxes(title="requests in the queue")
    return apply_theme(fig)


def aging_traces(max_response_ms: float, t_real_ms: Sequence[float] = (5.0, 10.0, 20.0),
                 horizon_ms: float | None = None) -> list[go.Scatter]:
    """Seltzer's WSTF weight ``T_w = T_real (M - E) / M`` against the waiting time E."""
    m = float(max_response_ms)
    horizon = horizon_ms or 1.3 * m
    e = np.linspace(0, horizon, 200)
    out = []
    for k, t in enumerate(t_real_ms):
        w = np.where(e >= m, -e, t * (m - e) / m)
        out.append(go.Scatter(x=e, y=w, mode="lines", name=f"T_real = {t:g} ms",
                              line=dict(color=COLORS[k], width=2),
                              hovertemplate="waited %{x:.0f} ms: weight %{y:.2f} ms<extra></extra>"))
    return out


def cylinder_order_figure(orders: Mapping[str, Sequence[int]], start: int,
                          cylinders: int = 200, cols: int = 2,
                          title: str = "The arm's path through the queue") -> go.Figure:
    """Textbook drawing, one panel per policy: the cylinder (across) at each step (down)."""
    from plotly.subplots import make_subplots

    names = list(orders)
    rows = -(-len(names) // cols)
    moved = {}
    for name in names:
        path = [start, *orders[name]]
        moved[name] = int(sum(abs(b - a) for a, b in pairwise(path)))
    fig = make_subplots(rows=rows, cols=cols, shared_yaxes=True, vertical_spacing=0.16,
                        horizontal_spacing=0.06,
                        subplot_titles=[f"{n}: {moved[n]} cylinders" for n in names])
    for k, name in enumerate(names):
        path = [start, *orders[name]]
        fig.add_trace(go.Scatter(
            x=path, y=list(range(len(path))), mode="lines+markers+text", name=name,
            text=[""] + [str(c) for c in orders[name]], textposition="middle right",
            textfont=dict(size=10), line=dict(color=color_of(name, k), width=2),
            hovertemplate="step %{y}: cylinder %{x}<extra></extra>"),
            row=k // cols + 1, col=k % cols + 1)
    fig.update_xaxes(range=[-5, cylinders + 20], title_text="cylinder", title_font=dict(size=11))
    fig.update_yaxes(autorange="reversed", dtick=1)
    fig.update_yaxes(title_text="step", col=1)
    fig.update_layout(title=title, showlegend=False)
    return apply_theme(fig, height=140 + 250 * rows)


def tail_bars(results: Mapping[str, Sequence[Completed]], title: str = "Starvation"
              ) -> go.Figure:
    """Mean and maximum response time per policy: the tail shows who starves."""
    names = list(results)
    mean = [float(np.mean([r.response_ms for r in results[n]])) for n in names]
    mx = [float(max(r.response_ms for r in results[n])) for n in names]
    fig = go.Figure([
        go.Bar(x=names, y=mean, name="mean response", marker_color=COLORS[0]),
        go.Bar(x=names, y=mx, name="maximum response", marker_color=COLORS[1]),
    ])
    fig.update_layout(barmode="group", title=title)
    fig.update_yaxes(title="ms (log scale)", type="log", dtick="D2")
    return apply_theme(fig, height=380)
