"""The block layer and the Linux elevators: hand-worked dispatch orders and the kernel rules.

Sources: seed 001 note §2.0 (merging, ``nr_requests`` per direction), §2.2
(2.6.4 deadline pseudo-code: batches, ``writes_starved``, FIFO expiry), §2.3
(2.6.4 anticipatory: waits for the last reader, breaks on its next request,
``antic_expire = 0`` disables it), §2.4 (CFQ rounds of ``quantum``).
"""

from __future__ import annotations

import simpy

from simcore.host.host import BlockLayer, IdleReadahead
from simcore.records import READ, WRITE, Completed
from simcore.sched.linux import get_elevator, names


class FakeDevice:
    """Serves requests FIFO in a fixed time, one at a time; records the order it got them."""

    def __init__(self, env, service_ms=1.0):
        self.env, self.service_ms = env, service_ms
        self.on_complete = None
        self.got = []
        self.busy_until = 0.0
        self.max_outstanding = self.outstanding = 0

    def submit(self, req):
        self.got.append(req)
        self.outstanding += 1
        self.max_outstanding = max(self.max_outstanding, self.outstanding)
        start = max(self.env.now, self.busy_until)
        self.busy_until = start + self.service_ms
        self.env.process(self._done(req, start, self.busy_until))

    def _done(self, req, start, end):
        yield self.env.timeout(end - self.env.now)
        self.outstanding -= 1
        self.on_complete(Completed(req.id, req.op, req.lba, req.sectors, req.arrival_ms, start,
                                   end, start - req.arrival_ms, 0, 0, 0, end - start, 0,
                                   end - req.arrival_ms, req.client))


def setup(elevator="noop", service_ms=1.0, **kw):
    env = simpy.Environment()
    dev = FakeDevice(env, service_ms)
    return env, dev, BlockLayer(env, dev, elevator, **kw)


def test_every_elevator_serves_everything_once():
    for name in names():
        env, _dev, host = setup(name, depth=4)
        evs = [host.submit(10 + k % 3, READ if k % 4 else WRITE, 1000 * ((k * 7) % 13), 8)
               for k in range(40)]
        env.run(until=env.all_of(evs))
        env.run(until=env.now + 200)  # let idling timers run out
        assert sorted(r.id for r in host.records) == list(range(40)), name
        assert host.in_flight == 0 and host.queued == 0, name


def test_back_and_front_merges():
    env, dev, host = setup("noop", service_ms=5.0)
    host.read(1, 0, 8)        # goes straight to the device
    host.read(1, 100, 8)      # queued
    host.read(2, 108, 8)      # back merge into 100..107
    host.read(3, 92, 8)       # front merge: ends where 100 starts
    env.run()
    assert host.counters["back_merges"] == 1 and host.counters["front_merges"] == 1
    assert [(r.lba, r.sectors) for r in dev.got] == [(0, 8), (92, 24)]
    assert len(host.records) == 4  # every bio completes, merged or not


def test_no_front_merge_when_disabled():
    env, _dev, host = setup("deadline", service_ms=5.0, front_merges=False)
    host.read(1, 0, 8)
    host.read(1, 100, 8)
    host.read(3, 92, 8)
    env.run()
    assert host.counters["front_merges"] == 0


def test_nr_requests_blocks_producers_per_direction():
    env, _dev, host = setup("noop", service_ms=1.0, nr_requests=4)
    writes = [host.write(1, 1000 * k, 8) for k in range(10)]  # not contiguous: no merging
    read = host.read(2, 50_000, 8)
    assert host.allocated[1] == 4 and host.counters["blocked"] == 6
    assert host.allocated[0] == 1  # reads have their own limit
    env.run(until=env.all_of([*writes, read]))
    assert len(host.records) == 11


def test_depth_is_honoured():
    env, dev, host = setup("noop", depth=3)
    evs = [host.read(k, 1000 * k, 8) for k in range(10)]
    env.run(until=env.all_of(evs))
    assert dev.max_outstanding == 3


