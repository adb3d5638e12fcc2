"""Figures for "Where data lives: placement and rearrangement".

Builders read the dicts returned by the ``placement`` and ``hot-data-home``
experiments (or workloads) and return plotly traces or figures; the static
twins in the book and the live explorer (:mod:`simcore.widgets.placement`)
share them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .theme import COLORS, apply_theme
from .traces import heat_map_trace

ZONED = {"FREQZ": ("FREQNC", COLORS[0]), "ALIZ": ("ALIS", COLORS[1])}


def _fmt_spacing(x: int) -> str:
    return f"{x // 1_000_000}M" if x >= 1_000_000 else f"{x // 1000}k"


def spacing_traces(result: dict, workload: str, paper: bool = True) -> list[go.Scatter]:
    """Improvement (%) against zone spacing for FREQZ and ALIZ, with their single-zone
    counterparts as dashed lines and the thesis's points as open markers; error bars are the
    95% confidence intervals over replicates when the result has them (``ci95_pp``)."""
    imp = result[workload]["improvement_pct"]
    ci = result[workload].get("ci95_pp", {})
    every = sorted({int(x) for key in ZONED for x in imp[key]})
    out = []
    for key, (single, color) in ZONED.items():
        xs = sorted(int(x) for x in imp[key])
        err = [ci.get(key, {}).get(str(x), 0.0) for x in xs] if ci else None
        out.append(go.Scatter(x=xs, y=[imp[key][str(x)] for x in xs], mode="lines+markers",
                              name=key, line=dict(color=color, width=3),
                              error_y=dict(type="data", array=err, visible=True) if err else None,
                              hovertemplate="%{x:,} sectors: %{y:.1f}%<extra>" + key + "</extra>"))
        xs = every
        out.append(go.Scatter(x=[xs[0], xs[-1]], y=[imp[single]] * 2, mode="lines",
                              name=f"{single} (one zone): {imp[single]:+.0f}%",
                              line=dict(color=color, dash="dash")))
        if paper:
            p = result["paper"][workload]["improvement_pct"].get(key, {})
            px = sorted(int(k) for k in p)
            out.append(go.Scatter(x=px, y=[p[str(k)] for k in px], mode="markers",
                                  name=f"{key}, thesis", marker=dict(color=color, symbol="circle-open",
                                                                     size=11, line=dict(width=2))))
    return out


def style_spacing(fig: go.Figure, workload: str, ymin: float | None = None) -> go.Figure:
    fig.update_xaxes(type="log", title="zone spacing x (sectors, log scale)",
                     tickvals=[1e4, 3e4, 1e5, 3e5, 1e6, 3e6, 1e7],
                     ticktext=["10k", "30k", "100k", "300k", "1M", "3M", "10M"])
    fig.update_yaxes(title="improvement over the original layout (%)",
                     range=[ymin, None] if ymin is not None else None)
    fig.add_hline(y=0, line=dict(color="#888", width=1))
    fig.update_layout(title=f"{workload.capitalize()}-like trace: improvement against zone spacing")
    return apply_theme(fig, height=460)


def technique_bars(result: dict, workload: str, clip: float = -100.0) -> list[go.Bar]:
    """Improvement per technique: single-zone ones, and the best spacing of each zoned one.
    Bars below ``clip`` are drawn at ``clip`` and labelled with their value."""
    imp = result[workload]["improvement_pct"]
    names, vals = [], []
    for k, v in imp.items():
        if isinstance(v, dict):
            best = max(v, key=v.get)
            names.append(f"{k}({_fmt_spacing(int(best))})")
            vals.append(v[best])
        else:
            names.append(k)
            vals.append(v)
    shown = [max(v, clip) for v in vals]
    colors = [COLORS[2] if v >= 0 else COLORS[1] for v in vals]
    return [go.Bar(x=names, y=shown, marker_color=colors, text=[f"{v:.1f}%" for v in vals],
                   textposition="outside", cliponaxis=False, showlegend=False,
                   hovertemplate="%{x}: %{text}<extra></extra>")]


def style_bars(fig: go.Figure, workload: str, clip: float = -100.0) -> go.Figure:
    fig.update_yaxes(title="improvement over the original (%)", range=[clip - 15, None])
    fig.update_layout(title=f"{workload.capitalize()}-like trace: each technique "
                            "(zoned ones at their best spacing)")
    return apply_theme(fig, height=440)


def seek_histogram_traces(result: dict, workload: str, keys: Sequence[str]) -> list[go.Bar]:
    """Share of seeks in each distance band (cylinders), one bar series per layout."""
    edges = list(result["seek_edges_cylinders"])
    labels = []
    for a, b in zip(edges, [*edges[1:], None], strict=True):
        labels.append(f"{a}+" if b is None else (str(a) if b == a + 1 else f"{a}-{b - 1}"))
    out = []
    detail = result["figure"]["detail"][workload]
    for k, key in enumerate(keys):
        h = np.asarray(detail[key]["seek_histogram"], float)
        out.append(go.Bar(x=labels, y=h / max(h.sum(), 1.0), name=key,
                          marker_color=COLORS[k % len(COLORS)]))
    return out


def style_seeks(fig: go.Figure) -> go.Figure:
    fig.update_xaxes(title="seek distance (cylinders)", type="category")
    fig.update_yaxes(title="share of requests", tickformat=".0%")
    fig.update_layout(title="How far the arm moves", barmode="group")
    return apply_theme(fig)


def before_after_figure(logical, physical, capacity: int, titles=("original layout", "after"),
                        lba_bins: int = 80, time_bins: int = 48) -> go.Figure:
    """Two heat maps (address against time): the trace as written, and as the disk saw it."""
    a = heat_map_trace(logical, capacity, lba_bins, time_bins, showscale=False)
    b = heat_map_trace(physical, capacity, lba_bins, time_bins, showscale=True)
    zmax = max(float(np.max(a.z)), float(np.max(b.z)))
    a.zmax = b.zmax = zmax
    fig = make_subplots(rows=1, cols=2, subplot_titles=titles, shared_yaxes=True,
                        horizontal_spacing=0.04)
    fig.add_trace(a, 1, 1)
    fig.add_trace(b, 1, 2)
    fig.update_yaxes(autorange="reversed", title_text="address (million sectors)", row=1, col=1)
    fig.update_xaxes(title_text="time (minutes)")
    return apply_theme(fig, height=430)


def home_traces(home: dict, disk: str, size_kib: int) -> list[go.Scatter]:
    """Mean response against where the reserved area sits (0 = outer edge), one line per
    share of hot requests, for one disk and request size."""
    per = home["disks"][disk]
    xs = home["positions"]
    out = []
    for k, h in enumerate(home["hot_fractions"]):
        c = per["cases"][f"{size_kib}KiB/{h:g}"]
        out.append(go.Scatter(x=xs, y=c["response_ms"], mode="lines+markers",
                              name=f"{h:.0%} of requests hot",
                              line=dict(color=COLORS[k % len(COLORS)], width=3)))
    return out


def home_layout(home: dict, disk: str, size_kib: int | None = None) -> dict:
    """Title and the two reference lines (middle of the data, middle cylinder) for one disk."""
    mid = home["disks"][disk]["middle_cylinder_lba_fraction"]
    line = dict(type="line", xref="x", yref="paper", y0=0, y1=1)
    what = f"{disk}, {size_kib} KiB requests" if size_kib else disk
    return {
        "title": f"Where should the hot data live? ({what})",
        "shapes": [dict(line, x0=0.5, x1=0.5, line=dict(color="#555", dash="dash")),
                   dict(line, x0=mid, x1=mid, line=dict(color="#999", dash="dot"))],
        "annotations": [dict(x=0.5, y=0.02, xref="x", yref="paper", text="middle of the data",
                             showarrow=False, xanchor="right", yanchor="bottom"),
                        dict(x=mid, y=0.02, xref="x", yref="paper", text="middle cylinder",
                             showarrow=False, xanchor="left", yanchor="bottom")],
    }


def style_home(fig: go.Figure, home: dict, disk: str, size_kib: int | None = None) -> go.Figure:
    fig.update_layout(home_layout(home, disk, size_kib))
    fig.update_xaxes(title="where the hot area sits (fraction of the addresses; 0 = outer edge)",
                     range=[-0.03, 1.03])
    fig.update_yaxes(title="mean response (ms)", rangemode="tozero")
    return apply_theme(fig, height=460)


def organ_pipe_figure(heats: Sequence[float], slots: Sequence[int | None]) -> go.Figure:
    """Bars of heat by slot before (cylinder ``i`` in slot ``i``) and after organ-pipe placement
    (the hottest in the middle); each bar is labelled with the cylinder it holds."""
    n = len(slots)
    before = [heats[i] if i < len(heats) else 0 for i in range(n)]
    after = [heats[i] if i is not None else 0 for i in slots]
    fig = go.Figure([
        go.Bar(x=list(range(n)), y=before, name="before: cylinder i in slot i",
               marker_color="#9aa5b1", textposition="outside",
               text=[f"cyl {i}" if i < len(heats) else "" for i in range(n)]),
        go.Bar(x=list(range(n)), y=after, name="after: organ pipe", marker_color=COLORS[0],
               textposition="outside",
               text=[f"cyl {i}" if i is not None else "" for i in slots]),
    ])
    fig.update_xaxes(title="slot (cylinder)", dtick=1)
    fig.update_yaxes(title="references")
    fig.update_layout(title="Organ pipe: the hottest in the middle, cooler ones alternately "
                            "either side", barmode="group")
    return apply_theme(fig, height=360)


def before_after_frames(logical, physicals: dict, capacity: int, label: str = "layout",
                        lba_bins: int = 80, time_bins: int = 48) -> go.Figure:
    """:func:`before_after_figure` with a slider over several rewritten versions."""
    names = list(physicals)
    figs = {n: before_after_figure(logical, physicals[n], capacity, ("as written", n),
                                   lba_bins, time_bins) for n in names}
    zmax = max(float(np.max(t.z)) for f in figs.values() for t in f.data)
    for f in figs.values():
        for t in f.data:
            t.zmax = zmax
    fig = go.Figure(figs[names[0]])
    fig.frames = [go.Frame(data=list(figs[n].data), name=n,
                           layout={"annotations": [{**a.to_plotly_json(), "text": t}
                                                   for a, t in zip(figs[n].layout.annotations,
                                                                   ("as written", n),
                                                                   strict=True)]})
                  for n in names]
    steps = [dict(method="animate", label=n,
                  args=[[n], dict(mode="immediate", frame=dict(duration=0, redraw=True),
                                  transition=dict(duration=0))]) for n in names]
    fig.update_layout(sliders=[dict(active=0, currentvalue=dict(prefix=f"{label}: "),
                                    pad=dict(t=50), steps=steps)])
    return fig
