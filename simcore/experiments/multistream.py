"""Panagiotakis 2006: many sequential streams on one disk, the drive's cache, and the host scheme.

Seed 004 (notes ``004_multistream.md``). Two set-ups, as in the thesis:

**The real system (Chapter 5)** on the WD800JD profile (80 GB, 7,200 RPM,
8.9 ms average seek, 8 MB buffer in 16 segments with segment read-ahead that a
new command preempts). S clients each read their own ``disksize/S`` of the
disk in 64 KiB requests, one outstanding (thesis §5, Fig. 5.6 caption). Each
client waits ``CLIENT_RTT_MS`` between a response and its next request (the
network and server path; [ours], the thesis gives no number). The storage
node hands requests to the disk in arrival order and the clients' first
requests arrive in a random order [ours]: with one request per stream queued,
a FIFO then visits the streams in a fixed random order, the random-positioning
bound the thesis's own 256 KiB point matches (notes §4.3). Reads larger than
256 KiB reach the drive as 256 KiB commands issued together.

* ``baseline_mb_s``: 100 streams, no host scheme (paper: about 4 to 8);
* ``dispatch_mb_s``: R = 8 MiB, M = 16 MiB, so D = M/(R·N) = 2 (paper: about
  45 at 100 streams, about 50 at 10);
* ``ratio``: dispatch over baseline; ``best_host_ratio``: the best host scheme
  run over baseline ("up to a factor of 8");
* ``single_active_r8m_mb_s``: D = 1, R = 8 MiB, M = 8 MiB (about 40);
* ``all_active_r256k_mb_s``: D = S = 100, R = 256 KiB (about 14);
* ``streams_10_vs_100_drop_pct``: R = 8 MiB, M = 16 MiB at 10 and at 100
  streams (50 to 45 MB/s: about 10).
* ``per_stream_response_cv`` (full mode): how far the streams' mean response
  times differ (Fig. 5.6: "does not differ significantly among streams"),
  measured as the thesis's clients measured it (§5, p. 32): each stream issues
  a fixed number of requests, here the whole of its ``disksize/S`` region
  ([ours]: the thesis gives no number), and its mean covers all of them. A
  window of the other runs' length would not do: at D = 2 and R = 8 MiB one
  round-robin pass over 100 streams takes about as long as the window, so each
  stream's one long wait in it is its place in the first pass
  (``per_stream_response_cv_window``; ``per_stream_response_whole_run`` shows
  the spread over each stream's first k requests).

**The DiskSim study (Chapter 3)**: random stream starts (DiskSim's
``synthio``), a controller queue as deep as the number of streams, the disk's
CYCLE-LBN scheduler, 64 KiB requests [assumed: the thesis gives no size for
these figures], no client delay. The drive reads ahead to fill the segment and
finishes that before the next command (DiskSim's minimum read-ahead set to the
segment; [inferred] from Fig. 3.4's caption, "effect of prefetching ... with
increasing disk segment size").

* ``segment_size_30_streams``: 32 segments, 30 streams, 32 KiB against 2 MiB
  segments (about 8 and about 40 MB/s, a ratio of about 5);
* ``segments_cliff``: an 8 MiB buffer of 16 segments of 512 KiB, streams
  from 4 to 64: throughput must fall sharply once streams exceed segments,
  to below what no read-ahead gives (Fig. 3.5);
* ``controller`` (full mode): a 128 MiB controller cache [ours] with
  read-ahead 0 to 4 MiB for 1, 10, 60 and 100 streams (Fig. 3.6).

Every number is a run of the simulator; nothing is a closed form. The targets,
with the note's tolerances and sources, are :data:`TARGETS`.
"""

from __future__ import annotations

from concurrent.futures import Executor
from itertools import pairwise
from typing import Any

import numpy as np

from ..disk.access import Mechanism
from ..disk.layout import Layout
from ..disk.profile_loader import load_disk
from ..drive.cache import CacheConfig
from ..engine import sweep
from ..host.controller_cache import ControllerCacheConfig
from ..host.dispatch import DispatchConfig
from ..host.readahead import ReadaheadConfig
from ..multistream import run_streams, stream_starts
from . import pool_unless_given
from .targets import Source, Target, between, evaluate, holds, pm, rel

NAME = "multistream"
DESCRIPTION = ("Panagiotakis 2006: 100 sequential streams on one disk, drive segments and "
               "read-ahead, controller cache, and the host's dispatch set")

DISK = "wd800jd"
CLIENT_RTT_MS = 0.2
REQUEST_KIB = 64
MIB = 1024
MB_BYTES = 1e6  # the thesis's MBytes/s
#: Fig. 3.6: 10 streams with no controller read-ahead start "from about 10" MB/s (§3.2.1)
FIG36_TEN_STREAMS_NO_RA_MB_S = 10.0
#: the storage node's I/O path (seed 004 §5: Linux 2.6.11, AIO + O_DIRECT, SATA disks): the
#: kernel's block layer with its default elevator of that release, the anticipatory scheduler,
#: which sorts; one command at a time, as libata issued them before it gained NCQ (2.6.18).
#: The server is one process, so AS never idles for it while its other requests wait.
HOST_PATH = {"path": "block", "elevator": "anticipatory", "depth": 1}
#: the comparison: requests passed to the drive in arrival order, with no elevator
FIFO_PATH = {"path": "drive"}

