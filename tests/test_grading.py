"""Grading with nbval, end to end: real sandboxed kernels, real pytest runs, one parallel batch.

What must hold (issues 4 and 16; DESIGN.md "Labs and grading with nbval"): the key graded
against itself gets full marks; a blank student version gets zero; a wrong answer loses exactly
that question's points, and its feedback says neither the value nor a direction; a stored fake
tick is caught; crashing, hanging, kernel-killing, empty, wrong-lab and malformed submissions
are graded (zero for what failed, the reason in the feedback) and the run goes on; copied
numbers fail under another student's variant, and are flagged for the instructor (never in the
feedback) as fitting that student's variant; gradebooks for Canvas and Moodle, a summary and a
regrade of one question; outputs are never overwritten without --force. The attacks of the red
team have their own module (test_grading_redteam.py).
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from conftest import require_tool

from simcore.labkit import attach, copying, emulated, sandbox
from simcore.labkit.demo import template_lab, write_demo_submissions
from simcore.labkit.grade import (
    EXPORT_TAG,
    CellRun,
    Key,
    Options,
    _cell_notes,
    _fatal_answer,
    _merge_missing,
    budget,
    grade,
    run_nbval,
)
from simcore.labkit.report import regrade, write_report
from simcore.labkit.student import student_version
from simcore.labkit.variants import answer_sheet, literal_answers

ROOT = Path(__file__).resolve().parent.parent
LAB1 = ROOT / "instructors" / "labs" / "lab1_time.ipynb"
LAB2_STUDENT = ROOT / "labs" / "lab2_interface_cache.ipynb"
SECRET = b"test-secret-" + b"1" * 32
CELL_TIMEOUT = 20.0


def measure_mystery(key: Key, student_id: str) -> dict:
    """What a student's q9 measuring cell attaches: fio on the student's own mystery disk."""
    from simcore.labkit.variants import mystery_token

    token = mystery_token(key.seed(student_id))
    emulated.fio_served("lab1-mystery", ["--mystery", token],
                        ["--rw=read", "--bs=128k", "--iodepth=4", "--offset=0", "--size=256m",
                         "--runtime=2", "--time_based"], tag=token)
    return attach.latest("lab1-mystery")


def _with_answers(student, answers: dict[str, str]):
    nb = nbformat.from_dict(nbformat.reads(nbformat.writes(student), as_version=4))
    for cell in nb.cells:
        if cell.get("id") in answers:
            cell.source = answers[cell.id]
    return nb


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """Lab 1's key and a dozen submissions, graded in one parallel run.

    Only the key's copy and Alice carry a measurement of their own mystery disk (q9: fio on
    the served drive, two seconds each); every other submission loses q9 for want of one.
    """
    require_tool("fio")
    key_nb = nbformat.read(str(LAB1), as_version=4)
    key = Key(LAB1, SECRET)
    stu = student_version(key_nb, LAB1)
    solutions = {c.id: c.source for c in key_nb.cells if c.id in key.info.answer_ids}
    d = tmp_path_factory.mktemp("submissions")

    def save(name, nb):
        nbformat.write(nb, str(d / f"{name}.ipynb"))

    keyself = nbformat.read(str(LAB1), as_version=4)
    attach.put(keyself, "mystery-measure", measure_mystery(key, "keyself"))
    save("keyself", keyself)
    save("blank", stu)

    # Three ways to fail at once, each costing only its own question: a hang (q2: it sleeps, so
    # the cell's wall-clock limit stops it, not the CPU limit), a crash (q6) and an answer that
    # kills the kernel (q9, the last question).
    save("unruly", _with_answers(stu, {**solutions,
                                       "answer-q2": "import time\nwhile True:\n    time.sleep(1)",
                                       "answer-q6": 'raise RuntimeError("boom")',
                                       "answer-q9": "import os\nos._exit(1)"}))

    # An answer that ends the kernel in the middle (q3): the rest is run again without it.
    save("crasher", _with_answers(stu, {**solutions, "answer-q3": "import os\nos._exit(3)"}))

    # Cells deleted (q6), moved (q2), pasted twice (q3: a wrong copy first), added (scratch),
    # and a faked tick: q1 is wrong but its check cell was rewritten to print a tick and
    # carries a stored tick output.
    messy = _with_answers(stu, {**solutions, "answer-q1": "q1 = 1.0"})
    cells = messy.cells
    q3 = next(c for c in cells if c.id == "answer-q3")
    early = nbformat.from_dict(dict(q3))
    early.id, early.source = "my-first-try", "q3 = -1.0"  # a pasted copy: new id, same stamp
    cells.insert(cells.index(q3), early)
    cells.remove(next(c for c in cells if c.id == "answer-q6"))
    q2 = next(c for c in cells if c.id == "answer-q2")
    cells.remove(q2)
    cells.append(q2)
    cells.append(nbformat.v4.new_code_cell("my_scratch = 42"))
    fake = next(c for c in cells if c.id == "check-q1")
    fake.source = '# NBVAL_CHECK_OUTPUT\nprint("q1 ✔ correct")'
    fake.outputs = [nbformat.v4.new_output("stream", name="stdout", text="q1 ✔ correct\n")]
    fake.execution_count = 5
    save("messy", messy)

    # Alice types in her numbers, one of them (q3) wrong, and measures her mystery disk (q9,
    # her answer computed from her measurement); Bob hands in a copy of Alice's notebook,
    # measurement and all.
    alice = answer_sheet(key_nb, "alice", LAB1, secret=SECRET)
    bob = answer_sheet(key_nb, "bob", LAB1, secret=SECRET)
    literal = {"answer-" + q: literal_answers({q: v}) for q, v in alice.items()
               if q in key.info.questions and q != "q9"}
    literal["answer-q3"] = "q3 = 1e6"
    literal["answer-q9"] = "q9 = MYSTERY_RUN.read_mb_s"
    alice_nb = _with_answers(stu, literal)
    attach.put(alice_nb, "mystery-measure", measure_mystery(key, "alice"))
    save("alice", alice_nb)
    save("bob", alice_nb)

    (d / "not_json.ipynb").write_text('{"cells": [')
    (d / "not_notebook.ipynb").write_text('{"hello": "world"}')
    (d / "nothing.ipynb").write_text("")
    shutil.copy(LAB2_STUDENT, d / "wronglab.ipynb")

    subs = sorted(d.glob("*.ipynb"))
    key, results = grade(LAB1, subs, jobs=2, secret=SECRET,
                         opts=Options(cell_timeout=CELL_TIMEOUT, timeout=240))
    by_name = {Path(r.path).stem: r for r in results}
    report = tmp_path_factory.mktemp("report")
    write_report(key, results, report / "grades.csv", report / "feedback")
    return key, by_name, alice, bob, report


def read_csv(path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def full(key) -> float:
    return sum(key.max.values())


def lost(key, result) -> dict[str, float]:
    return {q: key.max[q] - result.scores[q] for q in key.info.questions
            if result.scores[q] != key.max[q]}


def test_lab1_has_enough_auto_graded_questions(batch):
    key = batch[0]
    graded = [q for q, pts in key.max.items() if pts > 0]
    assert len(graded) >= 5
    assert full(key) == 15  # q10 (issue 17: read off the positioning explorer) added 1


def test_the_key_graded_against_itself_gets_full_marks(batch):
    key, r = batch[0], batch[1]["keyself"]
    assert r.status == "graded", r.log
    # what was lost first, with the values judged (the whole log is long and pytest cuts the
    # message)
    assert r.total == full(key), ({q: (r.lines[q], r.losses.get(q)) for q in lost(key, r)},
                                  r.notes, r.log[-3000:])


def test_a_blank_student_version_gets_zero_and_runs_cleanly(batch):
    r = batch[1]["blank"]
    assert r.status == "graded"
    # read as not answered first; the hint to save the measurement follows (a student who
    # wrote the code but handed in the notebook without fio's output needs it)
    assert r.lines["q9"][0].startswith("q9 … not answered (still None); no lab1-mystery "
                                       "measurement is attached"), r.lines["q9"]
    assert all(v == 0 for v in r.scores.values()) and r.total == 0
    assert all("not answered" in line for q in ("q1", "q3", "q8") for line in r.lines[q])
    assert r.received["q1"] == {"present": False, "value": None,
                                "problem": "not answered (still None)"}
    assert not any("did not run cleanly" in n for n in r.notes), r.notes


def test_a_wrong_answer_loses_exactly_that_questions_points(batch):
    key, r = batch[0], batch[1]["alice"]  # her own numbers, typed in; q3 is wrong
    assert r.status == "graded"
    assert lost(key, r) == {"q3": 2.0}, r.lines
    assert "✘ not within the tolerance" in r.lines["q3"][0]
    assert "high" not in r.lines["q3"][0] and "low" not in r.lines["q3"][0]


def test_a_stored_fake_tick_is_caught(batch):
    key, r = batch[0], batch[1]["messy"]
    assert lost(key, r)["q1"] == 1.0
    assert "q1 ✘" in r.lines["q1"][0]
    # its q9 comes from a measuring cell it never ran: not answered, nothing to judge
    assert "q9 …" in r.lines["q9"][0]
    assert any("not answer cells" in n for n in r.notes)


def test_hanging_crashing_and_kernel_killing_answers_cost_only_their_questions(batch):
    key, r = batch[0], batch[1]["unruly"]
    assert lost(key, r) == {"q2": 1.0, "q6": 1.0, "q9": 2.0}
    assert r.status == "kernel-died"
    notes = " ".join(r.notes)
    assert ("q2 did not run cleanly: it ran longer than the time limit of a cell "
            f"({CELL_TIMEOUT:g} s) and was stopped") in notes
    assert "q6 did not run cleanly: it raised RuntimeError: boom" in notes
    assert "q9 did not run cleanly: the Python kernel died" in notes
    assert "kernel" in r.lines["q9"][0] and "[0/2]" in r.lines["q9"][0]
    # the status in plain words, naming the question: the word itself is the gradebook's
    assert r.headline == ("The notebook's Python process (the kernel) stopped in your answer "
                          "cell for q9; the cells after it could not run."), r.headline


def test_an_answer_that_kills_the_kernel_costs_only_its_own_question(batch):
    key, r = batch[0], batch[1]["crasher"]
    assert lost(key, r) == {"q3": 2.0, "q9": 2.0}, r.lines  # q9: no measurement attached
    assert r.status == "kernel-died"
    # run again once (not once more for the same cell); one event, one note (the headline
    # says what the grader did, the note why the cell failed)
    assert [n for n in r.notes if "q3" in n or "kernel" in n] == [
        "Your answer cell for q3 did not run cleanly: the Python kernel died while it ran "
        "(os._exit, a crash, a resource limit, or out of memory)."], r.notes
    assert r.headline.startswith("Your answer cell for q3 stopped the notebook's Python process "
                                 "(the kernel), so the grader ran the rest of your notebook "
                                 "again without it"), r.headline


def test_deleted_reordered_duplicated_and_added_cells(batch):
    key, r = batch[0], batch[1]["messy"]
    # q6 was deleted and q1 is wrong; the moved q2 and the last copy of q3 count (q9: no
    # measurement).
    assert lost(key, r) == {"q1": 1.0, "q6": 1.0, "q9": 2.0}
    notes = " ".join(r.notes)
    for expected in ("q6 is missing", "q3 appears 2 times", "not in the lab's order",
                     "you added were not run", "not answer cells"):
        assert expected in notes, notes
    # the edited check cell is named as the student sees it, not by its internal id
    place = next(n for n in r.notes if "not answer cells" in n)
    assert "check-q1" not in place, place
    assert re.search(r'\(code cell \d+ under "[^"]+"\)', place), place


def test_copied_numbers_fail_under_another_students_variant(batch):
    key, results, alice, bob = batch[:4]

    def same(a, b) -> bool:
        if isinstance(a, dict):
            return all(abs(a[k] - b[k]) <= max(0.005, 0.01 * abs(b[k])) for k in b)
        if isinstance(a, str):
            return a == b
        return abs(a - b) <= 0.01 * abs(b)

    # q9: Alice's measurement is of Alice's mystery disk, which is not Bob's
    differs = {q for q in key.info.questions
               if q != "q9" and not same(alice[q], bob[q])} | {"q3", "q9"}
    assert len(differs) >= 5  # the two variants really differ
    assert "not of the drive you were given" in results["bob"].lines["q9"][0]
    r = results["bob"]
    for q in key.info.questions:
        assert r.scores[q] == (0.0 if q in differs else key.max[q]), (q, r.lines[q])


def test_a_notebook_carrying_a_classmates_numbers_is_flagged_for_the_instructor_only(batch):
    key, results, _, _, report = batch
    bob = results["bob"]  # Alice's notebook: her typed numbers, wrong under Bob's variant
    copied = sorted(bob.copy_matches, key=key.info.questions.index)
    # every copied number whose variants differ, except Alice's own slip (q3) and the
    # measured q9 (its judge refuses her measurement), and it names Alice alone
    assert len(copied) >= copying.MIN_QUESTIONS and not {"q3", "q9"} & set(copied), copied
    assert all(bob.copy_matches[q] == ["alice"] for q in copied), bob.copy_matches
    assert [f for f in bob.flagged if f.startswith(copying.FLAG)] == [
        copying.flag_text("alice", copied)]
    # the rest of the class is honest (slips, crashes, blanks): nobody is flagged, and the
    # key's own answers (all right) name nobody at all
    for name, r in results.items():
        if name != "bob":
            assert not [f for f in r.flagged if f.startswith(copying.FLAG)], (name, r.flagged)
    assert results["keyself"].copy_matches == {}
    # the instructor sees it in grades.csv's flags and the copying CSV; Bob's feedback does not
    row = next(r for r in read_csv(report / "grades.csv") if r["student"] == "bob")
    assert copying.flag_text("alice", copied) in row["flags"].split("; ")
    rows = read_csv(report / "grades_copying.csv")
    assert {r["student"] for r in rows if r["flagged"] == "yes"} == {"bob"}
    assert [r["question"] for r in rows if r["student"] == "bob"] == copied
    assert "- bob (bob.ipynb): alice on " in (report / "grades_summary.md").read_text()
    feedback = (report / "feedback" / "bob.md").read_text(encoding="utf-8")
    assert "alice" not in feedback.lower() and copying.FLAG not in feedback, feedback


def test_files_that_are_not_notebooks_get_a_row_and_a_reason(batch):
    results = batch[1]
    for name, why in (("not_json", "not valid JSON"), ("not_notebook", "not a Jupyter")):
        r = results[name]
        assert r.status == "invalid" and r.total == 0
        assert why in r.notes[0]
    assert results["nothing"].status == "empty" and results["nothing"].total == 0
    wrong = results["wronglab"]
    assert wrong.status == "wrong-lab" and wrong.total == 0
    # one clear line (which lab was expected, which was found), no flood of per-cell notes
    assert not any(w in n for n in wrong.notes for w in ("answer cell", "not answer cells",
                                                         "you added")), wrong.notes
    assert wrong.headline.startswith("Wrong notebook: this grading is for Lab 1"), wrong.headline
    assert "(lab1)" in wrong.headline and "Lab 2" in wrong.headline and "(lab2)" in wrong.headline


def test_grades_csv_gradebooks_summary_and_feedback(batch):
    key, results, _, bob, report = batch
    rows = read_csv(report / "grades.csv")
    assert [r["student"] for r in rows] == sorted(results)  # one row per submission
    assert list(rows[0]) == ["student", "file", "status", *key.info.questions, "total", "max",
                             "late_minutes", "flags", "sandbox"]
    assert {r["sandbox"] for r in rows} <= {"all layers"} or all(
        r["sandbox"].startswith("missing: ") for r in rows)
    self_row = next(r for r in rows if r["student"] == "keyself")
    assert self_row["total"] == self_row["max"] == "15"
    assert next(r for r in rows if r["student"] == "alice")["q3"] == "0"
    with open(report / "grades_canvas.csv", encoding="utf-8", newline="") as fh:
        canvas = list(csv.reader(fh))
    assert canvas[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert canvas[1][0].strip() == "Points Possible" and canvas[1][5] == "15"
    assert ["alice", "", "alice", "alice", "", "13"] in canvas  # 15, less q3 (2)
    moodle = read_csv(report / "grades_moodle.csv")
    assert next(iter(moodle[0])) == "ID number" and len(moodle) == len(results)
    summary = (report / "grades_summary.md").read_text(encoding="utf-8")
    for part in ("## Scores", "## Questions", "| q3 | 2 |", "## Slowest submissions",
                 f"Time limits: a cell {CELL_TIMEOUT:g} s (given), the kernel "):
        assert part in summary, part
    assert re.search(r"^  15 #+ +\d+$", summary, re.M), summary  # whole points: a row per score
    feedback = sorted(p.name for p in (report / "feedback").iterdir())
    assert feedback == sorted(f"{name}.md" for name in results)
    text = (report / "feedback" / "bob.md").read_text(encoding="utf-8")
    assert "Score:" in text and "q7" in text
    for q in key.info.questions:  # one line a question: its verdict and its points
        assert len(re.findall(rf"^- {q} (✔|✘|…) .*\[\d+/\d+\]$", text, re.M)) == 1, (q, text)
    for q in ("q1", "q2", "q3", "q6", "q7", "q8"):  # bob's expected numbers never appear
        for form in (f"{bob[q]:.3g}", f"{bob[q]:.2f}", repr(bob[q])):
            assert form not in text, (q, form)
    # statuses are the gradebook's words; a student reads what happened, in plain words
    for name, words in (("crasher", "Your answer cell for q3 stopped the notebook's Python "
                                    "process (the kernel)"),
                        ("wronglab", "Wrong notebook: this grading is for Lab 1"),
                        ("not_json", "could not be read as a notebook")):
        text = (report / "feedback" / f"{name}.md").read_text(encoding="utf-8")
        assert "Status:" not in text and results[name].status not in text, (name, text)
        assert words in text.split("## Questions")[0], (name, text)
    wrong = (report / "feedback" / "wronglab.md").read_text(encoding="utf-8")
    assert wrong.split("## Notes")[-1].count("\n- ") <= 1, wrong  # at most the id note


def test_many_missing_answer_cells_make_one_note():
    gone = [f"The answer cell for q{i} is missing from your notebook (deleted?); it was graded "
            "as unanswered." for i in (1, 2, 3)]
    assert _merge_missing(["a", *gone[:2], "b"]) == ["a", *gone[:2], "b"]  # two stay apart
    assert _merge_missing(["a", *gone, "b"]) == [
        "a", "The answer cells for q1, q2, q3 are missing from your notebook (deleted?); they "
        "were graded as unanswered.", "b"]


def test_regrading_one_question_runs_nothing_and_changes_only_it(batch, tmp_path):
    key, _, _, _, report = batch
    out = tmp_path / "grades.csv"
    for p in report.iterdir():
        if p.is_file():
            shutil.copy(p, tmp_path / p.name)
    before = {r["student"]: r for r in read_csv(out)}
    # A corrected key: q3 now accepts anything within 100x (a stand-in for a fixed tolerance).
    loose = nbformat.read(str(LAB1), as_version=4)
    for cell in loose.cells:
        if cell.metadata.get("disklab", {}).get("question") == "q3":
            cell.metadata["disklab"]["rel"] = 1e6
    loose_path = tmp_path / "lab1_time.ipynb"
    nbformat.write(loose, str(loose_path))
    loose_key = Key(loose_path, SECRET)
    try:
        _, changes = regrade(loose_key, out, tmp_path / "feedback", "q3")
    finally:
        loose_key.close()
    after = {r["student"]: r for r in read_csv(out)}
    assert after["alice"]["q3"] == "2" and before["alice"]["q3"] == "0"
    assert "alice: q3 0 -> 2" in changes
    for sid, row in after.items():
        for q in key.info.questions:
            if q != "q3":
                assert row[q] == before[sid][q], (sid, q)
    assert "(regraded)" in (tmp_path / "feedback" / "alice.md").read_text(encoding="utf-8")


# -- fast cases on the template lab ------------------------------------------------------------


@pytest.fixture
def template(tmp_path):
    key_path = tmp_path / "template.ipynb"
    nbformat.write(template_lab(), str(key_path))
    return key_path


NOTEBOOK_LIMIT_S = 30.0  # the whole-notebook limit of the test below


def test_a_notebook_over_the_whole_time_limit_is_stopped_and_the_run_goes_on(template,
                                                                               tmp_path):
    stu = student_version(nbformat.read(str(template), as_version=4), template)
    slow = _with_answers(stu, {"answer-q1": "q1 = 30_000 / RPM",
                               "answer-q2": "import time\ntime.sleep(900)"})
    nbformat.write(slow, str(tmp_path / "slow.ipynb"))
    nbformat.write(_with_answers(stu, {"answer-q1": "q1 = 30_000 / RPM"}),
                   str(tmp_path / "quick.ipynb"))
    # The whole-notebook limit (NOTEBOOK_LIMIT_S) is far below the cell's (900 s) and the
    # sleep's, so only it can stop the slow notebook; it only has to leave the quick one, a
    # two-cell template run (14 s measured on two cores with a load average of 6 to 8), room
    # to finish. The test waits out the limit, so a shorter one saves that
    # much and proves the same: the slow notebook is stopped, the quick one still graded.
    _, (quick, slow_r) = grade(template, [tmp_path / "quick.ipynb", tmp_path / "slow.ipynb"],
                               jobs=2, secret=SECRET,
                               opts=Options(cell_timeout=900, timeout=NOTEBOOK_LIMIT_S))
    assert quick.status == "graded" and quick.scores == {"q1": 1.0, "q2": 0.0}
    assert slow_r.status == "timeout"
    assert slow_r.scores["q2"] == 0.0
    assert f"did not finish within {NOTEBOOK_LIMIT_S:g} s" in " ".join(slow_r.notes)


def test_the_time_limits_follow_the_keys_own_run():
    # a cell: 5 times the key's whole notebook plus 10 s; the kernel: 3 times the key's kernel
    # CPU plus 5 s, rounded up to a whole second (rlimits count whole seconds)
    assert budget(2.0, 1.0) == (20.0, 8)
    assert budget(0.0, 0.0) == (10.0, 5)
    assert budget(30.0, 20.2) == (160.0, 66)


@pytest.mark.parametrize("children_file", [True, False], ids=["children-file", "ppid-scan"])
def test_the_kernels_cpu_time_is_read_from_its_process_tree(children_file, monkeypatch):
    """What the CPU limit is derived from: the probe sums a process and its descendants' CPU
    (the kernel is the launcher's child), with or without /proc/PID/task/TID/children."""
    import builtins
    import time

    from simcore.labkit import _nbval_probe as probe

    if not children_file:
        real_open = builtins.open

        def no_children(path, *a, **k):
            if str(path).endswith("/children"):
                raise FileNotFoundError(path)
            return real_open(path, *a, **k)

        monkeypatch.setattr(builtins, "open", no_children)
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6: pass\n"
    parent = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time\n"
                               f"subprocess.Popen([sys.executable, '-c', {burn!r} + "
                               "'time.sleep(60)'])\ntime.sleep(60)"])
    try:
        deadline = time.monotonic() + 60
        while probe._cpu_of_tree(parent.pid) < 0.6 and time.monotonic() < deadline:
            time.sleep(0.1)
        used = probe._cpu_of_tree(parent.pid)
        assert 0.6 <= used < 5, used  # the grandchild's 0.6 s, and two interpreters' start
    finally:
        import psutil

        for c in psutil.Process(parent.pid).children(recursive=True):
            c.kill()
        parent.kill()
        parent.wait()


