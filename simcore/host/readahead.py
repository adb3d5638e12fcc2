"""Linux-like buffered read-ahead: a window per open file that grows while reads stay sequential.

Seed 004, notes ``004_multistream.md`` §7.1 (the modern host-side fix): for
buffered reads the kernel's *on-demand read-ahead* (``mm/readahead.c``, Linux
2.6.23 and later) keeps, per open file, a window ``[start, start + size)`` of
which the last ``async_size`` pages carry a marker. The first sequential read
gets an initial window (``get_init_ra_size``: the request rounded up to a power
of two, times 4 when that is at most ``max/32``, times 2 up to ``max/4``, else
``max``); when the reader reaches the marker the next window, of the next size
(``get_next_ra_size``: times 4 below ``max/16``, else times 2, never above
``max``), is read *asynchronously* while the current one is consumed. ``max``
is the device's ``read_ahead_kb`` (``blockdev --setra`` in sectors), 128 KiB by
default. A read-ahead larger than ``max_sectors_kb`` goes to the disk as
several requests issued together.

Simplifications, said plainly: pages stay cached until their reader consumed
them and are dropped then (no page-cache pressure, no eviction of unread
read-ahead; the lab watches memory instead); every client is its own file
(``client`` identifies the open file); a non-sequential read resets the
window, as a random ``POSIX_FADV_RANDOM``-less reader would.

For S streams this is the thesis's first configuration in kernel form
(notes §7.1): D = S, N = 1, R = the read-ahead window, M = the page cache.
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass

import simpy

from ..records import READ, Completed

__all__ = ["ReadaheadConfig", "ReadaheadHost", "init_ra_size", "next_ra_size"]

PAGE = 8  # sectors per 4 KiB page


def _pow2(x: int) -> int:
    return 1 << max(0, (int(x) - 1).bit_length())


def init_ra_size(req_pages: int, max_pages: int) -> int:
    """``get_init_ra_size``: the first window for a request of ``req_pages`` pages."""
    size = _pow2(req_pages)
    if size <= max_pages // 32:
        size *= 4
    elif size <= max_pages // 4:
        size *= 2
    else:
        size = max_pages
    return min(size, max_pages)


def next_ra_size(cur_pages: int, max_pages: int) -> int:
    """``get_next_ra_size``: the window after one of ``cur_pages`` pages."""
    if cur_pages < max_pages // 16:
        return min(4 * cur_pages, max_pages)
    return min(2 * cur_pages, max_pages)


@dataclass(frozen=True)
class ReadaheadConfig:
    """``read_ahead_kb`` (the per-device maximum window) and ``max_sectors_kb``."""

    read_ahead_kb: float = 128.0
    max_sectors_kb: float = 512.0

    def __post_init__(self):
        if self.read_ahead_kb < 0 or not self.max_sectors_kb >= 4:
            raise ValueError("ReadaheadConfig: read_ahead_kb must be >= 0 and "
                             "max_sectors_kb >= 4")

    def describe(self) -> dict:
        return {"scheme": "readahead", "read_ahead_kb": self.read_ahead_kb,
                "max_sectors_kb": self.max_sectors_kb}


class _File:
    __slots__ = ("async_start", "cached", "next_lba", "pending", "size", "start")

    def __init__(self):
        self.start = self.size = 0
        self.async_start = -1
        self.next_lba = -1
        self.cached: deque = deque()  # [first, end, event or None] extents in LBA order
        self.pending = 0


class ReadaheadHost:
    """Buffered reads through per-file read-ahead windows (a read port)."""

    def __init__(self, env: simpy.Environment, below, config: ReadaheadConfig):
        self.env = env
        self.below = below
        self.config = config
        self.max_pages = int(config.read_ahead_kb // 4)
        self.max_req = int(config.max_sectors_kb * 2)
        self.files: dict[int, _File] = {}
        self._rids = itertools.count()
        self.stats = {"client_requests": 0, "page_cache_hits": 0, "windows": 0,
                      "disk_reads": 0, "disk_bytes": 0, "peak_cached_bytes": 0}
        self._cached_bytes = 0

    def counters(self) -> dict:
        return dict(self.stats, read_ahead_kb=self.config.read_ahead_kb)

    def read(self, client: int, lba: int, sectors: int) -> simpy.Event:
        env = self.env
        self.stats["client_requests"] += 1
        f = self.files.get(client)
        if f is None:
            f = self.files[client] = _File()
        ev = env.event()
        t0 = env.now
        end = lba + sectors
        if lba != f.next_lba:  # a new or broken sequence: drop what was read ahead
            for ext in f.cached:
                self._cached_bytes -= (ext[1] - ext[0]) * 512
            f.cached.clear()
            f.start = f.size = 0
            f.async_start = -1
        f.next_lba = end
        if self.max_pages == 0:  # read-ahead off: the request goes as it is
            self._fetch(f, client, lba, sectors)
        else:
            have = f.cached[-1][1] if f.cached else lba
            if not f.cached or f.cached[0][0] > lba or have < end:
                # a cache miss: synchronous read-ahead (initial window, or the next size)
                pages = -(-sectors // PAGE)
                if f.size == 0:
                    size = init_ra_size(pages, self.max_pages)
                    asz = size - pages
                else:
                    size = asz = next_ra_size(f.size, self.max_pages)
                self._window(f, client, lba, max(size, pages), asz)
            elif f.async_start >= 0 and lba <= f.async_start < end:
                # the reader reached the marker: the next window, asynchronously
                size = next_ra_size(f.size, self.max_pages)
                self._window(f, client, f.start + f.size * PAGE, size, size)
        self._deliver(f, lba, end, ev, t0, client)
        return ev

    def _window(self, f: _File, client: int, lba: int, size_pages: int, async_pages: int) -> None:
        f.start, f.size = lba, size_pages
        f.async_start = lba + (size_pages - async_pages) * PAGE if async_pages else -1
        have = f.cached[-1][1] if f.cached else lba
        first = max(lba, have)
        end = lba + size_pages * PAGE
        if end > first:
            self.stats["windows"] += 1
            self._fetch(f, client, first, end - first)

    def _fetch(self, f: _File, client: int, lba: int, sectors: int) -> None:
        k = lba
        end = lba + sectors
        while k < end:
            n = min(self.max_req, end - k)
            ev = self.below.read(client, k, n)
            ext = [k, k + n, ev]
            f.cached.append(ext)
            self._cached_bytes += n * 512
            self.stats["disk_reads"] += 1
            self.stats["disk_bytes"] += n * 512
            ev.callbacks.append(lambda e, ext=ext: ext.__setitem__(2, None))
            k += n
        self.stats["peak_cached_bytes"] = max(self.stats["peak_cached_bytes"],
                                              self._cached_bytes)

    def _deliver(self, f: _File, lba: int, end: int, ev: simpy.Event, t0: float,
                 client: int) -> None:
        waits = [ext[2] for ext in f.cached if ext[0] < end and ext[1] > lba
                 and ext[2] is not None]
        env = self.env

        def finish(_=None):
            if ev.triggered:
                return
            while f.cached and f.cached[0][1] <= end and f.cached[0][2] is None:
                ext = f.cached.popleft()
                self._cached_bytes -= (ext[1] - ext[0]) * 512
            hit = env.now == t0
            if hit:
                self.stats["page_cache_hits"] += 1
            ev.succeed(Completed(next(self._rids), READ, lba, end - lba, t0, t0, env.now,
                                 env.now - t0, 0.0, 0.0, 0.0, 0.0, 0.0, env.now - t0, client,
                                 hit))

        if not waits:
            finish()
            return
        env.process(self._wait_all(waits, finish))

    def _wait_all(self, waits, finish):
        for w in waits:
            if not w.processed:
                yield w
        finish()
