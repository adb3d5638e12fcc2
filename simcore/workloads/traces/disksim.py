"""DiskSim's trace formats: the ASCII trace (open arrivals) and the validation trace.

ASCII: ``arrival_ms devno lbn nsectors flags`` per line, flags bit 0x1 = read.
Validation: ``R|W buffaction lbn nsectors service_us next_gap_us`` per line,
replayed closed-loop with one request outstanding.
"""

from __future__ import annotations

import math
from itertools import repeat
from pathlib import Path

import numpy as np

from ...errors import TraceError
from ...records import READ, WRITE, Request
from .. import OpenWorkload, ValidationStep, ValidationWorkload
from .fields import number, whole


def _fields(line: str) -> list[str]:
    return line.split("#", 1)[0].split()


def read_ascii(path: str | Path, device: int | None = None) -> OpenWorkload:
    """Read an ASCII trace; ``device`` keeps only one devno (all devices by default).

    Well-formed lines take a quick path; the first line that is not (or any line the
    quick checks doubt) goes through the careful field parser, whose error names the
    file, the line and the field.
    """
    p = str(path)
    with open(path) as fh:
        text = fh.read()
    quick = _quick_ascii(text, device)
    if quick is not None:
        return OpenWorkload(quick, name=Path(p).name)
    reqs: list[Request] = []
    append = reqs.append
    last = -math.inf
    with open(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            f = line.split()
            try:
                if len(f) != 5 or "#" in line:
                    raise ValueError
                t = float(f[0])
                dev, lbn, n, flags = int(f[1], 0), int(f[2], 0), int(f[3], 0), int(f[4], 0)
                if not (0 <= t < math.inf and t >= last) or dev < 0 or lbn < 0 or n < 1 \
                        or flags < 0:
                    raise ValueError
            except ValueError:
                parsed = _careful_ascii(p, lineno, line, last)
                if parsed is None:
                    continue
                t, dev, lbn, n, flags = parsed
            last = t
            if device is not None and dev != device:
                continue
            append(Request(len(reqs), t, READ if flags & 1 else WRITE, lbn, n, dev))
    return OpenWorkload(reqs, name=Path(p).name)


def _quick_ascii(text: str, device: int | None) -> list[Request] | None:
    """The whole file at once, column by column, when every line is well formed (five
    fields, no comment or blank line, times finite, non-negative and in order, numbers in
    range); None otherwise, and the line-by-line reader takes over (its errors name the
    line). Each field is parsed as that reader parses it (``float``, ``int(x, 0)``), so
    the requests are the same."""
    if "#" in text:
        return None
    rows = text.split("\n")  # as the line reader splits them (newlines already universal)
    if rows and rows[-1] == "":
        rows.pop()
    if not rows or set(map(len, map(str.split, rows))) != {5}:
        return None
    tokens = text.split()  # five to a line, in order
    try:
        t = list(map(float, tokens[0::5]))
        dev, lbn, n, flags = (list(map(int, tokens[j::5], repeat(0))) for j in range(1, 5))
    except ValueError:
        return None
    ta = np.array(t)
    if not (np.all(ta >= 0) and np.all(ta < math.inf) and np.all(ta[1:] >= ta[:-1])):
        return None
    if min(dev) < 0 or min(lbn) < 0 or min(n) < 1 or min(flags) < 0:
        return None
    ops = [READ if f & 1 else WRITE for f in flags]
    if device is not None:
        keep = [i for i, d in enumerate(dev) if d == device]
        t, ops, lbn, n, dev = ([c[i] for i in keep] for c in (t, ops, lbn, n, dev))
    return list(map(Request._make, zip(range(len(t)), t, ops, lbn, n, dev, repeat(False))))


def _careful_ascii(p: str, lineno: int, line: str, last: float):
    """One ASCII line parsed field by field: the values, None for a blank or comment line,
    or a TraceError naming the field."""
    names = ("arrival_ms", "devno", "lbn", "nsectors", "flags")
    f = _fields(line)
    if not f:
        return None
    if len(f) != 5:
        raise TraceError(p, lineno, f"has {len(f)} fields; expected 5: "
                         "arrival_ms devno lbn nsectors flags")
    t = number(p, lineno, "arrival_ms", f[0])
    if t < last:
        raise TraceError(p, lineno, f"arrival {t} is earlier than the line before "
                         f"({last})", "arrival_ms")
    dev, lbn, n, flags = (whole(p, lineno, name, text, minimum, base=0) for name, text, minimum
                          in zip(names[1:], f[1:], (0, 0, 1, 0), strict=True))
    return t, dev, lbn, n, flags


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
            lbn = whole(p, lineno, "lbn", f[2], 0)
            n = whole(p, lineno, "nsectors", f[3], 1)
            service = number(p, lineno, "service_us", f[4]) / 1000.0
            gap = number(p, lineno, "next_gap_us", f[5]) / 1000.0
            steps.append(ValidationStep(op, lbn, n, service, gap))
            lines.append(lineno)
    if not steps:
        raise TraceError(p, 1, "holds no requests")
    return ValidationWorkload(steps, path=p, name=Path(p).name, meta={"lines": lines})
