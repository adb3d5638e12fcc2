"""Disk arrays: RAID-0 and RAID-5 striping over several drives behind one logical device.

Seed 001 §3.3: the paper's arrays are hardware LUNs (a 5-disk RAID-5 behind
FAStT700 controllers, a 28-disk RAID-0 of 15,000 RPM drives); seed 003 uses a
9-disk RAID-5. The host sees one device with one queue; the controller maps
each request onto the member drives by stripe unit and they work in parallel.
That is the point for the schedulers: an array has "one head per member
disk" (note §2.3 item 5), so a scheduler that keeps one read in flight
(anticipation) leaves most of them idle.

Mapping (stripe unit ``u`` sectors, ``n`` drives):

* RAID-0: chunk ``c = lba // u`` lives on drive ``c % n`` at row ``c // n``.
* RAID-5, left-symmetric (the Linux md default): row ``r`` holds ``n - 1``
  data chunks and one parity chunk on drive ``n - 1 - r % n``; data chunk
  ``k`` of the row is on drive ``(parity + 1 + k) % n``. A read touches only
  data chunks. A write that covers whole rows writes data and parity; a
  partial-row write is a read-modify-write: read old data and old parity,
  then write new data and new parity (four I/Os for a small write).

The controller itself is free and instant (no cache, no XOR time); member
drives keep their own queues and policies. Spindles are not synchronised: each
member starts at its own platter angle.

**The host link.** A hardware LUN reaches the host through one adapter port,
which every byte crosses: seed 001 §5.3 gives the 28-disk RAID-0's "hardware
capacity" as 180 MB/s (one 2 Gb/s Fibre Channel port, Appendix B), far below
what 28 members stream together. With ``link_mb_s`` set, the link is one
first-come-first-served resource: a read's data crosses it after the members
deliver it, a write's before they receive it, each taking bytes / rate.
Without it the link is free (the default, as before).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import simpy

from ..disk.access import Mechanism
from ..disk.profile import DiskProfile
from ..disk.profile_loader import load_disk
from ..drive.drive import Drive
from ..records import READ, WRITE, Completed, Request

__all__ = ["Array", "build_array"]


class _Parent:
    __slots__ = ("children", "last", "req")

    def __init__(self, req: Request):
        self.req = req
        self.children = 0
        self.last: Completed | None = None


class Array:
    """RAID-0 or RAID-5 over member drives; looks like one device to the host."""

    def __init__(self, env: simpy.Environment, drives: Sequence[Drive], level: int = 0,
                 stripe_kib: float = 64.0,
                 on_complete: Callable[[Completed], None] | None = None, name: str = "array",
                 link_mb_s: float | None = None):
        if level not in (0, 5):
            raise ValueError(f"RAID level must be 0 or 5, got {level}")
        if level == 5 and len(drives) < 3:
            raise ValueError(f"RAID-5 needs at least 3 drives, got {len(drives)}")
        if not drives:
            raise ValueError("an array needs at least one drive")
        if link_mb_s is not None and not (isinstance(link_mb_s, int | float)
                                          and not isinstance(link_mb_s, bool) and link_mb_s > 0):
            raise ValueError(f"array link_mb_s must be a positive rate in MB/s, got {link_mb_s!r}")
        self.link_mb_s = None if link_mb_s is None else float(link_mb_s)
        self.link = simpy.Resource(env, capacity=1) if link_mb_s is not None else None
        self.env, self.drives, self.level, self.name = env, list(drives), level, name
        self.unit = max(1, round(stripe_kib * 2))
        self.on_complete = on_complete
        per_disk = min(d.mechanism.layout.capacity for d in self.drives)
        self.rows = per_disk // self.unit
        self.data_disks = len(self.drives) - (1 if level == 5 else 0)
        self.capacity = self.rows * self.unit * self.data_disks
        self.pending: list[Request] = []
        self.completed: list[Completed] = []
        self._children: dict[int, tuple[_Parent, simpy.Event]] = {}
        self._next_child = 0
        for d in self.drives:
            d.on_complete = self._child_done

    @property
    def queue_length(self) -> int:
        return len(self.pending)

    @property
    def busy_ms(self) -> float:
        """Summed busy time of the members (a 4-drive array can be busy 4 ms per ms)."""
        return sum(d.busy_ms for d in self.drives)

    # -- the map -----------------------------------------------------------------
    def locate(self, lba: int) -> tuple[int, int]:
        """(member drive, sector on that drive) of one logical sector."""
        if not 0 <= lba < self.capacity:
            raise ValueError(f"LBA {lba} is outside the array (0..{self.capacity - 1})")
        u, n = self.unit, len(self.drives)
        chunk, off = divmod(lba, u)
        if self.level == 0:
            row, disk = divmod(chunk, n)
        else:
            row, k = divmod(chunk, n - 1)
            disk = (self.parity_disk(row) + 1 + k) % n
        return disk, row * u + off

    def parity_disk(self, row: int) -> int:
        n = len(self.drives)
        return n - 1 - row % n

    def pieces(self, lba: int, sectors: int) -> list[tuple[int, int, int, int]]:
        """Split a logical range into ``(row, drive, drive_lba, sectors)`` per stripe unit."""
        if sectors < 1 or lba < 0 or lba + sectors > self.capacity:
            raise ValueError(f"request {lba}+{sectors} does not fit the array "
                             f"({self.capacity} sectors)")
        out = []
        u = self.unit
        per_row = u * self.data_disks
        while sectors:
            n = min(sectors, u - lba % u)
            disk, dlba = self.locate(lba)
            out.append((lba // per_row, disk, dlba, n))
            lba += n
            sectors -= n
        return out

    # -- serving -----------------------------------------------------------------
    def submit(self, req: Request) -> None:
        """Accept a logical request; its record goes to ``on_complete`` when every piece is done."""
        self.pending.append(req)
        self.env.process(self._serve(req))

    def _child(self, parent: _Parent, disk: int, lba: int, sectors: int, op: str
               ) -> simpy.Event:
        cid = self._next_child
        self._next_child += 1
        ev = self.env.event()
        self._children[cid] = (parent, ev)
        parent.children += 1
        self.drives[disk].submit(Request(cid, self.env.now, op, lba, sectors, parent.req.client))
        return ev

    def _child_done(self, rec: Completed) -> None:
        parent, ev = self._children.pop(rec.id)
        if parent.last is None or rec.finish_ms >= parent.last.finish_ms:
            parent.last = rec
        ev.succeed(rec)

    def _cross_link(self, sectors: int):
        """Move ``sectors`` of data over the host link (FCFS; bytes / rate)."""
        with self.link.request() as turn:
            yield turn
            yield self.env.timeout(sectors * 512 / (self.link_mb_s * 1e3))

    def _serve(self, req: Request):
        env = self.env
        parent = _Parent(req)
        pieces = self.pieces(req.lba, req.sectors)
        if self.link is not None and req.op != READ:
            yield env.process(self._cross_link(req.sectors))
        if req.op == READ or self.level == 0:
            yield env.all_of([self._child(parent, d, lba, n, req.op)
                              for _, d, lba, n in pieces])
        else:
            rows: dict[int, list[tuple[int, int, int]]] = {}
            for row, d, lba, n in pieces:
                rows.setdefault(row, []).append((d, lba, n))
            yield env.all_of([env.process(self._write_row(parent, row, ps))
                              for row, ps in rows.items()])
        if self.link is not None and req.op == READ:
            yield env.process(self._cross_link(req.sectors))
        self.pending.remove(req)
        last = parent.last
        assert last is not None
        rec = Completed(
            req.id, req.op, req.lba, req.sectors, req.arrival_ms, last.start_ms, env.now,
            last.start_ms - req.arrival_ms, last.overhead_ms, last.seek_ms, last.rotation_ms,
            last.transfer_ms, last.interface_ms, env.now - req.arrival_ms, req.client,
            last.cache_hit)
        self.completed.append(rec)
        if self.on_complete is not None:
            self.on_complete(rec)

    def _write_row(self, parent: _Parent, row: int, ps: list[tuple[int, int, int]]):
        env, u = self.env, self.unit
        p = self.parity_disk(row)
        base = row * u
        full = (len(ps) == self.data_disks and all(n == u for _, _, n in ps))
        if full:  # a full-stripe write: parity from the new data alone
            yield env.all_of([self._child(parent, d, lba, n, WRITE) for d, lba, n in ps]
                             + [self._child(parent, p, base, u, WRITE)])
            return
        lo = min(lba - base for _, lba, _ in ps)
        hi = max(lba - base + n for _, lba, n in ps)
        yield env.all_of([self._child(parent, d, lba, n, READ) for d, lba, n in ps]
                         + [self._child(parent, p, base + lo, hi - lo, READ)])
        yield env.all_of([self._child(parent, d, lba, n, WRITE) for d, lba, n in ps]
                         + [self._child(parent, p, base + lo, hi - lo, WRITE)])


def build_array(env: simpy.Environment, disk: str | DiskProfile | Mechanism, drives: int,
                level: int = 0,
                stripe_kib: float = 64.0, scheduler: Any = "fcfs",
                service: Callable[[Mechanism], Any] | None = None,
                on_complete: Callable[[Completed], None] | None = None,
                link_mb_s: float | None = None) -> Array:
    """An array of ``drives`` identical drives, each spindle at its own starting angle.

    ``service`` is a factory called with each member's mechanism (for example
    :class:`simcore.host.IdleReadahead`); ``scheduler`` names each member's policy;
    ``link_mb_s`` the host link's rate (None: free).
    """
    if isinstance(disk, Mechanism):
        first, prof = disk, disk.profile
    else:
        prof = load_disk(disk) if isinstance(disk, str) else disk
        first = Mechanism(prof)
    members = []  # the layout and seek curve are shared; only the platter angle differs
    for k in range(drives):
        p = dataclasses.replace(prof, initial_angle=(prof.initial_angle + k / drives) % 1.0)
        mech = Mechanism(p, layout=first.layout, seek=first.seek)
        members.append(Drive(env, mech, scheduler, service=service(mech) if service else None,
                             name=f"disk{k}"))
    return Array(env, members, level=level, stripe_kib=stripe_kib, on_complete=on_complete,
                 link_mb_s=link_mb_s)
