"""The one place the server touches the simulator: a drive stepped in real time.

The server keeps the simulator's own :class:`~simcore.drive.Drive` (the same
queue, policy, cache and mechanism every experiment uses) inside a SimPy
environment whose clock follows the wall clock: before a request enters the
queue, or when a wake-up fires, the environment is stepped up to "now".
Completions come back with their model finish time, so the server can answer
at that time and measure how late it was. Nothing else in ``simcore.serve``
imports the drive; re-point this module if the engine changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..disk.access import Mechanism
from ..disk.profile import DiskProfile
from ..drive.cache import FLUSH
from ..engine import start as start_stack
from ..records import READ, WRITE, Completed, Request
from ..stack import Stack

OPS = {"read": READ, "write": WRITE, "flush": FLUSH}


@dataclass(frozen=True)
class Done:
    """A request the model finished: its id and the model's times (ms)."""

    id: int
    start_ms: float
    finish_ms: float
    cache_hit: bool


class RealtimeDrive:
    """A simulated drive whose SimPy clock is advanced to the wall clock on demand."""

    def __init__(self, profile: DiskProfile, scheduler: Any = "fcfs", cache: bool = True):
        self.profile = profile
        self.mechanism = Mechanism(profile)
        self._done: list[Done] = []
        self.has_cache = cache
        # the same stack every experiment runs: the drive with its firmware (or without)
        built = start_stack(Stack(self.mechanism, scheduler=scheduler, firmware=cache,
                                  cache=None if cache else False))
        built.on_complete(self._record)
        self.env = built.env
        self.drive = built.device
        self.completed: list[Completed] = self.drive.completed

    @property
    def capacity_sectors(self) -> int:
        return self.mechanism.layout.capacity

    @property
    def now_ms(self) -> float:
        return float(self.env.now)

    def _record(self, rec: Completed) -> None:
        self._done.append(Done(rec.id, rec.start_ms, rec.finish_ms, rec.cache_hit))

    def advance(self, t_ms: float) -> list[Done]:
        """Process every model event up to ``t_ms``; return the requests finished meanwhile."""
        env = self.env
        while env.peek() <= t_ms:
            env.step()
        if t_ms > env.now:
            env.run(until=t_ms)
            # SimPy 4.1 leaves the spent "until" event queued at t_ms (no callbacks
            # left); drop it, or the next wake-up would be "now", forever
            while env.peek() <= t_ms:
                env.step()
        return self._take()

    def _take(self) -> list[Done]:
        done, self._done = self._done, []
        return done

    def submit(self, rid: int, op: str, lba: int, sectors: int, t_ms: float,
               client: int = 0) -> list[Done]:
        """Queue a request arriving at ``t_ms`` (first advancing the model to it).

        Returns what finished up to ``t_ms`` (the server answers those first).
        A FLUSH on a drive without a cache has nothing to write back: the
        caller answers it at once.
        """
        done = self.advance(t_ms)
        code = OPS[op]
        env = self.env
        self.drive.submit(Request(rid, float(env.now), code, lba, max(1, sectors), client))
        while env.peek() <= env.now:  # let the drive pick the request up now, not on a wake-up
            env.step()
        return done + self._take()

    def next_event_ms(self) -> float | None:
        """The model time of the next thing the drive will do, or None when idle."""
        t = self.env.peek()
        return None if t == float("inf") else float(t)
