"""Live explorers for the many-streams chapter (seed 004): the dispatch set and the drive's segments.

They only connect ipywidgets controls to :mod:`simcore.viz.multistream`; every number comes
from a run of the simulator (:func:`simcore.multistream.run_streams`), with short windows so
that a change answers in a second or a few. Open them in JupyterLab or Binder::

    from simcore.widgets.multistream import dispatch_explorer, segments_explorer
    dispatch_explorer()
    segments_explorer()
"""

from __future__ import annotations

import ipywidgets as w

from ..disk.access import Mechanism
from ..disk.profile_loader import load_disk
from ..drive.cache import CacheConfig
from ..experiments.multistream import CLIENT_RTT_MS, DISK, disksim_cache
from ..host.dispatch import DispatchConfig
from ..host.readahead import ReadaheadConfig
from ..multistream import run_streams
from ..viz.multistream import cliff_traces, style_cliff, style_timeline, timeline_traces
from .figure import FigureWidget, computing, fit_screen, set_traces

__all__ = ["DispatchExplorer", "SegmentsExplorer", "dispatch_explorer", "segments_explorer"]

SCHEMES = ["no host scheme", "dispatch set", "Linux read-ahead"]
R_KIB = [64, 256, 512, 1024, 2048, 4096, 8192, 16384]
M_MIB = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 800, 1600]


def _kib(k: int) -> str:
    return f"{k // 1024} MiB" if k >= 1024 else f"{k} KiB"


class DispatchExplorer(w.VBox):
    """S streams on the WD800JD and the head's visits, with or without the host scheme."""

    def __init__(self, streams: int = 100, scheme: str = "dispatch set", r_kib: int = 8192,
                 m_mib: int = 16, n: int = 1, read_ahead_kb: int = 128,
                 window_ms: float = 2_000.0, disk: str = DISK):
        self.mech = Mechanism(load_disk(disk))
        self.window_ms = window_ms
        style = {"description_width": "130px"}
        lay = w.Layout(width="420px")
        self.streams = w.SelectionSlider(options=[1, 2, 5, 10, 20, 50, 100], value=streams,
                                         description="streams", continuous_update=False,
                                         style=style, layout=lay)
        self.scheme = w.Dropdown(options=SCHEMES, value=scheme, description="host",
                                 style=style, layout=lay)
        self.r = w.SelectionSlider(options=[(_kib(k), k) for k in R_KIB], value=r_kib,
                                   description="R (read size)", continuous_update=False,
                                   style=style, layout=lay)
        self.m = w.SelectionSlider(options=M_MIB, value=m_mib, description="M (MiB)",
                                   continuous_update=False, style=style, layout=lay)
        self.n = w.SelectionSlider(options=[1, 2, 4, 8, 16, 32, 64, 128], value=n,
                                   description="N (reads per visit)", continuous_update=False,
                                   style=style, layout=lay)
        self.ra = w.SelectionSlider(options=[0, 128, 512, 2048, 8192], value=read_ahead_kb,
                                    description="read_ahead_kb", continuous_update=False,
                                    style=style, layout=lay)
        self.info = w.HTML()
        self.figure = FigureWidget()
        style_timeline(self.figure, window_ms)
        for c in (self.streams, self.scheme, self.r, self.m, self.n, self.ra):
            c.observe(self._redraw, "value")
        super().__init__([w.HBox([w.VBox([self.scheme, self.streams, self.ra]),
                                  w.VBox([self.r, self.m, self.n])]), self.figure, self.info])
        self.busy = fit_screen(self)
        self._redraw()

    def host(self):
        """The host configuration the controls describe (or a string saying what is wrong)."""
        if self.scheme.value == "no host scheme":
            return "direct"
        if self.scheme.value == "Linux read-ahead":
            return ReadaheadConfig(self.ra.value)
        try:
            return DispatchConfig(read_ahead_kib=self.r.value, memory_kib=self.m.value * 1024,
                                  per_visit=self.n.value)
        except ValueError as exc:
            return str(exc)

    @computing
    def _redraw(self, *_):
        host = self.host()
        self.r.disabled = self.m.disabled = self.n.disabled = self.scheme.value != "dispatch set"
        self.ra.disabled = self.scheme.value != "Linux read-ahead"
        if isinstance(host, str) and host != "direct":
            self.result = None
            self.info.value = f"<b>Not allowed:</b> {host}"
            return
        s = self.streams.value
        warm = 2_000.0 + 60.0 * s  # stream detection: two direct requests per stream
        r = run_streams(self.mech, s, host=host, client_rtt_ms=CLIENT_RTT_MS,
                        duration_ms=warm + self.window_ms, warmup_ms=warm, trace=True)
        self.result = r
        log = [(a, b, st, n, hit) for a, b, st, _lba, n, hit in r.disk_log]
        traces = timeline_traces(log, warm, self.window_ms, s)
        with self.figure.batch_update():
            set_traces(self.figure, traces)
            self.figure.update_yaxes(range=[-1, s])
            self.figure.layout.title.text = (f"{s} streams, {self.scheme.value}: "
                                        f"{r.throughput_mb_s:.1f} MB/s")
        extra = ""
        if isinstance(host, DispatchConfig):
            d, m = host.resolved(s)
            if d > s:  # more room than streams: every stream is active, part of M stays unused
                extra = (f"D = M/(R·N) = {d}, more than the {s} streams: all {s} are active at "
                         f"once, and M = {m / 1024:g} MiB is more than the "
                         f"{s}·R·N = {s * host.visit_kib / 1024:g} MiB they use; ")
            else:
                extra = (f"D = M/(R·N) = {d} active stream{'s' if d > 1 else ''}; "
                         f"M = {m / 1024:g} MiB &ge; D·R·N = {d * host.visit_kib / 1024:g} MiB; ")
        elif isinstance(host, ReadaheadConfig):
            extra = (f"page cache used at most {r.host['peak_cached_bytes'] / 2**20:.0f} MiB; ")
        self.info.value = (f"<b>{r.throughput_mb_s:.1f} MB/s</b> for all {s} streams "
                           f"({r.throughput_mb_s / s:.2f} each); {extra}"
                           f"mean response {r.mean_response_ms:.0f} ms; "
                           f"{100 * r.cache_hits / max(1, r.client_requests):.0f}% of requests "
                           "answered without waiting for the disk.")


