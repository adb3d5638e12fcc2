"""Seed 003: block reorganization on one disk, single hot zone against many (ALIZ, FREQZ).

Narayan 2004, Chapter 3 (note 003 §3-§6). One trace replays under each layout
through the remapping layer (:mod:`simcore.placement.remap`): every 15
minutes the layout for the next window is computed from the last window's
references, as the thesis rewrote its DiskSim traces. Window 0 runs on the
original layout for every technique and is left out of the means.

Workloads (:mod:`simcore.workloads_synth`): ``database_like`` (clustered 8 KiB
pages, 58% reads, bursts) and ``email_like`` (mailboxes read whole every
15-20 minutes, 97% reads, 64 KiB). Disk: ``narayan2004`` (the thesis's
80,418,240-sector, 7,200 RPM disk, §4.2). The drive schedules its queue by
shortest positioning time over a 32-deep tagged queue (``sptf-q32``): the thesis does not say which DiskSim
policy it used, and the choice matters. Under FCFS every switch between the
centre hot zone and a table's home costs a long seek in arrival order, so the
single-zone layouts push the disk to saturation (``scheduler="fcfs"`` shows
it); a reordering drive serves the queued hot-zone requests together.
Copy costs are counted, not simulated, as in the thesis (``migration=``).

Reproduction targets: :data:`TARGETS`, note 003 §6 (orderings and shapes; the
thesis's absolute numbers are shown beside ours but are not targets).

Quick mode shrinks time: 2-minute windows over 6 minutes (users check mail
every 2-2.7 minutes, and there are 7.5 times fewer of them, so the rates stay),
five spacings and two single-zone techniques.
"""

from __future__ import annotations

from concurrent.futures import Executor
from typing import Any

import numpy as np

from .. import placement as pl
from ..disk.access import Mechanism
from ..disk.profiles import load_disk
from ..engine import run, sweep
from ..workloads import stats as trace_stats
from ..workloads.synth import database_like, email_like
from . import pool_unless_given
from .targets import Source, Target, between, evaluate, holds

NAME = "placement"
DESCRIPTION = ("Seed 003: organ pipe, heat, packed extents, FREQNC, ALIS and multi-zone "
               "FREQZ/ALIZ on database- and email-like traces (single disk)")
DISK = "narayan2004"
SCHEDULER = "sptf-q32"
UNIT_SECTORS = 16
SPACINGS = [30_000, 50_000, 100_000, 300_000, 1_000_000, 10_000_000]
QUICK_SPACINGS = [30_000, 50_000, 100_000, 1_000_000, 10_000_000]
SINGLE = ["ORGANPIPE", "HEAT", "PACKED", "FREQNC", "ALIS", "SHUFFLE"]
QUICK_SINGLE = ["FREQNC", "ALIS"]
SEEK_EDGES = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]

PAPER = {
    "source": "Narayan 2004, Tables 3.2-3.5 (single 7,200 RPM disk, DiskSim, 15-minute "
              "reorganization); the 'email' trace of Table 3.1 is 99.8% writes (note 003 §4.3)",
    "database": {
        "original_ms": 56.525077,
        "improvement_pct": {"ALIS": 5.22, "FREQNC": 9.96,
                            "ALIZ": {"30000": 26.07, "50000": 35.48, "100000": 22.65,
                                     "1000000": -6.97, "10000000": 5.54},
                            "FREQZ": {"50000": 46.11, "100000": 31.72, "1000000": 12.65}},
    },
    "email": {
        "original_ms": 241.1821,
        "improvement_pct": {"ALIS": 27.93, "FREQNC": 0.23,
                            "ALIZ": {"50000": 36.82, "100000": 31.00, "500000": 25.60,
                                     "1000000": 0.56, "10000000": 6.99},
                            "FREQZ": {"50000": -0.28, "100000": 0.16, "500000": 0.34,
                                      "1000000": 0.22}},
    },
}


