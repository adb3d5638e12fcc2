"""The placement layer and its policies: hand-computed cases and one contract for all.

Sources: note 003 §3.5 [D] (ALIS weights for A,B,C,A,B,C with tau = 2), note 000
§8 homework 9 (organ pipe on five cylinders), seed 003 §3.6 (nearest hot zone),
seed 000 §4.4-4.5 (copy, not move; hidden reserved area).
"""

from __future__ import annotations

import numpy as np
import pytest

import simcore
from simcore import placement as pl
from simcore.disk.access import HeadState
from simcore.records import Request
from simcore.workloads import OpenWorkload, from_tuples

CAP = 80_418_240


def _refs(rows, unit=8):
    return pl.unit_references([Request(i, *r) for i, r in enumerate(rows)], unit)


# -- ALIS -------------------------------------------------------------------------------------
def test_alis_graduated_edge_weights_note_003_3_5():
    """A,B,C,A,B,C with tau = 2: A->B = B->C = 4, A->C = C->A = 2, B->A = C->B = 1."""
    A, B, C = 0, 1, 2
    w = pl.edge_weights([A, B, C, A, B, C], tau=2)
    assert w == {(A, B): 4, (B, C): 4, (A, C): 2, (C, A): 2, (B, A): 1, (C, B): 1}


def test_alis_edge_weights_take_letters_as_lab_4_prints_them():
    """Lab 4 prints its reads as letters ("AAADACDAD"); the same weights, keyed by letter."""
    w = pl.edge_weights("ABCABC", tau=2)
    assert w == {("A", "B"): 4, ("B", "C"): 4, ("A", "C"): 2, ("C", "A"): 2, ("B", "A"): 1,
                 ("C", "B"): 1}
    assert pl.edge_weights("AAADACDAD", tau=2)[("C", "D")] == 2


def test_alis_run_construction_worked_example():
    """Start [A,B]; for C headweight 3 < tailweight 6, so append: one run [A,B,C]."""
    src, dst, w = pl.edge_arrays(np.array([0, 1, 2, 0, 1, 2]), 2)
    assert pl.build_runs(src, dst, w, 2, prune=0.0) == [([0, 1, 2], 4 + 6)]


