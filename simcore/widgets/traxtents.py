"""Live explorers for the chapter "Track-aligned extents".

They connect ipywidgets controls to the builders in :mod:`simcore.viz.traxtents`;
every number comes from the simulator. Open them in JupyterLab or Binder::

    from simcore.widgets.traxtents import (efficiency_explorer, zero_latency_explorer,
                                           boundary_detective)
    efficiency_explorer()
"""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as w
import numpy as np
import plotly.graph_objects as go

from ..disk.access import HeadState, Mechanism
from ..experiments.traxtents import efficiency_curve, mechanism
from ..traxtents import (
    BUS_MODELS,
    SimulatedReader,
    detect_by_timing,
    figure2_profile,
    max_streaming_efficiency,
    sector_times,
    zero_latency_rev,
    zone_track_starts,
)
from ..viz.theme import apply_theme
from ..viz.traxtents import (
    detective_figure,
    efficiency_traces,
    latency_curve_figure,
    track_traces,
)
from .figure import FigureWidget, computing, fit_screen, set_traces

DISKS = ["atlas10k2", "atlas10k", "ultrastar18es", "cheetahx15"]

@lru_cache(maxsize=32)
def _curve(disk: str, tworeq: bool, bus: str, n: int):
    """One efficiency curve per setting, computed once (a setting seen again is instant)."""
    return efficiency_curve(disk, tworeq, bus, n)


class EfficiencyExplorer(w.VBox):
    """Efficiency against request size: pick a disk, onereq/tworeq and the bus model."""

    def __init__(self, disk: str = "atlas10k2", n: int = 120):
        self.n = n
        self.disk = w.Dropdown(options=DISKS, value=disk, description="disk")
        self.mode = w.ToggleButtons(options=["tworeq", "onereq"], value="tworeq",
                                    description="queue")
        self.bus = w.Dropdown(options=[b for b in BUS_MODELS if b != "access"],
                              value="assembled", description="bus")
        self.size = w.SelectionSlider(options=[("-", 0)], description="request",
                                      continuous_update=False,
                                      layout=w.Layout(width="480px"))
        self.info = w.HTML()
        self.fig = FigureWidget()
        for c in (self.disk, self.mode, self.bus):
            c.observe(self._recompute, "value")
        self.size.observe(self._mark, "value")
        super().__init__([w.HBox([self.disk, self.bus]), self.mode, self.size, self.info,
                          self.fig])
        self.busy = fit_screen(self)
        self._recompute()

    @computing
    def _recompute(self, *_):
        mech = mechanism(self.disk.value)
        self.spt = mech.layout.sectors_per_track(0)
        self.sizes, self.aligned, self.unaligned = _curve(
            self.disk.value, self.mode.value == "tworeq", self.bus.value, self.n)
        kib = [s / 2 for s in self.sizes]
        with self.fig.batch_update():
            set_traces(self.fig, [
                *efficiency_traces(kib, [a["efficiency"] for a in self.aligned],
                                   [u["efficiency"] for u in self.unaligned],
                                   max_streaming_efficiency(mech.rev_ms, mech.head_switch_ms)),
                go.Scatter(x=[], y=[], mode="markers", name="selected size",
                           marker=dict(size=14, color="rgba(0,0,0,0)",
                                       line=dict(color="black", width=2)))])
            apply_theme(self.fig)
            self.fig.update_xaxes(title="request size (KB)", type="log")
            self.fig.update_yaxes(title="disk efficiency", range=[0, 1])
            self.fig.update_layout(title_text=f"{mech.profile.name}, first zone "
                                         f"({self.spt} sectors per track), {self.mode.value}")
        options = [(f"{s / 2:g} KB", s) for s in self.sizes]
        value = self.spt if self.spt in self.sizes else self.sizes[0]
        self.size.unobserve(self._mark, "value")
        self.size.options = options
        self.size.value = value
        self.size.observe(self._mark, "value")
        self._mark()

    def _mark(self, *_):
        i = self.sizes.index(self.size.value)
        a, u = self.aligned[i], self.unaligned[i]
        with self.fig.batch_update():
            m = self.fig.data[-1]
            m.x = [self.sizes[i] / 2, self.sizes[i] / 2]
            m.y = [a["efficiency"], u["efficiency"]]
        gain = 100 * (u["mean_ms"] / a["mean_ms"] - 1)
        self.info.value = (
            f"{self.sizes[i] / 2:g} KB: head time <b>{a['mean_ms']:.2f} ms</b> aligned vs "
            f"<b>{u['mean_ms']:.2f} ms</b> unaligned; efficiency {a['efficiency']:.3f} vs "
            f"{u['efficiency']:.3f} (aligned is {gain:+.0f}% more efficient)")