def _synthetic_lab():
    """Code cells 0 lab, 1-2 q1, 3-4 q2, 5 lab, 6-7 q5, 8 lab, 9-10 q6 (answer, then export)."""
    cells = [nbformat.v4.new_code_cell("setup = 1", id="lab-0")]
    for q, lab in (("q1", None), ("q2", "lab-5"), ("q5", "lab-8"), ("q6", None)):
        cells.append(nbformat.v4.new_code_cell(f"{q} = 1", id=f"answer-{q}",
                                               metadata={"tags": ["answer"]}))
        cells.append(nbformat.v4.new_code_cell(f"print({q})", id=f"export-{q}", metadata={
            "tags": [EXPORT_TAG], "disklab": {"export": q}}))
        if lab:
            cells.append(nbformat.v4.new_code_cell("more = 2", id=lab))
    nb = nbformat.v4.new_notebook(cells=cells)
    key = SimpleNamespace(info=SimpleNamespace(answer_names={f"answer-{q}": [q] for q in
                                                             ("q1", "q2", "q5", "q6")}),
                          answer_labels={}, student=nb)
    return key, nb


CPU_DEATH = "KernelDied: the Python kernel died while this cell ran: it used up its CPU-time limit"
CRASH = "KernelDied: the Python kernel died while this cell ran (os._exit, a crash, or out of memory)"
INTERRUPTED = "Timeout of 20 seconds exceeded while executing cell."


