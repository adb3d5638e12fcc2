"""The drive's buffer: plans, read-ahead policies, preemption, LRU segments, write-back.

Sources: Gray 2000 §2.6 and §2.10 (speed matching, the lost revolution, read-ahead in
zero, on-arrival read-ahead, segmentation, write-back), Panagiotakis 2006 as extracted in
notes/004_multistream.md §5 (#streams > #segments thrashes; prefetch can then do worse
than none; adaptive segments fix it).
"""

from __future__ import annotations

import numpy as np
import pytest
import simpy
from helpers_disks import small_disk

import simcore
from simcore import HeadState, Mechanism, load_disk
from simcore.disk.access import Plan, PlanPiece
from simcore.drive.cache import FLUSH, CacheConfig, SegmentCache, respect_arrivals, sector_end
from simcore.drive.drive import Drive
from simcore.drive.interface import FREE, Port
from simcore.workloads import ClosedWorkload


@pytest.fixture(scope="module")
def ten_ms_disk():
    """6,000 RPM (10 ms a turn), 100 sectors per track (0.1 ms each), two surfaces,
    0.5 ms head switch: the derived track skew is 5 sectors, so switches cost no turn."""
    return Mechanism(small_disk([{"first_cylinder": 0, "last_cylinder": 9,
                                  "sectors_per_track": 100}], surfaces=2, rpm=6000.0,
                                head_switch_ms=0.5))


@pytest.mark.parametrize("disk_id", ["wd800jd", "atlas10k", "maxtor92048u8", "cheetahx15"])
def test_plan_matches_access(disk_id):
    """Mechanism.plan is access() sector by sector: same seek, rotation, transfer and end.

    One difference is deliberate: when a head switch ends exactly on the skewed first
    sector of the next track (a skew of exactly switch / sector time, as on the WD800JD),
    access() may charge a whole revolution from floating-point rounding; plan() treats a
    wait within a millionth of a sector of a full turn as none. Such requests differ by
    whole revolutions and are compared after removing them.
    """
    mech = Mechanism(load_disk(disk_id))
    rng = np.random.default_rng(3)
    rev = mech.rev_ms
    for _ in range(150):
        n = int(rng.integers(1, 900))
        lba = int(rng.integers(0, mech.layout.capacity - n))
        head = HeadState(int(rng.integers(0, mech.layout.cylinders)), 0)
        t = float(rng.uniform(0, 1e5))
        write = bool(rng.integers(0, 2))
        a = mech.access(lba, n, write, t, head)
        p = mech.plan(lba, n, write, t, head)
        assert p.seek_ms == pytest.approx(a.seek_ms, abs=1e-6)
        lost = round((a.rotation_ms - p.rotation_ms) / rev)
        assert lost >= 0
        assert p.rotation_ms + lost * rev == pytest.approx(a.rotation_ms, abs=1e-6)
        assert p.transfer_ms == pytest.approx(a.transfer_ms, abs=1e-6)
        assert p.end_ms + lost * rev == pytest.approx(a.end_ms - a.interface_ms, abs=1e-6)
        assert p.done_ms[-1] <= p.end_ms + 1e-9
        assert np.all(np.diff(p.done_ms) >= 0)


def test_buffered_path_without_read_ahead_equals_the_fast_path():
    """With no read-ahead and an ideal bus the buffered drive serves random reads exactly as
    the fast path does (a non-zero-latency disk: data leaves in LBA order either way)."""
    mech = Mechanism(load_disk("wd800jd"))
    wl = simcore.random_open(mech.layout.capacity, 400, rate_per_s=60, size_kib=4, seed=5)
    fast = simcore.run(mech, wl)
    slow = simcore.run(mech, wl, cache=CacheConfig(8192, 16, read_ahead="none"))
    a = np.array([r.finish_ms for r in sorted(fast.records, key=lambda r: r.id)])
    b = np.array([r.finish_ms for r in sorted(slow.records, key=lambda r: r.id)])
    assert np.allclose(a, b, atol=1e-6)


def _stream(policy, n=100, kib=64, **kw):
    mech = Mechanism(load_disk("maxtor92048u8"))
    wl = simcore.sequential_open(0, n, size_kib=kib)
    return simcore.run(mech, wl, cache=CacheConfig(1024, 4, read_ahead=policy, **kw))


def test_read_ahead_hit_rate_of_a_sequential_stream():
    """One sequential stream: without read-ahead no request finds its data in the buffer
    and each waits about a revolution; with read-ahead every request but the first hits."""
    none = _stream("none")
    assert sum(r.cache_hit for r in none.records) == 0
    rev = 60000 / 7200
    assert np.mean([r.rotation_ms for r in none.records[1:]]) > 0.8 * rev  # the lost turn
    for policy in ("segment", "zero"):
        res = _stream(policy)
        assert sum(r.cache_hit for r in res.records) == len(res.records) - 1
    # 64 KiB at the media rate: 21.4 MB/s streaming against under 7 without read-ahead
    assert _stream("segment").summary()["throughput_mb_s"] > 3 * none.summary()[
        "throughput_mb_s"]


def test_track_and_cylinder_read_ahead_stop_at_their_boundary(ten_ms_disk):
    for policy, end in (("track", 100), ("cylinder", 200), ("segment", 512)):
        cache = SegmentCache(CacheConfig(256, 1, read_ahead=policy), ten_ms_disk)
        _miss(cache, 0, 1)
        assert cache.contents(1e9) == [(0, end, False)], policy


def test_on_arrival_read_ahead_keeps_what_passed_before_the_target(ten_ms_disk):
    """Gray §2.10: 'Once the read-write head arrives on the correct track, the entire
    track is immediately read into the buffer cache'."""
    cache = SegmentCache(CacheConfig(256, 1, read_ahead="on-arrival"), ten_ms_disk)
    head = HeadState(0, 0)
    svc = cache.read(50, 1, 0.0, 0.0, head)  # the head is at sector 0: 0..49 pass first
    cache.read_done(svc, svc.media_end_ms, head)
    assert cache.contents(1e9) == [(0, 100, False)]
    assert cache.lookup(10, 5, 1e9) == "hit"


def test_read_ahead_stops_at_once_but_never_inside_a_head_switch(ten_ms_disk):
    """A new command preempts read-ahead where the head is, except in a head switch, which
    cannot be aborted (Gray §2.10, read-ahead in zero)."""
    def started():
        cache = SegmentCache(CacheConfig(256, 1, read_ahead="segment"), ten_ms_disk)
        head = _miss(cache, 0, 1)[1]  # sector 0 at 0.1 ms; read-ahead 1..99 by 10.0
        return cache, head

    cache, head = started()
    assert cache.stop(5.05, head) == pytest.approx(5.05)
    assert cache.contents(1e9) == [(0, 50, False)]  # sector k is done at (k+1) x 0.1 ms
    cache, head = started()
    assert cache.stop(10.2, head) == pytest.approx(10.5)  # switch 10.0-10.5 runs to its end
    assert cache.contents(1e9) == [(0, 100, False)] and head.surface == 1
    # a minimum read-ahead is read whatever arrives
    cache = SegmentCache(CacheConfig(256, 1, read_ahead="segment", min_read_ahead_kib=40),
                         ten_ms_disk)
    head = HeadState(0, 0)
    svc = cache.read(0, 1, 0.0, 0.0, head)
    cache.read_done(svc, svc.media_end_ms, head)
    assert cache.stop(2.0, head) == pytest.approx(8.1)  # 80 sectors after sector 0


@pytest.mark.parametrize("in_sector", [True, False])
def test_stop_prefetch_in_sector(ten_ms_disk, in_sector):
    """DiskSim 4.0's "Stop prefetch in sector" (disk_buffer_stopable_access): with 1 a
    stopped read-ahead frees the head at once, in the middle of a sector; with 0 at the end
    of the sector under the head. Either way the sector in progress is dropped, and a head
    switch in progress runs to its end. Read-ahead: sector k of track 0 is done at
    (k + 1) x 0.1 ms, the switch to surface 1 runs 10.0-10.5 and its first sector is
    read 10.5-10.6."""
    def started():
        cache = SegmentCache(CacheConfig(256, 1, read_ahead="segment",
                                         stop_in_sector=in_sector), ten_ms_disk)
        head = _miss(cache, 0, 1)[1]
        return cache, head

    cache, head = started()  # 0.03 ms into sector 50 (5.0-5.1)
    assert cache.stop(5.03, head) == pytest.approx(5.03 if in_sector else 5.1)
    assert cache.contents(1e9) == [(0, 50, False)]
    assert cache.stop_wait == pytest.approx(0.0 if in_sector else 0.07)
    cache, head = started()  # on a sector boundary: nothing to wait for
    assert cache.stop(5.0, head) == pytest.approx(5.0)
    cache, head = started()  # in the head switch: its end, whatever the knob
    assert cache.stop(10.2, head) == pytest.approx(10.5)
    assert cache.stop_wait == pytest.approx(0.3)
    cache, head = started()  # 0.03 ms into the first sector of surface 1
    assert cache.stop(10.53, head) == pytest.approx(10.53 if in_sector else 10.6)
    assert cache.contents(1e9) == [(0, 100, False)] and head.surface == 1


def test_sector_end_waits_for_the_first_sector_then_the_next_boundary():
    """A track reached at 1.0 ms whose first sector begins at 1.37 ms, sectors of 0.1 ms,
    the last ending at 3.0 ms: before 1.37 the head is free when that sector begins, then
    at the next boundary (1.47, 1.57, ...), and never after the track's end."""
    p = PlanPiece(0, 0.0, 1.0, 3.0, 0, 0, 0.1, 1.37)
    for t, free in [(1.0, 1.37), (1.2, 1.37), (1.37, 1.37), (1.40, 1.47), (1.47, 1.47),
                    (2.0, 2.07), (2.999, 3.0)]:
        assert sector_end(p, t) == pytest.approx(free), t


