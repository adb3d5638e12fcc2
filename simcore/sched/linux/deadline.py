"""deadline (Linux 2.6.4) and mq-deadline (blk-mq): a one-way elevator with FIFO deadlines.

Seed 001 §2.2, "[code] What 2.6.4 deadline-iosched.c actually does", with its
real defaults: ``read_expire`` 500 ms, ``write_expire`` 5000 ms,
``writes_starved`` 2, ``fifo_batch`` 16, ``front_merges`` 1. Per direction a
sector-sorted list and a FIFO with ``expires = arrival + expire``. When the
device wants work, exactly one request moves:

* continue the batch with the cached next request in sector order while it
  is contiguous with the last one and fewer than ``fifo_batch`` went out
  (any non-contiguous request ends the batch);
* otherwise choose a direction: reads, unless writes are waiting and reads
  have already been preferred ``writes_starved`` times;
* in that direction serve the FIFO head if it has expired, else the next
  request in ascending sector order, else wrap to the lowest sector (C-SCAN).

mq-deadline (§6.1) keeps the same design and the same five defaults, with the two
batching changes mainline made after 2.6.4 (see :class:`MqDeadline`); its I/O
priority classes and ``prio_aging_expire`` are not modelled.
"""

from __future__ import annotations

from .base import READ_DIR, WRITE_DIR, Elevator, Rq, SortedRqs


class Deadline(Elevator):
    """The 2.6.4 deadline elevator."""

    name = "deadline"

    def __init__(self, read_expire: float = 500.0, write_expire: float = 5000.0,
                 writes_starved: int = 2, fifo_batch: int = 16, front_merges: bool = True):
        super().__init__()
        self.fifo_expire = (float(read_expire), float(write_expire))
        self.writes_starved = int(writes_starved)
        self.fifo_batch = int(fifo_batch)
        self.front_merges = bool(front_merges)
        self.sort = (SortedRqs(), SortedRqs())
        self.fifo: tuple[dict[int, Rq], dict[int, Rq]] = ({}, {})
        self.next_rq: list[Rq | None] = [None, None]
        self.last_sector = 0
        self.batching = 0
        self.starved = 0

    def tunables(self) -> dict:
        return {"read_expire": self.fifo_expire[0], "write_expire": self.fifo_expire[1],
                "writes_starved": self.writes_starved, "fifo_batch": self.fifo_batch,
                "front_merges": int(self.front_merges)}

    def __len__(self) -> int:
        return len(self.fifo[0]) + len(self.fifo[1])

    def add(self, rq: Rq, now: float) -> None:
        d = rq.dir
        rq.expires = now + self.fifo_expire[d]
        self.sort[d].add(rq)
        self.fifo[d][rq.id] = rq

    def merged(self, rq: Rq, old_lba: int, now: float) -> None:
        if old_lba != rq.lba:  # a front merge moves the request in sector order
            s = self.sort[rq.dir]
            s.remove(rq, old_lba)
            s.add(rq)

    def _fifo_expired(self, d: int, now: float) -> bool:
        fifo = self.fifo[d]
        return bool(fifo) and now > next(iter(fifo.values())).expires

    def dispatch(self, now: float) -> Rq | None:
        rq = self.next_rq[WRITE_DIR] or self.next_rq[READ_DIR]
        if rq is not None:
            if self.last_sector != rq.lba:
                self.batching += self.fifo_batch  # a seek ends the batch
            if self.batching < self.fifo_batch:
                return self._move(rq)
        d = self._pick_direction()
        if d is None:
            return None
        if self._fifo_expired(d, now):
            self.batching = 0
            rq = next(iter(self.fifo[d].values()))
            self._log(now, "expired", rq)
        elif self.next_rq[d] is not None:
            rq = self.next_rq[d]
        else:
            self.batching = 0
            rq = self.sort[d].first()
        return self._move(rq)

    def _pick_direction(self) -> int | None:
        """Reads first, unless writes have been passed over ``writes_starved`` times.

        The kernel's ``writes && starved++ >= writes_starved``; choosing writes resets the count.
        """
        reads, writes = bool(self.fifo[READ_DIR]), bool(self.fifo[WRITE_DIR])
        if reads:
            d = READ_DIR
            if writes:
                starved = self.starved
                self.starved += 1
                if starved >= self.writes_starved:
                    d = WRITE_DIR
        elif writes:
            d = WRITE_DIR
        else:
            return None
        if d == WRITE_DIR:
            self.starved = 0
        return d

    def _move(self, rq: Rq) -> Rq:
        d = rq.dir
        self.batching += 1
        self.next_rq[READ_DIR] = self.next_rq[WRITE_DIR] = None
        self.next_rq[d] = self.sort[d].next_after(rq)
        self.last_sector = rq.end
        self.sort[d].remove(rq)
        del self.fifo[d][rq.id]
        return rq


class MqDeadline(Deadline):
    """blk-mq ``mq-deadline``: 2.6.4 deadline's design and defaults, batching as mainline does now.

    Two rules changed after 2.6.4 and mq-deadline (2016) took the later form:

    * a batch is ``fifo_batch`` requests in ascending sector order, contiguous or not; only
      the count ends it (Linux 2.6.28, "deadline-iosched: allow non-sequential batching":
      ending a batch at every gap made deadline "essentially first come first served").
      In mq-deadline's dispatch the test is just ``rq && batching < fifo_batch``;
    * a new batch that has no next request in sort order in its direction (the last request
      went the other way, or the sweep ran out of higher sectors) starts at the request
      that expires first, the FIFO head, not at the lowest sector (2.6.24, "Deadline
      iosched: Fix batching fairness"); every new batch resets the count.
    """

    name = "mq-deadline"

    def dispatch(self, now: float) -> Rq | None:
        rq = self.next_rq[WRITE_DIR] or self.next_rq[READ_DIR]
        if rq is not None and self.batching < self.fifo_batch:
            return self._move(rq)  # contiguous or not: only the count ends a batch
        d = self._pick_direction()
        if d is None:
            return None
        expired = self._fifo_expired(d, now)
        if expired or self.next_rq[d] is None:
            rq = next(iter(self.fifo[d].values()))  # the earliest deadline
            if expired:
                self._log(now, "expired", rq)
        else:
            rq = self.next_rq[d]
        self.batching = 0
        return self._move(rq)
