"""The validation experiment's per-case diagnostics (the numbers its reasons for a miss quote),
on small traces whose answers are counted by hand."""

from __future__ import annotations

from types import SimpleNamespace as NS

import numpy as np
import pytest

from simcore.experiments import validation as V

REV = 10.0  # ms: a request "loses a revolution" when the drive takes >= 5 ms longer


def steps(*rows):
    return [NS(op=op, lba=lba, sectors=n) for op, lba, n in rows]


def recs(hits=(), rotation=None, n=0):
    rot = rotation or [0.0] * n
    return [NS(cache_hit=i in hits, rotation_ms=r) for i, r in enumerate(rot)]


def test_follows_and_lost():
    st = steps(("W", 0, 8), ("W", 8, 8), ("W", 100, 8))
    assert [V._follows(st, i) for i in range(3)] == [False, True, False]
    lost = V._lost(np.array([16.0, 14.9, 3.0]), np.array([11.0, 10.0, 9.0]), REV)
    assert lost.tolist() == [True, False, False]  # 5.0 >= 5; 4.9 < 5; the model slower


def test_groups_counted_by_hand():
    # 0 W; 1 W continuing 0 (lost: 20 vs 10); 2 W continuing 1 (kept); 3 R after W, random;
    # 4 R continuing 3 (a cache hit); 5 W after R, random; 6 R after W, random
    st = steps(("W", 0, 4), ("W", 4, 4), ("W", 8, 4), ("R", 500, 2), ("R", 502, 2),
               ("W", 900, 1), ("R", 50, 1))
    meas = np.array([5.0, 20.0, 6.0, 8.0, 1.0, 7.0, 9.0])
    sim = np.array([5.0, 10.0, 6.5, 9.0, 1.5, 6.0, 8.0])
    g = V._groups(st, recs(hits={4}, n=7), meas, sim, REV)
    assert g["sequential_writes"]["requests"] == 2 and g["sequential_writes"]["lost"] == 1
    assert g["sequential_writes"]["model_minus_drive_mean_ms"] == pytest.approx((-10 + 0.5) / 2)
    assert g["sequential_reads"]["requests"] == 1
    assert g["sequential_reads"]["model_minus_drive_mean_ms"] == pytest.approx(0.5)
    # read misses: 3 and 6 (4 is a hit): +1 and -1
    assert g["read_misses"]["requests"] == 2
    assert g["read_misses"]["model_minus_drive_mean_ms"] == pytest.approx(0.0)
    assert g["writes_after_reads"]["requests"] == 1
    assert g["writes_after_reads"]["model_minus_drive_median_ms"] == pytest.approx(-1.0)
    assert g["reads_after_writes"]["requests"] == 2  # 3 and 6
    assert g["reads_after_writes"]["model_minus_drive_median_ms"] == pytest.approx(0.0)


def test_lost_by_distance_counted_by_hand():
    cyl = lambda lba: lba // 10  # noqa: E731  ten blocks a cylinder
    # each row: the distance in cylinders from the previous request's last block
    st = steps(("R", 0, 1),        # 0: first, skipped
               ("W", 4000, 1),     # 1: 400 cylinders, band, lost
               ("W", 4005, 1),     # 2: 0 cylinders (not continuing), short, kept
               ("W", 8005, 1),     # 3: 400 cylinders but waits >= half a revolution: skipped
               ("R", 12005, 1),    # 4: 400 cylinders, a read in the band, kept
               ("W", 32005, 1),    # 5: 2000 cylinders, long, lost
               ("W", 32006, 1),    # 6: continues 5: skipped
               ("W", 34006, 1))    # 7: 200 cylinders: neither band nor outside
    meas = np.array([1.0, 16.0, 6.0, 20.0, 6.0, 16.0, 20.0, 20.0])
    sim = np.array([1.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0])
    rot = [0.0, 1.0, 1.0, 5.0, 1.0, 4.9, 0.0, 0.0]
    out = V._lost_by_distance(st, recs(rotation=rot), meas, sim, cyl, REV)
    assert out["band"] == {"requests": 1, "lost": 1}
    assert out["outside"] == {"requests": 2, "lost": 1}
    assert out["band_reads"] == {"requests": 1, "lost": 0}
    assert (out["band_from_cylinders"], out["band_to_cylinders"]) == V.BAND_CYLINDERS
    assert out["rotation_under_ms"] == REV / 2


def test_zero_latency_change_takes_random_reads_after_reads_it_changes():
    st = steps(("R", 0, 1), ("R", 500, 1), ("R", 501, 1), ("W", 9, 1), ("R", 700, 1),
               ("R", 900, 1))
    meas = np.array([5.0, 5.0, 1.0, 2.0, 6.0, 4.0])
    on = np.array([5.0, 6.0, 1.0, 2.0, 7.0, 4.0])
    off = np.array([5.0, 9.0, 3.0, 2.0, 9.0, 4.0])  # 2 continues, 4 follows a write, 5 same
    out = V._zero_latency_change(st, meas, on, off)
    assert out["requests"] == 1  # request 1 alone
    assert out["demerit_on_ms"] == pytest.approx(1.0)
    assert out["demerit_off_ms"] == pytest.approx(4.0)
    none = V._zero_latency_change(st, meas, on, on)
    assert none == {"requests": 0, "demerit_on_ms": None, "demerit_off_ms": None}
