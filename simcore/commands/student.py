"""``student``: write the student versions of labs (solutions out, placeholders in)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from .notebook_tools import require_notebook_tools


def register(sub) -> None:
    p = sub.add_parser("student", help="write student versions of lab notebooks",
                       description="Replace every solution block with `name = None  # your "
                       "answer`, drop hidden checks, clear outputs. A file written earlier "
                       "is replaced only if nobody changed it since (or with --force).")
    p.add_argument("labs", nargs="+", help="lab notebooks, or folders holding them")
    p.add_argument("--out", required=True, help="folder for the student versions")
    p.add_argument("--roster", help="a file with one student id per line: write a "
                   "personalized copy per student into OUT/<id>/ (needs the secret)")
    p.add_argument("--secret", help="the instructor secret file (default: "
                   "$DISKLAB_SECRET_FILE or ~/.config/disklab/secret)")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if a student "
                   "version in OUT differs from what the key gives (for CI)")
    p.add_argument("--verify", action="store_true", help="run each student version with "
                   "nbval afterwards and report any cell that fails")
    p.add_argument("--force", action="store_true", help="replace files even if they were edited")
    p.set_defaults(func=main)


def read_roster(path: str) -> list[str]:
    ids = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        sid = line.split("#", 1)[0].strip().split(",")[0].strip()
        if not sid:
            continue
        if sid in ids:
            raise ValueError(f"{path}: line {n}: student id {sid!r} appears twice")
        ids.append(sid)
    if not ids:
        raise ValueError(f"{path}: no student ids (one per line)")
    return ids


def main(args) -> int:
    require_notebook_tools()
    from ..labkit.labformat import LabFormatError, read_notebook
    from ..labkit.student import find_labs, is_lab, write_student

    out = Path(args.out).resolve()
    roster = read_roster(args.roster) if args.roster else None
    secret = None
    if roster:
        from ..labkit import secret as sec

        secret = sec.load(args.secret)
    if args.check:
        from ..labkit.student import stale_student_versions

        stale = stale_student_versions(find_labs(args.labs), out)
        for line in stale:
            print(f"out of date: {line}", file=sys.stderr)
        return 1 if stale else 0
    labs = [p for p in find_labs(args.labs) if out not in p.resolve().parents]
    failed = 0
    written = []
    for lab in labs:
        try:
            if not is_lab(read_notebook(lab)):
                print(f"skip {lab}: not a lab (no parameters or check cells)", file=sys.stderr)
                continue
            done = write_student(lab, args.out, roster=roster, force=args.force,
                                 secret=secret)
        except (LabFormatError, FileExistsError) as exc:
            failed += 1
            print(f"error: {exc}", file=sys.stderr)
            continue
        written.extend(done)
        who = f" for {len(done)} students" if roster else ""
        print(f"{lab} -> {done[0].path if len(done) == 1 else Path(args.out)}{who}")
    if args.verify:
        failed += verify([w.path for w in written])
    if not labs:
        print("no lab notebooks found", file=sys.stderr)
    return 2 if failed else 0


def verify(paths) -> int:
    """Run student versions under nbval; count the ones where a cell fails."""
    from ..labkit.grade import run_nbval

    bad = 0
    for p in paths:
        with tempfile.TemporaryDirectory(prefix="disklab-verify-") as tmp:
            copy = Path(tmp) / Path(p).name
            copy.write_bytes(Path(p).read_bytes())
            cells, ended, tail = run_nbval(copy, cell_timeout=300, timeout=900,
                                           startup_timeout=300)
        failures = {i: r for i, r in cells.items() if r.outcome == "failed"}
        if failures or ended != "completed":
            bad += 1
            for i, r in sorted(failures.items()):
                why = r.errors[-1] if r.errors else r.message
                print(f"verify {p}: code cell {i} failed: {why}", file=sys.stderr)
            if ended != "completed":
                print(f"verify {p}: run ended with {ended}\n{tail}", file=sys.stderr)
        else:
            print(f"verify {p}: runs top to bottom ({len(cells)} code cells)")
    return bad
