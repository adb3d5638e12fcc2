"""Exact where the model is exact (issue 14 part 7): ties on the toy disk are ties.

On the textbook toy disk (``data/disks/toy.toml``: one surface, three tracks of 12
sectors, 360 ticks a revolution, 40 ticks a track, head at cylinder 0 and angle 0 at
t = 0) every time is a whole number of ticks, so a positioning time by hand is

    seek     = 40 x |cylinder distance|
    arrival  = now + seek                      (the head's angle in degrees is arrival mod 360)
    wait     = (30 x sector - arrival) mod 360 (sector k starts at 30 k degrees)
    position = seek + wait

and two candidates with the same sum are a tie that the policy breaks by age. Before
the fix, float noise (40 + 49.999999999999986 < 90) decided instead.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simcore
from simcore import HeadState, Mechanism, load_disk
from simcore.disk.mechanics import TIME_RESOLUTION_MS, exact_ms
from simcore.records import READ, Request
from simcore.sched import GSTF, WSTF, AgedSPTF, TaggedSPTF, sptf

SPT, SECTOR_TICKS, REV, SEEK_PER_TRACK = 12, 30, 360, 40


@pytest.fixture(scope="module")
def toy():
    return Mechanism(load_disk("toy"))


def hand_positioning(lba: int, now: int, cylinder: int) -> int:
    """The formula of the module docstring, in integers."""
    track, sector = divmod(lba, SPT)
    seek = SEEK_PER_TRACK * abs(track - cylinder)
    wait = (SECTOR_TICKS * sector - (now + seek)) % REV
    return seek + wait


class ToyHead:
    """The part of :class:`simcore.drive.HeadView` a positional policy uses."""

    def __init__(self, mech: Mechanism, cylinder: int):
        self.mech, self.state = mech, HeadState(cylinder, 0)

    @property
    def cylinder(self) -> int:
        return self.state.cylinder

    def cylinder_of(self, lba: int) -> int:
        return self.mech.layout.cylinder_of(lba)

    def positioning_ms(self, request: Request, now: float) -> float:
        return self.mech.positioning_ms(request.lba, request.op != READ, now, self.state)


def requests(lbas) -> list[Request]:
    return [Request(i, 0.0, READ, lba, 1) for i, lba in enumerate(lbas)]


def test_exact_ms_rounds_noise_away():
    assert exact_ms(40 + 49.999999999999986) == exact_ms(90.0) == 90.0
    assert exact_ms(0.1 + 0.2) == 0.3
    assert TIME_RESOLUTION_MS == 1e-9


@pytest.mark.parametrize("now", [*range(0, 720, 10), 1_000_000])
@pytest.mark.parametrize("cylinder", [0, 1, 2])
def test_positioning_equals_hand_computation_exactly(toy, now, cylinder):
    """Every LBA, every head track, 72 start times: equal as numbers, not approximately."""
    head = HeadState(cylinder, 0)
    for lba in range(3 * SPT):
        got = toy.positioning_ms(lba, False, float(now), head)
        assert got == hand_positioning(lba, now, cylinder), (lba, now, cylinder, got)


def test_arriving_on_the_sector_edge_waits_nothing(toy):
    # now = 50: seek to cylinder 1 ends at 90 = 3 x 30, exactly when sector 3 (LBA 15) starts
    assert toy.positioning_ms(15, False, 50.0, HeadState(0, 0)) == 40.0
    # same track at 90: sector 3 (LBA 3) is under the head
    assert toy.positioning_ms(3, False, 90.0, HeadState(0, 0)) == 0.0


def test_the_issue_example_tie_goes_to_the_oldest(toy):
    """At now = 10 on cylinder 0: LBA 2 waits (60 - 10) = 50; LBA 14 seeks 40 then, at
    angle 50, waits (60 - 50) = 10: also 50. A tie, so the older LBA 2 goes first
    (float arithmetic made the second 49.99999999999999 and picked it)."""
    head = ToyHead(toy, 0)
    assert hand_positioning(2, 10, 0) == hand_positioning(14, 10, 0) == 50
    older, newer = requests([2, 14])
    assert sptf([older, newer], head, 10.0) is older
    assert sptf([newer, older], head, 10.0) is newer  # the same tie the other way round
    assert TaggedSPTF(2).choose([older, newer], head, 10.0) is older
    # the weighted policies see the same tie: both waited 10 ms, so both weights scale 50
    # by the same factor (WSTF: 50 x (1000 - 10) / 1000; aged: 50 - 0.01 x 10)
    assert WSTF().choose([older, newer], head, 10.0) is older
    assert AgedSPTF().choose([older, newer], head, 10.0) is older
    assert GSTF(group_cylinders=3).choose([older, newer], head, 10.0) is older


@settings(max_examples=300, deadline=None)
@given(lbas=st.lists(st.integers(0, 3 * SPT - 1), min_size=1, max_size=12),
       now=st.integers(0, 100_000), cylinder=st.integers(0, 2))
def test_sptf_picks_the_oldest_of_the_equal_time_candidates(lbas, now, cylinder):
    """Property: whatever the queue, SPTF picks the first (oldest) request among those
    with the least hand-computed positioning time."""
    toy = Mechanism(load_disk("toy"))
    pending = requests(lbas)
    times = [hand_positioning(lba, now, cylinder) for lba in lbas]
    expected = pending[times.index(min(times))]
    assert sptf(pending, ToyHead(toy, cylinder), float(now)) is expected


def hand_sptf_schedule(lbas: list[int]) -> list[tuple[int, int]]:
    """SPTF on a batch at t = 0, by hand: serve the least positioning (oldest on a tie),
    one sector of transfer (30 ticks), repeat. Returns (request id, finish tick)."""
    now, cylinder = 0, 0
    left = list(enumerate(lbas))
    out = []
    while left:
        best = min(left, key=lambda r: hand_positioning(r[1], now, cylinder))
        now += hand_positioning(best[1], now, cylinder) + SECTOR_TICKS
        cylinder = best[1] // SPT
        left.remove(best)
        out.append((best[0], now))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_sptf_run_on_a_random_batch_matches_hand_computation(toy, seed):
    """The whole drive, not just the policy: a batch of 30 random one-sector reads at
    t = 0 served by SPTF finishes in the hand-computed order at the hand-computed ticks."""
    rng = np.random.default_rng(seed)
    lbas = [int(x) for x in rng.integers(0, 3 * SPT, size=30)]
    res = simcore.run(toy, simcore.from_tuples([(0.0, "R", lba, 1) for lba in lbas]), "sptf")
    got = [(r.id, round(r.finish_ms, 6)) for r in sorted(res.records, key=lambda r: r.finish_ms)]
    assert got == [(i, float(t)) for i, t in hand_sptf_schedule(lbas)]
