"""Segment bookkeeping: what each segment of the drive's buffer holds, and which one a
request takes.

A :class:`Segment` holds one contiguous LBA range, the part of it not yet on the platter,
and when its data came in. :class:`SegmentTable` (mixed into
:class:`~simcore.drive.cache.SegmentCache`, whose state it uses) gives a new request the
least recently used clean segment, drops copies a write makes stale, and says what a
segment holds at a given time while a read-ahead runs into it (the ring). Seeds: Gray 2000
§2.10 (segmentation); Panagiotakis 2006 §2.1.1 and Ch. 3 as extracted in
``notes/004_multistream.md`` §5 (segments as private caches of sequential streams, LRU
reclaiming); DiskSim 4.0's dedicated write segment and ring (``disksim_diskcache.c``).
"""

from __future__ import annotations

from operator import attrgetter

import numpy as np

from ..disk.access import HeadState

__all__ = ["CLEAN", "Segment", "SegmentTable"]

_NO_ARRIVALS = np.empty(0)  # a segment's arrival times when none are kept (shared, never
_NO_ARRIVALS.flags.writeable = False  # written: the arrays are replaced, not filled)
CLEAN = 1 << 62  # ``Segment.dirty_from`` of a segment with nothing left to write
_last_used = attrgetter("last_used")


class Segment:
    """Data of one contiguous LBA range ``[start, end)``; ``[dirty_from, end)`` not yet written."""

    __slots__ = ("arrive", "arrive0", "dirty_from", "end", "first", "id", "last_used",
                 "owner_start", "ready_ms", "start", "written")

    def __init__(self, sid: int):
        self.id = sid
        self.start = self.end = self.first = 0
        self.owner_start = 0  # the segment's start when the last read miss or partial took it
        self.ready_ms = 0.0  # when the data of a miss is all in (for pictures)
        self.dirty_from = CLEAN
        self.last_used = -1
        self.arrive0 = 0
        self.arrive: np.ndarray = _NO_ARRIVALS
        self.written = False  # holds data the host wrote (not read from the platter)

    @property
    def dirty(self) -> bool:
        return self.dirty_from < self.end

    def __repr__(self) -> str:
        d = f", dirty from {self.dirty_from}" if self.dirty else ""
        return f"Segment({self.id}: [{self.start}, {self.end}){d})"


