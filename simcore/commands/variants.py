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
    p.add_argument("--json", action="store_true", help="print the whole report as JSON")
    p.set_defaults(func=main)


def format_overlap(report: dict) -> str:
    """The report of :func:`simcore.labkit.overlap.shared_answers` as a table an instructor
    reads: the share of points a copied notebook earns, then per question how many pairs of
    students share the answer and how many distinct answers the class has."""
    lines = [f"{report['lab']}: {report['students']} students, {report['pairs']:,} pairs, "
             f"{report['points']:g} points",
             "share of the points one student's answers earn under another's variant:",
             f"  mean {100 * report['mean_shared_fraction']:.1f} %, median "
             f"{100 * report['median_shared_fraction']:.1f} %, largest "
             f"{100 * report['max_shared_fraction']:.1f} %",
             "",
             f"{'question':<10}{'pairs sharing it':>18}{'distinct answers':>18}"]
    distinct = report.get("distinct_answers", {})
    for q, share in report["per_question_shared_fraction"].items():
        lines.append(f"{q:<10}{100 * share:>16.1f} %{distinct.get(q, ''):>18}")
    lines.append("A question many pairs share needs more variety in its variant.")
    return "\n".join(lines)


def main(args) -> int:
    from ..labkit import secret as sec
    from ..labkit.overlap import shared_answers

    ids = [f"s{i:03d}" for i in range(1, args.n + 1)]
    report = shared_answers(args.key, ids, sec.load(args.secret))
    print(json.dumps(report, indent=1) if args.json else format_overlap(report))
    return 0
