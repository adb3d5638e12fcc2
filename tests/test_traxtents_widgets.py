"""Traxtents explorers in the kernel (set a control, check the figure) and the static figures.

Reference values: Schindler et al. 2002 §2.2 (the Figure 2 example: a read of LBNs 200-399 that
lands on LBN 380 reads 380-399 first, then 200-379, in one revolution) and the note 002 §2.3
zero-latency formula.
"""

from __future__ import annotations

import numpy as np
import pytest

import simcore
from simcore import traxtents as tx
from simcore.disk.access import HeadState
from simcore.viz import traxtents as vt

pytest.importorskip("ipywidgets")
from simcore.widgets.traxtents import (
    boundary_detective,
    efficiency_explorer,
    zero_latency_explorer,
)


def test_zero_latency_explorer_paper_example():
    ex = zero_latency_explorer()
    assert "lands at LBN 380" in ex.info.value
    assert "First read: LBN 380, last: LBN 379" in ex.info.value  # §2.2's worked example
    assert ex.latency_ms == pytest.approx(0.0, abs=1e-6)  # one revolution, no latency
    assert ex.curve.data[-1].x[0] == pytest.approx(100.0)
    ex.firmware.value = "ordinary"
    assert "First read: LBN 200" in ex.info.value
    # the head is 180 sectors past LBN 200: an ordinary disk waits 20 sectors (0.6 ms)
    assert ex.latency_ms == pytest.approx(20 * 6.0 / 200, abs=0.031)
    ex.firmware.value = "zero-latency"
    ex.fraction.value = 0.5
    ex.landing.value = 0.75  # lands outside LBNs 200-299: waits 1/4 revolution
    assert ex.latency_ms == pytest.approx(0.25 * 6.0, abs=0.031)


def test_efficiency_explorer_marks_the_selected_size():
    ex = efficiency_explorer("atlas10k2")
    assert ex.size.value == 528  # opens at one track
    marker = ex.fig.data[-1]
    assert marker.x[0] == 264
    assert marker.y[0] == pytest.approx(0.72, abs=0.04)  # point A, tworeq
    assert marker.y[1] == pytest.approx(0.50, abs=0.05)
    ex.mode.value = "onereq"
    assert ex.fig.data[-1].y[0] < 0.65  # the bus is no longer hidden
    ex.bus.value = "out-of-order"
    assert ex.fig.data[-1].y[0] == pytest.approx(0.72, abs=0.04)  # ... unless delivery overlaps
    ex.size.value = ex.sizes[0]
    assert ex.fig.data[-1].x[0] == ex.sizes[0] / 2


def test_boundary_detective_steps_through_probes():
    ex = boundary_detective("atlas10k2")
    assert "correct: <b>True</b>" in ex.info.value
    assert ex.step.max > 10
    ex.step.value = ex.step.max
    found = ex.fig.data[4]
    assert list(found.x) == [s for s in ex.det.starts if s <= ex.det.steps[-1].start]
    assert "probe" in ex.fig.layout.title.text


def test_zero_latency_animation_frames_follow_the_simulator():
    mech = simcore.Mechanism(tx.figure2_profile(zero_latency=True))
    a = mech.layout.locate(200)
    t0 = (a.sector + 179.5) % 200 / 200 * mech.rev_ms + 600.0
    times = tx.sector_times(mech, 200, 200, t0, HeadState(a.cylinder, a.surface)) - t0
    assert int(np.argmin(times)) == 180 and int(np.argmax(times)) == 179
    fig = vt.zero_latency_animation(200, a.sector, 200, a.sector + 179.5, times + 1.0, times,
                                    mech.rev_ms, steps=10)
    assert len(fig.frames) == 11
    last = fig.frames[-1].layout.annotations
    assert "200/200" in last[1].text


def test_efficiency_figure_has_points_a_and_b():
    from simcore.experiments import traxtents as exp

    result = {"curves": {"size_kib": [64, 264, 264.5, 1024],
                         "efficiency_aligned": [0.2, 0.73, 0.5, 0.83],
                         "efficiency_unaligned": [0.2, 0.5, 0.5, 0.75]},
              "max_streaming_efficiency": 0.909, "efficiency_aligned_264k": 0.73,
              "efficiency_unaligned_1m": 0.75, "paper": exp.PAPER}
    fig = vt.efficiency_figure(result)
    pts = next(t for t in fig.data if t.name == "paper's points A and B")
    assert list(pts.text) == ["A", "B"] and list(pts.y) == [0.73, 0.75]
