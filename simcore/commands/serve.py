"""``serve``: export a simulated drive over NBD for fio, QEMU and the kernel."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from ..disk.profile_loader import load_disk
from ..sched import names as scheduler_names


def add_disk_args(p) -> None:
    """The options that choose and shape the served drive (shared with ``vm``)."""
    p.add_argument("--disk", default="maxtor92048u8", help="a bundled disk id or a profile path")
    p.add_argument("--mystery", metavar="TOKEN",
                   help="serve the mystery disk of this token (with --secret-file: of this "
                        "student id)")
    p.add_argument("--secret-file", help="the instructor's secret: --mystery is a student id")
    p.add_argument("--cache", action=argparse.BooleanOptionalAction, default=True,
                   help="model the drive's buffer (read-ahead, write-back) [on]")
    p.add_argument("--scheduler", default="fcfs",
                   help=f"the drive's own queue policy: {', '.join(scheduler_names())}")
    p.add_argument("--seed", type=int, default=None,
                   help="draw the platter's starting phase from this seed")


def serve_args(args) -> list[str]:
    """The ``serve`` command line that reproduces the drive options in ``args``."""
    out = ["--disk", args.disk, "--scheduler", args.scheduler,
           "--cache" if args.cache else "--no-cache"]
    if args.mystery is not None:
        out += ["--mystery", args.mystery]
        if args.secret_file:
            out += ["--secret-file", args.secret_file]
    if args.seed is not None:
        out += ["--seed", str(args.seed)]
    return out


def register(sub) -> None:
    p = sub.add_parser("serve", help="serve a simulated drive as an NBD block device")
    add_disk_args(p)
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--socket", help="listen on this Unix socket path")
    where.add_argument("--port", type=int, help="listen on this TCP port of 127.0.0.1 (0: any)")
    p.add_argument("--backing", help="keep the data in this (sparse) file instead of a temp one")
    p.add_argument("--log", help="write every request (arrival, model and actual finish) as CSV")
    p.add_argument("--stats", help="write the lateness summary (and each connection's first offset, "
                        "in arrival order) as JSON here")
    p.add_argument("--realtime", action=argparse.BooleanOptionalAction, default=True,
                   help="ask for SCHED_FIFO (works as root) so a busy machine delays replies "
                        "less [on]")
    p.add_argument("--duration", type=float, default=None,
                   help="stop after this many seconds (default: until SIGINT/SIGTERM)")
    p.set_defaults(func=main)


def disk_profile(args):
    """The profile ``args`` name: a bundled disk or file, or a student's mystery disk."""
    if args.mystery is not None:
        from ..serve.mystery import mystery_profile, read_secret

        secret = read_secret(args.secret_file) if args.secret_file else None
        return mystery_profile(secret, args.mystery)
    return load_disk(args.disk)


def main(args) -> int:
    from ..serve import DiskServer

    if args.scheduler not in scheduler_names():
        raise ValueError(f"--scheduler '{args.scheduler}' is not one of: "
                         f"{', '.join(scheduler_names())}")
    server = DiskServer(disk_profile(args), scheduler=args.scheduler, cache=args.cache,
                        seed=args.seed, backing=args.backing, realtime=args.realtime)

    def ready(uri: str) -> None:
        print(f"serving {server.profile.id} ({server.size / 1e9:.1f} GB, cache "
              f"{'on' if args.cache else 'off'}, {args.scheduler}, priority {server.priority}) "
              f"at {uri}", flush=True)
        if not server.precise:
            print("warning: no timerfd here; replies may be up to 1 ms late", file=sys.stderr)

    async def go() -> None:
        stop = asyncio.Event()
        if args.duration is not None:
            asyncio.get_running_loop().call_later(args.duration, stop.set)
        await server.serve(args.socket, args.port, stop=stop, on_ready=ready)

    asyncio.run(go())
    summary = {"disk": server.profile.id, "priority": server.priority, **server.lateness(),
               "first_offsets": server.first_offsets()}
    if args.log:
        server.write_log(args.log)
    if args.stats:
        with open(args.stats, "w") as fh:
            json.dump(summary, fh, indent=2, sort_keys=True)
    if summary["requests"]:
        print(f"{summary['requests']} requests; lateness ms: mean {summary['mean_ms']:.3f}  "
              f"p50 {summary['p50_ms']:.3f}  p99 {summary['p99_ms']:.3f}  "
              f"max {summary['max_ms']:.3f}", file=sys.stderr)
    return 0
