"""The result of a run: the completed records, with tables and summaries on demand."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path

import numpy as np

from .metrics import summarize
from .records import CSV_COLUMNS, Completed


@dataclass
class RunResult:
    """Completed requests (in completion order) and what produced them."""

    records: list[Completed]
    disk: str
    scheduler: str
    workload: str
    busy_ms: float
    meta: dict = field(default_factory=dict)
    _cols: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _cols_key: tuple = field(default=(), init=False, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.records)

    def column(self, name: str) -> np.ndarray:
        """One field of every record as a numpy array (e.g. ``response_ms``).

        Kept once computed, while the list of records stays the same length (a summary
        reads several columns, some twice)."""
        self._fresh()
        col = self._cols.get(name)
        if col is None:
            i = Completed._fields.index(name)
            col = self._cols[name] = _column(self.records, i, self._kinds_of(i))
        return col

    def _fresh(self) -> None:
        key = (id(self.records), len(self.records))
        if self._cols_key != key:
            self._cols, self._cols_key = {}, key

    def _kinds_of(self, i: int) -> set:
        """The Python types of field ``i`` over the records (kept, as the columns are)."""
        self._fresh()
        kinds = self._cols.get(i)
        if kinds is None:
            kinds = self._cols[i] = _kinds(self.records, i)
        return kinds

    def summary(self) -> dict[str, float]:
        if not self.records:
            return {"requests": 0}
        arrival = self.column("arrival_ms")
        finish = self.column("finish_ms")
        out = summarize(self.column("response_ms"), self.column("sectors"),
                        float(arrival.min()), float(finish.max()), self.busy_ms)
        for part in ("queue_ms", "overhead_ms", "seek_ms", "rotation_ms", "transfer_ms",
                     "interface_ms"):
            out[f"mean_{part}"] = float(self.column(part).mean())
        out["disk"], out["scheduler"], out["workload"] = self.disk, self.scheduler, self.workload
        return out

    def to_frame(self):
        """A pandas DataFrame of the records (pandas is imported only here)."""
        import pandas as pd

        return pd.DataFrame.from_records(self.records, columns=Completed._fields)

    def to_csv(self, path: str | Path | None = None, columns=CSV_COLUMNS) -> str:
        """Per-request CSV; written to ``path`` if given, returned as text."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(columns)
        idx = [Completed._fields.index(c) for c in columns]
        rows = self.records
        ids = self.column("id") if rows else np.empty(0)
        if len(ids) > 1 and not bool(np.all(ids[1:] >= ids[:-1])):
            rows = sorted(rows, key=itemgetter(0))  # by id (a stable sort, as before)
        kinds = [self._kinds_of(i) for i in idx] if rows else []
        if rows and all(len(k) == 1 and k <= {float, int, str} for k in kinds) and not any(
                "," in v or '"' in v for i, k in zip(idx, kinds, strict=True) if k == {str}
                for v in set(map(itemgetter(i), rows))):
            # every column of one plain type: one format string for all rows (floats to
            # 6 places, as _fmt writes them), much faster than a writer call per row
            fmt = ",".join("%.6f" if k == {float} else ("%d" if k == {int} else "%s")
                           for k in kinds) + "\n"
            pick = idx == list(range(len(idx)))  # the leading fields, in order: slice them
            n = len(idx)
            buf.write("".join(fmt % (r[:n] if pick else tuple(r[i] for i in idx))
                              for r in rows))
        else:
            for r in rows:
                w.writerow([_fmt(r[i]) for i in idx])
        text = buf.getvalue()
        if path is not None:
            Path(path).write_text(text)
        return text

    def to_json(self) -> str:
        return json.dumps(self.summary(), indent=2, sort_keys=True)


def _kinds(rows, i: int) -> set:
    """The Python types of field ``i`` over ``rows``."""
    return set(map(type, map(itemgetter(i), rows)))


def _column(rows, i: int, kinds: set) -> np.ndarray:
    """Field ``i`` of every row as an array, the same array ``np.array([r[i] for r in
    rows])`` makes, built without the Python loop when the field has one plain type
    (``kinds``: its types)."""
    if kinds == {float}:
        return np.fromiter(map(itemgetter(i), rows), np.float64, len(rows))
    if kinds == {bool}:
        return np.fromiter(map(itemgetter(i), rows), np.bool_, len(rows))
    return np.array(list(map(itemgetter(i), rows)))


def _fmt(v):
    return f"{v:.6f}" if isinstance(v, float) else v
