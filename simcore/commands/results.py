"""``results archive|verify|show NAME``: the archived full runs of experiments too long for a build.

``archive`` runs every point of the experiment's full sweep on this machine's cores (resumable:
rows done are kept in a ``.partial`` file) and writes ``data/results/NAME-full-s0.json``.
``verify`` replays archived points and reports any row the code no longer produces bit for bit
(``--all`` replays every point; the default is the sample the test suite replays).
"""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("results", help="archived full runs: make, verify or describe them")
    p.add_argument("action", choices=("archive", "verify", "show"))
    p.add_argument("name", help="experiment name (one that sets ARCHIVED, e.g. placement)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=None,
                   help="worker processes (default: every core)")
    p.add_argument("--all", action="store_true", help="verify: replay every point")
    p.add_argument("--points", default=None,
                   help="verify: comma-separated point indices (default: the test's sample)")
    p.set_defaults(func=main)


def main(args) -> int:
    from concurrent.futures import ProcessPoolExecutor

    from .. import experiments
    from ..experiments import archive

    if not archive.is_archived(args.name):
        raise ValueError(f"experiment '{args.name}' keeps no archive (its full run is quick "
                         "enough for the book build); archived: "
                         + ", ".join(n for n in experiments.names() if archive.is_archived(n)))
    if args.action == "show":
        prov = archive.provenance(args.name, args.seed)
        if prov is None:
            print(f"no current archive at {archive.path(args.name, args.seed)}")
            return 1
        for k, v in prov.items():
            print(f"{k:<10} {v}")
        print(f"{'points':<10} {len(archive.rows(args.name, args.seed))}")
        return 0
    pool = None if args.jobs == 1 else ProcessPoolExecutor(max_workers=args.jobs)
    try:
        if args.action == "archive":
            archive.build(args.name, args.seed, executor=pool)
            return 0
        if args.all:
            which = None
        elif args.points:
            try:
                which = [int(x) for x in args.points.split(",") if x.strip()]
            except ValueError:
                raise ValueError(f"--points: comma-separated integers, got {args.points!r}") \
                    from None
        else:
            which = archive.sample(args.name, args.seed)
        problems = archive.verify(args.name, args.seed, which, executor=pool)
    finally:
        if pool is not None:
            pool.shutdown()
    for line in problems:
        print(line)
    n = "every" if which is None else len(which)
    print(f"{args.name}: {n} archived point(s) replayed, "
          f"{'all identical' if not problems else f'{len(problems)} differ'}")
    return 1 if problems else 0
