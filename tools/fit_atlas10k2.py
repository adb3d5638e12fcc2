"""Fit the Atlas 10K II profile's two assumed shape parameters to the paper's first-zone seeks.

Seed 002 §5.2 / Figure 8 (Schindler et al. 2002) gives, for random reads in
the Atlas 10K II's first zone, a mean seek of 2.2 ms with a standard
deviation of 0.4 ms; Table 1 gives the average seek (4.7 ms) and the track
count. The zone table (how many equal bands) and the single-cylinder seek
are not given, so they are the two free choices: this script searches them
(the full stroke, 10 ms, stays an assumed datasheet value) for the pair whose
first-zone seek distribution has the paper's mean and spread, weighting each
miss by the note's tolerance (±0.15 ms on the mean, ±0.1 ms on σ).

Run: ``python tools/fit_atlas10k2.py`` (prints the grid's best points).

What it found (2026-11-26), and why the profile does not use it: the best
point, a 1.25 ms single-cylinder seek with 8 bands, gives the first zone
2.22 ms and σ 0.41 ms (the profile's 0.8 ms and 6 bands give σ 0.59), and
meets both σ targets of ``reproduce traxtents``; but it slows the short seeks
of the SCAN-sorted soft real-time rounds (a 20-cylinder seek from 1.11 to
1.49 ms), and the soft real-time stream counts fall from 70 and 45 (met) to
65 and 40 (missed, ±3). A square-root-and-line curve cannot be at once flat
over the zone (small σ) and quick over a few cylinders; the paper's model of
the drive used a measured seek table, which is not published. The profile
keeps the mean-only fit, and the σ targets stay missed with that reason.
"""

from __future__ import annotations

import numpy as np

from simcore.disk.mechanics import ThreePointSeek

CYLINDERS = 8669          # 52,014 tracks / 6 surfaces (Table 1)
AVERAGE_MS, FULL_MS = 4.7, 10.0
MEAN_MS, SD_MS = 2.2, 0.4   # first zone, Figure 8 and §5.2
MEAN_TOL, SD_TOL = 0.15, 0.1


def first_zone_seeks(single_ms: float, zones: int) -> tuple[float, float]:
    """Mean and σ of the seek between two uniformly random cylinders of the first band."""
    curve = ThreePointSeek(CYLINDERS, single_ms, AVERAGE_MS, FULL_MS)
    width = CYLINDERS // zones
    d = np.arange(width)
    p = np.where(d == 0, 1.0 / width, 2.0 * (width - d) / width**2)
    t = np.asarray(curve.times[:width])
    mean = float((p * t).sum())
    return mean, float(np.sqrt((p * (t - mean) ** 2).sum()))


def main() -> None:
    rows = []
    for single in np.arange(0.80, 1.61, 0.05):
        for zones in range(4, 13):
            m, s = first_zone_seeks(float(single), zones)
            err = ((m - MEAN_MS) / MEAN_TOL) ** 2 + ((s - SD_MS) / SD_TOL) ** 2
            rows.append((err, round(float(single), 2), zones, m, s))
    rows.sort()
    for err, single, zones, m, s in rows[:5]:
        print(f"single {single:.2f} ms, {zones} zones: first-zone seek mean {m:.3f} ms, "
              f"sd {s:.3f} ms (weighted miss {err:.3f})")


if __name__ == "__main__":
    main()
