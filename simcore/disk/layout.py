"""Where every sector lives: zones, the LBA map, skews, spares and slips.

Seeds: Gray 2000 §2.2 and §2.5 (zoned recording, skew); Schindler et al. 2002
§3.1 and Figure 2 (the LBN map, slipping, head switches); DiskSim's
``dm_layout_g1`` (conventional and serpentine mappings, spares at zone end).

Conventions: LBA 0 is on the outermost cylinder. Inside a zone, physical
*slots* are numbered in mapping order (track by track). The first logical
sector of track ``t`` sits ``offset(t)`` physical sectors after the index mark,
where each head switch before it adds the track skew and each cylinder switch
the cylinder skew. Angles are fractions of a revolution in ``[0, 1)``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from typing import NamedTuple

from ..errors import RequestError
from .profile import DiskProfile, Zone

SECTOR_BYTES = 512


class PhysicalAddress(NamedTuple):
    """Where one logical sector is: cylinder, surface, physical sector and angle."""

    cylinder: int
    surface: int
    sector: int
    angle: float
    zone: int


class TrackPiece(NamedTuple):
    """The part of a request that lies on one track.

    ``span`` counts physical sectors the head passes over (slipped sectors
    inside the piece included); ``count`` counts the logical sectors moved.
    """

    cylinder: int
    surface: int
    first_sector: int
    span: int
    count: int
    sectors_per_track: int


class StraightTrack(NamedTuple):
    """A track whose slots, from its first, hold one run of consecutive LBAs ``[first, end)``
    (no slip, spare or remapped sector among them; the run may stop at the zone's end)."""

    first: int
    end: int
    cylinder: int
    surface: int
    offset: int  # physical sector of ``first``
    spt: int

    def lba_at(self, sector: int) -> int | None:
        """The LBA at physical ``sector`` (0 <= sector < spt) of this track, or None past the
        run's end."""
        first, end, _cylinder, _surface, offset, spt = self  # (one read of the fields)
        lba = first + (sector - offset) % spt
        return lba if lba < end else None


# ``_new_tuple(TrackPiece, fields)`` is ``TrackPiece(*fields)`` without the Python-level
# ``__new__`` a NamedTuple's constructor goes through (pieces and straight tracks are made
# several times per request)
_new_tuple = tuple.__new__
_NO_TRACK = (0, 0, 0, 0, 0, 1)  # no straight track found yet


class _ZoneMap:
    """One zone's precomputed numbers; the hot path reads these attributes.

    The zone's physical slots fall into sparing groups of ``group`` slots
    (the whole zone unless the profile sets ``spare_group``); each full group
    ends in ``spares`` spare slots, so it holds ``usable`` logical sectors.
    Logical position ``raw = rel + empty_front`` is the ``raw % usable``-th
    good slot of group ``raw // usable``; slips inside a group push the
    sectors after them along (DiskSim's ``dm_layout_g1`` sparing schemes).
    """

    __slots__ = (
        "cyl0",
        "cyl_skew",
        "dead",
        "first_lba",
        "first_offset",
        "full_groups",
        "group",
        "group_slip_floor",
        "group_slips",
        "index",
        "irregular",
        "lba_count",
        "moved_from",
        "moved_to",
        "serpentine",
        "simple",
        "slips",
        "spt",
        "surfaces",
        "track_skew",
        "tracks",
        "usable",
    )

    def __init__(self, index: int, zone: Zone, surfaces: int, first_lba: int, serpentine: bool):
        self.index = index
        self.cyl0 = zone.first_cylinder
        self.spt = zone.sectors_per_track
        self.surfaces = surfaces
        self.track_skew = zone.track_skew
        self.cyl_skew = zone.cylinder_skew
        self.first_offset = zone.first_offset
        self.serpentine = serpentine
        self.slips = tuple(sorted(zone.slips))
        self.tracks = zone.cylinders * surfaces
        slots = self.tracks * self.spt
        self.dead = zone.empty_front
        self.group = zone.spare_group if 0 < zone.spare_group < slots else slots
        self.full_groups, tail = divmod(slots, self.group)
        self.usable = self.group - zone.spares
        groups: dict[int, list[int]] = {}
        for s in self.slips:
            g, within = divmod(s, self.group)
            groups.setdefault(g, []).append(within)
        self.group_slips = {g: tuple(v) for g, v in groups.items()}
        # the i-th slip of a group, less the i slips before it: the good slots before it
        # (non-decreasing, so slot_of finds how many slips a slot passes by bisection)
        self.group_slip_floor = {g: tuple(s - i for i, s in enumerate(v))
                                 for g, v in self.group_slips.items()}
        if self.group == slots:  # whole-zone sparing: slips beyond the spares shorten the zone
            good = slots - max(zone.spares, len(self.slips))
        else:
            good = self.full_groups * self.usable + tail - len(self.group_slips.get(
                self.full_groups, ()))
        self.lba_count = good - self.dead
        self.moved_to = dict(zone.remaps)
        self.moved_from = {new: old for old, new in zone.remaps}
        self.simple = not (self.slips or self.dead or self.group != slots or self.moved_to)
        self.first_lba = first_lba
        self.irregular = self._irregular_tracks(slots)

    def _irregular_tracks(self, slots: int) -> frozenset[int] | None:
        """Tracks whose slots are not one straight run of LBAs: those holding a slip, the
        empty front or the unused end. On any other track the map is a simple zone's,
        shifted (the slips before it), so a piece on it is found as in a simple zone.
        None when the zone has sparing groups or remapped sectors (no such shortcut)."""
        if self.simple or self.group != slots or self.moved_to or self.lba_count <= 0:
            return None
        spt = self.spt
        first, last = self.slot_of(0), self.slot_of(self.lba_count - 1)
        out = {s // spt for s in self.slips}
        out.update(range(0, (first + spt - 1) // spt))  # slots before the first LBA
        out.update(range((last + 1) // spt, self.tracks))  # slots after the last LBA
        return frozenset(out)

    def slot_of(self, rel: int) -> int:
        """Physical slot (zone-relative, mapping order) of zone-relative LBA ``rel``."""
        g, slot = divmod(rel + self.dead, self.usable)
        floor = self.group_slip_floor.get(g)
        if floor:  # the slot-th good slot is past every slip with at most slot good before it
            slot += bisect_right(floor, slot)
        slot += g * self.group
        return self.moved_to.get(slot, slot) if self.moved_to else slot

    def rel_of_slot(self, slot: int) -> int | None:
        """Zone-relative LBA stored in ``slot``, or None (spare, slipped or remapped away)."""
        if self.moved_to:
            if slot in self.moved_to:
                return None
            slot = self.moved_from.get(slot, slot)
        g, within = divmod(slot, self.group)
        slips = self.group_slips.get(g, ())
        if within in slips:
            return None
        good = within - bisect_right(slips, within)
        if good >= self.usable:
            return None
        rel = g * self.usable + good - self.dead
        return rel if 0 <= rel < self.lba_count else None

    def track_geometry(self, track: int) -> tuple[int, int, int]:
        """(cylinder, surface, physical offset of the track's first logical sector)."""
        cyl_off, within = divmod(track, self.surfaces)
        surface = self.surfaces - 1 - within if (self.serpentine and cyl_off & 1) else within
        offset = (
            self.first_offset + (track - cyl_off) * self.track_skew + cyl_off * self.cyl_skew
        ) % self.spt
        return self.cyl0 + cyl_off, surface, offset


class Layout:
    """The LBA <-> physical map of one drive, built from its profile."""

    def __init__(self, profile: DiskProfile):
        self.profile = profile
        self.surfaces = profile.surfaces
        serpentine = profile.mapping == "serpentine"
        self._zones: list[_ZoneMap] = []
        lba = 0
        for i, zone in enumerate(profile.zones):
            zm = _ZoneMap(i, zone, profile.surfaces, lba, serpentine)
            self._zones.append(zm)
            lba += zm.lba_count
        self.capacity = lba
        self._zone_starts = [z.first_lba for z in self._zones]
        # zone index per cylinder, for physical look-ups; -1 on unused cylinders between zones
        self._cyl_zone: list[int] = []
        for zm, zone in zip(self._zones, profile.zones, strict=True):
            self._cyl_zone.extend([-1] * (zone.first_cylinder - len(self._cyl_zone)))
            self._cyl_zone.extend([zm.index] * zone.cylinders)
        self.cylinders = len(self._cyl_zone)
        self.simple = all(zm.simple for zm in self._zones)
        # the last straight track a piece was found on (a cache's read-ahead and pre-read ask
        # about the track its miss just read: track_end, track_extent, lba_at and
        # straight_track answer from it)
        self._track: tuple[int, int, int, int, int, int] = _NO_TRACK  # a StraightTrack's fields

    # -- zones -------------------------------------------------------------
    @property
    def zone_count(self) -> int:
        return len(self._zones)

    def zone_of(self, lba: int) -> int:
        """Index of the zone holding ``lba``."""
        self._check(lba)
        return bisect_right(self._zone_starts, lba) - 1

    def zone_lba_range(self, zone: int) -> tuple[int, int]:
        """First LBA and one past the last LBA of a zone."""
        zm = self._zones[zone]
        return zm.first_lba, zm.first_lba + zm.lba_count

    def sectors_per_track(self, zone: int) -> int:
        return self._zones[zone].spt

    def media_rate_mb_s(self, zone: int) -> float:
        """Raw media rate under the head in MB/s (10^6 B/s): spt x 512 B per revolution."""
        return self._zones[zone].spt * SECTOR_BYTES / (self.profile.revolution_ms * 1000.0)

    # -- the map -----------------------------------------------------------
    def _check(self, lba: int) -> None:
        if not 0 <= lba < self.capacity:
            raise RequestError(
                f"LBA {lba} is outside the disk '{self.profile.id}' "
                f"(valid LBAs are 0..{self.capacity - 1})"
            )

    def _zone_slot(self, lba: int) -> tuple[_ZoneMap, int]:
        zm = self._zones[bisect_right(self._zone_starts, lba) - 1]
        rel = lba - zm.first_lba
        return zm, (rel if zm.simple else zm.slot_of(rel))

    def locate(self, lba: int) -> PhysicalAddress:
        """Physical address of one logical sector."""
        self._check(lba)
        zm, slot = self._zone_slot(lba)
        track, k = divmod(slot, zm.spt)
        cyl, surface, offset = zm.track_geometry(track)
        sector = (offset + k) % zm.spt
        return PhysicalAddress(cyl, surface, sector, sector / zm.spt, zm.index)

    def lba_at(self, cylinder: int, surface: int, sector: int) -> int | None:
        """The LBA stored at a physical sector, or None for a spare or slipped sector."""
        if not 0 <= cylinder < self.cylinders or not 0 <= surface < self.surfaces:
            return None
        first, end, cyl, surf, offset, spt = self._track
        if cylinder == cyl and surface == surf and first < end:  # the last straight track
            if not 0 <= sector < spt:
                return None
            lba = first + (sector - offset) % spt
            return lba if lba < end else None
        zi = self._cyl_zone[cylinder]
        if zi < 0:
            return None
        zm = self._zones[zi]
        if not 0 <= sector < zm.spt:
            return None
        cyl_off = cylinder - zm.cyl0
        within = self.surfaces - 1 - surface if (zm.serpentine and cyl_off & 1) else surface
        track = cyl_off * self.surfaces + within
        offset = zm.track_geometry(track)[2]
        slot = track * zm.spt + (sector - offset) % zm.spt
        rel = zm.rel_of_slot(slot)
        return None if rel is None else zm.first_lba + rel

    def cylinder_of(self, lba: int) -> int:
        zm, slot = self._zone_slot(lba)
        return zm.cyl0 + (slot // zm.spt) // zm.surfaces

    def track_extent(self, lba: int) -> tuple[int, int]:
        """First LBA of the track holding ``lba`` and how many LBAs that track holds."""
        self._check(lba)
        first, end = self._track[:2]
        if first <= lba < end:  # on the last straight track found
            return first, end - first
        zm, slot = self._zone_slot(lba)
        track = slot // zm.spt
        lo, hi = track * zm.spt, (track + 1) * zm.spt
        # the first slot holding an LBA from the front, the last from the back: both
        # searches stop at the first data slot (only spares and slips are passed over)
        first = next((r for r in map(zm.rel_of_slot, range(lo, hi)) if r is not None), None)
        last = next((r for r in map(zm.rel_of_slot, range(hi - 1, lo - 1, -1))
                     if r is not None), None)
        assert first is not None and last is not None  # lba's own slot holds data
        return zm.first_lba + first, last - first + 1

    def track_boundaries(self) -> Iterator[int]:
        """First LBA of every track that holds data, in order."""
        for zm in self._zones:
            for track in range(zm.tracks):
                for s in range(track * zm.spt, (track + 1) * zm.spt):
                    rel = zm.rel_of_slot(s)
                    if rel is not None:
                        yield zm.first_lba + rel
                        break

    def pieces(self, lba: int, sectors: int) -> list[TrackPiece]:
        """Split a request into the track pieces the head reads in order."""
        if sectors <= 0:
            raise RequestError(f"a request must move at least one sector (got {sectors})")
        self._check(lba)
        self._check(lba + sectors - 1)
        piece = self._piece_at(lba, sectors)
        if piece.count == sectors:  # on one track
            return [piece]
        out: list[TrackPiece] = [piece]
        lba += piece.count
        remaining = sectors - piece.count
        while remaining:
            piece = self._piece_at(lba, remaining)
            out.append(piece)
            lba += piece.count
            remaining -= piece.count
        return out

    def first_piece(self, lba: int, sectors: int) -> TrackPiece:
        """The first of :meth:`pieces` (the part of the request on ``lba``'s track)."""
        if sectors <= 0:
            raise RequestError(f"a request must move at least one sector (got {sectors})")
        if not (lba >= 0 and lba + sectors <= self.capacity):
            self._check(lba)
            self._check(lba + sectors - 1)
        return self._piece_at(lba, sectors)

    def track_end(self, lba: int) -> int:
        """One past the last LBA on ``lba``'s track (the end of :meth:`first_piece` for a
        request reaching to the track's end), without the piece's geometry."""
        if not 0 <= lba < self.capacity:  # (the check, called only to raise)
            self._check(lba)
        last = self._track
        if last[0] <= lba < last[1]:  # on the last straight track found
            return last[1]
        zm = self._zones[bisect_right(self._zone_starts, lba) - 1]
        rel = lba - zm.first_lba
        in_zone = zm.lba_count - rel
        if zm.simple:
            return lba + min(zm.spt - rel % zm.spt, in_zone)
        slot = zm.slot_of(rel)
        track = slot // zm.spt
        track_end_slot = (track + 1) * zm.spt
        irregular = zm.irregular
        if irregular is not None and track not in irregular:  # a straight run
            return lba + min(track_end_slot - slot, in_zone)
        end_rel = zm.rel_of_slot(track_end_slot - 1)
        while end_rel is None and track_end_slot - 1 > slot:
            track_end_slot -= 1
            end_rel = zm.rel_of_slot(track_end_slot - 1)
        on_track = (end_rel - rel + 1) if end_rel is not None else 1
        return lba + min(on_track, in_zone)

    def straight_track(self, lba: int) -> StraightTrack | None:
        """The track holding ``lba`` if it is straight (its LBAs one run from its first slot),
        else None. Found once per track: the last one found is kept."""
        if not 0 <= lba < self.capacity:  # (the check, called only to raise)
            self._check(lba)
        if not self._track[0] <= lba < self._track[1]:
            self._piece_at(lba, 1)
            if not self._track[0] <= lba < self._track[1]:
                return None
        return _new_tuple(StraightTrack, self._track)

    def _piece_at(self, lba: int, remaining: int) -> TrackPiece:
        first, end, cyl, surface, offset, spt = self._track
        if first <= lba < end:  # on the last straight track found: the same numbers, shorter
            count = end - lba if end - lba < remaining else remaining  # (min, without the call)
            return _new_tuple(TrackPiece, (cyl, surface, (offset + lba - first) % spt, count,
                                           count, spt))
        zm = self._zones[bisect_right(self._zone_starts, lba) - 1]
        rel = lba - zm.first_lba
        slot = rel if zm.simple else zm.slot_of(rel)
        track, k = divmod(slot, zm.spt)
        # LBAs left on this track: the slots to the track end minus slips among them.
        track_end_slot = (track + 1) * zm.spt
        in_zone = zm.lba_count - rel
        straight = zm.simple or (zm.irregular is not None and track not in zm.irregular)
        if not straight:
            end_rel = zm.rel_of_slot(track_end_slot - 1)
            while end_rel is None and track_end_slot - 1 > slot:
                track_end_slot -= 1
                end_rel = zm.rel_of_slot(track_end_slot - 1)
            on_track = (end_rel - rel + 1) if end_rel is not None else 1
        else:
            on_track = track_end_slot - slot
        count = remaining  # the smallest of the three (min, without its call)
        if on_track < count:
            count = on_track
        if in_zone < count:
            count = in_zone
        last_slot = slot + count - 1 if straight else zm.slot_of(rel + count - 1)
        cyl, surface, offset = zm.track_geometry(track)
        if straight:  # every slot of the track up to the zone's end holds the next LBA
            end = lba - k + zm.spt  # the track's end, or the zone's (min, without its call)
            zone_end = zm.first_lba + zm.lba_count
            self._track = (lba - k, zone_end if zone_end < end else end, cyl, surface, offset,
                           zm.spt)
        return _new_tuple(TrackPiece, (cyl, surface, (offset + k) % zm.spt, last_slot - slot + 1,
                                       count, zm.spt))
