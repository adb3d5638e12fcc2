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
    space = cache.write_space(lba, n, now)                 # earliest time each sector fits
    svc = cache.write(lba, n, arrivals_ms, now, head)      # WriteService (media end if write-through)
    end = cache.background(now, head)                      # start destaging when idle; next wake-up
    end = cache.flush(now, head)                           # everything on the platter by ``end``
    n = cache.dirty_at(t)                                  # sectors acknowledged, not yet on media

``head`` is the drive's :class:`~simcore.disk.access.HeadState`; the cache moves it
when it plans media work. A workload author only needs :class:`CacheConfig`
and ``simcore.run(disk, workload, cache=CacheConfig(...))``; ``cache.stats``
counts hits.

Read-ahead policies (``CacheConfig.read_ahead``), all starting where the
request's data ended unless said otherwise:

=============  =========================================================
``none``       no read-ahead: the buffer only matches speeds
``track``      to the end of the track
``cylinder``   to the end of the cylinder
``segment``    until the segment holds ``segment`` sectors the host has
               not consumed (it fills the segment)
``zero``       Gray's "read-ahead in zero": on from where the request
               left off, ``max_read_ahead_kib`` (or a segment) at most
``on-arrival`` the whole track: sectors passing under the head before the
               target are kept, then on to the end of the track
