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
