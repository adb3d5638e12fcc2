"""The write cache and durability: FLUSH, FUA, fsync, and the data at risk (issue 15).

Hand-computed values: a FLUSH after N buffered random writes ends when their media work
ends, which is exactly when the same N writes end written through (both move the arm once
the command is set up, in the same order); a FUA write on an idle drive costs exactly a
write-through write.
"""

import numpy as np
import pytest

import simcore
from simcore import durability
from simcore.drive.cache import FLUSH, CacheConfig
from simcore.host.host import BlockLayer
from simcore.records import Request
from simcore.stack import Stack
from simcore.workloads import OpenWorkload, Processes

PROF = simcore.load_disk("modern7200")
MECH = simcore.Mechanism(PROF)


def _random_writes(n, seed=3, fua=False):
    lbas = np.random.default_rng(seed).integers(0, MECH.layout.capacity - 8, n)
    return [Request(i, 0.0, "W", int(x), 8, 0, fua) for i, x in enumerate(lbas)]


def test_flush_after_n_buffered_writes_costs_their_media_service():
    n = 8
    writes = _random_writes(n)
    wb = simcore.run(MECH, OpenWorkload([*writes, Request(n, 0.0, FLUSH, 0, 1)]),
                     cache=CacheConfig.from_profile(PROF, write_back=True))
    wt = simcore.run(MECH, OpenWorkload(writes), cache=CacheConfig.from_profile(
        PROF, write_back=False))
    by_id = {r.id: r for r in wb.records}
    # every write is acknowledged from the buffer in its command overhead plus the bus
    assert all(by_id[i].cache_hit and by_id[i].response_ms < 1.0 for i in range(n))
    # the FLUSH ends when the last of them is on the platter: the write-through finish
    assert by_id[n].finish_ms == pytest.approx(max(r.finish_ms for r in wt.records), abs=1e-9)
    # and that is (after the first command's setup) the sum of their media services by hand
    head = simcore.disk.access.HeadState(PROF.initial_cylinder, 0)
    t = PROF.overheads.write(False)
    for r in writes:
        acc = MECH.access(r.lba, r.sectors, True, t, head)
        head.cylinder, head.surface = acc.cylinder, acc.surface
        t = acc.end_ms  # the next destage starts as this one ends
    assert by_id[n].finish_ms == pytest.approx(t, abs=0.01)


def test_fua_write_costs_a_write_through_write_and_bypasses_write_back():
    one = _random_writes(1, seed=7)
    plain = simcore.run(MECH, OpenWorkload(one), cache=CacheConfig.from_profile(PROF))
    fua = simcore.run(MECH, OpenWorkload([one[0]._replace(fua=True)]),
                      cache=CacheConfig.from_profile(PROF))
    off = simcore.run(MECH, OpenWorkload(one), cache=CacheConfig.from_profile(
        PROF, write_back=False))
    assert fua.records[0].finish_ms == pytest.approx(off.records[0].finish_ms, abs=1e-9)
    assert not fua.records[0].cache_hit and plain.records[0].cache_hit
    assert plain.records[0].finish_ms < 1.0 < fua.records[0].finish_ms


def test_fua_over_dirty_data_writes_the_older_copy_first():
    reqs = [Request(0, 0.0, "W", 1000, 8), Request(1, 0.0, "W", 50_000_000, 8),
            Request(2, 0.0, "W", 1000, 8, 0, True)]
    res = simcore.run(Stack(MECH, cache=CacheConfig.from_profile(PROF)), OpenWorkload(reqs))
    cache = res.meta["built"].drives[0].cache
    fua = next(r for r in res.records if r.id == 2)
    # the same sectors twice in a row: the FUA write waits about a revolution behind the first
    assert fua.finish_ms > MECH.rev_ms * 0.5
    assert cache.stats["fua_writes"] == 1 and cache.dirty_sectors() == 0


def test_dirty_at_counts_acknowledged_data_until_it_is_destaged():
    n = 6
    res = simcore.run(Stack(MECH, cache=CacheConfig.from_profile(PROF)),
                      OpenWorkload(_random_writes(n)))
    cache = res.meta["built"].drives[0].cache
    assert cache.dirty_at(res.meta["end_ms"]) == 0
    risk = durability.at_risk(rate_per_s=150, duration_ms=600, seed=2)
    assert risk["max_kib"] > 0 and risk["drain_ms"] > 0
    # the buffer's segments bound what is at risk (one 4 KiB write per segment)
    assert risk["max_kib"] <= CacheConfig.from_profile(PROF).segments * 4
    safe = durability.at_risk(rate_per_s=150, duration_ms=600, seed=2, write_back=False)
    assert safe["max_kib"] == 0


def test_flush_on_a_drive_without_a_buffer_completes_at_once():
    res = simcore.run(MECH, OpenWorkload([Request(0, 0.0, FLUSH, 0, 1)]), firmware=False)
    assert res.records[0].response_ms == pytest.approx(PROF.overheads.completion(False))


