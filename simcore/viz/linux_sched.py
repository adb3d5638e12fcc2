"""Figures for "The Linux I/O schedulers": timelines of the block layer (dispatches,
completions, anticipation windows), deadline's dispatch order, and the
reproduction of Pratt & Heger 2004 beside the paper's numbers.

Builders take :class:`simcore.host.TraceEvent` lists or experiment results and
return plotly traces or figures; they never run the simulator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from .theme import COLORS, apply_theme

ELEVATOR_COLORS = {"noop": COLORS[7], "none": COLORS[7], "deadline": COLORS[0],
                   "mq-deadline": COLORS[0], "anticipatory": COLORS[1], "bfq": COLORS[1],
                   "cfq": COLORS[2], "kyber": COLORS[3]}
_WAIT_START = {"antic-start": "antic-stop", "idle-start": "idle-stop"}


def _spans(events, pids: Sequence[int] | None):
    """(pid, dispatch, done, lba) per request, and (start, stop, how) per idle window."""
    sent, spans, idle, open_idle = {}, [], [], None
    for e in events:
        if e.kind == "dispatch":
            sent[e.rq] = e
        elif e.kind == "done" and e.rq in sent:
            d = sent.pop(e.rq)
            spans.append((d.pid, d.time_ms, e.time_ms, d.lba))
        elif e.kind in _WAIT_START:
            open_idle = e.time_ms
        elif e.kind in _WAIT_START.values() and open_idle is not None:
            idle.append((open_idle, e.time_ms, e.note))
            open_idle = None
    known = list(pids) if pids is not None else sorted({s[0] for s in spans})
    return spans, idle, known


def timeline_traces(events, pids: Sequence[int] | None = None, until_ms: float | None = None,
                    labels: Mapping[int, str] | None = None) -> list[go.Bar]:
    """A Gantt chart: one row per process, a bar from dispatch to completion per request,
    and a shaded row of deliberate idle windows (anticipation or BFQ idling).

    ``pids`` fixes the rows (and the number of traces, for slider frames).
    """
    spans, idle, known = _spans(events, pids)
    if until_ms is not None:
        spans = [s for s in spans if s[1] <= until_ms]
        idle = [w for w in idle if w[0] <= until_ms]
    labels = labels or {}
    traces = []
    for k, pid in enumerate(known):
        mine = [s for s in spans if s[0] == pid]
        row = labels.get(pid, f"process {pid}")
        traces.append(go.Bar(
            x=[s[2] - s[1] for s in mine], base=[s[1] for s in mine], y=[row] * len(mine),
            orientation="h", name=row, marker_color=COLORS[k % len(COLORS)],
            customdata=[s[3] for s in mine],
            hovertemplate=row + ": %{base:.1f} to %{x:.1f} ms later, LBA %{customdata:,}"
                                "<extra></extra>"))
    traces.append(go.Bar(
        x=[w[1] - w[0] for w in idle], base=[w[0] for w in idle], y=["disk idles on purpose"] *
        len(idle), orientation="h", name="idle on purpose", marker_color="#bbb",
        customdata=[w[2] for w in idle],
        hovertemplate="waited %{x:.2f} ms (%{customdata})<extra></extra>"))
    return traces


def timeline_figure(events, title: str, pids: Sequence[int] | None = None,
                    until_ms: float | None = None, labels: Mapping[int, str] | None = None
                    ) -> go.Figure:
    fig = go.Figure(timeline_traces(events, pids, until_ms, labels))
    return style_timeline(fig, title, until_ms)


def style_timeline(fig: go.Figure, title: str = "", until_ms: float | None = None) -> go.Figure:
    fig.update_layout(barmode="overlay", bargap=0.35)
    if title:
        fig.update_layout(title=title)
    fig.update_xaxes(title="time (ms)", range=[0, until_ms] if until_ms else None)
    fig.update_yaxes(autorange="reversed")
    apply_theme(fig, height=340)
    fig.update_layout(margin=dict(r=50))  # room for the last slider label
    return fig


def dispatch_order_traces(events, read_expire_ms: float | None = None) -> list[go.Scatter]:
    """Deadline's choices: each request's arrival and dispatch (time, sector), reads and writes,
    with the ones served because their deadline expired ringed."""
    queued = {}
    out = {"R": ([], [], []), "W": ([], [], [])}
    waits_x, waits_y = [], []
    expired_x, expired_y = [], []
    last_expired = None
    for e in events:
        if e.kind == "queue":
            queued[e.rq] = e
        elif e.kind == "expired":
            last_expired = e.rq
        elif e.kind == "dispatch" and e.rq in queued:
            q = queued.pop(e.rq)
            op = "W" if (q.note == "W") else "R"
            xs, ys, txt = out[op]
            xs.append(e.time_ms)
            ys.append(e.lba)
            txt.append(f"#{e.rq}, waited {e.time_ms - q.time_ms:.0f} ms")
            waits_x += [q.time_ms, e.time_ms, None]
            waits_y += [q.lba, e.lba, None]
            if last_expired == e.rq:
                expired_x.append(e.time_ms)
                expired_y.append(e.lba)
    traces = [go.Scatter(x=waits_x, y=waits_y, mode="lines", name="waiting",
                         line=dict(color="#ccc", width=1), hoverinfo="skip")]
    for op, name, color in (("R", "read dispatched", COLORS[0]),
                            ("W", "write dispatched", COLORS[1])):
        xs, ys, txt = out[op]
        traces.append(go.Scatter(x=xs, y=ys, mode="markers", name=name, text=txt,
                                 marker=dict(color=color, size=6),
                                 hovertemplate="%{text}<br>sector %{y:,} at %{x:.0f} ms"
                                               "<extra></extra>"))
    traces.append(go.Scatter(x=expired_x, y=expired_y, mode="markers", name="deadline expired",
                             marker=dict(color="rgba(0,0,0,0)", size=13,
                                         line=dict(color="#000", width=1.5)),
                             hovertemplate="expired: served first<extra></extra>"))
    return traces


def scheduler_bars(result: dict, key: str, title: str, unit: str,
                   paper: Mapping[str, float] | None = None, invert_paper: bool = True
                   ) -> go.Figure:
    """Measured values per scheduler, with the paper's relative values beside them.

    ``paper`` holds the paper's run times (seconds, lower is better) per scheduler;
    they are shown as throughput relative to the paper's best (``invert_paper``).
    """
    vals = result[key]
    names = list(vals)
    best = max(vals.values())
    fig = go.Figure([go.Bar(x=names, y=[vals[n] / best for n in names], name="simulated",
                            marker_color=[ELEVATOR_COLORS.get(n, COLORS[0]) for n in names],
                            text=[f"{vals[n]:.1f} {unit}" for n in names],
                            textposition="outside")])
    if paper:
        if invert_paper:
            rel = {n: min(paper.values()) / paper[n] for n in names if n in paper}
        else:
            top = max(paper.values())
            rel = {n: paper[n] / top for n in names if n in paper}
        fig.add_trace(go.Scatter(x=list(rel), y=list(rel.values()), mode="markers",
                                 name="paper (ext3)", marker=dict(symbol="diamond", size=12,
                                                                  color="#000")))
    fig.update_layout(title=title)
    fig.update_yaxes(title="relative to the best", range=[0, 1.25])
    return apply_theme(fig, height=380)


def heads_ratio_figure(result: dict) -> go.Figure:
    """AS / CFQ throughput on 1 disk, a 5-disk RAID-5 and a 28-disk RAID-0: model and paper."""
    sim = result["as_over_cfq"]
    paper = result["paper"]["as_over_cfq"]
    cfgs = list(paper)
    fig = go.Figure([
        go.Bar(x=cfgs, y=[sim[c] for c in cfgs], name="simulated", marker_color=COLORS[1],
               text=[f"{sim[c]:.2f}" for c in cfgs], textposition="outside"),
        go.Bar(x=cfgs, y=[paper[c] for c in cfgs], name="paper (Table 1)",
               marker_color=COLORS[7], text=[f"{paper[c]:.2f}" for c in cfgs],
               textposition="outside"),
    ])
    fig.add_hline(y=1.0, line_dash="dot", line_color="#555",
                  annotation_text="anticipatory = CFQ", annotation_position="top right")
    fig.update_layout(barmode="group",
                      title="Sequential read: anticipatory / CFQ as the heads multiply")
    fig.update_yaxes(title="throughput ratio (log scale)", type="log", range=[-1, 0.6],
                     tickvals=[0.1, 0.2, 0.5, 1, 2, 3], ticktext=["0.1", "0.2", "0.5", "1", "2", "3"])
    return apply_theme(fig, height=400)


def fairness_bars(runs: Mapping[str, dict], title: str) -> go.Figure:
    """Each process's share of the bytes read, grouped by scheduler, with Jain's index under
    each group and a dashed line at the equal share.

    ``runs`` maps a scheduler's label to a
    :func:`simcore.experiments.linux_schedulers.fairness_run` result.
    """
    labels = list(runs)
    procs = list(runs[labels[0]]["shares"])
    ticks = [f"{lab}<br>Jain {runs[lab]['jain']:.2f}" for lab in labels]
    fig = go.Figure([
        go.Bar(x=ticks, y=[runs[lab]["shares"][p] for lab in labels], name=p,
               marker_color=COLORS[k % len(COLORS)],
               customdata=[runs[lab]["mb_s"][p] for lab in labels],
               hovertemplate=p + ": %{y:.1%} of the bytes (%{customdata:.2f} MB/s)"
                                 "<extra></extra>")
        for k, p in enumerate(procs)])
    fig.add_hline(y=1 / len(procs), line_dash="dash", line_color="#555",
                  annotation_text="equal share", annotation_position="top left")
    fig.update_layout(barmode="group", title=title)
    fig.update_yaxes(title="share of the bytes read", tickformat=".0%", range=[0, 1])
    return apply_theme(fig, height=420)
