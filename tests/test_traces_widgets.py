"""Live explorer of the traces chapter: a control changes the figure (kernel test)."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from simcore.widgets.traces import trace_explorer


def test_burst_rule_slider_redraws_the_burst_cdf():
    e = trace_explorer()
    y10 = list(e.bursts.data[0].y)
    e.gap.value = 1.0  # a tighter rule splits bursts: more of them are short
    y1 = list(e.bursts.data[0].y)
    assert y1[0] > y10[0]
    assert "1.0 ms rule" in e.table.value


def test_direction_and_source_switch():
    e = trace_explorer()
    n_all = len(e.arrivals.data[0].x)
    e.op.value = "W"
    assert e.arrivals.data[0].name == e.source.value
    e.source.value = "fio iolog captured here"
    assert "2,400" in e.table.value
    assert len(e.sizes.data) == 1 and list(e.sizes.data[0].x) == ["8"]
    assert n_all > 0
