"""The class generator (tools/make_submissions.py): its submissions carry what a student's
saved notebook carries, so a right one can score full marks on a measured question."""

from __future__ import annotations

import json

import nbformat
from nbformat.v4 import new_code_cell, new_output

from simcore.labkit import demo
from simcore.labkit.attach import bundle, from_notebook, make
from simcore.labkit.demo import template_lab, write_class_submissions
from simcore.labkit.variants import declared_id


def _measured_lab():
    """The template lab with a measuring cell (tagged hardware, skipped by nbval) that
    attaches a report drawn from the student's seed, as the labs' fio cells do."""
    nb = template_lab("measured")
    cell = new_code_cell(
        "# NBVAL_SKIP\nimport json\nimport simcore.labkit.attach\n"
        "simcore.labkit.attach.attach('toy-run', 'toy', json.dumps({'seed': SEED}))")
    cell.id = "toy-measure"
    cell.metadata["tags"] = ["hardware"]
    cell.outputs = [new_output("display_data",
                               data=bundle(make("toy-run", "toy", '{"seed": 0}')))]
    nb.cells.insert(3, cell)
    return nb


def test_generated_submissions_are_personal_copies_with_their_own_measurements(tmp_path):
    key = tmp_path / "measured.ipynb"
    nbformat.write(_measured_lab(), str(key))
    secret = b"k" * 32
    paths = write_class_submissions(key, tmp_path / "class", n=12, secret=secret, seed=0)
    from simcore.labkit.check import variant_seed

    carried = 0
    for p in paths:
        nb = nbformat.read(str(p), as_version=4)
        assert declared_id(nb) == p.stem  # the copy handed out to that student
        atts = from_notebook(nb)
        if atts:
            carried += 1
            (att,) = atts
            assert att["kind"] == "toy-run"
            # measured for this student's own variant, not the demo's or the key's
            assert json.loads(att["raw"])["seed"] == variant_seed(p.stem, "measured", secret)
    assert carried >= len(paths) // 2  # every submission but the blank copies was run
    assert demo.measuring_cells(nbformat.read(str(key), as_version=4)) == {
        "toy-measure": ["toy-run"]}
    # without measuring, nothing is attached (the old behaviour, kept as an option)
    paths = write_class_submissions(key, tmp_path / "plain", n=4, secret=secret, seed=0,
                                    measure=False)
    assert not any(from_notebook(nbformat.read(str(p), as_version=4)) for p in paths)