@pytest.mark.parametrize("in_sector,adds,end", [(True, False, 5.9), (True, True, 5.9),
                                                (False, False, 5.9), (False, True, 15.9)])
def test_stop_wait_comes_after_the_command_overhead_in_disksim(ten_ms_disk, in_sector, adds,
                                                               end):
    """DiskSim 4.0's disk_check_hda starts the next seek after the command overhead *plus*
    what the stop waited (disk_seek_stoptime), not the larger of the two. A miss on
    surface 1 (LBA 152, its sector under the head 5.8-5.9 ms) arrives at 5.03 ms during a
    track read-ahead, its overhead ends at 5.28 ms; the head switch takes 0.5 ms. Free at
    5.28 the head is on surface 1 at 5.78 and reads LBA 152 by 5.9. With "Stop prefetch in
    sector" = 0 and the wait added (0.07 ms, to the end of sector 50) it is free at 5.35,
    on surface 1 at 5.85, past the sector's start: a turn later, 15.9."""
    cache = SegmentCache(CacheConfig(256, 1, read_ahead="track", stop_in_sector=in_sector,
                                     stop_adds_to_overhead=adds), ten_ms_disk)
    head = HeadState(0, 0)
    svc = cache.read(0, 1, 0.0, 0.0, head)
    cache.read_done(svc, svc.media_end_ms, head)  # read-ahead of 1..99 until 10.0
    svc = cache.read(152, 1, 5.03, 5.28, head)
    assert svc.kind == "miss"
    assert svc.media_end_ms == pytest.approx(end)


@pytest.mark.parametrize("write_back", [False, True])
@pytest.mark.parametrize("adds,end", [(False, 11.0), (True, 21.0)])
def test_a_write_stopping_a_read_ahead_waits_overhead_plus_stop(ten_ms_disk, write_back, adds,
                                                                end):
    """DiskSim 4.0's write path (disk_write_arrive -> disk_activate_write -> disk_check_hda)
    stops a read-ahead when the write arrives and starts the write's seek after the
    overhead *plus* the stop's wait, written through or buffered (the seek is then the
    destage's). Read-ahead: track 0 read by 10.0, the switch to surface 1 runs 10.0-10.5,
    LBA 100 + j passes 10.6 + 0.1 j to 10.7 + 0.1 j (the track's skew is 6 sectors). A
    one-sector write of LBA 103 (10.9-11.0) arrives at 10.2 with an overhead of 0.5 and
    its data in at 10.7. The larger of the two (0.5, the switch ending 0.3 after arrival)
    frees the head at 10.7 and the sector is written by 11.0; the sum (0.5 + 0.3) frees it
    at 11.0, just past the sector's start: a turn later, 21.0."""
    cache = SegmentCache(CacheConfig(256, 1, read_ahead="segment", write_back=write_back,
                                     stop_adds_to_overhead=adds), ten_ms_disk)
    head = HeadState(0, 0)
    svc = cache.read(0, 1, 0.0, 0.0, head)
    cache.read_done(svc, svc.media_end_ms, head)
    w = cache.write(103, 1, np.array([10.7]), 10.7, head, arrival_ms=10.2)
    if write_back:  # acknowledged from the buffer; the destage holds the head
        assert w.media_end_ms is None
        assert cache.stream.kind == "write" and cache.stream.end_ms == pytest.approx(end)
    else:
        assert w.media_end_ms == pytest.approx(end)
        assert w.seek_ms == pytest.approx(0.3 if adds else 0.0)  # waited past the overhead
    assert (head.cylinder, head.surface) == (0, 1)


@pytest.mark.parametrize("adds,end", [(False, 5.4), (True, 15.4)])
def test_a_write_stopping_mid_sector_waits_for_the_sector_after_the_overhead(ten_ms_disk,
                                                                              adds, end):
    """"Stop prefetch in sector" = 0: a write arriving at 5.03, 0.03 ms into sector 50
    (5.0-5.1), overhead 0.25 (done 5.28). Summed, the head is free at 5.28 + 0.07 = 5.35,
    past the start of sector 53 (5.3-5.4): written a turn later, 15.4. Without the knob the
    read-ahead runs on during the overhead and stops at the end of sector 52, 5.3: in time."""
    cache = SegmentCache(CacheConfig(256, 1, read_ahead="segment", stop_in_sector=False,
                                     stop_adds_to_overhead=adds), ten_ms_disk)
    head = HeadState(0, 0)
    svc = cache.read(0, 1, 0.0, 0.0, head)
    cache.read_done(svc, svc.media_end_ms, head)
    w = cache.write(53, 1, np.array([5.28]), 5.28, head, arrival_ms=5.03)
    assert w.media_end_ms == pytest.approx(end)


@pytest.mark.parametrize("unless_hit", [False, True])
def test_a_read_the_read_ahead_has_not_reached_is_a_miss_in_disksim(ten_ms_disk, unless_hit):
    """DiskSim 4.0 counts a read as a hit on a segment only for the sectors it holds when
    the read arrives (disk_buffer_select_read_segment, "Allow almost read hits" = 0): a
    read of sectors its read-ahead has not reached is a miss that stops the read-ahead.
    Read-ahead after a miss of LBA 0: sector k of track 0 is in at (k + 1) x 0.1 ms. At
    5.03 (sector 50 under the head) a read of LBA 52, overhead 0.25: simcore's default
    waits for the read-ahead, in at 5.3; DiskSim's miss has the head at 5.28, after sector
    52 began (5.2): a turn later, 15.3. A read of 45-54 starts in the data read so far and
    joins the read-ahead either way (disk_buffer_attempt_access_swap): in at 5.5."""
    def started():
        cache = SegmentCache(CacheConfig(256, 1, read_ahead="segment",
                                         stop_read_ahead_unless_hit=unless_hit), ten_ms_disk)
        head = _miss(cache, 0, 1)[1]
        return cache, head

    cache, head = started()
    assert cache.lookup(52, 1, 5.03) == ("miss" if unless_hit else "stream")
    svc = cache.read(52, 1, 5.03, 5.28, head)
    assert (svc.kind, svc.media_end_ms) == (("miss", pytest.approx(15.3)) if unless_hit
                                            else ("stream", pytest.approx(5.3)))
    if unless_hit:  # stopped at 5.03 with sectors 0-49 in; the miss took the one segment
        assert cache.contents(1e9) == [(52, 53, False)]
    cache, head = started()
    svc = cache.read(45, 10, 5.03, 5.28, head)
    assert (svc.kind, svc.media_end_ms) == ("stream", pytest.approx(5.5))


@pytest.mark.parametrize("unless_hit", [False, True])
def test_a_hit_on_another_segment_stops_the_read_ahead_in_disksim(ten_ms_disk, unless_hit):
    """DiskSim 4.0's disk_activate_read stops a read-ahead for a full hit on another
    segment (disk_buffer_stop_access). Two 128-sector segments. A miss of LBA 0 reads
    ahead 1-99 (track 0) by 10.0. At 20.0 a miss of LBA 150 on surface 1: the head switch
    ends at 20.5, and LBA 100 + j passes at 0.6 + 0.1 j (mod 10; the skew is 6 sectors), so
    LBA 150 is in at 25.7 and its read-ahead brings LBA 150 + k at 25.7 + 0.1 k, to 199 by
    30.6. A hit on LBA 10 at 26.03: DiskSim keeps what was read, 150-153; simcore's default
    lets the read-ahead run to 199."""
    cache = SegmentCache(CacheConfig(128, 2, read_ahead="track",
                                     stop_read_ahead_unless_hit=unless_hit), ten_ms_disk)
    head = HeadState(0, 0)
    svc = cache.read(0, 1, 0.0, 0.0, head)
    cache.read_done(svc, svc.media_end_ms, head)
    svc = cache.read(150, 1, 20.0, 20.0, head)
    assert svc.media_end_ms == pytest.approx(25.7)
    cache.read_done(svc, svc.media_end_ms, head)
    assert cache.stream.end_ms == pytest.approx(30.6)
    hit = cache.read(10, 1, 26.03, 26.03, head)
    assert hit.kind == "hit"
    assert cache.contents(1e9) == [(0, 100, False), (150, 154 if unless_hit else 200, False)]
    assert (cache.stream is None) is unless_hit


@pytest.mark.parametrize("media_ms,end", [(None, 54.0), (52.15, 64.0)])
def test_read_ahead_on_idle_hit_waits_for_the_read_miss_overhead(ten_ms_disk, media_ms, end):
    """DiskSim 4.0 sets a read's overhead_done to its arrival plus the read *miss* overhead,
    a hit's too (disk_read_arrive), and disk_check_hda seeks for the read-ahead of "Read-ahead
    on idle hit" only then. A miss of LBA 0 reads ahead 1-20 (20 sectors at most). A hit on
    15-19 at 52.05 reads on 21-39; LBA 21 passes 52.1-52.2. Started at the arrival it is in
    by 52.2 and 39 by 54.0; started at 52.15 (a 0.1 ms miss overhead) it has missed LBA 21's
    start: a turn later, 64.0."""
    cache = SegmentCache(CacheConfig(64, 1, read_ahead="segment", max_read_ahead_kib=10,
                                     read_ahead_on_hit=True), ten_ms_disk)
    head = HeadState(0, 0)
    svc = cache.read(0, 1, 0.0, 0.0, head)
    cache.read_done(svc, svc.media_end_ms, head)
    assert cache.stream.end_ms == pytest.approx(2.1)
    hit = cache.read(15, 5, 52.05, 52.05, head, media_ms=media_ms)
    assert hit.kind == "hit" and cache.stream.stop_lba == 40
    assert cache.stream.end_ms == pytest.approx(end)


