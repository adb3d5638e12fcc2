"""The lab kit without a kernel: checks, solution stripping, variants, splicing, key validation.

Sources: the lab format in CONTRIBUTING.md ("Labs") and DESIGN.md ("Labs and grading with
nbval"); Gray 2000 Table 4 as corrected in notes 000 §2.4 (5,400 RPM: 30000/5400 = 5.556 ms).
"""

from __future__ import annotations

import copy
import json

import nbformat
import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from simcore.errors import DisklabError
from simcore.labkit import Verdict, check, pick, self_check, variant_rng, variant_seed
from simcore.labkit.grade import Key, read_submission, splice, wrong_lab
from simcore.labkit.labformat import (
    LabFormatError,
    assigned_names,
    inspect_lab,
    set_parameter,
    solution_names,
)
from simcore.labkit.student import strip_solutions, student_version, write_student
from simcore.labkit.variants import (
    answer_sheet,
    literal_answers,
    personalize,
    run_key,
    student_id_of,
)

SECRET = b"k" * 40

# -- check() ----------------------------------------------------------------------------------


def out(capsys) -> str:
    return capsys.readouterr().out


def test_check_tick_cross_and_not_answered(capsys):
    # Gray 2000 Table 4 (corrected): mean rotational latency at 5,400 RPM is 30000/5400 ms.
    expected = 30000 / 5400
    assert check("q1", 5.556, expected, rel=0.01)
    assert out(capsys) == "q1 ✔ correct\n"
    assert not check("q1", 5.7, expected, rel=0.01, hint="half a revolution.")
    assert out(capsys) == "q1 ✘ not right yet (too high). Hint: half a revolution.\n"
    assert not check("q1", 4.0, expected, rel=0.01)
    assert out(capsys) == "q1 ✘ not right yet (too low).\n"
    assert not check("q1", None, expected, rel=0.01)
    assert out(capsys) == "q1 … not answered yet\n"
    assert not check("q1", ..., expected, rel=0.01)
    assert out(capsys) == "q1 … not answered yet\n"


def test_check_never_prints_the_expected_value(capsys):
    expected = 123.456789
    for wrong in (1.0, 200.0, "abc", [1, 2], float("nan"), {"a": 1}):
        check("q2", wrong, expected, rel=0.01, hint="think about it.")
        text = out(capsys)
        assert "123" not in text and "✘" in text


def test_check_tolerances_exact_sets_and_predicates(capsys):
    assert check("q", 100.9, 100.0, rel=0.01)        # within 1%
    assert not check("q", 101.1, 100.0, rel=0.01)
    assert check("q", 0.004, 0.0, abs_tol=0.005)       # abs tolerance where rel is useless
    assert check("q", 0.1 + 0.2, 0.3)                  # floats exact up to rounding
    assert check("q", 3, 3) and not check("q", 4, 3)
    assert check("q", "  Seek ", "seek")               # strings: blanks and case ignored
    assert not check("q", 3, "seek")
    assert check("q", "UDMA2", one_of=["udma2", "UDMA 2"])
    assert check("q", 7, one_of=[5, 7]) and not check("q", 6, one_of=[5, 7])
    assert check("q", 12, predicate=lambda v: v % 2 == 0)
    assert not check("q", "x", predicate=lambda v: v % 2 == 0)  # predicate error -> cross
    assert "wrong type or shape" in out(capsys).splitlines()[-1]


def test_check_odd_student_values_give_a_cross_not_a_traceback(capsys):
    class Weird:
        def __eq__(self, other):
            raise RuntimeError("no")

    assert not check("q", np.array([1.0, 2.0]), 1.0)
    assert not check("q", np.array([1.0, 2.0]), 1.0, rel=0.1)
    assert not check("q", Weird(), 3)
    assert not check("q", np.array([1, 2]), one_of=[1, 2])
    assert not check("q", float("inf"), 1.0, rel=0.1)
    assert not check("q", True, 1.0, rel=0.1)  # a bool is not a number here
    lines = out(capsys).splitlines()
    assert len(lines) == 6 and all(line.startswith("q ✘") for line in lines)