_NOTE = "003_block_reorg.md"
_SINGLE_LOSES = ("the single-zone layouts lose here where the thesis's gained: moving the hot "
                 "blocks to one centre zone makes the head shuttle between that zone and the "
                 "tables' homes, and the synthetic database-like trace (Chapter 2's PostgreSQL "
                 "statistics, not the Financial trace the thesis replayed, issue 19 item 5) "
                 "does not reproduce the locality that made FREQNC and ALIS gain")
_NEAR_50K = ("'a peak near 50k sectors' has no number; we accept 50k or 100k, the sweep points "
             "next to 50k that §6.3 does not rule out ('30k is worse than 50k')")


def _p(key, what, paper, bound, where, line, quote, note_bound="same", units="%", **kw):
    nb = bound if note_bound == "same" else note_bound
    return Target(key, what, paper, bound, Source("003", where, _NOTE, line, quote),
                  note_bound=nb, units=units, **kw)


TARGETS = (
    _p("derived.database_best_zoned_over_single_pp",
       "database: the best zoned layout over its single-zone counterpart", 46.11 - 9.96,
       between(25.0, None), "Tables 3.3, 3.5 (FREQZ(50k) over FREQNC)", 459,
       "beats its single-zone counterpart by ≥ 25 percentage points", units="pp"),
    _p("database.improvement_pct.FREQNC", "database: FREQNC improves on the original", 9.96,
       between(0.0, None, strict=True), "Table 3.5", 457, "FREQNC 9.96 >",
       known_deviation=_SINGLE_LOSES),
    _p("database.improvement_pct.ALIS", "database: ALIS improves on the original", 5.22,
       between(0.0, None, strict=True), "Table 3.3", 457, "ALIS 5.22 > 0",
       known_deviation=_SINGLE_LOSES),
    _p("derived.database_ALIZ_peak_inside",
       "database: ALIZ against spacing is non-monotonic (best at neither end)", True, holds(),
       "Table 3.3", 460, "ALIZ's improvement versus separation is non-monotonic", units=""),
    _p("derived.database_ALIZ_best_spacing", "database: ALIZ's best spacing (sectors)", 50_000,
       between(50_000, 100_000), "Table 3.3", 460, "with a peak near 50k sectors",
       note_bound=None, tolerance_reason=_NEAR_50K, units="sectors",
       known_deviation=("the simulated ALIZ curve is flat within a few points from 30k to 1m, "
                        "with no sweet spot at 50k: the zones gain little over the original "
                        "layout on this synthetic trace in the first place")),
    _p("derived.database_FREQZ_best_spacing", "database: FREQZ's best spacing (sectors)", 50_000,
       between(50_000, 100_000), "Table 3.5; note §6.3", 466,
       "Reproduce the U/V-shaped curve of improvement versus log(x) for both ALIZ and FREQZ",
       note_bound=None, tolerance_reason=_NEAR_50K, units="sectors"),
    _p("derived.database_ALIZ_50k_over_30k_pp", "database: ALIZ(50k) over ALIZ(30k)", 35.48 - 26.07,
       between(0.0, None, strict=True), "Table 3.3; note §6.3", 466, "30k is worse than 50k",
       units="pp", known_deviation=("see ALIZ's best spacing: the simulated curve has no "
                                    "sweet spot at 50k")),
    _p("database.improvement_pct.ALIZ.1000000", "database: ALIZ(1m) is worse than the original",
       -6.97, between(None, 0.0, strict=True), "Table 3.3", 461,
       "ALIZ at 1m separation is worse than the original layout",
       known_deviation=("the simulated ALIZ(1m) still gains a little; only the 10m spacing, "
                        "whose zones sit far from the tables, loses")),
    _p("derived.database_ALIZ_worst_spacing", "database: ALIZ's worst spacing (sectors)",
       1_000_000, holds(), "Table 3.3; note §6.3", 466, "1m is the worst", units="sectors",
       known_deviation="the simulated worst is the 10m spacing (see ALIZ(1m))"),
    _p("email.improvement_pct.ALIS", "email: ALIS improves by more than 20%", 27.93,
       between(20.0, None, strict=True), "Table 3.2", 465, "run-based clustering helps (> 20%)"),
    _p("derived.email_best_ALIZ_pct", "email: the best ALIZ improves by more than 20%", 36.82,
       between(20.0, None, strict=True), "Table 3.2", 465, "run-based clustering helps (> 20%)",
       known_deviation=("the simulated ALIZ gains less than ALIS and rises with spacing, where "
                        "the thesis's beats ALIS and peaks at 50k; cause not investigated")),
    _p("derived.email_frequency_max_abs_pct",
       "email: largest |change| of any frequency-based layout (FREQNC, FREQZ)", 0.34,
       between(None, 1.0, strict=True), "Table 3.4", 465,
       "frequency-based clustering does nothing (|Δ| < 1%)"),
    _p("figure.trace.database.reuse_fraction",
       "database trace: share of a window's blocks re-referenced in the window", "30 to 40%",
       between(0.30, 0.40), "§2.8 (note §6.8)", 480,
       "30–40% of blocks touched in a 15-min window are re-referenced", units="fraction",
       known_deviation=("the synthetic database-like trace re-references fewer of its blocks "
                        "than the thesis's traces did")),
)


