"""Seek curves and the spinning platter.

Seeds: Gray 2000 §2.3 (the four seek phases: speed-up, coast, slow-down,
settle; "very short seeks ... are dominated by settle time"), §2.4 (rotational
latency); Ruemmler & Wilkes 1994 as summarised there (square root for short
seeks, linear for long); DiskSim's ``dm_mech_g1`` (measured seek tables,
interpolated, extrapolated from the last two points).

Every seek model precomputes a table over all distances ``0..cylinders-1``
so the simulator's hot path is one list index.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .profile import DiskProfile, SeekSpec

TIME_RESOLUTION_MS = 1e-9
"""Positioning estimates are compared at 10**-9 ms (one picosecond): far below anything a
drive resolves, far above the ~1e-14 ms noise of float arithmetic on times of a second."""

_TICKS_PER_MS = 1e9  # 1 / TIME_RESOLUTION_MS, exactly representable


def exact_ms(t_ms: float) -> float:
    """``t_ms`` rounded to a whole number of :data:`TIME_RESOLUTION_MS`.

    On the textbook toy disk every time is a whole number of ticks, but float arithmetic
    gives 40 + 49.999999999999986 for a 90-tick positioning; rounded, both are 90.0 and a
    scheduler's tie rule (the oldest request first) decides between them. Computed as
    ``round(t * 1e9) / 1e9``, several times cheaper than ``round(t, 9)`` on the SPTF hot
    path; past 2**53 ns (about 2.5 hours) the resolution coarsens, which estimates never reach.
    """
    return round(t_ms * _TICKS_PER_MS) / _TICKS_PER_MS


class SeekPhases(NamedTuple):
    """Where a seek's time goes, in ms."""

    accelerate_ms: float
    coast_ms: float
    decelerate_ms: float
    settle_ms: float

    @property
    def total_ms(self) -> float:
        return self.accelerate_ms + self.coast_ms + self.decelerate_ms + self.settle_ms


def spec_sheet_average(times) -> float:
    """Mean seek over all ordered pairs of distinct cylinders (the datasheet definition).

    Distance ``d`` occurs ``2 (C - d)`` times among the ``C (C - 1)`` ordered pairs.
    """
    t = np.asarray(times, dtype=float)
    c = len(t)
    w = c - np.arange(1, c, dtype=float)
    return float(np.dot(w, t[1:]) / w.sum())


class SeekCurve:
    """A seek model: time for a distance in cylinders, as a precomputed table."""

    name = "table"

    def __init__(self, times: list[float]):
        if times[0] != 0.0:
            times = [0.0, *times[1:]]
        self.times = times
        self.cylinders = len(times)

    def seek_ms(self, distance: int) -> float:
        return self.times[abs(distance)]

    def average_ms(self) -> float:
        return spec_sheet_average(self.times)

    def three_points(self) -> tuple[float, float, float]:
        """The datasheet's three numbers of this curve: one cylinder, average, full stroke.

        An extracted table has no published points; these are what a datasheet would print
        for it (and what :meth:`FourPhaseSeek.fit` takes).
        """
        return self.seek_ms(1), self.average_ms(), self.seek_ms(len(self.times) - 1)

    def phases(self, distance: int) -> SeekPhases:
        """Models without physics report the whole seek as one settle-free move."""
        t = self.seek_ms(distance)
        return SeekPhases(t / 2, 0.0, t / 2, 0.0)


class LinearSeek(SeekCurve):
    """Textbook seek: ``base + per_cylinder x d`` (and 0 for d = 0)."""

    name = "linear"

    def __init__(self, cylinders: int, base_ms: float, per_cylinder_ms: float):
        self.base_ms, self.per_cylinder_ms = base_ms, per_cylinder_ms
        super().__init__([0.0] + [base_ms + per_cylinder_ms * d for d in range(1, cylinders)])


class TableSeek(SeekCurve):
    """A measured curve: linear between points, extrapolated from the last two."""

    name = "table"

    def __init__(self, cylinders: int, points: list[tuple[int, float]]):
        pts = sorted(p for p in points if p[0] > 0)
        self.points = pts
        xs = np.array([0.0] + [float(p[0]) for p in pts])
        ts = np.array([0.0] + [float(p[1]) for p in pts])
        d = np.arange(cylinders, dtype=float)
        times = np.interp(d, xs, ts)
        if len(xs) >= 2 and cylinders - 1 > xs[-1]:
            slope = (ts[-1] - ts[-2]) / (xs[-1] - xs[-2])
            beyond = d > xs[-1]
            times[beyond] = ts[-1] + slope * (d[beyond] - xs[-1])
        super().__init__([float(t) for t in times])


