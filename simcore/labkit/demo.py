"""A minimal lab in the lab format, and demo submissions for it.

:func:`template_lab` is the smallest notebook that has every part of the format
(a parameters cell, a variant, answer cells with solutions, and check cells: a
visible self-check of the answer's form, and in the key's metadata the rule the
grader applies on its own side). Copy it to start a new lab. The
book's chapter for instructors grades :func:`write_demo_submissions` with it.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

RPMS = [3600, 4200, 5400, 7200, 10000, 15000]
FORM_OK = "{} ✔ has the right form (the grader checks the value)\n"


def _cell(kind, cid, source, tags=(), disklab=None, stdout=None):
    cell = new_code_cell(source) if kind == "code" else new_markdown_cell(source)
    cell.id = cid
    if tags:
        cell.metadata["tags"] = list(tags)
    if disklab:
        cell.metadata["disklab"] = dict(disklab)
    if stdout is not None:
        cell.outputs = [new_output("stream", name="stdout", text=stdout)]
        cell.execution_count = 1
    return cell


def template_lab(lab: str = "template") -> nbformat.NotebookNode:
    """A two-question lab, with the reference outputs its check cells print when run.

    The check cells' stored outputs are the lines the key prints when every
    answer is right (what nbval compares with); the other cells are left unrun.
    A real lab is run top to bottom and saved instead.
    """
    cells = [
        _cell("md", "title", "# Template lab: one revolution\n\nTwo questions about the "
              "spinning platter; your spindle speed depends on your student id."),
        _cell("code", "parameters", 'import simcore\nimport simcore.labkit\n\n'
              'STUDENT_ID = "demo"\n'
              f'SEED = simcore.labkit.variant_seed(STUDENT_ID, "{lab}")', tags=["parameters"]),
        _cell("code", "setup", f"RPMS = {RPMS}\nRPM = simcore.labkit.pick(SEED, RPMS)\n"
              'print(f"Your disk spins at {RPM} RPM.")'),
        _cell("md", "q1-text", "**q1.** What is the mean rotational latency at `RPM`, in ms?"),
        _cell("code", "answer-q1", "### BEGIN SOLUTION\nq1 = 30_000 / RPM\n### END SOLUTION",
              tags=["answer"]),
        _cell("code", "check-q1", "# NBVAL_CHECK_OUTPUT\n"
              'simcore.labkit.self_check("q1", q1, lambda v: 0 < float(v) < 50, '
              'hint="a time in ms.")',
              tags=["check"], disklab={"question": "q1", "points": 1, "rel": 0.01},
              stdout=FORM_OK.format("q1")),
        _cell("md", "q2-text", "**q2.** How long is one revolution, in ms?"),
        _cell("code", "answer-q2", "### BEGIN SOLUTION\nq2 = 60_000 / RPM\n### END SOLUTION",
              tags=["answer"]),
        _cell("code", "check-q2", "# NBVAL_CHECK_OUTPUT\n"
              'simcore.labkit.self_check("q2", q2, lambda v: float(v) > 0, '
              'hint="a time in ms.")',
              tags=["check"], disklab={"question": "q2", "points": 2, "rel": 0.01},
              stdout=FORM_OK.format("q2")),
    ]
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["disklab"] = {"lab": lab}
    return nb


def write_demo_submissions(key_path: str | Path, folder: str | Path,
                           secret: bytes | None = None) -> list[Path]:
    """Four submissions for a template lab: right, blank, one wrong answer, not a notebook.

    ``ada`` types in her q2 as a number: the value of her variant under ``secret``
    (the public variant without one), so she scores only if graded with the same secret.
    """
    from .labformat import set_parameter
    from .student import student_version
    from .variants import answer_sheet

    key = nbformat.read(str(key_path), as_version=4)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stu = student_version(key, key_path)
    out = []

    def save(name, answers):
        nb = nbformat.from_dict(nbformat.reads(nbformat.writes(stu), as_version=4))
        for cell in nb.cells:
            if cell.id in answers:
                cell.source = answers[cell.id]
            if "parameters" in cell.metadata.get("tags", []):  # as the students were told
                cell.source = set_parameter(cell.source, "STUDENT_ID", name)
        p = folder / f"{name}.ipynb"
        nbformat.write(nb, str(p))
        out.append(p)

    if secret:
        ada = answer_sheet(key, "ada", key_path, secret=secret)
    else:
        from .check import variant_seed
        from .variants import run_key

        lab = key.metadata["disklab"]["lab"]
        ada = run_key(key, "ada", variant_seed("ada", lab), key_path)
    save("ada", {"answer-q1": "q1 = 30_000 / RPM", "answer-q2": f"q2 = {ada['q2']!r}"})
    save("ben", {})
    save("cy", {"answer-q1": "q1 = 60_000 / RPM  # a whole revolution",
                "answer-q2": "q2 = 60_000 / RPM"})
    broken = folder / "dee.ipynb"
    broken.write_text('{"cells": [{"cell_type": "code", "source": "q1 = ')
    out.append(broken)
    return out


HOSTILE = {
    "patch-checker": "import simcore.labkit\nsimcore.labkit.self_check = lambda *a, **k: "
                     "print('q ✔ correct')\n{name} = 12345.0",
    "always-equal": "class _Yes:\n    def __eq__(self, other):\n        return True\n"
                    "{name} = _Yes()",
    "os-system": "import os\nos.system('rm -rf /tmp/* ~/* 2>/dev/null')\n{name} = None",
    "endless-loop": "while True:\n    pass",
    "swallow-interrupt": "import time\nwhile True:\n    try:\n        time.sleep(0.5)\n"
                         "    except KeyboardInterrupt:\n        pass",
    "memory-hog": "my_blocks = []\nwhile True:\n    my_blocks.append(bytearray(100_000_000))",
    "detached-daemon": "import os, time\nif os.fork() == 0:\n    os.setsid()\n"
                       "    time.sleep(600)\n    os._exit(0)\n{name} = None",
}


def measuring_cells(key: nbformat.NotebookNode) -> dict[str, list[str]]:
    """The key's measuring cells: cell id -> the kinds of the attachments its stored outputs hold."""
    from .attach import MIME

    found: dict[str, list[str]] = {}
    for cell in key.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            att = (out.get("data") or {}).get(MIME)
            if isinstance(att, dict) and att.get("kind"):
                found.setdefault(cell.id, []).append(att["kind"])
    return found


