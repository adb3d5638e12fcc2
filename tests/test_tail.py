"""Tail latency from firmware events: retries, deep recovery under an ERC limit,
recalibration and background media scans (issue 15)."""

import math

import pytest

from simcore import tail
from simcore.drive.firmware_events import FirmwareEvents, affected_probability


def test_events_off_leave_every_response_unchanged():
    base = tail.tail_run(events=None, n=3000, seed=1)
    off = tail.tail_run(events=FirmwareEvents(), n=3000, seed=1)
    zero = tail.tail_run(events=FirmwareEvents(recovered_per_bit=0.0), n=3000, seed=1)
    for r in (off, zero):
        assert (r["sorted_ms"] == base["sorted_ms"]).all()
        assert r["events"] == {} and r["touched_fraction"] == 0.0


def test_retry_fraction_matches_the_rate_and_each_retry_is_a_revolution():
    per_bit = 1e-6
    p = affected_probability(per_bit, 8)  # a 4 KiB read: 32,768 bits
    assert p == pytest.approx(1 - (1 - per_bit) ** 32768)
    n = 6000
    ev = FirmwareEvents(recovered_per_bit=per_bit, retry_again=0.5, max_retries=50)
    r = tail.tail_run(events=ev, n=n, seed=2)
    sd = math.sqrt(p * (1 - p) / n)
    assert abs(r["touched_fraction"] - p) < 4 * sd
    from simcore.stack import as_mechanism
    rev = as_mechanism("modern7200").rev_ms
    # closed loop, one request at a time: a retried read is longer by whole revolutions
    assert r["p50_ms"] == pytest.approx(tail.tail_run(n=n, seed=2)["p50_ms"], rel=0.05)
    assert r["max_ms"] > rev


def test_erc_caps_recovery_and_no_erc_does_not():
    ev = FirmwareEvents(deep_per_bit=2e-7, deep_ms=(5000.0, 60000.0), erc_ms=7000.0)
    capped = tail.tail_run(events=ev, n=1500, seed=3)
    free = tail.tail_run(events=FirmwareEvents(deep_per_bit=2e-7, deep_ms=(5000.0, 60000.0),
                                               erc_ms=None), n=1500, seed=3)
    assert capped["events"]["deep"] == free["events"]["deep"] > 0
    assert capped["max_ms"] < 7000.0 + 60.0 < free["max_ms"]
    assert capped["erc_errors"] > 0 and free["erc_errors"] == 0
    assert capped["p50_ms"] == pytest.approx(free["p50_ms"], rel=0.05)


def test_media_scan_delays_only_commands_after_idle():
    ev = FirmwareEvents(scan_idle_ms=500.0, scan_delay_ms=4.0)
    light = tail.tail_run(events=ev, rate_per_s=2.0, n=2000, seed=4)
    # Poisson gaps longer than 500 ms: exp(-rate x 0.5 s) of the commands
    expect = math.exp(-2.0 * 0.5)
    assert light["events"]["scan"] / 2000 == pytest.approx(expect, abs=0.04)
    busy = tail.tail_run(events=ev, n=2000, seed=4)  # back to back: never idle
    assert "scan" not in busy["events"]


def test_recalibration_delays_the_command_that_meets_it():
    from simcore.drive.firmware_events import EventState
    st = EventState(FirmwareEvents(recal_interval_ms=1000.0, recal_ms=100.0, seed=0), 8.33)
    due = st._next_recal
    assert st.delay(0, due + 30.0, 0.0, 0) == pytest.approx(70.0)  # idle: it began on time
    nxt = st._next_recal
    assert nxt == pytest.approx(due + 1000.0)
    # busy when it falls due: it starts when that command ends
    assert st.delay(1, nxt + 5.0, nxt + 5.0, 0) == pytest.approx(100.0)


def test_bad_parameters_name_the_field():
    with pytest.raises(ValueError, match="erc_ms"):
        FirmwareEvents(erc_ms=0)
    with pytest.raises(ValueError, match="recovered_per_bit"):
        FirmwareEvents(recovered_per_bit=1.5)
