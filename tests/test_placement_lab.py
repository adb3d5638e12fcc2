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


def test_lab4_q7_offers_each_student_their_own_spacings():
    """q7's best spacing was the same for everyone when all were offered the same three;
    the variant now draws two near spacings beside the two far ones, and the key measures those."""
    nb = nbformat.read(str(LAB), as_version=4)
    setup = next(c.source for c in nb.cells if "def lab4_variant" in c.source)
    import simcore.labkit

    ns: dict = {"simcore": simcore}
    exec(setup.split("V = lab4_variant(SEED)")[0], ns)
    sets = {tuple(ns["lab4_variant"](simcore.labkit.variant_seed(s, "lab4")).spacings7)
            for s in ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")}
    assert len(sets) >= 3
    for s in sets:
        assert len(set(s)) == 4 and {3_000_000, 10_000_000} <= set(s)
    key = next(c.source for c in nb.cells if "q7 = " in c.source)
    assert "for x in V.spacings7" in key