def test_deadline_hand_worked_order():
    """Note 001 §2.2 pseudo-code, traced by hand.

    At t=0 reads at 500, 100, 300, 400 and a write at 200 arrive (500 goes out at
    once). Then: no batch to continue, reads win (starved 0 -> 1) and the sweep
    starts at the lowest read, 100; 300 is not contiguous, so the batch ends and
    reads win again (starved 1 -> 2); next the writes have been passed over
    twice: the write at 200; then the last read, 400.
    """
    env, dev, host = setup("deadline", service_ms=1.0)
    for lba, op in [(500, READ), (100, READ), (300, READ), (200, WRITE), (400, READ)]:
        host.submit(1, op, lba, 8)
    env.run()
    assert [r.lba for r in dev.got] == [500, 100, 300, 200, 400]


def test_deadline_contiguous_batch_continues():
    """Contiguous reads ride the batch; the first seek ends it and reads win the decision
    (starved 0 -> 1), so the read at 2000 still goes before the write at 4000."""
    env, dev, host = setup("deadline", service_ms=1.0, fifo_batch=16, merge=False)
    host.read(1, 0, 8)
    for lba in (8, 16, 24, 32):
        host.read(2, lba, 8)
    host.write(3, 4000, 8)
    host.read(4, 2000, 8)
    env.run()
    assert [(r.op, r.lba) for r in dev.got] == [
        ("R", 0), ("R", 8), ("R", 16), ("R", 24), ("R", 32), ("R", 2000), ("W", 4000)]


def test_mq_deadline_batches_by_count_not_contiguity():
    """mq-deadline: the same arrivals as the hand-worked 2.6.4 order above.

    Since Linux 2.6.28 ("deadline-iosched: allow non-sequential batching") a batch runs
    ``fifo_batch`` requests in ascending sector order, gaps or not, and mq-deadline kept that
    (its dispatch continues while ``batching < fifo_batch``). So 100, 300 and 400 go as one
    read batch and the write waits for it; 2.6.4 deadline ended the batch at the gap after
    100 and sent the write before 400.
    """
    env, dev, host = setup("mq-deadline", service_ms=1.0)
    for lba, op in [(500, READ), (100, READ), (300, READ), (200, WRITE), (400, READ)]:
        host.submit(1, op, lba, 8)
    env.run()
    assert [r.lba for r in dev.got] == [500, 100, 300, 400, 200]


def test_mq_deadline_batch_length_is_fifo_batch():
    """With fifo_batch = 2: reads go two by two in sector order; after writes_starved = 2 read
    batches the write goes; 2.6.4 deadline switches at the first gap instead."""
    order = {}
    for name in ("deadline", "mq-deadline"):
        env, dev, host = setup(name, service_ms=1.0, fifo_batch=2, merge=False)
        host.read(1, 0, 8)  # goes out at once
        for lba in (100, 300, 500, 700):
            host.read(2, lba, 8)
        host.write(3, 200, 8)
        host.read(2, 900, 8)
        env.run()
        order[name] = [(r.op, r.lba) for r in dev.got]
    assert order["mq-deadline"] == [("R", 0), ("R", 100), ("R", 300), ("R", 500), ("R", 700),
                                    ("W", 200), ("R", 900)]
    assert order["deadline"] == [("R", 0), ("R", 100), ("R", 300), ("W", 200), ("R", 500),
                                 ("R", 700), ("R", 900)]


def test_mq_deadline_new_batch_starts_at_the_earliest_deadline():
    """A batch with no next request in sort order starts at the FIFO head (2.6.24, "Deadline
    iosched: Fix batching fairness"), not at the lowest sector as 2.6.4 did."""
    order = {}
    for name in ("deadline", "mq-deadline"):
        env, dev, host = setup(name, service_ms=1.0, merge=False)
        host.read(1, 0, 8)  # goes out at once
        for lba in (5000, 1000, 3000):  # arrival order
            host.write(2, lba, 8)
        env.run()
        order[name] = [r.lba for r in dev.got]
    assert order["deadline"] == [0, 1000, 3000, 5000]
    assert order["mq-deadline"] == [0, 5000, 1000, 3000]


