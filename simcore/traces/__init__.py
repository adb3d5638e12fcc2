"""Trace readers and writers, one module per format.

``read_trace(path, fmt)`` returns an :class:`~simcore.workloads.OpenWorkload`;
every reader checks each line and raises :class:`~simcore.errors.TraceError`
naming the file, line and field. Formats register themselves in ``READERS``
and ``WRITERS``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..workloads import OpenWorkload
from . import csvtrace, disksim

READERS: dict[str, Callable[[str | Path], OpenWorkload]] = {
    "csv": csvtrace.read,
    "disksim-ascii": disksim.read_ascii,
}
WRITERS: dict[str, Callable[[OpenWorkload, str | Path], None]] = {
    "csv": csvtrace.write,
    "disksim-ascii": disksim.write_ascii,
}


def read_trace(path: str | Path, fmt: str = "csv") -> OpenWorkload:
    """Read an open-arrival trace in one of the ``READERS`` formats."""
    if fmt not in READERS:
        raise ValueError(f"unknown trace format '{fmt}'; known: {', '.join(sorted(READERS))}")
    if not Path(path).exists():
        raise FileNotFoundError(f"{path}: no such trace file")
    return READERS[fmt](path)


def write_trace(workload: OpenWorkload, path: str | Path, fmt: str = "csv",
                overwrite: bool = False) -> None:
    """Write a trace; refuses to replace an existing file unless ``overwrite``."""
    if fmt not in WRITERS:
        raise ValueError(f"unknown trace format '{fmt}'; known: {', '.join(sorted(WRITERS))}")
    if Path(path).exists() and not overwrite:
        raise FileExistsError(f"{path} exists; pass overwrite=True to replace it")
    WRITERS[fmt](workload, path)


__all__ = ["READERS", "WRITERS", "read_trace", "write_trace"]
