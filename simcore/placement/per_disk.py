"""Zones on each disk of an array, not in its address space (seed 003 §3.6.2's advice).

Narayan placed hot zones every ``x`` sectors of a RAID-5's logical address
space and found the zone advantage "lost because the zone is spread across
the array"; he recommended zones "at the individual disk level" instead, and
did not try it. :class:`DiskMajor` renumbers the array's data so that each
member's data units come one after another (disk 0's, then disk 1's, ...). A
zone layout computed in that order has zones on every disk, and a block moved
to its nearest zone stays on its own disk, near its own place.
:func:`rewrite_per_disk` rewrites a trace that way and hands back the
physical requests in the array's own addresses, split at stripe units.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..records import Request
from ..workloads import OpenWorkload
from .remap import Placed, rewrite


class DiskMajor:
    """The data of a RAID-0 or left-symmetric RAID-5 array, numbered disk by disk.

    Only whole groups of ``drives`` rows are used on RAID-5 (so every disk holds
    the same number of data units); ``capacity`` is what both numberings cover.
    """

    def __init__(self, drives: int, unit_sectors: int, rows: int, level: int = 5):
        if level not in (0, 5):
            raise ValueError(f"RAID level must be 0 or 5, got {level}")
        if level == 5 and drives < 3:
            raise ValueError(f"RAID-5 needs at least 3 drives, got {drives}")
        self.n, self.unit, self.level = drives, unit_sectors, level
        self.data_disks = drives - 1 if level == 5 else drives
        self.rows = rows - rows % drives if level == 5 else rows
        self.units_per_disk = self.rows * self.data_disks // drives
        self.capacity = self.units_per_disk * drives * unit_sectors

    def _parity(self, row):
        return self.n - 1 - row % self.n

    def to_disk_major(self, lba):
        """Array sector(s) -> disk-major sector(s)."""
        lba = np.asarray(lba, np.int64)
        chunk, off = np.divmod(lba, self.unit)
        n = self.n
        if self.level == 0:
            row, disk = np.divmod(chunk, n)
            j = row
        else:
            row, k = np.divmod(chunk, n - 1)
            disk = (self._parity(row) + 1 + k) % n
            group, r_in = np.divmod(row, n)
            r_par = n - 1 - disk  # the row of each group where this disk holds parity
            j = group * (n - 1) + np.where(r_in < r_par, r_in, r_in - 1)
        return (disk * self.units_per_disk + j) * self.unit + off

    def to_array(self, dm):
        """Disk-major sector(s) -> array sector(s)."""
        dm = np.asarray(dm, np.int64)
        q, off = np.divmod(dm, self.unit)
        disk, j = np.divmod(q, self.units_per_disk)
        n = self.n
        if self.level == 0:
            chunk = j * n + disk
        else:
            group, jj = np.divmod(j, n - 1)
            r_par = n - 1 - disk
            row = group * n + np.where(jj < r_par, jj, jj + 1)
            k = (disk - self._parity(row) - 1) % n
            chunk = row * (n - 1) + k
        return chunk * self.unit + off

    def pieces(self, dm: int, sectors: int) -> list[tuple[int, int]]:
        """A disk-major range as ``(array_lba, sectors)`` pieces, one per stripe unit."""
        out = []
        while sectors:
            take = min(sectors, self.unit - dm % self.unit)
            out.append((int(self.to_array(dm)), take))
            dm += take
            sectors -= take
        return out


def rewrite_per_disk(workload: OpenWorkload, policy, layout: DiskMajor, unit_sectors: int,
                     interval_ms: float, migration: str = "count") -> Placed:
    """:func:`~simcore.placement.remap.rewrite` in disk-major order, back in array addresses.

    Every request must lie inside one stripe unit (a request that crosses one
    would be two requests to two disks; say so rather than guess).
    """
    reqs = workload.requests
    lba = np.fromiter((r.lba for r in reqs), np.int64, len(reqs))
    end = np.fromiter((r.lba + r.sectors for r in reqs), np.int64, len(reqs))
    bad = np.flatnonzero(((end - 1) // layout.unit != lba // layout.unit)
                         | (end > layout.capacity))
    if len(bad):
        r = reqs[int(bad[0])]
        raise ValueError(f"{workload.name}: request {r.id} ({r.lba}+{r.sectors}) crosses a "
                         f"{layout.unit}-sector stripe unit or leaves the array's "
                         f"{layout.capacity} data sectors; per-disk zones need it inside one")
    dm = layout.to_disk_major(lba)
    logical = OpenWorkload([r._replace(lba=int(x)) for r, x in zip(reqs, dm.tolist(),
                                                                   strict=True)],
                           name=workload.name)
    placed = rewrite(logical, policy, layout.capacity, unit_sectors, interval_ms, migration)
    out: list[Request] = []
    parent: list[int] = []
    for r, p in zip(placed.workload.requests, placed.parent.tolist(), strict=True):
        for a, s in layout.pieces(r.lba, r.sectors):
            out.append(Request(len(out), r.arrival_ms, r.op, a, s, r.client))
            parent.append(p)
    return dataclasses.replace(placed, workload=OpenWorkload(out, name=placed.workload.name),
                               parent=np.array(parent, np.int64), logical=workload)
