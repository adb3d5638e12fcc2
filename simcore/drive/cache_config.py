"""The drive buffer's shape and policies: :class:`CacheConfig`, checked when it is made.

One frozen record holds every knob of :class:`~simcore.drive.cache.SegmentCache`: its size
and segments, the read-ahead policy (:data:`POLICIES`, described in
:mod:`simcore.drive.cache_read_ahead`), write-back and the destage order (:data:`DESTAGE`),
and DiskSim 4.0's cache knobs, each documented below with the DiskSim parameter and source
function it follows (``disksim_diskcache.c``, ``disksim_diskctlr.c``, ``disksim_disk.c``).
:meth:`CacheConfig.from_profile` reads a profile's ``[firmware.cache]``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from ..disk.profile import DiskProfile

__all__ = ["DESTAGE", "POLICIES", "CacheConfig", "segment_cap"]

POLICIES = ("none", "track", "cylinder", "segment", "zero", "on-arrival", "track-ahead")
DESTAGE = ("lru", "sptf")


def segment_cap(size_kib: float, segments: int, block: int = 1) -> int:
    """Sectors a segment holds when a ``size_kib`` buffer is split into ``segments``: whole
    logical blocks of ``block`` sectors (8 on a 4Kn drive, whose buffer and media move whole
    4 KiB blocks; :class:`~simcore.disk.sectors.SectorFormat`), one block at least."""
    cap = int(size_kib * 2) // segments
    return max(block, cap - cap % block)


@dataclass(frozen=True)
class CacheConfig:
    """The buffer's shape and policies (sizes in KiB; see :mod:`simcore.drive.cache`).

    Sizes are exact to the sector: ``int(kib * 2)`` sectors, so a DiskSim model's odd block
    counts are half KiB (7 segments of 511 blocks: ``size_kib=1788.5``, 511 sectors each).

    ``read_any_free``: DiskSim's "Read any free blocks" (``readanyfreeblocks``). DiskSim 4.0
    (``disk_buffer_seekdone`` in ``disksim_diskctlr.c``) means to start a read's media
    transfer as soon as the head is on the target's track, from the first whole sector under
    it, and ``disk_buffer_sector_done`` puts every sector the head passes that lies before
    the segment's start into the segment, moving its start back; with "Read directly to
    buffer" = 1 (every validated model) nothing else limits it. (In DiskSim 4.0 itself the
    knob changes nothing: the sector under the head comes from ``g1_access_block``, which
    always returns the target's; see :data:`simcore.disksim.importer.ZERO_LATENCY_NOTE`.) Only the track holding the
    target's first sector can hold such sectors, so the pre-read is the run of that track's
    sectors from the landing sector up to the target, or, when the head lands past the
    target, from the track's first sector up to the target (the head comes round to them
    before the target). The target's own sectors come under the head at the same time
    either way: the knob costs no time, and makes later reads of those sectors hits.

    ``separate_write_segment``: DiskSim's "Use separate write segment" (``dedicatedwriteseg``;
    on in four of its ten validated models: DEC RZ26, HP C2247A, HP C3323A, IBM Ultrastar
    18ES). DiskSim 4.0 makes one of the drive's segments, fixed when the buffer is built
    (``disk_initialize`` in ``disksim_disk.c``), the only one a write may take
    (``disk_buffer_select_write_segment`` in ``disksim_diskcache.c`` skips every other
    segment), and a segment no read may take (``disk_buffer_select_read_segment`` and
    ``disk_buffer_check_read_segments`` skip it): reads share the other ``segments - 1``
    segments, so a write never evicts read data, and a read never hits on data the host
    wrote, on the platter or not; a read overlapping write data not yet on the platter is a
    collision and waits until it is written, then reads from the media. A write still
    empties the clean read segments holding stale copies of its sectors
    (``disk_buffer_set_segment``), and a write that neither appends to the write segment's
    data nor finds it clean waits until it is (no other segment is usable). DiskSim refuses
    the knob with fewer than two segments (``disk_postpass_perdisk``), and so does this
    class.

    ``stop_in_sector``: DiskSim's "Stop prefetch in sector" (``stopinsector``): whether a
    read-ahead that a new command stops may leave the head in the middle of a sector. In
    DiskSim 4.0 (``disk_buffer_stopable_access`` and ``disk_buffer_stop_access`` in
    ``disksim_diskctlr.c``; ``disk_check_hda`` adds the wait) a read-ahead between
    sectors has one pending event: the end of the sector under the head (or, while it
    waits for its first sector on a track, that sector's start). With 1 the stop removes
    that event and the head is free at once; with 0 the stop removes it too but the
    next command's seek waits until that event's time (``disk_seek_stoptime``). In both
    the sector in progress is not put in the segment. A seek or head switch in progress
    ends first either way. True (the default) is the behaviour of 1.

    ``stop_adds_to_overhead``: how DiskSim 4.0 charges that wait (a seek in progress, the
    end of the sector) to the command that stops the read-ahead: ``disk_check_hda`` delays
    the command's seek by its overhead *plus* the wait, each counted from its arrival. A
    read miss (``disk_activate_read``) and a write (``disk_activate_write``, written
    through or buffered: its seek is the one that writes the data, simcore's destage)
    both stop the read-ahead on arrival and both go through ``disk_check_hda``. Without
    the knob simcore overlaps the two: a read miss stops the read-ahead on arrival and
    takes the larger of the two, a write stops it when its overhead ends (the read-ahead
    runs on meanwhile) and waits from there. The importer sets it for every DiskSim model
    with a read-ahead. With it a stop before the read-ahead's first seek has begun (a
    read-ahead on idle hit waits for the command overhead) waits for that seek's end, as for
    a seek under way: DiskSim has its end event already queued and recomputes it
    (``disk_buffer_stopable_access``).

    ``stop_read_ahead_unless_hit``: whether a running read-ahead goes on only for a read
    that hits the data it has read so far. DiskSim 4.0 (all ten validated models have
    "Allow almost read hits" = 0) decides a read's hit on its arrival from what each
    segment holds then (``disk_buffer_select_read_segment``: a segment serves LBAs from its
    start up to, not including, its ``endblkno``, the next sector its read-ahead will
    read): a read of sectors the read-ahead has not reached yet is no hit on that segment
    but a miss, which stops the read-ahead and seeks (``disk_activate_read`` calls
    ``disk_buffer_stop_access`` for a ``BUFFER_NOMATCH``), and a hit on another segment
    stops it too (``disk_buffer_stopable_access`` lets it, ``disk_activate_read`` stops an
    access of a segment that is not the request's). Only a read starting in the data read
    so far joins the read-ahead (``disk_buffer_attempt_access_swap``). Without the knob
    (simcore's default) a read of sectors the read-ahead will reach waits for them, and a
    hit elsewhere leaves it running. The importer does not set it yet: with it, every read of
    a back-to-back sequential stream on a fast interface arrives where the read-ahead has
    got to and loses a turn (DiskSim's "Allow almost read hits" = 1 would spare the first
    such sector only).

    """

    size_kib: float = 1024.0
    segments: int = 4
    read_ahead: str = "segment"
    min_read_ahead_kib: float = 0.0
    max_read_ahead_kib: float = 0.0
    write_back: bool = False
    adaptive: bool = False
    max_segments: int = 64
    read_hits_on_write_data: bool = True
    read_ahead_over_requested: bool = False
    read_ahead_on_hit: bool = False
    read_any_free: bool = False
    cross_boundaries: bool = True
    preemptible: bool = True
    stop_in_sector: bool = True
    stop_adds_to_overhead: bool = False
    stop_read_ahead_unless_hit: bool = False
    refill: bool = False
    stream_window: int = 64
    destage: str = "lru"
    write_fill_sectors: int = 0
    write_fill_large_from: int = 0
    write_fill_large_sectors: int = 0
    write_prebuffering: bool = True
    preempt_destage: bool = True
    separate_write_segment: bool = False

    def __post_init__(self):
        if not self.size_kib > 0:
            raise ValueError(f"CacheConfig.size_kib must be greater than 0 (got {self.size_kib})")
        if self.segments < 1:
            raise ValueError(f"CacheConfig.segments must be at least 1 (got {self.segments})")
        if self.read_ahead not in POLICIES:
            raise ValueError(f"CacheConfig.read_ahead '{self.read_ahead}' is not a policy; "
                             f"use one of {', '.join(POLICIES)}")
        for name in ("min_read_ahead_kib", "max_read_ahead_kib"):
            if getattr(self, name) < 0:
                raise ValueError(f"CacheConfig.{name} must be at least 0")
        if self.max_read_ahead_kib and self.min_read_ahead_kib > self.max_read_ahead_kib:
            raise ValueError("CacheConfig.min_read_ahead_kib exceeds max_read_ahead_kib")
        if self.segment_sectors < 1:
            raise ValueError(f"CacheConfig: {self.segments} segments of a {self.size_kib} KiB "
                             "buffer leave less than a sector each")
        if self.destage not in DESTAGE:
            raise ValueError(f"CacheConfig.destage '{self.destage}' is not a destage order; "
                             f"use one of {', '.join(DESTAGE)}")
        if min(self.write_fill_sectors, self.write_fill_large_from,
               self.write_fill_large_sectors) < 0:
            raise ValueError("CacheConfig.write_fill_* must be at least 0")
        if self.write_fill_large_from and self.write_fill_large_sectors < 1:
            raise ValueError("CacheConfig.write_fill_large_sectors must be at least 1 when "
                             "write_fill_large_from is set")
        if self.max_segments < 1 or self.stream_window < 1:
            raise ValueError("CacheConfig.max_segments and stream_window must be at least 1")
        if self.separate_write_segment and self.segments < 2:
            raise ValueError("CacheConfig.separate_write_segment needs at least 2 segments "
                             f"(got {self.segments}): one for writes, the rest for reads")
        if self.separate_write_segment and self.adaptive:
            raise ValueError("CacheConfig.separate_write_segment cannot be combined with "
                             "adaptive segmentation")

    @property
    def segment_sectors(self) -> int:
        return int(self.size_kib * 2) // self.segments

    @classmethod
    def from_profile(cls, profile: DiskProfile, **overrides) -> CacheConfig:
        """The buffer a profile describes (``[firmware.cache]``), with any field overridden."""
        c = profile.cache
        # every field the profile's cache section has, under the same name (the buffer's
        # size defaults to 512 KiB where the profile leaves it out)
        own = {f.name for f in fields(cls)}
        given = {f.name: getattr(c, f.name) for f in fields(c) if f.name in own}
        base = cls(**{**given, "size_kib": c.size_kib or 512})
        return replace(base, **overrides) if overrides else base

    @classmethod
    def speed_matching(cls, size_kib: float = 1024.0) -> CacheConfig:
        """A buffer that only matches speeds: one segment, no read-ahead, write-through."""
        return cls(size_kib=size_kib, segments=1, read_ahead="none")
