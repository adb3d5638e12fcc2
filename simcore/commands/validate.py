"""``validate``: replay a DiskSim validation trace and report the demerit figure.

``--disk`` takes a bundled id, a profile, or a DiskSim model (``.parv``, ``.diskspecs``,
``.model``) that is imported on the fly; the drive runs with its whole firmware unless
``--bare``.
``--as-disksim`` switches off what DiskSim 4.0 reads but never applies (zero latency, read
any free blocks: :func:`simcore.disksim.importer.as_disksim_runs`), to compare with DiskSim.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..engine import replay_validation
from ..workloads.traces.disksim import read_validation
from ._disk_arg import add_disk_arguments, load_disk_arg


def register(sub) -> None:
    p = sub.add_parser("validate", help="compare a disk model with a measured validation trace")
    add_disk_arguments(p)
    p.add_argument("--trace", required=True, help="a DiskSim validation trace")
    p.add_argument("--scheduler", default="fcfs")
    p.add_argument("--bare", action="store_true",
                   help="replay on the bare mechanism (no overheads, cache or interface)")
    p.set_defaults(func=main)


def main(args) -> int:
    if not Path(args.trace).is_file():
        raise FileNotFoundError(f"{args.trace}: no such trace file")
    disk = load_disk_arg(args)
    report = replay_validation(disk, read_validation(args.trace), args.scheduler,
                               firmware=not args.bare)
    json.dump(report, sys.stdout, indent=2, sort_keys=True)
    print()
    return 0