def _runs(died_at: int, why: str, cpu: dict[int, float], failed: tuple[int, ...] = ()
          ) -> dict[int, CellRun]:
    runs = {i: CellRun("failed" if i in failed else "passed", cpu_s=cpu.get(i, 0.1))
            for i in range(died_at)}
    runs[died_at] = CellRun("failed", message=why, cpu_s=cpu.get(died_at, 0.1))
    return runs


def test_a_cpu_limit_death_is_blamed_on_the_answer_that_used_the_cpu():
    """A busy loop stopped at the cell limit (q2) burns most of the kernel's CPU time; the kernel
    then dies of its CPU limit in an honest answer (q5): q2 is left out, not q5, whatever the
    machine's load made of the timing. Deaths by other causes, or a lab cell using most of the
    CPU, are blamed as before."""
    key, nb = _synthetic_lab()
    code = [c for c in nb.cells if c.cell_type == "code"]
    busy = _runs(6, CPU_DEATH, {3: 40.0, 5: 0.5, 6: 3.0}, failed=(3,))
    busy[3].message = INTERRUPTED
    assert _fatal_answer(key, nb, busy) == (3, code[3])
    # the same, but the kernel died in a lab cell: still the busy answer
    lab_died = _runs(8, CPU_DEATH, {3: 40.0, 8: 2.0}, failed=(3,))
    assert _fatal_answer(key, nb, lab_died) == (3, code[3])
    # the rerun looks only past the cell it left out: then q5 itself used the most
    assert _fatal_answer(key, nb, busy, after=3) == (6, code[6])
    # a lab cell used the most CPU time: as before (a lab cell's death blames no answer)
    assert _fatal_answer(key, nb, _runs(8, CPU_DEATH, {3: 2.0, 5: 40.0, 8: 1.0})) is None
    assert _fatal_answer(key, nb, _runs(6, CPU_DEATH, {3: 2.0, 5: 40.0, 6: 1.0})) == (6, code[6])
    # CPU use unknown (0 everywhere): the cell where it died, as before
    assert _fatal_answer(key, nb, _runs(6, CPU_DEATH, {i: 0.0 for i in range(7)})) == (6, code[6])
    # a death by anything else is the dying cell's, however much CPU an earlier answer used
    crash = _runs(6, CRASH, {3: 40.0, 6: 0.5}, failed=(3,))
    crash[3].message = INTERRUPTED
    assert _fatal_answer(key, nb, crash) == (6, code[6])
    assert _fatal_answer(key, nb, _runs(8, CRASH, {3: 40.0})) is None
    # an answer whose question has no other answer after it is not rerun without
    assert _fatal_answer(key, nb, _runs(10, CPU_DEATH, {9: 40.0, 10: 1.0})) is None

    # the feedback of the answer left out says it used up the CPU time, and how much
    res = SimpleNamespace(notes=[])
    rerun = {**{i: r for i, r in busy.items() if i <= 3},
             **{i: CellRun("passed", cpu_s=0.1) for i in range(4, 11)}}
    _cell_notes(key, res, code, rerun, Options(cell_timeout=20, limits=sandbox.Limits(cpu_s=45)),
                [3])
    assert res.notes == ["Your answer cell for answer-q2 used up the notebook's CPU time: it used "
                         "40.0 s of the 45 s of CPU time the notebook's Python kernel may use in "
                         "all (a loop that never ends?), so the kernel hit its CPU-time limit in a "
                         "later cell; the grader ran the rest of your notebook again without it."]


