"""Record Labs 5 and 6's emulated measurements, repeated, beside the simulator's predictions.

``python -m simcore.serve.record_labs --out data/measurements/served/labs56.json``
runs each lab's fio job several times against ``python -m simcore serve`` and
stores, for every run, fio's figures and the server's lateness, and beside
them the prediction of :mod:`simcore.serve.predict` for the same drive and
workload (Lab 5: the expected value, and each run's own on the offsets its fio
seed reads, as the grader predicts; Lab 6: the mean over random start orders, and
each run's own for the order its readers started in, which the grader keeps within
the random orders' range). The chapter "Measuring real disks" reads the file (a
live run takes minutes and depends on the machine's load); the labs' tolerances
come from the spread it shows (the relative spread of repeated runs, and how far
fio's mean lies from the prediction).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
from pathlib import Path
from typing import Any

from ..disk.access import Mechanism
from ..disk.profile_loader import load_disk
from . import predict
from .fio import run_fio

SCHEMA = "disklab-served-labs/1"
LAB5_DISKS = ("atlas10k2", "atlas10k", "cheetahx15", "ultrastar18es")
LAB6_DISK = "wd800jd"
LAB6_STREAMS = (1, 16, 24)
LAB6_BS = 65536
RUNTIME_S = 3.0
LAB5_SEED = 7  # fio randseed of the first run; run k uses LAB5_SEED + k
RAMP_S = 1.0


def path() -> Path:
    """Where the recording is kept (``data/measurements/served/labs56.json``)."""
    from ..disk.profile_loader import data_dir

    return data_dir() / "measurements" / "served" / "labs56.json"


def load() -> dict[str, Any]:
    """The recording (FileNotFoundError names the command that makes it)."""
    p = path()
    if not p.exists():
        raise FileNotFoundError(f"{p} is missing; record it with python -m "
                                f"simcore.serve.record_labs --out {p}")
    return json.loads(p.read_text())


def lab5_geometry(disk: str, zone: int = 0) -> dict[str, int]:
    """A zone's first byte, its span and its track size in bytes (the first track's)."""
    lay = Mechanism(load_disk(disk)).layout
    lo, hi = lay.zone_lba_range(zone)
    return {"first_byte": lo * 512, "span_bytes": (hi - lo) * 512,
            "track_bytes": lay.sectors_per_track(zone) * 512}


def _fio(serve: list[str], args: list[str]) -> dict[str, Any]:
    m = run_fio(serve, args)
    return {"read_mb_s": m.mb_s, "read_iops": m.iops, "read_mean_ms": m.mean_ms,
            "lateness_ms": m.lateness}


def record_lab5(disk: str, repeats: int, shift_fraction: float = 0.5) -> dict[str, Any]:
    g = lab5_geometry(disk)
    shift = int(g["track_bytes"] * shift_fraction) // 512 * 512
    prof = load_disk(disk)
    out: dict[str, Any] = {"disk": disk, "zone": 0, "shift_bytes": shift, **g}
    for name, sh in (("aligned", 0), ("shifted", shift)):
        p = predict.track_reads(prof, g["track_bytes"], g["first_byte"], g["span_bytes"], sh)
        # a seed per run (the aligned and shifted runs of one repeat share it): each run reads
        # its own random tracks, so the runs' spread holds fio's sampling, not only the timing
        seeds = [LAB5_SEED + k for k in range(repeats)]
        args = [predict.track_fio_args(g["track_bytes"], g["first_byte"], g["span_bytes"], sh,
                                       RUNTIME_S, s) for s in seeds]
        # and each run's own prediction, on the offsets its seed reads, as the grader predicts
        per_run = [vars(predict.track_reads(prof, g["track_bytes"], g["first_byte"],
                                            g["span_bytes"], sh, runtime_s=RUNTIME_S,
                                            fio_seed=s)) for s in seeds]
        out[name] = {"fio_args": args[0], "randseeds": seeds, "predicted": vars(p),
                     "predicted_runs": per_run,
                     "emulated": [_fio(["--disk", disk], a) for a in args]}
    return out


def record_lab6(streams: int, repeats: int) -> dict[str, Any]:
    prof = load_disk(LAB6_DISK)
    cap = Mechanism(prof).layout.capacity * 512
    args = predict.stream_fio_args(streams, cap, LAB6_BS, RUNTIME_S, RAMP_S)
    p = predict.streams(prof, streams, LAB6_BS)
    spread = predict.streams_spread(prof, streams, LAB6_BS) if streams > 1 else []
    runs = [_fio(["--disk", LAB6_DISK], args) for _ in range(repeats)]
    # each run's own prediction, for the order its readers started in (the server's
    # first_offsets, in its lateness summary), as the grader predicts; None without one
    own = []
    for r in runs:
        order = predict.stream_order(r["lateness_ms"].get("first_offsets"), streams, cap, LAB6_BS)
        own.append(None if order is None or streams < 2 else
                   predict.streams(prof, streams, LAB6_BS, start_order=order).read_mb_s)
    return {"disk": LAB6_DISK, "streams": streams, "bs": LAB6_BS, "fio_args": args,
            "predicted": vars(p), "predicted_per_order_mb_s": spread,
            "predicted_own_order_mb_s": own, "emulated": runs}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args(argv)
    rec: dict[str, Any] = {
        "schema": SCHEMA,
        "command": "python -m simcore.serve.record_labs --out PATH",
        "recorded_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "kernel": platform.release(),
                    "load_average": list(os.getloadavg())},
        "label": "EMULATED: the simulator's drive served in real time by `python -m simcore "
                 "serve`, measured with Debian's fio (nbd engine); not a disk",
        "runtime_s": RUNTIME_S, "repeats": a.repeats,
        "lab5": [record_lab5(d, a.repeats) for d in LAB5_DISKS],
        "lab6": [record_lab6(n, a.repeats) for n in LAB6_STREAMS],
    }
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(rec, indent=1, sort_keys=True) + "\n")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
