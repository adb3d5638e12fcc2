"""The drive as a SimPy process: a queue, a policy, overheads and the mechanism.

One process per drive (never one per request): it waits while the queue is
empty, asks the policy for the next request, computes the request's service
arithmetically (:mod:`simcore.disk.access`) and sleeps for it. Seeds: Gray 2000
§2.6 (command overhead, media and interface stages), Seltzer et al. 1990 as
summarised in Gray §3 (queue plus policy).

Two paths. The default (no ``cache``, no ``interface``) is the fast one: an
ideal interface and no buffer, one arithmetic service per request. Given a
``cache`` (:class:`~simcore.drive.cache.CacheConfig`) or an ``interface``
(:class:`~simcore.drive.interface.Port`), the drive instead keeps a segmented
buffer whose read-ahead and destaging go on between commands, moves data over
a :class:`~simcore.channel.Channel` it may share with another drive, and, for
PIO, needs the host's :class:`~simcore.cpu.Cpu` for every DRQ block (Gray
§2.8: "A PIO transfer of N words requires N loads, N stores"); under DMA it
takes one completion interrupt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import sub
from typing import Any

import numpy as np
import simpy

from ..disk.access import Access, HeadState, Mechanism, Plan, TrackPlan
from ..disk.layout import SECTOR_BYTES
from ..disk.profile import DiskProfile
from ..records import WRITE, Completed, Request
from ..sched import get_scheduler
from .cache import FLUSH
from .cache_config import segment_cap

_new_tuple = tuple.__new__  # a NamedTuple from all its fields, as its constructor makes it
PIO_GRAIN_SECTORS = 16  # PIO blocks the simulator moves per CPU slice when they are all ready

# what the buffered drive's process waits on (Drive._serve_open_buffered)
_BUSY = "busy"  # the next step of a command
_IDLE = "idle"  # its wake-up
_IDLE_OR_BACKGROUND = "idle or background"  # its wake-up or the end of background work
_CONDITION = "condition"  # the event of that condition, triggered by one of the two


class HeadView:
    """The narrow window a scheduling policy gets onto the drive."""

    __slots__ = ("_drive",)

    def __init__(self, drive: Drive):
        self._drive = drive

    @property
    def cylinder(self) -> int:
        return self._drive.head.cylinder

    @property
    def surface(self) -> int:
        return self._drive.head.surface

    @property
    def last_lba(self) -> int:
        """One past the last sector the drive served (LBN-based policies sweep from here)."""
        return self._drive.last_lba

    @property
    def cylinders(self) -> int:
        return self._drive.mechanism.layout.cylinders

    def cylinder_of(self, lba: int) -> int:
        return self._drive.mechanism.layout.cylinder_of(lba)

    def seek_ms(self, distance: int) -> float:
        return self._drive.mechanism.seek.seek_ms(distance)

    def positioning_ms(self, request: Request, now: float) -> float:
        """Seek plus rotational wait to the request's first sector, if started at ``now``."""
        d = self._drive
        return d.mechanism.positioning_ms(request.lba, request.op == WRITE, now, d.head)

    def service_ms(self, request: Request, now: float) -> float:
        """Full mechanical time (positioning and transfer) if started at ``now``."""
        d = self._drive
        a = d.mechanism.access(request.lba, request.sectors, request.op == WRITE, now, d.head)
        return a.end_ms - now


ServiceFn = Callable[[Request, float, HeadState], tuple[float, Access, bool]]


def _wake_comes_next(state: str, now: float, dev: tuple | None, feed: tuple | None) -> bool:
    """Whether, in :meth:`Drive._serve_open_buffered`, the wake-up just made at ``now`` is
    the next event and the drive's process runs right after it, nothing else coming
    between (so the loop may take both at once).

    An idle drive runs on its wake-up, which precedes any other event of its time (it
    was made last, but a feeder's event of the same time comes only after it, and the
    drive has none). An idle drive waiting on background work too needs one more event,
    the condition the wake-up triggers (made then, at ``now``): it runs next if the
    background work ends strictly later and the feeder's next arrival too (an arrival
    at ``now``, made after the wake-up, would come before the condition)."""
    if state is _IDLE:
        return True
    return dev[0] > now and (feed is None or feed[0] > now)


def _sector_times(plan: Plan | TrackPlan | None, n: int, mech: Mechanism) -> np.ndarray:
    """Each of a read's ``n`` sectors' pass time (its track's sector time), from the plan of
    its media part, which covers the read's last sectors (a partial hit's first ones were
    buffered: they take the first track's, and no rule asks about them); without a plan, the
    outermost zone's."""
    if plan is None:
        return np.full(n, mech.rev_ms / mech.layout.sectors_per_track(mech.layout.zone_of(0)))
    each = (np.full(plan.count, plan.sector_ms) if isinstance(plan, TrackPlan)
            else plan.sector_ms_each())
    if len(each) < n:
        each = np.concatenate([np.full(n - len(each), each[0]), each])
    return each


def _take(pending: list[Request], req: Request) -> Request:
    """Remove the chosen ``req`` from the queue (the head, cheaply, when it is the head)."""
    if req is pending[0]:
        pending.pop(0)
    else:
        pending.remove(req)
    return req


