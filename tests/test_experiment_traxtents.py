"""The ``traxtents`` experiment (Schindler et al. 2002, FAST): shape and physics.

The paper's numbers, with note 002 §6's tolerances, are the experiment's ``TARGETS``,
evaluated by ``tests/test_targets.py`` and reported, met or missed with the reason, by
``reproduce`` and the status page. These tests check what the disk's geometry and timing
imply whatever the paper measured. Quick mode: 200 requests per point.
"""

from __future__ import annotations

import json
import math

import pytest

from simcore import experiments


@pytest.fixture(scope="module", params=["quick", "full"])
def result(request, any_result):
    """Quick mode, run here, and the full run the book shows (from the results cache)."""
    return any_result("traxtents", request.param)


def test_registered_and_json_ready(result):
    assert "traxtents" in experiments.names()
    json.dumps(result)  # JSON-ready
    assert set(result["paper"]) >= {"efficiency_aligned_264k", "video_streams"}


def test_zero_latency_is_what_makes_the_difference(result):
    """§5.2: without zero-latency firmware an aligned read still waits for its first sector,
    so the gain shrinks to the head switch: far below the zero-latency disk's."""
    red = result["reduction_nonzero_latency_pct"]
    assert max(red.values()) < result["head_time_reduction_tworeq_pct"] / 2
    assert min(red.values()) > 0


def test_aligned_efficiency_peaks_at_track_multiples(result):
    c = result["curves"]
    size, eff = c["size_kib"], c["efficiency_aligned"]
    at = {s: e for s, e in zip(size, eff, strict=True)}
    assert at[264.0] > at[264.5] + 0.15  # one sector more costs a head switch and latency
    assert at[528.0] > at[528.5] + 0.05
    assert all(e <= result["max_streaming_efficiency"] + 1e-9 for e in eff)
    unal = dict(zip(size, c["efficiency_unaligned"], strict=True))
    assert at[264.0] / unal[264.0] > 1.35  # "up to 50 %" higher efficiency


def test_response_time_sigma_from_geometry(result):
    """Figure 8's σ from first principles (onereq, infinitely fast bus).

    One sector: the rotational wait is uniform over a revolution (σ = rev/√12) and independent
    of the seek, so σ² adds. Aligned track: zero-latency reads a whole track in one revolution
    wherever the head lands, so only the seek varies ("due entirely to the seeks"). Unaligned
    track: the landing angle is uniform, so σ cannot fall below rev/√12.
    """
    sd, rev = result["response_sd_ms"], result["config"]["revolution_ms"]
    rot = rev / 12 ** 0.5
    assert sd["aligned_1sector"] == pytest.approx(math.hypot(rot, result["sd_seek_ms"]), abs=0.15)
    assert sd["aligned_track"] == pytest.approx(result["sd_seek_ms"], abs=0.1)
    assert sd["unaligned_track"] > 0.95 * rot
    assert sd["aligned_track"] < sd["unaligned_track"] / 2


def test_bus_overlap_is_small_for_aligned_reads(result):
    """§5.2: in-order delivery gives only a 3 % media/bus overlap for aligned reads;
    out-of-order delivery would bring onereq close to tworeq."""
    bm = result["bus_models"]
    assert bm["out-of-order"]["aligned_ms"] == pytest.approx(
        result["head_time_aligned_tworeq_ms"], abs=0.2)
    assert bm["assembled"]["aligned_ms"] > bm["streaming"]["aligned_ms"] > bm["none"]["aligned_ms"]


def test_video_streams(result):
    v = result["video_streams"]
    # aligned rounds waste no rotation, so they fit more streams at every size and mode
    for mode in ("soft", "hard"):
        for size in (("",) if mode == "soft" else ("_264k", "_528k")):
            assert v[f"{mode}_aligned{size}"] > v[f"{mode}_unaligned{size}"]
    assert result["video"]["startup_latency_s"] == pytest.approx(5.5)  # 0.5 s x (10 + 1)


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


def test_round_margin_by_hand():
    """Rounds of 400, 410 and 420 ms: mean 410, σ 10, the 99.99th percentile 410 + 37.19 ms,
    7.19 ms over a 440 ms round; a 6 ms revolution's uniform angle has σ 6/√12 = 1.732 ms."""
    import numpy as np

    from simcore.experiments.traxtents import round_margin
    from simcore.traxtents.uses import Rounds

    m = round_margin(Rounds(7, np.array([400.0, 410.0, 420.0])), 440.0, 6.0)
    assert (m["streams"], m["mean_ms"], m["sd_ms"]) == (7, 410.0, 10.0)
    assert m["margin_ms"] == pytest.approx(37.19, abs=0.01)
    assert m["over_ms"] == pytest.approx(7.19, abs=0.01)
    assert m["rotation_sd_ms"] == pytest.approx(1.732, abs=1e-3)


def test_atlas10k_skew_by_hand():
    """DiskSim's Atlas 10K: 63 sectors of skew on 334-sector tracks at 10,025 RPM is 63/334 of
    5.985 ms = 1.129 ms; a 0.8 ms switch passes 0.8/5.985 x 334 = 44.6 sectors, so 45 hide it."""
    from simcore.experiments.traxtents import skew_against_head_switch

    s = skew_against_head_switch("atlas10k", 0.8)
    assert s["track_skew_sectors"] == 63 and s["skew_for_paper_head_switch"] == 45
    assert s["track_skew_ms"] == pytest.approx(63 / 334 * 60_000 / 10_025)


def test_the_missed_round_is_the_searchs(result):
    """The round count the soft real-time reason splits is the first one the search found to
    miss: the same seed, so the same rounds and the same percentile."""
    v = result["video"]
    miss, found = v["soft_miss"], v["soft_detail"]["unaligned"]
    assert miss["streams"] == result["video_streams"]["soft_unaligned"] + 1
    assert miss["quantile_ms"] == found["next_quantile_ms"] > v["soft_detail"]["round_ms"]
    assert miss["margin_ms"] == pytest.approx(miss["z"] * miss["sd_ms"])
