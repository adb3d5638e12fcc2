"""Wrong answers that fit a classmate's variant (simcore.labkit.copying), without running kernels.

The rule on a class of the template lab (q1 and q2, each within 1 %): a copier's two wrong
answers that are one classmate's right ones flag the copier with that classmate; one such answer
(an honest slip can make one) does not; a value the student's own variant shares with the
classmate's, or one that fits many classmates, does not count; a student with every answer right
is never flagged; the flag reaches the instructor's files and never the student's feedback. The
end-to-end case (a notebook carrying a classmate's numbers, graded in sandboxes) is in
test_grading.py.
"""

from __future__ import annotations

import csv

import nbformat
import pytest

from simcore.labkit import copying
from simcore.labkit.demo import template_lab
from simcore.labkit.grade import Key, Result
from simcore.labkit.report import write_report

SECRET = b"test-secret-" + b"2" * 32


@pytest.fixture
def key(tmp_path):
    path = tmp_path / "template.ipynb"
    nbformat.write(template_lab(), str(path))
    k = Key(path, SECRET)
    yield k
    k.close()


def variant(rpm: float) -> dict:
    return {"q1": 30_000 / rpm, "q2": 60_000 / rpm}


def hand_in(sid: str, q1=None, q2=None) -> Result:
    got = {q: ({"present": True, "value": v, "problem": ""} if v is not None
               else {"present": False, "value": None, "problem": "not answered"})
           for q, v in (("q1", q1), ("q2", q2))}
    return Result(f"/subs/{sid}.ipynb", sid, "file name", received=got)


def copy_flags(r: Result) -> list[str]:
    return [f for f in r.flagged if f.startswith(copying.FLAG)]


def test_two_wrong_answers_from_one_classmates_variant_flag_the_copier_with_that_classmate(key):
    rpms = {"ada": 7200, "eve": 15000, "cy": 10000, "dee": 3600}
    expected = {s: variant(r) for s, r in rpms.items()}
    ada = hand_in("ada", *expected["ada"].values())  # all right
    eve = hand_in("eve", *expected["ada"].values())  # Ada's two numbers
    cy = hand_in("cy", 60_000 / 10_000, expected["cy"]["q2"])  # a whole revolution: q1 wrong
    dee = hand_in("dee")  # nothing answered
    results = [ada, eve, cy, dee]
    found = copying.mark(key, results, expected)
    assert copy_flags(eve) == [copying.flag_text("ada", ["q1", "q2"])]
    assert eve.copy_matches == {"q1": ["ada"], "q2": ["ada"]}
    assert not copy_flags(ada) and not ada.copy_matches  # right answers name nobody
    assert not any(copy_flags(r) for r in (cy, dee))
    assert [m for m in found if m.student != "eve"] == []
    # marking again (a regrade) replaces the flags instead of adding to them
    copying.mark(key, results, expected)
    assert len(copy_flags(eve)) == 1


def test_one_match_is_a_possible_slip_and_is_not_flagged(key):
    # Cy's whole revolution at 7,200 RPM is the right half revolution at 3,600 RPM (Dee's)
    expected = {"cy": variant(7200), "dee": variant(3600), "ada": variant(5400)}
    cy = hand_in("cy", 60_000 / 7200, expected["cy"]["q2"])
    results = [cy, hand_in("dee", *expected["dee"].values()), hand_in("ada")]
    found = copying.mark(key, results, expected)
    assert [(m.student, m.question, m.others) for m in found] == [("cy", "q1", ("dee",))]
    assert not copy_flags(cy)


def test_a_value_the_students_own_variant_shares_is_no_evidence(key):
    # Bo's answers are within the tolerance of Fay's own (1 %): copying them would be right,
    # so Fay's wrong answers near them name nobody; a third student's differ and do count
    expected = {"fay": {"q1": 5.55, "q2": 11.10}, "bo": {"q1": 5.58, "q2": 11.16},
                "gil": {"q1": 7.0, "q2": 14.0}}
    fay = hand_in("fay", 5.63, 11.26)  # wrong for Fay, within 1 % of Bo's
    assert not copying.find(key, [fay, hand_in("bo"), hand_in("gil")], expected)
    fay2 = hand_in("fay", 7.0, 14.0)  # Gil's
    copying.mark(key, [fay2, hand_in("bo"), hand_in("gil")], expected)
    assert copy_flags(fay2) == [copying.flag_text("gil", ["q1", "q2"])]


def test_an_answer_that_fits_many_classmates_does_not_count(key):
    # 60 classmates: a match may name at most one of them (2 % of 60, rounded down); a value
    # that three classmates' variants give (a spindle speed many drew) names too many
    rpms = [3600 + 100 * i for i in range(57)] + [15000, 15000, 15000]
    expected = {f"s{i:02d}": variant(r) for i, r in enumerate(rpms)}
    expected["me"] = variant(7200)
    common = hand_in("me", *variant(15000).values())
    results = [common, *(hand_in(s) for s in expected if s != "me")]
    assert not copying.find(key, results, expected)
    rare = hand_in("me", *variant(3600).values())  # only s00's
    copying.mark(key, [rare, *results[1:]], expected)
    assert copy_flags(rare) == [copying.flag_text("s00", ["q1", "q2"])]


def test_the_flag_reaches_the_instructors_files_and_never_the_feedback(key, tmp_path):
    expected = {"ada": variant(7200), "eve": variant(15000)}
    ada = hand_in("ada", *expected["ada"].values())
    eve = hand_in("eve", *expected["ada"].values())
    for r in (ada, eve):
        r.scores = {"q1": 0.0, "q2": 0.0} if r is eve else {"q1": 1.0, "q2": 2.0}
    copying.mark(key, [ada, eve], expected)
    out = tmp_path / "grades.csv"
    write_report(key, [ada, eve], out, tmp_path / "feedback", layers={"layers": [],
                                                                     "missing": []})
    with open(out, encoding="utf-8", newline="") as fh:
        rows = {r["student"]: r for r in csv.DictReader(fh)}
    assert rows["eve"]["flags"] == copying.flag_text("ada", ["q1", "q2"])
    assert rows["ada"]["flags"] == ""
    with open(tmp_path / "grades_copying.csv", encoding="utf-8", newline="") as fh:
        found = list(csv.DictReader(fh))
    assert [(r["student"], r["question"], r["fits_variant_of"], r["flagged"]) for r in found] == [
        ("eve", "q1", "ada", "yes"), ("eve", "q2", "ada", "yes")]
    summary = (tmp_path / "grades_summary.md").read_text(encoding="utf-8")
    assert "- eve (eve.ipynb): ada on q1, q2" in summary
    feedback = (tmp_path / "feedback" / "eve.md").read_text(encoding="utf-8")
    assert "ada" not in feedback and "variant of" not in feedback
    # the gradebooks keep their import layout: points only
    with open(tmp_path / "grades_canvas.csv", encoding="utf-8", newline="") as fh:
        canvas = list(csv.reader(fh))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                         "Template lab: one revolution"]
    assert all(len(row) == 6 for row in canvas)
    with open(tmp_path / "grades_moodle.csv", encoding="utf-8", newline="") as fh:
        assert next(csv.reader(fh)) == ["ID number", "Template lab: one revolution",
                                        "Template lab: one revolution q1",
                                        "Template lab: one revolution q2"]
