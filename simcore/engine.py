"""Run a workload on a storage stack: the verbs ``run``, ``sweep`` and ``replay_validation``.

The engine is the only place that builds a SimPy environment: it wires a
:class:`~simcore.stack.Stack` (drive, array, host layers) into one and feeds it
the workload: one process for an open workload, one per client for a closed
one, the workload's own processes for :class:`~simcore.workloads.Processes`.
Nothing here knows about plots or widgets.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor
from contextlib import contextmanager
from typing import Any

import numpy as np
import simpy

from .disk.access import Mechanism, as_mechanism
from .disk.profile import DiskProfile
from .drive.drive import Drive
from .errors import TraceError
from .metrics import compare_service_times
from .records import Completed, Request
from .results import RunResult
from .stack import Shared, Stack, build, build_system
from .workloads import (
    ClosedWorkload,
    OpenWorkload,
    Processes,
    ValidationWorkload,
)

Disk = DiskProfile | Mechanism | str


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


@contextmanager
def few_collections() -> Iterator[None]:
    """Run with the cyclic garbage collector seldom awake: a run makes hundreds of
    thousands of small objects (requests, records, events) that are freed by reference
    counting, and each collection of the oldest generation would walk all of them. The
    collector's own settings are restored afterwards; it changes no simulated value."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], 100_000), old[1], old[2])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def run(disk: Disk | Stack, workload: Any, scheduler: Any = None,
        service: Callable | None = None, until_ms: float | None = None, *,
        cache: Any = None, interface: Any = None, firmware: bool | None = None,
        cpu_trace: list | None = None, bus_trace: list | None = None) -> RunResult:
    """Simulate ``workload`` on a storage stack; return the completed records.

    ``disk`` is a :class:`~simcore.stack.Stack` or anything a stack takes as its
    disk (an id, a profile path, a profile, a mechanism). The keyword arguments
    override the stack's: ``scheduler`` (the drive queue's policy, FCFS by
    default), ``service`` (a per-request service function), ``cache`` (a
    :class:`~simcore.drive.cache.CacheConfig`, ``True`` for the profile's own, ``False``
    for none), ``interface`` (a :class:`~simcore.drive.interface.Port` or a mode name),
    ``firmware`` (the profile's cache and interface; on unless ``False``, as in
    DiskSim). The workload is an open, closed or validation workload, or a
    :class:`~simcore.workloads.Processes` that drives the stack's top layer itself.
    The engine serves the drive on its arithmetic fast path when the stack allows it.
    A list of stacks runs as one system (one host CPU, buses shared by name) under a
    ``Processes`` workload; ``cpu_trace``/``bus_trace`` collect the CPU's and buses' busy
    intervals.
    """
    if isinstance(disk, list | tuple):
        return _run_system(list(disk), workload, until_ms, cpu_trace, bus_trace)
    stk = disk if isinstance(disk, Stack) else Stack(disk)
    changes: dict[str, Any] = {}
    for key, value in (("scheduler", scheduler), ("service", service), ("cache", cache),
                       ("interface", interface), ("firmware", firmware)):
        if value is not None:
            changes[key] = value
    if service is not None and firmware is None and cache is None and interface is None:
        changes["firmware"] = False  # a service function stands in for the firmware
    if changes:
        stk = stk.with_(**changes)
    env = simpy.Environment()
    built = build(env, stk)
    capacity = built.device.capacity if stk.array else built.device.mechanism.layout.capacity
    top = built.top
    until: Any = until_ms
    if isinstance(workload, OpenWorkload):
        _check_requests(workload.requests, capacity, workload.name)
        if until is None and type(top) is Drive and top.serves_open(workload.requests):
            # a lone drive: the same steps without the event loop
            with few_collections():
                last = top.serve_open(workload.requests)
            until = env.timeout(last)  # the clock ends where SimPy's would
        else:
            env.process(_feed_open(env, top, workload.requests))
    elif isinstance(workload, ClosedWorkload):
        _start_closed(env, top, workload, built.listeners, capacity)
    elif isinstance(workload, ValidationWorkload):
        _start_validation(env, top, workload, built.listeners, capacity)
    elif isinstance(workload, Processes):
        end = workload.start(built)
        if until is None and end is not None:
            until = end
    else:
        raise TypeError(f"not a workload: {type(workload).__name__}")
    with few_collections():
        env.run(until=until)
    sched = stk.scheduler
    name = sched if isinstance(sched, str) else getattr(sched, "__name__",
                                                        getattr(sched, "name",
                                                                type(sched).__name__))
    return RunResult(built.completed, stk.mechanism.profile.id, name, workload.name,
                     built.busy_ms, meta={"stack": stk.describe(), "end_ms": env.now,
                                          "built": built})


