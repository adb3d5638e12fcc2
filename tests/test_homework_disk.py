"""``python -m simcore homework disk``: OSTEP's disk homework, answers by hand.

Every expected value below is worked out by hand from the homework disk's rules
(the facts are in OSTEP's chapter "Hard Disk Drives" and the README of its disk
homework; :mod:`simcore.homework.toy` restates them), never by running OSTEP's code.

The default disk, as used in the comments:
- outer track 0 holds sectors 0-11, middle track 1 sectors 12-23, inner track 2 24-35;
- sector k of a track (k = sector - 12 x track) is centred at (180 + 30 (k + track x skew))
  mod 360 degrees and read from 15 degrees before its centre to 15 after;
- the head starts on track 0 at angle 0 (the middle of sector 6); the angle at tick t is
  R x t mod 360; a seek costs 40 / S ticks a track;
- a rotational wait is tested from the tick the seek ends (no seek: the next tick); a
  sector following the one just read on the same track streams on with no wait.
"""

from __future__ import annotations

import random

import pytest

from simcore.__main__ import main as cli_main
from simcore.disk.access import HeadState, Mechanism
from simcore.disk.profile_loader import load_disk
from simcore.homework import DiskHomework, ToyGeometry, ostep_profile, report, solve
from simcore.homework.requests import draw


def answers(**options) -> list[tuple[int, int, int, int, int]]:
    """(sector, seek, rotate, transfer, total) per request, in service order."""
    sol = solve(DiskHomework(compute=True, **options))
    return [(r.sector, r.service.seek, r.service.rotate, r.service.transfer, r.service.total)
            for r in sol.rows]


def totals(rows) -> tuple[int, int, int, int]:
    return tuple(sum(r[i] for r in rows) for i in range(1, 5))


# -- the README's worked examples -------------------------------------------------

def test_readme_single_sector_10():
    # sector 10 is centred at 180 + 300 = 480 = 120 degrees; it starts at 105. Same track,
    # so no seek; the head turns from 0 to 105: 105 ticks; the sector passes in 30.
    assert answers(addr="10") == [(10, 0, 105, 30, 135)]


def test_readme_two_adjacent_sectors_10_11():
    # 10 as above ends at 135 (angle 135 = the start of 11): 11 streams on, 30 more ticks
    rows = answers(addr="10,11")
    assert rows == [(10, 0, 105, 30, 135), (11, 0, 0, 30, 30)]
    assert totals(rows) == (0, 105, 60, 165)


def test_readme_seek_to_sector_18():
    # 10 ends at t = 135. Sector 18 is middle-track k = 6: centre 0, start 345. The seek
    # takes 40 (t = 175, angle 175); the head waits 345 - 175 = 170, then reads 30.
    rows = answers(addr="10,18")
    assert rows == [(10, 0, 105, 30, 135), (18, 40, 170, 30, 240)]
    assert totals(rows) == (40, 275, 60, 375)


def test_readme_output_lines(capsys):
    assert cli_main(["homework", "disk", "-a", "10,18", "-c"]) == 0
    out = capsys.readouterr().out
    assert "REQUESTS [10, 18]" in out
    assert "Block:  10  Seek:  0  Rotate:105  Transfer: 30  Total: 135" in out
    assert "Block:  18  Seek: 40  Rotate:170  Transfer: 30  Total: 240" in out
    assert "TOTALS      Seek: 40  Rotate:275  Transfer: 60  Total: 375" in out


def test_without_compute_the_answers_are_withheld(capsys):
    cli_main(["homework", "disk", "-a", "10,18"])
    out = capsys.readouterr().out
    assert "REQUESTS [10, 18]" in out and "Seek:" not in out and "-c" in out


# -- the homework's first questions ----------------------------------------------

