"""Synthetic traces with controllable skew, hot regions, bursts and sequential runs.

Seed 003 could not publish its traces, and neither can we; these generators
make open-arrival workloads with the properties its Chapter 2 reports and its
Chapter 3 results depend on. Each generator lists, in ``MATCHES``, which
reported statistics it is built to match and which it does not try to; the
tests measure them with :mod:`simcore.trace_stats`.

Building blocks:

- :func:`bursty_arrivals`: bursts start as a Poisson stream; a burst holds a
  geometric number of requests a short gap apart (the seed's 10 ms rule then
  finds bursts, note 003 §2.6).
- :class:`ZipfPages`: Zipf(alpha) popularity over the pages of a region, the
  ranks scattered over the region, with a fraction of the ranking replaced
  every drift period (note 000 §4.11: "Zipf(alpha) with slow drift").
- :func:`zipf_open`: one general generator with all knobs (skew, several hot
  regions, bursts, sequential runs, read fraction).
- :func:`database_like` and :func:`email_like`: the two recipes the placement
  experiment uses.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ..records import READ, WRITE, Request
from . import OpenWorkload, as_rng

MINUTE_MS = 60_000.0

MATCHES = {
    "database_like": {
        "matches": [
            "read/write mix about 57/43 (seed 003 Table 2.3: 57.68% reads on EXT2)",
            "almost all requests 8 KiB (seed 003 §2.5: 'Almost all its requests were 8Kbytes')",
            "many small bursts under the 10 ms rule, inter-arrival median of a few ms "
            "(seed 003 §2.4/2.6: '50% of the interarrivals are less than 3ms' for JFS/ReiserFS)",
            "accesses clustered in regions, concentrating on one region before moving on "
            "(seed 003 §3.6)",
        ],
        "does_not_match": [
            "the absolute rate (1,067 req/s in Table 3.1 would saturate one modelled disk; "
            "130 req/s keeps it heavily queued instead, about 60% busy under SPTF)",
            "the trace length (5000 s); an hour by default, shorter in quick runs",
            "reuse: about 22% of the 4 KiB blocks touched in a 15-minute window are touched "
            "again within it, where seed 003 §1.4 reports 30-40% (of 512-byte blocks); the hot "
            "pages do come back window after window (about 75% of references)",
            "the buffer pool in front of the disk is an assumption (1,024 pages, LRU, reads "
            "only): the seed's traces are disk-level, so its database's cache was there too",
        ],
    },
    "financial_like": {
        "matches": [
            "the request count of seed 003 Table 3.1 (5,334,987) spread over the published "
            "length of the UMass Financial1 file (about 12 hours [X]): 123.5 req/s",
            "the read/write split: 23.16% reads by default (the published Financial1 split "
            "[X], Table 3.1's two numbers with the labels swapped), 76.84% with "
            "read_share='thesis' (Table 3.1 as printed)",
            "small OLTP requests in 512-byte multiples [X]; 24 application storage units [X]",
            "accesses concentrating on one region before moving on (seed 003 §3.6)",
        ],
        "does_not_match": [
            "the real trace's addresses, size mix and burst structure: the file is not "
            "available offline here; sizes, ASU mapping, skew, dwell and drift are assumptions "
            "(financial_like's docstring lists them)",
            "Table 3.1's 5,000-second length at 1,067 req/s, which one disk cannot serve",
        ],
    },
    "email_like": {
        "matches": [
            "more than 96% reads (seed 003 Table 2.1: 96.16-97.83%)",
            "reads mostly 64 KiB, writes small (seed 003 §2.5: peak at 64 KB; writes < 8 KB)",
            "bursts of at most 3 requests under the 10 ms rule (seed 003 §2.6): a check is read "
            "in bursts of <= 3, and the median burst is 3 or fewer",
            "little reuse within a 15-minute window: a mailbox is read about once per "
            "check, checks are minutes apart (seed 003 §3.6: 'very little temporal locality')",
            "small locality regions: a mailbox's pieces lie close to its owner's directory "
            "(seed 003 §3.6: 'locality regions are much smaller')",
            "the rate of Chapter 2's email trace: about 13.3 requests a second by default, "
            "inside the 11.8-15.3 a second that Table 2.1's request counts (7,165,035 to "
            "9,224,806) give over the 'week's worth' of the trace replayed at its own timing "
            "(seed 003 §2.3); the number of users is set for it (assumed: the seed gives none)",
        ],
        "does_not_match": [
            "the Table 3.1 'email' trace, which is 99.8% writes (note 003 §4.3 flags it as "
            "probably the NetBench trace); we follow the read-dominated Chapter 2 email by "
            "default, and read_share='table_3_1' relabels the same trace at Table 3.1's split",
            "the inter-arrival spikes at 0.6 s and 1 s of EXT2/JFS (Figs 2.1-2.4), and the 10 ms "
            "spacing of split NFS reads (Fig. 2.3): the pieces of a check arrive 2 ms apart here",
            "'No more than 3 requests occurred in any burst' (seed 003 §2.6): about 6% of "
            "bursts are longer here, two users' checks that meet within 10 ms",
            "the rate of the Table 3.1 'email' trace, 3.7 requests a second (46,039 in "
            "12,350 s): that is the 99.8%-write trace; read_share='table_3_1' changes the mix, "
            "not the rate",
            "the week's daily rhythm: the rate is the week's mean, held for the whole trace",
        ],
    },
}


# -- building blocks -------------------------------------------------------------------------
def bursty_arrivals(n: int, rate_per_s: float, rng: np.random.Generator, burst_mean: float = 1.0,
                    gap_ms: float = 1.0, start_ms: float = 0.0) -> np.ndarray:
    """``n`` arrival times (ms): Poisson burst starts, geometric burst sizes of mean
    ``burst_mean``, exponential gaps of mean ``gap_ms`` inside a burst; mean rate ``rate_per_s``."""
    if n == 0:
        return np.zeros(0)
    if burst_mean < 1:
        raise ValueError(f"burst_mean must be at least 1 (got {burst_mean})")
    sizes = rng.geometric(1.0 / burst_mean, size=n)  # more than enough bursts
    cum = np.cumsum(sizes)
    k = int(np.searchsorted(cum, n)) + 1
    sizes = sizes[:k]
    sizes[-1] -= cum[k - 1] - n
    burst_rate = rate_per_s / burst_mean
    starts = start_ms + np.cumsum(rng.exponential(1000.0 / burst_rate, size=k))
    first = np.repeat(starts, sizes)
    within = rng.exponential(gap_ms, size=n)
    pos = np.arange(n) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    within[pos == 0] = 0.0
    # offsets accumulate inside each burst
    acc = np.cumsum(within)
    base = np.repeat(acc[np.cumsum(sizes) - sizes], sizes)
    t = first + (acc - base)
    return np.maximum.accumulate(np.sort(t))


class ZipfPages:
    """Zipf(alpha) popularity over ``pages`` pages, ranks scattered, with drift.

    ``sample(k)`` returns page indices; ``drift(fraction)`` re-deals the pages of
    a random ``fraction`` of the ranks among themselves.
    """

    def __init__(self, pages: int, alpha: float, rng: np.random.Generator):
        if pages < 1:
            raise ValueError("a region needs at least one page")
        w = 1.0 / np.arange(1, pages + 1) ** alpha
        self.cdf = np.cumsum(w) / w.sum()
        self.page_of_rank = rng.permutation(pages)
        self.rng = rng

    def sample(self, k: int) -> np.ndarray:
        ranks = np.searchsorted(self.cdf, self.rng.random(k), side="right")
        return self.page_of_rank[np.minimum(ranks, len(self.cdf) - 1)]

    def drift(self, fraction: float) -> None:
        m = round(fraction * len(self.page_of_rank))
        if m < 2:
            return
        idx = self.rng.choice(len(self.page_of_rank), size=m, replace=False)
        self.page_of_rank[idx] = self.page_of_rank[self.rng.permutation(idx)]


def place_regions(capacity: int, count: int, size: int, rng: np.random.Generator,
                  low: int = 0) -> np.ndarray:
    """Start sectors of ``count`` non-overlapping regions of ``size`` sectors, sorted."""
    span = capacity - low - count * size
    if span < 0:
        raise ValueError(f"{count} regions of {size} sectors do not fit on {capacity} sectors")
    gaps = np.sort(rng.integers(0, span + 1, size=count))
    return low + gaps + np.arange(count) * size


def _read_share(value, named: dict) -> float | None:
    """A generator's ``read_share``: one of the ``named`` shares (label -> share, each a
    published mix), or a fraction in [0, 1]; the error lists the labels."""
    for label, share in named.items():
        if value is label or value == label:
            return share
    if isinstance(value, int | float) and 0.0 <= float(value) <= 1.0:
        return float(value)
    labels = ", ".join(repr(k) for k in named)
    raise ValueError(f"read_share must be {labels} or a fraction in [0, 1] (got {value!r})")


def _requests(t, reads, lba, sectors) -> list[Request]:
    return [Request(i, float(a), READ if r else WRITE, int(b), int(s))
            for i, (a, r, b, s) in enumerate(zip(t, reads, lba, sectors, strict=True))]


# -- the general generator ---------------------------------------------------------------------
def zipf_open(capacity: int, n: int, rate_per_s: float, alpha: float = 1.0, regions: int = 1,
              region_sectors: int | None = None, size_kib: float = 4.0,
              read_fraction: float = 0.7, burst_mean: float = 1.0, burst_gap_ms: float = 1.0,
              sequential_fraction: float = 0.0, region_alpha: float = 0.0,
              drift_fraction: float = 0.0, drift_period_ms: float = 15 * MINUTE_MS,
              seed: int | np.random.Generator | None = 0) -> OpenWorkload:
    """Skewed random I/O: Zipf(``alpha``) pages in ``regions`` hot regions.

    ``region_alpha`` skews the choice between regions; ``sequential_fraction``
    of requests continue right after the previous request instead; arrivals
    come in bursts of mean ``burst_mean``. ``alpha=0`` is uniform.
    """
    rng = as_rng(seed)
    sectors = max(1, round(size_kib * 2))
    size = region_sectors or capacity // max(regions, 1)
    starts = place_regions(capacity, regions, size, rng) if regions > 1 else np.array(
        [0 if region_sectors is None else int(rng.integers(0, capacity - size + 1))])
    starts = starts // sectors * sectors
    pages = size // sectors
    pop = [ZipfPages(pages, alpha, rng) for _ in range(regions)]
    rw = 1.0 / np.arange(1, regions + 1) ** region_alpha
    rcdf = np.cumsum(rw) / rw.sum()
    t = bursty_arrivals(n, rate_per_s, rng, burst_mean, burst_gap_ms)
    region = np.minimum(np.searchsorted(rcdf, rng.random(n), side="right"), regions - 1)
    lba = np.empty(n, np.int64)
    period = np.floor(t / drift_period_ms).astype(np.int64)
    for p in np.unique(period):
        if p > 0 and drift_fraction > 0:
            for z in pop:
                z.drift(drift_fraction)
        sel = np.flatnonzero(period == p)
        for r in range(regions):
            s = sel[region[sel] == r]
            lba[s] = starts[r] + pop[r].sample(len(s)) * sectors
    seq = rng.random(n) < sequential_fraction
    for i in np.flatnonzero(seq).tolist():
        if i > 0 and lba[i - 1] + 2 * sectors <= capacity:
            lba[i] = lba[i - 1] + sectors
    reads = rng.random(n) < read_fraction
    return OpenWorkload(_requests(t, reads, lba, np.full(n, sectors)),
                        name=f"zipf({alpha:g}) x{regions} regions")


def hot_set_open(capacity: int, n: int, rate_per_s: float, hot_fraction: float = 0.9,
                 hot_blocks: int = 2000, size_kib: float = 4.0, alpha: float = 1.0,
                 read_fraction: float = 1.0,
                 seed: int | np.random.Generator | None = 0) -> OpenWorkload:
    """Independent references: with probability ``hot_fraction`` one of ``hot_blocks``
    blocks (Zipf(``alpha``) among them, scattered over the disk), else a uniform block.

    This is the reference model under which organ pipe is optimal (seed 000 §4.1:
    "an independent random process with a known fixed distribution"); blocks are
    ``size_kib`` and aligned to their size. Poisson arrivals.
    """
    rng = as_rng(seed)
    sectors = max(1, round(size_kib * 2))
    slots = capacity // sectors
    hot = rng.choice(slots, size=hot_blocks, replace=False)
    w = 1.0 / np.arange(1, hot_blocks + 1) ** alpha
    cdf = np.cumsum(w) / w.sum()
    t = np.cumsum(rng.exponential(1000.0 / rate_per_s, size=n))
    is_hot = rng.random(n) < hot_fraction
    rank = np.minimum(np.searchsorted(cdf, rng.random(n), side="right"), hot_blocks - 1)
    block = np.where(is_hot, hot[rank], rng.integers(0, slots, size=n))
    reads = rng.random(n) < read_fraction
    return OpenWorkload(_requests(t, reads, block * sectors, np.full(n, sectors)),
                        name=f"hot set {hot_fraction:.0%} of {size_kib:g} KiB")


# -- the database-like recipe -----------------------------------------------------------------
def database_like(capacity: int, duration_s: float = 3600.0, rate_per_s: float = 130.0,
                  seed: int | np.random.Generator | None = 0, regions: int = 32,
                  region_sectors: int = 100_000, alpha: float = 1.6, region_alpha: float = 0.5,
                  phase_requests: float = 120.0, cold_fraction: float = 0.04,
                  log_fraction: float = 0.0, scatter_fraction: float = 0.01,
                  read_fraction: float = 0.58, burst_mean: float = 3.0, burst_gap_ms: float = 2.0,
                  drift_fraction: float = 0.05, drift_period_ms: float = 15 * MINUTE_MS,
                  page_kib: float = 8.0, buffer_pages: int = 1024,
                  span: tuple[float, float] = (0.0, 1.0)) -> OpenWorkload:
    """OLTP-like: small 8 KiB pages in clustered tables, mixed reads and writes.

    - ``regions`` tables/indexes of ``region_sectors`` each, scattered over the
      part ``span`` of the disk (fractions of its capacity); pages inside a region
      follow Zipf(``alpha``) with hot pages spread over the region, and a fraction
      of each ranking drifts every period;
    - the database dwells on one region for a geometric number of page
      references (mean ``phase_requests``) before moving to another, chosen by
      Zipf(``region_alpha``) (seed 003 §3.6: accesses "concentrate on a
      particular region of disk before moving off to another region");
    - ``cold_fraction`` of a region's references are uniform over the region (rows
      of a large table), the rest Zipf (indexes, hot rows);
    - ``scatter_fraction`` of references are uniform over the disk (cold tables);
      ``log_fraction`` (0 by default: the seed shows no log stream) are
      sequential log writes in a log region;
    - the references pass through a buffer pool of ``buffer_pages`` pages (LRU;
      PostgreSQL 7.4's default is 1,000 8 KiB buffers): a page it holds is read
      from memory and its rewrites are coalesced, so only misses reach the disk,
      as in a disk-level trace. Without it a hot page would be read again a few
      milliseconds after it was read, which no real trace shows; ``0`` turns it off;
    - disk requests are reads with probability ``read_fraction`` (58%, seed 003
      Table 2.3: 57.68% on EXT2), and arrive in bursts (mean ``burst_mean``
      requests, ``burst_gap_ms`` apart) at ``rate_per_s``.

    ``MATCHES["database_like"]`` lists what this matches in the seed.
    """
    rng = as_rng(seed)
    n = round(duration_s * rate_per_s)
    page = max(1, round(page_kib * 2))
    log_sectors = 2_000_000
    lo, hi = round(span[0] * capacity), round(span[1] * (capacity - log_sectors))
    starts = place_regions(hi, regions, region_sectors, rng, low=lo) // page * page
    log_start = capacity - log_sectors - int(rng.integers(0, capacity // 3))
    log_start = max(0, min(log_start, capacity - log_sectors)) // page * page
    pages = region_sectors // page
    pop = [ZipfPages(pages, alpha, rng) for _ in range(regions)]
    rw = 1.0 / np.arange(1, regions + 1) ** region_alpha
    rw = rw[rng.permutation(regions)]
    rcdf = np.cumsum(rw) / rw.sum()
    t = bursty_arrivals(n, rate_per_s, rng, burst_mean, burst_gap_ms)
    t = t[t < duration_s * 1000.0] if len(t) else t
    n = len(t)
    stream = _PageReferences(rng, starts, pages, page, pop, rcdf, phase_requests, cold_fraction,
                             scatter_fraction, log_fraction, capacity, log_start, log_sectors,
                             buffer_pages)
    reads = rng.random(n) < read_fraction
    lba = np.empty(n, np.int64)
    is_log = np.zeros(n, bool)
    period = np.floor(t / drift_period_ms).astype(np.int64)
    for p in np.unique(period):
        if p > 0 and drift_fraction > 0:
            for z in pop:
                z.drift(drift_fraction)
        sel = np.flatnonzero(period == p)
        lba[sel], is_log[sel] = stream.misses(reads[sel])
    reads &= ~is_log
    return OpenWorkload(_requests(t, reads, lba, np.full(n, page)), name="database-like")


class _PageReferences:
    """The database's page references (phases over regions), filtered by its buffer pool."""

    def __init__(self, rng, starts, pages, page, pop, rcdf, phase_requests, cold_fraction,
                 scatter_fraction, log_fraction, capacity, log_start, log_sectors, buffer_pages):
        self.rng, self.starts, self.pages, self.page, self.pop = rng, starts, pages, page, pop
        self.rcdf, self.phase_requests = rcdf, phase_requests
        self.cold, self.scatter, self.log = cold_fraction, scatter_fraction, log_fraction
        self.capacity, self.log_start, self.log_sectors = capacity, log_start, log_sectors
        self.buffer_pages = buffer_pages
        self.buffer: OrderedDict[int, None] = OrderedDict()
        self.region, self.left, self.log_next = 0, 0, 0

    def _regions(self, k: int) -> np.ndarray:
        """Region of each of the next ``k`` references, phase by phase."""
        out = np.empty(k, np.int64)
        i = 0
        while i < k:
            if self.left == 0:
                self.region = int(min(np.searchsorted(self.rcdf, self.rng.random(), side="right"),
                                      len(self.rcdf) - 1))
                self.left = int(self.rng.geometric(1.0 / self.phase_requests))
            m = min(self.left, k - i)
            out[i:i + m] = self.region
            self.left -= m
            i += m
        return out

    def _references(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        rng, page = self.rng, self.page
        region = self._regions(k)
        kind = rng.random(k)
        is_log = kind < self.log
        is_scatter = ~is_log & (kind < self.log + self.scatter)
        lba = np.empty(k, np.int64)
        data = np.flatnonzero(~is_log & ~is_scatter)
        for r in np.unique(region[data]):
            s = data[region[data] == r]
            cold = rng.random(len(s)) < self.cold
            lba[s[~cold]] = self.starts[r] + self.pop[r].sample(int((~cold).sum())) * page
            lba[s[cold]] = self.starts[r] + rng.integers(0, self.pages, size=int(cold.sum())) * page
        sc = np.flatnonzero(is_scatter)
        lba[sc] = rng.integers(0, (self.capacity - page) // page, size=len(sc)) * page
        lg = np.flatnonzero(is_log)
        lba[lg] = self.log_start + ((self.log_next + np.arange(len(lg))) * page) % self.log_sectors
        self.log_next += len(lg)
        return lba, is_log

    def misses(self, reads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pages of the next disk requests (``reads`` says which are reads): a read takes
        the next reference the buffer pool misses; a write (a dirty page forced out) and a
        log write take the next reference as it is, and leave the page buffered."""
        k = len(reads)
        out_lba = np.empty(k, np.int64)
        out_log = np.zeros(k, bool)
        buf, cap = self.buffer, self.buffer_pages
        lba: list[int] = []
        logs: list[bool] = []
        j = 0
        for i, is_read in enumerate(reads.tolist()):
            while True:
                if j == len(lba):
                    a, b = self._references(max(64, 2 * (k - i)))
                    lba, logs, j = a.tolist(), b.tolist(), 0
                x, lg = lba[j], logs[j]
                j += 1
                if cap and not lg:
                    hit = x in buf
                    if hit:
                        buf.move_to_end(x)
                    else:
                        buf[x] = None
                        if len(buf) > cap:
                            buf.popitem(last=False)
                    if hit and is_read:
                        continue
                break
            out_lba[i], out_log[i] = x, lg
        return out_lba, out_log


# -- the Financial OLTP recipe (the trace seed 003 Chapter 3 replayed) ---------------------------
#: What is published about the UMass "Financial1" OLTP trace that seed 003 Chapter 3 replayed
#: (§3.5.1: "disk accesses of a large financial institution consisting of online transaction
#: processing applications", from the UMass trace repository). Table 3.1 values are the thesis's;
#: values marked [X] are what the trace's users commonly report about the public file and could
#: not be checked offline here (note 003 §4.3 item 3).
FINANCIAL1 = {
    "requests": 4_099_354 + 1_235_633,  # Table 3.1: 5,334,987
    "table_3_1_read_share": 4_099_354 / (4_099_354 + 1_235_633),  # 76.84%: Table 3.1's "reads"
    "published_read_share": 1_235_633 / (4_099_354 + 1_235_633),  # [X] ~77% writes: 23.16%
    "table_3_1_length_s": 5000.0,  # 1,067 req/s: more than one disk can serve (note §4.3 item 2)
    "published_length_s": 12 * 3600.0,  # [X] the file spans about 12 hours
    "asus": 24,  # [X] application storage units in the file
}


def financial_like(capacity: int, duration_s: float = 5400.0,
                   seed: int | np.random.Generator | None = 0,
                   read_share: str | float = "published", rate_per_s: float | None = None,
                   asus: int = FINANCIAL1["asus"], asu_alpha: float = 1.0,
                   page_alpha: float = 1.2, hot_pages: int = 4096,
                   dwell_requests: float = 200.0, burst_mean: float = 2.0,
                   burst_gap_ms: float = 1.0, drift_fraction: float = 0.05,
                   drift_mean_ms: float = 10 * MINUTE_MS) -> OpenWorkload:
    """An OLTP trace with the statistics published for UMass Financial1 (seed 003 Table 3.1).

    Seed 003 simulated the Financial1 trace, not its own Chapter 2 PostgreSQL runs
    (:func:`database_like` follows those). The trace cannot be fetched here, so this
    generator follows what is published about it (:data:`FINANCIAL1`):

    - **Read/write split.** Table 3.1 says 76.84% reads (and §3.6.2 "approximately 75% read
      requests"); the public file is commonly reported as about 77% *writes* [X], the same
      two numbers with the labels swapped. ``read_share="published"`` (the default) uses
      23.16% reads: the same Table 3.1 mislabels its email column (99.8% writes for a "read
      dominated" trace, note 003 §4.3), and a reversed R/W flag is an easy slip when SPC
      records are turned into DiskSim's (whose READ flag is 1, WRITE 0).
      ``read_share="thesis"`` uses 76.84% reads (the sensitivity run); a number sets it.
    - **Rate.** Table 3.1's 5,334,987 requests in 5,000 s is 1,067 req/s, which no single
      7,200 RPM disk serves (it would queue without bound, yet Table 3.3's original layout
      averages 56.5 ms). The requests spread over the file's published length (about 12
      hours [X]) give 123.5 req/s, the default ``rate_per_s``.
    - **Sizes.** Small OLTP requests in 512-byte multiples [X: the file's requests are
      mostly 0.5-4 KiB and a few larger]; assumed mix 0.5 KiB 30%, 2 KiB 10%, 4 KiB 40%,
      8 KiB 15%, 16 KiB 5% (mean 3.95 KiB). Requests start on 4 KiB pages.
    - **Space.** ``asus`` application storage units [X: 24], mapped one after the other
      onto the disk in ASU order, each ``capacity / asus`` sectors (the mapping is our
      choice; the thesis does not say how it folded the ASUs onto one disk). ASU
      popularity is Zipf(``asu_alpha``); inside an ASU, ``hot_pages`` 4 KiB pages scattered
      over the ASU take Zipf(``page_alpha``) of its references. Accesses "concentrate on a
      particular region of disk before moving off to another region" (seed 003 §3.6): the
      trace dwells on one ASU for a geometric number of requests (mean ``dwell_requests``).
      **The dwell is an assumption**: the seed gives no number for it (the sentence above,
      thesis §3.3, is qualitative; Table 3.1 gives counts and a length, §3.5.1 relocation counts, and
      Chapter 2's burst figures time the PostgreSQL trace, not the Financial trace's
      regions). The placement results depend on it: the single centre zone loses more the
      longer the trace dwells (:func:`simcore.experiments.placement.dwell_sweep`).
    - **Drift.** The hot set changes on its own clock, never on the reorganizer's: drift
      events come as a Poisson process (mean ``drift_mean_ms`` apart, 10 minutes), each
      re-dealing ``drift_fraction`` of every ASU's popularity ranking. Both numbers are
      assumptions: nothing published gives the trace's drift rate.
    - **Arrivals** in bursts (geometric, mean ``burst_mean``, ``burst_gap_ms`` apart):
      an assumption; Table 3.1 gives only the count and the length.

    ``MATCHES["financial_like"]`` lists what this matches and what it does not.
    """
    rng = as_rng(seed)
    p_read = _read_share(read_share, {"published": FINANCIAL1["published_read_share"],
                                      "thesis": FINANCIAL1["table_3_1_read_share"]})
    rate = rate_per_s if rate_per_s is not None else (
        FINANCIAL1["requests"] / FINANCIAL1["published_length_s"])
    if rate <= 0 or duration_s <= 0:
        raise ValueError(f"rate_per_s ({rate}) and duration_s ({duration_s}) must be > 0")
    page = 8
    asu_sectors = capacity // asus // page * page
    pages = asu_sectors // page
    if hot_pages > pages:
        raise ValueError(f"hot_pages ({hot_pages}) exceeds the {pages} pages of an ASU")
    n = round(duration_s * rate)
    t = bursty_arrivals(n, rate, rng, burst_mean, burst_gap_ms)
    t = t[t < duration_s * 1000.0]
    n = len(t)
    # which ASU: phases of geometric length, ASU by Zipf(asu_alpha) over a shuffled order
    aw = 1.0 / np.arange(1, asus + 1) ** asu_alpha
    aw = aw[rng.permutation(asus)]
    acdf = np.cumsum(aw) / aw.sum()
    asu = np.empty(n, np.int64)
    i = 0
    while i < n:
        m = int(rng.geometric(1.0 / dwell_requests))
        asu[i:i + m] = min(int(np.searchsorted(acdf, rng.random(), side="right")), asus - 1)
        i += m
    # the hot pages of each ASU (scattered over it) and their ranking
    hot = [np.sort(rng.choice(pages, size=hot_pages, replace=False)) for _ in range(asus)]
    pop = [ZipfPages(hot_pages, page_alpha, rng) for _ in range(asus)]
    drift_at = np.cumsum(rng.exponential(drift_mean_ms, size=max(
        1, int(3 * duration_s * 1000.0 / drift_mean_ms) + 8)))
    epoch = np.searchsorted(drift_at, t, side="right")  # drift events before each arrival
    lba = np.empty(n, np.int64)
    done = 0
    for e in np.unique(epoch):
        while done < e:  # apply the drift events up to this epoch
            if drift_fraction > 0:
                for z in pop:
                    z.drift(drift_fraction)
            done += 1
        sel = np.flatnonzero(epoch == e)
        for a in np.unique(asu[sel]):
            s = sel[asu[sel] == a]
            lba[s] = a * asu_sectors + hot[a][pop[a].sample(len(s))] * page
    size_kib = np.array([0.5, 2.0, 4.0, 8.0, 16.0])
    size_p = np.array([0.30, 0.10, 0.40, 0.15, 0.05])
    sectors = np.round(size_kib[rng.choice(len(size_kib), size=n, p=size_p)] * 2).astype(np.int64)
    lba = np.minimum(lba, capacity - sectors)
    reads = rng.random(n) < p_read
    return OpenWorkload(_requests(t, reads, lba, sectors),
                        name=f"financial-like ({p_read:.0%} reads)")


# -- the email-like recipe ---------------------------------------------------------------------
#: What seed 003 says about the read/write mix of its email trace. Chapter 2 measured the
#: week-long email replay at the disk: Table 2.1, 96.16% (EXT3) to 97.83% (ReiserFS) reads, and
#: §2.7 "heavily read dominated (> 95% reads)"; Chapter 3's section headings call the trace
#: "Read Dominated". Yet the part of it that Chapter 3 replayed is, by Table 3.1, 92 reads and
#: 45,947 writes (99.8% writes) in 12,350 s; note 003 §4.3 finds that total equal to the
#: NetBench EXT3 trace's (Table 2.2), so the column may be mislabelled.
EMAIL_MIX = {
    "table_2_1_read_share": (8_464_299 / 8_802_197, 7_010_054 / 7_165_035),  # EXT3, ReiserFS
    "table_3_1_read_share": 92 / (92 + 45_947),  # 0.20% reads
    "table_3_1_requests": 92 + 45_947,
    "table_3_1_length_s": 12_350.0,
}

#: What seed 003 implies about the email trace's request rate. §2.3: "we replayed a week's worth
#: of Harvard's trace ... with the same time interval, as the trace file stated", and Table 2.1
#: counts the requests the disk saw (EXT2, EXT3, JFS, ReiserFS), so each count over a week is
#: that file system's mean rate: 11.8 (ReiserFS) to 15.3 (EXT2) a second, 13.5 on average. The
#: seed states no rate itself and no daily rhythm. Table 3.1's "email" trace, 46,039 requests
#: in 12,350 s (3.7 a second), is the 99.8%-write one (see :data:`EMAIL_MIX`).
EMAIL_RATE = {
    "table_2_1_requests": (9_224_806, 8_802_197, 7_397_975, 7_165_035),  # EXT2, EXT3, JFS, Reiser
    "replay_length_s": 7 * 86_400.0,  # "a week's worth", replayed at the trace's own timing
}


def email_rate_per_s() -> tuple[float, float, float]:
    """(lowest, mean, highest) request rate of seed 003's Chapter 2 email trace over the four
    file systems: Table 2.1's counts over a week (:data:`EMAIL_RATE`)."""
    r = np.array(EMAIL_RATE["table_2_1_requests"], float) / EMAIL_RATE["replay_length_s"]
    return float(r.min()), float(r.mean()), float(r.max())



def email_like(capacity: int, duration_s: float = 3600.0, users: int = 3400,
               seed: int | np.random.Generator | None = 0,
               check_min: tuple[float, float] = (15.0, 20.0), fragments: float = 4.0,
               fragment_kib: float = 64.0, locality_sectors: int = 20_000, burst_max: int = 3,
               burst_gap_ms: float = 2.0, pause_ms: float = 40.0, delivery_per_s: float = 0.34,
               other_per_s: float = 0.41, read_share: str | float | None = None) -> OpenWorkload:
    """A mail server: users check their mailbox every so often and read it whole.

    - each of ``users`` has a directory at a random place and a mailbox of a
      geometric number of pieces (mean ``fragments``) of ``fragment_kib``,
      scattered within ``locality_sectors`` of the directory, in no particular
      address order (a fragmented file);
    - a user checks mail every ``check_min`` minutes (uniform between the two,
      a random phase): the check reads the pieces in file order, in bursts of
      at most ``burst_max`` requests ``burst_gap_ms`` apart, bursts ``pause_ms``
      apart (so the 10 ms rule sees bursts of <= 3, seed 003 §2.6);
    - mail arrives at ``delivery_per_s``: a 4 KiB write in the user's spool
      area just past the mailbox;
      ``other_per_s`` small reads land anywhere (metadata, other files).

    Reads dominate; a block is rarely read twice within 15 minutes, but the
    same sequence of pieces comes back at the next check: the case where run
    clustering (ALIS) can help and frequency counting cannot.
    ``MATCHES["email_like"]`` lists what this matches in the seed.

    **Rate.** Seed 003 gives no users, check interval or mailbox size (all assumed here), but
    its Chapter 2 email trace has a rate: Table 2.1's request counts over the week replayed
    (§2.3), 11.8 to 15.3 a second, 13.5 on the four file systems' average
    (:func:`email_rate_per_s`). A user adds ``fragments`` reads per check (a little less: the
    mailbox is capped at 12 pieces) every 17.5 minutes on average; ``users``,
    ``delivery_per_s`` and ``other_per_s`` (2,500, 0.25 and 0.3 before) were scaled together by
    1.37 so that the expected rate, about 13.4 a second (13.3 measured on an hour), is that
    average and the mix stays where it was (per-user habits unchanged). The tests measure it.
    More users also mean more checks that meet within 10 ms: about 6% of bursts are longer than
    3, where the seed saw none.

    **Read/write mix** (``read_share``, sources in :data:`EMAIL_MIX`). ``None`` (default):
    the recipe's own mix, mailbox reads and "other" reads against deliveries, which comes
    to about 97.3% reads, inside seed 003 Table 2.1's 96.16-97.83% (Chapter 2's disk-level
    email trace, the trace Chapter 3 says it took "a part of"; ``delivery_per_s`` and
    ``other_per_s`` are assumptions, and the tests check the share stays in that range).
    ``"table_3_1"``: the split of seed 003 Table 3.1, 92 reads in 46,039 requests (0.20%),
    for the trace Chapter 3 actually replayed. A number sets the share. With a share given,
    each request's read/write flag is drawn again (a read with that probability) once the
    trace is made; times, addresses and sizes are those of the default trace of the same
    seed, so the two mixes can be compared trace by trace.
    """
    p_read = _read_share(read_share, {None: None,
                                      "table_3_1": EMAIL_MIX["table_3_1_read_share"]})
    rng = as_rng(seed)
    frag = max(1, round(fragment_kib * 2))
    dur = duration_s * 1000.0
    # 4 KiB file-system blocks: every address is a multiple of 8 sectors
    home = rng.integers(locality_sectors, capacity - 2 * locality_sectors - 2 * frag - 512,
                        size=users) // 8 * 8
    nfr = np.minimum(rng.geometric(1.0 / fragments, size=users), 12)
    # blocks belong to one file: fragments sit on a grid of fragment-sized slots, never shared
    used: set[int] = set()
    boxes = []
    reach = locality_sectors // frag
    for u in range(users):
        base = int(home[u]) // frag
        slots: list[int] = []
        while len(slots) < nfr[u]:
            s_ = base + int(rng.integers(-reach, reach))
            if s_ not in used:
                used.add(s_)
                slots.append(s_)
        boxes.append(np.array(slots, np.int64) * frag)  # file order = the order drawn
    t_list, lba_list, sec_list, rd_list = [], [], [], []
    period = rng.uniform(check_min[0], check_min[1], size=users) * MINUTE_MS
    phase = rng.uniform(0, 1, size=users) * period
    for u in range(users):
        checks = np.arange(phase[u], dur, period[u])
        checks += rng.normal(0, 0.05 * period[u], size=len(checks))
        box = boxes[u]
        m = len(box)
        pos = np.arange(m)
        offs = np.where(pos % burst_max == 0, 0.0, burst_gap_ms)
        offs = np.cumsum(offs + (pos // burst_max > 0) * (pos % burst_max == 0) * pause_ms)
        for c in checks[(checks >= 0) & (checks < dur)]:
            t_list.append(c + offs)
            lba_list.append(box)
            sec_list.append(np.full(m, frag))
            rd_list.append(np.ones(m, bool))
    nd = rng.poisson(delivery_per_s * duration_s)
    if nd:
        who = rng.integers(0, users, size=nd)
        t_list.append(rng.uniform(0, dur, size=nd))
        slot = rng.integers(0, 64, size=nd)  # the user's spool area, past the mailbox's reach
        lba_list.append((home[who] // frag + reach + 1) * frag + slot * 8)
        sec_list.append(np.full(nd, 8))
        rd_list.append(np.zeros(nd, bool))
    no = rng.poisson(other_per_s * duration_s)
    if no:
        t_list.append(rng.uniform(0, dur, size=no))
        other = rng.integers(0, (capacity - 8) // 8, size=no) * 8
        clash = np.isin(other // frag, np.fromiter(used, np.int64, len(used)))
        other[clash] = (other[clash] // frag) * frag - 8  # other files: never a mailbox block
        lba_list.append(np.maximum(other, 0))
        sec_list.append(np.full(no, 8))
        rd_list.append(np.ones(no, bool))
    t = np.concatenate(t_list)
    order = np.argsort(t, kind="stable")
    t, lba = t[order], np.concatenate(lba_list)[order]
    sec, rd = np.concatenate(sec_list)[order], np.concatenate(rd_list)[order]
    keep = (t >= 0) & (t < dur)
    t, rd, lba, sec = t[keep], rd[keep], lba[keep], sec[keep]
    if p_read is None:
        return OpenWorkload(_requests(t, rd, lba, sec), name="email-like")
    # drawn after every other draw: the same seed gives the same times and addresses
    rd = rng.random(len(t)) < p_read
    return OpenWorkload(_requests(t, rd, lba, sec), name=f"email-like ({p_read:.1%} reads)")


__all__ = [
    "EMAIL_MIX",
    "EMAIL_RATE",
    "FINANCIAL1",
    "MATCHES",
    "ZipfPages",
    "bursty_arrivals",
    "database_like",
    "email_like",
    "email_rate_per_s",
    "financial_like",
    "hot_set_open",
    "place_regions",
    "zipf_open",
]