def settings(quick: bool) -> dict[str, Any]:
    """Durations, interval and sweep of the full and the quick run."""
    if quick:
        return {"duration_s": 360.0, "interval_ms": 120_000.0, "spacings": QUICK_SPACINGS,
                "single": QUICK_SINGLE}
    return {"duration_s": 2250.0, "interval_ms": 15 * 60_000.0, "spacings": SPACINGS,
            "single": SINGLE}


_WORKLOADS: dict[tuple, Any] = {}
_MECH: dict[str, Mechanism] = {}


def mechanism(disk: str = DISK) -> Mechanism:
    if disk not in _MECH:
        _MECH[disk] = Mechanism(load_disk(disk))
    return _MECH[disk]


def workload(name: str, quick: bool = False, seed: int = 0, disk: str = DISK):
    """The database-like or email-like trace of this experiment (cached per process)."""
    key = (name, quick, seed, disk)
    if key not in _WORKLOADS:
        cap = mechanism(disk).layout.capacity
        s = settings(quick)
        scale = s["interval_ms"] / (15 * 60_000.0)
        if name == "database":
            wl = database_like(cap, duration_s=s["duration_s"], seed=seed,
                               drift_period_ms=s["interval_ms"])
        elif name == "email":
            # shorter windows: users check more often, so fewer users keep the rate
            wl = email_like(cap, duration_s=s["duration_s"], seed=seed,
                            users=max(50, round(2500 * scale)),
                            check_min=(15.0 * scale, 20.0 * scale))
        else:
            raise KeyError(f"unknown workload '{name}'; use 'database' or 'email'")
        _WORKLOADS[key] = wl
    return _WORKLOADS[key]


