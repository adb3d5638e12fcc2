"""The drive's firmware as DiskSim's validated models describe it, checked by hand.

Overheads that depend on the command before (DiskSim's "after read" / "after write"
pairs), a write's seek starting after its overhead, the read water mark, separate
read and write bus rates, and the HP drives' extra write disconnect. The disk: one
surface of 100 sectors per track at 6,000 rpm (10 ms a revolution, 0.1 ms a sector),
no seek cost, an interface of 0.2 ms a sector (2.56 MB/s).
"""

from __future__ import annotations

import pytest

from simcore import run
from simcore.disk.profile_loader import profile_from_dict
from simcore.workloads import ValidationStep, ValidationWorkload

SECTOR_BUS_MS = 0.2


def disk(overheads=None, interface=None, cache=None):
    data = {
        "id": "fw", "name": "firmware test disk",
        "geometry": {"rpm": 6000.0, "surfaces": 1, "zones": [
            {"first_cylinder": 0, "last_cylinder": 9, "sectors_per_track": 100,
             "track_skew": 0, "cylinder_skew": 0}]},
        "mechanics": {"head_switch_ms": 0.0,
                      "seek": {"model": "linear", "base_ms": 0.0, "per_cylinder_ms": 0.0}},
        "firmware": {"overheads": overheads or {}, "cache": {
            "size_kib": 256, "segments": 2, "read_ahead": "none", **(cache or {})}},
        "interface": {"name": "test bus", "rate_mb_s": 512 / (SECTOR_BUS_MS * 1000),
                      **(interface or {})},
    }
    return profile_from_dict(data, "<fw>")


def records(profile, steps):
    wl = ValidationWorkload([ValidationStep(op, lba, n, 0.0, gap) for op, lba, n, gap in steps])
    return sorted(run(profile, wl, cache=True).records, key=lambda r: r.id)


def service(profile, steps):
    return [r.finish_ms - r.start_ms for r in records(profile, steps)]


def test_overheads_follow_the_command_before():
    """Each record's overhead is the setup its type pays after the command before it, plus
    the completion of its own type (read 0.1 ms, write 0.3 ms)."""
    ov = {"read_miss_ms": 1.0, "read_miss_after_write_ms": 3.0, "write_ms": 0.5,
          "write_after_read_ms": 2.5, "completion_ms": 0.1, "write_completion_ms": 0.3}
    steps = [("R", 50, 1, 1.0), ("R", 150, 1, 1.0), ("W", 250, 1, 1.0), ("R", 350, 1, 1.0),
             ("W", 450, 1, 1.0), ("W", 550, 1, 1.0)]
    got = [round(r.overhead_ms, 9) for r in records(disk(ov), steps)]
    # first: nothing before it counts as 'after a read' (the drive starts idle)
    assert got == [1.1, 1.1, 2.8, 3.1, 2.8, 0.8]


def test_a_write_seeks_only_after_its_overhead():
    """Write overhead 3 ms to sector 50 (0.1 ms each), from t=0 at sector 0: the head may
    only start at 3 ms, reaches sector 50 at 5 ms, writes it in 0.1 ms. Bus: 0.2 ms from
    3 ms, done at 3.2 ms, before the head gets there."""
    got = service(disk({"write_ms": 3.0}), [("W", 50, 1, 0.0)])
    assert got[0] == pytest.approx(5.1)


def test_read_water_mark_holds_the_data_until_the_request_is_buffered():
    """A 20-sector read from sector 10 at t=0: the media delivers sector i at 1.1 + 0.1 i ms.
    With water mark 0 the bus (0.2 ms a sector, slower than the media) starts as soon as it
    never overtakes the media: done at 1.1 + 20 x 0.2 = 5.1 ms. With water mark 1 the whole
    request is buffered first (3.0 ms) and then sent: 3.0 + 4.0 = 7.0 ms."""
    steps = [("R", 10, 20, 0.0)]
    assert service(disk(), steps)[0] == pytest.approx(5.1)
    assert service(disk(interface={"read_watermark": 1.0}), steps)[0] == pytest.approx(7.0)
    # half: reconnect once the 10th sector is in (2.0 ms), then 20 sectors at the bus rate
    assert service(disk(interface={"read_watermark": 0.5}), steps)[0] == pytest.approx(6.0)


