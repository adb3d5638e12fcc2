"""Live explorers for the disk chapters: ipywidgets controls around plotly FigureWidgets.

They only connect controls to the builders in :mod:`simcore.viz.disk`; every
number comes from the simulator. Open them in JupyterLab or Binder::

    from simcore.widgets.disk import anatomy_explorer, positioning_explorer
    anatomy_explorer()
"""

from __future__ import annotations

import ipywidgets as w
import numpy as np
import plotly.graph_objects as go

from ..disk.access import HeadState, Mechanism
from ..disk.mechanics import FourPhaseSeek
from ..disk.profile_loader import list_disks, load_disk
from ..viz.disk import (
    platter_traces,
    seek_curve_traces,
    style_platter,
    zone_bandwidth_traces,
)
from ..viz.theme import apply_theme
from .figure import FigureWidget, computing, fit_screen, set_traces

_REAL = [d for d in list_disks() if d != "toy"]


class AnatomyExplorer(w.VBox):
    """Pick a drive and an LBA: see where it lives and how fast its zone is."""

    def __init__(self, disk: str = "atlas10k2"):
        self.disk = w.Dropdown(options=_REAL, value=disk, description="disk")
        self.position = w.FloatSlider(value=0.0, min=0.0, max=100.0, step=0.5,
                                      description="LBA at %", continuous_update=False)
        self.info = w.HTML()
        self.platter = FigureWidget()
        self.zones = FigureWidget()
        self.disk.observe(self._redraw, "value")
        self.position.observe(self._redraw, "value")
        super().__init__([w.HBox([self.disk, self.position]), self.info,
                          w.HBox([self.platter, self.zones])])
        self.busy = fit_screen(self)
        self._redraw()

    @property
    def lba(self) -> int:
        cap = self.mech.layout.capacity
        return min(cap - 1, int(cap * self.position.value / 100.0))

    @computing
    def _redraw(self, *_):
        self.mech = Mechanism(load_disk(self.disk.value))
        layout, lba = self.mech.layout, self.lba
        a = layout.locate(lba)
        with self.platter.batch_update():
            set_traces(self.platter, platter_traces(layout, lba))
            style_platter(self.platter)
            self.platter.update_layout(width=460)
        with self.zones.batch_update():
            x = lba * 512 / 1e9
            set_traces(self.zones, [*zone_bandwidth_traces(layout),
                                    go.Scatter(x=[x], y=[layout.media_rate_mb_s(a.zone)],
                                               mode="markers", name=f"LBA {lba:,}",
                                               marker=dict(size=12, color="#d1495b"))])
            apply_theme(self.zones)
            self.zones.update_layout(width=520, title_text="media rate across the disk")
            self.zones.update_xaxes(title="GB from LBA 0")
            self.zones.update_yaxes(title="MB/s", rangemode="tozero")
        self.info.value = (f"LBA <b>{lba:,}</b> is on cylinder <b>{a.cylinder}</b>, surface "
                           f"<b>{a.surface}</b>, physical sector <b>{a.sector}</b> of "
                           f"{layout.sectors_per_track(a.zone)} (zone {a.zone}, "
                           f"{layout.media_rate_mb_s(a.zone):.1f} MB/s)")


class PositioningExplorer(w.VBox):
    """Pick a drive, a seek distance and a request size: see the phases and the breakdown."""

    def __init__(self, disk: str = "atlas10k"):
        self.disk = w.Dropdown(options=_REAL, value=disk, description="disk")
        self.distance = w.IntSlider(value=100, min=1, max=1000, description="cylinders",
                                    continuous_update=False)
        self.size_kib = w.SelectionSlider(options=[4, 16, 64, 256, 1024], value=64,
                                          description="KiB", continuous_update=False)
        self.curve = FigureWidget()
        self.breakdown = FigureWidget()
        for control in (self.disk, self.distance, self.size_kib):
            control.observe(self._redraw, "value")
        super().__init__([w.HBox([self.disk, self.distance, self.size_kib]),
                          w.HBox([self.curve, self.breakdown])])
        self.busy = fit_screen(self)
        self._redraw()

    @computing
    def _redraw(self, change=None):
        if change is None or change.get("owner") is self.disk:
            prof = load_disk(self.disk.value)
            self.mech = Mechanism(prof)
            self.physics = FourPhaseSeek.fit(self.mech.layout.cylinders,
                                             *self.mech.seek.three_points())
            self.distance.max = self.mech.layout.cylinders - 1
        d = min(self.distance.value, self.mech.layout.cylinders - 1)
        p = self.physics.phases(d)
        with self.curve.batch_update():
            set_traces(self.curve, [
                *seek_curve_traces(self.mech, name="the drive's curve"),
                go.Scatter(x=[d], y=[self.mech.seek.seek_ms(d)], mode="markers",
                           name=f"{d} cylinders", marker=dict(size=12, color="#d1495b"))])
            apply_theme(self.curve)
            self.curve.update_layout(width=520, title_text=(
                f"accelerate {p.accelerate_ms:.2f} + coast {p.coast_ms:.2f} + decelerate "
                f"{p.decelerate_ms:.2f} + settle {p.settle_ms:.2f} ms"))
            self.curve.update_xaxes(title="seek distance (cylinders)")
            self.curve.update_yaxes(title="seek time (ms)")
        rng = np.random.default_rng(0)
        sectors = self.size_kib.value * 2
        cap = self.mech.layout.capacity
        parts = {"seek": 0.0, "rotation": 0.0, "transfer": 0.0, "interface": 0.0}
        t, head = 0.0, HeadState(0, 0)
        for _ in range(200):
            lba = int(rng.integers(0, cap - sectors))
            acc = self.mech.access(lba, sectors, False, t, head)
            for k in parts:
                parts[k] += getattr(acc, f"{k}_ms") / 200
            head = HeadState(acc.cylinder, acc.surface)
            t = acc.end_ms
        with self.breakdown.batch_update():
            colors = {"seek": "#d1495b", "rotation": "#edae49", "transfer": "#2e933c",
                      "interface": "#00798c"}
            set_traces(self.breakdown, [go.Bar(x=[f"{self.size_kib.value} KiB"], y=[v], name=k,
                                               marker_color=colors[k]) for k, v in parts.items()])
            apply_theme(self.breakdown)
            self.breakdown.update_layout(barmode="stack", width=360,
                                         title_text="random reads: mean time (ms)")
        self.parts = parts


def anatomy_explorer(disk: str = "atlas10k2") -> AnatomyExplorer:
    return AnatomyExplorer(disk)


def positioning_explorer(disk: str = "atlas10k") -> PositioningExplorer:
    return PositioningExplorer(disk)
