"""Switch a device's scheduler, read-ahead and request-queue size for one experiment.

:func:`temporarily` saves the current values, applies the new ones and puts
the old ones back on exit, also when the experiment raises (or is stopped
with Ctrl-C). Only this module writes to sysfs.

Order matters on blk-mq: switching the scheduler resets ``nr_requests`` to the
new scheduler's default, so the scheduler is set first and ``nr_requests``
last, and restoring goes the same way.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from . import _sys
from .safety import Refused

__all__ = ["TuningError", "current", "set_value", "temporarily"]


class TuningError(Exception):
    """A setting could not be applied or restored (the message names the file and value)."""


def _queue(device: str | os.PathLike) -> tuple[str, Path]:
    dev = os.fspath(device)
    name = _sys.block_name(dev) if dev.startswith("/") else dev
    if name is None:
        raise Refused(f"{dev} is not a block device, so it has no scheduler or read-ahead",
                      "pass a block device such as /dev/sdb (see `python -m hardware probe`)")
    q = _sys.queue_dir(name)
    if not (q / "scheduler").exists():
        raise Refused(f"/dev/{name} has no request queue settings in {q}",
                      "choose a whole block device")
    return name, q


def current(device: str | os.PathLike) -> dict:
    """The scheduler, read_ahead_kb and nr_requests of a device now."""
    _, q = _queue(device)
    sched, names = _sys.parse_scheduler(_sys.read_text(q / "scheduler"))
    return {
        "scheduler": sched,
        "schedulers": names,
        "read_ahead_kb": _sys.read_int(q / "read_ahead_kb"),
        "nr_requests": _sys.read_int(q / "nr_requests"),
    }


def set_value(device: str | os.PathLike, key: str, value: str | int) -> None:
    """Write one queue setting (``scheduler``, ``read_ahead_kb`` or ``nr_requests``)."""
    name, q = _queue(device)
    if key not in ("scheduler", "read_ahead_kb", "nr_requests"):
        raise ValueError(f"unknown queue setting '{key}' (use scheduler, read_ahead_kb or "
                         "nr_requests)")
    if key == "scheduler":
        _, names = _sys.parse_scheduler(_sys.read_text(q / "scheduler"))
        if str(value) not in names:
            hint = ""
            if value in ("bfq", "kyber"):
                hint = f"; load it with `modprobe {'kyber-iosched' if value == 'kyber' else value}`"
            raise Refused(f"scheduler '{value}' is not available on /dev/{name} "
                          f"(available: {', '.join(names) or 'none'})",
                          f"choose one of those{hint}")
    else:
        try:
            if int(value) < 0:
                raise ValueError
        except (TypeError, ValueError):
            raise ValueError(f"{key} must be a whole number >= 0, not {value!r}") from None
    path = q / key
    try:
        path.write_text(f"{value}\n")
    except PermissionError as exc:
        raise Refused(f"cannot write {path}", "switching queue settings needs root (sudo)") from exc
    except OSError as exc:
        raise TuningError(f"{path}: the kernel refused {value!r} ({exc.strerror})") from exc


@contextlib.contextmanager
def temporarily(device: str | os.PathLike, scheduler: str | None = None,
                read_ahead_kb: int | None = None,
                nr_requests: int | None = None) -> Iterator[dict]:
    """Apply queue settings for the ``with`` block and restore the old ones afterwards.

    Yields ``{"before": {...}, "during": {...}}``. Settings left as ``None`` are
    not touched. Restoring runs even when the block raises; a failure to
    restore raises :class:`TuningError` (after the block's own exception, if
    any, which is kept as the cause).
    """
    before = current(device)
    wanted = {k: v for k, v in (("scheduler", scheduler), ("read_ahead_kb", read_ahead_kb),
                                ("nr_requests", nr_requests)) if v is not None}
    info = {"before": {k: before[k] for k in ("scheduler", "read_ahead_kb", "nr_requests")},
            "during": {}}
    applied: list[str] = []
    try:
        for key in ("scheduler", "read_ahead_kb", "nr_requests"):
            if key in wanted:
                applied.append(key)
                set_value(device, key, wanted[key])
        now = current(device)
        info["during"] = {k: now[k] for k in ("scheduler", "read_ahead_kb", "nr_requests")}
        yield info
    finally:
        problems = []
        restore = list(applied)
        if "scheduler" in restore and "nr_requests" not in restore:
            restore.append("nr_requests")  # a scheduler switch reset it
        for key in ("scheduler", "read_ahead_kb", "nr_requests"):
            if key not in restore or before[key] is None:
                continue
            try:
                if current(device)[key] != before[key]:
                    set_value(device, key, before[key])
            except (OSError, TuningError, Refused, ValueError) as exc:
                problems.append(f"{key}={before[key]}: {exc}")
        if problems:
            raise TuningError(f"could not restore the settings of {os.fspath(device)}: "
                              + "; ".join(problems))
