"""The request queue of OSTEP's disk homework: FIFO, SSTF, SATF and bounded SATF.

Seed: OSTEP, chapter "Hard Disk Drives" (§37.5, disk scheduling: SSTF, SPTF/SATF)
and its homework simulator's options. The rules, in our words:

* The queue keeps every request in arrival order; served ones stay in it (they
  still count towards a window) but are never chosen again.
* **FIFO** serves the queue in order. **SATF** takes the least estimated
  seek + rotation + transfer (the disk model's :meth:`estimate`); a tie goes to
  the request that came first. **SSTF** first keeps the requests on the track
  nearest the arm, then takes the least estimate among them (so requests on one
  track are served in the order the platter brings them round).
* A **window** ``-w W`` lets SATF and SSTF look at the first ``W`` entries of the
  queue only, and slides one entry on after each completion: always the ``W``
  oldest pending requests. **BSATF** (bounded SATF) moves its window by ``W``
  only once all ``W`` requests of the current window are served: batches.
* **Late requests** (``-l`` / ``-L``) join the end of the queue one at a time,
  each time a request is sent to the disk.

The disk model is any object with ``track_of(x)``, ``estimate(x)`` and
``serve(x) -> Service`` (:class:`~simcore.homework.toy.ToyDisk` in exact ticks,
:class:`~simcore.homework.mechanism_disk.MechanismDisk` on a simcore profile).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .toy import Service

POLICIES = ("FIFO", "SSTF", "SATF", "BSATF")


@dataclass(frozen=True)
class Row:
    """One line of the answer table."""

    sector: int
    service: Service


def check_policy(policy: str) -> str:
    name = policy.upper()
    if name not in POLICIES:
        raise ValueError(f"-p {policy}: the policies are {', '.join(POLICIES)}")
    return name


class _Window:
    """How many queue entries SATF, SSTF and BSATF may look at (``None``: all)."""

    def __init__(self, size: int, batched: bool):
        if size == 0:
            raise ValueError("-w 0: a scheduling window holds at least one request "
                             "(-1 means the whole queue)")
        self.size = size if size > 0 else None
        self.limit = self.size
        self.batched = batched and self.size is not None

    def current(self, served: int) -> int | None:
        if self.batched and served > 0 and served % self.size == 0:
            self.limit += self.size  # the batch is done: the next one opens
        return self.limit

    def after_completion(self, queue_length: int) -> None:
        if not self.batched and self.limit is not None and self.limit < queue_length:
            self.limit += 1  # slide on by the request just served


def _least_estimate(disk: Any, candidates: list[tuple[int, int]]) -> int:
    """The index of the candidate with the least estimate; the first one on a tie."""
    best_index, best = -1, None
    for sector, index in candidates:
        est = disk.estimate(sector)
        if best is None or est < best:
            best_index, best = index, est
    return best_index


def _nearest_track(disk: Any, candidates: list[tuple[int, int]]) -> list[tuple[int, int]]:
    here = disk.track
    distance = {s: abs(disk.track_of(s) - here) for s, _ in candidates}
    nearest = min(distance.values())
    return [(s, i) for s, i in candidates if distance[s] == nearest]


def run_queue(disk: Any, requests: list[int], late: list[int] | None = None,
              policy: str = "FIFO", window: int = -1) -> list[Row]:
    """Serve ``requests`` (and ``late`` ones as they join) on ``disk``; one :class:`Row` each."""
    policy = check_policy(policy)
    queue = list(requests)
    late = list(late or [])
    done = [False] * len(queue)
    win = _Window(window, batched=policy == "BSATF")
    rows: list[Row] = []
    while len(rows) < len(queue):
        if policy == "FIFO":
            chosen = len(rows)
        else:
            limit = win.current(len(rows))
            visible = queue if limit is None else queue[:limit]
            pending = [(s, i) for i, s in enumerate(visible) if not done[i]]
            if not pending:  # cannot happen: a window always holds a pending request
                raise RuntimeError(f"no pending request in a window of {limit}")
            if policy == "SSTF":
                pending = _nearest_track(disk, pending)
            chosen = _least_estimate(disk, pending)
        if late:
            queue.append(late.pop(0))
            done.append(False)
        rows.append(Row(queue[chosen], disk.serve(queue[chosen])))
        done[chosen] = True
        win.after_completion(len(queue))
    return rows
