"""``python -m hardware``: probe devices, list and run fio jobs, time reads with hdparm.

A contract other tools rely on::

    python -m hardware probe [--json] [PATH]
    python -m hardware jobs [--json] [JOB]
    python -m hardware run JOB --target PATH [--scratch] [--param K=V ...] [--out FILE]
    python -m hardware hdparm DEVICE [--sweep] [--points N] [--json] [--out FILE]

Exit status 0 on success; otherwise one line on stderr, ``refused: <why>. <what to
do>`` (status 2) when a safety rule stops a job, ``error: ...`` (status 2) for a
bad argument, and ``failed: ...`` (status 1) when a tool fails.

``python -m hardware compare`` has moved to ``python -m simcore compare`` (this
package never imports simcore); the old name says so and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from . import hdparm, probe, record
from .fio import FioError
from .jobs import get_job, list_jobs
from .record import RecordError
from .runner import default_out, run_job
from .safety import Refused
from .tuning import TuningError


def _cmd_probe(args) -> int:
    if args.path:
        info = probe.describe(args.path)
        print(json.dumps(info, indent=1) if args.json else info["label"])
        return 0
    devices = probe.probe_devices()
    if args.json:
        print(json.dumps({"machine": probe.machine(), "devices": devices}, indent=1))
    else:
        print(probe.format_table(devices))
        for d in devices:
            print(f"  {d['label']}")
    return 0


def _cmd_jobs(args) -> int:
    if args.job:
        job = get_job(args.job)
        if args.json:
            print(json.dumps({"name": job.name, "measures": job.measures, "writes": job.writes,
                              "targets": list(job.targets),
                              "params": [vars(p) for p in job.params]}, indent=1))
            return 0
        print(f"{job.name}: {job.measures}")
        print(f"writes: {'yes' if job.writes else 'no'}; targets: {', '.join(job.targets)}; "
              f"file: {job.path}")
        for p in job.params:
            print(f"  {p.name} = {p.default or '(unchanged)'}\t{p.help}")
        return 0
    jobs = list_jobs()
    if args.json:
        print(json.dumps([{"name": j.name, "measures": j.measures, "writes": j.writes,
                           "targets": list(j.targets)} for j in jobs], indent=1))
        return 0
    for j in jobs:
        print(j.line())
    return 0


def _params(items: list[str]) -> dict:
    out: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--param {item!r} must look like NAME=VALUE (e.g. --param qd=1,4,16)")
        out[key.strip()] = value.strip()
    return out


def _cmd_run(args) -> int:
    def say(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr)

    params = _params(args.param)
    out = args.out
    rec = run_job(args.job, args.target, scratch=args.scratch, params=params, out=None,
                  label=args.label, progress=say)
    if out is None:
        out = default_out(args.job, rec["device"])
    path = record.save(rec, out, overwrite=args.overwrite)
    if args.json:
        print(json.dumps(rec["summary"], indent=1))
    else:
        _print_points(rec)
        print(f"saved {path}")
    return 0


def _print_points(rec: dict) -> None:
    pts = rec["summary"].get("points", [])
    if not pts:
        return
    keys = [k for k in pts[0] if isinstance(pts[0][k], str)]
    metrics = [k for k in ("read_mb_s", "read_iops", "read_lat_mean_ms", "write_mb_s",
                           "write_iops", "write_lat_mean_ms", "cpu_us_per_mb", "wall_s")
               if any(k in p for p in pts)]
    print("\t".join(keys + metrics))
    for p in pts:
        vals = [str(p.get(k, "")) for k in keys]
        vals += [f"{p[k]:.4g}" if isinstance(p.get(k), int | float) else "-" for k in metrics]
        print("\t".join(vals))


def _cmd_hdparm(args) -> int:
    if args.sweep:
        rec = hdparm.offset_sweep(args.device, points=args.points, direct=not args.buffered,
                                  repeat=args.repeat)
        if args.out:
            record.save(rec, args.out, overwrite=args.overwrite)
        if args.json:
            print(json.dumps(rec["summary"], indent=1))
        else:
            for p in rec["summary"]["points"]:
                print(f"offset {p['offset_gib']:>5} GiB  {p['read_mb_s']:9.1f} MB/s")
            if args.out:
                print(f"saved {args.out}")
        return 0
    res = {"t": hdparm.timing(args.device, direct=not args.buffered),
           "T": hdparm.cached(args.device),
           "I": hdparm.identify(args.device),
           "W": hdparm.write_cache(args.device)}
    if args.json:
        print(json.dumps(res, indent=1))
        return 0
    t, T, ident, w = res["t"], res["T"], res["I"], res["W"]
    mode = "O_DIRECT" if t["direct"] else "buffered"
    print(f"-t ({mode}): {t['mb_s']:.1f} MB/s ({t['mib']} MiB in {t['seconds']:.2f} s)")
    print(f"-T (page cache): {T['mb_s']:.1f} MB/s")
    if ident["supported"]:
        print(f"-I: {ident['model']}, {ident['rotation_rpm'] or 'solid state'} rpm, "
              f"queue depth {ident['queue_depth']}, DMA {ident['active_dma']}, "
              f"write cache {'on' if ident['write_cache'] else 'off'}")
    else:
        print(f"-I: not available ({ident['reason']})")
    print(f"-W: {('on' if w['write_cache'] else 'off') if w['supported'] else w['reason']}")
    return 0


def _cmd_compare(args) -> int:
    raise ValueError("compare has moved: run `python -m simcore compare RECORD --disk PROFILE` "
                     "(hardware never imports simcore)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m hardware",
                                description="Measure real disks safely with fio and hdparm.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    s = sub.add_parser("probe", help="list block devices (or describe one path)")
    s.add_argument("path", nargs="?", help="a device, file or directory to describe")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(func=_cmd_probe)

    s = sub.add_parser("jobs", help="list the fio jobs (or show one job's parameters)")
    s.add_argument("job", nargs="?")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_jobs)

    s = sub.add_parser("run", help="run a job and save a measurement record")
    s.add_argument("job")
    s.add_argument("--target", required=True, help="block device, file or directory")
    s.add_argument("--scratch", action="store_true",
                   help="the target's contents may be destroyed (needed to write to a device "
                        "or an existing file)")
    s.add_argument("--param", action="append", metavar="K=V",
                   help="a job parameter; a comma-separated value sweeps it")
    s.add_argument("--out", help="record file (default: data/measurements/<job>.<kind>.<time>.json)")
    s.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    s.add_argument("--label", help="your own words added to the record's label")
    s.add_argument("--json", action="store_true", help="print the summary as JSON")
    s.add_argument("--quiet", action="store_true", help="no progress lines")
    s.set_defaults(func=_cmd_run)

    s = sub.add_parser("hdparm", help="hdparm -t/-T/-I/-W, or an offset sweep (--sweep)")
    s.add_argument("device")
    s.add_argument("--sweep", action="store_true", help="hdparm -t --offset across the device")
    s.add_argument("--points", type=int, default=8, help="offsets in the sweep")
    s.add_argument("--repeat", type=int, default=1, help="runs per offset")
    s.add_argument("--buffered", action="store_true", help="without --direct")
    s.add_argument("--out", help="save the sweep as a record")
    s.add_argument("--overwrite", action="store_true")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_hdparm)

    s = sub.add_parser("compare", help="moved: python -m simcore compare RECORD")
    s.add_argument("record", nargs="?")
    s.add_argument("--disk")
    s.set_defaults(func=_cmd_compare)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except Refused as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2
    except (ValueError, KeyError, FileExistsError, FileNotFoundError, RecordError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"error: {str(msg).splitlines()[0] if str(msg) else type(exc).__name__}",
              file=sys.stderr)
        return 2
    except (FioError, hdparm.HdparmError, TuningError, OSError) as exc:
        print(f"failed: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("failed: interrupted (queue settings were restored)", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
