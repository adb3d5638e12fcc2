"""Figures for the chapter "Track-aligned extents" and its live explorers.

Builders take numbers (the ``traxtents`` experiment's result, per-sector read
times, detection steps) and return plotly figures or traces. They never run
the simulator.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .static import frames_figure
from .theme import COLORS, apply_theme

ALIGNED, UNALIGNED, MAXLINE = COLORS[0], COLORS[1], "#555555"
PART_COLORS = {"overhead": "#bbbbbb", "seek and head switches": "#d1495b",
               "rotational wait": "#edae49", "media transfer": "#2e933c",
               "bus after the media": "#00798c"}


# -- Figure 1: efficiency against request size --------------------------------


def efficiency_traces(size_kib: Sequence[float], aligned: Sequence[float],
                      unaligned: Sequence[float], max_eff: float | None = None,
                      suffix: str = "") -> list[go.Scatter]:
    """Aligned and unaligned efficiency curves (and the maximum streaming line)."""
    out = [
        go.Scatter(x=list(size_kib), y=list(aligned), mode="lines+markers",
                   name=f"track-aligned{suffix}", line=dict(color=ALIGNED, width=2.5),
                   marker=dict(size=5),
                   hovertemplate="%{x:.1f} KB: efficiency %{y:.3f}<extra>aligned</extra>"),
        go.Scatter(x=list(size_kib), y=list(unaligned), mode="lines+markers",
                   name=f"unaligned{suffix}", line=dict(color=UNALIGNED, width=2.5),
                   marker=dict(size=5),
                   hovertemplate="%{x:.1f} KB: efficiency %{y:.3f}<extra>unaligned</extra>"),
    ]
    if max_eff is not None:
        out.append(go.Scatter(x=[min(size_kib), max(size_kib)], y=[max_eff, max_eff],
                              mode="lines", name="maximum streaming efficiency",
                              line=dict(color=MAXLINE, dash="dot"), hoverinfo="skip"))
    return out


def efficiency_figure(result: dict, points: bool = True) -> go.Figure:
    """Figure 1 from the experiment: efficiency against request size, points A and B."""
    c = result["curves"]
    fig = go.Figure(efficiency_traces(c["size_kib"], c["efficiency_aligned"],
                                      c["efficiency_unaligned"],
                                      result["max_streaming_efficiency"]))
    if points:
        a = result["efficiency_aligned_264k"]
        b = result["efficiency_unaligned_1m"]
        fig.add_trace(go.Scatter(
            x=[264, 1024], y=[a, b], mode="markers+text", text=["A", "B"],
            textposition=["top center", "bottom right"], name="paper's points A and B",
            marker=dict(size=13, color="rgba(0,0,0,0)", line=dict(color="black", width=2)),
            textfont=dict(size=15),
            hovertemplate="%{text}: %{y:.3f}<extra></extra>"))
        pa, pb = result["paper"]["efficiency_aligned_264k"], result["paper"][
            "efficiency_unaligned_1m"]
        fig.add_trace(go.Scatter(x=[264, 1024], y=[pa, pb], mode="markers",
                                 name="paper: 0.73 and 0.75",
                                 marker=dict(symbol="x", size=10, color="black"),
                                 hovertemplate="paper: %{y}<extra></extra>"))
    fig.update_xaxes(title="request size (KB)", type="log",
                     tickvals=[4, 16, 64, 264, 528, 1024, 2048], ticktext=[
                         "4", "16", "64", "264", "528", "1024", "2048"])
    fig.update_yaxes(title="disk efficiency", range=[0, 1])
    fig.update_layout(title="Efficiency against request size, Atlas 10K II first zone (tworeq)")
    return apply_theme(fig, height=460)


def head_time_figure(result: dict) -> go.Figure:
    """Figure 6: average head time, onereq and tworeq, aligned and unaligned."""
    c = result["curves"]
    fig = go.Figure()
    for name, key, color, dash in (
            ("onereq aligned", "head_time_onereq_aligned_ms", ALIGNED, "dash"),
            ("onereq unaligned", "head_time_onereq_unaligned_ms", UNALIGNED, "dash"),
    ):
        fig.add_trace(go.Scatter(x=c["head_time_size_kib"], y=c[key], name=name,
                                 mode="lines+markers", line=dict(color=color, dash=dash)))
    for name, key, color in (("tworeq aligned", "head_time_tworeq_aligned_ms", ALIGNED),
                             ("tworeq unaligned", "head_time_tworeq_unaligned_ms", UNALIGNED)):
        xs = [x for x in c["size_kib"] if x <= max(c["head_time_size_kib"])]
        fig.add_trace(go.Scatter(x=xs, y=c[key][:len(xs)], name=name, mode="lines+markers",
                                 line=dict(color=color)))
    fig.update_xaxes(title="request size (KB)")
    fig.update_yaxes(title="average head time (ms)", rangemode="tozero")
    fig.update_layout(title="Head time: the next seek hides the bus only with a queued request")
    return apply_theme(fig)


def sigma_figure(result: dict) -> go.Figure:
    """Figure 8: response time and its +-1 sigma envelope (onereq, infinitely fast bus)."""
    c = result["curves"]
    x = c["sd_size_kib"]
    fig = go.Figure()
    for name, mean, sd, color in (
            ("aligned", c["response_aligned_ms"], c["sd_aligned_ms"], ALIGNED),
            ("unaligned", c["response_unaligned_ms"], c["sd_unaligned_ms"], UNALIGNED)):
        m, s = np.array(mean), np.array(sd)
        fig.add_trace(go.Scatter(x=list(x) + list(x)[::-1], y=list(m + s) + list(m - s)[::-1],
                                 fill="toself", fillcolor=_alpha(color, 0.18),
                                 line=dict(color=_alpha(color, 0.0)), name=f"{name} ±1σ",
                                 hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=x, y=m, mode="lines+markers", name=f"{name} mean",
                                 line=dict(color=color, width=2.5),
                                 customdata=s,
                                 hovertemplate="%{x} KB: %{y:.2f} ms, σ %{customdata:.2f} ms"
                                               f"<extra>{name}</extra>"))
    fig.update_xaxes(title="request size (KB)")
    fig.update_yaxes(title="response time (ms)", rangemode="tozero")
    fig.update_layout(title="Aligned requests are predictable: σ falls to the seek's own σ")
    return apply_theme(fig)


def breakdown_figure(rows: dict[str, dict[str, float]]) -> go.Figure:
    """Figure 7: where a request's time goes, one stacked bar per access kind."""
    fig = go.Figure()
    labels = list(rows)
    parts = [p for p in PART_COLORS if any(p in r for r in rows.values())]
    for p in parts:
        fig.add_trace(go.Bar(y=labels, x=[rows[k].get(p, 0.0) for k in labels], name=p,
                             orientation="h", marker_color=PART_COLORS[p],
                             hovertemplate="%{y}: " + p + " %{x:.2f} ms<extra></extra>"))
    fig.update_layout(barmode="stack", title="Mean time of a 264 KB read, onereq (ms)")
    fig.update_xaxes(title="ms")
    fig.update_yaxes(autorange="reversed")
    return apply_theme(fig, height=330)


