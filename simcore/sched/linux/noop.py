"""noop (Linux 2.6) and none (blk-mq): one FIFO, merging only.

Seed 001 §2.1: the paper (after the Kconfig text) says noop does "basic
merging and sorting"; the 2.6.4 ``noop-iosched.c`` only merges: one FIFO list,
add at the tail, dispatch the head, no tunables. blk-mq's ``none`` (§6.1) is
no scheduler at all; plug and software-queue merging remain, so here it is the
same FIFO with merging.
"""

from __future__ import annotations

from collections import deque

from .base import Elevator, Rq


class Noop(Elevator):
    """FIFO with merging (the block layer does the merging)."""

    name = "noop"

    def __init__(self):
        super().__init__()
        self.fifo: deque[Rq] = deque()

    def add(self, rq: Rq, now: float) -> None:
        self.fifo.append(rq)

    def dispatch(self, now: float) -> Rq | None:
        return self.fifo.popleft() if self.fifo else None

    def __len__(self) -> int:
        return len(self.fifo)


class NoneSched(Noop):
    """blk-mq ``none``: no scheduler; requests go out in the order they were queued."""

    name = "none"
