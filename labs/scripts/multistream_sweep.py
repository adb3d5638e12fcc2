#!/usr/bin/env python3
"""Lab 6 hardware part: N sequential readers on one device, swept over read-ahead and request size.

Seed 004 (Panagiotakis 2006), notes 004 §7.2 (a) and (b): ``streams`` fio jobs each read their
own ``1/streams`` of the device sequentially, one request outstanding, either with O_DIRECT
(the disk sees every request: the thesis's baseline) or buffered (the kernel's read-ahead turns
small reads into windows of up to ``read_ahead_kb``: the host-side fix for free). The device's
``read_ahead_kb`` is switched for each point and restored afterwards (hardware.tuning).

usage:
  sudo .venv/bin/python labs/scripts/multistream_sweep.py --device /dev/sdX [--out FILE]
  sudo .venv/bin/python labs/scripts/multistream_sweep.py --loop 2g [--out FILE]

``--device`` measures a disk you name (read-only: fio runs with --readonly; a mounted disk is
fine but other I/O disturbs the numbers). ``--loop SIZE`` makes a file of random data in
``--workdir``, attaches a loop device with direct I/O to it, measures that and removes both
afterwards: no disk of yours is involved, and the record says the numbers are the host's
storage stack, not a disk. Options: ``--streams 1,4,16,64``, ``--bs 64k,1m``,
``--read-ahead 0,128,2048`` (KiB), ``--direct 1,0``, ``--runtime 10s``, ``--ramp 5s``,
``--label TEXT``.

Each point is ``--ramp`` plus ``--runtime`` long (fio's ``ramp_time`` is added before the
runtime), so the defaults take 48 points of 15 s, about 12 minutes. The ramp lets 64
buffered readers grow their read-ahead windows (each stream needs a few visits for that)
before fio counts; 10 s then holds several hundred positionings of a hard disk even with 64
readers, enough for a stable mean. The same values as lab 6, section 5.

The record goes to ``--out`` (default ``data/measurements/multistream.<kind>.readahead.json``)
in the format of data/measurements/README.md; the lab falls back to
``data/measurements/multistream.loop.readahead.json``, made with ``--loop 2g`` on a build
machine of this project (its record keeps the runtime and ramp it was made with).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))

from hardware import record  # noqa: E402
from hardware.runner import run_job  # noqa: E402
from hardware.units import parse_size  # noqa: E402


@contextlib.contextmanager
def loop_device(size: int, workdir: str):
    """A loop device (direct I/O) over a new file of random data; both gone afterwards."""
    with tempfile.TemporaryDirectory(prefix="disklab-ms-", dir=workdir) as tmp:
        data = Path(tmp) / "data.img"
        with open(data, "wb") as f:
            for _ in range(size >> 20):
                f.write(os.urandom(1 << 20))
            f.flush()
            os.fsync(f.fileno())
        dev = subprocess.run(["losetup", "--find", "--show", "--direct-io=on", str(data)],
                             check=True, capture_output=True, text=True).stdout.strip()
        try:
            yield dev
        finally:
            subprocess.run(["losetup", "-d", dev], check=False)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--device", help="a block device to read (e.g. /dev/sdb)")
    where.add_argument("--loop", metavar="SIZE", help="measure a new loop device of SIZE")
    ap.add_argument("--workdir", default="/var/tmp")
    ap.add_argument("--streams", default="1,4,16,64")
    ap.add_argument("--bs", default="64k,1m")
    ap.add_argument("--read-ahead", default="0,128,2048")
    ap.add_argument("--direct", default="1,0")
    ap.add_argument("--runtime", default="10s")
    ap.add_argument("--ramp", default="5s")
    ap.add_argument("--label", default="")
    ap.add_argument("--out")
    ap.add_argument("--overwrite", action="store_true")
    args = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("refused: switching read_ahead_kb (and loop devices) needs root; run with sudo",
              file=sys.stderr)
        return 2
    params = {"streams": args.streams, "bs": args.bs, "direct": args.direct,
              "read_ahead_kb": args.read_ahead, "runtime": args.runtime, "ramp": args.ramp}
    label = args.label or ("Recorded with labs/scripts/multistream_sweep.py"
                           + (f" --loop {args.loop}" if args.loop else ""))
    ctx = (loop_device(parse_size(args.loop), args.workdir) if args.loop
           else contextlib.nullcontext(args.device))
    with ctx as dev:
        rec = run_job("multistream", dev, params=params, label=label,
                      progress=lambda m: print(m, file=sys.stderr))
    kind = rec["device"].get("kind", "unknown")
    kind = "loop" if kind.startswith("loop-on-") else kind
    out = Path(args.out) if args.out else (record.measurements_dir()
                                            / f"multistream.{kind}.readahead.json")
    p = record.save(rec, out, overwrite=args.overwrite)
    print(f"saved {p}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