PAPER = {
    "baseline_mb_s": "about 4 to 8 (implied: about 50 / 8; notes §4.2)",
    "dispatch_mb_s": 45.0,
    "dispatch_10_mb_s": 50.0,
    "all_active_r8m_mb_s": 50.0,
    "ratio": 8.0,
    "single_active_r8m_mb_s": 40.0,
    "all_active_r256k_mb_s": 14.0,
    "streams_10_vs_100_drop_pct": 10.0,
    "segment_size_30_streams": {"32k": 8.0, "2m": 40.0, "ratio": 5.0},
    "segments_cliff": "throughput drops dramatically once #streams > #segments, large "
                      "read-ahead then below no read-ahead (Fig. 3.5)",
    "controller": {"1 stream": "flat at about 35-40", "10 streams": "about 10 to about 40",
                   "60 streams @ 1 MiB": "almost maximum", "60, 100 streams @ 4 MiB": "almost 0"},
    "max_measured_mb_s": 55.0,
    "sources": "Panagiotakis 2006: §5.1 (Fig. 5.1), §5.2 (Fig. 5.2), abstract ('up to a "
               "factor of 8'), §3.2 (Figs. 3.4, 3.5, 3.6)",
}

_NOTE = "004_multistream.md"
_ZONES = ("the WD800JD profile's zones ({zones.outer_spt:,} to {zones.inner_spt:,} sectors per "
          "track, an assumed table) stream at about {zones.mean_100_streams_mb_s:.0f} MB/s with a "
          "head switch per track, averaged over the places of 100 evenly spread streams "
          "({zones.mean_10_streams_mb_s:.0f} over 10; {zones.outer_mb_s:.0f} at the outer edge, "
          "{zones.inner_mb_s:.0f} at the inner), and the host scheme comes close to that (D = 2 "
          "with 100 streams reads {dispatch_pct_of_zone_mean:.0f}% of it); the thesis's 'about 50 "
          "out of the maximum 55' (§5.1) would need a disk that streams nearly as fast at its "
          "inner edge as at its outer edge")
_NO_DROP = ("evenly spaced streams cover the whole disk at 10 as at 100, so the zone rates and "
            "the seeks between visits are the same and the model has no mechanism for the thesis's "
            "loss (which it blames on 'a larger percent of the disk surface', something the "
            "placement rule it states does not change)")

_SORTED = ("Linux 2.6.11's anticipatory elevator (the host path here) sorts the hundred "
           "outstanding reads into sweeps with seeks of about a hundredth of the disk, so the "
           "all-active and no-scheme runs read faster than the thesis's; its numbers match the "
           "arrival-order bound instead (the FIFO runs of the result's fifo_order), as if its "
           "server did not keep the hundred reads queued in the kernel at once. What in its "
           "system kept them out of sorted order is not established")

_TEN_NO_RA = (
    "the thesis's 10 MB/s (Fig. 3.6) cannot come from one "
    "{controller_fig36.ten_streams_no_ra_kib_per_command:.0f} KiB read per head positioning, "
    "which is what this set-up does with no read-ahead at the controller and a drive whose "
    "read-ahead the next queued command stops. Each such command takes "
    "{controller_fig36.ten_streams_no_ra_ms_per_command.service:.1f} ms here: "
    "{controller_fig36.ten_streams_no_ra_ms_per_command.rotation:.1f} ms waiting for the sector, "
    "{controller_fig36.ten_streams_no_ra_ms_per_command.seek:.1f} ms seeking between ten "
    "streams scattered over the disk (a tenth of the stroke alone takes "
    "{controller_fig36.seek_tenth_of_stroke_ms:.1f} ms, and CYCLE-LBN's sweep adds a return "
    "seek), and the rest overhead and transfer. At the thesis's rate only "
    "{controller_fig36.ten_streams_seek_ms_the_paper_allows:.1f} ms per command would be left "
    "for seeking, and with no seeks at all the disk would still manage only "
    "{controller_fig36.ten_streams_no_ra_without_seeks_mb_s:.1f} MB/s. At these positioning "
    "times the thesis's value needs about "
    "{controller_fig36.ten_streams_kib_per_positioning_the_paper_needs:.0f} KiB read per "
    "positioning: larger requests, a first point with some read-ahead, or a drive read-ahead "
    "that outlives the queued commands (the study's own segment-filling buffer gives "
    "{controller_fig36.ten_streams_no_ra_segment_fill_mb_s:.0f} MB/s). Fig. 3.6 (p. 22) states "
    "none of request size, drive cache or smallest read-ahead, so none is chosen here to match")


def _t(key, what, paper, bound, where, line, quote, note_bound="same", units="MB/s",
       **kw) -> Target:
    nb = bound if note_bound == "same" else note_bound
    return Target(key, what, paper, bound, Source("004", where, _NOTE, line, quote),
                  note_bound=nb, units=units, **kw)


