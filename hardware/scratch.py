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
a new file named ``disklab-<job>-scratch-<pid>.img`` there (never an existing
file: :func:`hardware.safety.check_target`), writes every block of it
(:func:`fill`), tries one ``O_DIRECT`` read of it and removes it afterwards.
Only where ``O_DIRECT`` is refused does the caller fall back to buffered I/O,
with the caveat it is given.

Why every block is written: a read of a hole in a sparse file, and of an
extent that ``fallocate`` reserved but nobody wrote (ext4's and xfs's
"unwritten" extents), is answered with zeros by the file system without any
disk I/O, so its time is not a disk's. The data is random, each 4 KiB block
stamped with its offset, because a file system that compresses (btrfs, ZFS)
or deduplicates would otherwise store zeros or repeats as next to nothing.

Even filled, the file is not one stretch of the disk: the file system chose
where each extent went, so an offset in the file is not a distance on the
disk, and a seek between two offsets may be longer or shorter than their
difference.
"""

from __future__ import annotations

import contextlib
import errno
import mmap
import os
import stat
import struct
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from . import _sys, probe
from .safety import Refused, check_target
from .units import MB

__all__ = ["FILL_CHUNK", "LAYERED_FILESYSTEMS", "RAM_FILESYSTEMS", "Place", "Scratch",
           "check_place", "direct_io_works", "fill", "scratch_file"]

RAM_FILESYSTEMS = frozenset({"tmpfs", "ramfs"})
LAYERED_FILESYSTEMS = frozenset({"overlay", "aufs", "fuse-overlayfs", "9p", "virtiofs",
                                 "nfs", "nfs4", "cifs", "smb3"})
RAM_KINDS = frozenset({"ram-disk", "loop-on-ram"})
ALIGN = 4096  # O_DIRECT wants offsets, lengths and buffers aligned to the logical block (<= 4 KiB)
FILL_CHUNK = 8 << 20  # bytes per write of the fill: large, so the fill runs at the disk's rate


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
    """A scratch file made by :func:`scratch_file`: where, its size (all written), O_DIRECT or not."""

    path: Path
    place: Place
    direct: bool
    size: int  # bytes, every one of them written by fill(); jobs must stay below it
    caveats: list[str] = field(default_factory=list)

    def fio_args(self) -> list[str]:
        """fio options that keep a job on this file's written bytes, O_DIRECT where it works.

        ``--size`` and ``--offset=0`` bound the offsets fio picks to the
        filled region; ``--allow_file_create=0`` makes fio fail rather than
        create a file if this one is gone. fio splits ``--filename`` at ``:``,
        so a colon in the path is escaped as fio's documentation says.
        """
        name = str(self.path).replace(":", "\\:")
        return [f"--filename={name}", f"--size={self.size}", "--offset=0",
                f"--direct={int(self.direct)}", "--allow_file_create=0"]


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


def _open_for_fill(path: Path) -> tuple[int, bool]:
    """An fd open for writing ``path`` (never creating it) and whether it is O_DIRECT."""
    try:
        return os.open(path, os.O_WRONLY | os.O_DIRECT), True
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EOPNOTSUPP):
            raise
    return os.open(path, os.O_WRONLY), False


def _stamp(buf: mmap.mmap, offset: int, length: int) -> None:
    """Write each 4 KiB block's file offset into its first 8 bytes, so no two blocks are equal."""
    for at in range(0, length, ALIGN):
        struct.pack_into("<Q", buf, at, offset + at)


