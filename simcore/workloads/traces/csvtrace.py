"""simcore's own CSV trace: ``arrival_ms,op,lba,sectors`` with a header line.

Optional columns ``id`` and ``client`` may follow. ``op`` is R or W.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from ...errors import TraceError
from ...records import READ, WRITE, Request
from .. import OpenWorkload
from .fields import number, whole

REQUIRED = ("arrival_ms", "op", "lba", "sectors")


def read(path: str | Path) -> OpenWorkload:
    p = str(path)
    reqs: list[Request] = []
    with open(path, newline="") as fh:
        reader = csv.reader(fh)
        try:
            header = [h.strip() for h in next(reader)]
        except StopIteration:
            raise TraceError(p, 1, "the file is empty; expected a header "
                             f"'{','.join(REQUIRED)}'") from None
        missing = [c for c in REQUIRED if c not in header]
        if missing:
            raise TraceError(p, 1, f"header lacks column(s) {', '.join(missing)}; "
                             f"expected at least '{','.join(REQUIRED)}'")
        col = {name: header.index(name) for name in header}
        last = -math.inf
        for lineno, row in enumerate(reader, start=2):
            if not row or all(not c.strip() for c in row) or row[0].lstrip().startswith("#"):
                continue
            if len(row) != len(header):
                raise TraceError(p, lineno, f"has {len(row)} fields, the header has {len(header)}")
            t = number(p, lineno, "arrival_ms", row[col["arrival_ms"]])
            if t < last:
                raise TraceError(p, lineno, f"arrival {t} is earlier than the line before "
                                 f"({last}); sort the trace by time", "arrival_ms")
            last = t
            op = row[col["op"]].strip().upper()
            if op not in (READ, WRITE):
                raise TraceError(p, lineno, f"'{row[col['op']]}' is not R or W", "op")
            lba = whole(p, lineno, "lba", row[col["lba"]], 0)
            n = whole(p, lineno, "sectors", row[col["sectors"]], 1)
            rid = whole(p, lineno, "id", row[col["id"]], 0) if "id" in col else len(reqs)
            client = whole(p, lineno, "client", row[col["client"]], 0) if "client" in col else 0
            reqs.append(Request(rid, t, op, lba, n, client))
    return OpenWorkload(reqs, name=Path(p).name)


def write(workload: OpenWorkload, path: str | Path) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(("id", *REQUIRED, "client"))
        for r in workload.requests:
            w.writerow((r.id, f"{r.arrival_ms:.6f}", r.op, r.lba, r.sectors, r.client))
