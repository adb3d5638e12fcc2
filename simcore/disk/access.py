"""One request's trip under the head: seek, rotational wait, media transfer.

Pure arithmetic over the layout and the seek curve, with the platter angle a
continuous function of simulated time. The drive process calls it once per
request; schedulers call :meth:`Mechanism.positioning_ms` to compare
candidates. Seeds: Gray 2000 §2.3-2.6; Schindler et al. 2002 §2.2 (head
switches inside a transfer, zero-latency access); DiskSim's positioning rule
``max(seek, head switch)`` and write settle on every non-zero move.

Breakdown of a request (all ms): ``seek`` holds every arm move and head switch
(also those inside a multi-track transfer), ``rotation`` every wait for a
sector to come round (skew gaps included), ``transfer`` the time sectors pass
under the head, ``interface`` the bus time that does not overlap the media.
"""

from __future__ import annotations

import math
from functools import lru_cache
from math import ceil
from typing import Any, NamedTuple

import numpy as np

from .layout import SECTOR_BYTES, Layout, StraightTrack, TrackPiece
from .mechanics import SeekCurve, seek_for
from .profile import DiskProfile
from .profile_loader import load_disk
from .sectors import SectorFormat

_new_object = object.__new__  # (Mechanism._track makes TrackPlans without calling the class)


class Access(NamedTuple):
    """The mechanical cost of one request and where the head ends up."""

    seek_ms: float
    rotation_ms: float
    transfer_ms: float
    interface_ms: float
    end_ms: float
    cylinder: int
    surface: int


class PlanPiece(NamedTuple):
    """One track's part of a :class:`Plan`: where the head goes and when.

    ``first`` indexes the plan's first sector on this track; the arm (or the
    head switch) moves during ``[move_start_ms, move_end_ms)``, which cannot be
    aborted; the head then waits and reads or writes until ``end_ms``. ``read_ms`` is
    when the first sector it reads begins to pass under the head (the end of the
    rotational wait); from then on a sector boundary passes every ``sector_ms``.
    """

    first: int
    move_start_ms: float
    move_end_ms: float
    end_ms: float
    cylinder: int
    surface: int
    sector_ms: float
    read_ms: float


class Plan(NamedTuple):
    """A media access sector by sector: what a cache or a bus needs to overlap with it.

    ``done_ms[k]`` is when the ``k``-th sector (in LBA order) is complete: read
    into the buffer or written onto the platter. With zero-latency access the
    sectors of the first track may come off the platter out of order; ``done_ms``
    gives the time each is available *in LBA order* (a running maximum), which
    is what a buffer handing data out in order can use. The totals equal
    :meth:`Mechanism.access`'s for the same request.
    """

    done_ms: np.ndarray
    pieces: list[PlanPiece]
    seek_ms: float
    rotation_ms: float
    transfer_ms: float
    end_ms: float
    cylinder: int
    surface: int

    def sector_ms_each(self) -> np.ndarray:
        """How long each sector takes to pass under the head (its track's ``sector_ms``), in
        LBA order: ``done_ms - sector_ms_each()`` is when each begins to pass."""
        n = len(self.done_ms)
        step = np.empty(n)
        bounds = [p.first for p in self.pieces] + [n]
        for p, a, b in zip(self.pieces, bounds, bounds[1:], strict=False):
            step[a:b] = p.sector_ms
        return step


_ONES = np.arange(1, 1025, dtype=float)  # 1, 2, 3, ...: sector numbers for the times


def _ones(n: int) -> np.ndarray:
    """1.0, 2.0, ..., n (a view of a kept array: never write to it)."""
    global _ONES
    if n > len(_ONES):
        _ONES = np.arange(1, 2 * n + 1, dtype=float)
    return _ONES[:n]


