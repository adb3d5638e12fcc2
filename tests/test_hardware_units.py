"""hardware/ without hardware: parsers, job files, plans, records, summaries, simulation side.

The tests that run fio and hdparm for real against a loop device are in
test_hardware.py (root needed). These need no root and no disk.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import hardware
from hardware import hdparm, jobs, record, summary, units
from hardware.safety import Refused, Target
from simcore.labkit import compare

CONTRACT_JOBS = {"zone-bandwidth", "seek-distance", "qd-sweep", "bs-sweep", "multistream",
                 "seq-read", "seq-write", "server-web", "server-file", "server-mail",
                 "server-metadata", "cpu-engines"}


# -- the public namespace ----------------------------------------------------------------------

def test_public_names_exist():
    import importlib

    for name in hardware.__all__:
        assert hasattr(hardware, name), name
    for modname in ("probe", "safety", "tuning", "jobs", "fio", "hdparm", "runner", "record",
                    "summary", "units", "honesty"):
        mod = importlib.import_module(f"hardware.{modname}")
        for name in mod.__all__:
            assert hasattr(mod, name), f"{mod.__name__}.{name}"


def test_contract_functions_have_their_signatures():
    import inspect

    from hardware import probe, runner, tuning
    assert list(inspect.signature(runner.run_job).parameters)[:5] == [
        "name", "target", "scratch", "params", "out"]
    assert list(inspect.signature(tuning.temporarily).parameters) == [
        "device", "scheduler", "read_ahead_kb", "nr_requests"]
    assert callable(probe.probe_devices) and callable(probe.describe)
    assert callable(hdparm.offset_sweep)


# -- units -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "whole", "expected"), [
    ("4096", None, 4096), ("4k", None, 4096), ("1m", None, 1 << 20), ("1MiB", None, 1 << 20),
    ("2g", None, 2 << 30), ("50%", 1000, 500), ("100%", 1 << 30, 1 << 30),
])
def test_parse_size_follows_fio(text, whole, expected):
    # fio's default kb_base=1024: k, m, g are powers of 1024 (fio HOWTO, "kb_base").
    assert units.parse_size(text, whole) == expected


def test_parse_size_rejects_nonsense():
    with pytest.raises(ValueError, match="not a size"):
        units.parse_size("lots")
    with pytest.raises(ValueError, match="percentage"):
        units.parse_size("10%")


def test_durations():
    assert units.parse_duration_s("500ms") == 0.5
    assert units.parse_duration_s("2m") == 120
    assert units.parse_duration_s("5") == 5
    assert units.fmt_size(1536 << 10) == "1536k" and units.fmt_size(1 << 30) == "1g"


# -- hdparm parsers on fixed text -----------------------------------------------------------------
# The -t/-T lines follow hdparm 9.65's printf formats ("%3u MB in %5.2f seconds = %6.2f MB/sec",
# kB/sec below 1 MB/s); hdparm's "MB" is 2^20 bytes (it counts 2 MiB buffers).

def test_parse_t_buffered_and_direct_with_offset():
    text = "\n/dev/sdb:\n Timing buffered disk reads: 678 MB in  3.00 seconds = 225.85 MB/sec\n"
    r = hdparm.parse_t(text)
    assert r["device"] == "/dev/sdb" and r["direct"] is False and r["offset_gib"] is None
    assert r["mib"] == 678 and r["seconds"] == 3.0 and r["mib_s"] == 225.85
    assert r["mb_s"] == pytest.approx(225.85 * 1.048576)
    text = ("/dev/sdb:\n Timing O_DIRECT disk reads (offset 500 GB): 300 MB in  3.01 seconds "
            "=  99.67 MB/sec\n")
    r = hdparm.parse_t(text)
    assert r["direct"] and r["offset_gib"] == 500 and r["mib_s"] == 99.67


def test_parse_t_slow_device_in_kb():
    r = hdparm.parse_t("/dev/sdc:\n Timing buffered disk reads:   2 MB in  3.50 seconds = "
                       "585.14 kB/sec\n")
    assert r["mib_s"] == pytest.approx(585.14 / 1024)


def test_parse_t_gives_hdparms_complaint():
    text = "\n/dev/loop0:\n Timing O_DIRECT disk reads (offset 1 GB): read() hit EOF - device too small\n"
    with pytest.raises(hdparm.HdparmError, match="hit EOF"):
        hdparm.parse_t(text)


def test_parse_T():
    r = hdparm.parse_T("/dev/sda:\n Timing cached reads:   30560 MB in  1.99 seconds = "
                       "15347.45 MB/sec\n")
    assert r["test"] == "cached" and r["mib"] == 30560 and r["mib_s"] == 15347.45


@pytest.mark.parametrize(("text", "expected"), [
    ("\n/dev/sda:\n write-caching =  1 (on)\n", True),
    ("\n/dev/sda:\n write-caching =  0 (off)\n", False),
])
def test_parse_W(text, expected):
    r = hdparm.parse_W(text)
    assert r["supported"] and r["write_cache"] is expected


def test_parse_W_unsupported():
    r = hdparm.parse_W("\n/dev/sda:\n write-caching = not supported\n")
    assert not r["supported"] and r["write_cache"] is None
    assert not hdparm.parse_W("\n/dev/loop0:\n")["supported"]  # what a loop device prints


# A hand-made `hdparm -I` text for a fictional drive, written from the printf formats of
# hdparm's identify.c (tab layout, "*" marking the active mode and enabled features). It is a
# parser fixture, not a recording of any real drive.
IDENTIFY = """
/dev/sdb:

ATA device, with non-removable media
\tModel Number:       EXAMPLE DISK HD1000
\tSerial Number:      XXXXXXXX
\tFirmware Revision:  01.01A01
\tTransport:          Serial, SATA 1.0a, SATA II Extensions, SATA Rev 2.5, SATA Rev 3.0
Standards:
\tSupported: 8 7 6 5\x20
\tLikely used: 8
Configuration:
\tLogical\t\tmax\tcurrent
\tcylinders\t16383\t16383
\theads\t\t16\t16
\tsectors/track\t63\t63
\t--
\tCHS current addressable sectors:    16514064
\tLBA    user addressable sectors:   268435455
\tLBA48  user addressable sectors:  1953525168
\tLogical  Sector size:                   512 bytes
\tPhysical Sector size:                  4096 bytes
\tLogical Sector-0 offset:                  0 bytes
\tdevice size with M = 1024*1024:      953869 MBytes
\tdevice size with M = 1000*1000:     1000204 MBytes (1000 GB)
\tcache/buffer size  = 65536 KBytes
\tForm Factor: 3.5 inch
\tNominal Media Rotation Rate: 7200
Capabilities:
\tLBA, IORDY(can be disabled)
\tQueue depth: 32
\tStandby timer values: spec'd by Standard, no device specific minimum
\tR/W multiple sector transfer: Max = 16\tCurrent = 16
\tDMA: mdma0 mdma1 mdma2 udma0 udma1 udma2 udma3 udma4 udma5 *udma6\x20
\t     Cycle time: min=120ns recommended=120ns
\tPIO: pio0 pio1 pio2 pio3 pio4\x20
\t     Cycle time: no flow control=120ns  IORDY flow control=120ns
Commands/features:
\tEnabled\tSupported:
\t   *\tSMART feature set
\t    \tSecurity Mode feature set
\t   *\tWrite cache
\t    \tLook-ahead
\t   *\t48-bit Address feature set
\t   *\tNative Command Queueing (NCQ)
\t   *\tGen3 signaling speed (6.0Gb/s)
Security:\x20
\t    \tsupported
Checksum: correct
"""


def test_parse_I_fields_modes_and_features():
    r = hdparm.parse_I(IDENTIFY)
    assert r["supported"] and r["model"] == "EXAMPLE DISK HD1000"
    assert r["firmware"] == "01.01A01" and r["transport"].startswith("Serial")
    assert "serial" not in json.dumps(r).lower().replace("serial,", "")  # serial never kept
    assert r["sectors"] == 1953525168  # LBA48 wins over the 28-bit count
    assert (r["logical_sector_bytes"], r["physical_sector_bytes"]) == (512, 4096)
    assert r["rotation_rpm"] == 7200 and not r["solid_state"]
    assert r["queue_depth"] == 32 and r["cache_kib"] == 65536 and r["size_mb"] == 1000204
    assert r["dma_modes"][-1] == "udma6" and r["active_dma"] == "udma6"
    assert r["pio_modes"] == ["pio0", "pio1", "pio2", "pio3", "pio4"] and r["active_pio"] is None
    assert r["write_cache"] is True and r["look_ahead"] is False and r["ncq"] is True
    assert r["features"]["Security Mode feature set"] is False


def test_parse_I_solid_state_and_unsupported():
    ssd = IDENTIFY.replace("Nominal Media Rotation Rate: 7200",
                           "Nominal Media Rotation Rate: Solid State Device")
    r = hdparm.parse_I(ssd)
    assert r["solid_state"] and r["rotation_rpm"] is None
    r = hdparm.parse_I("\n/dev/loop0:\n")  # what hdparm 9.65 prints for a loop device
    assert r == {"supported": False, "reason": r["reason"]} and "IDENTIFY" in r["reason"]


def test_hdparm_runs_only_read_only_options():
    with pytest.raises(ValueError, match="read-only"):
        hdparm.run(["-W0"], "/dev/null")
    with pytest.raises(Refused, match="not a block device"):
        hdparm.run(["-t"], "/dev/null")


# -- job files ----------------------------------------------------------------------------------

def test_every_contract_job_exists_with_the_right_write_flag():
    listed = {j.name: j for j in jobs.list_jobs()}
    assert set(listed) >= CONTRACT_JOBS
    assert not listed["zone-bandwidth"].writes and listed["seq-write"].writes
    for name in ("server-web", "server-file", "server-mail", "server-metadata"):
        assert listed[name].targets == ("dir",) and listed[name].setup == "server-layout"
    assert "server-layout" not in listed  # internal
    assert listed["multistream"].param("streams") and listed["multistream"].param("bs")
    assert listed["bs-sweep"].param("boundary")


def test_job_file_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "broken.fio"
    bad.write_text("; disklab-job: broken\n; measures: x\n; writes: maybe\n; targets: block\n"
                   "[j]\nrw=read\n")
    with pytest.raises(jobs.JobFileError, match=r"broken.fio:1: 'writes: maybe'"):
        jobs.load_job(bad)
    bad.write_text("; disklab-job: broken\n; measures: x\n; writes: no\n; targets: block\n"
                   "[j]\nrw=read\nbs=${NOPE}\n")
    with pytest.raises(jobs.JobFileError, match=r"broken.fio:7: \$\{NOPE\}"):
        jobs.load_job(bad)


def _fake(size=1 << 30, kind="block", device=None):
    return Target("/dev/fake", kind, True, size, device, False, False)


def test_plan_sweeps_every_combination():
    pts = jobs.plan(jobs.get_job("bs-sweep"), {"bs": "4k,64k", "runtime": "1s"}, _fake())
    assert [(p.values["bs"], p.values["align"]) for p in pts] == [
        ("4k", "aligned"), ("4k", "unaligned"), ("64k", "aligned"), ("64k", "unaligned")]
    un = pts[1]
    # fio places random requests at offset + k * blockalign: shifted by MISALIGN off every boundary
    assert un.env["OFFSET"] == "512" and un.env["BOUNDARY"] == "4k"
    assert int(un.env["REGION"]) % 4096 == 0


def test_plan_zone_offsets_are_aligned_and_inside():
    size = 10 << 30
    pts = jobs.plan(jobs.get_job("zone-bandwidth"), {"offset_pct": "0,50,100"}, _fake(size))
    offs = [int(p.env["OFFSET"]) for p in pts]
    span = int(pts[0].env["SPAN"])
    assert offs[0] == 0 and offs[1] == 5 << 30
    assert offs[2] == size - span  # 100% is the last full span
    assert all(o % (1 << 20) == 0 for o in offs)


def test_plan_rejects_unknown_and_bad_values():
    job = jobs.get_job("qd-sweep")
    with pytest.raises(ValueError, match="'depth' is not a parameter of qd-sweep"):
        jobs.plan(job, {"depth": "4"}, _fake())
    with pytest.raises(ValueError, match="qd must be at least 1"):
        jobs.plan(job, {"qd": "0"}, _fake())
    with pytest.raises(ValueError, match="repeat"):
        jobs.plan(job, {"repeat": "1,2"}, _fake())
    with pytest.raises(ValueError, match="appends"):
        jobs.plan(jobs.get_job("server-metadata"), {"nj": "2", "ops": "100", "nfiles": "10"},
                  _fake(None, "dir"))


def test_timed_jobs_ramp_by_default_and_single_passes_do_not():
    # fio adds ramp_time before a time_based runtime, but a job that ends at the end of its
    # region would spend its ramp on the start of that region (hardware.jobs' docstring)
    ramps = {j.name: j.defaults.get("ramp") for j in jobs.list_jobs(include_internal=True)}
    timed = {n for n in ramps if "time_based=1" in jobs.get_job(n).path.read_text()}
    assert timed == {"bs-sweep", "multistream", "qd-sweep"}
    assert all(ramps[n] == jobs.TIMED_RAMP != "0s" for n in timed)
    assert all(ramps[n] == "0s" for n in ramps if n not in timed and ramps[n] is not None)
    pts = jobs.plan(jobs.get_job("qd-sweep"), {"qd": "1"}, _fake())
    assert pts[0].env["RAMP"] == jobs.TIMED_RAMP
    pts = jobs.plan(jobs.get_job("qd-sweep"), {"qd": "1", "ramp": "0s"}, _fake())
    assert pts[0].env["RAMP"] == "0s"  # still overridable

def test_seek_windows_clamp_to_the_target_and_dedupe():
    pts = jobs.plan(jobs.get_job("seek-distance"), {"window": "1m,4g,100%", "ios": "50"},
                    _fake(64 << 20))
    assert [int(p.env["WINDOW"]) for p in pts] == [1 << 20, 64 << 20]  # 4g and 100% are the same
    assert pts[0].env["IOS"] == "50"
    assert all(int(p.env["OFFSET"]) + int(p.env["WINDOW"]) <= 64 << 20 for p in pts)


@pytest.mark.hardware
def test_every_job_file_parses_with_fio(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from conftest import require_tool

    fio = require_tool("fio")

    def parse(job):
        kind = "dir" if job.targets == ("dir",) else "block"
        pts = jobs.plan(job, {}, Target(str(tmp_path), kind, True, 1 << 30, None, job.writes,
                                        False))
        env = {**pts[0].env, "TARGET": str(tmp_path / "t"), "LOGDIR": str(tmp_path),
               "FSB_DIR": str(tmp_path), "FSB_DIRS": str(tmp_path)}
        return job.name, subprocess.run([fio, "--parse-only", str(job.path)], env=env,
                                        capture_output=True, text=True)

    with ThreadPoolExecutor(4) as ex:
        for name, proc in ex.map(parse, jobs.list_jobs(include_internal=True)):
            assert proc.returncode == 0, f"{name}: {proc.stderr}"


# -- summaries ----------------------------------------------------------------------------------

def test_distance_bins_hand_computed():
    # offsets 0, 4096, 0, 1 MiB: distances 4096, 4096, 1 MiB; latencies 100, 300, 5000 us
    bins = summary.distance_bins([[0, 4096, 0, 1 << 20]], [[7, 100, 300, 5000]])
    assert [b["n"] for b in bins] == [2, 1]
    assert bins[0]["distance_bytes"] == pytest.approx(4096)
    assert bins[0]["mean_ms"] == pytest.approx(0.2) and bins[1]["mean_ms"] == pytest.approx(5.0)
    assert bins[0]["distance_lo"] <= 4096 < bins[0]["distance_hi"]


def test_fio_metrics_from_a_report():
    from hardware.fio import job_metrics

    j = {"job_runtime": 2000, "usr_cpu": 1.5, "sys_cpu": 10.0,
         "read": {"total_ios": 100, "io_bytes": 409600, "bw_bytes": 204800, "iops": 50.0,
                  "lat_ns": {"mean": 2e6, "max": 9e6},
                  "clat_ns": {"percentile": {"50.000000": 1500000, "99.000000": 8000000}}}}
    m = job_metrics(j)
    assert m["read_mb_s"] == pytest.approx(0.2048) and m["read_iops"] == 50
    assert m["read_lat_mean_ms"] == 2.0 and m["read_clat_p99_ms"] == 8.0
    assert m["runtime_s"] == 2.0 and "write_mb_s" not in m


# -- records ------------------------------------------------------------------------------------

def _minimal(**over):
    rec = {"schema": record.MEASURED, "job": "seq-read", "params": {}, "recorded_at": "2024",
           "label": "a test record of nothing real", "machine": {"kernel": "x", "cpu": "y",
                                                                  "fio_version": "z"},
           "device": {k: None for k in record.DEVICE_REQUIRED}, "raw": {}, "summary": {}}
    rec.update(over)
    return rec


def test_save_refuses_to_overwrite(tmp_path):
    p = tmp_path / "r.json"
    record.save(_minimal(), p)
    with pytest.raises(FileExistsError, match="exists"):
        record.save(_minimal(), p)
    record.save(_minimal(job="seq-write"), p, overwrite=True)
    assert record.load(p)["job"] == "seq-write"


def test_load_names_the_bad_field(tmp_path):
    p = tmp_path / "r.json"
    p.write_text(json.dumps(_minimal(schema="other/9")))
    with pytest.raises(record.RecordError, match="field 'schema'"):
        record.load(p)
    rec = _minimal()
    del rec["device"]["kind"]
    p.write_text(json.dumps(rec))
    with pytest.raises(record.RecordError, match=r"field 'device.kind'"):
        record.load(p)
    p.write_text(json.dumps(_minimal(schema=record.SIMULATED)))
    with pytest.raises(record.RecordError, match="field 'simulated'"):
        record.load(p)


MEASUREMENTS = Path(__file__).resolve().parents[1] / "data" / "measurements"


def _recordings():
    return sorted(MEASUREMENTS.glob("*.json"))


def test_recordings_are_small():
    total = sum(p.stat().st_size for p in _recordings())
    assert total < 2_500_000, f"data/measurements holds {total} bytes of JSON"


@pytest.mark.parametrize("path", _recordings(), ids=lambda p: p.name)
def test_every_recording_is_honest_and_its_summary_comes_from_its_raw_output(path):
    rec = record.load(path)
    assert rec["schema"] == record.MEASURED and rec["simulated"] is False
    kind = rec["device"]["kind"]
    if path.name.endswith(".loop.json"):
        if kind in ("file", "directory"):
            kind = rec["device"]["backing"]["kind"]
        assert kind.startswith("loop-on-"), kind
        assert "not a disk" in rec["label"].lower()
    assert rec["machine"]["fio_version"] or rec["raw"].get("tool") == "hdparm"
    again = summary.summarize(rec["job"], rec["params"], rec["raw"])
    assert json.loads(json.dumps(again)) == rec["summary"]


def test_find_prefers_real_drives(tmp_path):
    for name in ("zone-bandwidth.loop.json", "zone-bandwidth.hdd.wd800jd.json"):
        (tmp_path / name).write_text("{}")
    assert [p.name for p in record.find("zone-bandwidth", tmp_path)] == [
        "zone-bandwidth.hdd.wd800jd.json", "zone-bandwidth.loop.json"]
    with pytest.raises(FileNotFoundError, match="no recording of 'qd-sweep'"):
        record.load_recorded("qd-sweep", directory=tmp_path)


# -- the simulated side ----------------------------------------------------------------------

def test_simulated_zone_rates_match_the_layout():
    # modern7200 outer zone: 3,400 sectors per track at 7,200 RPM:
    # 3400 * 512 B / 8.333 ms = 208.896 MB/s of media rate (data/disks/modern7200.toml).
    rows = compare.zone_bandwidth("modern7200", [0, 99], span_bytes=8 << 20)
    assert rows[0]["media_mb_s"] == pytest.approx(3400 * 512 / 8333.333, rel=1e-6)
    assert rows[1]["media_mb_s"] == pytest.approx(1650 * 512 / 8333.333, rel=1e-6)
    for r in rows:  # switches and skew cost time: sustained is below media, but not far
        assert 0.8 * r["media_mb_s"] < r["read_mb_s"] < r["media_mb_s"]


def test_simulated_record_is_labelled_and_never_a_measurement():
    rec = compare.simulate("qd-sweep", "modern7200", {"qd": "1,8"})
    record.validate(rec)
    assert rec["simulated"] is True and not record.is_measured(rec)
    assert rec["label"].startswith("SIMULATED") and rec["device"]["kind"] == "simulated"
    iops = [p["read_iops"] for p in rec["summary"]["points"]]
    assert iops[1] > iops[0]  # SSTF reorders a deeper queue (Seltzer et al., in Gray 2000 §3)
    with pytest.raises(ValueError, match="no simulated counterpart"):
        compare.simulate("server-web", "modern7200")


def test_seek_curve_rises_with_distance():
    s = compare.seek_distance("modern7200", windows=("64m", "100%"), ios=150)
    assert s["points"][1]["read_lat_mean_ms"] > s["points"][0]["read_lat_mean_ms"]


def test_overlay_draws_measured_and_simulated():
    fig = compare.overlay(record.load(MEASUREMENTS / "zone-bandwidth.loop.json"), "modern7200")
    names = [t.name for t in fig.data]
    assert names[0].startswith("measured: loop-on-") and names[1].startswith("simulated:")


# -- command line ------------------------------------------------------------------------------

def cli(*args):
    return subprocess.run([sys.executable, "-m", "hardware", *args], capture_output=True,
                          text=True, timeout=120)


def test_cli_jobs_one_line_each():
    proc = cli("jobs")
    assert proc.returncode == 0
    rows = [ln.split("\t") for ln in proc.stdout.strip().splitlines()]
    assert all(len(r) == 3 for r in rows)
    assert {r[0] for r in rows} >= CONTRACT_JOBS
    assert {r[2] for r in rows} == {"read-only", "writes"}


def test_cli_probe_json():
    proc = cli("probe", "--json")
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    assert data["machine"]["kernel"] and isinstance(data["devices"], list)


def test_cli_refusal_is_one_line_and_nonzero(tmp_path):
    f = tmp_path / "keep.dat"
    f.write_bytes(b"precious")
    proc = cli("run", "seq-write", "--target", str(f))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("refused: ")
    assert "--scratch" in proc.stderr and f.read_bytes() == b"precious"
    proc = cli("run", "no-such-job", "--target", str(f))
    assert proc.returncode == 2 and "zone-bandwidth" in proc.stderr


# -- compare moved to simcore (issue 14 part 2: hardware never imports simcore) ----------------

def test_old_compare_names_say_where_they_went():
    with pytest.raises(ImportError, match="simcore.labkit.compare"):
        import hardware.compare  # noqa: F401
    with pytest.raises(ImportError, match="simcore.labkit.compare.overlay"):
        from hardware import overlay  # noqa: F401
    proc = cli("compare", "x.json")
    assert proc.returncode == 2 and "python -m simcore compare" in proc.stderr


def test_simcore_compare_prints_measured_beside_simulated():
    proc = subprocess.run([sys.executable, "-m", "simcore", "compare",
                           str(MEASUREMENTS / "zone-bandwidth.loop.json"), "--disk", "modern7200"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("measured:  ") and lines[1].startswith("simulated: SIMULATED")
    assert len(lines) > 2 and all("(read_mb_s)" in ln for ln in lines[2:])
