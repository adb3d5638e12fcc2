"""The served labs' random jobs draw their offsets from their own seed (fio's ``randrepeat``),
and the prediction replays the offsets fio reads for that seed.

With fio's default ``randrepeat=1``, ``--randseed`` does not reach the offsets: every run and
every variant read the same fractions of its zone in the same order, one frozen sample whose
error the prediction (an expected value) can never average out. ``track_fio_args`` turns
``randrepeat`` off (:func:`simcore.serve.fio.random_offsets`); fio then draws the offsets from
the seed, the same ones for the same seed. Labs 2 and 3 give each variant its own seed.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from conftest import require_tool

from simcore.labkit import emulated, served_demo
from simcore.labkit.check import variant_seed
from simcore.serve import fio, predict
from simcore.serve import mystery as served_mystery
from simcore.serve.predict import track_fio_args

KEYS = Path(__file__).resolve().parent.parent / "instructors" / "labs"
TRACK, FIRST = 64 * 512, 1 << 20
SPAN = 400 * TRACK + TRACK // 2  # 400 whole tracks, aligned or shifted by half a track


def offsets(tmp_path, seed: int, shift: int = 0, n: int = 12) -> list[int]:
    """The offsets fio reads for the job of ``seed`` (from its own I/O log, on a sparse file)."""
    return job_offsets(tmp_path, track_fio_args(TRACK, FIRST, SPAN, shift, 3, seed), n)


def job_offsets(tmp_path, job: list[str], n: int = 12) -> list[int]:
    """The first ``n`` offsets fio reads for the job options ``job``, on a sparse file."""
    import subprocess

    img = tmp_path / "sparse.img"
    with open(img, "wb") as fh:
        fh.truncate(FIRST + SPAN + TRACK)
    log = tmp_path / f"io-{len(list(tmp_path.glob('io-*')))}.log"
    args = [a for a in job if not a.startswith(("--runtime", "--time_based", "--iodepth"))]
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


def test_labs_2_and_3_read_their_variants_own_offsets(tmp_path):
    """Each variant's random job reads its own offsets; Lab 3's two policies read the same."""
    require_tool("fio")
    for lab, make, kinds in (("lab2", served_demo.lab2_jobs, ["lab2-rand"]),
                             ("lab3", served_demo.lab3_jobs, ["lab3-fcfs", "lab3-pos"])):
        a, b = (make(variant_seed(who, lab))["jobs"] for who in ("alice", "bob"))
        first = job_offsets(tmp_path, a[kinds[0]][1])
        assert len(first) == 12
        assert all(job_offsets(tmp_path, a[k][1]) == first for k in kinds)  # repeatable, paired
        # under fio's default randrepeat=1 every variant read these same offsets
        assert job_offsets(tmp_path, b[kinds[0]][1]) != first, lab


@pytest.mark.parametrize("lab, stem", [("lab2", "lab2_interface_cache"),
                                       ("lab3", "lab3_scheduling")])
def test_the_measuring_cell_runs_the_jobs_the_tests_and_the_book_use(lab, stem, monkeypatch):
    """The key's measuring cell, run for a variant with fio stubbed out, asks for exactly
    ``served_demo``'s jobs of that variant (its seed included), which the grading test measures."""
    code = [c for c in nbformat.read(str(KEYS / f"{stem}.ipynb"), as_version=4).cells
            if c.cell_type == "code"]
    ns: dict = {"__name__": "__lab__"}
    exec(code[0].source, ns)  # the parameters cell, then another student's seed
    ns["SEED"] = variant_seed("alice", lab)
    exec(code[1].source, ns)  # the variant
    asked = {}
    monkeypatch.setattr(emulated, "fio_served", lambda kind, serve, fio, tag="", **_:
                        asked.setdefault(kind, (serve, fio, tag)))
    exec(next(c for c in code if c.get("id") == "served-measure").source, ns)
    assert asked == getattr(served_demo, f"{lab}_jobs")(ns["SEED"])["jobs"]
    assert any(a.startswith("--randseed=") for _, fio, _ in asked.values() for a in fio)


# -- the prediction reads the offsets fio reads (simcore.serve.fio.job_offsets) ---------------

def test_fio_lists_the_offsets_a_sparse_file_gets(tmp_path):
    """``job_offsets`` (fio's null engine over the drive's size) lists what fio reads on a sparse
    file of that size, in order; Lab 5's job past one pass over its span, as time_based runs."""
    require_tool("fio")
    for seed in (3, 4):
        job = track_fio_args(TRACK, FIRST, SPAN, 0, 3, seed)
        assert fio.job_offsets(job, FIRST + SPAN + TRACK, 12) == offsets(tmp_path, seed)
    job = track_fio_args(TRACK, FIRST, SPAN, 0, 3, 9)
    two = fio.job_offsets(job, FIRST + SPAN + TRACK, 600)  # 400 blocks a pass
    assert len(two) == 600 and len(set(two[:400])) == 400  # fio's random map: each block once
    assert len(set(two[400:])) == 200 and two[400:] != two[:200]  # a new pass, its own order


def test_the_replay_issues_fios_offsets_in_fios_order():
    """The job the replay runs yields fio's offsets in order, asking fio for more when it runs
    out of the ones it has."""
    require_tool("fio")
    job = ["--rw=randread", "--bs=4096", *fio.random_offsets(5)]
    size = 1 << 34
    make = predict.fio_order(job, size, 4096, n=16)
    it = make()
    got = [next(it) for _ in range(40)]
    assert [o for o, _ in got] == fio.job_offsets(job, size, 40)
    assert {n for _, n in got} == {4096}


def test_the_prediction_follows_the_seed_and_falls_back_without_fio(monkeypatch):
    """A seed's prediction is one replay of that seed's offsets (the same twice, another seed
    differs); without fio it is the expected value, as without a seed."""
    require_tool("fio")
    prof = served_mystery.mystery_profile_for_token(served_demo.lab3_demo()["token"])
    kw = dict(rw="randread", bs_kib=4, iodepth=8, scheduler="sptf", runtime_s=0.6, repeats=2)
    one, again = predict.fio_job(prof, **kw, fio_seed=1), predict.fio_job(prof, **kw, fio_seed=1)
    assert one == again and one != predict.fio_job(prof, **kw, fio_seed=2)
    expected = predict.fio_job(prof, **kw)
    assert one != expected
    monkeypatch.setattr(fio.shutil, "which", lambda name: None)
    assert fio.job_offsets(["--rw=randread"], 1 << 30, 4) is None
    assert predict.fio_job(prof, **kw, fio_seed=1) == expected
