"""fio and hdparm for real, against loop devices over temporary files (as root).

Every parser here reads output produced during the test run; the runner goes
end to end; scheduler and read-ahead are switched and restored; every safety
refusal is triggered. Nothing touches the machine's own disks: loop devices
are made over files in pytest's temporary directory and always detached.
Without root, fio, hdparm or losetup the tests skip with the reason, and
under CI=true they fail instead (tests/conftest.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import require, require_root, require_tool

from hardware import hdparm, record, summary, tuning
from hardware.fio import job_metrics, run_fio, trim
from hardware.jobs import get_job
from hardware.runner import run_job
from hardware.safety import Refused, check_target

pytestmark = pytest.mark.hardware


# -- loop devices ------------------------------------------------------------------------------

def _losetup(*args: str) -> str:
    return subprocess.run(["losetup", *args], check=True, capture_output=True,
                          text=True).stdout.strip()


@contextlib.contextmanager
def loop_device(path: Path, size: int, *, data: int = 0, partscan: bool = False,
                read_only: bool = False):
    """A loop device over a sparse file of ``size`` bytes (kept if it exists); ``data``
    bytes of random data are written at its start first."""
    require_root()
    require_tool("losetup")
    with open(path, "r+b" if path.exists() else "wb") as f:
        f.truncate(size)
        if data:
            chunk = os.urandom(1 << 20)
            for _ in range(data >> 20):
                f.write(chunk)
    args = ["--find", "--show", "--direct-io=on"]
    if partscan:
        args.append("--partscan")
    if read_only:
        args.append("--read-only")
    dev = _losetup(*args, str(path))
    try:
        yield dev
    finally:
        subprocess.run(["losetup", "-d", dev], check=False)


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    """256 GiB sparse with 32 MiB of real data at the start.

    hdparm --offset counts whole GiB, and hdparm 9.65 sizes its timed read by the
    whole device rather than by what lies past the offset, so a fast device needs
    far more room than it reads in 3 s (holes read at several GB/s).
    """
    path = tmp_path_factory.mktemp("hw") / "disk.img"
    with loop_device(path, 256 << 30, data=32 << 20) as dev:
        yield dev


@pytest.fixture
def blank(tmp_path):
    with loop_device(tmp_path / "blank.img", 64 << 20) as dev:
        yield dev


def _fio():
    require_tool("fio")


# -- parsers on real output --------------------------------------------------------------------

def test_fio_json_on_a_loop_device(loop):
    _fio()
    env = {"TARGET": loop, "BS": "64k", "QD": "1", "DIRECT": "1", "SIZE": str(8 << 20),
           "RUNTIME": "10s", "RAMP": "0s"}
    report, wall = run_fio(get_job("seq-read").path, env, readonly=True)
    t = trim(report)
    job = t["jobs"][0]
    assert job["job options"]["bs"] == "64k" and set(job) >= {"read", "usr_cpu", "sys_cpu"}
    assert "latency_us" not in job and "write" not in job  # trimmed
    m = job_metrics(job)
    # 8 MiB in 64 KiB requests: exactly 128 requests, 8,388,608 bytes
    assert m["read_ios"] == 128 and m["read_bytes"] == 8 << 20
    # fio's bandwidth is bytes over its own runtime
    assert m["read_mb_s"] == pytest.approx(
        job["read"]["io_bytes"] / (job["read"]["runtime"] / 1000) / 1e6, rel=0.02)
    assert 0 < m["read_clat_p50_ms"] <= m["read_clat_p99_ms"] and wall > 0


def test_a_ramp_uses_up_a_single_pass(loop, tmp_path):
    # why single-pass jobs keep ramp=0s (hardware.jobs): fio spends ramp_time reading the start
    # of the region and then counts only what is left (here: a quarter second at 16 MiB/s)
    _fio()
    size = 8 << 20
    jobfile = tmp_path / "seq-read-rated.fio"
    jobfile.write_text(get_job("seq-read").path.read_text() + "rate=16m\n")
    env = {"TARGET": loop, "BS": "256k", "QD": "1", "DIRECT": "1", "SIZE": str(size),
           "RUNTIME": "10s", "RAMP": "250ms"}
    report, _ = run_fio(jobfile, env, readonly=True)
    m = job_metrics(trim(report)["jobs"][0])
    assert 0 < m["read_bytes"] < size

def test_track_scan_reads_a_loop_device_with_o_direct(loop):
    # hardware.trackscan end to end on a real block device: O_DIRECT reads, flushes included
    from hardware import trackscan

    size = int(subprocess.run(["blockdev", "--getsize64", loop], check=True,
                              capture_output=True, text=True).stdout)
    with trackscan.direct_reader(loop, 1 << 20) as read:
        res = trackscan.scan(read, size, [8, 16, 32, 64], 512, tries=2, regions=4,
                             cache_bytes=1 << 20)
        chk = trackscan.cache_check(read, size, 512, tries=1, regions=4, cache_bytes=1 << 20)
    assert res.reads == 2 * 4 * 5 and all(0 < t < 1000 for t in res.times_ms)
    assert chk["flushed_ms"] > 0 and chk["cached_ms"] > 0

def test_hdparm_on_a_loop_device(loop):
    require_tool("hdparm")
    # hdparm sleeps about 3 s before each timing; run the read-only tests side by side (the
    # numbers disturb each other, the parsing does not), the sweep as two one-offset halves
    with ThreadPoolExecutor(6) as ex:
        t = ex.submit(hdparm.timing, loop)
        big = ex.submit(hdparm.cached, loop)
        near = ex.submit(hdparm.offset_sweep, loop, [0])
        far = ex.submit(hdparm.offset_sweep, loop, [128])
        ident = ex.submit(hdparm.identify, loop)
        wc = ex.submit(hdparm.write_cache, loop)
        t, big, near, far, ident, wc = (f.result() for f in (t, big, near, far, ident, wc))
    sweep = near
    sweep["raw"]["runs"] += far["raw"]["runs"]
    sweep["summary"] = hdparm.summarize_sweep(sweep["raw"], sweep["raw"]["size_bytes"])
    assert t["device"] == loop and t["test"] == "disk" and not t["direct"]
    assert t["mib"] > 0 and t["seconds"] > 0
    assert t["mb_s"] == pytest.approx(t["mib_s"] * 1.048576)
    assert f"{t['mib']} MB in" in t["raw"]
    assert big["test"] == "cached" and big["mib"] > 0
    # a loop device answers no ATA IDENTIFY and has no write-cache setting
    assert ident["supported"] is False and wc["supported"] is False
    record.validate(sweep)
    pts = sweep["summary"]["points"]
    assert [p["offset_gib"] for p in pts] == [0, 128] and pts[1]["offset_pct"] == 50.0
    assert all(p["read_mb_s"] > 0 for p in pts)
    for run in sweep["raw"]["runs"]:
        parsed = hdparm.parse_t(run["text"])
        assert parsed["direct"] and parsed["offset_gib"] == run["offset_gib"]
    assert summary.summarize("hdparm-offsets", sweep["params"], sweep["raw"]) == sweep["summary"]


# -- the runner end to end ---------------------------------------------------------------------

QUICK = {
    "zone-bandwidth": {"offset_pct": "0,50,90", "span": "4m", "size": "32m", "runtime": "1s"},
    "seek-distance": {"window": "1m,100%", "ios": "64", "size": "32m", "runtime": "2s"},
    "qd-sweep": {"qd": "1,4", "size": "32m", "runtime": "200ms", "ramp": "100ms"},
    "bs-sweep": {"bs": "4k,64k", "size": "32m", "runtime": "200ms", "ramp": "100ms"},
    "multistream": {"streams": "1,4", "size": "32m", "runtime": "200ms", "ramp": "100ms"},
    "seq-read": {"size": "16m", "runtime": "1s"},
    "cpu-engines": {"engine": "psync,io_uring", "span": "8m", "size": "32m", "runtime": "1s"},
}


@pytest.mark.parametrize("job", sorted(QUICK))
def test_read_jobs_end_to_end(loop, job, tmp_path):
    _fio()
    out = tmp_path / f"{job}.json"
    rec = run_job(job, loop, params=QUICK[job], out=out)
    saved = record.load(out)
    assert saved["summary"] == json.loads(json.dumps(rec["summary"]))
    assert rec["device"]["kind"].startswith("loop-on-") and "Not a disk" in rec["label"]
    assert rec["device"]["path"] == loop and rec["machine"]["fio_version"].startswith("fio-")
    # every fio run was read-only and left no error
    for run in rec["raw"]["runs"]:
        assert all(j["error"] == 0 for j in run["fio"]["jobs"])
        assert all(not j.get("write") for j in run["fio"]["jobs"])
    pts = rec["summary"]["points"]
    assert all(p["read_mb_s"] > 0 for p in pts)
    assert summary.summarize(job, rec["params"], rec["raw"]) == rec["summary"]
    if job == "seek-distance":
        reqs = rec["raw"]["runs"][0]["requests"]
        assert len(reqs["offset"]) == 64 and rec["summary"]["bins"]
        w = rec["raw"]["runs"][0]["derived"]
        assert all(w["offset_bytes"] <= o < w["offset_bytes"] + w["window_bytes"]
                   for o in reqs["offset"])
    if job == "zone-bandwidth":
        assert [p["offset_bytes"] for p in pts] == [0, 16 << 20, 28 << 20]
    if job == "cpu-engines":
        for p in pts:  # CPU seconds per MB: (usr% + sys%) / 100 x runtime / MB read
            cpu_s = (p["usr_cpu_pct"] + p["sys_cpu_pct"]) / 100 * p["runtime_s"]
            assert p["cpu_us_per_mb"] == pytest.approx(cpu_s * 1e6 / (p["read_bytes"] / 1e6))
        assert [p["qd_used"] for p in pts] == [1, 1, 8, 8]  # psync is always one at a time


def test_seq_write_on_a_scratch_loop_device(blank):
    _fio()
    with pytest.raises(Refused, match="pass --scratch"):
        run_job("seq-write", blank, params={"size": "8m"})
    rec = run_job("seq-write", blank, scratch=True, params={"size": "8m", "runtime": "5s"})
    p = rec["summary"]["points"][0]
    assert p["write_bytes"] == 8 << 20 and p["write_mb_s"] > 0
    assert any("overwritten" in n for n in rec["notes"])
    with open(blank, "rb") as f:  # the data really reached the device
        assert f.read(4096) != bytes(4096)


def test_seq_write_creates_a_new_file(tmp_path):
    _fio()
    f = tmp_path / "new.dat"
    rec = run_job("seq-write", f, params={"size": "4m", "bs": "256k"})
    assert f.stat().st_size == 4 << 20 and rec["device"]["kind"] == "file"
    assert rec["summary"]["points"][0]["write_bytes"] == 4 << 20
    # reading it back is a read job on an existing file
    back = run_job("seq-read", f, params={"bs": "256k", "runtime": "2s"})
    assert back["summary"]["points"][0]["read_bytes"] == 4 << 20


@pytest.mark.parametrize("job", ["server-web", "server-file", "server-mail", "server-metadata"])
def test_server_profiles_in_a_directory(tmp_path, job):
    _fio()
    rec = run_job(job, tmp_path, params={"nj": "2", "ndirs": "2", "nfiles": "10", "ops": "20"})
    assert list(tmp_path.iterdir()) == []  # the working directory was removed
    run = rec["raw"]["runs"][0]
    assert run["setup"]["job"] == "server-layout"
    layout = run["setup"]["fio"]["jobs"][0]
    assert layout["write"]["total_ios"] > 0
    p = rec["summary"]["points"][0]
    assert p["wall_s"] > 0 and p["ops"] == 40  # 2 threads x 20 operations
    secs = {s["section"]: s for s in rec["summary"]["sections"]}
    if job == "server-web":
        assert secs["web-read"]["read_ios"] == 40
    if job == "server-file":
        rw = secs["file-rw"]
        assert rw["read_ios"] + rw["write_ios"] == 40 and rw["read_ios"] > rw["write_ios"]
    if job == "server-mail":
        assert secs["mail-read"]["read_ios"] == 2 * 8  # 40% of 20 per thread
        assert secs["mail-delete"]["files"] == 2 * 4
    if job == "server-metadata":
        assert secs["meta-append"]["write_ios"] == 2 * 8  # one 4 KiB append per file


# -- scheduler and read-ahead -------------------------------------------------------------------

def test_temporarily_switches_and_restores_even_on_error(blank):
    before = tuning.current(blank)
    other = next(s for s in before["schedulers"] if s != before["scheduler"])
    ra = before["read_ahead_kb"] + 64
    with tuning.temporarily(blank, scheduler=other, read_ahead_kb=ra) as info:
        now = tuning.current(blank)
        assert now["scheduler"] == other and now["read_ahead_kb"] == ra
        assert info["before"]["scheduler"] == before["scheduler"]
        assert info["during"]["scheduler"] == other
    after = tuning.current(blank)
    assert (after["scheduler"], after["read_ahead_kb"], after["nr_requests"]) == (
        before["scheduler"], before["read_ahead_kb"], before["nr_requests"])
    with pytest.raises(ZeroDivisionError), tuning.temporarily(blank, scheduler=other,
                                                              read_ahead_kb=ra, nr_requests=32):
        assert tuning.current(blank)["nr_requests"] == 32
        _ = 1 / 0
    after = tuning.current(blank)
    assert (after["scheduler"], after["read_ahead_kb"], after["nr_requests"]) == (
        before["scheduler"], before["read_ahead_kb"], before["nr_requests"])
    with pytest.raises(Refused, match="not available"), tuning.temporarily(blank,
                                                                            scheduler="cfq"):
        pass
    assert tuning.current(blank)["scheduler"] == before["scheduler"]


def test_runner_switches_per_point_and_restores(blank):
    _fio()
    before = tuning.current(blank)
    scheds = [s for s in ("none", "mq-deadline") if s in before["schedulers"]]
    require(len(scheds) == 2, "the kernel lacks the none or mq-deadline scheduler")
    rec = run_job("qd-sweep", blank, params={"qd": "2", "runtime": "200ms", "ramp": "0s",
                                             "scheduler": ",".join(scheds),
                                             "read_ahead_kb": "16"})
    during = [(p["scheduler_during"], p["read_ahead_kb_during"])
              for p in rec["summary"]["points"]]
    assert during == [(scheds[0], 16), (scheds[1], 16)]
    after = tuning.current(blank)
    assert (after["scheduler"], after["read_ahead_kb"]) == (before["scheduler"],
                                                            before["read_ahead_kb"])


def test_runner_restores_when_fio_fails(blank):
    _fio()
    before = tuning.current(blank)
    with pytest.raises(Exception, match="fio"):
        # an engine fio does not have: fio fails after the scheduler was switched
        run_job("zone-bandwidth", blank, params={"offset_pct": "0", "ioengine": "nosuchengine",
                                                 "scheduler": "none", "read_ahead_kb": "8"})
    after = tuning.current(blank)
    assert (after["scheduler"], after["read_ahead_kb"]) == (before["scheduler"],
                                                            before["read_ahead_kb"])


def test_runner_restores_when_killed_with_sigterm(blank):
    _fio()
    import signal
    import time

    before = tuning.current(blank)
    other = "mq-deadline" if before["scheduler"] != "mq-deadline" else "none"
    code = ("from hardware.runner import run_job; "
            f"run_job('qd-sweep', {blank!r}, params={{'runtime': '30s', 'scheduler': {other!r}, "
            "'read_ahead_kb': '16'})")
    proc = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while tuning.current(blank)["scheduler"] != other:
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "the run never switched the scheduler"
            time.sleep(0.05)
        time.sleep(0.3)  # let fio start
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    after = tuning.current(blank)
    assert (after["scheduler"], after["read_ahead_kb"]) == (before["scheduler"],
                                                            before["read_ahead_kb"])


# -- every safety refusal ---------------------------------------------------------------------

def _mbr(path: Path) -> None:
    """One Linux partition (type 0x83) from sector 2048 to the end, in a classic MBR."""
    size = path.stat().st_size // 512
    entry = struct.pack("<B3sB3sII", 0, b"\0\0\0", 0x83, b"\0\0\0", 2048, size - 2048)
    with open(path, "r+b") as f:
        f.seek(446)
        f.write(entry + bytes(48) + b"\x55\xaa")


def test_refuses_a_device_with_partitions(tmp_path):
    img = tmp_path / "parted.img"
    with open(img, "wb") as f:
        f.truncate(32 << 20)
    _mbr(img)
    with loop_device(img, 32 << 20, partscan=True) as dev:
        with pytest.raises(Refused, match=r"(holds partitions|partition table)"):
            check_target(dev, job="seq-write", writes=True, scratch=True)
        # reading it is fine
        assert check_target(dev, job="seq-read").type == "block"
    with loop_device(tmp_path / "p2.img", 32 << 20) as dev:  # without a partition scan
        _mbr(Path(_losetup("--list", "--noheadings", "-O", "BACK-FILE", dev)))
        with pytest.raises(Refused, match="partition table"):
            check_target(dev, job="seq-write", writes=True, scratch=True)


def test_refuses_a_device_with_a_file_system_and_a_mounted_one(tmp_path):
    require_tool("mkfs.ext4")
    with loop_device(tmp_path / "fs.img", 32 << 20) as dev:
        subprocess.run(["mkfs.ext4", "-q", dev], check=True)
        with pytest.raises(Refused, match="ext4 signature") as exc:
            check_target(dev, job="seq-write", writes=True, scratch=True)
        assert "wipefs" in str(exc.value)
        mnt = tmp_path / "mnt"
        mnt.mkdir()
        subprocess.run(["mount", dev, str(mnt)], check=True)
        try:
            with pytest.raises(Refused, match="is mounted at"):
                check_target(dev, job="seq-write", writes=True, scratch=True)
            with pytest.raises(Refused, match="is mounted at"):
                run_job("seq-write", dev, scratch=True)
            # tuning the device under a dedicated mounted file system is allowed
            rec_dev = check_target(mnt, job="server-web", writes=True, kinds=("dir",))
            assert rec_dev.device == Path(dev).name
        finally:
            subprocess.run(["umount", str(mnt)], check=True)


def test_refuses_a_read_only_device_and_a_server_job_on_a_device(tmp_path):
    with loop_device(tmp_path / "ro.img", 16 << 20, read_only=True) as dev:
        with pytest.raises(Refused, match="read-only"):
            check_target(dev, job="seq-write", writes=True, scratch=True)
        with pytest.raises(Refused, match="runs on a file system"):
            run_job("server-web", dev)


def test_refuses_a_file_set_larger_than_half_the_free_space(tmp_path):
    free = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize
    nfiles = free // (64 * 1024) // 10 + 1  # 10 directories of them would fill it
    with pytest.raises(Refused, match="MiB free"):
        run_job("server-web", tmp_path, params={"ndirs": "10", "nfiles": str(nfiles)})
    assert list(tmp_path.iterdir()) == []


def test_refusals_on_files_and_paths(tmp_path):
    precious = tmp_path / "precious.dat"
    precious.write_bytes(b"x" * 4096)
    with pytest.raises(Refused, match="exists and seq-write writes into it"):
        run_job("seq-write", precious)
    assert precious.read_bytes() == b"x" * 4096
    with pytest.raises(Refused, match="does not exist"):
        run_job("seq-read", tmp_path / "missing.dat")
    empty = tmp_path / "empty.dat"
    empty.touch()
    with pytest.raises(Refused, match="is empty"):
        run_job("seq-read", empty)
    with pytest.raises(Refused, match="character device"):
        run_job("seq-read", "/dev/null")
    with pytest.raises(Refused, match="is a directory"):
        run_job("seq-read", tmp_path)
    with pytest.raises(Refused, match="is a regular file; server-web needs"):
        run_job("server-web", precious)
    with pytest.raises(Refused, match="pseudo file system"):
        run_job("seq-write", "/proc/disklab-test")
    # a file on the disk that holds / : its scheduler belongs to everybody
    if os.stat(tmp_path).st_dev == os.stat("/").st_dev:
        with pytest.raises(Refused, match="root file system"):
            run_job("seq-read", precious, params={"scheduler": "none"})


def test_cli_run_saves_and_refuses(loop, tmp_path):
    _fio()
    out = tmp_path / "z.json"
    cmd = [sys.executable, "-m", "hardware", "run", "zone-bandwidth", "--target", loop,
           "--param", "offset_pct=0,50", "--param", "span=2m", "--param", "size=16m",
           "--out", str(out), "--quiet"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert record.load(out)["job"] == "zone-bandwidth"
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "exists" in proc.stderr  # never overwrites
    proc = subprocess.run([sys.executable, "-m", "hardware", "run", "seq-write", "--target",
                           loop], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.startswith("refused: ")
    assert len(proc.stderr.strip().splitlines()) == 1
