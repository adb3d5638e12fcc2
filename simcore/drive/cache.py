"""The drive's buffer: segments, read-ahead, partial hits, write-back and the lost revolution.

Seeds: Gray 2000 §2.6 (the buffer as a speed matcher: "without any controller
buffer memory, one full disk rotation would be required before the next
transfer"), §2.10 (read-ahead, on-arrival read-ahead, read-ahead in zero,
segmentation, write caching); Panagiotakis 2006 §2.1.1 and Ch. 3 as extracted
in ``notes/004_multistream.md`` §5 (segments as private caches of sequential
streams, LRU reclaiming, minimum and maximum read-ahead, preemptible
prefetch, adaptive segmentation).

The model is arithmetic, not a process: read-ahead and destaging are planned streams
that a later command stops when it needs the head (:mod:`simcore.drive.cache_background`).

Using it
--------
The drive (:class:`simcore.drive.Drive` with ``cache=``) calls, per command::

    kind = cache.lookup(lba, n, now)                       # "hit", "stream", "partial", "miss"
    svc = cache.read(lba, n, now, ready_ms, head)          # ReadService: when each sector is buffered
    cache.read_done(svc, media_end_ms, head)               # starts read-ahead after the media part
    space = cache.write_space(lba, n, now, head=head)      # earliest time each sector fits
    svc = cache.write(lba, n, arrivals_ms, now, head)      # WriteService (media end if write-through)
    end = cache.background(now, head)                      # start destaging when idle; next wake-up
    end = cache.flush(now, head)                           # everything on the platter by ``end``
    n = cache.dirty_at(t)                                  # sectors acknowledged, not yet on media

``head`` is the drive's :class:`~simcore.disk.access.HeadState`; the cache moves it
when it plans media work. A workload author only needs :class:`CacheConfig`
and ``simcore.run(disk, workload, cache=CacheConfig(...))``; ``cache.stats``
counts hits.

This module serves reads (:meth:`SegmentCache.find`, :meth:`SegmentCache.read`,
:meth:`SegmentCache.read_done`; :class:`ReadService`) and builds :class:`SegmentCache` from
one small module per mechanism, each mixed in (its methods are the cache's own, so a
call costs no extra hop on the firmware's hot path):

==========================  ========================================================
``cache_config``            :class:`CacheConfig`, :data:`POLICIES`, the DiskSim knobs
``cache_segments``          :class:`Segment`: what each holds, which one a request takes
``cache_background``        the read-ahead or destage under way, and stopping it
``cache_read_ahead``        read-ahead policies, on-arrival pre-read, the segment hold
``cache_writes``            taking a write: through, buffered, FUA, write prebuffering
``cache_destage``           write-back: destaging, FLUSH CACHE, data at risk
``cache_sequential``        sequential-stream detection, adaptive segments
``cache_stats``             ``cache.stats``
==========================  ========================================================

The parts' public names are importable from this module too.
"""

from __future__ import annotations

import math

import numpy as np

from ..disk.access import HeadState, Mechanism, Plan, TrackPlan, join_track_plans, join_track_times
from .cache_background import BackgroundWork, _Stream, sector_end
from .cache_config import DESTAGE, POLICIES, CacheConfig, segment_cap
from .cache_destage import DestageWork
from .cache_read_ahead import ReadAhead
from .cache_segments import CLEAN, Segment, SegmentTable
from .cache_sequential import SequentialStreams
from .cache_stats import CacheStats
from .cache_writes import WriteIntake, WriteService
from .write_feed import (
    WriteFeed,
    feed_write,
    fill_before_write,
    respect_arrivals,
    write_watermark_sectors,
)

__all__ = ["CLEAN", "DESTAGE", "FLUSH", "POLICIES", "CacheConfig", "ReadService", "Segment",
           "SegmentCache", "WriteFeed", "WriteService", "feed_write", "fill_before_write",
           "respect_arrivals", "sector_end", "write_watermark_sectors"]

FLUSH = "F"  # a request op: write every dirty sector to the platter (ATA FLUSH CACHE)
_new_object = object.__new__  # (_read_service)


