"""Figures show what their captions say: no series hidden, categories in order, before and after."""

from __future__ import annotations

import numpy as np

from simcore.records import Completed
from simcore.viz.placement import organ_pipe_figure
from simcore.viz.scheduling import race_cdf_traces
from simcore.viz.today import ccdf_figure
from simcore.viz.traces import size_histogram_traces
from simcore.workloads import from_tuples


def test_sizes_run_in_numeric_order_whatever_the_workloads_order():
    # the first workload has only 8 KiB; the second adds 4 and 64 KiB
    a = from_tuples([(0, "R", 0, 16), (1, "R", 64, 16)])
    b = from_tuples([(0, "R", 0, 128), (1, "W", 500, 8), (2, "R", 900, 16)])
    traces = size_histogram_traces({"a": a, "b": b})
    assert [list(t.x) for t in traces] == [["4", "8", "64"]] * 2
    assert list(traces[0].y) == [0.0, 1.0, 0.0]
    assert np.allclose(traces[1].y, [1 / 3] * 3)


def test_organ_pipe_shows_before_and_after_with_the_cylinders_named():
    heats = [50, 30, 20, 10, 5]
    fig = organ_pipe_figure(heats, [4, 2, 0, 1, 3])
    before, after = fig.data
    assert list(before.y) == heats and list(after.y) == [5, 20, 50, 30, 10]
    assert list(after.text) == ["cyl 4", "cyl 2", "cyl 0", "cyl 1", "cyl 3"]
    assert fig.layout.barmode == "group"


def test_a_ccdf_equal_to_an_earlier_one_is_dashed():
    x = np.sort(np.random.default_rng(0).exponential(10.0, 500))
    runs = {"clean": {"sorted_ms": x}, "same": {"sorted_ms": x.copy()},
            "slower": {"sorted_ms": x * 1.1}}
    dash = [t.line.dash for t in ccdf_figure(runs).data]
    assert dash == [None, "dash", None]


def test_race_cdf_dashes_the_named_policies():
    recs = [Completed(**{**{f: 0 for f in Completed._fields}, "id": i, "arrival_ms": 0.0,
                         "finish_ms": float(i + 1)}) for i in range(3)]
    traces = race_cdf_traces({"sptf": recs, "WSTF": recs}, dashed=("WSTF",))
    assert [t.line.dash for t in traces] == [None, "dash"]
