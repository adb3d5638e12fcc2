"""Side runs in the results cache (simcore.experiments.results.side): the sensitivity runs a
chapter shows are computed once per version of the code by the book build's fill, and the
chapter reads them from there.

Checked on a toy experiment (computed once, then read; another argument or other code is
another entry; the function's key order survives), and on the book itself: every side run a
chapter reads is one its module lists in ``SIDE_RUNS``, so the build's fill has computed it
before the chapter runs.
"""

from __future__ import annotations

import ast
import os
import re
import types
from pathlib import Path

import pytest

from simcore.experiments import results

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def toy(tmp_path, monkeypatch):
    calls = []

    def sweep(quick=True, seed=0, width=3):
        calls.append((quick, seed, width))
        return {"zeta": seed, "alpha": [width] * 2, "middle": {"9": 1, "10": 2}}

    mod = types.SimpleNamespace(NAME="toy", sweep=sweep, calls=calls,
                                SIDE_RUNS=(("sweep", {"quick": True, "seed": 0}),))
    monkeypatch.setenv("DISKLAB_RESULTS", str(tmp_path))
    monkeypatch.setattr(results, "get_experiment", lambda name: mod)
    monkeypatch.setattr(results, "names", lambda: ["toy"])
    monkeypatch.setattr(results, "get", lambda name, quick=False, seed=0: {})
    monkeypatch.setattr(results, "load", lambda name, quick=False, seed=0: {})
    return mod


def test_a_side_run_is_computed_once_then_read(toy):
    first = results.side("toy", "sweep", quick=True, seed=0)
    again = results.side("toy", "sweep", quick=True, seed=0)
    assert first == again == {"zeta": 0, "alpha": [3, 3], "middle": {"9": 1, "10": 2}}
    assert toy.calls == [(True, 0, 3)]
    # the function's order, not sorted: a chapter lays rows out in it
    assert list(again) == ["zeta", "alpha", "middle"] and list(again["middle"]) == ["9", "10"]


def test_other_arguments_or_other_code_are_other_entries(toy, monkeypatch):
    a = results.side_path("toy", "sweep", quick=True, seed=0)
    assert a != results.side_path("toy", "sweep", quick=True, seed=1)
    assert a != results.side_path("toy", "sweep", quick=True, seed=0, width=4)
    assert a != results.side_path("toy", "other", quick=True, seed=0)
    results.side("toy", "sweep", quick=True, seed=0)
    results.side("toy", "sweep", quick=True, seed=0, width=4)
    assert toy.calls == [(True, 0, 3), (True, 0, 4)]
    monkeypatch.setattr(results, "code_hash", lambda: "changed code")
    assert results.side_path("toy", "sweep", quick=True, seed=0) != a
    results.side("toy", "sweep", quick=True, seed=0)
    assert len(toy.calls) == 3


def test_fill_computes_the_side_runs_in_full_mode_only(toy):
    results.fill(quick=True, log=None)
    assert toy.calls == []
    out = results.fill(log=None)
    assert toy.calls == [(True, 0, 3)]
    assert out["toy.sweep"] == results.side_path("toy", "sweep", quick=True, seed=0)
    assert out["toy.sweep"].is_file()
    results.fill(log=None)
    assert toy.calls == [(True, 0, 3)]  # cached


def test_a_parallel_fill_stores_what_a_serial_one_does(tmp_path, monkeypatch):
    """Runs missing from the cache go side by side on one pool (``DISKLAB_JOBS``): a run with
    a sweep hands its points to that pool, and the files hold the same bytes as a serial fill."""
    def sweep(quick=True, seed=0, width=3, executor=None):
        xs = range(seed, seed + width)
        cubes = [f.result() for f in [executor.submit(pow, x, 3) for x in xs]] if executor \
            else [pow(x, 3) for x in xs]
        return {"zeta": seed, "cubes": cubes, "alpha": {"9": width, "10": 2}}

    mod = types.SimpleNamespace(NAME="toy", sweep=sweep, wide=sweep, SIDE_RUNS=(
        ("sweep", {"quick": True, "seed": 1}), ("wide", {"quick": True, "seed": 0, "width": 5})))
    monkeypatch.setattr(results, "get_experiment", lambda name: mod)
    monkeypatch.setattr(results, "names", lambda: ["toy"])
    monkeypatch.setattr(results, "load", lambda name, quick=False, seed=0: {})
    stored = {}
    for jobs in ("1", "2"):
        monkeypatch.setenv("DISKLAB_JOBS", jobs)
        monkeypatch.setenv("DISKLAB_RESULTS", str(tmp_path / jobs))
        said = []
        out = results.fill(log=said.append)
        assert list(out) == ["toy", "toy.sweep", "toy.wide"]
        assert out["toy.sweep"].is_file() and out["toy.wide"].is_file()
        assert len([s for s in said if "ran in" in s]) == 2
        assert any("on 2 processes" in s for s in said) == (jobs == "2")
        stored[jobs] = {p.name: p.read_bytes() for p in (tmp_path / jobs).iterdir()}
    assert stored["1"] == stored["2"] and len(stored["1"]) == 2
    assert stored["2"][out["toy.wide"].name] == (
        b'{"zeta": 0, "cubes": [0, 1, 8, 27, 64], "alpha": {"9": 5, "10": 2}}')


def test_jobs_follows_disklab_jobs(monkeypatch):
    monkeypatch.setenv("DISKLAB_JOBS", "3")
    assert results.jobs() == 3
    monkeypatch.setenv("DISKLAB_JOBS", "0")
    with pytest.raises(ValueError, match="DISKLAB_JOBS"):
        results.jobs()
    monkeypatch.delenv("DISKLAB_JOBS")
    assert results.jobs() == (os.cpu_count() or 1)


def _side_calls(text: str) -> list[tuple[str, str, dict]]:
    """Every ``results.side("name", "function", k=v, ...)`` call in a chapter's code."""
    calls = []
    for m in re.finditer(r"results\.side\((.*?)\)", text):
        node = ast.parse(f"f({m.group(1)})", mode="eval").body
        args = [ast.literal_eval(a) for a in node.args]
        kw = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
        calls.append((args[0], args[1], kw))
    return calls


def test_every_side_run_a_chapter_reads_is_filled_by_the_build():
    found = []
    for md in sorted((ROOT / "book").glob("*.md")):
        for name, fn, params in _side_calls(md.read_text(encoding="utf-8")):
            found.append(fn)
            assert (fn, params) in results.side_runs(name), (
                f"{md.name} reads results.side({name!r}, {fn!r}, {params}), which {name}'s "
                "SIDE_RUNS does not list: the build would run it inside the chapter")
    assert {"email_write_mix", "dwell_sweep"} <= set(found)
