"""Experiment ``interface`` (Gray 2000, Tables 6, 7 and 9): shape and independent checks.

The comparison with the thesis is the experiment's ``TARGETS``, evaluated by
``tests/test_targets.py`` and reported (met or missed) by ``reproduce`` and the status page;
these tests check what must hold whatever the thesis measured.
"""

from __future__ import annotations

import json

import pytest


@pytest.fixture(scope="module", params=["quick", "full"])
def result(request, any_result):
    """Quick mode, run here, and the full run the book shows (from the results cache)."""
    return any_result("interface", request.param)


def test_json_shape(result):
    for key in ("block_read_kb_s", "block_write_kb_s", "cpu_pct_read", "cpu_pct_write",
                "hdparm_mb_s"):
        assert set(result[key]) == {"pio", "dma"}
        assert set(result["paper"][key]) == {"pio", "dma"}
    json.dumps(result)  # JSON-ready


def test_ratios_are_the_rates_ratios(result):
    """The targets compare ratios: they must be the ratios of the reported rates."""
    for kind, key in (("read", "block_read_kb_s"), ("write", "block_write_kb_s"),
                      ("hdparm", "hdparm_mb_s")):
        ratio = result[key]["dma"] / result[key]["pio"]
        assert result[f"block_{kind}_ratio" if kind != "hdparm" else "hdparm_ratio"] == ratio


def test_rates_respect_the_link_and_the_media(result):
    """Independent of the thesis: no mode beats its cable, and PIO 4 is bounded by its cycle.

    PIO 4: 120 ns per 16-bit word is 16.7 MB/s; UDMA 2: 33.3 MB/s (note 000 §2.7). The drive's
    outer zone streams about 20 MiB/s, so DMA reads are media-bound, PIO reads CPU-bound.
    """
    pio_link_mib_s = 2 / 120e-9 / 2**20
    udma2_link_mib_s = 2 / 60e-9 / 2**20
    assert 0 < result["hdparm_mb_s"]["pio"] < pio_link_mib_s
    assert result["hdparm_mb_s"]["pio"] < result["hdparm_mb_s"]["dma"] < udma2_link_mib_s
    # PIO keeps the CPU busy moving words; DMA leaves it mostly idle
    assert result["cpu_pct_read"]["pio"] > 3 * result["cpu_pct_read"]["dma"]
    assert result["interrupts_per_mib_read"]["pio"] > 100 * result["interrupts_per_mib_read"]["dma"]


def test_the_multi_user_point(result):
    # a CPU-bound bystander gets most of the CPU under DMA and almost none under PIO
    assert result["bystander_cpu_pct"]["dma"] > 70 > 15 > result["bystander_cpu_pct"]["pio"]
    # the thesis's stated write-through setting could not reach its DMA write rate
    assert result["write_through_kb_s"]["dma"] < 0.5 * result["paper"]["block_write_kb_s"]["dma"]
