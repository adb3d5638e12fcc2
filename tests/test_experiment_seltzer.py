"""Seltzer, Chen & Ousterhout 1990 as summarised in seed 000 §3 (Gray 2000), quick mode.

Targets (issue 7): FCFS mean I/O time flat across queue lengths at 18 ms seek +
8.3 ms latency plus the transfer, within 10%; WSTF's mean I/O time within 3% of
STF's at the largest queue (the seed: "within 1 to 2 percent"); STF's maximum
response time grows with the queue and exceeds WSTF's at the largest queue;
at the largest queue STF < SSTF < FCFS in mean I/O time.
"""

from __future__ import annotations

import json

import pytest

from simcore.experiments import seltzer


@pytest.fixture(scope="module")
def result():
    return seltzer.reproduce(quick=True, seed=0)


def test_shape_and_json(result):
    assert result["queue_lengths"][0] == 1 and result["queue_lengths"][-1] >= 100
    assert set(seltzer.POLICIES) <= set(result["mean_io_ms"]) <= set(result["max_response_ms"])
    assert "paper" in result
    json.dumps(result)


def test_fcfs_flat_at_seek_plus_latency_plus_transfer(result):
    predicted = 18.0 + 8.3 + result["transfer_ms"]
    for v in result["mean_io_ms"]["FCFS"]:
        assert v == pytest.approx(predicted, rel=0.10)


def test_queue_of_one_is_fcfs_for_everyone(result):
    # "Any scheduling algorithm with a queue length of one reverts to FCFS."
    first = {name: vals[0] for name, vals in result["mean_io_ms"].items()}
    assert len(set(first.values())) == 1


def test_wstf_within_3_percent_of_stf(result):
    stf, wstf = result["mean_io_ms"]["STF"][-1], result["mean_io_ms"]["WSTF"][-1]
    assert abs(wstf / stf - 1) < 0.03


def test_stf_tail_grows_and_exceeds_wstf(result):
    mx = result["max_response_ms"]
    assert mx["STF"][-1] > mx["STF"][1] > mx["STF"][0]
    assert mx["STF"][-1] > mx["WSTF"][-1]


def test_ordering_at_largest_queue(result):
    m = result["mean_io_ms"]
    assert m["STF"][-1] < m["SSTF"][-1] < m["FCFS"][-1]


def test_scan_is_very_similar_to_ssf(result):
    # "performance of SCAN is very similar to that of SSF"
    m = result["mean_io_ms"]
    assert m["SCAN"][-1] == pytest.approx(m["SSTF"][-1], rel=0.05)


def test_constant_queue_holds_the_queue(result):
    out = seltzer.constant_queue("fujitsu_eagle", "fcfs", 10, measured=50, seed=1)
    recs = out["records"]
    assert len(recs) == 50 and not out["unfinished_wait_ms"]
    # FCFS with 10 outstanding: each request waits for the 9 ahead of it
    waits = [r.start_ms - r.arrival_ms for r in recs]
    mean_service = sum(r.finish_ms - r.start_ms for r in recs) / len(recs)
    assert sum(waits) / len(waits) == pytest.approx(9 * mean_service, rel=0.25)
