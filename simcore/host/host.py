"""The host's block layer: request queue, merging, plugging, ``nr_requests``, an I/O
scheduler, and a device queue depth (TCQ/NCQ).

Seed 001 §2.0 (Pratt & Heger 2004; Linux 2.6.4 ``ll_rw_blk.c``): a producer's
bio is first offered for merging into a queued request (back merge: it starts
where a request ends; front merge: it ends where one starts); otherwise a new
request is allocated, which blocks the producer when ``nr_requests`` requests
of that direction are already allocated (the per-direction admission limit,
default 128: **not** the device queue depth), and handed to the scheduler.
The driver asks the scheduler for work whenever the device has a free slot:
``depth`` slots (1 = no command queueing; 32 = a typical TCQ/NCQ depth), and
the device's own policy orders what it holds. So scheduling can happen in the
host (``depth=1``), in the drive (``elevator="none"`` and a positional drive
policy with a deep queue), or both.

Plugging (``plug_ms`` > 0): a queue that goes from empty to non-empty holds
its requests for ``plug_ms`` (2.6: 3 ms) or until ``unplug_thresh`` (4) are
queued, so that neighbours can merge; a synchronous request unplugs at once
(the process waits on it). Host CPU time is not modelled.

Durability flags travel with the request: ``submit(..., fua=True)`` sends a Force Unit
Access write to the device, and an ``op`` of :data:`simcore.drive.cache.FLUSH` a FLUSH CACHE; the
block layer never merges either with another request (Linux sends REQ_PREFLUSH and REQ_FUA
through its flush machinery, not the elevator's merging; here they pass through the elevator
unmerged).

The device is anything with ``submit(request)`` and an ``on_complete``
attribute: a :class:`~simcore.drive.Drive` or a :class:`~simcore.array.Array`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, NamedTuple

import simpy

from ..disk.access import Access, HeadState, Mechanism
from ..disk.layout import SECTOR_BYTES
from ..records import READ, WRITE, Completed, Request
from ..sched.linux import Elevator, Rq, get_elevator

__all__ = ["BlockLayer", "FixedDevice", "IdleReadahead", "TraceEvent"]


class TraceEvent(NamedTuple):
    """One line of the block layer's timeline (for the anticipation and deadline figures)."""

    time_ms: float
    kind: str  # queue, merge, dispatch, done, expired, antic-start, antic-stop, idle-start, ...
    rq: int | None
    pid: int | None
    lba: int | None
    sectors: int | None
    note: str = ""


class _Bio:
    __slots__ = ("arrival_ms", "done", "fua", "id", "lba", "op", "pid", "sectors")

    def __init__(self, bid, pid, op, lba, sectors, arrival_ms, done, fua=False):
        self.id, self.pid, self.op, self.lba, self.sectors = bid, pid, op, lba, sectors
        self.arrival_ms, self.done, self.fua = arrival_ms, done, fua


