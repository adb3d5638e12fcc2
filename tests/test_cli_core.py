"""The command line contract: disks, run, bench; bad input exits 2 with one clear line."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from simcore.disk.profile_loader import list_disks
from simcore.records import CSV_COLUMNS


def cli(*args, check=True):
    proc = subprocess.run([sys.executable, "-m", "simcore", *args], capture_output=True,
                          text=True, timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(proc.stderr)
    return proc


def test_disks_one_line_per_profile():
    out = cli("disks").stdout.strip().splitlines()
    assert len(out) == len(list_disks())
    assert any(line.startswith("atlas10k ") for line in out)
    rows = json.loads(cli("disks", "--json").stdout)
    assert {r["id"] for r in rows} == set(list_disks())


@pytest.fixture
def trace(tmp_path):
    p = tmp_path / "trace.csv"
    p.write_text("arrival_ms,op,lba,sectors\n" +
                 "".join(f"{i * 5.0},R,{(i * 7919) % 100000},8\n" for i in range(50)))
    return p


def test_run_writes_per_request_csv_and_summary(tmp_path, trace):
    out = tmp_path / "out.csv"
    proc = cli("run", "--disk", "atlas10k", "--trace", str(trace), "--out", str(out))
    assert "response ms" in proc.stdout
    rows = list(csv.reader(out.open()))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) == 51
    rec = dict(zip(rows[0], rows[1], strict=True))
    parts = sum(float(rec[k]) for k in ("queue_ms", "overhead_ms", "seek_ms", "rotation_ms",
                                        "transfer_ms", "interface_ms"))
    assert parts == pytest.approx(float(rec["response_ms"]), abs=1e-5)
    summary = json.loads(cli("run", "--disk", "atlas10k", "--trace", str(trace), "--json").stdout)
    assert summary["requests"] == 50 and summary["mean_response_ms"] > 0
    # refuses to overwrite the output
    proc = cli("run", "--disk", "atlas10k", "--trace", str(trace), "--out", str(out), check=False)
    assert proc.returncode == 2 and "exists" in proc.stderr


def test_run_takes_a_disksim_model_and_can_run_it_as_disksim_does(tmp_path):
    """``--disk model.parv`` imports on the fly: the DEC RZ26's model, whose zero-latency reads
    DiskSim 4.0 never applies. Twenty reads of 50 sectors (of 57 a track), 100 ms apart, at
    scattered LBAs: with zero latency no read waits longer, and together they wait less
    than with ``--as-disksim``."""
    parv = Path(__file__).resolve().parent.parent / "data/validation/models/dec_rz26.parv"
    p = tmp_path / "reads.csv"
    p.write_text("arrival_ms,op,lba,sectors\n" + "".join(
        f"{100 * i},R,{(100_000 + 37_117 * i) % 2_000_000},50\n" for i in range(20)))
    out = {}
    for flag in ((), ("--as-disksim",)):
        csv_out = tmp_path / f"out{len(flag)}.csv"
        proc = cli("run", "--disk", str(parv), "--trace", str(p), "--out", str(csv_out), *flag)
        out[flag] = [float(r["response_ms"]) for r in csv.DictReader(csv_out.open())]
        # the import's warnings go to stderr, naming the file and line
        assert "dec_rz26.diskspecs:50: 'Immediate buffer read = 1'" in proc.stderr
    zl, plain = out[()], out[("--as-disksim",)]
    assert all(a <= b + 1e-9 for a, b in zip(zl, plain, strict=True))
    assert sum(zl) < sum(plain) - 1.0
    proc = cli("run", "--disk", str(tmp_path / "none.parv"), "--trace", str(p), check=False)
    assert proc.returncode == 2 and "none.parv" in proc.stderr


def test_run_rejects_lba_beyond_disk(tmp_path):
    p = tmp_path / "far.csv"
    p.write_text("arrival_ms,op,lba,sectors\n0,R,999999999999,8\n")
    proc = cli("run", "--disk", "toy", "--trace", str(p), check=False)
    assert proc.returncode == 2
    assert "beyond" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_run_malformed_trace_names_line_and_field(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("arrival_ms,op,lba,sectors\n0,R,0,8\n1,Q,0,8\n")
    proc = cli("run", "--disk", "toy", "--trace", str(p), check=False)
    assert proc.returncode == 2 and "bad.csv:3" in proc.stderr and "'op'" in proc.stderr


def test_bench_quick_json_reports_rates():
    report = json.loads(cli("bench", "--quick", "--json").stdout)
    first = report["scenarios"][0]
    assert first["scenario"].startswith("random-4k-fcfs-atlas10k")
    assert first["requests"] == 20000 and first["requests_per_s"] > 0
    assert 0.5 < first["utilization"] < 0.7
    second = report["scenarios"][1]  # the same requests through the drive's firmware
    assert second["requests"] == 20000 and second["cpu_s"] > 0
    assert report["firmware_over_fast_path_cpu"] == second["cpu_s"] / first["cpu_s"]
    third = report["scenarios"][2]  # that firmware without its read-ahead
    assert third["scenario"].endswith("-no-read-ahead") and third["requests"] == 20000
    assert report["read_ahead_share_of_firmware_cost"] == pytest.approx(
        (second["cpu_s"] - third["cpu_s"]) / (second["cpu_s"] - first["cpu_s"]))


def test_bench_rounds_keep_each_scenarios_fastest_and_refuse_zero():
    """``--rounds N`` reports one row per scenario (its fastest round), not N rows."""
    report = json.loads(cli("bench", "--quick", "--json", "--rounds", "2").stdout)
    names = [r["scenario"] for r in report["scenarios"]]
    assert report["rounds"] == 2 and len(names) == len(set(names)) == 9
    assert report["firmware_over_fast_path_cpu"] == (report["scenarios"][1]["cpu_s"]
                                                     / report["scenarios"][0]["cpu_s"])
    bad = cli("bench", "--quick", "--rounds", "0", check=False)
    assert bad.returncode == 2 and "--rounds must be at least 1" in bad.stderr


def test_the_simulator_chapter_lists_every_subcommand():
    """book/simulator.md's table of subcommands names each one ``python -m simcore --help``
    lists (it once listed 9 of 17)."""
    import re

    helptext = cli("--help").stdout
    commands = re.findall(r"^    ([a-z][a-z-]+)", helptext, flags=re.M)
    assert len(commands) >= 17 and "run" in commands and "vm" in commands
    chapter = (Path(__file__).resolve().parent.parent / "book" / "simulator.md").read_text()
    table = chapter[chapter.index(":name: tab-sim-commands"):]
    table = table[:table.index(":::")]
    listed = set(re.findall(r"python -m simcore ([a-z-]+)", table))
    assert set(commands) <= listed, sorted(set(commands) - listed)
    # and the per-request CSV's columns, in order, as ``run --out`` writes them
    said = chapter[chapter.index("The per-request CSV of `run --out` has the columns"):]
    said = said[:said.index(".\n")]
    assert re.findall(r"`([a-z_]+)`", said) == list(CSV_COLUMNS)
