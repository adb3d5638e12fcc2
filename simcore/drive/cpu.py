"""The host CPU as a SimPy resource, with accounting per owner, and a CPU-bound bystander.

Seed: Gray 2000 §2.8 and Ch. 5: under PIO "the CPU [moves] data in and out of
main memory", so the processor time a transfer takes is lost to everything
else on a multi-user system; under DMA the CPU only sets the transfer up and
takes one interrupt. :class:`Cpu` is one processor shared by everything that
needs it (a benchmark's system calls, the drives' interrupts and PIO copies);
:class:`Hog` is a concurrent CPU-bound job at the lowest priority, whose
progress is the CPU time the I/O left over.

Priorities (lower runs first): interrupt work, kernel work, user work, the hog.
Interrupt, kernel and user work do not preempt one another (a slice finishes
before the next starts; slices are tens of microseconds); all of them preempt
the hog at once.
"""

from __future__ import annotations

from collections import defaultdict

import simpy

__all__ = ["IDLE", "IRQ", "KERNEL", "USER", "Cpu", "Hog"]

IRQ, KERNEL, USER, IDLE = 0, 1, 2, 3


class Cpu:
    """One processor. ``busy_ms[owner]`` is the time each owner has run.

    ``trace``, when a list, receives ``(owner, kind, start_ms, end_ms)`` for
    every slice (for timelines).
    """

    def __init__(self, env: simpy.Environment, name: str = "cpu0", trace: list | None = None):
        self.env = env
        self.name = name
        self._res = simpy.PreemptiveResource(env, capacity=1)
        self.busy_ms: dict = defaultdict(float)
        self.by_kind_ms: dict = defaultdict(float)
        self.trace = trace
        self._running: tuple | None = None  # (owner, start) of the slice on the CPU now

    def work(self, ms: float, owner=0, kind: str = "kernel", priority: int = KERNEL):
        """A generator: run for ``ms`` of CPU time (``yield from cpu.work(...)``)."""
        if ms <= 0:
            return
        env, res = self.env, self._res
        remaining = ms
        while remaining > 1e-12:
            users = res.users
            preempt = bool(users) and users[0].priority >= IDLE and priority < IDLE
            with res.request(priority=priority, preempt=preempt) as req:
                try:
                    yield req
                except simpy.Interrupt:  # preempted in the instant it was granted
                    continue
                t0 = env.now
                self._running = (owner, t0)
                try:
                    yield env.timeout(remaining)
                    remaining = 0.0
                except simpy.Interrupt:
                    remaining -= env.now - t0
                self._running = None
                self._account(owner, kind, t0, env.now)

    def _account(self, owner, kind: str, t0: float, t1: float) -> None:
        if t1 <= t0:
            return
        self.busy_ms[owner] += t1 - t0
        self.by_kind_ms[kind] += t1 - t0
        if self.trace is not None:
            self.trace.append((owner, kind, t0, t1))

    def used_ms(self, owner) -> float:
        """CPU time ``owner`` has had so far, counting a slice still running."""
        ms = self.busy_ms.get(owner, 0.0)
        if self._running is not None and self._running[0] == owner:
            ms += self.env.now - self._running[1]
        return ms

    def total_busy_ms(self, exclude=("hog",)) -> float:
        """CPU time of every owner except ``exclude``."""
        return sum(v for k, v in self.busy_ms.items() if k not in exclude)


class Hog:
    """A CPU-bound job that runs whenever nothing else wants the CPU.

    Its progress (``progress_ms``, CPU time received) is what a multi-user
    system has left for its other users while the I/O runs.
    """

    def __init__(self, env: simpy.Environment, cpu: Cpu, slice_ms: float = 10.0,
                 owner: str = "hog"):
        self.env, self.cpu, self.owner = env, cpu, owner
        self.slice_ms = slice_ms
        self.started_ms = env.now
        self.process = env.process(self._run())

    def _run(self):
        while True:
            yield from self.cpu.work(self.slice_ms, owner=self.owner, kind="hog",
                                     priority=IDLE)

    @property
    def progress_ms(self) -> float:
        return self.cpu.used_ms(self.owner)

    def share(self, until_ms: float | None = None) -> float:
        """Fraction of the elapsed time the hog ran."""
        end = self.env.now if until_ms is None else until_ms
        span = end - self.started_ms
        return self.progress_ms / span if span > 0 else 0.0