def fill(path: str | os.PathLike, size: int, report: Callable[[str], None] | None = None,
         chunk: int = FILL_CHUNK) -> bool:
    """Write all ``size`` bytes of the existing file ``path``, in order, ``chunk`` bytes a write.

    O_DIRECT where the file system allows it, else buffered and then fsync'ed
    and dropped from the page cache. The data is random with each 4 KiB block
    stamped with its offset (see the module's docstring for why). ``report``
    (e.g. ``print``) hears the progress about every tenth. Returns whether
    the writes were O_DIRECT. Raises Refused when the file system fills up.
    """
    if size <= 0 or size % ALIGN or chunk % ALIGN:
        raise ValueError(f"size ({size}) and chunk ({chunk}) must be positive multiples of {ALIGN}")
    fd, direct = _open_for_fill(Path(path))
    buf = mmap.mmap(-1, chunk)  # page-aligned, as O_DIRECT wants
    buf[:] = os.urandom(chunk)
    say = report or (lambda _msg: None)
    say(f"writing all {size >> 20:,} MiB of {path} once, so that fio's reads reach the disk "
        f"({'O_DIRECT' if direct else 'buffered: O_DIRECT refused'}, {chunk >> 20} MiB a write)")
    t0, next_tenth, off = time.monotonic(), 1, 0
    try:
        while off < size:
            n = min(chunk, size - off)
            _stamp(buf, off, n)
            try:
                written = os.pwritev(fd, [memoryview(buf)[:n]], off)
            except OSError as exc:
                if exc.errno == errno.ENOSPC:
                    raise Refused(f"the file system holding {path} filled up after "
                                  f"{off >> 20:,} MiB of {size >> 20:,}",
                                  "free some space or name another directory") from exc
                if direct and off == 0 and exc.errno in (errno.EINVAL, errno.EOPNOTSUPP):
                    os.close(fd)  # opened O_DIRECT but refuses its writes (some FUSE)
                    fd, direct = os.open(path, os.O_WRONLY), False
                    continue
                raise
            if written <= 0:
                raise OSError(errno.EIO, f"a write to {path} at {off} wrote nothing")
            off += written
            if off * 10 >= next_tenth * size:
                dt = time.monotonic() - t0
                say(f"  {off >> 20:,} of {size >> 20:,} MiB written in {dt:.1f} s "
                    f"({off / MB / max(dt, 1e-9):,.0f} MB/s)")
                next_tenth = off * 10 // size + 1
        os.fsync(fd)  # the blocks and their extents are on the disk, the drive's cache flushed
        if not direct:  # the clean pages would answer fio's first reads: drop them
            os.posix_fadvise(fd, 0, size, os.POSIX_FADV_DONTNEED)
        say(f"  written and flushed to the disk in {time.monotonic() - t0:.1f} s")
    finally:
        os.close(fd)
    buf.close()  # not in the finally: a failed write's traceback may still hold a view of it
    return direct


@contextlib.contextmanager
def scratch_file(directory: str | os.PathLike | None, job: str, size: int,
                 need_bytes: int = 0,
                 report: Callable[[str], None] | None = None) -> Iterator[Scratch]:
    """A new scratch file of ``size`` bytes, all written, in ``directory`` (None: the current one).

    Yields a :class:`Scratch`; the file is removed afterwards, also when the
    fill fails or is interrupted. ``need_bytes`` is what the run may add
    beyond the file; ``report`` hears the fill's progress (:func:`fill`).
    Raises Refused as :func:`check_place` does, or when the file already exists.
    """
    place = check_place(directory if directory is not None else os.getcwd(), size + need_bytes)
    path = Path(place.directory) / f"disklab-{job}-scratch-{os.getpid()}.img"
    check_target(path, job=job, writes=True, kinds=("file",))  # a new file only
    path.touch(exist_ok=False)  # O_EXCL: fails if the file appeared since the check; never reused
    try:
        fill(path, size, report)
        direct = direct_io_works(path)
        caveats = list(place.caveats)
        if not direct:
            caveats.append(f"{place.fstype or 'this file system'} refused O_DIRECT on {path}, "
                           "so fio ran buffered (direct=0): the page cache absorbs writes and "
                           "serves re-reads, so fio's times are not the disk's (what fio issued "
                           "is the same)")
        yield Scratch(path, place, direct, size, caveats)
    finally:
        path.unlink(missing_ok=True)
