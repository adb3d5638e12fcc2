"""Small read-only helpers over sysfs, procfs and a few util-linux tools.

Nothing here writes anything; :mod:`hardware.tuning` is the only module that
writes to sysfs. Every function returns ``None`` (or an empty value) when the
information is not available, instead of raising.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

SYS_BLOCK = Path("/sys/block")
SYS_CLASS_BLOCK = Path("/sys/class/block")
SYS_DEV_BLOCK = Path("/sys/dev/block")


def read_text(path: Path | str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def read_int(path: Path | str) -> int | None:
    text = read_text(path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def block_name(path: str | os.PathLike) -> str | None:
    """Kernel name (``sda``, ``sda1``, ``loop0``) of a block device node, or None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISBLK(st.st_mode):
        return None
    return name_of_devno(st.st_rdev)


def name_of_devno(devno: int) -> str | None:
    """Kernel name of the block device with this device number, or None."""
    link = SYS_DEV_BLOCK / f"{os.major(devno)}:{os.minor(devno)}"
    try:
        return Path(os.readlink(link)).name
    except OSError:
        return None


def sys_dir(name: str) -> Path:
    """``/sys/class/block/<name>`` (works for whole disks and partitions)."""
    return SYS_CLASS_BLOCK / name


def is_partition(name: str) -> bool:
    return (sys_dir(name) / "partition").exists()


def disk_of(name: str) -> str:
    """The whole disk a partition belongs to (the name itself for a whole disk)."""
    if is_partition(name):
        return Path(os.path.realpath(sys_dir(name))).parent.name
    return name


def partitions_of(name: str) -> list[str]:
    """Partitions of a whole disk, by kernel name."""
    d = sys_dir(name)
    try:
        return sorted(p.name for p in d.iterdir()
                      if p.name.startswith(name) and (p / "partition").exists())
    except OSError:
        return []


def holders_of(name: str) -> list[str]:
    """Devices stacked on top of this one (device-mapper, md RAID, bcache)."""
    try:
        return sorted(p.name for p in (sys_dir(name) / "holders").iterdir())
    except OSError:
        return []


def queue_dir(name: str) -> Path:
    """The request-queue directory that governs ``name`` (a partition uses its disk's)."""
    return sys_dir(disk_of(name)) / "queue"


def parse_scheduler(text: str | None) -> tuple[str | None, list[str]]:
    """``"none [mq-deadline] kyber"`` -> (``"mq-deadline"``, all names)."""
    if not text:
        return None, []
    names, active = [], None
    for word in text.split():
        if word.startswith("[") and word.endswith("]"):
            word = word[1:-1]
            active = word
        names.append(word)
    if active is None and len(names) == 1:  # e.g. "none" on a bio-based device
        active = names[0]
    return active, names


def mountinfo() -> list[dict]:
    """Mounted file systems from /proc/self/mountinfo: devno, mount point, fstype, source."""
    out = []
    text = read_text("/proc/self/mountinfo") or ""
    for line in text.splitlines():
        left, _, right = line.partition(" - ")
        f = left.split()
        r = right.split()
        if len(f) < 5 or len(r) < 2:
            continue
        major, _, minor = f[2].partition(":")
        out.append({
            "devno": (int(major), int(minor)),
            "mountpoint": _unescape(f[4]),
            "fstype": r[0],
            "source": _unescape(r[1]),
        })
    return out


def _unescape(s: str) -> str:
    return s.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


def devno_of(name: str) -> tuple[int, int] | None:
    text = read_text(sys_dir(name) / "dev")
    if not text or ":" not in text:
        return None
    major, minor = text.split(":")
    return int(major), int(minor)


def mountpoints_of(name: str) -> list[str]:
    """Where this device (not its partitions) is mounted."""
    dn = devno_of(name)
    if dn is None:
        return []
    return [m["mountpoint"] for m in mountinfo() if m["devno"] == dn]


def swaps() -> list[str]:
    """Paths listed in /proc/swaps (devices and files)."""
    text = read_text("/proc/swaps") or ""
    return [line.split()[0] for line in text.splitlines()[1:] if line.split()]


def mount_of_path(path: str | os.PathLike) -> dict | None:
    """The mount (from mountinfo) that holds ``path``: the longest matching mount point."""
    real = os.path.realpath(path)
    best = None
    for m in mountinfo():
        mp = m["mountpoint"]
        if (real == mp or real.startswith(mp.rstrip("/") + "/")) and (
                best is None or len(mp) > len(best["mountpoint"])):
            best = m
    return best


def loop_backing_file(name: str) -> str | None:
    return read_text(sys_dir(name) / "loop" / "backing_file")


def run_tool(args: list[str], timeout: float = 30.0) -> tuple[int, str, str] | None:
    """Run a read-only tool; None when it is not installed."""
    if shutil.which(args[0]) is None:
        return None
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 127, "", str(exc)
    return p.returncode, p.stdout, p.stderr


def blkid_probe(path: str) -> dict | None:
    """Low-level signature probe (``blkid -p``): TYPE, PTTYPE, USAGE... ; {} when none found.

    Returns None when the probe could not run (blkid missing, no permission).
    """
    try:  # blkid reports "cannot open" with the same status as "nothing found"
        os.close(os.open(path, os.O_RDONLY))
    except OSError:
        return None
    res = run_tool(["blkid", "-p", "-o", "export", path])
    if res is None:
        return None
    rc, out, err = res
    if rc == 2 and not err.strip():  # nothing found
        return {}
    if rc != 0:
        return None
    tags = {}
    for line in out.splitlines():
        k, _, v = line.partition("=")
        if k and k != "DEVNAME":
            tags[k] = v
    return tags


def tool_version(args: list[str]) -> str | None:
    res = run_tool(args, timeout=10)
    if res is None:
        return None
    _rc, out, err = res
    text = (out or err).strip().splitlines()
    return text[0].strip() if text else None
