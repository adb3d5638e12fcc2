"""NCQ/TCQ queue depth: drive-side SPTF with aging against host-side ordering (issue 15).

Worthington, Ganger & Patt (1994): SPTF gains with the queue and beats LBN-based ordering;
aged SPTF (Jacobson & Wilkes 1991) bounds the wait that pure SPTF leaves unbounded.
"""

import itertools

import pytest

from simcore import queue_depth as qd
from simcore.sched import AgedSPTF


def test_at_depth_one_there_is_nothing_to_choose():
    rows = [qd.depth_point(depth=1, arrangement=a, requests=150, seed=4)
            for a in qd.ARRANGEMENTS]
    assert len({round(r["iops"], 9) for r in rows}) == 1
    assert len({tuple(r["response_ms"]) for r in rows}) == 1


def test_sptf_throughput_grows_with_depth_and_beats_host_ordering():
    iops = [qd.depth_point(depth=d, arrangement="SPTF (drive)", requests=600)["iops"]
            for d in (1, 4, 16, 32)]
    assert all(a < b for a, b in itertools.pairwise(iops))
    assert iops[-1] > 1.8 * iops[0]
    host = qd.depth_point(depth=32, arrangement="mq-deadline (host, drive depth 1)",
                          requests=600)["iops"]
    fcfs = qd.depth_point(depth=32, arrangement="FCFS (drive)", requests=600)["iops"]
    assert fcfs < host < iops[-1]


def test_same_seed_same_numbers():
    a = qd.depth_point(depth=8, arrangement="aged SPTF (drive)", requests=200, seed=9)
    b = qd.depth_point(depth=8, arrangement="aged SPTF (drive)", requests=200, seed=9)
    assert a == b
    c = qd.depth_point(depth=8, arrangement="aged SPTF (drive)", requests=200, seed=10)
    assert c["response_ms"] != a["response_ms"]


def test_pure_sptf_starves_and_aging_bounds_the_wait():
    pure = qd.starvation_case(scheduler="sptf")
    # the first far read waits for the whole near stream
    assert pure["far_wait_ms"][0] > 0.95 * pure["near_done_ms"]
    for w in (0.05, 0.2):
        aged = qd.starvation_case(scheduler=AgedSPTF(w))
        bound = qd.starvation_bound_ms("modern7200", w, aged["near_max_service_ms"])
        assert max(aged["far_wait_ms"]) <= bound
        assert bound < pure["far_wait_ms"][0]
    assert qd.starvation_bound_ms("modern7200", 0.0, 10.0) == float("inf")


def test_bad_arguments_name_the_field():
    with pytest.raises(ValueError, match="arrangement"):
        qd.depth_point(arrangement="magic")
    with pytest.raises(ValueError, match="depth"):
        qd.depth_point(depth=0)
