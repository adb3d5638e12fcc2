"""Taking a write into the drive's buffer: written through, or buffered for write-back.

A write's sectors reach the platter only once their data is in the buffer, so a host slower
than the platter loses whole revolutions (:func:`~simcore.drive.write_feed.respect_arrivals`).
A segment holds at most ``segment`` sectors of a write's data not yet on the platter: the
rest of a larger write waits for the media to make room, the drive keeping the bus meanwhile
or, as DiskSim's validated drives without "Hold bus entire write xfer" do, disconnecting and
coming back at the low write water mark (:func:`~simcore.drive.write_feed.feed_write`). A
buffered write starts a destage (:mod:`simcore.drive.cache_destage`) or joins the one it
appends to.

A write with Force Unit Access (``Request.fua``; ATA/ACS-3 and SBC-3 semantics) bypasses the
write-back: it is written through to the media, and only after any dirty data it overlaps has
been written first, so an older copy can never land on top of it. A buffered write does the
same with dirty data of another segment under it (one it does not append to): DiskSim 4.0
calls that a collision (``BUFFER_COLLISION`` in ``disk_buffer_select_write_segment``,
``disksim_diskcache.c``) and the write waits until the older data is on the platter
(``stats["waited_for_older_data"]``).

With a destage running, simcore by default lets the data of a new write into a free segment
at once. DiskSim 4.0's drives do not: without "Allow write prebuffering", as in all ten of its
validated drives, a write that does not append gets neither the bus nor a segment before the
destage has ended (``disk_write_arrive``, ``disk_select_bus_request`` in
``disksim_diskctlr.c``: ``write_prebuffering=False``), so it is reported done only once the
destage has ended and its own data is in. Fast write levels 1 and 2 both report a write done
when its data is in the buffer (``disk_buffer_transfer_size``); level 1 only keeps an
appending write from joining a destage when other commands wait at the drive, which never
happens with one command at a time ("Max queue length" 1, as in all ten).
:class:`WriteIntake` is mixed into :class:`~simcore.drive.cache.SegmentCache`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..disk.access import HeadState
from .cache_segments import Segment
from .write_feed import WriteFeed, feed_write, fill_before_write, respect_arrivals

__all__ = ["WriteIntake", "WriteService"]


class WriteService(NamedTuple):
    """What a write costs the media: ``media_end_ms`` is None when it is only buffered.

    ``arrive_ms``: when each sector of the host's data got into the buffer, where the
    segment held it back (:func:`feed_write`); None when it came as the caller gave it."""

    media_end_ms: float | None
    seek_ms: float = 0.0
    rotation_ms: float = 0.0
    transfer_ms: float = 0.0
    arrive_ms: np.ndarray | None = None


class WriteIntake:
    """Writes into a :class:`~simcore.drive.cache.SegmentCache` (a mixin: the methods use its
    ``config``, ``mech``, ``segments``, ``stream``, ``cap`` and counters)."""

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

    def _write_target(self, lba: int, end: int) -> tuple[Segment | None, list[Segment]]:
        """:meth:`_write_segment`'s answer for a write of ``[lba, end)``, and the segments
        whose dirty data lies under it (one scan: it runs on every buffered write). The
        segment a write appends to ends at ``lba``: never among them."""
        seg = None
        older: list[Segment] = []
        if not self._marked:  # no segment holds dirty data
            return seg, older
        for g in self.segments:
            df = g.dirty_from
            if df >= g.end:  # clean (Segment.dirty, inlined)
                continue
            if seg is None and g.start <= lba <= g.end and lba >= df:
                seg = g
            if df < end and lba < g.end:
                older.append(g)
        return seg, older

    def _retire_destage(self, now: float) -> None:
        """Retire a destage that has ended by ``now``, before a write picks its segment.

        Its data is on the platter and its segment clean at ``now``: a write going on
        where it ended finds no dirty data to append to and takes a segment of its own, as
        it does when the idle drive retired the destage first (``background``). Retired
        only after the write had appended, the destage would mark the appended data clean
        too, and it would never be written. (A finished read-ahead is left to whatever asks
        next, as before: retiring it changes no segment.)"""
        s = self.stream
        if s is not None and s.kind == "write" and now >= s.end_ms:
            self._live(now)

    def write_space(self, lba: int, sectors: int, now: float, fua: bool = False,
                    head: HeadState | None = None) -> np.ndarray:
        """Earliest time each sector of a write can enter the buffer (the ring rule).

        A write needing a segment of its own when every segment holds dirty data waits
        until a destage has cleaned one (:meth:`_make_room`): with ``head`` (the drive's),
        an idle drive starts that destage at ``now``, as it would have once idle."""
        free = np.full(sectors, -np.inf)
        if not self.config.write_back or fua:
            return free
        self._retire_destage(now)  # (see write)
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
        if (seg is None or lba != seg.end) and self._no_room():
            # no clean segment: the data comes once a destage has cleaned one (see write)
            if head is not None and (s is None or s.kind != "write"):
                t = self.stop(now, head)
                self._destage(self._pick_dirty(self._dirty_others(), t, head), t, head)
                s = self.stream
            return np.full(sectors, s.end_ms if s is not None and s.kind == "write" else now)
        if seg is None:
            return free
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
                start = now
                if self._no_room():  # it too needs a segment: it waits for a clean one
                    t0 = start = max(t0, self._make_room(now, head))
                # (with a separate write segment this write takes it: its data goes first)
                older = [g for g in self.segments
                         if g.dirty and ((g.dirty_from < lba + sectors and lba < g.end)
                                         or g is self._wseg)]
                if older:
                    t0 = self._write_out(older, start, head)
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
            # revolutions lost waiting for data (none: the last sector's time as the plan
            # has it, which may differ from ``plan.end_ms`` in the last bit)
            lost = end - plan.end_ms if end > plan.end_ms else 0.0
            # (the stop's wait, a hair below zero where a sector boundary rounds below the
            # stop, must not make the seek negative either)
            wait = free - now if free > now else 0.0
            return WriteService(end, plan.seek_ms + wait, plan.rotation_ms + lost,
                                plan.transfer_ms, got)
        self._retire_destage(now)
        seg, older = self._write_target(lba, lba + sectors)
        if not self.config.write_prebuffering:
            w = self._destage_in_way(now, seg, lba)
            if w is not None:
                # DiskSim without "Allow write prebuffering": the write waits for the head,
                # which the destage under way keeps until all its data is on the platter
                t_head = now = max(now, self._finish_destage(w, head))
                seg, older = self._write_target(lba, lba + sectors)
        fresh = seg is None or lba != seg.end
        wseg = self._wseg
        if fresh and wseg is not None and wseg.dirty:
            # DiskSim's dedicated write segment is the only one a write may take: a write
            # that does not append to its data waits until that data is on the platter
            t_head = now = max(now, self.flush(now, head))
            self._counts["waited_for_write_segment"] += 1
            seg = None
            older = []  # (the flush left nothing dirty)
        room = late = None
        if older:
            # dirty data of an earlier write under this one, which it does not append to
            # (an append may reach into another segment's): DiskSim 4.0
            # (disk_buffer_select_write_segment, disksim_diskcache.c) finds it uncleanable,
            # a BUFFER_COLLISION, and the write waits until that data is on the platter;
            # the older copy never lands on top of the newer
            t_head = now = room = self._write_older(older, now, head)
            if seg is not None and not seg.dirty:
                seg = None
                fresh = True
            if len(arrive_ms) and arrive_ms[0] < room:
                late = arrive_ms = np.maximum(arrive_ms, room)
        if fresh and self._no_room():
            # every segment holds dirty data: the write waits until a destage has cleaned
            # one (write_space said when its data may come)
            t_head = now = room = self._make_room(now, head)
            if seg is not None and not seg.dirty:
                seg = None
            if len(arrive_ms) and arrive_ms[0] < room:
                # (a caller that did not ask write_space: the data gets in once there is room)
                late = arrive_ms = np.maximum(arrive_ms, room)
        self._drop_overlaps(lba, sectors, seg, now, head)
        if fresh:
            seg = self._allocate(now, head, write=True)
            seg.start = seg.end = seg.dirty_from = seg.arrive0 = lba
            self._marked += 1  # (a segment _allocate gave is unmarked)
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
        self._touch(seg)
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
        return WriteService(None, arrive_ms=got if got is not None else late)

    def _write_older(self, older: list[Segment], t: float, head: HeadState) -> float:
        """Write the dirty segments ``older`` to the platter from ``t`` (a destage of one of
        them under way, or any under way where destages are not stopped, runs to its end
        first); returns when they are all written."""
        self._counts["waited_for_older_data"] += 1
        s = self._live(t)
        if s is not None and s.kind == "write" and (s.seg in older
                                                    or not self.config.preempt_destage):
            t = max(t, self._finish_destage(s, head))
        return self._write_out(older, t, head)

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
