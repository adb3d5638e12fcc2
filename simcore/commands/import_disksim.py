"""``import-disksim FILE -o PROFILE.toml``: turn a DiskSim disk model into a simcore profile."""

from __future__ import annotations

import sys

from ..disk.layout import Layout
from ..disk.profile_loader import load_disk
from ..disksim.importer import import_disksim, write_profile


def register(sub) -> None:
    p = sub.add_parser(
        "import-disksim",
        help="import a DiskSim model (.parv, .diskspecs or .model) as a simcore profile",
        description="Read a DiskSim 4.0 disk model (following its 'source' lines and its .seek "
        "file) and write a TOML profile that 'python -m simcore run --disk PROFILE.toml' and "
        "simcore.load_disk() read. What does not carry over is printed as warnings.",
    )
    p.add_argument("file", help="the DiskSim .parv, .diskspecs or .model file")
    p.add_argument("-o", "--output", required=True, metavar="PROFILE.toml",
                   help="the profile to write (refuses to overwrite without --force)")
    p.add_argument("--disk", metavar="NAME",
                   help="which disk, when the file defines several (block or instance name)")
    p.add_argument("--force", action="store_true", help="replace PROFILE.toml if it exists")
    p.set_defaults(func=main)


def main(args) -> int:
    from pathlib import Path

    out = Path(args.output)
    if out.exists() and not args.force:  # check before the work, and again when writing
        raise ValueError(f"{out} exists; choose another -o or pass --force to replace it")
    imported = import_disksim(args.file, disk=args.disk)
    for w in imported.warnings:
        print(f"warning: {w}", file=sys.stderr)
    try:
        write_profile(imported, out, force=args.force)
    except FileExistsError as exc:
        raise ValueError(str(exc)) from None
    prof = load_disk(out)
    layout = Layout(prof)
    print(f"wrote {out}: disk '{prof.id}', {prof.rpm:g} rpm, {prof.surfaces} surfaces, "
          f"{layout.cylinders} cylinders in {layout.zone_count} zones, "
          f"{layout.capacity} sectors ({layout.capacity * 512 / 1e9:.3g} GB); "
          f"{len(imported.warnings)} warning(s)")
    return 0
