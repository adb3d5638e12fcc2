"""Adaptive block rearrangement (Akyurek & Salem 1995), as seed 000 §4.4-4.8 describes it.

- A **reserved area** of ``reserved_sectors`` is hidden from the file system
  ("the disk will appear smaller than it actually is"); the seed puts it "in
  the center of the disk". ``location`` moves it: ``"centre"``, ``"outer"``,
  ``"inner"`` or a fraction of the physical address space (0 = outer edge).
  Seed 000 §4.10 asks whether, with zoned recording, it should move to the
  outer tracks; experiment ``hot-data-home`` answers that.
- A **reference stream analyzer** counts references per block with at most
  ``counters`` counters. The seed does not say what happens when the table is
  full (note 000 §4.7 [G]); here it is Space-Saving (the newcomer replaces the
  smallest counter and inherits its count). Counts restart every period.
- Every period the **block arranger** *copies* the hottest blocks (as many as
  fit) into the reserved area, organ pipe (``placement="organ-pipe"``) or in
  block-number order (``"serial"``); seed 000 §4.8 found the choice mattered
  little. Originals stay valid (copy, not move, seed 000 §4.4); the remapping
  layer writes dirty copies back when they leave.
"""

from __future__ import annotations

import numpy as np

from .organ_pipe import organ_pipe_offsets
from .refs import References
from .remap import BlockMap, HiddenAreas, PlanContext


def space_saving(stream: np.ndarray, counters: int) -> dict[int, int]:
    """Approximate counts of the most frequent items with ``counters`` counters."""
    counts: dict[int, int] = {}
    for x in stream.tolist():
        if x in counts:
            counts[x] += 1
        elif len(counts) < counters:
            counts[x] = 1
        else:
            victim = min(counts, key=lambda k: (counts[k], k))
            c = counts.pop(victim)
            counts[x] = c + 1
    return counts


def reserved_area(capacity_units: int, reserved_units: int, location="centre") -> int:
    """First physical unit of the reserved area."""
    if location == "centre":
        frac = 0.5
    elif location == "outer":
        return 0
    elif location == "inner":
        return capacity_units - reserved_units
    else:
        frac = float(location)
        if not 0.0 <= frac <= 1.0:
            raise ValueError(f"location must be centre, outer, inner or a fraction (got {location})")
    start = int(capacity_units * frac) - reserved_units // 2
    return min(max(start, 0), capacity_units - reserved_units)


class AdaptiveBlockRearrangement:
    def __init__(self, reserved_sectors: int, capacity_sectors: int, unit_sectors: int = 8,
                 location="centre", counters: int | None = None, placement: str = "organ-pipe",
                 name: str = "ABR"):
        if placement not in ("organ-pipe", "serial"):
            raise ValueError("placement must be 'organ-pipe' or 'serial'")
        self.reserved_units = reserved_sectors // unit_sectors
        cap = capacity_sectors // unit_sectors
        self.start = reserved_area(cap, self.reserved_units, location)
        self.home = HiddenAreas([(self.start, self.reserved_units)])
        self.counters = counters
        self.placement = placement
        self.name = name

    def plan(self, refs: References, ctx: PlanContext) -> BlockMap:
        n = self.reserved_units
        if self.counters is None:  # a perfect monitor: one counter per block
            units, counts = np.unique(refs.unit, return_counts=True)
        else:
            table = space_saving(refs.unit, self.counters)
            units = np.fromiter(table.keys(), np.int64, len(table))
            counts = np.fromiter(table.values(), np.int64, len(table))
        order = np.lexsort((units, -counts))[:n]
        hot = units[order]
        if self.placement == "serial":
            src = np.sort(hot)
            dst = self.start + np.arange(len(src))
        else:
            src = hot
            mid = self.start + (n - 1) // 2
            dst = mid + organ_pipe_offsets(len(hot))
        return BlockMap(src, dst, self.home, {"relocated": len(src)})