def test_alis_relocates_runs_contiguously_and_aliz_keeps_them_near_home():
    # two scattered extents read one after the other, twice
    rows = [(t, "R", lba, 8) for t, lba in enumerate([800_000, 40_000_000, 800_000, 40_000_000])]
    refs = _refs(rows)
    ctx = pl.PlanContext(CAP // 8, 8, 1, pl.identity_plan(), pl.Identity(), CAP // 8)
    plan = pl.ALIS().plan(refs, ctx)
    assert sorted(plan.src.tolist()) == [100_000, 5_000_000]
    assert abs(int(plan.dst[0]) - int(plan.dst[1])) == 1  # next to each other
    assert abs(int(plan.dst.mean()) - CAP // 16) < 4  # in the middle of the disk
    zoned = pl.ALIS(spacing=1_000_000).plan(refs, ctx)  # each unit to its own zone
    phys = dict(zip(zoned.src.tolist(), zoned.dst.tolist(), strict=True))
    assert phys[100_000] // (1_000_000 // 8) == 0 and phys[5_000_000] // (1_000_000 // 8) == 40


# -- organ pipe, heat, sequential, zones -----------------------------------------------------------
def test_organ_pipe_five_cylinders_note_000():
    """Heats 50, 30, 20, 10, 5 on cylinders 0-4 (centre 2): 5, 20, 50, 30, 10."""
    heats = [50, 30, 20, 10, 5]
    slots = pl.organ_pipe_slots(heats)
    assert [heats[i] for i in slots] == [5, 20, 50, 30, 10]
    assert pl.organ_pipe_offsets(6).tolist() == [0, 1, -1, 2, -2, 3]


def _ctx(window=1):
    return pl.PlanContext(CAP // 8, 8, window, pl.identity_plan(), pl.Identity(), CAP // 8)


def test_frequency_policies_pick_the_reused_units():
    rows = [(0, "R", 8000, 8), (1, "R", 8000, 8), (2, "R", 16, 8), (3, "W", 8000, 8),
            (4, "R", 64_000_000, 8), (5, "R", 64_000_000, 8)]
    refs = _refs(rows)
    heat = pl.HeatLayout().plan(refs, _ctx())
    assert heat.src.tolist() == [1000, 8_000_000]  # sorted by unit; unit 2 was used once
    order = dict(zip(heat.src.tolist(), heat.dst.tolist(), strict=True))
    assert order[1000] == order[8_000_000] - 1  # hottest (3 references) first
    seq = pl.Sequential(min_count=2).plan(refs, _ctx())
    order = dict(zip(seq.src.tolist(), seq.dst.tolist(), strict=True))
    assert order[1000] + 1 == order[8_000_000]  # block-number order, contiguous
    assert abs(order[1000] - CAP // 16) <= 2
    every = pl.Sequential().plan(refs, _ctx())  # the default: every accessed block (§3.5.2.2)
    assert len(every) == 3


def test_zones_centres_and_nearest():
    z = pl.Zones(1000, spacing_units=100, zone_fraction=0.1)
    assert z.centres[:3].tolist() == [50, 150, 250] and len(z) == 10
    assert z.nearest(99) == 0 and z.nearest(100) == 1 and z.nearest(999) == 9
    assert list(z.candidates(140))[:3] == [1, 0, 2]
    # 15 hot units in segment 0 but room for 10: 5 spill to the next zone
    _src, dst, zone = pl.place_units(np.arange(15), z)
    assert np.bincount(zone).tolist()[:2] == [10, 5]
    assert all(45 <= d < 55 for d in dst[zone == 0])


def test_freqz_goes_to_the_nearest_zone():
    rows = [(t, "R", lba, 8) for t, lba in enumerate([160_000, 160_000, 70_000_000, 70_000_000])]
    plan = pl.Sequential(spacing=100_000).plan(_refs(rows), _ctx())
    phys = dict(zip(plan.src.tolist(), plan.dst.tolist(), strict=True))
    assert phys[20_000] * 8 == pytest.approx(150_000, abs=16)  # zone 1 centred at 150,000
    assert phys[8_750_000] * 8 == pytest.approx(70_050_000, abs=16)


def test_packed_extents_keep_each_extent_whole():
    rows = [(0, "R", 800, 24), (1, "R", 800, 24), (2, "R", 5_000_000, 8)]
    plan = pl.PackedExtents().plan(_refs(rows), _ctx())
    assert plan.src.tolist() == [100, 101, 102]
    assert np.diff(plan.dst).tolist() == [1, 1]


def test_cylinder_shuffling_is_a_permutation_with_the_hottest_band_in_the_middle():
    counts = np.zeros(11, int)
    counts[[0, 9, 10]] = [5, 9, 1]
    perm = pl.shuffle_permutation(counts)
    assert sorted(perm.tolist()) == list(range(11))
    assert perm[9] == 5 and perm[0] == 6 and perm[10] == 4  # 5 (middle), +1, -1


def test_space_saving_finds_the_heavy_hitters():
    stream = np.array([1] * 50 + [2] * 30 + list(range(100, 160)) + [1] * 10)
    top = pl.space_saving(stream, counters=8)
    assert max(top, key=top.get) == 1 and 2 in top and len(top) == 8


# -- the remapping layer -----------------------------------------------------------------------------
def test_blockmap_lookup_and_hidden_areas():
    home = pl.HiddenAreas([(10, 5), (100, 10)])
    assert home.physical(np.array([0, 9, 10, 94, 95])).tolist() == [0, 9, 15, 99, 110]
    assert home.logical_capacity(1000) == 985
    m = pl.BlockMap(np.array([3]), np.array([12]), home)
    phys, hit = m.lookup(np.array([3, 4, 20]))
    assert phys.tolist() == [12, 4, 25] and hit.tolist() == [True, False, False]
    with pytest.raises(ValueError):
        pl.BlockMap(np.array([1, 2]), np.array([7, 7]))


def _toy_policy(pairs):
    def plan(refs, ctx):
        return pl.BlockMap.from_pairs(pairs)
    return plan


def test_rewrite_splits_requests_and_fold_takes_the_last_piece():
    # window 0 (t < 100): original; window 1: unit 1 moved to unit 1000
    wl = from_tuples([(0, "R", 0, 24), (150, "R", 0, 24), (160, "W", 8, 8)])
    placed = pl.rewrite(wl, _toy_policy({1: 1000}), capacity=100_000, unit_sectors=8,
                        interval_ms=100)
    phys = [(r.arrival_ms, r.lba, r.sectors) for r in placed.workload.requests]
    assert phys == [(0, 0, 24), (150, 0, 8), (150, 8000, 8), (150, 16, 8), (160, 8000, 8)]
    assert placed.parent.tolist() == [0, 1, 1, 1, 2]
    assert placed.split_requests == 2
    res = simcore.run("toy", OpenWorkload(
        [Request(r.id, r.arrival_ms, r.op, r.lba % 36, 1) for r in placed.workload.requests]))
    f = pl.fold(res.records, placed)
    recs = sorted(res.records, key=lambda r: r.id)
    assert f["finish_ms"][1] == max(recs[i].finish_ms for i in (1, 2, 3))
    assert f["response_ms"][1] == f["finish_ms"][1] - 150


def test_migration_is_counted_coalesced_and_written_back():
    wl = from_tuples([(0, "R", 0, 8), (150, "W", 8, 8), (250, "R", 0, 8)])
    plans = iter([{0: 500, 1: 501, 2: 502}, {}])

    def policy(refs, ctx):
        return pl.BlockMap.from_pairs(next(plans))

    placed = pl.rewrite(wl, policy, capacity=100_000, unit_sectors=8, interval_ms=100,
                        migration="simulate")
    w = placed.windows
    assert (w[1].migration_ios, w[1].migrated_sectors) == (1, 24)  # one 3-unit copy
    assert w[2].written_back_units == 1  # unit 1 was written while relocated
    mig = [r for r in placed.workload.requests if r.client == pl.MIGRATION_CLIENT]
    assert [(r.arrival_ms, r.op, r.lba, r.sectors) for r in mig] == [
        (100, "R", 0, 24), (100, "W", 4000, 24), (200, "R", 4008, 8), (200, "W", 8, 8)]
    counted = pl.rewrite(wl, iter_policy([{0: 500, 1: 501, 2: 502}, {}]), 100_000, 8, 100)
    assert not any(r.client == pl.MIGRATION_CLIENT for r in counted.workload.requests)
    assert counted.summary()["migrated_sectors"] == 24 + 8


def iter_policy(seq):
    it = iter(seq)
    return lambda refs, ctx: pl.BlockMap.from_pairs(next(it))


def test_rewrite_refuses_a_workload_larger_than_the_data_space():
    wl = from_tuples([(0, "R", 99_990, 8)])
    abr = pl.AdaptiveBlockRearrangement(reserved_sectors=800, capacity_sectors=100_000)
    with pytest.raises(ValueError, match="reserved"):
        pl.rewrite(wl, abr, 100_000, 8, 100, home=abr.home)


def test_abr_copies_the_hottest_blocks_into_the_reserved_area():
    cap = 1_000_000
    abr = pl.AdaptiveBlockRearrangement(reserved_sectors=8_000, capacity_sectors=cap,
                                        location="outer")
    assert abr.start == 0 and abr.home.physical(np.array([0]))[0] == 1000
    rows = [(t, "R", 80_000, 8) for t in range(5)] + [(5, "R", 160_000, 8)]
    ctx = pl.PlanContext(cap // 8, 8, 1, pl.identity_plan(abr.home), abr.home,
                         abr.home.logical_capacity(cap // 8))
    plan = abr.plan(_refs(rows), ctx)
    assert plan.src.tolist()[:1] == [10_000] or 10_000 in plan.src.tolist()
    assert all(0 <= d < 1000 for d in plan.dst.tolist())
    inner = pl.AdaptiveBlockRearrangement(8_000, cap, location="inner")
    assert inner.start == cap // 8 - 1000
    assert pl.reserved_area(1000, 100, 0.5) == 450


def test_boundary_safe_service_costs_no_revolution_for_the_next_sector():
    """A read that starts where the last one ended waits for nothing (not a revolution)."""
    mech = simcore.Mechanism(simcore.load_disk("narayan2004"))
    svc = pl.boundary_safe(mech)
    worst = 0.0
    for k in range(50):
        lba = 40_000_000 + 1000 * k
        _, a, _ = svc(Request(0, 0, "R", lba, 128), 900_000.0 + 0.37 * k, HeadState(0, 0))
        _, b, _ = svc(Request(1, 0, "R", lba + 128, 128), a.end_ms,
                      HeadState(a.cylinder, a.surface))
        worst = max(worst, b.rotation_ms)
    assert worst < 0.1  # a track switch inside may leave a skew sector; a revolution is 8.3 ms


# -- one contract for every policy -----------------------------------------------------------------
POLICIES = {
    "ORIGINAL": lambda: pl.original(),
    "ORGANPIPE": lambda: pl.OrganPipe(),
    "HEAT": lambda: pl.HeatLayout(),
    "PACKED": lambda: pl.PackedExtents(),
    "FREQNC": lambda: pl.Sequential(),
    "FREQZ": lambda: pl.Sequential(spacing=50_000),
    "ALIS": lambda: pl.ALIS(),
    "ALIS-unit": lambda: pl.ALIS(granularity="unit", tau=3),
    "ALIZ": lambda: pl.ALIS(spacing=50_000),
    "SHUFFLE": lambda: pl.CylinderShuffling(band_sectors=4096),
    "ABR": lambda: pl.AdaptiveBlockRearrangement(20_000, CAP),
}


@pytest.fixture(scope="module")
def small_db():
    from simcore.workloads.synth import database_like

    return database_like(CAP - 40_000, duration_s=30, rate_per_s=60, seed=5,
                         drift_period_ms=10_000)


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_policy_contract(name, small_db):
    """Every sector of every request is served once; plans are one-to-one and on the disk."""
    policy = POLICIES[name]()
    home = getattr(policy, "home", None)
    placed = pl.rewrite(small_db, policy, CAP, 8, 10_000, "simulate", home=home)
    fg = placed.parent >= 0
    sectors = np.zeros(len(small_db.requests), int)
    np.add.at(sectors, placed.parent[fg],
              [r.sectors for r, f in zip(placed.workload.requests, fg, strict=True) if f])
    assert sectors.tolist() == [r.sectors for r in small_db.requests]
    assert all(r.lba >= 0 and r.lba + r.sectors <= CAP for r in placed.workload.requests)
    times = [r.arrival_ms for r in placed.workload.requests]
    assert times == sorted(times)
    res = simcore.run("narayan2004", placed.workload,
                      service=pl.boundary_safe(simcore.Mechanism(simcore.load_disk("narayan2004"))))
    f = pl.fold(res.records, placed)
    assert np.all(f["response_ms"] > 0)
    if name == "ORIGINAL":
        assert placed.split_requests == 0 and placed.summary()["migrated_sectors"] == 0