class ZeroLatencyExplorer(w.VBox):
    """One track of the Figure 2 disk: request size, where the head lands, the firmware."""

    def __init__(self):
        self.fraction = w.FloatSlider(value=1.0, min=0.05, max=1.0, step=0.05,
                                      description="request", readout_format=".0%",
                                      continuous_update=False)
        self.landing = w.FloatSlider(value=0.9, min=0.0, max=0.995, step=0.005,
                                     description="head lands", readout_format=".1%",
                                     continuous_update=False)
        self.firmware = w.ToggleButtons(options=["zero-latency", "ordinary"],
                                        value="zero-latency", description="firmware")
        self.info = w.HTML()
        self.track = FigureWidget()
        self.curve = FigureWidget(latency_curve_figure([], [], [], 200))
        self.curve.add_trace(go.Scatter(x=[], y=[], mode="markers", name="this request",
                                        marker=dict(size=14, color="black", symbol="star")))
        self.curve.update_layout(width=520)
        self.mechs = {zl: Mechanism(figure2_profile(zero_latency=zl)) for zl in (True, False)}
        for c in (self.fraction, self.landing, self.firmware):
            c.observe(self._redraw, "value")
        super().__init__([w.HBox([self.fraction, self.landing]), self.firmware, self.info,
                          w.HBox([self.track, self.curve])])
        self.busy = fit_screen(self)
        self._redraw()

    @computing
    def _redraw(self, *_):
        zl = self.firmware.value == "zero-latency"
        mech = self.mechs[zl]
        spt, rev = 200, mech.rev_ms
        n = max(1, round(self.fraction.value * spt))
        first_lba = 200  # the second track: LBNs 200-399, physical sectors from 20
        a0 = mech.layout.locate(first_lba)
        head = HeadState(a0.cylinder, a0.surface)
        land = self.landing.value * spt  # in sectors past the track's first LBN
        t0 = ((a0.sector + land) % spt) / spt * rev + 100 * rev
        times = sector_times(mech, first_lba, n, t0, head) - t0
        end = float(times.max())
        latency = end - n * rev / spt
        with self.track.batch_update():
            set_traces(self.track, track_traces(spt, a0.sector, n, times, end, 90.0))
            apply_theme(self.track, height=420)
            self.track.update_layout(
                width=420, showlegend=False, margin=dict(l=20, r=20, t=50, b=20),
                title_text=f"{'zero-latency' if zl else 'ordinary'}: done {end:.2f} ms after the seek",
                polar=dict(radialaxis=dict(visible=False, range=[0, 2.3]), hole=0.25,
                           angularaxis=dict(visible=False, direction="counterclockwise",
                                            rotation=90 - (a0.sector + land) * 360 / spt)))
        with self.curve.batch_update():
            self.curve.data[-1].x = [100 * n / spt]
            self.curve.data[-1].y = [latency / rev]
        self.latency_ms = latency
        order = np.argsort(times)
        self.info.value = (
            f"LBNs {first_lba}-{first_lba + n - 1}; the head lands at LBN "
            f"{first_lba + int(land) % spt}. First read: LBN {first_lba + int(order[0])}, "
            f"last: LBN {first_lba + int(order[-1])}. Rotational latency "
            f"<b>{latency:.2f} ms</b> ({latency / rev:.2f} rev; expected over all landings: "
            f"{(zero_latency_rev(n / spt) if zl else (spt - 1) / (2 * spt)):.2f} rev)")


@lru_cache(maxsize=8)
def _detect(disk: str, tracks: int):
    mech = mechanism(disk)
    z0 = zone_track_starts(mech.layout, 0)
    start = z0[-(tracks // 2)]
    det = detect_by_timing(SimulatedReader(mech), start=start, tracks=tracks)
    truth = [b for b in mech.layout.track_boundaries() if b >= start][:tracks + 1]
    return det, truth


class BoundaryDetective(w.VBox):
    """Step through the timing detector on a disk, across its first zone change."""

    def __init__(self, disk: str = "atlas10k2", tracks: int = 6):
        self.disk = w.Dropdown(options=DISKS, value=disk, description="disk")
        self.step = w.IntSlider(value=1, min=1, max=1, description="probe",
                                continuous_update=False)
        self.info = w.HTML()
        self.fig = FigureWidget()
        self.tracks = tracks
        self.disk.observe(self._recompute, "value")
        self.step.observe(self._show, "value")
        super().__init__([w.HBox([self.disk, self.step]), self.info, self.fig])
        self.busy = fit_screen(self)
        self._recompute()

    @computing
    def _recompute(self, *_):
        self.det, self.truth = _detect(self.disk.value, self.tracks)
        self.static = detective_figure(self.det.steps, self.det.starts, self.truth)
        with self.fig.batch_update():
            self.fig.update_layout(self.static.layout.to_plotly_json())
            self.fig.layout.sliders = []
        self.step.unobserve(self._show, "value")
        self.step.max = len(self.static.frames)
        self.step.value = 1
        self.step.observe(self._show, "value")
        self._show()

    def _show(self, *_):
        i = self.step.value - 1
        frame = self.static.frames[i]
        with self.fig.batch_update():
            set_traces(self.fig, frame.data)
            self.fig.update_layout(frame.layout)
        d = self.det
        self.info.value = (f"{d.tracks} tracks found with {d.probes} timed reads "
                           f"({d.probes_per_track:.1f} per track, {d.calibrations} rotational "
                           f"calibrations); correct: <b>{d.starts == self.truth}</b>")


def efficiency_explorer(disk: str = "atlas10k2") -> EfficiencyExplorer:
    return EfficiencyExplorer(disk)


def zero_latency_explorer() -> ZeroLatencyExplorer:
    return ZeroLatencyExplorer()


def boundary_detective(disk: str = "atlas10k2") -> BoundaryDetective:
    return BoundaryDetective(disk)
