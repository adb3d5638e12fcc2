"""Seed 000's open question: with zoned recording, where should the hot data live?

Gray 2000, Ch. 6 (note 000 §4.10): adaptive block rearrangement puts its
reserved area in the centre of the disk, which "assumes that every track on
disk contains the same amount of data ... Due to the widespread use of MZR in
today's modern disk drives, the optimal location for the hot data cache may
have moved from the center to the outer tracks of the disk."

The experiment: adaptive block rearrangement (:class:`~simcore.placement.
AdaptiveBlockRearrangement`, organ-pipe placement, a perfect monitor, copies)
with a reserved area of 0.5% of the disk, placed at every tenth of the disk's
address space from the outer edge (0) to the inner edge (1), on a zoned disk.
The workload is the one organ pipe is optimal for: independent references, a
share ``h`` of them to a fixed hot set of blocks scattered over the disk and
the rest uniform (:func:`~simcore.workloads.synth.hot_set_open`). Two request
sizes (4, 64 and 256 KiB) and several ``h`` (500 hot blocks, Zipf(1) among them). FCFS, about half utilization; window 0
(before the first rearrangement) is left out.

What decides it: the area's position changes the seek to and from the cold
requests (shortest from the middle of the *data*, which on a zoned disk is
outward of the middle cylinder) and the transfer time of the hot requests
(shortest in the outer zone). The outer zone wins only when nearly every
request is hot and requests are large.
"""

from __future__ import annotations

from concurrent.futures import Executor
from typing import Any

import numpy as np

from .. import placement as pl
from ..disk.access import shared_mechanism
from ..engine import run, sweep
from ..workloads.synth import hot_set_open
from . import pool_unless_given
from .targets import Target, evaluate

NAME = "hot-data-home"
DESCRIPTION = ("Seed 000's open question: on a zoned disk, is the hot data's best home the "
               "middle of the disk or the fast outer zone? (ABR reserved area swept)")
DISKS = ("narayan2004", "modern7200")
RESERVED_FRACTION = 0.005
POSITIONS = [round(0.1 * k, 1) for k in range(11)]
QUICK_POSITIONS = [0.0, 0.2, 0.4, 0.5, 0.6, 0.8, 1.0]
HOT = [0.5, 0.9, 0.99, 1.0]
QUICK_HOT = [0.5, 1.0]
SIZES_KIB = [4, 64, 256]
QUICK_SIZES_KIB = [4, 256]
PAPER = {
    "source": "Gray 2000, Ch. 4 and 6 (note 000 §4.5, §4.10)",
    "question": "the optimal location for the hot data cache may have moved from the center "
                "to the outer tracks of the disk",
    "abr_reserved_area": "in the center of the disk",
}

#: none: the seed asks the question ("may have moved") and gives no number to reproduce
TARGETS: tuple[Target, ...] = ()

mechanism = shared_mechanism  # (its name in the chapters)


def middle_cylinder_fraction(disk: str) -> float:
    """Where the middle cylinder sits in the LBA space (0.5 on a disk without zones)."""
    lay = mechanism(disk).layout
    target = lay.cylinders // 2
    lo, hi = 0, lay.capacity - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if lay.cylinder_of(mid) < target:
            lo = mid + 1
        else:
            hi = mid
    return lo / lay.capacity


