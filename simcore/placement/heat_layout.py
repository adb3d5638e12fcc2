"""Heat layout: hot units in descending order of heat, one after another.

Seed 003 §3.2 (after Ruemmler & Wilkes 1991, Fig. 3.1(c)): blocks "in
descending order of their heat", which keeps the head from scanning back and
forth over the hot region; "a little better than organ pipe". Not simulated in
the thesis. The region is centred on the middle of the disk (note 003 §3.2 [G]).
"""

from __future__ import annotations

from .refs import References, hot_units
from .remap import BlockMap, PlanContext
from .zones import centred_start, lay_out


class HeatLayout:
    def __init__(self, min_count: int = 2, budget: int | None = None, centre: float = 0.5,
                 name: str = "HEAT"):
        self.min_count, self.budget, self.centre, self.name = min_count, budget, centre, name

    def plan(self, refs: References, ctx: PlanContext) -> BlockMap:
        units, _ = hot_units(refs, self.min_count, self.budget)
        start = centred_start(ctx.capacity_units, len(units), self.centre)
        src, dst = lay_out(units, start)
        return BlockMap(src, dst, ctx.home, {"relocated": len(units)})
