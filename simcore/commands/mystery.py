"""``mystery``: per-student mystery disks: hand out tokens, show the truth, grade reports."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("mystery", help="per-student mystery disks: tokens, truth, grading")
    act = p.add_subparsers(dest="action", metavar="ACTION")
    act.required = True
    t = act.add_parser("tokens", help="print 'student_id token' for each student (instructor)")
    t.add_argument("--secret-file", required=True)
    t.add_argument("students", nargs="+", help="student ids (or @FILE with one id a line)")
    t.set_defaults(func=tokens)
    tr = act.add_parser("truth", help="the measurable parameters of a mystery disk (instructor)")
    _who(tr)
    tr.set_defaults(func=truth)
    g = act.add_parser("grade", help="judge a student's report (JSON) against the truth")
    _who(g)
    g.add_argument("--report", required=True,
                   help='JSON: {"rpm": ..., "outer_mb_s": ..., "inner_mb_s": ..., '
                        '"random_read_ms": ..., "capacity_gb": ...}')
    g.set_defaults(func=grade)


def _who(p) -> None:
    p.add_argument("--token", help="the mystery token")
    p.add_argument("--student", help="a student id (needs --secret-file)")
    p.add_argument("--secret-file")


def _token(args) -> str:
    from ..serve import mystery

    if args.token:
        return args.token
    if args.student and args.secret_file:
        return mystery.token(mystery.read_secret(args.secret_file), args.student)
    raise ValueError("give --token, or --student with --secret-file")


def _students(items: list[str]) -> list[str]:
    out = []
    for s in items:
        if s.startswith("@"):
            out += [ln.strip() for ln in Path(s[1:]).read_text().splitlines() if ln.strip()]
        else:
            out.append(s)
    return out


def tokens(args) -> int:
    from ..serve import mystery

    secret = mystery.read_secret(args.secret_file)
    for sid in _students(args.students):
        print(f"{sid}\t{mystery.token(secret, sid)}")
    return 0


def truth(args) -> int:
    from ..serve import mystery

    tok = _token(args)
    print(json.dumps({"token": tok, **mystery.truth(tok)}, indent=2))
    return 0


def grade(args) -> int:
    from ..serve import mystery

    tok = _token(args)
    try:
        report = json.loads(Path(args.report).read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{args.report}: line {exc.lineno}: not JSON ({exc.msg})") from None
    if not isinstance(report, dict):
        raise ValueError(f"{args.report}: expected a JSON object of parameters")
    verdicts = mystery.grade(report, tok)
    for key, v in verdicts.items():
        mark = "ok " if v["ok"] else "NO "
        got = "missing" if v["reported"] is None else f"{v['reported']:.4g}"
        print(f"{mark} {key:15s} reported {got:>9s}  (within {v['tolerance']:.0%}: {v['what']})")
    right = sum(v["ok"] for v in verdicts.values())
    print(f"{right}/{len(verdicts)} parameters within tolerance", file=sys.stderr)
    return 0