def test_the_probe_records_each_cells_kernel_cpu_time(tmp_path):
    """Each cell's line carries the CPU time the kernel used while it ran (no sandbox: cheap)."""
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6:\n    pass"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"),
                                         nbformat.v4.new_code_cell(burn)])
    nbformat.write(nb, str(tmp_path / "nb.ipynb"))
    cells, ended, tail = run_nbval(tmp_path / "nb.ipynb", cell_timeout=60, timeout=300)
    assert ended == "completed" and set(cells) == {0, 1}, tail
    assert all('"cpu_s": ' in line for line in
               (tmp_path / "cells.jsonl").read_text().splitlines())
    assert 0.6 <= cells[1].cpu_s < 5, cells  # its own 0.6 s of CPU, not the kernel's start
    assert cells[0].cpu_s < cells[1].cpu_s, cells


class _SlowMachine:
    """A kernel on a simulated clock: it answers when it has had ``needs`` seconds of its own
    time, while its main thread waits for a CPU ``waiting`` of every wall-clock second (0: an
    idle machine; a cell that sleeps never gets its answer)."""

    def __init__(self, needs: float | None, waiting: float):
        self.now, self.needs, self.waiting = 0.0, needs, waiting
        self.km = SimpleNamespace(is_alive=lambda: True)  # no process: nothing to read in /proc
        self.kc = SimpleNamespace(get_shell_msg=self._message, get_iopub_msg=self._message)

    def monotonic(self) -> float:
        return self.now

    def run_delays(self, pids) -> dict[int, float]:
        return {1: self.waiting * self.now}

    def _message(self, timeout=None):
        from queue import Empty

        done = None if self.needs is None else self.needs / (1 - self.waiting)
        if done is not None and self.now + timeout >= done:
            self.now = max(self.now, done)
            return {"parent_header": {"msg_id": "m"}, "msg_type": "status",
                    "content": {"status": "ok", "execution_state": "idle"}}
        self.now += timeout
        raise Empty


