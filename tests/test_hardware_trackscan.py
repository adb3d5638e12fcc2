"""hardware.trackscan: a flush between tries evicts LBA 0 from a segmented drive buffer."""

from __future__ import annotations

import itertools
import random

import pytest

from hardware import trackscan

BLOCK = 512
DEVICE = 1 << 40  # 1 TiB


class SegmentedDrive:
    """A drive buffer of ``segments`` LRU segments of ``segment_bytes``: a read that lies inside
    one segment is a hit (0.1 ms); a miss costs 10 ms plus 1 ms per MiB and fills a segment
    with the read and read-ahead up to the segment's size."""

    def __init__(self, segments: int, segment_bytes: int):
        self.segments, self.segment_bytes = segments, segment_bytes
        self.lru: list[tuple[int, int]] = []
        self.reads: list[tuple[int, int]] = []

    def __call__(self, off: int, length: int) -> float:
        self.reads.append((off, length))
        for seg in self.lru:
            if seg[0] <= off and off + length <= seg[1]:
                self.lru.remove(seg)
                self.lru.append(seg)
                return 0.1
        self.lru.append((off, off + max(length, self.segment_bytes)))
        del self.lru[:-self.segments]
        return 10.0 + length / (1 << 20)


def test_flush_plan_is_distinct_far_aligned_and_fills_the_cache():
    plan = trackscan.flush_plan(random.Random(3), DEVICE, BLOCK, 64, 256 << 20)
    assert len(plan) == 64
    assert sum(n for _, n in plan) >= 256 << 20
    spans = sorted((o, o + n) for o, n in plan)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))  # no overlap
    assert all(o >= DEVICE // 2 and o % BLOCK == 0 and o + n <= DEVICE for o, n in plan)
    again = trackscan.flush_plan(random.Random(4), DEVICE, BLOCK, 64, 256 << 20)
    assert again != plan  # fresh places each time: a flush does not hit its own data
    with pytest.raises(ValueError, match="cannot hold"):
        trackscan.flush_plan(random.Random(3), 64 << 20, BLOCK, 64, 256 << 20)


def test_one_far_read_leaves_lba0_cached_but_a_flush_does_not():
    drive = SegmentedDrive(segments=16, segment_bytes=8 << 20)  # 128 MiB in 16 segments
    weak = trackscan.cache_check(drive, DEVICE, BLOCK, regions=1, cache_bytes=BLOCK)
    assert not weak["defeated"] and weak["flushed_ms"] == pytest.approx(0.1)
    strong = trackscan.cache_check(drive, DEVICE, BLOCK, regions=64, cache_bytes=256 << 20)
    assert strong["defeated"] and strong["flushed_ms"] >= 10 and strong["cached_ms"] == 0.1


def test_scan_reads_every_size_from_the_media():
    drive = SegmentedDrive(segments=32, segment_bytes=4 << 20)
    sizes = [64, 128, 256, 512]
    res = trackscan.scan(drive, DEVICE, sizes, BLOCK, tries=3, regions=64, cache_bytes=128 << 20)
    assert res.times_ms == pytest.approx([10.0 + n * BLOCK / (1 << 20) for n in sizes])
    assert res.reads == len(drive.reads) == 3 * len(sizes) * 65
    # every read of LBA 0 came after 64 distinct far reads
    zero = [i for i, (o, _) in enumerate(drive.reads) if o == 0]
    assert all(b - a == 65 for a, b in itertools.pairwise(zero))


def test_estimate_grows_with_the_flush():
    small = trackscan.estimate_s([100, 200], BLOCK, tries=2, cache_bytes=64 << 20)
    big = trackscan.estimate_s([100, 200], BLOCK, tries=2, cache_bytes=256 << 20)
    assert 0 < small < big
