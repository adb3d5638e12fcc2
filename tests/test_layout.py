"""The LBA map: hand-checked examples, the paper's Figure 2, and a round-trip property."""

from __future__ import annotations

import pytest
from helpers_disks import figure2_disk, small_disk
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore import Layout, RequestError, load_disk


def test_figure2_slip_moves_next_track_start_to_599():
    """Schindler et al. 2002 §3.1, Figure 2: 'the first LBN on the following track is 599'."""
    layout = Layout(figure2_disk())
    boundaries = []
    for b in layout.track_boundaries():
        boundaries.append(b)
        if len(boundaries) == 5:
            break
    assert boundaries == [0, 200, 400, 599, 799]
    assert layout.track_extent(598) == (400, 199)
    # head switches fall between 199/200, 399/400 and 598/599
    for a, b in ((199, 200), (399, 400), (598, 599)):
        pa, pb = layout.locate(a), layout.locate(b)
        assert (pa.cylinder, pa.surface) != (pb.cylinder, pb.surface)


def test_figure2_track_skew_of_20_sectors():
    layout = Layout(figure2_disk())
    assert layout.locate(0).sector == 0
    assert layout.locate(200).sector == 20  # second track starts 20 sectors later
    assert layout.locate(200).surface == 1 and layout.locate(200).cylinder == 0
    assert layout.locate(400).cylinder == 1 and layout.locate(400).sector == 40


def test_slipped_sector_holds_no_lba():
    layout = Layout(figure2_disk())
    # LBN 580 sits in slot 580 (track 2, position 180); slot 581 is the defect
    a = layout.locate(580)
    assert layout.lba_at(a.cylinder, a.surface, (a.sector + 1) % 200) is None
    assert layout.lba_at(a.cylinder, a.surface, (a.sector + 2) % 200) == 581


def test_serpentine_cylinder_switch_keeps_surface():
    prof = small_disk([{"first_cylinder": 0, "last_cylinder": 3, "sectors_per_track": 10,
                        "track_skew": 0, "cylinder_skew": 0}], surfaces=3, mapping="serpentine")
    layout = Layout(prof)
    # cylinder 0: surfaces 0,1,2; cylinder 1: surfaces 2,1,0
    assert [layout.locate(t * 10).surface for t in range(6)] == [0, 1, 2, 2, 1, 0]
    assert [layout.locate(t * 10).cylinder for t in range(6)] == [0, 0, 0, 1, 1, 1]


def test_zones_media_rate_and_lba_ranges():
    layout = Layout(load_disk("atlas10k2"))
    assert layout.sectors_per_track(0) == 528
    # 528 sectors x 512 B per 6 ms revolution = 45.06 MB/s (Schindler et al. Table 1 derived)
    assert layout.media_rate_mb_s(0) == pytest.approx(528 * 512 / 6000, rel=1e-12)
    first, end = layout.zone_lba_range(0)
    assert first == 0 and layout.zone_of(end - 1) == 0 and layout.zone_of(end) == 1


def test_lba_beyond_the_disk_is_an_error_not_a_wrap():
    layout = Layout(load_disk("toy"))
    assert layout.capacity == 36
    with pytest.raises(RequestError, match="outside the disk"):
        layout.locate(36)
    with pytest.raises(RequestError):
        layout.pieces(30, 7)


def test_pieces_split_at_track_boundaries_with_slip_gap():
    layout = Layout(figure2_disk())
    pieces = layout.pieces(570, 40)  # LBNs 570..609 cross the slip and a track boundary
    assert [p.count for p in pieces] == [29, 11]
    assert pieces[0].span == 30  # the head passes over the defective sector too
    assert pieces[1].first_sector == layout.locate(599).sector


zone_strategy = st.lists(
    st.tuples(st.integers(1, 3), st.integers(3, 12), st.integers(0, 11), st.integers(0, 11),
              st.integers(0, 3)),
    min_size=1, max_size=3)


def _zone_spec(zones, surfaces: int, data) -> list[dict]:
    """The zone table a drawn ``zone_strategy`` example describes, with up to two slips a zone."""
    spec, c0 = [], 0
    for ncyl, spt, ts, cs, spares in zones:
        slots = ncyl * surfaces * spt
        slips = data.draw(st.lists(st.integers(0, slots - 1), unique=True, max_size=2))
        spec.append({"first_cylinder": c0, "last_cylinder": c0 + ncyl - 1,
                     "sectors_per_track": spt, "track_skew": ts % spt, "cylinder_skew": cs % spt,
                     "spares": min(spares, slots - 1), "slips": slips})
        c0 += ncyl
    return spec


@settings(max_examples=60, deadline=None)
@given(zones=zone_strategy, surfaces=st.integers(1, 3),
       mapping=st.sampled_from(["conventional", "serpentine"]), data=st.data())
def test_map_round_trips_every_sector(zones, surfaces, mapping, data):
    """Every LBA maps to one physical sector and back; every other sector is spare or slipped."""
    spec = _zone_spec(zones, surfaces, data)
    layout = Layout(small_disk(spec, surfaces=surfaces, mapping=mapping))
    seen = set()
    for lba in range(layout.capacity):
        a = layout.locate(lba)
        assert layout.lba_at(a.cylinder, a.surface, a.sector) == lba
        seen.add((a.cylinder, a.surface, a.sector))
    assert len(seen) == layout.capacity
    mapped = sum(
        layout.lba_at(c, s, k) is not None
        for c in range(layout.cylinders) for s in range(surfaces)
        for k in range(_spt_of_cylinder(spec, c))
    )
    assert mapped == layout.capacity
    # pieces of the whole disk cover every LBA exactly once
    assert sum(p.count for p in layout.pieces(0, layout.capacity)) == layout.capacity


