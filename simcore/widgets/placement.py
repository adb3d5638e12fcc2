"""Live explorer for "Where data lives": one zone layout at a time, replayed.

Choose the trace, FREQZ or ALIZ, the zone spacing, how much room each zone
has and the I/O path (the IDE disk of 2004 the experiment models: the host's elevator, one
command at a time, the drive's cache on; or the earlier model, SPTF over a 32-deep tagged queue
with no cache); the trace is rewritten and replayed on the seed-003 disk (quick windows of two
minutes) and the figures show how far the arm moved and where the requests went. Open it in JupyterLab or Binder::

    from simcore.widgets.placement import zone_explorer
    zone_explorer()
"""

from __future__ import annotations

import ipywidgets as w
import numpy as np
import plotly.graph_objects as go

from .. import placement as pl
from ..experiments import placement as exp
from ..viz.placement import before_after_figure, seek_histogram_traces, style_seeks
from .figure import FigureWidget, computing, fit_screen, set_traces

SPACINGS = [10_000, 30_000, 50_000, 100_000, 300_000, 1_000_000, 3_000_000, 10_000_000]


class ZoneExplorer(w.VBox):
    """FREQZ or ALIZ at one spacing against the original layout."""

    def __init__(self, workload: str = "database", technique: str = "ALIZ",
                 spacing: int = 300_000, zone_fraction: float = 0.1,
                 io_path: str = exp.IO_PATH):
        self.workload = w.ToggleButtons(options=["database", "email"], value=workload,
                                        description="trace")
        self.technique = w.ToggleButtons(options=["FREQZ", "ALIZ", "FREQNC", "ALIS"],
                                         value=technique, description="layout")
        self.spacing = w.SelectionSlider(options=[(f"{x:,}", x) for x in SPACINGS],
                                         value=spacing, description="spacing",
                                         continuous_update=False,
                                         layout=w.Layout(width="520px"))
        self.fraction = w.FloatSlider(value=zone_fraction, min=0.01, max=0.5, step=0.01,
                                      description="zone room", continuous_update=False)
        self.io_path = w.ToggleButtons(
            options=[("IDE 2004: elevator, 1 command, drive cache", "ide"),
                     ("SPTF over a 32-deep tagged queue, no cache", "tagged")],
            value=io_path, description="I/O path",
            # the labels are long: buttons as wide as their text, not cut to the default width
            style={"button_width": "auto"})
        self.table = w.HTML()
        self.seeks = FigureWidget(style_seeks(go.Figure()))
        self.heat = FigureWidget()
        self._base: dict[tuple[str, str], dict] = {}
        for c in (self.workload, self.technique, self.spacing, self.fraction, self.io_path):
            c.observe(self._redraw, "value")
        super().__init__([w.HBox([self.workload, self.technique]),
                          w.HBox([self.spacing, self.fraction]), self.io_path, self.table,
                          self.seeks,
                          self.heat])
        self.busy = fit_screen(self)
        self._redraw()

    def _policy(self):
        tech = self.technique.value
        x = self.spacing.value if tech in ("FREQZ", "ALIZ") else None
        if tech in ("FREQZ", "FREQNC"):
            return pl.Sequential(spacing=x, zone_fraction=self.fraction.value)
        return pl.ALIS(spacing=x, zone_fraction=self.fraction.value)

    @computing
    def _redraw(self, *_):
        name = self.workload.value
        wl = exp.workload(name, quick=True)
        interval = exp.settings(True)["interval_ms"]
        path = self.io_path.value
        if (name, path) not in self._base:
            self._base[name, path] = exp.measure(wl, pl.original(), interval, io_path=path)
        policy = self._policy()
        self.result = exp.measure(wl, policy, interval, io_path=path)
        base = self._base[name, path]
        fake = {"seek_edges_cylinders": exp.SEEK_EDGES,
                "figure": {"detail": {name: {"original": base, policy.name: self.result}}}}
        with self.seeks.batch_update():
            set_traces(self.seeks, seek_histogram_traces(fake, name, ["original", policy.name]))
        cap = exp.mechanism().layout.capacity
        placed = pl.rewrite(wl, self._policy(), cap, exp.UNIT_SECTORS, interval)
        fig = before_after_figure(wl, placed.workload, cap, ("original layout", policy.name))
        with self.heat.batch_update():
            if not self.heat.data:
                self.heat.layout = fig.layout
            else:
                self.heat.update_layout(fig.layout.to_plotly_json(), overwrite=True)
            set_traces(self.heat, fig.data)
        b, r = base["mean_response_ms"], self.result["mean_response_ms"]
        self.improvement = 100.0 * (b - r) / b
        self.table.value = (
            f"{policy.name}: mean response <b>{r:.2f} ms</b> against {b:.2f} ms on the original "
            f"layout (<b>{self.improvement:+.1f}%</b>); mean seek "
            f"{self.result['mean_seek_cylinders']:.0f} cylinders against "
            f"{base['mean_seek_cylinders']:.0f}; {self.result['hit_fraction']:.0%} of the "
            f"blocks read came from a hot zone; {np.round(self.result['relocated_units']):.0f} "
            "blocks relocated per window.")


def zone_explorer(**kwargs) -> ZoneExplorer:
    """The live zone-layout explorer."""
    return ZoneExplorer(**kwargs)
