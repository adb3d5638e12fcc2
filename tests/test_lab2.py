"""Lab 2 (PIO, DMA and the drive's cache): format, and its solutions against its checks.

Sources of the checked values: Gray 2000 §2.7-2.8 as corrected in notes 000 (ATA cycle times,
PIO cost per word and per interrupt), §2.6 and §2.10 (hit = overhead + bytes / rate; the lost
revolution), Panagiotakis 2006 (a segment per stream).
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import nbformat
import pytest

from simcore.labkit.labformat import inspect_lab, nbval_markers, set_parameter, tags

LAB2 = Path(__file__).resolve().parent.parent / "instructors" / "labs" / "lab2_interface_cache.ipynb"


@pytest.fixture(scope="module")
def key():
    return nbformat.read(str(LAB2), as_version=4)


def test_lab2_follows_the_format(key):
    info = inspect_lab(key, LAB2)
    assert info.lab == "lab2"
    graded = [q for q, p in info.max_points().items() if p > 0]
    assert len(graded) >= 5
    params = key.cells[info.parameters_index].source
    assert 'SEED = simcore.labkit.variant_seed(STUDENT_ID, "lab2")' in params


def test_lab2_marks_plots_and_hardware_for_nbval(key):
    code = [c for c in key.cells if c.cell_type == "code"]
    hw = [c for c in code if "hardware" in tags(c)]
    assert hw and all(c.source.startswith("# NBVAL_SKIP") for c in hw)
    for cell in code:
        if "go.Figure(" in cell.source or "hdparm_t(" in cell.source:
            assert "NBVAL_IGNORE_OUTPUT" in nbval_markers(cell.source) or cell.id.startswith(
                "check"), cell.id
    # the cell after each measuring cell falls back to labelled data when nothing was measured:
    # the served drive's to the demo variant's labelled recording (emulated.recorded), the own
    # machine's to a recording or simulated data, each saying which
    after = [code[code.index(c) + 1].source for c in hw if "RUN_VM" not in c.source]
    assert any("emulated.recorded(" in src for src in after)
    assert any("RECORDED" in src and "SIMULATED" in src for src in after)


@pytest.mark.parametrize("student", ["demo", "ada", "grace"])
def test_lab2_solutions_pass_their_checks_for_every_variant(key, student):
    ns: dict = {}
    out = io.StringIO()
    for cell in key.cells:
        if cell.cell_type != "code" or "hardware" in tags(cell) or cell.id == "q5-run":
            continue
        src = cell.source
        if "parameters" in tags(cell):
            src = set_parameter(src, "STUDENT_ID", student)
        with contextlib.redirect_stdout(out):
            exec(compile(src, cell.id, "exec"), ns)
    lines = [ln for ln in out.getvalue().splitlines() if ln[:3].rstrip() in
             {f"q{i}" for i in range(1, 12)} and ("✔" in ln or "✘" in ln or "…" in ln)]
    assert len(lines) == 11
    # q9 is a measurement of the student's served drive: with the measuring cell skipped (as
    # here) only the demo variant has a labelled recording to fall back to
    assert all("✔" in ln or (ln.startswith("q9 ") and "not answered" in ln) for ln in lines), lines
    assert sum("✔" in ln for ln in lines) >= 10, lines
