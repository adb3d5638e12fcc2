"""Statistics of served requests: percentiles, throughput, CDFs and the demerit figure.

The demerit figure (Ruemmler & Wilkes 1994, used by DiskSim to validate drive
models) is the root-mean-square horizontal distance between two cumulative
distributions of response time.
"""

from __future__ import annotations

import numpy as np


def percentiles(values: np.ndarray, qs=(50, 90, 95, 99)) -> dict[str, float]:
    if len(values) == 0:
        return {f"p{q}": float("nan") for q in qs}
    return {f"p{q}": float(v) for q, v in zip(qs, np.percentile(values, qs), strict=True)}


def cdf(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted values and their cumulative fractions, ready to plot as steps."""
    x = np.sort(np.asarray(values, dtype=float))
    return x, np.arange(1, len(x) + 1) / len(x)


def demerit(measured: np.ndarray, simulated: np.ndarray, step: float = 1e-4) -> float:
    """RMS horizontal distance (same units as the inputs) between two CDFs.

    As DiskSim computes it: the quantile p steps from ``step`` to 1 in steps of
    ``step`` (0.0001), the time at which each distribution reaches p is
    interpolated, and the root mean square of the differences is returned. The
    two samples need not have the same size.
    """
    m = np.asarray(measured, dtype=float)
    s = np.asarray(simulated, dtype=float)
    if len(m) == 0 or len(s) == 0:
        raise ValueError("demerit needs two non-empty samples")
    if not 0 < step <= 1:
        raise ValueError(f"step must be in (0, 1], not {step}")
    n = round(1.0 / step)
    q = np.arange(1, n + 1) / n
    dm = np.quantile(m, q)
    ds = np.quantile(s, q)
    return float(np.sqrt(np.mean((dm - ds) ** 2)))


#: DiskSim's statdefs for its access-time distributions: "Distribution size: 1750",
#: "Start 0  step 1  grow 1" (microseconds, with "Scale/Equals: 1000/0")
DISKSIM_BUCKETS, DISKSIM_BUCKET_STEP_US, DISKSIM_BUCKET_GROW_PCT = 1750, 1, 1


def disksim_bucket_starts(buckets: int = DISKSIM_BUCKETS, start: int = 0,
                          step: int = DISKSIM_BUCKET_STEP_US,
                          grow_pct: int = DISKSIM_BUCKET_GROW_PCT) -> np.ndarray:
    """Where each bucket of a DiskSim "large" distribution starts, in the statistic's integer units.

    DiskSim's statdefs give the access-time distributions as ``Distribution size: 1750``,
    ``Scale/Equals: 1000/0`` (so the unit is a microsecond) and ``Start 0 step 1 grow 1``:
    each bucket is ``step`` plus ``grow_pct`` percent (rounded down) wider than the one
    before, about 1 % of the time from a few milliseconds on (``stat_get_large_dist`` in
    DiskSim 4.0's disksim_stat.c).
    """
    if buckets < 2 or step < 1 or grow_pct < 0:
        raise ValueError("a distribution needs at least 2 buckets, step >= 1 and grow >= 0")
    out = np.empty(buckets, dtype=np.int64)
    at = start
    for i in range(buckets):
        out[i] = at
        at += step + (abs(at) * grow_pct) // 100
    return out


_STARTS_US = disksim_bucket_starts()


def disksim_printed_cdf(values_ms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cumulative distribution DiskSim prints for service times, as its rms tool reads it.

    A time is truncated to whole microseconds and counted in the bucket whose start it has
    reached; each printed row pairs a bucket's start (ms) with the fraction of times below it,
    printed to six places, and the tool stops reading at the first row that prints 1
    (``stat_update``/``stat_print_large_dist`` in disksim_stat.c, ``get_line`` in rms.c).
    """
    v = np.asarray(values_ms, dtype=float)
    if len(v) == 0:
        raise ValueError("a distribution needs at least one value")
    if (v < 0).any():
        raise ValueError("service times cannot be negative")
    us = np.floor(v * 1000.0).astype(np.int64)
    below = np.searchsorted(np.sort(us), _STARTS_US, side="left")
    frac = below / len(v)
    frac[-1] = 1.0  # the last bucket holds every longer time
    printed = np.round(frac, 6)
    last = int(np.argmax(printed >= 1.0))
    return _STARTS_US[: last + 1] / 1000.0, printed[: last + 1]


def demerit_bucketed(measured: np.ndarray, simulated: np.ndarray) -> float:
    """The demerit as DiskSim's own rms tool gives it: from both printed distributions.

    DiskSim's published demerits are not computed from per-request times but from the two
    distributions its runs print (:func:`disksim_printed_cdf`, buckets about 1 % wide): the
    quantile p steps by 0.0001 (accumulated, as the tool's loop adds it) while p <= 1, each
    curve's time at p is interpolated linearly between the rows around it, and the root mean
    square of the differences is returned (``compute_rms`` in DiskSim 4.0's rms.c). Use it to
    hold a replay against DiskSim's own figure scored the same way; :func:`demerit` is the
    exact figure over the per-request times.
    """
    x1, y1 = disksim_printed_cdf(measured)
    x2, y2 = disksim_printed_cdf(simulated)
    ps = []
    p = 0.0001
    while p <= 1.0:
        ps.append(p)
        p += 0.0001
    q = np.array(ps)

    def at(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        i = np.searchsorted(y, q, side="left")  # the first row that reaches p
        i = np.maximum(i, 1)
        frac = (q - y[i - 1]) / (y[i] - y[i - 1])
        return x[i - 1] + frac * (x[i] - x[i - 1])

    d = at(x1, y1) - at(x2, y2)
    return float(np.sqrt(np.mean(d * d)))


def compare_service_times(measured: np.ndarray, simulated: np.ndarray) -> dict:
    """A replay held against its measured trace: both demerits, both means and spreads.

    ``demerit_ms`` from the per-request times (:func:`demerit`), ``demerit_bucketed_ms`` as
    DiskSim's rms tool scores its runs (:func:`demerit_bucketed`); ``{"requests": 0}`` for
    empty samples (a trace with no writes has no write figures).
    """
    m = np.asarray(measured, dtype=float)
    s = np.asarray(simulated, dtype=float)
    if len(m) == 0:
        return {"requests": 0}
    return {"requests": len(m), "demerit_ms": demerit(m, s),
            "demerit_bucketed_ms": demerit_bucketed(m, s),
            "measured_mean_ms": float(m.mean()), "simulated_mean_ms": float(s.mean()),
            "measured_sd_ms": float(m.std()), "simulated_sd_ms": float(s.std())}


def summarize(response_ms: np.ndarray, sectors: np.ndarray, start_ms: float, end_ms: float,
              busy_ms: float) -> dict[str, float]:
    """Mean and percentiles of response time, throughput and utilization."""
    n = len(response_ms)
    span = max(end_ms - start_ms, 1e-12)
    out = {
        "requests": n,
        "mean_response_ms": float(np.mean(response_ms)) if n else float("nan"),
        "max_response_ms": float(np.max(response_ms)) if n else float("nan"),
        "std_response_ms": float(np.std(response_ms)) if n else float("nan"),
    }
    out.update({f"{k}_response_ms": v for k, v in percentiles(response_ms).items()})
    out["throughput_iops"] = n / span * 1000.0
    out["throughput_mb_s"] = float(np.sum(sectors)) * 512 / (span * 1000.0)
    out["utilization"] = busy_ms / span
    out["makespan_ms"] = span
    return out
