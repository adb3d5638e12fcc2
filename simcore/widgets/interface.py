"""Live explorer for the host-interface chapter: pick a mode, see one request and the CPU.

It only connects ipywidgets controls to :mod:`simcore.viz.interface`; every number comes
from the simulator (:mod:`simcore.host_io`). Open it in JupyterLab or Binder::

    from simcore.widgets.interface import interface_explorer
    interface_explorer()                                      # PIO mode 4, 16-bit I/O
    interface_explorer("pio2", kib=32, multcount=8, io32=True)  # opens on a given port
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ipywidgets as w

from ..drive.interface import Port, mode
from ..host import io as host_io
from ..viz.interface import style_timeline, timeline_traces
from ..viz.theme import apply_theme
from .figure import FigureWidget, computing, fit_screen, set_traces

MODES = ["pio0", "pio1", "pio2", "pio3", "pio4", "mwdma0", "mwdma1", "mwdma2", "udma0",
         "udma1", "udma2", "udma4", "udma5"]
MULTCOUNTS = [1, 2, 4, 8, 16]
SIZES_KIB = [4, 8, 16, 32, 64, 128, 256]
OPS = ["R", "W"]


def _choice(name: str, value: Any, options: Sequence[Any]) -> Any:
    """``value`` as the option it equals; a ValueError naming it and the options otherwise."""
    for o in options:
        if value == o and type(value) is not bool:
            return o
    raise ValueError(f"interface_explorer: {name}={value!r} is not one of "
                     f"{', '.join(map(repr, options))}")


class InterfaceExplorer(w.VBox):
    """One read or write under a chosen mode: CPU, bus and media lanes, plus hdparm-like rates.

    The keyword arguments are the controls' initial settings (a lab opens it on the student's
    port); the defaults are PIO mode 4, multcount 1, 16-bit I/O, a 64 KiB read.
    """

    def __init__(self, mode_name: str = "pio4", kib: int = 64, disk: str = "maxtor92048u8", *,
                 multcount: int = 1, io32: bool = False, op: str = "R"):
        mode_name = _choice("mode_name", mode_name, MODES)
        kib = _choice("kib", kib, SIZES_KIB)
        multcount = _choice("multcount", multcount, MULTCOUNTS)
        op = _choice("op", op, OPS)
        if io32 not in (True, False):
            raise ValueError(f"interface_explorer: io32={io32!r} is not True or False")
        self.disk = disk
        self.mode = w.Dropdown(options=[(mode(m).label, m) for m in MODES], value=mode_name,
                               description="mode")
        self.multcount = w.Dropdown(options=MULTCOUNTS, value=multcount,
                                    description="multcount", tooltip="hdparm -m")
        self.io32 = w.Checkbox(value=bool(io32), description="32-bit I/O (hdparm -c1)")
        self.kib = w.SelectionSlider(options=SIZES_KIB, value=kib,
                                     description="KiB", continuous_update=False)
        self.op = w.ToggleButtons(options=[("read", "R"), ("write", "W")], value=op)
        self.info = w.HTML()
        self.timeline = FigureWidget()
        apply_theme(self.timeline, height=340)
        for c in (self.mode, self.multcount, self.io32, self.kib, self.op):
            c.observe(self._redraw, "value")
        super().__init__([w.HBox([self.mode, self.multcount, self.io32]),
                          w.HBox([self.kib, self.op]), self.timeline, self.info])
        self.busy = fit_screen(self)
        self._redraw()

    @property
    def port(self) -> Port:
        return Port.of(self.mode.value, multcount=self.multcount.value, io32=self.io32.value)

    @computing
    def _redraw(self, *_):
        port = self.port
        self.request = host_io.one_request(self.disk, port, kib=self.kib.value, op=self.op.value,
                                           lba=2_000_000)
        self.rate = host_io.hdparm_t(self.disk, port, size_mib=2, hog=True)
        traces = timeline_traces(self.request)
        with self.timeline.batch_update():
            set_traces(self.timeline, traces)
            style_timeline(self.timeline, f"one {self.kib.value} KiB "
                           f"{'read' if self.op.value == 'R' else 'write'} in {port.mode.label}",
                           x_max=self.request.elapsed_ms * 1.02)
        cpu_one = self.request.cpu_ms
        self.info.value = (
            f"<b>{port.mode.label}</b>: burst rate {port.mode.rate_mb_s:.1f} MB/s; this request "
            f"took {self.request.elapsed_ms:.2f} ms and {cpu_one:.2f} ms of CPU "
            f"({self.request.interrupts} interrupts).<br>"
            f"Sequential reads (hdparm -t, 2 MiB): <b>{self.rate.mib_s:.2f} MiB/s</b>, CPU busy "
            f"{self.rate.cpu_pct:.0f}%; a CPU-bound job running beside them gets "
            f"<b>{self.rate.hog_pct:.0f}%</b> of the CPU.")


def interface_explorer(mode_name: str = "pio4", kib: int = 64, *, multcount: int = 1,
                       io32: bool = False, op: str = "R") -> InterfaceExplorer:
    """The chapter's live explorer (a widget: display it as the last line of a cell).

    It opens on mode ``mode_name``, ``multcount`` sectors per interrupt (``hdparm -m``), 32-bit
    I/O if ``io32`` (``hdparm -c1``) and one ``kib`` KiB read (``op="R"``) or write (``"W"``);
    a value the controls do not offer raises a ValueError naming it.
    """
    return InterfaceExplorer(mode_name, kib, multcount=multcount, io32=io32, op=op)