def join_track_plans(tracks: list[TrackPlan]) -> Plan:
    """The :class:`Plan` of consecutive tracks' parts (:meth:`Mechanism.plan` of a transfer
    over several tracks is this of its :class:`TrackPlan` s): their sector times one after
    the other, as a running maximum (a wrapped first track ends at its head's last time:
    the running maximum only guards), a :class:`PlanPiece` per track, and the totals."""
    sectors = 0
    for tp in tracks:
        sectors += tp.count
    seek_total = rot_total = xfer_total = 0.0
    done = np.empty(sectors)
    pieces: list[PlanPiece] = []
    k = 0
    for tp in tracks:
        seek_total += tp.move_ms
        done[k:k + tp.count] = tp.times()
        rot_total += tp.rotation_ms
        xfer_total += tp.transfer_ms
        pieces.append(PlanPiece(k, tp.move_start_ms, tp.move_end_ms, tp.end_ms, tp.cylinder,
                                tp.surface, tp.sector_ms, tp.read_ms))
        k += tp.count
    np.maximum.accumulate(done, out=done)
    last = tracks[-1]
    return Plan(done, pieces, seek_total, rot_total, xfer_total, last.end_ms, last.cylinder,
                last.surface)


def join_track_times(tracks: list[TrackPlan]) -> list[float]:
    """``join_track_plans(tracks).done_ms.tolist()`` without the arrays: the tracks' times one
    after the other (:meth:`TrackPlan.times_list`, the same floats as their arrays) as a
    running maximum, which picks one of the floats it compares, as ``np.maximum`` does."""
    out: list[float] = []
    top = -math.inf
    for tp in tracks:
        for x in tp.times_list():
            if x > top:
                top = x
            out.append(top)
    return out


