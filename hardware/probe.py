"""What is this machine, and which block devices does it have? Read-only.

:func:`probe_devices` lists every block device with the facts an experiment
depends on (model, size, rotational flag, scheduler, read-ahead, queue sizes,
sector sizes) and the facts safety depends on (mounted, file-system
signature, partitions, holders). :func:`describe` does the same for one path:
a block device, a regular file or a directory (then it also describes the
device underneath). :func:`machine` describes the host for a recording.

The ``kind`` of a device says what it really is, not what it claims: a virtio
disk and a loop device both report ``rotational=1`` on Linux, yet neither has
a spinning platter. Kinds: ``hdd``, ``ssd``, ``virtual-disk``, ``ram-disk``,
``device-mapper``, ``md-raid``, ``optical``, ``flash-card``, ``loop-on-<kind>``
(a loop device over a file on a device of that kind), ``file`` and
``directory`` (with ``backing`` describing the device underneath), and
``unknown``.
"""

from __future__ import annotations

import contextlib
import os
import platform
import re
import stat
from pathlib import Path

from . import _sys

__all__ = ["describe", "format_table", "machine", "probe_devices"]

_VIRTUAL_MODELS = re.compile(
    r"QEMU|VBOX|VirtualBox|VMware|Virtual[ _]?disk|Msft Virtual|Amazon Elastic Block|"
    r"Google ?Persistent|PersistentDisk|BlockVolume|Xen|Hyper-V|Red Hat VirtIO",
    re.IGNORECASE,
)


def probe_devices(include_empty: bool = False) -> list[dict]:
    """Every block device on the machine (whole disks; partitions are listed inside).

    Loop devices with nothing attached and zero-size devices are left out
    unless ``include_empty``.
    """
    out = []
    try:
        names = sorted(p.name for p in _sys.SYS_BLOCK.iterdir())
    except OSError:
        return out
    for name in names:
        info = _describe_block(name, f"/dev/{name}")
        if not include_empty and not info["size_bytes"]:
            continue
        out.append(info)
    return out


def describe(path: str | os.PathLike) -> dict:
    """Facts about a block device, a regular file or a directory (read-only).

    A file or directory gets ``backing``: the description of the block device
    that holds it (when there is one: overlay and tmpfs have none).
    """
    p = str(path)
    try:
        st = os.stat(p)
    except OSError as exc:
        return {"path": p, "type": "missing", "kind": "unknown", "error": exc.strerror,
                "label": f"{p}: does not exist"}
    if stat.S_ISBLK(st.st_mode):
        name = _sys.name_of_devno(st.st_rdev) or Path(os.path.realpath(p)).name
        return _describe_block(name, p)
    if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
        return _describe_file(p, st)
    kind = "character-device" if stat.S_ISCHR(st.st_mode) else "other"
    return {"path": p, "type": kind, "kind": kind,
            "label": f"{p}: not a block device, regular file or directory"}


def _describe_file(p: str, st: os.stat_result) -> dict:
    is_dir = stat.S_ISDIR(st.st_mode)
    mount = _sys.mount_of_path(p)
    backing_name = _sys.name_of_devno(st.st_dev)
    backing = _describe_block(backing_name, f"/dev/{backing_name}") if backing_name else None
    info = {
        "path": p,
        "type": "dir" if is_dir else "file",
        "kind": "directory" if is_dir else "file",
        "size_bytes": None if is_dir else st.st_size,
        "allocated_bytes": None if is_dir else st.st_blocks * 512,
        "sparse": (not is_dir) and st.st_blocks * 512 < st.st_size,
        "filesystem": mount["fstype"] if mount else None,
        "mountpoint": mount["mountpoint"] if mount else None,
        "model": None,
        "rotational": backing.get("rotational") if backing else None,
        "scheduler": backing.get("scheduler") if backing else None,
        "read_ahead_kb": backing.get("read_ahead_kb") if backing else None,
        "backing": backing,
    }
    what = "directory" if is_dir else "regular file"
    fs = f" on {info['filesystem']}" if info["filesystem"] else ""
    if backing:
        info["label"] = f"{p}: a {what}{fs} on {backing['label']}"
    else:
        src = mount["source"] if mount else "an unknown device"
        info["label"] = f"{p}: a {what}{fs} ({src}; no block device underneath)"
    return info