@pytest.mark.parametrize("addr,expected", [
    # sector 0: centre 180, start 165: wait 165, read 30
    ("0", [(0, 0, 165, 30, 195)]),
    # sector 6: the head starts in its middle (angle 0), so it waits for its start at
    # 345: 345 ticks, then 30
    ("6", [(6, 0, 345, 30, 375)]),
    # sector 30: inner-track k = 6, start 345; seek 2 x 40 = 80 (angle 80), wait 265
    ("30", [(30, 80, 265, 30, 375)]),
    # 7 (centre 30, start 15): wait 15, read to 45. 30: seek 80 to t = 125, wait to
    # 345: 220, read to 375. 8 (centre 60, start 45): seek 80 to t = 455, angle 95,
    # wait to 45 of the next turn (t = 765): 310, read to 795.
    ("7,30,8", [(7, 0, 15, 30, 45), (30, 80, 220, 30, 330), (8, 80, 310, 30, 420)]),
    # 10 ends at 135, 11 streams to 165. 12 (middle k = 0, start 165): seek to t = 205,
    # angle 205, wait to 165 + 360 = 525: 320, read to 555; 13 streams to 585.
    ("10,11,12,13", [(10, 0, 105, 30, 135), (11, 0, 0, 30, 30),
                     (12, 40, 320, 30, 390), (13, 0, 0, 30, 30)]),
])
def test_homework_requests(addr, expected):
    assert answers(addr=addr) == expected


def test_the_7_30_8_totals():
    assert totals(answers(addr="7,30,8")) == (160, 545, 90, 795)
    assert totals(answers(addr="10,11,12,13")) == (40, 425, 120, 585)


# -- seek and rotation speeds ----------------------------------------------------

@pytest.mark.parametrize("speed,expected", [
    # -S 2: 20 a track. 7: 45. 30: seek 40 (t = 85), wait to 345: 260, read to 375.
    # 8: seek 40 (t = 415, angle 55), wait to 45 next turn (t = 765): 350, read to 795.
    ("2", [(7, 0, 15, 30, 45), (30, 40, 260, 30, 330), (8, 40, 350, 30, 420)]),
    # -S 4: 10 a track. 30: seek 20 (t = 65), wait 280, read to 375. 8: seek 20
    # (t = 395, angle 35), wait to 45 (t = 405): 10, read to 435.
    ("4", [(7, 0, 15, 30, 45), (30, 20, 280, 30, 330), (8, 20, 10, 30, 60)]),
    # -S 0.1: 400 a track. 30: seek 800 (t = 845, angle 125), wait to 345: 220, read to
    # 1095. 8: seek 800 (t = 1895, angle 95), wait to 45 (t = 2205): 310, read to 2235.
    ("0.1", [(7, 0, 15, 30, 45), (30, 800, 220, 30, 1050), (8, 800, 310, 30, 1140)]),
])
def test_seek_speed(speed, expected):
    assert answers(addr="7,30,8", seek_speed=speed) == expected


def test_seek_speed_totals():
    assert totals(answers(addr="7,30,8", seek_speed="4")) == (40, 305, 90, 435)
    assert totals(answers(addr="7,30,8", seek_speed="0.1")) == (1600, 545, 90, 2235)


def test_rotation_speed():
    # -R 0.5: sector 0's start (165 degrees) comes at t = 330, its end (195) at 390
    assert answers(addr="0", rotate_speed="0.5") == [(0, 0, 330, 60, 390)]
    # -R 0.1 (3600 ticks a turn): 7 starts at 150, ends at 450. 30: seek 80 (t = 530,
    # angle 53), start 345 at t = 3450: wait 2920; end 15 next turn, t = 3750: 300.
    # 8: seek 80 (t = 3830, angle 23), start 45 at t = 4050: 220; end 75 at 4350: 300.
    rows = answers(addr="7,30,8", rotate_speed="0.1")
    assert rows == [(7, 0, 150, 300, 450), (30, 80, 2920, 300, 3300), (8, 80, 220, 300, 600)]
    assert totals(rows) == (160, 3290, 900, 4350)


def test_rotation_speed_that_does_not_divide_a_sector():
    # -R 7: the head is "at" an angle when within less than 7 degrees of it. Sector 0
    # starts at 165: at t = 23 the angle is 161 (4 short): the transfer starts. It ends
    # at 195: at t = 27 the angle is 189 (6 short).
    assert answers(addr="0", rotate_speed="7") == [(0, 0, 23, 4, 27)]


# -- policies ----------------------------------------------------------------------

def test_sstf_beats_fifo_on_7_30_8():
    # SSTF: the nearest track (0) holds 7 and 8; of those 7 comes round first (45 vs 75).
    # 7 ends at 45; 8 streams on to 75; 30: seek 80 (t = 155), wait to 345: 190, to 375.
    rows = answers(addr="7,30,8", policy="SSTF")
    assert rows == [(7, 0, 15, 30, 45), (8, 0, 0, 30, 30), (30, 80, 190, 30, 300)]
    assert totals(rows) == (80, 205, 90, 375)
    assert totals(answers(addr="7,30,8", policy="SATF")) == (80, 205, 90, 375)


