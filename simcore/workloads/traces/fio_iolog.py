"""fio's I/O logs (``write_iolog=`` / ``read_iolog=``), versions 2 and 3.

Version 2 (first line ``fio version 2 iolog``) has file lines
``filename add|open|close`` and I/O lines ``filename action offset length``
with the action ``read``, ``write``, ``sync``, ``datasync``, ``trim`` or
``wait``; offsets and lengths are bytes. It has no timestamps.

Version 3 (``fio version 3 iolog``, fio >= 3.31) puts a timestamp first on
every line and forbids ``wait``.

Units, as measured here with fio 3.33 (the man page does not give the
version 3 unit, and it disagrees with what fio 3.33 does for ``wait``):

- version 3 timestamps are **microseconds** since the job started, both as
  ``write_iolog`` writes them and as ``read_iolog`` honours them (a log with
  I/Os at 0, 200,000 and 500,000 replayed in 0.5 s plus start-up);
- a version 2 ``wait N`` line makes fio 3.33 wait until **N milliseconds**
  after the replay started (two ``wait 1000`` lines took one second, not two;
  ``wait 200000`` took 200 s). The man page says "microseconds, relative to
  the previous wait". The reader follows what fio does (``wait_unit_ms``
  changes it); the writer emits ``wait`` lines only when asked.

Offsets become 512-byte sectors: a request covers every sector its bytes
touch. Each file named in the log is one ``client``; ``file=`` keeps one.
"""

from __future__ import annotations

import math
from pathlib import Path

from ...errors import TraceError
from ...records import READ, WRITE, Request
from .. import OpenWorkload
from .fields import number, whole

HEADER_V2 = "fio version 2 iolog"
HEADER_V3 = "fio version 3 iolog"
FILE_ACTIONS = {"add", "open", "close"}
IO_ACTIONS = {"read", "write", "sync", "datasync", "trim", "wait"}
DEFAULT_FILENAME = "/dev/disklab-replay-target"


def version(path: str | Path) -> int:
    """2 or 3, from the first line; anything else is a TraceError."""
    with open(path) as fh:
        first = fh.readline().strip()
    if first == HEADER_V2:
        return 2
    if first == HEADER_V3:
        return 3
    if first.startswith("fio version"):
        raise TraceError(str(path), 1, f"'{first}' is a fio iolog version simcore cannot "
                         "read; versions 2 and 3 are supported (version 1 died in fio 1.20)")
    raise TraceError(str(path), 1, f"'{first[:40]}' is not a fio iolog header; expected "
                     f"'{HEADER_V2}' or '{HEADER_V3}'")


def read(path: str | Path, file: str | None = None, gap_ms: float = 0.0,
         wait_unit_ms: float = 1.0) -> OpenWorkload:
    """Read a version 2 or 3 iolog (the header says which).

    Version 2 has no times: requests arrive at the time of the last ``wait``
    (``wait_unit_ms`` per unit, counted from the start) plus ``gap_ms`` per
    request since it, so ``gap_ms=0`` means "as fast as the queue allows".
    """
    v = version(path)
    return _read(path, v, file, gap_ms, wait_unit_ms)


def read_v2(path: str | Path, file: str | None = None, gap_ms: float = 0.0,
            wait_unit_ms: float = 1.0) -> OpenWorkload:
    if version(path) != 2:
        raise TraceError(str(path), 1, f"is not a version 2 iolog (first line must be "
                         f"'{HEADER_V2}')")
    return _read(path, 2, file, gap_ms, wait_unit_ms)


def read_v3(path: str | Path, file: str | None = None) -> OpenWorkload:
    if version(path) != 3:
        raise TraceError(str(path), 1, f"is not a version 3 iolog (first line must be "
                         f"'{HEADER_V3}')")
    return _read(path, 3, file, 0.0, 1.0)


def _read(path: str | Path, ver: int, only: str | None, gap_ms: float,
          wait_unit_ms: float) -> OpenWorkload:
    r = _Iolog(str(path), ver, only, gap_ms, wait_unit_ms)
    with open(path) as fh:
        fh.readline()
        for lineno, line in enumerate(fh, start=2):
            f = line.split()
            if f and not f[0].startswith("#"):
                r.line(lineno, f)
    if only is not None and only not in r.files:
        raise TraceError(r.p, 1, f"never adds the file '{only}'; it names: "
                         f"{', '.join(r.files) or 'no files'}", "filename")
    return OpenWorkload(r.reqs, name=Path(r.p).name)


