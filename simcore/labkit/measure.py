"""Sequential read speed across a device, for the labs' hardware parts.

Three honest sources, each labelled so that a reader always knows which one
a number came from:

- ``measured``: read just now from the user's own device (read-only), through
  the ``hardware`` package (fio's ``zone-bandwidth`` job, else its hdparm
  offset sweep), or plain ``hdparm -t --direct --offset`` when that package
  cannot run (needs root);
- ``recorded``: a recording in ``data/measurements/<job>.loop.json`` (format
  ``disklab-measurement/1``, see that folder's README), made on a loop device
  over a file on a virtual disk: honest numbers, but no zones;
- ``simulated``: the lab's disk model reading 32 MiB at several offsets, used
  only when there is neither a measurement nor a recording.

Seeds: Gray 2000 §2.2 (zones; outer tracks read faster) and its Lab 8 (§7.4:
sweep the offset, plot MB/s against it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

KINDS = ("measured", "recorded", "simulated")


@dataclass(frozen=True)
class ZoneBandwidth:
    """Sequential read speed at points from the start to the end of a device.

    ``points`` are ``(offset, MB/s)`` with the offset a fraction of the device
    (0 is the first LBA), sorted by offset; MB is 10^6 bytes.
    """

    kind: str
    device: str
    points: tuple[tuple[float, float], ...]
    source: str
    note: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {self.kind!r}")
        if len(self.points) < 2:
            raise ValueError("a bandwidth sweep needs at least two points")

    @property
    def start_mb_s(self) -> float:
        return self.points[0][1]

    @property
    def end_mb_s(self) -> float:
        return self.points[-1][1]

    @property
    def ratio(self) -> float:
        """Start speed over end speed (outer over inner zone on a hard disk)."""
        return self.start_mb_s / self.end_mb_s

    def describe(self) -> str:
        head = {"measured": "MEASURED on your machine",
                "recorded": "RECORDED earlier, not on your machine",
                "simulated": "SIMULATED, not measured"}[self.kind]
        text = (f"{head}: {self.device}, {len(self.points)} points; start "
                f"{self.start_mb_s:.1f} MB/s, end {self.end_mb_s:.1f} MB/s.\nSource: {self.source}")
        return text + (f"\nNote: {self.note}" if self.note else "")


# -- reading recordings ------------------------------------------------------------------------

_OFFSET_KEYS = ("offset_fraction", "offset_pct", "offset_percent", "offset_gib", "offset_bytes",
                "offset")
_BW_KEYS = ("mb_s", "MB_s", "bw_mb_s", "read_mb_s", "bandwidth_mb_s", "mbps", "bw_bytes",
            "read_bw_bytes", "bw")
_SIZE_KEYS = ("size_bytes", "target_size_bytes", "device_size_bytes", "capacity_bytes")


def _num(x: Any) -> float | None:
    if isinstance(x, bool):
        return None
    if isinstance(x, int | float):
        return float(x)
    if isinstance(x, str):
        m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*%?\s*", x)
        if m:
            try:
                return float(m.group(1))
            except ValueError:
                return None
    return None


def _offset(d: dict, size: float | None) -> float | None:
    for k in _OFFSET_KEYS:
        if k not in d:
            continue
        v = _num(d[k])
        if v is None:
            continue
        if k == "offset_fraction":
            return v
        if k in ("offset_pct", "offset_percent") or (isinstance(d[k], str) and "%" in d[k]):
            return v / 100.0
        if k == "offset_gib":
            return v * 2**30 / size if size else v
        return v / size if size else v  # bytes; normalised later if the size is unknown
    return None


def _bandwidth(d: dict) -> float | None:
    for k in _BW_KEYS:
        if k in d:
            v = _num(d[k])
            if v is None:
                continue
            if k in ("bw_bytes", "read_bw_bytes"):
                return v / 1e6
            if k == "bw":  # fio reports KiB/s
                return v * 1024 / 1e6
            return v
    read = d.get("read")
    if isinstance(read, dict):
        return _bandwidth(read)
    return None


def _walk(obj: Any) -> Iterable[dict]:
    if isinstance(obj, dict):
        yield obj
        for v in obj.values():
            yield from _walk(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _walk(v)


def points_from_json(obj: Any) -> list[tuple[float, float]]:
    """(offset fraction, MB/s) pairs found anywhere in a recording or a job result."""
    size = None
    for d in _walk(obj):
        for k in _SIZE_KEYS:
            if _num(d.get(k)):
                size = _num(d[k])
                break
        if size:
            break
    pts = []
    for d in _walk(obj):
        opts = d.get("job options") if isinstance(d.get("job options"), dict) else {}
        off = _offset(d, size)
        if off is None and opts:
            off = _offset(opts, size)
        bw = _bandwidth(d)
        if off is not None and bw is not None and bw > 0:
            pts.append((off, bw))
    if pts and max(o for o, _ in pts) > 1.0:  # raw offsets with no size: scale to the largest
        top = max(o for o, _ in pts)
        pts = [(o / top, b) for o, b in pts]
    return sorted(set(pts))


def _disklab_points(obj: dict) -> list[tuple[float, float]]:
    """Points of a ``disklab-measurement/1`` record: its ``summary.points`` (data/measurements)."""
    size = _num((obj.get("target") or {}).get("size_bytes")) if isinstance(
        obj.get("target"), dict) else None
    pts = []
    for p in (obj.get("summary") or {}).get("points") or []:
        if not isinstance(p, dict):
            continue
        off = _offset(p, size)
        bw = _num(p.get("read_mb_s"))
        if off is not None and bw is not None and bw > 0:
            pts.append((off, bw))
    return sorted(pts)


def _describe_recording(obj: Any, path: Path) -> tuple[str, str, str]:
    top = obj if isinstance(obj, dict) else {}
    target = top.get("target") if isinstance(top.get("target"), dict) else {}
    device = top.get("device") if isinstance(top.get("device"), dict) else {}
    name = str(target.get("path") or top.get("target") or top.get("device") or "a device")
    kind = str(device.get("kind") or "")
    shown = f"{name} ({kind})" if kind else name
    words = [str(top[k]) for k in ("label", "description", "machine_label")
             if isinstance(top.get(k), str)]
    when = str(top.get("recorded_at") or "")[:10]
    source = path.name + (f", recorded {when}" if when else "") + (
        ": " + " ".join(words) if words else "")
    note = ""
    if any(w in (kind + name + path.name) for w in ("loop", "virtual", "file", "ram")):
        spread = (top.get("summary") or {}).get("spread_pct")
        extra = f" (this recording's points spread by {spread:.0f}%)" if isinstance(
            spread, int | float) else ""
        note = ("this device is not a hard disk, so it has no zones: differences between its "
                f"points come from the storage and caches underneath{extra}, not from geometry. "
                "Only a real hard disk shows the outer-to-inner drop.")
    return shown, source, note


def load_recording(path: str | Path) -> ZoneBandwidth | None:
    """A recording as a :class:`ZoneBandwidth`, or None if absent or unreadable."""
    p = Path(path)
    if not p.exists():
        return None
    try:
        obj = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    if isinstance(obj, dict) and str(obj.get("schema", "")).startswith("disklab-"):
        pts = _disklab_points(obj)
    else:
        pts = points_from_json(obj)
    if len(pts) < 2:
        return None
    device, source, note = _describe_recording(obj, p)
    kind = "simulated" if isinstance(obj, dict) and obj.get("simulated") is True else "recorded"
    return ZoneBandwidth(kind, device, tuple(pts), source, note)


# -- simulating --------------------------------------------------------------------------------

def simulate(mech, points: int = 11, size_kib: int = 32 * 1024) -> ZoneBandwidth:
    """The model's sequential read speed (32 MiB reads) at evenly spread offsets."""
    from ..disk.access import HeadState

    layout = mech.layout
    sectors = min(size_kib * 2, layout.capacity // (points + 1))
    pts = []
    for i in range(points):
        frac = i / (points - 1)
        lba = int(frac * (layout.capacity - sectors))
        addr = layout.locate(lba)
        acc = mech.access(lba, sectors, False, 0.0, HeadState(addr.cylinder, addr.surface))
        pts.append((frac, sectors * 512 / 1e6 / (acc.end_ms / 1000.0)))
    return ZoneBandwidth(
        "simulated", f"the model of the {mech.profile.name}", tuple(pts),
        f"simcore: {size_kib // 1024} MiB sequential reads at {points} offsets, from a standing "
        "start on the right track (no seek)",
        "no measurement and no recording were available, so these numbers come from the model.")


def recording_path(job: str) -> Path:
    from ..disk.profile_loader import data_dir

    return data_dir() / "measurements" / f"{job}.loop.json"


def recorded_or_simulated(job: str, mech) -> ZoneBandwidth:
    """The recording of ``job`` if the project has one, else the model's numbers."""
    rec = load_recording(recording_path(job))
    return rec if rec is not None else simulate(mech)


# -- measuring ---------------------------------------------------------------------------------

class MeasureError(RuntimeError):
    """The device could not be measured; the message says why and what to do."""


def _device_bytes(device: str) -> int:
    name = Path(os.path.realpath(device)).name
    try:
        return int(Path(f"/sys/class/block/{name}/size").read_text()) * 512
    except (OSError, ValueError) as exc:
        raise MeasureError(f"{device}: not a block device this machine knows "
                           "(give a whole disk such as /dev/sda)") from exc


_HDPARM = re.compile(r"=\s*([0-9.]+)\s*([kMG]B)/sec")


def parse_hdparm_t(text: str) -> float:
    """MB/s from ``hdparm -t`` output ("... = 170.30 MB/sec")."""
    m = _HDPARM.search(text)
    if not m:
        raise MeasureError(f"hdparm printed no speed: {text.strip()[-200:]}")
    scale = {"kB": 1e-3, "MB": 1.0, "GB": 1e3}[m.group(2)]
    return float(m.group(1)) * scale


def _record_to_bandwidth(record: Any, how: str) -> ZoneBandwidth | None:
    if not isinstance(record, dict):
        return None
    pts = _disklab_points(record)
    if len(pts) < 2:
        return None
    shown, _, note = _describe_recording(record, Path("measurement.json"))
    label = record.get("label")
    source = how + (f": {label}" if isinstance(label, str) else "")
    return ZoneBandwidth("measured", shown, tuple(pts), source, note)


def _via_hardware(device: str, offsets_pct: list[int]) -> ZoneBandwidth | None:
    """fio through ``hardware.run_job``, else ``hardware.hdparm.offset_sweep``; None if neither."""
    try:
        import hardware  # the project's measuring package (read-only jobs are fio --readonly)
        from hardware.safety import Refused
    except Exception:
        return None
    try:
        record = hardware.run_job("zone-bandwidth", device,
                                  params={"offset_pct": ",".join(map(str, offsets_pct))})
        got = _record_to_bandwidth(record, "fio, job zone-bandwidth (hardware.run_job)")
        if got is not None:
            return got
    except Refused as exc:
        raise MeasureError(str(exc)) from exc
    except Exception:
        pass  # fio missing or failed: try hdparm
    try:
        from hardware.hdparm import offset_sweep

        record = offset_sweep(device, points=len(offsets_pct))
        return _record_to_bandwidth(record, "hdparm -t --direct --offset "
                                    "(hardware.hdparm.offset_sweep)")
    except Exception:
        return None


def measure(device: str, offsets_pct: Iterable[int] = (0, 25, 50, 75, 97)) -> ZoneBandwidth:
    """Measure sequential read speed at a few offsets of ``device`` (read-only, needs root)."""
    offsets = list(offsets_pct)
    if not os.path.exists(device):
        raise MeasureError(f"{device} does not exist; list your disks with lsblk -d")
    got = _via_hardware(device, offsets)
    if got is not None:
        return got
    if os.geteuid() != 0:
        raise MeasureError("reading a raw disk needs root: start Jupyter with sudo, or use the "
                           "recording in the next cell")
    hdparm = shutil.which("hdparm")
    if hdparm is None:
        raise MeasureError("hdparm is not installed (apt-get install hdparm)")
    size = _device_bytes(device)
    gib = size / 2**30
    pts = []
    for pct in offsets:
        off = int(min(pct / 100 * gib, max(0.0, gib - 1.0)))
        run = subprocess.run([hdparm, "-t", "--direct", "--offset", str(off), device],
                             capture_output=True, text=True, timeout=120)
        if run.returncode != 0:
            raise MeasureError(f"hdparm failed: {(run.stderr or run.stdout).strip()[-300:]}")
        pts.append((off / gib if gib else 0.0, parse_hdparm_t(run.stdout)))
    return ZoneBandwidth("measured", device, tuple(sorted(pts)),
                         "hdparm -t --direct --offset (about 3 s of reading per point)")