def test_time_a_kernel_waits_for_a_cpu_does_not_count_against_its_cell(monkeypatch):
    """The 13/15 of a loaded CI run: an honest cell that waits for a CPU most of the time must not
    meet the cell's limit (nor nbval's 5 s for its outputs, nor the interrupt's), or it loses its
    question, and with a kernel too starved to answer the interrupt the grader reruns without it.
    Only the time the kernel was not kept waiting counts; a cell that sleeps is stopped as
    before. On a simulated clock: the limits are nbval's own calls, with the probe's waits."""
    from queue import Empty

    from nbval.kernel import RunningKernel

    from simcore.labkit import _nbval_probe as probe

    real_run_delays = getattr(probe, "run_delays", None)
    for name in ("await_reply", "get_message"):  # patched for this test only
        monkeypatch.setattr(RunningKernel, name, getattr(RunningKernel, name))
    probe._watch_for_kernel_death()

    def kernel(needs: float | None, waiting: float) -> RunningKernel:
        machine = _SlowMachine(needs, waiting)
        monkeypatch.setattr(probe, "time", machine)
        monkeypatch.setattr(probe, "run_delays", machine.run_delays, raising=False)
        k = object.__new__(RunningKernel)
        k.km, k.kc, k.machine = machine.km, machine.kc, machine
        return k

    # 10 s of work at a tenth of a CPU: 100 s of wall clock, within a 20 s cell limit
    k = kernel(10.0, 0.9)
    k.await_reply("m", timeout=20)
    assert k.machine.now == pytest.approx(100.0)
    # its outputs (and an interrupt's traceback) may come as late: nbval waits 5 s for them
    k = kernel(4.0, 0.9)
    assert k.get_message("iopub", timeout=5)["msg_type"] == "status"
    # on an idle machine the same work takes its 10 s, and more than the limit is stopped
    kernel(10.0, 0.0).await_reply("m", timeout=20)
    with pytest.raises(Empty):
        kernel(30.0, 0.0).await_reply("m", timeout=20)
    # a cell that sleeps (or waits for what never comes) is stopped at the limit, loaded or not
    for waiting in (0.0, 0.05):
        k = kernel(None, waiting)
        with pytest.raises(Empty):
            k.await_reply("m", timeout=20)
        assert k.machine.now <= 20 / (1 - waiting) + 1
        with pytest.raises(Empty):
            kernel(None, waiting).get_message("iopub", timeout=5)
    # the real reading: the threads of this process, in seconds
    delays = real_run_delays([os.getpid()])
    assert os.getpid() in delays and all(d >= 0 for d in delays.values())


