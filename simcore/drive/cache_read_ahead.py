"""Read-ahead in the drive's buffer: how far to read on after a read, and the segment hold.

Seeds: Gray 2000 §2.10 (read-ahead, on-arrival read-ahead, read-ahead in zero);
Panagiotakis 2006 §2.1.1 and Ch. 3 as extracted in ``notes/004_multistream.md`` §5
(minimum and maximum read-ahead, preemptible prefetch); DiskSim 4.0 for ``track-ahead``,
"Read any free blocks" and the hold (``disksim_diskcache.c``, ``disksim_diskctlr.c``).
:class:`ReadAhead` is mixed into :class:`~simcore.drive.cache.SegmentCache`.

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
before the target, whatever the policy.

A segment is a ring: read-ahead may run at most one segment ahead of what
the host has consumed. When it is full the media stops; going on later costs
the rotation back to the next sector (the lost revolution). Until a read's
completion is sent, its media, read-ahead included, runs at most a segment
ahead of the next sector the host has to take from it (DiskSim 4.0's
``disk_buffer_block_available``): a sector refused comes round a revolution
later (``stats["read_ahead_held_revolutions"]``; a read's own sectors in
``Drive._ring_stall``, ``stats["lost_revolutions"]``).
"""

from __future__ import annotations

import math

import numpy as np

from ..disk.access import HeadState, Plan, TrackPlan
from .cache_background import _new_object, _Stream, new_stream
from .cache_segments import Segment
from .write_feed import respect_arrivals

__all__ = ["ReadAhead"]


