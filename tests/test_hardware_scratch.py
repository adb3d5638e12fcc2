"""hardware.scratch: the scratch file of lab 4's file target and what its file system measures."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import tempfile

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


def _holes_or_skip(directory) -> None:
    """Skip unless the file system under ``directory`` reports holes (SEEK_HOLE on a sparse file)."""
    fd, probe = tempfile.mkstemp(dir=directory)
    try:
        os.ftruncate(fd, 1 << 20)
        reports = os.lseek(fd, 0, os.SEEK_HOLE) == 0
    except OSError as exc:
        reports, why = False, str(exc)
    else:
        why = "SEEK_HOLE on a new 1 MiB sparse file says it is all data"
    finally:
        os.close(fd)
        os.unlink(probe)
    if not reports:
        pytest.skip(f"the file system under {directory} cannot report holes ({why})")


def _assert_all_written(path, size: int) -> None:
    st = path.stat()
    assert st.st_size == size and st.st_blocks * 512 >= size
    fd = os.open(path, os.O_RDONLY)
    try:
        assert os.lseek(fd, 0, os.SEEK_HOLE) == size  # no hole before the end of the file
    finally:
        os.close(fd)


def test_scratch_file_is_new_named_as_scratch_written_and_removed(tmp_path):
    _holes_or_skip(tmp_path)
    size = 12 << 20  # one full 8 MiB write and a shorter last one
    with scratch.scratch_file(tmp_path, "lab4", size) as s:
        assert s.path.parent == tmp_path and s.path.name.startswith("disklab-lab4-scratch-")
        _assert_all_written(s.path, size)
        assert s.size == size
        if s.place.fstype in ("ext4", "xfs", "btrfs"):
            assert s.direct and s.place.device and not s.caveats
    assert not s.path.exists()


def test_the_fill_is_random_and_every_block_differs(tmp_path):
    size = 3 << 20
    with scratch.scratch_file(tmp_path, "lab4", size) as s:
        data = s.path.read_bytes()
    blocks = [data[at:at + 4096] for at in range(0, size, 4096)]
    assert [int.from_bytes(b[:8], "little") for b in blocks] == list(range(0, size, 4096))
    assert len(set(blocks)) == len(blocks) and len(set(data[8:4096])) > 200  # not zeros


def test_the_fill_reports_its_progress_by_tenths(tmp_path):
    path = tmp_path / "f.img"
    path.touch()
    said: list[str] = []
    scratch.fill(path, 10 << 20, said.append, chunk=1 << 20)
    assert "writing all 10 MiB" in said[0] and len(said) == 12
    assert said[-2].lstrip().startswith("10 of 10 MiB written in") and "MB/s" in said[-2]
    assert "flushed" in said[-1]


def test_a_failed_fill_leaves_nothing_behind(tmp_path, monkeypatch):
    def full(fd, bufs, off):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "pwritev", full)
    with pytest.raises(Refused, match="filled up after 0 MiB"), \
            scratch.scratch_file(tmp_path, "lab4", 1 << 20):
        pass
    with pytest.raises(ValueError, match="multiples of 4096"), \
            scratch.scratch_file(tmp_path, "lab4", 1000):
        pass
    assert not list(tmp_path.iterdir())


def test_fio_args_keep_the_job_on_the_written_bytes(tmp_path):
    s = scratch.Scratch(tmp_path / "a:b.img", scratch.check_place(tmp_path), False, 8 << 20)
    assert s.fio_args() == [f"--filename={tmp_path}/a\\:b.img", f"--size={8 << 20}",
                            "--offset=0", "--direct=0", "--allow_file_create=0"]


def test_a_zipf_fio_job_stays_inside_the_written_region(tmp_path):
    fio = shutil.which("fio")
    if fio is None:
        pytest.skip("fio is not installed")
    from simcore.traces import read_trace

    log = tmp_path / "run.iolog"
    with scratch.scratch_file(tmp_path, "lab4", 16 << 20) as s:
        run = subprocess.run([fio, "--name=t", *s.fio_args(), "--rw=randrw", "--bs=8k",
                              "--rwmixread=60", "--random_distribution=zipf:1.2",
                              "--number_ios=400", "--randseed=7", f"--write_iolog={log}"],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        assert s.path.stat().st_size == s.size  # fio neither grew nor laid out the file
    reqs = read_trace(log, "fio").requests
    assert len(reqs) >= 400 and max((r.lba + r.sectors) * 512 for r in reqs) <= 16 << 20


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
        assert s.path.stat().st_blocks * 512 >= 1 << 20  # written all the same, buffered
        assert any("refused O_DIRECT" in c and "direct=0" in c and str(s.path) in c
                   for c in s.caveats)


def test_too_little_space_is_refused(tmp_path):
    free = os.statvfs(tmp_path)
    with pytest.raises(Refused, match="free"):
        scratch.check_place(tmp_path, need_bytes=free.f_bavail * free.f_frsize)
