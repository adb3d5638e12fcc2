"""Record the served drive against the simulated one, for the chapter and the labs.

``python -m simcore.serve.record --out data/measurements/served/maxtor92048u8.json``
measures the emulated drive with fio (nbd engine) and, if QEMU and the guest
kernel are there, with fio and hdparm inside a guest; beside each figure it
stores the simulator's own number for the same workload and the server's
lateness. The book reads the file instead of running fio and QEMU at build
time (a run takes a few minutes and depends on the machine's load).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from .fio import random_offsets

SCHEMA = "disklab-served/1"
DISK = "maxtor92048u8"

#: fio's randseeds (:func:`simcore.serve.fio.random_offsets`): the random offsets at depth 1 and 32
#: on the host, and in the guest, where all three schedulers read the same offsets
SEED_QD1, SEED_QD32, SEED_GUEST = 11, 12, 3

GUEST_SCRIPT = """
for s in none mq-deadline bfq; do
  echo $s > /sys/block/sda/queue/scheduler
  echo 128 > /sys/block/sda/queue/nr_requests 2>/dev/null
  fio --name=$s --filename=/dev/sda --direct=1 --rw=randread --bs=4k --iodepth=32 \\
      --ioengine=libaio --runtime=5 --time_based {} --output-format=json > $s.json
done
hdparm -t --offset 0 /dev/sda > outer.txt
hdparm -t --offset 18 /dev/sda > inner.txt
""".format(" ".join(random_offsets(SEED_GUEST)))


def _closed_random(profile, depth: int, per_client: int = 150, seed: int = 5) -> dict[str, float]:
    """The simulator's own 4 KiB random reads with ``depth`` requests always outstanding."""
    from ..disk.access import Mechanism
    from ..engine import run
    from ..workloads import ClosedWorkload

    mech = Mechanism(profile)
    cap = mech.layout.capacity

    def make(c: int, k: int, rng: np.random.Generator) -> tuple[str, int, int]:
        return "R", int(rng.integers(0, cap // 8)) * 8, 8

    res = run(mech, ClosedWorkload(depth, per_client, make, 0.0, seed), cache=True)
    resp = np.array([r.response_ms for r in res.records])
    span = max(r.finish_ms for r in res.records) - min(r.arrival_ms for r in res.records)
    return {"mean_ms": float(resp.mean()), "p99_ms": float(np.percentile(resp, 99)),
            "iops": len(resp) / span * 1000.0}


def _side(measured, model: dict[str, float]) -> dict[str, Any]:
    return {"emulated": {"mean_ms": measured.mean_ms, "p99_ms": measured.p99_ms,
                         "iops": measured.iops, "mb_s": measured.mb_s},
            "simulated": model, "lateness_ms": measured.lateness}


def record(disk: str = DISK, guest: bool = True) -> dict[str, Any]:
    from ..disk.access import Mechanism
    from ..disk.profile_loader import load_disk
    from . import fio, mystery

    prof = load_disk(disk)
    layout = Mechanism(prof).layout
    args = ["--disk", disk]
    out: dict[str, Any] = {
        "schema": SCHEMA, "disk": disk, "simulated": False,
        "label": "EMULATED: the simulator's drive served in real time over NBD by `python -m "
                 "simcore serve` and measured with Debian's fio (nbd engine); not a disk",
        "recorded_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "command": f"python -m simcore.serve.record --disk {disk} --out PATH",
        "machine": {"cpus": os.cpu_count(), "load_average": list(os.getloadavg()),
                    "python": platform.python_version(), "kernel": platform.release()},
    }
    r1 = fio.random_reads(args, iodepth=1, seconds=6, seed=SEED_QD1)
    out["random_4k_qd1"] = {**_side(r1, {"mean_ms": mystery.mean_random_read_ms(prof)}),
                            "randseed": SEED_QD1}
    r32 = fio.random_reads(args, iodepth=32, seconds=8, seed=SEED_QD32)
    out["random_4k_qd32"] = {**_side(r32, _closed_random(prof, 32)), "randseed": SEED_QD32}
    last = layout.zone_count - 1
    for name, zone in (("sequential_outer", 0), ("sequential_inner", last)):
        m = fio.sequential(args, offset_bytes=layout.zone_lba_range(zone)[0] * 512, seconds=4)
        out[name] = _side(m, {"mb_s": mystery.zone_stream_mb_s(prof, zone), "zone": zone})
    demo = fio.sequential(["--mystery", mystery.DEMO], seconds=4)
    out["mystery_demo"] = {"token": mystery.DEMO, "outer_mb_s": demo.mb_s,
                           "lateness_ms": demo.lateness,
                           "method": "fio --rw=read --bs=128k --iodepth=4 --offset=0"}
    if guest:
        out["guest"] = _guest(disk)
    return out


def _guest(disk: str) -> dict[str, Any]:
    from ..disk.profile_loader import load_disk
    from . import vm
    from .served import ServedDisk

    try:
        vm.check_available()
    except vm.VmUnavailable as exc:
        return {"skipped": str(exc)}
    prof = load_disk(disk)
    with tempfile.TemporaryDirectory() as tmp, ServedDisk(tmp, ["--disk", disk]) as served:
        res = vm.run_guest(served.sock, prof, GUEST_SCRIPT)
    sched = {}
    for s in ("none", "mq-deadline", "bfq"):
        j = json.loads(res.files[f"{s}.json"])["jobs"][0]["read"]
        sched[s] = {"iops": j["iops"], "mean_ms": j["lat_ns"]["mean"] / 1e6,
                    "p99_ms": j["clat_ns"]["percentile"]["99.000000"] / 1e6}
    hd = {}
    for name in ("outer", "inner"):
        m = re.search(r"=\s*([\d.]+) MB/sec", res.files[f"{name}.txt"].decode())
        hd[name + "_mb_s"] = float(m.group(1)) if m else None
    return {"bus": vm.default_bus(prof), "boot_s": res.boot_s, "wall_s": res.wall_s,
            "schedulers_4k_qd32": sched, "hdparm_t": hd, "lateness_ms": served.summary,
            "script": GUEST_SCRIPT.strip()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m simcore.serve.record", description=__doc__)
    p.add_argument("--disk", default=DISK)
    p.add_argument("--out", required=True)
    p.add_argument("--no-guest", action="store_true", help="skip the QEMU guest part")
    p.add_argument("--force", action="store_true", help="replace an existing --out")
    a = p.parse_args(argv)
    if Path(a.out).exists() and not a.force:
        print(f"error: {a.out} exists; pass --force to replace it", file=sys.stderr)
        return 2
    data = record(a.disk, guest=not a.no_guest)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
