"""How a write's data meets the media in the drive's buffer.

The host's sectors cross the bus into a segment while the head writes them out: a sector
reaches the platter only once it is in the buffer, else the head waits a revolution
(:func:`respect_arrivals`); drives with DiskSim's write batch rule start only once a first
batch is buffered (:func:`fill_before_write`); and a write larger than the room in its
segment is fed as the media makes room, with the bus held or the drive coming back at its
low water mark (:func:`feed_write`, after DiskSim 4.0's ``disk_buffer_transfer_size`` and
``disk_request_needs_bus``). Used by :class:`simcore.drive.cache.SegmentCache`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..disk.access import Plan

__all__ = ["WriteFeed", "feed_write", "fill_before_write", "respect_arrivals",
           "write_watermark_sectors"]


class WriteFeed(NamedTuple):
    """How the host's data of a write crosses the bus (:meth:`SegmentCache.write`).

    ``start_ms``: the first sector may start crossing; ``sector_ms``: the bus time of a
    sector; ``space_ms``: the earliest start of each sector set by data already in the buffer
    (:meth:`SegmentCache.write_space`). ``hold_bus`` and ``watermark``: what the drive does
    when the segment is full (DiskSim's "Hold bus entire write xfer" / "Never disconnect" and
    "Low (write) water mark"); ``disconnect_ms`` and ``reconnect_ms``: its handshakes then
    (write disconnect; reselect plus data preparation)."""

    start_ms: float
    sector_ms: float
    space_ms: np.ndarray
    hold_bus: bool = True
    watermark: float = 0.0
    disconnect_ms: float = 0.0
    reconnect_ms: float = 0.0


def write_watermark_sectors(cap: int, sectors: int, mark: float) -> int:
    """DiskSim's write water mark, set by request size (``disk_buffer_set_segment``):
    ``max(1, int(min(segment, request) x mark))`` sectors."""
    return max(1, int(min(cap, sectors) * mark + 1e-9))


def feed_write(plan: Plan, prior: int, prior_ready: np.ndarray, outside_done: np.ndarray,
               sectors: int, cap: int, feed: WriteFeed, fill: int, rev_ms: float) -> np.ndarray:
    """When each sector of a write enters a buffer segment of ``cap`` sectors that the media
    empties as it writes: the host's data of a write larger than the room left waits for it.

    ``plan`` is the media's plan of the segment's dirty data: ``prior`` sectors already
    buffered (ready at ``prior_ready``), then the request's ``sectors``; ``outside_done`` holds
    the times at which dirty data of the segment planned elsewhere (a destage already under
    way) reaches the platter. Each sector is written only once it is in the buffer (the
    lost-revolution rule of :func:`respect_arrivals`, with the ``fill`` rule of
    :func:`fill_before_write`).

    The drive works as DiskSim 4.0's controller does (``disksim_diskctlr.c``): the data
    comes in bursts; the first takes as many sectors as the segment has room for
    (``disk_buffer_transfer_size``: min(request, segment) for a fresh segment), and at the end
    of each burst the drive sends on at once as many as the media has freed in the
    meantime. When no room is left, a drive that holds the bus (``hold_bus``: "Hold bus
    entire write xfer" or "Never disconnect") waits for the next sector written and goes on;
    one that does not disconnects (``disconnect_ms``) and is called back only when at
    most the water mark (:func:`write_watermark_sectors`, and fewer than a segment) is left
    unwritten: ``disk_request_needs_bus`` tests this as each sector reaches the platter
    (``disk_buffer_request_complete``); the reconnection then costs ``reconnect_ms`` and
    the burst takes the room free at the call. Returns the arrival of each of the request's
    sectors (the end of its bus time).
    """
    n_all = prior + sectors
    done = plan.done_ms.copy()
    step = plan.sector_ms_each()
    ready = np.full(n_all, np.inf)
    ready[:prior] = prior_ready[:prior]
    arrive = np.full(sectors, np.inf)
    outside = np.asarray(outside_done, dtype=float)
    fill = min(max(fill, 1), cap, sectors)
    b = feed.sector_ms
    space = feed.space_ms
    keep = cap - 1 if feed.hold_bus else min(write_watermark_sectors(cap, sectors,
                                                                     feed.watermark), cap - 1)
    settled = 0
    # the waiting set is kept small (linear work for a write of any length): the outside
    # times sorted once, and of the settled sectors' times only those still ahead of the
    # clock, which only moves on (``waiting`` is asked at times that never go back)
    outside = np.sort(outside)
    live = outside[:0]  # settled sectors' write times after the last time asked
    live_upto = 0  # the settled sectors ``live`` has looked at

    def settle(upto: int) -> None:
        nonlocal settled
        for j in range(settled, upto):
            late = ready[j] - (done[j] - step[j])
            if late > 1e-9:
                done[j:] += math.ceil(late / rev_ms - 1e-12) * rev_ms
        settled = max(settled, upto)

    def waiting(t: float, received: int) -> np.ndarray:
        """Write times, after ``t``, of the buffered sectors not yet on the platter (sorted;
        inf for a sector the media may not take yet)."""
        nonlocal live, live_upto
        if live_upto < settled:  # (their times are final: settle shifts only those after)
            live = np.concatenate([live, done[live_upto:settled]])
            live_upto = settled
        live = live[live > t]  # (not sorted where zero-latency writes go out of order)
        left = np.concatenate([outside[np.searchsorted(outside, t, "right"):], live,
                               np.full(prior + received - settled, np.inf)])
        left.sort()
        return left

    settle(prior)
    k = 0
    t = feed.start_ms
    filled = 0  # the request's sectors whose readiness is set (all once ``fill`` are in)
    while k < sectors:
        left = waiting(t, k)
        if len(left) >= cap:
            # the segment is full: wait until no more than ``keep`` sectors are left
            call = float(left[len(left) - keep - 1])
            if not math.isfinite(call):
                raise RuntimeError("feed_write: the segment is full and the media is not "
                                   "writing it")
            if not feed.hold_bus:
                call = max(call, t + feed.disconnect_ms)
            room = cap - len(waiting(call, k))
            t = call if feed.hold_bus else call + feed.reconnect_ms
        else:
            room = cap - len(left)
        c = min(room, sectors - k)
        idx = np.arange(c, dtype=float)
        burst = (idx + 1) * b + np.maximum(t, np.maximum.accumulate(space[k:k + c] - idx * b))
        arrive[k:k + c] = burst
        k += c
        t = float(burst[-1])
        if k >= fill:
            # a sector is ready once in and the first ``fill`` are: set once for each
            # (``first`` no longer changes once ``fill`` are in)
            first = float(arrive[fill - 1])
            ready[prior + filled:prior + k] = np.maximum(arrive[filled:k], first)
            filled = k
            settle(prior + k)
    return arrive


def respect_arrivals(plan: Plan, arrive_ms: np.ndarray, rev_ms: float) -> np.ndarray:
    """The lost-revolution rule for writes: a sector is written only once its data is buffered.

    Where the plan would write sector ``k`` before its data arrived, the head
    lets the platter go round: that sector and all after it move on by whole
    revolutions until the data is there. Returns the shifted completion times
    (``plan.pieces`` end times are shifted in place of a copy list).
    """
    done = plan.done_ms.copy()
    n = len(done)
    if n == 0 or arrive_ms is None or len(arrive_ms) == 0:
        return done
    step = plan.sector_ms_each()
    bounds = [p.first for p in plan.pieces] + [n]
    k = 0
    while k < n:
        late = arrive_ms[k:] - (done[k:] - step[k:])
        bad = np.flatnonzero(late > 1e-9)
        if not len(bad):
            break
        j = k + int(bad[0])
        revs = math.ceil(late[bad[0]] / rev_ms - 1e-12)
        done[j:] += revs * rev_ms
        for i, p in enumerate(plan.pieces):
            if p.first > j:
                plan.pieces[i] = p._replace(move_start_ms=p.move_start_ms + revs * rev_ms,
                                            move_end_ms=p.move_end_ms + revs * rev_ms,
                                            end_ms=p.end_ms + revs * rev_ms,
                                            read_ms=p.read_ms + revs * rev_ms)
            elif bounds[i + 1] > j:
                plan.pieces[i] = p._replace(end_ms=p.end_ms + revs * rev_ms)
        k = j + 1
    return done


def fill_before_write(arrive_ms: np.ndarray, fill: int) -> np.ndarray:
    """The media may write a request's first sector only once ``fill`` of its sectors are
    buffered: no sector is ready before the ``fill``-th one has arrived (``fill`` <= 1 changes
    nothing). See ``CacheSpec.write_fill_sectors`` (DiskSim's rule for drives with the extra
    write disconnect)."""
    if fill <= 1 or len(arrive_ms) == 0:
        return arrive_ms
    k = min(fill, len(arrive_ms)) - 1
    return np.maximum(arrive_ms, arrive_ms[k])
