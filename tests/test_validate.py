"""``validate``: replaying a DiskSim validation trace and the demerit figure.

The measured trace is synthesised by simcore itself from a disk model, so
replaying it on the same model must give a demerit of (almost) 0, and a
perturbed model a demerit that grows with the perturbation (Ruemmler & Wilkes
1994's demerit: RMS horizontal distance between the two response-time CDFs).
Also: the DiskSim trace readers reject malformed lines naming file, line, field.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from simcore import Mechanism, TraceError, load_disk, replay_validation, run
from simcore.__main__ import main as cli_main
from simcore.disksim.importer import import_disksim, write_profile
from simcore.workloads import ValidationStep, ValidationWorkload
from simcore.workloads.traces.disksim import read_ascii, read_validation

DATA = Path(__file__).resolve().parent.parent / "data" / "disksim"


def synthesise(profile_path: Path, out: Path, n: int = 400, seed: int = 7) -> Path:
    """A validation trace whose 'measured' times are simcore's own, to the nanosecond."""
    prof = load_disk(profile_path)
    mech = Mechanism(prof)
    cap = mech.layout.capacity
    rng = np.random.default_rng(seed)
    steps = []
    for _ in range(n):
        sectors = int(rng.integers(1, 9))
        lba = int(rng.integers(0, cap - sectors + 1))
        op = "R" if rng.random() < 0.7 else "W"
        gap_us = int(rng.integers(0, 25_000))
        steps.append(ValidationStep(op, lba, sectors, 0.0, gap_us / 1000.0))
    # the drive's whole firmware, as validate replays it
    records = sorted(run(mech, ValidationWorkload(steps), cache=True).records,
                     key=lambda r: r.id)
    lines = ["# synthesised by simcore from " + profile_path.name, ""]
    for s, r in zip(steps, records, strict=True):
        label = "Miss" if s.op == "R" else "Hit"
        lines.append(f"{s.op} {label} {s.lba} {s.sectors} {(r.finish_ms - r.start_ms) * 1000:.3f} "
                     f"{s.gap_ms * 1000:.0f}")
    out.write_text("\n".join(lines) + "\n")
    return out


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    d = tmp_path_factory.mktemp("val")
    profile = write_profile(import_disksim(DATA / "tiny.parv"), d / "tiny.toml")
    return profile, synthesise(profile, d / "tiny.validate")


