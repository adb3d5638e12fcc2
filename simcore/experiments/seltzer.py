"""Seltzer, Chen & Ousterhout 1990 on the Fujitsu Eagle: scheduling against queue length.

Seed 000 (Gray 2000) §3, summarising Seltzer et al.: FCFS, SSF (SSTF), SCAN,
C-SCAN, STF, GSTF and WSTF on a simulated Fujitsu M2361A Eagle with "task
queues of varying lengths ranging from one to 100". The seed does not say how
requests arrive; as note 000 §3.1 suggests, this is a **closed system that
holds the queue at N requests**: each completion brings a new request at a
uniformly random place on the disk. Request size is not in the seed either:
4 KiB (8 sectors, 2.0 ms of transfer on the Eagle) is assumed.

Measured per policy and queue length: the mean I/O (service) time, from the
moment the drive picks a request to its completion, and the maximum response
time, from arrival to completion, over requests that arrive after a warm-up.
The queue stays full until every measured request is served, so a starved
request is counted however long it waits.
"""

from __future__ import annotations

from concurrent.futures import Executor
from typing import Any

import numpy as np

from ..disk.access import Mechanism, as_mechanism
from ..disk.profile_loader import load_disk
from ..engine import point_seed, run, sweep
from ..records import READ, Request
from ..sched import GSTF, WSTF, get_scheduler
from ..stack import stack
from ..workloads import Processes
from . import pool_unless_given
from .targets import Source, Target, between, evaluate, holds

NAME = "seltzer"
DESCRIPTION = ("Seltzer et al. 1990 (seed 000 §3): mean I/O time and maximum response time "
               "against queue length for FCFS, SSTF, SCAN, C-SCAN, STF, GSTF and WSTF on the "
               "Fujitsu Eagle")

DISK = "fujitsu_eagle"
SIZE_KIB = 4.0
#: WSTF's M and GSTF's group size are not in the seed: assumed, and shown in the chapter.
WSTF_M_MS = 6000.0
GSTF_GROUP_CYLINDERS = 50

POLICIES = ("FCFS", "SSTF", "SCAN", "C-SCAN", "STF", "GSTF", "WSTF")

_NOTE = "000_gray_dma.md"
TARGETS = (
    Target("checks.fcfs_worst_vs_predicted_pct",
           "FCFS: largest departure of the mean I/O time from 18 + 8.3 ms + transfer, any queue",
           0.0, between(None, 10.0),
           Source("000", "§3.2 (Seltzer et al.)", _NOTE, 677,
                  "FCFS mean I/O time = 18 + 8.3 ms (+ transfer), independent of queue length",
                  issue="issue 7: ±10%"),
           note_bound=None,
           tolerance_reason="the note gives 'equal to ... 18 + 8.3 ms' with no tolerance; "
                            "±10% is issue 7's", units="%"),
    Target("checks.wstf_vs_stf_abs_pct", "WSTF's mean I/O time against STF's, at queue 100",
           "within 1 to 2%", between(None, 2.0),
           Source("000", "§3.2 (Seltzer et al.)", _NOTE, 677,
                  "WSTF's mean is within 1–2% of STF's"),
           note_bound=between(None, 2.0), units="%"),
    Target("checks.stf_max_grows", "STF's maximum response time grows with the queue",
           True, holds(),
           Source("000", "§3.2 (Seltzer et al.)", _NOTE, 677,
                  "STF's maximum response time grows sharply with queue length",
                  issue="issue 7: at queue 100 above the second queue length, above queue 1"),
           note_bound=holds()),
    Target("checks.stf_max_above_wstf_max", "STF's maximum response above WSTF's at queue 100",
           True, holds(),
           Source("000", "§3.2, Figure 1 (WSTF's aging)", _NOTE, 218, "applies an aging function",
                  issue="issue 7"),
           note_bound=holds()),
    Target("checks.stf_below_sstf_below_fcfs", "mean I/O time at queue 100: STF < SSTF < FCFS",
           True, holds(),
           Source("000", "§3.2 (Seltzer et al.)", _NOTE, 212, "**FCFS**", issue="issue 7"),
           note_bound=holds()),
    Target("checks.scan_vs_sstf_abs_pct", "SCAN's mean I/O time against SSTF's, at queue 100",
           "very similar", between(None, 5.0),
           Source("000", "§3.2 (Seltzer et al.)", _NOTE, 214,
                  "performance of SCAN is very similar to that of SSF"),
           note_bound=None, tolerance_reason="'very similar' has no number; 5% is ours",
           units="%"),
)