class ReadService:
    """What a read gets from the cache: when each sector is in the buffer, and the media cost.

    ``ready_ms`` (an array) is when each sector is in the buffer. A miss read from the media
    on one track keeps only its :class:`~simcore.disk.access.TrackPlan`, whose sector times these
    are, and makes the array when asked; one over several tracks keeps its tracks' (a list), and
    :attr:`plan` and the array are joined from them when asked
    (:func:`~simcore.disk.access.join_track_plans`). :meth:`ready_list` gives the same times
    as Python floats without the array (all the buffered drive's burst needs). Made by
    :func:`_read_service` (one per read: see :class:`~simcore.disk.access.TrackPlan` for
    why not by calling the class)."""

    __slots__ = ("_plan", "_ready", "kind", "media_end_ms", "rotation_ms", "sectors",
                 "seek_ms", "segment", "transfer_ms")

    sectors: int  # how many sectors the read moves (a slot: read_done asks on every read)

    @property
    def plan(self) -> Plan | TrackPlan | None:
        """A miss's media access (a TrackPlan when on one track; else a Plan)."""
        plan = self._plan
        if type(plan) is list:
            plan = self._plan = join_track_plans(plan)
        return plan

    @property
    def ready_ms(self) -> np.ndarray:
        ready = self._ready
        if isinstance(ready, TrackPlan):
            ready = self._ready = ready.times()
        elif type(ready) is list:  # the joined plan's array (a Plan's done_ms is the same)
            ready = self._ready = self.plan.done_ms
        return ready

    def ready_list(self) -> list[float]:
        """:attr:`ready_ms` as a list of floats (``ready_ms.tolist()``)."""
        ready = self._ready
        if isinstance(ready, TrackPlan):
            return ready.times_list()
        if type(ready) is list:
            return join_track_times(ready)
        return ready.tolist()

    def latest_less(self, b: float) -> float | None:
        """:meth:`TrackPlan.latest_less` of a read from one track (None otherwise): the
        latest start of a burst sending a sector every ``b``, without the list."""
        ready = self._ready
        return ready.latest_less(b) if isinstance(ready, TrackPlan) else None

    def __repr__(self) -> str:
        return (f"ReadService({self.kind!r}, {self.sectors} sectors, seek {self.seek_ms}, "
                f"rotation {self.rotation_ms}, transfer {self.transfer_ms}, media end "
                f"{self.media_end_ms})")


def _read_service(kind: str, ready_ms: np.ndarray | TrackPlan, sectors: int, seek_ms: float,
                  rotation_ms: float, transfer_ms: float, media_end_ms: float, segment: Segment,
                  plan: Plan | TrackPlan | None = None) -> ReadService:
    """A :class:`ReadService` (its constructor) of a read of ``sectors`` (``ready_ms`` holds a
    time for each); ``plan``: a miss's media access (a TrackPlan when on one track)."""
    svc = _new_object(ReadService)
    svc.kind = kind
    svc._ready = ready_ms
    svc.sectors = sectors
    svc.seek_ms = seek_ms
    svc.rotation_ms = rotation_ms
    svc.transfer_ms = transfer_ms
    svc.media_end_ms = media_end_ms
    svc.segment = segment
    svc._plan = plan
    return svc


