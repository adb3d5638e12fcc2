"""Lab 6 ("many sequential streams on one disk"): the key's hand estimate (q2) is right by construction.

Source: Panagiotakis 2006, Table 3.1 and Table 5.1, through data/disks/wd800jd.toml: 7,200 RPM,
average seek 8.9 ms, about 55 MB/s sustained (simcore.experiments.multistream.PAPER); the
0.5 ms command overhead is the profile's (an assumed value, as the profile says).
"""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

LAB6 = Path(__file__).resolve().parent.parent / "instructors" / "labs" / "lab6_multistream.ipynb"


@pytest.fixture(scope="module")
def key():
    return nbformat.read(str(LAB6), as_version=4)


def _cell(key, cid):
    return next(c for c in key.cells if c.get("id") == cid)


def _q2_answer(key):
    return next(c for c in key.cells if "answer" in c.metadata.get("tags", [])
                and "q2 = " in c.source)


def test_q2_key_takes_its_numbers_from_the_profile_not_from_the_page(key):
    """No timing or rate is typed into the solution or the question: the given cell prints
    them from the WD800JD profile and the thesis's numbers, and the solution uses the same."""
    sol = _q2_answer(key).source
    literals = {n.value for n in ast.walk(ast.parse(sol)) if isinstance(n, ast.Constant)
                and isinstance(n.value, int | float) and not isinstance(n.value, bool)}
    assert literals <= {2, 1024, 1e3}, literals  # halves, KiB and the ms -> s of MB/s only
    ask = next(c.source for c in key.cells if c.source.startswith("**q2.**"))
    for typed in ("8.9", "7,200", "7200", "0.5 ms", "55 MB"):
        assert typed not in ask, typed
    given = _cell(key, "q2-given")
    printed = "".join(o.get("text", "") for o in given.outputs)
    assert printed.startswith("q2: average seek 8.9 ms, 7,200 RPM, command overhead 0.5 ms; "
                              "55 MB/s sustained")


@pytest.mark.parametrize("kib", [32, 64, 128])
def test_q2_key_is_the_hand_estimate_from_the_thesis_numbers(key, kib):
    import simcore

    ns: dict = {"print": lambda *a, **k: None}
    for cid in ("432913cc", "7bef36f2", "q2-given"):  # parameters, setup, the given numbers
        exec(compile(_cell(key, cid).source, f"<lab6 {cid}>", "exec"), ns)
    ns["V"] = SimpleNamespace(**{**vars(ns["V"]), "kib": kib})
    exec(compile(_q2_answer(key).source, "<lab6 q2>", "exec"), ns)
    t_pos = 8.9 + 0.5 * 60_000 / 7_200 + 0.5  # ms: seek, half a revolution, overhead
    by_hand = kib * 1024 / (t_pos + kib * 1024 / 55e3) / 1e3
    assert ns["q2"] == pytest.approx(by_hand, rel=1e-12)
    if kib == 64:
        assert ns["q2"] == pytest.approx(4.44, abs=0.005)
    wd = simcore.load_disk("wd800jd")
    assert (wd.seek.average_ms, wd.rpm, wd.overheads.read_miss_ms) == (8.9, 7200, 0.5)


def test_the_served_job_takes_the_readers_spacing_from_its_one_definition(key):
    """The offset increment the grader requires in a student's fio report (SERVED_JOB) is
    predict.stream_increment, the function that also builds the fio command and the prediction;
    the key does not spell the formula again (a second spelling could drift from the first)."""
    from simcore.serve import predict

    src = _cell(key, "served-setup").source
    tree = ast.parse(src)
    job = next(n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == "SERVED_JOB" for t in n.targets))
    inc = next(v for k, v in zip(job.keys, job.values, strict=True)
               if isinstance(k, ast.Constant) and k.value == "offset_increment")
    assert isinstance(inc, ast.Call) and ast.unparse(inc.func) == \
        "served_predict.stream_increment", ast.unparse(inc)
    assert not any(isinstance(n, ast.FloorDiv) for n in ast.walk(tree)), ast.unparse(tree)
    # and it is what the key's stored fio report (20 readers of 128 KiB) ran with
    import simcore

    cap = simcore.Mechanism(simcore.load_disk("wd800jd")).layout.capacity * 512
    stored = str(_cell(key, "served-measure").outputs)
    assert f"--offset_increment={predict.stream_increment(cap, 20, 131072)} " in stored
