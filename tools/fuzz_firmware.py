"""Fuzz the drive firmware: seeded random cases (tests/helpers_firmware_fuzz.py), each run
on both engine paths; prints the cases breaking an invariant, grouped by the first problem.

    PYTHONPATH=$PWD python tools/fuzz_firmware.py --seeds 0:2000 [--show 3] [--timeout 20]
"""

from __future__ import annotations

import argparse
import collections
import re
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from helpers_firmware_fuzz import check, draw


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0:500", help="first:last (exclusive)")
    ap.add_argument("--show", type=int, default=2, help="cases printed per kind of failure")
    ap.add_argument("--timeout", type=int, default=20, help="seconds per case")
    ap.add_argument("--slow", type=float, default=2.0, help="report cases taking longer (s)")
    args = ap.parse_args(argv)
    lo, hi = (int(x) for x in args.seeds.split(":"))
    signal.signal(signal.SIGALRM, _alarm)
    kinds: dict[str, list] = collections.defaultdict(list)
    t0 = time.process_time()
    for seed in range(lo, hi):
        case = draw(seed)
        signal.alarm(args.timeout)
        c0 = time.process_time()
        try:
            problems = check(case)
        except _Timeout:
            problems = [f"timeout after {args.timeout} s"]
        finally:
            signal.alarm(0)
        took = time.process_time() - c0
        if took > args.slow:
            print(f"slow: seed {seed} took {took:.1f} s CPU", flush=True)
        if (seed - lo) % 250 == 249:
            print(f"... {seed - lo + 1} cases, {time.process_time() - t0:.0f} s CPU",
                  flush=True)
        if problems:
            # the kind: the first problem with its numbers blanked out
            kind = re.sub(r"[-\d.e]+", "#", problems[0])[:140]
            kinds[kind].append((case, problems))
    n = hi - lo
    bad = sum(len(v) for v in kinds.values())
    print(f"{n} cases, {bad} failing, {len(kinds)} kinds, {time.process_time() - t0:.0f} s CPU")
    for kind, cases in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        print(f"\n[{len(cases)}] {kind}")
        for case, problems in cases[: args.show]:
            print("   ", case.describe())
            for p in problems[:3]:
                print("      -", p[:400])
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
