"""Elevators: SCAN, C-SCAN, LOOK, C-LOOK and V-SCAN(R).

Seed: Gray 2000 §3.2 (after Seltzer, Chen & Ousterhout 1990): SCAN "looks for
the task with the shortest seek distance in a specific direction"; C-SCAN,
"once a scan has completed", seeks "back to the first pending request in the
starting direction". V-SCAN(R) is Geist & Daniel, "A continuum of disk
scheduling algorithms", ACM TOCS 5(1), 1987 (not in the seeds): a request
behind the arm costs its distance plus ``R`` times the full stroke, so
``R = 0`` is SSTF and ``R = 1`` is SCAN.

A policy here only *chooses* among pending requests; the drive never moves
the arm without a request to serve. So SCAN and LOOK (and C-SCAN and C-LOOK)
serve requests in the same order in simcore: the textbook SCAN's empty trip to
the last cylinder before it turns is not charged. The four names are kept
because textbooks use them; the chapter says so.

Requests on the arm's own cylinder count as "ahead" in either direction.
Ties go to the oldest request (``pending`` is in arrival order).
"""

from __future__ import annotations

UP, DOWN = 1, -1


class Look:
    """LOOK (and SCAN): sweep one way serving the nearest request ahead; turn when none is left."""

    name = "look"
    starvation_free = True

    def __init__(self, direction: int = UP):
        self.direction = UP if direction >= 0 else DOWN

    def choose(self, pending, head, now):
        cyl, cylinder_of, d = head.cylinder, head.cylinder_of, self.direction
        best = best_dist = None
        for r in pending:
            dist = (cylinder_of(r.lba) - cyl) * d
            if dist >= 0 and (best_dist is None or dist < best_dist):
                best, best_dist = r, dist
        if best is None:  # nothing ahead: turn round
            self.direction = d = -d
            for r in pending:
                dist = (cylinder_of(r.lba) - cyl) * d
                if dist >= 0 and (best_dist is None or dist < best_dist):
                    best, best_dist = r, dist
        return best


class Scan(Look):
    """SCAN as Seltzer et al. simulate it: identical order to LOOK here (see the module note)."""

    name = "scan"


class CLook:
    """C-LOOK (and C-SCAN): sweep upward only; at the top, jump back to the lowest request."""

    name = "clook"
    starvation_free = True

    def choose(self, pending, head, now):
        cyl, cylinder_of = head.cylinder, head.cylinder_of
        best = best_cyl = low = low_cyl = None
        for r in pending:
            c = cylinder_of(r.lba)
            if c >= cyl and (best_cyl is None or c < best_cyl):
                best, best_cyl = r, c
            if low_cyl is None or c < low_cyl:
                low, low_cyl = r, c
        return best if best is not None else low


class CScan(CLook):
    """C-SCAN: identical order to C-LOOK here (the return trip is one long seek either way)."""

    name = "cscan"


class VScan:
    """V-SCAN(R): distance, plus ``R`` x the full stroke for turning round (Geist & Daniel 1987)."""

    name = "vscan"

    def __init__(self, r: float = 0.2, direction: int = UP):
        if not 0.0 <= r <= 1.0:
            raise ValueError(f"V-SCAN(R) needs 0 <= R <= 1, got R = {r}")
        self.r = r
        self.direction = UP if direction >= 0 else DOWN
        # R = 0 is SSTF, which can starve; any R > 0 bounds how long a request is passed over
        # only while the arm keeps turning, so promise nothing below SCAN itself.
        self.starvation_free = r >= 1.0

    def choose(self, pending, head, now):
        cyl, cylinder_of, d = head.cylinder, head.cylinder_of, self.direction
        penalty = self.r * head.cylinders
        best = best_cost = None
        best_delta = 0
        for r in pending:
            delta = cylinder_of(r.lba) - cyl
            cost = abs(delta) + (penalty if delta * d < 0 else 0.0)
            if best_cost is None or cost < best_cost:
                best, best_cost, best_delta = r, cost, delta
        if best_delta:
            self.direction = UP if best_delta > 0 else DOWN
        return best
