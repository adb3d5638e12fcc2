"""The anticipatory scheduler (AS) of Linux 2.6.4: deadline plus deliberate idling.

Seed 001 §2.3 ("Kernel-faithful AS model (2.6.4 as-iosched.c)"), after Iyer &
Druschel (SOSP 2001) and Nick Piggin's ``as-iosched.txt``. Defaults (ms, as in
sysfs): ``read_expire`` 125, ``write_expire`` 250, ``read_batch_expire`` 250,
``write_batch_expire`` 62, ``antic_expire`` 6; internal ``MAX_THINKTIME`` 20 ms,
``MAXBACK`` 1024 x 1024 sectors, ``BACK_PENALTY`` 2.

The idea, **deceptive idleness**: a process that reads synchronously has no
request queued in the short gap between one read completing and it issuing
the next. A work-conserving scheduler seeks away to someone else's request in
that gap; AS instead keeps the disk idle for up to ``antic_expire``, betting
that the same process will soon ask for something close by.

* Sync requests (reads, and writes marked sync) and async writes each have a
  sector-sorted list and a FIFO; a one-way elevator allows short backward
  seeks at twice the cost (``as_choose_req``).
* Reads and writes run in alternating batches (``read_batch_expire``,
  ``write_batch_expire`` with auto-tuned write-batch length); a batch change
  waits until everything dispatched has completed.
* During a read batch, before moving on to another process's request, AS may
  anticipate: it waits while the last reader's request is in flight
  (``WAIT_REQ``) and then up to ``antic_expire`` after it completed
  (``WAIT_NEXT``), unless the candidate may break the anticipation:
  it comes from that process, the process has requests queued, the candidate
  is "close" (a window of 64 sectors doubling per ms waited), the process's
  mean think time exceeds ``antic_expire``, or the candidate is nearer than
  the process's mean seek distance.
* Per process (an ``io_context``, one per thread in 2.6.4): decayed means of
  think time and seek distance (fixed point 7/8 decay in the kernel; floats
  here, so means are not rounded to whole jiffies).

``antic_expire = 0`` disables anticipation (the paper's typo says the
opposite, note §4.8). Not modelled: process exit, ``as_may_queue``'s
exemption from ``nr_requests``, the driver's separate dispatch list (requests
go to the device as soon as they are chosen).
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import Elevator, Rq, SortedRqs

SYNC, ASYNC = 0, 1
OFF, WAIT_REQ, WAIT_NEXT, FINISHED = "off", "wait-req", "wait-next", "finished"
MAX_THINKTIME_MS = 20.0
MAXBACK = 1024 * 1024
BACK_PENALTY = 2
_NOTHING = object()  # dispatch nothing now (a sentinel: a request may itself be None)


@dataclass
class IoContext:
    """AS's per-process statistics (``struct as_io_context``)."""

    nr_queued: int = 0
    nr_dispatched: int = 0
    io_running: bool = False
    io_started: bool = False
    last_end_request: float = 0.0
    last_request_pos: int = 0
    ttime_samples: float = 0.0
    ttime_total: float = 0.0
    ttime_mean: float = 0.0
    seek_samples: float = 0.0
    seek_total: float = 0.0
    seek_mean: float = 0.0


