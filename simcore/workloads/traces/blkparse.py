"""blkparse's text output: the block layer's events, one per line.

``blktrace`` records what the Linux block layer does with each request and
``blkparse`` prints it. Its default line is::

      8,0    3        6     0.000007651  4162  D   R 1224 + 8 [fio]

device (major,minor), CPU, sequence number, time in seconds, PID, action, RWBS
flags, start sector ``+`` sector count, and the process. Seed 003 §2.1 logged
requests at the moment the IDE driver sent them to the disk; the block layer's
equivalent is the *issue* action ``D`` (note 003 §7.1), so the reader keeps
``D`` events by default. ``Q`` (queued: what the application asked for, before
merging) and ``C`` (completed) can be chosen instead.

The reader also accepts the compact line that note 003 §7.1 suggests,
``blkparse -f "%T.%9t %M,%m %a %d %S %n\\n"``::

    0.000007651 8,0 D R 1224 8

It stops at blkparse's closing summary (``CPU0 (8,0):``, ``Total (8,0):``).
Events without data (``N`` flags, flushes with no sectors) and discards are
skipped; reads and writes become requests. Times are kept as they are
(milliseconds from the start of the trace).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import NamedTuple

from ...errors import TraceError
from ...records import READ, WRITE, Request
from .. import OpenWorkload
from .fields import whole

ACTIONS = {"Q", "G", "I", "D", "C", "M", "F", "A", "X", "P", "U", "S", "T", "B", "R", "m"}

_DEFAULT = re.compile(
    r"^\s*(?P<maj>\d+),(?P<min>\d+)\s+(?P<cpu>\d+)\s+(?P<seq>\d+)\s+(?P<time>\S+)\s+"
    r"(?P<pid>\d+)\s+(?P<action>\S+)\s+(?P<rwbs>\S+)\s*(?P<rest>.*)$"
)
_COMPACT = re.compile(
    r"^\s*(?P<time>\d+\.\d+)\s+(?P<maj>\d+),(?P<min>\d+)\s+(?P<action>[A-Za-z]+)\s+"
    r"(?P<rwbs>[A-Z]+)\s+(?P<sector>\S+)\s+(?P<count>\S+)\s*$"
)
_PAYLOAD = re.compile(r"^(?P<sector>\S+)\s*\+\s*(?P<count>\S+)")
_SUMMARY = re.compile(r"^(CPU\d+|Total)\s*\(|^Throughput|^Events \(|^Skips:")


class Event(NamedTuple):
    """One blkparse event that moves data."""

    time_ms: float
    device: str
    action: str
    op: str
    lba: int
    sectors: int
    pid: int


def events(path: str | Path) -> list[Event]:
    """Every read or write event in the file (any action), in file order."""
    p = str(path)
    out: list[Event] = []
    with open(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            text = line.rstrip("\n")
            if not text.strip() or text.lstrip().startswith("#"):
                continue
            if _SUMMARY.match(text.strip()):
                break  # blkparse's per-CPU and total summary closes the event list
            m = _DEFAULT.match(text)
            compact = False
            if m is None:
                m = _COMPACT.match(text)
                compact = True
            if m is None:
                raise TraceError(p, lineno, "is not a blkparse event line; expected "
                                 "'maj,min cpu seq seconds pid action rwbs sector + count "
                                 "[process]'")
            action = m.group("action")
            if action not in ACTIONS:
                raise TraceError(p, lineno, f"'{action}' is not a blkparse action "
                                 f"(one of {' '.join(sorted(ACTIONS))})", "action")
            rwbs = m.group("rwbs")
            if not re.fullmatch(r"[A-Z]+", rwbs):
                raise TraceError(p, lineno, f"'{rwbs}' is not an RWBS flag string such as "
                                 "R, W, WS, RA or N", "rwbs")
            t = _seconds(p, lineno, m.group("time"))
            if compact:
                sector_text, count_text = m.group("sector"), m.group("count")
            else:
                rest = m.group("rest")
                pm = _PAYLOAD.match(rest)
                if pm is None:
                    continue  # plug, unplug, messages: no sectors, nothing to replay
                sector_text, count_text = pm.group("sector"), pm.group("count")
            op = READ if "R" in rwbs else WRITE if "W" in rwbs else None
            if op is None or "D" in rwbs:
                continue  # no data (N), or a discard
            lba = whole(p, lineno, "sector", sector_text, 0, unit="sectors")
            n = whole(p, lineno, "count", count_text, 0, unit="sectors")
            if n == 0:
                continue  # an empty flush (FWS 0 + 0)
            device = f"{m.group('maj')},{m.group('min')}"
            pid = int(m.group("pid")) if not compact else 0
            out.append(Event(t, device, action, op, lba, n, pid))
    return out


def read(path: str | Path, action: str = "D", device: str | None = None) -> OpenWorkload:
    """Requests at one block-layer action (``D`` = issued to the device by default).

    ``device`` (``"8,0"``) keeps one device; a trace holding several devices
    without it is refused, because their sector numbers are not one space.
    """
    if action not in ACTIONS:
        raise ValueError(f"'{action}' is not a blkparse action; use D (issue), Q (queue) "
                         "or C (complete)")
    p = str(path)
    evs = [e for e in events(path) if e.action == action]
    devices = sorted({e.device for e in evs})
    if device is not None:
        evs = [e for e in evs if e.device == device]
    elif len(devices) > 1:
        raise TraceError(p, 1, f"holds events of several devices ({', '.join(devices)}); "
                         "choose one with device='maj,min'", "device")
    evs.sort(key=lambda e: e.time_ms)  # per-CPU streams can interleave out of order
    reqs = [Request(i, e.time_ms, e.op, e.lba, e.sectors) for i, e in enumerate(evs)]
    return OpenWorkload(reqs, name=Path(p).name)


class Latency(NamedTuple):
    issue_ms: float
    complete_ms: float
    op: str
    lba: int
    sectors: int


def latencies(path: str | Path, device: str | None = None) -> list[Latency]:
    """Pair each issue (D) with its completion (C) by device and sector: measured service."""
    pending: dict[tuple[str, int, str], list[Event]] = {}
    out: list[Latency] = []
    for e in events(path):
        if device is not None and e.device != device:
            continue
        key = (e.device, e.lba, e.op)
        if e.action == "D":
            pending.setdefault(key, []).append(e)
        elif e.action == "C" and pending.get(key):
            d = pending[key].pop(0)
            out.append(Latency(d.time_ms, e.time_ms, e.op, e.lba, d.sectors))
    out.sort(key=lambda x: x.issue_ms)
    return out


def write(workload: OpenWorkload, path: str | Path, device: str = "8,0",
          process: str = "simcore") -> None:
    """Write the requests as blkparse default-format ``D`` (issue) events."""
    with open(path, "w") as fh:
        for seq, r in enumerate(workload.requests, start=1):
            secs = r.arrival_ms / 1000.0
            fh.write(f"{device:>5} {0:>3} {seq:>8} {secs:14.9f} {0:>5}  D {r.op:>3} "
                     f"{r.lba} + {r.sectors} [{process}]\n")


def _seconds(path: str, line: int, text: str) -> float:
    try:
        t = float(text)
    except ValueError:
        raise TraceError(path, line, f"'{text}' is not a time in seconds", "time") from None
    if not math.isfinite(t) or t < 0:
        raise TraceError(path, line, f"{text} must be a time >= 0 s", "time")
    return t * 1000.0
