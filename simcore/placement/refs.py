"""The reference stream: which reorganization units each request touches, in order.

Placement policies never look at requests directly; they look at this stream,
the way seed 000 §4.5's Reference Stream Analyzer reads "the block number" of
each request from the driver. A *unit* is ``unit_sectors`` consecutive sectors
(seed 003 §3.0 reorganizes 512-byte sectors; 8 sectors = 4 KiB is the default
here, the option note 003 §3.0 offers). A request of several units yields one
reference per unit, lowest first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ..records import READ, Request


class References(NamedTuple):
    """One entry per unit touched, in arrival order (a request's units ascending).

    ``piece_start`` and ``piece_sectors`` say which sectors of the unit the
    request moves (the first and last unit of an unaligned request are partial).
    """

    time_ms: np.ndarray
    unit: np.ndarray
    is_read: np.ndarray
    request: np.ndarray
    piece_start: np.ndarray
    piece_sectors: np.ndarray
    unit_sectors: int

    def __len__(self) -> int:
        return len(self.unit)

    def select(self, mask: np.ndarray) -> References:
        return References(self.time_ms[mask], self.unit[mask], self.is_read[mask],
                          self.request[mask], self.piece_start[mask], self.piece_sectors[mask],
                          self.unit_sectors)


class RequestArrays(NamedTuple):
    """A request list as columns (fast to slice by window)."""

    arrival_ms: np.ndarray
    is_read: np.ndarray
    lba: np.ndarray
    sectors: np.ndarray
    client: np.ndarray


def request_arrays(requests: Sequence[Request]) -> RequestArrays:
    n = len(requests)
    t = np.fromiter((r.arrival_ms for r in requests), float, n)
    rd = np.fromiter((r.op == READ for r in requests), bool, n)
    lba = np.fromiter((r.lba for r in requests), np.int64, n)
    sec = np.fromiter((r.sectors for r in requests), np.int64, n)
    cl = np.fromiter((r.client for r in requests), np.int64, n)
    return RequestArrays(t, rd, lba, sec, cl)


def unit_references(requests: Sequence[Request] | RequestArrays,
                    unit_sectors: int = 8) -> References:
    """Expand requests into the units they touch (vectorized)."""
    if unit_sectors < 1:
        raise ValueError(f"unit_sectors must be at least 1 (got {unit_sectors})")
    ra = requests if isinstance(requests, RequestArrays) else request_arrays(requests)
    u = unit_sectors
    first = ra.lba // u
    last = (ra.lba + ra.sectors - 1) // u
    count = last - first + 1
    total = int(count.sum())
    req = np.repeat(np.arange(len(first)), count)
    starts = np.cumsum(count) - count
    within = np.arange(total) - np.repeat(starts, count)
    unit = np.repeat(first, count) + within
    lo = np.maximum(np.repeat(ra.lba, count), unit * u)
    hi = np.minimum(np.repeat(ra.lba + ra.sectors, count), (unit + 1) * u)
    return References(ra.arrival_ms[req], unit, ra.is_read[req], req, lo, hi - lo, u)


def unit_counts(refs: References) -> tuple[np.ndarray, np.ndarray]:
    """Distinct units and how often each was referenced (units ascending)."""
    if len(refs) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    units, counts = np.unique(refs.unit, return_counts=True)
    return units, counts


def hot_units(refs: References, min_count: int = 2, budget: int | None = None,
              reads_only: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Units referenced at least ``min_count`` times, hottest first (ties: lower unit first).

    ``budget`` keeps at most that many. Heat is the reference count in the
    window (note 003 §3.0 [G]: reads and writes both count unless ``reads_only``).
    """
    r = refs.select(refs.is_read) if reads_only else refs
    units, counts = unit_counts(r)
    keep = counts >= min_count
    units, counts = units[keep], counts[keep]
    order = np.lexsort((units, -counts))
    units, counts = units[order], counts[order]
    if budget is not None:
        units, counts = units[:budget], counts[:budget]
    return units, counts
