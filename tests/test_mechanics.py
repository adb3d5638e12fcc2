"""Seek curves: they pass through their defining points and meet analytic limits."""

from __future__ import annotations

import itertools

import pytest

from simcore import FourPhaseSeek, LinearSeek, TableSeek, ThreePointSeek
from simcore.disk.mechanics import (
    mean_rotational_latency_ms,
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
