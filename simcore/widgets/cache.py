"""Live explorer for the drive-cache chapter: streams against segments, policies, protection.

It only connects ipywidgets controls to :mod:`simcore.viz.cache`; every number comes from
the simulator. Open it in JupyterLab or Binder::

    from simcore.widgets.cache import cache_explorer
    cache_explorer()
"""

from __future__ import annotations

import ipywidgets as w
import plotly.graph_objects as go

from ..disk.access import Mechanism
from ..disk.profile_loader import load_disk
from ..drive.cache import POLICIES, CacheConfig
from ..engine import run
from ..experiments.interface import streams_workload
from ..viz.theme import COLORS, apply_theme
from .figure import FigureWidget, computing, fit_screen, set_traces

STREAMS = [1, 2, 3, 4, 6, 8, 12, 16]


class CacheExplorer(w.VBox):
    """Hit rate and throughput of k sequential streams for a buffer you shape."""

    def __init__(self, segments: int = 4, segment_kib: int = 256, disk: str = "maxtor92048u8"):
        self.mech = Mechanism(load_disk(disk))
        self.segments = w.IntSlider(value=segments, min=1, max=32, description="segments",
                                    continuous_update=False)
        self.size = w.SelectionSlider(options=[32, 64, 128, 256, 512, 1024], value=segment_kib,
                                      description="KiB each", continuous_update=False)
        self.policy = w.Dropdown(options=list(POLICIES), value="segment",
                                 description="read-ahead")
        self.protect = w.Checkbox(value=True, description="protect a segment of read-ahead")
        self.adaptive = w.Checkbox(value=False, description="adaptive segments")
        self.info = w.HTML()
        self.figure = FigureWidget()
        apply_theme(self.figure, height=380)
        for c in (self.segments, self.size, self.policy, self.protect, self.adaptive):
            c.observe(self._redraw, "value")
        super().__init__([w.HBox([self.segments, self.size, self.policy]),
                          w.HBox([self.protect, self.adaptive]), self.figure, self.info])
        self.busy = fit_screen(self)
        self._redraw()

    def config(self) -> CacheConfig:
        size = self.size.value
        return CacheConfig(size * self.segments.value, self.segments.value,
                           read_ahead=self.policy.value,
                           min_read_ahead_kib=max(0, size - 16) if self.protect.value else 0,
                           adaptive=self.adaptive.value, max_segments=32)

    @computing
    def _redraw(self, *_):
        cfg = self.config()
        self.hit_rate, self.mb_s = [], []
        for k in STREAMS:
            res = run(self.mech, streams_workload(self.mech.layout.capacity, k, 16, 16),
                      cache=cfg)
            self.hit_rate.append(sum(r.cache_hit for r in res.records) / len(res.records))
            self.mb_s.append(res.summary()["throughput_mb_s"])
        with self.figure.batch_update():
            set_traces(self.figure, [
                go.Scatter(x=STREAMS, y=self.hit_rate, name="hit rate", mode="lines+markers",
                           line=dict(color=COLORS[2], width=3)),
                go.Scatter(x=STREAMS, y=self.mb_s, name="MB/s", yaxis="y2", mode="lines+markers",
                           line=dict(color=COLORS[0], width=3))])
            seg = self.segments.value
            self.figure.layout.shapes = [dict(type="line", x0=seg, x1=seg, y0=0, y1=1,
                                              yref="paper", line=dict(color="black",
                                                                      dash="dot"))]
            self.figure.update_layout(
                title_text=f"{seg} x {self.size.value} KiB, read-ahead '{self.policy.value}'",
                xaxis=dict(title="sequential streams (16 KiB reads)"),
                yaxis=dict(title="hit rate", range=[-0.02, 1.02]),
                yaxis2=dict(title="MB/s", overlaying="y", side="right", rangemode="tozero",
                            showgrid=False))
        self.info.value = (f"Total buffer {cfg.size_kib:.0f} KiB. With more streams than "
                           f"segments LRU reclaims each stream's segment before it comes "
                           f"back{' (adaptive: the drive re-splits its buffer)' if cfg.adaptive else ''}.")


def cache_explorer(segments: int = 4, segment_kib: int = 256) -> CacheExplorer:
    """The chapter's live explorer (a widget: display it as the last line of a cell)."""
    return CacheExplorer(segments, segment_kib)
