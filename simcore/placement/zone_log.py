"""Placement on a host-managed zoned drive: random updates become appends at write pointers.

A host-managed drive (:class:`simcore.smr.HostManaged`) refuses a write that is not at its
zone's write pointer, so a file system on it cannot update a block in place. It does what a
log-structured file system does (Rosenblum & Ousterhout, *The Design and Implementation of a
Log-Structured File System*, 1992; on zoned drives: f2fs, btrfs's zoned mode, zonefs): it
keeps a map from logical blocks to where their newest copy is, and writes every update at the
write pointer of an open zone, moving to the next empty zone when one fills. Updates gathered
in host memory go out as one larger append (``batch_blocks``): fewer commands, and each waits
for the platter once rather than once per block. The space the old copies hold is reclaimed
later by copying a zone's live blocks elsewhere and resetting it; that cleaning is the host's
version of the drive-managed drive's band cleaning and is not simulated here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..drive.smr import HostManaged
from ..records import WRITE, Request
from ..workloads import OpenWorkload


@dataclass
class ZoneLog:
    """The host side: the block map and the zones it appends to."""

    drive: HostManaged
    block_sectors: int = 8
    first_zone: int | None = None

    def __post_init__(self):
        self.zone = self.drive.conventional if self.first_zone is None else self.first_zone
        if not self.drive.is_sequential(self.zone):
            raise ValueError(f"zone {self.zone} is conventional: start the log in a "
                             "sequential-write-required zone")
        self.wp = self.drive.wp[self.zone]  # where the host will write next
        self.map: dict[int, int] = {}  # logical block -> physical LBA of its newest copy

    def append(self, blocks: Sequence[int]) -> list[tuple[int, int]]:
        """Place ``blocks`` (logical block numbers) at the write pointer: ``[(lba, sectors)]``.

        One append per zone touched (a batch that fills a zone continues in the next one).
        """
        out: list[tuple[int, int]] = []
        zs, b = self.drive.zone_sectors, self.block_sectors
        i = 0
        while i < len(blocks):
            end = (self.zone + 1) * zs
            room = (end - self.wp) // b
            if room == 0:
                self.zone += 1
                if self.zone >= self.drive.zones:
                    raise ValueError("the zoned drive is full: clean and reset zones first")
                self.wp = self.zone * zs
                continue
            take = blocks[i:i + room]
            for k, blk in enumerate(take):
                self.map[int(blk)] = self.wp + k * b
            out.append((self.wp, len(take) * b))
            self.wp += len(take) * b
            i += len(take)
        return out


def log_structured(drive: HostManaged, updates: Sequence[int], batch_blocks: int = 1,
                   block_sectors: int = 8, first_zone: int | None = None
                   ) -> tuple[OpenWorkload, ZoneLog]:
    """The appends a log-structured host issues for ``updates`` (logical block numbers).

    Updates are gathered ``batch_blocks`` at a time and written as one append each; every
    request arrives at time 0, so the drive serves them back to back in order (FCFS keeps
    the appends of a zone in write-pointer order, as Linux's zone write locking does).
    Returns the workload and the :class:`ZoneLog` (its ``map`` says where each block went).
    """
    if batch_blocks < 1:
        raise ValueError(f"batch_blocks must be at least 1 (got {batch_blocks})")
    log = ZoneLog(drive, block_sectors, first_zone)
    reqs: list[Request] = []
    for k in range(0, len(updates), batch_blocks):
        for lba, n in log.append(list(updates[k:k + batch_blocks])):
            reqs.append(Request(len(reqs), 0.0, WRITE, lba, n))
    return OpenWorkload(reqs, name=f"log-structured, {batch_blocks} blocks per append"), log
