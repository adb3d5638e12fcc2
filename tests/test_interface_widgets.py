"""The interface and cache chapters' live explorers, driven in the kernel."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")
from simcore.drive.interface import Port
from simcore.widgets.cache import cache_explorer
from simcore.widgets.interface import interface_explorer


def test_interface_explorer_switches_from_pio_to_dma():
    ex = interface_explorer("pio4", kib=16)
    pio_cpu = ex.request.cpu_ms
    pio = {t.name: len(t.x) for t in ex.timeline.data}
    assert pio["PIO: CPU moves the words"] > 0 and ex.request.interrupts == 32
    ex.mode.value = "udma2"
    dma = {t.name: len(t.x) for t in ex.timeline.data}
    assert dma["PIO: CPU moves the words"] == 0 and dma["data on the cable"] > 0
    assert ex.request.interrupts == 1 and ex.request.cpu_ms < pio_cpu / 20
    assert "Ultra DMA mode 2" in ex.timeline.layout.title.text
    assert ex.rate.hog_pct > 80


def test_interface_explorer_multcount_cuts_interrupts():
    ex = interface_explorer("pio4", kib=64)
    ex.multcount.value = 16
    assert ex.request.interrupts == 64 * 2 // 16
    assert ex.port == Port.of("pio4", multcount=16)


def test_cache_explorer_cliff_follows_the_segments():
    ex = cache_explorer(segments=4, segment_kib=128)
    hr = dict(zip([1, 2, 3, 4, 6, 8, 12, 16], ex.hit_rate, strict=True))
    assert hr[4] > 0.8 and hr[6] < 0.05
    ex.segments.value = 8
    hr = dict(zip([1, 2, 3, 4, 6, 8, 12, 16], ex.hit_rate, strict=True))
    assert hr[8] > 0.8 and hr[12] < 0.05
    assert ex.figure.data[0].y[-1] == pytest.approx(ex.hit_rate[-1])
    assert ex.figure.layout.shapes[0].x0 == 8
