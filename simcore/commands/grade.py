"""``grade``: grade lab submissions in sandboxes; write grades, gradebooks, feedback, a summary."""

from __future__ import annotations

import sys
import time
from datetime import datetime
from pathlib import Path

from .notebook_tools import require_notebook_tools


def register(sub) -> None:
    p = sub.add_parser(
        "grade", help="grade lab submissions (sandboxed) into grades, gradebooks and feedback",
        description="Run each submission's answers with nbval in a sandbox (its own folder, an "
        "unprivileged user, no network, CPU/memory/process/time limits), take the answers out "
        "as strict JSON and compare them with the key's, computed for the student's variant "
        "in the grader's own process.")
    p.add_argument("--key", required=True, help="the lab with solutions (instructors/labs/...)")
    p.add_argument("submissions", nargs="*", help="submitted notebooks, or folders of them")
    p.add_argument("--out", required=True, help="the grades CSV to write (gradebooks, summary "
                   "and the received answers are written beside it)")
    p.add_argument("--feedback", help="folder for one feedback file per student "
                   "(default: next to --out, named <out>_feedback)")
    p.add_argument("--secret", help="the instructor secret file (default: "
                   "$DISKLAB_SECRET_FILE or ~/.config/disklab/secret)")
    p.add_argument("--public-variants", action="store_true", help="grade without a secret "
                   "(variants anyone can compute: practice runs only)")
    p.add_argument("--roster", help="CSV or text: file name (or stem) and student id per line; "
                   "files not on it are flagged")
    p.add_argument("--deadline", help="ISO time (2026-03-01T23:59: this machine's local time, "
                   "unless it ends in an offset such as +01:00); later file times are flagged "
                   "late")
    p.add_argument("--regrade", metavar="QUESTION", help="judge one question again from the "
                   "answers stored at grading time, under the (corrected) key; runs nothing")
    p.add_argument("--jobs", type=int, default=None,
                   help="submissions graded at once (default: one more than the cores, so a "
                   "submission that waits on a hang leaves every core working)")
    p.add_argument("--cell-timeout", type=float, default=None,
                   help="seconds one cell may run (default: derived from the key's own run, "
                   "measured in the sandbox before grading)")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="seconds a whole notebook may run (default 300)")
    p.add_argument("--memory-mb", type=int, default=2048, help="address space per kernel")
    p.add_argument("--cpu-seconds", type=int, default=None, help="CPU time per kernel "
                   "(default: derived from the key's own run)")
    p.add_argument("--processes", type=int, default=96,
                   help="processes and threads per sandbox (the sandbox's own count where "
                   "it has a user or user namespace of its own; else said so)")
    p.add_argument("--no-sandbox", action="store_true",
                   help="run kernels as yourself, unconfined (trusted notebooks only)")
    p.add_argument("--unsafe-sandbox", action="store_true",
                   help="grade even where the sandbox cannot keep student code from writing "
                   "your files (no root and no read-only mount namespace); said so in the "
                   "output and the summary")
    p.add_argument("--container", choices=["docker", "podman"], help="print the command that "
                   "grades inside a throwaway container instead, and exit")
    p.add_argument("--keep-merged", action="store_true",
                   help="also save each notebook the grader ran with the feedback")
    p.add_argument("--force", action="store_true", help="allow replacing existing output files")
    p.set_defaults(func=main)


def read_roster(path: str) -> dict[str, str]:
    """``file,id`` per line (or just ``id``, meaning ``id.ipynb``); ``#`` starts a comment."""
    out: dict[str, str] = {}
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = [x.strip() for x in line.split(",")]
        if len(parts) == 1:
            parts = [parts[0], parts[0]]
        name, sid = parts[0], parts[1]
        if not sid:
            raise ValueError(f"{path}: line {n}: no student id")
        if name in out:
            raise ValueError(f"{path}: line {n}: {name!r} appears twice")
        out[name] = sid
    return out


def _one_folder(submissions: list[str]) -> str:
    """The one folder of submissions a container mounts (read-only, as /subs)."""
    if len(submissions) != 1 or not Path(submissions[0]).is_dir():
        raise ValueError("--container grades one folder of submissions (it is mounted "
                         "read-only in the container): give that folder alone")
    return submissions[0]


def _container_options(args, out: Path) -> list[str]:
    """``grade``'s options to pass on into the container: those that name no file; the
    feedback folder only inside the output's folder (the one the container may write)."""
    if args.regrade or args.no_sandbox:
        raise ValueError("--container with --regrade or --no-sandbox: run those directly")
    opts: list[str] = []
    deadline = None
    if args.deadline:  # a container keeps its own time zone (UTC, mostly): pass our offset
        d = datetime.fromisoformat(args.deadline)
        deadline = (d if d.tzinfo else d.astimezone()).isoformat(timespec="minutes")
    for flag, value in (("--deadline", deadline), ("--jobs", args.jobs),
                        ("--cell-timeout", args.cell_timeout), ("--cpu-seconds",
                                                                 args.cpu_seconds)):
        if value is not None:
            opts += [flag, str(value)]
    opts += ["--timeout", str(args.timeout), "--memory-mb", str(args.memory_mb),
             "--processes", str(args.processes)]
    opts += [flag for flag, on in (("--keep-merged", args.keep_merged),
                                   ("--force", args.force),
                                   ("--unsafe-sandbox", args.unsafe_sandbox)) if on]
    if args.feedback:
        fb = Path(args.feedback).resolve()
        if fb.parent != out.resolve().parent:
            raise ValueError(f"--feedback {args.feedback}: with --container the feedback "
                             f"folder must sit beside --out ({out.resolve().parent})")
        opts += ["--feedback", f"/out/{fb.name}"]
    return opts


