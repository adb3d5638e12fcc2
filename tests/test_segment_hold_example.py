"""The worked segment-hold example (simcore.experiments.segment_hold), checked by hand.

DiskSim's tiny disk: 10 sectors a track (LBAs 9..18 on the read's track), a sector a
millisecond; times from the read's media start (its first sector under the head)."""

import pytest

from simcore.experiments.segment_hold import segment_hold


def test_the_cache_chapters_case():
    """Read LBAs 9..12 (done at 1..4), read-ahead LBAs 13..18 (free: 5..10). The host takes
    sector k at 1 + 10(k + 1). LBA 17 needs LBA 9 gone (11): it starts at 8, waits a turn,
    done 19. LBA 18 starts at 19, needs LBA 10 gone (21): another turn, done 30."""
    e = segment_hold(lba=9, sectors=4, segment_sectors=8, bus_ms=10.0, first_ms=1.0)
    assert e.free_ms == (5, 6, 7, 8, 9, 10)
    assert e.held_ms == (5, 6, 7, 8, 19, 30)
    assert e.sent_ms == (11, 21, 31, 41) and e.complete_ms == 41
    assert e.revolutions == 2 and e.read_ahead_lbas == (13, 18)


def test_a_read_ahead_cut_to_a_segment():
    """Read LBAs 10..11 (done at 1, 2) with 5-sector segments: the read-ahead stops a
    segment on, at LBA 16 (free: 3..7). The host takes LBA 10 at 4.5 and LBA 11 at 8.5, the
    completion. LBA 15 needs LBA 10 gone: it starts at 5, done 6. LBA 16 needs LBA 11 gone:
    it starts at 6 < 8.5, so it comes round once, done 17."""
    e = segment_hold(lba=10, sectors=2, segment_sectors=5, bus_ms=4.0, first_ms=0.5)
    assert e.read_ahead_lbas == (12, 16)
    assert e.free_ms == (3, 4, 5, 6, 7)
    assert e.held_ms == (3, 4, 5, 6, 17)
    assert e.revolutions == 1


def test_a_fast_host_is_never_held():
    e = segment_hold(lba=9, sectors=4, segment_sectors=8, bus_ms=0.5, first_ms=0.5)
    assert e.held_ms == e.free_ms and e.revolutions == 0


@pytest.mark.parametrize("kwargs, field", [
    ({"lba": 17, "sectors": 4}, "one track"),
    ({"sectors": 6, "segment_sectors": 5}, "cannot hold"),
    ({"bus_ms": 0.0}, "bus_ms"),
])
def test_impossible_examples_are_refused_by_name(kwargs, field):
    with pytest.raises(ValueError, match=field):
        segment_hold(**kwargs)
