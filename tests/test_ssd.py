"""The SSD contrast: a page-mapped FTL's write amplification against the analytic limits
(Desnoyers 2012; Hu et al. 2009), and a read time that does not depend on where the data is."""

import pytest

from simcore.ssd import (
    AGRAWAL_2008,
    FlashGeometry,
    PageFTL,
    greedy_bound,
    lrw_write_amplification,
    steady_state_wa,
)


def test_lrw_formula_limits():
    # u = exp(-(1+op)(1-u)) at op = 1 (half the flash spare): u ~ 0.2032, WA ~ 1.255
    assert lrw_write_amplification(1.0) == pytest.approx(1 / (1 - 0.20319), rel=1e-3)
    assert lrw_write_amplification(0.07) > lrw_write_amplification(0.28) > 1
    assert greedy_bound(1.0) == pytest.approx(2.0)


@pytest.mark.parametrize("op", [0.15, 0.28, 0.5])
def test_fifo_cleaning_matches_the_lrw_model(op):
    r = steady_state_wa(op, "fifo")
    eff = FlashGeometry(256, 64, op).effective_op
    assert r["wa"] == pytest.approx(lrw_write_amplification(eff), rel=0.04)


def test_greedy_is_no_worse_than_fifo_and_within_its_bound():
    for op in (0.07, 0.28):
        g, f = steady_state_wa(op, "greedy"), steady_state_wa(op, "fifo")
        assert 1.0 < g["wa"] <= f["wa"] < greedy_bound(op)


def test_sequential_writes_free_whole_blocks():
    assert steady_state_wa(0.07, "greedy", pattern="sequential")["wa"] == pytest.approx(1.0)


def test_ftl_remaps_every_write_and_trim():
    ftl = PageFTL(FlashGeometry(8, 4, 1.0))
    ftl.write(0)
    first = ftl.read(0)
    ftl.write(0)
    assert ftl.read(0) != first  # never in place
    ftl.trim(0)
    assert ftl.read(0) == -1
    with pytest.raises(ValueError, match="logical page"):
        ftl.write(10_000)
    with pytest.raises(ValueError, match="op"):
        FlashGeometry(op=0)


def test_read_time_is_the_same_everywhere_and_wa_slows_writes():
    assert AGRAWAL_2008.read_ms(1) == pytest.approx(0.125)  # 25 us + 100 us
    assert AGRAWAL_2008.random_write_mb_s(1.0) > 2 * AGRAWAL_2008.random_write_mb_s(4.0)
