"""Trace readers and writers, one module per format.

``read_trace(path, fmt)`` returns an :class:`~simcore.workloads.OpenWorkload`;
every reader checks each line and raises :class:`~simcore.errors.TraceError`
naming the file, line and field. Formats register themselves in ``READERS``
and ``WRITERS``; :func:`convert` joins the two and :func:`sniff` guesses a
file's format from its first lines.

| name            | what                                                      |
|-----------------|-----------------------------------------------------------|
| ``csv``         | simcore's CSV: ``arrival_ms,op,lba,sectors[,id,client]``  |
| ``disksim-ascii``| DiskSim: ``arrival_ms devno lbn nsectors flags``         |
| ``blkparse``    | blkparse text output (issue ``D`` events by default)      |
| ``fio``         | fio iolog, version 2 or 3 (the header says which)         |
| ``fio-v2``      | fio iolog version 2 (no timestamps; ``wait`` lines)       |
| ``fio-v3``      | fio iolog version 3 (µs timestamps)                       |
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...errors import TraceError
from .. import OpenWorkload
from . import blkparse, csvtrace, disksim, fio_iolog

READERS: dict[str, Callable[[str | Path], OpenWorkload]] = {
    "csv": csvtrace.read,
    "disksim-ascii": disksim.read_ascii,
    "blkparse": blkparse.read,
    "fio": fio_iolog.read,
    "fio-v2": fio_iolog.read_v2,
    "fio-v3": fio_iolog.read_v3,
}
WRITERS: dict[str, Callable[[OpenWorkload, str | Path], None]] = {
    "csv": csvtrace.write,
    "disksim-ascii": disksim.write_ascii,
    "blkparse": blkparse.write,
    "fio-v2": fio_iolog.write_v2,
    "fio-v3": fio_iolog.write_v3,
}
EXTENSIONS = {".csv": "csv", ".ascii": "disksim-ascii", ".trace": "disksim-ascii",
              ".blkparse": "blkparse", ".iolog": "fio"}


def read_trace(path: str | Path, fmt: str = "csv", **options) -> OpenWorkload:
    """Read an open-arrival trace in one of the ``READERS`` formats (``"auto"`` sniffs)."""
    if not Path(path).exists():
        raise FileNotFoundError(f"{path}: no such trace file")
    if fmt == "auto":
        fmt = sniff(path)
    if fmt not in READERS:
        raise ValueError(f"unknown trace format '{fmt}'; known: {', '.join(sorted(READERS))}")
    return READERS[fmt](path, **options)


def write_trace(workload: OpenWorkload, path: str | Path, fmt: str = "csv",
                overwrite: bool = False, **options) -> None:
    """Write a trace; refuses to replace an existing file unless ``overwrite``."""
    if fmt not in WRITERS:
        raise ValueError(f"unknown trace format '{fmt}'; known: {', '.join(sorted(WRITERS))}")
    if Path(path).exists() and not overwrite:
        raise FileExistsError(f"{path} exists; pass overwrite=True to replace it")
    WRITERS[fmt](workload, path, **options)


def convert(src: str | Path, dst: str | Path, from_fmt: str = "auto", to_fmt: str = "csv",
            overwrite: bool = False) -> OpenWorkload:
    """Read ``src`` in one format and write it to ``dst`` in another; returns the requests."""
    if Path(src).resolve() == Path(dst).resolve():
        raise ValueError(f"{dst} is the input file; write the conversion somewhere else")
    workload = read_trace(src, from_fmt)
    write_trace(workload, dst, to_fmt, overwrite=overwrite)
    return workload


def sniff(path: str | Path) -> str:
    """The format of a trace file, from its first non-blank line."""
    p = str(path)
    with open(path) as fh:
        first = ""
        for line in fh:
            if line.strip() and not line.lstrip().startswith("#"):
                first = line.strip()
                break
    if first.startswith("fio version"):
        return "fio-v3" if first == fio_iolog.HEADER_V3 else "fio-v2"
    if first.split(",")[0] in ("id", "arrival_ms") or "arrival_ms" in first.split(","):
        return "csv"
    if blkparse._DEFAULT.match(first) or blkparse._COMPACT.match(first):
        return "blkparse"
    if len(first.split()) == 5:
        return "disksim-ascii"
    raise TraceError(p, 1, "cannot tell the trace format from the first line; name it "
                     f"(one of {', '.join(sorted(READERS))})")


__all__ = ["EXTENSIONS", "READERS", "WRITERS", "convert", "read_trace", "sniff",
           "write_trace"]
