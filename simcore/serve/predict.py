"""What fio should measure on a served drive: the server's own model, replayed offline.

A lab grades a student's fio measurement of the served drive against the
simulator's prediction for the same drive and the same workload. The fairest
prediction runs the very model the server runs (:class:`~simcore.serve.adapter.
RealtimeDrive`: the same stack, queue, cache and mechanism) on simulated time
instead of the wall clock, fed the way fio feeds the server: each fio job keeps
``iodepth`` requests outstanding and sends the next one a client round trip
after a reply (fio's ``nbd`` engine and the NBD socket; about 0.1 ms here, see
``../shared/notes/emulation.md``). Random offsets are drawn as fio draws them
(whole blocks of ``bs`` from the job's ``offset``, uniformly), so the
prediction is the workload's expected value, not fio's particular sample;
given the job's fio seed (``fio_seed``), a random job instead replays the very
offsets fio reads for that seed, in fio's order (fio lists them itself:
:func:`~simcore.serve.fio.job_offsets`), so a measurement and its prediction
share their sample and differ only where the drive does (lateness, protocol).

:func:`fio_job` is one plain fio job (``rw=read`` in order from an offset, or
``rw=randread`` over the whole drive, at a queue depth, under the drive's own
queue policy): Lab 2 (read-ahead) and Lab 3 (the drive's scheduler).
:func:`track_reads` is Lab 5's workload (track-sized random reads, aligned to
a track or shifted by part of one; Schindler et al., FAST 2002, section 5) and
:func:`streams` Lab 6's (N sequential readers spread evenly over the drive,
Panagiotakis 2006, ch. 3), each with the fio options that run it.
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..disk.profile import DiskProfile
from .adapter import RealtimeDrive
from .fio import job_offsets, random_offsets
from .server import with_seed

SECTOR = 512
CLIENT_RTT_MS = 0.1  # fio nbd engine + socket, per request (the notes' +0.1 ms bias, idle machine)


@dataclass(frozen=True)
class Predicted:
    """What the replay measured over its window, in fio's units."""

    read_mb_s: float
    read_iops: float
    read_mean_ms: float
    requests: int

    def metric(self, name: str) -> float:
        return float(getattr(self, name))

    # the short names Labs 2 and 3 print
    @property
    def iops(self) -> float:
        return self.read_iops

    @property
    def mb_s(self) -> float:
        return self.read_mb_s

    @property
    def mean_ms(self) -> float:
        return self.read_mean_ms


