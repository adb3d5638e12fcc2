"""The interface and cache chapters' live explorers, driven in the kernel."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")
from simcore.drive.interface import Port
from simcore.host import io as host_io
from simcore.viz.interface import timeline_traces
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


def test_interface_explorer_opens_on_the_given_port():
    """A lab opens it on the student's port: controls, request, figure and text all follow."""
    ex = interface_explorer("pio2", kib=32, multcount=8, io32=True, op="W")
    assert (ex.mode.value, ex.kib.value, ex.multcount.value, ex.io32.value, ex.op.value) == (
        "pio2", 32, 8, True, "W")
    port = Port.of("pio2", multcount=8, io32=True)
    assert ex.port == port
    want = host_io.one_request(ex.disk, port, kib=32, op="W", lba=2_000_000)
    assert ex.request.interrupts == 32 * 2 // 8 == want.interrupts
    assert ex.request.cpu_ms == pytest.approx(want.cpu_ms)
    shown = {t.name: (tuple(t.x), tuple(t.y)) for t in ex.timeline.data}
    assert shown == {t.name: (tuple(t.x), tuple(t.y)) for t in timeline_traces(want)}
    assert ex.timeline.layout.title.text.startswith("one 32 KiB write in PIO mode 2")
    assert f"{want.cpu_ms:.2f} ms of CPU (8 interrupts)" in ex.info.value
    # 32-bit I/O halves the port reads: the same request with 16-bit I/O costs more CPU
    ex.io32.value = False
    assert ex.request.cpu_ms > want.cpu_ms


def test_interface_explorer_defaults_unchanged():
    ex = interface_explorer()
    assert (ex.mode.value, ex.kib.value, ex.multcount.value, ex.io32.value, ex.op.value) == (
        "pio4", 64, 1, False, "R")


@pytest.mark.parametrize(("kw", "named"), [
    ({"mode_name": "udma3"}, "mode_name='udma3'"), ({"kib": 100}, "kib=100"),
    ({"multcount": 3}, "multcount=3"), ({"io32": "yes"}, "io32='yes'"),
    ({"op": "read"}, "op='read'")])
def test_interface_explorer_rejects_settings_it_cannot_show(kw, named):
    with pytest.raises(ValueError, match=named):
        interface_explorer(**kw)


def test_cache_explorer_cliff_follows_the_segments():
    ex = cache_explorer(segments=4, segment_kib=128)
    hr = dict(zip([1, 2, 3, 4, 6, 8, 12, 16], ex.hit_rate, strict=True))
    assert hr[4] > 0.8 and hr[6] < 0.05
    ex.segments.value = 8
    hr = dict(zip([1, 2, 3, 4, 6, 8, 12, 16], ex.hit_rate, strict=True))
    assert hr[8] > 0.8 and hr[12] < 0.05
    assert ex.figure.data[0].y[-1] == pytest.approx(ex.hit_rate[-1])
    assert ex.figure.layout.shapes[0].x0 == 8
