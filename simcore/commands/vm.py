"""``vm``: boot a throwaway QEMU guest whose disk is a served simulated drive.

The guest runs a shell script (``--script FILE`` or ``--run 'CMD'``) with the
host's fio and hdparm against ``/dev/sda`` and prints its output; files the
script leaves in its working directory come back with ``--out DIR``.
``--setup`` fetches and extracts the guest kernel once (``apt-get download``);
a run never downloads anything.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from .serve import add_disk_args, disk_profile, serve_args


def register(sub) -> None:
    p = sub.add_parser("vm", help="run a script in a QEMU guest whose disk is a served drive")
    add_disk_args(p)
    p.add_argument("--setup", action="store_true",
                   help="download and extract the guest kernel, build the initramfs, and stop")
    p.add_argument("--bus", choices=("auto", "ide", "ahci"), default="auto",
                   help="IDE (PIIX, depth 1) or AHCI with NCQ; auto picks by the drive's era")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--script", help="a shell script to run inside the guest")
    what.add_argument("--run", help="a shell command line to run inside the guest")
    p.add_argument("--out", help="copy the files the script wrote into this new directory")
    p.add_argument("--log", help="write the served requests as CSV")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds before the guest is killed")
    p.set_defaults(func=main)


def main(args) -> int:
    from ..serve import vm
    from ..serve.served import ServedDisk

    try:
        if args.setup:
            print(f"guest ready: {vm.setup()}")
            return 0
        vm.check_available()
    except vm.VmUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    if not args.script and not args.run:
        raise ValueError("give --script FILE or --run 'COMMAND' (or --setup)")
    script = Path(args.script).read_text() if args.script else args.run + "\n"
    out = Path(args.out) if args.out else None
    if out is not None and out.exists():
        raise ValueError(f"--out {out} exists; choose a new directory")
    profile = disk_profile(args)
    bus = None if args.bus == "auto" else args.bus
    with tempfile.TemporaryDirectory(prefix="simcore-vm-serve-") as tmp:
        extra = ["--log", args.log] if args.log else []
        with ServedDisk(tmp, serve_args(args) + extra) as served:
            res = vm.run_guest(served.sock, profile, script, bus=bus, timeout_s=args.timeout)
    sys.stdout.write(res.stdout)
    sys.stderr.write(res.stderr)
    if out is not None:
        out.mkdir(parents=True)
        for name, data in res.files.items():
            (out / name).write_bytes(data)
    s = served.summary
    boot = f"{res.boot_s:.1f} s" if res.boot_s is not None else "?"
    late = (f"lateness ms mean {s['mean_ms']:.3f} p50 {s['p50_ms']:.3f} p99 {s['p99_ms']:.3f}"
            if s.get("requests") else "no requests")
    print(f"vm: {profile.id} on {bus or vm.default_bus(profile)}; guest up in {boot}, "
          f"done in {res.wall_s:.1f} s; {s.get('requests', 0)} requests, {late}", file=sys.stderr)
    return res.returncode



