"""The result of a run: the completed records, with tables and summaries on demand."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
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
    _cols: list = field(default_factory=list, init=False, repr=False, compare=False)
    _cols_key: tuple = field(default=(), init=False, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.records)

    def column(self, name: str) -> np.ndarray:
        """One field of every record as a numpy array (e.g. ``response_ms``)."""
        idx = Completed._fields.index(name)
        cols = self._columns()
        return np.array(cols[idx]) if cols else np.array([])

    def _columns(self) -> list[tuple]:
        """The records transposed once (field by field), kept while the records are."""
        key = (id(self.records), len(self.records))
        if self._cols_key != key:
            self._cols = list(zip(*self.records, strict=True)) if self.records else []
            self._cols_key = key
        return self._cols

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
        rows = sorted(self.records, key=lambda r: r.id)
        cols = list(zip(*rows, strict=True)) if rows else []
        kinds = [set(map(type, cols[i])) for i in idx] if rows else []
        if rows and all(len(k) == 1 and k <= {float, int, str} for k in kinds) and not any(
                "," in v or '"' in v for i, k in zip(idx, kinds, strict=True) if k == {str}
                for v in set(cols[i])):
            # every column of one plain type: one format string for all rows (floats to
            # 6 places, as _fmt writes them), much faster than a writer call per row
            fmt = ",".join(f"{{{i}:.6f}}" if k == {float} else f"{{{i}}}"
                           for i, k in zip(idx, kinds, strict=True)) + "\n"
            buf.write("".join(fmt.format(*r) for r in rows))
        else:
            for r in rows:
                w.writerow([_fmt(r[i]) for i in idx])
        text = buf.getvalue()
        if path is not None:
            Path(path).write_text(text)
        return text

    def to_json(self) -> str:
        return json.dumps(self.summary(), indent=2, sort_keys=True)


def _fmt(v):
    return f"{v:.6f}" if isinstance(v, float) else v
