"""FCFS and SSTF: the policies every course starts with.

Seed: Gray 2000 §3.2, summarising Seltzer, Chen & Ousterhout 1990 (their
"SSF" is SSTF). Both are plain functions ``choose(pending, head, now)``.
``pending`` is in arrival order, so ``min`` breaks ties toward the oldest.
"""

from __future__ import annotations


def fcfs(pending, head, now):
    """First come, first served: the oldest request (the baseline of Seltzer et al. 1990)."""
    return pending[0]


fcfs.starvation_free = True


def sstf(pending, head, now):
    """Shortest seek first: the nearest cylinder; ties go to the oldest request.

    It ignores rotation, so it is cheap; it can starve requests at the edges
    while a stream of nearby requests keeps arriving (Seltzer et al.).
    """
    cyl = head.cylinder
    cylinder_of = head.cylinder_of
    return min(pending, key=lambda r: abs(cylinder_of(r.lba) - cyl))


sstf.starvation_free = False
