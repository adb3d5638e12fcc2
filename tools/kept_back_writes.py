"""DiskSim models without traces here on closed-loop workloads that exercise the write side:
random 8 KiB reads and writes (think 0 or 2 ms), random writes, sequential writes, and
sequential writes with a random read every fourth request. Prints mean read and write
response times (ms). Usage: python tools/kept_back_writes.py [models dir]."""
import sys
import tomllib

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))
import simcore
from simcore.disk.profile_loader import profile_from_dict
from simcore.disksim.importer import import_disksim
from simcore.records import READ, WRITE
from simcore.workloads import ClosedWorkload, random_closed

M = (sys.argv[1] if len(sys.argv) > 1 else "../shared/validation/models") + "/"
DRIVES = ["atlas10k", "atlas_III", "barracuda", "cheetah4LP", "cheetah9LP"]

def prof(d):
    imp = import_disksim(M + d + ".diskspecs")
    return profile_from_dict(tomllib.loads(imp.toml), d), imp

def seq_writes(cap, n, kib=8, think=0.0):
    s = round(kib * 2)
    start = cap // 3
    return ClosedWorkload(1, n, lambda c, k, rng: (WRITE, start + k * s, s), think, 0,
                          name="seq writes")

def mixed_seq(cap, n, kib=8, think=0.0):
    """sequential writes, a random read every 4th request"""
    s = round(kib * 2)
    start = cap // 3
    def make(c, k, rng):
        if k % 4 == 3:
            return READ, int(rng.integers(0, (cap - s) // s)) * s, s
        return WRITE, start + (k - k // 4) * s, s
    return ClosedWorkload(1, n, make, think, 0, name="seq writes + reads")

def stats(res):
    recs = res.records if hasattr(res, "records") else res
    r = [x.response_ms for x in recs if x.op == READ]
    w = [x.response_ms for x in recs if x.op == WRITE]
    return (np.mean(r) if r else float("nan")), (np.mean(w) if w else float("nan"))

rows = []
for d in DRIVES:
    p, imp = prof(d)
    cap = simcore.Mechanism(p).layout.capacity
    out = [d]
    for name, wl in (("rand50 t0", random_closed(cap, 1, 1500, 8, 0.5, 0.0, seed=1)),
                     ("rand50 t2", random_closed(cap, 1, 1500, 8, 0.5, 2.0, seed=2)),
                     ("randW t2", random_closed(cap, 1, 1500, 8, 0.0, 2.0, seed=3)),
                     ("seqW", seq_writes(cap, 1500)),
                     ("seqW+rdR", mixed_seq(cap, 1500))):
        rm, wm = stats(simcore.run(p, wl))
        out.append(f"{name}: R {rm:6.2f} W {wm:6.2f}")
    print(" | ".join(out), flush=True)