def test_the_whole_notebooks_limit_does_not_count_time_spent_waiting_for_a_cpu(monkeypatch):
    """The whole-notebook limit adds what the run waited for a CPU (RunHeld): a notebook that
    takes 2 s while waiting for a CPU 90 % of the time ends within a 1 s limit; one that sleeps
    (the real reading: a sleeping process waits for no CPU) is stopped at 1 s."""
    import time

    from simcore.labkit import grade as grading

    def run() -> tuple[bytes | None, bool]:
        proc = subprocess.Popen(["sleep", "2"], stdout=subprocess.PIPE)
        try:
            return grading._communicate_own_time(proc, 1.0)
        finally:
            proc.kill()
            proc.wait()

    assert run() == (None, True)
    start = time.monotonic()
    monkeypatch.setattr(grading.RunHeld, "seconds", lambda self: 0.9 * (time.monotonic() - start))
    assert run() == (b"", False)


def test_a_busy_loop_dies_by_its_cpu_limit_long_before_the_cells_wall_clock(template, tmp_path):
    """The CPU limit is derived from the key's run in the sandbox (the cell limit is given, 600 s):
    the loop is stopped by it, and the rest of the notebook still counts."""
    stu = student_version(nbformat.read(str(template), as_version=4), template)
    nbformat.write(_with_answers(stu, {"answer-q1": "while True:\n    pass",
                                       "answer-q2": "q2 = 60_000 / RPM"}),
                   str(tmp_path / "spinner.ipynb"))
    nbformat.write(_with_answers(stu, {"answer-q1": "q1 = 30_000 / RPM",
                                       "answer-q2": "q2 = 60_000 / RPM"}),
                   str(tmp_path / "honest.ipynb"))
    key, (honest, spinner) = grade(template, [tmp_path / "honest.ipynb",
                                              tmp_path / "spinner.ipynb"],
                                   jobs=2, secret=SECRET, opts=Options(cell_timeout=600,
                                                                       timeout=900))
    b = key.budget
    assert b.derived == ("cpu_s",) and b.cell_timeout == 600
    assert b.key_wall_s > 0 and 0 < b.key_cpu_s < b.cpu_s
    assert b.cpu_s == budget(b.key_wall_s, b.key_cpu_s)[1]
    assert honest.scores == {"q1": 1.0, "q2": 2.0}, honest.lines
    assert 0 < honest.kernel_cpu_seconds < b.cpu_s
    assert spinner.scores == {"q1": 0.0, "q2": 2.0}, spinner.lines
    notes = " ".join(spinner.notes)
    assert f"used up its CPU-time limit ({b.cpu_s} s)" in notes, notes
    assert spinner.seconds < 600 and spinner.kernel_cpu_seconds >= b.cpu_s - 1


STUBBORN = "while True:\n    try:\n        while True:\n            pass\n    except KeyboardInterrupt:\n        pass"