def test_satf_beats_sstf_when_the_seek_is_quick():
    # -S 40: one tick a track. SSTF reads 6 first (same track): wait 345, ends at 375;
    # then 31 (inner k = 7, centre 30, start 15): seek 2 (t = 377, angle 17), wait to 15
    # next turn (t = 735): 358, ends at 765.
    sstf = answers(addr="31,6", seek_speed="40", policy="SSTF")
    assert sstf == [(6, 0, 345, 30, 375), (31, 2, 358, 30, 390)]
    # SATF estimates at t = 0: 6 costs 345 + 30 = 375; 31 costs 2 + (15 - 2) + 30 = 45.
    # 31 ends at 45; 6: seek 2 (t = 47), wait to 345: 298, ends at 375.
    satf = answers(addr="31,6", seek_speed="40", policy="SATF")
    assert satf == [(31, 2, 13, 30, 45), (6, 2, 298, 30, 330)]
    assert totals(sstf)[3] == 765 and totals(satf)[3] == 375


def test_satf_tie_goes_to_the_older_request():
    # At t = 0: sector 1 (centre 210, start 195) costs 195 + 30 = 225; sector 13 (middle
    # k = 1, same angles) costs 40 + (195 - 40) + 30 = 225 too: a tie, the older first.
    assert answers(addr="1,13", policy="SATF")[0][0] == 1
    assert answers(addr="13,1", policy="SATF")[0][0] == 13


def test_window_one_is_fifo_and_a_sliding_window():
    # -w 1: SATF sees only the oldest pending request: FIFO's order and 795
    assert totals(answers(addr="7,30,8", policy="SATF", window=1))[3] == 795
    # -w 2: [7, 30] -> 7 (45 vs 375); the window slides to [30, 8]: 8 streams on (30)
    # before 30 (330): 7, 8, 30 and 375
    rows = answers(addr="7,30,8", policy="SATF", window=2)
    assert [r[0] for r in rows] == [7, 8, 30] and totals(rows)[3] == 375


def test_bounded_satf_serves_whole_batches():
    # BSATF -w 2 on 30,7,8: batch [30, 7] -> 7 first (45 vs 375), then 30 (seek 80 to
    # t = 125, wait 220, ends 375); only then batch [8]: seek 80 (t = 455, angle 95),
    # wait to 45 next turn: 310, ends at 795.
    rows = answers(addr="30,7,8", policy="BSATF", window=2)
    assert rows == [(7, 0, 15, 30, 45), (30, 80, 220, 30, 330), (8, 80, 310, 30, 420)]
    # plain SATF with the same window slides on and takes 8 before 30: 7, 8, 30 = 375
    assert [r[0] for r in answers(addr="30,7,8", policy="SATF", window=2)] == [7, 8, 30]
    # BSATF without a window is SATF
    assert answers(addr="30,7,8", policy="BSATF") == answers(addr="30,7,8", policy="SATF")


def test_late_requests_join_as_requests_are_dispatched():
    # 30 and 7 are queued; 8 joins when the first request (7, the cheaper) is sent out,
    # so SATF then sees 30 and 8 and lets 8 stream on after 7.
    sol = solve(DiskHomework(addr="30,7", late_addr="8", policy="SATF", compute=True))
    assert sol.late == [8]
    assert [r.sector for r in sol.rows] == [7, 8, 30]
    assert sum(r.service.total for r in sol.rows) == 375


# -- skew and zoning ---------------------------------------------------------------

def test_skew_two_saves_a_turn_on_10_11_12_13():
    # -o 2 turns the middle track by 2 sectors: 12 is centred at 180 + 60 = 240, starts
    # at 225. 11 ends at 165; seek 40 (t = 205, angle 205); wait 20; 13 streams on.
    rows = answers(addr="10,11,12,13", skew=2)
    assert rows[2] == (12, 40, 20, 30, 90)
    assert totals(rows) == (40, 125, 120, 285)
    # -o 1: 12 starts at 195, just missed at 205: wait to 555 (350), total 615
    assert totals(answers(addr="10,11,12,13", skew=1)) == (40, 455, 120, 615)