class SegmentsExplorer(w.VBox):
    """Throughput against streams for a drive buffer you cut into segments (DiskSim-like)."""

    STREAMS = (1, 4, 8, 12, 16, 24, 32, 48, 64)

    def __init__(self, segments: int = 16, cache_mib: int = 8, read_ahead: bool = True,
                 window_ms: float = 3_000.0, disk: str = DISK):
        self.mech = Mechanism(load_disk(disk))
        self.window_ms = window_ms
        self.segments = w.SelectionSlider(options=[4, 8, 16, 32, 64], value=segments,
                                          description="segments", continuous_update=False)
        self.size = w.SelectionSlider(options=[2, 4, 8, 16, 32], value=cache_mib,
                                      description="buffer MiB", continuous_update=False)
        self.read_ahead = w.Checkbox(value=read_ahead,
                                     description="read-ahead fills the segment")
        self.info = w.HTML()
        self.figure = FigureWidget()
        style_cliff(self.figure)
        self._none: dict[int, list[float]] = {}
        self._seen: dict[tuple[int, int, bool], list[float]] = {}  # a setting seen is instant
        for c in (self.segments, self.size, self.read_ahead):
            c.observe(self._redraw, "value")
        super().__init__([w.HBox([self.segments, self.size, self.read_ahead]), self.figure,
                          self.info])
        self.busy = fit_screen(self)
        self._redraw()

    def _curve(self, cache: CacheConfig) -> list[float]:
        out = []
        for s in self.STREAMS:
            r = run_streams(self.mech, s, starts="random", order="lba", cache=cache,
                            scheduler="cycle-lbn", duration_ms=2_000.0 + self.window_ms,
                            warmup_ms=2_000.0)
            out.append(r.throughput_mb_s)
        return out

    @computing
    def _redraw(self, *_):
        n, kib = self.segments.value, self.size.value * 1024
        seg_kib = kib / n
        if kib not in self._none:
            self._none[kib] = self._curve(disksim_cache(n, seg_kib, False))
        key = (n, kib, self.read_ahead.value)
        if key not in self._seen:
            self._seen[key] = self._curve(disksim_cache(n, seg_kib, self.read_ahead.value))
        ra = self._seen[key]
        self.mb_s = ra
        seg = {"streams": list(self.STREAMS), "segment_counts": [n],
               "read_ahead": {str(n): ra}, "no_read_ahead": self._none[kib]}
        traces = cliff_traces(seg, n, cache_kib=kib)
        if not self.read_ahead.value:
            traces[0].name = f"{n} segments of {seg_kib:g} KiB, no read-ahead"
        with self.figure.batch_update():
            set_traces(self.figure, traces)
            self.figure.layout.title.text = (f"{self.size.value} MiB buffer in {n} segments of "
                                        f"{seg_kib:g} KiB")
        self.info.value = ("Each point is a run of the simulator: 64 KiB requests, random "
                           "stream starts, CYCLE-LBN. The dotted line is where streams = "
                           "segments.")


def dispatch_explorer(**kw) -> DispatchExplorer:
    """The host scheme's explorer (see :class:`DispatchExplorer`)."""
    return DispatchExplorer(**kw)


def segments_explorer(**kw) -> SegmentsExplorer:
    """The drive-segments explorer (see :class:`SegmentsExplorer`)."""
    return SegmentsExplorer(**kw)
