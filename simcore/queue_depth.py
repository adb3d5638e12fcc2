"""Queue depth under NCQ/TCQ: who orders the requests, the drive or the host, and how deep.

With Native Command Queueing (SATA, 32 tags) or Tagged Command Queueing (SCSI), the host
hands the drive up to ``depth`` requests and the drive orders them itself, by the positioning
time only it knows exactly (rotational position included): shortest positioning time first
(SPTF/SATF, :func:`simcore.sched.sptf`). Worthington, Ganger & Patt (1994) compared such policies
against the host's LBN-based ones (C-LOOK, SSTF on LBNs) and found SPTF ahead and growing with
the queue; pure SPTF starves far requests, and its aged form (Jacobson & Wilkes 1991: the
positioning time minus ``w`` times the time waited, :class:`simcore.sched.AgedSPTF`) bounds
the wait. A host-side elevator with the drive's queue at depth 1 (Linux's mq-deadline on a
drive without NCQ, :mod:`simcore.sched.linux`) sorts by LBA and cannot see rotation; its
FIFO expiry (500 ms for reads) bounds the wait instead.

:func:`depth_point` runs ``depth`` programs that each keep one random read outstanding (a
closed loop: the queue always holds ``depth`` requests) under one arrangement, on the bare
mechanism with the profile's command overheads (the drive's buffer is left out: random reads
over a whole disk do not hit it). :func:`starvation_case` is the adversary that makes pure
SPTF starve: one program reading far away, one reading next to the head.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .engine import run
from .host.host import BlockLayer
from .metrics import percentiles
from .records import READ, Request
from .sched import AgedSPTF
from .stack import Stack, as_mechanism
from .workloads import ClosedWorkload, Processes

__all__ = ["ARRANGEMENTS", "depth_point", "depth_sweep", "starvation_bound_ms",
           "starvation_case"]

#: name -> (where the ordering happens, the policy)
ARRANGEMENTS = {
    "FCFS (drive)": ("drive", "fcfs"),
    "C-LOOK (drive, by LBA)": ("drive", "clook"),
    "SPTF (drive)": ("drive", "sptf"),
    "aged SPTF (drive)": ("drive", "aged"),
    "mq-deadline (host, drive depth 1)": ("host", "mq-deadline"),
}


def _policy(name: str, weight: float) -> Any:
    _where, pol = ARRANGEMENTS[name]
    if pol == "aged":
        return AgedSPTF(weight)
    return pol


def depth_point(disk: Any = "modern7200", depth: int = 8, arrangement: str = "SPTF (drive)",
                requests: int = 1500, size_kib: float = 4.0, weight: float = 0.01,
                seed: int = 0) -> dict:
    """``depth`` closed-loop random readers under one arrangement (see :data:`ARRANGEMENTS`).

    Returns IOPS, the response time's mean, p50, p99 and maximum (ms), and the per-request
    response times (``response_ms``, in completion order).
    """
    if arrangement not in ARRANGEMENTS:
        raise ValueError(f"unknown arrangement '{arrangement}'; choose one of "
                         f"{', '.join(ARRANGEMENTS)}")
    if depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    mech = as_mechanism(disk)
    n = max(1, round(size_kib * 2))
    per = max(1, requests // depth)
    span = mech.layout.capacity - n
    where, _ = ARRANGEMENTS[arrangement]
    if where == "drive":
        wl = ClosedWorkload(depth, per, lambda c, k, rng: (READ, int(rng.integers(0, span)), n),
                            seed=seed, name=f"random-read-qd{depth}")
        res = run(Stack(mech, scheduler=_policy(arrangement, weight), firmware=False), wl)
        resp = res.column("response_ms")
        end = float(res.column("finish_ms").max())
    else:
        out: list = []
        rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(depth)]

        def block(env, below):
            return BlockLayer(env, below, ARRANGEMENTS[arrangement][1], depth=1, merge=False)

        def start(built):
            env, host = built.env, built.top

            def reader(c):
                for _ in range(per):
                    rec = yield host.read(c, int(rngs[c].integers(0, span)), n)
                    out.append(rec)

            return env.all_of([env.process(reader(c)) for c in range(depth)])

        run(Stack(mech, firmware=False, host=(block,)), Processes(start, name="host-readers"))
        resp = np.array([r.response_ms for r in out])
        end = max(r.finish_ms for r in out)
    result = {"arrangement": arrangement, "depth": depth, "iops": len(resp) / end * 1000.0,
              "mean_ms": float(resp.mean()), "max_ms": float(resp.max()),
              "response_ms": [float(x) for x in resp]}
    result.update({f"{k}_ms": v for k, v in percentiles(resp, (50, 99)).items()})
    return result


def depth_sweep(disk: Any = "modern7200", depths=(1, 2, 4, 8, 16, 32),
                arrangements=tuple(ARRANGEMENTS), requests: int = 1500, weight: float = 0.01,
                seed: int = 0) -> dict:
    """:func:`depth_point` over depths and arrangements; the same seed for every point."""
    table: dict[str, dict[str, list[float]]] = {}
    for a in arrangements:
        rows = [depth_point(disk, d, a, requests, weight=weight, seed=seed) for d in depths]
        table[a] = {k: [r[k] for r in rows] for k in ("iops", "mean_ms", "p50_ms", "p99_ms",
                                                      "max_ms")}
    return {"disk": as_mechanism(disk).profile.id, "depths": list(depths),
            "weight": weight, "requests": requests, "by": table}


def starvation_bound_ms(disk: Any, weight: float, near_service_ms: float) -> float:
    """The longest a request can wait under aged SPTF in :func:`starvation_case`.

    The far request is chosen at the first decision at which ``weight x waited`` covers the
    difference in positioning time, at most the largest positioning time ``T_max`` (a full
    stroke seek plus a revolution); decisions come at least every ``near_service_ms``. So it
    starts by ``T_max / weight + near_service_ms``.
    """
    if weight <= 0:
        return float("inf")
    mech = as_mechanism(disk)
    t_max = mech.seek.seek_ms(mech.layout.cylinders - 1) + mech.rev_ms + \
        mech.profile.overheads.read_miss(False)
    return t_max / weight + near_service_ms


def starvation_case(disk: Any = "modern7200", scheduler: Any = "sptf", near: int = 400,
                    far_every_ms: float = 1500.0, seed: int = 0) -> dict:
    """The adversary of pure SPTF: two programs keep a read each outstanding next to the head
    (in the first 0.1% of the disk; two, so that one is always waiting when the drive
    chooses), and now and then (every ``far_every_ms``, from time 0) a
    single read arrives for the far end. SPTF keeps choosing the near reads.

    Returns each far read's wait before service (ms), the near reads' largest service time,
    and when the near program finished.
    """
    mech = as_mechanism(disk)
    cap = mech.layout.capacity
    near_span = max(64, cap // 1000)
    rng = np.random.default_rng(seed)
    near_lbas = rng.integers(0, near_span, size=near)
    far_recs: list = []
    near_recs: list = []

    def start(built):
        env, drive = built.env, built.top
        waiting: dict[int, Any] = {}

        def done(rec):
            (near_recs if rec.client == 1 else far_recs).append(rec)
            ev = waiting.pop(rec.id, None)
            if ev is not None:
                ev.succeed()

        built.on_complete(done)

        def near_reader(first):
            for k in range(first, near, 2):
                ev = waiting[k] = env.event()
                drive.submit(Request(k, env.now, READ, int(near_lbas[k]), 8, 1))
                yield ev

        sent = [0]

        def far_reader():
            while len(near_recs) < near:
                drive.submit(Request(near + sent[0], env.now, READ, cap - 8 - sent[0], 8, 0))
                sent[0] += 1
                yield env.timeout(far_every_ms)

        def finish():
            yield env.all_of([env.process(near_reader(0)), env.process(near_reader(1))])
            while len(far_recs) < sent[0]:  # the far reads left waiting are served last
                yield env.timeout(1.0)

        env.process(far_reader())
        return env.process(finish())

    run(Stack(mech, scheduler=scheduler, firmware=False), Processes(start, name="starvation"))
    return {"far_wait_ms": [r.queue_ms for r in sorted(far_recs, key=lambda r: r.id)],
            "far_arrival_ms": [r.arrival_ms for r in sorted(far_recs, key=lambda r: r.id)],
            "near_max_service_ms": max(r.finish_ms - r.start_ms for r in near_recs),
            "near_done_ms": max(r.finish_ms for r in near_recs)}
