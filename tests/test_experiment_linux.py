"""Experiment ``linux-schedulers`` (Pratt & Heger 2004, seed 001), quick mode.

The paper's numbers and orderings are the experiment's ``TARGETS`` (note 001 §4.1 and Q1-Q5),
evaluated by ``tests/test_targets.py`` and reported with their reasons when missed. These tests
check the result's shape and what must hold by construction, whatever the paper measured.
"""

from __future__ import annotations

import json

import pytest

FOUR = ("noop", "deadline", "anticipatory", "cfq")


@pytest.fixture(scope="module", params=["quick", "full"])
def result(request, any_result):
    """Quick mode, run here, and the full run the book shows (from the results cache)."""
    return any_result("linux-schedulers", request.param)


def test_keys_and_json(result):
    for key in ("seq_read_mb_s", "web_ops_s", "seq_read_mb_s_raid0_28", "seq_read_mb_s_raid5_5"):
        assert set(result[key]) == set(FOUR)
    assert isinstance(result["seq_read_mb_s_as_antic0"], float)
    assert result["paper"]["as_over_cfq"]["1 disk"] == 2.26
    json.dumps(result)


def test_ratios_are_the_rates_ratios(result):
    r = result["as_over_cfq"]
    for label, key in (("1 disk", "seq_read_mb_s"), ("RAID-5 (5 disks)", "seq_read_mb_s_raid5_5"),
                       ("RAID-0 (28 disks)", "seq_read_mb_s_raid0_28")):
        rates = result[key]
        assert r[label] == pytest.approx(rates["anticipatory"] / rates["cfq"], abs=1e-3)
    c = result["checks"]
    assert c["as_advantage_declines"] == (r["1 disk"] > r["RAID-5 (5 disks)"]
                                          > r["RAID-0 (28 disks)"])


def test_arrays_read_faster_than_one_disk(result):
    """More spindles behind the device: the schedulers that do not idle gain from them."""
    for e in ("noop", "deadline", "cfq"):
        assert result["seq_read_mb_s_raid0_28"][e] > result["seq_read_mb_s_raid5_5"][e] \
            > result["seq_read_mb_s"][e]


def test_anticipation_counters_add_up(result):
    st = result["web_anticipation"]
    # every wait ends broken (the expected read came) or timed out, at most one still open
    assert 0 <= st["antic_started"] - st["antic_broken"] - st["antic_timeouts"] <= 1


def test_bfq_idling_is_anticipation(result):
    """BFQ's slice_idle plays AS's part today; slice_idle=0 gives it up (note §6.3)."""
    m = result["modern"]["seq_read_mb_s"]
    assert m["bfq"] > 1.5 * m["mq-deadline"]
    assert m["bfq slice_idle=0"] == pytest.approx(m["mq-deadline"], rel=0.10)


def test_seed_spread_by_hand():
    """The one-disk ratio over seeds, against a band of 2.2 to 2.4: worked by hand."""
    from simcore.experiments.linux_schedulers import seed_spread

    s = seed_spread([0, 1, 2], [43.0, 46.0, 44.0], [20.0, 20.0, 20.0], (2.2, 2.4))
    assert s["as_over_cfq"] == [2.15, 2.3, 2.2] and s["ratio"] == 2.15 and s["seed"] == 0
    assert s["below_band"] == pytest.approx(0.05)
    assert s["spread"] == pytest.approx(0.15) and s["spread_pct_of_band"] == pytest.approx(75.0)
    assert s["in_band"] == 2
    assert s["seeds_text"] == "0 to 2" and s["ratios_text"] == "2.15, 2.30 and 2.20"


def test_the_seed_spread_is_the_runs(result):
    """Its first seed is the experiment's own run: the same ratio as ``as_over_cfq``."""
    s = result["one_disk_seeds"]
    assert s["ratio"] == result["as_over_cfq"]["1 disk"] == result["ratios"]["one_disk"]
    assert s["anticipatory_mb_s"][0] == result["seq_read_mb_s"]["anticipatory"]
    assert s["cfq_mb_s"][0] == result["seq_read_mb_s"]["cfq"]
    assert len(set(s["seeds"])) == len(s["seeds"]) == 4


# -- fairness between processes (the chapter's CFQ figure) --------------------------------------

def test_jain_by_hand():
    from simcore.experiments.linux_schedulers import jain

    assert jain([3.0, 3.0, 3.0, 3.0]) == pytest.approx(1.0)
    assert jain([5.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)
    assert jain([1.0, 2.0]) == pytest.approx(9 / 10)


def _fair(elevator, **kw):
    from simcore.experiments.linux_schedulers import fairness_run

    return fairness_run(elevator, until_ms=3000.0, **kw)


def test_identical_readers_share_equally_without_idling():
    """One request each outstanding: any work-conserving order serves them in turn."""
    for e, tun in (("noop", {}), ("deadline", {}), ("cfq", {}), ("cfq", {"quantum": 4})):
        r = _fair(e, readers=4, server_threads=0, **tun)
        assert r["jain"] >= 0.99 and r["min_over_max"] >= 0.95, (e, tun, r)


def test_cfq_per_process_queues_against_a_threaded_server():
    """Keyed by process, CFQ holds the 16-thread server to one queue; keyed by thread (the
    paper's patch) it gives the server what noop does. A reader gets at most one request
    of each round of ``quantum``, since it never has two queued."""
    runs = {"noop": _fair("noop"), "deadline": _fair("deadline"), "cfq": _fair("cfq"),
            "pid": _fair("cfq", key="pid"), "q4": _fair("cfq", quantum=4)}
    server = next(p for p in runs["cfq"]["shares"] if p.startswith("server"))
    for other in ("noop", "deadline", "pid"):
        assert runs["cfq"]["jain"] > runs[other]["jain"] + 0.1
        assert runs["cfq"]["shares"][server] < runs[other]["shares"][server]
    assert runs["pid"]["jain"] == pytest.approx(runs["noop"]["jain"], abs=0.05)
    for key, quantum in (("cfq", 8), ("q4", 4)):
        readers = [v for p, v in runs[key]["shares"].items() if p != server]
        assert max(readers) <= 1 / quantum + 0.01
    assert runs["q4"]["jain"] > runs["cfq"]["jain"]
    assert sum(runs["cfq"]["shares"].values()) == pytest.approx(1.0, abs=1e-3)


def test_a_deep_tagged_queue_leaves_the_scheduler_nothing_to_choose():
    """19 requests at most, 32 tags: everything goes straight to the drive, whatever the
    elevator; noop and CFQ then give the same shares."""
    assert _fair("noop", depth=32)["shares"] == _fair("cfq", depth=32)["shares"]
    assert _fair("noop", depth=32)["shares"] != _fair("noop")["shares"]


def test_fairness_runs_are_seeded():
    assert _fair("cfq", seed=3) == _fair("cfq", seed=3)
    # the seed places the server's reads: another seed, other positions, other service times
    assert _fair("deadline", seed=3)["mb_s"] != _fair("deadline", seed=4)["mb_s"]
