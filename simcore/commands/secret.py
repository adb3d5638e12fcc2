"""``secret``: create the instructor secret that keys every student's variant."""

from __future__ import annotations

from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("secret", help="create or locate the instructor secret (variants)",
                       description="Variants are HMAC(secret, lab:id). Create one secret per "
                       "course and term, keep it off the students' side, back it up: a new "
                       "secret gives every student a new variant.")
    p.add_argument("--init", action="store_true", help="create a new secret (never replaces one)")
    p.add_argument("--file", help="where the secret lives (default: $DISKLAB_SECRET_FILE or "
                   "~/.config/disklab/secret)")
    p.set_defaults(func=main)


def main(args) -> int:
    from ..labkit import secret as sec

    if args.init:
        path = sec.create(args.file)
        print(f"created {path} (mode 600); back it up, and never commit it")
        return 0
    path = Path(args.file) if args.file else sec.default_path()
    sec.load(path)
    print(f"{path}: a valid secret")
    return 0