TARGETS = (
    _t("baseline_mb_s", "100 streams of 64 KiB reads, no host scheme", 50 / 8, between(4.0, 8.0),
       "§5, abstract (implied: about 50 / 8)", 435, "sits at roughly 4–8 MB/s"),
    _t("best_host_ratio", "best host scheme over no host scheme, 100 streams", 8.0,
       between(6.0, 12.0), "abstract ('up to a factor of 8')", 427,
       "| 6–12× (sorted vs random positioning bounds, §4.3) |", units="x",
       known_deviation=_SORTED),
    _t("dispatch_10_mb_s", "R = 8 MiB, M = 16 MiB (D = 2), 10 streams", 50.0, rel(0.10),
       "§5.2, Fig. 5.2", 425, "| ~50 → ~45 MB/s (−10%) | ±10%; drop 5–15% |",
       known_deviation=_ZONES),
    _t("dispatch_mb_s", "R = 8 MiB, M = 16 MiB (D = 2), 100 streams", 45.0, rel(0.10),
       "§5.2, Fig. 5.2", 425, "| ~50 → ~45 MB/s (−10%) | ±10%; drop 5–15% |",
       known_deviation=_ZONES),
    _t("streams_10_vs_100_drop_pct", "loss from 10 to 100 streams at D = 2, R = 8 MiB", 10.0,
       between(5.0, 15.0), "§5.2, Fig. 5.2", 425, "| ~50 → ~45 MB/s (−10%) | ±10%; drop 5–15% |",
       units="%", known_deviation=_NO_DROP),
    _t("single_active_r8m_mb_s", "D = 1, R = 8 MiB, M = 8 MiB, 100 streams", 40.0, rel(0.15),
       "§5.2, Fig. 5.2", 426, "| (a) ~40 MB/s vs (b) ~14 MB/s | ±15%; ratio 2.3–3.5× |"),
    _t("all_active_r256k_mb_s", "all 100 streams active, R = 256 KiB", 14.0, rel(0.15),
       "§5.2, Fig. 5.2", 426, "| (a) ~40 MB/s vs (b) ~14 MB/s | ±15%; ratio 2.3–3.5× |",
       known_deviation=_SORTED),
    _t("single_over_all_active", "D = 1 at 8 MiB over all 100 active at 256 KiB", 40 / 14,
       between(2.3, 3.5), "§5.2, Fig. 5.2", 426, "±15%; ratio 2.3–3.5× |", units="x",
       known_deviation=_SORTED),
    _t("all_active_r8m_mb_s", "all 100 streams active, R = 8 MiB", 50.0, pm(5.0),
       "§5.1, Fig. 5.1", 424, "| 50 ± 5 MB/s; gain 15–30% |", full_only=True,
       known_deviation=_ZONES),
    _t("r2m_to_r8m_gain_pct", "all 100 active: gain from R = 2 MiB to 8 MiB", 20.0,
       between(15.0, 30.0), "§5.1, Fig. 5.1", 424, "| 50 ± 5 MB/s; gain 15–30% |",
       units="%", full_only=True),
    _t("disassociated_r512k_n128_mb_s", "disassociated: R = 512 KiB, D = 1, N = 128",
       "50 to 55", between(50.0, 55.0), "Fig. 5.5", 429, "| 50–55 MB/s |", full_only=True,
       known_deviation=_ZONES),
    _t("per_stream_response_cv.dispatch", "spread of per-stream mean response (CV), D = 2, "
       "each stream's mean over its whole run", "nearly equal", between(None, 0.10),
       "§5.5, Fig. 5.6 (p. 37); clients and measurement §5 (p. 32)", 430,
       "per-stream CV < 10% [ours]", units="", full_only=True),
    _t("segment_size_30_streams.32k", "30 streams, 32 segments of 32 KiB", 8.0, rel(0.20),
       "§3.2, Fig. 3.4", 420, "| ±20% each end; monotone |"),
    _t("segment_size_30_streams.2m", "30 streams, 32 segments of 2 MiB", 40.0, rel(0.20),
       "§3.2, Fig. 3.4", 420, "| ±20% each end; monotone |"),
    _t("segment_size_30_streams.monotone", "30 streams: throughput rises with segment size",
       True, holds(), "§3.2, Fig. 3.4", 420, "| ±20% each end; monotone |", units=""),
    _t("segments_cliff.cliff_after_streams", "16 segments: the cliff comes after this many streams",
       16, pm(1), "§3.2, Figs. 3.3, 3.5", 421, "cliff at #streams = #segments (±1 segment)",
       units="streams"),
    _t("segments_cliff.beyond_below_no_read_ahead",
       "more streams than segments: read-ahead does worse than none", True, holds(),
       "§3.2, Fig. 3.5", 421, "big RA below no-RA when over-subscribed", units=""),
    _t("controller_fig36.one_stream_min_mb_s", "controller read-ahead, 1 stream: lowest",
       35.0, rel(0.15), "§3.2, Fig. 3.6", 422, "1 stream flat ~35–40 MB/s", full_only=True),
    _t("controller_fig36.one_stream_max_mb_s", "controller read-ahead, 1 stream: highest",
       40.0, rel(0.15), "§3.2, Fig. 3.6", 422, "1 stream flat ~35–40 MB/s", full_only=True),
    _t("controller_fig36.ten_streams_no_ra_mb_s", "controller, 10 streams, no read-ahead",
       FIG36_TEN_STREAMS_NO_RA_MB_S, rel(0.15), "§3.2, Fig. 3.6", 422,
       "10 streams ~10 → ~40 MB/s with small RA", full_only=True, known_deviation=_TEN_NO_RA),
    _t("controller_fig36.ten_streams_best_mb_s", "controller, 10 streams, best read-ahead", 40.0,
       rel(0.15), "§3.2, Fig. 3.6", 422, "10 streams ~10 → ~40 MB/s with small RA",
       full_only=True),
    _t("controller_fig36.collapse_pct_of_max", "controller, 60 and 100 streams at 4 MiB "
       "read-ahead, % of one stream's rate", "almost 0", between(None, 10.0), "§3.2, Fig. 3.6",
       422, "collapse < 10% of max", units="%", full_only=True),
)

