"""The scheduling chapters' live explorers, driven in the kernel: set a control, check the figure."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")
from simcore.widgets.linux_sched import anticipation_explorer, deadline_explorer
from simcore.widgets.scheduling import scheduler_race


def test_race_redraws_for_the_chosen_policies():
    ex = scheduler_race(policies=("fcfs", "sstf"), n=100)
    assert {t.name for t in ex.cdf.data} == {"fcfs", "sstf"}
    ex.policies.value = ("fcfs", "sptf", "wstf")
    assert [t.name for t in ex.paths.data] == ["fcfs", "sptf", "wstf"]  # one row each
    assert [t.yaxis for t in ex.paths.data] == ["y", "y2", "y3"]
    assert len(ex.cdf.data) == 3
    assert "max response" in ex.table.value
    # the same requests for every policy: every run served all of them
    assert {len(v) for v in ex.results.values()} == {100}


def test_anticipation_explorer_shows_idle_windows_only_when_waiting():
    ex = anticipation_explorer(readers=2)
    idle = ex.figure.data[-1]
    assert idle.name == "idle on purpose" and len(idle.x) > 0
    ex.antic.value = 0.0  # antic_expire = 0: no anticipation
    assert len(ex.figure.data[-1].x) == 0
    ex.elevator.value = "deadline"
    assert "deadline" in ex.figure.layout.title.text
    assert "MB/s" in ex.info.value


def test_deadline_explorer_fifo_batch_changes_the_mix():
    ex = deadline_explorer()
    before = sum(1 for e in ex.events if e.kind == "dispatch" and e.pid == 1)
    ex.fifo_batch.value = 1
    after = sum(1 for e in ex.events if e.kind == "dispatch" and e.pid == 1)
    assert after < before  # shorter batches: the streaming reader gets less
    assert any(t.name == "deadline expired" for t in ex.figure.data)
