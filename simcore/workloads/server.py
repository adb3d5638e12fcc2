"""Server workloads for the block layer: FFSB-like profiles, sequential readers, and
processes that issue synchronous dependent reads.

Seed 001 §3.2 (Pratt & Heger 2004, Appendix B): FFSB worker threads, 4 per
CPU, each doing 1,000 operations on files of 4-64 KB spread over a file set
larger than memory:

| profile | mix |
|---|---|
| web server | 100% read |
| file server | 80% read, 20% write |
| mail server | 40% read, 40% create, 20% delete |
| metadata | 40% create, 40% append, 20% delete |
| sequential read | 64 KB reads of whole 50 MB files |
| sequential write | 64 KB writes creating 50 MB files |

What the paper does not say is assumed here and said in each function: one
operation reads or writes a whole small file as one request (2.6 read-ahead
covers a 4-64 KB file); buffered writes leave through the kernel's writeback
thread (one "flusher" process, pid 1), not the worker, and the run ends when
they are on disk (``end_fsync``); a create or delete also writes 4 KB of
metadata (inode, directory, journal) in a metadata area; each operation costs
``think_ms`` of CPU before the next (0.1 ms assumed).

A **synchronous dependent reader** issues a read, waits for it, thinks, and
only then issues the next one: between its requests it has nothing queued.
That gap is what anticipatory scheduling (and BFQ's idling) bets on.
Sequential readers are such processes; with Linux read-ahead (``read_ahead_kb``,
default 128) each disk request is one read-ahead window.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import simpy

from ..disk.access import shared_mechanism
from ..engine import run
from ..host.host import BlockLayer, IdleReadahead
from ..records import Completed
from ..stack import Stack
from . import Processes

__all__ = [
    "FFSB_PROFILES",
    "FileSet",
    "ServerResult",
    "dependent_reader",
    "device_stack",
    "ffsb_thread",
    "sequential_readers",
    "simulate",
]

FLUSHER_PID = 1
FFSB_TGID = 1000
META_SECTORS = 8

#: operation mixes of Appendix B (weights of read, write, create, append, delete)
FFSB_PROFILES: dict[str, dict[str, float]] = {
    "web": {"read": 1.0},
    "file": {"read": 0.8, "write": 0.2},
    "mail": {"read": 0.4, "create": 0.4, "delete": 0.2},
    "metadata": {"create": 0.4, "append": 0.4, "delete": 0.2},
}


@dataclass
class FileSet:
    """Files laid out one after another from ``first_lba`` (a freshly made file system).

    ``sizes_kib`` are whole 4 KiB blocks. New files (creates, appends) go to a
    growing free area after the set; metadata writes land in a small area at
    its start (inode tables and the journal, as one region).
    """

    first_lba: int
    sizes_kib: np.ndarray
    starts: np.ndarray = field(init=False)
    free_lba: int = field(init=False)
    meta_lba: int = field(init=False)
    meta_sectors: int = 64 * 1024 * 2

    def __post_init__(self):
        sectors = self.sizes_kib.astype(np.int64) * 2
        self.meta_lba = self.first_lba
        base = self.first_lba + self.meta_sectors
        self.starts = base + np.concatenate(([0], np.cumsum(sectors)[:-1]))
        self.free_lba = int(base + sectors.sum())

    @classmethod
    def small_files(cls, files: int, first_lba: int = 0, min_kib: int = 4, max_kib: int = 64,
                    seed: int = 0) -> FileSet:
        """``files`` files of 4-64 KiB (uniform in 4 KiB steps), as FFSB's create phase."""
        rng = np.random.default_rng(seed)
        sizes = rng.integers(min_kib // 4, max_kib // 4 + 1, size=files) * 4
        return cls(first_lba, sizes)

    @classmethod
    def large_files(cls, files: int, size_mb: float = 50.0, first_lba: int = 0) -> FileSet:
        kib = int(size_mb * 1024) // 4 * 4
        return cls(first_lba, np.full(files, kib, dtype=np.int64), meta_sectors=0)

    def __len__(self) -> int:
        return len(self.sizes_kib)

    def file(self, i: int) -> tuple[int, int]:
        """(first LBA, sectors) of file ``i``."""
        return int(self.starts[i]), int(self.sizes_kib[i]) * 2

    def allocate(self, sectors: int) -> int:
        lba = self.free_lba
        self.free_lba += sectors
        return lba

    @property
    def end_lba(self) -> int:
        return self.free_lba


@dataclass
class ServerResult:
    """What a server run produced: time, work done, and the block layer's records."""

    elapsed_ms: float
    ops: int
    bytes_read: int
    bytes_written: int
    records: list[Completed]
    counters: dict[str, int]
    elevator: dict[str, Any]
    events: list | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def mb_s(self) -> float:
        """Throughput in MB/s (10^6 bytes per second), reads and writes together."""
        return (self.bytes_read + self.bytes_written) / 1e6 / (self.elapsed_ms / 1000.0)

    @property
    def ops_s(self) -> float:
        return self.ops / (self.elapsed_ms / 1000.0)


def dependent_reader(env: simpy.Environment, host: BlockLayer, pid: int,
                     extents: list[tuple[int, int]], io_kib: float, think_ms: float,
                     tally: dict, tgid: int | None = None):
    """Read each ``(lba, sectors)`` extent in ``io_kib`` pieces, one at a time, thinking between.

    A SimPy process body: the next read is issued only ``think_ms`` after the
    previous one completed.
    """
    step = max(1, round(io_kib * 2))
    for lba, sectors in extents:
        end = lba + sectors
        while lba < end:
            n = min(step, end - lba)
            yield host.read(pid, lba, n, tgid=tgid)
            tally["bytes_read"] += n * 512
            tally["ops"] += 1
            lba += n
            if think_ms > 0:
                yield env.timeout(think_ms)


def sequential_readers(env, host, readers: int, fileset: FileSet, mb_per_reader: float,
                       rng: np.random.Generator, io_kib: float = 64.0,
                       read_ahead_kb: float = 128.0, think_ms: float = 0.1, tally=None,
                       tgid: int | None = FFSB_TGID) -> list:
    """Start ``readers`` processes reading randomly chosen whole files from the start.

    Each disk request is one read-ahead window (``max(io_kib, read_ahead_kb)``);
    the reader's CPU time per window is ``think_ms`` per application read it covers.
    """
    tally = tally if tally is not None else {"ops": 0, "bytes_read": 0, "bytes_written": 0}
    window = max(io_kib, read_ahead_kb)
    think = think_ms * window / io_kib
    procs = []
    for k in range(readers):
        want = int(mb_per_reader * 1e6 / 512)
        extents = []
        while want > 0:
            lba, n = fileset.file(int(rng.integers(len(fileset))))
            extents.append((lba, min(n, want)))
            want -= n
        procs.append(env.process(dependent_reader(env, host, 100 + k, extents, window, think,
                                                  tally, tgid=tgid)))
    return procs


def ffsb_thread(env, host, pid: int, profile: str, ops: int, fileset: FileSet,
                rng: np.random.Generator, think_ms: float, tally: dict, writes: list,
                tgid: int = FFSB_TGID):
    """One FFSB worker thread doing ``ops`` operations of a profile's mix."""
    mix = FFSB_PROFILES[profile]
    kinds = list(mix)
    weights = np.array([mix[k] for k in kinds], dtype=float)
    weights /= weights.sum()
    n_files = len(fileset)

    def flush(lba: int, sectors: int) -> None:
        writes.append(host.write(FLUSHER_PID, lba, sectors, tgid=FLUSHER_PID))
        tally["bytes_written"] += sectors * 512

    def meta() -> None:
        off = int(rng.integers(0, max(1, fileset.meta_sectors // META_SECTORS))) * META_SECTORS
        flush(fileset.meta_lba + off, META_SECTORS)

    for _ in range(ops):
        kind = kinds[int(rng.choice(len(kinds), p=weights))]
        if kind == "read":
            lba, n = fileset.file(int(rng.integers(n_files)))
            yield host.read(pid, lba, n, tgid=tgid)
            tally["bytes_read"] += n * 512
        elif kind == "write":
            lba, n = fileset.file(int(rng.integers(n_files)))
            flush(lba, n)
        elif kind in ("create", "append"):
            n = int(rng.integers(1, 17)) * 8
            flush(fileset.allocate(n), n)
            meta()
        else:  # delete
            meta()
        tally["ops"] += 1
        if think_ms > 0:
            yield env.timeout(think_ms)


def device_stack(disk: str = "atlas10k", array: dict | None = None,
                 drive_scheduler: Any = "fcfs", readahead: bool = True,
                 host: tuple = ()) -> Stack:
    """One drive, or an array (``array=dict(drives=28, level=0, stripe_kib=64)``), as the
    paper's servers had them: the drive's idle read-ahead and no other firmware."""
    if array:
        spec = dict(array)
        mech = shared_mechanism(spec.pop("disk", disk))
        return Stack(mech, scheduler=drive_scheduler, firmware=False,
                     service=IdleReadahead if readahead else None, array=spec, host=host)
    mech = shared_mechanism(disk)
    return Stack(mech, scheduler=drive_scheduler, firmware=False,
                 service=IdleReadahead(mech) if readahead else None, host=host)


def array_capacity(disk_stack: Stack) -> int:
    """Logical capacity of an array stack (whole stripe rows of data; parity left out)."""
    spec = disk_stack.array or {}
    n, level = spec["drives"], spec.get("level", 0)
    unit = max(1, round(spec.get("stripe_kib", 64.0) * 2))
    rows = disk_stack.mechanism.layout.capacity // unit
    return rows * unit * (n - 1 if level == 5 else n)


def simulate(workload: str = "web", elevator: str = "noop", disk: str = "atlas10k",
             threads: int = 4, ops: int = 200, mb_per_reader: float = 16.0,
             files: int = 100_000, seq_files: int = 100, array: dict | None = None,
             depth: int = 1, nr_requests: int = 128, drive_scheduler: Any = "fcfs",
             readahead: bool = True, read_ahead_kb: float = 128.0, think_ms: float = 0.1,
             seed: int = 0, trace: bool = False, **tunables) -> ServerResult:
    """Run one server workload on one device under one Linux I/O scheduler.

    ``workload`` is ``web``, ``file``, ``mail``, ``metadata`` (``ops`` per
    thread), ``seq-read`` (``mb_per_reader`` per thread) or ``seq-write``.
    ``tunables`` go to the elevator (``antic_expire=0``, ``quantum=32``, ...).
    """
    def block_layer(env, below):
        return BlockLayer(env, below, elevator, nr_requests=nr_requests, depth=depth,
                          trace=trace, **tunables)

    disk_stack = device_stack(disk, array, drive_scheduler, readahead, host=(block_layer,))
    rng = np.random.default_rng(seed)
    tally = {"ops": 0, "bytes_read": 0, "bytes_written": 0}
    writes: list = []
    if workload == "seq-read":
        fs = FileSet.large_files(seq_files)
    elif workload == "seq-write":
        fs = FileSet.large_files(0)
    elif workload in FFSB_PROFILES:
        fs = FileSet.small_files(files, seed=seed)
    else:
        raise ValueError(f"unknown workload '{workload}'; choose web, file, mail, metadata, "
                         "seq-read or seq-write")
    capacity = (array_capacity(disk_stack) if array
                else disk_stack.mechanism.layout.capacity)
    if fs.end_lba > capacity:
        raise ValueError(f"the {workload} file set needs {fs.end_lba} sectors; the device has "
                         f"{capacity}")
    state: dict[str, Any] = {}

    def start(built):
        env, host = built.env, built.top
        state["host"] = host
        if workload == "seq-read":
            procs = sequential_readers(env, host, threads, fs, mb_per_reader, rng,
                                       read_ahead_kb=read_ahead_kb, think_ms=think_ms,
                                       tally=tally)
        elif workload == "seq-write":
            procs = [env.process(_seq_writer(env, host, 100 + k, fs, mb_per_reader, think_ms,
                                             tally, writes)) for k in range(threads)]
        else:
            rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(threads)]
            procs = [env.process(ffsb_thread(env, host, 100 + k, workload, ops, fs, rngs[k],
                                             think_ms, tally, writes)) for k in range(threads)]

        def finish():
            yield env.all_of(procs)
            while writes:  # end_fsync: wait for the writeback too
                pending = list(writes)
                writes.clear()
                yield env.all_of(pending)
            return env.now

        return env.process(finish())

    res = run(disk_stack, Processes(start, workload))
    host = state["host"]
    el = host.elevator
    info = {"name": el.name, "tunables": el.tunables(), "stats": dict(getattr(el, "stats", {}))}
    return ServerResult(res.meta["end_ms"], tally["ops"], tally["bytes_read"],
                        tally["bytes_written"], host.records, dict(host.counters), info,
                        host.events, meta={"workload": workload, "disk": disk, "array": array,
                                           "depth": depth, "threads": threads})


def _seq_writer(env, host, pid, fs: FileSet, mb: float, think_ms: float, tally, writes,
                io_kib: float = 64.0):
    """Create a file by 64 KiB buffered writes; the flusher writes them behind."""
    step = round(io_kib * 2)
    total = int(mb * 1e6 / 512) // step * step
    lba = fs.allocate(total)
    for off in range(0, total, step):
        writes.append(host.write(FLUSHER_PID, lba + off, step, tgid=FLUSHER_PID))
        tally["bytes_written"] += step * 512
        tally["ops"] += 1
        if think_ms > 0:
            yield env.timeout(think_ms)
