"""Ports: one call, ``read(client, lba, sectors) -> simpy.Event``, whatever sits below.

The many-streams model (seed 004, notes ``004_multistream.md``) stacks host
schemes (:mod:`simcore.dispatch`, :mod:`simcore.host_readahead`), a
controller cache (:mod:`simcore.controller_cache`) and a block layer on top of
a drive. Each layer talks to the one below through this narrow interface: a
read of ``sectors`` sectors at ``lba`` on behalf of ``client`` returns an event
that fires, with the :class:`~simcore.records.Completed` record, when the data
is in the caller's memory. A layer that is itself a port can be stacked again.

* :class:`DrivePort`: straight into a :class:`~simcore.drive.Drive`'s queue
  (the DiskSim study: the controller queue holds every stream's request, the
  drive's policy orders them).
* :class:`BlockPort`: through a Linux-like :class:`~simcore.host.BlockLayer`
  (the thesis's storage node ran Linux 2.6.11).

Both split a read larger than ``max_kib`` (default 512 KiB, the common
``max_sectors_kb``) into consecutive commands issued at once, as the block
layer splits a large bio; the caller's event fires when the last one is done.
(It also keeps every command within one drive-cache segment of the WD800JD
profile: 8 MiB / 16 segments.)
"""

from __future__ import annotations

import itertools
from typing import Protocol

import simpy

from ..drive.drive import Drive
from ..records import READ, Completed, Request
from .host import BlockLayer

__all__ = ["BlockPort", "DrivePort", "ReadPort"]


class ReadPort(Protocol):
    """Anything that reads: the drive, a block layer, a controller cache, a host scheme."""

    env: simpy.Environment

    def read(self, client: int, lba: int, sectors: int) -> simpy.Event: ...


def _split(env: simpy.Environment, one, client: int, lba: int, sectors: int,
           max_sectors: int) -> simpy.Event:
    """Issue ``[lba, lba + sectors)`` as pieces of at most ``max_sectors``; one event for all."""
    if sectors <= max_sectors:
        return one(client, lba, sectors)
    parts = []
    k, end = lba, lba + sectors
    while k < end:
        n = min(max_sectors, end - k)
        parts.append(one(client, k, n))
        k += n
    ev = env.event()

    def all_done(_):
        recs = [p.value for p in parts]
        a, z = recs[0], recs[-1]
        ev.succeed(Completed(a.id, a.op, lba, sectors, a.arrival_ms, a.start_ms, z.finish_ms,
                             a.queue_ms, sum(r.overhead_ms for r in recs),
                             sum(r.seek_ms for r in recs), sum(r.rotation_ms for r in recs),
                             sum(r.transfer_ms for r in recs), sum(r.interface_ms for r in recs),
                             z.finish_ms - a.arrival_ms, client,
                             all(r.cache_hit for r in recs)))

    env.all_of(parts).callbacks.append(all_done)
    return ev


class DrivePort:
    """Requests go straight into the drive's queue; its policy picks among them."""

    def __init__(self, env: simpy.Environment, drive: Drive, max_kib: float = 512.0):
        self.env = env
        self.drive = drive
        self.max_sectors = max(1, int(max_kib * 2))
        self._waiting: dict[int, simpy.Event] = {}
        self._ids = itertools.count()
        drive.on_complete = self._done

    def read(self, client: int, lba: int, sectors: int) -> simpy.Event:
        return _split(self.env, self._one, client, int(lba), int(sectors), self.max_sectors)

    def _one(self, client: int, lba: int, sectors: int) -> simpy.Event:
        rid = next(self._ids)
        ev = self.env.event()
        self._waiting[rid] = ev
        self.drive.submit(Request(rid, self.env.now, READ, lba, sectors, client))
        return ev

    def _done(self, rec: Completed) -> None:
        ev = self._waiting.pop(rec.id, None)
        if ev is not None:
            ev.succeed(rec)

    @property
    def records(self) -> list[Completed]:
        return self.drive.completed


class BlockPort:
    """Requests pass a host block layer (elevator, merging, device queue depth) first.

    ``pid_of(client)`` says which process submits for a client: the thesis's
    storage server is one process issuing asynchronous direct I/O for every
    stream (``lambda c: 0``, the default); separate reader processes, as fio
    runs them, are ``lambda c: c``.
    """

    def __init__(self, env: simpy.Environment, layer: BlockLayer, pid_of=None,
                 max_kib: float = 512.0):
        self.env = env
        self.layer = layer
        self.pid_of = pid_of or (lambda c: 0)
        self.max_sectors = max(1, int(max_kib * 2))

    def read(self, client: int, lba: int, sectors: int) -> simpy.Event:
        return _split(self.env, self._one, client, int(lba), int(sectors), self.max_sectors)

    def _one(self, client: int, lba: int, sectors: int) -> simpy.Event:
        return self.layer.read(self.pid_of(client), lba, sectors)

    @property
    def records(self) -> list[Completed]:
        return self.layer.device.completed
