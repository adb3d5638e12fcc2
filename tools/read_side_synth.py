"""Mean service times of the ten DiskSim-validated models on read workloads that exercise
the drive's read side: read-ahead schemes, segment sizes, "Read any free blocks".

Each workload is a closed loop of one request at a time (as DiskSim's validation traces
are) with a fixed think time, replayed on the drive's whole firmware, imported from its
DiskSim model by ``simcore import-disksim``. Used to show what a change to the read side
does to the drives whose traces are kept back.

    PYTHONPATH=$PWD python tools/read_side_synth.py [model ...]
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simcore.disk.profile_loader import profile_from_dict  # noqa: E402
from simcore.disksim.importer import import_disksim  # noqa: E402
from simcore.engine import run  # noqa: E402
from simcore.workloads import ValidationStep, ValidationWorkload  # noqa: E402

MODELS = ["atlas10k", "atlas_III", "barracuda", "cheetah4LP", "cheetah9LP",
          "ibm18es", "hp_c2247a", "hp_c2490a", "hp_c3323a", "dec_rz26"]
N = 1500
GAP_MS = 0.5


def workloads(capacity: int) -> dict[str, list[tuple[int, int]]]:
    """(lba, sectors) lists; every one starts at a place drawn with a fixed seed."""
    rng = np.random.default_rng(14)
    start = int(rng.integers(0, capacity // 2))
    seq8 = [(start + 8 * i, 8) for i in range(N)]
    seq64 = [(start + 64 * i, 64) for i in range(N // 4)]
    stride = [(start + 16 * i, 8) for i in range(N)]  # 8 read, 8 skipped
    # a read just before the one before it, on the same track mostly (backward scan)
    back = [(start + 4 * (N - i), 4) for i in range(N)]
    rand = [(int(x), 8) for x in rng.integers(0, capacity - 8, N)]
    return {"seq 8": seq8, "seq 64": seq64, "stride 8/16": stride, "backward 4": back,
            "random 8": rand}


def measure(model: str) -> dict[str, float]:
    parv = ROOT / "data" / "validation" / "models" / f"{model}.parv"
    prof = profile_from_dict(tomllib.loads(import_disksim(parv).toml), str(parv))
    from simcore.disk.access import Mechanism

    mech = Mechanism(prof)
    out = {}
    for name, reqs in workloads(mech.layout.capacity).items():
        wl = ValidationWorkload([ValidationStep("R", lba, n, 0.0, GAP_MS) for lba, n in reqs],
                                name=name)
        res = run(mech, wl, "fcfs", firmware=True)
        out[name] = float(np.mean([r.finish_ms - r.start_ms for r in res.records]))
    return out


def main(argv: list[str]) -> None:
    models = argv or MODELS
    names = None
    for m in models:
        got = measure(m)
        if names is None:
            names = list(got)
            print(f"{'model':12s}" + "".join(f"{n:>13s}" for n in names))
        print(f"{m:12s}" + "".join(f"{got[n]:13.4f}" for n in names), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
