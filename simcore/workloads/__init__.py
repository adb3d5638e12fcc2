"""Workloads: where requests come from.

Three shapes cover the seeds: *open* (requests arrive at given times, as in a
trace), *closed* (each of N clients issues its next request a think time
after the previous one completes; N outstanding when the think time is 0, as
Seltzer et al. hold the queue at N), and *validation* (DiskSim's closed trace
with per-request gaps). Every random choice takes a ``numpy.random.Generator``
or a seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..records import READ, WRITE, Request

MakeRequest = Callable[[int, int, np.random.Generator], tuple]
"""``make_request(client, k, rng) -> (op, lba, sectors)``, or ``(op, lba, sectors, fua)``."""


def as_rng(seed_or_rng: int | np.random.Generator | None) -> np.random.Generator:
    """A Generator from a seed (None means seed 0: runs are reproducible by default)."""
    if isinstance(seed_or_rng, np.random.Generator):
        return seed_or_rng
    return np.random.default_rng(0 if seed_or_rng is None else seed_or_rng)


@dataclass(frozen=True)
class OpenWorkload:
    """Requests with arrival times (non-decreasing)."""

    requests: Sequence[Request]
    name: str = "open"


@dataclass(frozen=True)
class ClosedWorkload:
    """``clients`` loops, each issuing ``per_client`` requests with a think time between."""

    clients: int
    per_client: int
    make_request: MakeRequest
    think_ms: float | Callable[[np.random.Generator], float] = 0.0
    seed: int = 0
    name: str = "closed"


@dataclass(frozen=True)
class Processes:
    """A workload written as SimPy processes that drive the stack's top layer themselves.

    ``start(built)`` is called once with the wired stack (a
    :class:`simcore.stack.Built`: ``env``, ``top``, ``drives``, ``device``,
    ``on_complete``); it starts its processes and may return an event to run until
    (otherwise the run ends when nothing is left to do, or at ``until_ms``).
    """

    start: Callable[[Any], Any]
    name: str = "processes"


@dataclass(frozen=True)
class ValidationStep:
    op: str
    lba: int
    sectors: int
    measured_ms: float
    gap_ms: float


@dataclass(frozen=True)
class ValidationWorkload:
    """DiskSim validation trace: one outstanding request, a measured time and a gap each."""

    steps: Sequence[ValidationStep]
    path: str = ""
    name: str = "validation"
    meta: dict = field(default_factory=dict)


def random_lbas(capacity: int, sectors: int, n: int, rng: np.random.Generator,
                align: int = 1) -> np.ndarray:
    """Uniformly random start LBAs (aligned to ``align`` sectors) that fit on the disk."""
    slots = (capacity - sectors) // align + 1
    return rng.integers(0, slots, size=n, dtype=np.int64) * align


def poisson_arrivals(n: int, rate_per_s: float, rng: np.random.Generator) -> np.ndarray:
    """Arrival times (ms) of a Poisson stream of ``rate_per_s`` requests per second."""
    gaps = rng.exponential(1000.0 / rate_per_s, size=n)
    return np.cumsum(gaps)


def random_open(capacity: int, n: int, rate_per_s: float, size_kib: float = 4.0,
                read_fraction: float = 1.0, seed: int | np.random.Generator | None = 0,
                align_kib: float | None = None) -> OpenWorkload:
    """Random I/O of one size at Poisson arrivals over the whole disk."""
    rng = as_rng(seed)
    sectors = max(1, round(size_kib * 2))
    align = max(1, round((align_kib if align_kib is not None else size_kib) * 2))
    times = poisson_arrivals(n, rate_per_s, rng)
    lbas = random_lbas(capacity, sectors, n, rng, align)
    reads = rng.random(n) < read_fraction
    reqs = [
        Request(i, float(t), READ if r else WRITE, int(lba), sectors)
        for i, (t, lba, r) in enumerate(zip(times, lbas, reads, strict=True))
    ]
    return OpenWorkload(reqs, name=f"random {size_kib:g} KiB at {rate_per_s:g}/s")


def random_closed(capacity: int, clients: int, per_client: int, size_kib: float = 4.0,
                  read_fraction: float = 1.0, think_ms: float = 0.0, seed: int = 0,
                  align_kib: float | None = None) -> ClosedWorkload:
    """Closed random I/O: ``clients`` outstanding requests when ``think_ms`` is 0."""
    sectors = max(1, round(size_kib * 2))
    align = max(1, round((align_kib if align_kib is not None else size_kib) * 2))
    slots = (capacity - sectors) // align + 1

    def make(client: int, k: int, rng: np.random.Generator) -> tuple[str, int, int]:
        op = READ if rng.random() < read_fraction else WRITE
        return op, int(rng.integers(0, slots)) * align, sectors

    return ClosedWorkload(clients, per_client, make, think_ms, seed,
                          name=f"closed random {size_kib:g} KiB x{clients}")


def sequential_open(start_lba: int, n: int, size_kib: float, gap_ms: float = 0.0,
                    op: str = READ) -> OpenWorkload:
    """Back-to-back sequential requests (all at time 0 when ``gap_ms`` is 0)."""
    sectors = max(1, round(size_kib * 2))
    reqs = [Request(i, i * gap_ms, op, start_lba + i * sectors, sectors) for i in range(n)]
    return OpenWorkload(reqs, name=f"sequential {size_kib:g} KiB")


def from_tuples(rows: Sequence[tuple[float, str, int, int]]) -> OpenWorkload:
    """An open workload from ``(arrival_ms, op, lba, sectors)`` tuples (handy in labs)."""
    return OpenWorkload([Request(i, float(t), op, int(lba), int(n))
                         for i, (t, op, lba, n) in enumerate(rows)])
