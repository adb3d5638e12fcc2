"""The engine's shortcuts give the records the general machinery gives, to the bit.

``run`` serves a lone fast-path drive fed by an open workload without SimPy's event loop
(``Drive.serve_open``); these tests replay the same requests through the drive's SimPy
process and the engine's open feeder, and compare every field of every record, the busy
time and the clock's end. The workloads put requests at equal times (a batch at t = 0,
arrivals on a coarse grid) so that ties between arrivals and completions are exercised.
Also: the quick DiskSim ASCII reader against the line-by-line one, result columns against
the plain list-built arrays, ``Layout.track_end`` against the first track piece.
"""

from __future__ import annotations

import numpy as np
import pytest

from simcore.disk.access import Mechanism
from simcore.disk.layout import Layout
from simcore.disk.profile_loader import load_disk
from simcore.drive.firmware_events import FirmwareEvents
from simcore.engine import _feed_open, run, start
from simcore.records import READ, WRITE, Completed, Request
from simcore.stack import stack
from simcore.workloads import OpenWorkload, random_open, sequential_open
from simcore.workloads.traces import disksim


def _random_head(rng: np.random.Generator, lay: Layout):
    """A head over a random cylinder and surface (cylinder drawn first, then surface)."""
    from simcore.disk.access import HeadState

    return HeadState(int(rng.integers(0, lay.cylinders)), int(rng.integers(0, lay.surfaces)))


def _by_simpy(stk, requests):
    built = start(stk)
    env = built.env
    env.process(_feed_open(env, built.top, requests))
    env.run()
    return built.completed, built.busy_ms, env.now


def _both_paths_agree(stk, wl):
    """Run ``wl`` on the engine's event-free path and on SimPy's, and check that the records,
    busy time, end and cache statistics agree; both drives are returned for a test's own checks."""
    res = run(stk, wl)
    fast = res.meta["built"].drives[0]
    assert fast._open_served  # the engine took the event-free path
    built = start(stk)
    env = built.env
    env.process(_feed_open(env, built.top, wl.requests))
    env.run()
    slow = built.drives[0]
    assert not slow._open_served
    assert [tuple(r) for r in res.records] == [tuple(r) for r in built.completed]
    assert res.busy_ms == built.busy_ms and res.meta["end_ms"] == env.now
    assert fast.cache.stats == slow.cache.stats
    return res, built, fast, slow


@pytest.fixture(scope="module")
def atlas():
    return Mechanism(load_disk("atlas10k"))