@pytest.mark.parametrize("adds,end", [(False, 52.5), (True, 62.5)])
def test_a_stop_before_the_read_ahead_began_counts_its_wait_from_the_stop(ten_ms_disk, adds,
                                                                          end):
    """The read-ahead of an idle hit at 52.05 is planned from 52.15 (the miss overhead).
    Stopped at 52.10 the head is free at 52.15, when it would have begun (DiskSim has the
    read-ahead's seek event queued already and waits for it, disk_buffer_stopable_access:
    no move here), a wait of 0.05 ms counted from the stop, and nothing of 21-39 was read.
    A read of LBA 24 (52.4-52.5), not read yet, so a miss (DiskSim's hit test), arriving
    then, its overhead done at 52.37: the larger of
    the two frees the head at 52.37, in time (52.5); DiskSim's sum, 52.37 + 0.05 = 52.42,
    a turn later (62.5)."""
    def started():
        cache = SegmentCache(CacheConfig(64, 1, read_ahead="segment", max_read_ahead_kib=10,
                                         read_ahead_on_hit=True, stop_adds_to_overhead=adds,
                                         stop_read_ahead_unless_hit=True), ten_ms_disk)
        head = _miss(cache, 0, 1)[1]
        cache.read(15, 5, 52.05, 52.05, head, media_ms=52.15)
        return cache, head

    cache, head = started()
    assert cache.stop(52.10, head) == pytest.approx(52.15)
    assert cache.stop_wait == pytest.approx(0.05)
    assert cache.contents(1e9) == [(0, 21, False)]
    cache, head = started()
    miss = cache.read(24, 1, 52.10, 52.37, head)
    assert (miss.kind, miss.media_end_ms) == ("miss", pytest.approx(end))


def test_a_write_after_the_read_ahead_ended_waits_only_its_overhead(ten_ms_disk):
    """Nothing to stop (the read-ahead of 1..99 ended at 10.0): the sum is the overhead
    alone and a write of LBA 3 (sector 3 passes 10.3-10.4) arriving at 10.0 with an
    overhead of 0.25 is written by 10.4."""
    cache = SegmentCache(CacheConfig(256, 1, read_ahead="track", stop_adds_to_overhead=True),
                         ten_ms_disk)
    head = HeadState(0, 0)
    svc = cache.read(0, 1, 0.0, 0.0, head)
    cache.read_done(svc, svc.media_end_ms, head)
    w = cache.write(3, 1, np.array([10.25]), 10.25, head, arrival_ms=10.0)
    assert w.media_end_ms == pytest.approx(10.4) and w.seek_ms == pytest.approx(0.0)


def test_lost_revolution_when_the_data_is_late():
    """Gray §2.6: a sector the head reaches before its data is in the buffer comes round
    again a whole revolution later (toy disk: 360 ticks a turn, 30 per sector)."""
    toy = Mechanism(load_disk("toy"))
    plan = toy.plan(0, 2, True, 0.0, HeadState(0, 0))
    assert list(plan.done_ms) == [30, 60]
    done = respect_arrivals(plan, np.array([0.0, 100.0]), toy.rev_ms)
    assert list(done) == [30, 60 + 360]
    plan = toy.plan(0, 1, True, 0.0, HeadState(0, 0))
    assert list(respect_arrivals(plan, np.array([700.0]), toy.rev_ms)) == [30 + 720]


def test_big_pio_read_through_a_small_segment_loses_revolutions():
    """A read bigger than the segment, drained by a slow host: the media stops when the
    segment is full and comes back a revolution later; a fast DMA host never stalls it."""
    mech = Mechanism(load_disk("maxtor92048u8"))
    small = CacheConfig(128, 2, read_ahead="none")
    assert small.segment_sectors == 128

    def one(port):
        env = simpy.Environment()
        d = Drive(env, mech, cache=small, interface=port)
        d.submit(simcore.Request(0, 0.0, "R", 40_000, 1024))
        env.run()
        return d.completed[0], d.cache.stats["lost_revolutions"]

    pio, pio_lost = one("pio4")
    dma, dma_lost = one(Port.of("udma2", costs=FREE))
    assert pio_lost > 0 and dma_lost == 0
    assert pio.finish_ms > 5 * dma.finish_ms


