"""The numbers of a recording, computed from its raw tool output and nothing else.

:func:`summarize` takes a record's ``job``, ``params`` and ``raw`` and returns
its ``summary``; a test recomputes every stored recording's summary this way,
so no number in ``data/measurements`` can drift from the output it came from.

Every summary has ``points``: one row per point of the sweep, holding the
job's own parameter values, the values the runner derived (offsets in bytes,
spacing...), the queue settings during the run, and the means over repeats
of the run's numbers (``read_mb_s``, ``read_iops``, ``read_lat_mean_ms``,
``read_clat_p50_ms``, ``read_clat_p99_ms``, ``usr_cpu_pct``, ``sys_cpu_pct``,
and ``write_*`` likewise; ``*_min`` and ``*_max`` of the main number when a
point was repeated). Jobs add what they need (``bins`` for seek-distance,
``sections`` for the server profiles).
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from .fio import job_metrics, total_metrics
from .units import MB

__all__ = ["MAIN_METRIC", "distance_bins", "summarize"]

MAIN_METRIC = {
    "zone-bandwidth": "read_mb_s",
    "seek-distance": "read_lat_mean_ms",
    "qd-sweep": "read_iops",
    "bs-sweep": "read_lat_mean_ms",
    "multistream": "read_mb_s",
    "seq-read": "read_mb_s",
    "seq-write": "write_mb_s",
    "cpu-engines": "cpu_us_per_mb",
    "server-web": "wall_s",
    "server-file": "wall_s",
    "server-mail": "wall_s",
    "server-metadata": "wall_s",
}
COMMON = {"repeat", "runtime", "ramp", "size", "scheduler", "read_ahead_kb", "nr_requests"}


def _run_numbers(job: str, run: dict) -> dict:
    report = run["fio"]
    if job.startswith("server-"):
        nums = total_metrics({"jobs": [j for j in report["jobs"]
                                       if not j["jobname"].endswith("-delete")]})
        nums["wall_s"] = run["wall_s"]
        nums["ops"] = _server_ops(run)
        nums["ops_per_s"] = nums["ops"] / run["wall_s"] if run["wall_s"] > 0 else None
        return nums
    nums = total_metrics(report)
    if job == "cpu-engines":
        mb = (nums.get("read_bytes", 0)) / MB
        cpu_s = (nums["usr_cpu_pct"] + nums["sys_cpu_pct"]) / 100.0 * nums["runtime_s"]
        nums["cpu_s"] = cpu_s
        nums["cpu_us_per_mb"] = cpu_s * 1e6 / mb if mb else None
    return nums


def _server_ops(run: dict) -> int:
    env = run.get("env", {})
    nj = int(env.get("NJ", 1))
    return nj * int(env.get("OPS", 0))


def _mean_rows(job: str, runs: list[dict]) -> dict:
    nums = [_run_numbers(job, r) for r in runs]
    keys = OrderedDict.fromkeys(k for n in nums for k in n)
    out = {}
    for k in keys:
        vals = [n[k] for n in nums if isinstance(n.get(k), int | float) and n.get(k) is not None]
        if vals:
            out[k] = float(np.mean(vals))
    main = MAIN_METRIC.get(job)
    if len(runs) > 1 and main in out:
        vals = [n[main] for n in nums if n.get(main) is not None]
        out[f"{main}_min"], out[f"{main}_max"] = float(min(vals)), float(max(vals))
        out[f"{main}_runs"] = [float(v) for v in vals]
    out["repeats"] = len(runs)
    return out


def summarize(job: str, params: dict, raw: dict) -> dict:
    """The summary of a record from its job, params and raw output."""
    if raw.get("tool") == "hdparm":
        from .hdparm import summarize_sweep

        return summarize_sweep(raw, raw.get("size_bytes"))
    runs = raw.get("runs", [])
    groups: OrderedDict[int, list[dict]] = OrderedDict()
    for r in runs:
        groups.setdefault(r["index"], []).append(r)
    points = [_point_row(job, rs) for rs in groups.values()]
    out: dict = {"points": points}
    if job == "zone-bandwidth" and points:
        out.update(_zone_spread(points))
    if job == "seek-distance":
        out["bins"] = _seek_bins(runs)
    if job.startswith("server-"):
        out["sections"] = _sections(runs)
    return out


_QUEUE = ("scheduler", "read_ahead_kb", "nr_requests")


def _point_row(job: str, rs: list[dict]) -> dict:
    """One point: its own parameters (queue settings only when set), derived values, the
    queue settings during the run, and the means over its repeats ``rs``."""
    first = rs[0]
    row: dict = {}
    for k, v in first["point"].items():
        if k in COMMON and k not in _QUEUE:
            continue
        if k in _QUEUE and v == "":
            continue
        row[k] = v
    row.update(first.get("derived", {}))
    q = first.get("queue") or {}
    for k in _QUEUE:
        if q.get(k) is not None:
            row[f"{k}_during"] = q[k]
    row.update(_mean_rows(job, rs))
    if job == "multistream" and row.get("read_mb_s") is not None:
        row["per_stream_mb_s"] = row["read_mb_s"] / int(row["streams"])
    return row


def _zone_spread(points: list[dict]) -> dict:
    """Outer and inner zone rates and their ratio and spread (nothing if a rate is missing)."""
    rates = [p.get("read_mb_s") for p in points]
    if not all(r is not None for r in rates):
        return {}
    return {"outer_mb_s": rates[0], "inner_mb_s": rates[-1],
            "inner_to_outer": rates[-1] / rates[0] if rates[0] else None,
            "spread_pct": 100.0 * (max(rates) - min(rates)) / max(rates) if max(rates) else 0}


def _seek_bins(runs: list[dict]) -> list[dict]:
    """Latency by seek distance over every run that logged its requests."""
    offsets, lats = [], []
    for r in runs:
        req = r.get("requests")
        if req:
            offsets.append(req["offset"])
            lats.append(req["lat_us"])
    return distance_bins(offsets, lats)


def _sections(runs: list[dict]) -> list[dict]:
    """Per fio section (reader, creator, deleter...) of the first run of each point."""
    rows = []
    for r in runs:
        env = r.get("env", {})
        for j in r["fio"]["jobs"]:
            m = job_metrics(j)
            row = {"index": r["index"], "repeat": r["repeat"], "section": j["jobname"]}
            if j["jobname"].endswith("-delete"):
                row["op"] = "delete"
                row["files"] = int(env.get("NJ", 1)) * int(env.get("DELETES", 0))
            else:
                row["op"] = "write" if m.get("write_ios") and not m.get("read_ios") else (
                    "read" if not m.get("write_ios") else "read+write")
                row.update({k: v for k, v in m.items() if k != "runtime_s"})
                row["runtime_s"] = m["runtime_s"]
            rows.append(row)
    return rows


def distance_bins(offset_lists: list[list[int]], lat_lists: list[list[int]],
                  per_octave: int = 2) -> list[dict]:
    """Latency binned by distance from the previous request (log-spaced bins).

    ``offset_lists`` and ``lat_lists`` (microseconds) hold one list per run, in
    issue order; the first request of a run has no predecessor and is left
    out. Distance 0 (the same block again) gets its own bin.
    """
    dist, lat = [], []
    for offs, lats in zip(offset_lists, lat_lists, strict=True):
        o = np.asarray(offs, dtype=np.int64)
        t = np.asarray(lats, dtype=np.float64)
        if len(o) < 2:
            continue
        dist.append(np.abs(np.diff(o)))
        lat.append(t[1:])
    if not dist:
        return []
    d = np.concatenate(dist)
    t = np.concatenate(lat) / 1000.0  # ms
    rows = []
    zero = d == 0
    if zero.any():
        rows.append(_bin_row(0, 0, d[zero], t[zero]))
    nz = ~zero
    if nz.any():
        lo = math.floor(math.log2(d[nz].min()) * per_octave)
        hi = math.floor(math.log2(d[nz].max()) * per_octave)
        keys = np.floor(np.log2(d[nz]) * per_octave).astype(int)
        for k in range(lo, hi + 1):
            sel = keys == k
            if sel.any():
                rows.append(_bin_row(2 ** (k / per_octave), 2 ** ((k + 1) / per_octave),
                                     d[nz][sel], t[nz][sel]))
    return rows


def _bin_row(lo: float, hi: float, d: np.ndarray, t: np.ndarray) -> dict:
    return {
        "distance_lo": int(lo),
        "distance_hi": math.ceil(hi),
        "distance_bytes": float(np.exp(np.mean(np.log(d)))) if lo > 0 else 0.0,
        "n": len(t),
        "mean_ms": float(t.mean()),
        "p50_ms": float(np.median(t)),
        "p90_ms": float(np.percentile(t, 90)),
    }