def _describe_block(name: str, path: str) -> dict:
    d = _sys.sys_dir(name)
    disk = _sys.disk_of(name)
    dd = _sys.sys_dir(disk)
    q = dd / "queue"
    sched, scheds = _sys.parse_scheduler(_sys.read_text(q / "scheduler"))
    sectors = _sys.read_int(d / "size")
    rot = _sys.read_int(q / "rotational")
    qd = _sys.read_int(dd / "device" / "queue_depth")
    qd_source = "device/queue_depth" if qd is not None else None
    if qd is None:
        qd = _sys.read_int(dd / "mq" / "0" / "nr_tags")
        qd_source = "mq/0/nr_tags" if qd is not None else None
    parts = _sys.partitions_of(name) if name == disk else []
    mounts = {name: _sys.mountpoints_of(name)}
    for part in parts:
        mounts[part] = _sys.mountpoints_of(part)
    mounted = {k: v for k, v in mounts.items() if v}
    holders = _sys.holders_of(name)
    for part in parts:
        holders += [f"{part}->{h}" for h in _sys.holders_of(part)]
    swap = [s for s in _sys.swaps() if os.path.realpath(s) in
            {f"/dev/{n}" for n in [name, *parts]}]
    info = {
        "path": path,
        "type": "block",
        "name": name,
        "disk": disk,
        "partition": name != disk,
        "model": _model(dd),
        "vendor": _sys.read_text(dd / "device" / "vendor"),
        "size_bytes": sectors * 512 if sectors is not None else None,
        "rotational": bool(rot) if rot is not None else None,
        "scheduler": sched,
        "schedulers": scheds,
        "read_ahead_kb": _sys.read_int(q / "read_ahead_kb"),
        "nr_requests": _sys.read_int(q / "nr_requests"),
        "queue_depth": qd,
        "queue_depth_source": qd_source,
        "logical_sector_bytes": _sys.read_int(q / "logical_block_size"),
        "physical_sector_bytes": _sys.read_int(q / "physical_block_size"),
        "max_sectors_kb": _sys.read_int(q / "max_sectors_kb"),
        "write_cache": _sys.read_text(q / "write_cache"),
        "read_only": bool(_sys.read_int(d / "ro")),
        "removable": bool(_sys.read_int(dd / "removable")),
        "transport": _transport(dd, disk),
        "driver": _driver(dd),
        "partitions": parts,
        "mounted": bool(mounted),
        "mountpoints": mounted,
        "holders": holders,
        "swap": swap,
        "signature": None,  # filled below when we may read the device
    }
    if disk.startswith("loop"):
        info["loop_backing_file"] = _sys.loop_backing_file(disk)
        info["loop_direct_io"] = bool(_sys.read_int(dd / "loop" / "dio"))
    if os.access(path, os.R_OK) and info["size_bytes"]:
        sig = _sys.blkid_probe(path)
        if sig is not None:
            info["signature"] = {k: v for k, v in sig.items()
                                 if k in ("TYPE", "PTTYPE", "USAGE", "VERSION")}
    info["kind"], backing = _kind(info)
    if backing is not None:
        info["backing"] = backing
    info["label"] = _label(info)
    return info


def _model(dd: Path) -> str | None:
    model = _sys.read_text(dd / "device" / "model")
    if model:
        return model
    return _sys.read_text(dd / "device" / "name")  # mmc cards


def _driver(dd: Path) -> str | None:
    text = _sys.read_text(dd / "device" / "uevent") or ""
    for line in text.splitlines():
        if line.startswith("DRIVER="):
            return line.split("=", 1)[1]
    return None


