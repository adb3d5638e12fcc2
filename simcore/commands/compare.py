"""``compare``: a measurement record beside the same experiment simulated.

    python -m simcore compare data/measurements/zone-bandwidth.loop.json --disk modern7200

Moved here from ``python -m hardware compare`` (issue 14 part 2): the hardware package
records measurements and never imports simcore; :mod:`simcore.labkit.compare` reads
its records and runs the experiment on a simulated drive.
"""

from __future__ import annotations

from hardware import record
from hardware.jobs import get_job

from ..labkit import compare

# the measured quantity shown for each job
_KEY = {"zone-bandwidth": "read_mb_s", "qd-sweep": "read_iops", "multistream": "read_mb_s",
        "seek-distance": "read_lat_mean_ms", "bs-sweep": "read_lat_mean_ms"}
# job parameters that shape the device run, not the experiment
_NOT_SIMULATED = ("size", "runtime", "ramp", "repeat")


def register(sub) -> None:
    p = sub.add_parser("compare", help="a measurement record against the same experiment "
                                       "simulated")
    p.add_argument("record", help="a record from `python -m hardware run` (JSON)")
    p.add_argument("--disk", default="modern7200", help="simcore disk profile")
    p.set_defaults(func=main)


def main(args) -> int:
    rec = record.load(args.record)
    job = rec["job"]
    if job not in _KEY:
        raise ValueError(f"{args.record}: job '{job}' has no simulated twin; "
                         f"compare works on {', '.join(sorted(_KEY))}")
    params = {k: v for k, v in rec["params"].items()
              if k in get_job(job).defaults and k not in _NOT_SIMULATED}
    sim = compare.simulate(job, args.disk, params)
    print(f"measured:  {rec['label']}")
    print(f"simulated: {sim['label']}")
    key = _KEY[job]
    measured, simulated = rec["summary"].get("points", []), sim["summary"].get("points", [])
    for pa, pb in zip(measured, simulated, strict=False):
        label = " ".join(f"{k}={pa[k]}" for k in pa if isinstance(pa[k], str))
        print(f"{label:40s} measured {pa.get(key, float('nan')):10.4g}  "
              f"simulated {pb.get(key, float('nan')):10.4g}  ({key})")
    return 0
