"""A timing scan from LBA 0 of a real disk, with the host's and the drive's caches defeated.

The scan times reads of growing size from LBA 0 and keeps the minimum over
several tries (random rotational phase); a track boundary shows as a step
(Schindler et al. 2002 §4.1.1; note 002 §3.1). Every try must come from the
platter, not from a cache:

- the host's page cache: the reads use ``O_DIRECT`` (the kernel neither
  caches them nor reads ahead);
- the drive's buffer: it holds several segments, each the data of a recent
  stream plus its read-ahead (64 to 256 MB on today's drives), so one read
  elsewhere does not evict LBA 0. As the paper did ("interleaves 100
  parallel extraction operations to widespread disk locations, such that the
  cache is flushed each time we return to block S"), each try is preceded by
  a *flush*: reads in ``regions`` distinct, fresh places spread over the far
  half of the disk (64 by default; the paper interleaved 100), together at
  least ``cache_bytes`` (the buffer size the drive reports, else 256 MiB), so
  that a buffer replaced by segments (least recently used) or by bytes has
  cycled through all of them before LBA 0 is read again.

:func:`cache_check` says whether the flush works on a given drive: a read of
LBA 0 just after a flush must take a seek and a rotation, an immediate
re-read (a hit) far less.
"""

from __future__ import annotations

import mmap
import os
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

__all__ = ["DEFAULT_CACHE_BYTES", "FLUSH_REGIONS", "Scan", "cache_check", "direct_reader",
           "estimate_s", "flush_plan", "flush_read_bytes", "scan"]

FLUSH_REGIONS = 64  # distinct places a flush reads (the paper interleaved 100)
DEFAULT_CACHE_BYTES = 256 << 20  # when the drive does not report its buffer: the large end

Reader = Callable[[int, int], float]  # (offset bytes, length bytes) -> milliseconds


@dataclass
class Scan:
    """Minimum times of the reads from LBA 0, with what the flush between tries did."""

    sizes: list[int]  # blocks
    times_ms: list[float]
    tries: int
    regions: int
    flush_bytes: int  # read between two tries
    reads: int = 0  # every read made, the flushes included
    notes: list[str] = field(default_factory=list)


def flush_read_bytes(block: int, regions: int = FLUSH_REGIONS,
                     cache_bytes: int = DEFAULT_CACHE_BYTES) -> int:
    """Bytes of each flush read: ``cache_bytes / regions``, rounded up to whole blocks."""
    return -(-cache_bytes // regions // block) * block


def flush_plan(rng: random.Random, device_bytes: int, block: int, regions: int = FLUSH_REGIONS,
               cache_bytes: int = DEFAULT_CACHE_BYTES) -> list[tuple[int, int]]:
    """``regions`` reads ``(offset, length)`` in bytes, one at a random block of each of
    ``regions`` equal slices of the far half of the device; together >= ``cache_bytes``."""
    length = flush_read_bytes(block, regions, cache_bytes)
    lo = device_bytes // 2 // block * block
    slice_bytes = (device_bytes - lo) // regions // block * block
    if slice_bytes < length:
        raise ValueError(f"the far half of a {device_bytes:,}-byte device cannot hold {regions} "
                         f"distinct reads of {length:,} bytes")
    return [(lo + k * slice_bytes + rng.randrange(0, (slice_bytes - length) // block + 1) * block,
             length) for k in range(regions)]


def scan(read: Reader, device_bytes: int, sizes_blocks: list[int], block: int, tries: int = 6,
         regions: int = FLUSH_REGIONS, cache_bytes: int = DEFAULT_CACHE_BYTES, seed: int = 0,
         progress: Callable[[str], None] | None = None) -> Scan:
    """Minimum time of reads of each size from LBA 0, each try after a flush.

    The tries go round by round over the sizes in a shuffled order, so a slow
    spell of the machine spreads over all sizes instead of one.
    """
    rng = random.Random(seed)
    best = {n: float("inf") for n in sizes_blocks}
    reads = 0
    for t in range(tries):
        order = list(sizes_blocks)
        rng.shuffle(order)
        for n in order:
            for off, length in flush_plan(rng, device_bytes, block, regions, cache_bytes):
                read(off, length)
            reads += regions + 1
            best[n] = min(best[n], read(0, n * block))
        if progress:
            progress(f"try {t + 1}/{tries} done")
    flush = flush_read_bytes(block, regions, cache_bytes) * regions
    return Scan(list(sizes_blocks), [best[n] for n in sizes_blocks], tries, regions, flush, reads)


def cache_check(read: Reader, device_bytes: int, block: int, tries: int = 5,
                regions: int = FLUSH_REGIONS, cache_bytes: int = DEFAULT_CACHE_BYTES,
                seed: int = 1) -> dict:
    """Minimum time of a one-block read of LBA 0 after a flush (``flushed_ms``) and of an
    immediate re-read (``cached_ms``). ``defeated`` is True when the flushed read is at least
    ten times the re-read: a seek and a rotation, not a copy from the buffer."""
    rng = random.Random(seed)
    flushed, cached = float("inf"), float("inf")
    for _ in range(tries):
        for off, length in flush_plan(rng, device_bytes, block, regions, cache_bytes):
            read(off, length)
        flushed = min(flushed, read(0, block))
        cached = min(cached, read(0, block))
    return {"flushed_ms": flushed, "cached_ms": cached, "defeated": flushed >= 10 * cached}


def estimate_s(sizes_blocks: list[int], block: int, tries: int = 6,
               regions: int = FLUSH_REGIONS, cache_bytes: int = DEFAULT_CACHE_BYTES,
               positioning_ms: float = 12.0, media_mb_s: float = 150.0) -> float:
    """Rough seconds a scan takes on a hard disk (``positioning_ms`` a read, ``media_mb_s``)."""
    per_try = (regions + 1) * positioning_ms / 1000 + cache_bytes / (media_mb_s * 1e6)
    data = sum(n * block for n in sizes_blocks) * tries / (media_mb_s * 1e6)
    return len(sizes_blocks) * tries * per_try + data


@contextmanager
def direct_reader(device: str | os.PathLike, max_bytes: int) -> Iterator[Reader]:
    """A :data:`Reader` over ``device`` opened read-only with O_DIRECT (no page cache, no
    kernel read-ahead); each call times one ``preadv`` with ``perf_counter_ns``."""
    fd = os.open(device, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, max_bytes)  # page-aligned, as O_DIRECT wants
    view = memoryview(buf)

    def read(offset: int, length: int) -> float:
        t0 = time.perf_counter_ns()
        os.preadv(fd, [view[:length]], offset)
        return (time.perf_counter_ns() - t0) / 1e6

    try:
        yield read
    finally:
        view.release()
        buf.close()
        os.close(fd)
