"""Trace formats: blkparse text and fio iologs (v2, v3), conversions, and their errors.

Sources: blkparse's default output line (blkparse(1)); fio's trace file formats
(fio(1) "TRACE FILE FORMAT"), with the units measured on fio 3.33 (see
``simcore/workloads/traces/fio_iolog.py``); seed 003 §2.1 (the five fields of a trace).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from simcore import TraceError
from simcore.records import Request
from simcore.workloads import OpenWorkload
from simcore.workloads.traces import (
    READERS,
    WRITERS,
    blkparse,
    convert,
    fio_iolog,
    read_trace,
    sniff,
    write_trace,
)

DATA = Path(__file__).resolve().parent.parent / "data" / "traces"


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def _wl():
    reqs = [Request(0, 0.0, "R", 0, 8), Request(1, 1.25, "W", 4096, 16),
            Request(2, 10.5, "R", 123456, 128), Request(3, 10.5, "W", 7, 1)]
    return OpenWorkload(reqs, name="four")


# -- registry ------------------------------------------------------------------------------------
def test_every_format_is_registered():
    assert {"csv", "disksim-ascii", "blkparse", "fio", "fio-v2", "fio-v3"} <= set(READERS)
    assert {"csv", "disksim-ascii", "blkparse", "fio-v2", "fio-v3"} <= set(WRITERS)


@pytest.mark.parametrize("fmt", ["csv", "disksim-ascii", "blkparse", "fio-v2", "fio-v3"])
def test_round_trip_keeps_every_request(tmp_path, fmt):
    """Write then read: same direction, address and size; times to the format's precision."""
    out = tmp_path / f"t.{fmt}"
    write_trace(_wl(), out, fmt)
    back = read_trace(out, fmt if fmt != "fio-v2" else "fio")
    assert [(r.op, r.lba, r.sectors) for r in back.requests] == [
        (r.op, r.lba, r.sectors) for r in _wl().requests]
    if fmt != "fio-v2":  # v2 has no times unless wait lines are asked for
        assert [r.arrival_ms for r in back.requests] == pytest.approx(
            [0.0, 1.25, 10.5, 10.5], abs=1e-3)
    assert sniff(out) in (fmt, "fio-v2" if fmt == "fio-v2" else fmt)


def test_writers_refuse_to_overwrite(tmp_path):
    out = tmp_path / "t.iolog"
    write_trace(_wl(), out, "fio-v3")
    with pytest.raises(FileExistsError):
        write_trace(_wl(), out, "fio-v3")
    write_trace(_wl(), out, "fio-v3", overwrite=True)


# -- blkparse ----------------------------------------------------------------------------------
def test_blkparse_example_issue_queue_and_complete():
    """The hand-written example: 4 issued data requests; the merge makes one 32-sector write."""
    p = DATA / "blkparse_example.blkparse"
    d = blkparse.read(p)
    assert [(r.op, r.lba, r.sectors) for r in d.requests] == [
        ("R", 1224, 8), ("W", 409600, 32), ("R", 2048000, 64), ("R", 51200, 8)]
    assert d.requests[0].arrival_ms == pytest.approx(0.007651)
    q = blkparse.read(p, action="Q")
    assert len(q.requests) == 5  # the merged write was queued as two requests
    lat = blkparse.latencies(p)
    assert [round(x.complete_ms - x.issue_ms, 6) for x in lat] == [
        8.304353, 6.705451, 11.338877, 4.566090]


def test_blkparse_compact_format(tmp_path):
    """note 003 §7.1's ``-f "%T.%9t %M,%m %a %d %S %n"`` line."""
    p = _write(tmp_path, "c.txt", "0.000007651 8,0 D R 1224 8\n0.001000000 8,0 D W 99 16\n")
    wl = blkparse.read(p)
    assert [(r.arrival_ms, r.op, r.lba) for r in wl.requests] == [
        (pytest.approx(0.007651), "R", 1224), (pytest.approx(1.0), "W", 99)]


