"""The quick paths for large traces (issue 14 part 8) give exactly what the careful ones do."""

from __future__ import annotations

import csv
import io

from simcore import run
from simcore.records import CSV_COLUMNS, Completed
from simcore.results import _fmt
from simcore.workloads import random_open
from simcore.workloads.traces.disksim import _careful_ascii, read_ascii


def test_csv_matches_a_row_by_row_writer():
    res = run("toy", random_open(36, 50, rate_per_s=5.0, size_kib=0.5, seed=3), firmware=False)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    idx = [Completed._fields.index(c) for c in CSV_COLUMNS]
    for r in sorted(res.records, key=lambda r: r.id):
        w.writerow([_fmt(r[i]) for i in idx])
    assert res.to_csv() == buf.getvalue()


def test_ascii_quick_path_agrees_with_the_careful_parser(tmp_path):
    lines = ["0.5 0 100 8 1", "1.25 1 0x10 16 0x0", "# a comment", "", "2 0 7 1 3  # tail",
             "3.0 2 9 4 0"]
    path = tmp_path / "t.ascii"
    path.write_text("\n".join(lines) + "\n")
    wl = read_ascii(path)
    careful = [_careful_ascii(str(path), i + 1, line, -1.0) for i, line in enumerate(lines)]
    careful = [c for c in careful if c is not None]
    got = [(r.arrival_ms, r.client, r.lba, r.sectors) for r in wl.requests]
    assert got == [(t, d, lba, n) for t, d, lba, n, _ in careful]
    assert [r.op for r in wl.requests] == ["R", "W", "R", "W"]
