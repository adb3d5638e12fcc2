"""Advanced Format (simcore.sectors and the read-modify-write in Mechanism.access/plan).

Sources: Western Digital, *Advanced Format White Paper* (2018): a 512-byte write on a 512e drive
reads the 4 KiB physical sector, merges, and writes it back; IDEMA Advanced Format (4096-byte
physical sectors); Ultrastar DC HC310 specification (the 512e/4Kn pair). Every expected time
below is computed by hand from the profile: one revolution ``rev`` and one sector time
``st = rev / SPT`` in the first zone, with the head parked on track 0 and LBA 0 under it at t=0.
"""

from __future__ import annotations

import numpy as np
import pytest

import simcore
from simcore.disk.access import HeadState
from simcore.disk.profile_loader import profile_from_dict
from simcore.disk.sectors import SectorFormat, with_format
from simcore.errors import AlignmentError, ProfileError
from simcore.workloads import ClosedWorkload, from_tuples

E512 = simcore.load_disk("hc310_512e")
K4N = simcore.load_disk("hc310_4kn")
N512 = with_format(E512, "512n")


def mech(p):
    return simcore.Mechanism(p)


@pytest.fixture(scope="module")
def m():
    return mech(E512)


def times(m):
    spt = m.layout.sectors_per_track(0)
    return m.rev_ms, m.rev_ms / spt


def at0(m, lba, n, write):
    return m.access(lba, n, write, 0.0, HeadState(0, 0))


def test_head_starts_over_lba0(m):
    a = at0(m, 0, 8, True)
    _, st = times(m)
    assert a.seek_ms == 0 and a.rotation_ms == pytest.approx(0, abs=1e-9)
    assert a.end_ms == pytest.approx(8 * st)


def test_misaligned_4k_write_costs_one_revolution_more(m):
    rev, st = times(m)
    # LBA 1..8 splits physical sectors 0 and 1: read 16 sectors, wait for sector 0 to come
    # round again (rev - 16 st), write 16 sectors: rev + 16 st in all
    a = at0(m, 1, 8, True)
    assert a.end_ms == pytest.approx(rev + 16 * st, rel=1e-9)
    aligned = at0(m, 0, 8, True)
    assert a.end_ms - aligned.end_ms == pytest.approx(rev + 8 * st, rel=1e-9)
    # the same write on the drive's 512n twin: no read-modify-write
    plain = at0(mech(N512), 1, 8, True)
    assert plain.end_ms == pytest.approx(8 * st + st, rel=1e-9)  # wait one sector, write 8


def test_sub_4k_write_costs_one_revolution(m):
    rev, st = times(m)
    for lba, n in ((0, 1), (3, 2), (7, 1)):
        a = at0(m, lba, n, True)
        # read physical sector 0 (8 st), wait rev - 8 st, write it (8 st)
        assert a.end_ms == pytest.approx(rev + 8 * st, rel=1e-9), (lba, n)


def test_long_misaligned_write_reads_only_its_two_ends(m):
    rev, st = times(m)
    a = at0(m, 4, 4000, True)  # physical sectors 0..500 on one track; ends 0 and 500 partial
    assert SectorFormat.of(E512).partial_reads(4, 4000) == [(0, 8), (4000, 8)]
    # the reads end at 4008 st; the write of 0..4008 waits for sector 0: rev + 4008 st in all
    assert a.end_ms == pytest.approx(rev + 4008 * st, rel=1e-9)


def test_reads_are_unaffected(m):
    plain = mech(N512)
    for lba, n in ((1, 8), (0, 1), (5, 100), (123457, 3)):
        assert at0(m, lba, n, False) == at0(plain, lba, n, False)


def test_aligned_writes_cost_nothing_extra(m):
    plain = mech(N512)
    for lba, n in ((0, 8), (8, 16), (4096, 2048)):
        assert at0(m, lba, n, True) == at0(plain, lba, n, True)


def test_4kn_refuses_misaligned_io():
    k = mech(K4N)
    assert at0(k, 8, 8, True).end_ms > 0
    for lba, n, write in ((1, 8, True), (0, 4, False), (8, 9, True)):
        with pytest.raises(AlignmentError, match="4Kn drive.*multiples of 8"):
            at0(k, lba, n, write)
    wl = from_tuples([(0.0, "W", 8, 8), (1.0, "W", 63, 8)])
    with pytest.raises(AlignmentError, match="LBA 63, 8 sectors"):
        simcore.run(K4N, wl, firmware=False)