@pytest.mark.parametrize("line,field", [
    ("  8,0  0  1  0.000001  99  D  R 12x4 + 8 [fio]\n", "sector"),
    ("  8,0  0  1  0.000001  99  D  R 1224 + -8 [fio]\n", "count"),
    ("  8,0  0  1  abc  99  D  R 1224 + 8 [fio]\n", "time"),
    ("  8,0  0  1  0.000001  99  Z  R 1224 + 8 [fio]\n", "action"),
    ("  8,0  0  1  0.000001  99  D  r? 1224 + 8 [fio]\n", "rwbs"),
])
def test_blkparse_malformed_lines_name_line_and_field(tmp_path, line, field):
    p = _write(tmp_path, "b.txt", "  8,0  0  1  0.000000  99  D  R 0 + 8 [fio]\n" + line)
    with pytest.raises(TraceError) as err:
        blkparse.read(p)
    assert err.value.line == 2 and err.value.field == field
    assert str(p) in str(err.value)


def test_blkparse_garbage_line_is_refused(tmp_path):
    p = _write(tmp_path, "b.txt", "hello world\n")
    with pytest.raises(TraceError) as err:
        blkparse.read(p)
    assert err.value.line == 1


def test_blkparse_several_devices_need_a_choice(tmp_path):
    p = _write(tmp_path, "b.txt", "  8,0  0  1  0.0  9  D  R 0 + 8 [x]\n"
                                  "  8,16 0  2  0.1  9  D  R 8 + 8 [x]\n")
    with pytest.raises(TraceError) as err:
        blkparse.read(p)
    assert err.value.field == "device"
    assert len(blkparse.read(p, device="8,16").requests) == 1


# -- fio iologs ----------------------------------------------------------------------------------
def test_fio_v3_captured_sample():
    """The iolog captured here: 2,400 8 KiB requests over 12 s in a 16 GiB file; the
    per-direction rate cap (100 IOPS each) made the mix 50/50 despite rwmixread=60."""
    wl = read_trace(DATA / "fio_zipf_sparsefile.iolog", "fio")
    assert len(wl.requests) == 2400
    assert {r.sectors for r in wl.requests} == {16}
    assert wl.requests[0].arrival_ms == pytest.approx(34.223)  # µs -> ms
    assert 11_000 < wl.requests[-1].arrival_ms < 13_000
    assert max(r.lba + r.sectors for r in wl.requests) <= 16 * 2**30 // 512
    assert sum(r.op == "R" for r in wl.requests) == 1200


def test_fio_v2_waits_are_milliseconds_since_start(tmp_path):
    """fio 3.33 holds ``wait N`` until N ms after the start (measured, see the module doc)."""
    p = _write(tmp_path, "v2.log", "fio version 2 iolog\n/f add\n/f open\n/f read 0 4096\n"
                                    "/f wait 1000 0\n/f write 512 1000\n/f wait 1000 0\n"
                                    "/f read 8192 4096\n/f close\n")
    wl = fio_iolog.read(p)
    assert [r.arrival_ms for r in wl.requests] == [0.0, 1000.0, 1000.0]
    assert (wl.requests[1].lba, wl.requests[1].sectors) == (1, 2)  # bytes 512..1511
    spread = fio_iolog.read(p, gap_ms=5.0)
    assert [r.arrival_ms for r in spread.requests] == [0.0, 1000.0, 1000.0]


def test_fio_several_files_become_clients(tmp_path):
    p = _write(tmp_path, "v3.log", "fio version 3 iolog\n0 /a add\n0 /b add\n1 /a open\n"
                                    "1 /b open\n10 /a read 0 4096\n20 /b write 4096 4096\n")
    wl = fio_iolog.read(p)
    assert [r.client for r in wl.requests] == [0, 1]
    assert len(fio_iolog.read(p, file="/b").requests) == 1
    with pytest.raises(TraceError):
        fio_iolog.read(p, file="/c")


@pytest.mark.parametrize("text,line,field", [
    ("fio version 3 iolog\n0 /f add\n0 /f open\n5 /f read abc 4096\n", 4, "offset"),
    ("fio version 3 iolog\n0 /f add\n0 /f open\n5 /f jump 0 4096\n", 4, "action"),
    ("fio version 3 iolog\n0 /f add\n0 /f open\n5 /f read 0 4096\n3 /f read 0 4096\n", 5,
     "timestamp"),
    ("fio version 3 iolog\n0 /f add\n0 /f open\n5 /f wait 10 0\n", 4, "action"),
    ("fio version 3 iolog\n0 /f add\n5 /f read 0 4096\n", 3, "filename"),
    ("fio version 3 iolog\n0 /f add\n0 /f open\n5 /f read 0 0\n", 4, "length"),
    ("fio version 2 iolog\n/f add\n/f open\n/f read 0\n", 4, None),
    ("fio version 2 iolog\n/g read 0 4096\n", 2, "filename"),
])
def test_fio_malformed_lines_name_line_and_field(tmp_path, text, line, field):
    p = _write(tmp_path, "bad.log", text)
    with pytest.raises(TraceError) as err:
        fio_iolog.read(p)
    assert err.value.line == line and err.value.field == field