@settings(max_examples=40, deadline=None)
@given(zones=zone_strategy, surfaces=st.integers(1, 3),
       mapping=st.sampled_from(["conventional", "serpentine"]), data=st.data())
def test_answers_from_the_last_track_found_equal_the_full_map(zones, surfaces, mapping, data):
    """``lba_at``, ``track_extent`` and ``track_end`` answer from the last straight track a
    piece was found on (a cache asks them about the track its miss just read): the same
    answers as a layout that never found a piece, on every sector of that track; so does
    the straight track itself."""
    spec = _zone_spec(zones, surfaces, data)
    prof = small_disk(spec, surfaces=surfaces, mapping=mapping)
    layout, fresh = Layout(prof), Layout(prof)  # ``fresh`` never finds a piece
    straight = 0
    for lba in range(layout.capacity):
        piece = layout.first_piece(lba, 1)
        for k in range(-1, piece.sectors_per_track + 1):
            got = layout.lba_at(piece.cylinder, piece.surface, k)
            assert got == fresh.lba_at(piece.cylinder, piece.surface, k)
            if got is not None:
                assert layout.track_extent(got) == fresh.track_extent(got)
                assert layout.track_end(got) == fresh.track_end(got)
        track = layout.straight_track(lba)  # a straight track: one run of LBAs
        if track is not None:
            first, count = fresh.track_extent(lba)
            assert (track.first, track.end) == (first, first + count) == (
                first, fresh.track_end(first))
            for k in range(track.spt):
                assert track.lba_at(k) == fresh.lba_at(track.cylinder, track.surface, k)
            straight += 1
    assert straight > 0 or not layout.simple


def _spt_of_cylinder(spec, cyl):
    for z in spec:
        if z["first_cylinder"] <= cyl <= z["last_cylinder"]:
            return z["sectors_per_track"]
    raise AssertionError(cyl)


# -- DiskSim's sparing layouts (dm_layout_g1), checked by hand ------------------------------

def _one_zone(**zone):
    from simcore.disk.profile_loader import profile_from_dict
    base = {"id": "z", "name": "z", "geometry": {"rpm": 6000, "surfaces": 2, "zones": [
        {"first_cylinder": 0, "last_cylinder": 3, "sectors_per_track": 10, "track_skew": 0,
         "cylinder_skew": 0, **zone}]},
            "mechanics": {"head_switch_ms": 1.0, "seek": {"model": "linear",
                                                          "per_cylinder_ms": 1}}}
    return Layout(profile_from_dict(base, "z.toml"))


def test_spares_at_the_end_of_every_track():
    """Scheme 3: one spare per 10-slot track leaves 9 LBAs a track, 8 tracks -> 72."""
    lay = _one_zone(spares=1, spare_group=10)
    assert lay.capacity == 72
    assert lay.locate(8)[:3] == (0, 0, 8)       # last data sector of track 0
    assert lay.locate(9)[:3] == (0, 1, 0)       # slot 9 is the spare: next track
    assert lay.lba_at(0, 0, 9) is None          # the spare holds no LBA
    assert [p.count for p in lay.pieces(5, 10)] == [4, 6]


def test_spares_at_the_end_of_every_range_with_a_slip():
    """Scheme 8: ranges of 2 cylinders = 40 slots with 3 spares; a slip at slot 5 of range 0."""
    lay = _one_zone(spares=3, spare_group=40, slips=[5])
    assert lay.capacity == 2 * 37
    assert lay.locate(4)[:3] == (0, 0, 4)
    assert lay.locate(5)[:3] == (0, 0, 6)       # pushed past the slip
    assert lay.locate(36)[:3] == (1, 1, 7)      # slot 37: the range's last data sector
    assert lay.lba_at(1, 1, 8) is None          # slots 38, 39 are spares
    assert lay.locate(37)[:3] == (2, 0, 0)      # the next range starts on cylinder 2


def test_empty_space_at_the_zone_front_and_unused_cylinders():
    from simcore.disk.profile_loader import profile_from_dict
    base = {"id": "g", "name": "g", "geometry": {"rpm": 6000, "surfaces": 1, "zones": [
        {"first_cylinder": 0, "last_cylinder": 1, "sectors_per_track": 10, "track_skew": 0,
         "cylinder_skew": 0, "empty_front": 3},
        {"first_cylinder": 3, "last_cylinder": 4, "sectors_per_track": 8, "track_skew": 0,
         "cylinder_skew": 0}]},
            "mechanics": {"head_switch_ms": 1.0, "seek": {"model": "linear",
                                                          "per_cylinder_ms": 1}}}
    lay = Layout(profile_from_dict(base, "g.toml"))
    assert lay.capacity == 17 + 16
    assert lay.locate(0)[:3] == (0, 0, 3)
    assert lay.locate(17)[:3] == (3, 0, 0)      # cylinder 2 is unused
    assert lay.cylinders == 5 and lay.lba_at(2, 0, 0) is None


def test_remapped_defect_moves_one_sector():
    lay = _one_zone(spares=4, remaps=[[3, 78]])
    assert lay.locate(3)[:3] == (3, 1, 8)       # slot 78 = cylinder 3, surface 1, sector 8
    assert lay.lba_at(0, 0, 3) is None
    assert lay.lba_at(3, 1, 8) == 3
