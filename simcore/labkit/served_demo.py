"""Record the demo variant's served-drive measurements (for the book and the labs).

``python -m simcore.labkit.served_demo`` runs the measuring cells' fio jobs for
the public demo variant (``STUDENT_ID = "demo"``) on its served drive and keeps
each attachment under ``data/measurements/served/attached/`` (see
:func:`simcore.labkit.emulated.record`). A notebook without fio shows these,
labelled as recorded (they never count as the student's measurement), and the
chapter "Measuring real disks" sets them beside the simulator's prediction for
the same jobs, computed at build. The jobs and the variant's draws here are the
labs' own (``lab2_variant``/``lab3_variant``: the token, the depth, the
policy and fio's seed come from the same named streams of the demo seed).

Labs 5 and 6 draw their jobs inside the notebook, so their recordings are
taken from the key itself: ``python -m simcore.labkit.served_demo --from-key
instructors/labs/lab5_traxtents.ipynb`` keeps the measurements attached to the
key's measuring cell (the key is executed for the demo variant, as ``make``
does) under the same folder, named by the drive token in fio's socket path.
"""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..serve.fio import random_offsets
from .check import variant_seed
from .variants import fio_seed, mystery_token, pick, variant_rng

LAB3_POLICIES = ["sptf", "sstf", "clook"]


def lab2_jobs(seed: int) -> dict[str, Any]:
    """Lab 2's measuring cell for the variant of ``seed``: its drive and fio jobs
    (kind -> serve args, fio args, socket tag); the random job reads the offsets
    of the variant's own fio seed (``fio_seed``)."""
    tok, fseed = mystery_token(seed), fio_seed(seed, "lab2-q9s")
    common = ["--bs=64k", "--iodepth=1", "--runtime=5", "--time_based"]
    rand = ["--rw=randread", *random_offsets(fseed)]
    return {"token": tok, "fio_seed": fseed, "jobs": {
        "lab2-seq": (["--mystery", tok], ["--rw=read", "--offset=0", "--size=256m", *common], tok),
        "lab2-rand": (["--mystery", tok], [*rand, *common], tok)}}


def lab3_jobs(seed: int) -> dict[str, Any]:
    """Lab 3's measuring cell for the variant of ``seed``: its drive, depth, policy and fio
    jobs; both jobs read the same offsets, of the variant's own fio seed (``fio_seed``)."""
    tok, fseed = mystery_token(seed), fio_seed(seed, "lab3-q9s")
    depth = int(variant_rng(seed, "lab3-q9").integers(4, 33))
    policy = pick(seed, LAB3_POLICIES, "lab3-q9p")
    job = ["--rw=randread", "--bs=4k", f"--iodepth={depth}", "--runtime=5", "--time_based",
           *random_offsets(fseed)]
    return {"token": tok, "fio_seed": fseed, "depth": depth, "policy": policy, "jobs": {
        "lab3-fcfs": (["--mystery", tok, "--scheduler", "fcfs"], job, f"{tok}-fcfs"),
        "lab3-pos": (["--mystery", tok, "--scheduler", policy], job, f"{tok}-{policy}")}}


def lab2_demo() -> dict[str, Any]:
    """The demo variant's Lab 2 drive and fio jobs (kind -> serve args, fio args, tag)."""
    return lab2_jobs(variant_seed("demo", "lab2"))


def lab3_demo() -> dict[str, Any]:
    """The demo variant's Lab 3 drive, depth, policy and fio jobs."""
    return lab3_jobs(variant_seed("demo", "lab3"))


_SOCKET_TAG = re.compile(r"disklab-fio-([0-9a-f]{16})")


def keep_from_key(key_path: str | Path) -> list[Path]:
    """Keep the fio reports attached to an executed key as the demo variant's recordings."""
    import nbformat

    from .attach import MIME
    from .emulated import recording_path
    from .judges import read_fio

    nb = nbformat.read(str(key_path), as_version=4)
    made = []
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            att = (out.get("data") or {}).get(MIME)
            if not att or att.get("tool") != "fio":
                continue
            run = read_fio(att["raw"])  # refuses what is not fio's own report
            tag = _SOCKET_TAG.search(run.options.get("uri", ""))
            if tag is None:
                raise ValueError(f"{key_path}: the {att['kind']} report names no drive token")
            path = recording_path(att["kind"], tag.group(1))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({
                "schema": "disklab-attachment/1",
                "recorded_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "attachment": dict(att)}, indent=1) + "\n")
            made.append(path)
    if not made:
        raise ValueError(f"{key_path}: no fio report is attached to the key (execute it first)")
    return made


def main(argv: list[str] | None = None) -> int:
    from .emulated import record

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--from-key"]:
        for key in argv[1:]:
            for path in keep_from_key(key):
                print(f"wrote {path}")
        return 0
    for demo in (lab2_demo(), lab3_demo()):
        for kind, (serve, fio_args, tag) in demo["jobs"].items():
            path = record(kind, demo["token"], serve, fio_args, tag=tag)
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