def test_writes_cross_the_bus_at_their_own_rate():
    """A 40-sector write to sector 0: the media can only write sector i once its data is in;
    at 0.2 ms a sector the bus is the bottleneck. With a write rate of 0.4 ms a sector the
    last data arrives at 16 ms instead of 8, and the head, passing sector 39 at 3.9 ms and
    every 10 ms after, writes it at 23.9 ms instead of 13.9."""
    steps = [("W", 0, 40, 0.0)]
    fast = service(disk(), steps)[0]
    slow = service(disk(interface={"write_rate_mb_s": 512 / 400}), steps)[0]
    assert slow - fast == pytest.approx(10.0)


def test_extra_write_disconnect_applies_to_random_writes_after_writes():
    """With the HP drives' extra disconnect, a write that does not continue the write before
    waits the setup time (4.5 ms) before the arm moves; a sequential one, or one after a
    read, pays the ordinary write overhead (0.5 ms)."""
    ov = {"write_ms": 0.5, "random_write_setup_ms": 4.5, "random_write_data_ms": 5.0}
    steps = [("R", 900, 1, 1.0), ("W", 0, 1, 1.0), ("W", 1, 1, 1.0), ("W", 300, 1, 1.0)]
    got = [round(r.overhead_ms, 9) for r in records(disk(ov), steps)]
    assert got[1:] == [0.5, 0.5, 4.5]


def test_minimum_seek_delay_costs_a_revolution_when_the_sector_comes_too_soon():
    """DiskSim's "Minimum seek delay" (0.6 ms on the HP C2247). A 1-sector write to sector
    12 at t=0 with a 1 ms write overhead, the arm on the track: the head passes sector 12 at
    1.2 ms, 0.2 ms after the overhead, so without the delay the write is done at 1.3 ms. With
    a 0.6 ms minimum the positioning ends at 1.6 ms, sector 12 is gone, and the write waits a
    revolution: done at 11.3 ms. Sector 30 (passing at 3.0 ms) is reached either way."""
    plain = disk({"write_ms": 1.0})
    slow = disk({"write_ms": 1.0, "min_write_seek_ms": 0.6})
    assert service(plain, [("W", 12, 1, 0.0)])[0] == pytest.approx(1.3)
    assert service(slow, [("W", 12, 1, 0.0)])[0] == pytest.approx(11.3)
    assert service(slow, [("W", 30, 1, 0.0)])[0] == pytest.approx(3.1)


def test_without_read_hits_on_write_data_a_read_of_written_sectors_goes_to_the_platter():
    """DiskSim's "Allow read hits on write data" = 0 (the IBM Ultrastar 18ES). A write-back
    write of sector 50, then 30 ms later a read of it: with hits allowed the buffer answers
    (no media time); without, the drive reads the platter, whose head passes sector 50 at
    an absolute time it must wait for (rotation > 0)."""
    steps = [("W", 50, 1, 30.0), ("R", 50, 1, 0.0)]
    hit = records(disk(cache={"write_back": True}), steps)[1]
    miss = records(disk(cache={"write_back": True, "read_hits_on_write_data": False}),
                   steps)[1]
    assert hit.cache_hit and hit.rotation_ms == 0.0
    assert not miss.cache_hit and miss.rotation_ms > 0.0


def test_write_fill_holds_the_head_until_a_batch_of_data_is_buffered():
    """DiskSim's rule for drives with the extra write disconnect (the HP C2247): the head
    writes a request's first sector only once min(n, 10) of its n sectors are buffered
    (here the large-request rule from 4 sectors on: 2). Data arrives at 0.2 (i+1) ms; the
    head passes sector 5 + i at 0.5 + 0.1 i ms.

    3 sectors to sector 5, no rule: each sector's data is in before its pass (0.2 <= 0.5,
    0.4 <= 0.6, 0.6 <= 0.7): done at 0.8 ms. With the rule all 3 must be in (0.6 ms), the
    head is past sector 5 at 0.5 ms and comes back a revolution later: 10.8 ms. 4 sectors
    under the large rule need only 2 (0.4 ms) before the first: 0.4 <= 0.5, then 0.6 <=
    0.7, 0.8 <= 0.8: done at 0.9 ms; counted by the small rule (all 4, 0.8 ms) it would wait
    a revolution: 10.9 ms."""
    rule = {"write_fill_sectors": 10, "write_fill_large_from": 4, "write_fill_large_sectors": 2}
    small = {"write_fill_sectors": 10}
    assert service(disk(), [("W", 5, 3, 0.0)])[0] == pytest.approx(0.8)
    assert service(disk(cache=rule), [("W", 5, 3, 0.0)])[0] == pytest.approx(10.8)
    assert service(disk(cache=rule), [("W", 5, 4, 0.0)])[0] == pytest.approx(0.9)
    assert service(disk(cache=small), [("W", 5, 4, 0.0)])[0] == pytest.approx(10.9)


