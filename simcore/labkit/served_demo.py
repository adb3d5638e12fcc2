"""Record the demo variant's served-drive measurements of Labs 2 and 3 (for the book and the labs).

``python -m simcore.labkit.served_demo`` runs the measuring cells' fio jobs for
the public demo variant (``STUDENT_ID = "demo"``) on its served drive and keeps
each attachment under ``data/measurements/served/attached/`` (see
:func:`simcore.labkit.emulated.record`). A notebook without fio shows these,
labelled as recorded (they never count as the student's measurement), and the
chapter "Measuring real disks" sets them beside the simulator's prediction for
the same jobs, computed at build. The jobs and the variant's draws here are the
labs' own (``lab2_variant``/``lab3_variant``: the token, the depth and the
policy come from the same named streams of the demo seed).
"""

from __future__ import annotations

import sys
from typing import Any

from .check import variant_seed
from .variants import mystery_token, pick, variant_rng

LAB3_POLICIES = ["sptf", "sstf", "clook"]


def lab2_demo() -> dict[str, Any]:
    """The demo variant's Lab 2 drive and fio jobs (kind -> serve args, fio args, tag)."""
    tok = mystery_token(variant_seed("demo", "lab2"))
    common = ["--bs=64k", "--iodepth=1", "--runtime=5", "--time_based"]
    return {"token": tok, "jobs": {
        "lab2-seq": (["--mystery", tok], ["--rw=read", "--offset=0", "--size=256m", *common], tok),
        "lab2-rand": (["--mystery", tok], ["--rw=randread", *common], tok)}}


def lab3_demo() -> dict[str, Any]:
    """The demo variant's Lab 3 drive, depth, policy and fio jobs."""
    seed = variant_seed("demo", "lab3")
    tok = mystery_token(seed)
    depth = int(variant_rng(seed, "lab3-q9").integers(4, 33))
    policy = pick(seed, LAB3_POLICIES, "lab3-q9p")
    job = ["--rw=randread", "--bs=4k", f"--iodepth={depth}", "--runtime=5", "--time_based"]
    return {"token": tok, "depth": depth, "policy": policy, "jobs": {
        "lab3-fcfs": (["--mystery", tok, "--scheduler", "fcfs"], job, f"{tok}-fcfs"),
        "lab3-pos": (["--mystery", tok, "--scheduler", policy], job, f"{tok}-{policy}")}}


def main(argv: list[str] | None = None) -> int:
    from .emulated import record

    for demo in (lab2_demo(), lab3_demo()):
        for kind, (serve, fio_args, tag) in demo["jobs"].items():
            path = record(kind, demo["token"], serve, fio_args, tag=tag)
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