def test_sptf_destage_flushes_random_writes_sooner_than_lru():
    writes = _random_writes(24, seed=5)
    ends = {}
    for order in ("lru", "sptf"):
        res = simcore.run(MECH, OpenWorkload([*writes, Request(24, 0.0, FLUSH, 0, 1)]),
                          cache=CacheConfig.from_profile(PROF, destage=order))
        ends[order] = max(r.finish_ms for r in res.records)
    assert ends["sptf"] < 0.8 * ends["lru"]
    with pytest.raises(ValueError, match="destage"):
        CacheConfig(destage="elevator")


def test_fsync_settings_order_and_hand_values():
    rows = {s: durability.commit_loop(setting=s, commits=30, pattern="append")
            for s in durability.SETTINGS}
    # a log append written through waits for the platter to come round: about a revolution
    off = rows["cache off"]["mean_ms"]
    assert MECH.rev_ms * 0.9 < off < MECH.rev_ms * 1.2
    # write + FLUSH and FUA cost what the cache-off write costs; the cache alone is far faster
    assert rows["FUA"]["mean_ms"] == pytest.approx(off, rel=0.02)
    assert rows["cache on + fsync"]["mean_ms"] == pytest.approx(off, rel=0.02)
    assert rows["cache on"]["mean_ms"] < off / 20
    assert not rows["cache on"]["durable"] and rows["cache off"]["durable"]
    # group commit: 8 random writes per FLUSH beat 8 written through one by one
    grp = durability.commit_loop(setting="cache on + fsync", commits=10, writes_per_fsync=8)
    one = durability.commit_loop(setting="cache off", commits=10, writes_per_fsync=8)
    assert grp["mean_ms"] < one["mean_ms"]
    with pytest.raises(ValueError, match="setting"):
        durability.commit_loop(setting="cache sometimes")


def test_block_layer_passes_fua_and_never_merges_it():
    got = []

    def start(built):
        env, host = built.env, built.top
        built.drives[0].submit = lambda r, _s=built.drives[0].submit: (got.append(r), _s(r))

        def prog():
            a = host.write(1, 1000, 8, fua=True)
            b = host.write(1, 1008, 8)  # would back-merge with a plain write
            c = host.submit(1, FLUSH, 0, 1)
            yield env.all_of([a, b, c])

        return env.process(prog())

    def block(env, below):
        return BlockLayer(env, below, "mq-deadline", depth=1)

    simcore.run(Stack(MECH, cache=CacheConfig.from_profile(PROF), host=(block,)),
                Processes(start))
    assert [(r.op, r.lba, r.sectors, r.fua) for r in got] == [
        ("W", 1000, 8, True), ("W", 1008, 8, False), (FLUSH, 0, 1, False)]


# -- every acknowledged write reaches the platter ---------------------------------------
class _MediaLedger:
    """Which acknowledged sectors are not yet on the platter, kept beside the cache's own
    state: a write-back write's sectors are owed once ``write`` returns; a write through
    (``media_end_ms`` set) or a destage (``_destaged_to``: a segment's dirty data from
    ``dirty_from`` up to the LBA given is on the platter) pays them. A FLUSH (``flush``)
    must return with nothing owed."""

    def __init__(self, monkeypatch):
        from simcore.drive.cache import SegmentCache

        self.owed: set[int] = set()
        self.flushes = 0
        self.owed_at_flush: list[int] = []
        write, destaged_to, flush = (SegmentCache.write, SegmentCache._destaged_to,
                                     SegmentCache.flush)
        ledger = self

        def _write(cache, lba, sectors, *a, **kw):
            svc = write(cache, lba, sectors, *a, **kw)
            span = range(lba, lba + sectors)
            if svc.media_end_ms is None:
                ledger.owed.update(span)
            else:
                ledger.owed.difference_update(span)
            return svc

        def _destaged(cache, seg, lba):
            if seg.dirty:
                ledger.owed.difference_update(range(seg.dirty_from, min(lba, seg.end)))
            destaged_to(cache, seg, lba)

        def _flush(cache, now, head):
            end = flush(cache, now, head)
            ledger.flushes += 1
            ledger.owed_at_flush.append(len(ledger.owed))
            return end

        monkeypatch.setattr(SegmentCache, "write", _write)
        monkeypatch.setattr(SegmentCache, "_destaged_to", _destaged)
        monkeypatch.setattr(SegmentCache, "flush", _flush)