def measured_key_run(key: nbformat.NotebookNode, student_id: str, seed: int,
                     key_path: str | Path = "<lab>") -> tuple[dict[str, list[dict]], dict]:
    """Run the key for one student as the student would, measuring cells included.

    Returns the attachments each measuring cell saves (cell id -> attachments, as
    :func:`simcore.labkit.attach.put` stores them) and the answers the key computes
    from them. The measurements are taken now, on the student's own served drive
    (fio), so a generated submission carries what a student's saved notebook carries.
    """
    import copy

    from . import attach
    from .variants import run_key

    cells = measuring_cells(key)
    run = copy.deepcopy(key)
    for cell in run.cells:
        if cell.get("id") in cells:  # run_key skips hardware cells; a student runs these
            cell.metadata["tags"] = [t for t in cell.metadata.get("tags", []) if t != "hardware"]
            cell.source = "\n".join(ln for ln in cell.source.splitlines()
                                    if "NBVAL_SKIP" not in ln)
    for kinds in cells.values():
        for kind in kinds:
            attach.forget(kind)
    values = run_key(run, student_id, seed, key_path)
    atts = {}
    for cid, kinds in cells.items():
        got = [attach.latest(k) for k in kinds]
        if any(a is None for a in got):
            raise RuntimeError(f"{key_path}: {student_id}'s measuring cell {cid} attached "
                               f"nothing (is fio installed?)")
        atts[cid] = got
    return atts, values


