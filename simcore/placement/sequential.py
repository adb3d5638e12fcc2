"""Sequential layout (FREQNC) and its multi-zone form (FREQZ).

Seed 003 §3.4: the packed-extents idea with the less frequently accessed
blocks removed, "equivalent to placing the most frequently accessed blocks
maintaining their order by their block numbers" (Fig. 3.1(d)), in one hot zone
at the centre; the thesis calls it FREQNC. Seed 003 §3.6: FREQZ places the same
blocks in the hot zone nearest each block's original place, one zone every
``x`` sectors, still in block-number order within a zone.

Which blocks are "frequently accessed" is a gap (note 003 §3.4 [G]). Here a
unit qualifies when it was referenced at least ``min_count`` times in the last
window. The default, ``min_count=1``, relocates every accessed block, which is
how seed 003 §3.5.2.2 describes FREQZ ("would place all the accessed blocks
into a hot zone"), and what its relocation counts (§3.5.1: about 25,000 blocks
a window on the email trace) require. ``min_count=2`` keeps only the blocks
referenced again within the window (the reuse seed 003 §1.4 counts).
"""

from __future__ import annotations

from .refs import References, hot_units
from .remap import BlockMap, PlanContext
from .zones import Zones, place_units


class Sequential:
    """FREQNC when ``spacing`` is None, FREQZ(spacing) otherwise (spacing in sectors)."""

    def __init__(self, spacing: int | None = None, min_count: int = 1,
                 budget: int | None = None, zone_fraction: float = 0.1, name: str | None = None):
        self.spacing, self.min_count, self.budget = spacing, min_count, budget
        self.zone_fraction = zone_fraction
        self.name = name or ("FREQNC" if spacing is None else f"FREQZ({spacing})")

    def plan(self, refs: References, ctx: PlanContext) -> BlockMap:
        units, _ = hot_units(refs, self.min_count, self.budget)  # hottest first
        spacing = None if self.spacing is None else max(1, self.spacing // ctx.unit_sectors)
        zones = Zones(ctx.capacity_units, spacing, self.zone_fraction)
        src, dst, _ = place_units(units, zones)
        return BlockMap(src, dst, ctx.home, {"relocated": len(src)})