class FourPhaseSeek(SeekCurve):
    """The physical model: accelerate, coast at top speed, decelerate, settle.

    The arm accelerates at ``a`` (cylinders/ms^2) until it reaches half the
    distance or the top speed ``v`` (cylinders/ms), coasts at ``v`` if it got
    there, decelerates symmetrically, then settles for ``settle_ms``.
    """

    name = "four-phase"

    def __init__(self, cylinders: int, accel: float, max_speed: float, settle_ms: float):
        if accel <= 0 or max_speed <= 0 or settle_ms < 0:
            raise ValueError("four-phase seek needs accel > 0, max_speed > 0, settle >= 0")
        self.accel, self.max_speed, self.settle_ms = accel, max_speed, settle_ms
        d = np.arange(cylinders, dtype=float)
        short = d <= max_speed * max_speed / accel
        with np.errstate(divide="ignore", invalid="ignore"):
            move = np.where(short, 2.0 * np.sqrt(d / accel),
                            max_speed / accel + d / max_speed)
        times = np.where(d > 0, move + settle_ms, 0.0)
        super().__init__(times.tolist())

    def phases(self, distance: int) -> SeekPhases:
        d = abs(distance)
        if d == 0:
            return SeekPhases(0.0, 0.0, 0.0, 0.0)
        a, v = self.accel, self.max_speed
        if d <= v * v / a:  # never reaches top speed: half the way up, half down
            t = math.sqrt(d / a)
            return SeekPhases(t, 0.0, t, self.settle_ms)
        t = v / a
        return SeekPhases(t, (d - v * v / a) / v, t, self.settle_ms)

    @classmethod
    def fit(
        cls, cylinders: int, single_ms: float, average_ms: float, full_ms: float
    ) -> FourPhaseSeek:
        """Calibrate acceleration, top speed and settle to three published times.

        For a trial settle ``s``: the one-cylinder seek fixes ``a``; the
        full-stroke seek fixes ``v``; bisection on ``s`` matches the average.
        """
        span = cylinders - 1

        def build(settle: float) -> FourPhaseSeek | None:
            move = single_ms - settle
            if move <= 0:
                return None
            accel = 4.0 / (move * move)  # t(1) = settle + 2 sqrt(1/a)
            full_move = full_ms - settle
            # reaches top speed v: full_move = 2v/a + (D - v^2/a)/v = v/a + D/v
            # solve v^2/a - full_move v + D = 0 for the smaller root (coast as long as possible)
            disc = full_move * full_move - 4.0 * span / accel
            if disc < 0:  # never reaches top speed even on a full stroke
                v = math.sqrt(span * accel)
            else:
                v = (full_move - math.sqrt(disc)) * accel / 2.0
                v = max(v, 1e-9)
            return cls(cylinders, accel, v, settle)

        lo, hi = 0.0, single_ms * 0.999
        best = build(lo)
        for _ in range(60):
            mid = (lo + hi) / 2
            model = build(mid)
            if model is None:
                hi = mid
                continue
            best = model
            if model.average_ms() > average_ms:
                lo = mid  # more settle means a faster arm, so shorter average seeks
            else:
                hi = mid
        assert best is not None
        return best


