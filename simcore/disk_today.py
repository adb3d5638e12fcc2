"""Runs for the chapter "Sectors and shingles" and lab 7: today's sector formats and SMR.

Small, seeded helpers over :func:`simcore.engine.run` that the chapter, the lab's solutions and
the tests share, so a number in the book is the number a test checked. Mechanisms live in
:mod:`simcore.sectors` (Advanced Format) and :mod:`simcore.smr` (shingled drives); nothing
here draws.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .drive.smr import DriveManaged, HostManaged
from .engine import run
from .results import RunResult
from .stack import Stack, as_mechanism
from .workloads import ClosedWorkload


def partition_writes(disk: Any, start_lba: int, n: int = 300, size_kib: float = 4.0,
                     seed: int = 0, span_sectors: int | None = None) -> RunResult:
    """Random writes of ``size_kib`` blocks inside a partition that starts at ``start_lba``.

    A file system in the partition writes whole blocks at multiples of the block size from the
    partition's start, so the blocks' LBAs are ``start_lba + k * block``: aligned to 4 KiB
    physical sectors only if ``start_lba`` is. One request at a time (a closed loop), the bare
    mechanism (``firmware=False``: no write-back cache to hide the cost), over the first
    ``span_sectors`` of the partition (the whole disk by default).
    """
    mech = as_mechanism(disk)
    block = max(1, round(size_kib * 2))
    span = span_sectors or (mech.layout.capacity - start_lba)
    slots = (span - block) // block

    def make(client: int, k: int, rng: np.random.Generator) -> tuple[str, int, int]:
        return "W", start_lba + block * int(rng.integers(0, slots)), block

    wl = ClosedWorkload(1, n, make, 0.0, seed, name=f"random {size_kib:g} KiB writes at "
                                                     f"partition start {start_lba}")
    return run(mech, wl, firmware=False)


def write_rate_series(result: RunResult, window_s: float = 5.0) -> tuple[np.ndarray, np.ndarray]:
    """Written MB/s in windows of ``window_s`` seconds: (window end times in s, MB/s)."""
    f = result.column("finish_ms") / 1000.0
    size = result.column("sectors") * 512 / 1e6
    if not len(f):
        return np.array([]), np.array([])
    edges = np.arange(0.0, f.max() + window_s, window_s)
    mb, _ = np.histogram(f, bins=edges, weights=size)
    return edges[1:], mb / window_s


def smr_sustained_writes(disk: Any = "st5000as0011", pattern: str = "random",
                         size_kib: float = 1024.0, seconds: float = 300.0, seed: int = 0,
                         **overrides: Any) -> dict[str, Any]:
    """Write without pause for ``seconds`` to a drive-managed SMR drive; what happened.

    ``pattern`` is ``random`` (blocks anywhere on the disk) or ``sequential`` (from LBA 0 on).
    ``overrides`` go to :class:`~simcore.smr.DriveManaged` (``media_cache_mib=``, ...).
    Returns the run, the translation layer (its ``stats``), the write at which the media
    cache first forced a cleaning, when that was (s), and the MB/s before and after it.
    """
    if pattern not in ("random", "sequential"):
        raise ValueError(f"pattern must be 'random' or 'sequential', not {pattern!r}")
    stl = DriveManaged(disk, **overrides)
    block = max(1, round(size_kib * 2))
    slots = stl.capacity // block - 1

    def make(client: int, k: int, rng: np.random.Generator) -> tuple[str, int, int]:
        lba = block * (int(rng.integers(0, slots)) if pattern == "random" else k % slots)
        return "W", lba, block

    per = int(seconds * 1000.0 / 0.01)  # more than can finish: the run stops at ``seconds``
    wl = ClosedWorkload(1, per, make, 0.0, seed, name=f"{pattern} {size_kib:g} KiB writes")
    res = run(Stack(stl.mechanism, service=stl, firmware=False), wl, until_ms=seconds * 1000.0)
    fill = stl.stats.first_forced_at_write
    f = res.column("finish_ms")
    out: dict[str, Any] = {"result": res, "stl": stl, "fill_write": fill,
                           "writes": len(res), "block_sectors": block}
    mb = block * 512 / 1e6
    if fill is not None and fill - 1 <= len(f):
        t_fill = float(f[fill - 2]) if fill >= 2 else 0.0
        out["fill_s"] = t_fill / 1000.0
        out["mb_s_before"] = (fill - 1) * mb / (t_fill / 1000.0) if t_fill > 0 else float("nan")
        after = len(f) - (fill - 1)
        span = (float(f[-1]) - t_fill) / 1000.0
        out["mb_s_after"] = after * mb / span if after > 0 and span > 0 else float("nan")
    else:
        out["fill_s"] = None
        out["mb_s_before"] = len(f) * mb / (float(f[-1]) / 1000.0) if len(f) else float("nan")
        out["mb_s_after"] = None
    return out


def zoned_update_rates(disk: Any = "hm_smr14", updates: int = 2048,
                       batches: tuple[int, ...] = (1, 16, 64, 256), in_place: int = 400,
                       seed: int = 0) -> dict[str, float]:
    """4 KiB random updates per second: in place on the same mechanics without zones, and
    log-structured on the zoned drive with ``batch`` updates per append."""
    from .placement.zone_log import log_structured
    from .workloads import from_tuples

    rng = np.random.default_rng(seed)
    hm = HostManaged(disk)
    blocks = rng.integers(0, hm.capacity // 8, size=updates)
    out: dict[str, float] = {}
    wl = from_tuples([(0.0, "W", int(b) * 8, 8) for b in blocks[:in_place]])
    r = run(hm.mechanism, wl, firmware=False)  # the bare mechanism: a conventional drive
    out["in place (conventional)"] = in_place / (r.meta["end_ms"] / 1000.0)
    for batch in batches:
        hm = HostManaged(disk)
        wl, _ = log_structured(hm, blocks, batch)
        r = run(Stack(hm.mechanism, service=hm, firmware=False), wl)
        out[f"appends of {batch}"] = updates / (r.meta["end_ms"] / 1000.0)
    return out