class BlockLayer:
    """A Linux-style block layer in front of one device."""

    def __init__(self, env: simpy.Environment, device: Any, elevator: str | Elevator = "noop",
                 nr_requests: int = 128, depth: int = 1, merge: bool = True,
                 max_sectors: int = 1024, plug_ms: float = 0.0, unplug_thresh: int = 4,
                 trace: bool = False, **tunables):
        if nr_requests < 1 or depth < 1:
            raise ValueError(f"nr_requests ({nr_requests}) and depth ({depth}) must be >= 1")
        self.env = env
        self.device = device
        self.elevator = get_elevator(elevator, **tunables)
        self.nr_requests, self.depth = int(nr_requests), int(depth)
        self.merge, self.max_sectors = merge, int(max_sectors)
        self.plug_ms, self.unplug_thresh = float(plug_ms), int(unplug_thresh)
        device.on_complete = self._device_done
        self.records: list[Completed] = []
        self.events: list[TraceEvent] | None = [] if trace else None
        if trace:
            self.elevator.trace = self._elevator_trace
        self.allocated = [0, 0]
        self.in_flight = 0
        self.counters = {"bios": 0, "requests": 0, "back_merges": 0, "front_merges": 0,
                         "blocked": 0}
        self._waiters: tuple[deque, deque] = (deque(), deque())
        self._queued_end: dict[int, Rq] = {}
        self._queued_start: dict[int, Rq] = {}
        self._inflight: dict[int, Rq] = {}
        self._next_rq = 0
        self._next_bio = 0
        self._plugged = False
        self._timer_at: float | None = None
        self.busy_ms = 0.0
        self._busy_since: float | None = None

    # -- producers ---------------------------------------------------------
    def read(self, pid: int, lba: int, sectors: int, tgid: int | None = None) -> simpy.Event:
        """A synchronous read; the event fires with its :class:`Completed` record."""
        return self.submit(pid, READ, lba, sectors, sync=True, tgid=tgid)

    def write(self, pid: int, lba: int, sectors: int, sync: bool = False,
              tgid: int | None = None, fua: bool = False) -> simpy.Event:
        """A write (asynchronous unless ``sync``); the event fires when the device reports it
        done (on the platter only if the drive writes through, or with ``fua``)."""
        return self.submit(pid, WRITE, lba, sectors, sync=sync, tgid=tgid, fua=fua)

    def submit(self, pid: int, op: str, lba: int, sectors: int, sync: bool | None = None,
               tgid: int | None = None, fua: bool = False) -> simpy.Event:
        """Hand one bio to the block layer; returns an event that fires on its completion.

        A producer that must wait for a free request (``nr_requests``) waits
        inside; the returned event covers the wait, the queue and the device.
        """
        if sectors < 1:
            raise ValueError(f"a bio must move at least one sector (got {sectors})")
        env = self.env
        sync = (op == READ) if sync is None else bool(sync)
        tgid = pid if tgid is None else tgid
        bio = _Bio(self._next_bio, pid, op, int(lba), int(sectors), env.now, env.event(),
                   bool(fua))
        self._next_bio += 1
        self.counters["bios"] += 1
        if self._try_merge(bio, sync, tgid):
            return bio.done
        d = 0 if op == READ else 1
        if self.allocated[d] >= self.nr_requests:
            self.counters["blocked"] += 1
            return env.process(self._wait_and_queue(bio, d, sync, tgid))
        self._queue(bio, d, sync, tgid)
        return bio.done

    def _wait_and_queue(self, bio: _Bio, d: int, sync: bool, tgid: int):
        while self.allocated[d] >= self.nr_requests:
            ev = self.env.event()
            self._waiters[d].append(ev)
            yield ev
            if self._try_merge(bio, sync, tgid):
                return (yield bio.done)
        self._queue(bio, d, sync, tgid)
        return (yield bio.done)

    def _try_merge(self, bio: _Bio, sync: bool, tgid: int) -> bool:
        if not self.merge:
            return False
        el = self.elevator
        rq = self._queued_end.get(bio.lba)
        kind = "back"
        if rq is None or not self._mergeable(rq, bio, sync, tgid):
            rq = self._queued_start.get(bio.lba + bio.sectors) if el.front_merges else None
            kind = "front"
            if rq is None or not self._mergeable(rq, bio, sync, tgid):
                return False
        old_lba = rq.lba
        if kind == "back":
            del self._queued_end[rq.end]
            rq.sectors += bio.sectors
            self._queued_end[rq.end] = rq
        else:
            del self._queued_start[rq.lba]
            rq.lba = bio.lba
            rq.sectors += bio.sectors
            self._queued_start[rq.lba] = rq
        rq.bios.append(bio)
        self.counters[f"{kind}_merges"] += 1
        el.merged(rq, old_lba, self.env.now)
        self._trace(kind + "-merge", rq)
        return True

    def _mergeable(self, rq: Rq, bio: _Bio, sync: bool, tgid: int) -> bool:
        return (rq.op == bio.op and rq.op in (READ, WRITE) and not bio.fua
                and not any(b.fua for b in rq.bios) and rq.dispatch_ms is None
                and rq.sectors + bio.sectors <= self.max_sectors
                and self.elevator.allow_merge(rq, bio.op, sync, bio.pid, tgid))

    def _queue(self, bio: _Bio, d: int, sync: bool, tgid: int) -> None:
        now = self.env.now
        rq = Rq(self._next_rq, bio.op, bio.lba, bio.sectors, bio.pid, tgid, sync, now)
        self._next_rq += 1
        rq.bios.append(bio)
        self.allocated[d] += 1
        self.counters["requests"] += 1
        if self.merge:
            self._queued_end.setdefault(rq.end, rq)
            self._queued_start.setdefault(rq.lba, rq)
        was_empty = len(self.elevator) == 0 and self.in_flight == 0
        self.elevator.add(rq, now)
        self._trace("queue", rq, rq.op)
        if self.plug_ms > 0 and was_empty and not sync:
            self._plug()
        elif self._plugged and (sync or len(self.elevator) >= self.unplug_thresh):
            self._plugged = False
        self._kick()

    # -- plugging and timers -------------------------------------------------
    def _plug(self) -> None:
        self._plugged = True

        def unplug():
            yield self.env.timeout(self.plug_ms)
            if self._plugged:
                self._plugged = False
                self._kick()

        self.env.process(unplug())

    def _arm_timer(self, at: float) -> None:
        if self._timer_at is not None and self._timer_at <= at:
            return
        self._timer_at = at
        env = self.env

        def fire():
            yield env.timeout(max(0.0, at - env.now))
            if self._timer_at == at:
                self._timer_at = None
            el = self.elevator
            if el.timer_at is not None and env.now >= el.timer_at - 1e-9:
                el.on_timer(env.now)
            self._kick()

        env.process(fire())

    # -- the driver ----------------------------------------------------------
    def _kick(self) -> None:
        if self._plugged:
            return
        el, now = self.elevator, self.env.now
        while self.in_flight < self.depth:
            rq = el.dispatch(now)
            if rq is None:
                break
            self._send(rq, now)
        if el.timer_at is not None:
            if el.timer_at > now:
                self._arm_timer(el.timer_at)
            else:
                el.on_timer(now)
                self._kick()

    def _send(self, rq: Rq, now: float) -> None:
        if self.merge:
            if self._queued_end.get(rq.end) is rq:
                del self._queued_end[rq.end]
            if self._queued_start.get(rq.lba) is rq:
                del self._queued_start[rq.lba]
        rq.dispatch_ms = now
        self.in_flight += 1
        if self._busy_since is None:
            self._busy_since = now
        self._inflight[rq.id] = rq
        self._trace("dispatch", rq, rq.op)
        client = rq.bios[0].pid
        fua = any(b.fua for b in rq.bios)
        self.device.submit(Request(rq.id, now, rq.op, rq.lba, rq.sectors, client, fua))

    def _device_done(self, rec: Completed) -> None:
        now = self.env.now
        rq = self._inflight.pop(rec.id)
        self.in_flight -= 1
        if self.in_flight == 0 and self._busy_since is not None:
            self.busy_ms += now - self._busy_since
            self._busy_since = None
        d = rq.dir
        self.allocated[d] -= 1
        if self._waiters[d]:
            self._waiters[d].popleft().succeed()
        self._trace("done", rq)
        self.elevator.completed(rq, now)
        for bio in rq.bios:
            out = Completed(
                bio.id, bio.op, bio.lba, bio.sectors, bio.arrival_ms, rec.start_ms,
                rec.finish_ms, rec.start_ms - bio.arrival_ms, rec.overhead_ms, rec.seek_ms,
                rec.rotation_ms, rec.transfer_ms, rec.interface_ms,
                rec.finish_ms - bio.arrival_ms, bio.pid, rec.cache_hit)
            self.records.append(out)
            bio.done.succeed(out)
        self._kick()

    # -- tracing -------------------------------------------------------------
    def _trace(self, kind: str, rq: Rq | None, note: str = "") -> None:
        if self.events is not None:
            self.events.append(TraceEvent(
                self.env.now, kind, None if rq is None else rq.id,
                None if rq is None else rq.pid, None if rq is None else rq.lba,
                None if rq is None else rq.sectors, note))

    def _elevator_trace(self, now: float, kind: str, rq: Rq | None, note: str) -> None:
        self._trace(kind, rq, note)

    @property
    def queued(self) -> int:
        """Requests in the scheduler (not yet sent to the device)."""
        return len(self.elevator)