def test_fio_unknown_header(tmp_path):
    for head in ("fio version 1 iolog\n", "rw, offset, length\n"):
        p = _write(tmp_path, "h.log", head)
        with pytest.raises(TraceError) as err:
            fio_iolog.read(p)
        assert err.value.line == 1


def test_fio_v3_writer_timestamps_are_microseconds(tmp_path):
    p = tmp_path / "o.iolog"
    fio_iolog.write_v3(_wl(), p, filename="/scratch/x")
    lines = p.read_text().splitlines()
    assert lines[0] == "fio version 3 iolog"
    assert lines[4] == "1250 /scratch/x write 2097152 8192"


# -- conversion and the command ------------------------------------------------------------------
def test_convert_between_formats(tmp_path):
    a = tmp_path / "a.ascii"
    wl = convert(DATA / "sample_database.csv", a, "csv", "disksim-ascii")
    assert len(wl.requests) == 300
    b = tmp_path / "b.blkparse"
    convert(a, b, "auto", "blkparse")
    again = read_trace(b, "blkparse")
    assert [(r.op, r.lba, r.sectors) for r in again.requests] == [
        (r.op, r.lba, r.sectors) for r in wl.requests]
    with pytest.raises(ValueError):
        convert(a, a, "disksim-ascii", "csv")


def test_convert_trace_command_refuses_to_overwrite(tmp_path):
    out = tmp_path / "out.csv"
    out.write_text("precious\n")
    cmd = [sys.executable, "-m", "simcore", "convert-trace",
           str(DATA / "fio_zipf_sparsefile.iolog"), str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 2 and "--force" in r.stderr
    assert out.read_text() == "precious\n"
    r = subprocess.run([*cmd, "--force"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert len(read_trace(out).requests) == 2400
    r = subprocess.run([sys.executable, "-m", "simcore", "convert-trace", str(out),
                        str(tmp_path / "x.v3"), "--to", "fio-v3", "--from", "csv"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_convert_trace_command_reports_bad_input(tmp_path):
    bad = _write(tmp_path, "bad.csv", "arrival_ms,op,lba,sectors\n0,Q,1,8\n")
    r = subprocess.run([sys.executable, "-m", "simcore", "convert-trace", str(bad),
                        str(tmp_path / "o.ascii")], capture_output=True, text=True)
    assert r.returncode == 2
    assert "bad.csv:2" in r.stderr and "op" in r.stderr


def test_real_fio_writes_what_the_reader_reads(tmp_path):
    """fio's own write_iolog output (whatever version this fio writes) reads back."""
    fio = shutil.which("fio")
    if fio is None:
        pytest.skip("fio is not installed")
    target = tmp_path / "f.dat"
    log = tmp_path / "log.iolog"
    r = subprocess.run([fio, "--name=t", f"--filename={target}", "--size=1m", "--rw=randrw",
                        "--bs=4k", "--number_ios=20", f"--write_iolog={log}",
                        "--output-format=terse"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    wl = read_trace(log, "fio")
    assert len(wl.requests) == 20
    assert all(r.sectors == 8 and r.lba % 8 == 0 for r in wl.requests)


def test_the_sample_traces_are_the_generator_the_readme_names():
    """data/traces/README.md says the sample_database files are the first 300 requests of
    database_like(80_418_240, duration_s=4, seed=3): tools/sample_traces.py writes them, and
    the files must be exactly its output (they once drifted from a changed generator)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    import sample_traces

    assert sample_traces.stale() == []
    readme = (DATA / "README.md").read_text()
    assert "database_like(80_418_240, duration_s=4, seed=3)" in readme
    assert len(sample_traces.sample().requests) == 300