class _Iolog:
    """The state of an iolog being read: its files, the open ones, the requests so far and
    the clock (v3: the last timestamp; v2: the last wait and the I/Os since it)."""

    def __init__(self, p: str, ver: int, only: str | None, gap_ms: float,
                 wait_unit_ms: float):
        self.p, self.ver, self.only = p, ver, only
        self.gap_ms, self.wait_unit_ms = gap_ms, wait_unit_ms
        self.files: dict[str, int] = {}
        self.opened: set[str] = set()
        self.reqs: list[Request] = []
        self.clock = 0.0  # v2: time of the last wait
        self.since_wait = 0
        self.last_t = -math.inf

    def line(self, lineno: int, f: list[str]) -> None:
        """One line's fields: a file action or an I/O."""
        t, f = self._time(lineno, f)
        if len(f) == 2:
            self._file_action(lineno, f[0], f[1])
        else:
            self._io(lineno, f, t)

    def _time(self, lineno: int, f: list[str]) -> tuple[float, list[str]]:
        """(the line's time in ms, its fields after any timestamp)."""
        p = self.p
        if self.ver != 3:
            if len(f) not in (2, 4):
                raise TraceError(p, lineno, f"has {len(f)} fields; a version 2 line is "
                                 "'filename action [offset length]'")
            return self.clock + self.since_wait * self.gap_ms, f
        if len(f) not in (3, 5):
            raise TraceError(p, lineno, f"has {len(f)} fields; a version 3 line is "
                             "'timestamp filename action [offset length]'")
        t = number(p, lineno, "timestamp", f[0]) / 1000.0  # µs -> ms
        if t < self.last_t:
            raise TraceError(p, lineno, f"timestamp {f[0]} is earlier than the line "
                             "before; fio writes them in order", "timestamp")
        self.last_t = t
        return t, f[1:]

    def _file_action(self, lineno: int, name: str, action: str) -> None:
        if action not in FILE_ACTIONS:
            raise TraceError(self.p, lineno, f"'{action}' is not a file action (add, open "
                             "or close)", "action")
        if action == "add":
            self.files.setdefault(name, len(self.files))
        elif action == "open":
            if name not in self.files:
                raise TraceError(self.p, lineno, f"opens '{name}' before adding it", "action")
            self.opened.add(name)
        else:
            self.opened.discard(name)

    def _io(self, lineno: int, f: list[str], t: float) -> None:
        p = self.p
        name, action = f[0], f[1]
        if action not in IO_ACTIONS:
            raise TraceError(p, lineno, f"'{action}' is not an I/O action (read, write, "
                             "sync, datasync, trim, wait)", "action")
        offset = whole(p, lineno, "offset", f[2], unit="bytes")
        length = whole(p, lineno, "length", f[3], unit="bytes")
        if action == "wait":
            if self.ver == 3:
                raise TraceError(p, lineno, "version 3 forbids 'wait'; its timestamps "
                                 "carry the timing", "action")
            self.clock = max(self.clock, offset * self.wait_unit_ms)
            self.since_wait = 0
            return
        if name not in self.files:
            raise TraceError(p, lineno, f"uses '{name}' before an 'add' line for it",
                             "filename")
        if name not in self.opened:
            raise TraceError(p, lineno, f"uses '{name}' while it is not open", "filename")
        if action not in ("read", "write"):
            return  # sync, datasync, trim: nothing for the disk model to move
        if length == 0:
            raise TraceError(p, lineno, "a read or write of 0 bytes", "length")
        self.since_wait += 1
        if self.only is not None and name != self.only:
            return
        lba = offset // 512
        sectors = -(-(offset + length) // 512) - lba
        self.reqs.append(Request(len(self.reqs), t, READ if action == "read" else WRITE, lba,
                                 sectors, self.files[name]))


def write_v3(workload: OpenWorkload, path: str | Path,
             filename: str = DEFAULT_FILENAME) -> None:
    """A version 3 log (µs timestamps), one file; replay it with ``read_iolog=`` and
    ``replay_redirect=`` pointing at a scratch device or file."""
    reqs = list(workload.requests)
    end = round(reqs[-1].arrival_ms * 1000) if reqs else 0
    with open(path, "w") as fh:
        fh.write(f"{HEADER_V3}\n0 {filename} add\n0 {filename} open\n")
        for r in reqs:
            fh.write(f"{round(r.arrival_ms * 1000)} {filename} "
                     f"{'read' if r.op == READ else 'write'} {r.lba * 512} {r.sectors * 512}\n")
        fh.write(f"{end} {filename} close\n")


def write_v2(workload: OpenWorkload, path: str | Path, filename: str = DEFAULT_FILENAME,
             waits: bool = False, wait_unit_ms: float = 1.0) -> None:
    """A version 2 log. With ``waits=True`` a ``wait`` line before each request
    holds it until its arrival time, in the unit fio 3.33 honours (see above)."""
    with open(path, "w") as fh:
        fh.write(f"{HEADER_V2}\n{filename} add\n{filename} open\n")
        for r in workload.requests:
            if waits and r.arrival_ms > 0:
                fh.write(f"{filename} wait {round(r.arrival_ms / wait_unit_ms)} 0\n")
            fh.write(f"{filename} {'read' if r.op == READ else 'write'} {r.lba * 512} "
                     f"{r.sectors * 512}\n")
        fh.write(f"{filename} close\n")