def _ties(cap: int) -> list[Request]:
    # three requests every 7 ms, reads and writes, FLUSH now and then
    return [Request(i, float((i // 3) * 7), "F" if i % 50 == 0 else (READ if i % 2 else WRITE),
                    (i * 7919 * 8) % (cap - 16), 8) for i in range(600)]


@pytest.mark.parametrize("sched", ["fcfs", "sstf", "sptf", "clook"])
@pytest.mark.parametrize("kind", ["random", "batch", "ties"])
def test_serve_open_matches_the_event_loop(atlas, sched, kind):
    cap = atlas.layout.capacity
    if kind == "random":
        wl = random_open(cap, 800, 150.0, 4, read_fraction=0.6, seed=3)
    elif kind == "batch":
        wl = sequential_open(0, 200, 64)  # all at t = 0
    else:
        wl = OpenWorkload(_ties(cap), name="ties")
    stk = stack(atlas, scheduler=sched, firmware=False)
    res = run(stk, wl)
    recs, busy, end = _by_simpy(stk, wl.requests)
    assert [tuple(r) for r in res.records] == [tuple(r) for r in recs]
    assert [type(r.start_ms) for r in res.records] == [type(r.start_ms) for r in recs]
    assert res.busy_ms == busy and res.meta["end_ms"] == end


def test_serve_open_with_firmware_events(atlas):
    ev = FirmwareEvents(recovered_per_bit=1e-6, recal_interval_ms=2000.0, scan_idle_ms=20.0,
                        seed=3)
    stk = stack(atlas, firmware=False, events=ev)
    wl = random_open(atlas.layout.capacity, 600, 100.0, 4, seed=5)
    res = run(stk, wl)
    recs, busy, end = _by_simpy(stk, wl.requests)
    assert [tuple(r) for r in res.records] == [tuple(r) for r in recs]
    assert res.busy_ms == busy and res.meta["end_ms"] == end


def test_quick_ascii_reader_equals_line_reader(tmp_path):
    text = "".join(f"{t:.6f} {d} {lbn} {n} {f}\n" for t, d, lbn, n, f in
                   [(0.5, 0, 100, 8, 1), (0.5, 1, 0x20, 16, 0), (2.25, 0, 7, 1, 3),
                    (9.0, 2, 123456, 64, 0)])
    p = tmp_path / "a.trace"
    p.write_text(text)
    quick = disksim.read_ascii(p).requests
    (tmp_path / "b.trace").write_text(text + "# a comment sends it line by line\n")
    careful = disksim.read_ascii(tmp_path / "b.trace").requests
    assert quick == careful and len(quick) == 4
    assert [r.op for r in quick] == [READ, WRITE, READ, WRITE]
    assert disksim.read_ascii(p, device=0).requests == disksim.read_ascii(
        tmp_path / "b.trace", device=0).requests
    # hexadecimal fields are parsed as the line reader parses them (int(x, 0))
    (tmp_path / "c.trace").write_text("1.0 0 0x10 8 1\n")
    assert disksim.read_ascii(tmp_path / "c.trace").requests[0].lba == 16


def test_columns_equal_list_built_arrays(atlas):
    res = run(stack(atlas), random_open(atlas.layout.capacity, 300, 80.0, 4,
                                        read_fraction=0.5, seed=2))
    for i, name in enumerate(Completed._fields):
        want = np.array([r[i] for r in res.records])
        got = res.column(name)
        assert got.dtype == want.dtype and np.array_equal(got, want), name


@pytest.mark.parametrize("disk", ["atlas10k", "ultrastar18es", "hpc2247", "toy"])
def test_track_end_is_the_first_pieces_end(disk):
    lay = Layout(load_disk(disk))
    rng = np.random.default_rng(1)
    for lba in [0, lay.capacity - 1, *map(int, rng.integers(0, lay.capacity, 300))]:
        spt = lay.sectors_per_track(lay.zone_of(lba))
        piece = lay.first_piece(lba, min(lay.capacity - lba, spt))
        assert lay.track_end(lba) == lba + piece.count


# -- the buffered drive (segmented cache and interface) without the event loop ---------------

def _buffered_requests(kind: str, cap: int) -> list[Request]:
    if kind == "random":  # misses: each read-ahead stopped by the next command or ended
        return random_open(cap, 700, 110.0, 4, read_fraction=0.7, seed=11).requests
    if kind == "sequential":  # read-ahead hits and stream hits, on a grid (ties)
        return [Request(i, float(i // 3) * 0.5, READ, 64 + 8 * i, 8) for i in range(600)]
    if kind == "writes":  # write-back: buffered writes, destaging while idle, reads between
        return [Request(i, i * 2.0, WRITE if i % 3 else READ, ((i // 3) * 24) % (cap - 8), 8)
                for i in range(600)]
    if kind == "random writes":  # writes arriving while another is destaged, reads too
        return random_open(cap, 500, 150.0, 8, read_fraction=0.4, seed=7).requests
    # three at a time every 7 ms: reads, writes, FLUSH now and then (ties everywhere)
    return _ties(cap)


@pytest.mark.parametrize("disk", ["atlas10k", "hpc2247", "ultrastar18es"])
@pytest.mark.parametrize("kind", ["random", "sequential", "writes", "random writes", "ties"])
@pytest.mark.parametrize("sched", ["fcfs", "sptf"])
def test_buffered_serve_open_matches_the_event_loop(disk, kind, sched):
    from simcore.drive.cache import CacheConfig

    mech = Mechanism(load_disk(disk))
    cap = mech.layout.capacity
    wl = OpenWorkload(_buffered_requests(kind, cap), name=kind)
    cache = CacheConfig.from_profile(mech.profile, write_back=True)
    stk = stack(mech, scheduler=sched, cache=cache)
    res, built, drive, other = _both_paths_agree(stk, wl)
    assert [type(r.start_ms) for r in res.records] == [type(r.start_ms) for r in built.completed]
    assert drive.interrupts == other.interrupts
    assert drive.channel.data_ms == other.channel.data_ms
    if kind == "sequential":  # the case is what it says: read-ahead served most reads
        assert drive.cache.stats["hits"] + drive.cache.stats["stream_hits"] > 300
    if kind == "random writes" and disk != "hpc2247":  # DiskSim's rule, from the profile
        assert not cache.write_prebuffering and not cache.preempt_destage
        assert drive.cache.stats["waited_for_destage"] > 50


def test_buffered_serve_open_declines_what_it_does_not_model(atlas):
    from simcore.drive.interface import Port

    wl = random_open(atlas.layout.capacity, 50, 50.0, 4, seed=1)
    for stk in (stack(atlas, interface="pio4"), stack(atlas, interface=Port.of("udma2")),
                stack(atlas, trace=[])):
        built = start(stk)
        assert not built.top.serves_open(wl.requests)
    big = OpenWorkload([Request(0, 0.0, READ, 0, 4096)], name="big")  # beyond a segment
    assert not start(stack(atlas)).top.serves_open(big.requests)
    assert start(stack(atlas)).top.serves_open(wl.requests)


@pytest.mark.parametrize("disk", ["atlas10k", "hpc2247", "ultrastar18es", "toy"])
def test_track_plan_is_the_plan(disk):
    from simcore.disk.access import HeadState

    mech = Mechanism(load_disk(disk))
    lay = mech.layout
    rng = np.random.default_rng(4)
    checked = 0
    for _ in range(400):
        lba = int(rng.integers(0, lay.capacity))
        n = int(rng.integers(1, 64))
        n = min(n, lay.track_end(lba) - lba)
        head = _random_head(rng, lay)
        start_ms = float(rng.uniform(0, 1000))
        is_write = bool(rng.integers(0, 2))
        tp = mech.track_plan(lba, n, is_write, start_ms, head)
        plan = mech.plan(lba, n, is_write, start_ms, head)
        assert tp is not None
        full = tp.plan()
        assert np.array_equal(full.done_ms, plan.done_ms)
        assert full[1:] == plan[1:]
        assert [tp.time_of(k) for k in range(n)] == plan.done_ms.tolist()
        assert tp.times_list() == plan.done_ms.tolist()  # without the array, to the bit
        # done_by: the count np.searchsorted gives, at the sector times and between them
        probes = [*plan.done_ms.tolist(), *(plan.done_ms - 1e-9).tolist(),
                  start_ms, plan.end_ms + 1.0, float(plan.done_ms[0]) - 5.0]
        for t in probes:
            assert tp.done_by(t) == int(np.searchsorted(plan.done_ms, t, side="right"))
        checked += tp.wrap >= 0
    assert mech.track_plan(0, lay.track_end(0) + 1, False, 0.0, HeadState()) is None
    if disk == "atlas10k":  # zero-latency reads land inside the run: the wrapped case ran
        assert checked > 20


@pytest.mark.parametrize("disk", ["atlas10k", "hpc2247", "ultrastar18es", "toy"])
def test_track_plan_on_a_held_track_is_the_track_plan(disk):
    # a cache's read-ahead plans on the straight track it holds: the same numbers as
    # track_plan's own look-up, field by field (the rest of the track, and shorter runs)

    mech = Mechanism(load_disk(disk))
    lay = mech.layout
    rng = np.random.default_rng(9)
    checked = 0
    for _ in range(400):
        x = int(rng.integers(0, lay.capacity))
        track = lay.straight_track(x)
        if track is None:
            continue
        n = int(rng.integers(1, track.end - x + 1)) if rng.integers(0, 2) else track.end - x
        head = _random_head(rng, lay)
        start_ms = float(rng.uniform(0, 3e6))
        got = mech.track_plan_on(track, x, n, start_ms, head)
        want = mech.track_plan(x, n, False, start_ms, head)
        assert {k: getattr(got, k) for k in want.__slots__} == {
            k: getattr(want, k) for k in want.__slots__}
        checked += 1
    assert checked > 300


@pytest.mark.parametrize("disk", ["atlas10k", "hpc2247", "ultrastar18es", "toy"])
def test_a_stream_over_several_tracks_counts_as_its_arrays(disk):
    # a read-ahead over several tracks keeps its tracks' plans (read_track_plans) and makes the
    # arrays only when asked: joined, they are Mechanism.plan's to the bit, and the stream's
    # counts and times from the track plans are the arrays' (np.searchsorted, indexing)
    from simcore.disk.access import join_track_plans
    from simcore.drive.cache_background import new_stream
    from simcore.drive.cache_segments import Segment

    mech = Mechanism(load_disk(disk))
    lay = mech.layout
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(300):
        lba = int(rng.integers(0, lay.capacity - 1))
        n = min(int(rng.integers(2, 3 * lay.track_end(lba) - 3 * lba + 400)), lay.capacity - lba)
        head = _random_head(rng, lay)
        start_ms = float(rng.uniform(0, 3e6))
        tracks = mech.read_track_plans(lba, n, start_ms, head)
        plan = mech.plan(lba, n, False, start_ms, head)
        joined = join_track_plans(tracks)
        assert np.array_equal(joined.done_ms, plan.done_ms) and joined[1:] == plan[1:]
        if len(tracks) < 2:
            continue
        lazy = new_stream("read", Segment(1), lba, tracks, (head.cylinder, head.surface), 0.0)
        eager = new_stream("read", Segment(2), lba, plan, (head.cylinder, head.surface), 0.0)
        assert lazy.tracks is not None and lazy.end_ms == eager.end_ms
        assert lazy.count == eager.count == n and lazy.stop_lba == eager.stop_lba
        pos, want = lazy.position(), eager.position()
        assert (pos.cylinder, pos.surface) == (want.cylinder, want.surface)
        probes = [*plan.done_ms.tolist(), *(plan.done_ms - 1e-9).tolist(), start_ms,
                  plan.end_ms + 1.0]
        for t in probes:
            assert lazy.done_by(t) == int(np.searchsorted(plan.done_ms, t, side="right"))
        for k in range(0, n, 7):
            assert lazy.time_of(k) == float(plan.done_ms[k])
            assert lazy.sector_ms_at(k) == eager.sector_ms_at(k)
        assert lazy.tracks is not None  # nothing above needed the arrays
        assert np.array_equal(lazy.done, plan.done_ms) and lazy.pieces == plan.pieces
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("disk", ["atlas10k", "hpc2247", "ultrastar18es", "toy"])
def test_a_read_miss_over_several_tracks_is_its_plan_when_asked(disk):
    # a read miss crossing a track keeps its tracks' plans (SegmentCache.read): its totals,
    # its end, its times as a list (ready_list), its array and its plan, asked for, are those
    # of Mechanism.plan of the same read to the bit, and nothing makes the arrays until asked
    from simcore.disk.access import HeadState, join_track_plans, join_track_times
    from simcore.drive.cache import CacheConfig, SegmentCache

    mech = Mechanism(load_disk(disk))
    lay = mech.layout
    rng = np.random.default_rng(12)
    checked = 0
    for _ in range(200):
        end = lay.track_end(int(rng.integers(0, lay.capacity // 2)))
        n = int(rng.integers(2, 40))
        lba = max(0, end - int(rng.integers(1, n)))  # the read's last sectors on the next track
        n = min(n, lay.capacity - lba)
        head = _random_head(rng, lay)
        start_ms = float(rng.uniform(0, 3e6))
        want = mech.plan(lba, n, False, start_ms, HeadState(head.cylinder, head.surface))
        cache = SegmentCache(CacheConfig(size_kib=256, segments=4), mech)
        svc = cache.read(lba, n, start_ms, start_ms, head)
        assert (head.cylinder, head.surface) == (want.cylinder, want.surface)
        assert (svc.seek_ms, svc.rotation_ms, svc.transfer_ms, svc.media_end_ms) == (
            want.seek_ms, want.rotation_ms, want.transfer_ms, want.end_ms)
        if len(want.pieces) < 2:
            continue
        assert type(svc._ready) is list  # the tracks' plans, no arrays yet
        assert svc.ready_list() == want.done_ms.tolist()
        assert svc.latest_less(0.001) is None
        plan = svc.plan
        assert np.array_equal(plan.done_ms, want.done_ms) and plan[1:] == want[1:]
        assert np.array_equal(svc.ready_ms, want.done_ms) and svc.ready_ms is plan.done_ms
        # the running maximum too (only a guard on real plans): tracks out of order
        back = [*reversed(mech.read_track_plans(lba, n, start_ms, head))]
        assert join_track_times(back) == join_track_plans(back).done_ms.tolist()
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("disk", ["atlas10k", "hpc2247", "ultrastar18es", "toy"])
def test_latest_less_is_the_largest_over_the_list(disk):
    # the burst start from the ends of a track plan's runs: the float the list's max gives
    from operator import sub


    mech = Mechanism(load_disk(disk))
    lay = mech.layout
    rng = np.random.default_rng(5)
    wrapped = declined = 0
    for _ in range(600):
        lba = int(rng.integers(0, lay.capacity))
        n = min(int(rng.integers(1, 400)), lay.track_end(lba) - lba)
        head = _random_head(rng, lay)
        tp = mech.track_plan(lba, n, False, float(rng.uniform(0, 3e6)), head)
        times = tp.times_list()
        # a bus slower than, equal to, and faster than the media; none
        for b in (0.0, tp.sector_ms * 0.3, tp.sector_ms * 0.999, tp.sector_ms, tp.sector_ms * 2):
            got = tp.latest_less(b)
            want = max(map(sub, times, [float(j) * b for j in range(n)]))
            if got is None:
                declined += 1
                assert b >= tp.sector_ms * 0.999  # declines only where the bus keeps up
            else:
                assert got == want and got.hex() == want.hex()
        wrapped += tp.wrap >= 0
    assert declined
    if disk == "atlas10k":
        assert wrapped > 20


@pytest.mark.parametrize("disk", ["atlas10k", "hpc2247", "ultrastar18es", "hc310_512e"])
def test_straight_tracks_give_the_walked_pieces(disk):
    # a zone's regular tracks take the simple-zone shortcut, and the last straight track is
    # kept; without either (irregular = None walks every track as a zone with slips does)
    # the pieces must be the same
    prof = load_disk(disk)
    fast, walk = Layout(prof), Layout(prof)
    for zm in walk._zones:
        zm.irregular = None
    rng = np.random.default_rng(8)
    lbas = [0, fast.capacity - 1, *map(int, rng.integers(0, fast.capacity, 3000))]
    for zm in fast._zones:  # around every slip and the zones' ends
        for s in zm.slips[:20]:
            rel = zm.rel_of_slot(s + 1)
            if rel is not None:
                lbas += [zm.first_lba + rel - 1, zm.first_lba + rel]
        lbas += [zm.first_lba, zm.first_lba + zm.lba_count - 1]
    none = (0, 0, 0, 0, 0, 1)
    for lba in lbas:
        # then a few more on the same track: answered from the last straight track kept
        for x in (lba, *(lba + int(d) for d in rng.integers(0, 400, 3))):
            if x >= fast.capacity:
                continue
            n = min(int(rng.integers(1, 700)), fast.capacity - x)
            walk._track = none  # the walk never uses it
            want = walk.pieces(x, n)
            walk._track = none
            assert fast.pieces(x, n) == want
            assert fast.track_end(x) == walk.track_end(x)


def test_buffered_serve_open_with_firmware_events(atlas):
    ev = FirmwareEvents(recovered_per_bit=1e-6, recal_interval_ms=2000.0, scan_idle_ms=20.0,
                        seed=3)
    stk = stack(atlas, events=ev)
    wl = random_open(atlas.layout.capacity, 600, 100.0, 4, read_fraction=0.7, seed=5)
    res = run(stk, wl)
    assert res.meta["built"].drives[0]._open_served
    recs, busy, end = _by_simpy(stk, wl.requests)
    assert [tuple(r) for r in res.records] == [tuple(r) for r in recs]
    assert res.busy_ms == busy and res.meta["end_ms"] == end
    assert any(r.overhead_ms > 1.0 for r in res.records)  # some events did happen


@pytest.mark.parametrize("disk", ["hpc2247", "ultrastar18es"])
@pytest.mark.parametrize("kind", ["random writes", "ties"])
def test_separate_write_segment_serves_alike_on_both_paths(disk, kind):
    """The bundled HP C2247 (write-through) and Ultrastar 18ES (write-back) keep a separate
    write segment, as DiskSim's models of them do; the profile's own cache, both paths."""
    from simcore.drive.cache import CacheConfig

    mech = Mechanism(load_disk(disk))
    cache = CacheConfig.from_profile(mech.profile)
    assert cache.separate_write_segment
    wl = OpenWorkload(_buffered_requests(kind, mech.layout.capacity), name=kind)
    stk = stack(mech, scheduler="fcfs", cache=cache)
    _, _, drive, _ = _both_paths_agree(stk, wl)
    assert drive.cache._wseg is not None and len(drive.cache.segments) <= cache.segments


@pytest.mark.parametrize("disk", ["hpc2247", "ultrastar18es", "atlas10k"])
@pytest.mark.parametrize("kind", ["two streams", "ties"])
def test_disksims_hit_test_serves_alike_on_both_paths(disk, kind):
    """DiskSim's hit test (CacheConfig.stop_read_ahead_unless_hit: a hit on another segment
    stops the read-ahead, a read where the read-ahead has not got yet is a miss) and the
    read-ahead on idle hit that waits for the read miss overhead (the HP C2247's profile),
    both paths. Two interleaved sequential streams 200,000 sectors apart, a read every 8 ms:
    reads hit their own segment while the other stream's read-ahead runs."""
    from simcore.drive.cache import CacheConfig

    mech = Mechanism(load_disk(disk))
    cap = mech.layout.capacity
    cache = CacheConfig.from_profile(mech.profile, stop_read_ahead_unless_hit=True)
    if kind == "two streams":
        reqs = [Request(i, i * 8.0, READ, (200_000 if i % 2 else 0) + 8 * (i // 2), 8)
                for i in range(400)]
    else:
        reqs = _ties(cap)
    wl = OpenWorkload(reqs, name=kind)
    stk = stack(mech, scheduler="fcfs", cache=cache)
    _, _, drive, _ = _both_paths_agree(stk, wl)
    if kind == "two streams" and cache.segments - cache.separate_write_segment > 1:
        # the case is what it says (the HP C2247 has one read segment: the streams share it)
        assert drive.cache.stats["read_ahead_stopped_by_hit"] > 10


@pytest.mark.parametrize("completion_ms", [0.0, 0.3])
@pytest.mark.parametrize("kind", ["sequential", "random"])
def test_buffered_serve_open_matches_the_event_loop_where_read_ahead_is_held(kind,
                                                                            completion_ms):
    """DiskSim's Atlas III model (its bus, the measuring host's adapter, is slower than its
    media; segments of 64 sectors; read-ahead to the track's end and a track more): the
    segment hold stops read-ahead often, and both paths stop it alike. The model's read
    completion overhead is 0; with one, both paths must still release the hold alike."""
    from dataclasses import replace

    from simcore.disksim.importer import load_any
    from simcore.experiments.validation import model_path

    prof = load_any(str(model_path("atlas_III")))
    if completion_ms:
        prof = replace(prof, overheads=replace(prof.overheads, completion_ms=completion_ms))
    mech = Mechanism(prof)
    cap = mech.layout.capacity
    if kind == "sequential":
        reqs = [Request(i, i * 3.0, READ, 1000 + 32 * i, 32) for i in range(300)]
    else:
        reqs = random_open(cap, 400, 90.0, 16, read_fraction=0.8, seed=5).requests
    _, _, fast, _ = _both_paths_agree(stack(mech), OpenWorkload(reqs, name=kind))
    if kind == "sequential":
        assert fast.cache.stats["read_ahead_held_revolutions"] > 50


@pytest.mark.parametrize("offset_ms", [-0.001, 0.0, 0.001])
@pytest.mark.parametrize("write_back", [False, True])
def test_buffered_serve_open_arrival_at_the_end_of_an_idle_read_ahead(atlas, offset_ms,
                                                                       write_back):
    """An idle drive whose only background work is a read-ahead does not wake at its end on
    the event-free path (there is nothing to start then): the next requests, arriving just
    before, exactly at or just after that end, must be served as SimPy serves them, and the
    clock must stop where SimPy's does. With write-back, the write among them leaves dirty
    data, and the drive, idle again, destages it and wakes as SimPy's does."""
    from simcore.drive.cache import CacheConfig

    cache = CacheConfig.from_profile(atlas.profile, write_back=write_back)
    stk = stack(atlas, cache=cache, scheduler="sptf")
    first = [Request(0, 0.0, READ, 1000, 8)]
    alone = run(stk, OpenWorkload(first))
    ra_end = alone.meta["end_ms"]  # the clock stops where the read-ahead ends
    assert ra_end > alone.records[0].finish_ms  # (the case is what it says)
    t = ra_end + offset_ms
    wl = OpenWorkload([*first, Request(1, t, WRITE, 7_000_000, 8),
                       Request(2, t, READ, 1016, 8), Request(3, t, READ, 9_000, 8),
                       Request(4, t + 30.0, READ, 3_000_000, 8)])
    res, _, _, _ = _both_paths_agree(stk, wl)
    assert len(res.records) == 5
