"""hdparm: timed reads (``-t``, ``-T``, ``--offset``), identity (``-I``), write cache (``-W``).

Only read-only options are ever run: timings and queries. Nothing here sets a
drive feature (no ``-W0/-W1``, ``-A``, ``-X``...).

Units: hdparm's "MB" is 2^20 bytes (it reads 2 MiB buffers and counts them).
Parsers keep hdparm's printed number as ``mib_s`` and convert to ``mb_s``
(10^6 bytes per second), the unit of fio summaries and of simcore.

A loop device, a virtio disk or an NVMe drive answers no ATA IDENTIFY:
``hdparm -I`` then prints only the device name, and :func:`parse_I` says so
(``supported: False``) instead of inventing fields.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import shutil
import stat
import subprocess

from . import probe
from .honesty import honest_label
from .safety import Refused
from .units import MB

__all__ = [
    "HdparmError",
    "cached",
    "identify",
    "offset_sweep",
    "parse_I",
    "parse_T",
    "parse_W",
    "parse_t",
    "run",
    "summarize_sweep",
    "timing",
    "write_cache",
]

MIB = 1 << 20
_TIMING = re.compile(
    r"Timing (?P<what>O_DIRECT disk|buffered disk|O_DIRECT cached|cached) reads"
    r"(?: \(offset (?P<off>\d+) GB\))?:\s*(?P<mb>\d+) MB in\s+(?P<sec>[\d.]+) seconds\s*=\s*"
    r"(?P<rate>[\d.]+) (?P<unit>MB|kB)/sec")


class HdparmError(RuntimeError):
    """hdparm is missing, refused the device, or printed no timing (hdparm's words inside)."""


def _check_device(device: str) -> None:
    try:
        st = os.stat(device)
    except OSError as exc:
        raise Refused(f"{device} does not exist", "name a block device (see `python -m hardware "
                      "probe`)") from exc
    if not stat.S_ISBLK(st.st_mode):
        raise Refused(f"{device} is not a block device; hdparm measures devices",
                      "name a block device such as /dev/sdb (see `python -m hardware probe`)")
    if not os.access(device, os.R_OK):
        raise Refused(f"cannot read {device}", "run as root (sudo), or join the 'disk' group")


def run(args: list[str], device: str, timeout_s: float = 120.0) -> str:
    """Run ``hdparm ARGS DEVICE`` (read-only options only) and return its output."""
    allowed = {"-t", "-T", "-I", "-W", "--direct"}
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--offset":
            i += 2
            continue
        if a not in allowed:
            raise ValueError(f"hdparm option {a} is not one of the read-only options "
                             "-t, -T, -I, -W (query), --direct, --offset N")
        i += 1
    _check_device(device)
    exe = shutil.which("hdparm")
    if exe is None:
        raise HdparmError("hdparm is not installed (Debian/Ubuntu: apt-get install hdparm)")
    try:
        p = subprocess.run([exe, *args, device], capture_output=True, text=True,
                           timeout=timeout_s)
    except subprocess.TimeoutExpired as exc:
        raise HdparmError(f"hdparm did not finish within {timeout_s:.0f} s") from exc
    return p.stdout + p.stderr


def _timing_rows(text: str) -> list[dict]:
    rows = []
    device = None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("/dev/") and s.endswith(":"):
            device = s[:-1]
            continue
        m = _TIMING.search(line)
        if not m:
            continue
        rate = float(m.group("rate"))
        mib_s = rate / 1024 if m.group("unit") == "kB" else rate
        what = m.group("what")
        rows.append({
            "device": device,
            "test": "cached" if "cached" in what else "disk",
            "direct": what.startswith("O_DIRECT"),
            "offset_gib": int(m.group("off")) if m.group("off") is not None else None,
            "mib": int(m.group("mb")),
            "seconds": float(m.group("sec")),
            "mib_s": mib_s,
            "mb_s": mib_s * MIB / MB,
        })
    return rows


def _complaint(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not
             (ln.strip().startswith("/dev/") and ln.strip().endswith(":"))]
    return lines[-1] if lines else "hdparm printed nothing"


def parse_t(text: str) -> dict:
    """One ``hdparm -t`` result: device, direct, offset_gib, mib, seconds, mib_s, mb_s.

    Raises :class:`HdparmError` with hdparm's own words when the text holds
    no disk timing (``lseek() failed``, ``read() hit EOF``...).
    """
    rows = [r for r in _timing_rows(text) if r["test"] == "disk"]
    if not rows:
        raise HdparmError(f"no disk timing in hdparm's output: {_complaint(text)}")
    return rows[0]


def parse_T(text: str) -> dict:
    """One ``hdparm -T`` result (reads from the page cache: memory and CPU speed)."""
    rows = [r for r in _timing_rows(text) if r["test"] == "cached"]
    if not rows:
        raise HdparmError(f"no cached timing in hdparm's output: {_complaint(text)}")
    return rows[0]


def parse_W(text: str) -> dict:
    """``hdparm -W`` (query): ``write_cache`` True/False, or None with ``supported`` False."""
    m = re.search(r"write-caching\s*=\s*(\d+)\s*\((on|off)\)", text)
    if m:
        return {"supported": True, "write_cache": m.group(2) == "on"}
    reason = "the device does not report a write-cache setting"
    if "not supported" in text:
        reason = "hdparm: write-caching not supported"
    elif _complaint(text) != "hdparm printed nothing":
        reason = _complaint(text)
    return {"supported": False, "write_cache": None, "reason": reason}


_FIELDS = {
    "Model Number": "model",
    "Serial Number": None,  # never kept: recordings are shared
    "Firmware Revision": "firmware",
    "Transport": "transport",
}


def parse_I(text: str) -> dict:
    """``hdparm -I``: model, firmware, transport, capacity, sector sizes, rotation rate,
    queue depth, cache size, transfer modes (supported and active) and feature flags.

    ``pio_modes`` / ``dma_modes`` list every mode the drive supports;
    ``active_pio`` / ``active_dma`` the one marked ``*`` (in use). ``features``
    maps each listed command/feature to whether it is enabled (``*``).
    ``rotation_rpm`` is None and ``solid_state`` True for an SSD. Devices that
    answer no IDENTIFY (loop, virtio, NVMe) give ``supported: False``.
    """
    body = [ln for ln in text.splitlines() if ln.strip()]
    body = [ln for ln in body if not (ln.strip().startswith("/dev/") and ln.strip().endswith(":"))]
    if not any("Model Number" in ln or "ATA device" in ln for ln in body):
        why = _complaint(text) if body else ("the device answered no ATA IDENTIFY (a loop, "
                                             "virtio, NVMe or USB device without SAT)")
        return {"supported": False, "reason": why}
    out = _blank_identity()
    in_features = False
    for line in text.splitlines():
        s = line.strip()
        if not s or _identity_field(out, s):
            continue
        if s.startswith("Commands/features:"):
            in_features = True
            continue
        if in_features:
            if _feature_line(out, line, s):
                continue
            in_features = line.startswith("\t")
        _identity_line(out, s)
    _feature_flags(out)
    return out


def _blank_identity() -> dict:
    return {"supported": True, "model": None, "firmware": None, "transport": None,
            "sectors": None, "logical_sector_bytes": None, "physical_sector_bytes": None,
            "size_mb": None, "rotation_rpm": None, "solid_state": False,
            "queue_depth": None, "cache_kib": None, "pio_modes": [], "dma_modes": [],
            "active_pio": None, "active_dma": None, "features": {}}


def _identity_field(out: dict, s: str) -> bool:
    """A ``Model Number:``-style line (kept in ``out`` unless it is the serial); True if it was one."""
    m = re.match(r"([A-Za-z ]+?):\s+(.*)$", s)
    if not (m and m.group(1) in _FIELDS):
        return False
    key = _FIELDS[m.group(1)]
    if key:
        out[key] = m.group(2).strip()
    return True


def _feature_line(out: dict, line: str, s: str) -> bool:
    """A ``<tab> * <tab>name`` line of the Commands/features table; True if it was one."""
    fm = re.match(r"^\t\s*(\*?)\s*\t(.+)$", line)
    if fm and not s.startswith("Enabled"):
        out["features"][fm.group(2).strip()] = fm.group(1) == "*"
        return True
    return False


def _set_sectors(out: dict, m: re.Match, s: str) -> None:
    if m.group(1) or not out["sectors"]:  # the LBA48 count wins over the 28-bit one
        out["sectors"] = int(m.group(2))


def _set_logical(out: dict, m: re.Match, s: str) -> None:
    out["logical_sector_bytes"] = int(m.group(1))
    if "/Physical" in s:
        out["physical_sector_bytes"] = int(m.group(1))


def _set_rotation(out: dict, m: re.Match, s: str) -> None:
    val = m.group(1).strip()
    if val.isdigit():
        out["rotation_rpm"] = int(val)
    elif "Solid State" in val:
        out["solid_state"] = True


def _set_modes(out: dict, m: re.Match, s: str) -> None:
    modes = m.group(2).split()
    kind = "pio" if m.group(1) == "PIO" else "dma"
    clean = [x.lstrip("*") for x in modes if re.match(r"\*?[a-z]+\d+$", x)]
    active = [x.lstrip("*") for x in modes if x.startswith("*")]
    out[f"{kind}_modes"] = clean
    out[f"active_{kind}"] = active[0] if active else None


def _setter(key: str):
    def put(out: dict, m: re.Match, s: str) -> None:
        out[key] = int(m.group(1))
    return put


# One line of ``hdparm -I`` feeds at most one of these, the first that matches (in this order).
_IDENTITY_LINES = (
    (re.compile(r"LBA(48)?\s+user addressable sectors:\s*(\d+)").match, _set_sectors),
    (re.compile(r"Logical(?:/Physical)?\s+Sector size:\s*(\d+) bytes").match, _set_logical),
    (re.compile(r"Physical Sector size:\s*(\d+) bytes").match, _setter("physical_sector_bytes")),
    (re.compile(r"device size with M = 1000\*1000:\s*(\d+) MBytes").match, _setter("size_mb")),
    (re.compile(r"Nominal Media Rotation Rate:\s*(.+)$").match, _set_rotation),
    (re.compile(r"Queue depth:\s*(\d+)").search, _setter("queue_depth")),
    (re.compile(r"cache/buffer size\s*=\s*(\d+) KBytes").match, _setter("cache_kib")),
    (re.compile(r"(PIO|DMA):\s*(.*)$").match, _set_modes),
)


def _identity_line(out: dict, s: str) -> None:
    for find, put in _IDENTITY_LINES:
        m = find(s)
        if m:
            put(out, m, s)
            return


def _feature_flags(out: dict) -> None:
    """Write cache, look-ahead and NCQ, from the features table."""
    feats = out["features"]
    out["write_cache"] = feats.get("Write cache")
    out["look_ahead"] = feats.get("Look-ahead")
    ncq = [v for k, v in feats.items() if "Native Command Queueing" in k]
    out["ncq"] = ncq[0] if ncq else None


def _parsed(args: list[str], device: str, parse) -> dict:
    """Run hdparm with ``args`` on ``device`` (read-only queries) and parse; hdparm's text as ``raw``."""
    text = run(args, device)
    out = parse(text)
    out["raw"] = text
    return out


def timing(device: str, direct: bool = False, offset_gib: int | None = None) -> dict:
    """``hdparm -t`` (sequential reads for about 3 s); parsed, with hdparm's text as ``raw``."""
    args = ["-t"] + (["--direct"] if direct else []) + (
        ["--offset", str(int(offset_gib))] if offset_gib is not None else [])
    return _parsed(args, device, parse_t)


def cached(device: str) -> dict:
    """``hdparm -T`` (reads from the page cache for about 2 s); parsed."""
    return _parsed(["-T"], device, parse_T)


def identify(device: str) -> dict:
    """``hdparm -I``; parsed (``supported: False`` for devices without ATA IDENTIFY)."""
    return _parsed(["-I"], device, parse_I)


def write_cache(device: str) -> dict:
    """``hdparm -W`` as a query (never sets it); parsed."""
    return _parsed(["-W"], device, parse_W)


def offset_sweep(device: str, offsets_gib: list[int] | None = None, points: int = 8,
                 direct: bool = True, repeat: int = 1, label: str | None = None) -> dict:
    """``hdparm -t --offset G`` across the device: a measurement record (job ``hdparm-offsets``).

    hdparm's offset is in whole GiB, so the device must be at least 1 GiB and
    the sweep has at most one point per GiB. Default: ``points`` offsets
    evenly spread from 0 to the last whole GiB that leaves room to read.
    """
    from .record import MEASURED

    _check_device(device)
    info = probe.describe(device)
    size = info.get("size_bytes") or 0
    last = max(0, size // (1 << 30) - 1)
    if offsets_gib is None:
        n = max(1, min(points, last + 1))
        offsets_gib = sorted({round(i * last / max(1, n - 1)) for i in range(n)})
    bad = [g for g in offsets_gib if g < 0 or g > last]
    if bad:
        raise ValueError(f"offsets {bad} GiB are beyond {device} (size {size / (1 << 30):.2f} "
                         f"GiB; hdparm needs a whole GiB to read from the offset)")
    started = _dt.datetime.now(_dt.UTC)
    runs = []
    for g in offsets_gib:
        for r in range(repeat):
            args = ["-t"] + (["--direct"] if direct else []) + ["--offset", str(g)]
            text = run(args, device)
            if "hit EOF" not in text:
                parse_t(text)  # any other complaint stops the sweep with hdparm's words
            runs.append({"offset_gib": g, "repeat": r, "args": args, "text": text})
    raw = {"tool": "hdparm", "version": probe.machine().get("hdparm_version"),
           "size_bytes": size, "runs": runs}
    params = {"offsets_gib": ",".join(str(g) for g in offsets_gib), "direct": int(direct),
              "repeat": repeat}
    return {
        "schema": MEASURED,
        "job": "hdparm-offsets",
        "params": params,
        "recorded_at": started.isoformat(timespec="seconds"),
        "label": honest_label(info) + (f" {label}" if label else ""),
        "simulated": False,
        "machine": probe.machine(),
        "device": info,
        "notes": [],
        "raw": raw,
        "summary": summarize_sweep(raw, size),
    }


def summarize_sweep(raw: dict, size_bytes: int | None) -> dict:
    """Points (offset, MB/s) of an ``hdparm-offsets`` record, from its raw hdparm text."""
    by_offset: dict[int, list[dict]] = {}
    errors: dict[int, str] = {}
    for run_ in raw["runs"]:
        try:
            res = parse_t(run_["text"])
        except HdparmError as exc:
            errors[run_["offset_gib"]] = str(exc)
            by_offset.setdefault(run_["offset_gib"], [])
            continue
        by_offset.setdefault(run_["offset_gib"], []).append(res)
    points = []
    for g, rs in by_offset.items():
        if not rs:
            # hdparm sizes its read by the whole device, not by what lies after the
            # offset: a device fast enough to reach the end within 3 s gets "hit EOF"
            points.append({"offset_gib": g, "offset_bytes": g << 30,
                           "offset_pct": 100.0 * (g << 30) / size_bytes if size_bytes else None,
                           "read_mb_s": None, "error": errors.get(g)})
            continue
        mb = [r["mb_s"] for r in rs]
        row = {"offset_gib": g, "offset_bytes": g << 30,
               "offset_pct": 100.0 * (g << 30) / size_bytes if size_bytes else None,
               "read_mb_s": sum(mb) / len(mb), "read_mib_s": sum(r["mib_s"] for r in rs) / len(rs),
               "seconds": sum(r["seconds"] for r in rs) / len(rs), "repeats": len(rs)}
        if len(rs) > 1:
            row["read_mb_s_min"], row["read_mb_s_max"] = min(mb), max(mb)
        points.append(row)
    return {"points": points}