def test_a_cell_stopped_after_its_time_limit_says_why_the_kernel_went():
    """nbval stops a kernel that did not answer the interrupt at a cell's time limit; its one
    message ("did not answer an interrupt, or ended the kernel") is made to say which: still
    running (the time limit), or dead meanwhile of its CPU-time limit or of something else.
    The feedback then names the time limit, or the CPU limit, instead of a crash."""
    from simcore.labkit import _nbval_probe as probe
    from simcore.labkit.grade import _reason

    nbval = ("Timeout of 3 seconds exceeded while executing cell. Failed to interrupt kernel in "
             "5 seconds, so failing without traceback.")
    opts = Options(cell_timeout=3, limits=sandbox.Limits(cpu_s=7))
    running = probe.why_stopped(nbval, (True, None))
    assert running.startswith(nbval) and probe.STOPPED_RUNNING in running
    assert "time limit of a cell (3 s)" in _reason(CellRun("failed", message=running), opts)
    old = probe._CPU_LIMIT_EXIT
    try:
        probe._CPU_LIMIT_EXIT = sandbox.CPU_LIMIT_EXIT
        cpu = probe.why_stopped(nbval, (False, sandbox.CPU_LIMIT_EXIT))
        crashed = probe.why_stopped(nbval, (False, 1))
    finally:
        probe._CPU_LIMIT_EXIT = old
    assert "used up its CPU-time limit (7 s)" in _reason(CellRun("failed", message=cpu), opts)
    why = _reason(CellRun("failed", message=crashed), opts)
    assert "time limit of a cell (3 s)" in why and "died" in why, why
    # any other message, or a stop nobody noted, is left as it was
    assert probe.why_stopped("Cell execution caused an exception", (True, None)) == \
        "Cell execution caused an exception"
    assert probe.why_stopped(nbval, None) == nbval


def test_an_endless_loop_past_the_cells_time_limit_is_named_as_such(template, tmp_path):
    """A loop that swallows the interrupt at the cell's time limit (3 s) with CPU time to spare:
    stopped with its kernel, and the feedback says it ran past the time limit (it used to say
    the kernel may have crashed); with little CPU time left, the kernel dies of its CPU limit
    while nbval waits for the interrupt, and the feedback says so."""
    stu = student_version(nbformat.read(str(template), as_version=4), template)
    nbformat.write(_with_answers(stu, {"answer-q1": STUBBORN, "answer-q2": "q2 = 60_000 / RPM"}),
                   str(tmp_path / "stubborn.ipynb"))
    _, (spare,) = grade(template, [tmp_path / "stubborn.ipynb"], jobs=1, secret=SECRET,
                        opts=Options(cell_timeout=3, timeout=240,
                                     limits=sandbox.Limits(cpu_s=120)))
    notes = " ".join(spare.notes)
    assert "ran longer than the time limit of a cell (3 s), did not stop" in notes, notes
    assert "crash" not in notes and spare.scores == {"q1": 0.0, "q2": 2.0}, spare.lines
    _, (tight,) = grade(template, [tmp_path / "stubborn.ipynb"], jobs=1, secret=SECRET,
                        opts=Options(cell_timeout=3, timeout=240,
                                     limits=sandbox.Limits(cpu_s=7)))
    notes = " ".join(tight.notes)
    assert "used up its CPU-time limit (7 s)" in notes and "crash" not in notes, notes
    assert tight.scores == {"q1": 0.0, "q2": 2.0}, tight.lines


def test_an_answer_that_runs_a_program_is_flagged_and_an_honest_one_is_not(template, tmp_path):
    """os.system or subprocess in an answer cell: the sandbox contains it, and now the feedback
    says so (the kind only, never the command or what it printed) and the instructor's flags
    name it; its answer still counts. A line printed to look like the notice names only known
    kinds, and marks only the notebook that printed it; an honest notebook gets no such note."""
    stu = student_version(nbformat.read(str(template), as_version=4), template)
    honest = {"answer-q1": "q1 = 30_000 / RPM", "answer-q2": "q2 = 60_000 / RPM"}
    shell = 'import os, subprocess\nos.system("echo secret-output")\nos.system("true")\n'
    nbformat.write(_with_answers(stu, {**honest, "answer-q1": shell + "q1 = 30_000 / RPM",
                                       "answer-q2": "import subprocess\n"
                                       'subprocess.run(["true"])\nq2 = 60_000 / RPM'}),
                   str(tmp_path / "shell.ipynb"))
    nbformat.write(_with_answers(stu, {**honest, "answer-q1": 'print("DISKLAB-SPAWN rm-rf")\n'
                                       "q1 = 30_000 / RPM"}), str(tmp_path / "forger.ipynb"))
    nbformat.write(_with_answers(stu, honest), str(tmp_path / "honest.ipynb"))
    _, results = grade(template, sorted(tmp_path.glob("*.ipynb")), jobs=2, secret=SECRET,
                       opts=Options(cell_timeout=60, timeout=240,
                                    limits=sandbox.Limits(cpu_s=60)))
    by = {Path(r.path).stem: r for r in results}
    shell_notes = [n for n in by["shell"].notes if "tried to run a program" in n]
    assert shell_notes == [
        "Your answer cell for q1 tried to run a program (os.system); the grader does not allow "
        "that (answers are computed in Python, in the lab's kernel), and your instructor will "
        "see it.",
        "Your answer cell for q2 tried to run a program (subprocess); the grader does not "
        "allow that (answers are computed in Python, in the lab's kernel), and your instructor "
        "will see it."], by["shell"].notes
    assert by["shell"].flagged == ["the answer cell for q1 tried to run a program (os.system)",
                                   "the answer cell for q2 tried to run a program (subprocess)"]
    assert "secret-output" not in " ".join(by["shell"].notes)
    assert by["shell"].scores == {"q1": 1.0, "q2": 2.0}, by["shell"].lines
    for name in ("forger", "honest"):
        assert not any("program" in n for n in by[name].notes + by[name].flagged), by[name].notes
        assert by[name].scores == {"q1": 1.0, "q2": 2.0}, by[name].lines


