"""The core trace readers reject malformed input naming file, line and field."""

from __future__ import annotations

import pytest

from simcore import TraceError
from simcore.workloads.traces import read_trace, write_trace
from simcore.workloads.traces.disksim import read_ascii, read_validation


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_csv_round_trip(tmp_path):
    p = _write(tmp_path, "t.csv", "arrival_ms,op,lba,sectors\n0,R,0,8\n1.5,w,100,16\n")
    wl = read_trace(p)
    assert [(r.op, r.lba, r.sectors) for r in wl.requests] == [("R", 0, 8), ("W", 100, 16)]
    out = tmp_path / "out.csv"
    write_trace(wl, out)
    assert [r[1:] for r in read_trace(out).requests] == [r[1:] for r in wl.requests]
    with pytest.raises(FileExistsError):
        write_trace(wl, out)


@pytest.mark.parametrize("body,line,field", [
    ("0,R,0,8\n1,X,5,8\n", 3, "op"),
    ("0,R,0,8\nsoon,R,5,8\n", 3, "arrival_ms"),
    ("5,R,0,8\n1,R,5,8\n", 3, "arrival_ms"),
    ("0,R,-4,8\n", 2, "lba"),
    ("0,R,4,0\n", 2, "sectors"),
])
def test_csv_errors(tmp_path, body, line, field):
    p = _write(tmp_path, "bad.csv", "arrival_ms,op,lba,sectors\n" + body)
    with pytest.raises(TraceError) as err:
        read_trace(p)
    assert (err.value.line, err.value.field) == (line, field)
    assert f"bad.csv:{line}" in str(err.value)


def test_csv_missing_header_column(tmp_path):
    p = _write(tmp_path, "h.csv", "time,op,lba,sectors\n0,R,0,8\n")
    with pytest.raises(TraceError, match="h.csv:1.*arrival_ms"):
        read_trace(p)


def test_disksim_ascii(tmp_path):
    p = _write(tmp_path, "a.trace", "0.0 0 100 8 1\n2.5 0 200 16 0\n")
    wl = read_ascii(p)
    assert [(r.arrival_ms, r.op, r.lba, r.sectors) for r in wl.requests] == [
        (0.0, "R", 100, 8), (2.5, "W", 200, 16)]
    bad = _write(tmp_path, "b.trace", "0.0 0 100 8 1\n1.0 0 200 16\n")
    with pytest.raises(TraceError, match="b.trace:2.*5"):
        read_ascii(bad)
    bad2 = _write(tmp_path, "c.trace", "0.0 0 1x0 8 1\n")
    with pytest.raises(TraceError) as err:
        read_ascii(bad2)
    assert err.value.field == "lbn"


def test_disksim_validation_trace(tmp_path):
    p = _write(tmp_path, "v.trace", "R Miss 1000 8 7500 1000\nW Hit 20 16 3000 0\n")
    wl = read_validation(p)
    assert wl.steps[0].measured_ms == pytest.approx(7.5) and wl.steps[0].gap_ms == pytest.approx(1)
    bad = _write(tmp_path, "bv.trace", "R Miss 1000 8 lots 1000\n")
    with pytest.raises(TraceError) as err:
        read_validation(bad)
    assert err.value.field == "service_us" and err.value.line == 1