def test_write_fill_needs_its_large_size():
    from simcore.errors import ProfileError

    with pytest.raises(ProfileError, match="write_fill_large_sectors"):
        disk(cache={"write_fill_sectors": 10, "write_fill_large_from": 45})


def test_the_importer_keeps_both_knobs():
    from test_validation_drives import parv

    from simcore.disksim.importer import load_any

    assert load_any(str(parv("hp_c2247a"))).overheads.min_write_seek_ms == pytest.approx(0.6)
    assert load_any(str(parv("ibm18es"))).cache.read_hits_on_write_data is False
    assert load_any(str(parv("hp_c2490a"))).cache.read_hits_on_write_data is True
    rz26 = load_any(str(parv("dec_rz26"))).cache
    assert rz26.read_ahead_over_requested and rz26.read_ahead_on_hit
    ibm = load_any(str(parv("ibm18es"))).cache
    # 511 blocks of read-ahead past the request in a 511-block segment: the request goes
    assert ibm.read_ahead_over_requested and not ibm.read_ahead_on_hit
    hp = load_any(str(parv("hp_c2247a"))).cache
    assert (hp.write_fill_sectors, hp.write_fill_large_from, hp.write_fill_large_sectors) == (
        10, 45, 15)
    assert ibm.write_fill_sectors == 0 and rz26.write_fill_sectors == 0


def test_write_through_write_disconnects_and_reselects_before_completing():
    """DiskSim's bus handshakes for a write-through write (the HP C2247's "Data preparation",
    "Write disconnect" and "First reselect" overheads). Write overhead 1 ms, data
    preparation 0.3 ms: the data starts at 1.3 ms and is in at 1.5 ms; the drive then
    disconnects (0.5 ms, until 2.0 ms). The head passes sector 50 at 5.0 ms and writes it by
    5.1 ms; the drive reselects the host (0.4 ms) and completes (0.1 ms): 5.6 ms, where the
    bare write ends at 5.2 ms. Sector 16 is written by 1.7 ms, before the disconnect is over:
    2.0 + 0.4 + 0.1 = 2.5 ms."""
    base = {"write_ms": 1.0, "write_completion_ms": 0.1}
    bus = {**base, "data_prep_ms": 0.3, "write_disconnect_ms": 0.5, "reselect_ms": 0.4}
    assert service(disk(base), [("W", 50, 1, 0.0)])[0] == pytest.approx(5.2)
    assert service(disk(bus), [("W", 50, 1, 0.0)])[0] == pytest.approx(5.6)
    assert service(disk(bus), [("W", 16, 1, 0.0)])[0] == pytest.approx(2.5)


def test_extra_disconnect_write_reselects_for_its_data_and_again_to_complete():
    """The first write (sector 0, overhead 0.5 + preparation 0.1 ms) is in at 0.8 ms and on
    the platter at 10.1 ms (sector 0 passed at 0.0); disconnect until 1.3 ms, reselect 0.4,
    completion 0.1: it ends at 10.6 ms. The second, 0.4 ms later (11.0 ms), goes elsewhere
    (sector 50 of cylinder 3, no seek cost): the arm waits the 4.5 ms setup (15.5 ms), the
    data comes after the 5 ms disconnect, the first reselect and the preparation (16.5 ms)
    and is in at 16.7 ms; sector 50 passes at 15.0 (the arm is not free) and 25.0 ms, so the
    write is done at 25.1 ms; the drive reselects with the other reselect overhead (0.3
    ms, its short second disconnect of 0.2 ms long over) and completes at 25.5 ms: 14.5 ms."""
    ov = {"write_ms": 0.5, "write_completion_ms": 0.1, "data_prep_ms": 0.1,
          "write_disconnect_ms": 0.5, "reselect_ms": 0.4, "reselect_other_ms": 0.3,
          "random_write_setup_ms": 4.5, "random_write_data_ms": 5.0,
          "random_write_disconnect_ms": 0.2}
    got = service(disk(ov), [("W", 0, 1, 0.4), ("W", 350, 1, 0.0)])
    assert got == pytest.approx([10.6, 14.5])


