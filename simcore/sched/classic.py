"""FCFS and SSTF: the policies every course starts with (Gray 2000 §3.2)."""

from __future__ import annotations


def fcfs(pending, head, now):
    """First come, first served: the oldest request (the baseline of Seltzer et al. 1990)."""
    return pending[0]


def sstf(pending, head, now):
    """Shortest seek first: the nearest cylinder; ties go to the oldest request."""
    cyl = head.cylinder
    cylinder_of = head.cylinder_of
    return min(pending, key=lambda r: abs(cylinder_of(r.lba) - cyl))
