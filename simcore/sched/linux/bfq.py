"""BFQ (blk-mq), simplified: per-process queues, budgets in sectors, and idling.

Seed 001 §6.1-6.2 [external]: BFQ descends from CFQ (per-``io_context``
queues, proportional share by weight) and keeps AS's idea as device idling:
when the in-service sync queue runs dry, wait ``slice_idle`` (8 ms) for its
next request instead of seeking away. Defaults used: ``slice_idle`` 8 ms,
``back_seek_max`` 16384 KiB, ``back_seek_penalty`` 2, ``fifo_expire_sync``
125 ms, ``fifo_expire_async`` 250 ms, ``timeout_sync`` 125 ms; ``max_budget``
(0 = auto in the kernel) is a fixed 16384 sectors here.

Simplifications, said plainly: queues with requests are served round robin
(equal weights give the same order as B-WF2Q+; a weight scales the budget),
there is no peak-rate estimation, no ``low_latency`` or weight-raising
heuristics, no injection while idling, and idling is skipped only when
``slice_idle`` is 0.
"""

from __future__ import annotations

from collections import deque

from .base import Elevator, Rq, SortedRqs


class _Queue:
    __slots__ = ("fifo", "key", "sort", "weight")

    def __init__(self, key: int, weight: float):
        self.key, self.weight = key, weight
        self.sort = SortedRqs()
        self.fifo: dict[int, Rq] = {}


class BFQ(Elevator):
    """Budget fair queueing with idling for synchronous queues (simplified)."""

    name = "bfq"

    def __init__(self, slice_idle: float = 8.0, max_budget: int = 16384,
                 timeout_sync: float = 125.0, fifo_expire_sync: float = 125.0,
                 fifo_expire_async: float = 250.0, back_seek_max_kib: int = 16384,
                 back_seek_penalty: int = 2, weights: dict[int, float] | None = None):
        super().__init__()
        self.slice_idle = float(slice_idle)
        self.max_budget = int(max_budget)
        self.timeout_sync = float(timeout_sync)
        self.fifo_expire = (float(fifo_expire_sync), float(fifo_expire_async))
        self.back_max = int(back_seek_max_kib) * 2
        self.back_penalty = int(back_seek_penalty)
        self.weights = dict(weights or {})
        self.queues: dict[int, _Queue] = {}
        self.busy: deque[int] = deque()
        self.active: _Queue | None = None
        self.budget_left = 0
        self.slice_end = 0.0
        self.idling = False
        self.last_sector = 0
        self.in_flight = 0
        self.count = 0
        self.timer_at = None
        self.stats = {"idle_started": 0, "idle_hits": 0, "idle_timeouts": 0}
        self.inflight: dict[int, int] = {}
        self._sync_pids: set[int] = set()

    def tunables(self) -> dict:
        return {"slice_idle": self.slice_idle, "max_budget": self.max_budget,
                "timeout_sync": self.timeout_sync, "fifo_expire_sync": self.fifo_expire[0],
                "fifo_expire_async": self.fifo_expire[1], "back_seek_max": self.back_max // 2,
                "back_seek_penalty": self.back_penalty}

    def __len__(self) -> int:
        return self.count

    def add(self, rq: Rq, now: float) -> None:
        q = self.queues.get(rq.pid)
        if q is None:
            q = self.queues[rq.pid] = _Queue(rq.pid, self.weights.get(rq.pid, 100.0))
        rq.expires = now + self.fifo_expire[0 if rq.sync else 1]
        was_empty = not q.sort
        q.sort.add(rq)
        q.fifo[rq.id] = rq
        self.count += 1
        if self.active is q and self.idling:  # the wait paid off
            self.idling = False
            self.timer_at = None
            self.stats["idle_hits"] += 1
            self._log(now, "idle-stop", rq, "hit")
        elif was_empty and q is not self.active:
            self.busy.append(q.key)

    def merged(self, rq: Rq, old_lba: int, now: float) -> None:
        if old_lba != rq.lba:
            q = self.queues[rq.pid]
            q.sort.remove(rq, old_lba)
            q.sort.add(rq)

    def _next_in(self, q: _Queue) -> Rq:
        """Nearest request ahead, or a short backward seek at ``back_seek_penalty`` x its cost."""
        last = self.last_sector
        ahead = q.sort.at_or_after(last)
        behind = q.sort.before(last)
        if behind is not None and last - behind.lba > self.back_max:
            behind = None
        if ahead is None and behind is None:
            return q.sort.first()
        if behind is None:
            return ahead
        if ahead is None:
            return behind
        return ahead if ahead.lba - last <= (last - behind.lba) * self.back_penalty else behind

    def _expire_active(self) -> None:
        q = self.active
        self.active = None
        self.idling = False
        self.timer_at = None
        if q is not None and q.sort:
            self.busy.append(q.key)

    def _select(self, now: float) -> None:
        while self.busy:
            q = self.queues[self.busy.popleft()]
            if q.sort:
                self.active = q
                self.budget_left = int(self.max_budget * q.weight / 100.0)
                self.slice_end = now + self.timeout_sync
                return

    def dispatch(self, now: float) -> Rq | None:
        q = self.active
        if q is not None:
            if not q.sort:
                if (self.slice_idle > 0 and q.key in self._sync_pids and now < self.slice_end
                        and self.budget_left > 0):
                    if not self.idling:  # wait for this process's next request
                        self.idling = True
                        self.stats["idle_started"] += 1
                        self._log(now, "idle-start", None, f"pid {q.key}")
                        if self.inflight.get(q.key, 0) == 0:
                            self.timer_at = now + self.slice_idle
                    return None
                self._expire_active()
            elif self.budget_left <= 0 or now >= self.slice_end:
                self._expire_active()
        if self.active is None:
            self._select(now)
            if self.active is None:
                return None
            head = next(iter(self.active.fifo.values()))
            rq = head if now > head.expires else self._next_in(self.active)
        else:
            rq = self._next_in(self.active)
        q = self.active
        q.sort.remove(rq)
        del q.fifo[rq.id]
        self.count -= 1
        self.budget_left -= rq.sectors
        self.last_sector = rq.end
        self.inflight[q.key] = self.inflight.get(q.key, 0) + 1
        if rq.sync:
            self._sync_pids.add(q.key)
        else:
            self._sync_pids.discard(q.key)
        return rq

    def completed(self, rq: Rq, now: float) -> None:
        self.inflight[rq.pid] -= 1
        q = self.active
        if (q is not None and q.key == rq.pid and self.idling and self.timer_at is None
                and self.inflight[rq.pid] == 0):
            self.timer_at = now + self.slice_idle  # the idle window starts at completion

    def on_timer(self, now: float) -> None:
        if self.idling and self.timer_at is not None and now >= self.timer_at - 1e-9:
            self.stats["idle_timeouts"] += 1
            self._log(now, "idle-stop", None, "timeout")
            self._expire_active()
