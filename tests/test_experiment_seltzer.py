"""Seltzer, Chen & Ousterhout 1990 as summarised in seed 000 §3 (Gray 2000), quick mode.

The seed's claims (FCFS flat at 18 + 8.3 ms plus transfer, WSTF within 1-2% of STF, STF's
growing tail, SCAN like SSF) are the experiment's ``TARGETS``, evaluated by
``tests/test_targets.py`` and reported, met or missed, by ``reproduce`` and the status page.
These tests check what holds by construction.
"""

from __future__ import annotations

import json

import pytest

from simcore.experiments import seltzer


@pytest.fixture(scope="module", params=["quick", "full"])
def result(request, any_result):
    """Quick mode, run here, and the full run the book shows (from the results cache)."""
    return any_result("seltzer", request.param)


def test_shape_and_json(result):
    assert result["queue_lengths"][0] == 1 and result["queue_lengths"][-1] >= 100
    assert set(seltzer.POLICIES) <= set(result["mean_io_ms"]) <= set(result["max_response_ms"])
    assert "paper" in result
    json.dumps(result)


def test_queue_of_one_is_fcfs_for_everyone(result):
    # "Any scheduling algorithm with a queue length of one reverts to FCFS."
    first = {name: vals[0] for name, vals in result["mean_io_ms"].items()}
    assert len(set(first.values())) == 1


def test_reordering_never_costs_mean_io_time(result):
    """With a full queue, a policy that picks by position can only shorten the mean service
    against arrival order (the requests are the same uniform draws)."""
    m = result["mean_io_ms"]
    for name in ("SSTF", "SCAN", "C-SCAN", "STF", "GSTF", "WSTF"):
        assert m[name][-1] < m["FCFS"][-1], name
    # STF minimises the positioning time it is given, so no policy beats it by more than noise
    assert m["STF"][-1] <= min(m[name][-1] for name in m) * 1.02


def test_derived_checks_match_the_curves(result):
    c, m, mx = result["checks"], result["mean_io_ms"], result["max_response_ms"]
    pred = result["paper"]["fcfs_predicted_ms"]
    assert c["fcfs_worst_vs_predicted_pct"] == pytest.approx(
        max(abs(100 * (v / pred - 1)) for v in m["FCFS"]), abs=0.02)
    assert c["wstf_vs_stf_abs_pct"] == pytest.approx(
        abs(100 * (m["WSTF"][-1] / m["STF"][-1] - 1)), abs=0.01)
    assert c["stf_max_above_wstf_max"] == (mx["STF"][-1] > mx["WSTF"][-1])


def test_constant_queue_holds_the_queue(result):
    out = seltzer.constant_queue("fujitsu_eagle", "fcfs", 10, measured=50, seed=1)
    recs = out["records"]
    assert len(recs) == 50 and not out["unfinished_wait_ms"]
    # FCFS with 10 outstanding: each request waits for the 9 ahead of it
    waits = [r.start_ms - r.arrival_ms for r in recs]
    mean_service = sum(r.finish_ms - r.start_ms for r in recs) / len(recs)
    assert sum(waits) / len(waits) == pytest.approx(9 * mean_service, rel=0.25)