class Drive:
    """A disk drive serving requests from its queue, one at a time."""

    def __init__(
        self,
        env: simpy.Environment,
        disk: DiskProfile | Mechanism,
        scheduler: Any = "fcfs",
        on_complete: Callable[[Completed], None] | None = None,
        service: ServiceFn | None = None,
        name: str = "disk0",
        *,
        cache: Any = None,
        interface: Any = None,
        channel: Any = None,
        cpu: Any = None,
        trace: list | None = None,
        events: Any = None,
    ):
        self.env = env
        self.mechanism = disk if isinstance(disk, Mechanism) else Mechanism(disk)
        self.profile = self.mechanism.profile
        policy = get_scheduler(scheduler)
        self._choose = policy.choose if hasattr(policy, "choose") else policy
        self.scheduler = policy
        self.on_complete = on_complete
        self.name = name
        self.head = HeadState(self.profile.initial_cylinder, 0)
        self.view = HeadView(self)
        self.pending: list[Request] = []
        self.completed: list[Completed] = []
        self.busy_ms = 0.0
        self.last_lba = 0
        self._wake: simpy.Event | None = None
        self._ov = ov = self.profile.overheads
        self._after_write = False  # the type of the command before: overheads depend on it
        # [is_write][after_write] -> command setup; [is_write] -> completion (looked up per request)
        self._setup_ms = ((ov.read_miss(False), ov.read_miss(True)),
                          (ov.write(False), ov.write(True)))
        self._done_ms = (ov.completion(False), ov.completion(True))
        self._service = service or self._mechanical_service
        # rare firmware events (error recovery, recalibration, media scans): none unless given
        self.events = (events.bind(self.mechanism.rev_ms)
                       if events is not None and events.enabled else None)
        self._last_finish = 0.0
        self._open_served = False
        self.cache = None
        self.port = None
        if cache is not None or interface is not None or channel is not None or cpu is not None:
            if service is not None:
                raise ValueError("give either service= or cache=/interface=, not both")
            self._setup_buffered(cache, interface, channel, cpu, trace)
            self.process = env.process(self._run_buffered())
        else:
            self.process = env.process(self._run())

    def submit(self, request: Request) -> None:
        """Put a request in the queue (at the current simulated time)."""
        self.pending.append(request)
        wake = self._wake
        if wake is not None:
            self._wake = None
            wake.succeed()

    @property
    def queue_length(self) -> int:
        return len(self.pending)

    def _mechanical_service(self, req: Request, start: float,
                            head: HeadState) -> tuple[float, Access, bool]:
        is_write = req.op == WRITE
        overhead = self._setup_ms[is_write][self._after_write]
        acc = self.mechanism.access(req.lba, req.sectors, is_write, start + overhead, head)
        return overhead, acc, False

    def _run(self):
        env, pending = self.env, self.pending
        choose, view = self._choose, self.view
        begin, end = self._begin, self._end
        while True:
            if not pending:
                self._wake = env.event()
                yield self._wake
            now = env.now
            req = _take(pending, choose(pending, view, now))
            finish, state = begin(req, now)
            yield env.timeout(finish - now)
            end(req, now, finish, state)

    def _begin(self, req: Request, now: float) -> tuple[float, Any]:
        """Start serving ``req`` at ``now`` on the fast path: when it ends, and what
        :meth:`_end` needs to record it."""
        if req.op == FLUSH:  # no buffer: nothing is dirty, the command only completes
            return now + self._done_ms[False], None
        overhead, acc, hit = self._service(req, now, self.head)
        is_write = req.op == WRITE
        done_ov = self._done_ms[is_write]
        self._after_write = is_write
        finish = acc.end_ms + done_ov
        events = self.events
        if events is not None:  # the delay comes at the end: the media work is as planned
            extra = events.delay(req.id, now, self._last_finish,
                                 0 if is_write or hit else req.sectors)
            finish += extra
            overhead += extra
        return finish, (overhead + done_ov, acc, hit)

    def _end(self, req: Request, now: float, finish: float, state: Any) -> None:
        """``req``, started at ``now``, ended at ``finish``: move the head, keep the record."""
        if state is None:
            self._finish_flush(req, now, finish)
            return
        overhead, acc, hit = state
        self._last_finish = finish
        head = self.head
        head.cylinder, head.surface = acc.cylinder, acc.surface
        self.last_lba = req.lba + req.sectors
        self.busy_ms += finish - now
        rec = Completed(
            req.id, req.op, req.lba, req.sectors, req.arrival_ms, now, finish,
            now - req.arrival_ms, overhead, acc.seek_ms, acc.rotation_ms,
            acc.transfer_ms, acc.interface_ms, finish - req.arrival_ms, req.client, hit,
        )
        self.completed.append(rec)
        if self.on_complete is not None:
            self.on_complete(rec)

    def serves_open(self, requests: Sequence[Request]) -> bool:
        """Whether :meth:`serve_open` can serve ``requests`` without SimPy's event loop.

        Always on the fast path. With a buffer, when the drive's interface costs no CPU,
        holds only its own bus and only while data moves (an ideal port, the firmware's
        default), nothing is traced, and every read fits a segment (so it goes in one
        burst: :meth:`_dma_burst`)."""
        cache, port = self.cache, self.port
        if cache is None and port is None:
            return True
        if (port.is_pio or port.hold != "transfer" or port.costs.irq_us > 0
                or not self._own_bus or self.trace is not None):
            return False
        cfg = cache.config
        cap = cache.cap
        if cfg.adaptive:  # the smallest segment re-segmenting can make
            cap = min(cap, segment_cap(cfg.size_kib, cfg.max_segments, cache._block))
        # the size first (few requests exceed a segment), in a list comprehension: one
        # loop, not a generator resumed per request; then only those need their op read
        too_large = [r for r in requests if r.sectors > cap]
        return all(r.op == WRITE or r.op == FLUSH for r in too_large)

    def serve_open(self, requests: Sequence[Request]) -> float:
        """Serve an open stream of requests without SimPy's event loop.

        The engine's choice for a lone drive fed by an open workload, before the
        environment has run, when :meth:`serves_open` says it can: the same steps as
        :meth:`_run` (or :meth:`_run_buffered`) fed by the engine's open feeder, in the
        order SimPy would take them. Each of the two processes has at most one event
        waiting (the feeder's next arrival, the drive's next step or its wake-up); the
        earlier runs first, equal times in the order they were scheduled (SimPy's event
        ids), and every time is computed as SimPy computes it (``now + delay``), so the
        records are the same to the bit. Returns the time of the last event (where
        SimPy's clock would stop).
        """
        if self.cache is not None or self.port is not None:
            return self._serve_open_buffered(requests)
        pending, choose, view = self.pending, self._choose, self.view
        begin, end = self._begin, self._end
        n = len(requests)
        now = self.env.now  # SimPy's clock starts at the integer 0
        eid = 2  # SimPy's ids: 0 and 1 went to the drive's and the feeder's start
        i = 0
        armed = True  # the drive waits for work (its start found the queue empty)
        # the next event of each process: (time, priority, id); the feeder's start is urgent
        feed: tuple | None = (now, 0, 1)
        wake: tuple | None = None
        busy: tuple | None = None
        req = state = None
        start = finish = now
        while True:
            nxt = feed
            if wake is not None and (nxt is None or wake < nxt):
                nxt = wake
            if busy is not None and (nxt is None or busy < nxt):
                nxt = busy
            if nxt is None:
                return now
            now = nxt[0]
            if nxt is feed:
                if nxt[1]:  # resumed after waiting for this request's arrival: submit it
                    pending.append(requests[i])
                    i += 1
                    if armed:
                        armed, wake = False, (now, 1, eid)
                        eid += 1
                feed = None
                while i < n:
                    r = requests[i]
                    delay = r.arrival_ms - now
                    if delay > 0:
                        feed = (now + delay, 1, eid)
                        eid += 1
                        break
                    pending.append(r)
                    i += 1
                    if armed:
                        armed, wake = False, (now, 1, eid)
                        eid += 1
                continue
            if nxt is busy:
                busy = None
                end(req, start, finish, state)
                if not pending:
                    armed = True
                    continue
            else:
                wake = None
            start = now
            req = _take(pending, choose(pending, view, now))
            finish, state = begin(req, now)
            if finish - now < 0:
                raise ValueError(f"Negative delay {finish - now}")  # as SimPy's timeout
            busy = (now + (finish - now), 1, eid)
            eid += 1

    def _finish_flush(self, req: Request, start: float, finish: float) -> None:
        self._last_finish = finish
        self.busy_ms += finish - start
        rec = Completed(req.id, req.op, req.lba, req.sectors, req.arrival_ms, start, finish,
                        start - req.arrival_ms, finish - start, 0.0, 0.0, 0.0, 0.0,
                        finish - req.arrival_ms, req.client, False)
        self.completed.append(rec)
        if self.on_complete is not None:
            self.on_complete(rec)

    # -- the buffered path: cache, channel, CPU ----------------------------------
    def _setup_buffered(self, cache, interface, channel, cpu, trace) -> None:
        from .cache import CacheConfig, SegmentCache
        from .channel import Channel
        from .cpu import Cpu
        from .interface import Mode, Port

        prof = self.profile
        if isinstance(cache, SegmentCache):
            self.cache = cache
        else:
            if cache is None:
                cfg = CacheConfig.speed_matching(prof.cache.size_kib or 1024)
            elif cache is True:
                cfg = CacheConfig.from_profile(prof)
            elif isinstance(cache, CacheConfig):
                cfg = cache
            else:
                raise TypeError(f"cache must be a CacheConfig, a SegmentCache or True, "
                                f"not {type(cache).__name__}")
            self.cache = SegmentCache(cfg, self.mechanism)
        if interface is None:
            port = Port.ideal(prof.interface_mb_s)
        elif isinstance(interface, str | Mode):
            port = Port.of(interface)
        elif isinstance(interface, Port):
            port = interface
        else:
            raise TypeError(f"interface must be a Port or a mode name, not "
                            f"{type(interface).__name__}")
        self.port = port
        self.channel = channel if channel is not None else Channel(self.env, f"{self.name}-bus")
        self._own_bus = channel is None
        self.cpu = cpu if cpu is not None else Cpu(self.env, f"{self.name}-cpu")
        self.trace = trace
        self.interrupts = 0
        ov = self._ov  # [hit][after_write] -> a read's command overhead
        self._read_ov = ((ov.read_miss(False), ov.read_miss(True)),
                         (ov.read_hit(False), ov.read_hit(True)))
        # [after_write] -> a read's miss and hit overheads and the data preparation after them
        self._read_ovs = tuple((ov.read_miss(aw), ov.read_hit(aw), ov.data_prep_ms)
                               for aw in (False, True))
        self._watermark = prof.read_watermark
        self._burst_offsets: dict[int, list[float]] = {}  # _burst_start's, per length
        # a read miss disconnects and reselects (see _read_data_start)
        self._read_handshakes = bool(ov.reselect_ms or ov.read_disconnect_ms
                                     or ov.read_disconnect_after_write_ms)
        self._bus_ms = port.mode.sector_ms if port.mode.transfer_ns > 0 else 0.0
        self._bus_write_ms = self._bus_ms
        w = prof.interface_write_mb_s
        own = prof.interface_mb_s > 0 and port.mode.name == "ideal" and abs(
            self._bus_ms - SECTOR_BYTES / (prof.interface_mb_s * 1000.0)) < 1e-12
        if w > 0 and own:  # the profile's own bus: its write rate too
            self._bus_write_ms = SECTOR_BYTES / (w * 1000.0)

    def _run_buffered(self):
        if self._open_served:  # serve_open did this process's work before the clock ran
            return
        env, pending, cache, head = self.env, self.pending, self.cache, self.head
        choose, view = self._choose, self.view
        while True:
            if not pending:
                wake = self._wake = env.event()
                nxt = cache.background(env.now, head)
                if nxt is not None and nxt > env.now:
                    yield wake | env.timeout(nxt - env.now)
                else:
                    yield wake
                continue
            now = env.now
            req = choose(pending, view, now)
            if req is pending[0]:
                pending.pop(0)
            else:
                pending.remove(req)
            yield from self._serve(req)

    def _serve(self, req: Request):
        from .cache import FLUSH

        env, chan = self.env, self.channel
        start = env.now
        creq = None
        if self.port.hold == "command":
            creq = chan.request()
            yield creq
        t = env.now
        try:
            if req.op == WRITE:
                parts = yield from self._serve_write(req, t)
            elif req.op == FLUSH:
                parts = yield from self._serve_flush(req, t)
            else:
                parts = yield from self._serve_read(req, t)
        finally:
            if creq is not None:
                chan.resource.release(creq)
                chan.note(self.name, "held", t, env.now)
        overhead, seek, rot, xfer, hit = parts
        done_ov = self._ov.completion(req.op == WRITE)
        if req.op != FLUSH:
            self._after_write = req.op == WRITE
        if self.events is not None:  # after the media work, which went as planned
            reads = req.sectors if req.op not in (WRITE, FLUSH) and not hit else 0
            extra = self.events.delay(req.id, start, self._last_finish, reads)
            done_ov += extra
        if done_ov:
            yield env.timeout(done_ov)
        finish = env.now
        self._last_finish = finish
        overhead += done_ov
        if req.op != FLUSH:
            self.last_lba = req.lba + req.sectors
        self.busy_ms += finish - start
        iface = max(0.0, finish - start - overhead - seek - rot - xfer)
        rec = Completed(req.id, req.op, req.lba, req.sectors, req.arrival_ms, start, finish,
                        start - req.arrival_ms, overhead, seek, rot, xfer, iface,
                        finish - req.arrival_ms, req.client, hit)
        self.completed.append(rec)
        if self.on_complete is not None:
            self.on_complete(rec)

    # -- the buffered path without the event loop -------------------------------
    def _serve_open_buffered(self, requests: Sequence[Request]) -> float:
        """:meth:`serve_open` for a drive with a buffer (see :meth:`serves_open`).

        The drive's process (:meth:`_run_buffered`) waits on one event at a time: the next
        step of a command (:meth:`_open_command` gives each step's time, computed as SimPy
        would), or, when idle, its wake-up, or the wake-up or the end of background work
        (``wake | timeout``: whichever comes first triggers the condition, which is one
        more event before the process runs). Events SimPy would still hold but nobody
        waits on (the other half of a condition) change nothing but where the clock
        stops, which is kept in ``tail``. Steps of a command that all come before the
        next arrival are taken at once: nothing else happens between them, and the last
        one's place among events of equal time is the same.
        """
        self._open_served = True
        pending, choose, view = self.pending, self._choose, self.view
        cache, head = self.cache, self.head
        command, completed, notify = self._open_command, self.completed, self.on_complete
        n = len(requests)
        now = self.env.now
        eid = 2  # as in serve_open: the drive's start (0) runs first, then the feeder's (1)
        i = 0
        feed: tuple | None = (now, 0, 1)
        dev: tuple | None = None  # the drive's event: a step, a background end or a condition
        state = _IDLE  # what the drive waits for
        wake: tuple | None = None  # the wake-up event, once a submission triggered it
        armed = False  # a wake-up event exists, not yet triggered
        steps: list[float] = []
        k = last = 0
        rec = None
        tail = now
        run = True  # the drive's process runs at ``now`` (its start)
        while True:
            if run:  # the top of _run_buffered's loop
                run = False
                while True:
                    if not pending:
                        armed = True
                        ra = cache.stream
                        if (ra is not None and now < ra.end_ms and ra.kind == "read"
                                and not cache._marked):
                            # a read-ahead under way, no segment dirty: background() would
                            # say its end and idle_at_end() True (both inlined: the drive
                            # goes idle so after most commands)
                            ra_end = now + (ra.end_ms - now)  # (as the timeout's time)
                            if ra_end > tail:  # (max, without its call)
                                tail = ra_end
                            state = _IDLE
                            dev = None
                            break
                        nxt = cache.background(now, head)
                        if nxt is not None and nxt > now and cache.idle_at_end():
                            # a read-ahead with nothing dirty: the process, woken at its end,
                            # would find nothing to do and wait on, its next command starting
                            # when the next one arrives, as it starts here; so it waits for
                            # work alone (the events it would have made between come in the
                            # same order; only where SimPy's clock stops keeps the timeout)
                            tail = max(tail, now + (nxt - now))
                            state = _IDLE
                            dev = None
                        elif nxt is not None and nxt > now:
                            state = _IDLE_OR_BACKGROUND
                            dev = (now + (nxt - now), 1, eid)
                            eid += 1
                        else:
                            state = _IDLE
                            dev = None
                        break
                    req = _take(pending, choose(pending, view, now))
                    steps, rec = command(req, now)
                    if steps:
                        state, k = _BUSY, 0
                        last = len(steps) - 1
                        if last and (feed is None or steps[last - 1] < feed[0]):
                            k = last  # no arrival comes between: straight to the last step
                        dev = (steps[k], 1, eid)
                        eid += 1
                        break
                    completed.append(rec)  # a command that never waited
                    if notify is not None:
                        notify(rec)
            nxt = feed
            if dev is not None and (nxt is None or dev < nxt):
                nxt = dev
            if wake is not None and (nxt is None or wake < nxt):
                nxt = wake
            if nxt is None:
                return now if now > tail else tail
            now = nxt[0]
            if nxt is feed:
                if nxt[1]:  # resumed after waiting for this request's arrival: submit it
                    pending.append(requests[i])
                    i += 1
                    if armed:
                        armed = False
                        if state is not _CONDITION:  # else the wake-up comes too late
                            wake = (now, 1, eid)
                            eid += 1
                feed = None
                while i < n:
                    r = requests[i]
                    delay = r.arrival_ms - now
                    if delay > 0:
                        feed = (now + delay, 1, eid)
                        eid += 1
                        break
                    pending.append(r)
                    i += 1
                    if armed:
                        armed = False
                        if state is not _CONDITION:
                            wake = (now, 1, eid)
                            eid += 1
                if wake is not None and (state is _IDLE or _wake_comes_next(state, now, dev,
                                                                            feed)):
                    wake, run = None, True  # the drive runs now, as the branch below has it
                    if state is _IDLE_OR_BACKGROUND:  # after the condition's own event
                        tail = max(tail, dev[0])
                        state, dev = _CONDITION, None
                        eid += 1
                continue
            if nxt is wake:
                wake = None
                if state is _IDLE:
                    run = True
                elif state is _IDLE_OR_BACKGROUND:  # the condition fires; the timeout stays
                    tail = max(tail, dev[0])
                    state, dev = _CONDITION, (now, 1, eid)
                    eid += 1
                continue
            if state is _BUSY:
                k += 1
                if k <= last:
                    if k < last and (feed is None or steps[last - 1] < feed[0]):
                        k = last
                    dev = (steps[k], 1, eid)
                    eid += 1
                else:
                    dev = None
                    completed.append(rec)
                    if notify is not None:
                        notify(rec)
                    run = True
            elif state is _IDLE_OR_BACKGROUND:  # the background work ended first
                state, dev = _CONDITION, (now, 1, eid)
                eid += 1
                if wake is None and (feed is None or feed[0] > now):
                    dev, run = None, True  # the condition's event is next: the drive runs
            else:  # the condition: the drive runs
                dev = None
                run = True

    def _open_command(self, req: Request, now: float) -> tuple[list[float], Completed]:
        """Serve ``req`` from ``now`` as :meth:`_serve` does on an ideal port of its own:
        the times of the events the process would wait on, in order, and the record."""
        start = t = now
        steps: list[float] = []
        cache, head = self.cache, self.head
        # the request's fields, read once (a NamedTuple's field look-up is not a cheap one)
        rid, arrival, op, lba, n, client, fua = req
        if op == WRITE:
            o = self._ov
            ov = data_ov = o.write(self._after_write)
            extra = (o.random_write_setup_ms is not None and self._after_write
                     and lba != self.last_lba)
            if extra:
                ov = o.random_write_setup_ms
                data_ov = (o.random_write_data_ms or ov) + o.reselect_ms
            data_ov += o.data_prep_ms
            space = cache.write_space(lba, n, t, fua=fua, head=head)
            disc, resel = self._write_handshakes(extra)
            if data_ov:
                now = now + data_ov
                steps.append(now)
            steps.append(now)  # _dma_out: the bus, granted at once
            b = self._bus_write_ms
            idx = np.arange(n, dtype=float)
            arrive = (idx + 1) * b + np.maximum(now, np.maximum.accumulate(space - idx * b))
            svc = cache.write(lba, n, arrive, t + ov, head, fua=fua,
                              feed=self._write_feed(now, space, disc, resel), arrival_ms=t)
            if svc.arrive_ms is not None:
                arrive = svc.arrive_ms
            end = float(arrive[-1]) if n else now
            if end > now:
                now = now + (end - now)
                steps.append(now)
            self.channel.data_ms += n * b
            if svc.media_end_ms is not None:  # write-through: disconnect, reselect
                end = max(svc.media_end_ms, float(arrive[-1]) + disc if n else 0.0) + resel
                if end > now:
                    now = now + (end - now)
                    steps.append(now)
            self.interrupts += 1
            if svc.media_end_ms is None:
                overhead, seek, rot, xfer, hit = ov, 0.0, 0.0, 0.0, True
            else:
                overhead, seek, rot, xfer, hit = (ov, svc.seek_ms, svc.rotation_ms,
                                                  svc.transfer_ms, False)
        elif op == FLUSH:
            end = cache.flush(t, head)
            if end > now:
                now = now + (end - now)
                steps.append(now)
            self.interrupts += 1
            overhead, seek, rot, xfer, hit = 0.0, 0.0, 0.0, max(0.0, end - t), False
        else:
            found = cache.find(lba, n, t)
            kind = found[0]
            hit = kind == "hit" or kind == "stream"
            aw = self._after_write
            miss_ov, hit_ov, prep = self._read_ovs[aw]
            ov = hit_ov if hit else miss_ov
            # _serve_read: a partial hit's buffered head goes after the read hit set-up
            data = t + hit_ov + prep if kind == "partial" else None
            svc = cache.read(lba, n, t, t + ov, head, found, data, t + miss_ov)
            if data is not None:
                start_ms = data
            elif self._read_handshakes:
                start_ms = self._read_data_start(svc, t + ov, aw)
            else:  # (_read_data_start without disconnect or reselect overheads)
                start_ms = t + ov + prep
            # _dma_burst (its start from the plan's numbers where they decide it, no list)
            b = self._bus_ms
            earliest = now if now > start_ms else start_ms
            ready = svc._ready  # (svc.latest_less, without the call)
            latest = ready.latest_less(b) if type(ready) is TrackPlan else None
            if latest is None:
                s = self._burst_start(svc.ready_list(), earliest)
            else:
                s = latest if latest > earliest else earliest
            mark = self._read_mark(n) if self._watermark and svc.kind == "miss" else 0
            if mark > 0 and svc.ready_list()[mark - 1] > s:
                s = svc.ready_list()[mark - 1]
            if s > now:
                now = now + (s - now)
                steps.append(now)
            steps.append(now)  # the drive's own bus, at once
            s2 = now
            if b * n > 0:
                now = now + b * n
                steps.append(now)
            if now > s2:  # Channel.note: the drive's own bus keeps no trace
                self.channel.data_ms += now - s2
            # one burst: no ring stall, so the media part ends as planned; the read holds
            # its segment's read-ahead until its completion is sent (as _serve_read)
            cache.read_done(svc, svc.media_end_ms, head, lba, s2, b, now, t)
            self.interrupts += 1
            overhead, seek, rot, xfer = ov, svc.seek_ms, svc.rotation_ms, svc.transfer_ms
        done_ov = self._done_ms[op == WRITE]
        if op != FLUSH:
            self._after_write = op == WRITE
        if self.events is not None:
            reads = n if op != WRITE and op != FLUSH and not hit else 0
            done_ov += self.events.delay(rid, start, self._last_finish, reads)
        if done_ov:
            if done_ov < 0:
                raise ValueError(f"Negative delay {done_ov}")  # as SimPy's timeout
            now = now + done_ov
            steps.append(now)
        finish = now
        self._last_finish = finish
        overhead += done_ov
        if op != FLUSH:
            self.last_lba = lba + n
        self.busy_ms += finish - start
        iface = finish - start - overhead - seek - rot - xfer
        if not iface > 0.0:  # (max(0.0, iface), without its call)
            iface = 0.0
        # Completed(...) without the NamedTuple's Python-level __new__ (one per request)
        rec = _new_tuple(Completed, (rid, op, lba, n, arrival, start, finish,
                                     start - arrival, overhead, seek, rot, xfer, iface,
                                     finish - arrival, client, hit))
        return steps, rec

    def _note(self, kind: str, t0: float, t1: float) -> None:
        if self.trace is not None and t1 > t0:
            self.trace.append((self.name, kind, t0, t1))

    def _trace_plan(self, plan) -> None:
        if self.trace is None or plan is None:
            return
        if not hasattr(plan, "pieces"):  # a TrackPlan: the whole plan of its one track
            plan = plan.plan()
        bounds = [p.first for p in plan.pieces] + [len(plan.done_ms)]
        for p, end in zip(plan.pieces, bounds[1:], strict=False):
            self._note("seek", p.move_start_ms, p.move_end_ms)
            first_done = float(plan.done_ms[p.first]) - p.sector_ms
            self._note("rotation", p.move_end_ms, first_done)
            self._note("media", first_done, float(plan.done_ms[end - 1]))

    def _serve_read(self, req: Request, t: float):
        cache, port = self.cache, self.port
        n = req.sectors
        found = cache.find(req.lba, n, t)
        kind = found[0]
        aw = self._after_write
        o = self._ov
        ov = o.read_hit(aw) if kind in ("hit", "stream") else o.read_miss(aw)
        # a partial hit's buffered head goes after the read hit set-up, while the media part
        # waits for the miss set-up (DiskSim with "Immed transfer partial hit")
        data = t + o.read_hit(aw) + o.data_prep_ms if kind == "partial" else None
        # (the head moves for it only after the read miss set-up, a hit's read-ahead too)
        svc = cache.read(req.lba, n, t, t + ov, self.head, found, data_ms=data,
                         media_ms=t + o.read_miss(aw))
        self._trace_plan(svc.plan)
        start = self._read_data_start(svc, t + ov, aw) if data is None else data
        # only a miss waits for the read water mark: the drive disconnected and reconnects
        # once that much is in; a hit of any kind keeps the bus and sends what is there
        mark = svc.kind == "miss"
        # a full hit's sectors are all in the buffer already: the ring holds back none of
        # them (only sectors still to come from the media wait for room, _ring_stall)
        ring = svc.kind != "hit"
        if port.is_pio:
            sent, ready = yield from self._pio_in(req, svc.ready_ms, svc.plan, ring)
        elif port.hold == "transfer" and req.sectors <= cache.cap:
            sent, ready = yield from self._dma_burst(svc.ready_ms, start, mark)
        else:
            sent, ready = yield from self._dma_in(req, svc.ready_ms, start, mark, svc.plan,
                                                  ring)
        # the media part ended with the last sector (later if the ring made it lose turns);
        # the read holds its segment's read-ahead until its completion is sent: DiskSim 4.0
        # flags COMPLETION_SENT as its last transfer ends (disk_request_complete, called from
        # disk_reconnection_or_transfer_complete), before the read completion overhead
        media_end = svc.media_end_ms + float(ready[-1] - svc.ready_ms[-1])
        cache.read_done(svc, media_end, self.head, req.lba, sent, self._bus_ms, self.env.now, t)
        if self.trace is not None and cache.stream is not None and cache.stream.kind == "read":
            s = cache.stream
            self._note("read-ahead", float(s.done[0]) - s.pieces[0].sector_ms, s.end_ms)
        if not port.is_pio:
            yield from self._irq(req)
        extra = media_end - svc.media_end_ms  # revolutions lost to a full segment
        return ov, svc.seek_ms, svc.rotation_ms + extra, svc.transfer_ms, kind in ("hit", "stream")

    def _read_mark(self, n: int) -> int:
        """Sectors of an ``n``-sector read miss that must be in the buffer before its data
        goes: DiskSim's read water mark, ``max(1, int(min(segment, n) * mark))`` (whole
        sectors, rounded down; ``disksim_diskcache.c``)."""
        return max(1, min(n, int(min(self.cache.cap, n) * self.profile.read_watermark + 1e-9)))

    def _read_data_start(self, svc, set_up: float, after_write: bool) -> float:
        """The earliest time a read's data may start to cross the bus (DiskSim's disk
        controller, CMU-PDL-08-101 §4.2 and ``disksim_diskctlr.c``).

        Data follows the drive's data preparation overhead. On a miss the drive disconnects
        once its command overhead and its read disconnect overhead are over, and reselects
        the host when the read water mark's worth of the request is in the buffer (at least
        one sector): the first reselect overhead, then the data preparation. With those
        overheads zero (most drives) this is the set-up time itself.
        """
        o = self._ov
        start = set_up
        if svc.kind == "miss" and (o.reselect_ms or o.read_disconnect_ms
                                   or o.read_disconnect_after_write_ms):
            n = len(svc.ready_ms)
            mark = self._read_mark(n)
            start = max(set_up + o.read_disconnect(after_write),
                        float(svc.ready_ms[mark - 1])) + o.reselect_ms
        return start + o.data_prep_ms

    def _irq(self, req: Request):
        us = self.port.completion_us()
        self.interrupts += 1
        if us > 0:
            yield from self.cpu.work(us / 1000.0, owner=req.client, kind="irq", priority=0)

    def _ring_stall(self, ready: np.ndarray, drained: np.ndarray, upto: int,
                    plan: Plan | TrackPlan | None = None) -> bool:
        """The lost-revolution rule for big reads: sector ``i + cap`` needs sector ``i`` gone
        (DiskSim 4.0's ``disk_buffer_block_available``, asked as the sector begins to pass).

        Checks the sectors drained so far (``drained[:upto]``); where the media
        would have read into a slot still full, it stops and comes back whole
        revolutions later. A sector begins to pass one sector time of its own track before
        it is in (``plan``: the media part of the read, its last sectors). Returns True if
        ``ready`` changed.
        """
        cap = self.cache.cap
        n = len(ready)
        if n <= cap or upto <= 0:
            return False
        lim = min(upto, n - cap)
        if lim <= 0:
            return False
        step = _sector_times(plan, n, self.mechanism)[cap:cap + lim]
        late = drained[:lim] - (ready[cap:cap + lim] - step)
        bad = np.flatnonzero(late > 1e-9)
        if not len(bad):
            return False
        j = int(bad[0])
        revs = np.ceil(late[j] / self.mechanism.rev_ms - 1e-12)
        ready[cap + j:] += revs * self.mechanism.rev_ms
        self.cache.stats["lost_revolutions"] += int(revs)
        np.maximum.accumulate(ready, out=ready)
        return True

    def _dma_in(self, req: Request, ready: np.ndarray, start_ms: float = 0.0,
                watermark: bool = True, plan: Plan | TrackPlan | None = None,
                ring: bool = True):
        env, chan, b = self.env, self.channel, self._bus_ms
        n = len(ready)
        if self.port.hold == "transfer" and n <= self.cache.cap:
            return (yield from self._dma_burst(ready, start_ms, watermark))
        ready = ready.copy()
        idx = np.arange(n, dtype=float)
        if self.port.hold == "transfer":
            # bursts that never wait for the media; a read bigger than the segment goes in
            # half-segment pieces, so the media can refill the ring behind them
            cap = self.cache.cap
            piece = n if n <= cap else max(1, cap // 2)
            drained = np.empty(n)
            # DiskSim's read water mark: reconnect once this much of the request is buffered
            mark = (min(piece, self._read_mark(n))
                    if self.profile.read_watermark and watermark else 0)
            k = 0
            while k < n:
                end = min(n, k + piece)
                sub = np.arange(end - k, dtype=float)
                s = max(env.now, float(np.max(ready[k:end] - sub * b)))
                if k == 0:
                    s = max(s, start_ms, float(ready[mark - 1]) if mark > 0 else s)
                if s > env.now:
                    yield env.timeout(s - env.now)
                with chan.request() as r:
                    yield r
                    s2 = env.now
                    drained[k:end] = s2 + (sub + 1) * b
                    if b * (end - k) > 0:
                        yield env.timeout(b * (end - k))
                    chan.note(self.name, "data", s2, env.now)
                    self._note("bus", s2, env.now)
                k = end
                if ring:
                    self._ring_stall(ready, drained, k, plan)
            return drained, ready
        t0 = max(env.now, start_ms)
        while True:
            drained = (idx + 1) * b + np.maximum(t0, np.maximum.accumulate(ready - idx * b))
            if not ring or not self._ring_stall(ready, drained, n, plan):
                break
        end = float(drained[-1])
        if end > env.now:
            yield env.timeout(end - env.now)
        chan.data_ms += n * b
        self._note("bus", max(t0, float(ready[0]) - b), end)
        return drained, ready

    def _burst_start(self, times: list[float], earliest: float) -> float:
        """When one burst at the bus's rate may start, not before ``earliest``, so that no
        sector leaves before it is in the buffer (``times[j]``, in LBA order): sector ``j``
        leaves ``j`` bus sector times after the start, so the start is the largest of
        ``earliest`` and every ``times[j] - j * b``. The offsets ``j * b`` are kept per
        length; the largest is taken in C (``max`` of ``map``), the same floats as a loop."""
        n = len(times)
        offsets = self._burst_offsets.get(n)
        if offsets is None:
            b = self._bus_ms
            offsets = self._burst_offsets[n] = [float(j) * b for j in range(n)]
        latest = max(map(sub, times, offsets)) if n else earliest
        return latest if latest > earliest else earliest

    def _dma_burst(self, ready: np.ndarray, start_ms: float = 0.0, watermark: bool = True):
        """:meth:`_dma_in` for a read that fits its segment, on a bus held per transfer: one
        burst, nothing for the ring to stall, the same arithmetic on Python floats (the
        sectors' times as the loop above computes them). Returns ``(start, ready)``: sector
        ``k`` has gone to the host at ``start + (k + 1) * bus`` (the drained times, as the
        float that makes them)."""
        env, chan, b = self.env, self.channel, self._bus_ms
        n = len(ready)
        times = ready.tolist()
        s = self._burst_start(times, env.now if env.now > start_ms else start_ms)
        mark = self._read_mark(n) if self.profile.read_watermark and watermark else 0
        if mark > 0 and times[mark - 1] > s:
            s = times[mark - 1]
        if s > env.now:
            yield env.timeout(s - env.now)
        creq = None
        if self._own_bus:
            # nobody else can hold this drive's own bus: the request is granted at once, so
            # only its event is kept (scheduled where the request's would be, at no cost)
            yield env.timeout(0)
        else:
            creq = chan.request()
            yield creq
        s2 = env.now
        if b * n > 0:
            yield env.timeout(b * n)
        chan.note(self.name, "data", s2, env.now)
        self._note("bus", s2, env.now)
        if creq is not None:
            chan.resource.release(creq)
        return s2, ready

    def _pio_in(self, req: Request, ready: np.ndarray,
                plan: Plan | TrackPlan | None = None, ring: bool = True):
        env, port = self.env, self.port
        n = len(ready)
        ready = ready.copy()
        drained = np.empty(n)
        # a DRQ block is buffered whole before it goes: never more than a segment (a drive
        # takes no multiple count its buffer cannot hold)
        m = min(port.multcount, self.cache.cap)
        grain = max(m, PIO_GRAIN_SECTORS)
        word_ms = port.pio_word_us(False) * 256 / 1000.0
        irq_ms = port.costs.irq_us / 1000.0
        drq_ms = port.drq_read_us / 1000.0
        k = 0
        while k < n:
            end = min(k + m, n)
            t_irq = max(env.now + (drq_ms if k else 0.0), float(ready[end - 1]))
            if t_irq > env.now:
                yield env.timeout(t_irq - env.now)
            blocks = 1
            # a sector a segment past the burst's first enters the buffer only once that
            # one has gone (_ring_stall): the burst of ready blocks stops before it
            limit = k + self.cache.cap if ring and n > self.cache.cap else n
            while end < n and end - k < grain:
                nxt = min(end + m, n)
                if ready[nxt - 1] > env.now or nxt > limit:
                    break
                end, blocks = nxt, blocks + 1
            t0 = yield from self._pio_burst(req, blocks, blocks * irq_ms + (end - k) * word_ms,
                                            drq_ms, blocks)
            drained[k:end] = np.linspace(t0, env.now, end - k + 1)[1:]
            k = end
            if ring:
                self._ring_stall(ready, drained, k, plan)
        return drained, ready

    def _pio_burst(self, req: Request, blocks: int, cpu_ms: float, drq_ms: float, irqs: int):
        """One PIO burst of ``blocks`` DRQ blocks, in or out: the bus (if held per transfer),
        the CPU's ``cpu_ms`` of interrupts and word moves, the DRQ waits between blocks.
        Returns when the burst began; it ends at ``env.now``."""
        env, chan = self.env, self.channel
        creq = None
        if self.port.hold == "transfer":
            creq = chan.request()
            yield creq
        t0 = env.now
        yield from self.cpu.work(cpu_ms, owner=req.client, kind="pio", priority=0)
        if blocks > 1 and drq_ms:
            yield env.timeout((blocks - 1) * drq_ms)
        if creq is not None:
            chan.resource.release(creq)
        chan.note(self.name, "data", t0, env.now)
        self._note("pio", t0, env.now)
        self.interrupts += irqs
        return t0

    def _serve_write(self, req: Request, t: float):
        cache, port, env = self.cache, self.port, self.env
        n = req.sectors
        o = self._ov
        ov = data_ov = o.write(self._after_write)
        extra = (o.random_write_setup_ms is not None and self._after_write
                 and req.lba != self.last_lba)
        if extra:
            # a write that does not continue the write before: the drive disconnects and
            # comes back for the data (DiskSim's extra write disconnect, seen on HP drives),
            # reselecting the host first
            ov = o.random_write_setup_ms
            data_ov = (o.random_write_data_ms or ov) + o.reselect_ms
        data_ov += o.data_prep_ms
        fua = req.fua
        space = cache.write_space(req.lba, n, t, fua=fua, head=self.head)
        disc, resel = self._write_handshakes(extra)
        if data_ov:
            yield env.timeout(data_ov)
        # the arm moves once the command is set up (DiskSim: the overhead comes first), while
        # the data may still be crossing the bus
        if port.is_pio:
            arrive = yield from self._pio_out(req, space)
            svc = cache.write(req.lba, n, arrive, t + ov, self.head, fua=fua, arrival_ms=t)
        else:
            arrive, svc = yield from self._dma_out(req, space, t + ov, disc, resel, t)
        if svc.media_end_ms is not None:
            self._trace_write(svc, arrive)
            # a write-through write: with its data in, the drive disconnects; once the data
            # is on the platter it reselects the host to report (DiskSim's write disconnect
            # and reselect overheads; zero for most drives)
            end = max(svc.media_end_ms, float(arrive[-1]) + disc if n else 0.0) + resel
            if end > env.now:
                yield env.timeout(end - env.now)
        elif self.trace is not None and cache.stream is not None:
            s = cache.stream
            self._note("destage", float(s.done[0]) - s.pieces[0].sector_ms, s.end_ms)
        us = port.costs.irq_us
        self.interrupts += 1
        if us > 0:
            yield from self.cpu.work(us / 1000.0, owner=req.client, kind="irq", priority=0)
        buffered = svc.media_end_ms is None
        if buffered:
            return ov, 0.0, 0.0, 0.0, True
        return ov, svc.seek_ms, svc.rotation_ms, svc.transfer_ms, False

    def _trace_write(self, svc, arrive) -> None:
        if self.trace is not None:
            self._note("media", svc.media_end_ms - svc.transfer_ms, svc.media_end_ms)

    def _write_handshakes(self, extra: bool) -> tuple[float, float]:
        """A write's disconnect and reselect overheads (DiskSim's "Write disconnect" and
        "First reselect"; after an extra write disconnect, its second disconnect and the
        "Other reselect")."""
        o = self._ov
        if not extra:
            return o.write_disconnect_ms, o.reselect_ms
        disc = o.write_disconnect_ms if o.random_write_disconnect_ms is None \
            else o.random_write_disconnect_ms
        resel = o.reselect_ms if o.reselect_other_ms is None else o.reselect_other_ms
        return disc, resel

    def _write_feed(self, start: float, space: np.ndarray, disc: float, resel: float):
        """How the write's data crosses the drive's bus (:class:`~.cache.WriteFeed`): when
        the segment is full, the drive holds the bus or, as the profile says, disconnects
        until the water mark; a reconnection reselects the host and prepares the data
        (DiskSim's ``disk_check_bus``)."""
        from .cache import WriteFeed

        prof = self.profile
        return WriteFeed(start, self._bus_write_ms, space, prof.hold_bus_writes,
                         prof.write_watermark, disc, resel + self._ov.data_prep_ms)

    def _dma_out(self, req: Request, space: np.ndarray, now: float, disc: float,
                 resel: float, arrival: float | None = None):
        env, chan, b = self.env, self.channel, self._bus_write_ms
        n = req.sectors
        idx = np.arange(n, dtype=float)
        creq = None
        if self.port.hold == "transfer":
            creq = chan.request()
            yield creq
        t0 = env.now
        arrive = (idx + 1) * b + np.maximum(t0, np.maximum.accumulate(space - idx * b))
        # the cache takes the write now: the data that does not fit the segment waits for
        # the media (a drive that disconnects meanwhile is charged the whole span here)
        svc = self.cache.write(req.lba, n, arrive, now, self.head, fua=req.fua,
                               feed=self._write_feed(t0, space, disc, resel),
                               arrival_ms=arrival)
        if svc.arrive_ms is not None:
            arrive = svc.arrive_ms
        end = float(arrive[-1]) if n else t0
        if end > env.now:
            yield env.timeout(end - env.now)
        if creq is not None:
            chan.resource.release(creq)
        chan.data_ms += n * b
        self._note("bus", t0, end)
        return arrive, svc

    def _pio_out(self, req: Request, space: np.ndarray):
        env, port = self.env, self.port
        n = req.sectors
        arrive = np.empty(n)
        m = port.multcount
        grain = max(m, PIO_GRAIN_SECTORS)
        word_ms = port.pio_word_us(True) * 256 / 1000.0
        irq_ms = port.costs.irq_us / 1000.0
        drq_ms = port.drq_write_us / 1000.0
        k = 0
        while k < n:
            t_drq = max(env.now + (drq_ms if k else 0.0), float(space[k]))
            if t_drq > env.now:
                yield env.timeout(t_drq - env.now)
            end = min(k + grain - grain % m, n) if grain >= m else min(k + m, n)
            blocks = -(-(end - k) // m)
            irqs = blocks - (1 if k == 0 else 0)  # the first block goes without an interrupt
            t0 = yield from self._pio_burst(req, blocks, irqs * irq_ms + (end - k) * word_ms,
                                            drq_ms, irqs)
            arrive[k:end] = np.linspace(t0, env.now, end - k + 1)[1:]
            k = end
        return arrive

    def _serve_flush(self, req: Request, t: float):
        env = self.env
        end = self.cache.flush(t, self.head)
        if end > env.now:
            yield env.timeout(end - env.now)
        us = self.port.costs.irq_us
        self.interrupts += 1
        if us > 0:
            yield from self.cpu.work(us / 1000.0, owner=req.client, kind="irq", priority=0)
        return 0.0, 0.0, 0.0, max(0.0, end - t), False
