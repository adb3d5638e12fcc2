"""Many sequential streams on one disk (seed 004, Panagiotakis 2006; notes 004 §2, §4.3, §5):
the stream workload, the runner, the controller cache and Linux-like read-ahead windows.

Analytic limits used here: one stream reads at the media rate of its zone (sectors per track
x 512 B per revolution plus the track skew); S streams served one request at a time in a fixed
random order pay a random seek, half a revolution, the command overhead and the transfer per
request (notes §4.3's "random bound"), in LBA order a 1/S-stroke seek instead (the "sorted
bound").
"""

from __future__ import annotations

import numpy as np
import pytest
import simpy
from helpers_multistream import REQ, FixedPort, run_clients

import simcore
from simcore.host.controller_cache import ControllerCache, ControllerCacheConfig
from simcore.host.dispatch import DispatchConfig
from simcore.host.readahead import ReadaheadConfig, ReadaheadHost, init_ra_size, next_ra_size
from simcore.multistream import CycleLBN, run_streams, stream_starts

MECH = simcore.Mechanism(simcore.load_disk("wd800jd"))


# -- the workload ---------------------------------------------------------------------------

def test_even_starts_are_disksize_over_streams():
    # thesis Chapter 5: "each stream is placed disksize/#streams blocks away from the previous";
    # on Table 3.1's 156,301,488 sectors that is 1,563,014.88, aligned down to 8 sectors
    first, end = stream_starts(156_301_488, 100, "even")
    assert first[1] - first[0] == 1_563_008
    assert first[-1] == 99 * 1_563_008
    assert (end - first == 1_563_008).all()


def test_random_starts_are_aligned_and_fit():
    first, end = stream_starts(1_000_000, 50, "random", np.random.default_rng(3))
    assert (first % 8 == 0).all() and (first + 128 <= 1_000_000).all()
    assert (end == 1_000_000).all()
    with pytest.raises(ValueError, match="less than one request"):
        stream_starts(1000, 100, "even")


def test_cycle_lbn_sweeps_up_and_wraps():
    class Head:
        last_lba = 600

    req = [simcore.Request(i, 0.0, "R", lba, 8) for i, lba in enumerate((500, 100, 900))]
    assert CycleLBN().choose(req, Head, 0.0).lba == 900
    Head.last_lba = 950
    assert CycleLBN().choose(req, Head, 0.0).lba == 100


# -- the runner against analytic limits ------------------------------------------------------

def test_one_stream_reads_at_the_outer_zone_media_rate():
    z = MECH.profile.zones[0]
    rev_ms = 60_000.0 / MECH.profile.rpm
    rate = z.sectors_per_track * 512 / (rev_ms * (1 + z.track_skew / z.sectors_per_track)) / 1e3
    r = run_streams(MECH, 1, duration_ms=1_500, warmup_ms=300)
    assert rate == pytest.approx(55.0, rel=0.01)  # the thesis measured "55 MBytes/s"
    assert r.throughput_mb_s == pytest.approx(rate, rel=0.01)


def _transfer_ms(kib: float) -> float:
    # the mean media time of ``kib`` over the whole disk (capacity-weighted zones)
    rev = 60_000.0 / MECH.profile.rpm
    z = MECH.profile.zones
    cyl = np.array([q.last_cylinder - q.first_cylinder + 1 for q in z])
    spt = np.array([q.sectors_per_track for q in z])
    w = cyl * spt / (cyl * spt).sum()
    return float((w * kib * 2 / spt * rev).sum())


def test_random_order_is_the_random_positioning_bound():
    ov = MECH.profile.overheads.read_miss_ms
    t = ov + MECH.profile.seek.average_ms + 60_000.0 / MECH.profile.rpm / 2 + _transfer_ms(64)
    bound = 64 * 1024 / 1e6 / (t / 1000)
    r = run_streams(MECH, 100, order="random", duration_ms=12_000, warmup_ms=2_000)
    assert bound == pytest.approx(4.35, abs=0.05)  # notes §4.3: "4.25 MiB/s" with flat 55 MiB/s
    assert r.throughput_mb_s == pytest.approx(bound, rel=0.1)
    assert r.cache_hits == 0  # 100 streams, 16 segments, read-ahead preempted: nothing hits


