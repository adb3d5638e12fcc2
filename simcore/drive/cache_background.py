"""Background media work of the drive's buffer, and stopping it when a command needs the head.

The model is arithmetic, not a process: media activity that goes on in the
background (read-ahead into a segment, destaging dirty data) is a planned
*stream*, a sector-by-sector schedule from :meth:`Mechanism.plan
<simcore.disk.access.Mechanism.plan>`. A later command asks the cache what is in
the buffer at its own time, and stops the stream there if it needs the head:
at once, or at the end of a head switch or seek in progress (those cannot be
aborted), and never before the minimum read-ahead is done.

:class:`_Stream` is one such schedule (a read-ahead into, or a destage from, a segment);
:class:`BackgroundWork` (mixed into :class:`~simcore.drive.cache.SegmentCache`) retires it
once done and stops it early. The stop follows DiskSim 4.0 (``disk_buffer_stopable_access``,
``disk_buffer_stop_access``, ``disk_seek_stoptime`` in ``disksim_diskctlr.c``), and Gray 2000
§2.10 and Panagiotakis 2006 (``notes/004_multistream.md`` §5) for the minimum and
preemptible read-ahead.
"""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np

from ..disk.access import HeadState, Plan, PlanPiece, TrackPlan, join_track_plans
from .cache_segments import Segment

__all__ = ["BackgroundWork", "new_stream", "sector_end"]

_new_object = object.__new__  # (new_stream)


class _Stream:
    """Media work going on in the background: read-ahead into, or destaging from, a segment.

    A read-ahead on one track keeps its :class:`~simcore.disk.access.TrackPlan` (``track``),
    one over several tracks the list of its tracks' (``tracks``), and makes the sector times
    and pieces only when something asks for them: most read-aheads are stopped by the next
    command or end untouched, and :meth:`SegmentCache.stop` counts what they read from the
    track plans' numbers. A read-ahead that starts where its read ended on the last
    sectors of a track reads on over the next (DiskSim's ``track-ahead`` does so whenever
    the segment began on an earlier track): one read miss in a few dozen on a random
    workload, and making its arrays cost more than all the other read-aheads' plans. The
    tracks' sector times follow one another (:func:`new_stream` checks it), so how many
    are done at a time is counted track by track, as the arrays' running maximum gives it.
    Made by :func:`new_stream` (one per read miss: see
    :class:`~simcore.disk.access.TrackPlan` for why not by calling the class)."""

    __slots__ = ("_done", "_pieces", "asked_ms", "end_ms", "head0", "kind", "lba", "min_until",
                 "seg", "start0", "track", "tracks")

    track: TrackPlan | None
    tracks: list[TrackPlan] | None
    asked_ms: float | None

    def _unfold(self) -> None:
        if self.track is not None:
            plan = self.track.plan()
            self.track = None
        else:
            plan = join_track_plans(self.tracks)
            self.tracks = None
        self._done, self._pieces = plan.done_ms, plan.pieces

    @property
    def done(self) -> np.ndarray:
        if self.track is not None or self.tracks is not None:
            self._unfold()
        return self._done

    @done.setter
    def done(self, value: np.ndarray) -> None:
        if self.track is not None or self.tracks is not None:
            self._unfold()
        self._done = value

    @property
    def pieces(self) -> list[PlanPiece]:
        if self.track is not None or self.tracks is not None:
            self._unfold()
        return self._pieces

    @pieces.setter
    def pieces(self, value: list[PlanPiece]) -> None:
        if self.track is not None or self.tracks is not None:
            self._unfold()
        self._pieces = value

    def done_by(self, t: float) -> int:
        """How many of the stream's sectors are done at ``t`` (what
        ``np.searchsorted(done, t, "right")`` gives), without unfolding track plans: track by
        track, up to the first not done by then (every later sector is done after it)."""
        if self.track is not None:
            return self.track.done_by(t)
        if self.tracks is not None:
            got = 0
            for tp in self.tracks:
                k = tp.done_by(t)
                got += k
                if k < tp.count:
                    break
            return got
        return int(self._done.searchsorted(t, side="right"))

    def time_of(self, k: int) -> float:
        """When the stream's sector ``k`` is done (``float(done[k])``), from the track plans'
        numbers while it has no arrays."""
        if self.track is not None:
            return self.track.time_of(k)
        if self.tracks is not None:
            for tp in self.tracks:
                if k < tp.count:
                    return tp.time_of(k)
                k -= tp.count
            raise IndexError("a sector beyond the stream's end")
        return float(self._done[k])

    def sector_ms_at(self, k: int) -> float:
        """How long the stream's sector ``k`` takes to pass under the head (its track's)."""
        if self.track is not None:
            return self.track.sector_ms
        if self.tracks is not None:
            for tp in self.tracks:
                if k < tp.count:
                    return tp.sector_ms
                k -= tp.count
            raise IndexError("a sector beyond the stream's end")
        return next(p for p in reversed(self._pieces) if p.first <= k).sector_ms

    @property
    def count(self) -> int:
        """How many sectors the stream reads or writes."""
        if self.track is not None:
            return self.track.count
        if self.tracks is not None:
            n = 0
            for tp in self.tracks:
                n += tp.count
            return n
        return len(self._done)

    @property
    def stop_lba(self) -> int:
        return self.lba + self.count

    def extend(self, plan: Plan, keep_from: int | None = None) -> None:
        """Append a continuation; forget sectors before LBA ``keep_from`` (long streams)."""
        if keep_from is not None and keep_from - self.lba > 4096:
            self._trim(keep_from)
        n = len(self.done)
        self.done = np.concatenate([self.done, plan.done_ms])
        self.pieces.extend(p._replace(first=p.first + n) for p in plan.pieces)
        self.end_ms = plan.end_ms

    def _trim(self, lba: int) -> None:
        cut = min(lba - self.lba, len(self.done))
        keep = [p for p in self.pieces if p.first >= cut]
        if self.pieces and (not keep or keep[0].first > cut):  # the piece holding ``cut``
            keep.insert(0, max((p for p in self.pieces if p.first <= cut),
                               key=lambda p: p.first))
        cut = keep[0].first if keep else cut
        if cut <= 0:
            return
        last = self.pieces[-1]
        self.head0 = (last.cylinder, last.surface) if not keep else self.head0
        self.pieces = [p._replace(first=p.first - cut) for p in keep]
        self.done = self.done[cut:]
        self.lba += cut

    def position(self) -> HeadState:
        if self.track is not None:
            last = self.track
        else:
            last = self.tracks[-1] if self.tracks is not None else self._pieces[-1]
        return HeadState(last.cylinder, last.surface)


