"""Disk profile records: frozen dataclasses of a drive's published parameters.

A profile is plain data (one TOML file in ``data/disks/``). It says what the
drive is, where every number comes from and which numbers are assumed. The
loader, :mod:`simcore.disk.profile_loader`, reads and validates it into these records;
the layout and mechanics modules turn it into a working model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Mapping = Literal["conventional", "serpentine"]


@dataclass(frozen=True)
class Zone:
    """A band of adjacent cylinders whose tracks hold the same number of sectors.

    ``slips`` are zone-relative physical slots (in mapping order) that hold a
    defective sector: the LBA sequence skips them. Spare sectors sit at the end
    of each *sparing group*: the whole zone by default (DiskSim's sparing
    scheme 9), or every ``spare_group`` slots when that is set (one track for
    scheme 3, ``Rangesize for sparing`` cylinders for scheme 8; a trailing
    partial group keeps no spares, as in DiskSim). A slip consumes a spare of
    its own group; with whole-zone sparing, more slips than spares shorten the
    zone. ``empty_front`` logical positions at the zone's start hold no data
    (DiskSim's "Empty space at zone front"). ``remaps`` pairs a defective slot
    with the spare slot its sector was moved to (DiskSim's ``defects``).
    """

    first_cylinder: int
    last_cylinder: int
    sectors_per_track: int
    track_skew: int
    cylinder_skew: int
    first_offset: int = 0
    spares: int = 0
    slips: tuple[int, ...] = ()
    spare_group: int = 0
    empty_front: int = 0
    remaps: tuple[tuple[int, int], ...] = ()

    @property
    def cylinders(self) -> int:
        return self.last_cylinder - self.first_cylinder + 1


@dataclass(frozen=True)
class SeekSpec:
    """How to build the seek curve.

    ``model`` is one of ``four-phase`` (physics: accelerate, coast, decelerate,
    settle), ``three-point`` (Ruemmler-Wilkes shape through single, average and
    full-stroke times), ``two-regime`` (Ruemmler-Wilkes square root up to
    ``knee_cylinders``, then a line to the full stroke; ``sqrt_ms`` is the root's
    coefficient and ``average_ms``, optional, the datasheet average the curve is
    checked against, not an input), ``table`` (measured distance/time pairs) or
    ``linear``.
    """

    model: Literal["four-phase", "three-point", "two-regime", "table", "linear"]
    single_ms: float = 0.0
    average_ms: float = 0.0
    full_ms: float = 0.0
    settle_ms: float | None = None
    accel_cyl_per_ms2: float | None = None
    max_speed_cyl_per_ms: float | None = None
    base_ms: float = 0.0
    per_cylinder_ms: float = 0.0
    table: tuple[tuple[int, float], ...] = ()
    sqrt_ms: float = 0.0
    knee_cylinders: float = 0.0


@dataclass(frozen=True)
class Overheads:
    """Firmware command overheads in ms, charged before any mechanical work.

    A drive's firmware takes longer to set up a command whose type differs from
    the one before (DiskSim's "... over. after read" / "after write" pairs,
    extracted from real drives by DIXtrac): ``read_*`` and ``completion_ms``
    apply after a read, ``write_ms`` after a write; the ``*_after_*`` fields,
    when given, apply when the type changes. ``write_completion_ms`` ends a write
    (``completion_ms`` when unset).
    """

    read_miss_ms: float = 0.0
    read_hit_ms: float = 0.0
    write_ms: float = 0.0
    completion_ms: float = 0.0
    read_miss_after_write_ms: float | None = None
    read_hit_after_write_ms: float | None = None
    write_after_read_ms: float | None = None
    write_completion_ms: float | None = None
    random_write_setup_ms: float | None = None
    """A write that follows a write it does not continue: time before the arm moves
    (DiskSim's "extra write disconnect": extradisc command overhead + seek delta)."""
    random_write_data_ms: float | None = None
    """... and before its data starts to cross the bus (the drive disconnects first:
    extradisc command + disconnect overhead + inter-disconnect delay)."""
    min_write_seek_ms: float = 0.0
    """The least time from a write's command set-up to the start of its media transfer's
    positioning, even with the arm already on the track (DiskSim's "Minimum seek delay",
    extracted for the HP C2247; it applies to every write that does not continue a write
    stream the drive is writing at that moment)."""
    data_prep_ms: float = 0.0
    """Set-up before data crosses the bus, each time the drive (re)connects to send or take
    data (DiskSim's "Data preparation overhead")."""
    reselect_ms: float = 0.0
    """A drive that disconnected from the host (a read miss; a write-through write once its
    data is in) reselects it before going on: before a read miss's data, before a write's
    completion (DiskSim's "First reselect overhead"). Zero: the drive never disconnects in
    a way that costs time."""
    reselect_other_ms: float | None = None
    """The reselection that completes a write the drive took with the extra write disconnect
    (DiskSim's "Other reselect overhead"; ``reselect_ms`` when unset)."""
    read_disconnect_ms: float = 0.0
    """A read miss disconnects this long after its command overhead; the drive cannot
    reselect before (DiskSim's "Read disconnect afterread")."""
    read_disconnect_after_write_ms: float | None = None
    """... when the command before was a write (DiskSim's "Read disconnect afterwrite")."""
    write_disconnect_ms: float = 0.0
    """A write-through write disconnects this long after its data is in; its completion
    cannot come before (DiskSim's "Write disconnect overhead")."""
    random_write_disconnect_ms: float | None = None
    """... for a write taken with the extra write disconnect (DiskSim's "Extradisc 2nd
    disconnect overhead"; ``write_disconnect_ms`` when unset)."""

    def read_disconnect(self, after_write: bool) -> float:
        v = self.read_disconnect_after_write_ms
        return v if after_write and v is not None else self.read_disconnect_ms

    def read_miss(self, after_write: bool) -> float:
        v = self.read_miss_after_write_ms
        return v if after_write and v is not None else self.read_miss_ms

    def read_hit(self, after_write: bool) -> float:
        v = self.read_hit_after_write_ms
        return v if after_write and v is not None else self.read_hit_ms

    def write(self, after_write: bool) -> float:
        v = self.write_after_read_ms
        return v if not after_write and v is not None else self.write_ms

    def completion(self, is_write: bool) -> float:
        v = self.write_completion_ms
        return v if is_write and v is not None else self.completion_ms


@dataclass(frozen=True)
class CacheSpec:
    """The drive's buffer as the profile describes it (used by the cache model).

    Sizes are in KiB, exact to the sector: a profile may give them in whole KiB
    (``size_kib``) or in 512-byte sectors (``size_sectors``, ``max_read_ahead_sectors``,
    ``min_read_ahead_sectors``), as DiskSim's models do; 7 segments of 511 blocks (the
    Ultrastar 18ES) are 3577 sectors, 1788.5 KiB here, and each segment holds 511 sectors.
    """

    size_kib: float = 0
    segments: int = 1
    read_ahead: str = "none"
    max_read_ahead_kib: float = 0
    write_back: bool = False
    min_read_ahead_kib: float = 0
    adaptive: bool = False
    read_hits_on_write_data: bool = True
    """False: data the host wrote is not served back to reads from the buffer, before or
    after it reaches the platter (DiskSim's "Allow read hits on write data" = 0, as
    extracted for the IBM Ultrastar 18ES)."""
    read_ahead_over_requested: bool = False
    """True: after a miss the read-ahead runs its whole length past the request, and the
    segment, a ring, keeps only the sectors read last, pushing out the request's own data
    (already sent to the host) when the two do not fit; False: the segment keeps the request
    and reads ahead only into the room left. DiskSim keeps the request only when a drive has
    no "Maximum read-ahead" and "Read-ahead over requested" = 1
    (:func:`simcore.disksim.importer.read_ahead_passes_request`). The segment is then a ring
    sector by sector, as DiskSim's ``disk_buffer_segment_wrap``: a read-ahead pushes out
    only what it has overwritten so far, so a re-read while it runs, or after it was
    stopped early, may still hit."""
    read_ahead_on_hit: bool = False
    """True: a read served wholly from the buffer while the drive is idle starts a
    read-ahead from the segment's end (DiskSim's "Read-ahead on idle hit")."""
    read_any_free: bool = False
    """True: on a read miss the drive keeps the sectors of the target's track that pass under
    the head before the target (DiskSim's "Read any free blocks"; see
    :class:`simcore.drive.cache.CacheConfig`)."""
    stop_in_sector: bool = True
    """True: a read-ahead stopped by a new command frees the head at once, in the middle of
    a sector; False: only at the end of the sector under the head (DiskSim's "Stop prefetch
    in sector" = 1 / 0; see :class:`simcore.drive.cache.CacheConfig`)."""
    stop_adds_to_overhead: bool = False
    """True: the time a stopped read-ahead keeps the head (a seek in progress, the end of a
    sector) comes after the command overhead instead of overlapping it, as DiskSim 4.0's
    controller charges it (set for every imported DiskSim model; see
    :class:`simcore.drive.cache.CacheConfig`)."""
    stop_read_ahead_unless_hit: bool = False
    """True: a running read-ahead goes on only for a read that finds its data among the
    sectors the read-ahead has already read; a read of sectors it has not reached yet is a
    miss, and a hit on another segment stops it too (DiskSim 4.0; see
    :class:`simcore.drive.cache.CacheConfig`). False: a read of sectors the read-ahead will
    reach waits for them."""
    write_fill_sectors: int = 0
    """Above 0: the media part of a write starts only once ``min(n, write_fill_sectors)``
    of its ``n`` sectors are in the buffer, or ``write_fill_large_sectors`` of them when
    ``n >= write_fill_large_from``: the firmware gathers a batch of data before it lets the
    head write. DiskSim 4.0 models this for the drives whose extraction found the extra
    write disconnect (its ``disk_buffer_block_available``: 10 sectors, 15 from 45-sector
    requests on; the HP C2247)."""
    write_fill_large_from: int = 0
    write_fill_large_sectors: int = 0
    write_prebuffering: bool = True
    """With ``write_back``: True lets a write's data into a free segment, and reports the
    write done, while another segment is being destaged; False makes a write that does not
    append to the data being destaged wait until that destage has ended (DiskSim's "Allow
    write prebuffering" = 0, as in all ten of its validated drives: such a write gets neither
    the bus nor a segment until the destage gives up the head, ``disk_write_arrive`` and
    ``disk_select_bus_request`` in ``disksim_diskctlr.c``)."""
    preempt_destage: bool = True
    """True: a read that needs the head stops a destage in progress (after a seek or head
    switch under way), and the rest is written later; False: every command but a write
    appending to the data being destaged waits until the destage has written everything,
    read hits too (DiskSim 4.0, whose ``disk_buffer_stopable_access`` never stops a write's
    media access for another request)."""
    separate_write_segment: bool = False
    """True: one segment (needs ``segments`` >= 2) holds the data of writes and nothing
    else; reads share the others, never hit on written data and wait for written data
    not yet on the platter that they overlap (DiskSim's "Use separate write segment"; see
    :class:`simcore.drive.cache.CacheConfig`)."""


@dataclass(frozen=True)
class SmrSpec:
    """Shingled recording, as the profile's ``[firmware.smr]`` table describes it.

    ``kind`` is ``drive-managed`` (the drive hides the shingles behind a translation layer: a
    persistent media cache of ``media_cache_mib`` at the outer edge takes writes as a log, and
    bands of ``band_mib`` are rewritten whole when they are cleaned, after
    ``idle_clean_ms`` of idleness or when the cache is full; Aghayev & Desnoyers 2015) or
    ``host-managed`` (zones of ``zone_mib`` with write pointers, the first
    ``conventional_zones`` of them conventional; ZBC/ZAC and the Linux zoned block device
    model). See :mod:`simcore.smr`.
    """

    kind: Literal["drive-managed", "host-managed"]
    media_cache_mib: float = 0.0
    band_mib: float = 0.0
    idle_clean_ms: float = 0.0
    zone_mib: float = 0.0
    conventional_zones: int = 0


@dataclass(frozen=True)
class DiskProfile:
    """Everything the simulator needs to know about one drive."""

    id: str
    name: str
    rpm: float
    surfaces: int
    zones: tuple[Zone, ...]
    seek: SeekSpec
    head_switch_ms: float
    write_settle_ms: float = 0.0
    mapping: Mapping = "conventional"
    zero_latency_reads: bool = False
    zero_latency_writes: bool = False
    interface: str = "ideal"
    interface_mb_s: float = 0.0
    interface_write_mb_s: float = 0.0
    """The interface rate for writes where it differs (DiskSim's bus "Write block transfer
    time"); 0 means the same as ``interface_mb_s``."""
    read_watermark: float = 0.0
    """Fraction of a read that must be in the buffer before the drive starts sending it to the
    host (DiskSim's "High (read) water mark", set by request size): 0 sends as soon as the
    bus can keep up with the media, 1 stores the whole request first."""
    hold_bus_writes: bool = True
    """Whether the drive keeps the bus through a write whose data outgrows its buffer segment,
    taking each sector as soon as the media has freed room for it (DiskSim's "Hold bus entire
    write xfer" or "Never disconnect"). False: it disconnects when the segment is full and
    comes back only once the media has drained it to ``write_watermark`` (see
    :func:`simcore.drive.write_feed.feed_write`)."""
    write_watermark: float = 0.0
    """For a drive that does not hold the bus: the fraction of the segment (of the request, if
    smaller) that may still wait for the media when the drive reconnects for more of a
    write's data (DiskSim's "Low (write) water mark", set by request size: at least one
    sector)."""
    overheads: Overheads = field(default_factory=Overheads)
    cache: CacheSpec = field(default_factory=CacheSpec)
    logical_sector_bytes: int = 512
    """The block the host addresses (512 on 512n and 512e drives, 4096 on 4Kn)."""
    physical_sector_bytes: int = 512
    """The block the drive writes, with its ECC (4096 on Advanced Format drives); a write
    that covers part of one costs a read-modify-write (:mod:`simcore.sectors`)."""
    lowest_aligned_lba: int = 0
    """The first 512-byte LBA at the start of a physical sector (SCSI READ CAPACITY(16)'s
    LOWEST ALIGNED LOGICAL BLOCK ADDRESS; 7 on the old "jumpered" drives that made LBA 63
    aligned)."""
    smr: SmrSpec | None = None
    initial_cylinder: int = 0
    initial_angle: float = 0.0
    time_unit: str = "ms"
    year: int | None = None
    source: str = ""
    assumed: tuple[str, ...] = ()
    notes: str = ""
    path: str = ""

    @property
    def revolution_ms(self) -> float:
        return 60_000.0 / self.rpm

    @property
    def cylinders(self) -> int:
        return self.zones[-1].last_cylinder + 1