def test_lba_order_is_the_sorted_bound():
    ov = MECH.profile.overheads.read_miss_ms
    stroke = MECH.layout.cylinders // 100
    t = ov + MECH.seek.seek_ms(stroke) + 60_000.0 / MECH.profile.rpm / 2 + _transfer_ms(64)
    bound = 64 * 1024 / 1e6 / (t / 1000)
    r = run_streams(MECH, 100, order="lba", duration_ms=12_000, warmup_ms=2_000)
    assert r.throughput_mb_s == pytest.approx(bound, rel=0.1)
    assert r.throughput_mb_s > 1.6 * run_streams(MECH, 100, order="random", duration_ms=6_000,
                                                 warmup_ms=1_000).throughput_mb_s


def test_a_sorting_elevator_gives_the_sorted_bound_whatever_the_arrival_order():
    # seed 004's node ran Linux 2.6.11, whose anticipatory elevator sorts: a hundred waiting
    # 64 KiB reads arrive in random order and are still served in sweeps (one process, so AS
    # never idles for it)
    path = dict(path="block", elevator="anticipatory", depth=1)
    ov = MECH.profile.overheads.read_miss_ms
    stroke = MECH.layout.cylinders // 100
    t = ov + MECH.seek.seek_ms(stroke) + 60_000.0 / MECH.profile.rpm / 2 + _transfer_ms(64)
    bound = 64 * 1024 / 1e6 / (t / 1000)
    r = run_streams(MECH, 100, order="random", duration_ms=12_000, warmup_ms=2_000, **path)
    assert r.throughput_mb_s == pytest.approx(bound, rel=0.1)


def test_the_block_layer_never_merges_past_the_split_size():
    # max_sectors bounds both the split of a large read and the elevator's merges (Linux's
    # queue limit): two 256 KiB pieces of one 8 MiB read must not go out as one 512 KiB command
    r = run_streams(MECH, 2, host=DispatchConfig(8192, 16384), max_request_kib=256,
                    path="block", elevator="deadline", depth=1, duration_ms=2_000,
                    warmup_ms=500, trace=True)
    sizes = {n for _s, _f, _c, _lba, n, _hit in r.disk_log}
    assert max(sizes) == 512  # sectors: 256 KiB


def test_runs_are_reproducible_and_seeded():
    a = run_streams(MECH, 20, duration_ms=3_000, warmup_ms=500, seed=5)
    b = run_streams(MECH, 20, duration_ms=3_000, warmup_ms=500, seed=5)
    c = run_streams(MECH, 20, duration_ms=3_000, warmup_ms=500, seed=6)
    assert a.throughput_mb_s == b.throughput_mb_s and a.per_stream_mb_s == b.per_stream_mb_s
    assert a.per_stream_mb_s != c.per_stream_mb_s


def test_splitting_large_reads_does_not_change_the_result():
    # the block layer's max_sectors_kb split (256 KiB pieces issued together) against whole
    # 8 MiB commands: the drive streams the pieces back to back
    host = DispatchConfig(8192, 16384)
    kw = dict(streams=20, host=host, duration_ms=10_000, warmup_ms=2_000)
    whole = run_streams(MECH, max_request_kib=None, **kw).throughput_mb_s
    split = run_streams(MECH, max_request_kib=256, **kw).throughput_mb_s
    assert split == pytest.approx(whole, rel=0.02)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="host must be"):
        run_streams(MECH, 2, host="magic", duration_ms=10, warmup_ms=1)
    with pytest.raises(ValueError, match="warmup_ms"):
        run_streams(MECH, 2, duration_ms=10, warmup_ms=20)
    with pytest.raises(ValueError, match="order"):
        run_streams(MECH, 2, order="sideways", duration_ms=10, warmup_ms=1)


def test_trace_names_the_stream_of_every_disk_command():
    r = run_streams(MECH, 10, order="lba", duration_ms=1_000, warmup_ms=100, trace=True)
    spacing = MECH.layout.capacity // 10 // 8 * 8
    assert r.disk_log
    for start, finish, stream, lba, n, _hit in r.disk_log:
        assert finish >= start and lba // spacing == stream and n == 128


# -- the drive's segments (notes §5): the cliff at #streams = #segments ------------------------

