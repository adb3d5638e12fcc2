"""Labs 2 and 3, q9: graded on the student's own served drive, measured with fio in the test.

For each lab the test serves the drive of one student ("keyself") with ``python -m simcore
serve`` and runs the lab's two fio jobs against it, as long as the lab runs them (the prediction
is for that run time: a queue policy's start-up transient is part of it), attaches
both reports to the key, and grades four copies in one parallel batch:

- the key with its own measurement: full marks (q9 judged against simcore's prediction);
- the same notebook handed in by a classmate: zero for q9 (the reports name another drive);
- the same notebook with one number of one report edited: zero for q9 (fio's numbers disagree);
- the key without its measurement: loses exactly q9's points.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat
import pytest
from conftest import require_tool

from simcore.labkit import attach, emulated, served_demo
from simcore.labkit.grade import Key, Options, grade

ROOT = Path(__file__).resolve().parent.parent
LABS = {"lab2": ROOT / "instructors" / "labs" / "lab2_interface_cache.ipynb",
        "lab3": ROOT / "instructors" / "labs" / "lab3_scheduling.ipynb"}
SECRET = b"test-secret-" + b"2" * 32


def jobs(lab: str, seed: int) -> tuple[dict, str]:
    """The lab's measuring cell's fio jobs for the variant of ``seed`` (kind -> serve, fio, tag)."""
    spec = (served_demo.lab2_jobs if lab == "lab2" else served_demo.lab3_jobs)(seed)
    return spec["jobs"], spec["token"]


def with_measurements(nb, atts: list[dict]):
    out = copy.deepcopy(nb)
    attach.put(out, "served-measure", *atts)
    return out


def edited(att: dict) -> dict:
    """The report with its IOPS raised by a tenth, as a student might 'improve' it."""
    raw = att["raw"]
    rep = json.loads(raw[raw.index("{"):])
    rep["jobs"][0]["read"]["iops"] *= 1.1
    return {**att, "raw": json.dumps(rep)}


@pytest.fixture(scope="module", params=sorted(LABS))
def graded(request, tmp_path_factory):
    require_tool("fio")
    lab = request.param
    key = Key(LABS[lab], SECRET)
    spec, _ = jobs(lab, key.seed("keyself"))
    atts = []
    for kind, (serve, fio_args, tag) in spec.items():
        emulated.fio_served(kind, serve, fio_args, tag=tag)
        atts.append(attach.latest(kind))
    d = tmp_path_factory.mktemp(f"served-{lab}")
    own = with_measurements(key.nb, atts)
    for sub, nb in (("own", own), ("classmate", own),
                    ("edited", with_measurements(key.nb, [edited(atts[0]), *atts[1:]])),
                    ("missing", with_measurements(key.nb, []))):
        (d / sub).mkdir()
        name = "alice" if sub == "classmate" else "keyself"
        nbformat.write(nb, str(d / sub / f"{name}.ipynb"))
    subs = sorted(d.glob("*/*.ipynb"))
    k, results = grade(LABS[lab], subs, jobs=2, secret=SECRET,
                       opts=Options(cell_timeout=120, timeout=600))
    return k, {Path(r.path).parent.name: r for r in results}


def lost(key, result) -> dict[str, float]:
    return {q: key.max[q] - result.scores[q] for q in key.info.questions
            if result.scores[q] != key.max[q]}


def test_the_key_scores_q9_on_its_own_measurement(graded):
    key, by = graded
    assert key.spec["q9"].judge["combine"] == "ratio"
    assert lost(key, by["own"]) == {}, (by["own"].losses, by["own"].lines)


def test_a_classmates_measurement_gets_zero(graded):
    key, by = graded
    assert lost(key, by["classmate"]) == {"q9": key.max["q9"]}, by["classmate"].lines
    assert "not of the drive you were given" in by["classmate"].lines["q9"][0]


def test_an_edited_report_gets_zero(graded):
    key, by = graded
    # refused twice: the lab's own reading cell cannot read it back (fio's numbers disagree), and
    # the judge refuses the attachment itself
    assert lost(key, by["edited"]) == {"q9": key.max["q9"]}, by["edited"].lines
    from simcore.labkit import judges
    ok, why = judges.run(key.spec["q9"].judge, 1.0, None, by["edited"].attachments)
    assert not ok and "contradict one another" in why


def test_a_missing_measurement_loses_exactly_q9(graded):
    key, by = graded
    assert lost(key, by["missing"]) == {"q9": key.max["q9"]}, by["missing"].lines