def test_read_miss_reconnects_at_the_water_mark_after_its_reselect():
    """A 20-sector read from sector 10 (sector i in the buffer at 1.1 + 0.1 i ms), read miss
    overhead 1 ms. The drive disconnects (0.3 ms, until 1.3 ms) and reselects the host
    (0.4 ms) once the water mark's worth is in, then prepares the data (0.1 ms). Water
    mark 0.5: 10 sectors in at 2.0 ms, data from 2.5 ms, 20 x 0.2 ms: 6.5 ms (6.0 without
    the handshakes). Water mark 0: one sector, in at 1.1 ms, before the disconnect is over:
    1.3 + 0.5 = 1.8, done at 5.8 ms."""
    ov = {"read_miss_ms": 1.0, "read_disconnect_ms": 0.3, "reselect_ms": 0.4,
          "data_prep_ms": 0.1}
    steps = [("R", 10, 20, 0.0)]
    half = {"read_watermark": 0.5}
    assert service(disk({"read_miss_ms": 1.0}, interface=half), steps)[0] == pytest.approx(6.0)
    assert service(disk(ov, interface=half), steps)[0] == pytest.approx(6.5)
    assert service(disk(ov), steps)[0] == pytest.approx(5.8)


def test_read_water_mark_rounds_down_to_whole_sectors():
    """DiskSim's water mark is max(1, int(n x mark)) sectors: 3 of a 5-sector read at 0.75.
    From sector 10, the third sector is in at 1.3 ms; the bus then sends all 5 (0.2 ms
    each, never overtaking the media): 2.3 ms (rounding up, 4 sectors, would give 2.4)."""
    got = service(disk(interface={"read_watermark": 0.75}), [("R", 10, 5, 0.0)])
    assert got[0] == pytest.approx(2.3)


def test_read_hit_data_waits_for_the_data_preparation():
    """A read of sector 10, then (5 ms later) the same sector again: a buffer hit, sent after
    the hit overhead (0.5 ms) and the data preparation (0.1 ms): 0.5 + 0.1 + 0.2 = 0.8 ms."""
    steps = [("R", 10, 1, 5.0), ("R", 10, 1, 0.0)]
    hit = records(disk({"read_hit_ms": 0.5, "data_prep_ms": 0.1}), steps)[1]
    assert hit.cache_hit and hit.finish_ms - hit.start_ms == pytest.approx(0.8)


def test_the_importer_keeps_the_bus_handshakes():
    from test_validation_drives import parv

    from simcore.disksim.importer import load_any

    hp = load_any(str(parv("hp_c2247a"))).overheads
    assert (hp.data_prep_ms, hp.reselect_ms, hp.reselect_other_ms) == pytest.approx(
        (0.02519, 0.16249, 0.12883))
    assert (hp.read_disconnect(False), hp.read_disconnect(True)) == pytest.approx(
        (0.02266, 0.04551))
    assert (hp.write_disconnect_ms, hp.random_write_disconnect_ms) == pytest.approx(
        (0.16565, 0.13437))
    rz = load_any(str(parv("dec_rz26"))).overheads
    assert (rz.data_prep_ms, rz.reselect_ms, rz.write_disconnect_ms) == (0.0, 0.0, 0.0)


def test_partial_hit_sends_its_buffered_head_after_the_hit_set_up():
    """DiskSim with "Immed transfer partial hit" (all ten validated drives): a partial hit
    keeps the bus and sends what is buffered after the read hit set-up, while the media part
    waits for the miss set-up; the read water mark only holds misses. Hit set-up 0.5 ms,
    miss set-up 1 ms, water mark 1. A 1-sector read of sector 10 (which passes at 1.0 ms):
    done at 1.0 + 0.1 + 0.2 (bus) = 1.3 ms. 5 ms later (6.3 ms) sectors 10-11: sector 10
    goes at 6.8 ms (to 7.0); the media, from 7.3 ms, reads sector 11 as it passes at
    11.1-11.2 ms, sent by 11.4 ms: 5.1 ms of service. Held to the water mark and the miss
    set-up, both sectors would go from 11.2 ms: 5.3 ms."""
    ov = {"read_hit_ms": 0.5, "read_miss_ms": 1.0}
    first, second = records(disk(ov, interface={"read_watermark": 1.0}),
                            [("R", 10, 1, 5.0), ("R", 10, 2, 0.0)])
    assert first.finish_ms == pytest.approx(1.3)
    assert second.start_ms == pytest.approx(6.3)
    assert not second.cache_hit
    assert second.finish_ms - second.start_ms == pytest.approx(5.1)


