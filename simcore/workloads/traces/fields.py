"""Parsing one field of a trace line, with an error that names the file, line and field."""

from __future__ import annotations

import math

from ...errors import TraceError


def number(path: str, line: int, field: str, text: str) -> float:
    """A finite, non-negative number (a time, say)."""
    try:
        x = float(text)
    except ValueError:
        raise TraceError(path, line, f"'{text}' is not a number", field) from None
    if not math.isfinite(x) or x < 0:
        raise TraceError(path, line, f"{text} must be a finite number >= 0", field)
    return x


def whole(path: str, line: int, field: str, text: str, minimum: int = 0, unit: str = "",
          base: int = 10) -> int:
    """A whole number of at least ``minimum`` (``unit`` only words the error: "of bytes";
    ``base=0`` also takes ``0x`` hexadecimal, as DiskSim's flags field needs)."""
    try:
        x = int(text.strip(), base)
    except ValueError:
        of = f" of {unit}" if unit else ""
        raise TraceError(path, line, f"'{text}' is not a whole number{of}", field) from None
    if x < minimum:
        raise TraceError(path, line, f"{x} must be at least {minimum}", field)
    return x