class ReadAhead:
    """Read-ahead of a :class:`~simcore.drive.cache.SegmentCache` (a mixin: the methods use its
    ``config``, ``layout``, ``mech``, ``stream``, ``cap`` and counters)."""

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
        config, layout = self.config, self.layout  # (each asked for several times below)
        ahead = config.read_ahead == "track-ahead"  # not bounded by the segment size
        track: tuple | None = None  # x's track (StraightTrack fields), if the read-ahead stays on it
        if limit is None:
            seg_start = seg.owner_start if req_start is not None else seg.start
            if ahead and 0 < x < layout.capacity:
                # (Layout.straight_track: the last straight track found, usually the one the
                # read just ended on, without the call and its tuple)
                track = layout._track
                if not track[0] <= x < track[1]:
                    track = layout.straight_track(x)
            if track is not None and seg_start >= track[0]:
                # _track_ahead on a straight track the segment began on: to its end
                ra = track[1] - x
            else:
                track = None
                ra = self._read_ahead(x, seg_start, req_start)
        else:
            ra = limit if ahead else min(limit, self.cap)
        if consumed is not None or not config.read_ahead_over_requested:
            ra = self._within_ring(seg, x, ra, consumed, req_start)
        if self._block > 1:  # a 4Kn drive reads whole logical blocks (x starts one)
            ra -= ra % self._block
        if ra <= 0:
            return
        if self.stream is not None:
            self.stop(t, head)
        head0 = (head.cylinder, head.surface)
        mn = self._min_ra if self._min_ra < ra else ra  # (min, without its call)
        plan: Plan | TrackPlan | list[TrackPlan] | None = None
        if track is not None and x + ra <= track[1]:
            plan = self.mech.track_plan_on(track, x, ra, t, head)
        if plan is None:
            plan = self._read_ahead_plan(x, ra, t, head)
            self.stream = s = new_stream("read", seg, x, plan, head0, t)
        else:  # (new_stream of a track's plan, inlined: this runs on every read miss)
            self.stream = s = _new_object(_Stream)
            s.kind = "read"
            s.seg = seg
            s.lba = x
            s.track = plan
            s.tracks = s._done = s._pieces = s.asked_ms = None
            s.end_ms = plan.end_ms
            s.head0 = head0
            s.min_until = t
            s.start0 = seg.start
        if mn:  # the minimum read-ahead ends with its last sector
            s.min_until = s.time_of(mn - 1)
        elif asked_ms is not None:
            s.asked_ms = asked_ms if asked_ms < t else None
        seg.end = x + ra
        if seg.end - self.cap > seg.start:  # (max, without its call)
            seg.start = seg.end - self.cap
        last = s.track if s.track is not None else s.position()
        head.cylinder, head.surface = last.cylinder, last.surface
        counts = self._counts
        counts["read_ahead_sectors"] += ra
        counts["read_aheads"] += 1

    def _within_ring(self, seg: Segment, x: int, ra: int, consumed: int | None,
                     req_start: int | None) -> int:
        """``ra`` cut so that the segment, a ring, keeps what it must: never overwrite what
        the host has not taken (up to ``consumed``); after a miss (``consumed`` None) the
        request and what follows it, unless ``read_ahead_over_requested``, with which the
        read-ahead runs its whole length and the ring may push the request's own data,
        already sent, out of the segment (see
        simcore.disksim.importer.read_ahead_passes_request for DiskSim's rule). With
        read_any_free the sectors read before the request do not count: DiskSim keeps the
        request's start plus a segment (disk_buffer_get_max_readahead) and its ring drops
        the earlier sectors first."""
        if consumed is not None:
            return min(ra, consumed + self.cap - x)
        if self.config.read_ahead_over_requested:
            return ra
        keep_from = seg.start
        if self.config.read_any_free and req_start is not None:
            keep_from = max(seg.start, req_start)
        return min(ra, keep_from + self.cap - x)

    def _read_ahead_plan(self, x: int, ra: int, t: float, head: HeadState
                         ) -> TrackPlan | list[TrackPlan] | Plan:
        """The media plan of a read-ahead of ``ra`` sectors from ``x`` (but for one inside a
        known straight track): a track's :class:`TrackPlan`, or the list of its tracks' (see
        :class:`_Stream`), their sector times made only when asked for; a :class:`Plan` with
        its arrays on a drive with Advanced Format sectors."""
        plans = self.mech.read_track_plans(x, ra, t, head)
        if plans is None:
            return self.mech.plan(x, ra, False, t, head)
        return plans[0] if len(plans) == 1 else plans

    def _extend(self, s: _Stream, upto: int, t: float, head: HeadState,
                req_start: int | None = None) -> None:
        """The host consumed a stream's data up to ``upto``: read on, seamlessly if still running.
        ``req_start``: the first LBA of the read that consumed it."""
        want = max(upto, upto + self._read_ahead(upto, self._live_start(s.seg, t), req_start))
        if self._block > 1:  # a 4Kn drive reads whole logical blocks
            want -= (want - upto) % self._block
        have = s.stop_lba
        if want <= have:
            return
        plan = self.mech.plan(have, want - have, False, s.end_ms, s.position())
        s.extend(plan, keep_from=upto - 2 * self.cap)
        s.seg.end = want
        s.seg.start = max(s.seg.start, want - self.cap)
        head.cylinder, head.surface = plan.cylinder, plan.surface
        self._counts["read_ahead_sectors"] += want - have

    def _pre_read(self, lba: int, plan: Plan | TrackPlan, wrap: bool = False) -> int:
        """Sectors that pass under the head before the target ``lba`` are kept: returns the
        first LBA kept. The head lands on the target's track at the first whole sector under
        it; the run from there up to the target is kept (on-arrival read-ahead, and DiskSim's
        "Read any free blocks"). ``wrap``: when the head lands past the target, it comes round
        to the track's first sector before the target, and the run from that sector up to the
        target is kept (DiskSim: a sector before the segment's start is read in wherever it
        passes). The segment, a ring, keeps a segment's worth at most."""
        p = plan if isinstance(plan, TrackPlan) else plan.pieces[0]
        # ``p`` is on ``lba``'s track, which its plan found: the layout's last straight
        # track, when it is straight (Layout.straight_track, without the call and its tuple)
        track = self.layout._track
        if not track[0] <= lba < track[1]:
            track = self.layout.straight_track(lba)
        if track is not None:
            # a straight track's piece is all its slots (sector_ms is rev_ms / spt up to a
            # rounding): round(rev_ms / sector_ms), as below, is the track's own count
            spt = track[5]
        else:
            spt = round(self.rev_ms / p.sector_ms) if p.sector_ms > 0 else 0
            if spt <= 0:
                return lba
        mech = self.mech  # (its angle_at, inlined: this runs on every read miss)
        sector = math.ceil((mech.phase0 + p.move_end_ms / mech.rev_ms) % 1.0 * spt - 1e-9) % spt
        if track is not None:  # one run of LBAs: the same answers
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
        # the same test on the arrays, or the track plans, as they are (no step array yet)
        if track is None and s.time_of(first) - s.sector_ms_at(first) >= complete_ms:
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