def test_check_author_mistakes_raise():
    with pytest.raises(ValueError, match="exactly one"):
        check("q", 1.0)
    with pytest.raises(ValueError, match="exactly one"):
        check("q", 1.0, 1.0, one_of=[1.0])
    with pytest.raises(ValueError, match="numeric expected"):
        check("q", 1.0, "abc", rel=0.1)
    with pytest.raises(ValueError, match="numeric expected"):
        check("q", 1.0, predicate=bool, rel=0.1)


def test_verdict_is_a_bool_that_displays_nothing():
    v = Verdict("q1", True)
    assert v and v == True and Verdict("q", False) == False  # noqa: E712
    assert v._ipython_display_() is None
    assert "correct" in repr(v)


def test_self_check_only_judges_the_form(capsys):
    assert self_check("q7", 250.0, lambda x: x > 0)
    assert out(capsys) == "q7 ✔ has the right form (the grader checks the value)\n"
    assert not self_check("q7", "big", lambda x: float(x) > 0, hint="a number.")
    assert out(capsys) == "q7 ✘ does not have the right form yet. Hint: a number.\n"
    assert not self_check("q7", None, lambda x: True)
    assert out(capsys) == "q7 … not answered yet\n"


# -- variants -------------------------------------------------------------------------------


def test_variant_seed_is_stable_and_normalizes_the_id():
    s = variant_seed("alice", "lab1")
    assert s == variant_seed(" Alice ", "lab1") == variant_seed("ALICE", "lab1")
    assert s != variant_seed("bob", "lab1") and s != variant_seed("alice", "lab2")
    assert 0 <= s < 2**32
    # The value for the id every stored lab uses must never change (stored outputs depend on it).
    assert variant_seed("demo", "lab1") == int.from_bytes(
        __import__("hashlib").sha256(b"lab1:demo").digest()[:4], "big")


def test_secret_variants_are_hmac_and_unguessable_without_the_secret():
    """The root is HMAC-SHA256(secret, "lab1:alice") and stays with the grader; the handout's
    seed is a domain-separated SHA-256 of it (issue 16: the handout carries the variant's public
    parameters, never the seed they and anything else derive from)."""
    import hashlib
    import hmac

    from simcore.labkit.check import PUBLIC_SEED, variant_root

    root = hmac.new(SECRET, b"lab1:alice", hashlib.sha256).digest()
    assert variant_root("alice", "lab1", SECRET) == root
    s = variant_seed("alice", "lab1", SECRET)
    assert s == int.from_bytes(hashlib.sha256(PUBLIC_SEED + root).digest()[:4], "big")
    assert s != int.from_bytes(root[:4], "big")  # no part of the root is handed out
    assert s == variant_seed(" ALICE", "lab1", SECRET.decode())
    assert s != variant_seed("alice", "lab1") and s != variant_seed("alice", "lab1", b"x" * 40)
    with pytest.raises(ValueError, match="empty"):
        variant_seed("alice", "lab1", b"")
    # the public demo variant is unchanged: SHA-256 of "lab1:demo", its first four bytes
    assert variant_seed("demo", "lab1") == int.from_bytes(
        hashlib.sha256(b"lab1:demo").digest()[:4], "big")


def test_variant_rng_streams_are_independent_and_repeatable():
    a = variant_rng(42).integers(1_000_000, size=5)
    assert (a == variant_rng(42).integers(1_000_000, size=5)).all()
    assert not (a == variant_rng(43).integers(1_000_000, size=5)).all()
    assert not (variant_rng(42, "q3").integers(1_000_000, size=5) == a).all()
    assert pick(42, ["x", "y", "z"]) == pick(42, ["x", "y", "z"])
    with pytest.raises(ValueError):
        pick(1, [])


def test_student_id_comes_from_the_file_name_or_the_roster_never_the_notebook(tmp_path):
    assert student_id_of(tmp_path / "alice.ipynb") == ("alice", "file name")
    assert student_id_of(tmp_path / "bob" / "lab1_time.ipynb", "lab1_time") == (
        "bob", "folder name")
    roster = {"upload_17.ipynb": "carol"}
    assert student_id_of(tmp_path / "upload_17.ipynb", roster=roster) == ("carol", "roster")


# -- solution blocks --------------------------------------------------------------------------


