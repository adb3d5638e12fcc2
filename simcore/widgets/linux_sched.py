"""Live explorers for "The Linux I/O schedulers": anticipation and deadline timelines.

Open them in JupyterLab or Binder::

    from simcore.widgets.linux_sched import anticipation_explorer, deadline_explorer
    anticipation_explorer()
"""

from __future__ import annotations

import ipywidgets as w

from ..experiments.linux_schedulers import DEVICES, deadline_trace, timeline
from ..sched.linux import names
from ..viz.linux_sched import dispatch_order_traces, style_timeline, timeline_traces
from ..viz.theme import apply_theme
from .figure import FigureWidget, computing, fit_screen, set_traces


class AnticipationExplorer(w.VBox):
    """Sequential readers on one disk or an array: who gets the disk, and when it idles."""

    def __init__(self, elevator: str = "anticipatory", readers: int = 3, think_ms: float = 0.5,
                 antic_expire: float = 6.0, device: str = "one disk", window_ms: float = 150.0):
        self.elevator = w.Dropdown(options=names(), value=elevator, description="scheduler")
        self.device = w.Dropdown(options=list(DEVICES), value=device, description="device")
        self.readers = w.IntSlider(value=readers, min=1, max=8, description="readers",
                                   continuous_update=False)
        self.think = w.FloatSlider(value=think_ms, min=0.0, max=12.0, step=0.5,
                                   description="think (ms)", continuous_update=False)
        self.antic = w.FloatSlider(value=antic_expire, min=0.0, max=20.0, step=1.0,
                                   description="wait (ms)", continuous_update=False,
                                   tooltip="antic_expire (anticipatory) or slice_idle (bfq)")
        self.window = window_ms
        self.info = w.HTML()
        self.figure = FigureWidget()
        for c in (self.elevator, self.device, self.readers, self.think, self.antic):
            c.observe(self._redraw, "value")
        super().__init__([w.HBox([self.elevator, self.device]),
                          w.HBox([self.readers, self.think, self.antic]),
                          self.info, self.figure])
        self.busy = fit_screen(self)
        self._redraw()

    def _tunables(self) -> dict:
        if self.elevator.value == "anticipatory":
            return {"antic_expire": self.antic.value}
        if self.elevator.value == "bfq":
            return {"slice_idle": self.antic.value}
        return {}

    @computing
    def _redraw(self, *_):
        self.run = timeline(self.elevator.value, readers=self.readers.value,
                            think_ms=self.think.value, device=self.device.value,
                            **self._tunables())
        labels = {p: f"reader {k + 1}" for k, p in enumerate(self.run["pids"])}
        with self.figure.batch_update():
            set_traces(self.figure, timeline_traces(self.run["events"], self.run["pids"], self.window,
                                      labels))
            style_timeline(self.figure, f"{self.elevator.value} on {self.device.value}: "
                                        f"the first {self.window:g} ms", self.window)
        st = self.run["stats"]
        extra = ""
        if st:
            extra = " &nbsp; waits: " + ", ".join(f"{k.replace('_', ' ')} {v}"
                                                   for k, v in st.items())
        self.info.value = f"<b>{self.run['mb_s']:.1f} MB/s</b> for all readers together{extra}"


class DeadlineExplorer(w.VBox):
    """deadline's knobs on a mixed load: who is served when, and which deadlines expire."""

    def __init__(self, elevator: str = "deadline"):
        self.elevator = elevator
        self.fifo_batch = w.IntSlider(value=16, min=1, max=64, description="fifo_batch",
                                      continuous_update=False)
        self.writes_starved = w.IntSlider(value=2, min=1, max=8, description="writes_starved",
                                          continuous_update=False)
        self.read_expire = w.IntSlider(value=500, min=20, max=1000, step=20,
                                       description="read_expire", continuous_update=False)
        self.info = w.HTML()
        self.figure = FigureWidget()
        for c in (self.fifo_batch, self.writes_starved, self.read_expire):
            c.observe(self._redraw, "value")
        super().__init__([w.HBox([self.fifo_batch, self.writes_starved, self.read_expire]),
                          self.info, self.figure])
        self.busy = fit_screen(self)
        self._redraw()

    @computing
    def _redraw(self, *_):
        self.events = deadline_trace(self.fifo_batch.value, self.writes_starved.value,
                                     self.read_expire.value, elevator=self.elevator)
        with self.figure.batch_update():
            set_traces(self.figure, dispatch_order_traces(self.events))
            self.figure.update_layout(title_text="deadline's dispatches: time against sector")
            self.figure.update_xaxes(title="time (ms)")
            self.figure.update_yaxes(title="sector")
            apply_theme(self.figure, height=420)
        sent = [e for e in self.events if e.kind == "dispatch"]
        by = {p: sum(e.pid == p for e in sent) for p in (1, 2, 3)}
        expired = sum(e.kind == "expired" for e in self.events)
        self.info.value = (f"dispatched: streaming reader {by[1]}, random reader {by[2]}, "
                           f"writeback {by[3]}; served because a deadline expired: {expired}")


def anticipation_explorer(**kwargs) -> AnticipationExplorer:
    return AnticipationExplorer(**kwargs)


def deadline_explorer(**kwargs) -> DeadlineExplorer:
    return DeadlineExplorer(**kwargs)