``track-ahead`` DiskSim's scheme 4 ("Buffer continuous read" = 4, its DEC
               prefetch scheme, ``disk_buffer_get_max_readahead`` in
               ``disksim_diskcache.c``): to the end of the track holding
               the sector after the request, or to one track's worth of
               sectors beyond that when the segment's data began on an
               earlier track (a request crossing a track, a sequential
               stream); neither the maximum read-ahead nor the segment
               size bounds it (the segment, a ring, keeps the last
               segment's worth)
=============  =========================================================

``max_read_ahead_kib`` caps any policy but ``track-ahead``, ``min_read_ahead_kib`` is read even
if a command arrives, ``cross_boundaries=False`` keeps ``segment`` and
``zero`` on the track, ``preemptible=False`` makes every command wait for
the read-ahead to finish. Read-ahead starts after a miss and goes on while
the host keeps reading what it brings; once it has stopped (the segment was
full), only the next miss starts it again, unless ``refill=True``, which lets
a hit that frees half a segment restart it. ``read_any_free=True`` (DiskSim's "Read any
free blocks") keeps, on a miss, the sectors of the target's track that pass under the head
before the target, whatever the policy. With ``adaptive=True`` the drive counts the
sequential streams among its last ``stream_window`` commands and splits the
buffer into that many segments (at most ``max_segments``).

A segment is a ring: read-ahead may run at most one segment ahead of what
the host has consumed. When it is full the media stops; going on later costs
the rotation back to the next sector (the lost revolution). Until a read's
completion is sent, its media, read-ahead included, runs at most a segment
ahead of the next sector the host has to take from it (DiskSim 4.0's
``disk_buffer_block_available``): a sector refused comes round a revolution
later (``stats["read_ahead_held_revolutions"]``; a read's own sectors in
``Drive._ring_stall``, ``stats["lost_revolutions"]``). Writes obey the
same rule: a sector is written only once its data is in the buffer, so a
host slower than the platter loses whole revolutions. And a segment holds
at most ``segment`` sectors of a write's data not yet on the platter: the
rest of a larger write waits for the media to make room, the drive keeping
the bus meanwhile or, as DiskSim's validated drives without "Hold bus entire
write xfer" do, disconnecting and coming back at the low write water mark
(:func:`feed_write`).

Durability (ATA/ACS-3 and SBC-3 semantics): with ``write_back=True`` a write is reported
done once its data is in the buffer, and stays at risk of a power loss until destaged
(:meth:`SegmentCache.dirty_at`). A FLUSH CACHE (request ``op`` :data:`FLUSH`) ends when
every dirty sector is on the platter. A write with Force Unit Access (``Request.fua``)
bypasses the write-back: it is written through to the media, and only after any dirty data
it overlaps has been written first, so an older copy can never land on top of it. Destaging
takes dirty segments in least-recently-written order (``destage="lru"``), or, as drives
with a deep write cache do, the one the head can reach soonest (``destage="sptf"``: the
drive's own shortest-positioning-time choice, Worthington, Ganger & Patt 1994).

While a destage runs, simcore by default lets a read that needs the head stop it (the rest is
written later) and lets the data of a new write into a free segment at once. DiskSim 4.0's
drives do neither (``disksim_diskctlr.c``): a write's media access is never stopped for
another command (``disk_buffer_stopable_access``), so every command but a write appending
to the data being destaged waits until the destage has written everything, read hits too
(``preempt_destage=False``); and without "Allow write prebuffering", as in all ten of its
validated drives, a write that does not append gets neither the bus nor a segment before
then (``disk_write_arrive``, ``disk_select_bus_request``: ``write_prebuffering=False``), so
it is reported done only once the destage has ended and its own data is in. Fast write
levels 1 and 2 both report a write done when its data is in the buffer
(``disk_buffer_transfer_size``); level 1 only keeps an appending write from joining a
destage when other commands wait at the drive, which never happens with one command at a
time ("Max queue length" 1, as in all ten).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..disk.access import HeadState, Mechanism, Plan, TrackPlan
from ..disk.layout import StraightTrack
from .cache_background import BackgroundWork, _Stream, sector_end
from .cache_config import DESTAGE, POLICIES, CacheConfig
from .cache_segments import _NO_ARRIVALS, CLEAN, Segment, SegmentTable
from .cache_sequential import SequentialStreams
from .cache_stats import CacheStats
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


class ReadService:
    """What a read gets from the cache: when each sector is in the buffer, and the media cost.

    ``ready_ms`` (an array) is when each sector is in the buffer. A miss read from the media
    on one track keeps only its :class:`~simcore.disk.access.TrackPlan`, whose sector times these
    are, and makes the array when asked; :meth:`ready_list` gives the same times as Python
    floats without it (all the buffered drive's burst needs)."""

    __slots__ = ("_ready", "kind", "media_end_ms", "plan", "rotation_ms", "seek_ms", "segment",
                 "transfer_ms")

    def __init__(self, kind: str, ready_ms: np.ndarray | TrackPlan, seek_ms: float,
                 rotation_ms: float, transfer_ms: float, media_end_ms: float, segment: Segment,
                 plan: Plan | TrackPlan | None = None):
        self.kind = kind
        self._ready = ready_ms
        self.seek_ms, self.rotation_ms, self.transfer_ms = seek_ms, rotation_ms, transfer_ms
        self.media_end_ms = media_end_ms
        self.segment = segment
        self.plan = plan  # a miss's media access (TrackPlan: on one track)

    @property
    def ready_ms(self) -> np.ndarray:
        ready = self._ready
        if isinstance(ready, TrackPlan):
            ready = self._ready = ready.times()
        return ready

    def ready_list(self) -> list[float]:
        """:attr:`ready_ms` as a list of floats (``ready_ms.tolist()``)."""
        ready = self._ready
        return ready.times_list() if isinstance(ready, TrackPlan) else ready.tolist()

    def latest_less(self, b: float) -> float | None:
        """:meth:`TrackPlan.latest_less` of a read from one track (None otherwise): the
        latest start of a burst sending a sector every ``b``, without the list."""
        ready = self._ready
        return ready.latest_less(b) if isinstance(ready, TrackPlan) else None

    @property
    def sectors(self) -> int:
        """How many sectors the read moves."""
        ready = self._ready
        return ready.count if isinstance(ready, TrackPlan) else len(ready)

    def __repr__(self) -> str:
        return (f"ReadService({self.kind!r}, {self.sectors} sectors, seek {self.seek_ms}, "
                f"rotation {self.rotation_ms}, transfer {self.transfer_ms}, media end "
                f"{self.media_end_ms})")


class WriteService(NamedTuple):
    """What a write costs the media: ``media_end_ms`` is None when it is only buffered.

    ``arrive_ms``: when each sector of the host's data got into the buffer, where the
    segment held it back (:func:`feed_write`); None when it came as the caller gave it."""

    media_end_ms: float | None
    seek_ms: float = 0.0
    rotation_ms: float = 0.0
    transfer_ms: float = 0.0
    arrive_ms: np.ndarray | None = None


class SegmentCache(CacheStats, SegmentTable, BackgroundWork, SequentialStreams):
    """A segmented buffer with read-ahead and write-back for one drive (see the module doc)."""

    def __init__(self, config: CacheConfig, mechanism: Mechanism):
        self.config = config
        self.mech = mechanism
        self.layout = mechanism.layout
        self.rev_ms = mechanism.rev_ms
        self.n_segments = config.segments
        self.cap = config.segment_sectors
        self.segments: list[Segment] = []
        self.stream: _Stream | None = None
        self.stop_wait = 0.0  # what the last stop of a read-ahead waited (seek, sector end)
        self._init_stats()
        self._tick = 0
        self._sids = 0
        self._init_streams(config)
        self._min_write_seek = mechanism.profile.overheads.min_write_seek_ms
        self._min_ra = self._kib(config.min_read_ahead_kib)  # sectors
        self._wseg: Segment | None = None  # the write segment (separate_write_segment)


    # -- bookkeeping ----------------------------------------------------------
    def _kib(self, kib: float) -> int:
        return int(kib * 2)


    def _destaged_to(self, seg: Segment, lba: int) -> None:
        seg.dirty_from = max(seg.dirty_from, lba)
        if seg.dirty_from >= seg.end:
            seg.dirty_from = CLEAN
            seg.arrive = _NO_ARRIVALS
        else:
            self._trim_arrivals(seg)

    def _destage_in_way(self, t: float, seg: Segment | None = None,
                        lba: int | None = None) -> _Stream | None:
        """The destage a command arriving at ``t`` must wait for, with DiskSim's rule
        (``preempt_destage`` / ``write_prebuffering`` False): a running destage, unless the
        command is a write appending to the very data it writes (``seg``, ``lba``)."""
        s = self._live(t)
        if s is None or s.kind != "write":
            return None
        if seg is not None and s.seg is seg and s.stop_lba == lba:
            return None  # an appending write joins the destage
        return s

    def _finish_destage(self, s: _Stream, head: HeadState) -> float:
        """Let the running destage ``s`` write all its data (the head is not given up);
        returns when it ends, with the head where it left off."""
        self._retire(s)
        self.stream = None
        pos = s.position()
        head.cylinder, head.surface = pos.cylinder, pos.surface
        self._counts["waited_for_destage"] += 1
        return s.end_ms

    def _trim_arrivals(self, seg: Segment) -> None:
        cut = seg.dirty_from - seg.arrive0
        if cut > 0:
            seg.arrive = seg.arrive[cut:]
            seg.arrive0 = seg.dirty_from


    # -- boundaries -----------------------------------------------------------
    def _track_end(self, lba: int) -> int:
        """One past the last LBA of the track holding ``lba``."""
        return self.layout.track_end(lba)

    def _cylinder_end(self, lba: int) -> int:
        lay = self.layout
        left = lay.capacity - lba
        per_cylinder = lay.sectors_per_track(lay.zone_of(lba)) * lay.surfaces
        pieces = lay.pieces(lba, min(left, per_cylinder))
        end = lba
        for p in pieces:
            if p.cylinder != pieces[0].cylinder:
                break
            end += p.count
        return end

    def _read_ahead(self, x: int, seg_start: int | None = None,
                    req_start: int | None = None) -> int:
        """Sectors to read ahead from LBA ``x`` (the host has consumed everything before it).

        ``seg_start``: the segment's first LBA when the request took it, ``req_start``: the
        request's first LBA (both ``x`` when not given; only ``track-ahead`` uses them)."""
        c = self.config
        pol = c.read_ahead
        if pol == "none" or x >= self.layout.capacity or x <= 0:
            return 0
        if pol == "track-ahead":
            return self._track_ahead(x, x if seg_start is None else seg_start,
                                     x - 1 if req_start is None else req_start)
        if pol in ("track", "on-arrival"):
            ra = self._track_end(x - 1) - x
        elif pol == "cylinder":
            ra = self._cylinder_end(x - 1) - x
        elif pol == "segment":
            ra = self.cap
        else:  # zero
            ra = self._kib(c.max_read_ahead_kib) if c.max_read_ahead_kib else self.cap
        if not c.cross_boundaries and pol in ("segment", "zero"):
            ra = min(ra, self._track_end(x - 1) - x)
        if c.max_read_ahead_kib:
            ra = min(ra, self._kib(c.max_read_ahead_kib))
        return max(0, min(ra, self.cap, self.layout.capacity - x))

    def _track_ahead(self, x: int, seg_start: int, req_start: int) -> int:
        """DiskSim's scheme 4 (``disk_buffer_get_max_readahead``, ``BUFFER_DEC_PREFETCH_SCHEME``):
        read ahead to the end of the track holding LBA ``x``, the sector after the request;
        when the segment's data began before that track (``seg_start``), one track's worth
        of sectors further (the sectors per track of the zone holding ``req_start``). The
        maximum read-ahead and the segment size play no part."""
        lay = self.layout
        end = lay.track_end(x)
        # the segment began on an earlier track: its first LBA's track ends by x
        if seg_start < x and lay.track_end(seg_start) <= x:
            end += lay.sectors_per_track(lay.zone_of(req_start))
        left = (lay.capacity if lay.capacity < end else end) - x  # (min and max, without
        return left if left > 0 else 0  # their calls: this runs per read miss)


    def _start_read_ahead(self, seg: Segment, x: int, t: float, head: HeadState,
                          consumed: int | None = None, limit: int | None = None,
                          req_start: int | None = None, asked_ms: float | None = None) -> None:
        """Read ahead from ``x``; the host has taken the data up to ``consumed`` (default ``x``).
        ``req_start``: the first LBA of the request this read-ahead follows. ``asked_ms``:
        when the read-ahead was decided, if it starts later, at ``t`` (see :meth:`stop`)."""
        ahead = self.config.read_ahead == "track-ahead"  # not bounded by the segment size
        track: StraightTrack | None = None  # x's track, when the read-ahead stays on it
        if limit is None:
            seg_start = seg.owner_start if req_start is not None else seg.start
            if ahead and 0 < x < self.layout.capacity:
                track = self.layout.straight_track(x)
            if track is not None and seg_start >= track.first:
                # _track_ahead on a straight track the segment began on: to its end
                ra = track.end - x
            else:
                track = None
                ra = self._read_ahead(x, seg_start, req_start)
        else:
            ra = limit if ahead else min(limit, self.cap)
        if consumed is not None:  # the ring: never overwrite what the host has not taken
            ra = min(ra, consumed + self.cap - x)
        elif not self.config.read_ahead_over_requested:
            # after a miss the segment keeps the request and what follows it; with
            # read_ahead_over_requested the read-ahead runs its whole length and the ring
            # may push the request's own data, already sent, out of the segment (see
            # simcore.disksim.importer.read_ahead_passes_request for DiskSim's rule). With
            # read_any_free the sectors read before the request do not count: DiskSim
            # keeps the request's start plus a segment (disk_buffer_get_max_readahead)
            # and its ring drops the earlier sectors first.
            keep_from = seg.start
            if self.config.read_any_free and req_start is not None:
                keep_from = max(seg.start, req_start)
            ra = min(ra, keep_from + self.cap - x)
        if ra <= 0:
            return
        if self.stream is not None:
            self.stop(t, head)
        head0 = (head.cylinder, head.surface)
        mn = self._min_ra if self._min_ra < ra else ra  # (min, without its call)
        if track is not None and x + ra <= track.end:
            plan: Plan | TrackPlan | None = self.mech.track_plan_on(track, x, ra, t, head)
        else:
            plan = self.mech.track_plan(x, ra, False, t, head)
        if plan is not None:  # on one track: its times only when asked for
            min_until = plan.time_of(mn - 1) if mn else t
        else:
            plan = self.mech.plan(x, ra, False, t, head)
            min_until = float(plan.done_ms[mn - 1]) if mn else t
        self.stream = _Stream("read", seg, x, plan, head0, min_until)
        if asked_ms is not None and asked_ms < t and not mn:
            self.stream.asked_ms = asked_ms
        seg.end = x + ra
        if seg.end - self.cap > seg.start:  # (max, without its call)
            seg.start = seg.end - self.cap
        head.cylinder, head.surface = plan.cylinder, plan.surface
        self._counts["read_ahead_sectors"] += ra
        self._counts["read_aheads"] += 1

    def _extend(self, s: _Stream, upto: int, t: float, head: HeadState,
                req_start: int | None = None) -> None:
        """The host consumed a stream's data up to ``upto``: read on, seamlessly if still running.
        ``req_start``: the first LBA of the read that consumed it."""
        want = max(upto, upto + self._read_ahead(upto, self._live_start(s.seg, t), req_start))
        have = s.stop_lba
        if want <= have:
            return
        plan = self.mech.plan(have, want - have, False, s.end_ms, s.position())
        s.extend(plan, keep_from=upto - 2 * self.cap)
        s.seg.end = want
        s.seg.start = max(s.seg.start, want - self.cap)
        head.cylinder, head.surface = plan.cylinder, plan.surface
        self._counts["read_ahead_sectors"] += want - have

    # -- reads ----------------------------------------------------------------
    def lookup(self, lba: int, sectors: int, now: float) -> str:
        """How a read of ``[lba, lba+sectors)`` would be served now (changes nothing)."""
        return self.find(lba, sectors, now)[0]

    def find(self, lba: int, n: int, t: float) -> tuple[str, Segment | None, int]:
        """:meth:`lookup`'s answer with the segment and how many sectors it holds, for
        :meth:`read` (``found=``) to use instead of looking again."""
        s = self._live(t)
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
        self._note_stream(lba, sectors)
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
            seg.last_used = self._tick
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
            return ReadService("hit", ready, 0.0, 0.0, 0.0, ready_ms, seg)
        if kind == "stream":
            self._counts["stream_hits"] += 1
            seg.last_used = self._tick
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
            return ReadService("stream", ready, 0.0, 0.0, end - ready_ms, end, seg)
        # partial or miss: the head is needed
        free = self.stop(now, head)
        if self.config.stop_adds_to_overhead:  # DiskSim: the overhead, then the stop's wait
            wait = self.stop_wait
            free = (ready_ms if ready_ms > free - wait else free - wait) + wait  # (max)
        else:
            free = max(free, ready_ms)
        first = lba + hit
        plan: Plan | TrackPlan | None = self.mech.track_plan(first, sectors - hit, False, free,
                                                             head)
        if plan is None:
            plan = self.mech.plan(first, sectors - hit, False, free, head)
            done, seek, rot, xfer = plan.done_ms, plan.seek_ms, plan.rotation_ms, plan.transfer_ms
        else:  # on one track: the numbers Plan would hold (its times when asked for)
            done = plan
            seek, rot, xfer = 0.0 + plan.move_ms, 0.0 + plan.rotation_ms, 0.0 + plan.transfer_ms
        if hit:
            ready = np.empty(sectors)
            ready[:hit] = ready_ms if data_ms is None else data_ms
            ready[hit:] = done.times() if done is plan else done
        else:  # all from the media (the plan's own times: nobody writes either)
            ready = done
        head.cylinder, head.surface = plan.cylinder, plan.surface
        if kind == "partial" and not seg.dirty:  # keep the request; older data may go
            self._counts["partial_hits" if hit else "misses"] += 1
            seg.owner_start = self._live_start(seg, now)  # DiskSim keeps the segment's start
            seg.start, seg.end = lba, lba + sectors
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
                seg.start = self._pre_read(lba, plan)
        if self.config.read_any_free and not seg.written:
            pre = self._pre_read(first, plan, wrap=True)
            if pre < seg.start:  # (min and max, here and below, without their calls)
                seg.start = pre
        seg.first = seg.start
        ring = seg.end - (sectors if sectors > self.cap else self.cap)
        if ring > seg.start:
            seg.start = ring
        seg.last_used = self._tick
        seg.ready_ms = plan.end_ms
        waited = free - ready_ms
        return ReadService(kind, ready, seek + waited, rot, xfer, plan.end_ms, seg, plan)

    def _pre_read(self, lba: int, plan: Plan | TrackPlan, wrap: bool = False) -> int:
        """Sectors that pass under the head before the target ``lba`` are kept: returns the
        first LBA kept. The head lands on the target's track at the first whole sector under
        it; the run from there up to the target is kept (on-arrival read-ahead, and DiskSim's
        "Read any free blocks"). ``wrap``: when the head lands past the target, it comes round
        to the track's first sector before the target, and the run from that sector up to the
        target is kept (DiskSim: a sector before the segment's start is read in wherever it
        passes). The segment, a ring, keeps a segment's worth at most."""
        p = plan if isinstance(plan, TrackPlan) else plan.pieces[0]
        spt = round(self.rev_ms / p.sector_ms) if p.sector_ms > 0 else 0
        if spt <= 0:
            return lba
        mech = self.mech  # (its angle_at, inlined: this runs on every read miss)
        sector = math.ceil((mech.phase0 + p.move_end_ms / mech.rev_ms) % 1.0 * spt - 1e-9) % spt
        track = self.layout.straight_track(lba)  # (``p`` is on ``lba``'s track)
        if track is not None and track.spt == spt:  # one run of LBAs: the same answers
            first, end, _cyl, _surface, offset, _spt = track  # (its lba_at, inlined)
            landing = first + (sector - offset) % spt
            if landing >= end or landing == lba:
                return lba
        else:
            landing = self.layout.lba_at(p.cylinder, p.surface, sector)
            if (landing is None or landing == lba
                    or self._track_end(landing) != self._track_end(lba)):
                return lba
            first = None
        if landing > lba:
            if not wrap:
                return lba
            landing = self.layout.track_extent(lba)[0] if first is None else first
        self._counts["pre_read_sectors"] += lba - landing
        return lba - self.cap if lba - self.cap > landing else landing  # (max, no call)

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
        if s.lba + (track.count if track is not None else len(s._done)) > lba + self.cap:
            self._hold_read_ahead(s, lba, svc.sectors, sent_ms, bus_ms, complete_ms, since_ms)

    def _hold_read_ahead(self, s: _Stream, lba: int, n: int, sent_ms: np.ndarray | float,
                         bus_ms: float, complete_ms: float, since_ms: float) -> None:
        """DiskSim 4.0's segment hold (``disk_buffer_block_available``): until a read's
        completion is sent, the head reads no block more than a segment ahead of the next
        block the host has to take from it, ``b - outblkno < segment``; a block refused
        passes under the head unread and comes round a revolution later. The read's own
        sectors are held so by the drive (``Drive._ring_stall``); here the read-ahead running
        into the read's segment is: its sector at LBA ``b`` waits until the read's sector
        ``b - lba - segment`` has gone (or the completion, if that is past the read's end),
        and it and all after it lose whole revolutions (:func:`respect_arrivals`, the same
        rule as for a write's data). Sectors read before the read attached (``since_ms``)
        are not held. Sector times are taken in LBA order."""
        cap = self.cap
        first = lba + cap - s.lba  # the stream's first sector the hold can refuse
        if first < 0:
            first = 0
        track = s.track
        if (track is not None and track.wrap < 0  # on one track: its start, without arrays
                and track.time_of(first) - track.sector_ms >= complete_ms):
            return
        if track is None:  # the same test on the arrays as they are (no step array yet)
            on = next(p for p in reversed(s._pieces) if p.first <= first)
            if float(s._done[first]) - on.sector_ms >= complete_ms:
                return
        done = s.done
        count = len(done)
        plan = Plan(done, s.pieces, 0.0, 0.0, 0.0, s.end_ms, 0, 0)  # (respect_arrivals's input)
        starts = done - plan.sector_ms_each()
        if starts[first] >= complete_ms:
            return
        if isinstance(sent_ms, np.ndarray):
            sent = sent_ms
        else:  # one burst: sector k leaves at its start + (k + 1) * bus_ms, as Drive._dma_in
            sent = sent_ms + (np.arange(n, dtype=float) + 1) * bus_ms
        # the read's sector that must have gone first (past its end: the completion)
        need = np.minimum(np.arange(first, count) + (s.lba - lba - cap), n)
        allowed = np.full(count, -np.inf)
        allowed[first:] = np.minimum(np.append(sent, complete_ms)[need], complete_ms)
        allowed[starts < since_ms] = -np.inf
        held = respect_arrivals(plan, allowed, self.rev_ms)
        shift = float(held[-1] - done[-1])
        if shift <= 0.0:
            return
        k = int(done.searchsorted(s.min_until))
        if k < count and done[k] == s.min_until:  # the minimum read-ahead ends later too
            s.min_until = float(held[k])
        s.done = held
        s.end_ms += shift
        # the read's own sectors in the stream (a stream hit longer than a segment) lost their
        # revolutions to the ring already (Drive._ring_stall, stats["lost_revolutions"])
        own = lba + n - s.lba
        if 0 < own <= count:
            shift -= float(held[own - 1] - done[own - 1])
        self._counts["read_ahead_held_revolutions"] += round(shift / self.rev_ms)

    # -- writes ---------------------------------------------------------------
    def _write_fill(self, sectors: int) -> int:
        c = self.config
        if c.write_fill_sectors <= 0:
            return 0
        if c.write_fill_large_from and sectors >= c.write_fill_large_from:
            return min(sectors, c.write_fill_large_sectors)
        return min(sectors, c.write_fill_sectors)

    def _write_segment(self, lba: int) -> Segment | None:
        for seg in self.segments:
            if seg.dirty and seg.start <= lba <= seg.end and lba >= seg.dirty_from:
                return seg
        return None

    def write_space(self, lba: int, sectors: int, now: float, fua: bool = False) -> np.ndarray:
        """Earliest time each sector of a write can enter the buffer (the ring rule)."""
        free = np.full(sectors, -np.inf)
        if not self.config.write_back or fua:
            return free
        seg = self._write_segment(lba)
        if not self.config.write_prebuffering:
            w = self._destage_in_way(now, seg, lba)
            if w is not None:  # the data comes once the destage has ended
                return np.full(sectors, w.end_ms)
        s = self._live(now)
        wseg = self._wseg
        if wseg is not None and wseg.dirty and (seg is None or lba != seg.end):
            # the only segment writes may take is still dirty: the data comes once it is
            # on the platter (see write)
            return np.full(sectors, s.end_ms if s is not None and s.kind == "write" else now)
        if seg is None:
            if len(self.segments) < self.n_segments or any(not g.dirty for g in self.segments):
                return free
            return np.full(sectors, s.end_ms if s is not None else now)
        if s is None or s.seg is not seg or s.kind != "write":
            return free
        need = lba + np.arange(sectors) - self.cap - s.lba
        ok = (need >= 0) & (need < len(s.done))
        free[ok] = s.done[need[ok]]
        return free

    def write(self, lba: int, sectors: int, arrive_ms: np.ndarray, now: float,
              head: HeadState, fua: bool = False, feed: WriteFeed | None = None,
              arrival_ms: float | None = None) -> WriteService:
        """Take a write whose data enters the buffer at ``arrive_ms`` (one time per sector).

        ``now``: when the command's overhead is done and the head may move for it.
        ``fua``: Force Unit Access, written through to the media even with write-back on
        (after any dirty data it overlaps). ``feed``: how the data crosses the bus; with it,
        data that would overfill the segment waits for the media to make room
        (:func:`feed_write`) and the times it got in are ``WriteService.arrive_ms``.
        Without it, ``arrive_ms`` is taken as given. ``arrival_ms``: when the command
        arrived (default ``now``); with ``stop_adds_to_overhead`` a running read-ahead is
        stopped then and the head moves (to write through, or to destage) only after the
        overhead plus the stop's wait, as DiskSim does (see :meth:`_stop_for_write`).
        """
        self._note_stream(lba, sectors)
        self._counts["writes"] += 1
        self._tick += 1
        arrive_ms = np.asarray(arrive_ms, dtype=float)
        fill = self._write_fill(sectors)
        got = None
        hold = self._stop_for_write(now if arrival_ms is None else arrival_ms, now, head)
        t_head = now
        if not self.config.write_back or fua:
            t0 = hold
            if fua:
                self._counts["fua_writes"] += 1
                # (with a separate write segment this write takes it: its data goes first)
                older = [g for g in self.segments
                         if g.dirty and ((g.dirty_from < lba + sectors and lba < g.end)
                                         or g is self._wseg)]
                if older:
                    t0 = self._write_out(older, now, head)
            self._drop_overlaps(lba, sectors, None, now, head)
            if not self.config.preempt_destage:
                w = self._destage_in_way(t0)
                if w is not None:
                    t0 = max(t0, self._finish_destage(w, head))
            free = max(self.stop(t0, head), t0)
            plan = self.mech.plan(lba, sectors, True, free, head,
                                  min_move_ms=self._min_write_seek)
            if feed is not None and sectors > self.cap:
                got = arrive_ms = feed_write(plan, 0, arrive_ms[:0], arrive_ms[:0], sectors,
                                             self.cap, feed, fill, self.rev_ms)
            done = respect_arrivals(plan, fill_before_write(arrive_ms, fill), self.rev_ms)
            head.cylinder, head.surface = plan.cylinder, plan.surface
            seg = self._allocate(now, head, write=True)
            seg.start, seg.end = lba, lba + sectors
            seg.written = True
            end = float(done[-1])
            lost = end - plan.end_ms
            return WriteService(end, plan.seek_ms + free - now, plan.rotation_ms + lost,
                                plan.transfer_ms, got)
        seg = self._write_segment(lba)
        if not self.config.write_prebuffering:
            w = self._destage_in_way(now, seg, lba)
            if w is not None:
                # DiskSim without "Allow write prebuffering": the write waits for the head,
                # which the destage under way keeps until all its data is on the platter
                t_head = now = max(now, self._finish_destage(w, head))
                seg = self._write_segment(lba)
        fresh = seg is None or lba != seg.end
        wseg = self._wseg
        if fresh and wseg is not None and wseg.dirty:
            # DiskSim's dedicated write segment is the only one a write may take: a write
            # that does not append to its data waits until that data is on the platter
            t_head = now = max(now, self.flush(now, head))
            self._counts["waited_for_write_segment"] += 1
            seg = None
        self._drop_overlaps(lba, sectors, seg, now, head)
        if fresh:
            seg = self._allocate(now, head, write=True)
            seg.start = seg.end = seg.dirty_from = seg.arrive0 = lba
            seg.written = True
        s = self._live(now)
        append = s is not None and s.kind == "write" and s.seg is seg and s.stop_lba == lba
        if feed is not None:
            prior = 0 if append else lba - seg.dirty_from if seg.dirty else 0
            outside = s.done[s.done > feed.start_ms] if append else arrive_ms[:0]
            if prior + sectors > self.cap or (
                    not feed.hold_bus and len(outside) + sectors > self.cap):
                # the segment cannot take the whole request: its data comes in as the media
                # makes room, so the media must be writing this segment now
                if append:
                    plan = self.mech.plan(lba, sectors, True, s.end_ms, s.position())
                else:
                    # (a destage of another segment under way finishes first)
                    t_head = max(hold, self.stop(
                        now if s is None or s.kind == "read" else max(now, s.end_ms), head))
                    s = None
                    plan = self.mech.plan(seg.dirty_from if prior else lba, prior + sectors,
                                          True, t_head, head, min_move_ms=self._min_write_seek)
                got = arrive_ms = feed_write(
                    plan, prior, seg.arrive[seg.dirty_from - seg.arrive0:] if prior else
                    arrive_ms[:0], outside, sectors, self.cap, feed, fill if fresh else 1,
                    self.rev_ms)
        if fresh:
            # a fresh segment: the batch rule counts this request's own data (appended data
            # follows sectors already buffered)
            arrive_ms = fill_before_write(arrive_ms, fill)
        seg.arrive = np.concatenate([seg.arrive, arrive_ms])
        seg.end = lba + sectors
        seg.start = max(seg.start, min(seg.dirty_from, seg.end - self.cap))
        seg.last_used = self._tick
        self._counts["buffered_writes"] += 1
        if append:
            plan = self.mech.plan(lba, sectors, True, s.end_ms, s.position())
            plan = plan._replace(done_ms=respect_arrivals(plan, arrive_ms, self.rev_ms))
            s.extend(plan, keep_from=lba - 2 * self.cap)
            s.end_ms = float(s.done[-1])
            head.cylinder, head.surface = plan.cylinder, plan.surface
        elif got is not None:
            self._destage(seg, t_head, head)
        elif s is None or s.kind == "read":
            t = max(hold, self.stop(now, head))
            if self.config.destage == "sptf":
                seg = self._pick_dirty([g for g in self.segments if g.dirty], t, head)
            self._destage(seg, t, head)
        return WriteService(None, arrive_ms=got)

    def _stop_for_write(self, arrival: float, ready: float, head: HeadState) -> float:
        """With ``stop_adds_to_overhead``, stop a read-ahead for a write arriving at
        ``arrival`` whose overhead ends at ``ready``; returns the earliest time the head may
        move for the write (``ready`` when nothing was stopped, or without the knob).

        DiskSim 4.0 (``disksim_diskctlr.c``): ``disk_write_arrive`` sets the write's
        ``overhead_done`` and calls ``disk_activate_write`` at once, which stops a stoppable
        read-ahead (``disk_buffer_stop_access``) unless the write appends to the segment the
        head is writing, then calls ``disk_check_hda``; there the write, written through or
        fast (write-back, its data reported done once in the buffer), takes the head and,
        pending with sectors left to write (``disk_check_hda_pending``), starts its seek
        after the overhead plus the stop's wait, as a read miss's does. The media write of
        a write-back request is that same seek (simcore: the destage it starts).
        """
        s = self.stream
        if not self.config.stop_adds_to_overhead or s is None or s.kind != "read":
            return ready
        free = self.stop(min(arrival, ready), head)
        return max(free - self.stop_wait, ready) + self.stop_wait

    def _destage(self, seg: Segment, t: float, head: HeadState) -> None:
        lba, n = seg.dirty_from, seg.end - seg.dirty_from
        if n <= 0:
            return
        head0 = (head.cylinder, head.surface)
        plan = self.mech.plan(lba, n, True, t, head, min_move_ms=self._min_write_seek)
        arrive = seg.arrive[lba - seg.arrive0:]
        plan = plan._replace(done_ms=respect_arrivals(plan, arrive[:n], self.rev_ms))
        s = _Stream("write", seg, lba, plan, head0, t)
        s.end_ms = float(s.done[-1])
        self.stream = s
        head.cylinder, head.surface = plan.cylinder, plan.surface
        self._counts["destages"] += 1

    def _write_out(self, segs: list[Segment], t: float, head: HeadState) -> float:
        """Destage ``segs`` now, one after another; returns when they are on the platter."""
        t = self.stop(t, head)
        for seg in segs:
            if not seg.dirty:
                continue
            self._destage(seg, t, head)
            s = self.stream
            t = s.end_ms
            self._retire(s)
            self.stream = None
        return t

    def dirty_sectors(self) -> int:
        return sum(max(0, s.end - s.dirty_from) for s in self.segments)

    def dirty_at(self, t: float) -> int:
        """Sectors reported written but not yet on the platter at ``t`` (lost in a power cut).

        Counts what a destage in progress has already written by ``t`` as safe.
        """
        s = self.stream
        n = 0
        for seg in self.segments:
            if not seg.dirty:
                continue
            done_to = seg.dirty_from
            if s is not None and s.kind == "write" and s.seg is seg:
                done_to = max(done_to, s.lba + int(np.searchsorted(s.done, t, side="right")))
            n += max(0, seg.end - done_to)
        return n

    def _pick_dirty(self, dirty: list[Segment], now: float, head: HeadState) -> Segment:
        if self.config.destage == "sptf":
            pos = self.mech.positioning_ms
            return min(dirty, key=lambda g: (pos(g.dirty_from, True, now, head), g.last_used))
        return min(dirty, key=lambda g: g.last_used)

    def background(self, now: float, head: HeadState) -> float | None:
        """The drive is idle at ``now``: destage if there is dirty data.

        Returns when the current background work ends (the drive should look
        again then), or None when there is nothing to do.
        """
        s = self._live(now)
        if s is not None:
            return s.end_ms
        dirty = [g for g in self.segments if g.dirty_from < g.end]  # (Segment.dirty, inlined)
        if not dirty:
            return None
        seg = self._pick_dirty(dirty, now, head)
        self._destage(seg, now, head)
        return self.stream.end_ms if self.stream is not None else None

    def idle_at_end(self) -> bool:
        """Whether :meth:`background`, asked again once the current background work has
        ended (the drive still idle), would find nothing to start: the work is a read-ahead
        and no segment holds dirty data (only a command can add some). The read-ahead is
        then retired by whatever asks the cache next (:meth:`_live`), as it would have been
        by that call."""
        s = self.stream
        if s is None or s.kind != "read":
            return False
        return not any(g.dirty_from < g.end for g in self.segments)  # (Segment.dirty)

    def flush(self, now: float, head: HeadState) -> float:
        """Time at which every dirty sector is on the platter (destaging one segment after another)."""
        s = self._live(now)
        t = now
        if s is not None and s.kind == "read":
            t = self.stop(now, head)
        while True:
            nxt = self.background(t, head)
            if nxt is None:
                return t
            t = max(t, nxt)
