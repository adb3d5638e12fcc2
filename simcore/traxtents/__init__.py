"""Track-aligned extents: track boundaries, zero-latency access and track-aligned I/O.

Seed: Schindler, Griffin, Lumb and Ganger, "Track-aligned Extents: Matching
Access Patterns to Disk Drive Characteristics", FAST 2002 (notes/002 in the
shared docs). This module holds four things:

1. **Formulas** the paper states or that follow from it: the head-switch
   probability ``(N - 1) / SPT`` (§2.2), the ordinary expected rotational
   latency ``(SPT - 1) / (2 SPT)`` and the zero-latency one ``(1 - f^2) / 2``
   for a track-aligned request covering a fraction ``f`` of a track (Figure 3).
2. **Serving a read with an explicit host-bus delivery model** (:func:`serve`).
   The media part is :meth:`simcore.disk.access.Mechanism.access`, called piece by
   piece; this module adds only *when each sector can cross the bus*. The paper
   (§2.2, §5.2, Figure 7) says a zero-latency disk reads a track out of order
   into its buffer, "assembled in ascending LBN order, and sent to the host", so
   for a track-aligned read "the in-order bus transfer does not overlap the
   media transfer" (3 % overlap). That is the ``"assembled"`` model and the
   default here. ``"streaming"`` (each sector leaves as soon as it and all
   before it are in the buffer: the best any in-order bus can do),
   ``"out-of-order"`` (SCSI MODIFY DATA POINTER, which the paper says no disk
   implemented) and ``"none"`` (an infinitely fast bus, Figure 8) are there to
   compare. :class:`QueuedService` plugs this into :func:`simcore.run` for
   *onereq* and *tworeq* (with a queued request the next seek overlaps the
   previous request's bus transfer, Figure 5).
3. **Allocation**: traxtents of a zone, FFS excluded blocks (§4.1, Figure 4),
   splitting a sequential run at track boundaries (clipped read-ahead).
4. **Finding track boundaries**: the paper's general timing algorithm (§3.1,
   with its off-by-one fixed: the next track starts at ``S + N* - 1`` where
   ``N*`` is the smallest read that jumps) against a disk seen only through
   timed reads, and the SCSI address-translation fallback (§3.2), each
   counting the probes it needs.

Units: sectors (512 B) and milliseconds, like the rest of :mod:`simcore`.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import takewhile
from typing import NamedTuple, Protocol

import numpy as np

from ..disk.access import Access, HeadState, Mechanism
from ..disk.layout import Layout
from ..records import WRITE, Request

BUS_MODELS = ("assembled", "streaming", "out-of-order", "none", "access")

# -- 1. formulas ----------------------------------------------------------


def head_switch_probability(sectors: int, spt: int) -> float:
    """Expected head switches of an ``sectors``-long request at a uniformly random start.

    Schindler et al. §2.2: ``P_hs = (N - 1) / SPT`` (N = 128, SPT = 384 gives
    127/384, "every third access"). Each of the N - 1 gaps between adjacent
    sectors is a track boundary with probability 1/SPT, so the same expression
    counts the expected switches when N > SPT.
    """
    if sectors < 1 or spt < 1:
        raise ValueError("sectors and spt must be at least 1")
    return (sectors - 1) / spt


def ordinary_latency_rev(spt: int) -> float:
    """Expected rotational latency of an ordinary disk, in revolutions: (SPT - 1) / (2 SPT)."""
    return (spt - 1) / (2 * spt)


def zero_latency_rev(fraction: float) -> float:
    """Expected rotational latency (revolutions) of a zero-latency, track-aligned read.

    The read covers ``fraction`` f of one track and the head lands at a uniform
    phase. With probability f it lands inside the run and reads it all in one
    revolution (latency counted as ``1 - f``); otherwise it waits uniform on
    ``[0, 1 - f]``. The mean is ``f (1 - f) + (1 - f)^2 / 2 = (1 - f^2) / 2``.
    """
    f = float(fraction)
    if not 0.0 <= f <= 1.0:
        raise ValueError("fraction must be in [0, 1]")
    return (1.0 - f * f) / 2.0


def max_streaming_efficiency(rev_ms: float, head_switch_ms: float) -> float:
    """Best possible efficiency of a long sequential read: no data moves during a switch."""
    return rev_ms / (rev_ms + head_switch_ms)


# -- 2. serving a read with a bus-delivery model --------------------------


class Service(NamedTuple):
    """One request served by :func:`serve` (ms)."""

    seek_ms: float
    rotation_ms: float
    transfer_ms: float
    start_ms: float
    media_end_ms: float
    bus_end_ms: float
    cylinder: int
    surface: int
    wrapped: int  # pieces read out of order by zero-latency firmware

    @property
    def bus_tail_ms(self) -> float:
        """Bus time after the media finished: what a lone request waits for the host."""
        return self.bus_end_ms - self.media_end_ms


class _Group(NamedTuple):
    first: int  # index of the group's first sector in the request (LBA order)
    count: int
    avail_ms: float  # when the group's first sector is in the buffer
    step_ms: float  # time between consecutive sectors becoming available (0: all at once)


def _bus_end(groups: list[_Group], n: int, b: float, bus_free: float) -> float:
    """End of an in-order bus transfer of ``n`` sectors, ``b`` ms each.

    Sector ``i`` leaves at ``max(avail_i, end of sector i-1)``, so the last one
    leaves at ``max_i(avail_i + (n - i) b)``; within a group the availability is
    linear in ``i``, so only the group's two ends can hold the maximum.
    """
    end = bus_free + n * b
    for g in groups:
        end = max(end, g.avail_ms + (n - g.first) * b)
        if g.count > 1:
            last = g.first + g.count - 1
            end = max(end, g.avail_ms + (g.count - 1) * g.step_ms + (n - last) * b)
    return end


def _bus_end_any_order(groups: list[_Group], n: int, b: float, bus_free: float) -> float:
    """Bus end when sectors may cross in any order (MODIFY DATA POINTER)."""
    times = np.concatenate([g.avail_ms + np.arange(g.count) * g.step_ms for g in groups])
    times.sort()
    return float(max(bus_free + n * b, np.max(times + (n - np.arange(n)) * b)))


def sector_times(mech: Mechanism, lba: int, sectors: int, start_ms: float,
                 head: HeadState, is_write: bool = False) -> np.ndarray:
    """When each sector of a request comes off the platter, in LBA order (ms).

    The same per-piece timing :func:`serve` uses (a zero-latency piece that
    wrapped reads its tail first); for figures of the read order.
    """
    groups, *_ = _media(mech, lba, sectors, start_ms, head, is_write, split=True)
    out = np.empty(sectors)
    for g in groups:
        out[g.first:g.first + g.count] = g.avail_ms + np.arange(g.count) * g.step_ms
    return out


def _media(mech: Mechanism, lba: int, sectors: int, start_ms: float, head: HeadState,
           is_write: bool, split: bool):
    """Media timing piece by piece; ``split=False`` lumps each wrapped piece (assembled)."""
    rev = mech.rev_ms
    zl = mech.zl_write if is_write else mech.zl_read
    t = start_ms
    cyl, surf = head.cylinder, head.surface
    seek = rot = xfer = 0.0
    groups: list[_Group] = []
    wrapped = 0
    index = 0
    piece_lba = lba
    for piece in mech.layout.pieces(lba, sectors):
        a: Access = mech.access(piece_lba, piece.count, is_write, t, HeadState(cyl, surf))
        spt = piece.sectors_per_track
        st = rev / spt
        end = a.end_ms - a.interface_ms
        off = 0
        if zl:
            pos = ((mech.phase0 + (t + a.seek_ms) / rev) % 1.0) * spt
            q = math.ceil(pos - 1e-9) % spt
            off = (q - piece.first_sector) % spt
            if not 0 < off < piece.span:
                off = 0
        c = piece.count
        if off:
            wrapped += 1
            k = min(off, c)  # LBAs before the landing point (slips ignored for the bus)
            if not split:
                groups.append(_Group(index, c, end, 0.0))
            else:
                read_start = end - spt * st  # one revolution, from the landing point round
                # sectors [k, c) come first, then the head wraps to [0, k)
                groups.append(_Group(index + k, c - k, read_start + st, st))
                groups.append(_Group(index, k, end - (k - 1) * st, st))
        else:
            groups.append(_Group(index, c, end - (c - 1) * st, st))
        seek += a.seek_ms
        rot += a.rotation_ms
        xfer += a.transfer_ms
        cyl, surf = a.cylinder, a.surface
        t = end
        index += c
        piece_lba += c
    return groups, seek, rot, xfer, t, cyl, surf, wrapped


def serve(mech: Mechanism, lba: int, sectors: int, start_ms: float, head: HeadState,
          bus: str = "assembled", is_write: bool = False, bus_free_ms: float = 0.0) -> Service:
    """Serve a read: media by :meth:`Mechanism.access` piece by piece, then the bus.

    Chaining one :meth:`~Mechanism.access` call per track piece performs the
    same arithmetic as one call for the whole request (same media end, same
    breakdown), and it tells where each piece's sectors are in time. Sectors of
    a piece that zero-latency firmware read out of order ("wrapped": the head
    landed inside the run) are, in the default ``"assembled"`` model, ready for
    the host only when the piece is complete. ``bus_free_ms`` is when the bus
    finished the previous request (in-order delivery cannot start earlier).
    ``bus="access"`` keeps the interface time :meth:`Mechanism.access` itself
    computes. Writes are served with ``bus="none"``: their data is in the drive's
    buffer before the media part starts (queued writes, as in tworeq).
    """
    if bus not in BUS_MODELS:
        raise ValueError(f"unknown bus model {bus!r}; choose one of {', '.join(BUS_MODELS)}")
    if is_write and bus not in ("none", "access"):
        raise ValueError("writes are served with bus='none' (data already buffered) or 'access'")
    groups, seek, rot, xfer, media_end, cyl, surf, wrapped = _media(
        mech, lba, sectors, start_ms, head, is_write, split=bus != "assembled")
    b = mech.bus_sector_ms
    if bus == "none" or b == 0.0:
        bus_end = media_end
    elif bus == "access":
        full = mech.access(lba, sectors, is_write, start_ms, head)
        bus_end = max(full.end_ms, bus_free_ms + sectors * b)
    elif bus == "out-of-order":
        bus_end = _bus_end_any_order(groups, sectors, b, bus_free_ms)
    else:
        bus_end = _bus_end(groups, sectors, b, bus_free_ms)
    return Service(seek, rot, xfer, start_ms, media_end, bus_end, cyl, surf, wrapped)


class QueuedService:
    """A ``service=`` function for :func:`simcore.run` with an explicit bus model.

    ``queued=False`` is *onereq*: the media part starts after the firmware
    overhead and the host waits for the bus (head time = response time).
    ``queued=True`` is *tworeq*, with a request always waiting in the drive's
    queue: its overhead and seek start as soon as the head has finished the
    previous request's media transfer, while that request's data still crosses
    the bus (Figure 5; head time = T2_end - T1_end).
    """

    def __init__(self, mech: Mechanism, bus: str = "assembled", queued: bool = False):
        self.mech, self.bus, self.queued = mech, bus, queued
        ov = mech.profile.overheads
        self.read_ov, self.write_ov = ov.read_miss_ms, ov.write_ms
        self.media_free = 0.0
        self.bus_free = 0.0
        self.services: list[Service] = []

    def __call__(self, req: Request, start_ms: float, head: HeadState):
        is_write = req.op == WRITE
        overhead = self.write_ov if is_write else self.read_ov
        begin = max(self.media_free, req.arrival_ms) if self.queued else start_ms
        bus = "none" if is_write and self.bus != "access" else self.bus
        s = serve(self.mech, req.lba, req.sectors, begin + overhead, head, bus=bus,
                  is_write=is_write, bus_free_ms=max(self.bus_free, start_ms))
        self.media_free, self.bus_free = s.media_end_ms, s.bus_end_ms
        self.services.append(s)
        acc = Access(s.seek_ms, s.rotation_ms, s.transfer_ms, s.bus_tail_ms, s.bus_end_ms,
                     s.cylinder, s.surface)
        return (begin - start_ms) + overhead, acc, False


def figure2_profile(zero_latency: bool = True, rpm: float = 10_000.0, slip: bool = True,
                    interface_mb_s: float = 0.0):
    """The paper's Figure 2 disk: 200 sectors per track, two surfaces, track skew 20.

    With ``slip`` a defect between LBNs 580 and 581 is slipped, so the fourth
    track starts at LBN 599. Ten cylinders, a 0.5 ms head switch (well inside
    the skew) and a linear seek; the firmware reads with zero latency or not.
    """
    from ..disk.profile_loader import profile_from_dict

    zone = {"first_cylinder": 0, "last_cylinder": 9, "sectors_per_track": 200,
            "track_skew": 20, "cylinder_skew": 20}
    if slip:
        zone.update({"slips": [581], "spares": 1})
    data = {
        "id": "figure2", "name": "Schindler et al. Figure 2 example disk",
        "source": "Schindler et al. 2002, Figure 2(b) and §2.1",
        "geometry": {"rpm": rpm, "surfaces": 2, "zones": [zone]},
        "mechanics": {"head_switch_ms": 0.5,
                      "seek": {"model": "linear", "base_ms": 1.0, "per_cylinder_ms": 0.1}},
        "firmware": {"zero_latency_reads": zero_latency, "zero_latency_writes": zero_latency},
    }
    if interface_mb_s:
        data["interface"] = {"name": "bus", "rate_mb_s": interface_mb_s}
    return profile_from_dict(data, "<figure2>")


# -- 3. allocation --------------------------------------------------------


class Traxtent(NamedTuple):
    """A run of LBAs that is exactly one track: ``start`` and ``length`` in sectors."""

    start: int
    length: int


@lru_cache(maxsize=64)
def zone_track_starts(layout: Layout, zone: int) -> tuple[int, ...]:
    """First LBA of every track of one zone (the ground truth the detectors look for)."""
    lo, hi = layout.zone_lba_range(zone)
    if not layout.profile.zones[zone].slips:  # whole tracks; spares only shorten the last
        return tuple(range(lo, hi, layout.sectors_per_track(zone)))
    first = layout.track_extent(lo)[0]
    starts: list[int] = []
    lba = first
    while lba < hi:
        starts.append(lba)
        lba += layout.track_extent(lba)[1]
    return tuple(starts)


def traxtents(boundaries: Sequence[int], end: int) -> list[Traxtent]:
    """Traxtents from sorted track starts; the last one runs to ``end``."""
    b = list(boundaries)
    return [Traxtent(s, (b[i + 1] if i + 1 < len(b) else end) - s) for i, s in enumerate(b)]


def excluded_blocks(boundaries: Sequence[int], block_sectors: int, first_sector: int,
                    blocks: int) -> list[int]:
    """FFS blocks that straddle a track boundary (§4.1): the allocator marks them used.

    Block ``k`` covers sectors ``first_sector + k*block_sectors`` and the next
    ``block_sectors - 1``. Figure 4: 16-sector blocks from sector 10, a track
    starting at LBA 1670; block 101 is 1626-1641, block 103 (1658-1673) is excluded.
    """
    b = sorted(boundaries)
    out = []
    for k in range(blocks):
        lo = first_sector + k * block_sectors
        hi = lo + block_sectors - 1
        i = bisect_right(b, lo)  # first boundary after lo
        if i < len(b) and b[i] <= hi:
            out.append(k)
    return out


def split_at_boundaries(lba: int, sectors: int, boundaries: Sequence[int]) -> list[tuple[int, int]]:
    """Cut a sequential run into requests that never cross a track boundary.

    This is the traxtent-FFS read-ahead rule ("no read-ahead crosses a track
    boundary"): each returned ``(lba, sectors)`` lies on one track.
    """
    b = sorted(boundaries)
    out = []
    end = lba + sectors
    while lba < end:
        i = bisect_right(b, lba)
        stop = min(end, b[i]) if i < len(b) else end
        out.append((lba, stop - lba))
        lba = stop
    return out


# -- 4. finding track boundaries ------------------------------------------


class TimedReader(Protocol):
    """All a timing-based detector may use: read ``sectors`` from ``lba``, get ms.

    ``delay_ms`` asks the reader to wait that long after its synchronising
    reference read before issuing the probe.
    """

    revolution_ms: float

    def read(self, lba: int, sectors: int, delay_ms: float = 0.0) -> float: ...


@dataclass
class SimulatedReader:
    """A disk seen only through timed reads (the host's view of :func:`serve`).

    Each probe is synchronised with the rotation the way a host can do it
    without knowing the geometry: first a one-sector *reference* read of the
    probe's own start ``S`` (which also puts the head on S's track), then,
    ``delay_ms`` after it completes, the probe. The head then arrives at the
    same angle relative to ``S`` every time. Reference reads are counted
    separately from probes; ``elapsed_ms`` is the simulated time spent.
    """

    mech: Mechanism
    bus: str = "assembled"
    probes: int = 0
    reference_reads: int = 0
    elapsed_ms: float = 0.0
    _t: float = 0.0
    _head: HeadState = field(default_factory=HeadState)

    @property
    def revolution_ms(self) -> float:
        return self.mech.rev_ms

    def _one(self, lba: int, sectors: int) -> float:
        ov = self.mech.profile.overheads.read_miss_ms
        s = serve(self.mech, lba, sectors, self._t + ov, self._head, self.bus,
                  bus_free_ms=self._t)
        took = s.bus_end_ms - self._t
        self._t = s.bus_end_ms
        self._head = HeadState(s.cylinder, s.surface)
        self.elapsed_ms += took
        return took

    def read(self, lba: int, sectors: int, delay_ms: float = 0.0) -> float:
        self._one(lba, 1)
        self.reference_reads += 1
        self._t += delay_ms
        self.elapsed_ms += delay_ms
        self.probes += 1
        return self._one(lba, sectors)


@dataclass
class DetectionStep:
    """One probe of the timing detector, for the book's step-by-step detective."""

    start: int
    sectors: int
    ms: float
    jumped: bool
    phase: str  # "calibrate", "baseline", "verify", "grow" or "bisect"
    excess_ms: float = 0.0  # time beyond the single-track line T(1) + (N - 1) s


@dataclass
class Detection:
    """Track starts found, and what finding them cost."""

    starts: list[int]
    probes: int
    steps: list[DetectionStep]
    elapsed_ms: float = 0.0
    reference_reads: int = 0
    fallbacks: int = 0  # tracks where the previous track's size did not fit
    calibrations: int = 0
    delay_ms: float = 0.0  # the last calibrated issue delay (rotational synchronisation)

    @property
    def tracks(self) -> int:
        return max(0, len(self.starts) - 1)

    @property
    def probes_per_track(self) -> float:
        return self.probes / self.tracks if self.tracks else float("nan")


def detect_by_timing(reader: TimedReader, start: int = 0, stop: int | None = None,
                     tracks: int | None = None, threshold_ms: float = 0.3,
                     max_sectors: int = 1 << 14, record: bool = True) -> Detection:
    """The paper's general track-boundary algorithm (§3.1), driven by timed reads only.

    From a known track start ``S``, a read of ``N`` sectors from ``S`` grows
    linearly in ``N`` (one sector time per sector) while it stays on S's track;
    a read that crosses into the next track also waits for the skew (about a
    head switch), so it *jumps* above the line ``T(1) + (N - 1) s``. The
    smallest jumping ``N*`` crosses by one sector, so the next track starts at
    ``S + N* - 1`` (the paper writes ``S + N``, one too far). ``N*`` is found by
    the paper's two enhancements: *fast verification* (probes at the previous
    track's size, ``SPT`` and ``SPT + 1``) and, when that fails (first track,
    zone change, defect), a *binary search* (double an upper bound, then bisect).

    Rotational synchronisation: probes are issued at the same offset in the
    rotation. Here the offset is chosen so the head arrives just as ``S``
    comes round (a binary search on the issue delay for the smallest one-sector
    read time, redone when the fast verification fails). Arriving anywhere else
    would let zero-latency firmware read the run out of order, and an assembled
    in-order bus transfer can then hide the head switch entirely.
    """
    pr = _Prober(reader, threshold_ms, record)
    starts = [start]
    spt_prev: int | None = None
    s = start
    pr.calibrate(s)
    while (tracks is None or len(starts) <= tracks) and (stop is None or s < stop):
        limit = (stop - s) if stop is not None else max_sectors
        n_star = None
        if spt_prev is not None and spt_prev + 1 <= limit and (
                not pr.jumped(s, spt_prev, "verify") and pr.jumped(s, spt_prev + 1, "verify")):
            n_star = spt_prev + 1
        if n_star is None:
            if spt_prev is not None:
                pr.fallbacks += 1
                pr.calibrate(s)
            n_star = _search_jump(pr, s, limit)
            if n_star is None:
                break  # the rest of the range is one track (or empty): stop here
        spt_prev = n_star - 1
        s = s + n_star - 1  # the off-by-one fix: S + N* - 1, not S + N*
        starts.append(s)
    return Detection(starts, pr.probes, pr.steps, getattr(reader, "elapsed_ms", 0.0),
                     getattr(reader, "reference_reads", 0), pr.fallbacks, pr.calibrations,
                     pr.delay)


class _Prober:
    """:func:`detect_by_timing`'s timed reads: rotationally synchronised probes, the line
    ``T(1) + (N - 1) s`` they are judged against, and the counts and steps it reports."""

    def __init__(self, reader: TimedReader, threshold_ms: float, record: bool):
        self.reader, self.threshold_ms, self.record = reader, threshold_ms, record
        self.rev = reader.revolution_ms
        self.steps: list[DetectionStep] = []
        self.probes = 0
        self.fallbacks = self.calibrations = 0
        self.delay = 0.0
        self.base = (0.0, 0.0)  # T(1) and the sector time s at the calibrated delay

    def probe(self, s: int, n: int, phase: str, d: float | None = None) -> float:
        ms = self.reader.read(s, n, self.delay if d is None else d)
        self.probes += 1
        return ms

    def jumped(self, s: int, n: int, phase: str) -> bool:
        """Whether a read of ``n`` sectors from ``s`` jumps above the line (crosses a track)."""
        ms = self.probe(s, n, phase)
        t1, slope = self.base
        excess = ms - t1 - (n - 1) * slope
        j = excess > self.threshold_ms
        if self.record:
            self.steps.append(DetectionStep(s, n, ms, j, phase, excess))
        return j

    def calibrate(self, s: int) -> None:
        """Find the issue delay at which the head arrives just before ``s``."""
        rev = self.rev
        self.calibrations += 1
        t0 = self.probe(s, 1, "calibrate", 0.0)
        lo, hi = 0.0, rev
        while hi - lo > rev / 8192:
            mid = (lo + hi) / 2
            ms = self.probe(s, 1, "calibrate", mid)
            # before the edge the read gets shorter one-for-one with the delay;
            # past it the head has just missed S and waits a whole revolution
            if ms > t0 - mid + rev / 2:
                hi = mid
            else:
                lo = mid
            if self.record:
                self.steps.append(DetectionStep(s, 1, ms, ms > t0 - mid + rev / 2,
                                                "calibrate"))
        # step back from the edge a little: arriving exactly on it, rounding decides
        # between no wait and a whole revolution
        self.delay = max(0.0, lo - rev / 2048)
        t1 = self.probe(s, 1, "baseline")
        t2 = self.probe(s, 2, "baseline")
        self.base = (t1, t2 - t1)
        if self.record:
            self.steps.append(DetectionStep(s, 1, t1, False, "baseline"))
            self.steps.append(DetectionStep(s, 2, t2, False, "baseline"))


def _search_jump(pr: _Prober, s: int, limit: int) -> int | None:
    """The paper's binary search for ``N*`` from ``s``: double an upper bound, then bisect;
    None when no read of up to ``limit`` sectors jumps."""
    lo, hi = 2, 4  # T(1), T(2) are on the line by construction
    while hi <= limit and not pr.jumped(s, hi, "grow"):
        lo, hi = hi, hi * 2
    if hi > limit:
        if limit <= lo or not pr.jumped(s, limit, "grow"):
            return None
        hi = limit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if pr.jumped(s, mid, "bisect"):
            hi = mid
        else:
            lo = mid
    return hi


def find_track_jumps(sizes: Sequence[int], times_ms: Sequence[float], min_jump_ms: float = 0.2,
                     noise_factor: float = 6.0, spacing_tolerance: float = 0.1,
                     start_on_boundary: bool = True) -> dict:
    """Decide from a timing scan whether a device has tracks, and where they end.

    ``times_ms[i]`` is the (minimum over repeats) time of a read of
    ``sizes[i]`` blocks from one start. Between neighbouring sizes the time
    should grow by a steady amount per block; a track boundary adds a step.
    A step counts as a *jump* only when it exceeds both ``min_jump_ms`` and
    ``noise_factor`` times the scan's own noise (a robust spread of the
    steps). A device is reported to have tracks only when at least two jumps
    repeat at a consistent spacing (within ``spacing_tolerance``); an SSD, a
    virtual disk or a loop device shows none, and then no boundary is
    reported (note 002 §7.4 L6). When the scan starts on a track boundary
    (``start_on_boundary``: LBA 0, or a start found earlier) the start counts
    as the first boundary; otherwise three jumps are needed.
    """
    n = np.asarray(sizes, dtype=float)
    t = np.asarray(times_ms, dtype=float)
    if len(n) < 4 or len(n) != len(t):
        raise ValueError("need at least four (size, time) points of equal length")
    dn = np.diff(n)
    dt = np.diff(t)
    slope = float(np.median(dt / dn))
    step = dt - slope * dn
    mad = float(np.median(np.abs(step - np.median(step))))
    noise = 1.4826 * mad
    limit = max(min_jump_ms, noise_factor * noise)
    idx = np.nonzero(step > limit)[0]
    # a jump between sizes[i] and sizes[i+1]: the boundary is crossed by the larger read
    jumps = [int(n[i + 1]) for i in idx]
    marks = ([0] if start_on_boundary else []) + jumps
    spacings = [int(x) for x in np.diff(marks)] if len(marks) > 2 else []
    grid = float(np.max(dn))
    consistent = bool(spacings) and (max(spacings) - min(spacings) <= max(
        spacing_tolerance * float(np.median(spacings)), 1.5 * grid))
    has_tracks = bool(len(jumps) >= 2 and consistent)
    between = spacings[1:] if start_on_boundary else spacings  # jump to jump: same grid offset
    track = float(np.median(between)) if has_tracks else None
    return {
        "has_tracks": has_tracks,
        "jumps": jumps,
        "track_blocks": track,
        "jump_ms": float(np.median(step[idx])) if len(idx) else 0.0,
        "noise_ms": noise,
        "threshold_ms": limit,
        "ms_per_block": slope,
        "verdict": (f"tracks: jumps every {track:.0f} blocks" if has_tracks else
                    "no tracks here: no jump that is both significant and repeats at a "
                    "consistent spacing"),
    }


def timing_scan(reader: TimedReader, start: int, sizes: Sequence[int],
                delay_ms: float | None = None) -> list[float]:
    """Time reads of each size from ``start`` (rotationally synchronised if ``delay_ms``)."""
    return [reader.read(start, int(n), delay_ms or 0.0) for n in sizes]


@dataclass
class Translator:
    """SCSI SEND/RECEIVE DIAGNOSTIC "translate address": LBA -> (cylinder, head), counted."""

    layout: Layout
    calls: int = 0

    def __call__(self, lba: int) -> tuple[int, int]:
        self.calls += 1
        a = self.layout.locate(lba)
        return a.cylinder, a.surface


def detect_by_translation(translate: Callable[[int], tuple[int, int]], start: int,
                          stop: int) -> Detection:
    """The expertise-free SCSI fallback (§3.2): the general algorithm with translations.

    Given a track start ``S`` on track ``(c, h)`` and the previous track's size
    ``SPT``, translate ``S + SPT - 1`` (still on ``(c, h)``?) and ``S + SPT`` (on
    another track?): two translations confirm the next start. Otherwise binary
    search for the first LBA off ``(c, h)``. The paper reports 2.0-2.3
    translations per track.
    """
    calls = 0

    def tr(lba: int) -> tuple[int, int]:
        nonlocal calls
        calls += 1
        return translate(lba)

    starts = [start]
    s = start
    here = tr(s)
    spt_prev: int | None = None
    fallbacks = 0
    while s < stop:
        nxt = None
        if spt_prev is not None and s + spt_prev < stop and tr(s + spt_prev - 1) == here:
            other = tr(s + spt_prev)
            if other != here:
                nxt, here = s + spt_prev, other
        if nxt is None:
            if spt_prev is not None:
                fallbacks += 1
            lo, hi, step = s, None, 1  # lo: known on track (c, h)
            while hi is None:
                probe = min(s + step, stop)
                if probe >= stop:
                    hi = stop
                    break
                if tr(probe) == here:
                    lo, step = probe, step * 2
                else:
                    hi = probe
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if tr(mid) == here:
                    lo = mid
                else:
                    hi = mid
            nxt = hi
            if nxt < stop:
                here = tr(nxt)
        spt_prev = nxt - s
        s = nxt
        starts.append(s)
    return Detection(starts, calls, [], 0.0, 0, fallbacks)


def boundaries_in(starts: Iterable[int], lo: int, hi: int) -> list[int]:
    """The starts that fall in ``[lo, hi)``."""
    return list(takewhile(lambda x: x < hi, (s for s in starts if s >= lo)))
