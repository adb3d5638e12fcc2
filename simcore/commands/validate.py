"""``validate``: replay a DiskSim validation trace and report the demerit figure.

``--disk`` takes a bundled id, a profile, or a DiskSim model (``.parv``, ``.diskspecs``,
``.model``) that is imported on the fly; the drive runs with its whole firmware unless
``--bare``.
``--as-disksim`` switches off what DiskSim 4.0 reads but never applies (zero latency, read
any free blocks: :func:`simcore.disksim.importer.as_disksim_runs`), to compare with DiskSim.
It prints a short table (all requests, reads, writes: measured and simulated means and
standard deviations, the demerit exact and as DiskSim's ``rms`` scores it); ``--json`` prints
the whole report.
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
    p.add_argument("--json", action="store_true", help="print the whole report as JSON")
    p.set_defaults(func=main)


def report_text(report: dict, trace: str) -> str:
    """The report as a reader wants it first: one line per class of request, in a table 74
    characters wide, and short lines around it (to fit a terminal and the book's code box)."""
    how = "the drive's firmware" if report["firmware"] else "the bare mechanism"
    lines = [f"disk {report['disk']}, trace {Path(trace).name}: {report['requests']:,} requests",
             f"replayed with {how}",
             f"{'':8}{'measured ms':>22}{'simulated ms':>22}{'demerit ms':>22}",
             f"{'':8}{'mean':>11}{'sd':>11}{'mean':>11}{'sd':>11}{'exact':>11}"
             f"{'bucketed':>11}"]
    for label, part in (("all", report), ("reads", report["reads"]),
                        ("writes", report["writes"])):
        if not part.get("requests"):
            lines.append(f"{label:<8}{'none':>11}")
            continue
        lines.append(f"{label:<8}{part['measured_mean_ms']:>11.3f}{part['measured_sd_ms']:>11.3f}"
                     f"{part['simulated_mean_ms']:>11.3f}{part['simulated_sd_ms']:>11.3f}"
                     f"{part['demerit_ms']:>11.4f}{part['demerit_bucketed_ms']:>11.4f}")
    lost = report["lost_revolutions"]
    lines.append(f"demerit {report['demerit_pct']:.2f} % of the measured mean")
    lines.append(f"revolutions lost to a full segment {lost['ring']}, to a held read-ahead "
                 f"{lost['read_ahead_held']}")
    from ..experiments.validation import DISKSIM  # (only here: the command line starts fast)

    theirs = DISKSIM.get(Path(trace).stem)
    if theirs is not None:  # one of DiskSim's own validation traces: its published result
        lines.append(f"DiskSim 4.0, its model of this drive: mean {theirs['mean_ms']:.3f} ms, "
                     f"demerit {theirs['demerit_ms']:.3f} ms")
    return "\n".join(lines)


def main(args) -> int:
    if not Path(args.trace).is_file():
        raise FileNotFoundError(f"{args.trace}: no such trace file")
    disk = load_disk_arg(args)
    report = replay_validation(disk, read_validation(args.trace), args.scheduler,
                               firmware=not args.bare)
    if args.json:
        json.dump(report, sys.stdout, indent=2, sort_keys=True)
        print()
    else:
        print(report_text(report, args.trace))
    return 0
