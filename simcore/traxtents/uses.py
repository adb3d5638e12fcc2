"""Uses of track-aligned extents: a video server and LFS segment sizing.

Seed: Schindler et al., FAST 2002, §5.4 (video servers) and §5.5 (LFS).

**Video server.** Every round the server fetches one I/O per stream; with V
streams the disk must finish V requests within the round. *Soft real-time*
(the RIO method the paper follows): time V simultaneous random track-sized
requests, served in SCAN order, many times; the round must cover the 99.99th
percentile. *Hard real-time*: charge every request the worst case, a seek
equal to the worst scheduled route over all V requests divided by V (footnote
2), one revolution of rotational latency if unaligned and none if aligned
(zero-latency firmware), and the transfer with its head switches. Startup
latency is ``round x (D + 1)`` for D disks; buffer space ``2 x IOsize x V``.

**LFS.** Matthews et al.'s overall write cost is ``WriteCost x
TransferInefficiency``; the paper's model line is ``TI = 1 + T_pos BW / S``
(T_pos = 5.2 ms, BW = 40 MB/s on the Atlas 10K II). WriteCost depends on the
workload (Matthews' Auspex trace, not in the paper), so it is an input here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..disk.access import HeadState, Mechanism
from ..disk.layout import SECTOR_BYTES
from . import serve, zone_track_starts

Z_9999 = 3.719016485455709  # standard normal quantile at 0.9999


def stream_round_ms(io_bytes: float, bitrate_bps: float = 4e6) -> float:
    """How long one I/O of ``io_bytes`` lasts a stream of ``bitrate_bps`` (ms)."""
    return io_bytes * 8.0 / bitrate_bps * 1000.0


def startup_latency_s(round_ms: float, disks: int) -> float:
    """Worst-case startup latency of a new stream: round x (D + 1) [RIO, ref 34]."""
    return round_ms * (disks + 1) / 1000.0


def buffer_bytes(io_bytes: float, streams: int) -> float:
    """Server buffer space: 2 x IOsize x V (double buffering)."""
    return 2.0 * io_bytes * streams


def max_streams(bandwidth_mb_s: float = 40.0, bitrate_bps: float = 4e6) -> int:
    """Streams a disk could carry at 100 % efficiency (40 MB/s / 4 Mb/s = 80)."""
    return int(bandwidth_mb_s * 1e6 * 8 // bitrate_bps)


# -- soft real-time: simulated rounds --------------------------------------


@dataclass
class Rounds:
    """Simulated round times for V requests per round (ms)."""

    streams: int
    times_ms: np.ndarray

    def quantile_ms(self, q: float = 0.9999, method: str = "normal") -> float:
        """The round time that meets a fraction ``q`` of rounds.

        ``"empirical"`` is the paper's method and needs about 10,000 rounds;
        ``"normal"`` (mean + z sigma) reads the same quantile from fewer rounds: a
        round is a sum of V nearly independent request times, so its
        distribution is close to normal.
        """
        t = self.times_ms
        if method == "empirical":
            return float(np.quantile(t, q))
        if method != "normal":
            raise ValueError("method must be 'normal' or 'empirical'")
        from statistics import NormalDist

        z = Z_9999 if q == 0.9999 else NormalDist().inv_cdf(q)
        return float(t.mean() + z * t.std(ddof=1))


class RoundSimulator:
    """V random track-sized reads per round, SCAN-sorted, on one zone of a drive.

    Aligned requests read one whole track each; unaligned ones read as many
    sectors from a uniformly random start. The requests of a round are all
    queued at once, so each one's positioning starts when the head finishes
    the previous one's media transfer and the bus drains behind (the
    :class:`~simcore.traxtents.QueuedService` rule); the sweep direction
    alternates between rounds and the head carries over. Each round starts at
    a random rotational phase.
    """

    def __init__(self, mech: Mechanism, zone: int = 0, bus: str = "assembled",
                 tracks_per_io: int = 1):
        self.mech, self.zone, self.bus = mech, zone, bus
        self.starts = zone_track_starts(mech.layout, zone)
        self.lo, self.hi = mech.layout.zone_lba_range(zone)
        self.spt = mech.layout.sectors_per_track(zone)
        self.k = tracks_per_io
        self.sectors = self.k * self.spt
        self.overhead = mech.profile.overheads.read_miss_ms

    def _positions(self, v: int, aligned: bool, rng: np.random.Generator) -> list[tuple[int, int]]:
        if aligned:
            idx = rng.integers(0, len(self.starts) - self.k, size=v)
            out = []
            for i in idx:
                a, b = self.starts[int(i)], self.starts[int(i) + self.k]
                out.append((a, b - a))
            return out
        lbas = rng.integers(self.lo, self.hi - self.sectors + 1, size=v)
        return [(int(x), self.sectors) for x in lbas]

    def run(self, streams: int, trials: int, aligned: bool, seed: int = 0) -> Rounds:
        rng = np.random.default_rng(seed)
        mech = self.mech
        head = HeadState(mech.layout.cylinder_of(self.lo), 0)
        t = 0.0
        out = np.empty(trials)
        for r in range(trials):
            reqs = sorted(self._positions(streams, aligned, rng), reverse=bool(r & 1))
            t0 = t + rng.uniform(0.0, mech.rev_ms)
            media = bus_free = t0
            for lba, n in reqs:
                s = serve(mech, lba, n, media + self.overhead, head, self.bus,
                          bus_free_ms=bus_free)
                media, bus_free = s.media_end_ms, s.bus_end_ms
                head = HeadState(s.cylinder, s.surface)
            out[r] = bus_free - t0
            t = bus_free
        return Rounds(streams, out)


def soft_realtime_streams(sim: RoundSimulator, aligned: bool, round_ms: float = 500.0,
                          trials: int = 1000, seed: int = 0, q: float = 0.9999,
                          method: str = "normal", v_max: int = 200) -> dict:
    """Most streams whose round meets ``q`` of deadlines of ``round_ms`` (§5.4.1).

    A pilot of V = 20 gives a first guess; then V moves one at a time until V
    meets the deadline and V + 1 does not. Every tested V is simulated with
    ``trials`` rounds (its own seed).
    """
    pilot = sim.run(20, max(50, trials // 4), aligned, seed=seed)
    per = pilot.times_ms.mean() / 20
    guess = max(1, min(v_max, int(round_ms / per) - 1))
    tested: dict[int, float] = {}

    def quant(v: int) -> float:
        if v not in tested:
            tested[v] = sim.run(v, trials, aligned, seed=seed + 1000 * v).quantile_ms(q, method)
        return tested[v]

    v = guess
    while v > 1 and quant(v) > round_ms:
        v -= 1
    while v < v_max and quant(v + 1) <= round_ms:
        v += 1
    return {"streams": v, "quantile_ms": quant(v), "next_quantile_ms": quant(v + 1),
            "tested": {str(k): tested[k] for k in sorted(tested)}}


# -- hard real-time: worst cases from the simulator --------------------------


def worst_case_access_ms(mech: Mechanism, sectors: int, aligned: bool, zone: int = 0,
                         phases: int = 96, offsets: int = 48) -> float:
    """Worst rotation + transfer (+ head switches) of one request, from the simulator.

    The head sits on the request's first track (so no seek is counted) and the
    request starts at ``phases`` arrival phases over a revolution; unaligned
    requests also start at ``offsets`` positions along the track. The seek is
    charged separately (:func:`worst_seek_per_stream_ms`).
    """
    starts = zone_track_starts(mech.layout, zone)
    spt = mech.layout.sectors_per_track(zone)
    base = starts[len(starts) // 2]
    rev = mech.rev_ms
    firsts = [base] if aligned else [base + (i * spt) // offsets for i in range(offsets)]
    if not aligned:
        firsts += [base + spt - 1, base + 1]
    worst = 0.0
    for lba in firsts:
        a0 = mech.layout.locate(lba)
        head = HeadState(a0.cylinder, a0.surface)
        for k in range(phases):
            t = 1000.0 * rev + k * rev / phases
            a = mech.access(lba, sectors, False, t, head)
            worst = max(worst, a.seek_ms + a.rotation_ms + a.transfer_ms)
    return worst


def worst_seek_per_stream_ms(mech: Mechanism, streams: int) -> float:
    """Worst scheduled seek route for V requests, divided by V (footnote 2).

    The scheduler sorts a round's requests, so the arm sweeps once across the
    disk; the costliest such sweep spreads the V stops evenly over the full
    stroke (the seek curve is concave), V seeks of ``cylinders / V`` each.
    """
    span = mech.layout.cylinders - 1
    d = max(1, round(span / streams))
    return mech.seek.seek_ms(d)


def hard_realtime_streams(mech: Mechanism, io_sectors: int, aligned: bool,
                          bitrate_bps: float = 4e6, zone: int = 0) -> dict:
    """Most streams whose worst-case round fits the I/O's play time (§5.4.2)."""
    round_ms = stream_round_ms(io_sectors * SECTOR_BYTES, bitrate_bps)
    access = worst_case_access_ms(mech, io_sectors, aligned, zone)
    overhead = mech.profile.overheads.read_miss_ms
    v = 0
    per_io = float("nan")
    while True:
        cand = v + 1
        t = worst_seek_per_stream_ms(mech, cand) + access + overhead
        if cand * t > round_ms:
            break
        v, per_io = cand, t
    return {"streams": v, "round_ms": round_ms, "worst_access_ms": access,
            "worst_io_ms": per_io, "efficiency": v / max_streams()}