def test_assigned_names_finds_every_top_level_binding():
    code = ("a = 1\nb, (c, *d) = 1, (2, 3)\ne: int = 4\nf += 1\ndef g(): h = 1\nclass K: pass\n"
            "import numpy as np\nfrom math import pi as PI\nfor i in range(2):\n    j = i\n"
            "with open('x') as fh:\n    k = 1\nif (m := 3):\n    n = 1\ntry:\n    o = 1\n"
            "except Exception:\n    p = 1\n")
    assert assigned_names(code) == ["a", "b", "c", "d", "e", "f", "g", "K", "np", "PI", "i", "j",
                                    "fh", "k", "n", "o", "p"]


def test_strip_solutions_leaves_placeholders_and_keeps_the_rest():
    src = ("x = 2  # given\n### BEGIN SOLUTION\nhelper = x * 3\nq1, q2 = helper, helper + 1\n"
           "### END SOLUTION\nprint('done')")
    assert strip_solutions(src) == ("x = 2  # given\nhelper = None  # your answer\n"
                                    "q1 = None  # your answer\nq2 = None  # your answer\n"
                                    "print('done')")
    indented = "if True:\n    ### BEGIN SOLUTION\n    q3 = 1\n    ### END SOLUTION\n"
    assert strip_solutions(indented) == "if True:\n    q3 = None  # your answer\n"
    nothing = "### BEGIN SOLUTION\nprint(1)\n### END SOLUTION"
    assert strip_solutions(nothing) == "pass  # your code here"
    md = "Why?\n### BEGIN SOLUTION\nBecause zones.\n### END SOLUTION"
    assert "zones" not in strip_solutions(md, markdown=True)


@pytest.mark.parametrize("src, msg", [
    ("### BEGIN SOLUTION\nq1 = 1\n", "never closed"),
    ("q1 = 1\n### END SOLUTION\n", "without a BEGIN"),
    ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n", "inside another"),
    ("### BEGIN SOLUTION\nq1 = (\n### END SOLUTION\n", "does not parse"),
])
def test_broken_solution_blocks_are_reported_with_their_line(src, msg):
    with pytest.raises(LabFormatError, match=msg):
        solution_names(src, "lab.ipynb: cell 3")


def test_set_parameter_replaces_only_that_assignment():
    src = 'import simcore\nSTUDENT_ID = (\n    "demo"\n)\nSEED = 1'
    assert set_parameter(src, "STUDENT_ID", 'o"brien') == (
        'import simcore\nSTUDENT_ID = "o\\"brien"\nSEED = 1')
    with pytest.raises(LabFormatError):
        set_parameter("x = 1", "STUDENT_ID", "a")


# -- a toy lab ----------------------------------------------------------------------------------

FORM = "{} ✔ has the right form (the grader checks the value)\n"


def toy_lab(executed: bool = True):
    """A two-question lab in the format, with stored reference outputs."""
    cells = [
        new_markdown_cell("# Toy lab\nTwo questions."),
        new_code_cell('import simcore.labkit\nSTUDENT_ID = "demo"\n'
                      'SEED = simcore.labkit.variant_seed(STUDENT_ID, "toy")\n'
                      "N = 10 + SEED % 90", metadata={"tags": ["parameters"]}),
        new_code_cell("### BEGIN SOLUTION\nq1 = N * 2\n### END SOLUTION",
                      metadata={"tags": ["answer"]}),
        new_code_cell('# NBVAL_CHECK_OUTPUT\nsimcore.labkit.self_check("q1", q1, lambda v: v > 0)',
                      metadata={"tags": ["check"],
                                "disklab": {"question": "q1", "points": 2, "rel": 0.01}}),
        new_code_cell('### BEGIN SOLUTION\nq2 = "seek"\n### END SOLUTION',
                      metadata={"tags": ["answer"]}),
        new_code_cell('# NBVAL_CHECK_OUTPUT\nsimcore.labkit.self_check("q2", q2, lambda v: v != "")',
                      metadata={"tags": ["check"], "disklab": {
                          "question": "q2", "points": 1, "one_of": ["a seek"]}}),
        new_code_cell('# NBVAL_CHECK_OUTPUT\nsimcore.labkit.check("q2", q2, one_of=["seek"])\n'
                      "### BEGIN HIDDEN TESTS\nassert q2 == 'seek'\n### END HIDDEN TESTS",
                      metadata={"tags": ["check"],
                                "disklab": {"question": "q2", "points": 1, "hidden": True}}),
    ]
    for i, c in enumerate(cells):
        c.id = ["title", "parameters", "answer-q1", "check-q1", "answer-q2", "check-q2",
                "check-q2-hidden"][i]
    if executed:
        for c, line in ((cells[3], FORM.format("q1")), (cells[5], FORM.format("q2")),
                        (cells[6], "q2 ✔ correct\n")):
            c.outputs = [nbformat.v4.new_output("stream", name="stdout", text=line)]
            c.execution_count = 1
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    return nb


