"""Sizes and durations as fio writes them (``4k``, ``1m``, ``10%``, ``500ms``).

fio's default ``kb_base=1024``: ``k``, ``m``, ``g`` and ``t`` are powers of
1024, and so are they here. Rates in the summaries are in MB/s of 10^6 bytes,
the unit of simcore's ``media_rate_mb_s``.
"""

from __future__ import annotations

import re

__all__ = ["MB", "fmt_size", "parse_duration_s", "parse_size"]

MB = 1_000_000  # bytes in the MB of "MB/s" everywhere in summaries

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?b?)\s*$", re.IGNORECASE)
_POWERS = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}


def parse_size(text: str | int, whole: int | None = None) -> int:
    """Bytes in ``text``: ``4096``, ``4k``, ``1MiB``, ``2g``, or ``N%`` of ``whole``."""
    if isinstance(text, int):
        return text
    s = str(text).strip()
    if s.endswith("%"):
        if whole is None:
            raise ValueError(f"'{s}' is a percentage, but the size of the target is not known "
                             "here; give a size such as 256m")
        pct = float(s[:-1])
        if not 0 <= pct <= 100:
            raise ValueError(f"'{s}': a percentage must be between 0 and 100")
        return int(whole * pct / 100)
    m = _SIZE.match(s)
    if not m:
        raise ValueError(f"'{s}' is not a size (examples: 4096, 4k, 1m, 2g, 10%)")
    value = float(m.group(1)) * 1024 ** _POWERS[m.group(2).lower()]
    return int(value)


def parse_duration_s(text: str | int | float) -> float:
    """Seconds in ``text``: ``5``, ``5s``, ``500ms``, ``2m`` (fio's default unit is seconds)."""
    if isinstance(text, int | float):
        return float(text)
    s = str(text).strip().lower()
    m = re.match(r"^(\d+(?:\.\d+)?)\s*(us|ms|s|m|h)?$", s)
    if not m:
        raise ValueError(f"'{text}' is not a duration (examples: 5s, 500ms, 2m)")
    scale = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}[m.group(2)]
    return float(m.group(1)) * scale


def fmt_size(n: int) -> str:
    """The shortest exact fio spelling of a byte count (``4k``, ``1m``, ``1536k``)."""
    for suffix, power in (("t", 4), ("g", 3), ("m", 2), ("k", 1)):
        unit = 1024 ** power
        if n and n % unit == 0:
            return f"{n // unit}{suffix}"
    return str(n)
