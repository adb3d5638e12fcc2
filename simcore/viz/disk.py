"""Figures of the disk itself: zones, the platter map, seek curves and phases, request timelines.

Builders take simcore objects or records and return plotly figures; the
chapters "Anatomy of a disk" and "Positioning" and their live explorers draw
through them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ..disk.access import Mechanism
from ..disk.layout import Layout
from ..disk.mechanics import FourPhaseSeek
from ..records import Completed
from .theme import COLORS, apply_theme, legend_below

PHASE_COLORS = {"queue": "#bbbbbb", "overhead": "#6c4f9c", "seek": "#d1495b",
                "rotation": "#edae49", "transfer": "#2e933c", "interface": "#00798c"}


def zone_table(layout: Layout) -> list[dict]:
    """One row per zone: its LBA range, sectors per track and media rate."""
    rows = []
    for z in range(layout.zone_count):
        first, end = layout.zone_lba_range(z)
        rows.append({"zone": z, "first_lba": first, "end_lba": end,
                     "sectors_per_track": layout.sectors_per_track(z),
                     "media_mb_s": layout.media_rate_mb_s(z)})
    return rows


def zone_bandwidth_traces(layout: Layout, name: str | None = None,
                          color: str | None = None) -> list[go.Scatter]:
    """Media rate (MB/s) against position on the disk (GB from LBA 0) as a step line."""
    xs, ys = [], []
    for row in zone_table(layout):
        xs += [row["first_lba"] * 512 / 1e9, row["end_lba"] * 512 / 1e9]
        ys += [row["media_mb_s"]] * 2
    return [go.Scatter(x=xs, y=ys, mode="lines", name=name or layout.profile.name,
                       line=dict(color=color, width=2.5),
                       hovertemplate="%{x:.2f} GB: %{y:.1f} MB/s<extra></extra>")]


def zone_bandwidth_figure(layouts: Sequence[Layout]) -> go.Figure:
    """Zone bandwidth across the LBA range of one or more drives (x as % of capacity)."""
    fig = go.Figure()
    for i, layout in enumerate(layouts):
        cap = layout.capacity
        for tr in zone_bandwidth_traces(layout, color=COLORS[i % len(COLORS)]):
            tr.x = [100 * x * 1e9 / 512 / cap for x in tr.x]
            tr.hovertemplate = "%{x:.0f}% of the disk: %{y:.1f} MB/s<extra></extra>"
            fig.add_trace(tr)
    fig.update_xaxes(title="position on the disk (% of capacity, LBA 0 = outer edge)")
    fig.update_yaxes(title="media rate (MB/s, log scale)", type="log",
                     tickvals=[1, 2, 5, 10, 20, 50, 100, 200, 500])
    fig.update_layout(title="Zoned recording: outer zones move more data per revolution")
    apply_theme(fig, height=580)
    return legend_below(fig, rows=(len(layouts) + 1) // 2)


def platter_traces(layout: Layout, lba: int | None = None) -> list[go.BaseTraceType]:
    """Top view of one surface: zones as rings (outer edge = cylinder 0) and one LBA's sector."""
    cyls = layout.cylinders
    inner = 0.35

    def radius(c: float) -> float:
        return 1.0 - (1.0 - inner) * c / cyls

    traces: list[go.BaseTraceType] = []
    zones = layout.profile.zones
    for z, zone in enumerate(zones):
        r0, r1 = radius(zone.last_cylinder + 1), radius(zone.first_cylinder)
        traces.append(go.Barpolar(
            r=[r1 - r0], base=r0, theta=[180], width=[360], name=f"zone {z}",
            marker=dict(color=COLORS[z % len(COLORS)], opacity=0.35, line=dict(width=0)),
            hovertemplate=(f"zone {z}: cylinders {zone.first_cylinder}-{zone.last_cylinder}, "
                           f"{zone.sectors_per_track} sectors/track<extra></extra>"),
            showlegend=False))
    if lba is not None:
        a = layout.locate(lba)
        r = radius(a.cylinder + 0.5)
        traces.append(go.Scatterpolar(
            r=[0, r], theta=[a.angle * 360] * 2, mode="lines", line=dict(color="#333", width=1),
            showlegend=False, hoverinfo="skip"))
        traces.append(go.Scatterpolar(
            r=[r], theta=[a.angle * 360], mode="markers", name=f"LBA {lba:,}",
            marker=dict(size=14, color="#d1495b", line=dict(color="white", width=2)),
            hovertemplate=(f"LBA {lba:,}: cylinder {a.cylinder}, surface {a.surface}, "
                           f"sector {a.sector} (zone {a.zone})<extra></extra>")))
    return traces


