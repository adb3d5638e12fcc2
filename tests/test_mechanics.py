"""Seek curves: they pass through their defining points and meet analytic limits."""

from __future__ import annotations

import itertools

import pytest

from simcore import FourPhaseSeek, LinearSeek, TableSeek, ThreePointSeek
from simcore.disk.mechanics import (
    TwoRegimeSeek,
    mean_rotational_latency_ms,
    random_seek_moments,
    rotational_latency_ms,
    spec_sheet_average,
)


@pytest.mark.parametrize("single,avg,full,cyls", [(1.0, 5.0, 10.8, 10021), (5.0, 18.0, 35.0, 840),
                                                   (0.6, 8.5, 17.0, 386000)])
def test_three_point_curve_passes_through_its_points(single, avg, full, cyls):
    """Ruemmler & Wilkes shape fitted to (single, average, full stroke)."""
    curve = ThreePointSeek(cyls, single, avg, full)
    assert curve.seek_ms(0) == 0.0
    assert curve.seek_ms(1) == pytest.approx(single, abs=1e-9)
    assert curve.seek_ms(cyls - 1) == pytest.approx(full, rel=1e-9)
    assert curve.average_ms() == pytest.approx(avg, rel=1e-3)
    times = curve.times
    assert all(b >= a for a, b in itertools.pairwise(times[1:]))  # monotone