def test_streams_beyond_segments_thrash_the_drive_cache():
    # Fig. 3.5: read-ahead that fills 512 KiB segments helps while 16 segments hold every
    # stream, and once there are more streams than segments each stream's segment is reclaimed
    # before it comes back: all misses, worse than no read-ahead at all
    def cache(ra=True):
        return (simcore.drive.cache.CacheConfig(size_kib=8192, segments=16, read_ahead="segment",
                                          min_read_ahead_kib=512) if ra else
                simcore.drive.cache.CacheConfig(size_kib=8192, segments=16, read_ahead="none"))

    kw = dict(starts="random", scheduler="cycle-lbn", duration_ms=8_000, warmup_ms=3_000)
    fit = run_streams(MECH, 16, cache=cache(), **kw)
    over = run_streams(MECH, 17, cache=cache(), **kw)
    none = run_streams(MECH, 17, cache=cache(False), **kw)
    assert fit.throughput_mb_s > 4 * over.throughput_mb_s
    assert over.throughput_mb_s < none.throughput_mb_s
    assert over.cache_hits == 0 and fit.cache_hits > 0.8 * fit.client_requests


# -- the controller cache ----------------------------------------------------------------------

def test_controller_read_ahead_turns_misses_into_hits():
    env = simpy.Environment()
    port = FixedPort(env, 10.0)
    cc = ControllerCache(env, port, ControllerCacheConfig(size_mib=16, read_ahead_kib=1024))
    got = run_clients(cc, env, [0], until_ms=1_000, stop_after=34)
    assert got[0] == 34 * 64 * 1024
    # 64 KiB + 1 MiB per disk read: 17 client requests each, 16 of them hits
    assert [n for _, _, n in port.reads] == [17 * 128, 17 * 128]
    assert cc.stats["hits"] == 32 and cc.stats["misses"] == 2


def test_controller_cache_collapses_when_read_ahead_outgrows_it():
    # Fig. 3.6: 4 streams x (1 MiB + 64 KiB) fit in 8 MiB, 4 x (4 MiB + 64 KiB) do not fit in
    # 8 MiB: read-ahead is evicted before its stream comes back, and read again
    def run(ra_kib):
        env = simpy.Environment()
        port = FixedPort(env, 5.0)
        cc = ControllerCache(env, port, ControllerCacheConfig(size_mib=8, read_ahead_kib=ra_kib))
        got = run_clients(cc, env, [i * 10_000_000 for i in range(4)], until_ms=2_000)
        return sum(got), cc.stats

    fits, s1 = run(1024)
    spills, s4 = run(4096)
    assert s1["evicted_unused"] == 0
    assert s4["evicted_unused"] > 0
    assert spills < fits / 2


def test_free_behind_keeps_prefetched_lines():
    cfg = dict(size_mib=8, read_ahead_kib=1536)  # 6 streams x (1.5 MiB + 64 KiB) < 10 MiB...

    def unused(free_behind):
        env = simpy.Environment()
        port = FixedPort(env, 5.0)
        cc = ControllerCache(env, port, ControllerCacheConfig(free_behind=free_behind, **cfg))
        run_clients(cc, env, [i * 10_000_000 for i in range(4)], until_ms=2_000)
        return cc.stats["evicted_unused"]

    assert unused(True) == 0  # ...4 x 1.56 MiB fit in 8 MiB when consumed lines go first
    assert unused(False) > 0  # plain LRU keeps consumed lines and drops prefetched ones


# -- Linux-like read-ahead windows ----------------------------------------------------------------

def test_linux_window_sizes():
    # mm/readahead.c get_init_ra_size / get_next_ra_size (pages of 4 KiB)
    assert init_ra_size(16, 32) == 32  # a 64 KiB read, read_ahead_kb = 128: the whole 128 KiB
    assert init_ra_size(1, 32) == 4
    assert init_ra_size(2, 32) == 4
    assert init_ra_size(16, 2048) == 64  # 64 KiB read, 8 MiB maximum: 256 KiB first
    assert next_ra_size(4, 32) == 8
    assert next_ra_size(64, 2048) == 256  # x4 below max/16
    assert next_ra_size(256, 2048) == 512  # x2 above
    assert next_ra_size(1024, 2048) == 2048


def test_readahead_window_ramps_up_to_the_maximum():
    env = simpy.Environment()
    port = FixedPort(env, 1.0)
    host = ReadaheadHost(env, port, ReadaheadConfig(read_ahead_kb=8192, max_sectors_kb=1 << 20))
    run_clients(host, env, [0], until_ms=500, stop_after=400)
    sizes = [n for _, _, n in port.reads]
    assert sizes[:6] == [512, 2048, 4096, 8192, 16384, 16384]
    lbas = [lba for _, lba, _ in port.reads]
    assert all(b - a == n for (a, n), b in zip(zip(lbas, sizes, strict=False), lbas[1:],
                                              strict=False))