# -- a write larger than its buffer segment (DiskSim 4.0's disk_buffer_transfer_size and
# disk_request_needs_bus): 100 sectors from sector 0 at t=0 into 50-sector segments. The
# bus sends sector k by 0.2 (k + 1) ms; the head passes sector 0 at 0.0 ms, before its data,
# so the media writes sector k from 10.0 + 0.1 k to 10.1 + 0.1 k ms (one lost revolution).

def small_segments(**interface):
    return disk(cache={"write_back": True, "size_kib": 50}, interface=interface or None)


def test_a_drive_holding_the_bus_refills_the_segment_as_the_media_frees_it():
    """The first 50 sectors are in by 10.0 ms: the segment is full. The bus waits for the
    first sector written (10.1 ms) and from then on keeps pace, one sector a 0.2 ms slot,
    always behind the media (sector 50 + j may enter once sector j is written): sector 99 is
    in at 10.1 + 50 x 0.2 = 20.1 ms, when the write-back drive reports the write done. A
    buffer without the limit would take it at 20.0 ms."""
    got = records(small_segments(), [("W", 0, 100, 0.0)])[0]
    assert got.cache_hit
    assert got.finish_ms - got.start_ms == pytest.approx(20.1)


def test_a_drive_that_disconnects_comes_back_at_the_low_water_mark():
    """The drive gives up the bus when the segment is full (10.0 ms) and comes back when at
    most the water mark is left unwritten. Mark 0: one sector, once sector 48 is written
    (14.9 ms); the 49 free sectors come in by 14.9 + 49 x 0.2 = 24.7 ms; the media has
    written sector 49 at 15.0 ms and passed sector 50 before its data (15.1 ms), so it
    writes nothing more until the next revolution and the last sector takes the one freed
    slot: in at 24.9 ms. Mark 0.5: 25 sectors, once sector 24 is written (12.5 ms); 25
    sectors by 17.5 ms (the media, writing sector 50 + j from 15.0 + 0.1 j, is overtaken at
    sector 74: in at 17.5, passed at 17.4), with 49 free then: the last 25 are in at 22.5."""
    steps = [("W", 0, 100, 0.0)]
    low = service(small_segments(hold_bus_writes=False), steps)[0]
    half = service(small_segments(hold_bus_writes=False, write_watermark=0.5), steps)[0]
    assert (low, half) == pytest.approx((24.9, 22.5))


def test_the_reconnection_pays_the_disconnect_and_reselect():
    """As above with mark 0, write disconnect 0.3 ms and reselect 0.4 ms: the drive is off the
    bus by 10.3 ms, is called back at 14.9 ms and sends again from 15.3 ms: 49 sectors by
    25.1 ms. Sector 50 (in at 15.5 ms) missed the head at 15.0 ms and is written at 25.0-25.1
    ms, so two sectors are free at 25.1 ms: the last one goes on at once, in at 25.3 ms."""
    p = disk({"write_disconnect_ms": 0.3, "reselect_ms": 0.4},
             cache={"write_back": True, "size_kib": 50},
             interface={"hold_bus_writes": False})
    assert service(p, [("W", 0, 100, 0.0)])[0] == pytest.approx(25.3)


def test_write_water_mark_is_set_by_request_size():
    """DiskSim: max(1, int(min(segment, request) x mark)) sectors."""
    from simcore.drive.cache import write_watermark_sectors

    assert write_watermark_sectors(50, 100, 0.75) == 37
    assert write_watermark_sectors(256, 40, 0.75) == 30
    assert write_watermark_sectors(64, 512, 0.0) == 1
    assert write_watermark_sectors(512, 512, 1.0) == 512


