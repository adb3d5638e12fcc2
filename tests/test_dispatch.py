"""The thesis's host scheme (Panagiotakis 2006, Chapter 4; notes 004 §3): classifier bitmaps,
the dispatch set, staging with timeout and garbage collection, and the rule M >= D*R*N.

Most checks run the scheme over a hand-computable device: one read at a time, each taking a
fixed time, so every throughput below is arithmetic on paper.
"""

from __future__ import annotations

import itertools

import pytest
import simpy
from helpers_multistream import REQ, FixedPort, run_clients

from simcore.host.dispatch import Classifier, DispatchConfig, DispatchHost

MIB_KIB = 1024


# -- configuration: the memory rule -----------------------------------------------------------

def test_memory_rule_refuses_m_below_d_r_n():
    # thesis §4.3: "in all configurations and during system operation, M >= D * R * N"
    with pytest.raises(ValueError, match="M >= D·R·N"):
        DispatchConfig(read_ahead_kib=8 * MIB_KIB, memory_kib=16 * MIB_KIB, dispatch=3)
    with pytest.raises(ValueError, match="less than one visit"):
        DispatchConfig(read_ahead_kib=512, memory_kib=32 * MIB_KIB, per_visit=128)


def test_d_is_m_over_r_n():
    # thesis §5.2: "readahead of 8 MBytes ... 16 MBytes of memory ... only 2 streams"
    assert DispatchConfig(8 * MIB_KIB, 16 * MIB_KIB).resolved(100) == (2, 16 * MIB_KIB)
    # §5.5 / Fig. 5.5: R = 512 KiB, D = 1, N = 128 needs M = 64 MiB
    cfg = DispatchConfig(512, None, dispatch=1, per_visit=128)
    assert cfg.resolved(100) == (1, 64 * MIB_KIB)
    # all streams active (Fig. 5.1: M = S*R*N, S = D): 100 x 8 MiB = 800 MiB
    assert DispatchConfig(8 * MIB_KIB, None).resolved(100) == (100, 800 * MIB_KIB)


# -- classification -----------------------------------------------------------------------------

def test_classifier_needs_threshold_adjacent_requests():
    c = Classifier(block_sectors=8, offset_blocks=32, threshold=3, interval_ms=1000)
    assert not c.observe(1000, REQ, 0.0)
    assert not c.observe(1000 + REQ, REQ, 1.0)
    assert c.observe(1000 + 2 * REQ, REQ, 2.0)  # third adjacent request: a stream
    assert c.bits_set(1000) > 0


def test_classifier_ignores_scattered_and_stale_requests():
    c = Classifier(8, 32, 3, interval_ms=1000)
    assert not c.observe(0, REQ, 0.0)
    assert not c.observe(10 * REQ, REQ, 1.0)  # same region, not adjacent
    assert not c.observe(REQ, REQ, 2.0)  # adjacent to the first: only 2 in the chain
    c2 = Classifier(8, 32, 3, interval_ms=10)
    c2.observe(0, REQ, 0.0)
    c2.observe(REQ, REQ, 100.0)
    assert not c2.observe(2 * REQ, REQ, 200.0)  # the first is older than the interval


def test_classifier_forgets_stale_bitmaps():
    c = Classifier(8, 32, 3, 1000)
    c.observe(0, REQ, 0.0)
    c.observe(1 << 20, REQ, 5000.0)
    assert c.forget(older_than_ms=1000.0) == 1
    assert len(c.regions) == 1


# -- dispatching and staging, by hand -------------------------------------------------------------

def _host(env, port, **cfg):
    cfg.setdefault("interval_ms", 10_000.0)
    return DispatchHost(env, port, DispatchConfig(**cfg), streams=4)


