"""Shingled drives (simcore.smr): the drive-managed media cache and host-managed zones.

Sources: Aghayev & Desnoyers, *Skylight* (FAST 2015): a persistent media cache takes writes as a
log until it is full, then bands are cleaned (read band, merge, write band) while the host waits;
cleaning also runs in idle time. T10 ZBC / T13 ZAC and the Linux zoned block device model:
sequential-write-required zones take writes only at their write pointer; a reset empties a zone.
Expected values are hand-computed: the fill point is cache / write size; after the fill,
sequential writes go at one band per (log read + band read + band write).
"""

from __future__ import annotations

import numpy as np
import pytest

import simcore
from simcore.disk.access import HeadState
from simcore.disk.profile_loader import profile_from_dict
from simcore.drive.smr import RESET, DriveManaged, HostManaged, translation_of
from simcore.errors import ProfileError, ZoneError
from simcore.records import Request
from simcore.workloads import ClosedWorkload, from_tuples

DM = "st5000as0011"
HM = "hm_smr14"


def run_with(stl, wl):
    return simcore.run(simcore.stack(stl.mechanism, service=stl, firmware=False), wl)


def random_writes(stl, n, size_sectors, seed=1):
    slots = stl.capacity // size_sectors - 1

    def make(c, k, rng):
        return "W", size_sectors * int(rng.integers(0, slots)), size_sectors
    return ClosedWorkload(1, n, make, 0.0, seed)


def test_media_cache_fills_after_cache_over_write_size_writes():
    stl = DriveManaged(DM, media_cache_mib=16, band_mib=4)
    run_with(stl, random_writes(stl, 4200, 8))
    assert stl.stats.first_forced_at_write == 16 * 2048 // 8 + 1  # 4096 writes fit, then clean


def test_an_append_that_continues_the_log_costs_its_media_time_only():
    stl = DriveManaged(DM, media_cache_mib=16, band_mib=4)
    r = run_with(stl, random_writes(stl, 50, 8))
    m = stl.mechanism
    st = m.rev_ms / m.layout.sectors_per_track(0)
    svc = np.diff(r.column("finish_ms"))[1:20]  # closed loop at depth 1: one write each
    # command overhead + 8 sectors (+ the ten-thousandth of a sector the log is timed early)
    assert svc == pytest.approx(0.1 + 8.0001 * st, abs=1e-9)


def test_band_rewrite_is_a_band_read_plus_a_band_write():
    stl = DriveManaged(DM)
    m, c, b = stl.mechanism, stl.cache_sectors, stl.band_sectors
    h = HeadState(0, 0)
    r = m.access(c + 5 * b, b, False, 0.0, h)
    h2 = HeadState(r.cylinder, r.surface)
    w = m.access(c + 5 * b, b, True, r.end_ms - r.interface_ms, h2)
    assert stl.band_rewrite_ms(5) == pytest.approx(w.end_ms - w.interface_ms)
    # 30 MiB of 3,576-sector tracks: about 17 tracks read and 17 written, ~35 revolutions
    assert 34 * m.rev_ms < stl.band_rewrite_ms(5) < 42 * m.rev_ms


def test_after_the_fill_sequential_writes_go_at_one_band_per_cleaning():
    stl = DriveManaged(DM, media_cache_mib=64, band_mib=4)
    per_band = 4  # 1 MiB writes
    wl = simcore.workloads.sequential_open(0, 200, 1024, op="W")
    r = run_with(stl, wl)
    f = r.column("finish_ms")
    assert stl.stats.first_forced_at_write == 64 + 1
    clean = [e - s for s, e, _, _ in stl.stats.clean_log]
    # a cleaning reads the band's 4 MiB from the log, reads the band, writes it back
    m, st = stl.mechanism, stl.mechanism.rev_ms / stl.mechanism.layout.sectors_per_track(0)
    media = 3 * stl.band_sectors * st
    assert all(media < c < media + 6 * m.rev_ms for c in clean)
    # the write that waited for a cleaning then seeks back to the log and waits for its sector
    first = [x.finish_ms - x.start_ms - x.overhead_ms + 0.1 for x in r.records[100:200]
             if x.overhead_ms > 1.0]
    clean = [e - s for s, e, _, _ in stl.stats.clean_log if f[99] <= s < f[199]]
    assert len(clean) == len(first) == 100 // per_band
    xfer = 0.1 + 2048 * st  # a 1 MiB append that continues the log: overhead + 2048 sectors
    assert all(f > xfer for f in first)
    steady = (f[199] - f[99]) / 100  # ms per write after the fill
    # per band: one cleaning, the write after it, three appends that each cross a track
    # boundary (one head switch, 1.0 ms, hidden by the skew or not) at most once; and the
    # 64 MiB log wraps to its start at most twice in 100 writes (a seek back and a turn)
    low = (np.mean(clean) + np.mean(first) + (per_band - 1) * xfer) / per_band
    wrap = m.seek.seek_ms(m.layout.cylinder_of(stl.cache_sectors)) + m.rev_ms
    high = low + (per_band - 1) * m.head_switch_ms / per_band + 2 * wrap / 100
    assert low <= steady <= high


