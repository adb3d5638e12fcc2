"""Safety rules: what a job may touch, checked once before anything runs.

Read-only by default. A job that writes runs only against

- a regular file that does not exist yet (the job creates it), or an
  existing regular file named with ``scratch`` (its contents are destroyed);
- a new sub-directory that the runner creates inside a directory you name
  (the server profiles), removed again afterwards;
- a block device named with ``scratch`` that is not mounted, holds no
  partitions, no file-system, RAID or partition-table signature, is not
  swap, has nothing stacked on it (LVM, dm-crypt, md) and can be opened
  exclusively.

Read jobs are fio-``--readonly``: fio itself refuses to issue a write. Every
refusal raises :class:`Refused`, whose message says why and what to do.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass, field

from . import _sys

__all__ = ["PSEUDO_FILESYSTEMS", "Refused", "Target", "check_target", "check_tunable"]

PSEUDO_FILESYSTEMS = frozenset({
    "proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs",
    "securityfs", "configfs", "fusectl", "bpf", "pstore", "efivarfs", "hugetlbfs", "mqueue",
    "autofs", "binfmt_misc",
})


class Refused(Exception):
    """A job was not run because it could damage data or the machine.

    ``why`` says what is wrong, ``fix`` what to do instead; ``str()`` gives both
    on one line.
    """

    def __init__(self, why: str, fix: str):
        self.why, self.fix = why, fix
        super().__init__(f"{why}. {fix[:1].upper()}{fix[1:]}.")


@dataclass
class Target:
    """A checked target: what it is and what the runner may do with it."""

    path: str
    type: str  # "block" | "file" | "dir"
    exists: bool
    size_bytes: int | None
    device: str | None  # kernel name of the block device (or the one holding the file)
    writes: bool
    scratch: bool
    notes: list[str] = field(default_factory=list)


def check_target(path: str | os.PathLike, *, job: str = "this job", writes: bool = False,
                 scratch: bool = False, kinds: tuple[str, ...] = ("block", "file")) -> Target:
    """Check that ``job`` may run against ``path``; return what it is or raise :class:`Refused`.

    ``kinds`` says which target types the job supports (``block``, ``file``,
    ``dir``); ``writes`` whether the job writes.
    """
    raw = os.fspath(path)
    if not raw:
        raise Refused("no target given", "pass --target PATH (a block device, file or directory)")
    real = os.path.realpath(raw)
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return _missing(raw, real, job, writes, scratch, kinds)
    except OSError as exc:
        raise Refused(f"cannot look at {raw}: {exc.strerror}",
                      "check the path and your permissions") from exc

    if stat.S_ISBLK(st.st_mode):
        if "block" not in kinds:
            raise Refused(f"{job} runs on a file system, not on the raw device {raw}",
                          _kinds_fix(kinds))
        return _block(raw, real, st, job, writes, scratch)
    if stat.S_ISREG(st.st_mode):
        if "file" not in kinds:
            raise Refused(f"{raw} is a regular file; {job} needs {_kinds_words(kinds)}",
                          _kinds_fix(kinds))
        return _file(raw, real, st, job, writes, scratch)
    if stat.S_ISDIR(st.st_mode):
        if "dir" not in kinds:
            raise Refused(f"{raw} is a directory; {job} reads or writes {_kinds_words(kinds)}",
                          _kinds_fix(kinds))
        return _directory(raw, real, st, job, writes)
    what = "a character device" if stat.S_ISCHR(st.st_mode) else "not a regular file or device"
    raise Refused(f"{raw} is {what}", "name a block device (see `python -m hardware probe`), "
                  "a regular file or a directory")


def _kinds_words(kinds: tuple[str, ...]) -> str:
    words = {"block": "a block device", "file": "a regular file",
             "dir": "a directory on a mounted file system"}
    return " or ".join(words[k] for k in kinds)


def _kinds_fix(kinds: tuple[str, ...]) -> str:
    if kinds == ("dir",):
        return ("pass a directory on the file system under test (for example a scratch file "
                "system mounted at /mnt/scratch); the job works in a new sub-directory there")
    return f"pass {_kinds_words(kinds)}"


def _pseudo(real: str) -> str | None:
    m = _sys.mount_of_path(real)
    if m and m["fstype"] in PSEUDO_FILESYSTEMS:
        return m["fstype"]
    return None


def _missing(raw: str, real: str, job: str, writes: bool, scratch: bool,
             kinds: tuple[str, ...]) -> Target:
    if not writes or "file" not in kinds:
        raise Refused(f"{raw} does not exist",
                      "read jobs measure an existing device or file: list devices with "
                      "`python -m hardware probe`, or make a test file first with "
                      "`python -m hardware run seq-write --target FILE --param size=1g`")
    parent = os.path.dirname(real) or "."
    if not os.path.isdir(parent):
        raise Refused(f"the directory {parent} does not exist", "create it or choose another path")
    fs = _pseudo(parent)
    if fs:
        raise Refused(f"{raw} would be created on {fs}, a kernel pseudo file system",
                      "name a file on a real file system")
    if not os.access(parent, os.W_OK):
        raise Refused(f"cannot create {raw}: {parent} is not writable",
                      "choose a directory you may write to")
    st = os.stat(parent)
    return Target(raw, "file", False, None, _sys.name_of_devno(st.st_dev), True, scratch,
                  [f"{raw} did not exist: the job created it"])


def _file(raw: str, real: str, st: os.stat_result, job: str, writes: bool,
          scratch: bool) -> Target:
    notes = []
    if _pseudo(real):
        raise Refused(f"{raw} lives on a kernel pseudo file system", "name a file on a real "
                      "file system")
    if real in {os.path.realpath(s) for s in _sys.swaps()}:
        raise Refused(f"{raw} is an active swap file", "choose another file")
    if writes:
        if not scratch:
            raise Refused(f"{raw} exists and {job} writes into it, so its contents would be "
                          "overwritten", "name a new file (the job creates it), or pass "
                          "--scratch (API: scratch=True) if this file may be destroyed")
        if not os.access(real, os.W_OK):
            raise Refused(f"{raw} is not writable", "choose a file you may write to")
    else:
        if not os.access(real, os.R_OK):
            raise Refused(f"cannot read {raw}", "check its permissions")
        if st.st_size == 0:
            raise Refused(f"{raw} is empty, so there is nothing to read",
                          "write data into it first, e.g. with the seq-write job")
    if st.st_blocks * 512 < st.st_size:
        notes.append(f"{raw} is sparse: its holes are read without touching the disk")
    return Target(raw, "file", True, st.st_size, _sys.name_of_devno(st.st_dev), writes,
                  scratch, notes)


def _directory(raw: str, real: str, st: os.stat_result, job: str, writes: bool) -> Target:
    fs = _pseudo(real)
    if fs:
        raise Refused(f"{raw} is on {fs}, a kernel pseudo file system",
                      "pass a directory on the file system under test")
    if writes and not os.access(real, os.W_OK | os.X_OK):
        raise Refused(f"cannot create files in {raw}", "choose a directory you may write to")
    return Target(raw, "dir", True, None, _sys.name_of_devno(st.st_dev), writes, False,
                  [f"{job} worked in a new sub-directory of {raw} and removed it afterwards"])


def _block(raw: str, real: str, st: os.stat_result, job: str, writes: bool,
           scratch: bool) -> Target:
    name = _sys.name_of_devno(st.st_rdev) or os.path.basename(real)
    size = (_sys.read_int(_sys.sys_dir(name) / "size") or 0) * 512
    if not size:
        raise Refused(f"{raw} has size 0 (an empty loop device or a card reader without a card)",
                      "attach a file or insert the medium, or choose another device")
    mounts = _sys.mountpoints_of(name)
    parts = _sys.partitions_of(name)
    part_mounts = {p: _sys.mountpoints_of(p) for p in parts}
    if not writes:
        return _block_to_read(raw, real, size, name, scratch, mounts, part_mounts)

    # -- a job that writes to a raw device --------------------------------------------------
    _refuse_unless_writable_scratch(raw, name, job, scratch)
    _refuse_in_use(raw, real, name, mounts, parts, part_mounts)
    _refuse_signatures(raw, real)
    _refuse_unless_exclusive(raw, real)
    return Target(raw, "block", True, size, name, True, True,
                  [f"{raw} was passed as scratch: its contents were overwritten"])


def _block_to_read(raw: str, real: str, size: int, name: str, scratch: bool,
                   mounts: list[str], part_mounts: dict[str, list[str]]) -> Target:
    """A device a read job may measure (in use or not: that only earns a note)."""
    if not os.access(real, os.R_OK):
        raise Refused(f"cannot read {raw}",
                      "run as root (sudo), or add yourself to the 'disk' group")
    notes: list[str] = []
    if mounts or any(part_mounts.values()):
        notes.append(f"{raw} was in use (mounted) during the run: other I/O may have "
                     "disturbed the measurement")
    return Target(raw, "block", True, size, name, False, scratch, notes)


def _refuse_unless_writable_scratch(raw: str, name: str, job: str, scratch: bool) -> None:
    """Writes go only to a device passed as scratch, checked as root, that is not read-only."""
    if not scratch:
        raise Refused(f"{job} writes to {raw} and would destroy everything on it",
                      "if the device holds nothing you need, pass --scratch (API: scratch=True); "
                      "otherwise choose a read-only job or a file target")
    if os.geteuid() != 0:
        raise Refused(f"cannot check that {raw} is unused without root",
                      "run as root (sudo) to write to a scratch device")
    if _sys.read_int(_sys.sys_dir(name) / "ro"):
        raise Refused(f"{raw} is read-only", "choose a writable scratch device")


def _refuse_in_use(raw: str, real: str, name: str, mounts: list[str], parts: list[str],
                   part_mounts: dict[str, list[str]]) -> None:
    """Refuse a device that is mounted, partitioned, a partition, swap or under LVM/RAID/dm."""
    if mounts:
        raise Refused(f"{raw} is mounted at {', '.join(mounts)}",
                      "never write benchmarks to a disk in use: unmount it first, or choose an "
                      "unused scratch device")
    mounted_parts = {p: m for p, m in part_mounts.items() if m}
    if mounted_parts:
        where = "; ".join(f"/dev/{p} at {', '.join(m)}" for p, m in mounted_parts.items())
        raise Refused(f"{raw} has mounted partitions ({where})",
                      "choose an unused scratch device")
    if parts:
        raise Refused(f"{raw} holds partitions ({', '.join('/dev/' + p for p in parts)})",
                      "a partitioned disk probably holds data: choose a scratch device without "
                      "partitions (erase its table with `wipefs -a` only if you are sure)")
    if _sys.is_partition(name):
        raise Refused(f"{raw} is a partition of /dev/{_sys.disk_of(name)}",
                      "write benchmarks need a whole scratch device, not a partition of a disk "
                      "that may hold other data")
    swaps = {os.path.realpath(s) for s in _sys.swaps()}
    if real in swaps:
        raise Refused(f"{raw} is active swap", "choose an unused scratch device")
    holders = _sys.holders_of(name)
    if holders:
        raise Refused(f"{raw} is in use by {', '.join(holders)} (LVM, RAID, encryption or "
                      "cache)", "choose an unused scratch device")


def _refuse_signatures(raw: str, real: str) -> None:
    """Refuse a device blkid cannot check, or one with a partition-table or file-system signature."""
    sig = _sys.blkid_probe(real)
    if sig is None:
        raise Refused(f"cannot check {raw} for file-system and partition-table signatures "
                      "(blkid is missing or could not read the device)",
                      "install util-linux (blkid) and run as root")
    if sig.get("PTTYPE"):
        raise Refused(f"{raw} holds a partition table ({sig['PTTYPE']})",
                      "a partitioned disk probably holds data: choose a scratch device "
                      "(erase the table with `wipefs -a` only if you are sure)")
    if sig.get("TYPE"):
        usage = sig.get("USAGE", "filesystem")
        raise Refused(f"{raw} holds a {sig['TYPE']} signature ({usage}), so it probably holds "
                      "data", "choose a blank scratch device; erase the signature with "
                      f"`wipefs -a {raw}` only if you are sure nothing on it is needed")


def _refuse_unless_exclusive(raw: str, real: str) -> None:
    """The last check: the kernel lets us open the device exclusively (nothing holds it)."""
    try:
        fd = os.open(real, os.O_RDONLY | os.O_EXCL)
        os.close(fd)
    except OSError as exc:
        if exc.errno == errno.EBUSY:
            raise Refused(f"{raw} is busy: the kernel holds it open (mounted, swap, RAID or "
                          "device-mapper)", "choose an unused scratch device") from exc
        raise Refused(f"cannot open {raw} exclusively ({exc.strerror})",
                      "run as root, on a device this machine may use") from exc


def _system_disks() -> set[str]:
    """Whole disks under the root file system (through device-mapper or md, if any)."""
    try:
        name = _sys.name_of_devno(os.stat("/").st_dev)
    except OSError:
        return set()
    if not name:
        return set()
    out, todo = set(), [name]
    while todo:
        n = todo.pop()
        out.add(_sys.disk_of(n))
        with contextlib.suppress(OSError):
            todo += [p.name for p in (_sys.sys_dir(n) / "slaves").iterdir()]
    return out


def check_tunable(target: Target) -> str:
    """The block device whose scheduler and read-ahead a job may switch, or raise Refused.

    The device is the target itself, or the one holding a file or directory
    target. The disk that holds the root file system is never switched: that
    would change it for every program on the machine.
    """
    if not target.device:
        raise Refused(f"{target.path} is not on a block device, so it has no scheduler or "
                      "read-ahead to switch", "pass a block device, or a file or directory on one")
    disk = _sys.disk_of(target.device)
    if disk in _system_disks():
        raise Refused(f"{target.path} is on /dev/{disk}, which holds the root file system; "
                      "switching its scheduler or read-ahead would change it for every program "
                      "on the machine", "use a dedicated device (or a file system on one) to "
                      "switch these settings")
    if os.geteuid() != 0:
        raise Refused("switching the scheduler or read-ahead needs root", "run as root (sudo)")
    return target.device