def new_stream(kind: str, seg: Segment, lba: int, plan: Plan | TrackPlan | list[TrackPlan],
               head0: tuple[int, int], min_until: float) -> _Stream:
    """A :class:`_Stream` of ``kind`` ("read" or "write") into or from ``seg``, from ``lba``
    on, following ``plan`` (a list: consecutive tracks' :class:`TrackPlan` s, as
    :meth:`~simcore.disk.access.Mechanism.read_track_plans` gives them); the head was at
    ``head0`` before it."""
    s = _new_object(_Stream)
    s.kind = kind
    s.seg = seg
    s.lba = lba
    s.tracks = None
    if type(plan) is TrackPlan:
        s.track = plan
        s._done = s._pieces = None
    elif type(plan) is list:
        s.track = None
        s._done = s._pieces = None
        s.tracks = plan
        for a, b in pairwise(plan):
            if b.time_of(0) < a.time_of(a.count - 1):  # not one after the other (never seen)
                s._unfold()  # the arrays' running maximum decides
                break
        plan = plan[-1]
    else:
        s.track = None
        s._done = plan.done_ms
        s._pieces = list(plan.pieces)
    s.end_ms = plan.end_ms
    s.head0 = head0
    s.min_until = min_until
    s.start0 = seg.start  # the segment's start before this stream (the ring's floor)
    s.asked_ms = None  # decided before its start (a delayed read-ahead)
    return s


def sector_end(p: PlanPiece | TrackPlan, t: float) -> float:
    """When a read-ahead on track ``p``, stopped at ``t`` after its move, frees the head if
    it may not stop inside a sector (``CacheConfig.stop_in_sector`` False, DiskSim's "Stop
    prefetch in sector" = 0): before its first sector, when that sector begins
    (``read_ms``); then at the next sector boundary, one every ``sector_ms`` from
    ``read_ms`` (``t`` itself on a boundary). In order, boundary ``j`` is exactly the
    ``j``-th sector's done time, ``base_ms + j * sector_ms``."""
    r = p.read_ms
    if t <= r:
        return r
    k = math.ceil((t - r) / p.sector_ms - 1e-9)
    boundary, end = r + k * p.sector_ms, p.end_ms
    return end if end < boundary else boundary  # the smaller (min, without its call)


def _stop_on(pieces: list[PlanPiece] | list[TrackPlan], free: float, cyl: int, surf: int
             ) -> tuple[float, PlanPiece | TrackPlan | None, int, int]:
    """Where a stream of ``pieces`` stopped at ``free`` leaves the head: when it is free (a
    seek or head switch in progress runs to its end), the piece whose sectors pass then
    (None during a move or before the first), and its track (``(cyl, surf)`` before it)."""
    on = None
    for p in pieces:
        if free < p.move_start_ms:
            break
        cyl, surf = p.cylinder, p.surface
        if free < p.move_end_ms:  # a seek or head switch cannot be aborted
            return p.move_end_ms, None, cyl, surf
        on = p
    return free, on, cyl, surf


