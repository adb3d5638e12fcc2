"""A check cell's ``hint``: what a student who got the question wrong should check.

Lab 4's walkthrough (a careful student read the zone explorer on the wrong I/O path and got
only "not within the tolerance") asked for a pointer to the settings. The hint is the key's
sentence, shown with a wrong answer only; it may never carry a value, so the key refuses
one with a digit in it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from simcore.labkit import answers
from simcore.labkit.grade import Key, judge
from simcore.labkit.labformat import LabFormatError, inspect_lab, read_notebook
from simcore.labkit.student import student_version

LAB4 = Path(__file__).resolve().parents[1] / "instructors" / "labs" / "lab4_placement.ipynb"


@pytest.fixture(scope="module")
def key():
    return Key(LAB4)


def test_a_wrong_explorer_reading_names_what_to_check(key):
    hint = key.spec["q10"].hint
    assert "IDE path" in hint
    ok, line = judge(key, "q10", answers.Received(True, 1e6), {"q10": 7.0})
    assert not ok and line == f"q10 ✘ not within the tolerance ({hint})"
    ok, line = judge(key, "q10", answers.Received(True, 7.0), {"q10": 7.0})
    assert ok and hint not in line


def test_a_question_without_a_hint_says_only_what_is_wrong(key):
    assert key.spec["q1"].hint == ""
    ok, line = judge(key, "q1", answers.Received(True, "not a list"), {"q1": [1, 2, 3]})
    assert not ok and "(" not in line.split("✘", 1)[1]


def test_a_hint_with_a_number_is_refused_and_never_reaches_the_student(key):
    nb = read_notebook(LAB4)
    cell = next(c for c in nb.cells if c.metadata.get("disklab", {}).get("question") == "q10"
                and "check" in c.metadata.get("tags", []))
    handed_out = next(c for c in student_version(nb, LAB4).cells if c.get("id") == cell.id)
    assert "disklab" in handed_out.metadata and "hint" not in handed_out.metadata["disklab"]
    cell.metadata["disklab"]["hint"] = "the answer is about 7 ms"
    with pytest.raises(LabFormatError, match="hint of q10 must be a sentence"):
        inspect_lab(nb, LAB4)
