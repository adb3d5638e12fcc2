"""Write the bundled profiles of the drives DiskSim has validated models of (issue 14, item 5).

The book's Atlas 10K, Ultrastar 18ES and HP C2247 are the drives of DiskSim 4.0's validation
suite (``data/validation/models``, extracted from the drives by DIXtrac or by hand). Their
bundled profiles are that extraction as ``simcore import-disksim`` reads it: capacity, zone
table, skews, spares, slips and remaps, seek curve, head switch, write settle, overheads and
cache. One thing is not taken from the model: DiskSim's bus timing describes the host adapter
of the lab that measured the trace (5 MB/s and less), not the drive's interface, so the
interface stays the one the drive's datasheet and Schindler et al. (2002) give.

``python tools/extracted_profiles.py`` rewrites ``data/disks/{atlas10k,ultrastar18es,hpc2247}
.toml``; ``tests/test_profiles.py`` checks that the bundled files are exactly what this
produces, so the profiles cannot drift from the extraction.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simcore.disksim.importer import import_disksim, to_toml  # noqa: E402

MODELS = ROOT / "data" / "validation" / "models"

BUNDLED = {
    "atlas10k": {
        "parv": "atlas10k.parv",
        "name": "Quantum Atlas 10K (9 GB)",
        "year": 1999,
        "interface": {"name": "Ultra2 Wide SCSI", "rate_mb_s": 80.0},
        "was": "12 even zones of 334 to 224 sectors per track, a three-point seek curve "
               "(1.0, 5.0 and 10.8 ms), a 0.8 ms head switch, 0.3 ms overheads and a 2 MB "
               "cache of 10 segments, mostly assumed from Schindler et al. (2002), Table 1",
        "paper": "Schindler et al. (2002), Table 1, give 10,000 RPM, a 0.8 ms head switch, "
                 "a 5.0 ms average seek and 334 to 224 sectors per track",
    },
    "ultrastar18es": {
        "parv": "ibm18es.parv",
        "name": "IBM Ultrastar 18ES (9 GB)",
        "year": 1998,
        "interface": {"name": "Ultra2 Wide SCSI", "rate_mb_s": 80.0},
        "was": "12 equal zones of 390 to 247 sectors per track, a three-point seek curve "
               "(average 7.6 ms), a 1.1 ms head switch and assumed overheads",
        "paper": "Schindler et al. (2002), Table 1, give 7,200 RPM, a 1.1 ms head switch, "
                 "a 7.6 ms average seek and 390 to 247 sectors per track",
    },
    "hpc2247": {
        "parv": "hp_c2247a.parv",
        "name": "HP C2247 (1 GB)",
        "year": 1992,
        "interface": {"name": "Fast SCSI-2", "rate_mb_s": 10.0},
        "was": "8 equal zones of 96 to 56 sectors per track, a three-point seek curve "
               "(average 10 ms), a 1 ms head switch and assumed overheads",
        "paper": "Schindler et al. (2002), Table 1, give 5,400 RPM, a 1 ms head switch, a "
                 "10 ms average seek and 96 to 56 sectors per track",
    },
}


def render(disk_id: str) -> str:
    """The bundled profile ``disk_id`` as the importer makes it from the validated model."""
    spec = BUNDLED[disk_id]
    imported = import_disksim(MODELS / spec["parv"])
    data = tomllib.loads(imported.toml)
    head = {
        "id": disk_id,
        "name": spec["name"],
        "year": spec["year"],
        "source": (f"DiskSim 4.0's validated model of this drive ({spec['parv']} in "
                   "data/validation/models, extracted from the drive itself), imported by "
                   "simcore import-disksim (tools/extracted_profiles.py); "
                   f"{spec['paper']}."),
        "assumed": data.get("assumed", []),
        "notes": (f"Until 2026-11 this profile was synthetic: {spec['was']}. Now the zone "
                  "table, skews, spares, slips, seek curve, head switch, write settle, "
                  "overheads and cache are the extraction's. The interface is the drive's "
                  "own: DiskSim's bus timing in the model is the measuring host's adapter "
                  f"({data['interface']['name']}). {data.get('notes', '')}").strip(),
    }
    body = {k: v for k, v in data.items() if k not in {"id", "name", "source", "assumed",
                                                       "notes", "interface"}}
    body["interface"] = dict(spec["interface"])
    return to_toml({**head, **body})


def main() -> int:
    for disk_id in BUNDLED:
        path = ROOT / "data" / "disks" / f"{disk_id}.toml"
        path.write_text(render(disk_id))
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
