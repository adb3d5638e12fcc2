"""``convert-trace IN OUT``: rewrite a trace in another format.

``--from`` defaults to sniffing the input's first line; ``--to`` defaults to
the output's extension (``.csv``, ``.ascii``, ``.blkparse``; ``.iolog`` means
fio version 3). OUT is never replaced unless ``--force`` is given.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..workloads.traces import EXTENSIONS, READERS, WRITERS, convert, sniff


def register(sub) -> None:
    p = sub.add_parser("convert-trace", help="convert a trace between formats")
    p.add_argument("src", metavar="IN", help="the trace to read")
    p.add_argument("dst", metavar="OUT", help="the file to write (refuses to overwrite)")
    p.add_argument("--from", dest="from_fmt", default="auto",
                   choices=["auto", *sorted(READERS)], help="input format (default: sniff)")
    p.add_argument("--to", dest="to_fmt", default=None, choices=sorted(WRITERS),
                   help="output format (default: from OUT's extension)")
    p.add_argument("--force", action="store_true", help="allow OUT to replace a file")
    p.set_defaults(func=main)


def main(args) -> int:
    if not Path(args.src).exists():
        raise FileNotFoundError(f"{args.src}: no such trace file")
    to_fmt = args.to_fmt
    if to_fmt is None:
        ext = Path(args.dst).suffix.lower()
        to_fmt = EXTENSIONS.get(ext)
        if to_fmt == "fio":
            to_fmt = "fio-v3"
        if to_fmt is None:
            raise ValueError(f"cannot tell the output format from '{ext or args.dst}'; "
                             f"pass --to (one of {', '.join(sorted(WRITERS))})")
    if Path(args.dst).exists() and not args.force:
        raise ValueError(f"{args.dst} exists; choose another OUT or pass --force")
    from_fmt = sniff(args.src) if args.from_fmt == "auto" else args.from_fmt
    wl = convert(args.src, args.dst, from_fmt, to_fmt, overwrite=args.force)
    print(f"{len(wl.requests)} requests: {args.src} ({from_fmt}) -> {args.dst} ({to_fmt})",
          file=sys.stderr)
    return 0