def _transport(dd: Path, disk: str) -> str | None:
    real = os.path.realpath(dd)
    for key, name in (("/virtio", "virtio"), ("/nvme", "nvme"), ("/usb", "usb"),
                      ("/ata", "ata"), ("/vbd-", "xen"), ("/mmc", "mmc"), ("/host", "scsi")):
        if key in real:
            return name
    if disk.startswith(("loop", "zram", "ram", "dm-", "md", "nbd")):
        return "virtual"
    return None


def _kind(info: dict) -> tuple[str, dict | None]:
    disk, model = info["disk"], info.get("model") or ""
    if disk.startswith("loop"):
        return _loop_kind(disk, info.get("loop_backing_file"))
    if disk.startswith(("zram", "ram", "pmem")):
        return "ram-disk", None
    if disk.startswith("dm-"):
        return "device-mapper", None
    if disk.startswith("md"):
        return "md-raid", None
    if disk.startswith("sr"):
        return "optical", None
    if disk.startswith("mmcblk"):
        return "flash-card", None
    if (info.get("transport") in ("virtio", "xen") or info.get("driver") in ("virtio_blk", "xen_blkfront")
            or _VIRTUAL_MODELS.search(model)):
        return "virtual-disk", None
    if disk.startswith("nvme"):
        return "ssd", None
    if info.get("rotational") is True:
        return "hdd", None
    if info.get("rotational") is False:
        return "ssd", None
    return "unknown", None


def _loop_kind(disk: str, backing_file: str | None) -> tuple[str, dict | None]:
    """``loop-on-<kind of the device holding the file>``, with that device's description."""
    if not backing_file:
        return "loop-unbound", None
    backing = None
    # The backing file may be gone (sysfs then names it with a " (deleted)" suffix) or in a
    # directory we may not search; either way the mount lookup below still says what holds it.
    with contextlib.suppress(OSError):
        st = os.stat(backing_file)
        bname = _sys.name_of_devno(st.st_dev)
        if bname and bname != disk:
            backing = _describe_block(bname, f"/dev/{bname}")
    if backing is None:
        mount = _sys.mount_of_path(backing_file)
        fstype = mount["fstype"] if mount else ""
        if fstype in ("tmpfs", "ramfs"):
            return "loop-on-ram", None
        return "loop-on-unknown", None
    return f"loop-on-{backing['kind']}", backing


_KIND_WORDS = {
    "hdd": "a rotating hard disk",
    "ssd": "a solid-state drive",
    "virtual-disk": "a virtual disk",
    "ram-disk": "a RAM disk",
    "device-mapper": "a device-mapper volume",
    "md-raid": "a software RAID array",
    "optical": "an optical drive",
    "flash-card": "a flash card",
    "loop-unbound": "a loop device with no file attached",
    "unknown": "a device of unknown kind",
}


def _label(info: dict) -> str:
    kind = info["kind"]
    path = info["path"]
    bits = [b for b in (info.get("model"), info.get("driver")) if b]
    if kind == "virtual-disk" and machine_virtualization():
        bits.append(f"under {machine_virtualization()}")
    extra = f" ({', '.join(bits)})" if bits else ""
    if kind.startswith("loop-on-"):
        backing = info.get("backing")
        under = backing["label"] if backing else kind[len("loop-on-"):].replace("-", " ")
        dio = ", direct I/O to the file" if info.get("loop_direct_io") else ""
        return f"{path}: a loop device over {info.get('loop_backing_file')}{dio}, a file on {under}"
    words = _KIND_WORDS.get(kind, kind)
    if info.get("partition"):
        return f"{path}: a partition of /dev/{info['disk']}, {words}{extra}"
    return f"{path}: {words}{extra}"


_VIRT_CACHE: list[str | None] = []