def make_policy(name: str):
    """A fresh policy for one of the experiment's labels (the seed's names)."""
    if name == "GSTF":
        return GSTF(group_cylinders=GSTF_GROUP_CYLINDERS)
    if name == "WSTF":
        return WSTF(max_response_ms=WSTF_M_MS)
    return get_scheduler({"FCFS": "fcfs", "SSTF": "sstf", "SCAN": "scan", "C-SCAN": "cscan",
                          "STF": "sptf"}.get(name, name))


def constant_queue(disk: str | Mechanism, policy: Any, queue_length: int, measured: int = 2000,
                   warmup: int | None = None, size_kib: float = SIZE_KIB, seed: int = 0,
                   max_requests: int | None = None) -> dict[str, Any]:
    """Hold the drive's queue at ``queue_length`` random requests; measure a window of them.

    Requests number ``0, 1, 2, ...`` in arrival order; those numbered
    ``warmup .. warmup + measured - 1`` are measured. New requests keep the
    queue full until every measured request is served (or ``max_requests``
    have been issued, when the rest are reported as ``unfinished``).
    Returns the measured :class:`~simcore.records.Completed` records, the
    unfinished requests' waiting times so far, and the drive's busy time.
    """
    mech = as_mechanism(disk)
    n = int(queue_length)
    if n < 1:
        raise ValueError(f"queue length must be at least 1, got {queue_length}")
    warmup = max(200, 2 * n) if warmup is None else int(warmup)
    last_measured = warmup + measured
    cap = max_requests if max_requests is not None else 30 * (warmup + measured) + n
    sectors = max(1, round(size_kib * 2))
    slots = (mech.layout.capacity - sectors) // sectors + 1
    rng = np.random.default_rng(seed)
    lbas = iter((rng.integers(0, slots, size=cap, dtype=np.int64) * sectors).tolist())
    state = {"issued": 0, "left": measured}
    records = []
    out: dict[str, Any] = {}

    def start(built) -> None:
        env, drive = built.env, built.top

        def issue() -> None:
            i = state["issued"]
            if i >= cap:
                return
            state["issued"] = i + 1
            drive.submit(Request(i, env.now, READ, next(lbas), sectors))

        def done(rec) -> None:
            if warmup <= rec.id < last_measured:
                records.append(rec)
                state["left"] -= 1
            if state["left"] > 0:
                issue()

        built.on_complete(done)
        out["drive"] = drive
        for _ in range(n):
            issue()

    # the seed's model: the mechanism alone (Seltzer et al.'s simulated disk has no buffer)
    res = run(stack(mech, scheduler=policy, firmware=False), Processes(start, "constant-queue"))
    drive, end = out["drive"], res.meta["end_ms"]
    unfinished = [end - r.arrival_ms for r in drive.pending if warmup <= r.id < last_measured]
    return {"records": records, "unfinished_wait_ms": unfinished, "busy_ms": drive.busy_ms,
            "end_ms": end}


def _point(name: str, n: int, measured: int, seed: int) -> tuple[float, float, float]:
    out = constant_queue(DISK, make_policy(name), n, measured=measured, seed=seed)
    recs = out["records"]
    service = np.array([r.finish_ms - r.start_ms for r in recs])
    response = [r.response_ms for r in recs] + out["unfinished_wait_ms"]
    return float(service.mean()), float(max(response)), float(np.mean([r.response_ms
                                                                       for r in recs]))


