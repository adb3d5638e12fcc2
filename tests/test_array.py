"""RAID-0 and RAID-5 striping: hand-computed maps, the small-write penalty, parallelism.

Sources: seed 001 §3.3 (the paper's arrays), Patterson, Gibson & Katz 1988 for
the read-modify-write small write (4 I/Os), the Linux md left-symmetric layout.
"""

from __future__ import annotations

import pytest
import simpy

from simcore.host.array import build_array
from simcore.host.host import BlockLayer
from simcore.records import READ, WRITE, Request


def make(drives=4, level=0, stripe_kib=64, disk="cheetahx15"):
    env = simpy.Environment()
    return env, build_array(env, disk, drives, level=level, stripe_kib=stripe_kib)


def test_raid0_map_hand_computed():
    _env, a = make(4, 0, 64)  # unit = 128 sectors
    assert a.locate(0) == (0, 0)
    assert a.locate(127) == (0, 127)
    assert a.locate(128) == (1, 0)
    assert a.locate(4 * 128) == (0, 128)          # row 1 starts back on drive 0
    assert a.locate(5 * 128 + 3) == (1, 131)
    assert a.capacity == 4 * a.rows * 128


def test_raid5_left_symmetric_parity_rotates():
    _env, a = make(5, 5, 64)
    assert [a.parity_disk(r) for r in range(6)] == [4, 3, 2, 1, 0, 4]
    # row 0: data on 0,1,2,3; row 1: parity on 3, data starts after it on 4, then 0,1,2
    assert [a.locate(128 * k)[0] for k in range(8)] == [0, 1, 2, 3, 4, 0, 1, 2]
    assert a.locate(128 * 4) == (4, 128)
    assert a.capacity == 4 * a.rows * 128


def _children(env, a, req):
    ops = []
    for index, d in enumerate(a.drives):
        orig = d.submit

        def spy(r, orig=orig, k=index):
            ops.append((k, r.op, r.lba, r.sectors))
            orig(r)

        d.submit = spy
    a.submit(req)
    env.run()
    return ops


def test_raid5_small_write_is_read_modify_write():
    env, a = make(5, 5, 64)
    ops = _children(env, a, Request(0, 0.0, WRITE, 8, 8))
    assert sorted(ops) == sorted([(0, READ, 8, 8), (4, READ, 8, 8),
                                  (0, WRITE, 8, 8), (4, WRITE, 8, 8)])
    assert len(a.completed) == 1


def test_raid5_full_stripe_write_needs_no_reads():
    env, a = make(5, 5, 64)
    ops = _children(env, a, Request(0, 0.0, WRITE, 0, 4 * 128))
    assert all(op == WRITE for _, op, _, _ in ops) and len(ops) == 5
    assert (4, WRITE, 0, 128) in ops  # the parity chunk


def test_raid5_read_touches_only_data():
    env, a = make(5, 5, 64)
    ops = _children(env, a, Request(0, 0.0, READ, 0, 4 * 128))
    assert sorted(k for k, *_ in ops) == [0, 1, 2, 3]


def test_striping_reads_in_parallel():
    """A 1 MiB read striped over 8 drives takes far less than on one drive."""
    def time_for(drives):
        env, a = make(drives, 0, 64)
        host = BlockLayer(env, a, "noop", max_sectors=2048)
        ev = host.read(1, 0, 2048)
        env.run(until=ev)
        return env.now

    one, eight = time_for(1), time_for(8)
    assert eight < one / 3


def test_out_of_range_is_refused():
    env, a = make(3, 0, 64)
    with pytest.raises(ValueError, match="outside the array"):
        a.locate(a.capacity)
    with pytest.raises(ValueError, match="RAID-5 needs at least 3"):
        build_array(env, "cheetahx15", 2, level=5)


def test_host_link_adds_bytes_over_rate_and_serialises():
    """Seed 001 §5.3: the RAID-0's data crosses one host link (180 MB/s there).

    Hand computation at 100 MB/s: a 64 KiB read (one stripe unit, one member)
    crosses in 65,536 B / 100 MB/s = 0.65536 ms after the member delivers it;
    two such reads on different members that finish together share the link
    one after the other, so the second completes one crossing later.
    """
    def finish_times(link, lbas):
        env = simpy.Environment()
        a = build_array(env, "cheetahx15", 4, level=0, stripe_kib=64, link_mb_s=link)
        done = {}
        a.on_complete = lambda rec: done.__setitem__(rec.id, (rec.finish_ms, rec.start_ms))
        for k, lba in enumerate(lbas):
            a.submit(Request(k, 0.0, READ, lba, 128))
        env.run()
        return done, a

    free, _ = finish_times(None, [0])
    linked, _ = finish_times(100.0, [0])
    assert linked[0][0] == pytest.approx(free[0][0] + 0.65536, abs=1e-9)
    two_free, _ = finish_times(None, [0, 128])
    two, _ = finish_times(100.0, [0, 128])
    first, second = sorted(two.values())
    m1, m2 = sorted(v[0] for v in two_free.values())
    assert first[0] == pytest.approx(m1 + 0.65536, abs=1e-9)
    assert second[0] == pytest.approx(max(m2, m1 + 0.65536) + 0.65536, abs=1e-9)


def test_host_link_rate_is_checked():
    env = simpy.Environment()
    for bad in (0, -5, "fast", True):
        with pytest.raises(ValueError, match="link_mb_s"):
            build_array(env, "cheetahx15", 2, level=0, link_mb_s=bad)
