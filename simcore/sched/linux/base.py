"""What a Linux I/O scheduler (an "elevator") looks like to simcore's block layer.

Seed 001 §2.0 (Pratt & Heger 2004, and the 2.6.4 ``ll_rw_blk.c``): producers
hand bios to ``__make_request``, which tries to merge them into a queued
request and otherwise allocates a request and gives it to the scheduler; the
driver calls ``elv_next_request`` for work. :class:`simcore.host.BlockLayer`
plays the block layer and the driver; an elevator only decides:

* ``add(rq, now)``: a new request enters the scheduler;
* ``dispatch(now) -> rq | None``: the device can take one more request;
  ``None`` means "nothing now" (an empty queue, or idling on purpose, in which
  case the elevator sets ``timer_at`` to when it wants to be asked again);
* ``completed(rq, now)``: the device finished a request;
* ``merged(rq, old_lba, now)``: the block layer grew a queued request;
* ``on_timer(now)``: ``timer_at`` came.

Requests are :class:`Rq` objects (mutable: merging grows them). Elevators keep
their own bookkeeping on them as plain attributes.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from ...records import READ

READ_DIR, WRITE_DIR = 0, 1


class Rq:
    """A request in the host's queue: one or more merged bios from one direction."""

    __slots__ = ("arrival_ms", "bios", "dispatch_ms", "expires", "extra", "id", "lba", "op",
                 "pid", "sectors", "seq", "sync", "tgid")

    def __init__(self, rid: int, op: str, lba: int, sectors: int, pid: int, tgid: int,
                 sync: bool, arrival_ms: float):
        self.id, self.op, self.lba, self.sectors = rid, op, lba, sectors
        self.pid, self.tgid, self.sync, self.arrival_ms = pid, tgid, sync, arrival_ms
        self.seq = rid
        self.bios: list[Any] = []
        self.dispatch_ms: float | None = None
        self.expires = 0.0
        self.extra: dict[str, Any] = {}

    @property
    def end(self) -> int:
        return self.lba + self.sectors

    @property
    def dir(self) -> int:
        return READ_DIR if self.op == READ else WRITE_DIR

    def __repr__(self) -> str:
        return f"Rq({self.id}, {self.op}, lba={self.lba}, n={self.sectors}, pid={self.pid})"


class SortedRqs:
    """Requests kept in sector order (the kernel's red-black tree, as a sorted list)."""

    __slots__ = ("_keys", "_rqs")

    def __init__(self):
        self._keys: list[tuple[int, int]] = []
        self._rqs: list[Rq] = []

    def __len__(self) -> int:
        return len(self._rqs)

    def __bool__(self) -> bool:
        return bool(self._rqs)

    def __iter__(self):
        return iter(self._rqs)

    def add(self, rq: Rq) -> None:
        key = (rq.lba, rq.seq)
        i = bisect_left(self._keys, key)
        self._keys.insert(i, key)
        self._rqs.insert(i, rq)

    def remove(self, rq: Rq, lba: int | None = None) -> None:
        i = bisect_left(self._keys, (rq.lba if lba is None else lba, rq.seq))
        del self._keys[i]
        del self._rqs[i]

    def first(self) -> Rq | None:
        return self._rqs[0] if self._rqs else None

    def next_after(self, rq: Rq) -> Rq | None:
        """The request after ``rq`` in sector order (``rq`` must be in the list)."""
        i = bisect_left(self._keys, (rq.lba, rq.seq)) + 1
        return self._rqs[i] if i < len(self._rqs) else None

    def prev_before(self, rq: Rq) -> Rq | None:
        i = bisect_left(self._keys, (rq.lba, rq.seq)) - 1
        return self._rqs[i] if i >= 0 else None

    def at_or_after(self, lba: int) -> Rq | None:
        i = bisect_left(self._keys, (lba, -1))
        return self._rqs[i] if i < len(self._rqs) else None

    def before(self, lba: int) -> Rq | None:
        i = bisect_left(self._keys, (lba, -1)) - 1
        return self._rqs[i] if i >= 0 else None


class Elevator:
    """Base class: a FIFO that never idles. Subclasses override what they change."""

    name = "base"
    front_merges = True
    #: absolute time (ms) at which the elevator wants ``on_timer``; None when it does not
    timer_at: float | None = None

    def __init__(self):
        self.trace = None  # set by the block layer: trace(now, kind, rq, note)

    def add(self, rq: Rq, now: float) -> None:
        raise NotImplementedError

    def dispatch(self, now: float) -> Rq | None:
        raise NotImplementedError

    def completed(self, rq: Rq, now: float) -> None:
        pass

    def merged(self, rq: Rq, old_lba: int, now: float) -> None:
        pass

    def on_timer(self, now: float) -> None:
        pass

    def allow_merge(self, rq: Rq, op: str, sync: bool, pid: int, tgid: int) -> bool:
        return True

    def __len__(self) -> int:
        raise NotImplementedError

    def tunables(self) -> dict[str, Any]:
        """The elevator's sysfs-style knobs and their values (what ``iosched/`` would list)."""
        return {}

    def _log(self, now: float, kind: str, rq: Rq | None = None, note: str = "") -> None:
        if self.trace is not None:
            self.trace(now, kind, rq, note)
