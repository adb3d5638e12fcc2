"""The homework disk of OSTEP's disk simulator, as an exact model in whole ticks.

Seed: Arpaci-Dusseau & Arpaci-Dusseau, *Operating Systems: Three Easy Pieces*,
chapter "Hard Disk Drives" and its homework simulator (``file-disks/disk.py`` in
remzi-arpacidusseau/ostep-homework). The facts carried over, in our words:

* Three tracks, outer (0) to inner (2). Track ``i`` has its sector centres
  ``2 x (z_i // 2)`` degrees apart (``z`` is the ``-z`` zoning, 30,30,30 by
  default: twelve sectors a track), numbered on from the track before. Sector
  ``k`` of track ``i`` is centred at ``180 + spacing x (k + i x skew)`` degrees,
  so a skew of ``o`` turns the middle track ``o`` sectors and the inner ``2 o``.
* The platter turns ``R`` degrees a tick (``-R``); at t = 0 the head is on the
  outer track at angle 0, halfway through sector 6. The angle after ``t`` ticks
  is ``R x (t mod P)`` with ``P = ceil(360 / R)``: the simulator starts a new
  turn at 0 the moment the angle reaches 360.
* Tracks are 40 units apart and the arm moves ``S`` units a tick (``-S``), so a
  seek over ``d`` tracks takes ``40 d / S`` ticks; ``40 / S`` must be whole.
* A sector is read from the boundary before its centre to the boundary after
  it. The head is *at* an angle when it is within less than one step (``R``)
  of it, tested once a tick; a rotational wait is tested from the tick the
  seek ends, or from the next tick when there is no seek. A request for the
  sector that follows the one just read on the same track streams on with no
  wait at all.

The model counts ticks exactly (speeds are :class:`fractions.Fraction`), so it
gives the answer a hand computation gives: 0.1 is one tenth, not 0.1000000000000000055.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

TRACKS = 3
TRACK_DISTANCE = 40  # units between adjacent tracks (the arm moves S units a tick)
START_ANGLE_OF_SECTOR_ZERO = 180  # sector 0's centre, relative to the head at t = 0


def parse_speed(text: str | float, option: str) -> Fraction:
    """A positive speed from the command line, exactly (``"0.1"`` is 1/10)."""
    try:
        value = Fraction(str(text))
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{option} must be a number, got {text!r}") from None
    if value <= 0:
        raise ValueError(f"{option} must be positive, got {text}")
    return value


def parse_zoning(text: str) -> tuple[int, int, int]:
    """``-z a,b,c``: degrees between sector centres on the outer, middle and inner track."""
    parts = [p.strip() for p in str(text).split(",")]
    try:
        zones = tuple(int(p) for p in parts)
    except ValueError:
        raise ValueError(f"-z takes three whole numbers of degrees such as 30,30,30, "
                         f"got {text!r}") from None
    if len(zones) != TRACKS:
        raise ValueError(f"-z takes one angle per track, three in all, got {text!r}")
    for z in zones:
        if not 2 <= z <= 360:
            raise ValueError(f"-z angles must be between 2 and 360 degrees, got {z} in {text!r}")
    return zones[0], zones[1], zones[2]


@dataclass(frozen=True)
class Sector:
    """Where one sector lies: its track and its centre, start and end angles (degrees)."""

    track: int
    centre: int
    half: int

    @property
    def start(self) -> int:
        return (self.centre - self.half) % 360

    @property
    def end(self) -> int:
        return (self.centre + self.half) % 360


class ToyGeometry:
    """Sector numbering and angles of the three-track disk."""

    def __init__(self, zoning: tuple[int, int, int] = (30, 30, 30), skew: int = 0):
        self.zoning, self.skew = zoning, skew
        self.sectors: list[Sector] = []
        self.first_of_track: list[int] = []
        for track, z in enumerate(zoning):
            half = z // 2
            spacing = 2 * half
            self.first_of_track.append(len(self.sectors))
            for k in range(math.ceil(360 / spacing)):
                centre = (START_ANGLE_OF_SECTOR_ZERO + spacing * (k + track * skew)) % 360
                self.sectors.append(Sector(track, centre, half))

    @property
    def count(self) -> int:
        return len(self.sectors)

    @property
    def random_limit(self) -> int:
        """The upper bound random requests are drawn below when ``-A`` says ``-1``.

        OSTEP's simulator uses the first sector of the inner track here, so random
        workloads touch the outer and middle tracks only; we draw the same numbers.
        """
        return self.first_of_track[-1]

    def last_of_track(self, track: int) -> int:
        nxt = self.first_of_track[track + 1] if track + 1 < TRACKS else self.count
        return nxt - 1

    def check(self, sector: int) -> None:
        if not 0 <= sector < self.count:
            raise ValueError(f"sector {sector} is not on this disk (sectors are 0..{self.count - 1})")

    def follows(self, previous: int, sector: int) -> bool:
        """Whether ``sector`` passes under the head right after ``previous`` on one track."""
        a, b = self.sectors[previous], self.sectors[sector]
        if a.track != b.track:
            return False
        track = a.track
        wraps = previous == self.last_of_track(track) and sector == self.first_of_track[track]
        return sector == previous + 1 or wraps


@dataclass(frozen=True)
class Service:
    """One request's times in ticks (or ms on a real drive)."""

    seek: int | float
    rotate: int | float
    transfer: int | float

    @property
    def total(self) -> int | float:
        return self.seek + self.rotate + self.transfer


