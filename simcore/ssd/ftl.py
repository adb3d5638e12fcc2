"""A page-mapped flash translation layer with garbage collection, and its write amplification.

NAND flash is programmed a page at a time, only into erased pages, and erased a block (tens
to hundreds of pages) at a time. So an FTL never overwrites: a write of logical page ``l``
goes to the next free page of the block being filled, the map ``l -> physical page`` is
updated, and the old copy becomes *invalid*. When free blocks run short, garbage collection
picks a *victim* block, copies its valid pages into the write stream and erases it. Every
copy is a flash write the host did not ask for: write amplification
``WA = flash page writes / host page writes`` (Hu et al. 2009; Desnoyers 2012).

Victim choice: ``greedy`` takes the closed block with the fewest valid pages (ties: the
oldest), ``fifo`` the oldest closed block (Desnoyers' LRW, "least recently written").

Over-provisioning: the flash holds ``T`` pages, the host sees ``U < T`` of them; here
``op = (T - U) / U`` (the industry's 7% or 28%). Under uniform random writes, FIFO cleaning
finds a fraction ``u`` of its victim's pages still valid, where ``u = exp(-(T/U)(1 - u))``
(Desnoyers 2012, eq. for LRW; Hu et al. 2009 give the same limit), so
``WA = 1 / (1 - u)`` (:func:`lrw_write_amplification`). Greedy does at least as well on
uniform traffic, and never worse than cleaning a block of average validity:
``WA <= 1 / (1 - U / T)`` (:func:`greedy_bound`).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np

__all__ = ["FlashGeometry", "PageFTL", "greedy_bound", "lrw_write_amplification",
           "steady_state_wa"]

GC_POLICIES = ("greedy", "fifo")


@dataclass(frozen=True)
class FlashGeometry:
    """Flash of ``blocks`` erase blocks of ``pages_per_block`` pages; the host sees
    ``user_pages`` of them (the rest is over-provisioning)."""

    blocks: int = 256
    pages_per_block: int = 64
    op: float = 0.28
    reserve_blocks: int = 2

    def __post_init__(self):
        if self.blocks < 4 or self.pages_per_block < 2:
            raise ValueError("FlashGeometry needs at least 4 blocks of at least 2 pages")
        if self.op <= 0:
            raise ValueError(f"FlashGeometry.op (over-provisioning, spare/user) must be > 0, "
                             f"got {self.op}")
        if self.reserve_blocks < 1:
            raise ValueError("FlashGeometry.reserve_blocks must be at least 1")
        if self.user_pages > (self.blocks - self.reserve_blocks - 1) * self.pages_per_block:
            raise ValueError(f"FlashGeometry: op={self.op} leaves no room for garbage "
                             "collection; give more over-provisioning or more blocks")

    @property
    def pages(self) -> int:
        return self.blocks * self.pages_per_block

    @property
    def user_pages(self) -> int:
        return int(self.pages / (1.0 + self.op))

    @property
    def effective_op(self) -> float:
        """Spare over user pages once the ``reserve_blocks`` kept free and the half-filled
        block being written (on average) are taken out: what the cleaner really has."""
        return (self.pages - (self.reserve_blocks + 0.5) * self.pages_per_block) / \
            self.user_pages - 1.0

    @property
    def utilisation(self) -> float:
        """``U / T``: the share of the flash the host's data fills when the drive is full."""
        return self.user_pages / self.pages