def reproduce(quick: bool = False, seed: int = 0, executor: Executor | None = None) -> dict:
    """Mean I/O time and maximum response time for each policy and queue length.

    The points run through :func:`simcore.sweep` (on ``executor`` if given, else this
    machine's cores). Each point's requests are drawn from a seed of its queue length alone
    (:func:`simcore.engine.point_seed`): every policy sees the same requests at a given queue
    length, whatever order the points run in.
    """
    queue_lengths = [1, 10, 50, 100] if quick else [1, 5, 10, 25, 50, 75, 100]
    measured = 500 if quick else 2500
    mech = Mechanism(load_disk(DISK))
    transfer_ms = max(1, round(SIZE_KIB * 2)) * mech.rev_ms / 67
    points = [dict(name=name, n=n, measured=measured,
                   seed=point_seed(seed, {"queue_length": n}))
              for name in POLICIES for n in queue_lengths]
    with pool_unless_given(executor, len(points)) as ex:
        rows = iter(sweep(_point, points, executor=ex, progress=False))
    mean_io: dict[str, list[float]] = {}
    max_resp: dict[str, list[float]] = {}
    mean_resp: dict[str, list[float]] = {}
    for name in POLICIES:
        mean_io[name], max_resp[name], mean_resp[name] = [], [], []
        for _ in queue_lengths:
            io, mx, mr = next(rows)
            mean_io[name].append(round(io, 3))
            max_resp[name].append(round(mx, 1))
            mean_resp[name].append(round(mr, 1))
    last = -1
    pred = 26.3 + transfer_ms
    res = {
        "queue_lengths": queue_lengths,
        "mean_io_ms": mean_io,
        "max_response_ms": max_resp,
        "mean_response_ms": mean_resp,
        "disk": DISK,
        "request_kib": SIZE_KIB,
        "transfer_ms": round(transfer_ms, 3),
        "wstf_m_ms": WSTF_M_MS,
        "gstf_group_cylinders": GSTF_GROUP_CYLINDERS,
        "measured_requests": measured,
        "checks": {
            "fcfs_flat_pct": round(100 * (max(mean_io["FCFS"]) - min(mean_io["FCFS"]))
                                   / float(np.mean(mean_io["FCFS"])), 2),
            "fcfs_vs_paper_pct": round(100 * (float(np.mean(mean_io["FCFS"]))
                                              / (26.3 + transfer_ms) - 1), 2),
            "wstf_vs_stf_pct": round(100 * (mean_io["WSTF"][last] / mean_io["STF"][last] - 1), 2),
            "stf_max_over_wstf_max": round(max_resp["STF"][last] / max_resp["WSTF"][last], 2),
            "fcfs_worst_vs_predicted_pct": round(max(abs(100 * (v / pred - 1))
                                                     for v in mean_io["FCFS"]), 2),
            "wstf_vs_stf_abs_pct": round(abs(100 * (mean_io["WSTF"][last]
                                                    / mean_io["STF"][last] - 1)), 2),
            # issue 7's reading: the largest queue's maximum above the second's, above the first's
            # (the maximum of one run is a single extreme, too noisy to ask for a monotone curve)
            "stf_max_grows": bool(max_resp["STF"][last] > max_resp["STF"][1]
                                  > max_resp["STF"][0]),
            "stf_max_above_wstf_max": bool(max_resp["STF"][last] > max_resp["WSTF"][last]),
            "stf_below_sstf_below_fcfs": bool(mean_io["STF"][last] < mean_io["SSTF"][last]
                                              < mean_io["FCFS"][last]),
            "scan_vs_sstf_abs_pct": round(abs(100 * (mean_io["SCAN"][last]
                                                     / mean_io["SSTF"][last] - 1)), 2),
        },
        "paper": {
            "source": "Gray 2000 §3.2 after Seltzer, Chen & Ousterhout 1990",
            "fcfs_mean_io_ms": "18 ms seek + 8.3 ms latency = 26.3 ms plus transfer, "
                               "independent of queue length",
            "wstf": "average I/O time within 1 to 2 percent of STF's",
            "stf": "maximum response time increases dramatically as the queue length increases",
            "sstf_scan": "performance of SCAN is very similar to that of SSF",
            "cscan": "promotes fairness and provides a low response time variance",
            "fcfs_predicted_ms": round(26.3 + transfer_ms, 2),
        },
    }
    res["targets"] = evaluate(TARGETS, res, quick)
    return res


def race(policies=("fcfs", "sstf", "clook", "sptf", "wstf"), disk: str = DISK, n: int = 400,
         rate_per_s: float = 40.0, size_kib: float = SIZE_KIB, seed: int = 0) -> dict[str, list]:
    """One random open workload served by several policies; records per policy.

    The same requests (Poisson arrivals, uniform over the disk) for every
    policy, so differences are the policy's alone. Labels may be registry
    names or the experiment's (``"WSTF"`` uses this experiment's M).
    """
    from ..engine import run
    from ..workloads import random_open

    mech = Mechanism(load_disk(disk))
    wl = random_open(mech.layout.capacity, n=n, rate_per_s=rate_per_s, size_kib=size_kib,
                     seed=seed)
    out = {}
    for name in policies:
        pol = make_policy(name) if name in POLICIES else get_scheduler(name)
        out[name] = run(mech, wl, scheduler=pol).records
    return out