def platter_figure(layout: Layout, lba: int | None = None) -> go.Figure:
    fig = go.Figure(platter_traces(layout, lba))
    style_platter(fig)
    return fig


def style_platter(fig: go.Figure) -> go.Figure:
    fig.update_layout(polar=dict(radialaxis=dict(visible=False, range=[0, 1.02]),
                                 angularaxis=dict(direction="clockwise", rotation=90,
                                                  showticklabels=False, ticks="")),
                      title="Where the sector is: one surface seen from above")
    return apply_theme(fig, height=460)


def seek_curve_traces(mech: Mechanism, name: str | None = None,
                      color: str | None = None, points: int = 400) -> list[go.Scatter]:
    """The drive's seek time against distance (sampled densely near zero)."""
    c = mech.layout.cylinders
    d = np.unique(np.concatenate([np.arange(0, min(c, 50)),
                                  np.geomspace(1, c - 1, points).astype(int)]))
    t = [mech.seek.seek_ms(int(x)) for x in d]
    return [go.Scatter(x=d, y=t, mode="lines", name=name or mech.profile.name,
                       line=dict(color=color, width=2.5),
                       hovertemplate="%{x} cylinders: %{y:.2f} ms<extra></extra>")]


def phase_bars(phases: FourPhaseSeek, distance: int) -> list[go.Bar]:
    """A horizontal stacked bar: the four phases of one seek."""
    p = phases.phases(distance)
    parts = [("accelerate", p.accelerate_ms, "#1f5fa8"), ("coast", p.coast_ms, "#6c4f9c"),
             ("decelerate", p.decelerate_ms, "#d1495b"), ("settle", p.settle_ms, "#edae49")]
    return [go.Bar(x=[v], y=["phases"], orientation="h", name=n, marker_color=col,
                   xaxis="x2", yaxis="y2", hovertemplate=f"{n}: %{{x:.2f}} ms<extra></extra>")
            for n, v, col in parts]


def request_timeline(records: Sequence[Completed], title: str = "Where each request's time goes"
                     ) -> go.Figure:
    """One row per request; coloured segments for queue, overhead, seek, rotation, transfer, bus."""
    fig = go.Figure()
    for part, color in PHASE_COLORS.items():
        xs, bases, ys = [], [], []
        for r in records:
            t = r.arrival_ms
            for p in PHASE_COLORS:
                dur = getattr(r, f"{p}_ms")
                if p == part:
                    xs.append(dur)
                    bases.append(t)
                    ys.append(f"#{r.id} LBA {r.lba:,}")
                t += dur
        fig.add_trace(go.Bar(x=xs, base=bases, y=ys, orientation="h", name=part,
                             marker_color=color,
                             hovertemplate=f"{part}: %{{x:.2f}} ms<extra></extra>"))
    fig.update_layout(barmode="overlay", title=title)
    fig.update_xaxes(title="time (ms)")
    fig.update_yaxes(autorange="reversed")
    return apply_theme(fig, height=80 + 32 * max(4, len(records)))


def breakdown_bars(rows: Sequence[dict], title: str) -> go.Figure:
    """Stacked bars of mean time per component; each row has a label and *_ms means."""
    fig = go.Figure()
    for part, color in PHASE_COLORS.items():
        if part == "queue":
            continue
        fig.add_trace(go.Bar(x=[r["label"] for r in rows], y=[r[f"{part}_ms"] for r in rows],
                             name=part, marker_color=color,
                             hovertemplate=f"{part}: %{{y:.2f}} ms<extra></extra>"))
    fig.update_layout(barmode="stack", title=title)
    fig.update_yaxes(title="mean time per request (ms)")
    return apply_theme(fig)
