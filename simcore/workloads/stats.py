"""Statistics of a trace: the numbers seed 003's Chapter 2 reports, and a few more.

All functions take an :class:`~simcore.workloads.OpenWorkload` (or any object
with ``requests``) and return numpy arrays or plain dicts.

- :func:`rw_mix`: reads, writes and their shares (seed 003 Tables 2.1-2.3).
- :func:`interarrival_ms`: gaps between successive arrivals, all or one
  direction (Figs 2.1-2.16); :func:`fraction_below` reads a CDF at a point.
- :func:`size_histogram`: request sizes in KiB (Figs 2.17-2.24).
- :func:`bursts`: burst lengths under the seed's rule, "a series of requests
  ... which lie within the time interval of 10ms of the previous request"
  (§2.6; singletons count as bursts of one, Figs 2.25-2.28).
- :func:`popularity`: references per unit, hottest first, and the share of
  references the hottest fraction of units receives.
- :func:`window_reuse`: per window (15 minutes by default), the fraction of
  units touched that are touched again within it (seed 003 §1.4: 30-40%), and
  the fraction touched in the window before (what a periodic reorganizer can
  predict).
- :func:`sequential_runs`: runs of requests each starting where the previous
  one ended.
- :func:`heat_map`: references binned by address and time, for pictures.
- :func:`summarize`: all of it as one JSON-ready dict.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..placement.refs import request_arrays, unit_references

MINUTE_MS = 60_000.0


def _arrays(workload):
    return request_arrays(list(workload.requests))


def rw_mix(workload) -> dict[str, float]:
    ra = _arrays(workload)
    n = len(ra.is_read)
    r = int(ra.is_read.sum())
    return {"requests": n, "reads": r, "writes": n - r,
            "read_pct": 100.0 * r / n if n else float("nan"),
            "write_pct": 100.0 * (n - r) / n if n else float("nan")}


def interarrival_ms(workload, op: str | None = None) -> np.ndarray:
    """Gaps (ms) between successive requests (of one direction, ``"R"`` or ``"W"``)."""
    ra = _arrays(workload)
    t = ra.arrival_ms
    if op is not None:
        t = t[ra.is_read] if op == "R" else t[~ra.is_read]
    return np.diff(t)


def fraction_below(values: np.ndarray, threshold: float) -> float:
    """Share of values strictly below ``threshold`` (a CDF read at one point)."""
    v = np.asarray(values)
    return float(np.mean(v < threshold)) if len(v) else float("nan")


def size_histogram(workload, op: str | None = None) -> dict[float, int]:
    """Request count per size in KiB (sizes as they occur)."""
    ra = _arrays(workload)
    s = ra.sectors
    if op is not None:
        s = s[ra.is_read] if op == "R" else s[~ra.is_read]
    sizes, counts = np.unique(s, return_counts=True)
    return {float(k) / 2.0: int(c) for k, c in zip(sizes, counts, strict=True)}


def bursts(workload, gap_ms: float = 10.0) -> np.ndarray:
    """Lengths of bursts: maximal series whose requests arrive within ``gap_ms`` of the one before."""
    t = _arrays(workload).arrival_ms
    if len(t) == 0:
        return np.zeros(0, np.int64)
    brk = np.flatnonzero(np.diff(t) > gap_ms) + 1
    edges = np.concatenate([[0], brk, [len(t)]])
    return np.diff(edges)


def burst_summary(workload, gap_ms: float = 10.0) -> dict[str, float]:
    b = bursts(workload, gap_ms)
    return {"bursts": len(b), "singleton_fraction": float(np.mean(b == 1)) if len(b) else 0.0,
            "max_burst": int(b.max()) if len(b) else 0,
            "mean_burst": float(b.mean()) if len(b) else 0.0,
            "p90_burst": float(np.percentile(b, 90)) if len(b) else 0.0}


def popularity(workload, unit_sectors: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Units and their reference counts, hottest first."""
    refs = unit_references(list(workload.requests), unit_sectors)
    units, counts = np.unique(refs.unit, return_counts=True)
    order = np.lexsort((units, -counts))
    return units[order], counts[order]


def top_share(counts: np.ndarray, fraction: float) -> float:
    """Share of references that go to the hottest ``fraction`` of the units (counts sorted)."""
    c = np.asarray(counts)
    if len(c) == 0:
        return float("nan")
    k = max(1, round(fraction * len(c)))
    return float(c[:k].sum() / c.sum())


