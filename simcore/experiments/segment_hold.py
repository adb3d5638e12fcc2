"""The segment hold, worked on a tiny disk: when a slow host makes the read-ahead lose turns.

DiskSim 4.0 (``disk_buffer_block_available``; Ganger, Worthington and Patt's DiskSim manual,
CMU-PDL-08-101) lets the head read no block more than a segment ahead of the next block the
host still has to take from a read, until the read's completion is sent. A block refused
passes under the head unread and is read a revolution later (see
:meth:`simcore.drive.cache.SegmentCache.read_done`). This module sets one read and its
read-ahead on DiskSim's own test disk (``data/disksim/tiny.parv``: 10 sectors a track, a
sector a millisecond), so the times can be checked by hand. The cache chapter's exercise
and lab 2's question use it; it is a worked example, not a reproduction (no targets).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from ..disk.access import HeadState, Mechanism
from ..disk.profile_loader import data_dir
from ..disksim.importer import load_any
from ..drive.cache import CacheConfig, SegmentCache

__all__ = ["HoldExample", "segment_hold", "tiny_disk"]


@lru_cache(maxsize=1)
def tiny_disk() -> Mechanism:
    """DiskSim's tiny test disk, reading without zero latency (a sector is read only as it
    passes, so every lost turn shows)."""
    return Mechanism(replace(load_any(data_dir() / "disksim" / "tiny.parv"),
                             zero_latency_reads=False))


@dataclass(frozen=True)
class HoldExample:
    """One read of ``sectors`` from ``lba`` and its read-ahead: to the end of the track, a
    segment's worth at most (the ``track`` policy).

    Times are ms from the read's media start (its first sector under the head)."""

    lba: int
    sectors: int
    segment_sectors: int
    track_first: int  # the first LBA of the read's track
    track_sectors: int
    rev_ms: float
    bus_ms: float  # the host takes one of the read's sectors every bus_ms ...
    first_ms: float  # ... from first_ms on
    sent_ms: tuple[float, ...]  # when the host took each of the read's sectors
    complete_ms: float  # when the read's completion is sent (its last sector taken)
    free_ms: tuple[float, ...]  # each read-ahead sector in the buffer, with no hold
    held_ms: tuple[float, ...]  # the same, with the segment hold
    revolutions: int  # revolutions the hold cost

    @property
    def read_ahead_lbas(self) -> tuple[int, int]:
        """The first and last LBA read ahead."""
        return self.lba + self.sectors, self.lba + self.sectors + len(self.free_ms) - 1


def segment_hold(lba: int = 9, sectors: int = 4, segment_sectors: int = 8,
                 bus_ms: float = 10.0, first_ms: float = 1.0) -> HoldExample:
    """Read ``sectors`` from ``lba`` on :func:`tiny_disk` with one segment of
    ``segment_sectors`` and read-ahead to the end of the track (a segment at most), the host taking a sector every
    ``bus_ms`` from ``first_ms`` after the media start; the read-ahead's sector times
    without and with DiskSim's segment hold."""
    mech = tiny_disk()
    track_first, spt = mech.layout.track_extent(lba)
    if not track_first <= lba < lba + sectors <= track_first + spt:
        raise ValueError(f"segment_hold: the read ({lba}, {sectors} sectors) must lie on one "
                         f"track ({track_first} to {track_first + spt - 1})")
    if not sectors <= segment_sectors:
        raise ValueError(f"segment_hold: a segment of {segment_sectors} sectors cannot hold "
                         f"a read of {sectors}")
    if not (bus_ms > 0 and first_ms >= 0):
        raise ValueError(f"segment_hold: bus_ms must be > 0 and first_ms >= 0 "
                         f"(got {bus_ms}, {first_ms})")
    config = CacheConfig(size_kib=segment_sectors / 2, segments=1, read_ahead="track",
                         read_ahead_over_requested=True)
    sector_ms = mech.rev_ms / spt
    runs = {}
    for host in (False, True):
        cache = SegmentCache(config, mech)
        head = HeadState(0, 1)
        svc = cache.read(lba, sectors, 0.0, 0.0, head)
        start = float(svc.ready_ms[0]) - sector_ms  # the read's first sector under the head
        sent = start + first_ms + bus_ms * (np.arange(sectors) + 1)
        if host:
            cache.read_done(svc, svc.media_end_ms, head, lba, start + first_ms, bus_ms,
                            float(sent[-1]), 0.0)
        else:
            cache.read_done(svc, svc.media_end_ms, head)
        done = cache.stream.done if cache.stream is not None else np.empty(0)
        runs[host] = (tuple(round(float(t - start), 9) for t in done),
                      cache.stats["read_ahead_held_revolutions"])
    return HoldExample(lba, sectors, segment_sectors, track_first, spt, mech.rev_ms, bus_ms,
                       first_ms, tuple(round(float(t - start), 9) for t in sent),
                       round(float(sent[-1] - start), 9), runs[False][0], runs[True][0],
                       int(runs[True][1]))