def test_placeholders_only_for_names_the_rest_of_the_lab_uses():
    key = toy_lab()
    key.cells[2].source = ("### BEGIN SOLUTION\nmy_total = 0\nfor i in range(N):\n"
                           "    my_total += 2\nq1 = my_total\n### END SOLUTION")
    stu = student_version(key, "toy.ipynb")
    assert stu.cells[2].source == "q1 = None  # your answer"


def test_a_word_in_a_string_or_comment_asks_for_no_placeholder():
    """Only a name the lab's code uses gets a placeholder: "race" in a printed sentence or a
    comment does not (students once got a stray ``race = None``), in an f-string's
    replacement field it does."""
    key = toy_lab()
    key.cells[2].source = ("### BEGIN SOLUTION\nrace = 3\nlap = 2\nq1 = race + lap\n"
                           "### END SOLUTION")
    key.cells.append(nbformat.v4.new_code_cell(
        'print("the race is on")  # lap after lap\nprint(f"{lap:>4} laps")'))
    stu = student_version(key, "toy.ipynb")
    assert stu.cells[2].source == "lap = None  # your answer\nq1 = None  # your answer"


def test_student_version_of_the_toy_lab():
    key = toy_lab()
    stu = student_version(key, "toy.ipynb")
    text = json.dumps(stu)
    assert "N * 2" not in text and "BEGIN SOLUTION" not in text and "HIDDEN" not in text
    assert [c.id for c in stu.cells] == ["title", "parameters", "answer-q1", "check-q1",
                                         "answer-q2", "check-q2"]  # the hidden check is gone
    assert stu.cells[2].source == "q1 = None  # your answer"
    assert stu.cells[2].metadata["disklab"] == {"answer": "answer-q1"}
    # how the grader compares (tolerance, accepted alternatives) is not shipped
    assert stu.cells[3].metadata["disklab"] == {"question": "q1", "points": 2}
    assert stu.cells[5].metadata["disklab"] == {"question": "q2", "points": 1}
    assert all(c.get("outputs") in (None, []) for c in stu.cells)
    assert key.cells[2].source.startswith("### BEGIN")  # the key is not changed


def test_key_validation_names_the_cell_and_the_fix():
    key = toy_lab()
    info = inspect_lab(key, "toy.ipynb")
    assert info.questions == ["q1", "q2"] and info.max_points() == {"q1": 2.0, "q2": 2.0}
    assert info.answer_names == {"answer-q1": ["q1"], "answer-q2": ["q2"]}

    unrun = toy_lab(executed=False)
    with pytest.raises(LabFormatError, match=r"cell 4 \(id check-q1\).*no stored output"):
        inspect_lab(unrun, "toy.ipynb")
    inspect_lab(unrun, "toy.ipynb", require_outputs=False)

    wrong = toy_lab()
    wrong.cells[3].outputs[0].text = "q1 ✘ not right yet.\n"
    with pytest.raises(LabFormatError, match="not all ticks"):
        inspect_lab(wrong, "toy.ipynb")

    leaky = toy_lab()
    leaky.cells[2].metadata["tags"] = []
    with pytest.raises(LabFormatError, match="not tagged `answer`"):
        inspect_lab(leaky, "toy.ipynb")

    nopoints = toy_lab()
    nopoints.cells[3].metadata["disklab"] = {"question": "q1"}
    with pytest.raises(LabFormatError, match="points of q1"):
        inspect_lab(nopoints, "toy.ipynb")

    badrule = toy_lab()
    badrule.cells[3].metadata["disklab"]["rel"] = -1
    with pytest.raises(LabFormatError, match="rel must be a number >= 0"):
        inspect_lab(badrule, "toy.ipynb")

    dup = toy_lab()
    dup.cells[4].id = "answer-q1"
    with pytest.raises(LabFormatError, match="repeats the id"):
        inspect_lab(dup, "toy.ipynb")
    assert issubclass(LabFormatError, DisklabError)