class FixedDevice:
    """A teaching device: serves requests in arrival order, each in ``service_ms``.

    With it a block layer's dispatch order depends on the I/O scheduler alone,
    which is what hand-worked exercises want. ``got`` lists what it received.
    """

    def __init__(self, env: simpy.Environment, service_ms: float = 1.0):
        self.env, self.service_ms = env, float(service_ms)
        self.on_complete: Callable[[Completed], None] | None = None
        self.got: list[Request] = []
        self._free_at = 0.0

    def submit(self, req: Request) -> None:
        self.got.append(req)
        start = max(self.env.now, self._free_at)
        self._free_at = end = start + self.service_ms
        self.env.process(self._finish(req, start, end))

    def _finish(self, req: Request, start: float, end: float):
        yield self.env.timeout(end - self.env.now)
        rec = Completed(req.id, req.op, req.lba, req.sectors, req.arrival_ms, start, end,
                        start - req.arrival_ms, 0.0, 0.0, 0.0, end - start, 0.0,
                        end - req.arrival_ms, req.client)
        if self.on_complete is not None:
            self.on_complete(rec)


class IdleReadahead:
    """A drive's read-ahead while idle: a stand-in ``service=`` for :class:`~simcore.drive.Drive`.

    Gray 2000 §2.10 (note 000): after a read the drive keeps reading the
    following sectors into its buffer until the next command arrives, up to a
    segment (``max_kib``; the profile's ``max_read_ahead_kib`` or 128 KiB).
    A read that starts inside what has been read ahead is a hit for that part;
    if the read-ahead is still running, the rest streams on without a seek or a
    rotational wait. Anything else is served mechanically (``Mechanism.access``).
    One segment, one stream: this is the part of a drive cache that decides
    whether a sequential reader who pauses between requests loses a revolution,
    which is what anticipatory scheduling is about. The project's full cache
    model (segments, write-back) is a separate module; this class keeps the
    scheduling experiments independent of it.
    """

    def __init__(self, mechanism: Mechanism, max_kib: float | None = None):
        self.mech = mechanism
        prof = mechanism.profile
        cache = getattr(prof, "cache", None)
        default = getattr(cache, "max_read_ahead_kib", 0) or 128
        self.max_sectors = int((max_kib if max_kib is not None else default) * 1024
                               // SECTOR_BYTES)
        ov = prof.overheads
        self.read_miss_ms, self.read_hit_ms, self.write_ms = (
            ov.read_miss_ms, ov.read_hit_ms or ov.read_miss_ms, ov.write_ms)
        self.bus_sector_ms = mechanism.bus_sector_ms
        self._stream_ms: dict[int, float] = {}
        self.next_lba: int | None = None  # where the read-ahead started
        self.since_ms = 0.0  # when the read-ahead started (the media time of next_lba)
        self.hits = self.partial = self.misses = 0

    def sector_ms(self, lba: int) -> float:
        """Media time per sector when streaming, track switches and skew included."""
        layout = self.mech.layout
        zone = layout.zone_of(lba)
        t = self._stream_ms.get(zone)
        if t is None:
            first, end = layout.zone_lba_range(zone)
            n = min(end - first - 1, 8 * layout.sectors_per_track(zone))
            addr = layout.locate(first)
            head = HeadState(addr.cylinder, addr.surface)
            wait = self.mech.positioning_ms(first, False, 0.0, head)
            acc = self.mech.access(first, n, False, 0.0, head)
            t = (acc.end_ms - acc.interface_ms - wait) / n
            self._stream_ms[zone] = t
        return t

    def __call__(self, req: Request, start_ms: float, head: HeadState
                 ) -> tuple[float, Access, bool]:
        mech = self.mech
        if req.op == WRITE:
            self.next_lba = None
            acc = mech.access(req.lba, req.sectors, True, start_ms + self.write_ms, head)
            return self.write_ms, acc, False
        base = self.next_lba
        if base is not None and base <= req.lba < base + self.max_sectors:
            st = self.sector_ms(base)
            have = base + min(self.max_sectors, int((start_ms - self.since_ms) / st))
            end = req.lba + req.sectors
            bus = req.sectors * self.bus_sector_ms
            if end <= have:  # all of it is in the buffer already
                self.hits += 1
                addr = mech.layout.locate(min(have, mech.layout.capacity - 1))
                t = start_ms + self.read_hit_ms + bus
                return self.read_hit_ms, Access(0.0, 0.0, 0.0, bus, t, addr.cylinder,
                                                addr.surface), True
            if have < base + self.max_sectors and end <= base + self.max_sectors:
                # the read-ahead is still running: the rest streams in without a seek
                self.partial += 1
                media_end = max(start_ms + self.read_hit_ms, self.since_ms + (end - base) * st)
                xfer = media_end - start_ms - self.read_hit_ms
                tail = min(bus, max(self.bus_sector_ms, bus - (media_end - start_ms)))
                addr = mech.layout.locate(end - 1)
                acc = Access(0.0, 0.0, xfer, tail, media_end + tail, addr.cylinder,
                             addr.surface)
                self.next_lba, self.since_ms = end, media_end
                return self.read_hit_ms, acc, False
        self.misses += 1
        acc = mech.access(req.lba, req.sectors, False, start_ms + self.read_miss_ms, head)
        self.next_lba = req.lba + req.sectors
        self.since_ms = acc.end_ms - acc.interface_ms
        return self.read_miss_ms, acc, False


Service = Callable[[Request, float, HeadState], tuple[float, Access, bool]]
