"""Run a workload on a drive: the verbs ``run``, ``sweep`` and ``replay_validation``.

The engine wires a workload to a :class:`~simcore.drive.Drive` inside one
SimPy environment: one process feeds an open workload, one process per client
drives a closed one. Nothing here knows about plots or widgets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor
from typing import Any

import numpy as np
import simpy

from .access import Mechanism
from .drive import Drive
from .errors import TraceError
from .metrics import demerit
from .profile import DiskProfile
from .profiles import load_disk
from .records import Completed, Request
from .results import RunResult
from .workloads import (
    ClosedWorkload,
    OpenWorkload,
    ValidationWorkload,
)

Disk = DiskProfile | Mechanism | str


def _mechanism(disk: Disk) -> Mechanism:
    if isinstance(disk, Mechanism):
        return disk
    if isinstance(disk, str):
        disk = load_disk(disk)
    return Mechanism(disk)


def _check_requests(requests: Sequence[Request], capacity: int, where: str) -> None:
    last = -float("inf")
    for r in requests:
        if r.sectors <= 0:
            raise ValueError(f"{where}: request {r.id} moves {r.sectors} sectors (need >= 1)")
        if r.lba < 0 or r.lba + r.sectors > capacity:
            raise ValueError(
                f"{where}: request {r.id} reaches LBA {r.lba + r.sectors - 1}, beyond the "
                f"disk's last LBA {capacity - 1}"
            )
        if r.arrival_ms < last:
            raise ValueError(f"{where}: request {r.id} arrives before the one before it")
        last = r.arrival_ms


def run(disk: Disk, workload: OpenWorkload | ClosedWorkload | ValidationWorkload,
        scheduler: Any = "fcfs", service: Callable | None = None,
        until_ms: float | None = None, *, cache: Any = None,
        interface: Any = None) -> RunResult:
    """Simulate ``workload`` on ``disk`` with a scheduling policy; return the records.

    ``cache`` gives the drive a segmented buffer (a
    :class:`~simcore.cache.CacheConfig`, or ``True`` for the profile's own);
    ``interface`` a host interface (a :class:`~simcore.interface.Port` or a
    mode name such as ``"udma2"``). Without either the drive takes its fast
    path: no buffer, an ideal interface.
    """
    mech = _mechanism(disk)
    env = simpy.Environment()
    callbacks: list[Callable[[Completed], None]] = []

    def on_complete(rec: Completed) -> None:
        for cb in callbacks:
            cb(rec)

    if cache is None and interface is None:
        drive = Drive(env, mech, scheduler, on_complete=on_complete, service=service)
    else:
        drive = Drive(env, mech, scheduler, on_complete=on_complete, service=service,
                      cache=cache, interface=interface)
    if isinstance(workload, OpenWorkload):
        _check_requests(workload.requests, mech.layout.capacity, workload.name)
        env.process(_feed_open(env, drive, workload.requests))
    elif isinstance(workload, ClosedWorkload):
        _start_closed(env, drive, workload, callbacks, mech.layout.capacity)
    elif isinstance(workload, ValidationWorkload):
        _start_validation(env, drive, workload, callbacks, mech.layout.capacity)
    else:
        raise TypeError(f"not a workload: {type(workload).__name__}")
    env.run(until=until_ms)
    name = scheduler if isinstance(scheduler, str) else getattr(scheduler, "__name__",
                                                                  type(scheduler).__name__)
    return RunResult(drive.completed, mech.profile.id, name, workload.name, drive.busy_ms)


def _feed_open(env: simpy.Environment, drive: Drive, requests: Sequence[Request]):
    submit, timeout = drive.submit, env.timeout
    for req in requests:
        delay = req.arrival_ms - env.now
        if delay > 0:
            yield timeout(delay)
        submit(req)


def _start_closed(env, drive: Drive, wl: ClosedWorkload, callbacks, capacity: int) -> None:
    waiting: dict[int, simpy.Event] = {}
    callbacks.append(lambda rec: waiting.pop(rec.id).succeed() if rec.id in waiting else None)
    counter = iter(range(1 << 62))
    base = np.random.SeedSequence(wl.seed)
    rngs = [np.random.default_rng(s) for s in base.spawn(wl.clients)]

    def client(c: int):
        rng = rngs[c]
        for k in range(wl.per_client):
            op, lba, sectors = wl.make_request(c, k, rng)
            if lba < 0 or lba + sectors > capacity:
                raise ValueError(f"{wl.name}: client {c} asked for LBA {lba}+{sectors} "
                                 f"beyond the disk ({capacity} sectors)")
            rid = next(counter)
            done = env.event()
            waiting[rid] = done
            drive.submit(Request(rid, env.now, op, lba, sectors, c))
            yield done
            think = wl.think_ms(rng) if callable(wl.think_ms) else wl.think_ms
            if think > 0:
                yield env.timeout(think)

    for c in range(wl.clients):
        env.process(client(c))


def _start_validation(env, drive: Drive, wl: ValidationWorkload, callbacks,
                      capacity: int) -> None:
    state: dict[str, simpy.Event | None] = {"done": None}

    def finished(rec: Completed) -> None:
        if state["done"] is not None:
            ev, state["done"] = state["done"], None
            ev.succeed()

    callbacks.append(finished)

    def loop():
        for i, step in enumerate(wl.steps):
            if step.lba + step.sectors > capacity:
                raise ValueError(f"{wl.path}:{i + 1}: LBA {step.lba}+{step.sectors} is beyond "
                                 f"the disk ({capacity} sectors)")
            state["done"] = env.event()
            drive.submit(Request(i, env.now, step.op, step.lba, step.sectors))
            yield state["done"]
            if step.gap_ms > 0:
                yield env.timeout(step.gap_ms)

    env.process(loop())


def replay_validation(disk: Disk, workload: ValidationWorkload,
                      scheduler: Any = "fcfs") -> dict[str, Any]:
    """Replay a DiskSim validation trace and compare response-time distributions.

    ``demerit_pct`` is the demerit as a percentage of the measured mean (None
    when every measured time is 0). A request beyond the disk raises
    :class:`TraceError` naming the trace line before anything runs.
    """
    mech = _mechanism(disk)
    capacity = mech.layout.capacity
    lines = workload.meta.get("lines") or range(1, len(workload.steps) + 1)
    for step, line in zip(workload.steps, lines, strict=False):
        if step.lba + step.sectors > capacity:
            raise TraceError(workload.path or workload.name, line,
                             f"LBA {step.lba} + {step.sectors} sectors reaches beyond the "
                             f"disk '{mech.profile.id}' (LBAs 0..{capacity - 1})", "lbn")
    result = run(mech, workload, scheduler)
    simulated = np.array([r.finish_ms - r.start_ms for r in
                          sorted(result.records, key=lambda r: r.id)])
    measured = np.array([s.measured_ms for s in workload.steps])
    d = demerit(measured, simulated)
    mean_m = float(measured.mean())
    return {
        "demerit_ms": d,
        "demerit_pct": 100.0 * d / mean_m if mean_m > 0 else None,
        "measured_mean_ms": mean_m,
        "simulated_mean_ms": float(simulated.mean()),
        "requests": len(simulated),
    }


def point_seed(base: int, point: dict) -> int:
    """A seed made from ``base`` and the point's own parameters, never from its place in a sweep.

    The parameters are hashed in a canonical form (sorted keys; objects by ``repr``) and mixed
    with ``base`` by :class:`numpy.random.SeedSequence`, so the same point gets the same seed
    in a serial run, a process pool or a cluster, whatever order the points run in.
    """
    import hashlib
    import json

    import numpy as np

    text = json.dumps(point, sort_keys=True, default=repr)
    entropy = int.from_bytes(hashlib.sha256(text.encode()).digest()[:16], "big")
    state = np.random.SeedSequence([int(base), entropy]).generate_state(2, dtype=np.uint32)
    return int(state[0]) << 31 | int(state[1]) >> 1


def sweep(fn: Callable[..., Any], points: Iterable[dict], executor: Executor | None = None,
          progress: bool = True, seed: int | None = None) -> list[Any]:
    """Call ``fn(**point)`` for every point, in parallel when an executor is given.

    Any ``concurrent.futures``-style executor works (a process pool here, or a
    Dask or Ray cluster's executor); results come back in the order of ``points``.
    With ``seed``, each call also gets ``seed=point_seed(seed, point)``: a seed of the
    point's parameters, so serial and parallel runs give the same numbers bit for bit.
    """
    pts = list(points)
    if seed is not None:
        if any("seed" in p for p in pts):
            raise ValueError("sweep(seed=...) makes each point's seed: remove 'seed' from the points")
        pts = [{**p, "seed": point_seed(seed, p)} for p in pts]
    bar = _progress(len(pts), progress)
    if executor is None:
        out = []
        for p in pts:
            out.append(fn(**p))
            bar.update(1)
        bar.close()
        return out
    futures = [executor.submit(fn, **p) for p in pts]
    out = []
    for f in futures:
        out.append(f.result())
        bar.update(1)
    bar.close()
    return out


def _progress(total: int, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, disable=not enabled or total < 2, leave=False)
