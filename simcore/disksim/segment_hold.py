"""DiskSim 4.0's hold of a read's media a segment ahead of the host, and where simcore parts.

Before the head reads a block into a segment being read, DiskSim asks
``disk_buffer_block_available`` (``disksim_diskcache.c``): while the segment's owner (the
read it serves) has not had its completion sent, block ``b`` may be read only if
``b - outblkno`` is less than the segment's size, ``outblkno`` being the next block the
host has to take. A block refused passes under the head unread and comes round a
revolution later.

simcore holds a read's own sectors by the same rule: a segment is a ring, sector ``i +
segment`` of a read waits until sector ``i`` has gone to the host, or loses revolutions
(``Drive._ring_stall``). It does not hold the read-ahead that follows the read. DiskSim's
hold can stop that read-ahead only while the host is still taking the read, and only
where the read-ahead may run past a segment's worth of the read
(``read_ahead_over_requested``) and the bus is slower than the media: then only for reads
long enough. :func:`read_ahead_hold_reach` gives the shortest such read, so a user can
tell whether a trace can meet it.
"""

from __future__ import annotations

import math

from ..disk.profile import DiskProfile
from ..drive.cache import CacheConfig


def _read_ahead_reach(profile: DiskProfile, config: CacheConfig, cap: int) -> int:
    """The most sectors simcore's read-ahead may read past a read (``SegmentCache._read_ahead``
    and ``_track_ahead``): a segment at most, except DiskSim's scheme 4 (``track-ahead``),
    which reads to the end of the track and one track more."""
    spt = max(z.sectors_per_track for z in profile.zones)
    policy = config.read_ahead
    if policy == "track-ahead":
        return 2 * spt
    if policy in ("track", "on-arrival"):
        reach = spt
    elif policy == "cylinder":
        reach = spt * profile.surfaces
    else:  # segment, zero
        reach = cap
    if config.max_read_ahead_kib:
        reach = min(reach, int(config.max_read_ahead_kib * 2))
    return min(reach, cap)


def read_ahead_hold_reach(profile: DiskProfile) -> int | None:
    """The shortest read (in sectors) whose read-ahead DiskSim 4.0's segment hold could stop;
    None when no read's can (no buffer or read-ahead, a read-ahead that never passes a
    segment's worth of the read, or a bus no slower than the media).

    A lower bound, from the case most favourable to the hold: the media reads without a
    break at the fastest zone's ``s`` ms a sector from the read's first sector at time 0;
    the host starts as late as the drive lets it, ``L`` ms later (the read water mark's
    sectors, at least one, or the read disconnect, then the reselect and data preparation
    overheads), takes a sector every ``b`` ms, and has the completion sent ``c`` ms after
    the last (the read completion overhead). Read-ahead sector ``i`` (counted from the
    read's first) is refused while ``i - h >= segment``, ``h`` being the sectors sent by
    then, which is at least ``(i * s - L) / b - 1``; the completion is unsent while
    ``i * s <= n * b + L + c``. Both hold for some ``i`` only if ``n >= (s * (segment -
    1) - L) / (b - s) - c / b``, and a read-ahead of at most ``R`` sectors past the read
    reaches ``i = segment`` only if ``n >= segment - R + 1``.
    """
    c = profile.cache
    if not (c.size_kib or c.size_sectors) or profile.interface_mb_s <= 0:
        return None
    config = CacheConfig.from_profile(profile)
    if config.read_ahead == "none" or not config.read_ahead_over_requested:
        return None  # the read-ahead stops where a segment holding the read is full
    cap = config.segment_sectors
    b = 512 / (profile.interface_mb_s * 1000.0)
    s = profile.revolution_ms / max(z.sectors_per_track for z in profile.zones)
    if b <= s:
        return None  # the host takes sectors as fast as the head reads them
    o = profile.overheads
    disconnect = max(o.read_disconnect(False), o.read_disconnect(True))
    done = o.completion(False)
    shortest = max(1, cap - _read_ahead_reach(profile, config, cap) + 1)

    def held(n: int) -> bool:  # the bound above, for a read of n sectors
        mark = max(1, min(n, int(min(cap, n) * profile.read_watermark + 1e-9)))
        lead = max(mark * s, disconnect) + o.reselect_ms + o.data_prep_ms
        return n >= (s * (cap - 1) - lead) / (b - s) - done / b

    # the lead grows with n and the bound falls with it: the first n that meets it, found
    # by halving (a bus barely slower than the media puts it far out)
    hi = max(shortest, math.ceil(s * (cap - 1) / (b - s)) + 1)
    lo = shortest
    if held(lo):
        return lo
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if held(mid):
            hi = mid
        else:
            lo = mid
    return hi
