"""The ``--disk`` and ``--as-disksim`` options that ``run`` and ``validate`` share.

``--disk`` takes a bundled id, a profile, or a DiskSim model imported on the fly
(:func:`simcore.disksim.importer.load_any`), whose import warnings go to stderr;
``--as-disksim`` switches off what DiskSim 4.0 reads but never applies
(:func:`simcore.disksim.importer.as_disksim_runs`).
"""

from __future__ import annotations

import argparse
import sys

from ..disk.profile import DiskProfile
from ..disksim.importer import as_disksim_runs, load_any


def add_disk_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--disk", required=True,
                   help="a bundled disk id, a profile path, or a DiskSim .parv/.diskspecs/.model")
    p.add_argument("--as-disksim", action="store_true",
                   help="switch off the knobs DiskSim 4.0 reads but never applies (zero "
                        "latency, read any free blocks), to compare with DiskSim's own run")


def load_disk_arg(args: argparse.Namespace) -> DiskProfile:
    """The profile ``--disk`` names, as ``--as-disksim`` asks for it."""
    warned: list[str] = []
    disk = load_any(args.disk, warned)
    for w in warned:  # a DiskSim model imported on the fly: what did not carry over
        print(f"warning: {w}", file=sys.stderr)
    return as_disksim_runs(disk) if args.as_disksim else disk