def test_write_student_never_overwrites_an_edited_file(tmp_path):
    key_path = tmp_path / "toy.ipynb"
    nbformat.write(toy_lab(), str(key_path))
    out = tmp_path / "student"
    (first,) = write_student(key_path, out)
    write_student(key_path, out)  # untouched since: replaced silently
    nb = nbformat.read(str(first.path), as_version=4)
    nb.cells[2].source = "q1 = 20  # my work"
    nbformat.write(nb, str(first.path))
    with pytest.raises(FileExistsError, match="changed since"):
        write_student(key_path, out)
    assert "my work" in first.path.read_text()
    write_student(key_path, out, force=True)
    assert "my work" not in first.path.read_text()


def test_roster_gives_each_student_a_personal_copy(tmp_path):
    key_path = tmp_path / "toy.ipynb"
    nbformat.write(toy_lab(), str(key_path))
    with pytest.raises(ValueError, match="secret"):
        write_student(key_path, tmp_path / "out", roster=["alice"])
    written = write_student(key_path, tmp_path / "out", roster=["alice", "bob"], secret=SECRET)
    assert [w.path.relative_to(tmp_path / "out").as_posix() for w in written] == [
        "alice/toy.ipynb", "bob/toy.ipynb"]
    nb = nbformat.read(str(written[0].path), as_version=4)
    assert 'STUDENT_ID = "alice"' in nb.cells[1].source
    # the handout carries the student's seed, never the secret or how to compute it
    assert f"SEED = {variant_seed('alice', 'toy', SECRET)}" in nb.cells[1].source
    assert "variant_seed" not in nb.cells[1].source and SECRET.decode() not in json.dumps(nb)
    assert nb.metadata["disklab"]["student_id"] == "alice"


def test_answer_sheet_and_literal_answers():
    key = toy_lab()
    with pytest.raises(ValueError, match="secret"):
        answer_sheet(key, "alice", "toy.ipynb", secret=b"")
    sheet = answer_sheet(key, "alice", "toy.ipynb", secret=SECRET)
    assert sheet == {"q1": 2 * (10 + variant_seed("alice", "toy", SECRET) % 90), "q2": "seek"}
    assert run_key(key, "x", 5, "toy.ipynb", {3: [("q1", "q1 + 1")]}) == {"q1": 2 * 15 + 1}
    assert literal_answers({"q1": np.float64(1.5), "q4": {"a": np.int64(2)}}) == (
        "q1 = 1.5\nq4 = {'a': 2}")


# -- splicing -----------------------------------------------------------------------------------


@pytest.fixture
def toy_key(tmp_path):
    path = tmp_path / "toy.ipynb"
    nbformat.write(toy_lab(), str(path))
    return Key(path, SECRET)


def test_splice_runs_the_student_version_with_export_cells_and_no_key(toy_key):
    sub = student_version(toy_key.nb, "toy.ipynb")
    sub.cells[2].source = "q1 = 999"
    sub.cells[3].outputs = [nbformat.v4.new_output("stream", name="stdout",
                                                   text="q1 ✔ correct\n")]  # a faked tick
    sub.cells[3].source = '# NBVAL_CHECK_OUTPUT\nprint("q1 ✔ correct")'   # and a faked check
    merged, notes, flagged = splice(toy_key, sub, "alice")
    ids = [c.get("id") for c in merged.cells]
    # first the grader's watch for answers that run programs (simcore.labkit.spawns)
    assert ids[0] == "disklab-watch" and "spawns.watch()" in merged.cells[0].source
    merged.cells = merged.cells[1:]
    ids = ids[1:]
    assert ids == ["title", "parameters", "answer-q1", "check-q1", "disklab-export-q1",
                   "answer-q2", "check-q2", "disklab-export-q2"]  # no hidden cell inside
    assert merged.cells[2].source == "q1 = 999"
    assert merged.cells[3].source.endswith(toy_key.student.cells[3].source.split("\n", 1)[1])
    assert "NBVAL_CHECK_OUTPUT" not in merged.cells[3].source and not merged.cells[3].outputs
    assert "emit('q1', lambda: (q1))" in merged.cells[4].source
    assert 'STUDENT_ID = "alice"' in merged.cells[1].source
    assert f"SEED = {toy_key.seed('alice')}" in merged.cells[1].source
    text = json.dumps(merged)
    assert "N * 2" not in text and "a seek" not in text and "HIDDEN" not in text
    assert any("not answer cells" in n for n in notes)
    assert not flagged


