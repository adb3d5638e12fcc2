"""Packed extents: the hottest runs of consecutive units, each kept whole and in order.

Seed 003 §3.3 (after Hsu 2003): identify "the most frequently accessed
sequential units" (extents) and place them "in ascending order of their
ranking", so hot contents are packed together while each keeps its access
sequence. Not simulated in the thesis. Here (note 003 §3.3 [G]) an extent is a
maximal run of consecutive units touched in the window; its heat is the sum of
its units' reference counts; an extent is chosen when its hottest unit has at
least ``min_count`` references; whole extents (cool units inside included) are
laid out hottest first in a region centred on the middle of the disk.
"""

from __future__ import annotations

import numpy as np

from .refs import References, unit_counts
from .remap import BlockMap, PlanContext
from .zones import centred_start, lay_out


def extents(units: np.ndarray, counts: np.ndarray) -> list[tuple[np.ndarray, int, int]]:
    """Maximal runs of consecutive units: (units, total heat, hottest unit's count)."""
    if len(units) == 0:
        return []
    brk = np.flatnonzero(np.diff(units) != 1) + 1
    out = []
    for u, c in zip(np.split(units, brk), np.split(counts, brk), strict=True):
        out.append((u, int(c.sum()), int(c.max())))
    return out


class PackedExtents:
    def __init__(self, min_count: int = 2, budget: int | None = None, centre: float = 0.5,
                 name: str = "PACKED"):
        self.min_count, self.budget, self.centre, self.name = min_count, budget, centre, name

    def plan(self, refs: References, ctx: PlanContext) -> BlockMap:
        units, counts = unit_counts(refs)
        ext = [e for e in extents(units, counts) if e[2] >= self.min_count]
        ext.sort(key=lambda e: (-e[1], int(e[0][0])))
        chosen, total = [], 0
        for u, _, _ in ext:
            if self.budget is not None and total + len(u) > self.budget:
                break
            chosen.append(u)
            total += len(u)
        ordered = np.concatenate(chosen) if chosen else np.zeros(0, np.int64)
        src, dst = lay_out(ordered, centred_start(ctx.capacity_units, len(ordered), self.centre))
        return BlockMap(src, dst, ctx.home, {"relocated": len(ordered), "extents": len(chosen)})
