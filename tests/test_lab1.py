"""Lab 1 ("where does the time go?") and its data: format, hand-computed answers, variants.

Sources: Gray 2000 Table 4 as corrected in notes 000 §2.4 (mean rotational latency
30000/RPM ms: 5.556 ms at 5,400 RPM); Schindler et al. 2002 Table 1 for the HP C2247
(5,400 RPM, 96 to 56 sectors per track, average seek 10 ms) through data/disks/hpc2247.toml.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

import simcore
import simcore.labkit
from simcore.labkit import variant_seed
from simcore.labkit.labformat import inspect_lab, nbval_markers, tags
from simcore.labkit.measure import (
    ZoneBandwidth,
    load_recording,
    parse_hdparm_t,
    points_from_json,
    recording_path,
    simulate,
)
from simcore.labkit.variants import answer_sheet, run_key

LAB1 = Path(__file__).resolve().parent.parent / "instructors" / "labs" / "lab1_time.ipynb"
SECRET = b"lab1-test-secret-" + b"2" * 32


@pytest.fixture(scope="module")
def key():
    return nbformat.read(str(LAB1), as_version=4)


def lab1_variant(key, module=simcore):
    """The lab's own variant function, taken from its setup cell."""
    ns = {"simcore": module, "SEED": 0, "STUDENT_ID": "x", "print": lambda *a, **k: None}
    exec(compile(next(c.source for c in key.cells if c.id == "setup"), "setup", "exec"), ns)
    return ns["lab1_variant"]


def test_lab1_follows_the_format_and_its_stored_checks_all_tick(key):
    info = inspect_lab(key, LAB1)  # raises, naming the cell, if anything is off
    assert info.lab == "lab1"
    assert len([q for q, p in info.max_points().items() if p > 0]) >= 5
    assert all("rel" in c.rule or c.judge for c in info.checks if c.question != "q5")  # rules
    params = key.cells[info.parameters_index].source
    assert 'STUDENT_ID = "demo"' in params
    assert 'SEED = simcore.labkit.variant_seed(STUDENT_ID, "lab1")' in params


def test_lab1_marks_plots_and_hardware_for_nbval(key):
    code = [c for c in key.cells if c.cell_type == "code"]
    for i, cell in enumerate(code):
        if "go.Figure(" in cell.source:
            assert cell.source.startswith("# NBVAL_IGNORE_OUTPUT"), cell.id
        if "hardware" in tags(cell):
            assert cell.source.startswith("# NBVAL_SKIP")
            if cell.id == "mystery-zones-run":  # optional, ungraded; nothing later reads it
                assert "ZONES = False" in cell.source
                continue
            fallback = code[i + 1]
            # your own disk falls back to a recording; the mystery disk to the measurement the
            # saved notebook carries (the grader puts it back), else none
            assert ("recorded_or_simulated" in fallback.source
                    or 'emulated.measured("lab1-mystery")' in fallback.source)
            assert not nbval_markers(fallback.source)  # the fallback always runs
    assert sum("hardware" in tags(c) for c in code) == 3