class TrackPlan:
    """One track's part of a :class:`Plan`, as the numbers its sector times follow from.

    In order (``wrap`` is -1), sector ``k`` is done at ``base_ms + (k + 1) * sector_ms``;
    a zero-latency read that landed inside its run reads the run's tail first: then the
    first ``wrap`` sectors are done at ``base_ms + (k + 1) * sector_ms`` and the rest,
    read before them, are handed out with the last of those (``base_ms + wrap *
    sector_ms``). :meth:`times` gives the array :meth:`Mechanism.plan` puts in
    ``done_ms``, :meth:`done_by` what ``np.searchsorted(done_ms, t, "right")`` gives,
    without the array; :meth:`plan` the whole :class:`Plan`, the same to the bit.
    ``read_ms`` is when the head begins to read its first sector (``base_ms`` in order;
    the first sector boundary after the move for a zero-latency read that landed inside
    its run).

    A class with slots rather than a NamedTuple: a buffered read makes two and reads their
    fields many times, and CPython 3.11 reads a slot at a fraction of the cost of a
    NamedTuple's field (a descriptor its attribute look-up does not specialise). Made by
    :meth:`Mechanism._track` alone, which sets the slots itself, not by calling the class:
    CPython 3.11 runs a Python ``__init__`` in a frame of its own, at several times the cost
    of the call of a function (whose frame the interpreter runs inline), and even a maker
    function's call, two per buffered read miss, costs more than the stores it holds.
    """

    __slots__ = ("base_ms", "count", "cylinder", "end_ms", "move_end_ms", "move_ms",
                 "move_start_ms", "read_ms", "rotation_ms", "sector_ms", "surface",
                 "transfer_ms", "wrap")

    def __repr__(self) -> str:
        return (f"TrackPlan({self.count} sectors on ({self.cylinder}, {self.surface}), move "
                f"{self.move_start_ms}-{self.move_end_ms}, base {self.base_ms}, step "
                f"{self.sector_ms}, wrap {self.wrap}, end {self.end_ms})")

    def time_of(self, k: int) -> float:
        """When sector ``k`` (0-based, in LBA order) is done."""
        w = self.wrap
        if w < 0 or k < w:
            return self.base_ms + (k + 1) * self.sector_ms
        return self.base_ms + w * self.sector_ms

    def times(self) -> np.ndarray:
        n, w, step, base = self.count, self.wrap, self.sector_ms, self.base_ms
        if w < 0:
            times = _ones(n) * step
            times += base
            return times
        done = np.empty(n)
        done[:w] = base + _ones(w) * step
        done[w:] = base + w * step
        return done

    def times_list(self) -> list[float]:
        """:meth:`times` as Python floats, without the array: the same operations in the same
        order (``k * sector_ms + base_ms``), so the same numbers to the bit."""
        n, w, step, base = self.count, self.wrap, self.sector_ms, self.base_ms
        if w < 0:
            return [k * step + base for k in range(1, n + 1)]
        return [base + k * step for k in range(1, w + 1)] + [base + w * step] * (n - w)

    def latest_less(self, b: float) -> float | None:
        """The largest of ``times_list()[j] - float(j) * b`` (when a burst sending one sector
        every ``b`` may start at the latest: :meth:`simcore.drive.Drive._burst_start`), from
        the ends of the runs alone, without the list; None when that shortcut is not sure.

        The times rise by ``sector_ms`` a sector along each run, so where the media is
        faster than the bus's turn by far more than rounding (``sector_ms - b`` beyond a
        millionth of a millionth of the largest number), the values rise along the first
        run and fall (``b`` >= 0) along the repeated time of a wrapped read's head: the
        largest is the first run's last or the second run's first, computed with the same
        operations as the list, so the same float."""
        n, w, step, base = self.count, self.wrap, self.sector_ms, self.base_ms
        if n <= 0 or b < 0.0 or not step - b > 1e-12 * (abs(base) + n * (step + b)):
            return None
        if w < 0:
            return (n * step + base) - float(n - 1) * b
        last = base + w * step  # the time of sectors w.. (and of sector w - 1)
        best = last - float(w) * b if w < n else None
        if w > 0:
            first = last - float(w - 1) * b
            if best is None or first > best:
                best = first
        return best

    def done_by(self, t: float) -> int:
        """How many sectors are done at ``t`` (their times ``<= t``)."""
        n, w, step, base = self.count, self.wrap, self.sector_ms, self.base_ms
        if w >= 0:
            if t >= base + w * step:
                return n
            n = w
        if n <= 0:
            return 0
        q = (t - base) / step
        j = 0 if q < 0 else (n if q > n else int(q))
        while j < n and base + (j + 1) * step <= t:  # the times rise with k: settle on
            j += 1  # the count exactly as the times are computed
        while j > 0 and base + j * step > t:
            j -= 1
        return j

    def plan(self) -> Plan:
        piece = PlanPiece(0, self.move_start_ms, self.move_end_ms, self.end_ms, self.cylinder,
                          self.surface, self.sector_ms, self.read_ms)
        return Plan(self.times(), [piece], 0.0 + self.move_ms, 0.0 + self.rotation_ms,
                    0.0 + self.transfer_ms, self.end_ms, self.cylinder, self.surface)


class HeadState:
    """Where the arm is. The angle is not stored: it follows from the clock."""

    __slots__ = ("cylinder", "surface")

    def __init__(self, cylinder: int = 0, surface: int = 0):
        self.cylinder, self.surface = cylinder, surface


