"""``validate``: replay a DiskSim validation trace and report the demerit figure."""

from __future__ import annotations

import json
from pathlib import Path

from ..engine import replay_validation
from ..profiles import load_disk
from ..traces.disksim import read_validation


def register(sub) -> None:
    p = sub.add_parser("validate", help="compare a disk model with a measured validation trace")
    p.add_argument("--disk", required=True, help="a bundled disk id or a profile path")
    p.add_argument("--trace", required=True, help="a DiskSim validation trace")
    p.add_argument("--scheduler", default="fcfs")
    p.set_defaults(func=main)


def main(args) -> int:
    if not Path(args.trace).is_file():
        raise FileNotFoundError(f"{args.trace}: no such trace file")
    report = replay_validation(load_disk(args.disk), read_validation(args.trace), args.scheduler)
    print(json.dumps(report, indent=2, sort_keys=True))
    return 0
