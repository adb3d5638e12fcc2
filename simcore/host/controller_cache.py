"""A controller (array) cache: one memory shared by every disk behind it, with read-ahead.

Seed 004: Panagiotakis 2006 §2.1.1 and Fig. 3.6 (notes ``004_multistream.md``
§2.3, §5 item 8). Controller caches are "about one order of magnitude larger
than the corresponding caches on disks, and [are] usually shared among all
disks"; prefetching there "can help, however, would require large amounts of
memory for large numbers of streams". The thesis does not give the cache's
size; our default is 128 MiB (notes §2.3 [ours]: 60 streams x 1 MiB fit,
60 x 4 MiB do not).

The model (DiskSim's ``cachemem`` in spirit): memory of ``size_mib`` in lines
of ``line_kib``, least recently used first out, shared by all streams (and all
disks: the port below may be a single disk or an array). A read whose lines
are all present is a hit, answered after ``hit_ms``. Otherwise the controller
asks the disk for the missing part of the request *plus* ``read_ahead_kib``
beyond it (one disk command), keeps every line it brings, and answers when
the request's own part is in. A read for lines already on their way waits for
them. When the streams' read-ahead outgrows the memory, lines are evicted
before their stream comes back for them and are read again: the Fig. 3.6
collapse ("at 4 MBytes readahead, throughput for 60 and 100 streams drops
almost to 0").

``free_behind`` (default on, [ours]): lines a read has consumed become the
first to go, as a cache that knows its streams are sequential ("each block of
data is used only once", §2.1.1) would do; otherwise LRU keeps consumed lines
ahead of prefetched ones and evicts read-ahead before it is used even when all
streams' read-ahead fits.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from dataclasses import dataclass

import simpy

from ..records import READ, Completed

__all__ = ["ControllerCache", "ControllerCacheConfig"]


@dataclass(frozen=True)
class ControllerCacheConfig:
    """Size (MiB), line size and read-ahead (KiB), and the time to answer a hit (ms)."""

    size_mib: float = 128.0
    line_kib: float = 64.0
    read_ahead_kib: float = 1024.0
    hit_ms: float = 0.1
    free_behind: bool = True

    def __post_init__(self):
        if not self.size_mib > 0 or not self.line_kib > 0:
            raise ValueError("ControllerCacheConfig: size_mib and line_kib must be > 0")
        if self.read_ahead_kib < 0 or self.hit_ms < 0:
            raise ValueError("ControllerCacheConfig: read_ahead_kib and hit_ms must be >= 0")
        if self.size_mib * 1024 < self.line_kib:
            raise ValueError("ControllerCacheConfig: the cache holds less than one line")

    @property
    def lines(self) -> int:
        return int(self.size_mib * 1024 // self.line_kib)

    def describe(self) -> dict:
        return {"size_mib": self.size_mib, "line_kib": self.line_kib,
                "read_ahead_kib": self.read_ahead_kib, "hit_ms": self.hit_ms,
                "free_behind": self.free_behind}


class ControllerCache:
    """An LRU line cache with read-ahead on a miss, in front of a read port."""

    def __init__(self, env: simpy.Environment, below, config: ControllerCacheConfig,
                 capacity_sectors: int | None = None):
        self.env = env
        self.below = below
        self.config = config
        self.line = max(1, int(config.line_kib * 2))  # sectors
        self.max_lines = config.lines
        self.ra_lines = int(-(-config.read_ahead_kib * 2 // self.line))
        self.capacity = capacity_sectors
        self.lines: OrderedDict[int, simpy.Event | None] = OrderedDict()  # line -> in flight?
        self._rids = itertools.count()
        self.stats = {"reads": 0, "hits": 0, "misses": 0, "waits": 0, "disk_reads": 0,
                      "disk_bytes": 0, "evicted_unused": 0, "evictions": 0}
        self._used: set[int] = set()

    def counters(self) -> dict:
        return dict(self.stats, **self.config.describe())

    def read(self, client: int, lba: int, sectors: int) -> simpy.Event:
        env = self.env
        self.stats["reads"] += 1
        first, last = lba // self.line, (lba + sectors - 1) // self.line
        need = range(first, last + 1)
        missing = [k for k in need if k not in self.lines]
        ev = env.event()
        t0 = env.now
        for k in need:
            if k in self.lines:
                self.lines.move_to_end(k)
            self._used.add(k)
        if not missing:
            waits = [self.lines[k] for k in need if self.lines[k] is not None]
            if waits:
                self.stats["waits"] += 1
                env.process(self._answer_after(waits, ev, client, lba, sectors, t0, False))
            else:
                self.stats["hits"] += 1
                env.process(self._answer_after([], ev, client, lba, sectors, t0, True))
            return ev
        self.stats["misses"] += 1
        lo = missing[0]
        hi = last + 1 + self.ra_lines  # lines [lo, hi) come from the disk in one command
        if self.capacity is not None:
            hi = min(hi, -(-self.capacity // self.line))
        start, end = lo * self.line, hi * self.line
        if self.capacity is not None:
            end = min(end, self.capacity)
        done = self.below.read(client, start, end - start)
        self.stats["disk_reads"] += 1
        self.stats["disk_bytes"] += (end - start) * 512
        for k in range(lo, hi):
            if k not in self.lines:
                self._insert(k, done)
        done.callbacks.append(lambda e, lo=lo, hi=hi: self._landed(lo, hi, e))
        waits = [self.lines[k] for k in need if self.lines.get(k) is not None]
        env.process(self._answer_after(waits or [done], ev, client, lba, sectors, t0, False))
        return ev

    def _insert(self, k: int, ev) -> None:
        self.lines[k] = ev
        self.lines.move_to_end(k)
        while len(self.lines) > self.max_lines:
            old, _ = self.lines.popitem(last=False)
            self.stats["evictions"] += 1
            if old not in self._used:
                self.stats["evicted_unused"] += 1
            self._used.discard(old)

    def _landed(self, lo: int, hi: int, ev) -> None:
        for k in range(lo, hi):
            if self.lines.get(k) is ev:
                self.lines[k] = None

    def _answer_after(self, waits, ev, client, lba, sectors, t0, hit):
        for w in waits:
            if not w.processed:
                yield w
        if self.config.hit_ms > 0:
            yield self.env.timeout(self.config.hit_ms)
        now = self.env.now
        if self.config.free_behind:
            for k in range(lba // self.line, (lba + sectors) // self.line):
                if k in self.lines and self.lines[k] is None:  # fully consumed lines
                    self.lines.move_to_end(k, last=False)
        ev.succeed(Completed(next(self._rids), READ, lba, sectors, t0, t0, now, 0.0,
                             now - t0, 0.0, 0.0, 0.0, 0.0, now - t0, client, hit))
