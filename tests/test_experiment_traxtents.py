"""The ``traxtents`` experiment against Schindler et al. 2002 (FAST).

Paper values and tolerances: shared note 002 §5 and §6 (issue 9). The quick mode
runs 200 requests per point (800 for the cross-disk comparison), so its
numbers carry a little more noise than the full run's; the tolerances hold for
both (checked for seeds 0 and 1 at the time of writing).
"""

from __future__ import annotations

import json

import pytest

from simcore import experiments


@pytest.fixture(scope="module")
def result():
    return experiments.reproduce("traxtents", quick=True, seed=0)


def test_registered_and_json_ready(result):
    assert "traxtents" in experiments.names()
    json.dumps(result)  # JSON-ready
    assert set(result["paper"]) >= {"efficiency_aligned_264k", "video_streams"}


@pytest.mark.parametrize("key,paper,tol", [
    ("efficiency_aligned_264k", 0.73, 0.03),        # Figure 1 point A
    ("efficiency_unaligned_264k", 0.50, 0.04),      # 56 % of the maximum
    ("efficiency_unaligned_1m", 0.75, 0.04),        # Figure 1 point B
    ("head_time_aligned_tworeq_ms", 8.3, 0.3),      # §5.2: 2.2 ms seek + 6.1 ms
    ("head_time_reduction_onereq_pct", 18.0, 4.0),  # §5.2
    ("head_time_reduction_tworeq_pct", 32.0, 4.0),  # §5.2
    ("mean_seek_ms", 2.2, 0.15),                    # first-zone random seek
])
def test_headline_numbers(result, key, paper, tol):
    assert result[key] == pytest.approx(paper, abs=tol)
    assert result["paper"][key] == paper


def test_zero_latency_is_what_makes_the_difference(result):
    """§5.2: non-zero-latency disks gain only the head switch: 6 % and 8 %."""
    red = result["reduction_nonzero_latency_pct"]
    assert red["ultrastar18es"] == pytest.approx(6.0, abs=3.0)
    assert red["cheetahx15"] == pytest.approx(8.0, abs=3.0)
    assert max(red.values()) < result["head_time_reduction_tworeq_pct"] / 2
    # the other zero-latency disk, Atlas 10K: 16 % / 32 %
    a10 = result["reduction_atlas10k_pct"]
    assert a10["onereq"] == pytest.approx(16.0, abs=4.0)
    assert a10["tworeq"] == pytest.approx(32.0, abs=4.0)


def test_aligned_efficiency_peaks_at_track_multiples(result):
    c = result["curves"]
    size, eff = c["size_kib"], c["efficiency_aligned"]
    at = {s: e for s, e in zip(size, eff, strict=True)}
    assert at[264.0] > at[264.5] + 0.15  # one sector more costs a head switch and latency
    assert at[528.0] > at[528.5] + 0.05
    assert all(e <= result["max_streaming_efficiency"] + 1e-9 for e in eff)
    unal = dict(zip(size, c["efficiency_unaligned"], strict=True))
    assert at[264.0] / unal[264.0] > 1.35  # "up to 50 %" higher efficiency


def test_response_time_sigma(result):
    """Figure 8 (onereq, infinitely fast bus): aligned 1.8 -> 0.4 ms, unaligned 2.0 -> 1.5."""
    sd = result["response_sd_ms"]
    assert sd["aligned_1sector"] == pytest.approx(1.8, abs=0.3)
    assert sd["aligned_track"] == pytest.approx(0.4, abs=0.3)
    assert sd["unaligned_1sector"] == pytest.approx(2.0, abs=0.3)
    assert sd["aligned_track"] < sd["unaligned_track"] / 2
    # aligned variance is "due entirely to the seeks"
    assert sd["aligned_track"] == pytest.approx(result["sd_seek_ms"], abs=0.1)


@pytest.mark.xfail(strict=False, reason=(
    "unaligned track-sized sigma comes out 1.8-1.85 ms against the paper's 1.5 +- 0.3: the "
    "simulated first-zone seeks have sigma 0.59 ms (paper 0.4) and zero-latency landing adds "
    "~1.7 ms; the note's own Monte-Carlo model gives 1.6-1.8. Reported, not tuned."))
def test_unaligned_track_sigma_within_paper_tolerance(result):
    assert result["response_sd_ms"]["unaligned_track"] == pytest.approx(1.5, abs=0.3)


def test_bus_overlap_is_small_for_aligned_reads(result):
    """§5.2: in-order delivery gives only a 3 % media/bus overlap for aligned reads;
    out-of-order delivery would bring onereq close to tworeq."""
    assert result["overlap_pct_aligned"] < 10
    bm = result["bus_models"]
    assert bm["out-of-order"]["aligned_ms"] == pytest.approx(
        result["head_time_aligned_tworeq_ms"], abs=0.2)
    assert bm["assembled"]["aligned_ms"] > bm["streaming"]["aligned_ms"] > bm["none"]["aligned_ms"]


def test_video_streams(result):
    v = result["video_streams"]
    paper = result["paper"]["video_streams"]
    for key, want in paper.items():
        assert v[key] == pytest.approx(want, abs=4), key
    assert v["soft_aligned"] > 1.4 * v["soft_unaligned"]  # "+56 %"
    assert result["video"]["startup_latency_s"] == pytest.approx(5.5)


def test_detection(result):
    d = result["detection"]
    assert d["timing_correct"] and d["translation_correct"]
    assert 2.0 <= d["translations_per_track"] <= 2.3  # §3.2
    assert d["timing_probes_per_track"] < 5  # fast verification: about two per track


def test_lfs_transfer_inefficiency(result):
    lfs = result["lfs"]
    assert lfs["ti_model_264k"] == pytest.approx(1.769, abs=1e-3)  # note §7.5 Q11
    assert lfs["ti_aligned"] < lfs["ti_unaligned"]
    # the model line matches unaligned segments better than aligned ones (Figure 10 text)
    assert abs(lfs["ti_unaligned"] - lfs["ti_model_264k"]) < abs(
        lfs["ti_aligned"] - lfs["ti_model_264k"])