def _mixed_with_fua_and_flush(cap, n, seed, seq=0.8, rate=150.0, reads=0.3):
    """Reads and writes, a share ``seq`` of them going on where the last one ended (so
    writes append to data being destaged), every fifth write FUA, a FLUSH every 40
    requests."""
    rng = np.random.default_rng(seed)
    t = np.cumsum(rng.exponential(1000.0 / rate, n))
    reqs, nxt, writes = [], int(rng.integers(0, cap // 2)), 0
    for i in range(n):
        if i % 40 == 39:
            reqs.append(Request(i, float(t[i]), FLUSH, 0, 1))
            continue
        lba = nxt if rng.random() < seq else int(rng.integers(0, cap - 64))
        k = int(rng.integers(1, 3)) * 16
        op = "R" if rng.random() < reads else "W"
        writes += op == "W"
        fua = op == "W" and writes % 5 == 0
        reqs.append(Request(i, float(t[i]), op, lba, k, 0, fua))
        nxt = lba + k
    return reqs


def _run_on(path: str, stk, wl: OpenWorkload):
    """Run ``wl`` on the stack by one engine path ("serve_open": the event-free one that
    simcore.run takes; "event loop": SimPy's) and check that path was the one taken; returns
    the drive and its records."""
    from simcore.engine import _feed_open, start

    if path == "serve_open":
        res = simcore.run(stk, wl)
        drive, records = res.meta["built"].drives[0], res.records
        assert drive._open_served
    else:
        built = start(stk)
        built.env.process(_feed_open(built.env, built.top, wl.requests))
        built.env.run()
        drive, records = built.drives[0], built.completed
        assert not drive._open_served
    return drive, records


@pytest.mark.parametrize("seed", [8, 9, 11, 12])
@pytest.mark.parametrize("destage", ["lru", "sptf"])
@pytest.mark.parametrize("rule", ["simcore", "disksim"])
@pytest.mark.parametrize("path", ["serve_open", "event loop"])
def test_every_acknowledged_write_reaches_the_platter(monkeypatch, seed, destage, rule, path):
    """Seeded mixed workloads with write-back, FUA and FLUSH, on both of the engine's paths
    (its event-free ``serve_open`` and SimPy's loop), both destage orders, and simcore's
    destage rule or DiskSim's (no write prebuffering, unstoppable destage): nothing
    crashes, every FLUSH returns with no acknowledged sector owed to the platter, and at the
    end every acknowledged write's sectors are on it (the buffer holds nothing dirty).
    Writes append to segments whose destage may end while the write is being taken (the
    race in ``test_a_write_appending_as_the_destage_ends_is_destaged``)."""
    from simcore.stack import stack

    mech = simcore.Mechanism(simcore.load_disk("atlas10k"))
    ledger = _MediaLedger(monkeypatch)
    wl = OpenWorkload(_mixed_with_fua_and_flush(mech.layout.capacity, 600, seed))
    cfg = CacheConfig.from_profile(mech.profile, segments=4, read_ahead="on-arrival",
                                   write_back=True, destage=destage,
                                   write_prebuffering=rule == "simcore",
                                   preempt_destage=rule == "simcore")
    drive, records = _run_on(path, stack(mech, scheduler="sptf", cache=cfg), wl)
    assert len(records) == len(wl.requests)
    assert drive.cache.stats["fua_writes"] > 0 and ledger.flushes >= 14
    assert ledger.owed_at_flush == [0] * ledger.flushes
    assert drive.cache.dirty_sectors() == 0
    assert not ledger.owed, f"{len(ledger.owed)} acknowledged sectors never written"
    _assert_marks_counted(drive.cache)


def _assert_marks_counted(cache):
    """The cache's count of segments that may hold dirty data (it skips its scans for dirty
    data when the count is zero) is the count of segments marked so."""
    from simcore.drive.cache_segments import CLEAN

    assert cache._marked == sum(g.dirty_from != CLEAN for g in cache.segments)


@pytest.mark.parametrize("seed", [8, 9])
@pytest.mark.parametrize("path", ["serve_open", "event loop"])
def test_adaptive_segments_with_write_back_keep_every_acknowledged_write(monkeypatch, seed,
                                                                          path):
    """Adaptive segments (their number follows the streams seen) with write-back: when the
    count drops while most segments hold dirty data, the buffer sheds clean ones only and
    keeps one to give the request (it used to shed them all and find nothing to give:
    an assertion deep in the cache). Nothing crashes, the buffer never holds more segments
    than the adaptive maximum, and every acknowledged write reaches the platter."""
    from simcore.stack import stack

    mech = simcore.Mechanism(simcore.load_disk("modern7200"))
    ledger = _MediaLedger(monkeypatch)
    wl = OpenWorkload(_mixed_with_fua_and_flush(mech.layout.capacity, 600, seed, seq=0.5,
                                                reads=0.6))
    cfg = CacheConfig.from_profile(mech.profile, adaptive=True, max_segments=16,
                                   stream_window=32, write_back=True)
    drive, records = _run_on(path, stack(mech, scheduler="fcfs", cache=cfg), wl)
    assert len(records) == len(wl.requests)
    assert drive.cache.stats["resegmented"] > 0
    assert len(drive.cache.segments) <= 16
    assert ledger.owed_at_flush == [0] * ledger.flushes
    assert not ledger.owed, f"{len(ledger.owed)} acknowledged sectors never written"
    _assert_marks_counted(drive.cache)