def test_grade_command_writes_and_never_overwrites(template, tmp_path):
    subs = [p for p in write_demo_submissions(template, tmp_path / "in") if p.stem != "ben"]
    out = tmp_path / "grades.csv"
    cmd = [sys.executable, "-m", "simcore", "grade", "--key", str(template), "--public-variants",
           *map(str, subs), "--out", str(out), "--cell-timeout", "60", "--timeout", "240"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    rows = {r["student"]: r for r in read_csv(out)}
    assert set(rows) == {p.stem for p in subs}
    assert rows["ada"]["total"] == "3" and rows["ada"]["max"] == "3"
    assert rows["cy"]["q1"] == "0" and rows["cy"]["q2"] == "2"
    assert rows["dee"]["status"] == "invalid"
    assert (tmp_path / "grades_feedback" / "cy.md").exists()
    before = out.read_bytes()
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert again.returncode == 2 and "exists" in again.stderr
    assert out.read_bytes() == before


def test_the_grade_command_probes_the_sandbox_once_and_prints_what_grading_enforced(
        template, tmp_path, monkeypatch, capsys):
    """One probe per grading run (it starts a sandbox), with the secret and the roster named on
    the command line among the hidden paths; the line printed is the summary's record."""
    import json

    from simcore.__main__ import main
    from simcore.labkit import sandbox

    calls: list[list[str]] = []
    real = sandbox.probe_layers
    monkeypatch.setattr(sandbox, "probe_layers",
                        lambda hide=None, limits=None: calls.append(list(hide or []))
                        or real(hide, limits))
    for d in ("key", "subs", "private", "admin"):
        (tmp_path / d).mkdir()
    key = tmp_path / "key" / template.name
    shutil.copy(template, key)
    stu = student_version(nbformat.read(str(key), as_version=4), key)
    nbformat.write(_with_answers(stu, {"answer-q1": "q1 = 30_000 / RPM"}),
                   str(tmp_path / "subs" / "quick.ipynb"))
    secret = tmp_path / "private" / "secret"
    secret.write_text("ab" * 32 + "\n")
    secret.chmod(0o600)
    roster = tmp_path / "admin" / "roster.csv"
    roster.write_text("quick.ipynb,quick\n")
    out = tmp_path / "out" / "grades.csv"
    rc = main(["grade", "--key", str(key), str(tmp_path / "subs"), "--out", str(out),
               "--secret", str(secret), "--roster", str(roster), "--cell-timeout", "60",
               "--cpu-seconds", "60", "--jobs", "1"])
    err = capsys.readouterr().err
    assert rc == 0, err
    assert len(calls) == 1, f"the sandbox was probed {len(calls)} times"
    for private in (secret.parent, roster.parent, key.parent, tmp_path / "subs"):
        assert str(private) in calls[0], (private, calls[0])
    record = json.loads((tmp_path / "out" / "grades_answers.json").read_text())["layers"]
    line = next(ln for ln in err.splitlines() if ln.startswith("sandbox layers:"))
    assert line == ("sandbox layers: " + (", ".join(record["layers"]) or "none")
                    + (f"; MISSING: {', '.join(record['missing'])}" if record["missing"]
                       else "")), (line, record)
    assert {r["student"]: r["total"] for r in read_csv(out)} == {"quick": "1"}


def test_grading_refuses_a_key_that_was_not_run(tmp_path):
    nb = template_lab()
    for cell in nb.cells:
        cell.outputs, cell.execution_count = [], None
    key_path = tmp_path / "unrun.ipynb"
    nbformat.write(nb, str(key_path))
    run = subprocess.run([sys.executable, "-m", "simcore", "grade", "--key", str(key_path),
                          "--public-variants", str(key_path), "--out", str(tmp_path / "g.csv")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "no stored output" in run.stderr
    assert not (tmp_path / "g.csv").exists()


def test_the_container_command_passes_the_grading_options_on(tmp_path):
    """``grade --container`` prints the command that grades inside a container: a practice
    run's --public-variants mounts no secret, a roster is mounted read-only beside the
    submissions, options that name no file pass on as they are, and a second folder of
    submissions (only one can be mounted) or a feedback folder outside --out's is refused."""
    subs = tmp_path / "subs"
    subs.mkdir()
    roster = tmp_path / "roster.txt"
    roster.write_text("ada\n")
    key = Path(__file__).resolve().parent.parent / "instructors" / "labs" / "lab1_time.ipynb"

    def cli(*extra):
        return subprocess.run([sys.executable, "-m", "simcore", "grade", "--key", str(key),
                               "--out", str(tmp_path / "g.csv"), "--container", "podman",
                               *extra], capture_output=True, text=True, timeout=120)

    practice = cli(str(subs), "--public-variants", "--roster", str(roster), "--deadline",
                   "2026-03-01T23:59", "--jobs", "3", "--feedback", str(tmp_path / "fb"))
    assert practice.returncode == 0, practice.stderr
    line = practice.stdout.strip().splitlines()[-1]
    assert "--public-variants" in line and "/secret" not in line
    assert f"-v {tmp_path}:/roster:ro" in line and "--roster /roster/roster.txt" in line
    assert "--deadline 2026-03-01T23:59" in line and "--jobs 3" in line
    # the container's time zone may differ from ours: the deadline goes in with our offset
    assert re.search(r"--deadline 2026-03-01T23:59[+-]\d\d:\d\d ", line), line
    assert "--feedback /out/fb" in line and f"-v {subs}:/subs:ro" in line
    secret = tmp_path / "course.secret"
    graded = cli(str(subs), "--secret", str(secret)).stdout.strip().splitlines()[-1]
    assert f"-v {tmp_path}:/secret:ro" in graded and "--secret /secret/course.secret" in graded
    two = cli(str(subs), str(tmp_path))
    assert two.returncode == 2 and "one folder of submissions" in two.stderr
    away = cli(str(subs), "--feedback", "/var/tmp/elsewhere")
    assert away.returncode == 2 and "--feedback" in away.stderr
