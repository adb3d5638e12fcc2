"""The host side of an I/O: a tiny kernel, a Bonnie-like file benchmark and an hdparm-like read.

Seed: Gray 2000 Ch. 5 (§5.2-5.4 of ``notes/000_gray_dma.md``): Bonnie's block
write and block read of a file several times the size of memory, and
``hdparm -t``'s sequential raw read at the start of the disk, on a Celeron 450
under Linux 2.2.12, with the IDE disk in PIO mode 4 and in "DMA multiword 3"
(really Ultra DMA mode 2).

What is modelled (the "file-system path, approximated"):

- a :class:`Host`: one :class:`~simcore.cpu.Cpu`, channels, drives with
  their buffers and ports; issuing a command costs the CPU
  :meth:`Port.setup_us <simcore.drive.interface.Port.setup_us>`;
- an ext2-like file (:func:`ext2_extents`): 1 KiB blocks, an indirect block
  before every 256 data blocks, and a block group (block and inode bitmaps,
  inode table) every 8 MiB that the file's data skips;
- reading: the kernel's read-ahead keeps ``readahead_kib`` ahead of the
  program, one request of at most ``request_kib`` at a time (an IDE channel
  takes one command); the program copies each ``chunk_kib`` chunk to user
  space (:attr:`HostCosts.memcpy_mb_s <simcore.drive.interface.HostCosts>`) and
  pays the file system's CPU per KiB;
- writing: the program copies chunks into the buffer cache, a flusher writes
  them out in file order, the program blocks while more than
  ``dirty_limit_kib`` is waiting; the run ends when all data is on the drive;
- ``hdparm -t``: synchronous reads of ``request_kib`` from LBA 0, each
  followed by its copy to user space.

Not modelled: the page cache's own hit rate (files are read once), Bonnie's
per-character and random-seek phases, the elevator (one stream, in order).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import simpy

from ..drive.cache import FLUSH, CacheConfig
from ..drive.cpu import KERNEL, Cpu, Hog
from ..drive.interface import Port
from ..engine import run
from ..records import READ, WRITE, Completed, Request
from ..stack import Stack, as_mechanism
from ..workloads import Processes

__all__ = ["FileSystemCosts", "Host", "HostResult", "bonnie_read", "bonnie_write", "ext2_extents",
           "hdparm_t", "one_request"]

KIB_SECTORS = 2


@dataclass(frozen=True)
class FileSystemCosts:
    """How the benchmark program talks to the kernel (sizes in KiB)."""

    chunk_kib: int = 16
    request_kib: int = 64
    readahead_kib: int = 128
    dirty_limit_kib: int = 2048
    partition_gib: float = 2.0
    block_kib: int = 1
    group_blocks: int = 8192
    group_meta_blocks: int = 260
    indirect_every: int = 256


@dataclass
class HostResult:
    """What one benchmark run measured (rates: KiB/s as Bonnie prints 'KB/sec', MiB/s as hdparm)."""

    job: str
    mode: str
    bytes: int
    elapsed_ms: float
    cpu_ms: float
    interrupts: int
    requests: int
    cache: dict
    hog_ms: float | None = None
    records: list[Completed] = field(default_factory=list, repr=False)
    samples: list | None = field(default=None, repr=False)
    cpu_trace: list | None = field(default=None, repr=False)
    bus_trace: list | None = field(default=None, repr=False)
    media_trace: list | None = field(default=None, repr=False)

    @property
    def kib_s(self) -> float:
        return self.bytes / 1024 / (self.elapsed_ms / 1000.0)

    @property
    def mib_s(self) -> float:
        return self.bytes / 2**20 / (self.elapsed_ms / 1000.0)

    @property
    def mb_s(self) -> float:
        return self.bytes / 1e6 / (self.elapsed_ms / 1000.0)

    @property
    def cpu_pct(self) -> float:
        """The benchmark's own CPU time (system calls, copies, its interrupts) per elapsed time."""
        return 100.0 * self.cpu_ms / self.elapsed_ms

    @property
    def hog_pct(self) -> float | None:
        """Share of the CPU a concurrent CPU-bound job got (None when there was none)."""
        return None if self.hog_ms is None else 100.0 * self.hog_ms / self.elapsed_ms

    def summary(self) -> dict[str, Any]:
        out = {"job": self.job, "mode": self.mode, "kib_s": self.kib_s, "mib_s": self.mib_s,
               "cpu_pct": self.cpu_pct, "elapsed_ms": self.elapsed_ms,
               "interrupts": self.interrupts, "requests": self.requests}
        if self.hog_ms is not None:
            out["hog_pct"] = self.hog_pct
        return out


