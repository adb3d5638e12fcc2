"""The scheduling contract (STYLE #7): every registered drive policy, one parametrised test.

Each request is served exactly once; finish times are consistent (a request
starts after it arrives, ends after it starts, and one drive serves one
request at a time); a policy that says ``starvation_free`` serves a far-away
request while a stream of near ones keeps arriving. A new policy costs one
line: registering it in ``simcore.sched`` puts it in this test.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import simcore
from simcore import Mechanism, load_disk
from simcore.records import READ, Request
from simcore.sched import get_scheduler, names, starvation_free


@pytest.fixture(scope="module")
def eagle():
    return Mechanism(load_disk("fujitsu_eagle"))


def _served_once_and_consistent(res, n):
    recs = sorted(res.records, key=lambda r: r.start_ms)
    assert sorted(r.id for r in recs) == list(range(n))
    for r in recs:
        assert r.start_ms >= r.arrival_ms - 1e-9
        assert r.finish_ms > r.start_ms
        assert r.response_ms == pytest.approx(r.finish_ms - r.arrival_ms)
    for a, b in itertools.pairwise(recs):
        assert b.start_ms >= a.finish_ms - 1e-9  # one request at a time


def _near_stream_and_one_far(mech, seconds: float = 6.0):
    """Requests every 6 ms near cylinder 100 (faster than the disk serves them), one at 800."""
    per_cyl = mech.layout.capacity // mech.layout.cylinders
    rng = np.random.default_rng(5)
    reqs = []
    t = 0.0
    while t < seconds * 1000:
        cyl = int(rng.integers(90, 111))
        reqs.append((t, cyl * per_cyl + int(rng.integers(0, per_cyl - 8))))
        t += 6.0
    reqs.insert(3, (12.0, 800 * per_cyl))
    reqs.sort(key=lambda x: x[0])
    wl = simcore.OpenWorkload([Request(i, a, READ, lba, 8) for i, (a, lba) in enumerate(reqs)])
    far = next(i for i, (_, lba) in enumerate(reqs) if lba == 800 * per_cyl)
    return wl, far, reqs[-1][0]


@pytest.mark.parametrize("name", names())
def test_policy_contract(eagle, name):
    wl = simcore.random_open(eagle.layout.capacity, n=300, rate_per_s=60, seed=3)
    res = simcore.run(eagle, wl, scheduler=name)
    _served_once_and_consistent(res, 300)
    wl2, far, last_arrival = _near_stream_and_one_far(eagle)
    res2 = simcore.run(eagle, wl2, scheduler=name)
    _served_once_and_consistent(res2, len(wl2.requests))
    if starvation_free(get_scheduler(name)):
        done = next(r for r in res2.records if r.id == far)
        assert done.finish_ms < last_arrival, f"{name} promised no starvation"


def test_the_starvation_check_can_fail(eagle):
    """SSTF and SPTF starve the far request in the same workload: the check above means something."""
    wl, far, last_arrival = _near_stream_and_one_far(eagle)
    for name in ("sstf", "sptf"):
        res = simcore.run(eagle, wl, scheduler=name)
        done = next(r for r in res.records if r.id == far)
        assert done.finish_ms > last_arrival


def test_every_name_and_alias_resolves():
    for name in [*names(), "ssf", "stf", "satf", "c-scan", "c-look", "v-scan"]:
        pol = get_scheduler(name)
        assert callable(pol) or hasattr(pol, "choose")
    with pytest.raises(ValueError, match="unknown scheduler"):
        get_scheduler("elevator-of-doom")
