"""Labs 5 and 6 grade a measurement of the student's own served drive (issues 16 and 18).

For each lab, fio measures the served drive in the test (as the lab's measuring cell does,
with shorter runtimes), and the lab's key is graded with nbval in the sandbox:

- the key with its own measurement scores full marks (the measured questions judged against
  the simulator's prediction for that variant's drive and jobs);
- a classmate's copy of it (measurement and all) gets zero for the measured questions, and
  only for them: the report names another student's drive;
- an edited report gets zero for the question that reads it, and only for it (the lab's data
  cell refuses it, so the answer stays None);
- without a measurement, exactly the measured questions' points are lost.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat
import pytest
from conftest import require_tool

from simcore.labkit import attach, emulated
from simcore.labkit.grade import Key, Options, grade

ROOT = Path(__file__).resolve().parent.parent
LABS = ROOT / "instructors" / "labs"
SECRET = b"test-secret-" + b"5" * 32
# lab -> (measuring cell, setup cells to run in-process, kinds with their fio args and serve args,
#         the measured questions, the kind to edit and the question it costs)
CASES = {
    "lab5": ("lab5_traxtents.ipynb", ["44d1eb42", "9d639aae", "served-setup"],
             lambda ns: [("lab5-aligned", ns["FIO_ALIGNED"]), ("lab5-shifted", ns["FIO_SHIFTED"])],
             lambda ns: ["--disk", ns["V"].disk], {"q9", "q10"}, ("lab5-shifted", {"q9"})),
    "lab6": ("lab6_multistream.ipynb", ["432913cc", "7bef36f2", "served-setup"],
             lambda ns: [("lab6-streams", ns["FIO_STREAMS"])],
             lambda ns: ["--disk", "wd800jd"], {"q8"}, ("lab6-streams", {"q8"})),
}
SHORT = {"--runtime=3": "--runtime=2", "--ramp_time=1": "--ramp_time=0.5"}


def variant_namespace(path: Path, cells: list[str], seed: int) -> dict:
    """The lab's own setup cells run in-process for one variant (its V and fio options)."""
    nb = nbformat.read(str(path), as_version=4)
    ns: dict = {}
    src = {c.id: c.source for c in nb.cells}
    for cid in cells:
        code = src[cid]
        if cid == cells[0]:
            code += f"\nSEED = {seed}\n"
        exec(compile(code, f"<{path.stem}:{cid}>", "exec"), ns)  # the lab's own code
    return ns


def measure(lab: str, key: Key, student_id: str) -> list[dict]:
    """What the student's measuring cell attaches: fio on the student's own served drive."""
    name, cells, jobs, serve, *_ = CASES[lab]
    ns = variant_namespace(LABS / name, cells, key.seed(student_id))
    out = []
    for kind, args in jobs(ns):
        # fio_served takes a run again while the server answers late (the machine busy),
        # ATTEMPTS runs at most, and keeps the least late; a late run measures a slower drive
        # than the model, which the judge rightly refuses. The test is about grading, not
        # about the load of the machine it runs on, so it allows more runs, as a student
        # told by the warning would run the cell again
        attempts, emulated.ATTEMPTS = emulated.ATTEMPTS, 3 * emulated.ATTEMPTS
        try:
            emulated.fio_served(kind, serve(ns), [SHORT.get(a, a) for a in args],
                                tag=ns["V"].token)
        finally:
            emulated.ATTEMPTS = attempts
        out.append(attach.latest(kind))
    return out


def with_attachments(nb, atts: list[dict]):
    nb = copy.deepcopy(nb)
    attach.put(nb, "served-measure", *atts)
    return nb


def edited(att: dict) -> dict:
    """The report with its bandwidth raised by a tenth (the numbers no longer agree)."""
    raw = att["raw"]
    rep = json.loads(raw[raw.index("{"):])
    rd = rep["jobs"][0]["read"]
    rd["bw_bytes"] = int(rd["bw_bytes"] * 1.1)
    rd["bw"] = int(rd["bw"] * 1.1)
    return {**att, "raw": json.dumps(rep)}


@pytest.fixture(scope="module", params=sorted(CASES))
def graded(request, tmp_path_factory):
    require_tool("fio")
    lab = request.param
    name, _, _, _, measured_qs, (edit_kind, edit_qs) = CASES[lab]
    path = LABS / name
    key = Key(path, SECRET)
    key_nb = nbformat.read(str(path), as_version=4)
    d = tmp_path_factory.mktemp(f"{lab}-submissions")
    own = with_attachments(key_nb, measure(lab, key, "keyself"))
    nbformat.write(own, str(d / "keyself.ipynb"))
    nbformat.write(own, str(d / "classmate.ipynb"))  # a copy of keyself's, measurement and all
    atts = measure(lab, key, "editor")
    nbformat.write(with_attachments(key_nb, [edited(a) if a["kind"] == edit_kind else a
                                             for a in atts]), str(d / "editor.ipynb"))
    nbformat.write(with_attachments(key_nb, []), str(d / "nomeasure.ipynb"))
    key, results = grade(path, sorted(d.glob("*.ipynb")), jobs=2, secret=SECRET,
                         opts=Options(cell_timeout=120, timeout=600))
    return key, {Path(r.path).stem: r for r in results}, measured_qs, edit_qs


def lost(key, result) -> set[str]:
    return {q for q in key.info.questions if result.scores[q] != key.max[q]}


def test_the_key_with_its_own_measurement_gets_full_marks(graded):
    key, by, measured_qs, _ = graded
    r = by["keyself"]
    assert lost(key, r) == set(), {q: (r.lines[q], r.losses.get(q)) for q in lost(key, r)}
    assert measured_qs <= set(key.info.questions)


def test_a_classmates_measurement_gets_zero_for_the_measured_questions_only(graded):
    key, by, measured_qs, _ = graded
    r = by["classmate"]
    assert lost(key, r) == measured_qs
    assert all(r.scores[q] == 0 for q in measured_qs)
    # the classmate's jobs (their sizes, offsets, stream counts) or their drive's name
    assert all(any("not of the drive you were given" in line or "not the job" in line
                   for line in r.lines[q]) for q in measured_qs), r.lines


def test_an_edited_report_gets_zero_for_the_question_that_reads_it(graded):
    key, by, _, edit_qs = graded
    r = by["editor"]
    assert lost(key, r) == edit_qs, {q: r.lines[q] for q in lost(key, r)}
    assert all(r.scores[q] == 0 for q in edit_qs)


def test_a_missing_measurement_loses_exactly_the_measured_questions(graded):
    key, by, measured_qs, _ = graded
    r = by["nomeasure"]
    assert lost(key, r) == measured_qs
    assert sum(key.max.values()) - r.total == pytest.approx(sum(key.max[q] for q in measured_qs))
