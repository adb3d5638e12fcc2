"""``reproduce NAME``: run one seed's experiment and print its numbers beside the paper's."""

from __future__ import annotations

import json

from .. import experiments


def register(sub) -> None:
    p = sub.add_parser("reproduce", help="reproduce a seed paper's result")
    p.add_argument("name", nargs="?", help="experiment name (omit to list them)")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")
    p.add_argument("--quick", action="store_true", help="fewer requests: faster, noisier")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=main)


def main(args) -> int:
    if not args.name:
        for name in experiments.names():
            print(f"{name:<18} {experiments.get(name).DESCRIPTION}")
        return 0
    result = experiments.reproduce(args.name, quick=args.quick, seed=args.seed)
    if args.json:
        print(json.dumps(result, indent=2, sort_keys=True, default=float))
    else:
        paper = result.get("paper", {})
        for key, value in result.items():
            if key in ("paper", "curves", "figure"):
                continue
            ref = paper.get(key)
            print(f"{key:<34} {_fmt(value)}" + (f"    paper: {_fmt(ref)}" if ref is not None else ""))
    return 0


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_fmt(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list) and len(v) > 8:
        return f"[{len(v)} values]"
    return str(v)
