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
