"""The drive as a SimPy process: a queue, a policy, overheads and the mechanism.

One process per drive (never one per request): it waits while the queue is
empty, asks the policy for the next request, computes the request's service
arithmetically (:mod:`simcore.access`) and sleeps for it. Seeds: Gray 2000
§2.6 (command overhead, media and interface stages), Seltzer et al. 1990 as
summarised in Gray §3 (queue plus policy).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import simpy

from .access import Access, HeadState, Mechanism
from .profile import DiskProfile
from .records import WRITE, Completed, Request
from .sched import get_scheduler


class HeadView:
    """The narrow window a scheduling policy gets onto the drive."""

    __slots__ = ("_drive",)

    def __init__(self, drive: Drive):
        self._drive = drive

    @property
    def cylinder(self) -> int:
        return self._drive.head.cylinder

    @property
    def surface(self) -> int:
        return self._drive.head.surface

    @property
    def last_lba(self) -> int:
        """One past the last sector the drive served (LBN-based policies sweep from here)."""
        return self._drive.last_lba

    @property
    def cylinders(self) -> int:
        return self._drive.mechanism.layout.cylinders

    def cylinder_of(self, lba: int) -> int:
        return self._drive.mechanism.layout.cylinder_of(lba)

    def seek_ms(self, distance: int) -> float:
        return self._drive.mechanism.seek.seek_ms(distance)

    def positioning_ms(self, request: Request, now: float) -> float:
        """Seek plus rotational wait to the request's first sector, if started at ``now``."""
        d = self._drive
        return d.mechanism.positioning_ms(request.lba, request.op == WRITE, now, d.head)

    def service_ms(self, request: Request, now: float) -> float:
        """Full mechanical time (positioning and transfer) if started at ``now``."""
        d = self._drive
        a = d.mechanism.access(request.lba, request.sectors, request.op == WRITE, now, d.head)
        return a.end_ms - now


ServiceFn = Callable[[Request, float, HeadState], tuple[float, Access, bool]]


class Drive:
    """A disk drive serving requests from its queue, one at a time."""

    def __init__(
        self,
        env: simpy.Environment,
        disk: DiskProfile | Mechanism,
        scheduler: Any = "fcfs",
        on_complete: Callable[[Completed], None] | None = None,
        service: ServiceFn | None = None,
        name: str = "disk0",
    ):
        self.env = env
        self.mechanism = disk if isinstance(disk, Mechanism) else Mechanism(disk)
        self.profile = self.mechanism.profile
        policy = get_scheduler(scheduler)
        self._choose = policy.choose if hasattr(policy, "choose") else policy
        self.scheduler = policy
        self.on_complete = on_complete
        self.name = name
        self.head = HeadState(self.profile.initial_cylinder, 0)
        self.view = HeadView(self)
        self.pending: list[Request] = []
        self.completed: list[Completed] = []
        self.busy_ms = 0.0
        self.last_lba = 0
        self._wake: simpy.Event | None = None
        ov = self.profile.overheads
        self._read_ov, self._write_ov, self._done_ov = ov.read_miss_ms, ov.write_ms, ov.completion_ms
        self._service = service or self._mechanical_service
        self.process = env.process(self._run())

    def submit(self, request: Request) -> None:
        """Put a request in the queue (at the current simulated time)."""
        self.pending.append(request)
        wake = self._wake
        if wake is not None:
            self._wake = None
            wake.succeed()

    @property
    def queue_length(self) -> int:
        return len(self.pending)

    def _mechanical_service(self, req: Request, start: float,
                            head: HeadState) -> tuple[float, Access, bool]:
        is_write = req.op == WRITE
        overhead = self._write_ov if is_write else self._read_ov
        acc = self.mechanism.access(req.lba, req.sectors, is_write, start + overhead, head)
        return overhead, acc, False

    def _run(self):
        env, pending, head = self.env, self.pending, self.head
        choose, view, record = self._choose, self.view, self.completed.append
        done_ov = self._done_ov
        while True:
            if not pending:
                self._wake = env.event()
                yield self._wake
            now = env.now
            req = choose(pending, view, now)
            if req is pending[0]:
                pending.pop(0)
            else:
                pending.remove(req)
            overhead, acc, hit = self._service(req, now, head)
            finish = acc.end_ms + done_ov
            yield env.timeout(finish - now)
            head.cylinder, head.surface = acc.cylinder, acc.surface
            self.last_lba = req.lba + req.sectors
            self.busy_ms += finish - now
            rec = Completed(
                req.id, req.op, req.lba, req.sectors, req.arrival_ms, now, finish,
                now - req.arrival_ms, overhead + done_ov, acc.seek_ms, acc.rotation_ms,
                acc.transfer_ms, acc.interface_ms, finish - req.arrival_ms, req.client, hit,
            )
            record(rec)
            if self.on_complete is not None:
                self.on_complete(rec)