def _alpha(hex_color: str, a: float) -> str:
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{a})"


# -- zero-latency: the rotating track ----------------------------------------


def track_traces(spt: int, run_first: int, run_len: int, read_at: np.ndarray | None,
                 t: float, head_deg: float, subplot: str = "polar",
                 show_legend: bool = True) -> list:
    """One track as a ring of sectors: requested ones grey until read, then coloured.

    ``read_at`` holds, for each requested sector (in LBA order, physical
    positions ``run_first..``), when it came off the platter (time since the
    seek ended, ms). ``head_deg`` is where the head is over the track.
    """
    width = 360.0 / spt
    theta = (np.arange(spt) + 0.5) * width
    state = np.full(spt, "not requested", dtype=object)
    color = np.full(spt, "#eeeeee", dtype=object)
    idx = (run_first + np.arange(run_len)) % spt
    state[idx] = "requested"
    color[idx] = "#bbbbbb"
    if read_at is not None:
        done = read_at <= t + 1e-9
        order = np.argsort(np.argsort(read_at))  # read order 0..n-1
        shade = [_ramp(o / max(1, run_len - 1)) for o in order]
        for j in np.nonzero(done)[0]:
            state[idx[j]] = f"read #{order[j] + 1}"
            color[idx[j]] = shade[j]
    bars = go.Barpolar(r=np.ones(spt), theta=theta, width=np.full(spt, width), base=1.0,
                       marker=dict(color=list(color), line=dict(color="white", width=0.3)),
                       text=list(state), hovertemplate="%{text}<extra></extra>",
                       showlegend=False, subplot=subplot)
    head = go.Scatterpolar(r=[0.6, 2.25], theta=[head_deg, head_deg], mode="lines+markers",
                           line=dict(color="black", width=3), marker=dict(size=[1, 11],
                                                                             symbol="triangle-down"),
                           name="head", showlegend=show_legend, subplot=subplot,
                           hoverinfo="skip")
    first_deg = (run_first + 0.5) * width
    start = go.Scatterpolar(r=[2.12], theta=[first_deg], mode="markers+text",
                            text=["first LBN"], textposition="middle right",
                            marker=dict(symbol="diamond", size=9, color=COLORS[2]),
                            textfont=dict(size=11, color=COLORS[2]), showlegend=False,
                            subplot=subplot, hoverinfo="skip")
    return [bars, head, start]