def window_reuse(workload, window_ms: float = 15 * MINUTE_MS,
                 unit_sectors: int = 8) -> list[dict[str, float]]:
    """Per window: units touched, the share touched again within the window, and the share
    touched in the window before."""
    refs = unit_references(list(workload.requests), unit_sectors)
    if len(refs) == 0:
        return []
    w = (refs.time_ms // window_ms).astype(np.int64)
    out = []
    prev: np.ndarray | None = None
    for k in range(int(w.max()) + 1):
        u = refs.unit[w == k]
        units, counts = np.unique(u, return_counts=True)
        row = {"window": k, "references": len(u), "units": len(units),
               "reused_units": int(np.sum(counts >= 2)),
               "reuse_fraction": float(np.mean(counts >= 2)) if len(units) else 0.0,
               "seen_before_fraction": float(np.isin(units, prev).mean())
               if prev is not None and len(units) else float("nan"),
               "refs_to_seen_before": float(np.isin(u, prev).mean())
               if prev is not None and len(u) else float("nan")}
        out.append(row)
        prev = units
    return out


def sequential_runs(workload) -> np.ndarray:
    """Lengths of runs in arrival order where each request starts where the previous ended."""
    ra = _arrays(workload)
    if len(ra.lba) == 0:
        return np.zeros(0, np.int64)
    cont = ra.lba[1:] == ra.lba[:-1] + ra.sectors[:-1]
    brk = np.flatnonzero(~cont) + 1
    edges = np.concatenate([[0], brk, [len(ra.lba)]])
    return np.diff(edges)


def heat_map(workload, capacity: int, lba_bins: int = 100, time_bins: int = 60,
             unit_sectors: int = 8) -> dict[str, Any]:
    """References binned by address (rows) and time (columns): a popularity heat map."""
    refs = unit_references(list(workload.requests), unit_sectors)
    t_end = float(refs.time_ms.max()) if len(refs) else 1.0
    h, ye, xe = np.histogram2d(refs.unit * unit_sectors, refs.time_ms,
                               bins=[lba_bins, time_bins],
                               range=[[0, capacity], [0, max(t_end, 1e-9)]])
    return {"counts": h, "lba_edges": ye, "time_edges_ms": xe}


def summarize(workload, window_ms: float = 15 * MINUTE_MS, gap_ms: float = 10.0,
              unit_sectors: int = 8) -> dict[str, Any]:
    """Every statistic above as one JSON-ready dict."""
    ia = interarrival_ms(workload)
    sizes = size_histogram(workload)
    _, counts = popularity(workload, unit_sectors)
    reuse = window_reuse(workload, window_ms, unit_sectors)
    runs = sequential_runs(workload)
    full = [r for r in reuse if r["references"] > 0]
    out: dict[str, Any] = {"name": getattr(workload, "name", "")}
    out.update(rw_mix(workload))
    out["duration_s"] = float(workload.requests[-1].arrival_ms / 1000.0) if workload.requests else 0.0
    out["rate_per_s"] = out["requests"] / out["duration_s"] if out["duration_s"] else float("nan")
    out["interarrival_ms"] = {
        "mean": float(ia.mean()) if len(ia) else float("nan"),
        "median": float(np.median(ia)) if len(ia) else float("nan"),
        "p90": float(np.percentile(ia, 90)) if len(ia) else float("nan"),
        "below_3ms": fraction_below(ia, 3.0), "below_10ms": fraction_below(ia, 10.0),
    }
    out["size_kib"] = sizes
    out["mode_size_kib"] = max(sizes, key=sizes.get) if sizes else float("nan")
    out["bursts"] = burst_summary(workload, gap_ms)
    out["units"] = len(counts)
    out["top1pct_share"] = top_share(counts, 0.01)
    out["top10pct_share"] = top_share(counts, 0.10)
    out["reuse_fraction"] = float(np.mean([r["reuse_fraction"] for r in full])) if full else 0.0
    later = [r for r in full[1:] if r["units"]]
    out["seen_before_fraction"] = float(np.mean([r["refs_to_seen_before"] for r in later])) \
        if later else float("nan")
    out["sequential_fraction"] = float(1.0 - len(runs) / max(out["requests"], 1))
    out["max_sequential_run"] = int(runs.max()) if len(runs) else 0
    return out


__all__ = [
    "burst_summary",
    "bursts",
    "fraction_below",
    "heat_map",
    "interarrival_ms",
    "popularity",
    "rw_mix",
    "sequential_runs",
    "size_histogram",
    "summarize",
    "top_share",
    "window_reuse",
]