def make_policy(key: str, spacing: int | None = None, capacity: int | None = None,
                min_count: int = 2):
    """A policy by its table name: ORIGINAL, ORGANPIPE, HEAT, PACKED, FREQNC, FREQZ, ALIS,
    ALIZ, SHUFFLE or ABR (``spacing`` in sectors for FREQZ and ALIZ)."""
    cap = capacity or mechanism().layout.capacity
    if key == "ORIGINAL":
        return pl.original()
    if key == "ORGANPIPE":
        return pl.OrganPipe(min_count=min_count)
    if key == "HEAT":
        return pl.HeatLayout(min_count=min_count)
    if key == "PACKED":
        return pl.PackedExtents(min_count=min_count)
    if key in ("FREQNC", "FREQZ"):
        return pl.Sequential(spacing=spacing if key == "FREQZ" else None, min_count=min_count)
    if key in ("ALIS", "ALIZ"):
        return pl.ALIS(spacing=spacing if key == "ALIZ" else None)
    if key == "SHUFFLE":
        mech = mechanism()
        return pl.CylinderShuffling(band_sectors=cap // mech.layout.cylinders)
    if key == "ABR":
        return pl.AdaptiveBlockRearrangement(reserved_sectors=cap // 100, capacity_sectors=cap)
    raise KeyError(f"unknown technique '{key}'")


def measure(wl, policy, interval_ms: float, disk: str = DISK, scheduler: Any = SCHEDULER,
            migration: str = "count", home=None) -> dict[str, Any]:
    """Replay ``wl`` under ``policy`` and summarize windows 1.. (window 0 is the original)."""
    mech = mechanism(disk)
    cap = mech.layout.capacity
    if home is None and hasattr(policy, "home"):
        home = policy.home
    placed = pl.rewrite(wl, policy, cap, UNIT_SECTORS, interval_ms, migration, home=home)
    res = run(mech, placed.workload, scheduler, service=pl.boundary_safe(mech))
    cols = pl.record_columns(res.records)
    f = pl.fold(cols, placed)
    keep = f["arrival_ms"] >= interval_ms
    resp = f["response_ms"][keep]
    order = np.argsort(cols["start_ms"], kind="stable")  # service order
    lba, n = cols["lba"][order], cols["sectors"][order]
    c0 = pl.cylinders(mech.layout, lba)
    c1 = pl.cylinders(mech.layout, lba + n - 1)
    dist = np.abs(c0[1:] - c1[:-1])
    fg = (cols["client"][order][1:] != pl.MIGRATION_CLIENT) & (
        cols["arrival_ms"][order][1:] >= interval_ms)
    dist = dist[fg]
    hist, _ = np.histogram(dist, bins=[*SEEK_EDGES, 1 << 20])
    s = placed.summary()
    return {
        "mean_response_ms": float(resp.mean()),
        "p95_response_ms": float(np.percentile(resp, 95)),
        "mean_seek_ms": float(f["seek_ms"][keep].mean()),
        "mean_rotation_ms": float(f["rotation_ms"][keep].mean()),
        "mean_seek_cylinders": float(dist.mean()) if len(dist) else 0.0,
        "zero_seek_fraction": float(np.mean(dist == 0)) if len(dist) else 0.0,
        "seek_histogram": hist.tolist(),
        "hit_fraction": s["hit_fraction"],
        "relocated_units": s["mean_relocated_units"],
        "split_requests": s["split_requests"],
        "migration_ios": s["migration_ios"],
        "migrated_sectors": s["migrated_sectors"],
        "utilization": float(res.busy_ms / max(float(cols["finish_ms"].max()), 1.0))
        if len(res.records) else 0.0,
    }


def _point(workload_name: str, key: str, spacing: int | None, quick: bool, seed: int,
           scheduler: Any = SCHEDULER, migration: str = "count") -> dict[str, Any]:
    wl = workload(workload_name, quick, seed)
    s = settings(quick)
    out = measure(wl, make_policy(key, spacing), s["interval_ms"], scheduler=scheduler,
                  migration=migration)
    out.update(workload=workload_name, key=key, spacing=spacing)
    return out


def reproduce(quick: bool = False, seed: int = 0, executor: Executor | None = None,
              scheduler: Any = SCHEDULER, migration: str = "count") -> dict:
    """Mean response time and improvement over the original layout per technique."""
    s = settings(quick)
    points = []
    for name in ("database", "email"):
        points.append(dict(workload_name=name, key="ORIGINAL", spacing=None))
        points += [dict(workload_name=name, key=k, spacing=None) for k in s["single"]]
        for zk in ("FREQZ", "ALIZ"):
            points += [dict(workload_name=name, key=zk, spacing=x) for x in s["spacings"]]
    for p in points:
        p.update(quick=quick, seed=seed, scheduler=scheduler, migration=migration)
    with pool_unless_given(executor, len(points)) as ex:
        rows = sweep(_point, points, executor=ex, progress=False)
    out: dict[str, Any] = {"disk": DISK, "scheduler": str(scheduler), "quick": quick,
                           "seed": seed, "interval_min": s["interval_ms"] / 60_000.0,
                           "duration_s": s["duration_s"], "spacings": s["spacings"],
                           "unit_sectors": UNIT_SECTORS, "migration": migration,
                           "seek_edges_cylinders": SEEK_EDGES}
    for name in ("database", "email"):
        mine = [r for r in rows if r["workload"] == name]
        base = next(r for r in mine if r["key"] == "ORIGINAL")
        b = base["mean_response_ms"]

        def pct(r, b=b):
            return round(100.0 * (b - r["mean_response_ms"]) / b, 2)

        imp: dict[str, Any] = {}
        ms: dict[str, Any] = {"ORIGINAL": round(b, 3)}
        detail: dict[str, Any] = {"ORIGINAL": base}
        for r in mine:
            if r["key"] == "ORIGINAL":
                continue
            if r["spacing"] is None:
                imp[r["key"]] = pct(r)
                ms[r["key"]] = round(r["mean_response_ms"], 3)
                detail[r["key"]] = r
            else:
                imp.setdefault(r["key"], {})[str(r["spacing"])] = pct(r)
                ms.setdefault(r["key"], {})[str(r["spacing"])] = round(r["mean_response_ms"], 3)
                detail[f"{r['key']}({r['spacing']})"] = r
        wl = workload(name, quick, seed)
        stats = trace_stats.summarize(wl, window_ms=s["interval_ms"])
        stats.pop("size_kib", None)
        out[name] = {"original_ms": round(b, 3), "mean_response_ms": ms,
                     "improvement_pct": imp}
        figure = out.setdefault("figure", {"detail": {}, "trace": {}})
        figure["detail"][name] = detail
        figure["trace"][name] = stats
    out["derived"] = derived(out)
    out["paper"] = PAPER
    out["targets"] = evaluate(TARGETS, out, quick)
    return out


def _best(curve: dict[str, float]) -> tuple[str, float]:
    k = max(curve, key=curve.get)
    return k, curve[k]


def derived(result: dict) -> dict[str, Any]:
    """The numbers the targets compare: best spacings, differences in points, extremes."""
    db, em = result["database"]["improvement_pct"], result["email"]["improvement_pct"]
    t: dict[str, Any] = {}
    best_gap = None
    for zoned, single in (("FREQZ", "FREQNC"), ("ALIZ", "ALIS")):
        x, v = _best(db[zoned])
        keys = list(db[zoned])
        t[f"database_{zoned}_over_{single}_pp"] = round(v - db[single], 2)
        t[f"database_{zoned}_best_spacing"] = int(x)
        t[f"database_{zoned}_peak_inside"] = x not in (keys[0], keys[-1])
        if best_gap is None or v > best_gap[0]:
            best_gap = (v, round(v - db[single], 2))
    # note 003 §6 (a): the best zoned variant, against its own single-zone counterpart
    t["database_best_zoned_over_single_pp"] = best_gap[1]
    t["database_ALIZ_worst_spacing"] = int(min(db["ALIZ"], key=db["ALIZ"].get))
    t["database_ALIZ_50k_over_30k_pp"] = round(db["ALIZ"]["50000"] - db["ALIZ"]["30000"], 2)
    freq = [em["FREQNC"], *em["FREQZ"].values()]
    t["email_frequency_max_abs_pct"] = round(max(abs(v) for v in freq), 2)
    t["email_ALIS_pct"] = em["ALIS"]
    t["email_best_ALIZ_pct"] = _best(em["ALIZ"])[1]
    return t


# -- RAID-5 (seed 003 §3.6.2, note 003 §5.3 and §6.4) ---------------------------------------------
RAID_STRIPES = (16, 64, 512)
RAID_SPACINGS = (50_000, 300_000, 10_000_000)
RAID_PER_DISK = (50_000, 300_000)


def run_array(wl, drives: int = 9, level: int = 5, stripe_sectors: int = 64, disk: str = DISK,
              scheduler: Any = SCHEDULER):
    """Replay ``wl`` on an array of identical drives; returns (records, capacity)."""
    from ..engine import run
    from ..stack import stack

    # the members run without their buffers, as this experiment's single-drive runs do
    res = run(stack(mechanism(disk), scheduler=scheduler, firmware=False,
                    service=pl.boundary_safe,
                    array=dict(drives=drives, level=level, stripe_kib=stripe_sectors / 2)),
              wl)
    return res.records, res.meta["built"].device.capacity


def array_capacity(drives: int = 9, level: int = 5, stripe_sectors: int = 64,
                   disk: str = DISK) -> int:
    return run_array(type(workload("database", True))([], "empty"), drives, level,
                     stripe_sectors, disk)[1]


def raid(quick: bool = True, seed: int = 0, drives: int = 9, stripes=RAID_STRIPES,
         spacings=RAID_SPACINGS, per_disk_spacings=RAID_PER_DISK) -> dict[str, Any]:
    """The database-like trace on a 9-disk RAID-5, zones placed in the array's address space.

    As in seed 003 §3.6.2 the array is "treated as a monolithic single disk": the
    trace keeps its addresses (the first 80 million of the array's), zones are
    every ``x`` sectors of the array's logical space (so about ``x / 8`` on each
    member), and the single-zone layouts use the array's centre. Targets (note
    003 §6.4): the zone benefit shrinks against one disk, and larger spacings do
    relatively better on the array.

    ``per_disk_spacings`` adds the thesis's untried advice, zones on each disk
    (:func:`simcore.placement.rewrite_per_disk`): ``ALIZ per disk(x)`` has a zone
    every ``x / (drives - 1)`` sectors of each member's data, as many zones as
    array-level ``x``, and keeps every block on its own disk.
    """
    s = settings(quick)
    wl = workload("database", quick, seed)
    iv = s["interval_ms"]
    keys = [("ORIGINAL", None), ("ALIS", None)] + [("ALIZ", x) for x in spacings]
    single = {f"{k}" if x is None else f"{k}({x})": measure(wl, make_policy(k, x), iv)
              for k, x in keys}
    out: dict[str, Any] = {"drives": drives, "level": 5, "stripes_sectors": list(stripes),
                           "spacings": list(spacings), "quick": quick, "seed": seed,
                           "single_disk": {}, "raid": {}}
    base1 = single["ORIGINAL"]["mean_response_ms"]
    out["single_disk"] = {k: round(100 * (base1 - v["mean_response_ms"]) / base1, 2)
                          for k, v in single.items() if k != "ORIGINAL"}
    for stripe in stripes:
        cap = array_capacity(drives, 5, stripe)
        resp = {}
        dm = pl.DiskMajor(drives, stripe, cap // (stripe * (drives - 1)), 5)
        runs = [(k if x is None else f"{k}({x})", pl.original() if k == "ORIGINAL" else (
                    pl.ALIS() if x is None else pl.ALIS(spacing=x)), False) for k, x in keys]
        runs += [(f"ALIZ per disk({x})", pl.ALIS(spacing=x // (drives - 1)), True)
                 for x in per_disk_spacings]
        for name, policy, per_disk in runs:
            placed = (pl.rewrite_per_disk(wl, policy, dm, UNIT_SECTORS, iv) if per_disk
                      else pl.rewrite(wl, policy, cap, UNIT_SECTORS, iv))
            recs, _ = run_array(placed.workload, drives, 5, stripe)
            f = pl.fold(pl.record_columns(recs), placed)
            keep = f["arrival_ms"] >= iv
            resp[name] = float(f["response_ms"][keep].mean())
        base = resp["ORIGINAL"]
        out["raid"][str(stripe)] = {
            "original_ms": round(base, 3),
            "improvement_pct": {k: round(100 * (base - v) / base, 2) for k, v in resp.items()
                                if k != "ORIGINAL"}}
    best1 = max(v for k, v in out["single_disk"].items() if k.startswith("ALIZ"))
    best_raid = {st: max(v for k, v in r["improvement_pct"].items()
                         if k.startswith("ALIZ(")) for st, r in out["raid"].items()}
    best_per_disk = {st: max((v for k, v in r["improvement_pct"].items()
                              if k.startswith("ALIZ per disk")), default=None)
                     for st, r in out["raid"].items()}
    out["derived"] = {
        "best_ALIZ_single_disk_pct": best1,
        "best_ALIZ_raid_pct": best_raid,
        "zone_benefit_shrinks_on_raid": all(v < best1 for v in best_raid.values()),
        "best_ALIZ_per_disk_pct": best_per_disk,
    }
    return out