def test_splice_detects_deleted_duplicated_reordered_and_added_cells(toy_key):
    sub = student_version(toy_key.nb, "toy.ipynb")
    sub.cells[2].source = "q1 = 1"
    copy_cell = copy.deepcopy(sub.cells[2])
    copy_cell.id = "pasted"          # a copy-paste: new id, same stamp
    copy_cell.source = "q1 = 2"
    a2 = sub.cells.pop(4)            # move the q2 answer above q1's
    sub.cells.insert(1, a2)
    sub.cells.append(copy_cell)
    sub.cells.append(new_code_cell("scratch = 1"))
    merged, notes, _ = splice(toy_key, sub, "bob")
    text = " ".join(notes)
    assert merged.cells[3].source == "q1 = 2"  # the last copy (after the grader's watch cell)
    assert "appears 2 times" in text and "not in the lab's order" in text
    assert "you added were not run" in text
    del sub.cells[1]                 # delete the q2 answer
    merged, notes, _ = splice(toy_key, sub, "bob")
    assert merged.cells[6].source == "q2 = None  # your answer"
    assert any("missing" in n for n in notes)


def test_splice_disarms_nbval_markers(toy_key):
    sub = student_version(toy_key.nb, "toy.ipynb")
    sub.cells[2].source = "# NBVAL_SKIP\nq1 = 1"
    merged, _, _ = splice(toy_key, sub, "eve")
    assert "NBVAL_SKIP" not in merged.cells[2].source


def test_splice_warns_about_a_mismatched_student_id(toy_key):
    sub = personalize(student_version(toy_key.nb, "toy.ipynb"), "mallory", 12345)
    _, notes, flagged = splice(toy_key, sub, "alice")
    assert any("'mallory'" in n and "'alice'" in n for n in notes)
    assert flagged == ["the notebook claims id 'mallory'"]
    assert not any("not answer cells" in n for n in notes)  # setting the id is no edit
    sub = student_version(toy_key.nb, "toy.ipynb")
    _, notes, _ = splice(toy_key, sub, "alice")
    assert any('still says STUDENT_ID = "demo"' in n for n in notes)


@pytest.mark.parametrize("content, msg", [
    ('{"cells": [', "not valid JSON"),
    ('{"hello": 1}', "not a Jupyter notebook"),
    ("", "empty"),
])
def test_malformed_submissions_are_rejected_with_a_reason(tmp_path, content, msg):
    p = tmp_path / "x.ipynb"
    p.write_text(content)
    with pytest.raises(ValueError, match=msg):
        read_submission(p)


def test_submissions_are_collected_once_and_the_key_only_when_named(tmp_path):
    from simcore.labkit.grade import collect_submissions

    (tmp_path / "sub" / ".ipynb_checkpoints").mkdir(parents=True)
    for name in ("key.ipynb", "sub/alice.ipynb", "sub/.ipynb_checkpoints/alice-checkpoint.ipynb"):
        (tmp_path / name).write_text("{}")
    key = tmp_path / "key.ipynb"
    found = collect_submissions([tmp_path, tmp_path / "sub" / "alice.ipynb"], exclude=key)
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["sub/alice.ipynb"]
    assert collect_submissions([key], exclude=key) == [key]


def test_a_notebook_of_another_lab_is_noted(toy_key):
    sub = student_version(toy_key.nb, "toy.ipynb")
    sub.metadata["disklab"]["lab"] = "lab3"
    sub.cells = sub.cells[:2]  # another lab's cells: none of the key's answer cells
    _, notes, _ = splice(toy_key, sub, "alice")
    # the headline (grade_one) says which lab was found; no note per missing or changed cell
    assert wrong_lab(toy_key, sub) == "lab3"
    assert not any("answer cell" in n or "not answer cells" in n for n in notes), notes