class ToyDisk:
    """The exact tick model; :meth:`serve` advances the clock and the arm."""

    def __init__(self, geometry: ToyGeometry, seek_speed: Fraction = Fraction(1),
                 rotate_speed: Fraction = Fraction(1)):
        self.geometry = geometry
        self.seek_speed, self.rotate_speed = Fraction(seek_speed), Fraction(rotate_speed)
        per_track = TRACK_DISTANCE / self.seek_speed
        if per_track.denominator != 1:
            raise ValueError(f"-S {seek_speed}: the track distance ({TRACK_DISTANCE}) must be a "
                             f"whole number of arm steps (try 1, 2, 4, 5, 8, 10, 20, 40, 0.5, 0.1)")
        self.ticks_per_track = int(per_track)
        self.period = math.ceil(360 / self.rotate_speed)  # ticks until the angle starts over
        self.now = 0
        self.track = 0
        self.last: int | None = None

    # -- the platter -------------------------------------------------------
    def angle(self, tick: int) -> Fraction:
        return self.rotate_speed * (tick % self.period)

    def first_tick_at(self, start: int, target: int) -> int:
        """The first tick from ``start`` on when the head is within one step of ``target``."""
        r = self.rotate_speed
        x = Fraction(target) / r
        low = math.floor(x)
        steps = [low] if x == low else [low, low + 1]  # angles within less than R of the target
        m0 = start % self.period
        return start + min((m - m0) % self.period for m in steps if m < self.period)

    def track_of(self, sector: int) -> int:
        return self.geometry.sectors[sector].track

    # -- the policy's estimate and the service -----------------------------
    def estimate(self, sector: int) -> Fraction:
        """Seek, wait and transfer as a scheduler predicts them, in exact ticks.

        The prediction starts from the angle now, adds the seek, and waits to the
        sector's start boundary (a head exactly there waits nothing): the estimate
        OSTEP's SATF ranks by.
        """
        s = self.geometry.sectors[sector]
        r = self.rotate_speed
        seek = Fraction(self.ticks_per_track * abs(s.track - self.track))
        arrival = self.angle(self.now) + seek * r
        wait = ((s.centre - s.half) - arrival) % 360 / r
        return seek + wait + Fraction(2 * s.half) / r

    def serve(self, sector: int) -> Service:
        """Move the arm, wait, transfer; return the three times and advance the clock."""
        g = self.geometry
        s = g.sectors[sector]
        t0 = self.now
        if s.track == self.track and self.last is not None and g.follows(self.last, sector):
            seek_end = xfer_start = t0  # streams on from the previous sector
            end = self.first_tick_at(t0 + 1, s.end)
        else:
            if s.track == self.track:
                seek_end = t0
                xfer_start = self.first_tick_at(t0 + 1, s.start)
            else:
                seek_end = t0 + self.ticks_per_track * abs(s.track - self.track)
                xfer_start = self.first_tick_at(seek_end, s.start)
            end = self.first_tick_at(xfer_start, s.end)
        self.now, self.track, self.last = end, s.track, sector
        return Service(seek_end - t0, xfer_start - seek_end, end - xfer_start)