def _ramp(x: float) -> str:
    """Colour for read order: early = blue, late = red."""
    a = np.array([31, 95, 168])
    b = np.array([209, 73, 91])
    r, g, bl = (a + (b - a) * float(x)).astype(int)
    return f"rgb({r},{g},{bl})"


def zero_latency_animation(spt: int, run_first: int, run_len: int, land_sector: float,
                           ordinary: np.ndarray, zero: np.ndarray, rev_ms: float,
                           steps: int = 40) -> go.Figure:
    """Two tracks side by side, ordinary and zero-latency firmware, frame by frame.

    ``ordinary`` and ``zero`` are per-sector read times (ms after the seek
    ended, LBA order) from the simulator for the same request and landing.
    The head is fixed at the top; the platter turns (counter-clockwise ring).
    """
    end = float(max(ordinary.max(), zero.max()))
    times = np.linspace(0.0, end, steps + 1)
    sector_deg = 360.0 / spt

    def head_deg(t: float) -> float:
        return (land_sector + t / rev_ms * spt) * sector_deg

    def make(t: float):
        deg = head_deg(t)
        return (track_traces(spt, run_first, run_len, ordinary, t, deg, "polar", True)
                + track_traces(spt, run_first, run_len, zero, t, deg, "polar2", False))

    def layout_for(t: float) -> dict:
        rot = 90 - head_deg(t)  # keep the head at the top: turn the platter instead
        o_done = int((ordinary <= t + 1e-9).sum())
        z_done = int((zero <= t + 1e-9).sum())
        return {
            "polar": {"angularaxis": {"rotation": rot}},
            "polar2": {"angularaxis": {"rotation": rot}},
            "annotations": [
                dict(text=f"<b>ordinary</b><br>{o_done}/{run_len} read", x=0.225, y=1.02,
                     xanchor="center", yanchor="bottom",
                     xref="paper", yref="paper", showarrow=False, font=dict(size=14)),
                dict(text=f"<b>zero-latency</b><br>{z_done}/{run_len} read", x=0.775, y=1.02,
                     xanchor="center", yanchor="bottom",
                     xref="paper", yref="paper", showarrow=False, font=dict(size=14)),
            ],
        }

    fig = frames_figure(list(times), make, label="time after the seek",
                        fmt=lambda t: f"{t:.2f} ms", active=0, layout_for=layout_for)
    polar = dict(radialaxis=dict(visible=False, range=[0, 2.3]),
                 angularaxis=dict(visible=False, direction="counterclockwise"),
                 hole=0.25)
    fig.update_layout(polar=dict(domain=dict(x=[0.0, 0.45]), **polar),
                      polar2=dict(domain=dict(x=[0.55, 1.0]), **polar))
    fig.update_layout(updatemenus=[dict(type="buttons", showactive=False, x=0.0, y=0.0,
                                        xanchor="left", yanchor="top", direction="left",
                                        pad=dict(t=45, r=10), buttons=[
        dict(label="▶ play", method="animate",
             args=[None, dict(frame=dict(duration=120, redraw=True), fromcurrent=True,
                              transition=dict(duration=0))]),
        dict(label="❚❚ pause", method="animate",
             args=[[None], dict(mode="immediate", frame=dict(duration=0, redraw=False))])])])
    fig.layout.sliders[0].update(x=0.24, len=0.76, y=0.0, pad=dict(t=30))
    apply_theme(fig, height=500)
    fig.update_layout(margin=dict(t=80, b=70), showlegend=False)
    return fig