class Anticipatory(Elevator):
    """Linux 2.6.4 ``as-iosched``."""

    name = "anticipatory"

    def __init__(self, read_expire: float = 125.0, write_expire: float = 250.0,
                 read_batch_expire: float = 250.0, write_batch_expire: float = 62.0,
                 antic_expire: float = 6.0):
        super().__init__()
        self.fifo_expire = (float(read_expire), float(write_expire))
        self.batch_expire = (float(read_batch_expire), float(write_batch_expire))
        self.antic_expire = float(antic_expire)
        self.sort = (SortedRqs(), SortedRqs())
        self.fifo: tuple[dict[int, Rq], dict[int, Rq]] = ({}, {})
        self.next_arq: list[Rq | None] = [None, None]
        self.last_sector = [0, 0]
        self.last_check_fifo = [0.0, 0.0]
        self.batch_dir = SYNC
        self.current_batch_expires = 0.0
        self.changed_batch = 0
        self.new_batch = False
        self.write_batch_count = max(2, int(write_batch_expire / 10))
        self.current_write_count = 0
        self.write_batch_idled = False
        self.antic_status = OFF
        self.antic_start = 0.0
        self.io_context: int | None = None
        self.ioc_finished = False
        self.nr_dispatched = 0
        self.ioc: dict[int, IoContext] = {}
        self.new_ttime_total = self.new_ttime_mean = 0.0
        self.new_seek_total = self.new_seek_mean = 0.0
        self.exit_prob = 0.0
        self.timer_at = None
        # counters for the book: how often anticipation paid off
        self.stats = {"antic_started": 0, "antic_broken": 0, "antic_timeouts": 0}

    def tunables(self) -> dict:
        return {"read_expire": self.fifo_expire[0], "write_expire": self.fifo_expire[1],
                "read_batch_expire": self.batch_expire[0],
                "write_batch_expire": self.batch_expire[1], "antic_expire": self.antic_expire}

    def __len__(self) -> int:
        return len(self.fifo[0]) + len(self.fifo[1])

    @staticmethod
    def _cls(rq: Rq) -> int:
        return SYNC if rq.sync else ASYNC

    def _aic(self, pid: int) -> IoContext:
        aic = self.ioc.get(pid)
        if aic is None:
            aic = self.ioc[pid] = IoContext()
        return aic

    # -- statistics (as_update_iohist) --------------------------------------
    def _update_iohist(self, aic: IoContext, rq: Rq, now: float) -> None:
        if aic.io_running or aic.io_started:
            think = 0.0
            if aic.io_running and aic.nr_queued + aic.nr_dispatched == 0:
                think = min(now - aic.last_end_request, MAX_THINKTIME_MS - 1)
            aic.ttime_samples = (7 * aic.ttime_samples + 256) / 8
            aic.ttime_total = (7 * aic.ttime_total + 256 * think) / 8
            aic.ttime_mean = aic.ttime_total / aic.ttime_samples
            self.new_ttime_total = (7 * self.new_ttime_total + 256 * think) / 8
            self.new_ttime_mean = self.new_ttime_total / 256
            dist = abs(rq.lba - aic.last_request_pos)
            if aic.seek_samples:
                cap = 2 * 1024 * 1024 if aic.seek_samples <= 60 else 2 * 1024 * 64
                dist = min(dist, 4 * aic.seek_mean + cap)
            aic.seek_samples = (7 * aic.seek_samples + 256) / 8
            aic.seek_total = (7 * aic.seek_total + 256 * dist) / 8
            aic.seek_mean = aic.seek_total / aic.seek_samples
            self.new_seek_total = (7 * self.new_seek_total + 256 * dist) / 8
            self.new_seek_mean = self.new_seek_total / 256
        aic.last_request_pos = rq.end
        aic.io_started = True

    # -- the elevator ------------------------------------------------------
    def _choose(self, a: Rq | None, b: Rq | None) -> Rq | None:
        """``as_choose_req``: forward distance, or twice a short backward one; wraps last."""
        if a is None or a is b:
            return b
        if b is None:
            return a
        last = self.last_sector[self._cls(a)]
        s1, s2 = a.lba, b.lba
        wrap1 = wrap2 = False
        if s1 >= last:
            d1 = s1 - last
        elif s1 + MAXBACK >= last:
            d1 = (last - s1) * BACK_PENALTY
        else:
            wrap1, d1 = True, 0
        if s2 >= last:
            d2 = s2 - last
        elif s2 + MAXBACK >= last:
            d2 = (last - s2) * BACK_PENALTY
        else:
            wrap2, d2 = True, 0
        if not wrap1 and wrap2:
            return a
        if wrap1 and not wrap2:
            return b
        if wrap1 and wrap2:
            return a if s1 <= s2 else b
        if d1 < d2:
            return a
        if d2 < d1:
            return b
        return a if s1 >= s2 else b

    def _find_next(self, rq: Rq) -> Rq | None:
        s = self.sort[self._cls(rq)]
        nxt = s.next_after(rq)
        prev = s.prev_before(rq)
        if nxt is None:
            nxt = s.first()
            if nxt is rq:
                nxt = None
        return self._choose(nxt, prev)

    def add(self, rq: Rq, now: float) -> None:
        c = self._cls(rq)
        aic = self._aic(rq.pid)
        if c == SYNC:
            self._update_iohist(aic, rq, now)
        aic.nr_queued += 1
        rq.expires = now + self.fifo_expire[c]
        self.sort[c].add(rq)
        self.fifo[c][rq.id] = rq
        self.next_arq[c] = self._choose(rq, self.next_arq[c])
        if self.antic_status in (WAIT_REQ, WAIT_NEXT) and self._can_break(rq, now):
            self._antic_stop(now, rq)

    def merged(self, rq: Rq, old_lba: int, now: float) -> None:
        if old_lba != rq.lba:
            s = self.sort[self._cls(rq)]
            s.remove(rq, old_lba)
            s.add(rq)

    def _remove_queued(self, rq: Rq) -> None:
        c = self._cls(rq)
        if self.next_arq[c] is rq:
            self.next_arq[c] = self._find_next(rq)
        self.sort[c].remove(rq)
        del self.fifo[c][rq.id]
        self._aic(rq.pid).nr_queued -= 1

    # -- anticipation ------------------------------------------------------
    def _antic_expired(self, now: float) -> bool:
        return now > self.antic_start + self.antic_expire

    def _close(self, rq: Rq, now: float) -> bool:
        """``as_close_req``: the acceptable window grows while we wait."""
        last = self.last_sector[self.batch_dir]
        if self.antic_status == OFF or not self.ioc_finished:
            delay = 0
        else:
            delay = int(now - self.antic_start)
        if delay <= 1:
            delta = 64
        elif delay <= MAX_THINKTIME_MS and delay <= self.antic_expire:
            delta = 64 << (delay - 1)
        else:
            return True
        return last - delta // 2 <= rq.lba <= last + delta

    def _can_break(self, rq: Rq | None, now: float) -> bool:
        """``as_can_break_anticipation``: stop waiting and serve ``rq``?"""
        pid = self.io_context
        if pid is None:
            return True
        if rq is not None and rq.pid == pid:
            return True
        if self.ioc_finished and self._antic_expired(now):
            return True
        aic = self._aic(pid)
        if aic.nr_queued > 0 or aic.nr_dispatched > 0:
            return True
        if rq is not None and rq.sync and self._close(rq, now):
            aic.last_end_request = now  # cooperating processes keep each other alive
            return True
        if aic.ttime_samples == 0:
            if self.new_ttime_mean > self.antic_expire or self.exit_prob > 128:
                return True
        elif aic.ttime_mean > self.antic_expire:
            return True
        if rq is None:
            return False
        s = abs(self.last_sector[SYNC] - rq.lba)
        mean = self.new_seek_mean if aic.seek_samples == 0 else aic.seek_mean
        return mean > s

    def _can_anticipate(self, rq: Rq | None, now: float) -> bool:
        if self.io_context is None:
            return False
        if self.antic_status == FINISHED:
            return False
        return not self._can_break(rq, now)

    def _antic_waitnext(self, now: float) -> None:
        # from here the disk is idle on purpose (before, the awaited request was still running)
        self.antic_status = WAIT_NEXT
        self.timer_at = self.antic_start + self.antic_expire
        self._log(now, "antic-start", None, f"pid {self.io_context}")

    def _antic_waitreq(self, now: float) -> None:
        if self.antic_status == OFF:
            self.stats["antic_started"] += 1
            if self.io_context is None or self.ioc_finished:
                self._antic_waitnext(now)
            else:
                self.antic_status = WAIT_REQ

    def _antic_stop(self, now: float, rq: Rq | None) -> None:
        self.stats["antic_broken"] += 1
        if self.antic_status == WAIT_NEXT:
            self._log(now, "antic-stop", rq, "broken")
        self.antic_status = FINISHED
        self.timer_at = None

    def on_timer(self, now: float) -> None:
        if self.antic_status in (WAIT_REQ, WAIT_NEXT) and self.timer_at is not None \
                and now >= self.timer_at - 1e-9:
            if self.io_context is not None and self._aic(self.io_context).ttime_samples == 0:
                self.exit_prob = (7 * self.exit_prob + 256) / 8
            self.stats["antic_timeouts"] += 1
            self._log(now, "antic-stop", None, "timeout")
            self.antic_status = FINISHED
            self.timer_at = None

    # -- batches -----------------------------------------------------------
    def _fifo_expired(self, c: int, now: float) -> bool:
        if abs(now - self.last_check_fifo[c]) < self.fifo_expire[c]:
            return False
        self.last_check_fifo[c] = now
        fifo = self.fifo[c]
        return bool(fifo) and now > next(iter(fifo.values())).expires

    def _batch_expired(self, now: float) -> bool:
        if self.changed_batch or self.new_batch:
            return False
        if self.batch_dir == SYNC:
            return now > self.current_batch_expires
        return now > self.current_batch_expires or self.current_write_count == 0

    def _update_write_batch(self, now: float) -> None:
        batch = self.batch_expire[ASYNC]
        write_time = max(0.0, now - self.current_batch_expires + batch)
        if write_time > batch and not self.write_batch_idled:
            if write_time > 3 * batch:
                self.write_batch_count //= 2
            else:
                self.write_batch_count -= 1
        elif write_time < batch and self.current_write_count == 0:
            if batch > 3 * write_time:
                self.write_batch_count *= 2
            else:
                self.write_batch_count += 1
        self.write_batch_count = max(1, self.write_batch_count)

    def dispatch(self, now: float) -> Rq | None:
        reads, writes = bool(self.fifo[SYNC]), bool(self.fifo[ASYNC])
        if self.batch_dir == ASYNC and not reads and (self.current_write_count == 0
                                                      or not writes):
            self.write_batch_idled = True  # an uncontended write batch cannot be timed
        if not (reads or writes) or self.antic_status in (WAIT_REQ, WAIT_NEXT) \
                or self.changed_batch == 1:
            return None
        picked = self._continue_batch(now, reads, writes)
        if picked is _NOTHING:
            return None
        if picked is None:  # as-iosched.c's dispatch_writes / dispatch_request choice
            rq, expired_fifo = self._new_batch(reads, writes, now), False
            if rq is _NOTHING:  # pragma: no cover - reads or writes is true here
                return None
        else:
            rq, expired_fifo = picked
        if expired_fifo or self._fifo_expired(self.batch_dir, now):
            rq = next(iter(self.fifo[self.batch_dir].values()))
            self._log(now, "expired", rq)
        if self.changed_batch:
            if self.nr_dispatched:
                return None
            if self.batch_dir == ASYNC:
                self.current_batch_expires = now + self.batch_expire[ASYNC]
            else:
                self.new_batch = True
            self.changed_batch = 0
        return self._move(rq, now)

    def _continue_batch(self, now: float, reads: bool, writes: bool):
        """Go on with the current batch: ``(rq, fifo expired)``; None to start a new batch;
        ``_NOTHING`` when the scheduler starts to anticipate instead."""
        if reads and writes and self._batch_expired(now):
            return None
        rq = self.next_arq[self.batch_dir]
        if self.batch_dir == SYNC and self.antic_expire:
            if self._fifo_expired(SYNC, now):
                return rq, True
            if self._can_anticipate(rq, now):
                self._antic_waitreq(now)
                return _NOTHING
        if rq is None:
            return None
        if reads and not writes:
            self.current_batch_expires = now + self.batch_expire[SYNC]
        return rq, False

    def _new_batch(self, reads: bool, writes: bool, now: float):
        """Start a read batch (the oldest read) or, when reads just ran and writes wait or
        only writes wait, a write batch; ``_NOTHING`` when nothing waits."""
        if reads and not (writes and self.batch_dir == SYNC):
            if self.batch_dir == ASYNC:
                self.changed_batch = 1
            self.batch_dir = SYNC
            self.last_check_fifo[SYNC] = now
            return next(iter(self.fifo[SYNC].values()))
        if writes:
            if self.batch_dir == SYNC:
                self.changed_batch = 1
                self.new_batch = False
            self.batch_dir = ASYNC
            self.current_write_count = self.write_batch_count
            self.write_batch_idled = False
            return self.next_arq[ASYNC]
        return _NOTHING  # pragma: no cover - reads or writes is true here

    def _move(self, rq: Rq, now: float) -> Rq:
        c = self._cls(rq)
        self.antic_status = OFF
        self.timer_at = None
        self.last_sector[c] = rq.end
        if c == SYNC:
            self.io_context = rq.pid
        else:
            self.io_context = None
            if self.current_write_count:
                self.current_write_count -= 1
        self.ioc_finished = False
        self.next_arq[c] = self._find_next(rq)
        self._remove_queued(rq)
        self.nr_dispatched += 1
        return rq

    def completed(self, rq: Rq, now: float) -> None:
        self.nr_dispatched -= 1
        if self.changed_batch and self.nr_dispatched == 0:
            self.changed_batch = 2  # the old batch has drained: the new one may start
        c = self._cls(rq)
        if self.new_batch and self.batch_dir == c:
            self._update_write_batch(now)
            self.current_batch_expires = now + self.batch_expire[SYNC]
            self.new_batch = False
        if c == SYNC:
            aic = self._aic(rq.pid)
            aic.io_running = True
            aic.last_end_request = now
            if self.io_context == rq.pid:
                self.antic_start = now
                self.ioc_finished = True
                if self.antic_status == WAIT_REQ:
                    self._antic_waitnext(now)