PARAMETERS = {
    "from the thesis": {
        "disk": "80 GB (156,301,488 sectors), 7,200 RPM, 8.9 ms average seek, 8 MB buffer "
                "(Table 3.1, Table 5.1)",
        "streams": "100 (Chapter 5), 30 (Fig. 3.4), one outstanding request each (Table 3.1)",
        "request size": "64 KiB (Fig. 5.6 caption)",
        "stream placement": "disksize / #streams apart (Chapter 5); random (DiskSim synthio)",
        "host scheme": "R = 8 MiB with M = 16 MiB (D = 2), D = 1 with R = 8 MiB, all 100 "
                       "active with R = 256 KiB; N = 1 (§5.2: 'only 2 streams can be placed')",
        "drive scheduler (DiskSim)": "CYCLE-LBN; controller queue = #streams",
        "kernel (Chapter 5)": "Linux 2.6.11 (§5), whose default elevator is anticipatory",
        "segments (Fig. 3.4)": "32, of 32 KiB to 2 MiB",
    },
    "assumed": {
        "client_rtt_ms": f"{CLIENT_RTT_MS} ms between a response and the next request (GbE "
                         "TCP round trip plus the server path in 2006; not in the thesis)",
        "host path": "Linux 2.6.11's anticipatory elevator, one command at a time (libata "
                     "before NCQ), the block layer's max_sectors bounding splits and merges; "
                     "clients' first requests in random order",
        "max request": "256 KiB commands (the block layer's split of larger reads)",
        "requests per stream (Fig. 5.6)": "each stream's whole disksize/S region (the thesis's "
                                           "clients issue a set number of requests, §5; "
                                           "which number is not given)",
        "classifier": "4 KiB blocks, offset 32 blocks, 3 adjacent requests within 10 s",
        "staging": "2 s timeout, 1 s garbage-collection period",
        "drive cache (Chapter 5)": "the profile's: 16 segments, segment read-ahead up to "
                                   "512 KiB, stopped by the next command",
        "drive cache (DiskSim)": "read-ahead fills the segment before the next command",
        "controller cache": "128 MiB, 64 KiB lines, LRU with free-behind, 0.1 ms per hit",
        "disk zoning": "20 zones, 1,000 to 540 sectors per track (data/disks/wd800jd.toml)",
    },
}


# -- the set-ups --------------------------------------------------------------------------

#: the simulated-time limit of a whole-region run (it ends when its last stream is done: about
#: 40 simulated minutes for 100 streams at D = 2); reaching it is an error
WHOLE_REGION_LIMIT_MS = 4 * 3_600_000.0


def measurement_windows(quick: bool) -> tuple[float, float]:
    """(measured window, warm-up) in ms: the warm-up covers stream detection (two direct
    requests per stream, about 3 s for 100 streams)."""
    return (8_000.0, 6_000.0) if quick else (20_000.0, 6_000.0)