def test_two_grading_processes_never_share_a_sandbox_slot():
    """Each slot's user has all its processes killed after a submission, so slots are locked."""
    import subprocess
    import sys

    from simcore.labkit import sandbox

    mine = sandbox.claim_slot()
    try:
        other = subprocess.run(
            [sys.executable, "-c", "from simcore.labkit import sandbox; print(sandbox.claim_slot())"],
            capture_output=True, text=True, timeout=120, check=True)
        assert int(other.stdout) != mine
        second = sandbox.claim_slot()  # the same process does not get it twice either
        sandbox.release_slot(second)
        assert second != mine
    finally:
        sandbox.release_slot(mine)


def test_literal_answers_refuse_what_no_literal_spells():
    """A generated "typed the numbers" submission must not write `Completed(...)` (a NameError
    in the student's kernel): a record or an object has no literal form, a number does."""
    from simcore.labkit.variants import literal_answers
    from simcore.records import Completed

    assert literal_answers({"q1": 3.5, "q2": [1, (2, "a")]}) == "q1 = 3.5\nq2 = [1, (2, 'a')]"
    rec = Completed(0, "R", 0, 8, 0.0, 0.0, 1.0, 0.0, 0.1, 0.2, 0.3, 0.4, 0.0, 1.0)
    with pytest.raises(TypeError, match="record"):
        literal_answers({"q1": [rec]})
    with pytest.raises(TypeError, match="literal"):
        literal_answers({"q1": object()})


def test_grading_as_root_refuses_to_share_a_sandbox_user(monkeypatch):
    """A slot's user is killed wholesale between submissions, so a shared fallback (nobody)
    would let one slot's cleanup kill another slot's kernel and the machine's own nobody
    daemons: when the slot's user cannot be made, grading stops with what to do."""
    from simcore.labkit import sandbox

    def no_such_user(name):
        raise KeyError(name)

    monkeypatch.setattr(sandbox.os, "getuid", lambda: 0)
    monkeypatch.setattr(sandbox.pwd, "getpwnam", no_such_user)
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    with pytest.raises(sandbox.SandboxUnavailable, match="disklab-sb7.*useradd is not installed"):
        sandbox.sandbox_user(7)
    assert issubclass(sandbox.SandboxUnavailable, ValueError)  # one line on the command line


def test_the_variants_command_prints_a_table_and_json_on_request(tmp_path, capsys):
    """``python -m simcore variants``: an instructor reads a table (the walkthrough of
    2026-11-28 found raw JSON); ``--json`` still gives the whole report."""
    import json
    from types import SimpleNamespace

    from simcore.commands import variants
    from simcore.labkit.demo import template_lab

    key = tmp_path / "template.ipynb"
    nbformat.write(template_lab(), str(key))
    from simcore.labkit import secret

    secret_file = secret.create(tmp_path / "secret")
    args = SimpleNamespace(key=str(key), n=4, secret=str(secret_file), json=True)
    assert variants.main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["students"] == 4 and report["pairs"] == 6
    args.json = False
    assert variants.main(args) == 0
    table = capsys.readouterr().out
    assert not table.lstrip().startswith("{")
    assert table.splitlines()[0] == (f"{report['lab']}: 4 students, 6 pairs, "
                                     f"{report['points']:g} points")
    for q, share in report["per_question_shared_fraction"].items():
        row = next(ln for ln in table.splitlines() if ln.startswith(q + " "))
        assert f"{100 * share:.1f} %" in row
        assert row.split()[-1] == str(report["distinct_answers"][q])
    assert f"largest {100 * report['max_shared_fraction']:.1f} %" in table


def test_the_spawn_notice_reads_only_known_kinds_once():
    """What a cell's output says about programs it tried to run: the fixed words only, each
    once, whatever else a line holds (nothing a student prints reaches the feedback)."""
    from simcore.labkit.spawns import MARK, kinds_in

    out = (f"hello\n{MARK}os.system\nmore\n{MARK}os.system\n{MARK}subprocess\n"
           f"{MARK}rm -rf /\n{MARK}secret\n  {MARK}os.exec\n")
    assert kinds_in(out) == ["os.system", "subprocess"]
    assert kinds_in("nothing here") == []
