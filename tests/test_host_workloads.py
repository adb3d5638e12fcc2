"""The FFSB-like server profiles of seed 001 (Appendix B) through the block layer.

Every profile finishes under every 2.6-era elevator with all its I/O done
(``end_fsync``), writes from the flusher merge into large requests, a small
``nr_requests`` makes producers wait without losing anything, and a run is
reproducible bit for bit from its seed (CONTRIBUTING: randomness passed in).
"""

from __future__ import annotations

import pytest

from simcore.sched.linux import LEGACY
from simcore.workloads.server import FFSB_PROFILES, FileSet, simulate


@pytest.mark.parametrize("profile", [*FFSB_PROFILES, "seq-read", "seq-write"])
@pytest.mark.parametrize("elevator", LEGACY)
def test_profile_finishes_with_everything_on_disk(profile, elevator):
    r = simulate(profile, elevator, threads=3, ops=25, mb_per_reader=1.0, seed=4)
    assert r.elapsed_ms > 0 and r.ops > 0
    if profile in FFSB_PROFILES:
        assert r.ops == 3 * 25
    assert len(r.records) == r.counters["bios"]  # every bio completed, merged or not
    moved = sum(x.sectors for x in r.records) * 512
    assert moved == r.bytes_read + r.bytes_written


def test_web_profile_reads_whole_small_files():
    r = simulate("web", "noop", threads=2, ops=50, seed=1)
    sizes = {x.sectors for x in r.records}
    assert min(sizes) >= 8 and max(sizes) <= 128  # 4 to 64 KiB
    assert r.bytes_written == 0


def test_sequential_writes_merge_into_large_requests():
    r = simulate("seq-write", "deadline", threads=1, mb_per_reader=4, seed=0)
    assert r.counters["back_merges"] > 0.7 * r.counters["bios"]
    assert r.counters["requests"] < r.counters["bios"] / 4


def test_small_nr_requests_blocks_but_loses_nothing():
    r = simulate("metadata", "deadline", threads=2, ops=40, nr_requests=4, seed=2)
    assert r.counters["blocked"] > 0
    assert len(r.records) == r.counters["bios"]


def test_same_seed_same_result():
    a = simulate("mail", "cfq", threads=2, ops=30, seed=7)
    b = simulate("mail", "cfq", threads=2, ops=30, seed=7)
    assert a.elapsed_ms == b.elapsed_ms and a.records == b.records


def test_file_set_layout():
    fs = FileSet.small_files(100, first_lba=1000, seed=3)
    lba0, n0 = fs.file(0)
    lba1, _ = fs.file(1)
    assert lba0 == 1000 + fs.meta_sectors and lba1 == lba0 + n0  # one after another
    assert fs.end_lba == lba0 + int(fs.sizes_kib.sum()) * 2
    grown = fs.allocate(16)
    assert grown == lba0 + int(fs.sizes_kib.sum()) * 2 and fs.end_lba == grown + 16


def test_file_set_must_fit_the_device():
    with pytest.raises(ValueError, match="file set needs"):
        simulate("web", "noop", disk="toy", ops=1)
