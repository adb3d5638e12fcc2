"""Experiments ``placement`` (seed 003, Tables 3.2-3.5) and ``hot-data-home`` (seed 000 Ch. 6).

Targets, as the issue states them from note 003 §6 (quick mode: 2-minute
windows, see ``simcore.experiments.placement.settings``):

- database-like: the best FREQZ or ALIZ beats its single-zone counterpart by at
  least 15 percentage points; improvement against zone spacing rises then falls
  (its maximum is at neither end of the sweep);
- email-like: every frequency-based layout within +-2% of the original; ALIS and
  the best ALIZ improve by more than 10%.
"""

from __future__ import annotations

import json

import pytest

from simcore import experiments


@pytest.fixture(scope="module")
def result():
    return experiments.reproduce("placement", quick=True, seed=0)


def test_json_shape(result):
    json.dumps(result)
    for name in ("database", "email"):
        imp = result[name]["improvement_pct"]
        for key in ("FREQNC", "ALIS"):
            assert isinstance(imp[key], float)
        for key in ("FREQZ", "ALIZ"):
            assert set(imp[key]) >= {"30000", "50000", "100000", "1000000", "10000000"}
    assert result["paper"]["database"]["improvement_pct"]["ALIZ"]["50000"] == 35.48


def test_database_zones_beat_the_single_zone_by_15_points(result):
    t = result["targets"]
    assert t["database_FREQZ_over_FREQNC_pp"] >= 15 or t["database_ALIZ_over_ALIS_pp"] >= 15
    assert t["database_zoned_beats_single_by_15pp"]


def test_database_improvement_rises_then_falls_with_spacing(result):
    db = result["database"]["improvement_pct"]
    peaks = []
    for key in ("FREQZ", "ALIZ"):
        curve = [db[key][str(x)] for x in result["spacings"]]
        best = max(range(len(curve)), key=curve.__getitem__)
        peaks.append(0 < best < len(curve) - 1)
    assert any(peaks)
    assert result["targets"]["database_rises_then_falls"]
    # the widest spacing is the worst zoned layout: hot zones too far from home
    assert db["ALIZ"]["10000000"] < max(db["ALIZ"].values()) - 10


def test_database_single_zone_cost_is_bounded_under_sptf(result):
    """The single centre zone loses (the head shuttles to the tables' homes), but a
    reordering drive keeps the loss bounded: FCFS drove FREQNC to -296% before."""
    db = result["database"]["improvement_pct"]
    assert result["scheduler"] == "sptf-q32"
    for key in ("FREQNC", "ALIS"):
        assert -45 < db[key] < 0
    assert max(db["FREQZ"].values()) > 5 and max(db["ALIZ"].values()) > 3


def test_email_frequency_does_nothing_runs_help(result):
    em = result["email"]["improvement_pct"]
    for v in [em["FREQNC"], *em["FREQZ"].values()]:
        assert abs(v) <= 2.0  # seed 003 Table 3.4: |improvement| <= 0.34%
    assert em["ALIS"] > 10  # Table 3.2: 27.93%
    assert max(em["ALIZ"].values()) > 10  # Table 3.2: 36.82% at 50k
    assert result["targets"]["email_runs_help_over_10pct"]


def test_email_has_no_reuse_the_database_has(result):
    """Note 003 §6.8: the reuse statistic tells whether FREQZ can help."""
    assert result["figure"]["trace"]["email"]["reuse_fraction"] < 0.05
    assert result["figure"]["trace"]["database"]["reuse_fraction"] > 0.1


@pytest.fixture(scope="module")
def home():
    return experiments.reproduce("hot-data-home", quick=True, seed=0)


def test_hot_data_home_answer(home):
    per = home["disks"]["narayan2004"]
    # the middle cylinder lies at more than half the addresses on a zoned disk
    assert 0.52 < per["middle_cylinder_lba_fraction"] < 0.62
    small = per["cases"]["4KiB/0.5"]
    assert small["winner"] == "centre" and 0.3 <= small["best_position"] <= 0.6
    big = per["cases"]["256KiB/1"]
    assert big["winner"] == "outer"  # transfer time dominates: the fast zone wins
    assert home["answer"]["outer_wins_in"]
    assert "middle" in home["answer"]["verdict"]


def test_raid_shrinks_the_zone_benefit():
    """Note 003 §6.4: on a 9-disk RAID-5 (array-level zones) the zone benefit shrinks."""
    from simcore.experiments import placement as exp

    r = exp.raid(quick=True, stripes=(512,), spacings=(50_000, 300_000),
                 per_disk_spacings=(50_000,))
    assert r["targets"]["zone_benefit_shrinks_on_raid"]
    imp = r["raid"]["512"]["improvement_pct"]
    # one zone, few disks: little is left of the single disk's gain (about 8% there). The
    # sign here was negative until SPTF's positioning estimate stopped seeing a request that
    # starts right under the head as a whole revolution away (float noise, issue 14 part 7);
    # the thesis's -18% at 512 sectors (note 003 §5.3) is not reproduced since.
    assert abs(imp["ALIZ(300000)"]) < r["targets"]["best_ALIZ_single_disk_pct"] / 4
    # the thesis's advice, zones on each disk: never worse than the original here, and
    # better than the same number of zones in the array's address space
    assert imp["ALIZ per disk(50000)"] > max(imp["ALIZ(50000)"], -0.5)


@pytest.mark.parametrize("seed", [1, 2])
def test_targets_hold_for_other_seeds(seed):
    """The targets are properties of the workloads, not of one lucky draw."""
    t = experiments.reproduce("placement", quick=True, seed=seed)["targets"]
    for key in ("database_zoned_beats_single_by_15pp", "database_rises_then_falls",
                "email_frequency_within_2pct", "email_runs_help_over_10pct"):
        assert t[key], key
