"""Make the loop-device recordings in ``data/measurements`` (how they were made, runnable).

``sudo python -m hardware.record_loop --out data/measurements`` writes a file of
random data (``--size``, default 6 GiB) in ``--workdir``, attaches a loop
device to it with direct I/O (so reads reach the file's disk, not the page
cache), runs every job the labs need with the parameters below, and saves
``<job>.loop.json``. The server profiles run on an ext4 file system made on a
second loop device. Everything is detached and deleted afterwards, also on
failure.

Such a recording measures the machine it ran on: a loop device over a file on
whatever disk holds ``--workdir`` (on the build machines, a virtual disk).
Each record's label says so; no recording claims to be a spinning disk.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from . import hdparm, record
from .runner import run_job

__all__ = ["PLAN", "main"]

# job -> parameters used for the recordings (defaults otherwise)
PLAN: dict[str, dict] = {
    "zone-bandwidth": {"span": "128m", "runtime": "3s", "repeat": "3"},
    "seek-distance": {"window": "1m,16m,256m,100%", "ios": "800", "runtime": "10s"},
    "qd-sweep": {"runtime": "3s"},
    "bs-sweep": {"bs": "4k,16k,64k,256k,1m", "runtime": "2s"},
    "multistream": {"streams": "1,2,4,8,16", "direct": "1,0", "runtime": "2s"},
    "seq-read": {"direct": "1,0", "repeat": "5", "runtime": "2s"},
    "cpu-engines": {"span": "1g", "runtime": "3s"},
}
SERVER = {"nj": "8", "ndirs": "20", "nfiles": "400", "ops": "1000"}
LABEL = ("Recorded with `python -m hardware.record_loop` on a disklab build machine "
         "(a KVM guest with no physical disk attached).")


def _sh(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout.strip()


@contextlib.contextmanager
def _loop(path: Path) -> Iterator[str]:
    dev = _sh("losetup", "--find", "--show", "--direct-io=on", str(path))
    try:
        yield dev
    finally:
        subprocess.run(["losetup", "-d", dev], check=False)


def _fill(path: Path, size: int) -> None:
    with open(path, "wb") as f:
        for _ in range(size >> 20):
            f.write(os.urandom(1 << 20))
        f.flush()
        os.fsync(f.fileno())


def _save(rec: dict, out: Path, name: str, overwrite: bool) -> None:
    p = record.save(rec, out / f"{name}.loop.json", overwrite=overwrite)
    print(f"saved {p} ({p.stat().st_size // 1024} KiB)", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hardware.record_loop", description=__doc__)
    ap.add_argument("--out", default=str(record.measurements_dir()))
    ap.add_argument("--workdir", default="/var/tmp")
    ap.add_argument("--size", default="6g", help="size of the data file (k, m, g)")
    ap.add_argument("--only", help="comma-separated jobs to record (default: all)")
    ap.add_argument("--overwrite", action="store_true")
    args = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("refused: loop devices need root. Run with sudo.", file=sys.stderr)
        return 2
    for tool in ("fio", "hdparm", "losetup", "mkfs.ext4"):
        if shutil.which(tool) is None:
            print(f"failed: {tool} is not installed", file=sys.stderr)
            return 1
    from .units import parse_size

    size = parse_size(args.size)
    only = set(args.only.split(",")) if args.only else None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    def wanted(name: str) -> bool:
        return only is None or name in only

    def say(msg: str) -> None:
        print(msg, file=sys.stderr)

    raw_jobs = [*PLAN, "hdparm-offsets", "seq-write"]
    with tempfile.TemporaryDirectory(prefix="disklab-rec-", dir=args.workdir) as tmp:
        data = Path(tmp) / "data.img"
        if any(wanted(j) for j in raw_jobs):
            say(f"writing {size >> 20} MiB of random data to {data}")
            _fill(data, size)
        with _loop(data) if any(wanted(j) for j in raw_jobs) else contextlib.nullcontext() as dev:
            for job, params in PLAN.items():
                if wanted(job):
                    _save(run_job(job, dev, params=params, label=LABEL, progress=say), out,
                          job, args.overwrite)
            if wanted("hdparm-offsets"):
                # hdparm sizes its timed read by the whole device, so the offsets stop
                # well before the end (see hardware.hdparm.offset_sweep)
                last = max(0, (size >> 30) - 3)
                rec = hdparm.offset_sweep(dev, list(range(0, last + 1)), direct=True,
                                          repeat=2, label=LABEL)
                _save(rec, out, "hdparm-offsets", args.overwrite)
            if wanted("seq-write"):
                _save(run_job("seq-write", dev, scratch=True,
                              params={"size": "1g", "runtime": "10s"}, label=LABEL,
                              progress=say), out, "seq-write", args.overwrite)
        servers = [j for j in ("server-web", "server-file", "server-mail", "server-metadata")
                   if wanted(j)]
        if servers:
            fsimg = Path(tmp) / "fs.img"
            with open(fsimg, "wb") as f:
                f.truncate(2 << 30)
            with _loop(fsimg) as dev:
                _sh("mkfs.ext4", "-q", dev)
                mnt = Path(tmp) / "mnt"
                mnt.mkdir()
                _sh("mount", dev, str(mnt))
                try:
                    for job in servers:
                        _save(run_job(job, mnt, params=SERVER, label=LABEL, progress=say), out,
                              job, args.overwrite)
                finally:
                    subprocess.run(["umount", str(mnt)], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
