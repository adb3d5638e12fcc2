"""Many sequential streams on one disk: the workload and the runner.

Seed 004: Panagiotakis 2006, *Reducing Disk I/O Performance Sensitivity for
Large Numbers of Sequential Streams* (notes ``004_multistream.md`` §2, §4, §6).
S clients each read their own part of the disk sequentially, **one request
outstanding** at a time (the thesis's time-critical DiskSim generators, Table
3.1, and its Chapter 5 clients), issuing the next request as soon as the last
one returns (plus ``client_rtt_ms``, the network and server path of the real
system; 0 in the DiskSim study). Request size is 64 KiB by default (the
thesis's Fig. 5.6 caption).

Where the streams start (``starts``):

* ``"even"``: stream ``i`` at ``i * disksize / S`` (thesis Chapter 5: "each
  stream is placed disksize/#streams blocks away from the previous one"),
  aligned down to 8 sectors; it wraps to its own start at the next stream's;
* ``"random"``: uniformly random, 8-sector aligned (DiskSim's ``synthio``:
  blocking factor 8); a stream that reaches the end of the disk jumps to a new
  random place, as DiskSim does.

Which client speaks first (``order``): ``"lba"`` (stream 0, 1, ...) or
``"random"`` (a seeded permutation). With a FIFO path to the disk the first
order persists for the whole run: the disk then sweeps the streams in LBA
order (short seeks), or visits them in a fixed random order (random seeks).

What lies between the clients and the disk (``host``):

* ``"direct"``: every client request goes to the disk as it is (direct I/O);
* a :class:`~simcore.dispatch.DispatchConfig`: the thesis's host scheme
  (stream detection, R-sized reads, a dispatch set of D streams, staging);
* a :class:`~simcore.host_readahead.ReadaheadConfig`: Linux-like buffered
  read-ahead windows per stream.

and below that an optional controller cache
(:class:`~simcore.controller_cache.ControllerCacheConfig`), then either the
drive's queue directly (``path="drive"``: DiskSim's controller queue, as deep as
the number of streams) or a Linux-like block layer (``path="block"``), then
the drive with its segmented cache (:mod:`simcore.drive.cache`).

:func:`run_streams` runs it all for ``duration_ms`` of simulated time and
reports the throughput the clients saw after ``warmup_ms``. With
``requests_per_stream`` it measures as the thesis's clients did instead (§5,
p. 32: a stream's parameters include "the number of requests"; "we measure
throughput and response time for each stream of requests" and sum the
streams' throughputs): every client issues exactly that many requests and
stops, and each stream's mean response time and throughput cover all of its
requests, from its first to its last.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .disk.access import Mechanism, as_mechanism
from .drive.cache import CacheConfig
from .engine import run
from .host.controller_cache import ControllerCache, ControllerCacheConfig
from .host.dispatch import DispatchConfig, DispatchHost
from .host.host import BlockLayer
from .host.readahead import ReadaheadConfig, ReadaheadHost
from .host.stream_port import BlockPort, DrivePort
from .stack import Stack
from .workloads import Processes

__all__ = [
    "MB",
    "CycleLBN",
    "StreamRun",
    "link_port",
    "run_streams",
    "stream_starts",
    "sweep_streams",
]

MB = 1e6  # the thesis's MBytes/s are taken as 10^6 bytes per second
ALIGN = 8  # DiskSim's blocking factor (Table 3.1): 8 sectors


class CycleLBN:
    """DiskSim's ``CYCLE_LBN`` (policy 3): the pending request with the smallest forward LBN
    distance from where the last one ended; wraps to the lowest when none is ahead.

    The thesis names it as its DiskSim scheduler (notes §2.1). It differs from
    :class:`~simcore.sched.CLook` only in working on LBNs, not cylinders.
    """

    name = "cycle-lbn"
    starvation_free = True

    def choose(self, pending, head, now):
        last = head.last_lba
        best = low = None
        for r in pending:
            if r.lba >= last and (best is None or r.lba < best.lba):
                best = r
            if low is None or r.lba < low.lba:
                low = r
        return best if best is not None else low


def stream_starts(capacity: int, streams: int, starts: str = "even",
                  rng: np.random.Generator | None = None,
                  request_sectors: int = 128) -> tuple[np.ndarray, np.ndarray]:
    """First LBA and region end of every stream (8-sector aligned).

    ``even``: stream ``i`` owns ``[i * spacing, (i + 1) * spacing)`` with
    ``spacing = capacity // streams`` aligned down (100 streams on the
    thesis's 156,301,488 sectors: 1,563,008 apart). ``random``: each starts
    uniformly at random and owns everything up to the end of the disk.
    """
    if streams < 1:
        raise ValueError(f"need at least one stream (got {streams})")
    if starts == "even":
        spacing = capacity // streams // ALIGN * ALIGN
        if spacing < request_sectors:
            raise ValueError(f"{streams} streams leave {spacing} sectors each, less than one "
                             f"request of {request_sectors}")
        first = np.arange(streams, dtype=np.int64) * spacing
        return first, first + spacing
    if starts == "random":
        rng = rng if rng is not None else np.random.default_rng(0)
        slots = (capacity - request_sectors) // ALIGN
        first = rng.integers(0, slots, size=streams, dtype=np.int64) * ALIGN
        return first, np.full(streams, capacity, dtype=np.int64)
    raise ValueError(f"starts must be 'even' or 'random' (got {starts!r})")


@dataclass(frozen=True)
class StreamRun:
    """What one run measured (flat numbers plus per-stream and per-disk-request detail)."""

    throughput_mb_s: float
    streams: int
    request_kib: float
    window_ms: float
    client_bytes: int
    per_stream_mb_s: tuple[float, ...]
    mean_response_ms: float
    per_stream_response_ms: tuple[float, ...]
    cache_hits: int
    client_requests: int
    disk_requests: int
    disk_bytes: int
    disk_busy_pct: float
    config: dict = field(default_factory=dict)
    #: drive cache counters (hits, misses, evictions, read-ahead sectors, ...)
    drive_cache: dict = field(default_factory=dict)
    #: host-scheme counters (streams detected, peak memory, timeouts, ...)
    host: dict = field(default_factory=dict)
    #: controller-cache counters
    controller: dict = field(default_factory=dict)
    #: ``(start_ms, finish_ms, stream, lba, sectors, cache_hit)`` of every disk command
    #: finished inside the window, when ``trace=True``
    disk_log: tuple = ()
    #: with ``requests_per_stream``: ``{k: per-stream mean response (ms) over each stream's
    #: first k requests}`` for k = 1, 2, 4, ... and the whole count (how the per-stream
    #: means settle as a run gets longer)
    response_by_count: dict = field(default_factory=dict)
    #: where a disk command's time went, mean per command in the window (ms): overhead, seek,
    #: rotation, transfer, interface and the whole service (start to finish)
    disk_time_ms: dict = field(default_factory=dict)

    @property
    def disk_mb_s(self) -> float:
        """Bytes the disk delivered per second of the window (prefetch included)."""
        return self.disk_bytes / MB / (self.window_ms / 1000.0)

    def summary(self) -> dict[str, Any]:
        ps = np.array(self.per_stream_mb_s)
        return {
            "throughput_mb_s": self.throughput_mb_s,
            "disk_mb_s": self.disk_mb_s,
            "mean_response_ms": self.mean_response_ms,
            "per_stream_min_mb_s": float(ps.min()) if len(ps) else 0.0,
            "per_stream_max_mb_s": float(ps.max()) if len(ps) else 0.0,
            "cache_hit_pct": 100.0 * self.cache_hits / max(1, self.client_requests),
            "disk_requests": self.disk_requests,
            "disk_busy_pct": self.disk_busy_pct,
        }


def link_port(mech: Mechanism):
    """The drive's own point-to-point link (Serial ATA at the profile's rate, 150 MB/s for the
    WD800JD): held per command, so data leaves the buffer as the media fills it."""
    from .drive.interface import Port

    return Port.ideal(mech.profile.interface_mb_s).with_(hold="command")


def _owner(first: np.ndarray, lba: int) -> int:
    i = int(np.searchsorted(first, lba, side="right")) - 1
    return max(0, i)


def run_streams(
    disk: str | Mechanism = "wd800jd",
    streams: int = 100,
    request_kib: float = 64,
    *,
    starts: str = "even",
    order: str = "random",
    host: str | DispatchConfig | ReadaheadConfig = "direct",
    cache: CacheConfig | bool | None = True,
    controller: ControllerCacheConfig | None = None,
    path: str = "drive",
    scheduler: Any = "fcfs",
    elevator: str = "noop",
    depth: int = 1,
    max_request_kib: float = 256.0,
    interface: Any = "link",
    duration_ms: float = 30_000.0,
    warmup_ms: float = 2_000.0,
    client_rtt_ms: float = 0.0,
    seed: int = 0,
    trace: bool = False,
    requests_per_stream: int | None = None,
) -> StreamRun:
    """Simulate ``streams`` sequential readers on one disk and measure what they get.

    ``cache``: ``True`` the profile's drive buffer, a
    :class:`~simcore.drive.cache.CacheConfig`, or ``None``/``False`` for a drive with
    no buffer at all (the fast arithmetic path). ``scheduler``: the drive's
    policy (a name, or :class:`CycleLBN`); ``path``, ``elevator``, ``depth``:
    see the module doc. ``interface``: ``"link"`` (default) a point-to-point
    link at the profile's rate (Serial ATA: nothing shares it, data flows to
    the host as the media reads it), a :class:`~simcore.drive.interface.Port` or a
    mode name, or ``None`` for the drive's own default. ``max_request_kib``:
    larger reads go to the drive as pieces of this size issued together (the
    block layer's ``max_sectors_kb`` split; ``None`` keeps them whole).
    ``trace`` keeps every disk command in ``disk_log``
    (the head's visits, for timelines). ``requests_per_stream``: every client
    issues exactly this many requests and stops (the thesis's clients, see the
    module doc); the statistics then cover every request of every stream, so
    ``warmup_ms`` must be 0, and the run ends when the last stream finishes
    (``duration_ms`` is only a limit: a stream still reading then is an error).
    """
    mech = as_mechanism(disk)
    cap = mech.layout.capacity
    _check_counts(warmup_ms, duration_ms, requests_per_stream)
    sec = round(request_kib * 2)
    if sec < 1:
        raise ValueError(f"request_kib must be at least 0.5 (got {request_kib})")
    rng = np.random.default_rng(seed)
    first, region_end = stream_starts(cap, streams, starts, rng, sec)
    ccfg = _drive_cache(cache, mech)
    sched = CycleLBN() if scheduler == "cycle-lbn" else scheduler
    if interface == "link":
        interface = link_port(mech)
    max_kib = max_request_kib if max_request_kib is not None else float(cap)
    layers = _HostLayers(path, elevator, depth, max_kib, controller, host, streams, cap)
    # the cache and interface asked for here, nothing implied: firmware off, overrides on
    disk_stack = Stack(mech, scheduler=sched, firmware=False,
                       cache=ccfg if ccfg is not None else False, interface=interface,
                       host=layers.builders())
    clients = _Clients(streams, sec, first, region_end, starts, cap, rng, order,
                       requests_per_stream, warmup_ms, duration_ms, client_rtt_ms)
    res = run(disk_stack, Processes(clients.start, f"{streams} streams"),
              until_ms=duration_ms if requests_per_stream is None else None)
    clients.check_finished(duration_ms)
    cfg = {"disk": mech.profile.id, "streams": streams, "request_kib": request_kib,
           "starts": starts, "order": order, "path": path, "scheduler": getattr(
               sched, "name", str(sched)), "elevator": elevator if path == "block" else None,
           "duration_ms": duration_ms, "warmup_ms": warmup_ms, "client_rtt_ms": client_rtt_ms,
           "requests_per_stream": requests_per_stream,
           "seed": seed, "host": "direct" if host == "direct" else host.describe(),
           "cache": _cache_config(ccfg),
           "controller": None if controller is None else controller.describe()}
    return clients.result(res.meta["built"].drives[0], layers, request_kib, cfg, trace)


def _check_counts(warmup_ms: float, duration_ms: float, requests_per_stream) -> None:
    """The measuring window and the request count make sense together."""
    if warmup_ms >= duration_ms:
        raise ValueError("warmup_ms must be shorter than duration_ms")
    if requests_per_stream is None:
        return
    if isinstance(requests_per_stream, bool) or not isinstance(
            requests_per_stream, int | np.integer) or requests_per_stream < 1:
        raise ValueError(f"requests_per_stream must be a positive integer "
                         f"(got {requests_per_stream!r})")
    if warmup_ms != 0:
        raise ValueError(f"warmup_ms must be 0 with requests_per_stream: every request of "
                         f"a stream counts (got warmup_ms={warmup_ms})")


def _drive_cache(cache: CacheConfig | bool | None, mech: Mechanism) -> CacheConfig | None:
    """``run_streams``'s ``cache`` argument as a drive cache configuration (None: no buffer)."""
    if cache is True:
        return CacheConfig.from_profile(mech.profile)
    if cache is None or cache is False:
        return None
    return cache


def _cache_config(ccfg: CacheConfig | None) -> dict | None:
    """The drive cache's parameters as the run's ``config`` reports them."""
    if ccfg is None:
        return None
    return {"size_kib": ccfg.size_kib, "segments": ccfg.segments,
            "read_ahead": ccfg.read_ahead, "min_read_ahead_kib": ccfg.min_read_ahead_kib,
            "max_read_ahead_kib": ccfg.max_read_ahead_kib, "preemptible": ccfg.preemptible}


class _HostLayers:
    """The layers between the clients and the drive: the port (the drive's queue or a block
    layer), an optional controller cache and an optional host scheme. Keeps the controller and
    host it built, for their counters."""

    def __init__(self, path: str, elevator: str, depth: int, max_kib: float,
                 controller: ControllerCacheConfig | None,
                 host: str | DispatchConfig | ReadaheadConfig, streams: int, capacity: int):
        if path not in ("drive", "block"):
            raise ValueError(f"path must be 'drive' or 'block' (got {path!r})")
        if not (host == "direct" or isinstance(host, DispatchConfig | ReadaheadConfig)):
            raise ValueError(f"host must be 'direct', a DispatchConfig or a ReadaheadConfig "
                             f"(got {host!r})")
        self.path, self.elevator, self.depth, self.max_kib = path, elevator, depth, max_kib
        self.controller, self.host = controller, host
        self.streams, self.capacity = streams, capacity
        self.ctrl: ControllerCache | None = None
        self.host_state: DispatchHost | ReadaheadHost | None = None

    def builders(self) -> tuple:
        """The layer builders, bottom first, as :class:`~simcore.stack.Stack` takes them."""
        layers: list = [self.port]
        if self.controller is not None:
            layers.append(self.controller_cache)
        if self.host != "direct":
            layers.append(self.host_scheme)
        return tuple(layers)

    def port(self, env, drive):
        if self.path == "drive":
            return DrivePort(env, drive, max_kib=self.max_kib)
        return BlockPort(env, BlockLayer(env, drive, elevator=self.elevator, depth=self.depth,
                                         max_sectors=max(1, int(self.max_kib * 2))),
                         max_kib=self.max_kib)

    def controller_cache(self, env, below):
        self.ctrl = ControllerCache(env, below, self.controller, capacity_sectors=self.capacity)
        return self.ctrl

    def host_scheme(self, env, below):
        if isinstance(self.host, DispatchConfig):
            self.host_state = DispatchHost(env, below, self.host, streams=self.streams,
                                           capacity_sectors=self.capacity)
        else:
            self.host_state = ReadaheadHost(env, below, self.host)
        return self.host_state


class _Clients:
    """The S sequential readers (one request outstanding each) and what they measured."""

    def __init__(self, streams: int, sec: int, first: np.ndarray, region_end: np.ndarray,
                 starts: str, capacity: int, rng: np.random.Generator, order: str,
                 counted: int | None, warmup_ms: float, duration_ms: float,
                 client_rtt_ms: float):
        self.streams, self.sec, self.first, self.region_end = streams, sec, first, region_end
        self.starts, self.capacity, self.rng = starts, capacity, rng
        self.counted, self.warmup_ms, self.duration_ms = counted, warmup_ms, duration_ms
        self.client_rtt_ms = client_rtt_ms
        self.got = np.zeros(streams, dtype=np.int64)
        self.resp_sum = np.zeros(streams)
        self.resp_n = np.zeros(streams, dtype=np.int64)
        self.hits = 0
        # with a request count: each stream's first issue and last completion, and its
        # running response sum at k = 1, 2, 4, ... requests and at the count
        self.born = np.zeros(streams)
        self.last_done = np.full(streams, np.nan)
        marks: tuple = ()
        if counted is not None:
            marks = tuple(sorted({1 << i for i in range(int(counted).bit_length())
                                  if (1 << i) <= counted} | {int(counted)}))
        self.at_mark = {k: np.zeros(streams) for k in marks}
        if order == "random":
            seq = rng.permutation(streams)
        elif order == "lba":
            seq = np.arange(streams)
        else:
            raise ValueError(f"order must be 'random' or 'lba' (got {order!r})")
        # a microsecond apart, so the first requests arrive in ``seq`` order
        self.offset = np.empty(streams)
        self.offset[seq] = np.arange(streams) * 1e-3

    def start(self, built):
        env, front = built.env, built.top
        procs = [env.process(self._client(env, front, c)) for c in range(self.streams)]
        if self.counted is not None:  # until the last stream is done, or the limit
            return env.any_of([env.all_of(procs), env.timeout(self.duration_ms)])
        return None

    def _next_start(self, c: int) -> int:
        """Where stream ``c`` goes on at the end of its region."""
        if self.starts == "even":
            return int(self.first[c])
        return int(self.rng.integers(0, (self.capacity - self.sec) // ALIGN)) * ALIGN

    def _client(self, env, front, c: int):
        sec, counted = self.sec, self.counted
        pos = int(self.first[c])
        yield env.timeout(self.offset[c])
        self.born[c] = env.now
        while counted is None or self.resp_n[c] < counted:
            if pos + sec > self.region_end[c]:
                pos = self._next_start(c)
            t0 = env.now
            rec = yield front.read(c, pos, sec)
            now = env.now
            if now >= self.warmup_ms:
                self._count(c, rec, now - t0)
            pos += sec
            if counted is not None and self.resp_n[c] == counted:
                self.last_done[c] = now
                break
            if self.client_rtt_ms > 0:
                yield env.timeout(self.client_rtt_ms)

    def _count(self, c: int, rec, response_ms: float) -> None:
        self.got[c] += self.sec * 512
        self.resp_sum[c] += response_ms
        self.resp_n[c] += 1
        if getattr(rec, "cache_hit", False):
            self.hits += 1
        if self.resp_n[c] in self.at_mark:
            self.at_mark[int(self.resp_n[c])][c] = self.resp_sum[c]

    def check_finished(self, duration_ms: float) -> None:
        """With a request count, every stream got through it before the limit."""
        if self.counted is not None and np.isnan(self.last_done).any():
            raise ValueError(f"duration_ms={duration_ms} ended the run with "
                             f"{int(np.isnan(self.last_done).sum())} of {self.streams} streams "
                             f"short of requests_per_stream={self.counted}; give a longer limit")

    def result(self, drive, layers: _HostLayers, request_kib: float, cfg: dict,
               trace: bool) -> StreamRun:
        """The run's :class:`StreamRun`: the clients' view, and the disk's inside the window."""
        warmup_ms, got = self.warmup_ms, self.got
        end = self.duration_ms if self.counted is None else float(np.nanmax(self.last_done))
        window = end - warmup_ms
        recs = [r for r in drive.completed if r.finish_ms >= warmup_ms and r.start_ms < end]
        busy = sum(min(r.finish_ms, end) - max(r.start_ms, warmup_ms) for r in recs)
        log: tuple = ()
        if trace:
            log = tuple((r.start_ms, r.finish_ms, _owner(self.first, r.lba), r.lba, r.sectors,
                         r.cache_hit) for r in recs)
        if self.counted is None:
            per_stream = got / MB / (window / 1000.0)
            total_mb_s = float(got.sum() / MB / (window / 1000.0))
        else:  # each stream over its own life; the disk's throughput is their sum (thesis §5)
            per_stream = got / MB / ((self.last_done - self.born) / 1000.0)
            total_mb_s = float(per_stream.sum())
        resp_sum, resp_n = self.resp_sum, self.resp_n
        n_req = int(resp_n.sum())
        with np.errstate(invalid="ignore", divide="ignore"):
            per_resp = np.where(resp_n > 0, resp_sum / np.maximum(resp_n, 1), np.nan)
        ctrl, hoststate = layers.ctrl, layers.host_state
        return StreamRun(
            throughput_mb_s=total_mb_s,
            streams=self.streams,
            request_kib=request_kib,
            window_ms=window,
            client_bytes=int(got.sum()),
            per_stream_mb_s=tuple(float(x) for x in per_stream),
            mean_response_ms=float(resp_sum.sum() / n_req) if n_req else float("nan"),
            per_stream_response_ms=tuple(float(x) for x in per_resp),
            cache_hits=self.hits,
            client_requests=n_req,
            disk_requests=len(recs),
            disk_bytes=int(sum(r.sectors for r in recs) * 512),
            disk_busy_pct=100.0 * busy / window,
            config=cfg,
            drive_cache=dict(drive.cache.stats) if drive.cache is not None else {},
            host=hoststate.counters() if hoststate is not None else {},
            controller=ctrl.counters() if ctrl is not None else {},
            disk_log=log,
            response_by_count={k: tuple(float(x) for x in v / k)
                               for k, v in self.at_mark.items()},
            disk_time_ms=_disk_time(recs),
        )


def _disk_time(recs: list) -> dict[str, float]:
    """Where a disk command's time went, mean per command (ms)."""
    out = {f: float(np.mean([getattr(r, f"{f}_ms") for r in recs])) if recs else 0.0
           for f in ("overhead", "seek", "rotation", "transfer", "interface")}
    return out | {"service": float(np.mean([r.finish_ms - r.start_ms for r in recs]))
                  if recs else 0.0}


def sweep_streams(counts: Sequence[int], **kwargs) -> list[StreamRun]:
    """:func:`run_streams` once per stream count, other arguments the same."""
    return [run_streams(streams=int(s), **kwargs) for s in counts]
