"""hardware.scratch: the scratch file of lab 4's file target and what its file system measures."""

from __future__ import annotations

import errno
import os

import pytest

from hardware import _sys, scratch
from hardware.safety import Refused


def _pretend(monkeypatch, fstype: str, source: str = "none") -> None:
    monkeypatch.setattr(_sys, "mount_of_path", lambda p: {
        "devno": (0, 99), "mountpoint": "/", "fstype": fstype, "source": source})


def test_ram_file_systems_are_refused_naming_the_path(tmp_path, monkeypatch):
    for fstype in ("tmpfs", "ramfs"):
        _pretend(monkeypatch, fstype)
        with pytest.raises(Refused, match=f"{tmp_path} is on {fstype}.*O_DIRECT"):
            scratch.check_place(tmp_path)
        with pytest.raises(Refused, match="df -T"), scratch.scratch_file(tmp_path, "lab4", 1 << 20):
            pass
    assert not list(tmp_path.iterdir())  # nothing was created


def test_a_real_tmpfs_is_refused():
    shm = "/dev/shm"
    m = _sys.mount_of_path(shm) if os.path.isdir(shm) else None
    if not m or m["fstype"] != "tmpfs":
        pytest.skip("no tmpfs at /dev/shm on this machine")
    with pytest.raises(Refused, match="/dev/shm is on tmpfs"):
        scratch.check_place(shm)


def test_overlay_is_allowed_with_a_caveat(tmp_path, monkeypatch):
    _pretend(monkeypatch, "overlay", "overlay")
    monkeypatch.setattr(scratch, "_device_of", lambda d, m: None)
    place = scratch.check_place(tmp_path)
    assert place.device is None and place.fstype == "overlay"
    assert len(place.caveats) == 1 and "no block device of its own" in place.caveats[0]
    assert str(tmp_path) in place.caveats[0]


def test_a_ram_disk_under_the_directory_is_refused(tmp_path, monkeypatch):
    _pretend(monkeypatch, "ext4", "/dev/zram0")
    monkeypatch.setattr(scratch, "_device_of", lambda d, m: {
        "kind": "ram-disk", "label": "/dev/zram0: a RAM disk"})
    with pytest.raises(Refused, match="zram0: a RAM disk"):
        scratch.check_place(tmp_path)


def test_scratch_file_is_new_named_as_scratch_and_removed(tmp_path):
    with scratch.scratch_file(tmp_path, "lab4", 16 << 30) as s:
        assert s.path.parent == tmp_path and s.path.name.startswith("disklab-lab4-scratch-")
        st = s.path.stat()
        assert st.st_size == 16 << 30 and st.st_blocks * 512 < 1 << 20  # sparse
        if s.place.fstype in ("ext4", "xfs", "btrfs"):
            assert s.direct and s.place.device and not s.caveats
    assert not s.path.exists()


def test_an_existing_file_is_never_reused(tmp_path):
    mine = tmp_path / f"disklab-lab4-scratch-{os.getpid()}.img"
    mine.write_bytes(b"precious")
    with pytest.raises(Refused, match="exists"), scratch.scratch_file(tmp_path, "lab4", 1 << 20):
        pass
    assert mine.read_bytes() == b"precious"


def test_refused_o_direct_falls_back_with_a_caveat(tmp_path, monkeypatch):
    real_open = os.open

    def no_direct(path, flags, *a):
        if flags & os.O_DIRECT:
            raise OSError(errno.EINVAL, "Invalid argument")
        return real_open(path, flags, *a)

    monkeypatch.setattr(os, "open", no_direct)
    with scratch.scratch_file(tmp_path, "lab4", 1 << 20) as s:
        assert not s.direct
        assert any("refused O_DIRECT" in c and "direct=0" in c and str(s.path) in c
                   for c in s.caveats)


def test_too_little_space_is_refused(tmp_path):
    free = os.statvfs(tmp_path)
    with pytest.raises(Refused, match="free"):
        scratch.check_place(tmp_path, need_bytes=free.f_bavail * free.f_frsize)