def test_a_write_that_fits_its_segment_is_not_held_back():
    """50 sectors fit: in at 50 x 0.2 = 10.0 ms, with or without the bus held."""
    steps = [("W", 0, 50, 0.0)]
    assert service(small_segments(), steps)[0] == pytest.approx(10.0)
    assert service(small_segments(hold_bus_writes=False), steps)[0] == pytest.approx(10.0)


def test_the_importer_keeps_the_bus_holding_and_the_write_water_mark():
    from test_validation_drives import parv

    from simcore.disksim.importer import import_disksim, load_any

    for name, hold, mark in (("atlas_III", False, 0.0), ("dec_rz26", True, 0.0),
                             ("hp_c2247a", False, 0.75), ("hp_c3323a", False, 1.0)):
        prof = load_any(str(parv(name)))
        assert (prof.hold_bus_writes, prof.write_watermark) == (hold, mark), name
        text = " ".join(import_disksim(parv(name)).warnings)
        for knob in ("Hold bus", "Never disconnect", "water mark", "holds the bus"):
            assert knob not in text, (name, knob)


def _twin_matches_event_loop(stk, wl) -> None:
    """The drive's event-free twin served ``wl`` and gave the records its SimPy process gives."""
    from test_speed_paths import _by_simpy

    res = run(stk, wl)
    assert res.meta["built"].drives[0]._open_served
    completed, _, _ = _by_simpy(stk, wl.requests)
    assert [tuple(r) for r in res.records] == [tuple(r) for r in completed]


@pytest.mark.parametrize("write_back", [True, False])
@pytest.mark.parametrize("hold", [True, False])
def test_large_writes_agree_with_and_without_the_event_loop(write_back, hold):
    """The drive's event-free twin (``serve_open``) and its SimPy process give the same
    records for writes larger than a segment, random and sequential, among reads."""
    import numpy as np

    from simcore.disk.access import Mechanism
    from simcore.drive.cache import CacheConfig
    from simcore.records import READ, WRITE, Request
    from simcore.stack import stack
    from simcore.workloads import OpenWorkload

    p = disk({"write_disconnect_ms": 0.05, "reselect_ms": 0.07, "data_prep_ms": 0.01},
             cache={"write_back": write_back, "size_kib": 50},
             interface={"hold_bus_writes": hold, "write_watermark": 0.3})
    mech = Mechanism(p)
    rng = np.random.default_rng(7)
    reqs, lba = [], 0
    for i in range(120):
        n = int(rng.integers(1, 160))
        seq = i % 4 == 1
        lba = lba if seq else int(rng.integers(0, 1000 - n))
        op = READ if i % 5 == 0 else WRITE
        n = min(n, 50) if op == READ else n  # the twin serves reads that fit a segment
        reqs.append(Request(i, i * 9.0, op, lba, min(n, 1000 - lba)))
        lba += reqs[-1].sectors
        lba %= 900
    _twin_matches_event_loop(stack(mech, cache=CacheConfig.from_profile(p)),
                             OpenWorkload(reqs, name="large writes"))


@pytest.mark.parametrize("model", ["atlas10k", "atlas_III"])
def test_large_writes_on_imported_drives_agree_with_and_without_the_event_loop(model):
    """The same on two validated models that give up the bus: the Atlas 10K (zero-latency
    writes, 374-sector segments) and the Atlas III (64-sector segments)."""
    import numpy as np
    from test_validation_drives import parv

    from simcore.disk.access import Mechanism
    from simcore.disksim.importer import load_any
    from simcore.drive.cache import CacheConfig
    from simcore.records import READ, WRITE, Request
    from simcore.stack import stack
    from simcore.workloads import OpenWorkload

    p = load_any(str(parv(model)))
    assert not p.hold_bus_writes
    mech = Mechanism(p)
    rng = np.random.default_rng(3)
    reqs, lba = [], 0
    for i in range(60):
        op = READ if i % 6 == 0 else WRITE
        n = int(rng.integers(8, 64)) if op == READ else int(rng.integers(40, 900))
        lba = lba if i % 3 == 1 else int(rng.integers(0, 10_000_000))
        reqs.append(Request(i, i * 40.0, op, lba, n))
        lba += n
    _twin_matches_event_loop(stack(mech, cache=CacheConfig.from_profile(p)),
                             OpenWorkload(reqs, name="large writes"))