# -- LFS --------------------------------------------------------------------


def transfer_inefficiency_model(segment_bytes: float | np.ndarray, t_pos_ms: float = 5.2,
                                bandwidth_mb_s: float = 40.0):
    """Matthews et al.'s TI = 1 + T_pos x BW / S (the paper's "5.2 ms * 40 MB/s" line)."""
    return 1.0 + (t_pos_ms / 1000.0) * bandwidth_mb_s * 1e6 / np.asarray(segment_bytes)


def transfer_inefficiency(head_time_ms: float | np.ndarray, segment_bytes: float | np.ndarray,
                          bandwidth_mb_s: float = 40.0):
    """Measured TI: actual segment time over the ideal S / BW."""
    ideal = np.asarray(segment_bytes) / (bandwidth_mb_s * 1e6) * 1000.0
    return np.asarray(head_time_ms) / ideal


def overall_write_cost(write_cost: float | Sequence[float], ti: float | Sequence[float]):
    """OWC = WriteCost x TransferInefficiency (WriteCost depends only on the workload)."""
    return np.asarray(write_cost, dtype=float) * np.asarray(ti, dtype=float)


def lfs_summary(ti_aligned: float, ti_unaligned: float) -> dict:
    """Both readings of the paper's "44 % lower overall write cost" at one segment size."""
    return {
        "ti_aligned": ti_aligned,
        "ti_unaligned": ti_unaligned,
        "unaligned_over_aligned": ti_unaligned / ti_aligned,
        "owc_lower_pct": 100.0 * (1.0 - ti_aligned / ti_unaligned),
        "owc_higher_pct": 100.0 * (ti_unaligned / ti_aligned - 1.0),
    }