def test_deadline_read_expiry_bounds_waiting():
    """A far read waits at most about read_expire while near reads keep coming."""
    env, _dev, host = setup("deadline", service_ms=2.0, merge=False)
    far = host.read(9, 10_000_000, 8)

    def stream():
        k = 0
        while env.now < 3000:
            host.read(1, 8 * (k % 50), 8)
            k += 1
            yield env.timeout(1.0)

    env.process(stream())
    env.run(until=far)
    assert far.value.response_ms < 500 + 50


def test_anticipatory_waits_for_the_same_reader():
    """Two readers far apart, each reading on: AS keeps serving one of them (note §2.3)."""
    def run(**kw):
        env, dev, host = setup("anticipatory", service_ms=1.0, depth=4, **kw)

        def reader(pid, base):
            for k in range(20):
                yield host.read(pid, base + 8 * k, 8)
                yield env.timeout(0.2)

        env.process(reader(1, 0))
        env.process(reader(2, 50_000_000))
        env.run(until=200)
        switches = sum(a.client != b.client for a, b in zip(dev.got, dev.got[1:], strict=False))
        return switches, host.elevator.stats

    switches, stats = run()
    assert stats["antic_started"] > 0 and stats["antic_broken"] > 0
    assert switches <= 4  # long runs of one reader (read_expire forces an occasional switch)
    switches0, stats0 = run(antic_expire=0)
    assert stats0["antic_started"] == 0
    assert switches0 > 20  # without anticipation the two alternate


def test_anticipation_times_out_without_a_next_request():
    env, _dev, host = setup("anticipatory", service_ms=1.0, trace=True)
    host.read(1, 0, 8)
    host.read(2, 9_000_000, 8)
    env.run()
    kinds = [e.kind for e in host.events]
    assert "antic-start" in kinds
    stop = next(e for e in host.events if e.kind == "antic-stop")
    assert stop.note == "timeout" and stop.time_ms == 1.0 + 6.0  # completion + antic_expire
    assert host.records[-1].finish_ms == 8.0


def test_cfq_rounds_per_process_and_per_thread_group():
    """pid key: each pass takes one request per busy queue until a quantum (4) has moved,
    sorted one-way from the head; tgid key: both threads share one queue (note §2.4)."""
    def got(key):
        env, dev, host = setup("cfq", service_ms=1.0, key=key, quantum=4)
        host.read(1, 0, 8)  # out at once
        for k in range(3):
            host.read(1, 1000 + 16 * k, 8, tgid=7)
            host.read(2, 500_000 + 16 * k, 8, tgid=7)
        env.run()
        return [r.lba for r in dev.got]

    assert got("pid") == [0, 1000, 1016, 500_000, 500_016, 500_032, 1032]
    assert got("tgid") == [0, 1000, 1016, 1032, 500_000, 500_016, 500_032]


def test_unknown_elevator_and_tunable():
    import pytest

    with pytest.raises(ValueError, match="unknown I/O scheduler"):
        get_elevator("bogus")
    with pytest.raises(ValueError, match="unknown tunable"):
        get_elevator("deadline", antic_expire=3)


def test_idle_readahead_streams_a_paused_reader():
    """A sequential reader that pauses 0.2 ms loses no revolution with read-ahead, a whole one
    without it (Gray 2000 §2.10)."""
    from simcore.disk.access import Mechanism
    from simcore.disk.profile_loader import load_disk
    from simcore.drive.drive import Drive

    mech = Mechanism(load_disk("cheetahx15"))

    def per_request(service):
        env = simpy.Environment()
        drive = Drive(env, mech, "fcfs", service=service(mech) if service else None)
        host = BlockLayer(env, drive, "noop")

        def reader():
            for k in range(30):
                yield host.read(1, 256 * k, 256)
                yield env.timeout(0.2)

        env.run(until=env.process(reader()))
        return (env.now - 30 * 0.2) / 30

    stream = per_request(IdleReadahead)
    plain = per_request(None)
    media = 256 * mech.rev_ms / 386  # 256 sectors of a 386-sector outer track
    assert stream < 1.25 * media
    assert plain > stream + 0.6 * mech.rev_ms