def write_class_submissions(key_path: str | Path, folder: str | Path, n: int = 200,
                            secret: bytes | None = None, seed: int = 0,
                            measure: bool = True) -> list[Path]:
    """``n`` submissions of a lab for a benchmark: right, wrong, blank and hostile.

    Drawn from ``seed``: about half the class hands in the key's solutions, a fifth makes one
    honest mistake (a question answered with a wrong number), a tenth hands in the blank copy,
    a tenth types in their own right numbers, and a tenth attacks one question with one of
    :data:`HOSTILE` (patched checks, lying objects, ``os.system``, endless and
    interrupt-swallowing loops, a memory hog, a detached daemon). Files are ``sNNN.ipynb``.

    Each file is the student's personal copy (``STUDENT_ID`` and ``SEED`` set, as handed
    out). With ``measure``, every submission but the blank ones carries the measurements
    its lab's measuring cells attach, taken for that student's own drive
    (:func:`measured_key_run`; needs fio), as a student who ran the notebook saves it.
    """
    import numpy as np

    from .attach import put
    from .check import variant_seed
    from .labformat import is_answer
    from .student import student_version
    from .variants import literal_answers, personalize, run_key

    key = nbformat.read(str(key_path), as_version=4)
    lab = key.metadata["disklab"]["lab"]
    stu = student_version(key, key_path)
    answer_cells = [c for c in key.cells if is_answer(c)]
    solutions = {c.id: c.source for c in answer_cells}
    rng = np.random.default_rng(seed)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    kinds = list(HOSTILE)
    measuring = measuring_cells(key)
    out = []
    for i in range(1, n + 1):
        sid = f"s{i:03d}"
        u = rng.random()
        answers: dict[str, str] = {}
        student_seed = variant_seed(sid, lab, secret)
        atts: dict[str, list[dict]] = {}
        values = None
        if measure and measuring and not 0.7 <= u < 0.8:  # the blank copy was never run
            atts, values = measured_key_run(key, sid, student_seed, key_path)
        if u < 0.5:
            answers = dict(solutions)
        elif u < 0.7:
            answers = dict(solutions)
            victim = answer_cells[int(rng.integers(len(answer_cells)))]
            names = [n_ for n_ in victim.source.split("\n") if "=" in n_ and n_[:1].isalpha()]
            name = names[-1].split("=")[0].strip() if names else "q1"
            answers[victim.id] = f"{name} = {float(rng.uniform(0.5, 50)):.3f}"
        elif u < 0.8:
            answers = {}
        elif u < 0.9:
            if values is None:
                values = run_key(key, sid, student_seed, key_path)
            for c in answer_cells:
                names = [q for q in values if f"{q} =" in c.source or f"def {q}" in c.source]
                plain = {q: values[q] for q in names if not callable(values[q])}
                try:
                    answers[c.id] = literal_answers(plain) if plain else solutions[c.id]
                except TypeError:  # the cell builds records or objects: typed as the key does
                    answers[c.id] = solutions[c.id]
        else:
            answers = dict(solutions)
            victim = answer_cells[int(rng.integers(len(answer_cells)))]
            attack = kinds[int(rng.integers(len(kinds)))]
            names = [ln.split("=")[0].strip() for ln in victim.source.split("\n")
                     if "=" in ln and ln[:1].isalpha()]
            answers[victim.id] = HOSTILE[attack].format(name=names[-1] if names else "q1")
        nb = nbformat.from_dict(nbformat.reads(nbformat.writes(stu), as_version=4))
        personalize(nb, sid, student_seed)  # the copy handed out to this student
        for cell in nb.cells:
            if cell.get("id") in answers:
                cell.source = answers[cell.id]
        for cid, cell_atts in atts.items():
            put(nb, cid, *cell_atts)
        p = folder / f"{sid}.ipynb"
        nbformat.write(nb, str(p))
        out.append(p)
    return out
