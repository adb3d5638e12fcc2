"""The drive firmware under option combinations nobody tried by hand.

A bounded, seeded fuzz (``tests/helpers_firmware_fuzz.py``; ``tools/fuzz_firmware.py`` runs
thousands of cases): random bundled profiles, every :class:`CacheConfig` option, every
scheduler and small mixed workloads (reads, writes, FUA, FLUSH; sequential, rewrites,
random; 1 sector to more than a segment; bursts and idle gaps), each on both engine paths.
Then one regression test per failure the fuzzer found, each failing on the code before
its fix.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_firmware_fuzz import check, draw

import simcore
from simcore.drive.cache import CacheConfig, SegmentCache
from simcore.records import Request
from simcore.stack import stack
from simcore.workloads import OpenWorkload


@pytest.mark.parametrize("block", range(8))
def test_seeded_fuzz_cases_keep_every_invariant(block):
    """80 seeded cases (10 per block, so a failure names its seeds): no crash but a
    ValueError naming a rejected option, every request completed once, no negative phase,
    the two engine paths' records identical, every FLUSH returning with nothing owed, no
    acknowledged write left unwritten, never more segments than configured."""
    failures = {}
    for seed in range(90_000 + 10 * block, 90_000 + 10 * block + 10):
        case = draw(seed)
        problems = check(case)
        if problems:
            failures[seed] = (case.describe(), problems[:3])
    assert not failures, failures


# -- 4Kn drives: the firmware's own media work in whole logical blocks -----------------
K4N = simcore.Mechanism(simcore.load_disk("hc310_4kn"))


def test_a_4kn_drive_splits_its_buffer_into_whole_logical_blocks():
    """64 KiB in 3 segments is 42 sectors each, five 4 KiB blocks and a part: a 4Kn drive's
    segment holds the five (40 sectors); adaptive re-segmenting counts in blocks too."""
    assert SegmentCache(CacheConfig(size_kib=64, segments=3), K4N).cap == 40
    assert SegmentCache(CacheConfig(size_kib=64, segments=3),
                        simcore.Mechanism(simcore.load_disk("hc310_512e"))).cap == 42
    cache = SegmentCache(CacheConfig(size_kib=64, segments=1, adaptive=True,
                                     stream_window=4), K4N)
    for k in range(3):  # three streams: three segments
        cache._note_stream(8000 * (k + 1), 8)
    assert cache.n_segments == 3 and cache.cap == 40


def _aligned_mix(cap, n, seed):
    rng = np.random.default_rng(seed)
    t, nxt, reqs = 0.0, 80_000, []
    for i in range(n):
        t += float(rng.exponential(0.4))
        lba = nxt if rng.random() < 0.6 else int(rng.integers(0, cap // 8 - 64)) * 8
        k = 8 * int(rng.integers(1, 9))
        reqs.append(Request(i, t, "W" if rng.random() < 0.4 else "R", lba, k))
        nxt = lba + k
    return reqs


def test_a_4kn_drive_reads_ahead_in_whole_logical_blocks():
    """A read-ahead filling a 42-sector segment (64 KiB in 3) read 34 sectors past an
    8-sector read, four blocks and a part: the media refused the part (AlignmentError, the
    4Kn drive's rule for host requests) and the run died. Now it reads four blocks, and a
    mixed run of aligned requests keeps every segment's end on a block."""
    cfg = CacheConfig.from_profile(K4N.profile, size_kib=64, segments=3, write_back=True)
    res = simcore.run(stack(K4N, cache=cfg), OpenWorkload(_aligned_mix(K4N.layout.capacity,
                                                                       300, 4)))
    assert len(res.records) == 300
    cache = res.meta["built"].drives[0].cache
    assert cache.stats["read_ahead_stopped"] > 0 and cache.stats["destages"] > 0
    assert all(g.end % 8 == 0 for g in cache.segments)


@pytest.mark.parametrize("after_ms", [0.005, 0.0093, 0.0151])
def test_a_read_ahead_stopped_inside_a_4kn_block_keeps_whole_blocks(after_ms):
    """A read-ahead stopped a few sector times (2 us each) into its run kept the sectors
    read whole, ending the segment inside a 4 KiB block; the read-ahead a later full hit
    starts from there (read_ahead_on_hit) asked the media for a part of a block and the run
    died (AlignmentError). The block in progress is dropped, as the sector in progress
    is (``SegmentCache.stop``)."""
    cfg = CacheConfig.from_profile(K4N.profile, size_kib=256, segments=4,
                                   read_ahead_on_hit=True)
    first = Request(0, 0.0, "R", 80_000, 8)
    end = simcore.run(stack(K4N, cache=cfg), OpenWorkload([first])).records[0].finish_ms
    reqs = [first, Request(1, end + after_ms, "R", 4_000_000_000, 8),
            Request(2, 40.0, "R", 80_000, 8)]
    res = simcore.run(stack(K4N, cache=cfg), OpenWorkload(reqs))
    cache = res.meta["built"].drives[0].cache
    assert len(res.records) == 3 and cache.stats["read_ahead_stopped"] > 0
    assert all(g.end % 8 == 0 for g in cache.segments)


# -- the record's phases are never negative ---------------------------------------------
def test_a_write_through_write_charges_no_negative_rotation():
    """A FUA write whose data waits for nothing loses no revolution: its rotation is the
    plan's, not the plan's plus the difference, in the last bit, between the plan's end and
    its last sector's time (request 7 here was charged -7.8e-15 ms, found by the fuzzer)."""
    mech = simcore.Mechanism(simcore.load_disk("maxtor92048u8"))
    cfg = CacheConfig.from_profile(mech.profile, size_kib=32.5, separate_write_segment=True,
                                   preempt_destage=False, read_hits_on_write_data=False)
    reqs = [Request(0, 0.0, "W", 18865964, 35),
            Request(1, 2.933133247454922, "W", 18865942, 16),
            Request(2, 3.931282294180855, "W", 18865958, 3),
            Request(3, 4.6254033849261305, "W", 25424272, 16, 0, True),
            Request(4, 4.6254033849261305, "W", 28090331, 35),
            Request(5, 13.67262795429595, "R", 31929894, 1),
            Request(6, 15.09981227810372, "W", 7744418, 64),
            Request(7, 15.851040869344697, "W", 7744482, 64, 0, True),
            Request(8, 15.851040869344697, "W", 7744409, 8),
            Request(9, 15.851040869344697, "R", 34618929, 64),
            Request(10, 20.524051409630655, "R", 34618993, 1),
            Request(11, 23.519222948345423, "R", 22052471, 64),
            Request(12, 25.983038932500104, "W", 25424269, 16)]
    res = simcore.run(stack(mech, scheduler="cscan", cache=cfg), OpenWorkload(reqs))
    assert len(res.records) == 13
    assert min(r.rotation_ms for r in res.records) >= 0.0


# -- write-back never lands an older copy on top of a newer one ------------------------
@pytest.mark.parametrize("destage", ["lru", "sptf"])
@pytest.mark.parametrize("path", ["run", "event loop"])
def test_a_write_over_dirty_data_waits_until_that_data_is_written(destage, path):
    """Write 1 is buffered in a segment of its own while write 0's destage runs; write 2,
    larger than a 16-sector segment, starts inside write 1's dirty data without appending
    to it. It took a fresh segment at once and, bigger than a segment, was destaged at
    once: write 1's older copy of sectors 1004-1007 was destaged after it and stayed on
    the platter. As DiskSim 4.0 (a BUFFER_COLLISION in
    ``disk_buffer_select_write_segment``), write 2 now waits until write 1 is written."""
    from helpers_firmware_fuzz import Case, Ledger, _one_run

    reqs = [Request(0, 0.0, "W", 5_000_000, 8), Request(1, 0.0, "W", 1000, 8),
            Request(2, 0.0, "W", 1004, 40), Request(3, 30.0, "F", 0, 1)]
    case = Case(0, "maxtor92048u8", {"size_kib": 16, "segments": 2, "destage": destage},
                "fcfs", reqs)
    ledger = Ledger()
    with ledger.patched():
        drive, records = _one_run(case, case.config(), path, ledger)
    assert len(records) == 4 and ledger.owed_at_flush == [0] and not ledger.owed
    assert not ledger.stale(), f"older data on sectors {ledger.stale()}"
    assert drive.cache.stats["waited_for_older_data"] == 1


@pytest.mark.parametrize("destage", ["lru", "sptf"])
@pytest.mark.parametrize("path", ["run", "event loop"])
def test_an_appending_write_over_another_segments_dirty_data_waits(destage, path):
    """Write 3 appends to write 2's segment and, 24 sectors long, reaches into write 1's
    dirty data in another segment; too large for its segment, it was destaged at once and
    write 1's older copy of sectors 1016-1023 landed after it. An append collides with
    another segment's dirty data as a fresh write does, and waits for it."""
    from helpers_firmware_fuzz import Case, Ledger, _one_run

    reqs = [Request(0, 0.0, "W", 5_000_000, 8), Request(1, 0.0, "W", 1016, 8),
            Request(2, 0.0, "W", 1000, 8), Request(3, 0.0, "W", 1008, 24),
            Request(4, 30.0, "F", 0, 1)]
    case = Case(0, "maxtor92048u8", {"size_kib": 32, "segments": 4, "destage": destage},
                "fcfs", reqs)
    ledger = Ledger()
    with ledger.patched():
        drive, records = _one_run(case, case.config(), path, ledger)
    assert len(records) == 5 and ledger.owed_at_flush == [0] and not ledger.owed
    assert not ledger.stale(), f"older data on sectors {ledger.stale()}"
    assert drive.cache.stats["waited_for_older_data"] == 1


def test_a_fua_write_after_a_destage_ended_unnoticed_finds_its_segment_clean():
    """One segment; a FUA write arrives just before the destage of the write before it
    ends, and takes the cache once its overhead is over, after that end, the destage not yet
    retired: the segment looked dirty, the wait for room retired the destage and then
    looked for a dirty segment to write out among none (ValueError: min() of an empty
    sequence). The ended destage is retired first: the segment is clean, nothing waits."""
    mech = simcore.Mechanism(simcore.load_disk("atlas10k"))
    cfg = CacheConfig.from_profile(mech.profile, size_kib=8, segments=1, write_back=True)
    first = [Request(0, 0.0, "W", 3_000_000, 8)]
    end = simcore.run(stack(mech, cache=cfg), OpenWorkload(first)).meta["end_ms"]
    half = mech.profile.overheads.write(True) / 2
    reqs = [*first, Request(1, end - half, "W", 9_000_000, 8, 0, True)]
    for path in ("run", "event loop"):
        from helpers_firmware_fuzz import Case, Ledger, _one_run

        case = Case(0, "atlas10k", {"size_kib": 8, "segments": 1, "write_back": True},
                    "fcfs", reqs)
        drive, records = _one_run(case, case.config(), path, Ledger())
        assert len(records) == 2 and drive.cache.stats["waited_for_room"] == 0


@pytest.mark.parametrize("n", [16, 32])
def test_a_stop_waiting_a_hair_below_zero_charges_no_negative_seek(n):
    """With ``stop_in_sector`` False the head is free at the next sector boundary, which
    rounding may put a hair before the stop: the stop's wait is then -1e-14 ms, and with
    ``stop_adds_to_overhead`` the media start ``(free - wait) + wait`` a hair below the end
    of the overhead. A write through (request 14 of the first 16) and a read miss (request
    31 of 32) were charged seeks of -1.4e-14 and -2.8e-14 ms (found by the fuzzer);
    neither goes below zero now."""
    mech = simcore.Mechanism(simcore.load_disk("wd800jd"))
    cfg = CacheConfig.from_profile(mech.profile, size_kib=16, segments=4,
                                   min_read_ahead_kib=64, read_hits_on_write_data=False,
                                   read_ahead_over_requested=True, stop_in_sector=False,
                                   stop_adds_to_overhead=True)
    reqs = [Request(0, 0.6517300774121468, "W", 30351815, 8),
            Request(1, 2.607773513456043, "W", 30351807, 16),
            Request(2, 2.607773513456043, "R", 112073112, 8),
            Request(3, 2.607773513456043, "F", 0, 1),
            Request(4, 6.575146273708204, "R", 41030192, 1),
            Request(5, 12.698875918895538, "R", 41030194, 8),
            Request(6, 12.698875918895538, "R", 41030195, 1),
            Request(7, 12.698875918895538, "R", 41030196, 8),
            Request(8, 13.464236810517392, "W", 122580091, 2),
            Request(9, 14.483001717536641, "R", 122580093, 8),
            Request(10, 14.483001717536641, "W", 122580099, 1),
            Request(11, 18.97685300764814, "R", 122580100, 1),
            Request(12, 18.97685300764814, "W", 131405731, 19, 0, True),
            Request(13, 19.6173938966424, "R", 131405750, 1),
            Request(14, 19.6173938966424, "W", 131405751, 1),
            Request(15, 19.775508044341215, "R", 81894219, 8),
            Request(16, 19.775508044341215, "W", 58637320, 19, 0, True),
            Request(17, 21.945553940954564, "R", 58637330, 1),
            Request(18, 23.553159692591414, "R", 58637331, 8),
            Request(19, 23.553159692591414, "W", 58637339, 18),
            Request(20, 25.164862276299388, "R", 58637357, 1),
            Request(21, 34.1975058067912, "R", 16342180, 16),
            Request(22, 99.2146792091029, "R", 16342196, 19),
            Request(23, 99.2146792091029, "W", 98087100, 8),
            Request(24, 100.31433054817442, "W", 98087096, 19),
            Request(25, 100.31433054817442, "W", 98087115, 16),
            Request(26, 100.31433054817442, "W", 41030185, 2),
            Request(27, 102.14031115277392, "F", 0, 1),
            Request(28, 102.56449527888589, "W", 154067911, 64),
            Request(29, 122.75174467152983, "R", 154067975, 8),
            Request(30, 123.09459678559347, "R", 47869406, 10),
            Request(31, 123.88370513265464, "R", 47869399, 19)]
    res = simcore.run(stack(mech, scheduler="sstf", cache=cfg), OpenWorkload(reqs[:n]))
    assert len(res.records) == n
    assert [r.id for r in res.records if not r.seek_ms >= 0.0] == []


# -- a read larger than its segment over a slow or PIO interface ------------------------
def _phase_gap(rec):
    parts = (rec.queue_ms + rec.overhead_ms + rec.seek_ms + rec.rotation_ms
             + rec.transfer_ms + rec.interface_ms)
    return parts - rec.response_ms


@pytest.mark.parametrize("mode, multcount", [("pio4", 1), ("pio4", 16), ("udma2", 1)])
def test_a_read_larger_than_its_segment_has_phases_that_add_up(mode, multcount):
    """A 4-sector segment (32.5 KiB in 16) and reads of 10 sectors: a miss, then the same
    sectors again, a full hit (the segment keeps a whole request larger than itself). The
    ring rule (a sector a segment past another enters the buffer once that one has gone)
    was applied to the hit's sectors, all buffered already, charging it revolutions it
    never spent; and PIO bursts drained sectors the ring had not let in yet, whose lost
    revolutions were then charged but not spent (rotation 6 ms, the service 0.7 ms). Now a
    full hit loses no revolution, a PIO burst stops a segment past its first sector, and a
    DRQ block is never larger than a segment: every record's phases add up to its
    response."""
    from simcore.drive.interface import Port

    mech = simcore.Mechanism(simcore.load_disk("atlas10k2"))
    cfg = CacheConfig.from_profile(mech.profile, size_kib=32.5)
    reqs = [Request(0, 0.0, "R", 10841555, 10), Request(1, 50.0, "R", 10841555, 10)]
    port = Port.of(mode, multcount=multcount, hold="transfer")
    res = simcore.run(stack(mech, cache=cfg, interface=port), OpenWorkload(reqs))
    assert res.meta["built"].drives[0].cache.cap == 4
    miss, hit = sorted(res.records, key=lambda r: r.id)
    assert abs(_phase_gap(miss)) < 1e-9
    assert hit.cache_hit and hit.rotation_ms == 0.0 and abs(_phase_gap(hit)) < 1e-9
