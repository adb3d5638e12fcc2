"""Tail latency: percentiles of a random-read workload with and without firmware events.

The mean of a disk's response time hides what users notice: the slowest request in a
thousand, or in ten thousand. :func:`tail_run` runs random reads (one program reading back
to back, or Poisson arrivals) on a drive with
the firmware events of :mod:`simcore.drive.firmware_events` (error recovery with its ERC/TLER
limit, thermal recalibration, background media scans) and reports p50, p99, p99.9 and the
maximum, with how many requests each kind of event touched. :data:`SCENARIOS` names the
cases the book's chapter compares; their rates say whether they come from a datasheet or are
assumed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import numpy as np

from .drive.firmware_events import SEAGATE_RECOVERED_PER_BIT, FirmwareEvents
from .engine import run
from .metrics import percentiles
from .stack import Stack, as_mechanism
from .workloads import random_closed, random_open

__all__ = ["QUANTILES", "SCENARIOS", "tail_run"]

QUANTILES = (50, 99, 99.9)

#: the chapter's cases. "datasheet" uses the Cheetah manual's recovered-error limit; the
#: "weak sectors" rates are assumed (a drive with a patch of marginal media), chosen so that
#: about 1% of 4 KiB reads need retries and about 0.2% need deep recovery.
SCENARIOS: dict[str, FirmwareEvents] = {
    "no events": FirmwareEvents(),
    "datasheet error rate": FirmwareEvents(recovered_per_bit=SEAGATE_RECOVERED_PER_BIT),
    "weak sectors, ERC 7 s": FirmwareEvents(recovered_per_bit=3e-7, deep_per_bit=6e-8,
                                            erc_ms=7000.0),
    "weak sectors, no ERC": FirmwareEvents(recovered_per_bit=3e-7, deep_per_bit=6e-8,
                                           erc_ms=None),
    "media scan + recalibration": FirmwareEvents(scan_idle_ms=500.0,
                                                 recal_interval_ms=30 * 60_000.0),
}


def tail_run(disk: Any = "modern7200", events: FirmwareEvents | None = None,
             rate_per_s: float | None = None, n: int = 20_000, size_kib: float = 4.0,
             scheduler: Any = "fcfs", seed: int = 0) -> dict:
    """``n`` random reads on the bare mechanism (command overheads on, the buffer off) with
    ``events``; the events' generator gets ``seed`` too.

    ``rate_per_s=None``: one program reading back to back (each response is that request's
    own service); a rate: Poisson arrivals, so a long event also delays the requests queued
    behind it.

    Returns percentiles (``p50_ms``, ``p99_ms``, ``p99.9_ms``), ``max_ms``, ``mean_ms``, the
    sorted response times (for a CCDF), the count of requests touched by each kind of event
    and the fraction touched by any.
    """
    mech = as_mechanism(disk)
    if rate_per_s is None:
        wl = random_closed(mech.layout.capacity, 1, n, size_kib=size_kib, seed=seed)
    else:
        wl = random_open(mech.layout.capacity, n=n, rate_per_s=rate_per_s, size_kib=size_kib,
                         seed=seed)
    ev = replace(events, seed=seed) if events is not None else None
    res = run(Stack(mech, scheduler=scheduler, firmware=False, events=ev), wl)
    resp = np.sort(res.column("response_ms"))
    drive = res.meta["built"].drives[0]
    log = drive.events.log if drive.events is not None else []
    kinds = Counter(k for _, k, _ in log)
    touched = len({rid for rid, _, _ in log})
    out = {"n": len(resp), "mean_ms": float(resp.mean()), "max_ms": float(resp[-1]),
           "sorted_ms": resp, "events": dict(kinds), "touched_fraction": touched / len(resp),
           "erc_errors": drive.events.errors if drive.events is not None else 0}
    for q, v in percentiles(resp, QUANTILES).items():
        out[f"{q}_ms"] = v
    return out
