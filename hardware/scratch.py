"""A scratch file for a fio run on a file system you name, and what that file system measures.

A job on a *file* with ``O_DIRECT`` measures the disk under the file only when
there is a disk under it. In a directory on tmpfs or ramfs the file lives in
memory: ``open(O_DIRECT)`` fails there on Linux before 6.6 (tmpfs gained
``O_DIRECT`` in 6.6), and where it works it times RAM. ``/tmp`` is tmpfs on
many distributions, and a container's own file system is usually overlay,
which has no block device of its own (its upper layer may itself be tmpfs).

:func:`check_place` says what holds a directory (file-system type from
``/proc/self/mountinfo``, the block device from the directory's ``st_dev`` or
the mount's source) and refuses a RAM-backed one; :func:`scratch_file` makes
a new sparse file named ``disklab-<job>-scratch-<pid>.img`` there (never an
existing file: :func:`hardware.safety.check_target`), tries one ``O_DIRECT``
read of it and removes it afterwards. Only where ``O_DIRECT`` is refused does
the caller fall back to buffered I/O, with the caveat it is given.
"""

from __future__ import annotations

import contextlib
import errno
import mmap
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from . import _sys, probe
from .safety import Refused, check_target

__all__ = ["LAYERED_FILESYSTEMS", "RAM_FILESYSTEMS", "Place", "Scratch", "check_place",
           "direct_io_works", "scratch_file"]

RAM_FILESYSTEMS = frozenset({"tmpfs", "ramfs"})
LAYERED_FILESYSTEMS = frozenset({"overlay", "aufs", "fuse-overlayfs", "9p", "virtiofs",
                                 "nfs", "nfs4", "cifs", "smb3"})
RAM_KINDS = frozenset({"ram-disk", "loop-on-ram"})


@dataclass
class Place:
    """What holds a directory: its file system, the block device under it and the caveats."""

    directory: str
    fstype: str | None
    device: str | None  # the block device's label (hardware.probe), None when there is none
    kind: str | None  # the device's kind (hdd, ssd, virtual-disk...), None when there is none
    caveats: list[str] = field(default_factory=list)


@dataclass
class Scratch:
    """A scratch file made by :func:`scratch_file`: where, and whether O_DIRECT works on it."""

    path: Path
    place: Place
    direct: bool
    caveats: list[str] = field(default_factory=list)


def _device_of(directory: str, mount: dict | None) -> dict | None:
    name = _sys.name_of_devno(os.stat(directory).st_dev)
    if name is None and mount and mount["source"].startswith("/dev/"):
        src = os.path.realpath(mount["source"])  # btrfs and others use an anonymous st_dev
        if os.path.exists(src) and stat.S_ISBLK(os.stat(src).st_mode):
            name = Path(src).name
    return probe.describe(f"/dev/{name}") if name else None


def check_place(directory: str | os.PathLike, need_bytes: int = 0) -> Place:
    """Describe the file system holding ``directory``; raise Refused if it is RAM-backed.

    Refused also when ``directory`` is missing, not writable, or has less than
    twice ``need_bytes`` free. A file system with no block device of its own
    (overlay, network, 9p) is allowed with a caveat that says so.
    """
    d = os.path.abspath(os.fspath(directory))
    if not os.path.isdir(d):
        raise Refused(f"{d} is not a directory", "name an existing directory on the disk "
                      "you want to measure")
    if not os.access(d, os.W_OK | os.X_OK):
        raise Refused(f"cannot create a scratch file in {d}", "name a directory you may write to")
    mount = _sys.mount_of_path(d)
    fstype = mount["fstype"] if mount else None
    fix = ("name a directory on a file system that lives on a disk (`df -T DIR` shows its type "
           "and device; the current directory if it is on one)")
    if fstype in RAM_FILESYSTEMS:
        raise Refused(f"{d} is on {fstype}, which keeps its files in memory: O_DIRECT there "
                      "either fails (Linux before 6.6) or times RAM, not a disk", fix)
    dev = _device_of(d, mount)
    if dev is not None and dev.get("kind") in RAM_KINDS:
        raise Refused(f"{d} is on {dev['label']}, which keeps its data in memory", fix)
    caveats = []
    if dev is None:
        what = (f"{fstype}, a layered or network file system" if fstype in LAYERED_FILESYSTEMS
                else f"{fstype or 'an unknown file system'}")
        caveats.append(f"{d} is on {what} with no block device of its own (a container's file "
                       "system is usually overlay): the numbers are whatever stores it, which "
                       "may be memory or a network, not a disk you can name")
    free = os.statvfs(d)
    free_bytes = free.f_bavail * free.f_frsize
    if need_bytes and free_bytes < 2 * need_bytes:
        raise Refused(f"{d} has {free_bytes >> 20} MiB free and the run may write "
                      f"{need_bytes >> 20} MiB", "free some space or name another directory")
    return Place(d, fstype, dev["label"] if dev else None, dev.get("kind") if dev else None,
                 caveats)


def direct_io_works(path: str | os.PathLike, block: int = 4096) -> bool:
    """True if ``path`` opens with O_DIRECT and one aligned ``block``-byte read at 0 succeeds.

    Reads only. False when the file system refuses O_DIRECT (EINVAL, EOPNOTSUPP).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.EOPNOTSUPP):
            return False
        raise
    try:
        buf = mmap.mmap(-1, block)  # page-aligned, as O_DIRECT wants
        try:
            os.preadv(fd, [buf], 0)
        except OSError as exc:
            if exc.errno in (errno.EINVAL, errno.EOPNOTSUPP):
                return False
            raise
        finally:
            buf.close()
        return True
    finally:
        os.close(fd)


@contextlib.contextmanager
def scratch_file(directory: str | os.PathLike | None, job: str, size: int,
                 need_bytes: int = 0) -> Iterator[Scratch]:
    """A new sparse scratch file of ``size`` bytes in ``directory`` (None: the current one).

    Yields a :class:`Scratch`; the file is removed afterwards. Raises Refused
    as :func:`check_place` does, or when the file already exists.
    """
    place = check_place(directory if directory is not None else os.getcwd(), need_bytes)
    path = Path(place.directory) / f"disklab-{job}-scratch-{os.getpid()}.img"
    check_target(path, job=job, writes=True, kinds=("file",))  # a new file only
    with open(path, "xb") as fh:
        fh.truncate(size)  # sparse: takes no space until written
    try:
        direct = direct_io_works(path)
        caveats = list(place.caveats)
        if not direct:
            caveats.append(f"{place.fstype or 'this file system'} refused O_DIRECT on {path}, "
                           "so fio ran buffered (direct=0): the page cache absorbs writes and "
                           "serves re-reads, so fio's times are not the disk's (what fio issued "
                           "is the same)")
        yield Scratch(path, place, direct, caveats)
    finally:
        path.unlink(missing_ok=True)
