"""Figures for the validation chapter: measured against simulated service-time CDFs."""

from __future__ import annotations

import plotly.graph_objects as go

from .theme import apply_theme, legend_below


def cdf_figure(result: dict, height: int = 460) -> go.Figure:
    """One pair of CDFs per drive (measured solid, simulated dashed); a menu picks the drive.

    ``result`` is :func:`simcore.experiments.validation.reproduce`'s output. The title
    names the drive, its demerit and DiskSim's, so each view states its own numbers.
    """
    drives = result["drives"]
    fig = go.Figure()
    names = list(drives)
    for i, d in enumerate(names):
        c = drives[d]["cdf"]
        fig.add_trace(go.Scatter(x=c["measured_ms"], y=c["p"], name="measured on the drive",
                                 line=dict(width=3), visible=i == 0))
        fig.add_trace(go.Scatter(x=c["simulated_ms"], y=c["p"], name="simcore",
                                 line=dict(width=2, dash="dash"), visible=i == 0))

    def title(d: str) -> str:
        r = drives[d]
        return (f"{r['name']}: demerit {r['demerit_ms']:.4f} ms "
                f"(DiskSim {r['disksim_demerit_ms']:.3f} ms)")

    buttons = []
    for i, d in enumerate(names):
        vis = [j // 2 == i for j in range(2 * len(names))]
        buttons.append(dict(label=drives[d]["name"], method="update",
                            args=[{"visible": vis}, {"title.text": title(d)}]))
    apply_theme(fig, height=height)
    fig.update_layout(title=dict(text=title(names[0])),
                      xaxis_title="service time per request (ms)",
                      yaxis_title="fraction of requests",
                      updatemenus=[dict(type="dropdown", direction="down", buttons=buttons,
                                        x=0.0, xanchor="left", y=1.02, yanchor="bottom",
                                        showactive=True, pad=dict(t=0, b=4))])
    # a drop-down fits a phone where a row of five buttons does not; the legend goes under the
    # plot, clear of the menu
    return legend_below(fig, rows=1)


def demerit_figure(result: dict, height: int = 380) -> go.Figure:
    """simcore's demerit beside DiskSim's and the bare mechanism's, per drive (log scale)."""
    drives = result["drives"]
    names = [drives[d]["name"] for d in drives]
    fig = go.Figure([
        go.Bar(name="simcore, whole firmware", x=names,
               y=[drives[d]["demerit_ms"] for d in drives]),
        go.Bar(name="DiskSim 4.0 (the target)", x=names,
               y=[drives[d]["disksim_demerit_ms"] for d in drives]),
        go.Bar(name="simcore, bare mechanism", x=names,
               y=[drives[d]["bare_demerit_ms"] for d in drives]),
    ])
    apply_theme(fig, height=height)
    fig.update_layout(barmode="group", yaxis_type="log", yaxis_title="demerit (ms, log scale)",
                      title=dict(text="Demerit per drive: lower is closer to the real drive"))
    return fig