def test_three_point_is_square_root_then_linear():
    curve = ThreePointSeek(10021, 1.0, 5.0, 10.8)
    k = int(curve.knee)
    # below the knee: t(d) - t(1) grows like sqrt(d - 1)
    r = (curve.seek_ms(k // 4 + 1) - 1.0) / (curve.seek_ms(k // 16 + 1) - 1.0)
    assert r == pytest.approx(2.0, rel=0.01)
    # above it: equal steps in distance give equal steps in time
    d1, d2, d3 = k + 100, k + 600, k + 1100
    assert curve.seek_ms(d2) - curve.seek_ms(d1) == pytest.approx(
        curve.seek_ms(d3) - curve.seek_ms(d2), rel=1e-9)


def test_four_phase_physics_and_phase_breakdown():
    seek = FourPhaseSeek(10000, accel=0.01, max_speed=2.0, settle_ms=0.5)
    # short seek (d <= v^2/a = 400): no coast; t = 2 sqrt(d/a) + settle
    p = seek.phases(100)
    assert p.coast_ms == 0.0
    assert p.total_ms == pytest.approx(2 * (100 / 0.01) ** 0.5 + 0.5)
    # long seek: accelerate v/a, coast (d - v^2/a)/v, decelerate v/a
    p = seek.phases(5000)
    assert p.accelerate_ms == pytest.approx(200.0)
    assert p.coast_ms == pytest.approx((5000 - 400) / 2.0)
    assert p.total_ms == pytest.approx(seek.seek_ms(5000))


def test_four_phase_fit_meets_three_published_points():
    seek = FourPhaseSeek.fit(8669, single_ms=0.8, average_ms=4.7, full_ms=10.0)
    assert seek.seek_ms(1) == pytest.approx(0.8, rel=1e-6)
    assert seek.seek_ms(8668) == pytest.approx(10.0, rel=1e-3)
    assert seek.average_ms() == pytest.approx(4.7, rel=2e-3)
    assert seek.settle_ms > 0
    # very short seeks are dominated by settle (Gray 2000 §2.3)
    assert seek.phases(2).settle_ms > 0.5 * seek.phases(2).total_ms


def test_uniform_random_seek_is_a_third_of_full_stroke():
    """Analytic limit: E|X - Y| = (C^2 - 1)/(3C) for X, Y uniform on C cylinders."""
    c = 3000
    seek = LinearSeek(c, 0.0, 0.01)
    mean_all_pairs = spec_sheet_average(seek.times) * (c - 1) / c  # include the zero seeks
    assert mean_all_pairs == pytest.approx(0.01 * (c * c - 1) / (3 * c), rel=1e-9)


def test_table_seek_interpolates_and_extrapolates():
    seek = TableSeek(200, [(1, 1.0), (11, 2.0), (101, 5.0)])
    assert seek.seek_ms(6) == pytest.approx(1.5)
    assert seek.seek_ms(56) == pytest.approx(3.5)
    assert seek.seek_ms(151) == pytest.approx(5.0 + 50 * 3.0 / 90)


def test_rotational_latency_formulas():
    # Gray 2000 Table 4: 7,200 RPM -> 4.17 ms; the seed's 5.7 ms at 5,400 RPM is really 5.56
    assert mean_rotational_latency_ms(7200) == pytest.approx(4.1667, abs=1e-4)
    assert mean_rotational_latency_ms(5400) == pytest.approx(5.5556, abs=1e-4)
    assert rotational_latency_ms(6000, 0.9, 0.1) == pytest.approx(0.2 * 10.0)


def test_random_seek_moments_of_a_linear_curve():
    """Analytic: on a w-cylinder band E|X - Y| = (w^2 - 1) / (3w), E|X - Y|^2 = (w^2 - 1) / 6."""
    w = 500
    seek = LinearSeek(2000, 0.0, 1.0)  # t(d) = d
    mean, sd = random_seek_moments(seek.times, w)
    assert mean == pytest.approx((w * w - 1) / (3 * w), rel=1e-12)
    assert sd == pytest.approx(((w * w - 1) / 6 - mean**2) ** 0.5, rel=1e-12)
    with pytest.raises(ValueError, match="does not fit"):
        random_seek_moments(seek.times, 2001)


def test_two_regime_curve_by_hand():
    """t(d) = 1 + 0.5 (sqrt(d) - 1) to the knee at 100 (5.5 ms), then a line to t(1000) = 10."""
    seek = TwoRegimeSeek(1001, single_ms=1.0, full_ms=10.0, sqrt_ms=0.5, knee=100.0)
    assert seek.seek_ms(0) == 0.0
    assert seek.seek_ms(1) == pytest.approx(1.0)
    assert seek.seek_ms(49) == pytest.approx(1.0 + 0.5 * 6)
    assert seek.seek_ms(100) == pytest.approx(5.5)
    assert seek.per_cylinder_ms == pytest.approx(4.5 / 900)
    assert seek.seek_ms(550) == pytest.approx(5.5 + 450 * 4.5 / 900)
    assert seek.seek_ms(1000) == pytest.approx(10.0)
    assert all(b >= a for a, b in itertools.pairwise(seek.times[1:]))
    with pytest.raises(ValueError, match="beyond the full stroke"):
        TwoRegimeSeek(1001, 1.0, 10.0, 2.0, 100.0)  # 1 + 2 x 9 = 19 ms at the knee
    with pytest.raises(ValueError, match="knee"):
        TwoRegimeSeek(1001, 1.0, 10.0, 0.5, 1000.0)


def test_two_regime_fit_meets_a_band_mean_and_spread():
    """The fit's curve has the asked-for mean and σ of random seeks within the band, and
    keeps its single-cylinder and full-stroke times."""
    seek = TwoRegimeSeek.fit(8669, 0.8, 10.0, 867, band_mean_ms=2.2, band_sd_ms=0.4)
    mean, sd = random_seek_moments(seek.times, 867)
    assert mean == pytest.approx(2.2, abs=1e-9)
    assert sd == pytest.approx(0.4, abs=1e-6)
    assert seek.seek_ms(1) == pytest.approx(0.8) and seek.seek_ms(8668) == pytest.approx(10.0)
    # a smaller σ for the same mean needs an earlier knee (the root rises steeply, then flat)
    tighter = TwoRegimeSeek.fit(8669, 0.8, 10.0, 867, band_mean_ms=2.2, band_sd_ms=0.3)
    assert tighter.knee < seek.knee and tighter.sqrt_ms > seek.sqrt_ms
    # a σ beyond any knee is refused, naming the band
    with pytest.raises(ValueError, match="867-cylinder band"):
        TwoRegimeSeek.fit(8669, 0.8, 10.0, 867, band_mean_ms=2.2, band_sd_ms=1.5)