def _streams(k, per=24, kib=16):
    mech = Mechanism(load_disk("maxtor92048u8"))
    cap = mech.layout.capacity

    def make(c, i, rng):
        return "R", c * (cap // k) + i * kib * 2, kib * 2

    return mech, ClosedWorkload(k, per, make, name=f"{k} streams")


def _hit_rate(k, cfg):
    mech, wl = _streams(k)
    res = simcore.run(mech, wl, cache=cfg)
    return sum(r.cache_hit for r in res.records) / len(res.records), res


def test_more_streams_than_segments_thrash():
    """Panagiotakis Fig. 3.3/3.5: read-ahead serves every stream while #streams <= #segments;
    one stream more and LRU evicts each segment before its stream comes back, and the
    wasted read-ahead makes things worse than no read-ahead at all."""
    cfg = CacheConfig(1024, 4, read_ahead="segment", min_read_ahead_kib=128)
    fits, _ = _hit_rate(4, cfg)
    over, res_over = _hit_rate(6, cfg)
    assert fits > 0.8 and over < 0.05
    _, res_none = _hit_rate(6, CacheConfig(1024, 4, read_ahead="none"))
    assert res_over.summary()["throughput_mb_s"] < res_none.summary()["throughput_mb_s"]


def test_adaptive_segments_follow_the_number_of_streams():
    cfg = CacheConfig(1024, 4, read_ahead="segment", min_read_ahead_kib=32, adaptive=True,
                      max_segments=16)
    rate, _ = _hit_rate(12, cfg)
    assert rate > 0.6
    fixed, _ = _hit_rate(12, CacheConfig(1024, 4, read_ahead="segment", min_read_ahead_kib=32))
    assert fixed < 0.05


@pytest.mark.parametrize("adaptive", [False, True])
def test_streams_seen_counts_the_streams_of_the_last_window(adaptive):
    """Two interleaved sequential streams, then random commands: the distinct streams among
    the last ``stream_window`` commands, counted by hand. Without adaptive segments the drive
    keeps only the last four windows' commands and follows them when asked."""
    cfg = CacheConfig(1024, 4, read_ahead="segment", adaptive=adaptive, max_segments=16,
                      stream_window=8)
    cache = SegmentCache(cfg, Mechanism(load_disk("modern7200")))
    for k in range(100):  # A: 0, 8, 16, ...; B: 100000, 100008, ...
        cache._note_stream(8 * k, 8)
        cache._note_stream(100_000 + 8 * k, 8)
    assert cache.streams_seen() == 2
    for k in range(4):  # four lone commands, far apart: the last 8 are A, B, A, B and these
        cache._note_stream(1_000_000 * (k + 1), 8)
    assert cache.streams_seen() == 6
    for k in range(4):  # then four more of A: the window is 4 lone ones and A
        cache._note_stream(800 + 8 * k, 8)
    assert cache.streams_seen() == 5


def test_write_back_acknowledges_from_the_buffer_and_flush_waits_for_the_platter():
    """Gray §2.10: write-back completes a write when its data is in the buffer; FLUSH
    returns when every dirty sector is on the platter. Sequential writes then stream at
    the media rate; write-through loses about a revolution per command."""
    prof = load_disk("maxtor92048u8")
    port = Port.of("udma2", costs=FREE)
    rows = [(0.0, "W", 8_000 + 128 * i, 128) for i in range(32)] + [(0.0, FLUSH, 0, 1)]
    wb = simcore.run(prof, simcore.from_tuples(rows),
                     cache=CacheConfig(1024, 4, write_back=True), interface=port)
    recs = sorted(wb.records, key=lambda r: r.id)
    first = recs[0]
    bus = 128 * 512 / 33.333333e6 * 1000
    assert first.cache_hit and first.finish_ms - first.start_ms == pytest.approx(
        prof.overheads.write_ms + bus, rel=1e-6)
    flush = recs[-1]
    media_mb_s = Mechanism(prof).layout.media_rate_mb_s(0)
    mb = 32 * 128 * 512 / 1e6
    assert flush.finish_ms > recs[-2].finish_ms
    assert mb / (flush.finish_ms / 1000) == pytest.approx(media_mb_s * 396 / 444, rel=0.1)
    wt = simcore.run(prof, simcore.from_tuples(rows[:-1]),
                     cache=CacheConfig(1024, 4, write_back=False), interface=port)
    service = [r.finish_ms - r.start_ms for r in wt.records[1:]]
    rev = 60000 / 7200
    assert np.mean(service) > rev  # each command misses its first sector by a whisker
    assert wt.summary()["throughput_mb_s"] < 0.5 * mb / (flush.finish_ms / 1000)


def test_a_read_of_dirty_data_is_served_from_the_buffer():
    prof = load_disk("maxtor92048u8")
    rows = [(0.0, "W", 9_000, 64), (1.0, "R", 9_010, 16)]
    res = simcore.run(prof, simcore.from_tuples(rows), cache=CacheConfig(1024, 4,
                                                                         write_back=True))
    rd = max(res.records, key=lambda r: r.id)
    assert rd.cache_hit and rd.seek_ms == 0 and rd.rotation_ms == 0


def test_cache_config_validation_names_the_field():
    with pytest.raises(ValueError, match="read_ahead"):
        CacheConfig(read_ahead="psychic")
    with pytest.raises(ValueError, match="segments"):
        CacheConfig(segments=0)
    with pytest.raises(ValueError, match="size_kib"):
        CacheConfig(size_kib=0)
    cfg = CacheConfig.from_profile(load_disk("maxtor92048u8"))
    assert (cfg.size_kib, cfg.segments, cfg.read_ahead, cfg.write_back) == (1024, 4, "segment",
                                                                            True)


def test_maxtor_profile_matches_the_thesis():
    """Gray Figure 16: 20.4 GB, 7,200 RPM, 9.0 ms, 1 MB buffer; hdparm -t read 20.48 MiB/s
    at the start of the disk under DMA (Table 9), which the zone table is sized for."""
    prof = load_disk("maxtor92048u8")
    mech = Mechanism(prof)
    assert mech.layout.capacity * 512 == pytest.approx(20.4e9, rel=0.01)
    assert prof.rpm == 7200 and prof.cache.size_kib == 1024
    assert mech.seek.average_ms() == pytest.approx(9.0, rel=0.02)
    res = simcore.run(mech, simcore.sequential_open(0, 200, size_kib=64), cache=True)
    assert res.summary()["throughput_mb_s"] * 1e6 / 2**20 == pytest.approx(20.48, rel=0.02)


def test_profile_cache_fields_are_validated_by_name():
    """[firmware.cache] min_read_ahead_kib and adaptive reach CacheConfig; bad values are named."""
    from helpers_disks import small_disk

    from simcore.errors import ProfileError

    zones = [{"first_cylinder": 0, "last_cylinder": 9, "sectors_per_track": 100}]
    prof = small_disk(zones, cache={"size_kib": 512, "segments": 4, "read_ahead": "zero",
                                    "min_read_ahead_kib": 16, "max_read_ahead_kib": 64,
                                    "adaptive": True})
    cfg = CacheConfig.from_profile(prof)
    assert (cfg.min_read_ahead_kib, cfg.max_read_ahead_kib, cfg.adaptive) == (16, 64, True)
    with pytest.raises(ProfileError, match="min_read_ahead_kib"):
        small_disk(zones, cache={"min_read_ahead_kib": 128, "max_read_ahead_kib": 64})
    with pytest.raises(ProfileError, match="adaptive"):
        small_disk(zones, cache={"adaptive": "yes"})


def test_reads_bigger_than_a_segment_stream_through_an_ideal_bus():
    """A 1 MiB read through 512 KiB segments behind a fast bus (which only holds the bus
    while data moves) goes in half-segment bursts; the fast bus never makes the media stop,
    so it is served as fast as without a buffer."""
    mech = Mechanism(load_disk("wd800jd"))
    wl = simcore.sequential_open(0, 20, size_kib=1024)
    fast = simcore.run(mech, wl)
    buffered = simcore.run(mech, wl, cache=CacheConfig(8192, 16, read_ahead="none"))
    a = [r.finish_ms for r in sorted(fast.records, key=lambda r: r.id)]
    b = [r.finish_ms for r in sorted(buffered.records, key=lambda r: r.id)]
    assert b == pytest.approx(a, abs=1e-6)


def test_read_ahead_over_requested_may_push_the_request_out_of_the_segment(ten_ms_disk):
    """``read_ahead_over_requested``. A 40-sector segment (20 KiB), a 30-sector miss from
    LBA 0, read-ahead to the segment's end: kept apart (False), the segment holds the
    request and reads ahead only the 10 sectors left (to LBA 40); over requested (True, as
    DiskSim reads ahead with no maximum and "Read-ahead over requested" = 0), it reads a
    whole segment's worth past the request (to LBA 70) and keeps the last 40."""
    for over, contents in ((False, [(0, 40, False)]), (True, [(30, 70, False)])):
        cache = SegmentCache(CacheConfig(20, 1, read_ahead="segment",
                                         read_ahead_over_requested=over), ten_ms_disk)
        head = HeadState(0, 0)
        svc = cache.read(0, 30, 0.0, 0.0, head)
        cache.read_done(svc, svc.media_end_ms, head)
        assert cache.contents(1e9) == contents, over


def test_a_read_ahead_as_long_as_the_segment_makes_a_re_read_a_miss(ten_ms_disk):
    """DiskSim's rule for a drive whose maximum read-ahead is a whole segment (the
    Ultrastar 18ES: 511 blocks of 511). One 40-sector segment (20 KiB), read-ahead capped at
    40 sectors, 0.1 ms a sector, LBA k under the head at k x 0.1 ms. A 4-sector miss at LBA 0
    from t = 0 reads sectors 0-3 by 0.4 ms, then reads ahead. Running past the request
    (DiskSim), 40 sectors, LBAs 4-43, by 4.4 ms, and the ring keeps 4-43: a re-read of LBA 0
    at t = 10 ms (LBA 0 under the head again) is a miss, read by 10.4 ms. Kept apart, the
    read-ahead stops at 36 sectors (4-39, by 4.0 ms) and the re-read is a hit, ready at
    once."""
    for over, contents, kind, end in ((True, [(4, 44, False)], "miss", 10.4),
                                      (False, [(0, 40, False)], "hit", 10.0)):
        cache = SegmentCache(CacheConfig(20, 1, read_ahead="segment", max_read_ahead_kib=20,
                                         read_ahead_over_requested=over), ten_ms_disk)
        head = HeadState(0, 0)
        svc = cache.read(0, 4, 0.0, 0.0, head)
        assert svc.media_end_ms == pytest.approx(0.4)
        cache.read_done(svc, svc.media_end_ms, head)
        assert cache.stream.end_ms == pytest.approx(4.4 if over else 4.0)
        assert cache.contents(10.0) == contents
        again = cache.read(0, 4, 10.0, 10.0, head)
        assert (again.kind, again.media_end_ms) == (kind, pytest.approx(end)), over


def test_read_ahead_on_an_idle_hit_reads_on_from_the_segments_end(ten_ms_disk):
    """DiskSim's "Read-ahead on idle hit". A 150-sector segment, read-ahead capped at 100
    sectors: a 1-sector miss at LBA 0 reads ahead LBAs 1-100. A hit on 90-94 with the drive
    idle: without the knob nothing more is read; with it the drive reads on from the
    segment's end (101) to the hit's end plus the maximum read-ahead (95 + 100 = 195), and
    the segment keeps its last 150 sectors (45-194)."""
    def run(on_hit):
        cache = SegmentCache(CacheConfig(75, 1, read_ahead="segment", max_read_ahead_kib=50,
                                         read_ahead_on_hit=on_hit), ten_ms_disk)
        head = HeadState(0, 0)
        svc = cache.read(0, 1, 0.0, 0.0, head)
        cache.read_done(svc, svc.media_end_ms, head)  # reads ahead LBAs 1..100
        assert cache.contents(1e9) == [(0, 101, False)]
        hit = cache.read(90, 5, 1e6, 1e6, head)
        assert hit.kind == "hit"
        return cache.contents(1e9)

    assert run(False) == [(0, 101, False)]
    # read on from 101 to the hit's end (95) + the 100-sector maximum read-ahead = 195
    assert run(True) == [(45, 195, False)]


def _miss(cache, lba, n, t=0.0):
    head = HeadState(0, 0)
    svc = cache.read(lba, n, t, t, head)
    cache.read_done(svc, svc.media_end_ms, head)
    return svc, head


def test_track_ahead_reads_to_the_track_end_or_one_track_more(ten_ms_disk):
    """DiskSim's scheme 4 (``disk_buffer_get_max_readahead``): to the end of the track
    holding the sector after the request (LBAs 0-99 are track 0, 100-199 track 1, 100 a
    track); one track's worth (100) further when the segment began on an earlier track. A
    40-sector segment and a 10-sector maximum read-ahead bound neither: the ring keeps the
    last 40. LBA k passes under the head at k x 0.1 ms, so a miss of 10-19 at t = 0 ends at
    2.0 ms and reading on to 99 ends at 10.0 ms."""
    def cfg():
        return CacheConfig(20, 1, read_ahead="track-ahead", max_read_ahead_kib=5,
                           read_ahead_over_requested=True)

    cache = SegmentCache(cfg(), ten_ms_disk)
    svc, _ = _miss(cache, 10, 10)
    assert svc.media_end_ms == pytest.approx(2.0)
    assert cache.stream.stop_lba == 100 and cache.stream.end_ms == pytest.approx(10.0)
    assert cache.contents(1e9) == [(60, 100, False)]
    for lba, n in ((90, 20), (80, 20)):  # crosses into track 1 / ends at track 0's end
        cache = SegmentCache(cfg(), ten_ms_disk)
        _miss(cache, lba, n)
        assert cache.stream.stop_lba == 300  # track 1 ends at 200, + 100
        assert cache.contents(1e9) == [(260, 300, False)]


def test_track_ahead_of_a_stream_goes_one_track_further(ten_ms_disk):
    """A read of 95-104 at t = 9.0 ms finds the read-ahead of the 10-19 miss at LBA 90
    (sector k is in by (k+1) x 0.1 ms): a stream hit. The segment then holds 50-89 (its last
    40) and began on track 0, before the track of LBA 105: read on to 200 + 100 = 300."""
    cache = SegmentCache(CacheConfig(20, 1, read_ahead="track-ahead",
                                     read_ahead_over_requested=True), ten_ms_disk)
    _, head = _miss(cache, 10, 10)
    hit = cache.read(20, 10, 2.5, 2.5, head)  # 20-29 of track 0: still to the end of track 0
    assert hit.kind == "stream" and cache.stream.stop_lba == 100
    svc = cache.read(95, 10, 9.0, 9.0, head)
    assert svc.kind == "stream" and cache.stream.stop_lba == 300


def test_disksims_ring_keeps_the_request_until_the_read_ahead_reaches_it(ten_ms_disk):
    """With DiskSim's read-ahead (``read_ahead_over_requested``) the segment is a ring sector
    by sector (``disk_buffer_segment_wrap``). A 40-sector segment, a 10-sector miss at
    10-19, a read-ahead of a segment's worth past it (20-59, sector k in by (k+1) x 0.1 ms):
    at 5.0 ms it has read to 49, and the ring still holds 10-49, so a re-read of 10-13 is a
    hit; at 5.5 ms it holds 15-54 and the re-read is a miss. Stopped at 5.05 ms, the segment
    keeps 10-49, not the 20-59 it would have held at the read-ahead's end."""
    def started():
        cache = SegmentCache(CacheConfig(20, 1, read_ahead="segment",
                                         read_ahead_over_requested=True), ten_ms_disk)
        return cache, _miss(cache, 10, 10)[1]

    cache, _ = started()
    assert cache.stream.stop_lba == 60
    assert cache.lookup(10, 4, 5.0) == "hit"
    assert cache.lookup(10, 4, 5.5) == "miss"
    cache, head = started()
    assert cache.stop(5.05, head) == pytest.approx(5.05)
    assert cache.contents(1e9) == [(10, 50, False)]
    assert cache.lookup(10, 4, 20.0) == "hit"


def test_read_any_free_keeps_what_passes_before_the_target(ten_ms_disk):
    """DiskSim's "Read any free blocks" (``disk_buffer_seekdone`` starts at the first whole
    sector under the head; ``disk_buffer_sector_done`` takes every sector before the
    segment's start). No read-ahead, a 256-sector segment, the head on track 0 at t = 0 (LBA
    k under it at k x 0.1 ms). A miss of LBA 50 at t = 0: 0-49 pass first and are kept. A
    miss of LBA 20 at 3.05 ms lands at sector 31, past the target: the head comes round to
    LBA 0 and keeps 0-19 before reading 20. Either way the target is read when it would be
    without the knob (5.1 and 12.1 ms); a 40-sector segment keeps only its last 40."""
    for lba, t, end in ((50, 0.0, 5.1), (20, 3.05, 12.1)):
        for free, contents in ((False, [(lba, lba + 1, False)]),
                               (True, [(0, lba + 1, False)])):
            cache = SegmentCache(CacheConfig(128, 1, read_ahead="none", read_any_free=free),
                                 ten_ms_disk)
            svc, _ = _miss(cache, lba, 1, t)
            assert svc.media_end_ms == pytest.approx(end)
            assert cache.contents(1e9) == contents, (lba, free)
            assert cache.lookup(5, 4, 1e9) == ("hit" if free else "miss")
    cache = SegmentCache(CacheConfig(20, 1, read_ahead="none", read_any_free=True), ten_ms_disk)
    _miss(cache, 50, 1)
    assert cache.contents(1e9) == [(11, 51, False)]


def test_exact_cache_sizes_in_sectors():
    """A DiskSim model's sizes are blocks: 7 segments of 511 (the Ultrastar 18ES) are 3577
    sectors, which whole KiB cannot hold (1788 KiB would make 510-sector segments)."""
    from simcore.errors import ProfileError

    zones = [{"first_cylinder": 0, "last_cylinder": 9, "sectors_per_track": 100}]
    prof = small_disk(zones, cache={"size_sectors": 3577, "segments": 7, "read_ahead": "segment",
                                    "max_read_ahead_sectors": 511,
                                    "min_read_ahead_sectors": 3})
    assert (prof.cache.size_kib, prof.cache.max_read_ahead_kib) == (1788.5, 255.5)
    cfg = CacheConfig.from_profile(prof)
    assert cfg.segment_sectors == 511
    cache = SegmentCache(cfg, Mechanism(prof))
    assert cache.cap == 511 and cache._kib(cfg.max_read_ahead_kib) == 511 and cache._min_ra == 3
    assert CacheConfig(size_kib=1788, segments=7).segment_sectors == 510
    for bad, field in (({"size_kib": 64, "size_sectors": 128}, "size_sectors"),
                       ({"max_read_ahead_sectors": -1}, "max_read_ahead_sectors"),
                       ({"size_sectors": 12.5}, "size_sectors"),
                       ({"min_read_ahead_sectors": 9, "max_read_ahead_sectors": 8},
                        "min_read_ahead"),
                       ({"read_any_free": 1}, "read_any_free")):
        with pytest.raises(ProfileError, match=field):
            small_disk(zones, cache=bad)


# -- DiskSim 4.0's write-back: a destage keeps the head ----------------------------------
def _dsk_cache(mech, **kw):
    cfg = CacheConfig(1024, 4, read_ahead="none", write_back=True, **kw)
    return SegmentCache(cfg, mech), HeadState(0, 0)


def test_without_write_prebuffering_a_random_write_waits_for_the_destage(ten_ms_disk):
    """DiskSim 4.0, "Allow write prebuffering" = 0 (``disk_write_arrive``): a write that does
    not append to the data being destaged gets the bus and a segment only once the destage
    has ended. Hand computation on the 10 ms disk (0.1 ms a sector, head on sector 0 at 0):
    LBAs 0-9 go out 0.0-1.0 ms; a write of LBAs 300-309 arriving at 0.5 ms takes its data
    from 1.0 ms on, and its own destage starts then, from where the first one left the head."""
    mech = ten_ms_disk
    cache, head = _dsk_cache(mech, write_prebuffering=False, preempt_destage=False)
    svc = cache.write(0, 10, np.zeros(10), 0.0, head)
    assert svc.media_end_ms is None and cache.stream.end_ms == pytest.approx(1.0)
    space = cache.write_space(300, 10, 0.5)
    assert np.all(space == pytest.approx(1.0))
    arrive = 1.0 + 0.01 * np.arange(1, 11)  # the data crosses the bus after the wait
    assert cache.write(300, 10, arrive, 0.5, head).media_end_ms is None
    expect = mech.plan(300, 10, True, 1.0, HeadState(0, 0))
    assert cache.stream.seg.start == 300
    assert cache.stream.end_ms == pytest.approx(expect.end_ms)
    assert cache.dirty_at(1.0) == 10  # the first write is all on the platter
    assert cache.stats["waited_for_destage"] == 1
    # with prebuffering (simcore's default) the data goes into a free segment at once
    other, head2 = _dsk_cache(mech)
    other.write(0, 10, np.zeros(10), 0.0, head2)
    assert np.all(other.write_space(300, 10, 0.5) == -np.inf)


def test_an_appending_write_joins_the_destage(ten_ms_disk):
    """Both fast write levels let a write that goes on where the data being destaged ends
    join that destage (``disk_buffer_stopable_access``: BUFFER_APPEND on the writing
    segment): LBAs 10-19, buffered by 0.6 ms, go out right after LBAs 0-9, 1.0-2.0 ms."""
    cache, head = _dsk_cache(ten_ms_disk, write_prebuffering=False, preempt_destage=False)
    cache.write(0, 10, np.zeros(10), 0.0, head)
    assert np.all(cache.write_space(10, 10, 0.5) == -np.inf)
    cache.write(10, 10, np.full(10, 0.6), 0.5, head)
    assert cache.stream.lba == 0 and cache.stream.end_ms == pytest.approx(2.0)
    assert cache.stats["waited_for_destage"] == 0


def test_a_read_hit_waits_for_the_destage_when_it_cannot_be_stopped(ten_ms_disk):
    """DiskSim never stops a write's media access for another command: a full read hit on
    the data being destaged (LBAs 0-9, out by 1.0 ms) is sent only from 1.0 ms on; simcore's
    own rule (``preempt_destage=True``) serves it from the buffer at once."""
    cache, head = _dsk_cache(ten_ms_disk, write_prebuffering=False, preempt_destage=False)
    cache.write(0, 10, np.zeros(10), 0.0, head)
    svc = cache.read(0, 10, 0.3, 0.4, head)
    assert svc.kind == "hit" and np.all(svc.ready_ms == pytest.approx(1.0))
    assert cache.dirty_sectors() == 0
    own, head2 = _dsk_cache(ten_ms_disk)
    own.write(0, 10, np.zeros(10), 0.0, head2)
    assert np.all(own.read(0, 10, 0.3, 0.4, head2).ready_ms == pytest.approx(0.4))


def test_a_read_miss_waits_for_the_whole_destage(ten_ms_disk):
    """A read miss on another cylinder arriving at 0.35 ms: with DiskSim's rule the arm leaves
    once LBAs 0-9 are all written (1.0 ms) and nothing stays dirty; simcore's own rule stops
    the destage after its third sector (0.3 ms) and leaves 7 sectors dirty."""
    mech = ten_ms_disk
    cache, head = _dsk_cache(mech, write_prebuffering=False, preempt_destage=False)
    cache.write(0, 10, np.zeros(10), 0.0, head)
    svc = cache.read(800, 10, 0.35, 0.35, head)
    assert svc.media_end_ms == pytest.approx(
        mech.plan(800, 10, False, 1.0, HeadState(0, 0)).end_ms)
    assert cache.dirty_sectors() == 0
    own, head2 = _dsk_cache(mech)
    own.write(0, 10, np.zeros(10), 0.0, head2)
    own.read(800, 10, 0.35, 0.35, head2)
    assert own.dirty_sectors() == 7


def test_profile_write_prebuffering_and_preempt_destage_are_validated_by_name():
    from simcore.errors import ProfileError

    zones = [{"first_cylinder": 0, "last_cylinder": 9, "sectors_per_track": 100}]
    prof = small_disk(zones, cache={"size_kib": 512, "segments": 4, "write_back": True,
                                    "write_prebuffering": False, "preempt_destage": False})
    cfg = CacheConfig.from_profile(prof)
    assert (cfg.write_prebuffering, cfg.preempt_destage) == (False, False)
    assert CacheConfig.from_profile(small_disk(zones, cache={"size_kib": 512})).preempt_destage
    for name in ("write_prebuffering", "preempt_destage"):
        with pytest.raises(ProfileError, match=name):
            small_disk(zones, cache={name: 0})


@pytest.mark.parametrize("prebuffer", [False, True])
def test_drive_acknowledges_a_random_write_after_the_destage(prebuffer):
    """The whole drive (ideal bus, no overheads) on the 10 ms disk: a write of LBAs 0-9 at
    0 ms is reported at once and destaged 0.0-1.0 ms; a write of LBAs 300-309 at 0.5 ms is
    reported at 1.0 ms without write prebuffering (DiskSim's validated drives), at once with
    it; a write of LBAs 10-19 appending to it at 1.2 ms is reported at once either way."""
    zones = [{"first_cylinder": 0, "last_cylinder": 9, "sectors_per_track": 100}]
    prof = small_disk(zones, cache={"size_kib": 512, "segments": 4, "write_back": True,
                                    "write_prebuffering": prebuffer,
                                    "preempt_destage": False})
    rows = [(0.0, "W", 0, 10), (0.5, "W", 300, 10), (1.2, "W", 310, 10)]
    recs = sorted(simcore.run(prof, simcore.from_tuples(rows)).records, key=lambda r: r.id)
    assert [r.finish_ms for r in recs] == pytest.approx(
        [0.0, 0.5 if prebuffer else 1.0, 1.2])
    assert all(r.cache_hit for r in recs)


# -- DiskSim's "Use separate write segment" ----------------------------------------------
def _wseg_cache(mech, separate, **kw):
    cfg = CacheConfig(1024, 3, read_ahead="none", separate_write_segment=separate, **kw)
    return SegmentCache(cfg, mech), HeadState(0, 0)


@pytest.mark.parametrize("separate", [False, True])
def test_a_separate_write_segment_keeps_writes_out_of_the_read_segments(ten_ms_disk, separate):
    """DiskSim 4.0 (``disk_buffer_select_write_segment`` / ``_read_segment``): writes take
    the one write segment, reads the others. Three segments, write-through, no read-ahead:
    reads of LBAs 500-509 and 700-709, then writes of 0-9 and 300-309. With the write
    segment both writes share it and the two read segments still hold 500 and 700, so a
    re-read of 500 is a hit (no seek, no rotation, ready when asked); without it the second
    write took the least recently used segment, the one holding 500. A read of written data
    never hits with the write segment; without it the last write's data is a hit."""
    cache, head = _wseg_cache(ten_ms_disk, separate)
    t = 0.0
    for lba in (500, 700):
        svc = cache.read(lba, 10, t, t, head)
        cache.read_done(svc, svc.media_end_ms, head)
        t = svc.media_end_ms + 1.0
    for lba in (0, 300):
        t = cache.write(lba, 10, np.full(10, t), t, head).media_end_ms + 1.0
    assert len(cache.segments) == 3
    assert cache.lookup(700, 10, t) == "hit"
    assert cache.lookup(500, 10, t) == ("hit" if separate else "miss")
    assert cache.lookup(300, 10, t) == ("miss" if separate else "hit")
    svc = cache.read(500, 10, t, t + 0.25, head)
    if separate:
        assert svc.kind == "hit" and svc.seek_ms == 0 and svc.rotation_ms == 0
        assert np.all(svc.ready_ms == t + 0.25)
        assert cache.stats["evictions"] == 0
    else:
        assert svc.kind == "miss" and cache.stats["evictions"] >= 1


def test_a_read_of_write_data_not_on_the_platter_waits_and_reads_the_media(ten_ms_disk):
    """A read overlapping write data not yet written is a collision in DiskSim: it waits
    until the data is on the platter, then reads from the media. Hand computation on the
    10 ms disk (0.1 ms a sector, sector 0 under the head at 0): LBAs 0-9, written back at
    0, go out 0.0-1.0 ms; a read of them at 0.3 ms waits for 1.0 ms, when the head is past
    sector 9, so LBA 0 comes round at 10.0 ms and the read ends at 11.0 ms. Without the write
    segment the same read is a hit, sent from the buffer at 0.4 ms."""
    mech = ten_ms_disk
    cache, head = _wseg_cache(mech, True, write_back=True)
    cache.write(0, 10, np.zeros(10), 0.0, head)
    assert cache.stream.end_ms == pytest.approx(1.0)
    svc = cache.read(0, 10, 0.3, 0.4, head)
    assert svc.kind == "miss" and svc.media_end_ms == pytest.approx(11.0)
    assert svc.ready_ms[0] == pytest.approx(10.1) and cache.dirty_sectors() == 0
    own, head2 = _wseg_cache(mech, False, write_back=True)
    own.write(0, 10, np.zeros(10), 0.0, head2)
    svc = own.read(0, 10, 0.3, 0.4, head2)
    assert svc.kind == "hit" and np.all(svc.ready_ms == pytest.approx(0.4))


def test_a_write_that_does_not_append_waits_for_the_write_segment(ten_ms_disk):
    """The write segment is the only one a write may take: LBAs 0-9 written back at 0 go out
    0.0-1.0 ms; a write of 300-309 arriving at 0.5 ms gets room only at 1.0 ms and its
    destage starts then (simcore's own write rules otherwise: prebuffering on, destage
    stoppable). A write appending at LBA 10 joins the data being written at once."""
    mech = ten_ms_disk
    cache, head = _wseg_cache(mech, True, write_back=True)
    cache.write(0, 10, np.zeros(10), 0.0, head)
    assert np.all(cache.write_space(10, 10, 0.5) == -np.inf)  # appends
    assert np.all(cache.write_space(300, 10, 0.5) == pytest.approx(1.0))
    arrive = 1.0 + 0.01 * np.arange(1, 11)
    cache.write(300, 10, arrive, 0.5, head)
    assert cache.stats["waited_for_write_segment"] == 1
    assert cache.stream.seg.start == 300 and cache.dirty_at(1.0) == 10
    assert cache.stream.end_ms == pytest.approx(
        mech.plan(300, 10, True, 1.0, HeadState(0, 0)).end_ms)
    assert len(cache.segments) == 1  # the write segment, nothing else
    free, head2 = _wseg_cache(mech, False, write_back=True)
    free.write(0, 10, np.zeros(10), 0.0, head2)
    assert np.all(free.write_space(300, 10, 0.5) == -np.inf)  # another segment is free


def test_separate_write_segment_is_validated_by_name():
    from simcore.errors import ProfileError

    with pytest.raises(ValueError, match="separate_write_segment"):
        CacheConfig(512, 1, separate_write_segment=True)
    with pytest.raises(ValueError, match="separate_write_segment"):
        CacheConfig(512, 4, adaptive=True, separate_write_segment=True)
    zones = [{"first_cylinder": 0, "last_cylinder": 9, "sectors_per_track": 100}]
    prof = small_disk(zones, cache={"size_kib": 512, "segments": 3,
                                    "separate_write_segment": True})
    assert CacheConfig.from_profile(prof).separate_write_segment
    assert not CacheConfig.from_profile(small_disk(zones, cache={"size_kib": 512,
                                                                 "segments": 3})
                                        ).separate_write_segment
    for bad in ({"segments": 1, "separate_write_segment": True},
                {"segments": 3, "separate_write_segment": 1}):
        with pytest.raises(ProfileError, match="separate_write_segment"):
            small_disk(zones, cache={"size_kib": 512, **bad})


def _tiny_track_one():
    """DiskSim's tiny test model without zero latency: track (0, 1) holds LBAs 9..18 in one
    run, a sector every 1 ms (6,000 rpm, 10 a track)."""
    from dataclasses import replace
    from pathlib import Path

    from simcore.disksim.importer import load_any

    tiny = Path(__file__).resolve().parent.parent / "data" / "disksim" / "tiny.parv"
    mech = Mechanism(replace(load_any(tiny), zero_latency_reads=False))
    assert mech.layout.track_extent(9) == (9, 10) and mech.rev_ms == 10.0
    return mech


def test_segment_hold_stops_read_ahead_a_segment_ahead_of_the_host():
    """DiskSim 4.0's hold (disk_buffer_block_available), worked by hand. Segments of 8
    sectors; a read of LBAs 9..12 whose media starts at r0 (sector k done at r0 + k + 1),
    read-ahead to the track's end (LBAs 13..18). The host takes sector k at r0 + 1 + 10(k+1)
    (a 10 ms bus) and the completion is sent as the last one has gone, at r0 + 41. LBA 17 =
    9 + 8 may be read once sector 0 has gone (r0 + 11): it would start at r0 + 8, so it waits a revolution (r0 +
    18, done r0 + 19); LBA 18 then starts at r0 + 19 but needs sector 1 gone (r0 + 21): one
    more revolution, done r0 + 30. Read-ahead before LBA 17 is not held."""
    mech = _tiny_track_one()
    cache = SegmentCache(CacheConfig(size_kib=16, segments=4, read_ahead="track",
                                     read_ahead_over_requested=True), mech)
    assert cache.cap == 8
    head = HeadState(0, 1)
    svc = cache.read(9, 4, 0.0, 0.0, head)
    r0 = float(svc.ready_ms[0]) - 1.0
    free = SegmentCache(CacheConfig(size_kib=16, segments=4, read_ahead="track",
                                    read_ahead_over_requested=True), mech)
    free_svc = free.read(9, 4, 0.0, 0.0, HeadState(0, 1))
    free.read_done(free_svc, free_svc.media_end_ms, HeadState(0, 1))  # no host: no hold
    assert list(free.stream.done - r0) == pytest.approx([5, 6, 7, 8, 9, 10])
    cache.read_done(svc, svc.media_end_ms, head, 9, r0 + 1.0, 10.0, r0 + 41.0, 0.0)
    assert list(cache.stream.done - r0) == pytest.approx([5, 6, 7, 8, 19, 30])
    assert cache.stream.end_ms == pytest.approx(r0 + 30)
    assert cache.stats["read_ahead_held_revolutions"] == 2
    # the same read with its completion sent at r0 + 8.5: LBA 17 waits, LBA 18 goes free
    late = SegmentCache(CacheConfig(size_kib=16, segments=4, read_ahead="track",
                                    read_ahead_over_requested=True), mech)
    head = HeadState(0, 1)
    svc = late.read(9, 4, 0.0, 0.0, head)
    late.read_done(svc, svc.media_end_ms, head, 9, r0 + 1.0, 10.0, r0 + 8.5, 0.0)
    assert list(late.stream.done - r0) == pytest.approx([5, 6, 7, 8, 19, 20])
    # a stop while the head waits for LBA 17 frees it at the next sector boundary (DiskSim's
    # "Stop prefetch in sector" = 0) and keeps LBAs 13..16
    cache2 = SegmentCache(CacheConfig(size_kib=16, segments=4, read_ahead="track",
                                      read_ahead_over_requested=True, stop_in_sector=False),
                          mech)
    head = HeadState(0, 1)
    svc = cache2.read(9, 4, 0.0, 0.0, head)
    cache2.read_done(svc, svc.media_end_ms, head, 9, r0 + 1.0, 10.0, r0 + 41.0, 0.0)
    seg = cache2.stream.seg
    assert cache2.stop(r0 + 12.5, head) == pytest.approx(r0 + 13)
    assert seg.end == 17


def test_segment_hold_asks_at_a_sectors_start_and_only_once_the_read_is_attached():
    """The same read of LBAs 9..12 (sector k done at r0 + k + 1), its sectors leaving at
    r0 + 8.5 + k (a 1 ms bus started at r0 + 7.5), the completion sent at r0 + 11.5. DiskSim
    asks about a block as the head reaches it (disk_buffer_sector_done sets up the next
    sector's event with the answer): LBA 17 starts at r0 + 8, before sector 0 has gone at
    r0 + 8.5, so it waits a revolution although it would end after it (done r0 + 19); LBA 18
    then starts at r0 + 19, after sector 1 has gone. A read attached only from r0 + 8.2
    (since_ms: a hit on a read-ahead already running) cannot hold LBA 17, whose head had
    reached it before; LBA 18 (start r0 + 9, sector 1 gone at r0 + 9.5) it holds."""
    mech = _tiny_track_one()
    config = CacheConfig(size_kib=16, segments=4, read_ahead="track",
                         read_ahead_over_requested=True)
    done = {}
    for since in (None, 8.2):
        cache = SegmentCache(config, mech)
        head = HeadState(0, 1)
        svc = cache.read(9, 4, 0.0, 0.0, head)
        r0 = float(svc.ready_ms[0]) - 1.0
        cache.read_done(svc, svc.media_end_ms, head, 9, r0 + 7.5, 1.0, r0 + 11.5,
                        0.0 if since is None else r0 + since)
        done[since] = list(cache.stream.done - r0)
        assert cache.stats["read_ahead_held_revolutions"] == 1
    assert done[None] == pytest.approx([5, 6, 7, 8, 19, 20])
    assert done[8.2] == pytest.approx([5, 6, 7, 8, 9, 20])


def test_segment_hold_moves_the_minimum_read_ahead_with_it():
    """The hand-worked hold above with a minimum read-ahead of 3 KiB (6 sectors: LBAs
    13..18, all of it): the read-ahead may not be stopped before its last sector is in, which
    the hold moved from r0 + 10 to r0 + 30."""
    mech = _tiny_track_one()
    config = CacheConfig(size_kib=16, segments=4, read_ahead="track",
                         read_ahead_over_requested=True, min_read_ahead_kib=3)
    cache = SegmentCache(config, mech)
    head = HeadState(0, 1)
    svc = cache.read(9, 4, 0.0, 0.0, head)
    r0 = float(svc.ready_ms[0]) - 1.0
    cache.read_done(svc, svc.media_end_ms, head, 9, r0 + 1.0, 10.0, r0 + 41.0, 0.0)
    assert cache.stream.min_until == pytest.approx(r0 + 30)
    assert cache.stop(r0 + 12.5, head) == pytest.approx(r0 + 30)


def test_segment_hold_across_a_track_switch_keeps_the_platter_in_step():
    """A read of LBAs 12..15 on track (0, 1), which ends at LBA 18, and read-ahead of a
    segment past it (LBAs 16..23) onto the next track (a cylinder switch). With a slow host the hold stops it: every
    sector is then done a whole number of revolutions after it would have been, never
    earlier, and none begins before the read's sector a segment behind it has gone (or the
    completion is sent); the switch's move keeps its place unless a held sector came before
    it, and then moves by whole revolutions too. By hand (times from r0, the read's media
    start; the host takes its sectors at 8, 15, 22 and 29, the completion at 29): free, the
    read-ahead is done at 5, 6, 7, then after the switch (7 to 7.8) at 12..16; LBA 20 may
    go once sector 0 has (8): it starts at 12; LBA 21 needs sector 1 (15) but starts at 13,
    so it waits a revolution (done 24); LBA 22 starts at 24, after sector 2 (22); LBA 23
    needs the completion (29) but starts at 25: done 36."""
    mech = _tiny_track_one()
    config = CacheConfig(size_kib=16, segments=4, read_ahead="segment",
                         read_ahead_over_requested=True)
    runs = {}
    for host in (False, True):
        cache = SegmentCache(config, mech)
        head = HeadState(0, 1)
        svc = cache.read(12, 4, 0.0, 0.0, head)
        r0 = float(svc.ready_ms[0]) - 1.0
        if host:  # a sector every 7 ms from r0 + 1; the completion as the last has gone
            cache.read_done(svc, svc.media_end_ms, head, 12, r0 + 1.0, 7.0, r0 + 29.0, 0.0)
        else:
            cache.read_done(svc, svc.media_end_ms, head)
        runs[host] = (cache.stream, cache.stats["read_ahead_held_revolutions"], r0)
    free, _, _ = runs[False]
    held, revs, r0 = runs[True]
    assert len({p.cylinder for p in free.pieces}) == 2  # the read-ahead crosses a cylinder
    assert list(free.done - r0) == pytest.approx([5, 6, 7, 12, 13, 14, 15, 16])
    assert list(held.done - r0) == pytest.approx([5, 6, 7, 12, 13, 24, 25, 36])
    assert revs == 2
    shift = (held.done - free.done) / mech.rev_ms
    assert np.all(shift >= -1e-9) and np.allclose(shift, np.round(shift))
    sent = r0 + 1.0 + 7.0 * (np.arange(4) + 1)
    starts = held.done - Plan(held.done, held.pieces, 0, 0, 0, 0, 0, 0).sector_ms_each()
    for j, begin in enumerate(starts):
        need = held.lba + j - 12 - 8  # the read's sector that must have gone
        if need >= 0 and begin < r0 + 29.0:
            assert begin >= (sent[need] if need < 4 else r0 + 29.0) - 1e-9
    for a, b in zip(free.pieces, held.pieces, strict=True):
        moved = (b.move_start_ms - a.move_start_ms) / mech.rev_ms
        assert moved >= -1e-9 and moved == pytest.approx(round(moved))


def test_segment_hold_holds_a_read_ahead_a_hit_extended():
    """A read that hits the running read-ahead extends it (``_extend``) and holds what it
    added. Worked by hand on the tiny disk, 8-sector segments, segment read-ahead: a read of
    LBAs 9..10 from r0 (LBA 9 + j done at r0 + j + 1) reads ahead LBAs 11..18 (done at 3..10,
    the end of track (0, 1)). At r0 + 3.5 a read of LBAs 11..12 finds LBA 11 in and LBA 12
    on its way (a stream hit) and extends the read-ahead a segment past its end, to LBA 20:
    LBAs 19 and 20 on the next cylinder, done at 15 and 16 (the switch from 10 to 10.8, then
    LBA 19's sector comes round at 14). The hold: LBA 19 = 11 + 8 may start once the read's
    sector 0 has gone, LBA 20 once sector 1 has (the completion). A host taking a sector
    every 10 ms from 4.5 (LBA 11 gone at 14.5, LBA 12 at 24.5): LBA 19, starting at 14, waits
    a revolution (done 25), and LBA 20 then starts at 25, after 24.5 (done 26). From 3.5
    (gone at 13.5 and 23.5): LBA 19 goes in time (done 15), LBA 20 starts at 15 and waits
    (done 26). A host that is done by 6.5 holds nothing."""
    mech = _tiny_track_one()
    config = CacheConfig(size_kib=16, segments=4, read_ahead="segment",
                         read_ahead_over_requested=True)
    runs = {}
    for host in (None, (4.5, 10.0, 24.5), (3.5, 10.0, 23.5), (4.5, 1.0, 6.5)):
        cache = SegmentCache(config, mech)
        head = HeadState(0, 1)
        first = cache.read(9, 2, 0.0, 0.0, head)
        r0 = float(first.ready_ms[0]) - 1.0
        cache.read_done(first, first.media_end_ms, head)
        assert list(cache.stream.done - r0) == pytest.approx([3, 4, 5, 6, 7, 8, 9, 10])
        t = r0 + 3.5
        found = cache.find(11, 2, t)
        assert found[0] == "stream" and found[2] == 1
        svc = cache.read(11, 2, t, t, head, found)
        assert list(svc.ready_ms - r0) == pytest.approx([3.5, 4])
        if host is None:
            cache.read_done(svc, svc.media_end_ms, head)
        else:
            start, bus, complete = host
            cache.read_done(svc, svc.media_end_ms, head, 11, r0 + start, bus, r0 + complete, t)
        s = cache.stream
        assert s.lba == 11 and [p.cylinder for p in s.pieces] == [0, 1]
        # the sector times, the end, the held revolutions
        runs[host] = [*(s.done - r0), s.end_ms - r0, cache.stats["read_ahead_held_revolutions"]]
    assert runs[None] == pytest.approx([3, 4, 5, 6, 7, 8, 9, 10, 15, 16, 16, 0])
    assert runs[(4.5, 10.0, 24.5)] == pytest.approx([3, 4, 5, 6, 7, 8, 9, 10, 25, 26, 26, 1])
    assert runs[(3.5, 10.0, 23.5)] == pytest.approx([3, 4, 5, 6, 7, 8, 9, 10, 15, 26, 26, 1])
    assert runs[(4.5, 1.0, 6.5)] == pytest.approx(runs[None])


@pytest.mark.parametrize("destage", ["lru", "sptf"])
@pytest.mark.parametrize("disksim_rule", [False, True])
def test_a_write_appending_as_the_destage_ends_is_destaged(ten_ms_disk, destage, disksim_rule):
    """A write that appends to a segment exactly when the segment's destage ends is dirty.

    Timeline on the 10 ms disk (0.1 ms a sector, head on sector 0 at 0): LBAs 0-9 are
    buffered at 0 and destaged 0.0-1.0 ms. A write of LBAs 10-19 arrives at 0.9 ms, while
    the destage runs: the buffer has room for it (it appends to the data being destaged)
    and its data is in by 1.0 ms, when its command overhead ends and the cache takes it,
    at the destage's very end. Nothing retired the finished destage between (the drive was
    busy with the write, not idle). LBAs 0-9 are on the platter then and LBAs 10-19 are
    not: they must be dirty (10 sectors at risk), a destage of them starts at 1.0 ms from
    where the head is (LBA 10 passes 1.0-1.1 ms) and ends at 2.0 ms, and a FLUSH at 1.0 ms
    ends then with nothing dirty left. (A bug chose the segment to append to before
    retiring the finished destage, whose retirement then marked the whole segment clean:
    LBAs 10-19 were never written with ``destage="lru"``, and ``"sptf"`` took ``min()``
    of no dirty segment.) With DiskSim's rule (no write prebuffering, unstoppable destage)
    the write waits for no destage: it has ended by 1.0 ms."""
    kw = dict(write_prebuffering=False, preempt_destage=False) if disksim_rule else {}
    cache, head = _dsk_cache(ten_ms_disk, destage=destage, **kw)
    cache.write(0, 10, np.zeros(10), 0.0, head)
    assert cache.stream.end_ms == pytest.approx(1.0)
    end = cache.stream.end_ms
    assert np.all(cache.write_space(10, 10, 0.9) == -np.inf)  # room: it appends
    svc = cache.write(10, 10, np.full(10, end), end, head, arrival_ms=0.9)
    assert svc.media_end_ms is None  # acknowledged from the buffer
    assert cache.dirty_sectors() == 10 and cache.dirty_at(end) == 10
    assert cache.stream is not None and cache.stream.kind == "write"
    assert (cache.stream.lba, cache.stream.stop_lba) == (10, 20)
    assert cache.stream.end_ms == pytest.approx(2.0)
    assert cache.flush(end, head) == pytest.approx(2.0)
    assert cache.dirty_sectors() == 0 and cache.dirty_at(2.0) == 0
    assert cache.stats["destages"] == 2 and cache.stats["waited_for_destage"] == 0


# -- a full buffer of dirty segments: a request waits for room, the table never grows ----------

def _dirty_table_run(monkeypatch, requests, path):
    """Serve ``requests`` on the modern 7200 rpm drive, 16 segments with write-back, on the
    engine's event-free path or SimPy's; the most segments the cache ever held, the records
    and when each destage ended."""
    from simcore.drive import cache_destage, cache_segments
    from simcore.engine import _feed_open, start
    from simcore.stack import stack
    from simcore.workloads import OpenWorkload

    prof = load_disk("modern7200")
    cfg = CacheConfig.from_profile(prof, segments=16, write_back=True, read_ahead="track")
    peak, ends = [0], []
    alloc, destage = cache_segments.SegmentTable._allocate, cache_destage.DestageWork._destage

    def counted(self, *a, **kw):
        seg = alloc(self, *a, **kw)
        peak[0] = max(peak[0], len(self.segments))
        return seg

    def noted(self, seg, t, head):
        destage(self, seg, t, head)
        if self.stream is not None:
            ends.append(self.stream.end_ms)

    monkeypatch.setattr(cache_segments.SegmentTable, "_allocate", counted)
    monkeypatch.setattr(cache_destage.DestageWork, "_destage", noted)
    stk = stack(Mechanism(prof), scheduler="fcfs", cache=cfg)
    if path == "fast":
        res = simcore.run(stk, OpenWorkload(requests))
        assert res.meta["built"].drives[0]._open_served
        recs = list(res.records)
    else:
        built = start(stk)
        built.env.process(_feed_open(built.env, built.top, requests))
        built.env.run()
        recs = list(built.completed)
    return peak[0], sorted(recs, key=lambda r: r.id), ends


def _random_writes_at_zero(n, seed=11):
    from simcore.records import Request

    cap = load_disk("modern7200")
    lbas = np.random.default_rng(seed).integers(0, Mechanism(cap).layout.capacity - 8, n)
    return [Request(i, 0.0, "W", int(x), 8) for i, x in enumerate(lbas)]


@pytest.mark.parametrize("path", ["fast", "simpy"])
def test_dirty_segments_never_outgrow_the_buffer_and_a_write_waits_for_a_destage(
        monkeypatch, path):
    """40 random writes at t = 0 on 16 write-back segments: once all 16 hold dirty data, a
    write waits (as DiskSim's drives disconnect) until a destage has cleaned one; it never
    takes a segment beyond the buffer's."""
    peak, recs, ends = _dirty_table_run(monkeypatch, _random_writes_at_zero(40), path)
    assert peak <= 16
    assert len(recs) == 40
    # the first 16 fill the buffer; the 17th is acknowledged only once the first destage
    # (started by the first write) has ended
    assert recs[16].finish_ms >= ends[0]
    assert recs[15].finish_ms < ends[0]  # (the buffer took the first 16 without waiting)


@pytest.mark.parametrize("path", ["fast", "simpy"])
def test_a_read_miss_after_a_buffer_of_dirty_writes_waits_for_room(monkeypatch, path):
    from simcore.records import Request

    writes = _random_writes_at_zero(16)
    cap = Mechanism(load_disk("modern7200")).layout.capacity
    read = Request(16, 0.0, "R", cap // 2 + 1001, 8)
    peak, recs, ends = _dirty_table_run(monkeypatch, [*writes, read], path)
    assert peak <= 16
    # the miss's media access starts only once a destage has made a segment clean
    r = recs[16]
    assert not r.cache_hit
    assert r.finish_ms - r.transfer_ms - r.rotation_ms >= ends[0]


def test_both_paths_agree_on_a_full_buffer_of_dirty_segments(monkeypatch):
    from simcore.records import Request

    cap = Mechanism(load_disk("modern7200")).layout.capacity
    rng = np.random.default_rng(5)
    reqs = [Request(i, float(i // 4), "R" if i % 5 == 0 else "W",
                    int(rng.integers(0, cap - 8)), 8) for i in range(120)]
    fast = _dirty_table_run(monkeypatch, reqs, "fast")
    slow = _dirty_table_run(monkeypatch, reqs, "simpy")
    assert fast[0] <= 16 and slow[0] <= 16
    assert [tuple(r) for r in fast[1]] == [tuple(r) for r in slow[1]]


def test_a_write_called_without_write_space_gets_its_data_in_once_there_is_room():
    """The cache on its own (no drive asking write_space first): a write finding both
    segments dirty takes its data once the destage under way has ended, and says so."""
    mech = Mechanism(load_disk("modern7200"))
    cache = SegmentCache(CacheConfig(1024, 2, read_ahead="none", write_back=True), mech)
    head = HeadState()
    for k, lba in enumerate((1000, 5_000_000)):
        svc = cache.write(lba, 8, np.full(8, 0.01 * k), 0.01 * k, head)
        assert svc.arrive_ms is None  # a segment was free
    running = cache.stream
    assert running is not None and running.kind == "write"
    svc = cache.write(9_000_000, 8, np.full(8, 0.05), 0.05, head)
    assert len(cache.segments) == 2
    assert svc.arrive_ms is not None and svc.arrive_ms.min() >= running.end_ms
    assert cache.stats["waited_for_room"] == 1


def test_a_fua_write_finding_every_segment_dirty_waits_for_one():
    mech = Mechanism(load_disk("modern7200"))
    cache = SegmentCache(CacheConfig(1024, 2, read_ahead="none", write_back=True), mech)
    head = HeadState()
    for k, lba in enumerate((1000, 5_000_000)):
        cache.write(lba, 8, np.full(8, 0.01 * k), 0.01 * k, head)
    running = cache.stream
    svc = cache.write(9_000_000, 8, np.full(8, 0.05), 0.05, head, fua=True)
    assert len(cache.segments) == 2
    assert svc.media_end_ms - svc.transfer_ms >= running.end_ms
