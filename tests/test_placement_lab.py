"""Lab 4 (traces and placement): format, at least five graded questions, a hardware part
that is skipped in grading, and variants that really differ between students."""

from __future__ import annotations

from pathlib import Path

import nbformat

from simcore.labkit.labformat import inspect_lab, nbval_markers, tags

LAB = Path(__file__).resolve().parent.parent / "instructors" / "labs" / "lab4_placement.ipynb"


def test_lab4_follows_the_format_with_five_graded_questions():
    nb = nbformat.read(str(LAB), as_version=4)
    info = inspect_lab(nb, LAB)
    graded = {q.question for q in info.checks if q.points > 0}
    assert len(graded) >= 5


def test_lab4_hardware_cell_is_skipped_and_falls_back():
    nb = nbformat.read(str(LAB), as_version=4)
    hw = [i for i, c in enumerate(nb.cells) if "hardware" in tags(c)]
    assert len(hw) == 1
    assert "NBVAL_SKIP" in nbval_markers(nb.cells[hw[0]].source)
    fallback = nb.cells[hw[0] + 1].source
    assert "fio_zipf_sparsefile.iolog" in fallback and "RECORDED" in fallback


def test_lab4_variants_differ():
    nb = nbformat.read(str(LAB), as_version=4)
    setup = next(c.source for c in nb.cells if "def lab4_variant" in c.source)
    import simcore.labkit

    ns: dict = {"simcore": simcore}
    exec(setup.split("V = lab4_variant(SEED)")[0], ns)
    a = ns["lab4_variant"](simcore.labkit.variant_seed("alice", "lab4"))
    b = ns["lab4_variant"](simcore.labkit.variant_seed("bob", "lab4"))
    assert (a.heats, a.stream, a.times) != (b.heats, b.stream, b.times)