class PageFTL:
    """Page-level mapping, one write stream, garbage collection by ``gc`` (see the module doc)."""

    def __init__(self, geometry: FlashGeometry, gc: str = "greedy"):
        if gc not in GC_POLICIES:
            raise ValueError(f"unknown garbage collection '{gc}'; choose one of "
                             f"{', '.join(GC_POLICIES)}")
        self.geo = g = geometry
        self.gc = gc
        self.ppb = g.pages_per_block
        self.l2p = np.full(g.user_pages, -1, dtype=np.int64)
        self.p2l = np.full(g.pages, -1, dtype=np.int64)
        self.valid = np.zeros(g.blocks, dtype=np.int64)
        self.closed_at = np.full(g.blocks, -1, dtype=np.int64)  # order closed (for ties, FIFO)
        self.free: deque[int] = deque(range(g.blocks))
        self.closed: set[int] = set()
        self.order: deque[int] = deque()  # closed blocks, oldest first
        self._closes = 0
        self.active = self.free.popleft()
        self.next_page = 0
        self.host_writes = 0
        self.flash_writes = 0
        self.erases = 0

    # -- host commands ----------------------------------------------------------
    def write(self, lpn: int) -> None:
        """The host writes logical page ``lpn``."""
        self._invalidate(lpn)
        self._collect()
        self._program(lpn)
        self.host_writes += 1

    def trim(self, lpn: int) -> None:
        """The host says logical page ``lpn`` holds nothing (TRIM / DISCARD)."""
        self._invalidate(lpn)
        self.l2p[lpn] = -1

    def read(self, lpn: int) -> int:
        """The physical page holding ``lpn`` (-1 if never written or trimmed)."""
        return int(self.l2p[lpn])

    @property
    def write_amplification(self) -> float:
        return self.flash_writes / self.host_writes if self.host_writes else float("nan")

    # -- inside -----------------------------------------------------------------
    def _invalidate(self, lpn: int) -> None:
        if not 0 <= lpn < len(self.l2p):
            raise ValueError(f"logical page {lpn} is outside the drive (0..{len(self.l2p) - 1})")
        old = self.l2p[lpn]
        if old >= 0:
            self.p2l[old] = -1
            self.valid[old // self.ppb] -= 1

    def _program(self, lpn: int) -> None:
        if self.next_page == self.ppb:
            self._closes += 1
            self.closed_at[self.active] = self._closes
            self.closed.add(self.active)
            self.order.append(self.active)
            self.active = self.free.popleft()
            self.next_page = 0
        ppn = self.active * self.ppb + self.next_page
        self.next_page += 1
        self.p2l[ppn] = lpn
        self.l2p[lpn] = ppn
        self.valid[self.active] += 1
        self.flash_writes += 1

    def _victim(self) -> int:
        if self.gc == "fifo":
            while self.order[0] not in self.closed:
                self.order.popleft()
            return self.order[0]
        cands = np.fromiter(self.closed, dtype=np.int64, count=len(self.closed))
        key = self.valid[cands] * (self._closes + 1) + self.closed_at[cands]
        return int(cands[np.argmin(key)])

    def _collect(self) -> None:
        while len(self.free) < self.geo.reserve_blocks:
            v = self._victim()
            self.closed.discard(v)
            base = v * self.ppb
            for ppn in range(base, base + self.ppb):
                lpn = self.p2l[ppn]
                if lpn >= 0:
                    self.p2l[ppn] = -1
                    self.valid[v] -= 1
                    self._program(int(lpn))
            self.erases += 1
            self.closed_at[v] = -1
            self.free.append(v)


def lrw_write_amplification(op: float) -> float:
    """FIFO (LRW) cleaning under uniform random writes: ``1 / (1 - u)`` with
    ``u = exp(-(1 + op)(1 - u))`` (Desnoyers 2012; Hu et al. 2009), solved by bisection."""
    if op <= 0:
        raise ValueError(f"over-provisioning must be > 0, got {op}")
    a = 1.0 + op
    lo, hi = 0.0, 1.0 - 1e-12  # f(u) = exp(-a(1-u)) - u: > 0 at 0, < 0 just below 1
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if math.exp(-a * (1.0 - mid)) - mid > 0:
            lo = mid
        else:
            hi = mid
    return 1.0 / (1.0 - 0.5 * (lo + hi))


def greedy_bound(op: float) -> float:
    """Greedy never cleans a block fuller than the average: ``WA <= 1 / (1 - U/T)``."""
    if op <= 0:
        raise ValueError(f"over-provisioning must be > 0, got {op}")
    return 1.0 / (1.0 - 1.0 / (1.0 + op))


def steady_state_wa(op: float, gc: str = "greedy", blocks: int = 256, pages_per_block: int = 64,
                    pattern: str = "random", warm: float = 3.0, measure: float = 3.0,
                    seed: int = 0) -> dict:
    """Fill the drive once in order, write ``warm`` drive-fulls to reach the steady state,
    then measure WA over ``measure`` drive-fulls of ``random`` (uniform) or ``sequential``
    page writes."""
    if pattern not in ("random", "sequential"):
        raise ValueError(f"pattern must be 'random' or 'sequential', not '{pattern}'")
    ftl = PageFTL(FlashGeometry(blocks, pages_per_block, op), gc)
    u = ftl.geo.user_pages
    rng = np.random.default_rng(seed)
    for lpn in range(u):
        ftl.write(lpn)

    def stream(count: int, start: int):
        if pattern == "sequential":
            return (np.arange(count) + start) % u
        return rng.integers(0, u, size=count)

    w = int(warm * u)
    for lpn in stream(w, 0).tolist():
        ftl.write(lpn)
    h0, f0, e0 = ftl.host_writes, ftl.flash_writes, ftl.erases
    m = int(measure * u)
    for lpn in stream(m, w).tolist():
        ftl.write(lpn)
    host, flash = ftl.host_writes - h0, ftl.flash_writes - f0
    return {"op": op, "gc": gc, "pattern": pattern, "utilisation": ftl.geo.utilisation,
            "wa": flash / host, "erases_per_host_page": (ftl.erases - e0) / host,
            "host_writes": host}
