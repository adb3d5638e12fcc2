"""The many-streams chapter's live explorers, driven in the kernel (seed 004)."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")
from simcore.widgets.multistream import dispatch_explorer, segments_explorer


def test_dispatch_explorer_turns_random_visits_into_long_ones():
    ex = dispatch_explorer(streams=20, scheme="no host scheme", window_ms=1_000)
    direct = ex.result.throughput_mb_s
    bars = next(t for t in ex.figure.data if t.name == "media read (disk command)")
    n_direct = sum(1 for x in bars.x if x is None)
    ex.scheme.value = "dispatch set"  # R = 8 MiB, M = 16 MiB: D = 2
    assert ex.result.throughput_mb_s > 4 * direct
    assert "D = M/(R·N) = 2" in ex.info.value
    bars = next(t for t in ex.figure.data if t.name == "media read (disk command)")
    assert sum(1 for x in bars.x if x is None) < n_direct  # fewer, longer visits
    assert "dispatch set" in ex.figure.layout.title.text


def test_dispatch_explorer_refuses_memory_below_one_visit():
    ex = dispatch_explorer(streams=10, window_ms=500)
    ex.m.value = 4  # 4 MiB < R = 8 MiB
    assert "Not allowed" in ex.info.value and ex.result is None
    ex.m.value = 32
    assert "D = M/(R·N) = 4" in ex.info.value


def test_dispatch_explorer_linux_read_ahead():
    ex = dispatch_explorer(streams=10, scheme="Linux read-ahead", read_ahead_kb=0, window_ms=800)
    off = ex.result.throughput_mb_s
    ex.ra.value = 2048
    assert ex.result.throughput_mb_s > 2 * off
    assert ex.r.disabled and not ex.ra.disabled


def test_segments_explorer_cliff_moves_with_the_segments():
    ex = segments_explorer(segments=8, window_ms=1_500)
    mb = dict(zip(ex.STREAMS, ex.mb_s, strict=True))
    assert mb[8] > 3 * mb[12]
    ex.segments.value = 16
    mb = dict(zip(ex.STREAMS, ex.mb_s, strict=True))
    assert mb[16] > 3 * mb[24] and mb[12] > 3 * mb[24]
    line = next(t for t in ex.figure.data if t.name == "streams = segments")
    assert list(line.x) == [16, 16]
    assert ex.figure.data[0].y[-1] == pytest.approx(ex.mb_s[-1])


def test_dispatch_explorer_says_all_streams_are_active_when_d_exceeds_them():
    """Lab 6's q9 asks how many streams are active: with 10 streams, R = 1 MiB and M = 16 MiB,
    D = M/(R·N) = 16 is room for more streams than there are, so all 10 are active and M is
    more than they use (the line said "16 active streams" before: a student walking the lab
    read that as the answer)."""
    ex = dispatch_explorer(streams=10, scheme="dispatch set", r_kib=1024, m_mib=16,
                           window_ms=500)
    assert "all 10 are active at once" in ex.info.value
    assert "10·R·N = 10 MiB" in ex.info.value
    assert "16 active streams" not in ex.info.value
    ex.m.value = 8  # D = 8 < 10 streams: the line counts D active streams, as before
    assert "D = M/(R·N) = 8 active streams" in ex.info.value
