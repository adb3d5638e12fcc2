"""Write a class of generated submissions for a lab (right, wrong, blank, hostile).

Used to measure grading time (not a test):

    python tools/make_submissions.py --key instructors/labs/lab1_time.ipynb -n 200 \
        --out /tmp/class --secret ~/.config/disklab/secret
    time python -m simcore grade --key instructors/labs/lab1_time.ipynb /tmp/class \
        --out /tmp/class-grades/grades.csv --jobs 2

Each file is the student's personal copy; for a lab with measuring cells, every submission but
the blank ones carries fio's reports of that student's own served drive, measured here (about
15 s a student for lab 2 on two busy cores; needs fio). ``--no-measure`` skips them.
"""

from __future__ import annotations

import argparse

from simcore.labkit import secret as sec
from simcore.labkit.demo import write_class_submissions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--key", required=True)
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--out", required=True)
    ap.add_argument("--secret", help="instructor secret file (omit for public variants)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-measure", action="store_true",
                    help="do not run the lab's measuring cells (fio) for each student: "
                         "the submissions then carry no measurement")
    a = ap.parse_args()
    secret = sec.load(a.secret) if a.secret else None
    paths = write_class_submissions(a.key, a.out, a.n, secret, a.seed,
                                    measure=not a.no_measure)
    print(f"wrote {len(paths)} submissions to {a.out}")


if __name__ == "__main__":
    main()