def test_plan_agrees_with_access_for_a_read_modify_write(m):
    rev, st = times(m)
    plan = m.plan(1, 8, True, 0.0, HeadState(0, 0))
    a = at0(m, 1, 8, True)
    assert plan.end_ms == pytest.approx(a.end_ms - a.interface_ms)
    assert len(plan.done_ms) == 8 and plan.pieces[0].first == 0
    assert plan.pieces[0].move_start_ms == 0.0
    # host sector 1 is physical slot 1 of the whole-sector write that starts at rev
    assert plan.done_ms[0] == pytest.approx(rev + 2 * st, rel=1e-9)


def test_lowest_aligned_lba_7_makes_lba_63_aligned():
    j = mech(with_format(E512, "512e", lowest_aligned_lba=7))
    plain = mech(N512)
    assert at0(j, 63, 8, True) == at0(plain, 63, 8, True)
    rev, _ = times(j)
    assert at0(j, 64, 8, True).end_ms > rev


def test_partition_at_63_costs_a_revolution_per_4k_random_write():
    """Random 4 KiB writes inside a partition at LBA 63 vs at LBA 2048 (same offsets)."""
    cap = mech(E512).layout.capacity

    def wl(start):
        def make(c, k, rng):
            return "W", start + 8 * int(rng.integers(0, (cap - 4096) // 8)), 8
        return ClosedWorkload(1, 300, make, 0.0, seed=4)

    r63 = simcore.run(E512, wl(63), firmware=False)
    r2048 = simcore.run(E512, wl(2048), firmware=False)
    d = r63.summary()["mean_response_ms"] - r2048.summary()["mean_response_ms"]
    assert d == pytest.approx(mech(E512).rev_ms, rel=0.1)
    assert np.all(r63.column("rotation_ms") > mech(E512).rev_ms * 0.9)


@pytest.mark.parametrize("change,field", [
    ({"physical_sector_bytes": 4000}, "geometry.physical_sector_bytes"),
    ({"logical_sector_bytes": 4096, "physical_sector_bytes": 512}, "geometry.physical_sector_bytes"),
    ({"logical_sector_bytes": 1024, "physical_sector_bytes": 4096}, "geometry.logical_sector_bytes"),
    ({"physical_sector_bytes": 4096, "lowest_aligned_lba": 8}, "geometry.lowest_aligned_lba"),
    ({"physical_sector_bytes": True}, "geometry.physical_sector_bytes"),
])
def test_bad_sector_formats_name_the_field(change, field):
    data = {"id": "x", "name": "x", "geometry": {"rpm": 7200, "surfaces": 1, **change,
                                                  "zones": [{"first_cylinder": 0,
                                                             "last_cylinder": 9,
                                                             "sectors_per_track": 64}]},
            "mechanics": {"head_switch_ms": 0.5, "seek": {"model": "linear",
                                                          "per_cylinder_ms": 0.01}}}
    with pytest.raises(ProfileError) as e:
        profile_from_dict(data)
    assert e.value.field == field


def test_tracks_must_hold_whole_physical_sectors():
    data = {"id": "x", "name": "x", "geometry": {"rpm": 7200, "surfaces": 1,
                                                  "physical_sector_bytes": 4096,
                                                  "zones": [{"first_cylinder": 0,
                                                             "last_cylinder": 9,
                                                             "sectors_per_track": 63}]},
            "mechanics": {"head_switch_ms": 0.5, "seek": {"model": "linear",
                                                          "per_cylinder_ms": 0.01}}}
    with pytest.raises(ProfileError) as e:
        profile_from_dict(data)
    assert e.value.field == "geometry.zones[0].sectors_per_track"
    with pytest.raises(ValueError, match=r"zones\[1\].sectors_per_track"):
        with_format(simcore.load_disk("modern7200"), "512e")


def test_profiles_say_their_format():
    assert SectorFormat.of(E512).name == "512e" and SectorFormat.of(K4N).name == "4Kn"
    assert SectorFormat.of(simcore.load_disk("atlas10k")).name == "512n"
    assert all(z.sectors_per_track % 8 == 0 for z in E512.zones)