def latency_curve_figure(fraction: Sequence[float], zero_sim: Sequence[float],
                         ordinary_sim: Sequence[float], spt: int) -> go.Figure:
    """Figure 3: mean rotational latency against track-aligned request size."""
    f = np.linspace(0, 1, 101)
    fig = go.Figure([
        go.Scatter(x=100 * f, y=(1 - f * f) / 2, mode="lines", name="zero-latency: (1 − f²)/2",
                   line=dict(color=ALIGNED, width=2)),
        go.Scatter(x=[0, 100], y=[(spt - 1) / (2 * spt)] * 2, mode="lines",
                   name="ordinary: (SPT − 1)/(2 SPT)", line=dict(color=UNALIGNED, width=2)),
        go.Scatter(x=[100 * x for x in fraction], y=list(zero_sim), mode="markers",
                   name="simulated, zero-latency", marker=dict(color=ALIGNED, size=9)),
        go.Scatter(x=[100 * x for x in fraction], y=list(ordinary_sim), mode="markers",
                   name="simulated, ordinary", marker=dict(color=UNALIGNED, size=9,
                                                           symbol="square")),
    ])
    fig.update_xaxes(title="request size (% of the track), track-aligned")
    fig.update_yaxes(title="mean rotational latency (revolutions)", range=[0, 0.55])
    fig.update_layout(title="Zero-latency firmware: the bigger the request, the less it waits")
    return apply_theme(fig)


# -- the track-boundary detective ---------------------------------------------