def test_disk_sees_r_sized_reads_and_at_most_d_outstanding():
    env = simpy.Environment()
    port = FixedPort(env, 100.0)
    host = _host(env, port, read_ahead_kib=8 * MIB_KIB, memory_kib=16 * MIB_KIB)
    starts = [i * 10_000_000 for i in range(4)]
    run_clients(host, env, starts, until_ms=5_000)
    big = [r for r in port.reads if r[2] == 16384]
    small = [r for r in port.reads if r[2] == REQ]
    assert len(small) == 2 * 4  # two direct requests per stream before it is recognised
    assert len(big) >= 40
    assert host.stats["peak_memory_bytes"] <= host.M == 16 << 20
    # each stream's reads follow on from its previous one
    by_stream: dict[int, list[int]] = {}
    for _, lba, _ in big:
        by_stream.setdefault(lba // 10_000_000, []).append(lba)
    for lbas in by_stream.values():
        assert all(b - a == 16384 for a, b in itertools.pairwise(lbas))


def test_double_buffering_keeps_the_disk_busy_and_d1_waits_for_the_client():
    # A 100 ms disk read of 8 MiB feeds 128 client requests 0.2 ms apart: with M = 2R (D = 2)
    # the next read overlaps the draining, so one read per 100 ms; with M = R (D = 1) the next
    # stream may start only when the buffer is drained: 100 + 127 x 0.2 = 125.4 ms per read.
    rates = {}
    for m in (16, 8):
        env = simpy.Environment()
        port = FixedPort(env, 100.0)
        host = _host(env, port, read_ahead_kib=8 * MIB_KIB, memory_kib=m * MIB_KIB)
        got = run_clients(host, env, [i * 10_000_000 for i in range(4)], until_ms=22_000,
                          rtt_ms=0.2, from_ms=2_000)
        rates[m] = sum(got) / 20_000  # bytes per ms
    per_read = 8 << 20
    assert rates[16] == pytest.approx(per_read / 100.0, rel=0.01)
    assert rates[8] == pytest.approx(per_read / 125.4, rel=0.01)


def test_round_robin_serves_streams_equally():
    env = simpy.Environment()
    port = FixedPort(env, 50.0)
    host = _host(env, port, read_ahead_kib=1024, memory_kib=1024, dispatch=1)
    got = run_clients(host, env, [i * 10_000_000 for i in range(4)], until_ms=20_000)
    assert max(got) - min(got) <= 2 * (1 << 20)  # within two visits of each other


def test_n_reads_per_visit():
    env = simpy.Environment()
    port = FixedPort(env, 10.0)
    host = _host(env, port, read_ahead_kib=512, memory_kib=None, dispatch=1, per_visit=8)
    run_clients(host, env, [i * 10_000_000 for i in range(3)], until_ms=3_000)
    big = [lba // 10_000_000 for _, lba, n in port.reads if n == 1024]
    # streams take turns of 8 reads each (after the first visits)
    runs = []
    for s in big:
        if runs and runs[-1][0] == s:
            runs[-1][1] += 1
        else:
            runs.append([s, 1])
    assert all(k == 8 for _, k in runs[1:-1])


def test_timeout_frees_a_stopped_clients_buffer():
    # a client that stops halfway through its buffer: the GC returns the memory after the timeout
    env = simpy.Environment()
    port = FixedPort(env, 10.0)
    host = _host(env, port, read_ahead_kib=1024, memory_kib=1024, timeout_ms=500.0,
                 gc_period_ms=100.0)
    run_clients(host, env, [0], until_ms=100.0, stop_after=5)
    assert host.memory_in_use == 1 << 20  # 2 direct requests, then a 1 MiB buffer, 3 consumed
    env.run(until=1_000.0)
    assert host.memory_in_use == 0
    assert host.stats["timeouts"] == 1
    assert not host.streams


def test_non_sequential_requests_go_to_the_disk_as_they_are():
    env = simpy.Environment()
    port = FixedPort(env, 5.0)
    host = _host(env, port, read_ahead_kib=1024, memory_kib=4096)
    done = []

    def scattered():
        for k in range(20):
            yield host.read(0, (k * 7919 % 97) * 100_000, 16)
            done.append(k)

    env.process(scattered())
    env.run(until=1_000)
    assert len(done) == 20
    assert host.stats["direct"] == 20 and host.stats["streams"] == 0
    assert all(n == 16 for _, _, n in port.reads)


def test_reads_stop_at_the_end_of_the_disk():
    # a stream near the disk's end: its R-sized read would run past the last sector
    env = simpy.Environment()
    port = FixedPort(env, 10.0)
    cap = 1_000_000
    host = DispatchHost(env, port, DispatchConfig(read_ahead_kib=1024, memory_kib=1024,
                                                  interval_ms=10_000.0),
                        streams=1, capacity_sectors=cap)
    run_clients(host, env, [cap - 12 * REQ], until_ms=1_000, stop_after=12)
    assert max(lba + n for _, lba, n in port.reads) == cap
    assert any(n < 2048 for _, lba, n in port.reads if lba + n == cap)  # a shortened read
    # and the part of M it did not use is not lost: all of M is free once the data is read
    assert host.memory_in_use == 0 and host.free == host.M
