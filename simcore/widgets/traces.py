"""Live explorer for "Traces: capture, statistics, replay".

Pick a trace (the two synthetic ones, the fio iolog captured for the book, or a
file of your own), a direction and the burst rule, and see the inter-arrival
times, the burst lengths and the sizes change. Open it in JupyterLab or Binder::

    from simcore.widgets.traces import trace_explorer
    trace_explorer()
"""

from __future__ import annotations

from pathlib import Path

import ipywidgets as w
import plotly.graph_objects as go

from ..disk.profile_loader import data_dir
from ..viz.traces import (
    burst_cdf_traces,
    interarrival_cdf_traces,
    size_histogram_traces,
    style_bursts,
    style_interarrival,
    style_sizes,
)
from ..workloads import stats as ts
from ..workloads.synth import database_like, email_like
from ..workloads.traces import read_trace
from .figure import FigureWidget, computing, fit_screen, set_traces

CAP = 80_418_240


def _sources() -> dict[str, object]:
    return {
        "database-like (synthetic)": lambda: database_like(CAP, duration_s=600, seed=0),
        "email-like (synthetic)": lambda: email_like(CAP, duration_s=1800, seed=0),
        "fio iolog captured here": lambda: read_trace(
            data_dir() / "traces" / "fio_zipf_sparsefile.iolog", "fio"),
    }


class TraceExplorer(w.VBox):
    """Statistics of one trace at a time, redrawn when a control changes."""

    def __init__(self, path: str | Path | None = None):
        self._make = _sources()
        if path is not None:
            self._make[f"file: {Path(path).name}"] = lambda: read_trace(path, "auto")
        self._cache: dict[str, object] = {}
        self.source = w.Dropdown(options=list(self._make), description="trace",
                                 layout=w.Layout(width="360px"))
        self.op = w.ToggleButtons(options=[("all", None), ("reads", "R"), ("writes", "W")],
                                  description="direction")
        self.gap = w.FloatLogSlider(value=10.0, base=10, min=0, max=1.7, step=0.05,
                                    description="burst gap ms", continuous_update=False)
        self.table = w.HTML()
        self.arrivals = FigureWidget(style_interarrival(go.Figure()))
        self.bursts = FigureWidget(style_bursts(go.Figure()))
        self.sizes = FigureWidget(style_sizes(go.Figure()))
        for c in (self.source, self.op, self.gap):
            c.observe(self._redraw, "value")
        super().__init__([w.HBox([self.source, self.op]), self.gap, self.table,
                          w.HBox([self.arrivals, self.bursts]), self.sizes])
        self.busy = fit_screen(self)
        self._redraw()

    @property
    def workload(self):
        name = self.source.value
        if name not in self._cache:
            self._cache[name] = self._make[name]()
        return self._cache[name]

    @computing
    def _redraw(self, *_):
        wl = self.workload
        one = {self.source.value: wl}
        with self.arrivals.batch_update():
            set_traces(self.arrivals, interarrival_cdf_traces(one, self.op.value))
        with self.bursts.batch_update():
            set_traces(self.bursts, burst_cdf_traces(one, self.gap.value))
            style_bursts(self.bursts, self.gap.value)
        with self.sizes.batch_update():
            set_traces(self.sizes, size_histogram_traces(one))
        mix = ts.rw_mix(wl)
        b = ts.burst_summary(wl, self.gap.value)
        self.table.value = (
            f"<b>{mix['requests']:,}</b> requests, {mix['read_pct']:.1f}% reads; "
            f"{b['bursts']:,} bursts under the {self.gap.value:.1f} ms rule, "
            f"{b['singleton_fraction']:.0%} of them single requests, longest {b['max_burst']}")


def trace_explorer(path: str | Path | None = None) -> TraceExplorer:
    """The live trace explorer (``path`` adds a trace file of your own)."""
    return TraceExplorer(path)