def test_lab1_answers_for_the_demo_variant_by_hand(key):
    seed = variant_seed("demo", "lab1")  # the public demo variant
    sheet = run_key(key, "demo", seed, LAB1)
    v = lab1_variant(key)(seed)
    # The demo variant draws the HP C2247: 5,400 RPM, 96 sectors per track outermost, 56 inner.
    assert v.prof.id == "hpc2247"
    prof = simcore.load_disk("hpc2247")
    mech = simcore.Mechanism(prof)
    assert prof.rpm == 5400
    rev = 60000 / 5400
    # q1: each of the variant's reads waits half a revolution on average, 5.556 ms (not 5.7)
    assert sheet["q1"] == pytest.approx(v.q1_reads * 30000 / 5400, rel=1e-9)
    assert sheet["q1"] == pytest.approx(v.q1_reads * 5.556, rel=1e-4)
    # q6: the variant's file at 96 and at 56 sectors per revolution (MB/s is 10^3 bytes per ms)
    outer, inner = 96 * 512 / rev / 1e3, 56 * 512 / rev / 1e3
    assert outer == pytest.approx(4.424, abs=1e-3) and inner == pytest.approx(2.580, abs=1e-3)
    assert sheet["q6"] == pytest.approx(v.q6_mib * 2**20 / 1e3 * (1 / inner - 1 / outer),
                                        rel=1e-9)
    # q7: transfer = positioning * p / (100 - p), in the variant's zone
    spt = mech.layout.sectors_per_track(v.q7_zone)
    assert 56 <= spt <= 96
    # the extracted drive's measured seeks average 11.5 ms (the datasheet says 10)
    assert mech.seek.average_ms() == pytest.approx(11.5, rel=0.01)
    share = v.q7_pct / (100 - v.q7_pct)
    q7_by_hand = (mech.seek.average_ms() + rev / 2) * share / rev * spt * 512 / 1024
    assert sheet["q7"] == pytest.approx(q7_by_hand, rel=1e-9)
    assert sheet["q7"] == pytest.approx((11.5 + 5.556) * share / 11.111 * spt / 2, rel=0.01)
    q4 = sheet["q4"]
    assert set(q4) == {"seek", "rotation", "transfer", "interface"}
    assert sheet["q5"] == max(q4, key=q4.get)
    # each track the read touches (at most 56 sectors inside) waits less than a revolution
    assert 0 <= q4["rotation"] < rev * (2 * v.q4_kib / 56 + 2)
    # and its transfer is every piece's sectors passing under the head, track by track
    assert q4["transfer"] == pytest.approx(sum(
        p.span * rev / p.sectors_per_track for p in mech.layout.pieces(v.q4_lba, 2 * v.q4_kib)),
        rel=1e-9)


def test_lab1_q8_sequential_read_lies_between_analytic_bounds(key):
    """4 MiB read sequentially: below the zone's media rate (an upper bound), above a bound that
    charges a full-stroke seek, a whole revolution, and one more revolution per track touched."""
    for sid in ("demo", "alice", "bob"):
        seed = variant_seed(sid, "lab1", None if sid == "demo" else SECRET)
        sheet = run_key(key, sid, seed, LAB1)
        v = lab1_variant(key)(seed)
        lay, prof = v.mech.layout, v.prof
        zone = lay.locate(v.q8_lba).zone
        spt = min(lay.sectors_per_track(z) for z in range(zone, lay.zone_count))
        tracks = 8192 / spt + 2
        worst_ms = prof.seek.full_ms + prof.revolution_ms * (1 + 2 * tracks)
        assert 4 * 2**20 / worst_ms / 1e3 < sheet["q8"] <= lay.media_rate_mb_s(zone) * (1 + 1e-9)


def test_lab1_mystery_disk_is_the_variants_own(key):
    """q9's drive is drawn from the variant's seed (a public parameter, one-way from it): the
    key's stored measurement of the demo variant's disk lies within 7 % of its true rate."""
    from simcore.labkit import attach, judges
    from simcore.labkit.variants import mystery_token
    from simcore.serve import mystery

    v = lab1_variant(key)(variant_seed("demo", "lab1"))
    assert v.mystery == mystery_token(variant_seed("demo", "lab1"))
    assert v.mystery != mystery_token(variant_seed("alice", "lab1", SECRET))
    saved = {a["kind"]: a for a in attach.from_notebook(key)}
    run = judges.read_fio(saved["lab1-mystery"]["raw"])
    truth = mystery.zone_stream_mb_s(mystery.mystery_profile_for_token(v.mystery), 0)
    assert run.read_mb_s == pytest.approx(truth, rel=0.07)