def test_random_writes_collapse_after_the_fill():
    stl = DriveManaged(DM, media_cache_mib=32)
    n_fill = 32  # 1 MiB writes
    r = run_with(stl, random_writes(stl, n_fill + 40, 2048, seed=3))
    f = r.column("finish_ms")
    before = n_fill / (f[n_fill - 1] / 1000)  # MiB/s while the cache absorbs
    after = 30 / ((f[-1] - f[-31]) / 1000)
    assert before > 100  # near the outer-edge media rate
    assert after < 0.05 * before  # each write now waits for a band to be cleaned
    # each random 1 MiB write lands in a band of its own: one cleaning per write
    assert stl.stats.forced_cleanings == pytest.approx(40, abs=2)


def test_idle_time_cleans_the_cache():
    stl = DriveManaged(DM, media_cache_mib=64, idle_clean_ms=1000)
    rows = [(0.0, "W", 2048 * 100 * k, 8) for k in range(10)]  # ten bands, 4 KiB each
    rows.append((500.0, "R", 0, 8))  # idle 0.5 s: too soon
    run_with(stl, from_tuples(rows))
    assert stl.stats.cleanings == 0 and stl.used == 10 * 8
    rows.append((60_000.0, "R", 0, 8))  # idle a minute: every band is cleaned
    stl2 = DriveManaged(DM, media_cache_mib=64, idle_clean_ms=1000)
    r = run_with(stl2, from_tuples(rows))
    assert stl2.stats.idle_cleanings == 10 and stl2.used == 0
    assert stl2.stats.clean_log[0][0] == pytest.approx(r.records[10].finish_ms + 1000)


def test_reads_find_the_newest_copy_in_the_log():
    stl = DriveManaged(DM, media_cache_mib=64)
    rows = [(0.0, "W", 4096, 8), (1.0, "R", 4096, 16), (2.0, "R", 8192, 8)]
    r = run_with(stl, from_tuples(rows))
    assert stl.stats.fragmented_reads == 1  # the second read touches no cached sector
    assert r.records[1].seek_ms > 0  # the band, then back to the log


def test_a_shingled_profile_runs_through_its_translation_by_default():
    wl = from_tuples([(0.0, "W", 0, 8), (0.0, "W", 80000, 8)])
    r = simcore.run(DM, wl)
    assert isinstance(translation_of(r), DriveManaged) and translation_of(r).stats.writes == 2
    with pytest.raises(ValueError, match="shingled drive"):
        simcore.run(DM, wl, cache=True)


# -- host-managed ---------------------------------------------------------------------


@pytest.fixture()
def hm():
    return HostManaged(HM)


def req(i, op, lba, n=8):
    return Request(i, 0.0, op, lba, n)


def test_zone_layout_and_report(hm):
    z = hm.zone_sectors
    assert z == 256 * 2048 and hm.conventional == 52
    rep = hm.report_zones(52 * z, 2)
    assert rep[0].type == "seq-write-required" and rep[0].condition == "empty"
    assert rep[0].write_pointer == 52 * z
    assert hm.report_zones(0, 1)[0].condition == "not-write-pointer"


def test_writes_at_the_write_pointer_advance_it(hm):
    z0 = 60 * hm.zone_sectors
    head = HeadState(0, 0)
    hm(req(0, "W", z0, 2048), 0.0, head)
    hm(req(1, "W", z0 + 2048, 8), 10.0, head)
    info = hm.report_zones(z0, 1)[0]
    assert info.write_pointer == z0 + 2056 and info.condition == "open"


def test_writes_off_the_write_pointer_are_refused(hm):
    z0 = 60 * hm.zone_sectors
    head = HeadState(0, 0)
    with pytest.raises(ZoneError, match="ahead of the zone's write pointer"):
        hm(req(0, "W", z0 + 8), 0.0, head)
    hm(req(1, "W", z0), 0.0, head)
    with pytest.raises(ZoneError, match="behind the zone's write pointer"):
        hm(req(2, "W", z0), 0.0, head)
    with pytest.raises(ZoneError, match="crosses the end of zone 59"):
        hm(req(3, "W", z0 - 8, 16), 0.0, head)
    hm(req(4, "W", 5 * hm.zone_sectors + 123), 0.0, head)  # a conventional zone: anywhere


