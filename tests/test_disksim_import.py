"""Importing DiskSim 4.0 models (``import-disksim``) into simcore profiles.

The model files are our own: ``data/disksim/tiny.*`` describe a made-up
two-zone serpentine disk with spare sectors at zone end (sparing scheme 9)
and one slipped sector per zone, small enough that every LBA's place is
worked out by hand below. The formats follow ``shared/notes/disksim-formats.md``.
"""

from __future__ import annotations

import shutil
import tomllib
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from simcore import Layout, Mechanism, ProfileError, load_disk
from simcore.__main__ import main as cli_main
from simcore.disk.mechanics import spec_sheet_average
from simcore.disk.profile_loader import profile_from_dict
from simcore.disksim.importer import (
    hpl_times,
    import_disksim,
    lee_times,
    load_any,
    read_seek_file,
    sampled_table,
    write_profile,
)
from simcore.disksim.parse import Block, parse_text
from simcore.engine import run, start
from simcore.records import Request
from simcore.stack import stack
from simcore.workloads import OpenWorkload

DATA = Path(__file__).resolve().parent.parent / "data" / "disksim"


@pytest.fixture
def model_dir(tmp_path):
    """A private copy of the tiny model files, free to edit."""
    for f in DATA.glob("tiny.*"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def edit(path: Path, old: str, new: str) -> Path:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("imp") / "tiny.toml"
    write_profile(import_disksim(DATA / "tiny.parv"), out)
    return load_disk(out)


# -- the parser ---------------------------------------------------------------------
def test_parser_reads_blocks_lists_comments_instances_and_topology():
    doc = parse_text("""
        # a comment
        disksim_bus B { Read block transfer time = 0.02, Name with (parens) = x.y, }
        disksim_disk D {
           Scheduler = disksim_ioqueue { Scheduling policy = 3 },   # trailing comment
           Zones = [ z { a = 1 }, z { a = 2 } ],
           List = [ 1, -2.5e-1, word ]
           No comma before newline = 7
        }
        instantiate [ disk0 .. disk2, diskx ] as D
        topology disksim_iodriver drv [ disksim_bus b0 [ disksim_disk disk1 [] ] ]
    """)
    bus, disk = doc.blocks
    assert bus.get("Read block transfer time").value == 0.02
    assert bus.get("Name with (parens)").value == "x.y"
    sched = disk.get("Scheduler").value
    assert isinstance(sched, Block) and sched.get("Scheduling policy").value == 3
    zones = disk.get("Zones").value
    assert [z.get("a").value for z in zones] == [1, 2]
    assert list(disk.get("List").value) == [1, -0.25, "word"]
    assert disk.get("No comma before newline").value == 7
    assert doc.instances == {"disk0": "D", "disk1": "D", "disk2": "D", "diskx": "D"}
    assert [n.name for n in doc.topology[0].walk()] == ["drv", "b0", "disk1"]
    assert disk.get("List").line == 7


# -- layout: hand-computed LBA -> (cylinder, surface, sector) ---------------------------
# Zone 1: cylinders 0-2, 10 sectors per track, offset 2, track skew 3, cylinder skew 4,
# serpentine (odd cylinder offsets run surface 1 then 0), slot 5 slipped, 4 spares.
# The first LBA of zone track t sits at (2 + 3 * head switches + 4 * cylinder switches) % 10:
# t0 (0,0):2  t1 (0,1):5  t2 (1,1):9  t3 (1,0):2  t4 (2,0):6  t5 (2,1):9.
# LBA r < 5 is slot r, LBA r >= 5 is slot r + 1. 60 slots - 4 spares = 56 LBAs (0..55).
# Zone 2: cylinders 3-4, 8 sectors per track; offset 0.125 rev = 1 sector, track skew
# 0.25 rev = 2, cylinder skew 0.5 rev = 4; slot 9 slipped, 2 spares: 30 LBAs (56..85).
# Its tracks restart the serpentine at cylinder 3: t0 (3,0):1  t1 (3,1):3  t2 (4,1):7  t3 (4,0):1.
# Zone LBA r < 9 is slot r, r >= 9 is slot r + 1: track 1 holds LBAs 64..70, track 2 starts at 71.
HAND = [
    (0, (0, 0, 2)), (4, (0, 0, 6)), (5, (0, 0, 8)), (8, (0, 0, 1)), (9, (0, 1, 5)),
    (19, (1, 1, 9)), (20, (1, 1, 0)), (29, (1, 0, 2)), (39, (2, 0, 6)), (55, (2, 1, 5)),
    (56, (3, 0, 1)), (63, (3, 0, 0)), (64, (3, 1, 3)), (65, (3, 1, 5)), (70, (3, 1, 2)),
    (71, (4, 1, 7)), (72, (4, 1, 0)), (85, (4, 0, 7)),
]


@pytest.mark.parametrize("lba,where", HAND)
def test_tiny_layout_matches_hand_computation(tiny, lba, where):
    a = Layout(tiny).locate(lba)
    assert (a.cylinder, a.surface, a.sector) == where


def test_tiny_capacity_zones_spares_and_slips(tiny):
    layout = Layout(tiny)
    assert layout.capacity == 86  # the model's Block count
    assert layout.zone_lba_range(0) == (0, 56) and layout.zone_lba_range(1) == (56, 86)
    assert tiny.mapping == "serpentine" and tiny.surfaces == 2 and tiny.rpm == 6000
    # every LBA maps back to itself; the slipped and spare sectors hold none
    for lba in range(layout.capacity):
        a = layout.locate(lba)
        assert layout.lba_at(a.cylinder, a.surface, a.sector) == lba
    assert layout.lba_at(0, 0, 7) is None  # zone 1 slot 5: the slip
    assert [layout.lba_at(2, 1, s) for s in (6, 7, 8)] == [None] * 3  # zone 1's spare tail
    assert layout.lba_at(3, 1, 4) is None  # zone 2 slot 9: the slip
    assert layout.lba_at(4, 0, 0) is None  # zone 2 slot 31: its spare


def test_conventional_mapping_and_skews_in_sectors(model_dir):
    edit(model_dir / "tiny.model", "LBN-to-PBN mapping scheme = 1", "LBN-to-PBN mapping scheme = 0")
    prof = load_disk(_import(model_dir / "tiny.model", model_dir / "c.toml"))
    assert prof.mapping == "conventional"
    layout = Layout(prof)
    # track 2 is now cylinder 1 surface 0, first LBA at (2 + 3 + 4) % 10 = 9: LBA 19
    assert tuple(layout.locate(19)[:3]) == (1, 0, 9)
    # zone 2, track 2 (now cylinder 4 surface 0): (1 + 2 + 4) % 8 = 7; its first LBA is 71
    assert tuple(layout.locate(70)[:3]) == (3, 1, 2)
    assert tuple(layout.locate(71)[:3]) == (4, 0, 7)


def test_mapping_scheme_2_imports_only_where_it_equals_simcores_serpentine(model_dir):
    model = edit(model_dir / "tiny.model", "LBN-to-PBN mapping scheme = 1",
                 "LBN-to-PBN mapping scheme = 2")
    with pytest.raises(ProfileError) as err:
        import_disksim(model)
    assert err.value.field == "LBN-to-PBN mapping scheme"
    assert "line 23" in str(err.value) and "odd cylinder 3" in str(err.value)
    # zones starting on even cylinders: scheme 2 is the same map as simcore's serpentine
    edit(model, "Last cylinder number = 2", "Last cylinder number = 1")
    edit(model, "First cylinder number = 3", "First cylinder number = 2")
    edit(model, "Block count = 86", "Block count = 82")  # 2 x 2 x 10 - 4 + 3 x 2 x 8 - 2
    imp = import_disksim(model)
    assert imp.profile["geometry"]["mapping"] == "serpentine"
    assert any("scheme 2" in w for w in imp.warnings)


def test_skew_units_at_layout_level_and_fractions(model_dir):
    model = edit(model_dir / "tiny.model", "Sparing scheme used = 9,",
                 "Sparing scheme used = 9,\n      Skew units = revolutions,")
    edit(model, "Offset of first block = 2,", "Offset of first block = 0.2,")
    edit(model, "Skew for track switch = 3,", "Skew for track switch = 0.33,")
    edit(model, "Skew for cylinder switch = 4,", "Skew for cylinder switch = 0.4,\n"
         "            Skew units = sectors,")
    # zone 1 now says sectors again, so 0.2 and 0.33 and 0.4 sectors truncate to 0 (as DiskSim)
    imp = import_disksim(model)
    z = imp.profile["geometry"]["zones"][0]
    assert (z["first_offset"], z["track_skew"], z["cylinder_skew"]) == (0, 0, 0)
    [w] = [w for w in imp.warnings if "fraction is dropped" in w]
    assert w.startswith(f"{model}:32: 3 sector counts")
    assert "zone 1 Skew for track switch 0.33 -> 0" in w
    # without the zone override: 0.2, 0.33, 0.4 revolutions of 10 sectors = 2, 3.3 -> 3, 4
    edit(model, "Skew for cylinder switch = 0.4,\n            Skew units = sectors,",
         "Skew for cylinder switch = 0.4,")
    imp = import_disksim(model)
    z = imp.profile["geometry"]["zones"][0]
    assert (z["first_offset"], z["track_skew"], z["cylinder_skew"]) == (2, 3, 4)
    assert any("1 skews or offsets in revolutions" in w and "3.300 -> 3" in w
               for w in imp.warnings)


@pytest.mark.parametrize("scheme,spares,capacity", [
    (9, (4, 2), 86),     # spares at zone end; slips use them
    (10, (5, 3), 84),    # slips do not use the spares: 60-4-1 + 32-2-1
    (7, (1, 1), 90),     # spares at the end of the disk: each slip shortens its zone
    (1, (20, 16), 56),   # 2 and 2 spare tracks (of 10 and 8 sectors): 60-20 + 32-16; slipped
                         # tracks use them
])
def test_sparing_schemes_that_map(model_dir, scheme, spares, capacity):
    model = edit(model_dir / "tiny.model", "Sparing scheme used = 9",
                 f"Sparing scheme used = {scheme}")
    if scheme == 1:
        edit(model, "Number of spares = 4", "Number of spares = 2")
        edit(model, "slips = [ 5 ]", "slips = [ 1 ]")
        edit(model, "slips = [ 9 ]", "slips = [ 0 ]")
    imp = import_disksim(model)
    zones = imp.profile["geometry"]["zones"]
    assert (zones[0]["spares"], zones[1]["spares"]) == spares
    if scheme == 1:  # zone 1's track 1 (slots 10..19) and zone 2's track 0 are slipped
        assert zones[0]["slips"] == list(range(10, 20)) and zones[1]["slips"] == list(range(8))
    layout = Layout(load_disk(_write_toml(imp, model_dir / "s.toml")))
    assert layout.capacity == capacity


def test_empty_space_at_zone_front_holds_no_data(model_dir):
    model = edit(model_dir / "tiny.model", "Empty space at zone front = 0,\n"
                 "            Skew for track switch = 3",
                 "Empty space at zone front = 3,\n            Skew for track switch = 3")
    imp = import_disksim(model)
    z = imp.profile["geometry"]["zones"][0]
    assert z["slips"] == [5] and z["spares"] == 4 and z["empty_front"] == 3
    layout = Layout(load_disk(_write_toml(imp, model_dir / "d.toml")))
    assert layout.capacity == 83  # 60 - 3 - 4 + 30
    assert tuple(layout.locate(0)[:3]) == (0, 0, 5)  # slot 3: (2 + 3) % 10


def test_unsupported_sparing_scheme_is_refused_naming_it(model_dir):
    model = edit(model_dir / "tiny.model", "Sparing scheme used = 9", "Sparing scheme used = 5")
    with pytest.raises(ProfileError) as err:
        import_disksim(model)
    assert err.value.field == "Sparing scheme used"
    msg = str(err.value)
    assert "tiny.model" in msg and "line 24" in msg and "sparing scheme 5" in msg
    assert "front of each cylinder" in msg
    # the same scheme with no spares and no slips maps as no sparing
    for old, new in (("Number of spares = 4", "Number of spares = 0"),
                     ("Number of spares = 2", "Number of spares = 0"),
                     ("slips = [ 5 ]", "slips = [ ]"), ("slips = [ 9 ]", "slips = [ ]")):
        edit(model, old, new)
    imp = import_disksim(model)
    assert [z["spares"] for z in imp.profile["geometry"]["zones"]] == [0, 0]
    assert any("tiny.model:24: sparing scheme 5" in w and "imported as no sparing" in w
               for w in imp.warnings)


def test_spares_per_track_scheme_3(model_dir):
    """Scheme 3: each zone-1 track (10 slots) ends in 4 spares; slip 5 uses one of track 0's."""
    model = edit(model_dir / "tiny.model", "Sparing scheme used = 9", "Sparing scheme used = 3")
    imp = import_disksim(model)
    z = imp.profile["geometry"]["zones"][0]
    assert z["spare_group"] == 10 and z["spares"] == 4 and z["slips"] == [5]
    layout = Layout(load_disk(_write_toml(imp, model_dir / "d3.toml")))
    assert layout.zone_lba_range(0) == (0, 6 * 6)   # 6 tracks x 6 data sectors
    assert layout.locate(5)[2] == (2 + 6) % 10      # pushed past the slip at slot 5


def test_unknown_mapping_scheme_is_refused(model_dir):
    model = edit(model_dir / "tiny.model", "LBN-to-PBN mapping scheme = 1",
                 "LBN-to-PBN mapping scheme = 3")
    edit(model, "Number of data surfaces = 2", "Number of data surfaces = 1")
    with pytest.raises(ProfileError, match="line 23: 3 is not a mapping scheme") as err:
        import_disksim(model)
    assert err.value.field == "LBN-to-PBN mapping scheme"


def test_defects_are_remapped(model_dir):
    model = edit(model_dir / "tiny.model", "defects = [ ]\n         }\n      ]",
                 "defects = [ 3, 31 ]\n         }\n      ]")
    imp = import_disksim(model)
    z = imp.profile["geometry"]["zones"][-1]
    assert z["remaps"] == [[3, 31]]
    layout = Layout(load_disk(_write_toml(imp, model_dir / "dr.toml")))
    first = layout.zone_lba_range(len(imp.profile["geometry"]["zones"]) - 1)[0]
    assert layout.lba_at(*layout.locate(first + 3)[:3]) == first + 3


# -- mechanics ----------------------------------------------------------------------
def test_extracted_seek_table_round_trips(tiny):
    pairs = read_seek_file(DATA / "tiny.seek")
    assert pairs == [(1, 0.8), (2, 1.1), (3, 1.35), (4, 1.5)]
    assert list(tiny.seek.table) == pairs
    mech = Mechanism(tiny)
    assert [mech.seek.seek_ms(d) for d in range(5)] == [0.0, 0.8, 1.1, 1.35, 1.5]
    assert tiny.head_switch_ms == 0.3 and tiny.write_settle_ms == 0.1


def test_seek_file_extras(tmp_path):
    p = tmp_path / "x.seek"
    p.write_text("Seek distances measured: 4\n0, 0.0\n1, 1.0, 0.1, 1.2\n5, 2.0, 0.1, 2.3\n"
                 "9, 3.0, 0.1, 3.4\n")
    warnings: list[str] = []
    assert read_seek_file(p, warnings) == [(1, 1.0), (5, 2.0), (9, 3.0)]
    assert any("fourth column" in w for w in warnings)


@pytest.mark.parametrize("body,line,field", [
    ("Seek distances measured: 3\n1, 1.0\n2, 1.5\n", 3, "Seek distances measured"),
    ("1, 1.0\n2, soon\n", 2, "time_ms"),
    ("1, 1.0\nfar, 2.0\n", 2, "distance"),
    ("1, 1.0\n3, 2.0\n2, 2.5\n", 3, "distance"),
    ("1, 1.0\n2, -1\n", 2, "time_ms"),
    ("1, 1.0\n2\n", 2, "(line)"),
])
def test_malformed_seek_file(tmp_path, body, line, field):
    p = tmp_path / "bad.seek"
    p.write_text(body)
    with pytest.raises(ProfileError) as err:
        read_seek_file(p)
    assert err.value.field == field and f"line {line}:" in str(err.value)
    assert "bad.seek" in str(err.value)


def test_hpl_seek_is_sampled_exactly_enough(model_dir):
    # V1..V6: sqrt part below 100 cylinders, linear from there; V6 the 1-cylinder time
    hpl = [100, 0.5, 0.2, 2.0, 0.01, 0.7]
    t = hpl_times(hpl, 999)
    assert t[0] == 0.7 and t[8] == pytest.approx(0.5 + 0.2 * 3)  # d = 1 and d = 9
    assert t[199] == pytest.approx(2.0 + 0.01 * 200)
    table = sampled_table(t)
    assert len(table) < 100 and table[0] == (1, 0.7) and table[-1][0] == 999
    xs = np.arange(1, 1000)
    back = np.interp(xs, [d for d, _ in table], [v for _, v in table])
    assert np.max(np.abs(back - t)) <= 0.001
    ten = [0.6 + 0.1 * k for k in range(10)]
    assert list(hpl_times(hpl, 999, ten)[:10]) == ten
    # through the importer, on the tiny disk
    model = edit(model_dir / "tiny.model", "Seek type = extracted,\n"
                 "      Full seek curve = tiny.seek,",
                 "Seek type = hpl,\n"
                 "      HPL seek equation values = [ 3, 0.5, 0.2, 1.0, 0.1, -1 ],")
    prof = load_disk(_import(model, model_dir / "h.toml"))
    mech = Mechanism(prof)
    assert [mech.seek.seek_ms(d) for d in range(1, 5)] == pytest.approx(
        [0.7, 0.5 + 0.2 * 2 ** 0.5, 1.3, 1.4])


def test_curve_linear_and_constant_seeks(model_dir):
    cyl = 1001
    t = lee_times(1.0, 5.0, 12.0, cyl)
    assert t[0] == 1.0 and t[-1] == pytest.approx(12.0)
    assert spec_sheet_average(np.concatenate([[0.0], t])) == pytest.approx(5.0)
    three = edit(model_dir / "tiny.model", "Seek type = extracted,\n"
                 "      Full seek curve = tiny.seek,",
                 "Seek type = linear,\n      Single cylinder seek time = 0.8,\n"
                 "      Average seek time = 1.0,\n      Full strobe seek time = 1.6,")
    imp = import_disksim(three)
    assert imp.profile["mechanics"]["seek"]["table"] == [(1, 0.8), (2, 1.0), (4, 1.6)]
    assert "mechanics.seek.table (shape between the published times)" in imp.profile["assumed"]
    edit(three, "Seek type = linear", "Seek type = constant,\n      Constant seek time = 2.5")
    prof = load_disk(_import(three, model_dir / "k.toml"))
    assert [Mechanism(prof).seek.seek_ms(d) for d in range(5)] == [0.0, 2.5, 2.5, 2.5, 2.5]


# -- firmware and interface ---------------------------------------------------------------
def test_interface_rate_is_the_slowest_block_time_on_the_disks_path(tiny, tmp_path):
    # disk 0.01 ms, controller 0.005, host bus 0, disk bus 0.02 ms per 512-byte block:
    # 512 B / 0.02 ms = 25.6 MB/s
    assert tiny.interface_mb_s == pytest.approx(25.6)
    assert Mechanism(tiny).bus_sector_ms == pytest.approx(0.02)
    # the .diskspecs alone has no buses: the disk's own 0.01 ms, 51.2 MB/s
    alone = load_disk(_import(DATA / "tiny.diskspecs", tmp_path / "alone.toml"))
    assert alone.interface_mb_s == pytest.approx(51.2)


def test_overheads_cache_and_zero_latency(tiny):
    ov = tiny.overheads
    assert (ov.read_miss_ms, ov.read_hit_ms, ov.write_ms, ov.completion_ms) == (0.4, 0.1, 0.5, 0.05)
    c = tiny.cache
    assert (c.size_kib, c.segments, c.read_ahead, c.max_read_ahead_kib, c.write_back) == (
        64, 4, "track", 8, False)  # 4 segments x 32 blocks = 64 KiB; 16 blocks = 8 KiB
    assert tiny.zero_latency_reads and not tiny.zero_latency_writes


def test_zero_latency_models_say_that_disksim_never_applies_it(model_dir):
    """DiskSim 4.0's g1_access_block reads DM_OK (-3) as a failure, so its results on a model
    with 'Immediate buffer read' are an ordinary drive's: the imported profile says so, and a
    model without zero latency carries no such note."""
    from simcore.disksim.importer import ZERO_LATENCY_NOTE
    on = import_disksim(model_dir / "tiny.parv").profile
    assert on["firmware"]["zero_latency_reads"] and ZERO_LATENCY_NOTE in on["notes"]
    warned = [w for w in import_disksim(model_dir / "tiny.parv").warnings
              if "zero-latency" in w]
    assert len(warned) == 1 and "tiny.diskspecs:83: 'Immediate buffer read = 1'" in warned[0]
    edit(model_dir / "tiny.diskspecs", "Immediate buffer read = 1", "Immediate buffer read = 0")
    off = import_disksim(model_dir / "tiny.parv").profile
    assert not off["firmware"]["zero_latency_reads"] and ZERO_LATENCY_NOTE not in off["notes"]
    assert not any("zero-latency" in w for w in import_disksim(model_dir / "tiny.parv").warnings)
    assert "rv < 0" in ZERO_LATENCY_NOTE and "zero_latency_reads" in ZERO_LATENCY_NOTE


def test_read_any_free_models_say_that_disksim_never_applies_it(model_dir):
    """'Read any free blocks' reaches the same g1_access_block as zero latency: imported as
    meant, with the note and a warning naming the parameter's line."""
    from simcore.disksim.importer import READ_ANY_FREE_NOTE
    off = import_disksim(model_dir / "tiny.parv")
    assert "read_any_free" not in off.profile["firmware"]["cache"]
    assert READ_ANY_FREE_NOTE not in off.profile["notes"]
    edit(model_dir / "tiny.diskspecs", "Read any free blocks = 0", "Read any free blocks = 1")
    on = import_disksim(model_dir / "tiny.parv")
    assert on.profile["firmware"]["cache"]["read_any_free"] is True
    assert READ_ANY_FREE_NOTE in on.profile["notes"]
    warned = [w for w in on.warnings if "'Read any free blocks = 1'" in w]
    assert len(warned) == 1 and "tiny.diskspecs:" in warned[0]


def _slow_bus_segment_read_ahead(model_dir: Path) -> Path:
    """The tiny model with a 4 ms bus (its media gives a sector every 1 ms) and segment
    read-ahead of up to 32 sectors past the request (its segments hold 32): the segment hold
    bites. Returns the edited .parv."""
    parv = model_dir / "tiny.parv"
    parv.write_text(parv.read_text().replace("Read block transfer time = 0.02",
                                             "Read block transfer time = 4.0"))
    specs = edit(model_dir / "tiny.diskspecs", "Buffer continuous read = 1",
                 "Buffer continuous read = 3")
    edit(specs, "Maximum read-ahead (blks) = 16", "Maximum read-ahead (blks) = 32")
    return parv


def _held_behind_host(mech: Mechanism, s, read_lba: int, sent: np.ndarray, complete: float,
                      segment: int = 32) -> int:
    """DiskSim's hold, checked on the read-ahead stream ``s`` of a read from ``read_lba`` whose
    sectors went to the host at ``sent``, its completion sent at ``complete``: every sector at
    LBA b a segment or more past the read's first that starts before the completion starts
    only once the read's sector b - read_lba - segment has gone (past the read's end, once the
    completion is sent). Returns how many sectors it checked."""
    starts = s.done - mech.rev_ms / np.array([mech.layout.sectors_per_track(
        mech.layout.zone_of(s.lba + j)) for j in range(len(s.done))])
    checked = 0
    for j, begin in enumerate(starts):
        need = s.lba + j - read_lba - segment
        if need >= 0 and begin < complete:
            gone = sent[need] if need < len(sent) else complete
            assert begin >= gone - 1e-9, (s.lba + j, begin, gone)
            checked += 1
    return checked


def test_the_segment_hold_holds_read_ahead_behind_a_slow_bus(model_dir):
    """DiskSim holds a read's media a segment ahead of the host's transfer until the read's
    completion is sent, and so does simcore, read-ahead included. The tiny disk reads a
    sector every 1 ms; with a 4 ms bus, segment read-ahead of up to 32 sectors past the
    request and 32-sector segments, a 30-sector read's read-ahead runs into the hold: every
    read-ahead sector of LBA b >= 32 starts only once the host has taken sector b - 32 of
    the read, or the completion is sent, and it loses whole revolutions for it."""
    parv = _slow_bus_segment_read_ahead(model_dir)
    imp = import_disksim(parv)
    assert not any("a segment ahead" in w for w in imp.warnings)
    prof = load_any(parv)
    assert prof.cache.read_ahead == "segment" and prof.cache.read_ahead_over_requested
    mech = Mechanism(prof)
    built = start(stack(mech))
    drive = built.top
    drive.submit(Request(0, 0.0, "R", 0, 30))
    while not built.completed:  # up to the read's completion: its read-ahead still runs
        built.env.step()
    (rec,) = built.completed
    s = drive.cache.stream
    assert drive.cache.stats["read_ahead_held_revolutions"] >= 1
    assert s.lba == 30 and len(s.done) > 2
    bus = drive._bus_ms
    # DiskSim flags COMPLETION_SENT as the last transfer ends, before the completion overhead
    complete = rec.finish_ms - prof.overheads.completion_ms
    assert prof.overheads.completion_ms > 0  # (so that the two are told apart)
    sent = complete - (29 - np.arange(30)) * bus
    assert _held_behind_host(mech, s, 0, sent, complete) >= 2


def test_a_reads_own_sectors_wait_for_room_in_the_ring(model_dir):
    """The part of the hold simcore has: sector i + 32 of a read is read only once sector i
    has gone to the host, else it comes round a revolution later. With a 4 ms bus against
    a 1 ms sector the host falls behind by three sectors in four: a 40-sector read never
    fills its 32-sector segment; a 50-sector read does and loses whole revolutions."""
    parv = model_dir / "tiny.parv"
    parv.write_text(parv.read_text().replace("Read block transfer time = 0.02",
                                             "Read block transfer time = 4.0"))
    mech = Mechanism(load_any(parv))
    lost = {}
    for n in (40, 50):
        result = run(mech, OpenWorkload([Request(0, 0.0, "R", 0, n)], name="one"))
        lost[n] = result.meta["built"].top.cache.stats["lost_revolutions"]
    assert lost[40] == 0 and lost[50] >= 1


def test_time_scale_per_request_overhead_and_fast_writes(model_dir):
    specs = edit(model_dir / "tiny.diskspecs", "Time scale for overheads = 1.0",
                 "Time scale for overheads = 2.0")
    edit(specs, "Per-request overhead time = 0.0", "Per-request overhead time = 0.05")
    edit(specs, "Fast write level = 0", "Fast write level = 1")
    edit(specs, "Write completion overhead = 0.05", "Write completion overhead = 0.15")
    imp = import_disksim(model_dir / "tiny.parv")
    ov = imp.profile["firmware"]["overheads"]
    assert ov["read_miss_ms"] == pytest.approx(2 * (0.05 + 0.4))
    assert ov["write_ms"] == pytest.approx(2 * (0.05 + 0.3))  # write hit: fast writes on
    # read and write completions are kept apart (DiskSim's two overheads)
    assert ov["completion_ms"] == pytest.approx(2 * 0.05)
    assert ov["write_completion_ms"] == pytest.approx(2 * 0.15)
    assert imp.profile["firmware"]["cache"]["write_back"] is True


@pytest.mark.parametrize("level", [1, 2])
def test_fast_write_levels_1_and_2_are_write_back_with_the_destage_holding_the_head(
        model_dir, level):
    """DiskSim 4.0 reports a write done from the buffer at both levels
    (``disk_buffer_transfer_size``); a destage keeps the head from any other command
    (``disk_buffer_stopable_access``) and, without write prebuffering, a write that does not
    append waits for it. Level 1 differs only when other commands wait at the drive."""
    specs = edit(model_dir / "tiny.diskspecs", "Fast write level = 0",
                 f"Fast write level = {level}")
    imp = import_disksim(model_dir / "tiny.parv")
    cache = imp.profile["firmware"]["cache"]
    assert cache["write_back"] is True
    assert cache["write_prebuffering"] is False and cache["preempt_destage"] is False
    # tiny's "Max queue length = 4": level 1's limit on joining a destage is not modelled
    assert (level == 1) == any("fast write level 1 is imported as level 2" in w
                               and "tiny.diskspecs:53" in w for w in imp.warnings)
    edit(specs, "Max queue length = 4", "Max queue length = 1")
    one = import_disksim(model_dir / "tiny.parv")
    assert not any("fast write level" in w for w in one.warnings)
    assert (level == 1) == ("Fast write level 1" in one.profile["notes"])
    edit(specs, "Allow write prebuffering = 0", "Allow write prebuffering = 1")
    pre = import_disksim(model_dir / "tiny.parv").profile["firmware"]["cache"]
    assert "write_prebuffering" not in pre and pre["preempt_destage"] is False


def test_write_through_drives_keep_the_default_destage_rules(tiny):
    cache = import_disksim(DATA / "tiny.parv").profile["firmware"]["cache"]
    assert cache["write_back"] is False
    assert "write_prebuffering" not in cache and "preempt_destage" not in cache


def test_a_fast_write_level_above_2_is_refused_by_name(model_dir):
    edit(model_dir / "tiny.diskspecs", "Fast write level = 0", "Fast write level = 3")
    with pytest.raises(ProfileError, match="Fast write level"):
        import_disksim(model_dir / "tiny.parv")


def test_profile_records_source_assumed_and_warnings(tiny, tmp_path, model_dir):
    assert tiny.source == "imported from tiny.parv by simcore import-disksim"
    assert "initial.cylinder" in tiny.assumed
    imp = import_disksim(DATA / "tiny.parv")
    # read, and without effect on a write-through drive without write prebuffering
    assert not any("write segments" in w or "prebuffering" in w for w in imp.warnings)
    edit(model_dir / "tiny.diskspecs", "Preseeking level = 0,", "Preseeking level = 1,")
    warned = import_disksim(model_dir / "tiny.parv").warnings
    assert any("Preseeking level = 1" in w and "tiny.diskspecs:37" in w for w in warned)
    assert not any("Hold bus" in w for w in imp.warnings)  # modelled: the drive holds the bus
    assert tomllib.loads(imp.toml)["source"] == tiny.source
    bare = import_disksim(DATA / "tiny.model")
    assert {"firmware", "interface"} <= set(bare.profile["assumed"])
    assert "firmware" not in bare.profile


def test_unknown_parameters_are_warned_with_file_and_line(model_dir):
    model = edit(model_dir / "tiny.model", "Head switch time = 0.3,",
                 "Head switch time = 0.3,\n      Head swap time = 1,")
    imp = import_disksim(model)
    assert any(w.endswith("tiny.model:18: unknown parameter 'Head swap time' in "
                          "'dm_mech_g1'; ignored") for w in imp.warnings)


# -- malformed input: file, line and parameter named --------------------------------------
@pytest.mark.parametrize("fname,old,new,line,field,words", [
    ("tiny.model", "   }\n}\n", "   }\n", 54, "TINY2Z", "never closed"),
    ("tiny.model", "defects = [ ]\n         }\n      ]", "defects = [ ]\n      ]", 51,
     "dm_layout_g1_zone", "'}' closing"),
    ("tiny.model", "Blocks per track = 10", "Blocks per track = 1O", 30, "Blocks per track",
     "'1O' is not a whole number"),
    ("tiny.model", "Head switch time = 0.3", "Head switch time = 0.3ms", 17, "Head switch time",
     "not a number"),
    ("tiny.model", "      Head switch time = 0.3,\n", "", 12, "Head switch time", "required"),
    ("tiny.model", "Rotation speed (in rpms) = 6000", "Rotation speed (in rpm) = 6000", 12,
     "Rotation speed (in rpms)", "did you mean 'Rotation speed (in rpm)'"),
    ("tiny.diskspecs", "source tiny.model", "source gone.model", 6, "Model",
     "'gone.model' not found"),
    ("tiny.parv", "source tiny.diskspecs", "source gone.diskspecs", 55, "source",
     "'gone.diskspecs' not found"),
    ("tiny.model", "Full seek curve = tiny.seek", "Full seek curve = gone.seek", 15,
     "Full seek curve", "'gone.seek' not found"),
    ("tiny.model", "slips = [ 9 ],", "slips = [ 9 ,", 50, "slips", "']' missing"),
    ("tiny.model", "slips = [ 9 ]", "slips = [ 9, x ]", 49, "slips", "item 2 'x'"),
    ("tiny.model", "Blocks per track = 10,", "Blocks per track = 10 11,", 30,
     "Blocks per track", "expected ','"),
    ("tiny.model", "First cylinder number = 3", "First cylinder number = 2", 40,
     "First cylinder number", "overlap"),
    ("tiny.model", "Seek type = extracted", "Seek type = magnetic", 14, "Seek type",
     "'magnetic' is not a seek type"),
    ("tiny.model", "dm_disk TINY2Z {", "source tiny.model\ndm_disk TINY2Z {", 7, "source",
     "already being read"),
])
def test_malformed_models_name_file_line_and_field(model_dir, fname, old, new, line, field,
                                                   words):
    edit(model_dir / fname, old, new)
    with pytest.raises(ProfileError) as err:
        import_disksim(model_dir / "tiny.parv")
    msg = str(err.value)
    assert err.value.field == field, msg
    assert err.value.path.endswith(fname) and f"line {line}:" in msg, msg
    assert words in msg


def test_several_disks_need_a_choice(model_dir):
    specs = model_dir / "tiny.diskspecs"
    specs.write_text(specs.read_text() + specs.read_text().replace("disksim_disk TINY2Z",
                                                                   "disksim_disk OTHER"))
    with pytest.raises(ProfileError, match="several disks.*--disk"):
        import_disksim(specs)
    assert import_disksim(specs, disk="OTHER").profile["id"] == "other"
    # in a .parv the topology says which one is used
    assert import_disksim(model_dir / "tiny.parv").profile["id"] == "tiny2z"


# -- the command line ---------------------------------------------------------------------
def test_cli_writes_a_loadable_profile_and_refuses_to_overwrite(tmp_path, capsys):
    out = tmp_path / "tiny.toml"
    assert cli_main(["import-disksim", str(DATA / "tiny.parv"), "-o", str(out)]) == 0
    cap = capsys.readouterr()
    assert "wrote" in cap.out and "86 sectors" in cap.out
    assert "warning:" in cap.err and "tiny.diskspecs:8" in cap.err
    assert load_disk(out).id == "tiny2z"
    out.write_text("mine")
    assert cli_main(["import-disksim", str(DATA / "tiny.parv"), "-o", str(out)]) == 2
    assert "exists" in capsys.readouterr().err and out.read_text() == "mine"
    assert cli_main(["import-disksim", str(DATA / "tiny.parv"), "-o", str(out), "--force"]) == 0
    assert load_disk(out).id == "tiny2z"


def test_cli_reports_a_bad_model_in_one_line(model_dir, capsys):
    edit(model_dir / "tiny.model", "Sparing scheme used = 9", "Sparing scheme used = 5")
    out = model_dir / "x.toml"
    assert cli_main(["import-disksim", str(model_dir / "tiny.parv"), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "line 24" in err[0] and "sparing scheme 5" in err[0]
    assert not out.exists()


def _write_toml(imp, out: Path) -> Path:
    write_profile(imp, out)
    return out


def _import(src: Path, out: Path) -> Path:
    return _write_toml(import_disksim(src), out)


@pytest.mark.parametrize("contread, max_ra, keep, over", [
    (1, 16, 0, True),   # a maximum read-ahead: that many blocks past the request, keep or not
    (1, 16, 1, True),
    (3, 0, 1, False),   # no maximum, keep the request: stop where the segment is full
    (3, 0, 0, True),    # no maximum, do not keep: a whole segment past the request
    (4, 0, 1, True),    # one track ahead: the track's end decides, not the knob
    (0, 16, 1, False),  # no read-ahead at all
])
def test_read_ahead_over_requested_follows_disksims_read_ahead_end(model_dir, contread, max_ra,
                                                                   keep, over):
    """DiskSim keeps a read's own blocks in the segment only when the read-ahead is neither
    capped by ``Maximum read-ahead`` nor one track ahead (scheme 4) and ``Read-ahead over
    requested`` is 1 (``disk_buffer_get_max_readahead``); else the read-ahead runs its
    length past the request and the ring may push the request out."""
    specs = edit(model_dir / "tiny.diskspecs", "Buffer continuous read = 1",
                 f"Buffer continuous read = {contread}")
    edit(specs, "Maximum read-ahead (blks) = 16", f"Maximum read-ahead (blks) = {max_ra}")
    edit(specs, "Read-ahead over requested = 0", f"Read-ahead over requested = {keep}")
    cache = import_disksim(model_dir / "tiny.parv").profile["firmware"]["cache"]
    assert cache.get("read_ahead_over_requested", False) is over


def test_read_ahead_over_requested_minus_one_is_warned(model_dir):
    edit(model_dir / "tiny.diskspecs", "Read-ahead over requested = 0",
         "Read-ahead over requested = -1")
    imp = import_disksim(model_dir / "tiny.parv")
    assert any("Read-ahead over requested = -1" in w and "imported as 0" in w
               for w in imp.warnings)
    assert imp.profile["firmware"]["cache"]["read_ahead_over_requested"] is True


def test_bus_holding_knobs_become_the_drive_s_write_rule(model_dir):
    """'Hold bus entire write xfer' (or 'Never disconnect') keeps the bus through a write
    larger than its segment; without them the drive reconnects at the 'Low (write) water
    mark'. A read that does not hold the bus differs from the streamed read simcore models
    only when its water mark exceeds a sector or the reconnection costs time: then it is
    reported."""
    specs = model_dir / "tiny.diskspecs"
    text = specs.read_text()
    assert "hold_bus_writes" not in import_disksim(model_dir / "tiny.parv").profile["interface"]
    specs.write_text(text.replace("Hold bus entire write xfer = 1", "Hold bus entire write xfer = 0")
                     .replace("Low (write) water mark = 0.0", "Low (write) water mark = 0.25"))
    imp = import_disksim(model_dir / "tiny.parv")
    assert imp.profile["interface"]["hold_bus_writes"] is False
    assert imp.profile["interface"]["write_watermark"] == 0.25
    assert not any("bus outruns" in w for w in imp.warnings)
    specs.write_text(text.replace("Hold bus entire read xfer = 1", "Hold bus entire read xfer = 0")
                     .replace("High (read) water mark = 0.0", "High (read) water mark = 0.5"))
    imp = import_disksim(model_dir / "tiny.parv")
    assert any("bus outruns" in w and "tiny.diskspecs:29" in w for w in imp.warnings)
    specs.write_text(text.replace("Hold bus entire read xfer = 1", "Hold bus entire read xfer = 0"))
    assert not any("bus outruns" in w for w in import_disksim(model_dir / "tiny.parv").warnings)


MODELS = Path(__file__).resolve().parent.parent / "data" / "validation" / "models"


@pytest.mark.parametrize("model, sectors, segments, ra, max_ra, free", [
    ("ibm18es", 7 * 511, 7, "segment", 511, True),      # 3577 blocks: 1788.5 KiB
    ("atlas10k", 10 * 374, 10, "track-ahead", 354, True),
    ("barracuda", 3 * 281, 3, "segment", 281, False),   # 843 blocks
    ("cheetah9LP", 3 * 561, 3, "track-ahead", 561, False),
    ("hp_c2247a", 2 * 256, 2, "segment", 128, False),
])
def test_read_side_knobs_import_as_disksim_has_them(model, sectors, segments, ra, max_ra, free):
    """Sizes in blocks, exact (``size_sectors``, ``max_read_ahead_sectors``); scheme 4 as
    ``track-ahead``; "Read any free blocks" = 1 as ``read_any_free``, warned only as a knob
    DiskSim 4.0 itself never applies; none of the others warned."""
    imp = import_disksim(MODELS / f"{model}.parv")
    c = imp.profile["firmware"]["cache"]
    assert (c["size_sectors"], c["segments"], c["read_ahead"], c["max_read_ahead_sectors"]) == (
        sectors, segments, ra, max_ra)
    assert c.get("read_any_free", False) is free
    assert "size_kib" not in c and "max_read_ahead_kib" not in c
    assert not [w for w in imp.warnings if "rounded" in w or "scheme 4" in w
                or "Read directly to buffer" in w]
    free_warnings = [w for w in imp.warnings if "Read any free" in w]
    assert len(free_warnings) == free and all("never applies" in w for w in free_warnings)


def test_read_directly_to_buffer_zero_is_warned(model_dir):
    """= 1 (all ten validated models) is what simcore does (the media never waits for the
    host's transfer); the tiny model's 0 is not modelled, and said so."""
    imp = import_disksim(model_dir / "tiny.parv")
    assert any("Read directly to buffer = 0" in w for w in imp.warnings)
    edit(model_dir / "tiny.diskspecs", "Read directly to buffer = 0",
         "Read directly to buffer = 1")
    assert not any("Read directly" in w for w in import_disksim(model_dir / "tiny.parv").warnings)


_FIVE = ("Use separate write segment", "Combine seq writes", "Write hit stop prefetch",
         "Disconnect write if seek", "Preseeking level")


@pytest.mark.parametrize("model, separate", [
    ("atlas10k", False), ("atlas_III", False), ("barracuda", False), ("cheetah4LP", False),
    ("cheetah9LP", False), ("dec_rz26", True), ("hp_c2247a", True), ("hp_c2490a", False),
    ("hp_c3323a", True), ("ibm18es", True)])
def test_write_segment_and_nil_effect_knobs_of_the_ten_models(model, separate):
    """"Use separate write segment" = 1 in four of the ten models becomes the profile's
    ``separate_write_segment``; the values all ten use for "Combine seq writes" (1), "Write
    hit stop prefetch" (1), "Disconnect write if seek" (0) and "Preseeking level" (0) are
    what simcore does, so none of the five is reported."""
    imp = import_disksim(MODELS / f"{model}.parv")
    assert imp.profile["firmware"]["cache"].get("separate_write_segment", False) is separate
    assert not [w for w in imp.warnings if any(k in w for k in _FIVE)]


def test_write_segment_knobs_in_the_tiny_model(model_dir):
    """Values simcore does not model are reported with file and line; a separate write
    segment with one buffer segment is refused, as DiskSim refuses it."""
    warned = import_disksim(model_dir / "tiny.parv").warnings
    assert any("Combine seq writes = 0" in w and "tiny.diskspecs:54" in w for w in warned)
    assert not any("Write hit stop" in w or "Disconnect write" in w for w in warned)
    specs = edit(model_dir / "tiny.diskspecs", "Combine seq writes = 0",
                 "Combine seq writes = 1")
    edit(specs, "Disconnect write if seek = 0", "Disconnect write if seek = 1")
    edit(specs, "Write hit stop prefetch = 0", "Write hit stop prefetch = 1")
    edit(specs, "Use separate write segment = 0", "Use separate write segment = 1")
    imp = import_disksim(model_dir / "tiny.parv")
    assert not any("Combine seq" in w or "Write hit stop" in w for w in imp.warnings)
    assert any("Disconnect write if seek = 1" in w and "tiny.diskspecs:56" in w
               for w in imp.warnings)
    assert imp.profile["firmware"]["cache"]["separate_write_segment"] is True
    edit(specs, "Number of buffer segments = 4", "Number of buffer segments = 1")
    with pytest.raises(ProfileError, match="more than one buffer segment") as err:
        import_disksim(model_dir / "tiny.parv")
    assert err.value.field == "Use separate write segment"


def test_stop_prefetch_in_sector_imports_both_values(model_dir):
    """DiskSim's "Stop prefetch in sector" is modelled (CacheConfig.stop_in_sector): the tiny
    model's 0 becomes ``stop_in_sector = false``, 1 is simcore's default and left out, and
    neither is reported; DiskSim's range is 0..1, so 2 is refused naming file, line and
    field. Every model with a read-ahead adds the stop's wait to the command overhead."""
    imp = import_disksim(model_dir / "tiny.parv")
    c = imp.profile["firmware"]["cache"]
    assert c["stop_in_sector"] is False and c["stop_adds_to_overhead"] is True
    assert not any("Stop prefetch" in w for w in imp.warnings)
    edit(model_dir / "tiny.diskspecs", "Stop prefetch in sector = 0",
         "Stop prefetch in sector = 1")
    imp = import_disksim(model_dir / "tiny.parv")
    assert "stop_in_sector" not in imp.profile["firmware"]["cache"]
    assert not any("Stop prefetch" in w for w in imp.warnings)
    edit(model_dir / "tiny.diskspecs", "Stop prefetch in sector = 1",
         "Stop prefetch in sector = 2")
    with pytest.raises(ProfileError) as err:
        import_disksim(model_dir / "tiny.parv")
    assert err.value.field == "Stop prefetch in sector" and "line 55:" in str(err.value)
    assert "must be 0 or 1" in str(err.value)


@pytest.mark.parametrize("model,in_sector", [("ibm18es", False), ("hp_c2247a", True),
                                             ("dec_rz26", True), ("atlas10k", False)])
def test_stop_prefetch_in_sector_of_the_validated_models(model, in_sector):
    imp = import_disksim(MODELS / f"{model}.parv")
    prof = profile_from_dict(tomllib.loads(imp.toml), model)
    assert prof.cache.stop_in_sector is in_sector and prof.cache.stop_adds_to_overhead
    assert not prof.cache.stop_read_ahead_unless_hit  # DiskSim's hit test: not imported yet
    assert not any("Stop prefetch" in w for w in imp.warnings)



def test_the_ring_takes_each_sectors_own_track_time():
    """A sector begins to pass one sector time of its own track before it is in: on the tiny
    disk's inner zone a read's ninth sector lies on a track whose sectors pass every 1.5 ms
    (8 slots with a slip, spread over its run), not the outer zone's 1 ms. With segments of 8
    sectors it may be read once sector 0 has gone: gone 1 ms before it is in, sector 0 went
    after it began to pass (0.5 ms late), so it comes round a revolution (10 ms) later; the
    outer zone's sector time would have let it through."""
    from dataclasses import replace as _replace

    from simcore import HeadState
    from simcore.drive.cache import CacheConfig

    mech = Mechanism(_replace(load_any(DATA / "tiny.parv"), zero_latency_reads=False))
    drive = start(stack(mech, cache=CacheConfig(size_kib=4, segments=1))).top
    assert drive.cache.cap == 8
    plan = mech.plan(60, 9, False, 0.0, HeadState(3, 0))
    assert mech.layout.zone_of(60) == 1 and plan.sector_ms_each()[8] == pytest.approx(1.5)
    ready = plan.done_ms.copy()
    drained = np.full(9, 0.0)
    drained[0] = ready[8] - 1.0
    outer = ready.copy()
    assert not drive._ring_stall(outer, drained, 1)  # (no plan: the outer zone's 1 ms)
    before = ready[8]
    assert drive._ring_stall(ready, drained, 1, plan)
    assert ready[8] == pytest.approx(before + mech.rev_ms)
    assert drive.cache.stats["lost_revolutions"] == 1


def test_a_hit_on_running_read_ahead_holds_what_it_adds(model_dir):
    """On the tiny disk with a 4 ms bus and 32-sector segments, a 20-sector read misses and
    reads ahead a segment past itself (LBAs 20..51, held behind the host's transfer). The
    next read, of LBAs 20..29, hits that read-ahead while it runs and extends it a segment
    past its own end (to LBA 61); until its completion is sent it holds the sectors it added
    as the first read held its own: LBA b starts only once the second read's sector b - 52
    has gone, or the completion is sent, and some of them lose revolutions for it."""
    parv = _slow_bus_segment_read_ahead(model_dir)
    mech = Mechanism(load_any(parv))
    built = start(stack(mech))
    drive = built.top
    cache = drive.cache
    told, found_as = [], []
    read_done, find = cache.read_done, cache.find

    def spy_done(*args):  # what the drive tells the cache about each read's transfer
        told.append(args)
        return read_done(*args)

    def spy_find(*args):  # how each read is found, and the read-ahead then
        found = find(*args)
        s = cache.stream
        found_as.append((found[0], s.stop_lba if s is not None else None,
                         cache.stats["read_ahead_held_revolutions"]))
        return found

    cache.read_done, cache.find = spy_done, spy_find
    drive.submit(Request(0, 0.0, "R", 0, 20))
    drive.submit(Request(1, 0.0, "R", 20, 10))
    while len(built.completed) < 2:
        built.env.step()
    (first, _, _), (second, ahead_to, held_before) = found_as
    assert first == "miss" and second == "hit" and ahead_to == 52
    s = cache.stream
    assert s.lba == 20 and s.stop_lba == 62  # extended a segment past the second read
    assert cache.stats["read_ahead_held_revolutions"] > held_before
    _, _, _, lba, start_ms, bus, complete, _ = told[-1]
    assert lba == 20
    sent = start_ms + (np.arange(10) + 1) * bus  # one burst: a sector every bus_ms
    assert _held_behind_host(mech, s, 20, sent, complete) >= 2


def test_a_read_longer_than_its_segment_holds_its_read_ahead_too(model_dir):
    """A 50-sector read on the tiny disk with 32-sector segments and a 4 ms bus goes through
    the ring (its own sectors past the 32nd wait for room, DiskSim's rule for a read's own
    blocks), then holds the read-ahead after it by the same rule: every read-ahead sector at
    LBA b starts only once the read's sector b - 32 has gone to the host (when the drive
    says it went), or the completion is sent."""
    parv = _slow_bus_segment_read_ahead(model_dir)
    mech = Mechanism(load_any(parv))
    built = start(stack(mech))
    drive = built.top
    told = []
    read_done = drive.cache.read_done

    def spy(*args):  # what the drive tells the cache about the read's transfer
        told.append(args)
        return read_done(*args)

    drive.cache.read_done = spy
    drive.submit(Request(0, 0.0, "R", 0, 50))
    while not built.completed:
        built.env.step()
    assert drive.cache.stats["lost_revolutions"] >= 1  # the ring
    (args,) = told
    sent, complete = np.asarray(args[4]), args[6]
    assert len(sent) == 50 and complete == pytest.approx(float(sent[-1]))
    s = drive.cache.stream
    assert s is not None and s.lba == 50
    assert drive.cache.stats["read_ahead_held_revolutions"] >= 1  # the hold after it
    assert _held_behind_host(mech, s, 0, sent, complete) >= 1


@pytest.mark.parametrize("policy, warned", [(1, None), (4, "run with --scheduler sstf"),
                                            (8, "pick the closest simcore scheduler")])
def test_the_drives_queue_scheduler_is_warned_about_only_when_it_is_not_fcfs(
        model_dir, policy, warned):
    """All ten validated models schedule the drive's queue FCFS, which is what simcore's
    drive does unless the caller picks a scheduler: a note, no warning. Any other policy is
    warned about with the file and line and the closest simcore scheduler, if any."""
    specs = model_dir / "tiny.diskspecs"
    if policy != 1:
        edit(specs, "Scheduling policy = 1,", f"Scheduling policy = {policy},")
    imp = import_disksim(model_dir / "tiny.parv")
    about = [w for w in imp.warnings if "queue scheduler" in w]
    if warned is None:
        assert not about
        assert "FCFS, as simcore's drive does by default" in imp.profile["notes"]
    else:
        (w,) = about
        assert "tiny.diskspecs:8" in w and warned in w


def test_unused_cylinders_between_zones_are_one_warning_naming_the_first():
    """The Ultrastar 18ES's model leaves one cylinder unused before 44 of its zones. Each gap
    is kept (the arm crosses it, as in DiskSim), and the import says so once, at the first
    gap's line, with how many there are, rather than in 44 lines."""
    imp = import_disksim(MODELS / "ibm18es.parv")
    (w,) = [w for w in imp.warnings if "unused cylinders" in w]
    assert w.startswith(f"{MODELS / 'ibm18es.model'}:27: 44 zones start after unused")
    assert "zone 2 at cylinder 258, unused 257" in w and "..." in w
    zones = imp.profile["geometry"]["zones"]
    gaps = sum(b["first_cylinder"] - a["last_cylinder"] - 1 for a, b in pairwise(zones))
    assert gaps == 44