def test_lab1_q2_is_sectors_over_sectors_per_track_of_a_revolution(key):
    sheet = answer_sheet(key, "alice", LAB1, secret=SECRET)
    v = lab1_variant(key)(variant_seed("alice", "lab1", SECRET))
    spt = v.mech.layout.sectors_per_track(v.q2_zone)
    assert v.q2_sectors <= spt
    assert sheet["q2"] == pytest.approx(v.q2_sectors / spt * v.prof.revolution_ms, rel=1e-9)


def test_variants_spread_over_the_disks(key):
    # Only the disk choice matters here: a stand-in Mechanism skips fitting the seek curves.
    variant = lab1_variant(key, _light(_layout_only))
    disks = {variant(variant_seed(f"student{i:02d}", "lab1")).prof.id for i in range(30)}
    assert len(disks) >= 5


def _light(mechanism):
    """simcore with its Mechanism replaced (the lab's variant function builds one per seed)."""
    return SimpleNamespace(load_disk=simcore.load_disk, labkit=simcore.labkit,
                           Mechanism=mechanism)


def _layout_only(prof):
    """A stand-in Mechanism that skips fitting the seek curves (the setup cell prints three
    points of it)."""
    return SimpleNamespace(layout=simcore.Layout(prof),
                           seek=SimpleNamespace(three_points=lambda: (0.0, 0.0, 0.0)))


def test_every_graded_value_depends_on_more_than_the_disk(key):
    """Review G6: a classmate who drew the same disk must earn nothing from copying. For pairs of
    ids that share a disk, no graded answer of one passes the grader's rule under the other's
    variant (q5 names one of four components, so it can only vary: see the next test; q9's
    measurement must name the variant's own mystery disk)."""
    from simcore.labkit import answers
    from simcore.labkit.labformat import inspect_lab

    layout_only = lab1_variant(key, _light(_layout_only))
    by_disk: dict[str, list[str]] = {}
    for i in range(40):
        sid = f"pair{i:02d}"
        by_disk.setdefault(layout_only(variant_seed(sid, "lab1", SECRET)).prof.id, []).append(sid)
    groups = [ids[:2] for _, ids in sorted(by_disk.items()) if len(ids) >= 2][:4]
    assert len(groups) == 4
    info = inspect_lab(key, LAB1)
    rules = {c.question: answers.Rule.from_meta(c.rule) for c in info.checks if not c.judge}
    graded = [q for q, pts in info.max_points().items() if pts > 0]
    assert set(graded) - set(rules) == {"q9"}
    for a, b in groups:
        sa, sb = (answer_sheet(key, sid, LAB1, secret=SECRET) for sid in (a, b))
        for q in graded:
            if q == "q9":
                va, vb = (layout_only(variant_seed(sid, "lab1", SECRET)) for sid in (a, b))
                assert va.mystery != vb.mystery
            elif q != "q5":
                assert not answers.compare(sa[q], sb[q], rules[q])[0], (q, a, b, sa[q], sb[q])


def test_q5_is_seek_rotation_or_transfer_about_as_often(key):
    """The request of q4 is drawn so that which component takes longest differs between
    variants: each of seek, rotation and transfer wins for at least a fifth of them."""
    import collections
    import functools

    variant = lab1_variant(key, _light(functools.lru_cache(maxsize=None)(simcore.Mechanism)))
    wins: collections.Counter = collections.Counter()
    for i in range(90):
        v = variant(variant_seed(f"q5-{i:02d}", "lab1", SECRET))
        parts = dict(zip(("seek", "rotation", "transfer", "interface"),
                         v.mech.access(v.q4_lba, 2 * v.q4_kib, False, v.q4_start,
                                       simcore.HeadState(v.q4_cyl, 0))[:4], strict=True))
        wins[max(parts, key=parts.get)] += 1
    assert all(wins[k] >= 18 for k in ("seek", "rotation", "transfer")), wins


# -- the data behind the hardware part ---------------------------------------------------------


