"""Why the single-zone layouts lose on the database trace, and where ALIZ/FREQZ peak: measured.

Replays single points of the placement experiment (:mod:`simcore.experiments.placement`)
through the same code the sweep uses and prints, per layout:

- the drive's dispatches by where the arm comes from and goes to: H (a block at its home)
  or Z (a relocated block), with the share of dispatches, mean seek time and distance;
- the queueing decomposition: I/Os per second, mean and second moment of the drive's service
  time, utilisation, mean queue time, and the ratio of queue times against ORIGINAL beside the
  ratio Pollaczek-Khinchine predicts, lambda E[S^2] / (1 - rho);
- requests split by the relocation and their mean response against whole requests.

``--sensitivity`` replays the trace with its spatial structure changed (the generator's
``dwell_requests`` and the size of a locality region, via ``asus``), to show which of its
assumptions decides the sign of the single-zone layouts and the best zone spacing. These
runs are a diagnosis, not a calibration: the experiment keeps its parameters.

Usage (from the repository root, seconds per quick point, about a minute per full one)::

    PYTHONPATH=$PWD python tools/placement_diagnose.py               # quick windows
    PYTHONPATH=$PWD python tools/placement_diagnose.py --full        # 15-minute windows
    PYTHONPATH=$PWD python tools/placement_diagnose.py --sensitivity # quick, 2 replicates
"""

from __future__ import annotations

import argparse

import numpy as np

from simcore import placement as pl
from simcore.experiments import placement as P
from simcore.workloads.synth import financial_like

LAYOUTS = [("ORIGINAL", None), ("FREQNC", None), ("ALIS", None), ("FREQZ", 50_000),
           ("ALIZ", 50_000), ("ALIZ", 10_000_000)]


def replay(key, spacing, quick, replicate=0, wl=None):
    """One point's placed workload and its records (block layer, drive)."""
    if wl is None:
        wl = P.workload("database", quick, P.trace_seed(0, "database", replicate))
    s = P.settings(quick)
    mech = P.mechanism()
    policy = P.make_policy(key, spacing)
    placed = pl.rewrite(wl, policy, mech.layout.capacity, P.UNIT_SECTORS, s["interval_ms"],
                        "count", home=getattr(policy, "home", None))
    fg, drive, _ = P._replay_ide(mech, placed, P.SCHEDULER, P.ELEVATOR, P.DEPTH, None)
    return placed, fg, drive, s["interval_ms"]