def detective_figure(steps: Sequence, starts: Sequence[int], truth: Sequence[int],
                     threshold_ms: float = 0.3, max_frames: int = 80) -> go.Figure:
    """Step through the timing detector: each probe's excess over the single-track line.

    ``steps`` are :class:`~simcore.traxtents.DetectionStep` records (the
    calibration probes are left out), ``starts`` the track starts the detector
    found and ``truth`` the real ones, drawn faintly as the answer it is after.
    """
    steps = [s for s in steps if s.phase not in ("calibrate", "baseline")][:max_frames]
    xs = [s.start + s.sectors - 1 for s in steps]  # last sector each probe reads
    ex = [s.excess_ms for s in steps]
    lo = min(s.start for s in steps)
    hi = max(xs) + 20
    found = [[x for x in starts if x <= s.start] for s in steps]
    ymax = max(max(ex), 1.0) * 1.15

    def make(i: int):
        s = steps[i]
        colors = [UNALIGNED if steps[k].jumped else ALIGNED for k in range(i + 1)]
        return [
            go.Scatter(x=xs[:i + 1], y=ex[:i + 1], mode="markers", name="probes so far",
                       marker=dict(color=colors, size=8, opacity=0.55),
                       hovertemplate="last sector %{x}: %{y:.2f} ms<extra></extra>"),
            go.Scatter(x=[s.start, s.start + s.sectors - 1], y=[ex[i], ex[i]],
                       mode="lines+markers", name="this probe: sectors read",
                       line=dict(color="black", width=4), marker=dict(size=9)),
            go.Scatter(x=[lo, hi], y=[threshold_ms, threshold_ms], mode="lines",
                       name="jump threshold", line=dict(color=MAXLINE, dash="dot")),
            go.Scatter(x=[b for b in truth if lo <= b <= hi for _ in (0, 1, 2)],
                       y=[v for b in truth if lo <= b <= hi for v in (-0.1 * ymax, ymax, None)],
                       mode="lines", name="true starts (the detective cannot see)",
                       line=dict(color="#cccccc", width=1)),
            go.Scatter(x=found[i], y=[-0.05 * ymax] * len(found[i]), mode="markers",
                       name="track starts found", marker=dict(symbol="triangle-up", size=13,
                                                               color=COLORS[2])),
        ]

    def layout_for(i: int) -> dict:
        s = steps[i]
        verdict = "JUMP: crossed a boundary" if s.jumped else "no jump: still one track"
        return {"title.text": (f"probe {i + 1}: read {s.sectors} sectors from S = {s.start} "
                               f"({s.phase}): {verdict}")}

    fig = frames_figure(list(range(len(steps))), make, label="probe", fmt=lambda i: str(i + 1),
                        layout_for=layout_for)
    fig.update_xaxes(title="LBA (the last sector each probe reads)", range=[lo - 20, hi])
    fig.update_yaxes(title="time beyond T(1) + (N−1)·sector time (ms)",
                     range=[-0.15 * ymax, ymax])
    apply_theme(fig, height=540)
    # two columns: the long legend entries would otherwise take a row each
    fig.update_layout(legend=dict(entrywidth=0.5, entrywidthmode="fraction"))
    return fig


# -- video server and LFS ---------------------------------------------------------


def video_figure(streams: Sequence[int], aligned_ms: Sequence[float],
                 unaligned_ms: Sequence[float], round_ms: float = 500.0) -> go.Figure:
    """99.99th-percentile round time against streams per disk, with the round's deadline."""
    fig = go.Figure([
        go.Scatter(x=list(streams), y=list(aligned_ms), mode="lines+markers",
                   name="track-aligned (one track each)", line=dict(color=ALIGNED, width=2.5)),
        go.Scatter(x=list(streams), y=list(unaligned_ms), mode="lines+markers",
                   name="unaligned (264 KB anywhere)", line=dict(color=UNALIGNED, width=2.5)),
        go.Scatter(x=[min(streams), max(streams)], y=[round_ms, round_ms], mode="lines",
                   name=f"round: {round_ms:.0f} ms", line=dict(color=MAXLINE, dash="dot")),
    ])
    fig.update_xaxes(title="streams per disk (V requests per round)")
    fig.update_yaxes(title="round time met by 99.99% of rounds (ms)", rangemode="tozero")
    fig.update_layout(title="Soft real-time video: how many streams fit in a 0.5 s round")
    return apply_theme(fig)


def lfs_figure(lfs: dict) -> go.Figure:
    """Transfer inefficiency of LFS segment writes against segment size (Figure 10's TI part)."""
    x = lfs["segment_kib"]
    fig = go.Figure([
        go.Scatter(x=x, y=lfs["ti_model_curve"], mode="lines", name="model: 5.2 ms × 40 MB/s",
                   line=dict(color=MAXLINE, dash="dash")),
        go.Scatter(x=x, y=lfs["ti_aligned_curve"], mode="lines+markers",
                   name="simulated, track-aligned", line=dict(color=ALIGNED, width=2.5)),
        go.Scatter(x=x, y=lfs["ti_unaligned_curve"], mode="lines+markers",
                   name="simulated, unaligned", line=dict(color=UNALIGNED, width=2.5)),
    ])
    fig.update_xaxes(title="segment size (KB)", type="log", tickvals=x,
                     ticktext=[f"{v:g}" for v in x])
    fig.update_yaxes(title="transfer inefficiency (actual / ideal time)", rangemode="tozero")
    fig.update_layout(title="LFS: segment write time over the ideal 40 MB/s time")
    return apply_theme(fig)