def test_zoning():
    # -z 10,20,30: 36 sectors of 10 degrees outside (0-35), 18 of 20 in the middle
    # (36-53), 12 of 30 inside (54-65)
    g = ToyGeometry((10, 20, 30))
    assert (g.count, g.first_of_track, g.random_limit) == (66, [0, 36, 54], 54)
    # 0: centre 180, 10 wide: starts 175, read 10
    assert answers(addr="0", zoning="10,20,30") == [(0, 0, 175, 10, 185)]
    # 40: middle k = 4, centre 180 + 80 = 260, start 250; seek 40, wait 210, read 20
    assert answers(addr="40", zoning="10,20,30") == [(40, 40, 210, 20, 270)]
    # 60: inner k = 6, centre 0, start 345; seek 80, wait 265, read 30
    assert answers(addr="60", zoning="10,20,30") == [(60, 80, 265, 30, 375)]


# -- random workloads ------------------------------------------------------------------

def res53(words: list[int]) -> list[float]:
    """Python's random() rebuilt from the generator's 32-bit words: 27 high bits of one
    and 26 of the next make a 53-bit fraction (CPython's genrand_res53)."""
    return [((a >> 5) * 2**26 + (b >> 6)) / 2**53 for a, b in zip(words[::2], words[1::2], strict=True)]


@pytest.mark.parametrize("seed", [0, 1, 2, 7, 42, 1000])
@pytest.mark.parametrize("desc", ["5,-1,0", "10,-1,0", "8,12,24"])
def test_drawn_requests_follow_the_recipe(seed, desc):
    """Each request is int(u x MAX) + MIN, u from Python's Mersenne Twister seeded with -s,
    MAX -1 meaning the first sector of the inner track (24 on the default disk)."""
    n, high, low = (int(x) for x in desc.split(","))
    high = 24 if high == -1 else high
    rng = random.Random(seed)
    us = res53([rng.getrandbits(32) for _ in range(2 * n)])
    expected = [int(u * high) + low for u in us]
    assert solve(DiskHomework(seed=seed, addr_desc=desc)).requests == expected


def test_seed_zero_by_hand():
    # Python's random() seeded with 0 starts 0.8444218515, 0.7579544029, 0.4205715808,
    # 0.2589167503, 0.5112747214; x 24 and truncated: 20, 18, 10, 6, 12
    assert solve(DiskHomework()).requests == [20, 18, 10, 6, 12]
    # the late list goes on from the same stream
    sol = solve(DiskHomework(addr_desc="2,-1,0", late_desc="3,-1,0"))
    assert (sol.requests, sol.late) == ([20, 18], [10, 6, 12])
    # given sectors draw nothing, so the late list starts the stream
    assert solve(DiskHomework(addr="1", late_desc="2,-1,0")).late == [20, 18]


def test_seed_zero_fifo_answers_by_hand():
    # 20 (middle k = 8: centre 60, start 45): seek 40, wait 5, read to 75.
    # 18 (middle k = 6: start 345): same track, wait from 75 to 345 = 270, read to 375.
    # 10 (outer, start 105): seek 40 (t = 415, angle 55), wait 50, read to 495.
    # 6 (outer, start 345): wait from 495 (angle 135) to 705 = 210, read to 735.
    # 12 (middle k = 0, start 165): seek 40 (t = 775, angle 55), wait 110, read to 915.
    rows = answers()
    assert rows == [(20, 40, 5, 30, 75), (18, 0, 270, 30, 300), (10, 40, 50, 30, 120),
                    (6, 0, 210, 30, 240), (12, 40, 110, 30, 180)]
    assert totals(rows) == (120, 645, 150, 915)


def test_draw_uses_the_given_bound():
    assert draw((3, 10, 100), random.Random(0), 24) == [108, 107, 104]  # int(0.84 x 10) + 100 ...


# -- the same questions through simcore's mechanics -------------------------------------

@pytest.mark.parametrize("policy", ["FIFO", "SSTF", "SATF", "BSATF"])
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("speeds", [("1", "1", 0), ("4", "1", 2), ("40", "0.5", 1)])
def test_simcore_mechanics_give_the_exact_answers(policy, seed, speeds):
    """``--disk ostep`` runs the homework disk through simcore's Mechanism (float ms);
    with exact ties (issue 14 part 7) it serves the same order at the same times."""
    s, r, o = speeds
    common = dict(seed=seed, addr_desc="12,36,0", policy=policy, window=3,
                  seek_speed=s, rotate_speed=r, skew=o)
    exact = answers(**common)
    simulated = answers(disk="ostep", **common)
    assert [row[0] for row in simulated] == [row[0] for row in exact]
    for got, want in zip(simulated, exact, strict=True):
        assert got[1:] == pytest.approx(want[1:], abs=1e-6)


