"""Hot zones: where relocated units go, one centre zone or one every ``x`` sectors.

Seed 003 §3.6 (note 003 §3.6): "We place hot zones every x number of blocks,
where x is the zone separation distance", and a relocated block goes "to the
closest hot zone to the original location". Gaps the thesis leaves (note 003
§3.0 [G]) and the choices made here:

- zone ``k`` is centred at ``k x + x/2`` (so a block's nearest zone is the one
  in its own x-segment);
- each zone holds at most ``zone_fraction x`` sectors (default 1/10); what does
  not fit spills to the next-nearest zone with room;
- inside a zone, its contents are laid out contiguously and centred on the
  zone's centre, in the order the policy gives (LBA order for FREQZ, run order
  for ALIZ);
- a single-zone layout (organ pipe, heat, packed extents, FREQNC, ALIS) is one
  zone at the middle of the disk, as large as it needs to be.

Everything here counts in units (``unit_sectors`` sectors each).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class Zones:
    """Zone centres and capacities over a disk of ``capacity_units`` units."""

    def __init__(self, capacity_units: int, spacing_units: int | None = None,
                 zone_fraction: float = 0.1):
        self.capacity_units = capacity_units
        if spacing_units is None or spacing_units >= capacity_units:
            self.centres = np.array([capacity_units // 2], np.int64)
            self.capacity = np.array([capacity_units], np.int64)
            self.spacing_units = None
        else:
            if spacing_units < 1:
                raise ValueError(f"zone spacing must be at least one unit (got {spacing_units})")
            k = -(-capacity_units // spacing_units)
            self.centres = np.minimum(np.arange(k) * spacing_units + spacing_units // 2,
                                      capacity_units - 1).astype(np.int64)
            cap = max(1, int(zone_fraction * spacing_units))
            self.capacity = np.full(k, cap, np.int64)
            self.spacing_units = spacing_units

    def __len__(self) -> int:
        return len(self.centres)

    def nearest(self, unit: int) -> int:
        if self.spacing_units is None:
            return 0
        return int(min(unit // self.spacing_units, len(self.centres) - 1))

    def candidates(self, unit: int):
        """Zone indices ordered by the distance of their centre from ``unit``."""
        k0 = self.nearest(unit)
        yield k0
        lo, hi = k0 - 1, k0 + 1
        n = len(self.centres)
        while lo >= 0 or hi < n:
            dl = unit - self.centres[lo] if lo >= 0 else None
            dh = self.centres[hi] - unit if hi < n else None
            if dh is None or (dl is not None and dl <= dh):
                yield lo
                lo -= 1
            else:
                yield hi
                hi += 1


def place_groups(groups: Sequence[np.ndarray], anchors: Sequence[int], zones: Zones,
                 max_spill: int = 8, sort_within: bool = False
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Assign ordered groups of units to zones and lay each zone out.

    ``groups`` come in priority order (the first gets the nearest room); each
    keeps its internal order and stays contiguous unless it is larger than a
    zone, in which case it is cut. A group goes to the zone nearest its anchor
    with room, trying at most ``max_spill`` further zones. Returns
    ``(src_units, dst_units, zone_of_each)``; units that found no room are left out.
    ``sort_within`` lays each zone out in block-number order instead.
    """
    free = zones.capacity.copy()
    members: list[list[np.ndarray]] = [[] for _ in range(len(zones))]
    for g, anchor in zip(groups, anchors, strict=True):
        g = np.asarray(g, np.int64)
        cap = int(zones.capacity.max())
        chunks = [g[i:i + cap] for i in range(0, len(g), cap)] if len(g) > cap else [g]
        for chunk in chunks:
            for tried, k in enumerate(zones.candidates(int(anchor))):
                if tried > max_spill:
                    break
                if free[k] >= len(chunk):
                    members[k].append(chunk)
                    free[k] -= len(chunk)
                    break
    src, dst, zone = [], [], []
    for k, parts in enumerate(members):
        if not parts:
            continue
        units = np.concatenate(parts)
        if sort_within:
            units = np.sort(units)
        used = len(units)
        start = int(zones.centres[k]) - used // 2
        start = min(max(start, 0), zones.capacity_units - used)
        src.append(units)
        dst.append(np.arange(start, start + used, dtype=np.int64))
        zone.append(np.full(used, k, np.int64))
    if not src:
        e = np.zeros(0, np.int64)
        return e, e, e
    return np.concatenate(src), np.concatenate(dst), np.concatenate(zone)


def place_units(units: np.ndarray, zones: Zones, max_spill: int = 8
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Single units (hottest first) to their nearest zone, each zone in block-number order.

    Same result as :func:`place_groups` with one-unit groups and ``sort_within``,
    but only the units of overflowing zones take the slow path.
    """
    units = np.asarray(units, np.int64)
    if len(zones) == 1 or len(units) == 0:
        return place_groups([units], [zones.capacity_units // 2], zones, sort_within=True)
    k = np.minimum(units // zones.spacing_units, len(zones) - 1)
    rank = np.empty(len(units), np.int64)
    order = np.lexsort((np.arange(len(units)), k))
    # position of each unit among its zone's units, hottest first
    ks = k[order]
    first = np.searchsorted(ks, ks, side="left")
    rank[order] = np.arange(len(units)) - first
    fits = rank < zones.capacity[k]
    groups = [units[fits & (k == z)] for z in np.unique(k[fits])]
    anchors = [int(g[0]) for g in groups]
    # overflow units follow, hottest first, one at a time
    spill = units[~fits]
    groups += [np.array([u]) for u in spill.tolist()]
    anchors += spill.tolist()
    return place_groups(groups, anchors, zones, max_spill, sort_within=True)


def lay_out(ordered_units: np.ndarray, start: int) -> tuple[np.ndarray, np.ndarray]:
    """Units placed one after another from physical unit ``start``."""
    u = np.asarray(ordered_units, np.int64)
    return u, np.arange(start, start + len(u), dtype=np.int64)


def centred_start(capacity_units: int, used: int, centre: float = 0.5) -> int:
    """First unit of a region of ``used`` units centred at ``centre`` (fraction of the disk)."""
    start = int(capacity_units * centre) - used // 2
    return min(max(start, 0), capacity_units - used)
