"""Positional policies: they ask the mechanics how long each candidate would take.

Seed: Gray 2000 §3.2-3.3, summarising Seltzer, Chen & Ousterhout 1990:

* **STF / SPTF / SATF** "optimizes seek time and rotational latency, selecting
  the read-write request with the shortest I/O time". Requests here differ in
  transfer only through their length, so the policy compares *positioning*
  time (seek plus rotational wait to the first sector, from the head's state
  now: :meth:`HeadView.positioning_ms`).
* **GSTF** "partitions a disk into groups of adjacent cylinders", applies STF
  inside the current group and serves "all tasks in that group before moving
  to the next". Which group comes next is not in the seed: here the next
  non-empty group in the arm's sweep direction (LOOK over groups). ``freeze``
  is the seed's variant that "freezes the request queue for a cylinder group
  once the read-write heads have begun" there.
* **WSTF** weighs each positioning time with Seltzer's aging function
  (Figure 1 in the seed): ``T_w = T_real x (M - E) / M`` where ``M`` is the
  maximum response time and ``E`` the time the request has waited. A request
  with ``E >= M`` is overdue: its weight is clamped to ``-E`` so overdue
  requests go first, oldest first (note 000 §3.3).
* **Aged SPTF** (Jacobson & Wilkes 1991, HP Labs HPL-CSP-91-7; not in the
  seeds): ``T_eff = T_pos - w x E``, a linear credit for waiting.

Ties go to the oldest request (``pending`` is in arrival order). Positioning
estimates come rounded to :data:`~simcore.disk.mechanics.TIME_RESOLUTION_MS` from the
mechanics, and the weighted keys below are rounded the same way, so a tie by hand
computation is a tie here (issue 14 part 7), never a float-noise decision.
"""

from __future__ import annotations

from ..disk.mechanics import exact_ms


def sptf(pending, head, now):
    """Shortest positioning time first (STF, SATF): seek plus rotation from the head now."""
    pos = head.positioning_ms
    return min(pending, key=lambda r: pos(r, now))


sptf.starvation_free = False


class TaggedSPTF:
    """SPTF over the ``depth`` oldest requests only: a drive with a tagged (NCQ) queue of
    that depth, which the host fills in arrival order and keeps the rest of.

    A real drive never sees thousands of requests at once; the window also keeps a
    long backlog (a burst of copies, an overload) from costing the simulator time
    quadratic in the backlog.
    """

    starvation_free = False  # a request in the window can lose to newcomers forever

    def __init__(self, depth: int = 32):
        if depth < 1:
            raise ValueError(f"a tagged queue holds at least one request, got depth {depth}")
        self.depth = int(depth)
        self.name = f"sptf-q{self.depth}"

    def __repr__(self) -> str:
        return self.name

    def choose(self, pending, head, now):
        pos = head.positioning_ms
        return min(pending[:self.depth], key=lambda r: pos(r, now))


class WSTF:
    """Weighted STF with Seltzer's aging function ``T_w = T_real (M - E) / M``."""

    name = "wstf"
    starvation_free = True  # every request becomes overdue after M ms, and overdue ones go first

    def __init__(self, max_response_ms: float = 1000.0):
        if max_response_ms <= 0:
            raise ValueError(f"WSTF needs M > 0 ms, got {max_response_ms}")
        self.max_response_ms = float(max_response_ms)

    def weight(self, t_real: float, waited_ms: float) -> float:
        """The weighted time of one request (negative waiting time once it is overdue)."""
        m = self.max_response_ms
        if waited_ms >= m:
            return -waited_ms
        return t_real * (m - waited_ms) / m

    def choose(self, pending, head, now):
        pos, m = head.positioning_ms, self.max_response_ms
        best = best_key = None
        for r in pending:
            e = now - r.arrival_ms
            key = -e if e >= m else exact_ms(pos(r, now) * (m - e) / m)
            if best_key is None or key < best_key:
                best, best_key = r, key
        return best


class AgedSPTF:
    """Aged shortest positioning time first: ``T_pos - weight x waited`` (Jacobson & Wilkes 1991)."""

    name = "aged-sptf"

    def __init__(self, weight: float = 0.01):
        if weight < 0:
            raise ValueError(f"aged SPTF needs weight >= 0, got {weight}")
        self.weight = float(weight)
        # the credit grows without bound, so any positive weight ends every wait
        self.starvation_free = weight > 0

    def choose(self, pending, head, now):
        pos, w = head.positioning_ms, self.weight
        return min(pending, key=lambda r: exact_ms(pos(r, now) - w * (now - r.arrival_ms)))


class GSTF:
    """Grouped STF: STF inside a group of adjacent cylinders; groups visited in sweep order."""

    name = "gstf"

    def __init__(self, group_cylinders: int = 50, freeze: bool = False):
        if group_cylinders < 1:
            raise ValueError(f"GSTF needs groups of >= 1 cylinder, got {group_cylinders}")
        self.group_cylinders = int(group_cylinders)
        self.freeze = freeze
        self.starvation_free = freeze
        self.direction = 1
        self.group: int | None = None
        self.frozen: set[int] = set()

    def choose(self, pending, head, now):
        g, cylinder_of = self.group_cylinders, head.cylinder_of
        groups = [cylinder_of(r.lba) // g for r in pending]
        current = self.group
        if current is not None:
            if self.freeze:
                here = [r for r, q in zip(pending, groups, strict=True)
                        if q == current and r.id in self.frozen]
            else:
                here = [r for r, q in zip(pending, groups, strict=True) if q == current]
            if here:
                return self._stf(here, head, now)
        # move on: the nearest non-empty group ahead of the arm, else turn round
        at = head.cylinder // g
        ahead = [q for q in groups if (q - at) * self.direction >= 0 and q != current]
        if not ahead:
            ahead = [q for q in groups if q != current] or groups
            self.direction = -self.direction
            ahead = [q for q in ahead if (q - at) * self.direction >= 0] or ahead
        nxt = min(ahead, key=lambda q: abs(q - at))
        self.group = nxt
        here = [r for r, q in zip(pending, groups, strict=True) if q == nxt]
        if self.freeze:
            self.frozen = {r.id for r in here}
        return self._stf(here, head, now)

    @staticmethod
    def _stf(candidates, head, now):
        pos = head.positioning_ms
        return min(candidates, key=lambda r: pos(r, now))
