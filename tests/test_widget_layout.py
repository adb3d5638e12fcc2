"""The live explorers' figures get the book's layout pass (simcore.viz.layout.fit_layout)."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

import plotly.graph_objects as go

from simcore.viz.layout import fit_layout
from simcore.viz.scheduling import race_cdf_traces, style_race_cdf
from simcore.viz.theme import apply_theme
from simcore.widgets.figure import FigureWidget, set_traces
from simcore.widgets.scheduling import scheduler_race

LONG = ("A title long enough to need two lines in the book, since plotly does not wrap titles "
        "at all")


def _static_twin(traces, title: str, **layout) -> dict:
    fig = go.Figure(traces)
    apply_theme(fig)
    fig.update_layout(title_text=title, **layout)
    return fit_layout(fig).layout.to_plotly_json()


def _traces():
    return [go.Scatter(x=[1, 2], y=[1, 2], name="one"), go.Scatter(x=[1, 2], y=[2, 1], name="two")]


def test_a_live_figure_has_the_layout_its_static_twin_gets_from_show():
    fig = FigureWidget()
    sent: list[dict] = []
    fig.observe(lambda c: c.new and sent.append(c.new), "_py2js_update")
    with fig.batch_update():
        set_traces(fig, _traces())
        apply_theme(fig)
        fig.update_layout(title_text=LONG)
    assert fig.layout.to_plotly_json() == _static_twin(_traces(), LONG)
    assert fig.layout.title.text.count("<br>") == 1 and fig.layout.legend.yref == "container"
    # the fitting travels with the update: one message, the wrapped title in it
    keys = sent[-1]["layout_data"]
    assert "<br>" in str(keys.get("title.text", keys.get("title")))


def test_a_new_title_outside_a_batch_is_fitted_too():
    fig = FigureWidget(_traces())
    apply_theme(fig)
    fig.layout.title.text = LONG
    assert fig.layout.to_plotly_json() == _static_twin(_traces(), LONG)


def test_a_figure_with_its_own_width_wraps_its_title_for_that_width():
    fig = FigureWidget(_traces())
    apply_theme(fig)
    fig.update_layout(title_text="accelerate 1.23 + coast 2.34 + decelerate 1.11 + settle 0.50 ms",
                      width=520)
    assert fig.layout.title.text.count("<br>") == 1
    assert fig.layout.to_plotly_json() == _static_twin(
        _traces(), "accelerate 1.23 + coast 2.34 + decelerate 1.11 + settle 0.50 ms", width=520)


def test_log_ticks_follow_the_data_of_a_live_figure():
    fig = FigureWidget()
    with fig.batch_update():
        set_traces(fig, [go.Scatter(x=[0.01, 100.0], y=[1, 2])])
        fig.update_xaxes(type="log")
    assert fig.layout.xaxis.dtick == 1  # four decades: decades only
    with fig.batch_update():
        set_traces(fig, [go.Scatter(x=[10.0, 300.0], y=[1, 2])])
    assert fig.layout.xaxis.dtick == "D2" and fig.layout.xaxis.minor.dtick is None


def test_the_scheduler_race_cdf_matches_the_builder_after_a_change():
    ex = scheduler_race(policies=("fcfs", "sstf"), n=100)
    ex.rate.value = 60.0
    title = f"{ex.n.value} requests at {ex.rate.value:g}/s, {ex.mech.profile.name}"
    static = style_race_cdf(go.Figure(race_cdf_traces(ex.results)))
    static.update_layout(title_text=title, width=480)
    assert ex.cdf.layout.to_plotly_json() == fit_layout(static).layout.to_plotly_json()
    assert ex.cdf.layout.legend.yref == "container"  # under the title, not on it
