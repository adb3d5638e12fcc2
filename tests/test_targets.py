"""Every experiment's reproduction targets, one generated test per target.

Three things are checked for each target declared in an experiment's ``TARGETS``
(:mod:`simcore.experiments.targets`):

- **well-formed**: a real key, a paper value, a bound, a source naming the seed, the note file
  and a line, and a quote of that line;
- **not loosened**: the tolerance applied accepts nothing the note's tolerance rejects, or a
  written reason says why (and a target whose note gives no tolerance must say where its
  tolerance comes from); the note's line really contains the quoted text;
- **evaluated**: the quick run's and the book's full run's evaluation row for it carries the
  paper value, tolerance, source, simulated value and met/missed, and ``met`` agrees with the
  bound; README's "N of M targets met" is the full runs' count.

A missed target does not fail here: it is reported (``reproduce``, the status page) with its
reason. A malformed or silently loosened target does fail.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import require

from simcore import experiments
from simcore.experiments import targets as tg

ROOT = Path(__file__).resolve().parent.parent
NOTES = (ROOT / tg.NOTES_DIR).resolve()
NOTE_FILES = ("000_gray_dma.md", "001_linux_schedulers.md", "002_traxtents.md",
              "003_block_reorg.md", "004_multistream.md")
FIELDS = {"key", "what", "paper", "units", "tolerance", "lo", "hi", "note_tolerance",
          "tolerance_reason", "source", "known_deviation", "simulated", "met", "status",
          "condition", "ci95", "premise"}

ALL = [(name, t) for name in experiments.names() for t in experiments.get(name).TARGETS]
IDS = [f"{name}:{t.key}" for name, t in ALL]


def test_every_experiment_declares_targets_and_most_have_some():
    for name in experiments.names():
        ts = experiments.get(name).TARGETS
        assert isinstance(ts, tuple), name
        assert all(isinstance(t, tg.Target) for t in ts), name
        keys = [t.key for t in ts]
        assert len(keys) == len(set(keys)), f"{name}: a key declared twice"
    assert len(ALL) >= 60


@pytest.mark.parametrize("name,target", ALL, ids=IDS)
def test_target_is_well_formed(name, target):
    t = target
    assert t.key and t.what and t.paper is not None
    assert isinstance(t.bound, tg.Bound)
    if t.bound.kind == "equal":
        assert isinstance(t.paper, bool | int | float)
    elif t.bound.kind in ("abs", "rel"):
        assert isinstance(t.paper, int | float) and not isinstance(t.paper, bool)
    s = t.source
    if s.seed == "DiskSim":  # the validation suite: DiskSim's own results on its traces
        assert s.note == "../validation/README.md"
    else:
        assert len(s.seed) == 3 and s.seed.isdigit()
        assert s.note in NOTE_FILES and s.note.startswith(s.seed)
    assert s.line > 0 and s.quote.strip() and s.where.strip()
    if t.known_deviation is not None:
        assert len(t.known_deviation) > 20


@pytest.mark.parametrize("name,target", ALL, ids=IDS)
def test_tolerance_is_the_notes_or_says_why(name, target):
    """The rule of issue 19: never wider than the note without a written reason."""
    if target.note_bound is None:
        assert target.tolerance_reason, "the note gives no tolerance: say where this one is from"
    elif not target.bound.within(target.note_bound, target.paper):
        assert target.tolerance_reason, (
            f"{target.bound.text(target.paper)} is wider than the note's "
            f"{target.note_bound.text(target.paper)} and no reason is given")
    if target.tolerance_reason is not None:
        assert len(target.tolerance_reason) > 20


@pytest.mark.parametrize("name,target", ALL, ids=IDS)
def test_source_quote_is_on_the_cited_line(name, target):
    require(NOTES.is_dir(), f"the extraction notes are not at {NOTES} (CI clones ../shared)")
    lines = (NOTES / target.source.note).read_text(encoding="utf-8").splitlines()
    assert target.source.line <= len(lines)
    line = lines[target.source.line - 1]
    assert target.source.quote in line, (
        f"{target.source.note}:{target.source.line} does not contain {target.source.quote!r}: "
        f"{line[:160]!r}")


@pytest.mark.parametrize("mode", ["quick", "full"])
@pytest.mark.parametrize("name", experiments.names())
def test_evaluation_is_well_formed(name, mode, any_result):
    """Quick mode as run here, and the full run the book shows (read from the results cache)."""
    res = any_result(name, mode)
    rows = res["targets"]
    if mode == "full":
        assert all(r["status"] != "not run" for r in rows)
        # the stored evaluation is what the current declarations give for the stored numbers
        again = json.loads(json.dumps(tg.evaluate(experiments.get(name).TARGETS, res)))
        assert rows == again
    decl = experiments.get(name).TARGETS
    assert [r["key"] for r in rows] == [t.key for t in decl]
    json.dumps(rows)
    for t, r in zip(decl, rows, strict=True):
        assert set(r) == FIELDS
        assert r["paper"] == t.paper and r["tolerance"] == t.bound.text(t.paper)
        assert r["source"]["note"] == t.source.note and r["source"]["line"] == t.source.line
        assert r["status"] in ("met", "missed", "not run")
        if r["status"] == "not run":
            assert t.full_only and r["simulated"] is None and r["met"] is None
            continue
        value = tg.lookup(res, t.key)
        assert r["simulated"] == value
        if not isinstance(value, bool):
            assert isinstance(value, int | float) and math.isfinite(value)
        assert r["met"] is t.judge(res)["met"]
        # a premise or an interval only ever turns a met target into a missed one
        if r["met"]:
            assert t.bound.accepts(value, t.paper)
        assert r["condition"] == t.condition()
        if t.premise is not None:
            assert r["premise"]["holds"] is t.premise.bound.accepts(
                tg.lookup(res, t.premise.key), t.premise.paper)
            if not r["premise"]["holds"]:
                assert r["met"] is False
        if t.ci_key is not None:
            h = tg.lookup(res, t.ci_key)
            assert r["ci95"] == h
            if r["met"]:
                assert t.bound.accepts(value - h, t.paper) and t.bound.accepts(value + h, t.paper)
        assert r["status"] == ("met" if r["met"] else "missed")
        if mode == "full" and r["status"] == "missed":
            # the status page shows why each miss of the book's runs happens: never a bare miss
            assert r["known_deviation"], f"{name}: {t.key} is missed and says not why"


def test_readme_states_the_count(full_result):
    """README's one-line summary is the full runs' count, so it cannot drift."""
    met = total = 0
    for name in experiments.names():
        s = tg.summary(full_result(name)["targets"])
        met, total = met + s["met"], total + s["total"]
    line = f"{met} of {total} targets met"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert line in readme, f"README must say '{line}' (python -m simcore reproduce --summary)"


# -- the checks themselves can fail --------------------------------------------------------------

def test_a_wider_tolerance_is_caught():
    src = tg.Source("002", "Figure 1", "002_traxtents.md", 426, "±0.02")
    wide = tg.Target("x", "x", 0.73, tg.pm(0.03), src, note_bound=tg.pm(0.02))
    assert wide.loosened()
    same = tg.Target("x", "x", 0.73, tg.pm(0.02), src, note_bound=tg.pm(0.02))
    assert not same.loosened()
    tighter = tg.Target("x", "x", 0.73, tg.pm(0.01), src, note_bound=tg.pm(0.02))
    assert not tighter.loosened()
    assert tg.Target("x", "x", 0.73, tg.pm(0.02), src, note_bound=None).loosened()


@pytest.mark.parametrize("bound,note,paper,within", [
    (tg.between(0, 20), tg.between(5, 15), 10, False),   # multistream's old 0-20 vs 5-15
    (tg.between(5, 15), tg.between(5, 15), 10, True),
    (tg.rel(0.10), tg.rel(0.15), 40, True),
    (tg.rel(0.20), tg.rel(0.15), 40, False),
    (tg.between(15, None), tg.between(25, None), 36, False),  # placement's old 15 pp vs 25
    (tg.between(None, 2.0), tg.between(None, 1.0, strict=True), 0.3, False),
    (tg.between(None, 1.0, strict=True), tg.between(None, 1.0, strict=True), 0.3, True),
    (tg.between(None, 1.0), tg.between(None, 1.0, strict=True), 0.3, False),
    (tg.holds(), tg.holds(), True, True),
    (tg.pm(0.3), tg.pm(0.1), 0.4, False),                 # traxtents' old sd +-0.3 vs +-0.1
])
def test_bound_within(bound, note, paper, within):
    assert bound.within(note, paper) is within


def test_bound_accepts_and_text():
    assert tg.rel(0.25).accepts(6.26, 7.227) and not tg.rel(0.25).accepts(5.0, 7.227)
    assert tg.between(None, 0, strict=True).accepts(-0.1, -6.97)
    assert not tg.between(None, 0, strict=True).accepts(0.0, -6.97)
    assert not tg.pm(1).accepts(float("nan"), 0)
    assert not tg.pm(1).accepts(True, 1)  # a yes/no is not a number
    assert tg.holds().accepts(False, False) and not tg.holds().accepts(True, False)
    assert tg.between(2.2, 2.4).text(2.26) == "2.2 to 2.4"
    assert tg.pm(0.02).text(0.73) == "±0.02" and tg.rel(0.15).text(40) == "±15%"
    with pytest.raises(ValueError):
        tg.Bound("range", 3, 2)
    with pytest.raises(ValueError):
        tg.Bound("wide", 1)


def test_evaluate_reports_a_miss_without_raising():
    src = tg.Source("004", "§5.2", "004_multistream.md", 425, "±10%")
    t = tg.Target("a.b", "x", 45.0, tg.rel(0.10), src, note_bound=tg.rel(0.10),
                  known_deviation="the zones of this profile are slower inside")
    rows = tg.evaluate((t,), {"a": {"b": 39.8}})
    assert rows[0]["status"] == "missed" and rows[0]["met"] is False
    assert rows[0]["lo"] == pytest.approx(40.5) and rows[0]["hi"] == pytest.approx(49.5)
    with pytest.raises(KeyError, match="a.c"):
        tg.evaluate((tg.Target("a.c", "x", 1.0, tg.pm(1), src, note_bound=None),), {"a": {}})


def test_a_reason_quotes_the_runs_own_numbers():
    """``{key:spec}`` in a known deviation is filled from the result; a stale key fails."""
    src = tg.Source("004", "§5.2", "004_multistream.md", 425, "±10%")
    t = tg.Target("a.b", "x", 45.0, tg.rel(0.10), src, note_bound=tg.rel(0.10),
                  known_deviation="{a.b:.1f} MB/s, {a.why} (seek {a.seek_ms:.2f} ms)")
    rows = tg.evaluate((t,), {"a": {"b": 39.84, "why": "slow zones", "seek_ms": 5.759}})
    assert rows[0]["known_deviation"] == "39.8 MB/s, slow zones (seek 5.76 ms)"
    with pytest.raises(KeyError, match="known_deviation of target 'a.b'.*seek_ms"):
        tg.evaluate((t,), {"a": {"b": 39.84, "why": "slow zones"}})


def test_a_target_not_run_has_no_reason_to_fill():
    """Quick mode does not run a full-only target: its reason, which may quote numbers only the
    full run computes, is not filled (None); the full run fills it and a stale key fails there."""
    src = tg.Source("004", "§5.2", "004_multistream.md", 425, "±10%")
    t = tg.Target("a.b", "x", 45.0, tg.rel(0.10), src, note_bound=tg.rel(0.10), full_only=True,
                  known_deviation="seeks take {a.seek_ms:.1f} ms")
    row = tg.evaluate((t,), {}, quick=True)[0]
    assert row["status"] == "not run" and row["known_deviation"] is None
    assert tg.evaluate((t,), {"a": {"b": 39.8, "seek_ms": 5.76}})[0]["known_deviation"] == \
        "seeks take 5.8 ms"
    with pytest.raises(KeyError, match="seek_ms"):
        tg.evaluate((t,), {"a": {"b": 39.8}})


def test_a_broken_premise_misses_the_target():
    """A claim that assumes something else of the result (the single zone gains) is missed when
    the result breaks the assumption, whatever the target's own value."""
    src = tg.Source("003", "Table 3.5", "003_block_reorg.md", 459, "≥ 25")
    premise = tg.Premise("single", tg.between(0.0, None), "the single zone does not lose", 9.96)
    t = tg.Target("gap", "x", 36.15, tg.between(25.0, None), src,
                  note_bound=tg.between(25.0, None), premise=premise)
    met, missed = tg.evaluate((t,), {"gap": 30.0, "single": 5.0})[0], \
        tg.evaluate((t,), {"gap": 54.0, "single": -37.7})[0]
    assert met["status"] == "met" and met["premise"]["holds"] is True
    assert missed["status"] == "missed" and missed["premise"]["holds"] is False
    assert missed["premise"]["value"] == -37.7
    assert tg.accepted(missed) == ">= 25, if the single zone does not lose (>= 0)"
    assert not t.loosened()  # the premise narrows, the bound stays the note's


def test_a_difference_inside_its_interval_is_not_met():
    """With ``ci_key`` the whole confidence interval must lie inside the bound."""
    src = tg.Source("003", "Table 3.3", "003_block_reorg.md", 466, "30k is worse than 50k")
    t = tg.Target("d", "x", 9.41, tg.between(0.0, None, strict=True), src,
                  note_bound=tg.between(0.0, None, strict=True), ci_key="h")
    assert tg.evaluate((t,), {"d": 0.17, "h": 2.94})[0]["status"] == "missed"
    assert tg.evaluate((t,), {"d": 3.0, "h": 2.94})[0]["status"] == "met"
    assert tg.evaluate((t,), {"d": 3.0, "h": float("nan")})[0]["status"] == "missed"
    row = tg.evaluate((t,), {"d": 0.17, "h": 2.94})[0]
    assert row["ci95"] == 2.94 and tg.accepted(row) == "> 0, with its whole 95% CI"
