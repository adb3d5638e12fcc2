"""``variants``: measure how many answers students share under the instructor's secret."""

from __future__ import annotations

import json


def register(sub) -> None:
    p = sub.add_parser("variants", help="how many answers two students share (per lab)",
                       description="Compute the key's answers for N generated student ids "
                       "(s001, s002, ...) and report, over all pairs, the share of points one "
                       "student's answers would earn under another's variant.")
    p.add_argument("--key", required=True, help="the lab with solutions")
    p.add_argument("-n", type=int, default=200, help="number of student ids (default 200)")
    p.add_argument("--secret", help="the instructor secret file")
    p.set_defaults(func=main)


def main(args) -> int:
    from ..labkit import secret as sec
    from ..labkit.overlap import shared_answers

    ids = [f"s{i:03d}" for i in range(1, args.n + 1)]
    print(json.dumps(shared_answers(args.key, ids, sec.load(args.secret)), indent=1))
    return 0
