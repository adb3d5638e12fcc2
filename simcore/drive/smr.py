"""Shingled magnetic recording (SMR): a drive-managed translation layer and host-managed zones.

A shingled drive writes each track so that it overlaps part of the one before, like roof
shingles: tracks get narrower than the write head, and the platter holds more. The price is
that a track can no longer be rewritten in place without destroying the next one. Tracks are
grouped into **bands** separated by a guard gap; a band can only be written from its start to
its end, so changing one sector in it means rewriting the whole band.

Two ways to live with that, both modelled here on top of :class:`~simcore.disk.access.Mechanism`
(every media access below is an ordinary seek, rotation and transfer):

**Drive-managed** (:class:`DriveManaged`). The drive keeps the block interface and hides the
bands behind a *shingle translation layer*. Aghayev & Desnoyers (*Skylight—A Window on Shingled
Disk Operation*, FAST 2015) took a Seagate drive-managed disk apart with timed I/O and a camera
looking through a window in its cover, and found: a **persistent media cache** of conventional
(unshingled) tracks at the outer edge, some tens of GiB, that takes writes as a log; a static
mapping of LBAs to **bands** of tens of MiB (they measured 15 to 40 MiB); and **cleaning**, in
which a band is read, merged with its newer copies from the cache and written back whole, done
when the drive has been idle for a while and, when the cache is full, in the foreground,
while the host waits. The model, per request:

- a write is appended to the media cache log (an ordinary write at the log's head; a write that
  continues the log streams on at media speed, as the drive's DRAM buffer lets it);
- when the log has no room for it, the drive first cleans bands, oldest cached data first:
  each cleaning reads the band's cached pieces from the log, reads the band and writes it back;
- a read gets the newest copy of each sector: from the band, and from the log for the pieces
  that were rewritten and not yet cleaned;
- after ``idle_clean_ms`` without a command the drive cleans bands one after another; a command
  that arrives waits for the band being cleaned to finish (cleaning is not preemptible).

Time spent cleaning before a command is counted in that command's ``overhead_ms``, so the
record's parts still add up to its response time; :attr:`DriveManaged.stats` counts cleanings.

**Host-managed** (:class:`HostManaged`). The drive exposes its zones and the host must write
each *sequential-write-required* zone from its start, in order, at the zone's **write pointer**;
a write elsewhere is refused, and a zone is reused only after a **reset** moves its write
pointer back to the start. *Conventional* zones (usually a few at the start) take writes
anywhere. This is the T10 ZBC / T13 ZAC model (INCITS 536-2016, 537-2016) as Linux exposes it
for zoned block devices (``blkzone report``, ``blkzone reset``; zone size a power of two,
256 MiB on today's host-managed drives). A reset is a request with op :data:`RESET` at the
zone's start.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..disk.access import Access, HeadState, as_mechanism
from ..disk.profile import SmrSpec
from ..errors import RequestError, ZoneError
from ..records import WRITE, Request

RESET = "Z"  # a request op: reset the write pointer of the zone that starts at its LBA
MIB = 2048  # 512-byte sectors per MiB


def _media(a: Access) -> float:
    """When an access's media work ends (an internal access never crosses the host bus)."""
    return a.end_ms - a.interface_ms


class Part(NamedTuple):
    """Where a piece of time went (ms)."""

    seek: float = 0.0
    rotation: float = 0.0
    transfer: float = 0.0

    def __add__(self, other):  # type: ignore[override]
        return Part(self.seek + other.seek, self.rotation + other.rotation,
                    self.transfer + other.transfer)

    @classmethod
    def of(cls, a: Access) -> Part:
        return cls(a.seek_ms, a.rotation_ms, a.transfer_ms)


# -- drive-managed -----------------------------------------------------------------------


@dataclass
class _Piece:
    """A write held in the media cache: host LBAs ``[lba, lba + sectors)`` at ``log`` (physical)."""

    seq: int
    lba: int
    sectors: int
    log: int
    used: int  # log sectors it occupies (whole physical sectors)


@dataclass
class DriveStats:
    """What the translation layer did (counts and simulated ms)."""

    writes: int = 0
    appended_sectors: int = 0
    cleanings: int = 0
    idle_cleanings: int = 0
    forced_cleanings: int = 0
    cleaning_ms: float = 0.0
    foreground_wait_ms: float = 0.0
    first_forced_at_write: int | None = None
    fragmented_reads: int = 0
    clean_log: list = field(default_factory=list)  # (start_ms, end_ms, band, idle)