def start(stk: Stack) -> Any:
    """Build ``stk`` in a new environment and return it unrun (a :class:`~simcore.stack.Built`).

    For callers that drive the clock themselves, such as the real-time server
    (:mod:`simcore.serve`), which steps the environment up to the wall clock.
    """
    env = simpy.Environment()
    built = build(env, stk)
    while env.peek() <= 0.0:  # start the drive's process: it waits for work
        env.step()
    return built


def _run_system(stacks: list[Stack], workload: Any, until_ms: float | None,
                cpu_trace: list | None, bus_trace: list | None) -> RunResult:
    if not stacks or not all(isinstance(s, Stack) for s in stacks):
        raise TypeError("a system is a non-empty list of Stack objects")
    if not isinstance(workload, Processes):
        raise TypeError("a system of several stacks runs a Processes workload")
    env = simpy.Environment()
    built = build_system(env, stacks, Shared(env, cpu_trace, bus_trace))
    end = workload.start(built)
    with few_collections():
        env.run(until=until_ms if until_ms is not None else end)
    first = stacks[0]
    return RunResult(built.completed, first.mechanism.profile.id,
                     str(first.scheduler), workload.name, built.busy_ms,
                     meta={"stack": first.describe(), "end_ms": env.now, "built": built})


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
            spec = wl.make_request(c, k, rng)
            op, lba, sectors = spec[:3]
            fua = bool(spec[3]) if len(spec) > 3 else False
            if lba < 0 or lba + sectors > capacity:
                raise ValueError(f"{wl.name}: client {c} asked for LBA {lba}+{sectors} "
                                 f"beyond the disk ({capacity} sectors)")
            rid = next(counter)
            done = env.event()
            waiting[rid] = done
            drive.submit(Request(rid, env.now, op, lba, sectors, c, fua))
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
                      scheduler: Any = "fcfs", *, firmware: bool = True,
                      keep_records: bool = False) -> dict[str, Any]:
    """Replay a DiskSim validation trace and compare service-time distributions.

    As in DiskSim, the drive runs with its whole firmware (overheads, segmented
    cache with read-ahead and write-back, interface and water marks) unless
    ``firmware=False`` asks for the bare mechanism. The demerit (Ruemmler &
    Wilkes 1994) is computed over quantiles in steps of 0.0001 from the
    per-request times (``demerit_ms``) and, as DiskSim's rms tool computes its
    published figures, from both distributions in DiskSim's printed buckets
    (``demerit_bucketed_ms``); it is reported for all requests and for reads and writes apart,
    beside both distributions' means and standard deviations, and with the revolutions the
    replay lost to full segments (``lost_revolutions``). ``demerit_pct`` is the demerit as a
    percentage of the measured mean (None when every measured time is 0). ``keep_records`` adds the replay's records in trace
    order under ``"records"`` (for per-request analyses; the report is then no longer
    plain JSON). A request beyond the disk raises :class:`TraceError` naming the trace
    line before anything runs.
    """
    mech = as_mechanism(disk)
    capacity = mech.layout.capacity
    lines = workload.meta.get("lines") or range(1, len(workload.steps) + 1)
    for step, line in zip(workload.steps, lines, strict=False):
        if step.lba + step.sectors > capacity:
            raise TraceError(workload.path or workload.name, line,
                             f"LBA {step.lba} + {step.sectors} sectors reaches beyond the "
                             f"disk '{mech.profile.id}' (LBAs 0..{capacity - 1})", "lbn")
    result = run(mech, workload, scheduler, firmware=firmware)
    recs = sorted(result.records, key=lambda r: r.id)
    simulated = np.array([r.finish_ms - r.start_ms for r in recs])
    measured = np.array([s.measured_ms for s in workload.steps])
    is_write = np.array([s.op == "W" for s in workload.steps])

    report = compare_service_times(measured, simulated)
    mean_m = report["measured_mean_ms"]
    report["demerit_pct"] = 100.0 * report["demerit_ms"] / mean_m if mean_m > 0 else None
    report["reads"] = compare_service_times(measured[~is_write], simulated[~is_write])
    report["writes"] = compare_service_times(measured[is_write], simulated[is_write])
    report["disk"] = mech.profile.id
    report["firmware"] = firmware
    cache = getattr(result.meta["built"].top, "cache", None)
    # revolutions lost to a full segment: a read's own sectors (the ring) and read-ahead
    # held a segment ahead of the host (DiskSim's segment hold)
    report["lost_revolutions"] = {
        "ring": int(cache.stats["lost_revolutions"]) if cache is not None else 0,
        "read_ahead_held": int(cache.stats["read_ahead_held_revolutions"])
        if cache is not None else 0}
    if keep_records:
        report["records"] = recs
    return report


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
