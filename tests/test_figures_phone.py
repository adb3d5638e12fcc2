"""book/_static/disklab_figures.js on a phone: side-by-side subplots stack, sliders read.

A small page holds figures as the book emits them (``simcore.viz.show`` with ``DISKLAB_BOOK=1``,
fit_layout included), plotly.js and the book's script; headless Chromium opens it 390 px wide,
then widens it to 1280 px.
"""

from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go
import pytest
from plotly.offline import get_plotlyjs
from plotly.subplots import make_subplots

from simcore.viz import apply_theme, frames_figure, show

pytestmark = pytest.mark.browser

SCRIPT = Path(__file__).resolve().parent.parent / "book" / "_static" / "disklab_figures.js"


def _two_panels() -> go.Figure:
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, subplot_titles=("left", "right"))
    for col in (1, 2):
        fig.add_trace(go.Bar(x=["append", "random"], y=[1, col], name=f"s{col}"), row=1, col=col)
        fig.update_xaxes(title=f"x {col}", row=1, col=col)
    apply_theme(fig, height=400)
    fig.update_layout(title="Two panels")
    return fig


def _eight_steps() -> go.Figure:
    fig = frames_figure([1, 2, 4, 8, 16, 32, 64, 128],
                        lambda v: [go.Scatter(x=[1, 2], y=[1, v], name="a")],
                        label="queue depth", fmt=lambda v: f"{v} requests")
    apply_theme(fig)
    fig.layout.sliders[0].currentvalue.visible = False  # a builder that hid it
    return fig


@pytest.fixture
def page(tmp_path, monkeypatch, browser):
    monkeypatch.setenv("DISKLAB_BOOK", "1")
    figs = {"plot-panels": _two_panels(), "plot-steps": _eight_steps()}
    wide = {k: f.layout.to_plotly_json() for k, f in figs.items()}
    body = "".join(show(f, k).data + f'<p id="after-{k}">caption</p>' for k, f in figs.items())
    (tmp_path / "plotly.js").write_text(get_plotlyjs(), encoding="utf-8")
    (tmp_path / "index.html").write_text(
        '<!doctype html><html><head><meta charset="utf-8"><script src="plotly.js"></script>'
        f'</head><body>{body}<script src="file://{SCRIPT}"></script></body></html>',
        encoding="utf-8")
    pg = browser.new_page(viewport={"width": 390, "height": 844})
    pg.goto(f"file://{tmp_path / 'index.html'}")
    yield pg, wide
    pg.close()


STATE = """id => { const gd = document.getElementById(id), L = gd.layout;
  return {narrow: !!gd._disklabNarrow, busy: !!gd._disklabBusy, height: L.height,
          box: gd.parentElement.style.height, t: L.margin.t, b: L.margin.b,
          x: L.xaxis.domain, x2: L.xaxis2 && L.xaxis2.domain, y: L.yaxis.domain,
          y2: L.yaxis2 && L.yaxis2.domain, ticks2: L.yaxis2 && L.yaxis2.showticklabels,
          bottom: gd.getBoundingClientRect().bottom,
          caption: document.getElementById("after-" + id).getBoundingClientRect().top,
          text: gd.textContent}; }"""


def _settled(pg, div: str, narrow: bool) -> dict:
    pg.wait_for_function(
        "([id, n]) => { const gd = document.getElementById(id);"
        " return gd && gd.layout && !!gd._disklabNarrow === n && !gd._disklabBusy; }",
        arg=[div, narrow], timeout=15_000)
    pg.wait_for_timeout(300)  # a bottom-legend refit may follow
    return pg.evaluate(STATE, div)


def test_side_by_side_subplots_stack_on_a_phone_and_come_back_when_wide(page):
    pg, wide = page
    s = _settled(pg, "plot-panels", True)
    assert s["x"] == [0, 1] and s["x2"] == [0, 1]  # each panel as wide as the figure
    assert s["y"][0] > s["y2"][1]  # the left panel above the right one
    plot_px = s["height"] - s["t"] - s["b"]
    assert min(s["y"][1] - s["y"][0], s["y2"][1] - s["y2"][0]) * plot_px >= 200
    assert s["ticks2"] is True  # a shared y axis shows its numbers in its own row
    assert s["box"] == f"{s['height']}px" and s["caption"] >= s["bottom"] - 1  # nothing covered
    pg.set_viewport_size({"width": 1280, "height": 800})
    w = _settled(pg, "plot-panels", False)
    lay = wide["plot-panels"]
    assert w["x"] == list(lay["xaxis"]["domain"]) and w["x2"] == list(lay["xaxis2"]["domain"])
    assert w["y"] == list(lay["yaxis"]["domain"]) and w["height"] == lay["height"]
    assert w["box"] == f"{lay['height']}px" and w["ticks2"] is False


def test_a_slider_shows_its_current_value_on_a_phone(page):
    pg, _ = page
    s = _settled(pg, "plot-steps", True)
    assert "queue depth: 1 requests" in s["text"]