class SegmentCache(CacheStats, SegmentTable, BackgroundWork, SequentialStreams, ReadAhead,
                   WriteIntake, DestageWork):
    """A segmented buffer with read-ahead and write-back for one drive (see the module doc)."""

    def __init__(self, config: CacheConfig, mechanism: Mechanism):
        self.config = config
        self.mech = mechanism
        self.layout = mechanism.layout
        self.rev_ms = mechanism.rev_ms
        self.n_segments = config.segments
        self._write_back = config.write_back  # read on every miss (:meth:`_no_room`)
        # a 4Kn drive's buffer and media move whole logical blocks: the segment, the
        # read-ahead and where a stopped read-ahead or destage got to are counted in them
        self._block = mechanism.format.block
        self.cap = segment_cap(config.size_kib, config.segments, self._block)
        self.segments: list[Segment] = []
        # the segments oldest first (SegmentTable._touch keeps the order): the least recently
        # used is the first, without a scan of the list on every read miss
        self._lru: list[Segment] = []
        self.stream: _Stream | None = None
        self.stop_wait = 0.0  # what the last stop of a read-ahead waited (seek, sector end)
        self._init_stats()
        self._tick = 0
        self._sids = 0
        self._init_streams(config)
        self._min_write_seek = mechanism.profile.overheads.min_write_seek_ms
        self._min_ra = self._kib(config.min_read_ahead_kib)  # sectors
        self._wseg: Segment | None = None  # the write segment (separate_write_segment)
        # segments whose dirty_from is not CLEAN: every dirty one (and, for a moment, a
        # fresh write's segment before its data is in); none means no scan for dirty data
        self._marked = 0


    # -- bookkeeping ----------------------------------------------------------
    def _kib(self, kib: float) -> int:
        return int(kib * 2)


    # -- reads ----------------------------------------------------------------
    def lookup(self, lba: int, sectors: int, now: float) -> str:
        """How a read of ``[lba, lba+sectors)`` would be served now (changes nothing)."""
        return self.find(lba, sectors, now)[0]

    def find(self, lba: int, n: int, t: float) -> tuple[str, Segment | None, int]:
        """:meth:`lookup`'s answer with the segment and how many sectors it holds, for
        :meth:`read` (``found=``) to use instead of looking again."""
        s = self.stream  # (self._live(t), inlined: this runs on every read)
        if s is not None and t >= s.end_ms:
            if s.kind == "write":  # (self._retire(s), inlined)
                self._destaged_to(s.seg, s.stop_lba)
            self.stream = s = None
        best: tuple[str, Segment | None, int] = ("miss", None, 0)
        write_hits = self.config.read_hits_on_write_data
        wseg = self._wseg  # never read from (separate_write_segment)
        # the segment's start moves only while a read-ahead runs into it; any other starts
        # at its ``start``. Most segments end before ``lba`` or start after it: those two
        # tests come first (this scan runs on every read)
        filling = s.seg if s is not None else None
        for seg in self.segments:
            if (lba > seg.end or (seg.start > lba and seg is not filling) or seg is wseg
                    or (seg.written and not write_hits)):
                continue
            # (the filling segment's start is never below both its start and where it was
            # when the stream began: below those, no need to work it out)
            if seg is filling and ((lba < seg.start and lba < s.start0)
                                   or self._live_start(seg, t) > lba):
                continue
            ve = self._valid_end(seg, t)
            if s is not None and s.seg is seg and s.kind == "read":
                if lba + n <= ve:
                    return "hit", seg, n
                if lba < ve or not self.config.stop_read_ahead_unless_hit:
                    return "stream", seg, max(0, ve - lba)
                continue  # not read yet: no hit here (DiskSim's BUFFER_NOMATCH)
            if lba + n <= ve and lba < ve:
                return "hit", seg, n
            # its head is here, or (clean data) the request goes on where this ends
            if lba < ve or (lba == ve and not seg.dirty):
                best = ("partial", seg, ve - lba)
        return best

    def read(self, lba: int, sectors: int, now: float, ready_ms: float,
             head: HeadState, found: tuple[str, Segment | None, int] | None = None,
             data_ms: float | None = None, media_ms: float | None = None) -> ReadService:
        """Serve a read arriving at ``now``; data can leave the buffer from ``ready_ms``, and
        the media may start then. ``data_ms``: when the already buffered head of a partial
        hit may leave instead (the drive's read hit set-up; default ``ready_ms``).
        ``found``: what :meth:`find` said for this read at ``now``, nothing having
        changed since (used unless writes must first reach the platter).
        ``media_ms``: when media work a full hit starts may begin (default ``now``).
        DiskSim 4.0 sets every read's ``overhead_done`` to its arrival plus the read
        *miss* overhead (``disk_read_arrive``), a hit's too, and ``disk_check_hda`` starts
        any seek of the command only then: the read-ahead of "Read-ahead on idle hit"
        (``read_ahead_on_hit``) begins there, not at the arrival."""
        unnoted = self._unnoted  # (_note_stream, inlined: this runs on every read)
        unnoted.append((lba, sectors))
        if len(unnoted) >= self._note_every:
            self._follow_streams()
        self._counts["reads"] += 1
        s = self.stream  # (only a destage can be in the way: a read-ahead never is)
        if not self.config.preempt_destage and s is not None and s.kind == "write":
            s = self._destage_in_way(now)
            if s is not None:
                # DiskSim 4.0 never stops a write's media access for another request
                # (disk_buffer_stopable_access): a read, even a full hit, gets the head and
                # the bus once the destage has written everything
                end = self._finish_destage(s, head)
                ready_ms = max(ready_ms, end)
                if data_ms is not None:
                    data_ms = max(data_ms, end)
                found = None
        if (not self.config.read_hits_on_write_data or self._wseg is not None) and any(
                g.dirty and g.start < lba + sectors and lba < g.end for g in self.segments):
            # the platter must hold the written data before the read can fetch it
            ready_ms = max(ready_ms, self.flush(now, head))
            found = None
        kind, seg, hit = found if found is not None else self.find(lba, sectors, now)
        self._tick += 1
        if kind == "hit":
            self._counts["hits"] += 1
            self._touch(seg)
            s = self.stream
            t_media = now if media_ms is None else media_ms
            if (self.config.stop_read_ahead_unless_hit and s is not None and s.kind == "read"
                    and s.seg is not seg):
                # DiskSim: a hit on another segment stops the read-ahead (its own media
                # work, if any, starts after the overhead plus the stop's wait)
                self.stop(now, head)
                self._counts["read_ahead_stopped_by_hit"] += 1
                if self.config.stop_adds_to_overhead:
                    t_media += self.stop_wait
                s = None
            if s is not None and s.seg is seg and s.kind == "read":
                self._extend(s, lba + sectors, now, head, lba)
            elif (self.config.refill and s is None and not seg.dirty
                  and lba + sectors >= seg.end - self.cap // 2
                  and self.config.read_ahead in ("segment", "zero")):
                # the host drained a full segment: read on into the room it made
                self._start_read_ahead(seg, seg.end, now, head, consumed=lba + sectors)
            elif self.config.read_ahead_on_hit and s is None and not seg.written:
                # DiskSim's "Read-ahead on idle hit": a full hit on an idle drive reads
                # on from the segment's end, as far as the policy reaches past this request
                end = lba + sectors
                want = end + self._read_ahead(end, seg.start, lba) - seg.end
                if want > 0:
                    self._start_read_ahead(seg, seg.end, t_media, head, consumed=end,
                                           limit=want, asked_ms=now)
            ready = np.full(sectors, ready_ms)
            return _read_service("hit", ready, sectors, 0.0, 0.0, 0.0, ready_ms, seg)
        if kind == "stream":
            self._counts["stream_hits"] += 1
            self._touch(seg)
            s = self.stream
            self._extend(s, lba + sectors, now, head, lba)
            a = lba - s.lba
            times = np.empty(sectors)
            if a < 0:
                times[:-a] = ready_ms
                times[-a:] = s.done[: sectors + a]
            else:
                times[:] = s.done[a:a + sectors]
            ready = np.maximum(times, ready_ms)
            end = float(ready[-1])
            return _read_service("stream", ready, sectors, 0.0, 0.0, end - ready_ms, end, seg)
        # partial or miss: the head is needed
        if (self._write_back and self._marked and (kind == "miss" or seg.dirty)
                and self._no_room()):
            # a segment of its own is needed and every one holds dirty data: the media
            # access waits until a destage has cleaned one (DiskSim's drives disconnect)
            ready_ms = max(ready_ms, self._make_room(now, head))
        if self.stream is not None:
            free = self.stop(now, head)
        else:  # (nothing to stop: what stop says then, without the call)
            free, self.stop_wait = now, 0.0
        if self.config.stop_adds_to_overhead:  # DiskSim: the overhead, then the stop's wait
            wait = self.stop_wait
            free = (ready_ms if ready_ms > free - wait else free - wait) + wait  # (max)
        else:
            free = max(free, ready_ms)
        first = lba + hit
        # the media part's plan: a TrackPlan on one track; over several, for a miss, its
        # tracks' TrackPlans (a list), joined into a Plan only if something asks for the
        # arrays (about one random 4 KiB miss in 40 crosses a track); else a Plan
        plan: Plan | TrackPlan | list[TrackPlan] | None = self.mech.track_plan(
            first, sectors - hit, False, free, head)
        if plan is None and not hit:
            plan = self.mech.read_track_plans(first, sectors, free, head)
        if plan is None:
            plan = self.mech.plan(first, sectors - hit, False, free, head)
            done, seek, rot, xfer = plan.done_ms, plan.seek_ms, plan.rotation_ms, plan.transfer_ms
            p0 = last = plan
        elif type(plan) is list:  # (join_track_plans's totals, in its order: the same floats)
            seek = rot = xfer = 0.0
            for tp in plan:
                seek += tp.move_ms
                rot += tp.rotation_ms
                xfer += tp.transfer_ms
            done = plan
            p0, last = plan[0], plan[-1]  # (a Plan's first piece and its end: the same fields)
        else:  # on one track: the numbers Plan would hold (its times when asked for)
            done = p0 = last = plan
            seek, rot, xfer = 0.0 + plan.move_ms, 0.0 + plan.rotation_ms, 0.0 + plan.transfer_ms
        if hit:
            ready = np.empty(sectors)
            ready[:hit] = ready_ms if data_ms is None else data_ms
            ready[hit:] = done.times() if done is plan else done
        else:  # all from the media (the plan's own times: nobody writes either)
            ready = done
        head.cylinder, head.surface = last.cylinder, last.surface
        if kind == "partial" and not seg.dirty:  # keep the request; older data may go
            self._counts["partial_hits" if hit else "misses"] += 1
            seg.owner_start = self._live_start(seg, now)  # DiskSim keeps the segment's start
            seg.start, seg.end = lba, lba + sectors
            self._touch(seg)  # (a segment _allocate gives is touched at this tick already)
        elif kind == "partial":  # the buffered head of the request is dirty: keep it apart
            self._counts["partial_hits"] += 1
            seg = self._allocate(now, head)
            seg.start, seg.end = first, lba + sectors
            seg.owner_start = first
        else:
            self._counts["misses"] += 1
            seg = self._allocate(now, head)
            seg.start = lba
            seg.end = lba + sectors
            seg.owner_start = lba
            if self.config.read_ahead == "on-arrival":
                seg.start = self._pre_read(lba, p0)
        if self.config.read_any_free and not seg.written:
            track = self.layout._track  # the straight track track_plan just found, if any
            if type(p0) is TrackPlan and track[0] <= first < track[1]:
                # (_pre_read(first, plan, wrap=True) on that track, inlined: this runs on
                # every read miss of a drive with "Read any free blocks"; the same operations
                # in the same order, so the same landing and the same count)
                t0, t1, _cyl, _surface, offset, spt = track
                mech = self.mech
                sector = math.ceil((mech.phase0 + p0.move_end_ms / mech.rev_ms) % 1.0 * spt
                                   - 1e-9) % spt
                landing = t0 + (sector - offset) % spt
                if landing < t1 and landing != first:
                    if landing > first:  # past the target: round to the track's first sector
                        landing = t0
                    self._counts["pre_read_sectors"] += first - landing
                    pre = first - self.cap if first - self.cap > landing else landing
                    if pre < seg.start:
                        seg.start = pre
            else:
                pre = self._pre_read(first, p0, wrap=True)
                if pre < seg.start:  # (min and max, here and below, without their calls)
                    seg.start = pre
        seg.first = seg.start
        ring = seg.end - (sectors if sectors > self.cap else self.cap)
        if ring > seg.start:
            seg.start = ring
        seg.ready_ms = last.end_ms
        # (never below zero: a stop's wait may be a hair below it, where the next sector
        # boundary rounds to just before the stop, and free a hair below ready_ms)
        waited = free - ready_ms if free > ready_ms else 0.0
        svc = _new_object(ReadService)  # (_read_service, inlined: this runs on every miss)
        svc.kind = kind
        svc._ready = ready
        svc.sectors = sectors
        svc.seek_ms = seek + waited
        svc.rotation_ms = rot
        svc.transfer_ms = xfer
        svc.media_end_ms = last.end_ms
        svc.segment = seg
        svc._plan = plan
        return svc


    def read_done(self, svc: ReadService, media_end_ms: float, head: HeadState,
                  lba: int = 0, sent_ms: np.ndarray | float | None = None, bus_ms: float = 0.0,
                  complete_ms: float = math.inf, since_ms: float = 0.0) -> None:
        """A read's media part ended at ``media_end_ms``: start the read-ahead after it.

        With ``sent_ms``, when the host took the read's sectors (an array, one time per
        sector, or the start of one burst taking a sector every ``bus_ms``), the read of
        ``svc.sectors`` from ``lba``, attached to its segment from ``since_ms`` until its
        completion is sent at ``complete_ms``, holds the segment's read-ahead a segment
        ahead of the host (:meth:`_hold_read_ahead`)."""
        if svc.kind in ("miss", "partial") and self.stream is None:
            seg = svc.segment
            self._start_read_ahead(seg, seg.end, media_end_ms, head,
                                   req_start=seg.end - svc.sectors)
        s = self.stream
        if sent_ms is None or s is None or s.seg is not svc.segment or s.kind != "read":
            return
        track = s.track  # only a stream reaching past lba + segment has sectors to hold
        if s.lba + (track.count if track is not None else s.count) > lba + self.cap:
            self._hold_read_ahead(s, lba, svc.sectors, sent_ms, bus_ms, complete_ms, since_ms)