def describe(label, placed, fg, drive, iv, base=None):
    mech = P.mechanism()
    cols = pl.record_columns(fg)
    parent = placed.parent[cols["id"]]
    reqs = placed.logical.requests
    log_lba = np.array([reqs[p].lba for p in parent])
    log_n = np.array([reqs[p].sectors for p in parent])
    moved_bl = ~((cols["lba"] >= log_lba) & (cols["lba"] < log_lba + log_n))
    d = pl.record_columns(drive)
    o = np.argsort(d["start_ms"], kind="stable")
    d = {k: v[o] for k, v in d.items()}
    # the block layer sends one command at a time: a drive record is the block-layer record
    # that finished at the same time at the same address
    where = {(round(f, 6), int(a)): m for f, a, m in zip(cols["finish_ms"], cols["lba"],
                                                         moved_bl, strict=True)}
    moved = np.array([where.get((round(f, 6), int(a)), False)
                      for f, a in zip(d["finish_ms"], d["lba"], strict=True)])
    keep = d["arrival_ms"][1:] >= iv
    c0 = pl.cylinders(mech.layout, d["lba"])
    c1 = pl.cylinders(mech.layout, d["lba"] + d["sectors"] - 1)
    dist = np.abs(c0[1:] - c1[:-1])
    seek = d["seek_ms"][1:]
    prev, cur = moved[:-1], moved[1:]
    svc = (d["finish_ms"] - d["start_ms"])[1:][keep]
    span = d["finish_ms"][1:][keep].max() - iv
    lam = keep.sum() / span  # I/Os per ms
    es, es2 = svc.mean(), (svc ** 2).mean()
    rho = lam * es
    queue = cols["queue_ms"][cols["arrival_ms"] >= iv].mean()
    f = P._fold_subset(cols, placed)
    n = len(reqs)
    pieces = np.bincount(placed.parent[placed.parent >= 0], minlength=n)
    ok = (f["arrival_ms"] >= iv) & np.isfinite(f["finish_ms"])
    split = pieces > 1
    resp = f["response_ms"]
    print(f"{label}: mean response {resp[ok].mean():.2f} ms; seek {seek[keep].mean():.3f} ms, "
          f"distance {dist[keep].mean():.0f} cylinders")
    for a in (False, True):
        for b in (False, True):
            m = keep & (prev == a) & (cur == b)
            if m.any():
                print(f"    {'HZ'[a]}->{'HZ'[b]}: {m.sum() / keep.sum():.3f} of dispatches, seek "
                      f"{seek[m].mean():.2f} ms, {dist[m].mean():.0f} cylinders (median "
                      f"{np.median(dist[m]):.0f}, zero {np.mean(dist[m] == 0):.2f})")
    pk = lam * es2 / (1.0 - rho)
    line = (f"    {lam * 1000:.1f} I/O/s, E[S] {es:.3f} ms, E[S^2] {es2:.2f} ms^2, utilisation "
            f"{rho:.3f}, queue {queue:.2f} ms")
    if base is not None:
        line += (f"; against ORIGINAL: queue x{queue / base['queue']:.3f}, "
                 f"P-K predicts x{pk / base['pk']:.3f}")
    print(line)
    if split[ok].any():
        print(f"    split requests {np.mean(split[ok]):.3f} of all (+{pieces[ok].mean() - 1:.3f} "
              f"I/Os per request): response {resp[ok & split].mean():.1f} ms against "
              f"{resp[ok & ~split].mean():.1f} ms for whole ones")
    return {"queue": queue, "pk": pk}


def sensitivity(reps=2):
    s = P.settings(True)
    cap = P.mechanism().layout.capacity
    layouts = [("FREQNC", None), ("ALIS", None), ("FREQZ", 50_000), ("FREQZ", 1_000_000),
               ("ALIZ", 30_000), ("ALIZ", 50_000), ("ALIZ", 100_000), ("ALIZ", 1_000_000),
               ("ALIZ", 10_000_000)]
    cases = [("as the experiment runs it", {}),
             ("the trace stays on a storage unit for 20 requests, not 200",
              {"dwell_requests": 20.0}),
             ("locality regions of 50,000 sectors (1,608 units of 512 hot pages)",
              {"asus": 1608, "hot_pages": 512})]
    for title, kw in cases:
        out: dict = {}
        base = []
        for r in range(reps):
            wl = financial_like(cap, duration_s=s["duration_s"],
                                seed=P.trace_seed(0, "database", r), **kw)
            b = P.measure(wl, P.make_policy("ORIGINAL"), s["interval_ms"])
            base.append(b)
            for k, x in layouts:
                m = P.measure(wl, P.make_policy(k, x), s["interval_ms"])
                out.setdefault((k, x), []).append(
                    100 * (b["mean_response_ms"] - m["mean_response_ms"]) / b["mean_response_ms"])
        print(f"{title}: ORIGINAL mean seek "
              f"{np.mean([b['mean_seek_ms'] for b in base]):.2f} ms, "
              f"{np.mean([b['mean_seek_cylinders'] for b in base]):.0f} cylinders")
        for (k, x), v in out.items():
            name = k if x is None else f"{k}({x})"
            print(f"    {name:15s} {np.mean(v):+6.1f}%  ({', '.join(f'{i:+.1f}' for i in v)})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--full", action="store_true", help="15-minute windows (about a minute "
                    "per layout)")
    ap.add_argument("--replicate", type=int, default=0)
    ap.add_argument("--sensitivity", action="store_true")
    a = ap.parse_args()
    if a.sensitivity:
        sensitivity()
        return
    base = None
    for k, x in LAYOUTS:
        placed, fg, drive, iv = replay(k, x, not a.full, a.replicate)
        r = describe(k if x is None else f"{k}({x})", placed, fg, drive, iv, base)
        base = base or r


if __name__ == "__main__":
    main()
