"""``disks``: one line per bundled disk profile."""

from __future__ import annotations

import json

from ..disk.layout import Layout
from ..disk.mechanics import mean_rotational_latency_ms, seek_for
from ..disk.profile_loader import list_disks, load_disk


def register(sub) -> None:
    p = sub.add_parser("disks", help="list the bundled disk profiles, one per line")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=main)


def describe(disk_id: str) -> dict:
    prof = load_disk(disk_id)
    layout = Layout(prof)
    return {
        "id": prof.id, "name": prof.name, "year": prof.year, "rpm": prof.rpm,
        "capacity_gb": layout.capacity * 512 / 1e9, "cylinders": layout.cylinders,
        "surfaces": prof.surfaces, "zones": layout.zone_count,
        "avg_seek_ms": seek_for(prof).average_ms(),
        "avg_rotation_ms": mean_rotational_latency_ms(prof.rpm),
        "outer_mb_s": layout.media_rate_mb_s(0),
        "inner_mb_s": layout.media_rate_mb_s(layout.zone_count - 1),
        "interface": prof.interface,
    }


def main(args) -> int:
    rows = [describe(d) for d in list_disks()]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for r in rows:
        print(f"{r['id']:<14} {r['rpm']:>6.0f} rpm  {r['capacity_gb']:>8.2f} GB  "
              f"seek {r['avg_seek_ms']:5.1f} ms  media {r['outer_mb_s']:6.1f}-"
              f"{r['inner_mb_s']:.1f} MB/s  {r['zones']:>2} zones  {r['name']}")
    return 0