def test_ostep_profile_geometry():
    prof = ostep_profile()
    mech = Mechanism(prof)
    # sector 10 from the start: 105 of waiting and 30 of reading, as in the README
    acc = mech.access(10, 1, False, 0.0, HeadState(0, 0))
    assert (acc.seek_ms, acc.rotation_ms, acc.end_ms) == pytest.approx((0, 105, 135))


def test_real_drive_questions():
    """On atlas10k the requests are LBAs drawn over the whole drive, and SATF's first pick
    is the request with the least mechanical service time from the start."""
    sol = solve(DiskHomework(seed=3, addr_desc="6,-1,0", policy="SATF", compute=True,
                             disk="atlas10k"))
    prof = load_disk("atlas10k")
    mech = Mechanism(prof)
    capacity = mech.layout.capacity
    rng = random.Random(3)
    assert sol.requests == [int(rng.random() * capacity) for _ in range(6)]
    head = HeadState(prof.initial_cylinder, 0)
    cost = {lba: mech.access(lba, 1, False, 0.0, head).end_ms for lba in sol.requests}
    assert sol.rows[0].sector == min(sol.requests, key=cost.get)
    assert sol.rows[0].service.total == pytest.approx(cost[sol.rows[0].sector])
    assert "ms" in report(DiskHomework(compute=True, disk="atlas10k", seed=3), sol)


@pytest.mark.parametrize("options,message", [
    (dict(addr="36"), "sector 36 is not on this disk"),
    (dict(policy="LOOK"), "FIFO, SSTF, SATF, BSATF"),
    (dict(seek_speed="3"), "whole number of arm steps"),
    (dict(window=0, policy="SATF"), "-w 0"),
    (dict(addr_desc="5,-1"), "N,MAX,MIN"),
    (dict(zoning="30,30"), "three in all"),
    (dict(disk="atlas10k", rotate_speed="2"), "-R only apply to the homework disk"),
    (dict(disk="ostep", zoning="10,20,30"), "one -z angle"),
])
def test_bad_options_are_named(options, message):
    with pytest.raises(ValueError, match=message.replace("-", r"\-")):
        solve(DiskHomework(compute=True, **options))


def test_seed_3_satf_with_late_requests_by_hand():
    """-s 3 -A 5,-1,0 -L 2,-1,0 -p SATF: requests 5, 13, 8, 14, 15; late 1 and 0."""
    sol = solve(DiskHomework(seed=3, late_desc="2,-1,0", policy="SATF", compute=True))
    assert (sol.requests, sol.late) == ([5, 13, 8, 14, 15], [1, 0])
    rows = [(r.sector, r.service.seek, r.service.rotate, r.service.transfer) for r in sol.rows]
    # t = 0, angle 0, track 0. Estimates (seek + wait + 30): 5 (start 315): 345;
    # 13 (start 195): 40 + 155 + 30 = 225; 8 (start 45): 75; 14: 255; 15: 285 -> 8.
    # Late 1 joins. 8 ends at 75.
    # t = 75: 13: 40 + (195 - 115) + 30 = 150; 1 (start 195, same track): 120 + 30 = 150:
    # a tie, and 13 is older -> 13. Late 0 joins. Seek to 115, wait to 195, end 225.
    # t = 225 on track 1: 14 starts at 225 (streams on, 30), then 15 (30): t = 285.
    # t = 285: 5: 40 + (315 - 325 mod 360 = 350) + 30 = 420; 1: 40 + 230 + 30 = 300;
    # 0 (start 165): 40 + 200 + 30 = 270 -> 0: seek to 325, wait to 525, end 555.
    # t = 555 (angle 195): 1 streams on to 585; 5: wait from 225 to 315 (90), end 705.
    assert rows == [(8, 0, 45, 30), (13, 40, 80, 30), (14, 0, 0, 30), (15, 0, 0, 30),
                    (0, 40, 200, 30), (1, 0, 0, 30), (5, 0, 90, 30)]
    assert sum(r.service.total for r in sol.rows) == 705
