"""Experiment ``multistream``: Panagiotakis 2006 (seed 004) against the targets of notes 004 §6.

Chapter 5 (the real system, WD800JD-class profile, 100 streams of 64 KiB requests): §5.1,
§5.2 and the abstract's "up to a factor of 8". Chapter 3 (DiskSim): Fig. 3.4 (segment size at
32 segments, 30 streams) and Fig. 3.5 (the cliff once streams exceed segments). Tolerances as
in the issue: baseline 4 to 8 MB/s, ratio 6 to 12, single-active and all-active ±15%,
10-vs-100 drop 0 to 20%, segment sizes ±20%.

The tests run the quick mode (8 s windows); ``python -m simcore reproduce multistream`` runs
the full one.
"""

from __future__ import annotations

import json

import pytest

from simcore.experiments import multistream as exp


@pytest.fixture(scope="module")
def res():
    return exp.reproduce(quick=True, seed=0)


def test_result_is_json_ready_and_names_its_sources(res):
    text = json.dumps(res)  # no NaN/Infinity and nothing exotic
    assert "Panagiotakis" in text
    assert set(res["paper"]) >= {"dispatch_mb_s", "ratio", "single_active_r8m_mb_s"}
    assert "assumed" in res["parameters"] and "from the thesis" in res["parameters"]


def test_baseline_100_streams_is_positioning_bound(res):
    # §4.3 of the notes: 64 KiB per random positioning; the thesis's baseline about 50/8
    assert 4.0 <= res["baseline_mb_s"] <= 8.0


def test_dispatch_set_gives_the_throughput_back(res):
    # abstract: "improves disk throughput up to a factor of 8 with ... 100 sequential streams"
    assert 6.0 <= res["ratio"] <= 12.0
    assert res["host"]["dispatch"]["D"] == 2  # M / (R N) = 16 MiB / 8 MiB
    assert res["host"]["dispatch"]["peak_memory_bytes"] <= 16 << 20


@pytest.mark.xfail(strict=True, reason=(
    "the WD800JD profile's zones (1,000 to 540 sectors per track) stream at about 42 MB/s "
    "averaged over the positions of 100 evenly spread streams; the thesis's 'about 50 MBytes/s "
    "out of the maximum 55' is 91% of its outer-edge maximum, ours is 73% of our outer-edge "
    "55 MB/s, 95% of what the zones allow at those positions"))
def test_dispatch_reaches_about_50(res):
    # §5.1: "a throughput of about 50 MBytes/s out of the maximum 55 MBytes/s"
    assert res["dispatch_mb_s"] == pytest.approx(50.0, rel=0.10)


def test_one_stream_reaches_the_thesis_maximum(res):
    # §5.1: "the maximum 55 MBytes/s we have measured" (one stream at the outer edge)
    assert res["single_stream_mb_s"] == pytest.approx(55.0, rel=0.03)


def test_small_memory_beats_many_active_streams(res):
    # §5.2: one stream with 8 MiB read-ahead "about 40", all 100 at 256 KiB "about 14" (±15%)
    assert res["single_active_r8m_mb_s"] == pytest.approx(40.0, rel=0.15)
    assert res["all_active_r256k_mb_s"] == pytest.approx(14.0, rel=0.15)
    assert 2.3 <= res["single_active_r8m_mb_s"] / res["all_active_r256k_mb_s"] <= 3.5
    assert res["host"]["single_active"]["M_bytes"] == 8 << 20


def test_dispatch_set_is_insensitive_to_the_number_of_streams(res):
    # the thesis's claim: the scheme "effectively makes the I/O subsystem insensitive to the
    # number of I/O streams used"
    assert abs(res["streams_10_vs_100_drop_pct"]) < 5.0


@pytest.mark.xfail(strict=False, reason=(
    "the model shows no 10% drop from 10 to 100 streams (quick: -0.3%, full: about +2%): evenly "
    "spaced streams cover the whole disk at 10 as at 100, so zone rates and random-order seeks "
    "are the same; the thesis blames 'a larger percent of the disk surface', which the "
    "placement rule it states does not change"))
def test_ten_to_hundred_streams_loses_about_10_pct(res):
    assert 5.0 <= res["streams_10_vs_100_drop_pct"] <= 20.0


def test_segment_size_at_32_segments_30_streams(res):
    # Fig. 3.4: "from about 8 MBytes/s for 32 KBytes segment size to about 40 MBytes/s for
    # 2 MBytes segment size" (±20%, ratio about 5)
    seg = res["segment_size_30_streams"]
    assert seg["32k"] == pytest.approx(8.0, rel=0.20)
    assert seg["2m"] == pytest.approx(40.0, rel=0.20)
    assert seg["ratio"] == pytest.approx(5.0, rel=0.20)


def test_cliff_once_streams_exceed_segments(res):
    # Fig. 3.5: "when the number of streams is greater than the number of segments, throughput
    # drops dramatically ... worse throughput, even compared to when no (or little)
    # prefetching is used"; the cliff exactly at #streams = #segments (16)
    c = res["segments_cliff"]
    mb = dict(zip(c["streams"], c["mb_s"], strict=True))
    assert mb[16] > 3 * mb[17]
    assert c["drop_factor"] >= 3
    assert c["beyond_below_no_read_ahead"]
    assert all(mb[s] < min(c["no_read_ahead_mb_s"]) for s in c["streams"] if s > 16)


def test_checks_agree_with_the_targets(res):
    failed = {k for k, v in res["checks"].items() if not v["ok"]}
    # the two shortfalls the xfails above explain; everything else meets its target
    assert failed <= {"dispatch_mb_s", "streams_10_vs_100_drop_pct"}
