"""Lab 5's served job draws its random offsets from its own seed (fio's ``randrepeat``).

With fio's default ``randrepeat=1``, ``--randseed`` does not reach the offsets: every run and
every variant read the same fractions of its zone in the same order, one frozen sample whose
error the prediction (an expected value) can never average out. ``track_fio_args`` turns
``randrepeat`` off; fio then draws the offsets from the seed, the same ones for the same seed.
"""

from __future__ import annotations

import re

from conftest import require_tool

from simcore.serve.predict import track_fio_args

TRACK, FIRST = 64 * 512, 1 << 20
SPAN = 400 * TRACK + TRACK // 2  # 400 whole tracks, aligned or shifted by half a track


def offsets(tmp_path, seed: int, shift: int = 0, n: int = 12) -> list[int]:
    """The offsets fio reads for the job of ``seed`` (from its own I/O log, on a sparse file)."""
    import subprocess

    img = tmp_path / "sparse.img"
    with open(img, "wb") as fh:
        fh.truncate(FIRST + SPAN + TRACK)
    log = tmp_path / f"io-{seed}-{shift}-{len(list(tmp_path.glob('io-*')))}.log"
    args = [a for a in track_fio_args(TRACK, FIRST, SPAN, shift, 3, seed)
            if not a.startswith(("--runtime", "--time_based"))]
    subprocess.run(["fio", "--name=job", "--ioengine=psync", f"--filename={img}", "--readonly",
                    f"--number_ios={n}", f"--write_iolog={log}", *args],
                   check=True, capture_output=True, text=True, timeout=120)
    return [int(m.group(1)) for m in re.finditer(r" read (\d+) \d+", log.read_text())]


def test_the_seed_draws_the_offsets_repeatably(tmp_path):
    require_tool("fio")
    one, again, two = offsets(tmp_path, 1), offsets(tmp_path, 1), offsets(tmp_path, 2)
    assert len(one) == 12 and one == again
    assert one != two  # under fio's default randrepeat=1 the two seeds read the same blocks
    for off in one + two:  # whole tracks of the span, from its first byte
        assert (off - FIRST) % TRACK == 0 and FIRST <= off < FIRST + SPAN


def test_the_shifted_job_reads_the_same_blocks_a_shift_later(tmp_path):
    """The aligned and shifted jobs share a seed: the same blocks, so the ratio is paired."""
    require_tool("fio")
    shift = TRACK // 2
    assert [o + shift for o in offsets(tmp_path, 7)] == offsets(tmp_path, 7, shift)
