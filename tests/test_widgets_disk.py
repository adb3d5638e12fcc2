"""The disk chapters' live explorers, driven in the kernel: set a control, check the figure."""

from __future__ import annotations

import pytest

from simcore import Layout, load_disk

pytest.importorskip("ipywidgets")
from simcore.widgets.disk import anatomy_explorer, positioning_explorer


def test_anatomy_explorer_moves_the_sector_marker():
    ex = anatomy_explorer("atlas10k2")
    ex.position.value = 100.0
    layout = Layout(load_disk("atlas10k2"))
    marker = ex.platter.data[-1]
    last = layout.locate(layout.capacity - 1)
    assert marker.theta[0] == pytest.approx(last.angle * 360)
    assert f"cylinder <b>{last.cylinder}</b>" in ex.info.value
    ex.disk.value = "cheetahx15"
    assert "cylinder" in ex.info.value
    assert ex.zones.data[-1].y[0] == pytest.approx(Layout(load_disk("cheetahx15"))
                                                   .media_rate_mb_s(9))


def test_positioning_explorer_phases_and_breakdown():
    ex = positioning_explorer("atlas10k")
    ex.distance.value = 5000
    marker = ex.curve.data[-1]
    assert marker.x[0] == 5000
    assert marker.y[0] == pytest.approx(ex.mech.seek.seek_ms(5000))
    assert "coast" in ex.curve.layout.title.text
    small = dict(ex.parts)
    ex.size_kib.value = 1024
    assert ex.parts["transfer"] == pytest.approx(16 * small["transfer"], rel=0.05)  # 16x the data
    assert ex.parts["rotation"] == pytest.approx(3.0, rel=0.35)
