"""Drive policies against hand-worked orders.

The cylinder list is the classic textbook example (Silberschatz, Galvin &
Gagne, *Operating System Concepts*, ch. "Mass-storage structure"): head at 53,
queue 98, 183, 37, 122, 14, 124, 65, 67. A stub head maps LBA = cylinder and
moves the arm to each chosen request, so only the policy is tested.
"""

from __future__ import annotations

import pytest

from simcore.records import READ, Request
from simcore.sched import GSTF, WSTF, AgedSPTF, CLook, Look, TaggedSPTF, VScan, fcfs, sptf, sstf

QUEUE = [98, 183, 37, 122, 14, 124, 65, 67]


class StubHead:
    """LBA equals cylinder; positioning time is the seek distance plus a per-request rotation."""

    cylinders = 200

    def __init__(self, cylinder, rotation=None):
        self.cylinder = cylinder
        self.rotation = rotation or {}

    def cylinder_of(self, lba):
        return lba

    def seek_ms(self, d):
        return abs(d)

    def positioning_ms(self, req, now):
        return abs(req.lba - self.cylinder) + self.rotation.get(req.lba, 0.0)


def order(policy, cylinders, start=53, rotation=None):
    head = StubHead(start, rotation)
    pending = [Request(i, 0.0, READ, c, 1) for i, c in enumerate(cylinders)]
    choose = policy.choose if hasattr(policy, "choose") else policy
    out = []
    while pending:
        r = choose(pending, head, 0.0)
        pending.remove(r)
        out.append(r.lba)
        head.cylinder = r.lba
    return out


def test_fcfs_textbook():
    assert order(fcfs, QUEUE) == QUEUE


def test_sstf_textbook():
    # total head movement 236 cylinders in the textbook
    got = order(sstf, QUEUE)
    assert got == [65, 67, 37, 14, 98, 122, 124, 183]
    assert sum(abs(b - a) for a, b in zip([53, *got], got, strict=False)) == 236


def test_look_textbook_downward_first():
    assert order(Look(direction=-1), QUEUE) == [37, 14, 65, 67, 98, 122, 124, 183]


def test_look_upward_first():
    assert order(Look(direction=1), QUEUE) == [65, 67, 98, 122, 124, 183, 37, 14]


def test_clook_textbook():
    assert order(CLook(), QUEUE) == [65, 67, 98, 122, 124, 183, 14, 37]


def test_vscan_ends_are_sstf_and_scan():
    # Geist & Daniel 1987: V(0) is SSTF, V(1) is SCAN (here LOOK, moving up first)
    assert order(VScan(0.0), QUEUE) == order(sstf, QUEUE)
    assert order(VScan(1.0), QUEUE) == order(Look(direction=1), QUEUE)


def test_sptf_uses_rotation_too():
    # 65 is nearer by seek, but its sector just went by: 58 ms of rotation make 98 cheaper
    got = order(sptf, [98, 65], rotation={65: 58.0})
    assert got[0] == 98


def test_tagged_sptf_sees_only_its_queue():
    # the textbook queue from cylinder 53: SPTF over all of it is SSTF here (no rotation)
    assert order(TaggedSPTF(len(QUEUE)), QUEUE) == order(sptf, QUEUE)
    # a 2-deep tagged queue holds 98 and 183: 98 first, then 37 joins (183 is 85 away, 37 is 61)
    assert order(TaggedSPTF(2), QUEUE)[:3] == [98, 37, 122]
    assert order(TaggedSPTF(1), QUEUE) == QUEUE  # depth 1 is FCFS


def test_wstf_worked_example():
    """Note 000 §3.3: an old 20 ms request beats a fresh 5 ms one once E > 0.75 M."""
    w = WSTF(max_response_ms=1000.0)
    assert w.weight(20.0, 700.0) > w.weight(5.0, 0.0)
    assert w.weight(20.0, 760.0) < w.weight(5.0, 0.0)
    assert w.weight(20.0, 1000.0) == -1000.0  # overdue: clamped to -E
    assert w.weight(20.0, 1500.0) < w.weight(20.0, 1200.0)  # older overdue goes first


def test_wstf_picks_the_old_request_in_a_queue():
    head = StubHead(50)
    old = Request(0, 0.0, READ, 70, 1)    # 20 ms away, waited 800 ms
    fresh = Request(1, 795.0, READ, 55, 1)  # 5 ms away, waited 5 ms
    assert WSTF(1000.0).choose([old, fresh], head, 800.0) is old
    assert WSTF(1000.0).choose([old, fresh], head, 600.0) is fresh


def test_aged_sptf_credit():
    head = StubHead(50)
    old = Request(0, 0.0, READ, 70, 1)
    fresh = Request(1, 1000.0, READ, 55, 1)
    # 20 - 0.01 * 1000 = 10 > 5: the fresh one; at weight 0.02, 20 - 20 = 0 < 5: the old one
    assert AgedSPTF(0.01).choose([old, fresh], head, 1000.0) is fresh
    assert AgedSPTF(0.02).choose([old, fresh], head, 1000.0) is old


def test_gstf_serves_a_group_before_moving_on():
    # groups of 50 cylinders: the head's group {37, 14} first (STF inside), then 65, 67, 98 ...
    got = order(GSTF(group_cylinders=50), QUEUE, start=40)
    assert got[:2] == [37, 14]
    assert got[2:5] == [65, 67, 98]


def test_gstf_freeze_holds_back_new_arrivals():
    g = GSTF(group_cylinders=50, freeze=True)
    head = StubHead(10)
    a, b = Request(0, 0.0, READ, 20, 1), Request(1, 0.0, READ, 120, 1)
    assert g.choose([a, b], head, 0.0) is a
    head.cylinder = 20
    late = Request(2, 1.0, READ, 21, 1)  # arrives in the frozen group: waits for the next visit
    assert g.choose([b, late], head, 1.0) is b


@pytest.mark.parametrize("bad", [lambda: VScan(1.5), lambda: WSTF(0), lambda: GSTF(0),
                                 lambda: AgedSPTF(-1), lambda: TaggedSPTF(0)])
def test_bad_parameters_are_refused(bad):
    with pytest.raises(ValueError):
        bad()
