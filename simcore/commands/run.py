"""``run``: replay a trace on a disk, write per-request CSV and print a summary."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..engine import few_collections
from ..engine import run as run_sim
from ..records import CSV_COLUMNS
from ..sched import names as scheduler_names
from ..workloads.traces import READERS, read_trace
from ._disk_arg import add_disk_arguments, load_disk_arg


def register(sub) -> None:
    p = sub.add_parser("run", help="simulate a trace on a disk")
    add_disk_arguments(p)
    p.add_argument("--trace", required=True, help="the trace file")
    p.add_argument("--format", default="csv", choices=sorted(READERS), help="trace format")
    p.add_argument("--scheduler", default="fcfs", help=f"one of: {', '.join(scheduler_names())}")
    p.add_argument("--out", help="write per-request CSV here (refuses to overwrite)")
    p.add_argument("--force", action="store_true", help="allow --out to replace a file")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--bare", action="store_true",
                   help="the mechanism alone: no drive cache or interface (firmware off)")
    p.set_defaults(func=main)


def main(args) -> int:
    with few_collections():  # reading, simulating and writing make many small objects
        return _main(args)


def _main(args) -> int:
    if args.out and Path(args.out).exists() and not args.force:
        raise ValueError(f"{args.out} exists; choose another --out or pass --force")
    disk = load_disk_arg(args)
    workload = read_trace(args.trace, args.format)
    result = run_sim(disk, workload, args.scheduler, firmware=not args.bare)
    if args.out:
        result.to_csv(args.out, CSV_COLUMNS)
    summary = result.summary()
    if args.json:
        print(json.dumps(summary, indent=2, sort_keys=True))
    else:
        print(f"disk {summary['disk']}  scheduler {summary['scheduler']}  "
              f"trace {summary['workload']}  requests {summary['requests']}")
        print(f"response ms: mean {summary['mean_response_ms']:.3f}  "
              f"p50 {summary['p50_response_ms']:.3f}  p95 {summary['p95_response_ms']:.3f}  "
              f"p99 {summary['p99_response_ms']:.3f}  max {summary['max_response_ms']:.3f}")
        print(f"throughput {summary['throughput_iops']:.1f} IO/s  "
              f"{summary['throughput_mb_s']:.3f} MB/s  utilization {summary['utilization']:.3f}")
        if args.out:
            print(f"per-request CSV: {args.out}", file=sys.stderr)
    return 0
