"""Live explorers of the placement chapter: a control changes the figure (kernel test)."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from simcore.widgets.placement import zone_explorer


def test_zone_explorer_redraws_when_the_spacing_moves():
    z = zone_explorer(workload="database", technique="FREQZ", spacing=300_000)
    assert [t.name for t in z.seeks.data] == ["original", "FREQZ(300000)"]
    before = z.improvement
    near = list(z.seeks.data[1].y)
    z.spacing.value = 10_000_000  # zones far from home: worse than the original (note 003 §6.3)
    assert z.seeks.data[1].name == "FREQZ(10000000)"
    assert list(z.seeks.data[1].y) != near
    assert z.improvement < before and z.improvement < 0
    assert "FREQZ(10000000)" in z.table.value
    assert len(z.heat.data) == 2  # before and after heat maps


def test_zone_explorer_switches_technique():
    z = zone_explorer(workload="email", technique="ALIS")
    assert z.improvement > 10  # runs come back at the next check (seed 003 Table 3.2)
    z.technique.value = "FREQNC"
    assert abs(z.improvement) < 2  # no reuse within a window: nothing to count


def test_zone_explorer_scheduler_changes_the_single_zone_verdict():
    """Under FCFS the centre zone's trips saturate the disk; SPTF keeps the loss bounded."""
    z = zone_explorer(workload="database", technique="FREQNC")
    sptf = z.improvement
    assert -45 < sptf < 0
    z.scheduler.value = "fcfs"
    assert z.improvement < sptf - 100  # far past saturation: mean response in seconds
    assert z.result["utilization"] > 0.9
