"""The model's prediction of a fio job on a served drive: the same drive, the same workload, offline.

A lab grades a student's fio measurement of their served drive against what
the simulator predicts for that drive (issue 16, item 6). The server runs one
:class:`~simcore.stack.Stack` in real time (:mod:`simcore.serve.adapter`: the
profile's firmware, its buffer unless ``--no-cache``, the drive's own queue
policy); :func:`fio_job` runs that same stack in simulated time under fio's
workload: ``iodepth`` requests always outstanding (a closed loop with no think
time, as fio's engine refills its queue at once), ``bs``-sized reads either in
order from ``offset`` (``rw=read``) or at uniformly drawn block-aligned offsets
over the whole drive (``rw=randread``; fio aligns random offsets to the block
size by default). It returns what fio reports: reads per second, bandwidth and
mean latency.

The emulator adds what the model leaves out, the host's turnaround between one
reply and the next request (tens of microseconds over a Unix socket); the lab
tolerances are set from measured spreads, not from this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..disk.access import Mechanism
from ..disk.profile import DiskProfile
from ..engine import run
from ..stack import Stack
from ..workloads import ClosedWorkload

SECTOR = 512
PATTERNS = ("read", "randread")


@dataclass(frozen=True)
class Predicted:
    """The model's counterpart of fio's read section for one job."""

    iops: float
    mb_s: float
    mean_ms: float
    requests: int


def served_stack(profile: DiskProfile, scheduler: Any = "fcfs", cache: bool = True) -> Stack:
    """The stack ``python -m simcore serve`` runs for these options (see the adapter)."""
    return Stack(Mechanism(profile), scheduler=scheduler, firmware=cache,
                 cache=None if cache else False)


def fio_job(profile: DiskProfile, rw: str, bs_kib: int, iodepth: int = 1, *,
            scheduler: Any = "fcfs", cache: bool = True, offset_bytes: int = 0,
            requests: int = 1200, warmup: int | None = None, seed: int = 0,
            runtime_s: float | None = None, repeats: int = 1) -> Predicted:
    """Simulate fio's ``rw`` job of ``bs_kib`` KiB reads at ``iodepth`` on the served drive.

    With ``runtime_s`` the job runs like fio's ``--time_based --runtime``: from
    an idle drive, counting what completes in that many seconds (a queue
    policy's start-up transient included, as fio includes it). Otherwise
    ``requests`` are measured after ``warmup`` (default: one queue's worth,
    ``iodepth``). ``repeats`` runs draw other random offsets (seeds ``seed``,
    ``seed + 1``, ...) and the figures are averaged: fio's own sample is one
    draw, the prediction is the mean. Raises ValueError naming the field for
    bad input.
    """
    if repeats < 1 or int(repeats) != repeats:
        raise ValueError(f"repeats must be a whole number >= 1 (got {repeats!r})")
    if repeats > 1:
        runs = [fio_job(profile, rw, bs_kib, iodepth, scheduler=scheduler, cache=cache,
                        offset_bytes=offset_bytes, requests=requests, warmup=warmup,
                        seed=seed + k, runtime_s=runtime_s) for k in range(int(repeats))]
        return Predicted(*(float(np.mean([getattr(r, f) for r in runs]))
                           for f in ("iops", "mb_s", "mean_ms")),
                         sum(r.requests for r in runs))
    if runtime_s is not None and runtime_s <= 0:
        raise ValueError(f"runtime_s must be > 0 (got {runtime_s!r})")
    if rw not in PATTERNS:
        raise ValueError(f"rw must be one of {PATTERNS} (got {rw!r})")
    if bs_kib <= 0 or int(bs_kib) != bs_kib:
        raise ValueError(f"bs_kib must be a positive whole number of KiB (got {bs_kib!r})")
    if iodepth < 1 or int(iodepth) != iodepth:
        raise ValueError(f"iodepth must be a whole number >= 1 (got {iodepth!r})")
    if requests < 1:
        raise ValueError(f"requests must be >= 1 (got {requests!r})")
    stack = served_stack(profile, scheduler, cache)
    cap = stack.mechanism.layout.capacity
    sectors = int(bs_kib) * 1024 // SECTOR
    if offset_bytes < 0 or offset_bytes % SECTOR:
        raise ValueError(f"offset_bytes must be a non-negative multiple of {SECTOR}")
    first = offset_bytes // SECTOR
    warm = iodepth if warmup is None else int(warmup)
    total = requests + warm
    per_client = -(-total // iodepth)
    blocks = cap // sectors

    if rw == "read":
        # one stream in order: with depth d the d outstanding requests are the next d blocks
        counter = iter(range(per_client * iodepth))

        def make(c: int, k: int, rng: np.random.Generator) -> tuple[str, int, int]:
            return "R", first + next(counter) * sectors, sectors
    else:
        def make(c: int, k: int, rng: np.random.Generator) -> tuple[str, int, int]:
            return "R", int(rng.integers(0, blocks)) * sectors, sectors

    if runtime_s is not None:
        end_ms = float(runtime_s) * 1000.0
        per_client = int(end_ms / 0.05 / iodepth) + 2  # more than can finish (issued lazily)
        if rw == "read":
            counter = iter(range(per_client * iodepth))
        res = run(stack, ClosedWorkload(int(iodepth), per_client, make, 0.0, seed),
                  until_ms=end_ms)
        done = [r for r in res.records if r.finish_ms <= end_ms]
        if not done:
            raise ValueError("nothing completed in runtime_s (raise it)")
        iops = len(done) / end_ms * 1000.0
        return Predicted(iops=iops, mb_s=iops * sectors * SECTOR / 1e6,
                         mean_ms=float(np.mean([r.finish_ms - r.arrival_ms for r in done])),
                         requests=len(done))
    res = run(stack, ClosedWorkload(int(iodepth), per_client, make, 0.0, seed))
    recs = sorted(res.records, key=lambda r: r.finish_ms)
    if len(recs) <= warm:
        raise ValueError("too few requests completed to measure (raise requests)")
    t0 = recs[warm - 1].finish_ms if warm else 0.0
    kept = recs[warm:]
    span = kept[-1].finish_ms - t0
    iops = len(kept) / span * 1000.0
    return Predicted(iops=iops, mb_s=iops * sectors * SECTOR / 1e6,
                     mean_ms=float(np.mean([r.finish_ms - r.arrival_ms for r in kept])),
                     requests=len(kept))


def ratio(profile: DiskProfile, a: dict[str, Any], b: dict[str, Any],
          metric: str = "iops") -> float:
    """``metric`` of job ``a`` over job ``b`` (each a dict of :func:`fio_job` keywords)."""
    return getattr(fio_job(profile, **a), metric) / getattr(fio_job(profile, **b), metric)