def machine_virtualization() -> str | None:
    """The hypervisor this machine runs under (``kvm``, ``xen``...), or None on bare metal."""
    if _VIRT_CACHE:
        return _VIRT_CACHE[0]
    hv = None
    res = _sys.run_tool(["systemd-detect-virt", "--vm"], timeout=5)
    if res is not None and res[0] == 0 and res[1].strip() and res[1].strip() != "none":
        hv = res[1].strip()
    elif " hypervisor" in (_sys.read_text("/proc/cpuinfo") or ""):
        hv = "a hypervisor"
    _VIRT_CACHE.append(hv)
    return hv


def machine() -> dict:
    """The host, as a recording stores it (no host name, no serial numbers)."""
    cpu = None
    cpuinfo = _sys.read_text("/proc/cpuinfo") or ""
    for line in cpuinfo.splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = None
    for line in (_sys.read_text("/proc/meminfo") or "").splitlines():
        if line.startswith("MemTotal:"):
            mem = int(line.split()[1]) * 1024
    os_name = None
    for line in (_sys.read_text("/etc/os-release") or "").splitlines():
        if line.startswith("PRETTY_NAME="):
            os_name = line.split("=", 1)[1].strip('"')
    load = (_sys.read_text("/proc/loadavg") or "").split()[:3]
    fio = _sys.tool_version(["fio", "--version"])
    hdparm = _sys.tool_version(["hdparm", "-V"])
    return {
        "kernel": platform.release(),
        "kernel_version": platform.version(),
        "os": os_name,
        "arch": platform.machine(),
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "memory_bytes": mem,
        "virtualization": machine_virtualization(),
        "load_average": [float(x) for x in load] if load else None,
        "fio_version": fio,
        "hdparm_version": hdparm,
        "python": platform.python_version(),
    }


def format_table(devices: list[dict]) -> str:
    """A fixed-width table of :func:`probe_devices` for the terminal."""
    cols = [("NAME", lambda d: d["name"]),
            ("KIND", lambda d: d["kind"]),
            ("SIZE", lambda d: _human(d["size_bytes"])),
            ("ROTA", lambda d: "-" if d["rotational"] is None else str(int(d["rotational"]))),
            ("SCHED", lambda d: d["scheduler"] or "-"),
            ("RA_KB", lambda d: _dash(d["read_ahead_kb"])),
            ("NR_REQ", lambda d: _dash(d["nr_requests"])),
            ("QD", lambda d: _dash(d["queue_depth"])),
            ("LOG/PHY", lambda d: f"{_dash(d['logical_sector_bytes'])}/"
                                  f"{_dash(d['physical_sector_bytes'])}"),
            ("IN USE", _in_use),
            ("MODEL", lambda d: d["model"] or "-")]
    rows = [[name for name, _ in cols]]
    rows += [[str(f(d)) for _, f in cols] for d in devices]
    widths = [max(len(r[i]) for r in rows) for i in range(len(cols))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(lines)


def _in_use(d: dict) -> str:
    bits = []
    for dev, mps in d.get("mountpoints", {}).items():
        bits.append(f"{dev} on {','.join(mps)}")
    sig = d.get("signature") or {}
    if sig.get("TYPE"):
        bits.append(sig["TYPE"])
    if sig.get("PTTYPE") or d.get("partitions"):
        bits.append(f"partitions({sig.get('PTTYPE') or len(d['partitions'])})")
    if d.get("holders"):
        bits.append("held by " + ",".join(d["holders"]))
    if d.get("swap"):
        bits.append("swap")
    if d.get("signature") is None and not bits:
        return "?"  # could not read the device to look for signatures
    return "; ".join(bits) or "no"


def _dash(v) -> str:
    return "-" if v is None else str(v)


def _human(n: int | None) -> str:
    if not n:
        return "0"
    for unit in ("B", "K", "M", "G", "T", "P"):
        if n < 1024 or unit == "P":
            return f"{n:.0f}{unit}" if unit == "B" else f"{n:.1f}{unit}"
        n /= 1024
    return str(n)
