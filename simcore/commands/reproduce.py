"""``reproduce NAME``: run one seed's experiment and print its targets beside the paper's.

``--json`` prints the whole result, whose ``"targets"`` list carries every target with the
paper's value, the tolerance, the source, the simulated value and met/missed.
"""

from __future__ import annotations

import json

from .. import experiments
from ..experiments import targets as tg


def register(sub) -> None:
    p = sub.add_parser("reproduce", help="reproduce a seed paper's result")
    p.add_argument("name", nargs="?", help="experiment name (omit to list them)")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")
    p.add_argument("--quick", action="store_true", help="fewer requests: faster, noisier")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cached", action="store_true",
                   help="read the result from the results cache (run and store it if absent)")
    p.add_argument("--fill-cache", action="store_true",
                   help="run every experiment not yet cached for this code (the book build does)")
    p.add_argument("--summary", action="store_true",
                   help="print 'N of M targets met' over every experiment (from the cache)")
    p.set_defaults(func=main)


def main(args) -> int:
    from ..experiments import results

    if args.fill_cache:
        results.fill([args.name] if args.name else None, quick=args.quick, seed=args.seed)
        return 0
    if args.summary:
        print(summary_line(quick=args.quick, seed=args.seed))
        return 0
    if not args.name:
        for name in experiments.names():
            print(f"{name:<18} {experiments.get(name).DESCRIPTION}")
        return 0
    if args.cached:
        result = results.get(args.name, quick=args.quick, seed=args.seed)
    else:
        result = experiments.reproduce(args.name, quick=args.quick, seed=args.seed)
    if args.json:
        print(json.dumps(result, indent=2, sort_keys=True, default=float))
        return 0
    rows = result.get("targets", [])
    if not rows:
        print(f"{args.name}: no reproduction targets (see the chapter for what it shows)")
        return 0
    for r in rows:
        mark = {"met": "met   ", "missed": "MISSED", "not run": "-     "}[r["status"]]
        print(f"{mark} {r['what']}")
        print(f"       paper {_fmt(r['paper'])} ({tg.accepted(r)}), simulated "
              f"{_fmt(r['simulated'])}; {r['source']['text']}")
        if r["status"] == "missed" and r["known_deviation"]:
            print(f"       why: {r['known_deviation']}")
    s = tg.summary(rows)
    print(f"{s['met']} of {s['total']} targets met"
          + (f" ({s['not run']} not run in quick mode)" if s["not run"] else ""))
    return 0


def summary_line(quick: bool = False, seed: int = 0) -> str:
    """"N of M targets met" over every experiment's cached result (the README's line)."""
    from ..experiments import results

    met = total = 0
    for name in experiments.names():
        s = tg.summary(results.get(name, quick=quick, seed=seed)["targets"])
        met, total = met + s["met"], total + s["total"]
    return f"{met} of {total} targets met"


def _fmt(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)