class DriveManaged:
    """A drive-managed SMR drive's translation layer, used as the drive's service function.

    ``disk``: a profile with ``[firmware.smr] kind = "drive-managed"``, its id, or a
    Mechanism; ``media_cache_mib``, ``band_mib`` and ``idle_clean_ms`` override the profile's.
    The media cache is the outermost ``media_cache_mib`` of the disk; host LBA ``x`` lives at
    physical LBA ``x + cache`` (a static mapping), so the host sees a disk that much smaller
    (:attr:`capacity`). Call it as ``fn(request, start_ms, head)`` (the drive does); one
    object holds one drive's state, so build a new one per run.
    """

    def __init__(self, disk: Any, *, media_cache_mib: float | None = None,
                 band_mib: float | None = None, idle_clean_ms: float | None = None):
        self.mechanism = mech = as_mechanism(disk)
        prof = mech.profile
        spec = prof.smr or SmrSpec("drive-managed")
        if spec.kind != "drive-managed":
            raise ValueError(f"{prof.id} is a {spec.kind} drive: use HostManaged")
        cache = media_cache_mib if media_cache_mib is not None else spec.media_cache_mib
        band = band_mib if band_mib is not None else spec.band_mib
        idle = idle_clean_ms if idle_clean_ms is not None else spec.idle_clean_ms
        for name, v in (("media_cache_mib", cache), ("band_mib", band)):
            if not v or v <= 0:
                raise ValueError(f"{prof.id}: {name} must be greater than 0 (give it, or a "
                                 "profile with [firmware.smr])")
        if idle < 0:
            raise ValueError(f"{prof.id}: idle_clean_ms must be at least 0")
        r = mech.format.ratio
        self.ratio = r
        self.cache_sectors = int(cache * MIB) // r * r
        self.band_sectors = int(band * MIB) // r * r
        if self.band_sectors > self.cache_sectors:
            raise ValueError(f"{prof.id}: band_mib {band} exceeds media_cache_mib {cache}")
        self.idle_clean_ms = float(idle)
        self.capacity = mech.layout.capacity - self.cache_sectors
        if self.capacity < self.band_sectors:
            raise ValueError(f"{prof.id}: a {cache} MiB media cache leaves no room for bands")
        ov = prof.overheads
        self._write_ov, self._read_ov = ov.write(True), ov.read_miss(False)
        self.pieces: dict[int, list[_Piece]] = {}  # band -> its cached pieces, oldest first
        self.fifo: deque[tuple[int, int]] = deque()  # (seq, band): the oldest cached data first
        self.used = 0  # log sectors occupied (stale copies count until their band is cleaned)
        self.head_pos = 0  # next log sector (relative to the cache region)
        self.seq = 0
        self.idle_from = 0.0  # when the drive last became idle
        self.stream_end: tuple[int, float] | None = None  # (log sector, time) the log stopped
        self.stats = DriveStats()

    # -- geometry ---------------------------------------------------------------------
    def band_of(self, lba: int) -> int:
        return lba // self.band_sectors

    def band_range(self, band: int) -> tuple[int, int]:
        """The band's host LBAs ``[first, end)``."""
        first = band * self.band_sectors
        return first, min(first + self.band_sectors, self.capacity)

    @property
    def cached_sectors(self) -> int:
        """Media-cache sectors in use now."""
        return self.used

    def band_rewrite_ms(self, band: int = 0, start_ms: float = 0.0,
                        head: HeadState | None = None) -> float:
        """What reading band ``band`` and writing it back costs the mechanism (no cached pieces)."""
        h = head or HeadState(0, 0)
        t, _, _ = self._rewrite(band, start_ms, h)
        return t - start_ms

    # -- the service function -----------------------------------------------------------
    def __call__(self, req: Request, start: float, head: HeadState) -> tuple[float, Access, bool]:
        lba, n = req.lba, req.sectors
        if lba < 0 or lba + n > self.capacity:
            raise RequestError(
                f"request {req.id}: LBAs {lba}..{lba + n - 1} are beyond this drive-managed "
                f"SMR drive's {self.capacity} host sectors (its outer {self.cache_sectors} "
                "sectors are the media cache)")
        self.mechanism.format.check(lba, n, self.mechanism.profile.id)
        h = HeadState(head.cylinder, head.surface)
        t = self._idle_cleaning(start, h)
        if req.op == WRITE:
            t0 = t
            t = self._make_room(self._used_by(lba, n), t, h)
            self.stats.foreground_wait_ms += t - t0
            t += self._write_ov
            part, end, h = self._append(lba, n, t, h)
        else:
            t += self._read_ov
            part, end, h = self._read(lba, n, t, h)
        media = part.seek + part.rotation + part.transfer
        overhead = end - start - media
        self.idle_from = end
        return overhead, Access(part.seek, part.rotation, part.transfer, 0.0, end,
                                h.cylinder, h.surface), False

    # -- writes: the media cache log ----------------------------------------------------
    def _used_by(self, lba: int, n: int) -> int:
        return sum(self._log_sectors(e - s) for s, e in self._split(lba, n))

    def _log_sectors(self, sectors: int) -> int:
        """Log sectors a piece of ``sectors`` host sectors takes (whole log units)."""
        r = self.ratio
        return -(-sectors // r) * r

    def _split(self, lba: int, n: int) -> list[tuple[int, int]]:
        """The request cut at band boundaries: ``[(start, end), ...]``."""
        out, s, end = [], lba, lba + n
        while s < end:
            e = min(end, (self.band_of(s) + 1) * self.band_sectors)
            out.append((s, e))
            s = e
        return out

    def _append(self, lba: int, n: int, t: float, h: HeadState) -> tuple[Part, float, HeadState]:
        mech = self.mechanism
        need = self._used_by(lba, n)
        if self.head_pos + need > self.cache_sectors:  # the log wraps to the cache's start
            self.head_pos = 0
        log0 = self.head_pos
        st = self.stream_end
        if st is not None and st[0] == log0 and st[1] <= t:
            # the log continues where it stopped: the drive's buffer lets it stream on, so
            # the write goes as if it had followed the last one at once (no wait for its
            # first sector; track and cylinder switches cost what the skew leaves). It is
            # timed from a ten-thousandth of a sector before the log's end, so rounding in
            # the platter's angle never costs a whole turn.
            spt = mech.layout.sectors_per_track(mech.layout.zone_of(log0))
            t_s = st[1] - 1e-4 * mech.rev_ms / spt
            a = mech.access(log0, need, True, t_s, h)
            part = Part.of(a)
            end = t + (_media(a) - t_s)
            log_end = _media(a)  # the log's own timeline (the platter's angle follows it)
        else:
            a = mech.access(log0, need, True, t, h)
            part, end = Part.of(a), _media(a)
            log_end = end
        h = HeadState(a.cylinder, a.surface)
        for s, e in self._split(lba, n):
            used = self._log_sectors(e - s)
            b = self.band_of(s)
            piece = _Piece(self.seq, s, e - s, log0, used)
            if b not in self.pieces:
                self.pieces[b] = []
                self.fifo.append((self.seq, b))
            self.pieces[b].append(piece)
            self.seq += 1
            log0 += used
        self.head_pos += need
        self.used += need
        self.stream_end = (self.head_pos, log_end)
        self.stats.writes += 1
        self.stats.appended_sectors += need
        return part, end, h

    # -- reads: the newest copy of every sector -----------------------------------------
    def _read(self, lba: int, n: int, t: float, h: HeadState) -> tuple[Part, float, HeadState]:
        c = self.cache_sectors
        end = lba + n
        newest: dict[int, _Piece] = {}  # sector -> the newest cached piece holding it
        for b in range(self.band_of(lba), self.band_of(end - 1) + 1):
            for p in self.pieces.get(b, ()):
                for x in range(max(lba, p.lba), min(end, p.lba + p.sectors)):
                    newest[x] = p
        part = Part()
        if len(newest) < n:  # some sectors still live only in their band
            part, t, h = self._media_step(part, lba + c, n, False, t, h)
        used = sorted({id(p): p for p in newest.values()}.values(), key=lambda p: p.log)
        for p in used:
            part, t, h = self._media_step(part, p.log, p.used, False, t, h)
        if used:
            self.stats.fragmented_reads += 1
        self.stream_end = None
        return part, t, h

    def _media_step(self, part: Part, lba: int, n: int, is_write: bool, t: float,
                    h: HeadState) -> tuple[Part, float, HeadState]:
        """One media access after ``part``: the parts added up, when it ends, the head then."""
        a = self.mechanism.access(lba, n, is_write, t, h)
        return part + Part.of(a), _media(a), HeadState(a.cylinder, a.surface)

    # -- cleaning -------------------------------------------------------------------------
    def _oldest_band(self) -> int | None:
        while self.fifo:
            seq, b = self.fifo[0]
            pcs = self.pieces.get(b)
            if pcs and pcs[0].seq == seq:
                return b
            self.fifo.popleft()
        return None

    def _rewrite(self, band: int, t: float, h: HeadState) -> tuple[float, HeadState, Part]:
        """Read the band's cached pieces, read the band, write it back whole."""
        c = self.cache_sectors
        part = Part()
        for p in sorted(self.pieces.get(band, ()), key=lambda p: p.log):
            part, t, h = self._media_step(part, p.log, p.used, False, t, h)
        first, end = self.band_range(band)
        for is_write in (False, True):
            part, t, h = self._media_step(part, first + c, end - first, is_write, t, h)
        return t, h, part

    def _clean_one(self, t: float, h: HeadState, idle: bool) -> tuple[float, HeadState]:
        b = self._oldest_band()
        assert b is not None
        t0 = t
        t, h, _ = self._rewrite(b, t, h)
        pcs = self.pieces.pop(b)
        self.used -= sum(p.used for p in pcs)
        self.fifo.popleft()
        s = self.stats
        s.cleanings += 1
        s.cleaning_ms += t - t0
        if idle:
            s.idle_cleanings += 1
        else:
            s.forced_cleanings += 1
            if s.first_forced_at_write is None:
                s.first_forced_at_write = s.writes + 1
        s.clean_log.append((t0, t, b, idle))
        self.stream_end = None
        return t, h

    def _make_room(self, need: int, t: float, h: HeadState) -> float:
        while self.used + need > self.cache_sectors and self._oldest_band() is not None:
            t, h2 = self._clean_one(t, h, idle=False)
            h.cylinder, h.surface = h2.cylinder, h2.surface
        if self.used + need > self.cache_sectors:
            raise RequestError(f"a write of {need} sectors does not fit in the "
                               f"{self.cache_sectors}-sector media cache")
        return t

    def _idle_cleaning(self, now: float, h: HeadState) -> float:
        """Clean bands in the idle time before ``now``; returns when the command can start."""
        t = self.idle_from + self.idle_clean_ms
        if now <= t or not self.fifo:
            return now
        while t < now and self._oldest_band() is not None:
            t, h2 = self._clean_one(t, h, idle=True)
            h.cylinder, h.surface = h2.cylinder, h2.surface
        return max(now, t)


# -- host-managed ------------------------------------------------------------------------


class ZoneInfo(NamedTuple):
    """One zone as a report-zones command describes it (LBAs in 512-byte sectors)."""

    index: int
    start: int
    length: int
    type: str  # "conventional" or "seq-write-required"
    write_pointer: int | None  # None for a conventional zone
    condition: str  # "not-write-pointer", "empty", "open" or "full"


class HostManaged:
    """A host-managed zoned drive's rules, used as the drive's service function.

    Zones of ``zone_mib`` (the profile's ``[firmware.smr]``, or given) cover the disk from LBA
    0; the first ``conventional_zones`` are conventional, the rest sequential-write-required
    (a last partial zone is left out, as drives expose only whole zones). Writes to a
    sequential zone must start at its write pointer and stay inside the zone, or the drive
    refuses them with :class:`~simcore.errors.ZoneError`; a request with op :data:`RESET` at a
    zone's start empties it. Served I/O costs the mechanism's ordinary time.
    """

    def __init__(self, disk: Any, *, zone_mib: float | None = None,
                 conventional_zones: int | None = None):
        self.mechanism = mech = as_mechanism(disk)
        prof = mech.profile
        spec = prof.smr or SmrSpec("host-managed")
        if spec.kind != "host-managed":
            raise ValueError(f"{prof.id} is a {spec.kind} drive: use DriveManaged")
        zm = zone_mib if zone_mib is not None else spec.zone_mib
        conv = conventional_zones if conventional_zones is not None else spec.conventional_zones
        if not zm or zm <= 0:
            raise ValueError(f"{prof.id}: zone_mib must be greater than 0")
        self.zone_sectors = int(zm * MIB)
        if self.zone_sectors % mech.format.ratio:
            raise ValueError(f"{prof.id}: zone_mib {zm} is not whole physical sectors")
        self.zones = mech.layout.capacity // self.zone_sectors
        if not 0 <= conv < self.zones:
            raise ValueError(f"{prof.id}: conventional_zones {conv} must be in 0..{self.zones - 1}")
        self.conventional = conv
        self.capacity = self.zones * self.zone_sectors
        self.wp = [z * self.zone_sectors for z in range(self.zones)]
        ov = prof.overheads
        self._ov = (ov.read_miss(False), ov.write(True))
        self.resets = 0

    def zone_of(self, lba: int) -> int:
        return lba // self.zone_sectors

    def is_sequential(self, zone: int) -> bool:
        return zone >= self.conventional

    def report_zones(self, start_lba: int = 0, count: int | None = None) -> list[ZoneInfo]:
        """The zones from the one holding ``start_lba`` on (``count`` of them, or all)."""
        z0 = self.zone_of(start_lba)
        z1 = self.zones if count is None else min(self.zones, z0 + count)
        out = []
        for z in range(z0, z1):
            s = z * self.zone_sectors
            if not self.is_sequential(z):
                out.append(ZoneInfo(z, s, self.zone_sectors, "conventional", None,
                                    "not-write-pointer"))
                continue
            wp = self.wp[z]
            cond = "empty" if wp == s else ("full" if wp == s + self.zone_sectors else "open")
            out.append(ZoneInfo(z, s, self.zone_sectors, "seq-write-required", wp, cond))
        return out

    def reset_zone(self, zone: int) -> None:
        """Move the zone's write pointer back to its start (its data is gone)."""
        if not 0 <= zone < self.zones:
            raise ZoneError(f"zone {zone} does not exist (zones 0..{self.zones - 1})")
        if not self.is_sequential(zone):
            raise ZoneError(f"zone {zone} is conventional: it has no write pointer to reset")
        self.wp[zone] = zone * self.zone_sectors
        self.resets += 1

    def check(self, req: Request) -> None:
        """Raise :class:`ZoneError` if the drive would refuse ``req``."""
        lba, n = req.lba, req.sectors
        if lba < 0 or lba + n > self.capacity:
            raise ZoneError(f"request {req.id}: LBAs {lba}..{lba + n - 1} are beyond the last "
                            f"zone (the drive's zones end at LBA {self.capacity - 1})")
        z = self.zone_of(lba)
        if req.op == RESET:
            if lba != z * self.zone_sectors:
                raise ZoneError(f"request {req.id}: a zone reset must name a zone's first LBA; "
                                f"LBA {lba} is inside zone {z}, which starts at "
                                f"{z * self.zone_sectors}")
            if not self.is_sequential(z):
                raise ZoneError(f"request {req.id}: zone {z} is conventional: it has no write "
                                "pointer to reset")
            return
        if req.op != WRITE or not self.is_sequential(z):
            return
        if self.zone_of(lba + n - 1) != z:
            raise ZoneError(f"request {req.id}: a write of LBAs {lba}..{lba + n - 1} crosses "
                            f"the end of zone {z} (LBA {(z + 1) * self.zone_sectors}); split it "
                            "at the zone boundary")
        if lba != self.wp[z]:
            where = "behind" if lba < self.wp[z] else "ahead of"
            raise ZoneError(
                f"request {req.id}: write at LBA {lba} in zone {z} (sequential write required) "
                f"is {where} the zone's write pointer {self.wp[z]}: this zone takes writes "
                "only at its write pointer. Append at the write pointer (report the zones to "
                "find it), use a conventional zone, or reset the zone to rewrite it.")

    def __call__(self, req: Request, start: float, head: HeadState) -> tuple[float, Access, bool]:
        self.check(req)
        if req.op == RESET:
            self.reset_zone(self.zone_of(req.lba))
            ov = self._ov[1]
            return ov, Access(0.0, 0.0, 0.0, 0.0, start + ov, head.cylinder, head.surface), False
        is_write = req.op == WRITE
        ov = self._ov[is_write]
        a = self.mechanism.access(req.lba, req.sectors, is_write, start + ov, head)
        if is_write and self.is_sequential(self.zone_of(req.lba)):
            self.wp[self.zone_of(req.lba)] += req.sectors
        return ov, a, False


def translation_for(disk: Any) -> DriveManaged | HostManaged:
    """The translation (drive-managed) or zone rules (host-managed) of a profile with SMR."""
    mech = as_mechanism(disk)
    spec = mech.profile.smr
    if spec is None:
        raise ValueError(f"{mech.profile.id} is not a shingled drive (no [firmware.smr])")
    return DriveManaged(mech) if spec.kind == "drive-managed" else HostManaged(mech)


def translation_of(result_or_built: Any) -> Any:
    """The SMR service object a run's drive used (from a RunResult or a Built stack)."""
    built = result_or_built.meta["built"] if hasattr(result_or_built, "meta") else result_or_built
    svc = built.drives[0]._service
    owner = getattr(svc, "__self__", svc)
    if not isinstance(owner, DriveManaged | HostManaged):
        raise ValueError("this run's drive has no SMR translation layer")
    return owner


__all__ = ["RESET", "DriveManaged", "DriveStats", "HostManaged", "ZoneInfo",
           "translation_for", "translation_of"]
