"""CFQ as in Linux 2.6.6-2.6.8 (the first mainline "complete fair queueing").

Seed 001 §2.4. The paper describes CFQ as an extension of stochastic fair
queueing: per-initiator FIFO queues served round robin, "an entire round of
requests is collected, sorted, and ultimately merged into the dispatch queue".
The mainline code of the period (note §2.4 [code]) keeps one queue per exact
**tgid** (the process, so all threads of one process share a queue), each
sorted by sector; when the dispatch list is empty it moves one request (the
lowest sector) from each busy queue per pass, passes repeated until at least
``quantum`` requests moved, and inserts them into the dispatch list in
one-way elevator order from the head. No idling, no FIFO deadlines (those came
with CFQ v2/v3 in 2.6.10 and later).

Defaults: ``quantum`` 8, the paper's stated default and the original 2.5.60
patch's (mainline 2.6.6 has 4); ``queued`` 8. ``key="pid"`` is the paper's
patch (§5.2): one queue per thread. Not modelled: ``cfq_may_queue``'s
per-process admission limit and CFQ raising ``nr_requests`` to 8192.
"""

from __future__ import annotations

from collections import deque

from .base import Elevator, Rq, SortedRqs


class CFQ(Elevator):
    """Per-process queues served round robin, a quantum at a time, sorted per round."""

    name = "cfq"

    def __init__(self, quantum: int = 8, queued: int = 8, key: str = "tgid"):
        super().__init__()
        if key not in ("tgid", "pid"):
            raise ValueError(f"CFQ key must be 'tgid' or 'pid', got {key!r}")
        self.quantum, self.queued, self.key = int(quantum), int(queued), key
        self.queues: dict[int, SortedRqs] = {}
        self.rr: deque[int] = deque()
        self.dispatch_list: deque[Rq] = deque()
        self.last_sector = 0
        self.count = 0

    def tunables(self) -> dict:
        return {"quantum": self.quantum, "queued": self.queued, "hash": self.key}

    def __len__(self) -> int:
        return self.count

    def _qkey(self, rq: Rq) -> int:
        return rq.tgid if self.key == "tgid" else rq.pid

    def add(self, rq: Rq, now: float) -> None:
        k = self._qkey(rq)
        q = self.queues.get(k)
        if q is None:
            q = self.queues[k] = SortedRqs()
        if not q:
            self.rr.appendleft(k)  # a queue that becomes busy goes to the head of rr_list
        q.add(rq)
        self.count += 1

    def merged(self, rq: Rq, old_lba: int, now: float) -> None:
        if old_lba != rq.lba and rq.extra.get("cfq") != "dispatch":
            q = self.queues[self._qkey(rq)]
            q.remove(rq, old_lba)
            q.add(rq)

    def allow_merge(self, rq: Rq, op: str, sync: bool, pid: int, tgid: int) -> bool:
        return rq.extra.get("cfq") != "dispatch"  # moved requests are the driver's now

    def _refill(self) -> None:
        moved: list[Rq] = []
        while self.rr and len(moved) < self.quantum:
            for k in list(self.rr):
                q = self.queues[k]
                rq = q.first()
                q.remove(rq)
                rq.extra["cfq"] = "dispatch"
                moved.append(rq)
                if not q:
                    self.rr.remove(k)
        last = self.last_sector
        moved.sort(key=lambda r: (r.lba < last, r.lba, r.seq))  # one-way elevator from the head
        self.dispatch_list.extend(moved)

    def dispatch(self, now: float) -> Rq | None:
        if not self.dispatch_list:
            self._refill()
        if not self.dispatch_list:
            return None
        rq = self.dispatch_list.popleft()
        self.last_sector = rq.end
        self.count -= 1
        return rq