def case(disk: str, size_kib: int, hot: float, position: float, quick: bool = False,
         seed: int = 0) -> dict[str, Any]:
    """One run: mean response, seek and transfer of windows 1.. with the area at ``position``."""
    mech = mechanism(disk)
    cap = mech.layout.capacity
    sectors = size_kib * 2
    reserved = int(cap * RESERVED_FRACTION) // sectors * sectors
    n_windows, per_window = (3, 1500) if quick else (4, 2000)
    rate = {4: 45.0, 64: 35.0}.get(size_kib, 22.0)  # about half utilization
    interval_ms = per_window / rate * 1000.0
    hot_blocks = min(500, reserved // sectors // 2)
    wl = hot_set_open(cap - reserved, n_windows * per_window, rate, hot_fraction=hot,
                      hot_blocks=hot_blocks, size_kib=size_kib, seed=seed)
    policy = pl.AdaptiveBlockRearrangement(reserved, cap, unit_sectors=sectors,
                                           location=position, placement="organ-pipe")
    placed = pl.rewrite(wl, policy, cap, sectors, interval_ms, "count", home=policy.home)
    res = run(mech, placed.workload, "fcfs", service=pl.boundary_safe(mech))
    f = pl.fold(pl.record_columns(res.records), placed)
    keep = f["arrival_ms"] >= interval_ms
    return {"disk": disk, "size_kib": size_kib, "hot": hot, "position": position,
            "response_ms": float(f["response_ms"][keep].mean()),
            "seek_ms": float(f["seek_ms"][keep].mean()),
            "rotation_ms": float(f["rotation_ms"][keep].mean()),
            "transfer_ms": float(f["transfer_ms"][keep].mean()),
            "hit_fraction": placed.summary()["hit_fraction"]}


def reproduce(quick: bool = False, seed: int = 0, executor: Executor | None = None,
              disks: tuple[str, ...] | None = None) -> dict:
    """Response time against the reserved area's position, per disk, size and hot share.

    Quick mode: the seed-003 disk only, 4 and 256 KiB, hot shares 0.5 and 1, seven places.
    """
    positions = QUICK_POSITIONS if quick else POSITIONS
    hots = QUICK_HOT if quick else HOT
    sizes = QUICK_SIZES_KIB if quick else SIZES_KIB
    disks = disks or (DISKS[:1] if quick else DISKS)
    points = [dict(disk=d, size_kib=s, hot=h, position=p, quick=quick, seed=seed)
              for d in disks for s in sizes for h in hots for p in positions]
    with pool_unless_given(executor, len(points)) as ex:
        rows = sweep(case, points, executor=ex, progress=False)
    out: dict[str, Any] = {"positions": positions, "hot_fractions": hots,
                           "sizes_kib": sizes, "reserved_fraction": RESERVED_FRACTION,
                           "quick": quick, "seed": seed, "disks": {}}
    for d in disks:
        mid_cyl = middle_cylinder_fraction(d)
        lay = mechanism(d).layout
        per: dict[str, Any] = {"middle_cylinder_lba_fraction": round(mid_cyl, 3),
                               "outer_mb_s": round(lay.media_rate_mb_s(0), 1),
                               "inner_mb_s": round(lay.media_rate_mb_s(lay.zone_count - 1), 1),
                               "cases": {}}
        for s in sizes:
            for h in hots:
                rs = sorted((r for r in rows if r["disk"] == d and r["size_kib"] == s
                             and r["hot"] == h), key=lambda r: r["position"])
                resp = [round(r["response_ms"], 3) for r in rs]
                best = positions[int(np.argmin(resp))]
                centre = resp[positions.index(0.5)]
                outer = resp[0]
                per["cases"][f"{s}KiB/{h:g}"] = {
                    "size_kib": s, "hot": h, "response_ms": resp,
                    "seek_ms": [round(r["seek_ms"], 3) for r in rs],
                    "transfer_ms": [round(r["transfer_ms"], 3) for r in rs],
                    "hit_fraction": round(float(np.mean([r["hit_fraction"] for r in rs])), 3),
                    "best_position": best,
                    "centre_ms": centre, "outer_ms": outer,
                    "outer_vs_centre_pct": round(100.0 * (centre - outer) / centre, 2),
                    "winner": "outer" if outer < centre else "centre",
                }
        out["disks"][d] = per
    out["answer"] = answer(out)
    out["paper"] = PAPER
    out["targets"] = evaluate(TARGETS, out, quick)
    return out


def answer(result: dict) -> dict[str, Any]:
    """Which home wins, case by case, and the short verdict."""
    wins = {f"{d}/{k}": c["winner"] for d, per in result["disks"].items()
            for k, c in per["cases"].items()}
    outer = sorted(k for k, v in wins.items() if v == "outer")
    verdict = ("the middle of the data, except when nearly every request goes to the hot "
               "data and requests are large" if outer else "the middle of the data, always")
    if outer and len(outer) == len(wins):
        verdict = "the outer zone, always"
    return {"winner_by_case": wins, "outer_wins_in": outer, "verdict": verdict}