class ThreePointSeek(SeekCurve):
    """Ruemmler-Wilkes shape through single-cylinder, average and full-stroke times.

    ``t(d) = single + a sqrt(d - 1)`` up to a knee ``d*``, then linear and
    tangent to the root curve up to ``t(D) = full``. The knee is chosen so the
    datasheet average over all cylinder pairs equals ``average_ms``. If the
    average cannot be met (too low for any such curve), the closest curve is used.
    """

    name = "three-point"

    def __init__(self, cylinders: int, single_ms: float, average_ms: float, full_ms: float):
        self.single_ms, self.target_average_ms, self.full_ms = single_ms, average_ms, full_ms
        span = cylinders - 1
        lo, hi = 1.0, float(span)
        times = self._curve(cylinders, hi)
        for _ in range(50):
            knee = math.sqrt(lo * hi)
            times = self._curve(cylinders, knee)
            # a later knee means more of the concave root curve, so a higher average
            if spec_sheet_average(times) > average_ms:
                hi = knee
            else:
                lo = knee
        self.knee = math.sqrt(lo * hi)
        super().__init__(self._curve(cylinders, self.knee).tolist())

    def _curve(self, cylinders: int, knee: float) -> np.ndarray:
        span = cylinders - 1
        s, f = self.single_ms, self.full_ms
        k = max(knee - 1.0, 1e-9)
        # continuity and tangency at the knee, and t(span) = full:
        # t(knee) = s + a sqrt(k); slope e = a / (2 sqrt(k)); f = t(knee) + e (span - knee)
        a = (f - s) / (math.sqrt(k) + (span - knee) / (2 * math.sqrt(k)))
        e = a / (2 * math.sqrt(k))
        tk = s + a * math.sqrt(k)
        d = np.arange(cylinders, dtype=float)
        out = np.where(d <= knee, s + a * np.sqrt(np.maximum(d - 1.0, 0.0)), tk + e * (d - knee))
        out[0] = 0.0
        return out


def random_seek_moments(times, width: int) -> tuple[float, float]:
    """Mean and σ of the seek between two independent uniformly random cylinders of a band.

    The band is cylinders ``0..width-1`` (its place on the disk does not matter to a curve
    of distance alone): distance 0 has probability ``1/width``, distance ``d >= 1``
    ``2 (width - d) / width**2``. This is the seek of random reads confined to one zone
    (Schindler et al. 2002, §5.2 and Figure 8: "first zone", mean 2.2 ms, σ 0.4 ms).
    """
    t = np.asarray(times, dtype=float)[:width]
    if len(t) < width or width < 2:
        raise ValueError(f"a band of {width} cylinders does not fit a {len(t)}-cylinder curve")
    d = np.arange(width, dtype=float)
    p = np.where(d == 0, 1.0 / width, 2.0 * (width - d) / (width * width))
    mean = float(p @ t)
    return mean, float(np.sqrt(p @ (t - mean) ** 2))


