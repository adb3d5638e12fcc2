"""What durability costs: the write cache, FLUSH, FUA and ``fsync``, and the data at risk.

A drive with its write cache on (ATA "write cache enabled", SCSI WCE=1) reports a write done
when the data is in its buffer (:mod:`simcore.drive.cache`, ``write_back=True``). A program that
needs the data to survive a power cut calls ``fsync``, which the kernel turns into the
writes and then a FLUSH CACHE (Linux: REQ_PREFLUSH / REQ_FUA, Documentation/block/
writeback_cache_control.rst), or into a write with Force Unit Access where the drive
supports it. With the cache off every write is on the platter when it completes. This module
runs one program on each setting:

=====================  ==========================================================
``cache on``           write-back, no fsync: fast, and the last writes are at risk
``cache on + fsync``   write-back; every ``writes_per_fsync`` writes, a FLUSH
``FUA``                write-back; every write carries Force Unit Access
``cache off``          write-through (``hdparm -W0``): durable as it completes
=====================  ==========================================================

:func:`commit_loop` measures a transaction log's commit rate and latency on each;
:func:`at_risk` samples how much acknowledged data sits only in the buffer as time goes on
(what a power cut would lose; OSTEP ch. 37 calls write-back caching "dangerous" when order
or durability matters).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .drive.cache import FLUSH, CacheConfig
from .engine import run
from .metrics import percentiles
from .records import WRITE, Request
from .stack import Stack, as_mechanism
from .workloads import ClosedWorkload, Processes, as_rng

__all__ = ["SETTINGS", "at_risk", "commit_loop", "setting_cache"]

SETTINGS = ("cache on", "cache on + fsync", "FUA", "cache off")
KIB = 2  # sectors per KiB


def setting_cache(disk: Any, setting: str, destage: str = "sptf") -> CacheConfig:
    """The profile's buffer with the write cache of one setting (see the module doc)."""
    if setting not in SETTINGS:
        raise ValueError(f"unknown durability setting '{setting}'; choose one of "
                         f"{', '.join(SETTINGS)}")
    prof = as_mechanism(disk).profile
    return CacheConfig.from_profile(prof, write_back=setting != "cache off", destage=destage)


def commit_loop(disk: Any = "modern7200", setting: str = "cache on + fsync", commits: int = 200,
                writes_per_fsync: int = 1, size_kib: float = 4.0, pattern: str = "random",
                region_gib: float = 0.0, destage: str = "sptf", seed: int = 0) -> dict:
    """One program committing transactions back to back: ``writes_per_fsync`` writes, then
    (``cache on + fsync``) a FLUSH; each commit waits for the last.

    ``pattern``: ``random`` (each write at a random place in the first ``region_gib``, or
    anywhere when 0) or ``append`` (a log: each write follows the one before). Returns
    commits per second, the commit latency's mean and percentiles (ms), and whether a commit
    is on the platter when it returns (``durable``).
    """
    if commits < 1 or writes_per_fsync < 1:
        raise ValueError("commits and writes_per_fsync must be at least 1")
    if pattern not in ("random", "append"):
        raise ValueError(f"pattern must be 'random' or 'append', not '{pattern}'")
    mech = as_mechanism(disk)
    cache = setting_cache(mech, setting, destage)
    n = max(1, round(size_kib * KIB))
    span = mech.layout.capacity - n
    if region_gib > 0:
        span = min(span, int(region_gib * 2 ** 21))
    flush = setting == "cache on + fsync"
    fua = setting == "FUA"
    per = writes_per_fsync + (1 if flush else 0)
    base = mech.layout.capacity // 3

    def make(client: int, k: int, rng: np.random.Generator):
        c, j = divmod(k, per)
        if j == writes_per_fsync:
            return (FLUSH, 0, 1)
        if pattern == "append":
            return (WRITE, base + (c * writes_per_fsync + j) * n, n, fua)
        return (WRITE, int(rng.integers(0, span)), n, fua)

    wl = ClosedWorkload(1, commits * per, make, seed=seed, name=f"commit-{setting}")
    res = run(Stack(mech, cache=cache), wl)
    recs = sorted(res.records, key=lambda r: r.id)
    first = np.array([recs[i * per].arrival_ms for i in range(commits)])
    last = np.array([recs[i * per + per - 1].finish_ms for i in range(commits)])
    lat = last - first
    end = float(last[-1])
    out = {"setting": setting, "pattern": pattern, "writes_per_fsync": writes_per_fsync,
           "commits_per_s": commits / end * 1000.0, "mean_ms": float(lat.mean()),
           "durable": setting != "cache on"}
    out.update({f"{k}_ms": v for k, v in percentiles(lat, (50, 99)).items()})
    return out


def at_risk(disk: Any = "modern7200", rate_per_s: float = 100.0, duration_ms: float = 2000.0,
            size_kib: float = 4.0, sample_ms: float = 5.0, destage: str = "sptf",
            write_back: bool = True, seed: int = 0) -> dict:
    """Random writes arriving at ``rate_per_s`` (Poisson) for ``duration_ms``: how much
    acknowledged data is only in the buffer, sampled every ``sample_ms``.

    Returns the sample times and KiB at risk, their mean and maximum, the writes' mean
    response time, and how long after the last write the buffer was clean (``drain_ms``).
    """
    if rate_per_s <= 0 or duration_ms <= 0 or sample_ms <= 0:
        raise ValueError("rate_per_s, duration_ms and sample_ms must be positive")
    mech = as_mechanism(disk)
    cache = CacheConfig.from_profile(mech.profile, write_back=write_back, destage=destage)
    rng = as_rng(seed)
    n = max(1, round(size_kib * KIB))
    gaps = rng.exponential(1000.0 / rate_per_s,
                          size=int(rate_per_s * duration_ms / 1000 * 2) + 8)
    times = np.cumsum(gaps)
    times = times[times < duration_ms]
    lbas = rng.integers(0, mech.layout.capacity - n, size=len(times))
    reqs = [Request(i, float(t), WRITE, int(lba), n) for i, (t, lba) in
            enumerate(zip(times, lbas, strict=True))]
    samples_t: list[float] = []
    samples_kib: list[float] = []
    state: dict[str, float] = {}

    def start(built):
        env, drive = built.env, built.drives[0]
        cache_obj = drive.cache

        def feed():
            for r in reqs:
                if r.arrival_ms > env.now:
                    yield env.timeout(r.arrival_ms - env.now)
                drive.submit(r)

        def sample():
            while True:
                dirty = cache_obj.dirty_at(env.now) if cache_obj is not None else 0
                samples_t.append(env.now)
                samples_kib.append(dirty / KIB)
                if env.now >= duration_ms and dirty == 0 and not drive.pending and len(
                        drive.completed) == len(reqs):
                    state["clean_ms"] = env.now
                    return
                yield env.timeout(sample_ms)

        env.process(feed())
        return env.process(sample())

    res = run(Stack(mech, cache=cache), Processes(start, name="at-risk"))
    kib = np.array(samples_kib)
    resp = res.column("response_ms") if len(res) else np.zeros(1)
    last = float(times[-1]) if len(times) else 0.0
    return {"t_ms": samples_t, "kib": samples_kib, "mean_kib": float(kib.mean()),
            "max_kib": float(kib.max()), "writes": len(reqs),
            "mean_response_ms": float(np.mean(resp)),
            "drain_ms": state.get("clean_ms", float("nan")) - last,
            "write_back": write_back}