class Host:
    """One machine: a CPU, channels and drives, and a way to issue I/O from a process.

    ``drives`` is a list of ``(disk, port, cache, channel_name)``; drives
    naming the same channel share it (master and slave on one cable). The
    machine is a system of stacks (one per drive, sharing the CPU and the named
    channels) that :func:`simcore.engine.run` builds; :meth:`run` runs a
    benchmark's processes on it.
    """

    def __init__(self, drives: list[tuple[Any, Port, Any, str]], hog: bool = False,
                 trace: bool = False):
        self.cpu_trace = [] if trace else None
        self.bus_trace = [] if trace else None
        self.media_trace = [] if trace else None
        self.ports: list[Port] = [port for _, port, _, _ in drives]
        self.stacks = [Stack(as_mechanism(disk), firmware=True,
                             cache=cache if cache is not None else True, interface=port,
                             channel=chan_name, cpu=True, trace=self.media_trace,
                             name=f"hd{chr(97 + i)}")
                       for i, (disk, port, cache, chan_name) in enumerate(drives)]
        self._hog = hog
        self._waiting: dict[int, simpy.Event] = {}
        self._ids = 0

    def run(self, body: Callable[[simpy.Environment, Cpu], simpy.Event]) -> float:
        """Build the machine, start ``body(env, cpu)``'s processes, run until the event it
        returns; the simulated end time."""

        def start(built):
            self.env, self.cpu = built.env, built.shared.cpu
            self.channels = built.shared.channels
            self.drives = [part.device for part in built.parts]
            for part in built.parts:
                part.on_complete(self._done)
            self.hog = Hog(self.env, self.cpu) if self._hog else None
            return body(self.env, self.cpu)

        res = run(self.stacks, Processes(start, "host"), cpu_trace=self.cpu_trace,
                  bus_trace=self.bus_trace)
        return res.meta["end_ms"]

    def _done(self, rec: Completed) -> None:
        ev = self._waiting.pop(rec.id, None)
        if ev is not None:
            ev.succeed(rec)

    def io(self, op: str, lba: int, sectors: int, client=0, drive: int = 0):
        """A generator: issue one command and wait for it (``rec = yield from host.io(...)``)."""
        port = self.ports[drive]
        setup = port.setup_us(sectors * 512) / 1000.0
        if setup > 0:
            yield from self.cpu.work(setup, owner=client, kind="setup", priority=KERNEL)
        self._ids += 1
        rid = self._ids
        ev = self.env.event()
        self._waiting[rid] = ev
        self.drives[drive].submit(Request(rid, self.env.now, op, lba, sectors, client))
        rec = yield ev
        return rec

    def result(self, job: str, nbytes: int, elapsed_ms: float, client=0) -> HostResult:
        d = self.drives[0]
        stats = dict(d.cache.stats)
        return HostResult(job, self.ports[0].mode.name, nbytes, elapsed_ms,
                          self.cpu.used_ms(client), sum(x.interrupts for x in self.drives),
                          len(d.completed), stats,
                          hog_ms=self.hog.progress_ms if self.hog is not None else None,
                          records=list(d.completed), cpu_trace=self.cpu_trace,
                          bus_trace=self.bus_trace, media_trace=self.media_trace)


def _port(port) -> Port:
    return port if isinstance(port, Port) else Port.of(port)