def validate_cli(capsys, disk: Path, trace: Path) -> dict:
    assert cli_main(["validate", "--disk", str(disk), "--trace", str(trace), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_self_generated_trace_has_zero_demerit(tiny, capsys):
    profile, trace = tiny
    report = validate_cli(capsys, profile, trace)
    assert report["requests"] == 400
    assert report["demerit_ms"] < 1e-5  # the trace rounds times to 1 ns
    assert report["demerit_pct"] < 1e-4
    assert report["simulated_mean_ms"] == pytest.approx(report["measured_mean_ms"], abs=1e-5)
    assert report["demerit_bucketed_ms"] < 0.01  # a time on a bucket's edge may cross it
    assert set(report) == {"demerit_ms", "demerit_bucketed_ms", "demerit_pct", "measured_mean_ms",
                           "simulated_mean_ms", "measured_sd_ms", "simulated_sd_ms", "requests",
                           "reads", "writes", "disk", "firmware", "lost_revolutions"}
    assert report["firmware"] is True
    # the replay of its own trace loses no revolution to a full segment
    assert report["lost_revolutions"] == {"ring": 0, "read_ahead_held": 0}
    assert report["reads"]["requests"] + report["writes"]["requests"] == 400
    assert report["writes"]["demerit_ms"] < 1e-5


def test_validate_prints_a_table_of_the_report_unless_asked_for_json(tiny, capsys):
    """Without ``--json``, ``validate`` prints what a reader looks at first, as ``run`` and
    ``bench`` do: for all requests, reads and writes, the measured and simulated means and
    standard deviations and the demerit (exact and bucketed), each the report's own number."""
    profile, trace = tiny
    assert cli_main(["validate", "--disk", str(profile), "--trace", str(trace)]) == 0
    text = capsys.readouterr().out
    report = validate_cli(capsys, profile, trace)
    lines = text.splitlines()
    assert lines[0] == f"disk {report['disk']}, trace {trace.name}: 400 requests"
    assert lines[1] == "replayed with the drive's firmware"
    assert max(len(line) for line in lines) <= 74  # fits the book's code box
    rows = {line.split()[0]: line.split()[1:] for line in lines[4:7]}
    assert set(rows) == {"all", "reads", "writes"}
    for label, part in (("all", report), ("reads", report["reads"]),
                        ("writes", report["writes"])):
        want = [part["measured_mean_ms"], part["measured_sd_ms"], part["simulated_mean_ms"],
                part["simulated_sd_ms"], part["demerit_ms"], part["demerit_bucketed_ms"]]
        assert [float(x) for x in rows[label]] == pytest.approx(want, abs=1e-3)
    assert lines[-2] == f"demerit {report['demerit_pct']:.2f} % of the measured mean"
    assert lines[-1] == "revolutions lost to a full segment 0, to a held read-ahead 0"


def test_validate_sets_disksims_own_result_beside_the_replay_of_its_traces(capsys):
    """On one of DiskSim's own validation traces the table ends with DiskSim 4.0's published
    mean and demerit on it, the target the replay is held to."""
    from simcore.experiments.validation import DISKSIM, model_path, trace_path

    assert cli_main(["validate", "--disk", str(model_path("hp_c2247a")), "--trace",
                     str(trace_path("hp_c2247a"))]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == (f"DiskSim 4.0, its model of this drive: mean "
                    f"{DISKSIM['hp_c2247a']['mean_ms']:.3f} ms, demerit 0.089 ms")


def test_validate_runs_the_drive_firmware_unless_bare(tiny, capsys):
    """The 'measured' trace came from the drive with its cache and overheads: the bare
    mechanism cannot match it, the whole firmware does."""
    profile, trace = tiny
    assert cli_main(["validate", "--disk", str(profile), "--trace", str(trace), "--bare",
                     "--json"]) == 0
    bare = json.loads(capsys.readouterr().out)
    assert bare["firmware"] is False and bare["demerit_ms"] > 0.05


def test_replay_keeps_its_records_in_trace_order_when_asked(tiny):
    """``keep_records``: the records the report was computed from, one per trace line, in
    trace order; their service times give the report's own mean (the experiment reads them)."""
    profile, trace = tiny
    workload = read_validation(trace)
    report = replay_validation(load_disk(profile), workload, keep_records=True)
    recs = report["records"]
    assert [r.lba for r in recs] == [s.lba for s in workload.steps]
    times = np.array([r.finish_ms - r.start_ms for r in recs])
    assert times.mean() == pytest.approx(report["simulated_mean_ms"], rel=1e-12)
    assert "records" not in replay_validation(load_disk(profile), workload)


def test_validate_imports_a_disksim_model_directly(tiny, capsys):
    """``--disk model.parv`` imports on the fly: the same drive as the imported profile."""
    _, trace = tiny
    report = validate_cli(capsys, DATA / "tiny.parv", trace)
    assert report["demerit_ms"] < 1e-5


def test_as_disksim_switches_off_what_disksim_never_applies(tiny, capsys):
    """``--as-disksim``: the tiny model's zero-latency reads off (DiskSim 4.0 never applies
    them), nothing else changed; the report is the replay of that profile, and it no longer
    matches a trace made with zero latency on."""
    from dataclasses import replace

    from simcore.disksim.importer import as_disksim_runs
    profile, trace = tiny
    prof = load_disk(profile)
    assert prof.zero_latency_reads
    ds = as_disksim_runs(prof)
    assert (ds.zero_latency_reads, ds.zero_latency_writes, ds.cache.read_any_free) == (
        False, False, False)
    assert ds == replace(prof, zero_latency_reads=False, zero_latency_writes=False,
                         cache=replace(prof.cache, read_any_free=False))
    assert cli_main(["validate", "--disk", str(profile), "--trace", str(trace),
                     "--as-disksim", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    expect = replay_validation(ds, read_validation(trace))
    assert report["demerit_ms"] == expect["demerit_ms"] > 1e-3
    assert report["simulated_mean_ms"] == expect["simulated_mean_ms"]


def test_demerit_steps_quantiles_like_disksim():
    """p = 0.0001 .. 1 in steps of 0.0001: a constant shift d gives exactly d."""
    from simcore.metrics import demerit

    x = np.linspace(1.0, 9.0, 101)
    assert demerit(x, x + 0.25) == pytest.approx(0.25, abs=1e-12)
    assert demerit([1.0, 2.0], [1.0, 2.0]) == 0.0
    # two points: the quantile curve of [0, 1] against [0, 2] differs by p at each step
    expect = np.sqrt(np.mean((np.arange(1, 10001) / 10000) ** 2))
    assert demerit([0.0, 1.0], [0.0, 2.0]) == pytest.approx(expect, rel=1e-12)



def test_disksim_buckets_follow_its_statdefs():
    """'Start 0 step 1 grow 1' (DiskSim's statdefs): 1 us wide to 100 us, then 1 % wider each."""
    from simcore.metrics import disksim_bucket_starts

    s = disksim_bucket_starts()
    assert len(s) == 1750
    assert list(s[:3]) == [0, 1, 2]
    assert list(s[99:103]) == [99, 100, 102, 104]  # 100 + 1 + 100 // 100
    assert (np.diff(s) > 0).all()
    with pytest.raises(ValueError, match="step"):
        disksim_bucket_starts(step=0)


def test_bucketed_demerit_reads_the_printed_distributions_like_disksims_rms_tool():
    """All at 1.0005 ms against all at 2.0 ms, by hand from the bucket starts.

    1.0005 ms is 1000 us, in the bucket [995, 1005): the printed curve rises from (0.995, 0)
    to (1.005, 1). 2.0 ms is in [1988, 2008). At quantile p the times are 0.995 + 0.010 p
    and 1.988 + 0.020 p, so the demerit is the RMS of 0.993 + 0.010 p over p = 0.0001 .. 1.
    """
    from simcore.metrics import demerit, demerit_bucketed, disksim_printed_cdf

    x, y = disksim_printed_cdf(np.full(10, 1.0005))
    assert y[-1] == 1.0 and x[-1] == pytest.approx(1.005) and x[-2] == pytest.approx(0.995)
    p = np.arange(1, 10001) / 10000
    expect = np.sqrt(np.mean((0.993 + 0.010 * p) ** 2))
    got = demerit_bucketed(np.full(10, 1.0005), np.full(7, 2.0))
    assert got == pytest.approx(expect, rel=1e-9)
    assert demerit(np.full(10, 1.0005), np.full(7, 2.0)) == pytest.approx(0.9995)
    same = np.linspace(0.5, 30.0, 400)
    assert demerit_bucketed(same, same) == 0.0
    with pytest.raises(ValueError, match="negative"):
        demerit_bucketed([-1.0], [1.0])


def _perturbed(profile: Path, tmp_path: Path, old: str, new: str) -> Path:
    text = profile.read_text()
    assert old in text
    out = tmp_path / f"perturbed-{abs(hash(new))}.toml"
    out.write_text(text.replace(old, new, 1))
    return out


def test_demerit_grows_with_the_perturbation(tiny, tmp_path, capsys):
    profile, trace = tiny
    demerits = []
    for rpm in ("6000.0", "5700.0", "5400.0", "4800.0"):
        disk = _perturbed(profile, tmp_path, "rpm = 6000.0", f"rpm = {rpm}")
        demerits.append(validate_cli(capsys, disk, trace)["demerit_ms"])
    assert demerits[0] < 1e-5
    assert demerits[1] > 0.1  # 5% slower spin: rotation waits stretch by 5%
    assert demerits == sorted(demerits) and demerits[3] > 3 * demerits[1]
    # slower seeks shift the whole distribution right by about the added time
    disk = _perturbed(profile, tmp_path, "table = [[1, 0.8], [2, 1.1], [3, 1.35], [4, 1.5]]",
                      "table = [[1, 1.8], [2, 2.1], [3, 2.35], [4, 2.5]]")
    report = validate_cli(capsys, disk, trace)
    assert report["demerit_ms"] > 0.3
    assert report["simulated_mean_ms"] > report["measured_mean_ms"]


def test_bundled_disk_round_trip(tmp_path):
    # the same check on a bundled profile of a real drive (different zones, seek model, cache)
    from simcore.disk.profile_loader import disk_dir

    trace = synthesise(disk_dir() / "hpc2247.toml", tmp_path / "hp.validate", n=200, seed=3)
    report = replay_validation(load_disk("hpc2247"), read_validation(trace))
    assert report["demerit_ms"] < 1e-5 and report["requests"] == 200


def test_request_beyond_the_disk_names_the_trace_line(tiny, tmp_path, capsys):
    profile, _ = tiny
    trace = tmp_path / "oob.validate"
    trace.write_text("# comment\n\nR Miss 10 4 1000 0\nR Miss 85 4 1000 0\n")
    with pytest.raises(TraceError) as err:
        replay_validation(load_disk(profile), read_validation(trace))
    assert (err.value.line, err.value.field) == (4, "lbn")
    assert cli_main(["validate", "--disk", str(profile), "--trace", str(trace)]) == 2
    assert "oob.validate:4: field 'lbn'" in capsys.readouterr().err


def test_all_zero_measured_times_do_not_crash(tiny, tmp_path, capsys):
    profile, _ = tiny
    trace = tmp_path / "zero.validate"
    trace.write_text("R Miss 10 4 0 0\nW Hit 20 1 0 5\n")
    report = validate_cli(capsys, profile, trace)
    assert report["demerit_pct"] is None and report["measured_mean_ms"] == 0.0


def test_missing_trace_is_one_clear_line(tiny, tmp_path, capsys):
    profile, _ = tiny
    assert cli_main(["validate", "--disk", str(profile), "--trace",
                     str(tmp_path / "nope.validate")]) == 2
    assert "nope.validate: no such trace file" in capsys.readouterr().err


# -- the readers -------------------------------------------------------------------------
@pytest.mark.parametrize("body,line,field", [
    ("R Miss 10 4 1000 0\nR Miss 20 4 1000\n", 2, None),
    ("R Miss 10 4 1000 0\nQ Miss 20 4 1000 0\n", 2, "op"),
    ("# c\nR Miss ten 4 1000 0\n", 2, "lbn"),
    ("R Miss -3 4 1000 0\n", 1, "lbn"),
    ("R Miss 3 four 1000 0\n", 1, "nsectors"),
    ("R Miss 3 0 1000 0\n", 1, "nsectors"),
    ("R Miss 3 4 fast 0\n", 1, "service_us"),
    ("R Miss 3 4 -1 0\n", 1, "service_us"),
    ("R Miss 3 4 1000 nan\n", 1, "next_gap_us"),
    ("R Miss 3 4 1000 -5\n", 1, "next_gap_us"),
    ("# only a comment\n", 1, None),
])
def test_validation_reader_rejects_malformed_lines(tmp_path, body, line, field):
    p = tmp_path / "bad.validate"
    p.write_text(body)
    with pytest.raises(TraceError) as err:
        read_validation(p)
    assert (err.value.line, err.value.field) == (line, field)
    assert str(err.value).startswith(f"{p}:{line}")


def test_validation_reader_keeps_file_lines(tmp_path):
    p = tmp_path / "ok.validate"
    p.write_text("# header\n\nR Miss 10 4 7500 1000  # a note\nw hit 20 1 3000.5 0\n")
    wl = read_validation(p)
    assert [(s.op, s.lba, s.sectors) for s in wl.steps] == [("R", 10, 4), ("W", 20, 1)]
    assert wl.steps[1].measured_ms == pytest.approx(3.0005)
    assert wl.meta["lines"] == [3, 4]


@pytest.mark.parametrize("body,line,field", [
    ("0.0 0 100 8 1\n1.0 0 200 16\n", 2, None),
    ("later 0 100 8 1\n", 1, "arrival_ms"),
    ("5.0 0 100 8 1\n4.0 0 100 8 1\n", 2, "arrival_ms"),
    ("-1 0 100 8 1\n", 1, "arrival_ms"),
    ("0.0 x 100 8 1\n", 1, "devno"),
    ("0.0 0 -100 8 1\n", 1, "lbn"),
    ("0.0 0 100 0 1\n", 1, "nsectors"),
    ("0.0 0 100 8 r\n", 1, "flags"),
])
def test_ascii_reader_rejects_malformed_lines(tmp_path, body, line, field):
    p = tmp_path / "bad.trace"
    p.write_text(body)
    with pytest.raises(TraceError) as err:
        read_ascii(p)
    assert (err.value.line, err.value.field) == (line, field)
    assert str(err.value).startswith(f"{p}:{line}")


def test_ascii_reader_flags_and_devices(tmp_path):
    p = tmp_path / "ok.trace"
    p.write_text("0.0 0 100 8 1\n0.5 1 7 2 0\n2.0 0 200 16 0x3\n")
    wl = read_ascii(p)
    assert [(r.op, r.lba, r.sectors, r.client) for r in wl.requests] == [
        ("R", 100, 8, 0), ("W", 7, 2, 1), ("R", 200, 16, 0)]
    assert [r.lba for r in read_ascii(p, device=0).requests] == [100, 200]


def test_compare_service_times_reports_both_scores_and_empty_samples():
    """The figures validate, the experiment and the chapter all read: one function."""
    from simcore.metrics import compare_service_times

    got = compare_service_times(np.array([1.0, 3.0]), np.array([2.0, 4.0]))
    assert got["requests"] == 2 and got["demerit_ms"] == pytest.approx(1.0)
    assert got["measured_mean_ms"] == 2.0 and got["simulated_mean_ms"] == 3.0
    assert got["measured_sd_ms"] == 1.0 and got["simulated_sd_ms"] == 1.0
    assert got["demerit_bucketed_ms"] > 0
    assert compare_service_times(np.array([]), np.array([])) == {"requests": 0}
