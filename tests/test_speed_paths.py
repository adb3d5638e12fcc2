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
from simcore.disk.profiles import load_disk
from simcore.drive.firmware_events import FirmwareEvents
from simcore.engine import _feed_open, run, start
from simcore.records import READ, WRITE, Completed, Request
from simcore.stack import stack
from simcore.workloads import OpenWorkload, random_open, sequential_open
from simcore.workloads.traces import disksim


def _by_simpy(stk, requests):
    built = start(stk)
    env = built.env
    env.process(_feed_open(env, built.top, requests))
    env.run()
    return built.completed, built.busy_ms, env.now


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