def ext2_extents(start_lba: int, file_kib: int, fs: FileSystemCosts = FileSystemCosts()
                 ) -> list[tuple[str, int, int]]:
    """Where an ext2-like file lies: ``[(kind, lba, sectors), ...]`` in file order.

    ``kind`` is ``"data"`` or ``"indirect"`` (a 1 KiB block mapping the next
    ``indirect_every`` blocks, read before them). Every ``group_blocks``
    blocks a block group starts with ``group_meta_blocks`` of bitmaps and
    inode table that the file skips. The first 12 blocks are direct.
    """
    bs = fs.block_kib * KIB_SECTORS
    blocks = file_kib // fs.block_kib
    out: list[tuple[str, int, int]] = []
    block_no = fs.group_meta_blocks  # the file starts after the first group's metadata
    placed = 0

    def put(kind: str, count: int) -> None:
        nonlocal block_no
        while count:
            group_left = fs.group_blocks - block_no % fs.group_blocks
            if block_no % fs.group_blocks == 0:
                block_no += fs.group_meta_blocks
                continue
            n = min(count, group_left)
            lba = start_lba + block_no * bs
            if out and out[-1][0] == kind == "data" and out[-1][1] + out[-1][2] == lba:
                out[-1] = (kind, out[-1][1], out[-1][2] + n * bs)
            else:
                out.append((kind, lba, n * bs))
            block_no += n
            count -= n

    direct = min(12, blocks)
    put("data", direct)
    placed = direct
    while placed < blocks:
        put("indirect", 1)
        n = min(fs.indirect_every, blocks - placed)
        put("data", n)
        placed += n
    return out


def _requests(extents, request_sectors: int):
    """Split extents into commands of at most ``request_sectors`` (indirect blocks alone)."""
    for kind, lba, n in extents:
        if kind != "data":
            yield kind, lba, n
            continue
        while n:
            k = min(n, request_sectors)
            yield kind, lba, k
            lba += k
            n -= k


def hdparm_t(disk="maxtor92048u8", port="udma2", cache=None, size_mib: float = 64,
             fs: FileSystemCosts = FileSystemCosts(), hog: bool = False,
             trace: bool = False, sample_ms: float | None = None) -> HostResult:
    """``hdparm -t``: read ``size_mib`` MiB from LBA 0 in ``request_kib`` pieces, one at a time.

    With ``sample_ms`` the result's ``samples`` hold ``(time, buffer contents, LBA the
    program has reached)`` every ``sample_ms`` ms (for pictures of the read-ahead).
    """
    port = _port(port)
    host = Host([(disk, port, cache, "ide0")], hog=hog, trace=trace)
    costs = port.costs
    req = fs.request_kib * KIB_SECTORS
    total = int(size_mib * 2048)
    samples: list = []
    reached = {"lba": 0}

    def body(env, cpu):
        done = env.event()

        def sampler():
            cache = host.drives[0].cache
            while not done.triggered:
                samples.append((env.now, cache.contents(env.now), reached["lba"]))
                yield env.timeout(sample_ms)

        def prog():
            lba = 0
            while lba < total:
                n = min(req, total - lba)
                yield from host.io(READ, lba, n)
                yield from cpu.work((costs.syscall_us + costs.copy_us(n * 512)) / 1000.0,
                                    owner=0, kind="copy", priority=KERNEL)
                lba += n
                reached["lba"] = lba
            done.succeed()

        env.process(prog())
        if sample_ms:
            env.process(sampler())
        return done

    end = host.run(body)
    out = host.result("hdparm -t", total * 512, end)
    out.samples = samples if sample_ms else None
    return out


def _bonnie_file(disk, port, cache, file_mib: float, fs: FileSystemCosts, hog: bool,
                 trace: bool):
    """What Bonnie's block read and block write share: the machine, the host's costs, the
    partition's first LBA, the file's commands in file order, the file offset (sectors of
    data) reached after each command, and the file's size in sectors."""
    port = _port(port)
    host = Host([(disk, port, cache, "ide0")], hog=hog, trace=trace)
    start = int(fs.partition_gib * 2**30 / 512)
    ext = ext2_extents(start, int(file_mib * 1024), fs)
    reqs = list(_requests(ext, fs.request_kib * KIB_SECTORS))
    data_after = np.cumsum([n if k == "data" else 0 for k, _, n in reqs])
    return host, port.costs, start, reqs, data_after, int(data_after[-1])


