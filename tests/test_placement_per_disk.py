"""Per-disk zones on an array (seed 003 §3.6.2's advice): the disk-major numbering."""

from __future__ import annotations

import numpy as np
import pytest
import simpy

from simcore.host.array import build_array
from simcore.placement import ALIS, DiskMajor, fold, record_columns, rewrite_per_disk
from simcore.records import READ, Request
from simcore.workloads import OpenWorkload


def _array(level, drives=5, unit=4):
    return build_array(simpy.Environment(), "toy", drives, level=level, stripe_kib=unit / 2)


@pytest.mark.parametrize("level", [0, 5])
def test_disk_major_is_a_bijection_that_keeps_each_sector_on_its_disk(level):
    arr = _array(level)
    dm = DiskMajor(len(arr.drives), arr.unit, arr.rows, level)
    lbas = np.arange(dm.capacity)
    d = dm.to_disk_major(lbas)
    assert sorted(d.tolist()) == lbas.tolist()  # every data sector once
    assert (dm.to_array(d) == lbas).all()
    per_disk = dm.units_per_disk * dm.unit
    for x, y in zip(lbas.tolist(), d.tolist(), strict=True):
        assert y // per_disk == arr.locate(x)[0]
    # along one disk, disk-major order is the disk's own order (parity units skipped)
    for disk in range(dm.n):
        offs = [arr.locate(int(a))[1] for a in dm.to_array(np.arange(disk * per_disk,
                                                                      (disk + 1) * per_disk))]
        assert offs == sorted(offs)


def test_raid5_hand_case():
    # 3 drives, 1-sector units: row 0 parity on disk 2 (data on 0, 1); row 1 parity on disk 1
    # (data on 2, 0); row 2 parity on disk 0 (data on 1, 2)
    dm = DiskMajor(3, 1, 3, 5)
    assert dm.units_per_disk == 2 and dm.capacity == 6
    # array sectors 0..5 sit on disks 0, 1, 2, 0, 1, 2; disk 0 holds 0 then 3
    assert dm.to_disk_major(np.arange(6)).tolist() == [0, 2, 4, 1, 3, 5]


def test_rewrite_per_disk_keeps_requests_and_refuses_straddlers():
    arr = _array(5, drives=4, unit=8)
    dm = DiskMajor(4, arr.unit, arr.rows, 5)
    reqs = [Request(i, i * 50.0, READ, (i * 37 % 12) * 8, 8) for i in range(200)]
    wl = OpenWorkload(reqs, "hot")
    placed = rewrite_per_disk(wl, ALIS(spacing=32), dm, 8, 2_000.0)
    assert placed.logical is wl
    fg = placed.parent[placed.parent >= 0]
    assert sorted(set(fg.tolist())) == list(range(200))
    for r in placed.workload.requests:  # every piece inside one stripe unit of the array
        assert r.lba // arr.unit == (r.lba + r.sectors - 1) // arr.unit
    # replays on the array and folds back to one response per trace request
    env = simpy.Environment()
    a = build_array(env, "toy", 4, level=5, stripe_kib=4.0)
    for r in placed.workload.requests:
        env.process(_submit_at(env, a, r))
    env.run()
    f = fold(record_columns(a.completed), placed)
    assert np.isfinite(f["response_ms"]).all() and (f["response_ms"] > 0).all()
    with pytest.raises(ValueError, match="crosses"):
        rewrite_per_disk(OpenWorkload([Request(0, 0.0, READ, 4, 8)], "bad"), ALIS(), dm, 8,
                         1000.0)


def _submit_at(env, arr, r):
    yield env.timeout(r.arrival_ms - env.now)
    arr.submit(r)