class TwoRegimeSeek(SeekCurve):
    """Ruemmler and Wilkes's two-regime seek: a square root for short seeks, a line for long.

    ``t(d) = single + b (sqrt(d) - 1)`` for ``1 <= d <= knee`` (the arm accelerates
    and decelerates without reaching top speed), then the straight line from
    ``t(knee)`` to the full stroke ``t(cylinders - 1) = full`` (it coasts). Ruemmler &
    Wilkes (1994), as summarised by Gray (2000) §2.3, fit the two regimes separately:
    the curve is continuous at the knee but not tangent there (their HP 97560 curve:
    ``3.24 + 0.400 sqrt(d)`` below 383 cylinders, ``8.00 + 0.008 d`` above).

    :meth:`fit` finds ``b`` and the knee from a single-cylinder time, a full stroke and
    the mean and σ of random seeks within a band of cylinders; the datasheet average
    (:meth:`average_ms`) is then a consequence of the fit, to compare with the sheet.
    """

    name = "two-regime"

    def __init__(self, cylinders: int, single_ms: float, full_ms: float, sqrt_ms: float,
                 knee: float):
        span = cylinders - 1
        if not 0 < single_ms < full_ms or sqrt_ms < 0 or not 1.0 <= knee < span:
            raise ValueError("two-regime seek needs 0 < single_ms < full_ms, sqrt_ms >= 0 and "
                             f"1 <= knee < {span} (got {single_ms}, {full_ms}, {sqrt_ms}, "
                             f"{knee})")
        self.single_ms, self.full_ms, self.sqrt_ms, self.knee = (
            single_ms, full_ms, sqrt_ms, knee)
        self.knee_ms = single_ms + sqrt_ms * (math.sqrt(knee) - 1.0)
        if self.knee_ms > full_ms:
            raise ValueError(f"the square-root regime reaches {self.knee_ms:.3f} ms at the knee, "
                             f"beyond the full stroke {full_ms} ms")
        self.per_cylinder_ms = (full_ms - self.knee_ms) / (span - knee)
        super().__init__(self._curve(cylinders, single_ms, full_ms, sqrt_ms, knee).tolist())

    @staticmethod
    def _curve(cylinders: int, single: float, full: float, b: float, knee: float) -> np.ndarray:
        span = cylinders - 1
        d = np.arange(cylinders, dtype=float)
        tk = single + b * (math.sqrt(knee) - 1.0)
        line = tk + (full - tk) * (d - knee) / (span - knee)
        out = np.where(d <= knee, single + b * (np.sqrt(np.maximum(d, 1.0)) - 1.0), line)
        out[0] = 0.0
        return out

    @classmethod
    def fit(cls, cylinders: int, single_ms: float, full_ms: float, band: int,
            band_mean_ms: float, band_sd_ms: float) -> TwoRegimeSeek:
        """The curve whose random seeks within a ``band``-cylinder zone have this mean and σ.

        Both regimes' times are linear in ``b`` for a given knee, so the band mean fixes
        ``b`` exactly; a later knee stretches the root over more of the band, which
        widens the spread. The knee is scanned on a geometric grid from 1.5 cylinders to
        the full stroke for the first interval where σ crosses the target, then bisected
        there. Raises ``ValueError`` if no knee gives that σ with that mean (the targets
        are then beyond this shape).
        """
        span = cylinders - 1

        def at(knee: float) -> tuple[float, float] | None:
            # t = t0 + b t1 with t0 the b = 0 curve and t1 its derivative in b
            t0 = cls._curve(cylinders, single_ms, full_ms, 0.0, knee)
            t1 = cls._curve(cylinders, single_ms, full_ms, 1.0, knee) - t0
            m0, _ = random_seek_moments(t0, band)
            m1, _ = random_seek_moments(t1, band)
            if m1 <= 0:
                return None
            b = (band_mean_ms - m0) / m1
            if b < 0 or single_ms + b * (math.sqrt(knee) - 1.0) > full_ms:
                return None
            return b, random_seek_moments(t0 + b * t1, band)[1]

        grid = np.geomspace(1.5, span - 1.0, 97)
        got = [at(float(k)) for k in grid]
        bracket = next(((float(grid[i]), float(grid[i + 1])) for i in range(len(grid) - 1)
                        if got[i] is not None and got[i + 1] is not None
                        and got[i][1] <= band_sd_ms <= got[i + 1][1]), None)
        if bracket is None:
            sds = [g[1] for g in got if g is not None]
            reach = f"{min(sds):.3f}..{max(sds):.3f} ms" if sds else "none"
            raise ValueError(f"no two-regime curve through single {single_ms} ms and full "
                             f"stroke {full_ms} ms gives a {band}-cylinder band mean "
                             f"{band_mean_ms} ms with σ {band_sd_ms} ms (σ reachable: {reach})")
        lo, hi = bracket
        for _ in range(60):
            mid = math.sqrt(lo * hi)
            g = at(mid)
            if g is None or g[1] > band_sd_ms:
                hi = mid
            else:
                lo = mid
        knee = math.sqrt(lo * hi)
        b, _ = at(knee)
        return cls(cylinders, single_ms, full_ms, b, knee)


def build_seek(spec: SeekSpec, cylinders: int) -> SeekCurve:
    """The seek curve a profile asks for."""
    if spec.model == "linear":
        return LinearSeek(cylinders, spec.base_ms, spec.per_cylinder_ms)
    if spec.model == "table":
        return TableSeek(cylinders, list(spec.table))
    if spec.model == "three-point":
        return ThreePointSeek(cylinders, spec.single_ms, spec.average_ms, spec.full_ms)
    if spec.model == "two-regime":
        return TwoRegimeSeek(cylinders, spec.single_ms, spec.full_ms, spec.sqrt_ms,
                             spec.knee_cylinders)
    if spec.accel_cyl_per_ms2 and spec.max_speed_cyl_per_ms and spec.settle_ms is not None:
        return FourPhaseSeek(
            cylinders, spec.accel_cyl_per_ms2, spec.max_speed_cyl_per_ms, spec.settle_ms
        )
    return FourPhaseSeek.fit(cylinders, spec.single_ms, spec.average_ms, spec.full_ms)


def mean_rotational_latency_ms(rpm: float) -> float:
    """Half a revolution: the expected wait for a sector at a random angle."""
    return 30_000.0 / rpm


def rotational_latency_ms(rpm: float, head_angle: float, target_angle: float) -> float:
    """Wait until ``target_angle`` passes under a head now at ``head_angle`` (revolutions)."""
    return ((target_angle - head_angle) % 1.0) * 60_000.0 / rpm


def seek_for(profile: DiskProfile) -> SeekCurve:
    """Build the seek curve of a profile."""
    return build_seek(profile.seek, profile.cylinders)