def main(args) -> int:
    require_notebook_tools()
    from ..labkit import grade as g
    from ..labkit import report as rep
    from ..labkit import sandbox
    from ..labkit import secret as sec

    key_path = Path(args.key)
    out = Path(args.out)
    feedback = Path(args.feedback) if args.feedback else out.with_name(out.stem + "_feedback")
    if args.container:
        print(sandbox.container_command(
            key_path, _one_folder(args.submissions), out, engine=args.container,
            secret=args.secret, public_variants=args.public_variants, roster=args.roster,
            options=_container_options(args, out)))
        return 0
    secret = None if args.public_variants else sec.load(args.secret)
    if args.regrade:
        return _regrade(key_path, secret, out, feedback, args.regrade)
    if not args.submissions:
        raise ValueError("no submissions given")
    roster = read_roster(args.roster) if args.roster else None
    deadline = datetime.fromisoformat(args.deadline).timestamp() if args.deadline else None
    subs = g.collect_submissions(args.submissions, exclude=key_path)
    if not subs:
        raise ValueError("no submissions (.ipynb files) found")
    key = g.Key(key_path, secret)  # checks the key before any work
    planned = g.planned_ids(key_path, subs, roster)
    try:
        rep.check_writable(out, feedback, rep.feedback_names(planned), args.force)
    except FileExistsError as exc:
        raise ValueError(str(exc)) from None
    limits = sandbox.Limits(cpu_s=args.cpu_seconds, memory_mb=args.memory_mb,
                            processes=args.processes)
    opts = g.Options(cell_timeout=args.cell_timeout, timeout=args.timeout,
                     use_sandbox=not args.no_sandbox, limits=limits,
                     keep_merged=args.keep_merged, roster=roster, deadline=deadline,
                     unsafe_sandbox=args.unsafe_sandbox)

    def announce(layers: dict) -> None:
        """What the sandbox holds, as probed by the grading itself (once), before it grades."""
        if opts.use_sandbox:
            print("sandbox layers: " + (", ".join(layers["layers"]) or "none")
                  + (f"; MISSING: {', '.join(layers['missing'])}" if layers["missing"] else ""),
                  file=sys.stderr)
            if not sandbox.confined(layers) and args.unsafe_sandbox:
                print("WARNING: --unsafe-sandbox: student code can change any file you can "
                      "(your home, simcore's source)", file=sys.stderr)
        else:
            print("WARNING: --no-sandbox: student code runs as you, unconfined", file=sys.stderr)
        refused = opts.use_sandbox and not sandbox.confined(layers) and not args.unsafe_sandbox
        if secret is None and not refused:  # (grading raises next when refused)
            print("WARNING: --public-variants: anyone can compute any student's variant",
                  file=sys.stderr)

    t0 = time.monotonic()
    count = [0]

    def progress(r):
        count[0] += 1
        print(f"[{count[0]}/{len(subs)}] {r.student_id}: {r.total:g} "
              f"({r.status}, {r.seconds:.1f} s, {r.cpu_seconds:.1f} CPU s)", file=sys.stderr)

    # the secret and the roster named here are hidden from the sandbox with the rest
    key, results = g.grade(key_path, subs, jobs=args.jobs, opts=opts, secret=secret,
                           progress=progress, announce=announce,
                           private=[p for p in (args.secret, args.roster) if p])
    layers = key.layers if opts.use_sandbox else {"layers": [], "missing": ["all: --no-sandbox"]}
    try:
        rep.write_report(key, results, out, feedback, force=args.force, layers=layers)
    except FileExistsError as exc:  # appeared while grading
        raise ValueError(str(exc)) from None
    _print_results(key, results, args.jobs, out, feedback, time.monotonic() - t0)
    errors = [r for r in results if r.status == "error"]
    for r in errors:
        print(f"grader error on {r.path}:\n{r.log}", file=sys.stderr)
    return 1 if errors else 0


def _regrade(key_path: Path, secret, out: Path, feedback: Path, which: str) -> int:
    """``--regrade``: grade one submission again into an existing report."""
    from ..labkit import grade as g
    from ..labkit import report as rep

    key = g.Key(key_path, secret)
    try:
        _, changes = rep.regrade(key, out, feedback, which)
    finally:
        key.close()
    print(f"regraded {which}: {len(changes)} change(s)")
    for c in changes:
        print(f"  {c}")
    return 0


def _print_results(key, results, jobs, out: Path, feedback: Path, wall: float) -> None:
    """The grades table, the submissions flagged for copied numbers and where the report went."""
    from ..labkit import copying
    from ..labkit import grade as g
    from ..labkit import report as rep

    max_total = sum(key.max.values())
    print(f"{'student':<20} {'score':>9}  status")
    for r in results:
        print(f"{r.student_id:<20} {r.total:>4g}/{max_total:<4g}  {r.status}"
              + (f"  [{'; '.join(r.flagged)}]" if r.flagged else "")
              + (f"  late {r.late_minutes:g} min" if r.late_minutes > 0 else ""))
    copied = [r for r in results if copying.flagged_with(r)]
    if copied:  # the instructor's eyes only: the feedback never names a classmate
        print(f"copying: {len(copied)} submission(s) have at least {copying.MIN_QUESTIONS} "
              "wrong answers that fit one classmate's variant (a reason to talk, not proof): "
              f"{', '.join(r.student_id for r in copied)}; see "
              f"{rep.siblings(out)['copying']}")
    print(f"graded {len(results)} submissions in {wall:.1f} s with "
          f"{g.default_jobs(jobs)} jobs; grades: {out}; feedback: {feedback}/")
    if key.budget is not None:
        print(f"time limits: {key.budget.describe()}")
