"""DiskSim's trace formats: the ASCII trace (open arrivals) and the validation trace.

ASCII: ``arrival_ms devno lbn nsectors flags`` per line, flags bit 0x1 = read.
Validation: ``R|W buffaction lbn nsectors service_us next_gap_us`` per line,
replayed closed-loop with one request outstanding.
"""

from __future__ import annotations

import math
from pathlib import Path

from ..errors import TraceError
from ..records import READ, WRITE, Request
from ..workloads import OpenWorkload, ValidationStep, ValidationWorkload


def _fields(line: str) -> list[str]:
    return line.split("#", 1)[0].split()


def read_ascii(path: str | Path, device: int | None = None) -> OpenWorkload:
    """Read an ASCII trace; ``device`` keeps only one devno (all devices by default)."""
    p = str(path)
    reqs: list[Request] = []
    last = -math.inf
    names = ("arrival_ms", "devno", "lbn", "nsectors", "flags")
    with open(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            f = _fields(line)
            if not f:
                continue
            if len(f) != 5:
                raise TraceError(p, lineno, f"has {len(f)} fields; expected 5: "
                                 "arrival_ms devno lbn nsectors flags")
            try:
                t = float(f[0])
            except ValueError:
                raise TraceError(p, lineno, f"'{f[0]}' is not a number", "arrival_ms") from None
            if not math.isfinite(t) or t < 0:
                raise TraceError(p, lineno, f"{f[0]} must be a time >= 0", "arrival_ms")
            if t < last:
                raise TraceError(p, lineno, f"arrival {t} is earlier than the line before "
                                 f"({last})", "arrival_ms")
            last = t
            ints = []
            for name, text, minimum in zip(names[1:], f[1:], (0, 0, 1, 0), strict=True):
                try:
                    v = int(text, 0)
                except ValueError:
                    raise TraceError(p, lineno, f"'{text}' is not a whole number", name) from None
                if v < minimum:
                    raise TraceError(p, lineno, f"{v} must be at least {minimum}", name)
                ints.append(v)
            dev, lbn, n, flags = ints
            if device is not None and dev != device:
                continue
            reqs.append(Request(len(reqs), t, READ if flags & 1 else WRITE, lbn, n, dev))
    return OpenWorkload(reqs, name=Path(p).name)


def write_ascii(workload: OpenWorkload, path: str | Path) -> None:
    with open(path, "w") as fh:
        for r in workload.requests:
            fh.write(f"{r.arrival_ms:.6f} {r.client} {r.lba} {r.sectors} "
                     f"{1 if r.op == READ else 0}\n")


def read_validation(path: str | Path) -> ValidationWorkload:
    """Read a DiskSim validation trace (closed loop, measured service times in µs)."""
    p = str(path)
    steps: list[ValidationStep] = []
    lines: list[int] = []  # the file line of each step, for errors found later (replay)
    with open(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            f = _fields(line)
            if not f:
                continue
            if len(f) != 6:
                raise TraceError(p, lineno, f"has {len(f)} fields; expected 6: "
                                 "R|W buffaction lbn nsectors service_us next_gap_us")
            op = f[0].upper()
            if op not in (READ, WRITE):
                raise TraceError(p, lineno, f"'{f[0]}' is not R or W", "op")
            try:
                lbn = int(f[2])
            except ValueError:
                raise TraceError(p, lineno, f"'{f[2]}' is not a whole number", "lbn") from None
            try:
                n = int(f[3])
            except ValueError:
                raise TraceError(p, lineno, f"'{f[3]}' is not a whole number",
                                 "nsectors") from None
            if lbn < 0:
                raise TraceError(p, lineno, f"{lbn} must be at least 0", "lbn")
            if n < 1:
                raise TraceError(p, lineno, f"{n} must be at least 1", "nsectors")
            vals = []
            for name, text in (("service_us", f[4]), ("next_gap_us", f[5])):
                try:
                    v = float(text)
                except ValueError:
                    raise TraceError(p, lineno, f"'{text}' is not a number", name) from None
                if not math.isfinite(v) or v < 0:
                    raise TraceError(p, lineno, f"{text} must be a time >= 0", name)
                vals.append(v / 1000.0)
            steps.append(ValidationStep(op, lbn, n, vals[0], vals[1]))
            lines.append(lineno)
    if not steps:
        raise TraceError(p, 1, "holds no requests")
    return ValidationWorkload(steps, path=p, name=Path(p).name, meta={"lines": lines})
