"""Kyber (blk-mq), simplified: token-limited queue depth steered by latency targets.

Seed 001 §6.1-6.2 [external]: Kyber (Linux 4.12+) is built for fast
multi-queue devices. It does no sorting and no per-process fairness; requests
are split into domains (reads, writes, other) and each domain may only have so
many requests in the device ("tokens"). Every window it compares the
domain's observed latency with a target (``read_lat_nsec`` 2 ms,
``write_lat_nsec`` 10 ms) and shrinks the domain's depth when the target is
missed, grows it when there is room. Initial depths: reads 256, writes 128.

Simplified here: one 100 ms window; a domain whose 90th-percentile latency
(dispatch to completion) exceeds its target halves its depth (down to 1), one
well under target (below half) grows by a quarter. Domains take turns.
"""

from __future__ import annotations

from collections import deque

from .base import READ_DIR, WRITE_DIR, Elevator, Rq

WINDOW_MS = 100.0


class Kyber(Elevator):
    """Per-domain FIFOs with latency-steered depths."""

    name = "kyber"

    def __init__(self, read_lat_nsec: int = 2_000_000, write_lat_nsec: int = 10_000_000,
                 read_depth: int = 256, write_depth: int = 128):
        super().__init__()
        self.target_ms = (read_lat_nsec / 1e6, write_lat_nsec / 1e6)
        self.max_depth = (int(read_depth), int(write_depth))
        self.depth = list(self.max_depth)
        self.queues: tuple[deque[Rq], deque[Rq]] = (deque(), deque())
        self.in_flight = [0, 0]
        self.samples: tuple[list[float], list[float]] = ([], [])
        self.window_end = WINDOW_MS
        self.turn = READ_DIR

    def tunables(self) -> dict:
        return {"read_lat_nsec": int(self.target_ms[0] * 1e6),
                "write_lat_nsec": int(self.target_ms[1] * 1e6)}

    def __len__(self) -> int:
        return len(self.queues[0]) + len(self.queues[1])

    def add(self, rq: Rq, now: float) -> None:
        self.queues[rq.dir].append(rq)

    def dispatch(self, now: float) -> Rq | None:
        for d in (self.turn, 1 - self.turn):
            if self.queues[d] and self.in_flight[d] < self.depth[d]:
                self.turn = 1 - d
                self.in_flight[d] += 1
                return self.queues[d].popleft()
        return None

    def completed(self, rq: Rq, now: float) -> None:
        d = rq.dir
        self.in_flight[d] -= 1
        if rq.dispatch_ms is not None:
            self.samples[d].append(now - rq.dispatch_ms)
        if now >= self.window_end:
            self._adjust()
            self.window_end = now + WINDOW_MS

    def _adjust(self) -> None:
        for d in (READ_DIR, WRITE_DIR):
            s = sorted(self.samples[d])
            if not s:
                continue
            p90 = s[min(len(s) - 1, int(0.9 * len(s)))]
            if p90 > self.target_ms[d]:
                self.depth[d] = max(1, self.depth[d] // 2)
            elif p90 < self.target_ms[d] / 2:
                self.depth[d] = min(self.max_depth[d], self.depth[d] + max(1, self.depth[d] // 4))
            self.samples[d].clear()