def real(streams: int = 100, host: Any = "direct", quick: bool = False, seed: int = 0,
         whole_region: bool = False, **kw) -> dict:
    """One Chapter-5 run (the real system on the WD800JD profile); returns its summary.

    ``whole_region``: measure as the thesis's clients did (§5, p. 32: each stream has "the
    number of requests" it issues, and throughput and response time are measured "for each
    stream of requests"): every stream reads its whole ``disksize/S`` region once and its
    statistics cover all of its requests. The thesis does not give the number of requests;
    one region is [ours], the most a stream reads before it reaches the next stream's start.
    """
    if whole_region:
        sec = REQUEST_KIB * 2
        first, end = stream_starts(Mechanism(load_disk(DISK)).layout.capacity, streams, "even",
                                   request_sectors=sec)
        per_stream = int((end[0] - first[0]) // sec)
        args = dict(disk=DISK, streams=streams, request_kib=REQUEST_KIB, starts="even",
                    order="random", host=host, cache=True, client_rtt_ms=CLIENT_RTT_MS,
                    duration_ms=WHOLE_REGION_LIMIT_MS, warmup_ms=0.0, seed=seed,
                    requests_per_stream=per_stream, **HOST_PATH)
        args.update(kw)
        return _summary(run_streams(**args))
    window, warm = measurement_windows(quick)
    if streams <= 2:  # one or two streams settle at once
        window, warm = min(window, 1_500.0), 500.0
    args = dict(disk=DISK, streams=streams, request_kib=REQUEST_KIB, starts="even",
                order="random", host=host, cache=True, client_rtt_ms=CLIENT_RTT_MS,
                duration_ms=warm + window, warmup_ms=warm, seed=seed, **HOST_PATH)
    args.update(kw)
    return _summary(run_streams(**args))


def disksim_cache(segments: int, segment_kib: float, read_ahead: bool = True) -> CacheConfig:
    """The DiskSim study's drive buffer: ``segments`` of ``segment_kib``, read-ahead that fills
    the segment before the next command (or none)."""
    if not read_ahead:
        return CacheConfig(size_kib=segments * segment_kib, segments=segments, read_ahead="none")
    return CacheConfig(size_kib=segments * segment_kib, segments=segments, read_ahead="segment",
                       min_read_ahead_kib=segment_kib)


def disksim(streams: int, cache: CacheConfig | None = None, quick: bool = False, seed: int = 0,
            **kw) -> dict:
    """One Chapter-3 run (DiskSim-like: random starts, CYCLE-LBN, queue = #streams)."""
    # segments that last many sweeps settle slowly: a 4 s warm-up, 10 s (quick) or 14 s window
    window, warm = (10_000.0 if quick else 14_000.0), 4_000.0
    if streams <= 2:
        window, warm = min(window, 1_500.0), 500.0
    args = dict(disk=DISK, streams=streams, request_kib=REQUEST_KIB, starts="random",
                order="lba", host="direct", cache=cache if cache is not None else True,
                scheduler="cycle-lbn", client_rtt_ms=0.0, duration_ms=warm + window,
                warmup_ms=warm, seed=seed)
    args.update(kw)
    return _summary(run_streams(**args))


def kib_per_positioning(mb_s: float, positioning_ms: float, transfer_ms_per_kib: float) -> float:
    """KiB a command must read to average ``mb_s`` when each costs ``positioning_ms`` (overhead,
    seek, rotation) plus ``transfer_ms_per_kib`` per KiB: B = r p / (1 - r x), r in KiB/ms."""
    r = mb_s * MB_BYTES / 1024 / 1000.0
    if r * transfer_ms_per_kib >= 1.0:
        raise ValueError(f"mb_s={mb_s} is at or above the transfer rate itself")
    return r * positioning_ms / (1.0 - r * transfer_ms_per_kib)


def zone_rates(streams: tuple[int, ...] = (1, 10, 100)) -> dict:
    """The WD800JD profile's zones as evenly spread streams see them: media rate with a head
    switch per track (``rate x rev / (rev + switch)``), at the edges and averaged over the
    streams' start places (:func:`simcore.multistream.stream_starts`)."""
    prof = load_disk(DISK)
    layout = Layout(prof)
    keep = prof.revolution_ms / (prof.revolution_ms + prof.head_switch_ms)

    def sustained(lba: int) -> float:
        return layout.media_rate_mb_s(layout.zone_of(lba)) * keep

    out = {"zones": layout.zone_count, "outer_spt": layout.sectors_per_track(0),
           "inner_spt": layout.sectors_per_track(layout.zone_count - 1),
           "outer_mb_s": sustained(0), "inner_mb_s": sustained(layout.capacity - 1)}
    for n in streams:
        first, _ = stream_starts(layout.capacity, n, "even", request_sectors=REQUEST_KIB * 2)
        out[f"mean_{n}_streams_mb_s"] = float(np.mean([sustained(int(f)) for f in first]))
    return out


def _seek_tenth_stroke_ms() -> float:
    """The profile's seek across a tenth of its cylinders (ten streams spread over the disk)."""
    mech = Mechanism(load_disk(DISK))
    return float(mech.seek.seek_ms(mech.layout.cylinders // 10))


def _summary(r) -> dict:
    s = r.summary()
    resp = np.array(r.per_stream_response_ms, dtype=float)
    resp = resp[np.isfinite(resp)]
    s["per_stream_response_cv"] = float(resp.std() / resp.mean()) if len(resp) > 1 else 0.0
    # streams with no request done in the window have no mean: say how many were left out
    s["streams_without_response"] = int(len(r.per_stream_response_ms) - len(resp))
    if r.response_by_count:  # whole-region runs: the CV over each stream's first k requests
        s["response_cv_by_requests"] = {
            str(k): float(np.std(v) / np.mean(v)) for k, v in r.response_by_count.items()}
        s["requests_per_stream"] = r.config["requests_per_stream"]
        s["run_s"] = r.window_ms / 1000.0
    s["streams"] = r.streams
    s["host"] = {k: v for k, v in r.host.items() if isinstance(v, int | float | bool)}
    s["controller"] = {k: v for k, v in r.controller.items()
                       if k in ("hits", "misses", "evicted_unused", "disk_reads")}
    s["drive_cache"] = {k: int(v) for k, v in r.drive_cache.items()}
    s["disk_time_ms"] = dict(r.disk_time_ms)
    s["disk_kib_per_command"] = r.disk_bytes / 1024 / max(1, r.disk_requests)
    return {k: (float(v) if isinstance(v, np.floating) else v) for k, v in s.items()}


def _point(kind: str, **kw) -> dict:
    """One run: the real system (``kind="real"``) or the DiskSim-like set-up."""
    return (real if kind == "real" else disksim)(**kw)


def run_points(specs: dict[str, tuple[str, dict]],
               executor: Executor | None = None) -> dict[str, dict]:
    """Run named points (``{"name": ("real" | "disksim", kwargs)}``) through :func:`simcore.sweep`.

    Each point's kwargs carry its seed, so a serial run, this machine's process pool (the
    default) or a cluster's executor give the same numbers.
    """
    names = list(specs)
    points = [{"kind": specs[n][0], **specs[n][1]} for n in names]
    with pool_unless_given(executor, len(points)) as ex:
        rows = sweep(_point, points, executor=ex, progress=False)
    return dict(zip(names, rows, strict=True))


def _dispatch(r_kib: float, m_kib: float | None = None, d: int | None = None,
              n: int = 1) -> DispatchConfig:
    return DispatchConfig(read_ahead_kib=r_kib, memory_kib=m_kib, dispatch=d, per_visit=n)


CLIFF_STREAMS_FULL = (4, 8, 16, 17, 24, 32, 64)
CLIFF_STREAMS_QUICK = (8, 16, 17, 32)
SEGMENT_SIZES_FULL = (32, 128, 512, 2048)
CONTROLLER_RA = (0, 256, 1024, 4096)
CONTROLLER_STREAMS = (1, 10, 60, 100)


def specs(quick: bool = False, seed: int = 0) -> dict[str, tuple[str, dict]]:
    """Every run :func:`reproduce` makes, by name."""
    q = {"quick": quick, "seed": seed}
    sp: dict[str, tuple[str, dict]] = {
        "baseline": ("real", dict(streams=100, **q)),
        "dispatch": ("real", dict(streams=100, host=_dispatch(8 * MIB, 16 * MIB), **q)),
        "single_active": ("real", dict(streams=100, host=_dispatch(8 * MIB, 8 * MIB), **q)),
        "all_active_256k": ("real", dict(streams=100, host=_dispatch(256), **q)),
        "dispatch_10": ("real", dict(streams=10, host=_dispatch(8 * MIB, 16 * MIB), **q)),
        "single_stream": ("real", dict(streams=1, **q)),
    }
    for seg in ((32, 2048) if quick else SEGMENT_SIZES_FULL):
        sp[f"seg32x{seg}"] = ("disksim", dict(streams=30, cache=disksim_cache(32, seg), **q))
    for s in (CLIFF_STREAMS_QUICK if quick else CLIFF_STREAMS_FULL):
        sp[f"cliff_{s}"] = ("disksim", dict(streams=s, cache=disksim_cache(16, 512), **q))
    for s in ((32,) if quick else (8, 32)):
        sp[f"cliff_none_{s}"] = ("disksim", dict(streams=s, cache=disksim_cache(16, 512, False),
                                                 **q))
    if not quick:
        sp["baseline_10"] = ("real", dict(streams=10, **q))
        sp["disassociated"] = ("real", dict(streams=100, host=_dispatch(512, d=1, n=128), **q))
        sp["all_active_2m"] = ("real", dict(streams=100, host=_dispatch(2 * MIB), **q))
        sp["all_active_8m"] = ("real", dict(streams=100, host=_dispatch(8 * MIB), **q))
        for rtt in (0.0, 0.4):
            sp[f"single_active_rtt{rtt:g}"] = ("real", dict(
                streams=100, host=_dispatch(8 * MIB, 8 * MIB), client_rtt_ms=rtt, **q))
        # the thesis's per-stream measurement: every stream reads its whole region (Fig. 5.6)
        sp["dispatch_whole"] = ("real", dict(streams=100, host=_dispatch(8 * MIB, 16 * MIB),
                                             whole_region=True, **q))
        sp["single_active_whole"] = ("real", dict(streams=100, host=_dispatch(8 * MIB, 8 * MIB),
                                                  whole_region=True, **q))
        sp["baseline_fifo"] = ("real", dict(streams=100, **FIFO_PATH, **q))
        sp["all_active_256k_fifo"] = ("real", dict(streams=100, host=_dispatch(256),
                                                    **FIFO_PATH, **q))
        for s in CONTROLLER_STREAMS:
            for ra in CONTROLLER_RA:
                sp[f"ctrl_{s}_{ra}"] = ("disksim", dict(
                    streams=s, controller=ControllerCacheConfig(read_ahead_kib=ra), **q))
        sp["ctrl_10_0_segment_fill"] = ("disksim", dict(
            streams=10, controller=ControllerCacheConfig(read_ahead_kib=0),
            cache=disksim_cache(16, 512), **q))
    return sp


def reproduce(quick: bool = False, seed: int = 0, executor: Executor | None = None) -> dict:
    """Run the thesis's configurations and set its numbers beside them (see the module doc)."""
    runs = run_points(specs(quick, seed), executor)
    mb = {k: v["throughput_mb_s"] for k, v in runs.items()}
    res: dict[str, Any] = {
        "disk": DISK,
        "quick": quick,
        "seed": seed,
        "baseline_mb_s": mb["baseline"],
        "dispatch_mb_s": mb["dispatch"],
        "ratio": mb["dispatch"] / mb["baseline"],
        "single_active_r8m_mb_s": mb["single_active"],
        "all_active_r256k_mb_s": mb["all_active_256k"],
        "streams_10_vs_100_drop_pct": 100.0 * (mb["dispatch_10"] - mb["dispatch"])
        / mb["dispatch_10"],
        "dispatch_10_mb_s": mb["dispatch_10"],
        "single_stream_mb_s": mb["single_stream"],
        "single_over_all_active": mb["single_active"] / mb["all_active_256k"],
    }
    host_runs = [k for k, (kind, kw) in specs(quick, seed).items()
                 if kind == "real" and kw["streams"] == 100 and kw.get("host", "direct") != "direct"
                 and "client_rtt_ms" not in kw and "path" not in kw
                 and not kw.get("whole_region")]
    res["best_host"] = max(host_runs, key=lambda k: mb[k])
    res["best_host_ratio"] = mb[res["best_host"]] / mb["baseline"]
    segs = sorted(int(k[len("seg32x"):]) for k in runs if k.startswith("seg32x"))
    res["segment_size_30_streams"] = {
        "32k": mb["seg32x32"], "2m": mb["seg32x2048"],
        "ratio": mb["seg32x2048"] / mb["seg32x32"],
        "segment_kib": segs, "mb_s": [mb[f"seg32x{s}"] for s in segs],
        "monotone": bool(all(b > a for a, b in pairwise([mb[f"seg32x{s}"] for s in segs]))),
    }
    cs = sorted(int(k[len("cliff_"):]) for k in runs if k.startswith("cliff_")
                and not k.startswith("cliff_none"))
    ns = sorted(int(k[len("cliff_none_"):]) for k in runs if k.startswith("cliff_none_"))
    cliff = [mb[f"cliff_{s}"] for s in cs]
    within = [m for s, m in zip(cs, cliff, strict=True) if s <= 16]
    beyond = [m for s, m in zip(cs, cliff, strict=True) if s > 16]
    res["segments_cliff"] = {
        "segments": 16, "segment_kib": 512, "cache_kib": 8192,
        "streams": cs, "mb_s": cliff,
        "no_read_ahead_streams": ns, "no_read_ahead_mb_s": [mb[f"cliff_none_{s}"] for s in ns],
        "within_min_mb_s": min(within), "beyond_max_mb_s": max(beyond),
        "drop_factor": min(within) / max(beyond),
        # the stream count after which throughput falls the most (the cliff)
        "cliff_after_streams": cs[int(np.argmax([a / b for a, b in pairwise(cliff)]))],
        "beyond_below_no_read_ahead": max(beyond) < min(mb[f"cliff_none_{s}"] for s in ns),
    }
    if not quick:
        res["baseline_10_mb_s"] = mb["baseline_10"]
        res["disassociated_r512k_n128_mb_s"] = mb["disassociated"]
        res["all_active_r2m_mb_s"] = mb["all_active_2m"]
        res["all_active_r8m_mb_s"] = mb["all_active_8m"]
        res["r2m_to_r8m_gain_pct"] = 100.0 * (mb["all_active_8m"] / mb["all_active_2m"] - 1)
        res["client_rtt_sensitivity"] = {
            "client_rtt_ms": [0.0, CLIENT_RTT_MS, 0.4],
            "single_active_r8m_mb_s": [mb["single_active_rtt0"], mb["single_active"],
                                       mb["single_active_rtt0.4"]],
        }
        res["fifo_order"] = {
            "baseline_mb_s": mb["baseline_fifo"],
            "all_active_r256k_mb_s": mb["all_active_256k_fifo"],
            "note": "requests passed to the drive in the order they arrive, no elevator: the "
                    "clients' random start order becomes a fixed random cycle over the streams "
                    "(the random positioning bound of notes §4.3)",
        }
        res["controller"] = {
            "cache_mib": 128, "read_ahead_kib": list(CONTROLLER_RA),
            "streams": list(CONTROLLER_STREAMS),
            "mb_s": [[mb[f"ctrl_{s}_{ra}"] for ra in CONTROLLER_RA] for s in CONTROLLER_STREAMS],
        }
        one, ten = ([mb[f"ctrl_{s}_{ra}"] for ra in CONTROLLER_RA] for s in (1, 10))
        res["controller_fig36"] = {
            "one_stream_min_mb_s": min(one), "one_stream_max_mb_s": max(one),
            "ten_streams_no_ra_mb_s": ten[0], "ten_streams_best_mb_s": max(ten[1:]),
            "collapse_pct_of_max": 100.0 * max(mb[f"ctrl_{s}_4096"] for s in (60, 100))
            / mb["single_stream"],
        }
        # why 10 streams without read-ahead are slow: where a disk command's time goes, the
        # rate with no seek at all, and the seek per command the thesis's 10 MB/s would allow
        ten = runs["ctrl_10_0"]
        t = ten["disk_time_ms"]
        fixed = t["overhead"] + t["rotation"] + t["transfer"] + t["interface"]
        kib = ten["disk_kib_per_command"]
        rate = FIG36_TEN_STREAMS_NO_RA_MB_S
        res["controller_fig36"].update({
            "ten_streams_no_ra_ms_per_command": t,
            "ten_streams_no_ra_kib_per_command": kib,
            "ten_streams_no_ra_without_seeks_mb_s": kib * 1024 / MB_BYTES / (fixed / 1000.0),
            "ten_streams_seek_ms_the_paper_allows": kib * 1024 / MB_BYTES / rate * 1000.0 - fixed,
            "ten_streams_kib_per_positioning_the_paper_needs": kib_per_positioning(
                rate, t["overhead"] + t["seek"] + t["rotation"],
                (t["transfer"] + t["interface"]) / kib),
            "seek_tenth_of_stroke_ms": _seek_tenth_stroke_ms(),
            # the same 10 streams on the DiskSim study's own drive buffer (16 segments of
            # 512 KiB, read-ahead that fills the segment before the next command)
            "ten_streams_no_ra_segment_fill_mb_s": mb["ctrl_10_0_segment_fill"],
        })
    # how good the host scheme is against the disk's own streaming rate at the same places
    res["dispatch_pct_of_single_stream"] = 100.0 * mb["dispatch"] / mb["single_stream"]
    res["zones"] = zone_rates()
    res["dispatch_pct_of_zone_mean"] = (100.0 * mb["dispatch"]
                                        / res["zones"]["mean_100_streams_mb_s"])
    # per-stream mean response over the measured window (streams that finished nothing in it
    # have no mean and are left out; how many is beside it)
    res["per_stream_response_cv_window"] = {
        k: runs[k]["per_stream_response_cv"] for k in ("baseline", "dispatch", "single_active")}
    res["streams_without_response_in_window"] = {
        k: runs[k]["streams_without_response"] for k in ("baseline", "dispatch", "single_active")}
    if not quick:
        # as the thesis measured (§5, p. 32): each stream's mean over all of its requests
        res["per_stream_response_cv"] = {k: runs[f"{k}_whole"]["per_stream_response_cv"]
                                         for k in ("dispatch", "single_active")}
        res["per_stream_response_whole_run"] = {
            k: {f: runs[f"{k}_whole"][f] for f in ("requests_per_stream", "run_s",
                                                    "response_cv_by_requests",
                                                    "throughput_mb_s", "mean_response_ms")}
            for k in ("dispatch", "single_active")}
    res["mean_response_ms"] = {k: runs[k]["mean_response_ms"]
                               for k in ("baseline", "dispatch", "single_active",
                                         "all_active_256k")}
    res["host"] = {k: runs[k]["host"] for k in ("dispatch", "single_active", "all_active_256k")}
    res["paper"] = PAPER
    res["parameters"] = PARAMETERS
    res["mb_s_by_run"] = {k: round(v, 3) for k, v in mb.items()}
    res["targets"] = evaluate(TARGETS, res, quick)
    return res


# -- sweeps for the chapter's figures ---------------------------------------------------------

STREAM_COUNTS = (1, 2, 5, 10, 20, 50, 100)


def host_curves(quick: bool = False, seed: int = 0, counts=STREAM_COUNTS,
                executor: Executor | None = None) -> dict:
    """Throughput against the number of streams: no scheme, all active at R = 256 KiB and
    2 MiB, D = 2 at R = 8 MiB (M = 16 MiB), and Linux-like read-ahead of 128 KiB (Fig. 5.1/5.2);
    per series and count: throughput, mean response and the mean size of a disk command."""
    series = {
        "direct 64 KiB": "direct",
        "all active, R = 256 KiB": _dispatch(256),
        "all active, R = 2 MiB": _dispatch(2 * MIB),
        "D = 2, R = 8 MiB (M = 16 MiB)": _dispatch(8 * MIB, 16 * MIB),
        "Linux read-ahead 128 KiB": ReadaheadConfig(128),
    }
    sp = {f"{name}|{s}": ("real", dict(streams=s, host=h, quick=quick, seed=seed))
          for name, h in series.items() for s in counts}
    runs = run_points(sp, executor)
    return {"streams": list(counts),
            "series": {name: [runs[f"{name}|{s}"]["throughput_mb_s"] for s in counts]
                       for name in series},
            "response_ms": {name: [runs[f"{name}|{s}"]["mean_response_ms"] for s in counts]
                            for name in series},
            "disk_kib_per_command": {name: [runs[f"{name}|{s}"]["disk_kib_per_command"]
                                            for s in counts] for name in series}}


def segment_curves(quick: bool = False, seed: int = 0,
                   counts=(1, 4, 8, 16, 24, 32, 48, 64, 100), segment_counts=(8, 16, 32),
                   executor: Executor | None = None) -> dict:
    """Throughput against streams for an 8 MiB drive buffer cut into 8, 16 or 32 segments, with
    read-ahead filling each segment, and with no read-ahead (Figs. 3.3, 3.5)."""
    sp = {}
    for n in segment_counts:
        for s in counts:
            sp[f"{n}|{s}"] = ("disksim", dict(streams=s, cache=disksim_cache(n, 8192 / n),
                                              quick=quick, seed=seed))
    for s in counts:
        sp[f"none|{s}"] = ("disksim", dict(streams=s, cache=disksim_cache(16, 512, False),
                                           quick=quick, seed=seed))
    runs = run_points(sp, executor)
    return {"streams": list(counts), "segment_counts": list(segment_counts),
            "read_ahead": {str(n): [runs[f"{n}|{s}"]["throughput_mb_s"] for s in counts]
                           for n in segment_counts},
            "no_read_ahead": [runs[f"none|{s}"]["throughput_mb_s"] for s in counts]}


def memory_tradeoff(quick: bool = False, seed: int = 0, streams: int = 100,
                    reads_kib=(512, 2048, 8192), memories_mib=(8, 16, 64, 256, 800),
                    executor: Executor | None = None) -> dict:
    """Throughput against host memory M for several R, with D = M/(R·N), N = 1 (Fig. 5.2)."""
    sp = {}
    for r in reads_kib:
        for m in memories_mib:
            if m * MIB >= r:
                d = min(streams, int(m * MIB // r))
                sp[f"{r}|{m}"] = ("real", dict(streams=streams,
                                               host=_dispatch(r, m * MIB, d=d),
                                               quick=quick, seed=seed))
    runs = run_points(sp, executor)
    return {"streams": streams, "memory_mib": list(memories_mib), "read_ahead_kib": list(reads_kib),
            "mb_s": {str(r): [runs[f"{r}|{m}"]["throughput_mb_s"] if f"{r}|{m}" in runs else None
                              for m in memories_mib] for r in reads_kib},
            "dispatch": {str(r): [min(streams, int(m * MIB // r)) if m * MIB >= r else None
                                  for m in memories_mib] for r in reads_kib}}


def timelines(seed: int = 0, window_ms: float = 2_000.0) -> dict:
    """Which stream the head serves, command by command, for three configurations (a short run)."""
    out = {}
    cfgs = {"no host scheme (64 KiB)": "direct",
            "all 100 active, R = 256 KiB": _dispatch(256),
            "D = 2, R = 8 MiB": _dispatch(8 * MIB, 16 * MIB)}
    for name, host in cfgs.items():
        r = run_streams(DISK, 100, REQUEST_KIB, starts="even", order="random", host=host,
                        client_rtt_ms=CLIENT_RTT_MS, duration_ms=6_000.0 + window_ms,
                        warmup_ms=6_000.0, seed=seed, trace=True, **HOST_PATH)
        out[name] = {"log": [[float(x[0]), float(x[1]), int(x[2]), int(x[4]), bool(x[5])]
                             for x in r.disk_log],
                     "throughput_mb_s": r.throughput_mb_s, "start_ms": 6_000.0}
    return out
