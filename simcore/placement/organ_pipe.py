"""Organ-pipe placement: the hottest unit in the middle, cooler ones alternately either side.

Seed 000 §4.1 (Gray 2000, after Wong and Grossman-Silverman): "The most
frequently accessed data is placed on the middle cylinders of the disk. The
heuristic then places the next most frequently accessed data to either side of
the middle cylinders." It is optimal when references are independent draws
from a fixed distribution. Seed 003 §3.1 (Fig. 3.1(b)) describes the same
layout for a hot region at the disk's centre; the thesis does not simulate it.

Slot order (note 000 §4.1 [G]): ``mid, mid+1, mid-1, mid+2, mid-2, ...``.
"""

from __future__ import annotations

import numpy as np

from .refs import References, hot_units
from .remap import BlockMap, PlanContext
from .zones import centred_start


def organ_pipe_offsets(n: int) -> np.ndarray:
    """Offsets from the middle slot for ranks 0..n-1: 0, +1, -1, +2, -2, ..."""
    k = np.arange(n)
    return np.where(k % 2 == 1, (k + 1) // 2, -(k // 2))


def organ_pipe_slots(heats, slots: int | None = None) -> list:
    """Arrange items by heat on ``slots`` positions (default: as many as items).

    Returns a list, one entry per slot, holding the index of the item placed
    there (None for an empty slot). Seed 000 §8 homework: heats
    [50, 30, 20, 10, 5] on 5 cylinders give the heats 5, 20, 50, 30, 10 by slot.
    """
    heats = list(heats)
    n = len(heats)
    slots = n if slots is None else slots
    if slots < n:
        raise ValueError(f"{n} items do not fit on {slots} slots")
    order = sorted(range(n), key=lambda i: (-heats[i], i))
    mid = (slots - 1) // 2
    out: list = [None] * slots
    for rank, off in zip(range(n), organ_pipe_offsets(n), strict=True):
        out[mid + int(off)] = order[rank]
    return out


class OrganPipe:
    """Hot units (by reference count) in organ-pipe order around the middle of the disk."""

    def __init__(self, min_count: int = 2, budget: int | None = None, centre: float = 0.5,
                 name: str = "ORGANPIPE"):
        self.min_count, self.budget, self.centre, self.name = min_count, budget, centre, name

    def plan(self, refs: References, ctx: PlanContext) -> BlockMap:
        units, _ = hot_units(refs, self.min_count, self.budget)
        n = len(units)
        start = centred_start(ctx.capacity_units, n, self.centre)
        mid = start + (n - 1) // 2
        return BlockMap(units, mid + organ_pipe_offsets(n), ctx.home, {"relocated": n})