def replay(profile: DiskProfile, jobs: list[Callable[[], Iterator[tuple[int, int]]]], *,
           iodepth: int = 1, cache: bool = True, scheduler: str = "fcfs",
           duration_ms: float = 20_000.0, warmup_ms: float = 500.0,
           rtt_ms: float = CLIENT_RTT_MS, seed: int = 0,
           start_gap_ms: float = 0.0, start_order: list[int] | None = None) -> Predicted:
    """Run closed-loop jobs through the server's drive model; measure after ``warmup_ms``.

    ``jobs``: one factory per fio job, each giving an iterator of ``(byte offset,
    bytes)`` requests. Every job keeps ``iodepth`` requests outstanding; a
    reply's slot is refilled ``rtt_ms`` later. Job ``j`` starts at
    ``j * start_gap_ms`` (fio starts its jobs one after another). Latency is
    counted from submission to the model's finish plus the round trip's
    return half, as fio counts it; a request counts when it completes inside
    the window (fio resets its statistics at the end of ``ramp_time``).
    """
    if not jobs:
        raise ValueError("replay needs at least one job")
    if iodepth < 1:
        raise ValueError(f"iodepth must be at least 1 (got {iodepth})")
    drive = RealtimeDrive(with_seed(profile, seed), scheduler, cache)
    gens = [make() for make in jobs]
    submits: list[tuple[float, int, int]] = []  # (time, order, job)
    order = 0
    first = list(range(len(gens))) if start_order is None else list(start_order)
    if sorted(first) != list(range(len(gens))):
        raise ValueError("start_order must be a permutation of the jobs")
    for rank, j in enumerate(first):
        for _ in range(iodepth):
            heapq.heappush(submits, (rank * start_gap_ms, order, j))
            order += 1
    owner: dict[int, tuple[int, float, int]] = {}  # request id -> (job, submitted, bytes)
    rid = 0
    lat, nbytes = [], 0

    def finish(done) -> None:
        nonlocal nbytes, order
        for d in done:
            job, t0, size = owner.pop(d.id)
            if warmup_ms <= d.finish_ms <= duration_ms:  # fio counts what completes after ramp
                lat.append(d.finish_ms - t0 + rtt_ms / 2)
                nbytes += size
            heapq.heappush(submits, (d.finish_ms + rtt_ms, order, job))
            order += 1

    while True:
        t_sub = submits[0][0] if submits else float("inf")
        t_ev = drive.next_event_ms()
        if t_ev is not None and t_ev <= t_sub:
            if t_ev > duration_ms:
                break
            finish(drive.advance(t_ev))
            continue
        if t_sub > duration_ms:
            break
        t, _, job = heapq.heappop(submits)
        offset, size = next(gens[job])
        lba = offset // SECTOR
        sectors = -(-(offset + size) // SECTOR) - lba
        owner[rid] = (job, t + rtt_ms / 2, size)
        finish(drive.submit(rid, "read", lba, sectors, t + rtt_ms / 2, client=job))
        rid += 1
    window_s = (duration_ms - warmup_ms) / 1000.0
    if not lat:
        raise ValueError("no request finished inside the window; lengthen duration_ms")
    return Predicted(nbytes / 1e6 / window_s, len(lat) / window_s, float(np.mean(lat)), len(lat))


def fio_order(fio_args: list[str], size_bytes: int, req_bytes: int,
              n: int = 2048) -> Callable[[], Iterator[tuple[int, int]]] | None:
    """A job factory replaying the offsets fio reads for ``fio_args``, in fio's order; None
    without fio (then a caller falls back to drawing its own). Asks fio for twice as many
    offsets whenever the replay has used up the ones it has (fio's list is the same prefix)."""
    first = job_offsets(fio_args, size_bytes, n)
    if first is None:
        return None

    def make() -> Iterator[tuple[int, int]]:
        offs, k, m = first, 0, n
        while True:
            if k == len(offs):
                m *= 2
                more = job_offsets(fio_args, size_bytes, m)
                if more is None:
                    raise RuntimeError("fio stopped listing the job's offsets")
                offs = more
            yield offs[k], req_bytes
            k += 1
    return make


# -- Labs 2 and 3: one plain fio job -------------------------------------------------------------

PATTERNS = ("read", "randread")


def fio_job(profile: DiskProfile, rw: str, bs_kib: int, iodepth: int = 1, *,
            scheduler: str = "fcfs", cache: bool = True, offset_bytes: int = 0, seed: int = 0,
            runtime_s: float = 5.0, repeats: int = 1, fio_seed: int | None = None) -> Predicted:
    """The model's figures for fio's ``--rw=RW --bs=BSk --iodepth=D --runtime=S --time_based``.

    As fio runs it: from an idle drive, counting what completes in ``runtime_s``
    (a queue policy's start-up transient included). ``read`` streams in order
    from ``offset_bytes``; ``randread`` draws whole blocks uniformly over the
    drive. ``repeats`` averages that many draws of the random offsets (seeds
    ``seed``, ``seed + 1``, ...): fio's run is one draw, the prediction their
    mean. With ``fio_seed`` (the job's ``--randseed``, under ``--randrepeat=0``:
    :func:`~simcore.serve.fio.random_offsets`), ``randread`` replays instead the
    offsets fio reads for that seed, in fio's order, ``repeats`` times from as many
    platter phases at start (``seed``, ``seed + 1``, ...; a served run starts at an
    arbitrary one, and the rotational waits that follow are not fio's to share),
    and averages them; where fio is not installed it falls back to the mean of
    ``repeats`` draws of offsets. Raises ValueError naming the bad field.
    """
    if rw not in PATTERNS:
        raise ValueError(f"rw must be one of {PATTERNS} (got {rw!r})")
    if isinstance(bs_kib, bool) or int(bs_kib) != bs_kib or bs_kib <= 0:
        raise ValueError(f"bs_kib must be a positive whole number of KiB (got {bs_kib!r})")
    if isinstance(iodepth, bool) or int(iodepth) != iodepth or iodepth < 1:
        raise ValueError(f"iodepth must be a whole number >= 1 (got {iodepth!r})")
    if isinstance(repeats, bool) or int(repeats) != repeats or repeats < 1:
        raise ValueError(f"repeats must be a whole number >= 1 (got {repeats!r})")
    if not runtime_s > 0:
        raise ValueError(f"runtime_s must be > 0 (got {runtime_s!r})")
    if offset_bytes < 0 or offset_bytes % SECTOR:
        raise ValueError(f"offset_bytes must be a non-negative multiple of {SECTOR}")
    bs = int(bs_kib) * 1024
    cap = RealtimeDrive(profile, scheduler, cache).capacity_sectors * SECTOR
    blocks = cap // bs
    same = None
    if rw == "randread" and fio_seed is not None:
        same = fio_order([f"--rw={rw}", f"--bs={bs}", *random_offsets(fio_seed)], cap, bs)
    runs = []
    for k in range(int(repeats)):
        rng = np.random.default_rng(seed + k)

        def make(rng=rng) -> Iterator[tuple[int, int]]:
            if rw == "read":
                off = offset_bytes
                while off + bs <= cap:
                    yield off, bs
                    off += bs
                raise ValueError("the sequential job ran past the drive's end (shorten it)")
            while True:
                yield int(rng.integers(0, blocks)) * bs, bs

        runs.append(replay(profile, [same or make], iodepth=int(iodepth), cache=cache,
                           scheduler=scheduler, duration_ms=float(runtime_s) * 1000.0,
                           warmup_ms=0.0, seed=seed + k))
    return _mean(runs)


def _mean(runs: list[Predicted]) -> Predicted:
    return Predicted(float(np.mean([r.read_mb_s for r in runs])),
                     float(np.mean([r.read_iops for r in runs])),
                     float(np.mean([r.read_mean_ms for r in runs])),
                     sum(r.requests for r in runs))


def ratio(profile: DiskProfile, a: dict, b: dict, metric: str = "read_iops") -> float:
    """``metric`` of job ``a`` over job ``b`` (each a dict of :func:`fio_job` keywords)."""
    return fio_job(profile, **a).metric(metric) / fio_job(profile, **b).metric(metric)


# -- Lab 5: track-sized reads, aligned or shifted -----------------------------------------------

def track_fio_args(track_bytes: int, first_byte: int, span_bytes: int, shift_bytes: int,
                   runtime_s: float, seed: int) -> list[str]:
    """fio options for random track-sized reads from ``first_byte + shift_bytes`` (one job).

    :func:`~simcore.serve.fio.random_offsets` lets ``seed`` choose the offsets:
    with fio's default (``randrepeat=1``) fio 3.33 ignores ``--randseed`` for them
    and every run, whatever its seed and whatever the span, reads the same
    fractions of the span in the same order (one frozen sample of a few hundred
    requests for every student and every run; for one Lab 5 variant its ratio
    lay 3.5 % below the expected value). With it, the seed draws the offsets,
    repeatably.
    """
    blocks = (span_bytes - shift_bytes) // track_bytes
    return ["--rw=randread", f"--bs={track_bytes}", f"--offset={first_byte + shift_bytes}",
            f"--size={blocks * track_bytes}", "--iodepth=1", f"--runtime={runtime_s:g}",
            "--time_based", *random_offsets(seed)]


def track_reads(profile: DiskProfile, track_bytes: int, first_byte: int, span_bytes: int,
                shift_bytes: int, *, n: int = 3000, seed: int = 0,
                cache: bool = True, fio_seed: int | None = None,
                runtime_s: float = 3.0, phases: int = 4) -> Predicted:
    """The model's figures for :func:`track_fio_args`'s job (about ``n`` requests measured).

    Without ``fio_seed``, the expected value: ``n`` offsets of the model's own
    (after a 200 ms warm-up). With it (the job's seed), the job as fio runs it for
    that seed: the offsets fio reads, in fio's order, from an idle drive for
    ``runtime_s``, averaged over ``phases`` platter phases at start (seeds ``seed``,
    ``seed + 1``, ...: the rotational waits a served run meets are its own); where
    fio is not installed, the expected value as without.
    """
    blocks = (span_bytes - shift_bytes) // track_bytes
    if blocks < 2:
        raise ValueError("the span holds fewer than two blocks of the track size")
    if fio_seed is not None:
        cap = RealtimeDrive(profile, "fcfs", cache).capacity_sectors * SECTOR
        same = fio_order(track_fio_args(track_bytes, first_byte, span_bytes, shift_bytes,
                                        runtime_s, fio_seed), cap, track_bytes, n=1024)
        if same is not None:
            runs = [replay(profile, [same], iodepth=1, cache=cache,
                           duration_ms=float(runtime_s) * 1000.0, warmup_ms=0.0, seed=seed + k)
                    for k in range(max(1, int(phases)))]
            return _mean(runs)
    rng = np.random.default_rng(seed)
    base = first_byte + shift_bytes

    def make() -> Iterator[tuple[int, int]]:
        while True:
            yield base + int(rng.integers(0, blocks)) * track_bytes, track_bytes

    # size the window from one revolution and a seek per request (a generous guess of n)
    per_ms = profile.revolution_ms * 2.5
    return replay(profile, [make], iodepth=1, cache=cache, duration_ms=200.0 + n * per_ms,
                  warmup_ms=200.0, seed=seed)


# -- Lab 6: N sequential streams ----------------------------------------------------------------

def stream_increment(capacity_bytes: int, streams: int, bs_bytes: int) -> int:
    """The bytes between two readers' starts (fio's ``offset_increment``): the drive shared
    evenly, rounded down to whole requests."""
    return capacity_bytes // streams // bs_bytes * bs_bytes


def stream_fio_args(streams: int, capacity_bytes: int, bs_bytes: int, runtime_s: float,
                    ramp_s: float) -> list[str]:
    """fio options for ``streams`` sequential readers evenly spaced, reported as one job."""
    inc = stream_increment(capacity_bytes, streams, bs_bytes)
    args = ["--rw=read", f"--bs={bs_bytes}", "--iodepth=1", f"--size={inc}",
            f"--runtime={runtime_s:g}", f"--ramp_time={ramp_s:g}", "--time_based"]
    if streams > 1:
        args += [f"--numjobs={streams}", f"--offset_increment={inc}", "--group_reporting",
                 "--thread"]
    return args


def _stream_runs(profile: DiskProfile, n_streams: int, bs_bytes: int, *,
                 duration_ms: float = 4_000.0, warmup_ms: float = 1_000.0, orders: int = 8,
                 seed: int = 0, cache: bool = True, start_gap_ms: float = 0.5,
                 start_order: list[int] | None = None) -> list[Predicted]:
    """One replay of :func:`stream_fio_args`'s job per start order (see :func:`streams`)."""
    cap = RealtimeDrive(profile, "fcfs", cache).capacity_sectors * SECTOR
    inc = stream_increment(cap, n_streams, bs_bytes)

    def job(j: int) -> Callable[[], Iterator[tuple[int, int]]]:
        def make() -> Iterator[tuple[int, int]]:
            k = 0
            while True:
                yield j * inc + (k * bs_bytes) % inc, bs_bytes
                k += 1
        return make

    if start_order is not None:
        perms = [list(start_order)]
    else:
        rng = np.random.default_rng(seed)
        perms = [None] if orders < 1 else [list(rng.permutation(n_streams))
                                           for _ in range(orders)]
    return [replay(profile, [job(j) for j in range(n_streams)], iodepth=1, cache=cache,
                   duration_ms=duration_ms, warmup_ms=warmup_ms, seed=seed + k,
                   start_gap_ms=start_gap_ms, start_order=perm)
            for k, perm in enumerate(perms)]


def streams(profile: DiskProfile, n_streams: int, bs_bytes: int, *, duration_ms: float = 4_000.0,
            warmup_ms: float = 1_000.0, orders: int = 8, seed: int = 0, cache: bool = True,
            start_gap_ms: float = 0.5, start_order: list[int] | None = None) -> Predicted:
    """The model's figures for :func:`stream_fio_args`'s job, averaged over start orders.

    With every stream's one request waiting in the drive's FCFS queue, the
    drive serves the streams in a fixed cycle: the order their first requests
    arrived in, which is the order fio's threads happened to start (the
    served drive's ``--stats`` keep it: :func:`stream_order`). The seek in each
    cycle depends on that order, so without it the prediction is the mean over
    ``orders`` random start orders (the first run keeps the streams' own order
    only when ``orders`` is 0); given ``start_order`` (stream indices, first
    arrived first), it is the one replay in that order.
    """
    runs = _stream_runs(profile, n_streams, bs_bytes, duration_ms=duration_ms,
                        warmup_ms=warmup_ms, orders=orders, seed=seed, cache=cache,
                        start_gap_ms=start_gap_ms, start_order=start_order)
    return Predicted(float(np.mean([r.read_mb_s for r in runs])),
                     float(np.mean([r.read_iops for r in runs])),
                     float(np.mean([r.read_mean_ms for r in runs])),
                     sum(r.requests for r in runs))


def stream_order(first_offsets: object, n_streams: int, capacity_bytes: int,
                 bs_bytes: int) -> list[int] | None:
    """The streams' start order from the served drive's ``first_offsets``, or None.

    Stream ``j`` of :func:`stream_fio_args`'s job first reads at ``j`` times its
    ``offset_increment``; the server keeps each connection's first offset in
    arrival order (:meth:`simcore.serve.server.DiskServer.first_offsets`). The
    list comes from a student's notebook, so anything but exactly one first
    offset per stream (``n_streams`` integers, each a distinct stream's start)
    gives None.
    """
    inc = stream_increment(capacity_bytes, n_streams, bs_bytes)
    if (not isinstance(first_offsets, list) or len(first_offsets) != n_streams or inc <= 0
            or not all(type(x) is int for x in first_offsets)):
        return None
    if any(x < 0 or x % inc for x in first_offsets):
        return None
    order = [x // inc for x in first_offsets]
    return order if sorted(order) == list(range(n_streams)) else None


def streams_reference(disk: str, n_streams: int, bs_bytes: int, kind: str,
                      orders: int = 8) -> dict[str, Any]:
    """Lab 6's reference for a fio judge: the mean over ``orders`` random start orders
    (``value``), their lowest and highest (``lo``, ``hi``), and what
    :func:`reference_for_order` needs to predict for the order the student's served drive
    recorded (``streams_order``: the attachment's ``kind``, the drive, the job)."""
    from ..disk.profile_loader import load_disk

    runs = _stream_runs(load_disk(disk), n_streams, bs_bytes, orders=orders)
    mb = [r.read_mb_s for r in runs]
    return {"value": float(np.mean(mb)), "lo": float(min(mb)), "hi": float(max(mb)),
            "streams_order": {"kind": kind, "disk": disk, "streams": n_streams, "bs": bs_bytes}}


@functools.lru_cache(maxsize=64)
def _order_mb_s(disk: str, n_streams: int, bs_bytes: int, order: tuple[int, ...]) -> float:
    from ..disk.profile_loader import load_disk

    return streams(load_disk(disk), n_streams, bs_bytes, start_order=list(order)).read_mb_s


def reference_for_order(reference: dict[str, Any], served: object) -> float:
    """The reference MB/s for the start order the served drive recorded (the grader's side).

    ``reference`` is :func:`streams_reference`'s dict, ``served`` the served drive's
    stats attached with the student's fio report (:func:`simcore.labkit.emulated.
    fio_served`). The measured rate follows the order fio's threads happened to
    start in (measured here, 18 runs of 12 to 24 readers: 24 readers of 64 KiB
    scatter from 4.1 to 5.3 MB/s run to run, and every run lies within 2.3 % of the
    prediction for its own order), so the prediction is made for that order;
    without a valid order (not the stats of this job: see :func:`stream_order`) it
    is the mean over random orders, as before.

    The order is the student's data and could be faked, so the prediction is kept
    within ``lo`` and ``hi``, the lowest and highest of the random orders the mean
    is taken over: a faked order moves the reference no further than the spread of
    random start orders, which the lab's tolerance was set to absorb ("that order
    alone moves the result by a tenth or so"), and lets through no report that a
    run with one of those orders could not give; the report itself is still checked
    as fio's own, of this job on the student's own drive. The price: fio's threads
    start closer to their creation order than a random order does, so 9 of the 18 runs
    above had an order better than ``hi`` and are held against ``hi`` (they measured up
    to 23 % above it, inside the tolerance; above the mean alone, up to 33 %).
    """
    value = float(reference["value"])
    spec = reference.get("streams_order") or {}
    try:
        disk, n, bs = str(spec["disk"]), int(spec["streams"]), int(spec["bs"])
    except (KeyError, TypeError, ValueError):
        return value
    from ..disk.profile_loader import load_disk

    cap = RealtimeDrive(load_disk(disk), "fcfs", True).capacity_sectors * SECTOR
    offsets = served.get("first_offsets") if isinstance(served, dict) else None
    order = stream_order(offsets, n, cap, bs)
    if order is None:
        return value
    mb = _order_mb_s(disk, n, bs, tuple(order))
    return min(max(mb, float(reference.get("lo", value))), float(reference.get("hi", value)))


def streams_spread(profile: DiskProfile, n_streams: int, bs_bytes: int, orders: int = 8,
                   seed: int = 0, **kw) -> list[float]:
    """The aggregate MB/s of each of ``orders`` random start orders (how far one run may fall)."""
    return [streams(profile, n_streams, bs_bytes, orders=1, seed=seed + 1000 * k, **kw).read_mb_s
            for k in range(orders)]
