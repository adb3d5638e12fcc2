"""The thesis's host scheme: detect streams, read R at a time, keep a dispatch set of D.

Seed 004: Panagiotakis 2006, Chapter 4 (notes ``004_multistream.md`` §3, with
the event-driven pseudocode of §3.7). A storage node sits between clients and
its disk:

1. **Classify** (§4.1). Every request marks the blocks it touches in a small
   bitmap allocated on demand for its neighbourhood of the disk ("a small
   bitmap that represents the blocks around the block accessed by the request
   ... [B − offset, B + offset]", "a small value for offset, in the order of a
   few tens, is adequate"). Once enough distinct, adjacent requests arrived in
   that neighbourhood within a time interval, the requests form a sequential
   **stream** and get a private queue; anything else goes to the disk as it is.
2. **Dispatch** (§4.2). At most **D** streams are *active*. An active stream
   issues disk reads of size **R** ("independent of the actual request size in
   the sequential stream"), one at a time, until it has issued **N**; then it
   leaves and "is replaced from the next (round-robin) sequential stream".
3. **Stage** (§4.3). A stream that leaves the dispatch set keeps its data in
   the *buffered set* until its client has read it or a **timeout** expires; a
   periodic **garbage collector** frees what timed out and forgets stale
   bitmaps. Memory obeys **M >= D·R·N** ("in all configurations and during
   system operation"): a stream enters the dispatch set only when R·N bytes of
   M are free, and a buffer's memory returns when its last byte is consumed.
   With D = M/(R·N) (§5.2: "D is limited by (and always set to) M/(R * N)")
   a stream's data must drain before the next stream may start reading, so a
   small M leaves the disk idle while clients consume.

The completion path gives priority to the issue path (§4.2): when a disk read
completes, new reads are issued before waiting clients are answered.

What the thesis leaves open, and our choices (marked [ours] in the notes §3.2,
§3.4, §3.7): block = 4 KiB, offset = 32 blocks, a stream after 3 distinct
adjacent requests within 1 s, a 2 s buffer timeout, a 1 s GC period; one
outstanding disk read per active stream (so at most D in flight); the first
disk read of a residency starts at the stream's first unserved block; a stream
re-enters the round-robin queue when its client asks for data no buffer holds.
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass

import simpy

from ..records import READ, Completed

__all__ = ["Classifier", "DispatchConfig", "DispatchHost", "StreamState"]

KIB_SECTORS = 2  # 512-byte sectors per KiB


@dataclass(frozen=True)
class DispatchConfig:
    """The scheme's parameters (sizes in KiB, times in ms).

    ``read_ahead_kib`` is R, ``per_visit`` N, ``dispatch`` D and ``memory_kib``
    M. Give any two of D and M: a missing D is M/(R·N) (thesis §5.2), a missing
    M is D·R·N (thesis §5.1: "M = S * R * N and S = D"). ``M < D·R·N`` is
    refused. ``dispatch=None, memory_kib=None`` means every stream active
    (``D = streams``, set by the runner through :meth:`with_streams`).
    """

    read_ahead_kib: float = 8192.0
    memory_kib: float | None = 16384.0
    dispatch: int | None = None
    per_visit: int = 1
    block_kib: float = 4.0
    offset_blocks: int = 32
    threshold: int = 3
    interval_ms: float = 10_000.0
    timeout_ms: float = 2000.0
    gc_period_ms: float = 1000.0

    def __post_init__(self):
        if not self.read_ahead_kib > 0:
            raise ValueError(f"DispatchConfig: R (read_ahead_kib) must be > 0, "
                             f"got {self.read_ahead_kib}")
        if self.per_visit < 1:
            raise ValueError(f"DispatchConfig: N (per_visit) must be >= 1, got {self.per_visit}")
        if self.dispatch is not None and self.dispatch < 1:
            raise ValueError(f"DispatchConfig: D (dispatch) must be >= 1, got {self.dispatch}")
        if self.memory_kib is not None:
            if self.memory_kib < self.visit_kib:
                raise ValueError(
                    f"DispatchConfig: M = {self.memory_kib:g} KiB holds less than one visit "
                    f"R·N = {self.read_ahead_kib:g} x {self.per_visit} KiB; the thesis needs "
                    "M >= D·R·N with D >= 1")
            if self.dispatch is not None and self.memory_kib < self.dispatch * self.visit_kib:
                raise ValueError(
                    f"DispatchConfig: M = {self.memory_kib:g} KiB < D·R·N = {self.dispatch} x "
                    f"{self.read_ahead_kib:g} x {self.per_visit} KiB (thesis §4.3: M >= D·R·N); "
                    f"raise memory_kib or lower dispatch to {self.max_dispatch}")
        if self.threshold < 1 or self.offset_blocks < 1 or not self.block_kib > 0:
            raise ValueError("DispatchConfig: threshold, offset_blocks and block_kib must be > 0")
        if not (self.timeout_ms > 0 and self.gc_period_ms > 0 and self.interval_ms > 0):
            raise ValueError("DispatchConfig: timeout_ms, gc_period_ms, interval_ms must be > 0")

    @property
    def visit_kib(self) -> float:
        """R·N: what one stay in the dispatch set reads."""
        return self.read_ahead_kib * self.per_visit

    @property
    def max_dispatch(self) -> int | None:
        """M / (R·N), rounded down (None when M is not given)."""
        if self.memory_kib is None:
            return None
        return int(self.memory_kib // self.visit_kib)

    def resolved(self, streams: int) -> tuple[int, float]:
        """``(D, M in KiB)`` for a run with ``streams`` streams."""
        d = self.dispatch
        if d is None:
            d = self.max_dispatch if self.memory_kib is not None else streams
        m = self.memory_kib if self.memory_kib is not None else d * self.visit_kib
        return int(d), float(m)

    def describe(self) -> dict:
        return {"scheme": "dispatch", "R_kib": self.read_ahead_kib, "N": self.per_visit,
                "D": self.dispatch, "M_kib": self.memory_kib, "timeout_ms": self.timeout_ms}


class Classifier:
    """Per-region bitmaps that recognise sequential streams (thesis §4.1).

    A region is ``2 * offset`` blocks; its bitmap is allocated when a request
    first touches it. A request sets the bits of every block it covers and
    records itself; it starts a stream when, counting back through adjacent
    (or overlapping) requests seen in this or the previous region within
    ``interval_ms``, there are at least ``threshold`` distinct requests. Out of
    order and repeated requests do not count ("only takes into account
    proximity in time").
    """

    def __init__(self, block_sectors: int, offset_blocks: int, threshold: int,
                 interval_ms: float):
        self.block = max(1, int(block_sectors))
        self.width = 2 * int(offset_blocks)
        self.threshold = int(threshold)
        self.interval = float(interval_ms)
        # region -> [bitmap (int), last touched ms, [(first_block, end_block, ms), ...]]
        self.regions: dict[int, list] = {}

    def _region(self, key: int, now: float) -> list:
        r = self.regions.get(key)
        if r is None:
            r = self.regions[key] = [0, now, []]
        return r

    def observe(self, lba: int, sectors: int, now: float) -> bool:
        """Mark a request; True when it completes a sequential stream."""
        b0 = lba // self.block
        b1 = (lba + sectors + self.block - 1) // self.block
        key = b0 // self.width
        for k in range(key, (b1 - 1) // self.width + 1):
            r = self._region(k, now)
            lo = max(b0, k * self.width) - k * self.width
            hi = min(b1, (k + 1) * self.width) - k * self.width
            r[0] |= ((1 << (hi - lo)) - 1) << lo
            r[1] = now
        recent = []
        for k in (key - 1, key):
            r = self.regions.get(k)
            if r is not None:
                r[2] = [e for e in r[2] if now - e[2] <= self.interval]
                recent.extend(r[2])
        self._region(key, now)[2].append((b0, b1, now))
        count, start = 1, b0
        seen = {(b0, b1)}
        while count < self.threshold:
            prev = [e for e in recent if e[0] < start <= e[1] and (e[0], e[1]) not in seen]
            if not prev:
                return False
            e = min(prev, key=lambda e: e[0])
            seen.add((e[0], e[1]))
            start = e[0]
            count += 1
        return True

    def bits_set(self, lba: int) -> int:
        """Bits set in the bitmap of the region holding ``lba`` (for figures and tests)."""
        r = self.regions.get(lba // self.block // self.width)
        return 0 if r is None else bin(r[0]).count("1")

    def forget(self, older_than_ms: float) -> int:
        """Drop bitmaps untouched since ``older_than_ms`` (garbage collection)."""
        stale = [k for k, r in self.regions.items() if r[1] < older_than_ms]
        for k in stale:
            del self.regions[k]
        return len(stale)


class _Buffer:
    __slots__ = ("done", "end", "event", "last_used", "start")

    def __init__(self, start: int, end: int, event: simpy.Event | None, now: float):
        self.start, self.end = start, end
        self.event = event  # None once the data is in memory
        self.done = False
        self.last_used = now


class StreamState:
    """One detected stream: its queue, its buffers and where its disk reads are."""

    __slots__ = ("buffers", "client_next", "disk_pos", "id", "in_ready", "issued",
                 "last_active", "queue", "region_end", "state")

    def __init__(self, sid: int, lba: int, now: float):
        self.id = sid
        self.client_next = lba  # where the client's next request is expected
        self.disk_pos = lba  # next sector to read from the disk
        self.buffers: deque[_Buffer] = deque()
        self.queue: deque = deque()  # client requests waiting for data: (lba, n, ev, t0)
        self.issued = 0
        self.in_ready = False
        self.state = "idle"  # idle, ready, active, staged
        self.last_active = now
        self.region_end = None


class DispatchHost:
    """The storage node's request path with the dispatch-set scheme (a read port)."""

    def __init__(self, env: simpy.Environment, below, config: DispatchConfig,
                 streams: int | None = None, capacity_sectors: int | None = None):
        self.env = env
        self.below = below
        self.config = config
        #: the device's end: a read of R that would run past it stops there
        self.capacity = capacity_sectors
        d, m = config.resolved(streams or 1 << 30)
        self.D = d
        self.M = int(m * 1024)  # bytes
        self.R = int(config.read_ahead_kib * KIB_SECTORS)  # sectors
        self.N = config.per_visit
        self.free = self.M
        self.classifier = Classifier(int(config.block_kib * KIB_SECTORS), config.offset_blocks,
                                     config.threshold, config.interval_ms)
        self.streams: dict[int, StreamState] = {}
        self._expect: dict[int, StreamState] = {}  # client's next LBA -> stream
        self.ready: deque[StreamState] = deque()
        self.active: list[StreamState] = []
        self._ids = itertools.count()
        self._rids = itertools.count()
        self.stats = {"client_requests": 0, "memory_hits": 0, "direct": 0, "streams": 0,
                      "disk_reads": 0, "disk_bytes": 0, "peak_memory_bytes": 0,
                      "timeouts": 0, "gc_runs": 0, "bitmaps_freed": 0, "visits": 0}
        self.env.process(self._gc())

    # -- public ----------------------------------------------------------------
    def read(self, client: int, lba: int, sectors: int) -> simpy.Event:
        """A client's read: served from a buffer, queued on its stream, or sent as it is."""
        env = self.env
        self.stats["client_requests"] += 1
        ev = env.event()
        s = self._expect.pop(lba, None)
        if s is None:
            if self.classifier.observe(lba, sectors, env.now):
                s = self._new_stream(lba)
            else:
                self.stats["direct"] += 1
                self._direct(client, lba, sectors, ev)
                return ev
        s.client_next = lba + sectors
        self._expect[s.client_next] = s
        s.last_active = env.now
        s.queue.append((lba, sectors, ev, env.now, client))
        self._serve_queue(s)
        if s.queue and not self._covered(s, s.queue[0][0]):
            self._make_ready(s)
        self._pump()
        return ev

    def counters(self) -> dict:
        out = dict(self.stats)
        out.update({"D": self.D, "M_bytes": self.M, "R_bytes": self.R * 512, "N": self.N,
                    "memory_rule_ok": self.M >= self.D * self.R * 512 * self.N})
        return out

    @property
    def memory_in_use(self) -> int:
        return self.M - self.free

    # -- paths ---------------------------------------------------------------------
    def _new_stream(self, lba: int) -> StreamState:
        s = StreamState(next(self._ids), lba, self.env.now)
        self.streams[s.id] = s
        self.stats["streams"] += 1
        return s

    def _direct(self, client: int, lba: int, sectors: int, ev: simpy.Event) -> None:
        done = self.below.read(client, lba, sectors)
        done.callbacks.append(lambda e: ev.succeed(e.value))

    def _covered(self, s: StreamState, lba: int) -> bool:
        return any(b.start <= lba < b.end for b in s.buffers)

    def _make_ready(self, s: StreamState) -> None:
        if s.state in ("ready", "active"):
            return
        s.state = "ready"
        self.ready.append(s)

    def _pump(self) -> None:
        """The issue path: fill the dispatch set, then give each active stream its next read."""
        visit = self.R * 512 * self.N
        while len(self.active) < self.D and self.ready and self.free >= visit:
            s = self.ready.popleft()
            if s.id not in self.streams:
                continue
            s.state = "active"
            s.issued = 0
            # (b): the residency reads from the stream's first unserved block
            first = s.queue[0][0] if s.queue else s.client_next
            if not self._covered(s, first):
                s.disk_pos = max(first, s.buffers[-1].end if s.buffers else first)
            self.free -= visit
            self.stats["peak_memory_bytes"] = max(self.stats["peak_memory_bytes"],
                                                  self.M - self.free)
            self.stats["visits"] += 1
            self.active.append(s)
        for s in list(self.active):
            inflight = any(b.event is not None for b in s.buffers)
            if not inflight and s.issued < self.N:
                self._issue(s)
            elif not inflight and s.issued >= self.N:
                self._leave(s)

    def _issue(self, s: StreamState) -> None:
        env = self.env
        lba, n = s.disk_pos, self.R
        if self.capacity is not None and lba + n > self.capacity:
            n = max(1, self.capacity - lba)
            self.free += (self.R - n) * 512  # the reservation this short read does not use
        ev = self.below.read(-1 - s.id, lba, n)
        buf = _Buffer(lba, lba + n, ev, env.now)
        s.buffers.append(buf)
        s.disk_pos = lba + n
        s.issued += 1
        self.stats["disk_reads"] += 1
        self.stats["disk_bytes"] += n * 512
        ev.callbacks.append(lambda e, s=s, buf=buf: self._completed(s, buf))

    def _leave(self, s: StreamState) -> None:
        """N reads issued and done: the stream is staged; unused reservation is returned."""
        self.active.remove(s)
        s.state = "staged"
        if s.queue and not self._covered(s, s.queue[0][0]):
            self._make_ready(s)  # still has demand: round-robin re-entry

    def _completed(self, s: StreamState, buf: _Buffer) -> None:
        buf.event = None
        buf.done = True
        buf.last_used = self.env.now
        if s.state == "active" and s.issued >= self.N:
            self._leave(s)
        self._pump()  # the issue path first (thesis §4.2)
        self._serve_queue(s)
        if s.queue and not self._covered(s, s.queue[0][0]) and s.state != "active":
            self._make_ready(s)
            self._pump()

    def _serve_queue(self, s: StreamState) -> None:
        """Answer the stream's waiting clients whose data is in memory; free drained buffers."""
        env = self.env
        while s.queue:
            lba, n, ev, t0, client = s.queue[0]
            buf = next((b for b in s.buffers if b.start <= lba < b.end), None)
            if buf is None or not buf.done:
                break
            if lba + n > buf.end:  # straddles two buffers: wait for the next one
                nxt = next((b for b in s.buffers if b.start <= buf.end < b.end), None)
                if nxt is None or not nxt.done:
                    break
            s.queue.popleft()
            hit = env.now == t0
            if hit:
                self.stats["memory_hits"] += 1
            buf.last_used = env.now
            ev.succeed(Completed(next(self._rids), READ, lba, n, t0, t0, env.now,
                                 env.now - t0, 0.0, 0.0, 0.0, 0.0, 0.0, env.now - t0, client,
                                 hit))
            self._release_consumed(s, lba + n)

    def _release_consumed(self, s: StreamState, upto: int) -> None:
        while s.buffers and s.buffers[0].done and s.buffers[0].end <= upto:
            self._free(s.buffers.popleft())
        if s.state == "staged" and not s.buffers:
            s.state = "idle"
        self._pump()

    def _free(self, buf: _Buffer) -> None:
        self.free += (buf.end - buf.start) * 512
        if self.free > self.M:  # only possible through a reservation never used
            self.free = self.M

    def _gc(self):
        """Every ``gc_period_ms``: drop buffers and streams idle longer than the timeout."""
        cfg = self.config
        env = self.env
        while True:
            yield env.timeout(cfg.gc_period_ms)
            self.stats["gc_runs"] += 1
            cutoff = env.now - cfg.timeout_ms
            for s in list(self.streams.values()):
                if s.state in ("active", "ready") or s.queue:
                    continue
                if s.last_active < cutoff and all(b.last_used < cutoff for b in s.buffers):
                    while s.buffers:
                        buf = s.buffers.popleft()
                        if buf.done:
                            self._free(buf)
                            self.stats["timeouts"] += 1
                    self._expect.pop(s.client_next, None)
                    del self.streams[s.id]
            self.stats["bitmaps_freed"] += self.classifier.forget(cutoff)
            self._pump()
