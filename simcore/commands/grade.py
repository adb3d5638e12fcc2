"""``grade``: grade lab submissions against the key with nbval; write grades.csv and feedback."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from .notebook_tools import require_notebook_tools


def register(sub) -> None:
    p = sub.add_parser(
        "grade", help="grade lab submissions with nbval into grades.csv and feedback",
        description="Splice each submission's answer cells into the key, run "
        "pytest --nbval-lax on the merged notebook, and map each check cell to its points.")
    p.add_argument("--key", required=True, help="the lab with solutions, executed and saved")
    p.add_argument("submissions", nargs="+", help="submitted notebooks, or folders of them")
    p.add_argument("--out", required=True, help="the gradebook CSV to write")
    p.add_argument("--feedback", help="folder for one feedback file per student "
                   "(default: next to --out, named <out>_feedback)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="submissions graded at once (default: the number of cores)")
    p.add_argument("--cell-timeout", type=float, default=60.0,
                   help="seconds one cell may run (default 60)")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="seconds a whole notebook may run (default 300)")
    p.add_argument("--keep-merged", action="store_true",
                   help="also save each merged notebook (what the grader ran) with the feedback")
    p.add_argument("--force", action="store_true", help="allow replacing existing output files")
    p.set_defaults(func=main)


def main(args) -> int:
    require_notebook_tools()
    from ..labkit import grade as g

    key_path = Path(args.key)
    out = Path(args.out)
    feedback = Path(args.feedback) if args.feedback else out.with_name(out.stem + "_feedback")
    subs = g.collect_submissions(args.submissions, exclude=key_path)
    if not subs:
        raise ValueError("no submissions (.ipynb files) found")
    key = g.Key(key_path)  # checks the key before any work
    planned = g.planned_ids(key_path, subs)
    try:
        g.check_writable(out, feedback, g.feedback_names(planned), args.force)
    except FileExistsError as exc:
        raise ValueError(str(exc)) from None
    t0 = time.monotonic()
    count = [0]

    def progress(r):
        count[0] += 1
        print(f"[{count[0]}/{len(subs)}] {r.student_id}: {r.total:g} "
              f"({r.status}, {r.seconds:.1f} s)", file=sys.stderr)

    key, results = g.grade(key_path, subs, jobs=args.jobs, cell_timeout=args.cell_timeout,
                           timeout=args.timeout, keep_merged=args.keep_merged,
                           progress=progress)
    try:
        g.write_report(key, results, out, feedback, force=args.force)
    except FileExistsError as exc:  # appeared while grading
        raise ValueError(str(exc)) from None
    wall = time.monotonic() - t0
    max_total = sum(key.max.values())
    print(f"{'student':<20} {'score':>9}  status")
    for r in results:
        print(f"{r.student_id:<20} {r.total:>4g}/{max_total:<4g}  {r.status}")
    print(f"graded {len(results)} submissions in {wall:.1f} s with {args.jobs} jobs; "
          f"grades: {out}; feedback: {feedback}/")
    errors = [r for r in results if r.status == "error"]
    for r in errors:
        print(f"grader error on {r.path}:\n{r.log}", file=sys.stderr)
    flagged = [r for r in results if r.flagged]
    for r in flagged:
        print(f"look at {r.path}: answer cells for {', '.join(r.flagged)} touch the check "
              "machinery", file=sys.stderr)
    return 1 if errors else 0