class BackgroundWork:
    """The cache's one background stream (a mixin: the methods use
    :class:`~simcore.drive.cache.SegmentCache`'s ``stream``, ``config`` and counters)."""

    def _live(self, t: float) -> _Stream | None:
        """The stream still running at ``t`` (a finished one is retired)."""
        s = self.stream
        if s is not None and t >= s.end_ms:
            self._retire(s)
            self.stream = None
            return None
        return s

    def _retire(self, s: _Stream) -> None:
        if s.kind == "write":
            self._destaged_to(s.seg, s.stop_lba)

    def stop(self, t: float, head: HeadState) -> float:
        """Stop background media work to free the head at ``t``; returns when it is free.

        A read-ahead runs on to its minimum (``min_read_ahead_kib``) and a seek or head
        switch in progress to its end. Then, with ``stop_in_sector`` (DiskSim's "Stop
        prefetch in sector" = 1), the head is free at once; without it, at the end of the
        sector passing under it, or, while the head waits for its first sector on a track,
        when that sector begins (:func:`sector_end`). Either way the segment keeps only
        the sectors read whole by ``t``: DiskSim drops the sector in progress. A read-ahead
        decided before it starts (``asked_ms``: a read-ahead on idle hit waits for the
        command overhead) and stopped before then frees the head at its start, or at the
        end of its first seek when it has one (as DiskSim, whose seek event is queued from
        the decision on), the wait counted from the stop.
        """
        s = self.stream
        self.stop_wait = 0.0
        if s is None:
            return t
        self.stream = None
        if t >= s.end_ms:
            self._retire(s)
            pos = s.position()
            head.cylinder, head.surface = pos.cylinder, pos.surface
            return t
        reading = s.kind == "read"  # (a read-ahead; else a destage: asked once, used below)
        if reading and not self.config.preemptible:
            pos = s.position()
            head.cylinder, head.surface = pos.cylinder, pos.surface
            return s.end_ms
        free = base = s.min_until if s.min_until > t else t  # (max, without its call)
        cyl, surf = s.head0
        track = s.track
        on: PlanPiece | TrackPlan | None = None  # the track whose sectors pass at ``free``
        if track is not None:  # (_stop_on over its one track, without the call)
            if free >= track.move_start_ms:
                cyl, surf = track.cylinder, track.surface
                if free < track.move_end_ms:  # a seek or head switch cannot be aborted
                    free = track.move_end_ms
                else:
                    on = track
        else:  # (a TrackPlan has a PlanPiece's fields but its first)
            free, on, cyl, surf = _stop_on(s.tracks if s.tracks is not None else s._pieces,
                                           free, cyl, surf)
        if s.asked_ms is not None and t < base:
            on = None  # stopped before it began: its (queued) seek is all there is to wait for
        got = s.done_by(free) if track is None else track.done_by(free)
        n = s.count if track is None else track.count
        if self._block > 1:  # a 4Kn drive: the logical block in progress is not kept either
            got -= got % self._block
        if on is not None and reading and not self.config.stop_in_sector:
            # (sector_end, inlined: a read-ahead stopped on its track)
            r = on.read_ms
            if free <= r:
                free = r
            else:
                boundary = r + math.ceil((free - r) / on.sector_ms - 1e-9) * on.sector_ms
                free = on.end_ms if on.end_ms < boundary else boundary
        if reading:
            # DiskSim counts the stop's wait from the stop (disk_seek_stoptime - simtime):
            # before a delayed read-ahead's start too, whose seek event is queued already
            # and whose end the stop waits for (disk_buffer_stopable_access); after a
            # minimum read-ahead, from its end (the command takes the head only then)
            origin = max(t, s.asked_ms) if s.asked_ms is not None and t < base else base
            self.stop_wait = free - origin
            seg = s.seg
            seg.end = end = s.lba + got
            if self.config.read_ahead_over_requested:  # the ring pushed out only what was read
                # (min and max, without their calls)
                ring = end - self.cap if end - self.cap > s.start0 else s.start0
                seg.start = ring if ring < end else end
            counts = self._counts
            counts["read_ahead_stopped"] += n - got
            counts["read_ahead_sectors"] -= n - got
        else:  # a destage: no wait (stop_wait stays 0.0, as set above)
            self._destaged_to(s.seg, s.lba + got)
        head.cylinder, head.surface = cyl, surf
        return free
