"""Destaging the drive's write-back data: when, in what order, and what is at risk meanwhile.

Durability (ATA/ACS-3 and SBC-3 semantics): with ``write_back=True`` a write is reported
done once its data is in the buffer, and stays at risk of a power loss until destaged
(:meth:`DestageWork.dirty_at`). A FLUSH CACHE (request ``op``
:data:`~simcore.drive.cache.FLUSH`) ends when every dirty sector is on the platter
(:meth:`DestageWork.flush`). The drive destages when it is idle
(:meth:`DestageWork.background`), taking dirty segments in least-recently-written order
(``destage="lru"``), or, as drives with a deep write cache do, the one the head can reach
soonest (``destage="sptf"``: the drive's own shortest-positioning-time choice, Worthington,
Ganger & Patt 1994). A destage is a background stream
(:mod:`simcore.drive.cache_background`) whose sectors are written only once their data is
in the buffer (:func:`~simcore.drive.write_feed.respect_arrivals`).

While a destage runs, simcore by default lets a read that needs the head stop it (the rest is
written later). DiskSim 4.0's drives do not (``disksim_diskctlr.c``): a write's media access
is never stopped for another command (``disk_buffer_stopable_access``), so every command but
a write appending to the data being destaged waits until the destage has written everything,
read hits too (``preempt_destage=False``: :meth:`DestageWork._destage_in_way`,
:meth:`DestageWork._finish_destage`). :class:`DestageWork` is mixed into
:class:`~simcore.drive.cache.SegmentCache`.
"""

from __future__ import annotations

import numpy as np

from ..disk.access import HeadState
from .cache_background import _Stream, new_stream
from .cache_segments import _NO_ARRIVALS, CLEAN, Segment
from .write_feed import respect_arrivals

__all__ = ["DestageWork"]


class DestageWork:
    """Destaging of a :class:`~simcore.drive.cache.SegmentCache` (a mixin: the methods use its
    ``config``, ``mech``, ``segments``, ``stream`` and counters)."""

    def _destaged_to(self, seg: Segment, lba: int) -> None:
        was = seg.dirty_from
        seg.dirty_from = max(was, lba)
        if seg.dirty_from >= seg.end:
            if was != CLEAN:
                self._marked -= 1
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

    def _no_room(self) -> bool:
        """Whether a request needing a segment of its own finds none to take: the buffer
        holds all its segments (``n_segments``; the write segment aside) and every one of
        them holds dirty data. Only write-back can fill it so; without it this costs one
        test."""
        if not self._write_back or not self._marked:
            return False
        segments, wseg = self.segments, self._wseg
        pool = len(segments) - (wseg is not None)
        if pool < self.n_segments - self.config.separate_write_segment:
            return False
        # (Segment.dirty, inlined: a clean segment has dirty_from >= end); a plain loop, not
        # any() over a generator: this runs on every read miss, and a clean segment is
        # usually among the first
        for g in segments:  # noqa: SIM110 (the loop, for speed, as said above)
            if g.dirty_from >= g.end and g is not wseg:
                return False
        return True

    def _dirty_others(self) -> list[Segment]:
        """The segments holding dirty data, the write segment aside: what may be written out
        to make room (:meth:`_make_room`, ``write_space``)."""
        return [g for g in self.segments if g.dirty and g is not self._wseg]

    def _make_room(self, t: float, head: HeadState) -> float:
        """No segment is clean (:meth:`_no_room`) for a request arriving at ``t``: it waits
        until one is, and this returns when. A destage under way writes all its data (even
        where reads may stop a destage, ``preempt_destage``: stopping it would free no
        segment); with none under way, the dirty segment the destage order picks
        (:meth:`_pick_dirty`) is written out. DiskSim 4.0 never gives a request a segment
        holding dirty data (``disk_buffer_select_write_segment``,
        ``disk_buffer_select_read_segment`` in ``disksim_diskcache.c``): the request
        waits, disconnected, until a destage has ended and left a segment clean."""
        self._live(t)  # (a destage ended by ``t`` is retired first: it left a segment clean)
        if self._no_room():
            self._counts["waited_for_room"] += 1
        while self._no_room():
            s = self._live(t)
            if s is not None and s.kind == "write":
                t = max(t, self._finish_destage(s, head))
            else:
                t = self._write_out([self._pick_dirty(self._dirty_others(), t, head)], t, head)
        return t

    def _trim_arrivals(self, seg: Segment) -> None:
        cut = seg.dirty_from - seg.arrive0
        if cut > 0:
            seg.arrive = seg.arrive[cut:]
            seg.arrive0 = seg.dirty_from

    def _destage(self, seg: Segment, t: float, head: HeadState) -> None:
        lba, n = seg.dirty_from, seg.end - seg.dirty_from
        if n <= 0:
            return
        head0 = (head.cylinder, head.surface)
        plan = self.mech.plan(lba, n, True, t, head, min_move_ms=self._min_write_seek)
        arrive = seg.arrive[lba - seg.arrive0:]
        plan = plan._replace(done_ms=respect_arrivals(plan, arrive[:n], self.rev_ms))
        s = new_stream("write", seg, lba, plan, head0, t)
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
        s = self.stream  # (self._live(now), inlined: the idle drive asks after most commands)
        if s is not None:
            if now < s.end_ms:
                return s.end_ms
            self._retire(s)
            self.stream = None
        if not self._marked:  # no segment holds dirty data
            return None
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
        return not self._marked or not any(g.dirty_from < g.end for g in self.segments)  # (Segment.dirty)

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
