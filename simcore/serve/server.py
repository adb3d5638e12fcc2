"""The NBD server: requests enter the simulated drive's queue when they arrive
and are answered at the model's completion time.

This is timing-accurate storage emulation in the sense of Griffin et al.
(FAST 2002): the disk model runs against the wall clock, so unmodified tools
(fio's ``nbd`` engine, QEMU's NBD client and the guest kernel behind it) see a
spinning disk. Deadlines are absolute, so a late wake-up delays one reply but
never the model: throughput stays the model's. Every request is logged with
its arrival, the model's finish and the actual reply time; lateness is the
actual minus the model's finish.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import csv
import dataclasses
import gc
import itertools
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ..disk.profile import DiskProfile
from . import protocol as p
from .adapter import Done, RealtimeDrive
from .clock import Alarm, Clock, raise_priority, set_timer_slack_ns
from .store import SparseStore

SECTOR = 512
#: The server wakes this long (ms) before the model's next event and takes the events due
#: by then at once, so a reply leaves at about the model's time rather than a wake-up and
#: the model's own work (about 0.1 to 0.2 ms here) after it. It starts at LEAD_MS and then
#: follows the replies' lateness (a share LEAD_GAIN of each), within [0, LEAD_MAX_MS]; the
#: model may run ahead of the wall clock by at most the lead, and a request arriving then
#: enters the model at the model's time (the log's arrival is the model's).
LEAD_MS, LEAD_MAX_MS, LEAD_GAIN = 0.1, 1.0, 0.1
#: At most this many connections' first requests are kept for :meth:`DiskServer.first_offsets`.
MAX_FIRST = 1024
LOG_COLUMNS = ("id", "conn", "op", "offset", "bytes", "arrival_ms", "start_ms",
               "model_finish_ms", "actual_finish_ms", "lateness_ms", "cache_hit")


@dataclasses.dataclass
class _Inflight:
    conn: int
    writer: asyncio.StreamWriter
    cmd: p.Command
    op: str
    arrival_ms: float
    data: bytes | bytearray = b""


def with_seed(profile: DiskProfile, seed: int | None) -> DiskProfile:
    """The profile with its platter phase at start drawn from ``seed`` (None keeps it)."""
    if seed is None:
        return profile
    phase = float(np.random.default_rng(seed).random())
    return dataclasses.replace(profile, initial_angle=phase)


def lateness_summary(lateness_ms: np.ndarray) -> dict[str, Any]:
    """Mean and percentiles (ms) of actual minus model finish times."""
    x = np.asarray(lateness_ms, dtype=float)
    if not len(x):
        return {"requests": 0}
    q = np.percentile(x, [50, 90, 99])
    return {"requests": len(x), "mean_ms": float(x.mean()), "p50_ms": float(q[0]),
            "p90_ms": float(q[1]), "p99_ms": float(q[2]), "max_ms": float(x.max())}


class DiskServer:
    """One simulated drive exported over NBD to any number of connections."""

    def __init__(self, profile: DiskProfile, *, scheduler: Any = "fcfs", cache: bool = True,
                 seed: int | None = None, backing: str | None = None,
                 export_name: str = "", realtime: bool = True) -> None:
        self.profile = with_seed(profile, seed)
        self.scheduler, self.cache = scheduler, cache
        self.drive: RealtimeDrive | None = None
        self.size = 0
        self.backing = backing
        self.export_name = export_name or self.profile.id
        self.log: list[tuple] = []
        self._inflight: dict[int, _Inflight] = {}
        self._per_conn: dict[int, int] = {}
        # each connection's replies not yet followed by a request, and how long the client took
        # to send the next one after each (fio sends one per reply: see lateness())
        self._replied: dict[int, collections.deque] = {}
        self.client_delays: list[float] = []
        # each connection's first read or write: (connection, byte offset), in arrival order
        self._first: dict[int, int] = {}
        self._ids = itertools.count()
        self._tasks: set[asyncio.Task] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self.stopping = False
        self._conns = itertools.count()
        self.precise = False
        self.realtime = realtime
        self.priority = "normal"
        self.lead_ms = LEAD_MS  # see LEAD_MS

    # -- set-up ---------------------------------------------------------------
    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        set_timer_slack_ns(1)
        if self.realtime:
            self.priority = raise_priority()
        self.drive = RealtimeDrive(self.profile, self.scheduler, self.cache)
        self.size = self.drive.capacity_sectors * SECTOR
        self.store = SparseStore(self.size, self.backing)
        flags = p.TF_HAS_FLAGS | p.TF_SEND_FLUSH | p.TF_ROTATIONAL
        self.export = p.Export(self.export_name, self.size, flags)
        self.clock = Clock()
        self.alarm = Alarm(loop, self.clock, self._tick)
        self.precise = self.alarm.precise

    async def serve(self, socket_path: str | None = None, port: int | None = None,
                    stop: asyncio.Event | None = None,
                    on_ready: Callable[[str], None] | None = None) -> None:
        """Serve until ``stop`` is set (or SIGINT/SIGTERM), then finish what is in flight."""
        loop = asyncio.get_running_loop()
        self._start(loop)
        stop = stop or asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, stop.set)
        if socket_path is not None:
            server = await asyncio.start_unix_server(self._client, path=socket_path)
            where = f"nbd+unix:///?socket={socket_path}"
        else:
            server = await asyncio.start_server(self._client, host="127.0.0.1", port=port or 0)
            bound = server.sockets[0].getsockname()[1]
            where = f"nbd://127.0.0.1:{bound}"
        self.uri = where
        gc.collect()
        gc.freeze()  # fewer, shorter collections while serving
        if on_ready is not None:
            on_ready(where)
        try:
            await stop.wait()
        finally:
            server.close()
            self.stopping = True  # new commands are refused with ESHUTDOWN from here on
            for _ in range(1000):  # up to ~10 s for in-flight requests to be answered
                if not self._inflight:
                    break
                await asyncio.sleep(0.01)
            for w in list(self._writers):
                w.close()  # the clients' readers see EOF and their tasks end
            if self._tasks:
                await asyncio.wait(list(self._tasks), timeout=5)
            with contextlib.suppress(Exception):
                await server.wait_closed()
            self.alarm.close()
            self.store.close()
            if socket_path is not None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(socket_path)
            gc.unfreeze()

    # -- connections -----------------------------------------------------------
    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = next(self._conns)
        self._per_conn[conn] = 0
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        self._writers.add(writer)
        try:
            if not await p.handshake(reader, writer, self.export):
                return
            _big_send_buffer(writer)
            while True:
                cmd = await p.read_command(reader)
                if cmd.kind == p.CMD_DISC:
                    break
                payload = b""
                if cmd.kind == p.CMD_WRITE:
                    if cmd.length > p.MAX_REQUEST:
                        raise p.ProtocolError(f"write of {cmd.length} bytes is too large")
                    payload = await reader.readexactly(cmd.length)
                self._arrive(conn, writer, cmd, payload)
            while self._per_conn.get(conn):  # answer what is in flight before closing
                await asyncio.sleep(0.005)
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        except p.ProtocolError as exc:
            print(f"simcore serve: connection {conn}: {exc}", file=sys.stderr)
        finally:
            self._per_conn.pop(conn, None)
            self._writers.discard(writer)
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    def _arrive(self, conn: int, writer: asyncio.StreamWriter, cmd: p.Command,
                payload: bytes) -> None:
        now = self.clock.now_ms()
        kind = cmd.kind
        if kind not in (p.CMD_READ, p.CMD_WRITE, p.CMD_FLUSH):
            writer.write(p.reply(cmd.handle, p.EINVAL))
            return
        if self.stopping:
            writer.write(p.reply(cmd.handle, p.ESHUTDOWN))
            return
        if kind != p.CMD_FLUSH and (cmd.offset + cmd.length > self.size or cmd.length == 0):
            err = p.ENOSPC if kind == p.CMD_WRITE and cmd.length else p.EINVAL
            writer.write(p.reply(cmd.handle, 0 if cmd.length == 0 else err))
            return
        op = {p.CMD_READ: "read", p.CMD_WRITE: "write", p.CMD_FLUSH: "flush"}[kind]
        rid = next(self._ids)
        replied = self._replied.get(conn)
        if replied:
            self.client_delays.append(now - replied.popleft())
        if kind == p.CMD_WRITE:
            self.store.write(cmd.offset, payload)
        if kind != p.CMD_FLUSH and conn not in self._first and len(self._first) < MAX_FIRST:
            self._first[conn] = cmd.offset
        self._inflight[rid] = _Inflight(conn, writer, cmd, op, now)
        self._per_conn[conn] = self._per_conn.get(conn, 0) + 1
        if kind == p.CMD_FLUSH and not self.drive.has_cache:
            # nothing is buffered: the platter already holds every write
            self._answer([Done(rid, now, now, False)])
            return
        if kind == p.CMD_FLUSH:
            lba, sectors = 0, 1
        else:
            lba = cmd.offset // SECTOR
            sectors = -(-(cmd.offset + cmd.length) // SECTOR) - lba
        done = self.drive.submit(rid, op, lba, sectors, now, client=conn)
        # the model may be ahead of the wall clock (by the lead at most): the request entered
        # it at the model's time, which the log keeps so an offline replay gives the same
        self._inflight[rid].arrival_ms = max(now, self.drive.now_ms)
        if kind == p.CMD_READ:
            # build the reply now: copying megabytes at the deadline would make it late
            self._inflight[rid].data = self.store.reply(p.reply(cmd.handle), cmd.offset,
                                                        cmd.length)
        self._answer(done)
        self._rearm()

    # -- completions -----------------------------------------------------------
    def _tick(self) -> None:
        now = self.clock.now_ms()
        due = self.drive.next_event_ms()
        if due is not None and now < due <= now + self.lead_ms:
            now = due  # woken a lead early (see LEAD_MS): take the event now
        self._answer(self.drive.advance(now))
        self._rearm()

    def _rearm(self) -> None:
        due = self.drive.next_event_ms()
        self.alarm.arm(None if due is None else due - self.lead_ms)

    def _answer(self, done: list[Done]) -> None:
        for d in done:
            f = self._inflight.pop(d.id, None)
            if f is None:
                continue
            cmd = f.cmd
            if cmd.kind == p.CMD_READ:
                f.writer.write(f.data)
            else:
                if cmd.kind == p.CMD_FLUSH:
                    self.store.sync()
                f.writer.write(p.reply(cmd.handle))
            actual = self.clock.now_ms()
            self._replied.setdefault(f.conn, collections.deque()).append(actual)
            lead = self.lead_ms + LEAD_GAIN * (actual - d.finish_ms)
            self.lead_ms = 0.0 if lead < 0.0 else (LEAD_MAX_MS if lead > LEAD_MAX_MS else lead)
            self._per_conn[f.conn] = self._per_conn.get(f.conn, 1) - 1
            self.log.append((d.id, f.conn, f.op, cmd.offset, cmd.length, f.arrival_ms,
                             d.start_ms, d.finish_ms, actual, actual - d.finish_ms,
                             int(d.cache_hit)))

    # -- results ---------------------------------------------------------------
    def lateness(self) -> dict[str, Any]:
        """Lateness percentiles over every answered request, and the client's delays.

        A client that sends its next request on each reply (fio) and waits for a CPU first
        sends it late, which slows what it measures as much as a late reply, though the
        server is punctual: ``client_mean_ms`` is the mean time from a reply to the
        connection's next request (over ``client_requests`` of them; the first requests of a
        connection follow no reply and are not counted).
        """
        out = lateness_summary(np.array([r[9] for r in self.log]))
        d = self.client_delays
        return {**out, "client_requests": len(d),
                "client_mean_ms": float(np.mean(d)) if d else 0.0}

    def first_offsets(self) -> list[int]:
        """The byte offset of each connection's first read or write, in the order those requests
        entered the drive's queue (at most :data:`MAX_FIRST` connections).

        With one request outstanding per connection under FCFS, the drive serves the
        connections in a fixed cycle, the order their first requests arrived (Lab 6's
        readers: :func:`simcore.serve.predict.stream_order`); ``--stats`` writes it as
        ``first_offsets``.
        """
        return list(self._first.values())

    def write_log(self, path: str) -> None:
        with open(path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(LOG_COLUMNS)
            for r in self.log:
                w.writerow(r[:5] + tuple(f"{x:.6f}" for x in r[5:10]) + r[10:])


def _big_send_buffer(writer: asyncio.StreamWriter, size: int = 8 << 20) -> None:
    """Let one reply of megabytes go to the kernel in one send, not in pieces after the deadline.

    SO_SNDBUFFORCE needs privilege; SO_SNDBUF is capped by ``net.core.wmem_max``.
    """
    import socket

    sock = writer.get_extra_info("socket")
    if sock is None:
        return
    for opt in (getattr(socket, "SO_SNDBUFFORCE", None), socket.SO_SNDBUF):
        if opt is None:
            continue
        try:
            sock.setsockopt(socket.SOL_SOCKET, opt, size)
            return
        except OSError:
            continue


def read_log(path: str) -> list[dict[str, Any]]:
    """A served log back as dicts of numbers (for tests and the chapter)."""
    rows = []
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            rows.append({k: (v if k == "op" else float(v)) for k, v in row.items()})
    return rows
