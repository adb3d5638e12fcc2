"""Archived full runs (simcore.experiments.archive): the rows the book assembles must be the rows
the code produces today.

The machinery is tested on a toy experiment (stale sweeps refused, edited rows caught, an
interrupted run resumed); the real archive (placement's 125-point full run, about 2.5
CPU-hours) is checked by replaying its sample of points in full and comparing bit for bit.
"""

from __future__ import annotations

import json
import types
from concurrent.futures import ProcessPoolExecutor

import pytest

from simcore.experiments import archive


def _toy(n_points: int = 4):
    calls = []

    def points(quick=False, seed=0):
        return [{"x": i, "quick": quick, "seed": seed} for i in range(n_points)]

    def run_point(x, quick, seed):
        calls.append(x)
        return {"square": x * x + seed, "half": x / 2}

    def assemble(rows, quick=False, seed=0):
        return {"total": sum(r["square"] for r in rows), "n": len(rows)}

    mod = types.SimpleNamespace(NAME="toy", ARCHIVED=True, points=points, run_point=run_point,
                                assemble=assemble, ARCHIVE_SAMPLE=({"x": 2},), calls=calls)
    return mod


@pytest.fixture
def toy(tmp_path, monkeypatch):
    mod = _toy()
    monkeypatch.setattr(archive, "get_experiment", lambda name: mod)
    monkeypatch.setattr(archive, "archive_dir", lambda: tmp_path)
    monkeypatch.setattr(archive, "REPO", tmp_path)
    return mod


def test_build_then_assemble_uses_the_rows(toy):
    p = archive.build("toy", log=None)
    assert p.name == "toy-full-s0.json"
    assert toy.calls == [0, 1, 2, 3]
    result = archive.assemble("toy")
    assert result["total"] == 0 + 1 + 4 + 9 and result["n"] == 4
    assert result["archive"]["command"] == "python -m simcore results archive toy --seed 0"
    assert archive.sample("toy") == [2]
    assert archive.verify("toy", which=archive.sample("toy")) == []


def test_a_changed_sweep_makes_the_archive_stale(toy):
    archive.build("toy", log=None)
    toy.points = lambda quick=False, seed=0: [{"x": i, "quick": quick, "seed": seed}
                                              for i in range(5)]
    assert archive.load("toy") is None and archive.assemble("toy") is None
    assert "no current archive" in archive.verify("toy")[0]


def test_an_edited_row_is_caught(toy):
    p = archive.build("toy", log=None)
    data = json.loads(p.read_text())
    data["points"][2]["row"]["square"] = 5  # a hand-improved number
    p.write_text(json.dumps(data))
    problems = archive.verify("toy", which=[1, 2])
    assert len(problems) == 1 and problems[0].startswith("point 2 ") and "square" in problems[0]


def test_a_float_moved_in_its_last_digits_is_caught(toy):
    """Bit for bit: a mean that moves by 1e-12 relative (a seek of -1e-14 ms clamped at zero
    does that to placement's means) is a different number, and the archive must be remade."""
    p = archive.build("toy", log=None)
    data = json.loads(p.read_text())
    data["points"][1]["row"]["half"] *= 1 + 1e-12
    p.write_text(json.dumps(data))
    problems = archive.verify("toy", which=[1, 2])
    assert len(problems) == 1 and problems[0].startswith("point 1 ") and "half" in problems[0]


def test_points_outside_the_archive_are_refused(toy):
    archive.build("toy", log=None)
    with pytest.raises(ValueError, match=r"\[7\] are not in the archive of 'toy' \(0 to 3\)"):
        archive.verify("toy", which=[1, 7])


def test_an_interrupted_run_resumes(toy, tmp_path):
    partial = tmp_path / "toy-full-s0.json.partial"
    partial.write_text(json.dumps({"point": {"x": 0, "quick": False, "seed": 0},
                                   "row": {"square": 0, "half": 0.0}}) + "\n")
    archive.build("toy", log=None)
    assert toy.calls == [1, 2, 3] and not partial.exists()


def test_a_sample_entry_must_pick_one_point(toy):
    toy.ARCHIVE_SAMPLE = ({"quick": False},)
    with pytest.raises(ValueError, match="picks 4 points"):
        archive.sample("toy")


# --- the real archive ----------------------------------------------------------------------


def test_placement_archive_is_current():
    prov = archive.provenance("placement")
    assert prov is not None, (
        f"{archive.path('placement')} is missing or its points are not the sweep placement "
        "runs now: remake it with python -m simcore results archive placement (~2.5 CPU-hours)")
    assert prov["command"].startswith("python -m simcore results archive placement")
    assert len(archive.rows("placement")) == 125


def test_placement_archive_sample_replays_bit_for_bit():
    """Seed 003 §3.5's full run: the sampled points replayed in full mode (a minute or two each)
    must give the archived rows exactly, or the book is showing numbers the code no longer
    makes."""
    which = archive.sample("placement")
    assert len(which) >= 2
    with ProcessPoolExecutor(max_workers=2) as pool:
        assert archive.verify("placement", which=which, executor=pool) == []


def test_a_stale_archive_stops_the_build_instead_of_running_for_hours(tmp_path, monkeypatch):
    from simcore.experiments import results

    monkeypatch.setenv("DISKLAB_RESULTS", str(tmp_path))  # nothing cached
    monkeypatch.setattr(archive, "assemble", lambda name, seed=0: None)
    with pytest.raises(RuntimeError, match="results archive placement"):
        results.get("placement")