def test_simulated_sweep_follows_the_zone_table_and_says_what_it_is():
    mech = simcore.Mechanism(simcore.load_disk("atlas10k"))
    sim = simulate(mech)
    last = mech.layout.zone_count - 1
    media = mech.layout.media_rate_mb_s(0) / mech.layout.media_rate_mb_s(last)
    assert sim.kind == "simulated" and "SIMULATED" in sim.describe()
    assert sim.ratio == pytest.approx(media, rel=0.01)  # 334/229 sectors per track
    assert sim.start_mb_s < mech.layout.media_rate_mb_s(0)  # switches cost time


def test_recordings_are_read_in_several_shapes(tmp_path):
    fio_like = {"target": "/dev/loop7", "jobs": [
        {"jobname": "z0", "job options": {"offset": "0%"}, "read": {"bw_bytes": 200e6}},
        {"jobname": "z95", "job options": {"offset": "95%"}, "read": {"bw_bytes": 100e6}}]}
    assert points_from_json(fio_like) == [(0.0, 200.0), (0.95, 100.0)]
    points = {"points": [{"offset_pct": 50, "mb_s": 150}, {"offset_pct": 0, "mb_s": 180},
                         {"offset_pct": 95, "mb_s": 90}]}
    assert points_from_json(points) == [(0.0, 180.0), (0.5, 150.0), (0.95, 90.0)]
    p = tmp_path / "zone-bandwidth.loop.json"
    p.write_text(json.dumps(fio_like))
    rec = load_recording(p)
    assert rec.kind == "recorded" and rec.ratio == pytest.approx(2.0)
    assert "RECORDED" in rec.describe() and "no zones" in rec.note
    record = {"schema": "disklab-measurement/1", "label": "/dev/loop0: a loop device over a file",
              "target": {"path": "/dev/loop0", "size_bytes": 2**30},
              "device": {"kind": "loop-on-virtual-disk"},
              "raw": {"runs": [{"fio": {"jobs": [{"job options": {"offset": "0"},
                                                  "read": {"bw_bytes": 1e9}}]}}]},
              "summary": {"points": [{"offset_pct": "0", "read_mb_s": 300.0},
                                     {"offset_pct": "95", "read_mb_s": 150.0}]}}
    p.write_text(json.dumps(record))
    rec = load_recording(p)
    assert rec.points == ((0.0, 300.0), (0.95, 150.0))  # the summary, not the raw runs
    assert rec.device == "/dev/loop0 (loop-on-virtual-disk)" and "no zones" in rec.note
    assert "a loop device over a file" in rec.source
    assert load_recording(tmp_path / "absent.json") is None
    (tmp_path / "bad.json").write_text("{")
    assert load_recording(tmp_path / "bad.json") is None


def test_the_projects_recording_if_present_is_labelled_honestly():
    rec = load_recording(recording_path("zone-bandwidth"))
    if rec is None:
        pytest.skip("no data/measurements/zone-bandwidth.loop.json yet (or not readable)")
    assert rec.kind == "recorded" and len(rec.points) >= 2
    assert "RECORDED earlier, not on your machine" in rec.describe()
    summary = json.loads(recording_path("zone-bandwidth").read_text())["summary"]
    assert rec.start_mb_s == pytest.approx(summary["outer_mb_s"])  # the recorder's own numbers
    assert rec.end_mb_s == pytest.approx(summary["inner_mb_s"])
    assert len(rec.points) == len(summary["points"])


def test_hdparm_output_is_parsed():
    out = "/dev/sda:\n Timing O_DIRECT disk reads: 512 MB in  3.01 seconds = 170.30 MB/sec\n"
    assert parse_hdparm_t(out) == pytest.approx(170.30)
    assert parse_hdparm_t("= 950.5 kB/sec") == pytest.approx(0.9505)
    with pytest.raises(RuntimeError):
        parse_hdparm_t("HDIO_DRIVE_CMD(identify) failed")


def test_zone_bandwidth_refuses_nonsense():
    with pytest.raises(ValueError):
        ZoneBandwidth("guessed", "x", ((0, 1), (1, 1)), "")
    with pytest.raises(ValueError):
        ZoneBandwidth("simulated", "x", ((0, 1),), "")
