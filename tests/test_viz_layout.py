"""The last layout pass (simcore.viz.layout.fit_layout): log ticks, title and legend, margins."""

from __future__ import annotations

import plotly.graph_objects as go

from simcore.viz import apply_theme, frames_figure, legend_below
from simcore.viz.layout import fit_layout, tidy_log_axes, wrap_title


def _bars(ys: list[float]) -> go.Figure:
    fig = go.Figure([go.Bar(x=list("abcd")[: len(ys)], y=ys, name="one"),
                     go.Bar(x=list("abcd")[: len(ys)], y=ys, name="two")])
    fig.update_yaxes(type="log", dtick="D2")
    return fig


def test_a_log_axis_over_one_or_two_decades_gets_full_1_2_5_labels():
    ax = tidy_log_axes(_bars([150.0, 400.0, 3000.0])).layout.yaxis
    assert ax.dtick == "D2" and ax.tickformat  # a tickformat makes plotly print 200, not "2"


def test_a_log_axis_over_many_decades_shows_only_decades():
    ax = tidy_log_axes(_bars([0.01, 1.0, 5000.0])).layout.yaxis
    assert ax.dtick == 1 and ax.minor.dtick == "D1"


def test_ticks_the_builder_chose_are_kept():
    fig = _bars([1.0, 2.0, 32.0])
    fig.update_yaxes(tickvals=[1, 2, 4, 8, 16, 32], dtick=None)
    assert tidy_log_axes(fig).layout.yaxis.dtick is None


def test_frames_count_for_the_log_span():
    fig = frames_figure([1, 10_000], lambda v: [go.Scatter(x=[1, 2], y=[1, v])], label="v")
    fig.update_yaxes(type="log")
    assert tidy_log_axes(fig).layout.yaxis.dtick == 1


def test_the_legend_sits_under_the_title_and_the_margin_fits_them():
    fig = apply_theme(_bars([1.0, 2.0]))
    fig.update_layout(title="A title long enough to need two lines in the book, since plotly does not "
                            "wrap titles at all")
    fit_layout(fig)
    lay = fig.layout
    assert lay.title.text.count("<br>") == 1
    assert lay.legend.yref == "container" and lay.legend.yanchor == "top"
    title_bottom = (1 - lay.title.y) * lay.height + 0.5 * 17 * 1.3 * 2
    assert (1 - lay.legend.y) * lay.height >= title_bottom
    assert lay.margin.t >= (1 - lay.legend.y) * lay.height + 20


def test_no_title_and_no_legend_leave_a_small_top_margin():
    fig = apply_theme(go.Figure(go.Scatter(x=[1, 2], y=[1, 2])))
    assert fit_layout(fig).layout.margin.t <= 30


def test_fitting_twice_changes_nothing():
    fig = apply_theme(_bars([1.0, 2.0]))
    fig.update_layout(title="Short")
    once = fit_layout(fig).to_plotly_json()
    assert fit_layout(fig).to_plotly_json() == once


def test_slider_end_labels_stay_inside_the_figure():
    fig = frames_figure(["sequential", "mixed, protected"], lambda v: [go.Scatter(y=[1, 2])],
                        label="workload")
    apply_theme(fig)
    fig.update_xaxes(title="x")
    slider = fit_layout(fig).layout.sliders[0]
    assert slider.x + slider.len < 1 and slider.pad.t >= 58


def test_wrap_title_keeps_short_and_prewrapped_titles():
    assert wrap_title("Short") == "Short"
    assert wrap_title("a<br>b" * 40) == "a<br>b" * 40


def test_a_bottom_legend_gets_a_row_of_margin_per_row_it_takes():
    fig = go.Figure([go.Scatter(y=[1, 2], name=f"a long trace name, number {i} of seven, with detail")
                     for i in range(7)])
    apply_theme(fig)
    fig.update_xaxes(title="x")
    legend_below(fig, rows=1)
    assert fit_layout(fig).layout.margin.b >= 72 + 21 * 7


def test_numpy_and_typed_array_data_count_for_the_span():
    import numpy as np

    fig = go.Figure(go.Scatter(x=np.geomspace(1.5, 1e5, 50), y=np.linspace(0, 1, 50)))
    fig.update_xaxes(type="log")
    assert tidy_log_axes(fig).layout.xaxis.dtick == 1
    again = go.Figure(fig.to_plotly_json())  # x comes back as {"dtype": ..., "bdata": ...}
    again.update_xaxes(dtick=None, minor=None)
    assert tidy_log_axes(again).layout.xaxis.dtick == 1