class SegmentTable:
    """The segments of a :class:`~simcore.drive.cache.SegmentCache` (a mixin: the methods use
    its ``config``, ``segments``, ``stream``, ``cap``, ``n_segments`` and counters)."""

    def _valid_end(self, seg: Segment, t: float) -> int:
        """One past the last LBA ``seg`` holds at ``t``: a read-ahead running into it has
        read up to there (counted from its track plan's numbers while it has no arrays)."""
        s = self.stream
        if s is not None and s.seg is seg and s.kind == "read" and t < s.end_ms:
            return s.lba + s.done_by(t)
        return seg.end

    def _live_start(self, seg: Segment, t: float) -> int:
        """The first LBA ``seg`` holds at ``t``. With ``read_ahead_over_requested`` (DiskSim's
        read-ahead) a read-ahead running into the segment makes it a ring sector by sector
        (``disk_buffer_segment_wrap`` after every sector read): it keeps the last segment's
        worth it has read, so its start moves up as the read-ahead goes on, not all at once
        to where the read-ahead will end. Otherwise the start is where the segment will
        start once its read-ahead is done."""
        s = self.stream
        if (self.config.read_ahead_over_requested and s is not None and s.seg is seg
                and s.kind == "read" and t < s.end_ms):
            return max(s.start0, self._valid_end(seg, t) - self.cap)
        return seg.start

    def contents(self, t: float) -> list[tuple[int, int, bool]]:
        """``(start, end, dirty)`` of every segment's data in the buffer at time ``t``."""
        out = []
        for seg in self.segments:
            end = self._valid_end(seg, t)
            s = self.stream
            streaming = s is not None and s.seg is seg and s.kind == "read" and t < s.end_ms
            if not streaming and t < seg.ready_ms:
                continue
            start = self._live_start(seg, t)  # the ring, as of time t
            if streaming and not self.config.read_ahead_over_requested:
                start = max(seg.first, end - self.cap)
            if end > start:
                out.append((start, end, seg.dirty))
        return out

    def _shrink(self, wseg: Segment | None) -> None:
        """Adaptive segments were made fewer (:meth:`SequentialStreams._follow_streams`):
        drop the clean segments used least recently, down to the new count. Dirty ones stay
        until destaged, and so do the write segment and the one a read-ahead is filling.
        When that would drop every clean segment, the newest of them stays: the request
        being given a segment takes it (:meth:`_allocate`; a caller found one clean, so it
        did not wait for room, :meth:`DestageWork._no_room`)."""
        segments, stream = self.segments, self.stream
        clean = [s for s in segments if not s.dirty and s is not wseg]
        victims = [v for v in sorted(clean, key=lambda s: s.last_used)[
                       : len(segments) - self.n_segments]
                   if stream is None or stream.seg is not v]
        if victims and len(victims) == len(clean):
            victims.pop()
        for victim in victims:
            if victim.dirty_from != CLEAN:
                self._marked -= 1
            segments.remove(victim)
            self._lru.remove(victim)  # (the rest stay in order)

    def _allocate(self, t: float, head: HeadState, write: bool = False) -> Segment:
        """A segment for a new request's data: the least recently used clean one, or a new
        one while fewer than the buffer's segments exist; never one more (a caller finding
        every segment dirty, :meth:`DestageWork._no_room`, first waits for one to be
        destaged). With ``separate_write_segment`` a write (``write=True``) always gets the
        write segment and a read chooses among the others (DiskSim's dedicated write
        segment; see :class:`CacheConfig`)."""
        self._tick += 1
        segments = self.segments
        separate = self.config.separate_write_segment
        if separate and write:
            seg = self._wseg
            if seg is None:
                self._sids += 1
                seg = self._wseg = Segment(self._sids)
                segments.append(seg)
                self._lru.append(seg)  # (the newest once _touch below gives it this tick)
            elif self.stream is not None and self.stream.seg is seg:
                self.stop(t, head)
        else:
            wseg = self._wseg
            if len(segments) > self.n_segments:  # shrink after re-segmenting
                self._shrink(wseg)
            pool = len(segments) - (wseg is not None)
            if pool < self.n_segments - separate:
                self._sids += 1
                seg = Segment(self._sids)
                segments.append(seg)
                self._lru.append(seg)  # (the newest once _touch below gives it this tick)
            else:
                # the clean segment used least recently (the first of equals; this runs on
                # every read miss): with none marked dirty and no write segment, any
                # segment, the first of the age order (_touch keeps it: no scan); else the
                # age is tested first, so only the few segments older than those seen so
                # far are tested for dirty data
                if not self._marked and wseg is None:
                    lru = self._lru[0]
                else:
                    lru, oldest = None, 0
                    for g in segments:
                        if (lru is None or g.last_used < oldest) and g.dirty_from >= g.end and (
                                g is not wseg):
                            lru, oldest = g, g.last_used
                # never a segment beyond the buffer's: a request finding every one dirty
                # waits for a destage first (DestageWork._no_room, _make_room)
                assert lru is not None, "no clean segment: the caller must make room first"
                seg = lru
                if self.stream is not None and self.stream.seg is seg:
                    self.stop(t, head)
                self._counts["evictions"] += 1
        seg.start = seg.end = 0
        if seg.dirty_from != CLEAN:
            self._marked -= 1
        seg.dirty_from = CLEAN
        seg.arrive = _NO_ARRIVALS
        seg.arrive0 = 0
        seg.ready_ms = 0.0
        seg.written = False
        # (_touch, inlined: this runs on every miss) the tick, just moved on, is newer than
        # every other segment's: the segment goes last in the age order
        seg.last_used = self._tick
        lru = self._lru
        if lru[-1] is not seg:
            lru.remove(seg)
            lru.append(seg)
        return seg

    def _touch(self, seg: Segment) -> None:
        """``seg`` is used now: its ``last_used`` becomes the tick, and ``_lru``, the segments
        as ``sorted(segments, key=last_used)`` orders them (equals in the list's order, so
        its first is what ``min`` over the list gives), stays so. The tick is almost always
        newer than every other segment's: ``seg`` then goes last, without sorting."""
        tick = seg.last_used = self._tick
        lru = self._lru
        last = lru[-1]
        if last is seg:  # the newest already (a tick never goes back)
            return
        if last.last_used < tick:
            lru.remove(seg)
            lru.append(seg)
        else:  # a tie with a segment touched at this tick: the list's order decides
            self._lru = sorted(self.segments, key=_last_used)

    def _drop_overlaps(self, lba: int, n: int, keep: Segment | None, t: float,
                       head: HeadState) -> None:
        """A write makes other copies of its sectors stale."""
        dropped = False
        for seg in list(self.segments):
            if seg is keep or seg.dirty:
                continue
            if seg.start < lba + n and lba < seg.end:
                if self.stream is not None and self.stream.seg is seg:
                    self.stop(t, head)
                seg.start = seg.end = 0
                seg.last_used = -1
                dropped = True
        if dropped:  # the oldest now, in the list's order: _lru sorted again
            self._lru = sorted(self.segments, key=_last_used)