def bonnie_read(disk="maxtor92048u8", port="udma2", cache=None, file_mib: float = 64,
                fs: FileSystemCosts = FileSystemCosts(), hog: bool = False,
                trace: bool = False) -> HostResult:
    """Bonnie's block read: ``read()`` of ``chunk_kib`` chunks through the file system."""
    host, costs, _start, reqs, data_after, total = _bonnie_file(disk, port, cache, file_mib, fs,
                                                               hog, trace)

    def body(env, cpu):
        state = {"read": 0, "consumed": 0}
        progress = env.event()
        finished = env.event()

        def kernel():
            nonlocal progress
            ahead = fs.readahead_kib * KIB_SECTORS
            for i, (_kind, lba, n) in enumerate(reqs):
                while state["read"] - state["consumed"] >= ahead:
                    yield progress
                yield from host.io(READ, lba, n)
                state["read"] = int(data_after[i])
                ev, progress = progress, env.event()
                ev.succeed()

        def program():
            nonlocal progress
            chunk = fs.chunk_kib * KIB_SECTORS
            per_chunk = (costs.syscall_us + fs.chunk_kib * costs.fs_read_us_per_kib
                         + costs.copy_us(chunk * 512)) / 1000.0
            pos = 0
            while pos < total:
                end = min(pos + chunk, total)
                while state["read"] < end:
                    yield progress
                yield from cpu.work(per_chunk * (end - pos) / chunk, owner=0, kind="copy",
                                    priority=KERNEL)
                pos = state["consumed"] = end
                ev, progress = progress, env.event()
                ev.succeed()
            finished.succeed()

        env.process(kernel())
        env.process(program())
        return finished

    end = host.run(body)
    return host.result("bonnie block read", total * 512, end)


def bonnie_write(disk="maxtor92048u8", port="udma2", cache=None, file_mib: float = 64,
                 fs: FileSystemCosts = FileSystemCosts(), hog: bool = False,
                 trace: bool = False, flush: bool = False) -> HostResult:
    """Bonnie's block write: ``write()`` of chunks, flushed to the drive in file order.

    The run ends when the last command has completed (and, with ``flush``,
    when the drive has written its buffer to the platter).
    """
    host, costs, start, reqs, data_after, total = _bonnie_file(disk, port, cache, file_mib, fs,
                                                               hog, trace)

    def body(env, cpu):
        group = fs.group_blocks * fs.block_kib * KIB_SECTORS
        state = {"dirty_to": 0, "written": 0, "app_done": False}
        changed = env.event()
        finished = env.event()

        def poke():
            nonlocal changed
            ev, changed = changed, env.event()
            ev.succeed()

        def program():
            chunk = fs.chunk_kib * KIB_SECTORS
            per_chunk = (costs.syscall_us + fs.chunk_kib * costs.fs_write_us_per_kib
                         + costs.copy_us(chunk * 512)) / 1000.0
            limit = fs.dirty_limit_kib * KIB_SECTORS
            pos = 0
            while pos < total:
                while pos - state["written"] >= limit:
                    yield changed
                end = min(pos + chunk, total)
                yield from cpu.work(per_chunk * (end - pos) / chunk, owner=0, kind="copy",
                                    priority=KERNEL)
                pos = state["dirty_to"] = end
                poke()
            state["app_done"] = True
            poke()

        def flusher():
            last_group = (reqs[0][1] - start) // group
            for i, (_kind, lba, n) in enumerate(reqs):
                while state["dirty_to"] < data_after[i] and not state["app_done"]:
                    yield changed
                g = (lba - start) // group
                if g != last_group:  # leaving a group: its block bitmap goes out too
                    yield from host.io(WRITE, start + last_group * group, KIB_SECTORS)
                    last_group = g
                yield from host.io(WRITE, lba, n)
                state["written"] = int(data_after[i])
                poke()
            yield from host.io(WRITE, start + last_group * group, KIB_SECTORS)
            if flush:
                yield from host.io(FLUSH, 0, 1)
            finished.succeed()

        env.process(program())
        env.process(flusher())
        return finished

    end = host.run(body)
    return host.result("bonnie block write", total * 512, end)


def one_request(disk="maxtor92048u8", port="udma2", kib: float = 64, op: str = READ,
                lba: int | None = None, cache: CacheConfig | None = None,
                seed: int = 0) -> HostResult:
    """One command on an idle system, with every CPU, bus and media interval traced."""
    port = _port(port)
    mech = as_mechanism(disk)
    host = Host([(mech, port, cache, "ide0")], trace=True)
    n = int(kib * KIB_SECTORS)
    if lba is None:
        rng = np.random.default_rng(seed)
        lba = int(rng.integers(0, mech.layout.capacity // 4))

    def body(env, cpu):
        done = env.event()

        def prog():
            yield from host.io(op, lba, n)
            done.succeed()

        env.process(prog())
        return done

    end = host.run(body)
    return host.result(f"one {'write' if op == WRITE else 'read'}", n * 512, end)