class Mechanism:
    """Seek, rotation and media transfer of one drive."""

    def __init__(self, profile: DiskProfile, layout: Layout | None = None,
                 seek: SeekCurve | None = None):
        self.profile = profile
        self.layout = layout or Layout(profile)
        self.seek = seek or seek_for(profile)
        self._seek_times = self.seek.times
        self.rev_ms = profile.revolution_ms
        self._zone_spt = [self.layout.sectors_per_track(z) for z in range(self.layout.zone_count)]
        self.phase0 = profile.initial_angle % 1.0
        self.head_switch_ms = profile.head_switch_ms
        self.write_settle_ms = profile.write_settle_ms
        self.zl_read = profile.zero_latency_reads
        self.zl_write = profile.zero_latency_writes
        rate = profile.interface_mb_s
        self.bus_sector_ms = SECTOR_BYTES / (rate * 1000.0) if rate > 0 else 0.0
        fmt = SectorFormat.of(profile)
        self.format = fmt
        self._fmt = None if fmt.plain and fmt.block == 1 else fmt  # Advanced Format (512e, 4Kn)

    def angle_at(self, t_ms: float) -> float:
        """Platter angle under the heads at time ``t_ms``, in revolutions."""
        return (self.phase0 + t_ms / self.rev_ms) % 1.0

    def move_ms(self, from_cyl: int, from_surface: int, to_cyl: int, to_surface: int,
                is_write: bool) -> float:
        """Arm and head-switch time between two tracks (DiskSim: the larger of the two)."""
        t = self._seek_times[abs(to_cyl - from_cyl)]
        if to_surface != from_surface and t < self.head_switch_ms:
            t = self.head_switch_ms
        if is_write and t > 0.0:
            t += self.write_settle_ms
            if t < 0.0:
                t = 0.0
        return t

    def positioning_ms(self, lba: int, is_write: bool, now: float, head: HeadState) -> float:
        """Seek plus rotational wait to the request's first sector, from the head's state now.

        Schedulers compare these estimates, so they are made exact where the model is:
        the wait is counted in sectors as :meth:`access` counts it (a head arriving on
        the sector's edge waits nothing, not a revolution), and the sum is rounded to
        :data:`~simcore.disk.mechanics.TIME_RESOLUTION_MS`. Two candidates that hand
        computation finds equal (40 + 50 and 90 ticks on the toy disk) then compare
        equal, and the policy's tie rule (the oldest request) decides, not rounding noise.
        """
        addr = self.layout.locate(lba)
        move = self.move_ms(head.cylinder, head.surface, addr.cylinder, addr.surface, is_write)
        spt = self._zone_spt[addr.zone]
        rev = self.rev_ms
        pos = ((self.phase0 + (now + move) / rev) % 1.0) * spt
        wait = (addr.sector - pos) % spt
        if wait > spt - 1e-7:  # on the sector's edge: no lost turn (as in access)
            wait = 0.0
        return round((move + wait * (rev / spt)) * 1e9) / 1e9  # exact_ms, inlined for speed

    def access(self, lba: int, sectors: int, is_write: bool, start_ms: float,
               head: HeadState) -> Access:
        """Serve ``sectors`` from ``lba`` starting at ``start_ms``; updates nothing.

        On an Advanced Format drive (:mod:`simcore.sectors`) a 4Kn drive refuses a request
        that splits a logical block, and a 512e drive serves a write that splits a physical
        sector as a read-modify-write (:meth:`read_modify_write`).
        """
        if self._fmt is not None:
            self._fmt.check(lba, sectors, self.profile.id)
            if is_write and not self._fmt.is_aligned(lba, sectors):
                return self.read_modify_write(lba, sectors, start_ms, head)[0]
        rev = self.rev_ms
        zero_latency = self.zl_write if is_write else self.zl_read
        t = start_ms
        cyl, surface = head.cylinder, head.surface
        seek_total = rot_total = xfer_total = 0.0
        b = self.bus_sector_ms
        bus_end = 0.0  # reads: when the bus has sent everything, in LBA order
        done = 0  # sectors of the request before this piece
        for piece in self.layout.pieces(lba, sectors):
            move = self.move_ms(cyl, surface, piece.cylinder, piece.surface, is_write)
            t += move
            seek_total += move
            cyl, surface = piece.cylinder, piece.surface
            spt = piece.sectors_per_track
            st = rev / spt
            pos = ((self.phase0 + t / rev) % 1.0) * spt  # sectors past the index mark
            first, span = piece.first_sector, piece.span
            if zero_latency:
                boundary = math.ceil(pos - 1e-9)
                wait = (boundary - pos) * st
                q = boundary % spt
                off = (q - first) % spt
                if 0 < off < span:  # landed inside the run: one revolution reads it all
                    elapsed = wait + spt * st
                    # sectors off.. are read first, 0..off-1 last: two runs in LBA order
                    runs = ((off, span, t + wait + st), (0, off, t + wait + (spt - off + 1) * st))
                else:
                    gap = ((first - q) % spt) * st
                    elapsed = wait + gap + span * st
                    runs = ((0, span, t + wait + gap + st),)
            else:
                wait = ((first - pos) % spt) * st
                if wait > (spt - 1e-7) * st:  # arrived on the sector's edge: no lost turn
                    wait = 0.0
                elapsed = wait + span * st
                runs = ((0, span, t + wait + st),)
            if b and not is_write:
                # the bus sends sector i no earlier than it is read and after sector i-1, so it
                # ends at max_i(avail_i + (n - i) b); along a run that is linear in i, so the
                # ends of each run decide it (slipped gaps inside a piece are ignored)
                for k0, k1, avail0 in runs:
                    last = min(k1, piece.count) - 1
                    if last < k0:
                        continue
                    i0, i1 = done + k0, done + last
                    bus_end = max(bus_end, avail0 + (sectors - i0) * b,
                                  avail0 + (last - k0) * st + (sectors - i1) * b)
            transfer = span * st
            rot_total += elapsed - transfer
            xfer_total += transfer
            done += piece.count
            t += elapsed
        # writes: the data crosses the bus while the arm moves and the media waits for it;
        # reads: the data leaves the buffer in LBA order, no sector before it is read
        interface = 0.0
        if b:
            interface = max(0.0, sectors * b - (t - start_ms)) if is_write else max(b, bus_end - t)
        return Access(seek_total, rot_total, xfer_total, interface, t + interface, cyl, surface)

    def plan(self, lba: int, sectors: int, is_write: bool, start_ms: float,
             head: HeadState, zero_latency: bool | None = None,
             min_move_ms: float = 0.0) -> Plan:
        """Like :meth:`access`, but sector by sector and without the bus (for caches).

        A head already sitting just before ``lba`` (a stream that continues)
        reads on without waiting: a wait within a millionth of a sector of a
        full revolution counts as none, so rounding never costs a revolution.
        ``min_move_ms`` is the least time before the first sector may be reached
        (the firmware's minimum seek delay; see ``Overheads.min_write_seek_ms``).
        Each track's part is a :class:`TrackPlan` (:meth:`track_plan`).
        """
        if self._fmt is not None:
            self._fmt.check(lba, sectors, self.profile.id)
            if is_write and not self._fmt.is_aligned(lba, sectors):
                return self._rmw_plan(lba, sectors, start_ms, head, zero_latency)
        if zero_latency is None:
            zero_latency = self.zl_write if is_write else self.zl_read
        track_pieces = self.layout.pieces(lba, sectors)
        if len(track_pieces) == 1:
            return self._track(track_pieces[0], start_ms, head.cylinder, head.surface,
                               is_write, zero_latency, min_move_ms).plan()
        return join_track_plans(self._tracks(track_pieces, start_ms, head, is_write,
                                             zero_latency, min_move_ms))

    def _tracks(self, track_pieces: list[TrackPiece], start_ms: float, head: HeadState,
                is_write: bool, zero_latency: bool, min_move_ms: float) -> list[TrackPlan]:
        """Each track's part of a plan over ``track_pieces``, one after the other."""
        t = start_ms
        cyl, surface = head.cylinder, head.surface
        out = []
        for piece in track_pieces:
            tp = self._track(piece, t, cyl, surface, is_write, zero_latency,
                             min_move_ms if not out else 0.0)
            out.append(tp)
            cyl, surface, t = tp.cylinder, tp.surface, tp.end_ms
        return out

    def read_track_plans(self, lba: int, sectors: int, start_ms: float,
                         head: HeadState) -> list[TrackPlan] | None:
        """:meth:`plan` of a read as its tracks' :class:`TrackPlan` s, in order, without the
        arrays (:func:`join_track_plans` makes the very :class:`Plan` :meth:`plan` gives);
        None when the drive has Advanced Format sectors (as :meth:`track_plan`)."""
        if self._fmt is not None:
            return None
        return self._tracks(self.layout.pieces(lba, sectors), start_ms, head, False,
                            self.zl_read, 0.0)

    def track_plan(self, lba: int, sectors: int, is_write: bool, start_ms: float,
                   head: HeadState) -> TrackPlan | None:
        """:meth:`plan` of a transfer on one track, as its :class:`TrackPlan` (the few numbers
        its sector times follow from, the arrays left for later); None when the transfer
        crosses a track or the drive has Advanced Format sectors."""
        if self._fmt is not None:
            return None
        lay = self.layout
        # first_piece's checks, then its answer (from it, the error naming a bad value)
        if sectors > 0 and lba >= 0 and lba + sectors <= lay.capacity:
            piece = lay._piece_at(lba, sectors)
        else:
            piece = lay.first_piece(lba, sectors)
        if piece.count != sectors:
            return None
        return self._track(piece, start_ms, head.cylinder, head.surface, is_write,
                           self.zl_write if is_write else self.zl_read, 0.0)

    def track_plan_on(self, track: StraightTrack, lba: int, sectors: int, start_ms: float,
                      head: HeadState) -> TrackPlan | None:
        """:meth:`track_plan` of a read of ``sectors`` from ``lba``, inside the straight
        ``track`` the caller holds (:meth:`Layout.straight_track`): its piece from the
        track's numbers, as the layout gives it, without looking the track up again."""
        if self._fmt is not None:
            return None
        first, _end, cyl, surface, offset, spt = track
        # the piece's fields as a plain tuple: _track only unpacks them (and a NamedTuple is
        # slower to make and to unpack)
        return self._track((cyl, surface, (offset + lba - first) % spt, sectors, sectors, spt),
                           start_ms, head.cylinder, head.surface, False, self.zl_read, 0.0)

    def _track(self, piece: TrackPiece | tuple, t: float, cyl: int, surface: int, is_write: bool,
               zero_latency: bool, min_move_ms: float) -> TrackPlan:
        """One track's part of a plan, the head at ``(cyl, surface)`` at ``t``."""
        pc, ps, first, span, count, spt = piece  # (a TrackPiece's fields, in order)
        move = self._seek_times[abs(pc - cyl)]  # move_ms, inlined
        if ps != surface and move < self.head_switch_ms:
            move = self.head_switch_ms
        if is_write and move > 0.0:
            move += self.write_settle_ms
            if move < 0.0:
                move = 0.0
        if min_move_ms and move < min_move_ms:
            move = min_move_ms
        move_start = t
        t += move
        rev = self.rev_ms
        st = rev / spt
        pos = ((self.phase0 + t / rev) % 1.0) * spt
        step = st * span / count  # slipped sectors inside the piece spread evenly
        off = 0
        if zero_latency:  # start at the next sector boundary, whichever sector it is
            boundary = ceil(pos - 1e-6)
            ahead = boundary - pos  # (max(0.0, ahead), without the call)
            wait = (ahead if ahead > 0.0 else 0.0) * st
            off = (boundary % spt - first) % spt
            if not 0 < off < span:
                off = 0
                wait += ((first - boundary) % spt) * st
        else:
            r = (first - pos) % spt
            wait = (0.0 if r > spt - 1e-6 else r) * st
        transfer = span * st
        if off:  # landed inside the run: read its tail first, then wrap to its head
            elapsed = wait + spt * st
            base = t + wait + (spt - off) * st  # when the run's first sector comes round
            wrap = round(off * count / span)
            if wrap > count:
                wrap = count
        else:
            base = t + wait
            wrap = -1
            elapsed = wait + transfer
        tp = _new_object(TrackPlan)  # (see TrackPlan for why not by calling the class)
        tp.count = count
        tp.move_start_ms = move_start
        tp.move_end_ms = t
        tp.end_ms = t + elapsed
        tp.cylinder = pc
        tp.surface = ps
        tp.sector_ms = step
        tp.base_ms = base
        tp.wrap = wrap
        tp.move_ms = move
        tp.rotation_ms = elapsed - transfer
        tp.transfer_ms = transfer
        tp.read_ms = t + wait
        return tp

    # -- Advanced Format: the read-modify-write of a 512e drive --------------------------

    def read_modify_write(self, lba: int, sectors: int, start_ms: float, head: HeadState
                          ) -> tuple[Access, float, HeadState]:
        """A write that splits physical sectors: read the partial ones, then write them whole.

        The drive reads the physical sector at each partial end (one read when they are the
        same or adjacent sectors), merges the host's data in its buffer, and writes the whole
        span of physical sectors ``[p0, p1)``. The write waits for ``p0`` to come round
        again, so on one track the cost is one revolution more than writing ``[p0, p1)``
        (Western Digital's *Advanced Format White Paper*: "512-byte write
        (read-modify-write)"). The reads' seek, rotation and transfer are added to the
        write's. Returns the Access, when the reads end, and where the head is then.
        """
        fmt = self._fmt
        p0, p1 = fmt.extent(lba, sectors)
        p1 = min(p1, self.layout.capacity)
        t = start_ms
        h = HeadState(head.cylinder, head.surface)
        seek = rot = xfer = 0.0
        for s0, n in fmt.partial_reads(lba, sectors):
            n = min(n, self.layout.capacity - s0)
            a = self.access(s0, n, False, t, h)
            seek, rot, xfer = seek + a.seek_ms, rot + a.rotation_ms, xfer + a.transfer_ms
            t = a.end_ms - a.interface_ms  # the sector is in the drive's buffer: no bus
            h = HeadState(a.cylinder, a.surface)
        reads_end, after_reads = t, HeadState(h.cylinder, h.surface)
        w = self.access(p0, p1 - p0, True, t, h)
        media_end = w.end_ms - w.interface_ms
        b = self.bus_sector_ms
        iface = max(0.0, sectors * b - (media_end - start_ms)) if b else 0.0
        acc = Access(seek + w.seek_ms, rot + w.rotation_ms, xfer + w.transfer_ms, iface,
                     media_end + iface, w.cylinder, w.surface)
        return acc, reads_end, after_reads

    def _rmw_plan(self, lba: int, sectors: int, start_ms: float, head: HeadState,
                  zero_latency: bool | None) -> Plan:
        """:meth:`plan` for a read-modify-write: the reads are part of the first uncancellable
        move, and ``done_ms`` holds the host's sectors' times in the whole-sector write."""
        acc, reads_end, after = self.read_modify_write(lba, sectors, start_ms, head)
        p0, p1 = self._fmt.extent(lba, sectors)
        p1 = min(p1, self.layout.capacity)
        wp = self.plan(p0, p1 - p0, True, reads_end, after, zero_latency)
        k0 = lba - p0
        bounds = [p.first for p in wp.pieces] + [p1 - p0]
        pieces: list[PlanPiece] = []
        for p, end in zip(wp.pieces, bounds[1:], strict=False):
            if end <= k0 or p.first >= k0 + sectors:
                continue
            pieces.append(p._replace(first=max(0, p.first - k0)))
        pieces[0] = pieces[0]._replace(first=0, move_start_ms=start_ms)
        return Plan(wp.done_ms[k0:k0 + sectors].copy(), pieces, acc.seek_ms, acc.rotation_ms,
                    acc.transfer_ms, wp.end_ms, wp.cylinder, wp.surface)


def as_mechanism(disk: Any) -> Mechanism:
    """A Mechanism for any disk description: a profile id or path, a DiskProfile, or a
    Mechanism (returned as it is; mechanisms hold no per-run state, the head lives in the
    drive). The one place every layer turns a ``disk=`` argument into a mechanism."""
    if isinstance(disk, Mechanism):
        return disk
    if isinstance(disk, str):
        disk = load_disk(disk)
    if isinstance(disk, DiskProfile):
        return Mechanism(disk)
    raise TypeError(f"not a disk: {type(disk).__name__} (give an id, a profile path, a "
                    "DiskProfile or a Mechanism)")


@lru_cache(maxsize=32)
def shared_mechanism(disk: str) -> Mechanism:
    """:func:`as_mechanism` of a profile id, built once per process: for experiments that run
    the same bundled drive many times (a profile file edited meanwhile is not read again)."""
    return as_mechanism(disk)
