"""Fit the Atlas 10K II profile's seek curve and band count to the paper's first-zone seeks.

What is published (seed 002, Schindler et al. 2002):

- Table 1: 10,000 RPM, 52,014 tracks, 528 to 353 sectors per track, average seek 4.7 ms
  (the datasheet's average over all pairs of cylinders);
- §5.2 and Figure 8: random reads confined to the first zone seek 2.2 ms on average, with
  a standard deviation of 0.4 ms ("the standard deviation of the seeks in this workload");
- §3.1: drives have "typically ... 8-20" zones.

What is not: the zone table (so the first zone's width), the single-cylinder and
full-stroke seeks (the profile assumes 0.8 and 10.0 ms, datasheet-like values), the
curve's shape.

The procedure. The curve is Ruemmler and Wilkes's two regimes (a square root for short
seeks, a line for long ones, continuous at the knee; :class:`TwoRegimeSeek`). For each
band count ``n`` in the paper's 8-20 range the first zone is ``ceil(8669 / n)`` cylinders
wide (equal bands, the wider ones first, as the profile's ``[geometry.zoning]`` makes
them), and :meth:`TwoRegimeSeek.fit` finds the root's coefficient and the knee that give
random seeks within that zone a mean of 2.2 ms and a σ of 0.4 ms. Each such curve has its
own datasheet average; the band count whose curve comes closest to Table 1's 4.7 ms is
the profile's, with that curve. Three published numbers (2.2, 0.4, 4.7) fix the three
unknowns (coefficient, knee, band count).

Run: ``python tools/fit_atlas10k2.py`` (prints every band count's fit and the choice).
``tests/test_profiles.py`` checks that ``data/disks/atlas10k2.toml`` holds this fit.

History: until 2026-11 the profile had a three-point curve (0.8 / 4.7 / 10.0 ms, tangent
at the knee) and 6 bands chosen to give the first zone a 2.2 ms mean; its seeks there had
σ 0.59 ms. An earlier version of this script fitted that curve's single-cylinder seek and
the band count to both the mean and σ and found 1.25 ms and 8 bands (σ 0.41 ms), which
slowed the short seeks of the soft real-time rounds; the two-regime curve keeps the 0.8 ms
single-cylinder seek and reaches σ 0.4 ms by bending at a knee near 120 cylinders.
"""

from __future__ import annotations

from simcore.disk.mechanics import TwoRegimeSeek, random_seek_moments

CYLINDERS = 8669              # 52,014 tracks / 6 surfaces (Table 1)
SINGLE_MS, FULL_MS = 0.8, 10.0  # assumed, datasheet-like
AVERAGE_MS = 4.7              # Table 1
MEAN_MS, SD_MS = 2.2, 0.4     # first zone, §5.2 and Figure 8
BANDS = range(8, 21)          # "typically ... 8-20" zones (§3.1)


def first_zone_width(bands: int, cylinders: int = CYLINDERS) -> int:
    """Cylinders of the first of ``bands`` equal bands (the profile loader's split)."""
    base, extra = divmod(cylinders, bands)
    return base + (1 if extra else 0)


def fits() -> list[tuple[int, TwoRegimeSeek]]:
    """Every band count's fitted curve."""
    return [(n, TwoRegimeSeek.fit(CYLINDERS, SINGLE_MS, FULL_MS, first_zone_width(n),
                                  MEAN_MS, SD_MS)) for n in BANDS]


def fit() -> tuple[int, TwoRegimeSeek]:
    """The band count and curve whose datasheet average is closest to Table 1's."""
    return min(fits(), key=lambda nc: abs(nc[1].average_ms() - AVERAGE_MS))


def main() -> None:
    for n, c in fits():
        m, s = random_seek_moments(c.times, first_zone_width(n))
        print(f"{n:2d} bands (first zone {first_zone_width(n)} cylinders): root "
              f"{c.sqrt_ms:.5f} ms, knee {c.knee:.1f} cylinders, datasheet average "
              f"{c.average_ms():.3f} ms (first zone: mean {m:.3f} ms, σ {s:.3f} ms)")
    n, c = fit()
    print(f"\nchosen: count = {n}; sqrt_ms = {c.sqrt_ms:.5f}; knee_cylinders = {c.knee:.1f} "
          f"(average {c.average_ms():.3f} ms against {AVERAGE_MS})")


if __name__ == "__main__":
    main()