def test_readahead_off_sends_requests_as_they_are():
    env = simpy.Environment()
    port = FixedPort(env, 1.0)
    host = ReadaheadHost(env, port, ReadaheadConfig(read_ahead_kb=0))
    run_clients(host, env, [0], until_ms=100, stop_after=10)
    assert [n for _, _, n in port.reads] == [REQ] * 10


def test_kernel_read_ahead_helps_many_streams():
    direct = run_streams(MECH, 100, duration_ms=8_000, warmup_ms=2_000)
    ra = run_streams(MECH, 100, host=ReadaheadConfig(512), duration_ms=8_000, warmup_ms=2_000)
    assert ra.throughput_mb_s > 4 * direct.throughput_mb_s
    assert ra.host["peak_cached_bytes"] <= 100 * 2 * 512 * 1024


# -- the thesis's clients: a fixed number of requests per stream (§5, p. 32) -------------------

def test_a_request_count_measures_each_stream_over_its_whole_life():
    # a closed loop with one request outstanding: a stream's life is the sum of its response
    # times plus the client's delay between them, so its mean response and its throughput
    # follow from its life exactly; the disk's throughput is the sum of the streams'
    k, rtt = 300, 0.2
    r = run_streams(MECH, 3, request_kib=64, client_rtt_ms=rtt, duration_ms=60_000,
                    warmup_ms=0, requests_per_stream=k)
    assert r.client_requests == 3 * k
    lives = [k * 65536 / 1e6 / mb_s * 1000 for mb_s in r.per_stream_mb_s]
    for life, mean in zip(lives, r.per_stream_response_ms, strict=True):
        offset = 0.002  # the clients start a microsecond apart
        assert life == pytest.approx(k * mean + (k - 1) * rtt, abs=offset)
    assert r.throughput_mb_s == pytest.approx(sum(r.per_stream_mb_s))
    assert r.window_ms == pytest.approx(max(lives), abs=0.01)  # the run ends with its last stream
    # the running means: over the first k requests, the count itself included
    assert sorted(r.response_by_count) == [1, 2, 4, 8, 16, 32, 64, 128, 256, k]
    assert r.response_by_count[k] == pytest.approx(r.per_stream_response_ms)


def test_a_request_count_refuses_a_warm_up_and_a_short_limit():
    with pytest.raises(ValueError, match="warmup_ms must be 0"):
        run_streams(MECH, 2, duration_ms=1_000, warmup_ms=100, requests_per_stream=10)
    with pytest.raises(ValueError, match="requests_per_stream must be a positive"):
        run_streams(MECH, 2, duration_ms=1_000, warmup_ms=0, requests_per_stream=0)
    with pytest.raises(ValueError, match="duration_ms=50"):
        run_streams(MECH, 2, duration_ms=50, warmup_ms=0, requests_per_stream=1_000)


def test_round_robin_evens_out_the_streams_over_their_whole_runs():
    # D = 1 of 10 streams, R = 1 MiB (16 requests per visit). Over a stream's first visit its
    # one long wait is its place in the first round, so the means spread widely; over 64
    # visits every stream has waited 63 full rounds plus its first, and they nearly agree.
    # The first two requests go to the disk as they are while the classifier learns the
    # stream, so 2 + 16 x 64 requests end exactly at a buffer's end.
    kw = dict(host=DispatchConfig(1024, 1024), client_rtt_ms=0.2, duration_ms=600_000,
              warmup_ms=0)
    r = run_streams(MECH, 10, requests_per_stream=2 + 16 * 64, **kw)
    cv = {n: float(np.std(v) / np.mean(v)) for n, v in r.response_by_count.items()}
    assert cv[16] > 0.15
    assert cv[2 + 16 * 64] < 0.01
    assert r.host["timeouts"] == 0
    # two requests fewer: each stream stops two requests short of its last buffer's end, the
    # server cannot know it stopped, and the buffer holds all of M (D = 1) until the timeout,
    # once per stream but the last (the run ends with it); the streams that finish last wait
    # for the others' timeouts
    short = run_streams(MECH, 10, requests_per_stream=16 * 64, **kw)
    assert short.host["timeouts"] == 9
    late = np.std(short.per_stream_response_ms) / np.mean(short.per_stream_response_ms)
    assert late > 10 * cv[2 + 16 * 64]
    timeout_s = DispatchConfig(1024, 1024).timeout_ms / 1000.0
    assert short.window_ms / 1000.0 > r.window_ms / 1000.0 + 9 * timeout_s
