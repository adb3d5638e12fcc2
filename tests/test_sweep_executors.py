"""Sweeps scale out identically: serial, a process pool and a Dask cluster give the same bits.

Each point's seed comes from the point (``simcore.engine.point_seed``), never from the order
the points run in, so the executor cannot change a number. The Dask test runs a one-worker
``LocalCluster`` in this process (threads, no extra processes), enough to exercise the
``concurrent.futures`` interface a real cluster's ``client.get_executor()`` gives.
"""

from __future__ import annotations

import json
import random
from concurrent.futures import Executor, Future, ProcessPoolExecutor

import pytest

from simcore.engine import point_seed, sweep
from simcore.experiments import seltzer, traxtents


class SerialExecutor(Executor):
    """Runs each task at once in this thread, in submission order."""

    def submit(self, fn, /, *args, **kwargs):
        f: Future = Future()
        f.set_result(fn(*args, **kwargs))
        return f


def _draw(a: int, b: str, seed: int) -> float:
    import numpy as np

    return float(np.random.default_rng(seed).random())


def test_point_seed_is_a_function_of_the_point():
    p = {"a": 1, "b": "x"}
    assert point_seed(7, p) == point_seed(7, {"b": "x", "a": 1})
    assert point_seed(7, p) != point_seed(8, p)
    assert point_seed(7, p) != point_seed(7, {"a": 2, "b": "x"})
    assert 0 <= point_seed(7, p) < 2**63


def test_sweep_seeds_do_not_depend_on_order():
    pts = [{"a": a, "b": b} for a in range(6) for b in "xy"]
    base = dict(zip(map(json.dumps, pts), sweep(_draw, pts, seed=3, progress=False),
                    strict=True))
    shuffled = pts[:]
    random.Random(1).shuffle(shuffled)
    again = dict(zip(map(json.dumps, shuffled), sweep(_draw, shuffled, seed=3, progress=False),
                     strict=True))
    assert again == base
    assert len(set(base.values())) == len(pts)
    with pytest.raises(ValueError, match="seed"):
        sweep(_draw, [{"a": 1, "b": "x", "seed": 4}], seed=3)


@pytest.fixture(scope="module")
def serial():
    return json.dumps(seltzer.reproduce(quick=True, executor=SerialExecutor()), sort_keys=True)


def test_process_pool_gives_the_serial_numbers(serial):
    with ProcessPoolExecutor(max_workers=2) as pool:
        out = seltzer.reproduce(quick=True, executor=pool)
    assert json.dumps(out, sort_keys=True) == serial


def test_dask_local_cluster_gives_the_serial_numbers(serial):
    import distributed  # pinned in requirements.txt: missing is an error, not a skip
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        out = seltzer.reproduce(quick=True, executor=client.get_executor())
    assert json.dumps(out, sort_keys=True) == serial


def test_traxtents_points_do_not_depend_on_the_executor():
    with ProcessPoolExecutor(max_workers=2) as pool:
        pooled = traxtents.reproduce(quick=True, executor=pool)
    serial = traxtents.reproduce(quick=True, executor=SerialExecutor())
    assert json.dumps(pooled, sort_keys=True) == json.dumps(serial, sort_keys=True)
