"""The explorers' FigureWidget: light state, no rejected relayouts, few redraws; lab settings."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import plotly.graph_objects as go

from simcore.viz.theme import apply_theme
from simcore.widgets.figure import BUNDLE, FigureWidget, merge_relayout, set_traces

ROOT = Path(__file__).resolve().parent.parent


def _messages(fig: FigureWidget) -> list[tuple[str, dict]]:
    sent: list[tuple[str, dict]] = []
    for name in ("_py2js_update", "_py2js_relayout", "_py2js_addTraces", "_py2js_deleteTraces",
                 "_py2js_restyle"):
        fig.observe(lambda c, n=name: c.new and sent.append((n, c.new)), name)
    return sent


def test_the_widget_state_does_not_carry_plotly_js():
    fig = FigureWidget()
    fig.add_scatter(y=[1, 2, 3])
    state = json.dumps(fig.get_state(), default=str)
    assert BUNDLE.stat().st_size > 1_000_000  # what go.FigureWidget would carry
    assert len(fig._esm) < 5_000 and len(state) < 50_000
    assert len(go.FigureWidget()._esm) > 1_000_000


def test_a_reloaded_page_gets_the_figure_as_it_is_now():
    """JupyterLab asks for a widget's whole state again when the page is reloaded. plotly
    sends its changes as messages and left the state's figure as first made (an explorer's
    often empty): the page then drew that and applied later restyles to it."""
    fig = FigureWidget()
    with fig.batch_update():
        fig.add_trace(go.Scatter(x=[1, 2], y=[3, 4], name="a"))
        fig.add_trace(go.Bar(x=[1], y=[5], name="b"))
        fig.layout.title = "now"
    fig.data[0].y = [7, 8]
    state = fig.get_state()
    assert [t["name"] for t in state["_widget_data"]] == ["a", "b"]
    assert list(state["_widget_data"][0]["y"]) == [7, 8]
    assert state["_widget_layout"]["title"]["text"] == "now"
    assert fig.get_state(key="_widget_data")["_widget_data"][1]["type"] == "bar"
    assert "_widget_data" not in fig.get_state(key="_config")


def test_merge_relayout_sends_the_parent_as_the_kernel_has_it():
    layout = go.Layout(title=dict(text="B", x=0.01))
    assert merge_relayout(layout, {"title.x": 0.01, "title": {"text": "B"}, "height": 3}) == {
        "title": {"text": "B", "x": 0.01}, "height": 3}
    assert merge_relayout(layout, {"title.text": "B", "title.x": 0.01}) == {
        "title.text": "B", "title.x": 0.01}


def test_theme_and_title_in_one_batch_send_no_parent_with_its_child():
    """The stale-title bug: plotly.js rejects {'title.x': .., 'title': ..} as a whole."""
    fig = FigureWidget()
    sent = _messages(fig)
    with fig.batch_update():
        fig.add_scatter(y=[1, 2])
    for text in ("first", "second"):
        with fig.batch_update():
            fig.data[0].y = [3, 4] if text == "second" else [1, 2]
            apply_theme(fig)
            fig.update_layout(title=text)
    assert fig.layout.title.text == "second"
    layouts = [m.get("layout_data") or m.get("relayout_data") or {} for _, m in sent]
    for keys in layouts:
        parents = [k for k in keys for other in keys if other.startswith(k + ".")]
        assert not parents, f"parent and child together: {sorted(keys)}"
    assert any("title" in k for k in layouts[-1]), layouts[-1]


def test_set_traces_restyles_in_place_and_replaces_only_when_the_kinds_change():
    fig = FigureWidget()
    set_traces(fig, [go.Scatter(y=[1, 2], name="a"), go.Bar(y=[3], name="b")])
    sent = _messages(fig)
    with fig.batch_update():
        set_traces(fig, [go.Scatter(y=[5, 6], name="a"), go.Bar(y=[3], name="b2")])
    assert [n for n, _ in sent] == ["_py2js_update"]  # one message, one redraw
    assert fig.data[0].y == (5, 6) and fig.data[1].name == "b2"
    sent.clear()
    with fig.batch_update():
        set_traces(fig, [go.Scatter(y=[5, 6], name="a")])
    assert [n for n, _ in sent] == ["_py2js_deleteTraces", "_py2js_addTraces"]
    assert len(fig.data) == 1 and fig.data[0].name == "a"
    sent.clear()
    set_traces(fig, [go.Scatter(y=[5, 6], name="a", mode="lines")])
    set_traces(fig, [go.Scatter(y=[5, 6], name="a")])  # a property the new trace lacks goes
    assert fig.data[0].mode is None


def test_lab_setup_writes_the_viewer_and_the_static_path(tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    import lab_setup

    server = tmp_path / "etc" / "jupyter" / "jupyter_server_config.json"
    server.parent.mkdir(parents=True)
    server.write_text(json.dumps({"ServerApp": {"extra_static_paths": ["/mine"]}, "Other": 1}))
    lab_setup.apply(tmp_path)
    lab_setup.apply(tmp_path)  # idempotent
    config = json.loads(server.read_text())
    paths = config["ServerApp"]["extra_static_paths"]
    assert config["Other"] == 1 and paths[0] == "/mine" and len(paths) == 2
    assert (Path(paths[1]) / "widgetbundle.js").exists()
    overrides = json.loads((tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.d"
                            / "disklab.json").read_text())
    viewers = overrides["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
    assert viewers["markdown"] == viewers["myst"] == "Jupytext Notebook"


def test_every_chapter_live_part_is_cells_one_explorer_each():
    import jupytext

    for md in sorted((ROOT / "book").glob("*.md")):
        text = md.read_text()
        if "## Explore it live" not in text:
            continue
        nb = jupytext.read(md)
        live = [c for c in nb.cells if "skip-execution" in c.metadata.get("tags", [])]
        assert live, f"{md.name}: the live part has no skip-execution code cells"
        for cell in live:
            calls = [ln for ln in cell.source.splitlines()
                     if ln.split("#")[0].strip().endswith(")") and "import" not in ln
                     and not ln.startswith(" ")]
            assert len(calls) == 1, f"{md.name}: one explorer per cell, got {calls}"
        live_part = text.split("## Explore it live", 1)[1].split("\n## ", 1)[0]
        assert "```python" not in live_part, f"{md.name}: a plain code block in the live part"
