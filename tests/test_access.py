"""Service times: hand-computed cases on the toy disk and analytic limits on real profiles."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers_disks import small_disk

import simcore
from simcore import HeadState, Mechanism, load_disk

# The toy disk: 12 sectors per track, one revolution = 360 ticks (30 per sector),
# seek 40 ticks per track, head at cylinder 0 and angle 0 at t = 0.


@pytest.fixture(scope="module")
def toy():
    return Mechanism(load_disk("toy"))


@pytest.mark.parametrize("lba,seek,rotation,end", [
    (0, 0, 0, 30),            # under the head already: just the transfer
    (6, 0, 180, 210),         # half a turn away
    (11, 0, 330, 360),        # the sector just passed... almost a full turn
    (12, 40, 320, 390),       # one track in: after 40 ticks the head is 1.33 sectors past 0
    (30, 80, 100, 210),       # sector 6 of the innermost track: lands at 2.67, waits 3.33
])
def test_toy_disk_hand_computed(toy, lba, seek, rotation, end):
    acc = toy.access(lba, 1, False, 0.0, HeadState(0, 0))
    assert acc.seek_ms == pytest.approx(seek)
    assert acc.rotation_ms == pytest.approx(rotation)
    assert acc.transfer_ms == pytest.approx(30)
    assert acc.end_ms == pytest.approx(end)


def test_toy_disk_run_queues_fcfs(toy):
    wl = simcore.from_tuples([(0.0, "R", 6, 1), (0.0, "R", 0, 1), (100.0, "R", 12, 2)])
    res = simcore.run(toy, wl, "fcfs")
    by_id = {r.id: r for r in res.records}
    assert by_id[0].finish_ms == pytest.approx(210)
    # LBA 0 after 210: head at angle 210 -> sector 7; waits 5 sectors = 150, then 30
    assert by_id[1].start_ms == pytest.approx(210) and by_id[1].finish_ms == pytest.approx(390)
    assert by_id[1].queue_ms == pytest.approx(210)
    # LBAs 12-13 at 390: seek 40 -> 430 = angle 70 -> 2.33 sectors; wait 9.67 sectors = 290
    assert by_id[2].finish_ms == pytest.approx(390 + 40 + 290 + 60)
    assert by_id[2].response_ms == pytest.approx(by_id[2].finish_ms - 100)


def test_mean_rotational_latency_is_half_a_revolution():
    """Random single-sector reads wait half a revolution on average (within sampling error)."""
    mech = Mechanism(load_disk("ultrastar18es"))
    wl = simcore.random_closed(mech.layout.capacity, clients=1, per_client=6000,
                               size_kib=0.5, seed=11)
    rot = simcore.run(mech, wl).column("rotation_ms")
    rev = mech.rev_ms
    sigma = rev / math.sqrt(12)
    assert abs(rot.mean() - rev / 2) < 4 * sigma / math.sqrt(len(rot))


def test_one_track_streams_at_media_rate_less_switch_gaps():
    """Reading k whole tracks costs k revolutions plus one skew gap per switch."""
    prof = load_disk("atlas10k2")  # synthetic: no slips, LBA 0 at sector 0
    mech = Mechanism(prof)
    zone = prof.zones[0]
    spt, st = zone.sectors_per_track, mech.rev_ms / zone.sectors_per_track
    k = prof.surfaces  # all tracks of cylinder 0: head switches only
    # start exactly when sector 0 passes under the head, so no initial latency
    acc = mech.access(0, k * spt, False, 0.0, HeadState(0, 0))
    assert acc.rotation_ms == pytest.approx((k - 1) * (zone.track_skew * st - prof.head_switch_ms))
    assert acc.seek_ms == pytest.approx((k - 1) * prof.head_switch_ms)
    streaming = k * spt * 512 / ((acc.end_ms - acc.interface_ms) * 1000)
    expected = mech.layout.media_rate_mb_s(0) * spt / (spt + zone.track_skew * (k - 1) / k)
    assert streaming == pytest.approx(expected, rel=1e-9)
    assert streaming < mech.layout.media_rate_mb_s(0)


def test_zero_latency_full_track_costs_one_revolution():
    """Schindler et al. §2: a zero-latency read of one whole track takes one revolution."""
    mech = Mechanism(load_disk("atlas10k2"))
    rng = np.random.default_rng(3)
    for start in rng.uniform(0, 100, size=20):
        acc = mech.access(0, 528, False, float(start), HeadState(0, 0))
        assert acc.rotation_ms + acc.transfer_ms == pytest.approx(mech.rev_ms, abs=mech.rev_ms / 528)


def test_positioning_takes_the_larger_of_seek_and_head_switch():
    prof = small_disk([{"first_cylinder": 0, "last_cylinder": 9, "sectors_per_track": 10,
                        "track_skew": 0, "cylinder_skew": 0}], head_switch_ms=2.0,
                      seek={"model": "linear", "base_ms": 1.0, "per_cylinder_ms": 0.5})
    mech = Mechanism(prof)
    assert mech.move_ms(0, 0, 0, 1, False) == 2.0     # head switch only
    assert mech.move_ms(0, 0, 1, 1, False) == 2.0     # max(1.5, 2.0)
    assert mech.move_ms(0, 0, 4, 1, False) == 3.0     # max(3.0, 2.0)


def test_mg1_mean_response_time():
    """FCFS with Poisson arrivals: Pollaczek-Khinchine W = E[S] + lambda E[S^2] / (2 (1 - rho))."""
    mech = Mechanism(load_disk("atlas10k"))
    rate = 70.0
    res = simcore.run(mech, simcore.random_open(mech.layout.capacity, 60000, rate, seed=5))
    s = res.column("finish_ms") - res.column("start_ms")
    lam = rate / 1000.0
    rho = lam * s.mean()
    predicted = s.mean() + lam * np.mean(s ** 2) / (2 * (1 - rho))
    assert 0.5 < rho < 0.7
    assert res.column("response_ms").mean() == pytest.approx(predicted, rel=0.05)


def test_same_seed_same_records_bit_for_bit():
    mech = Mechanism(load_disk("atlas10k"))
    a = simcore.run(mech, simcore.random_open(mech.layout.capacity, 2000, 80, seed=9))
    b = simcore.run(mech, simcore.random_open(mech.layout.capacity, 2000, 80, seed=9))
    assert a.records == b.records
    assert a.to_csv() == b.to_csv()