def test_reset_empties_a_zone_and_refuses_conventional_zones(hm):
    z = hm.zone_sectors
    wl = from_tuples([(0.0, "W", 60 * z, 8), (0.0, "W", 60 * z + 8, 8), (0.0, RESET, 60 * z, 0 + 1),
                      (0.0, "W", 60 * z, 8)])
    # a reset names the zone by its first LBA (its length is ignored)
    stl = HostManaged(HM)
    r = simcore.run(simcore.stack(stl.mechanism, service=stl, firmware=False), wl)
    assert len(r) == 4 and stl.resets == 1 and stl.wp[60] == 60 * z + 8
    with pytest.raises(ZoneError, match="conventional"):
        hm.reset_zone(3)
    with pytest.raises(ZoneError, match="first LBA"):
        hm(req(0, RESET, 60 * z + 8), 0.0, HeadState(0, 0))


def test_random_writes_on_a_zoned_drive_stop_the_run_with_the_reason():
    z = HostManaged(HM).zone_sectors
    wl = from_tuples([(0.0, "W", 60 * z, 8), (1.0, "W", 61 * z + 4096, 8)])
    with pytest.raises(ZoneError, match=r"write at LBA \d+ in zone 61"):
        simcore.run(HM, wl)


@pytest.mark.parametrize("smr,field", [
    ({"kind": "shingled"}, "firmware.smr.kind"),
    ({"kind": "drive-managed", "media_cache_mib": 100, "band_mib": 30, "idle_clean_ms": 1,
      "zone_mib": 256}, "firmware.smr.zone_mib"),
    ({"kind": "drive-managed", "media_cache_mib": 10, "band_mib": 30, "idle_clean_ms": 1},
     "firmware.smr.band_mib"),
    ({"kind": "drive-managed", "band_mib": 30, "idle_clean_ms": 1}, "firmware.smr.media_cache_mib"),
    ({"kind": "host-managed", "zone_mib": 256, "band_mib": 30}, "firmware.smr.band_mib"),
    ({"kind": "host-managed", "zone_mib": 0.001}, "firmware.smr.zone_mib"),
    ({"kind": "host-managed", "zone_mib": 256, "extra": 1}, "firmware.smr.extra"),
])
def test_bad_smr_tables_name_the_field(smr, field):
    data = {"id": "x", "name": "x", "geometry": {"rpm": 7200, "surfaces": 1,
                                                  "zones": [{"first_cylinder": 0,
                                                             "last_cylinder": 9,
                                                             "sectors_per_track": 64}]},
            "mechanics": {"head_switch_ms": 0.5, "seek": {"model": "linear",
                                                          "per_cylinder_ms": 0.01}},
            "firmware": {"smr": smr}}
    with pytest.raises(ProfileError) as e:
        profile_from_dict(data)
    assert e.value.field == field


def test_a_log_structured_host_appends_at_the_write_pointer():
    from simcore.placement.zone_log import log_structured

    hm = HostManaged(HM)
    z0 = hm.conventional * hm.zone_sectors
    wl, log = log_structured(hm, [5, 9, 5], batch_blocks=2)
    assert [(r.lba, r.sectors) for r in wl.requests] == [(z0, 16), (z0 + 16, 8)]
    assert log.map == {5: z0 + 16, 9: z0 + 8}  # block 5's newest copy is the second one


def test_appends_one_at_a_time_wait_a_revolution_each():
    """The next sector has passed during the command overhead: rev + 8 sector times per append."""
    from simcore.placement.zone_log import log_structured

    hm = HostManaged(HM)
    wl, _ = log_structured(hm, list(range(60)), batch_blocks=1)
    r = simcore.run(simcore.stack(hm.mechanism, service=hm, firmware=False), wl)
    m = hm.mechanism
    z = m.layout.zone_of(hm.conventional * hm.zone_sectors)
    st = m.rev_ms / m.layout.sectors_per_track(z)
    svc = np.diff(r.column("finish_ms"))[1:40]
    crossings = svc > m.rev_ms + 8 * st + 1e-6  # a track switch inside an append
    assert crossings.sum() <= 1
    assert svc[~crossings] == pytest.approx(m.rev_ms + 8 * st, rel=1e-6)
