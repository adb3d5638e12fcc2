"""Grading: splice a student's answers into the key, run nbval on it, map checks to points.

nbval alone only compares a notebook with its own stored outputs, so a student
who saved a fake tick would pass. The grader therefore builds a *merged*
notebook for each submission: the key's cells (its parameters, its check
cells with their reference outputs, its hidden checks), with the student's
answer cells put in place of the key's and the student's id written into the
parameters cell, so the checks recompute the student's own variant. It runs
``pytest --nbval-lax --nbval-current-env`` on that notebook with a per-cell
and a whole-notebook timeout, reads each check cell's pass or fail (recorded
cell by cell by :mod:`simcore.labkit._nbval_probe`), and turns it into points.

Answer cells are paired by their nbformat cell id, or by the
``disklab.answer`` stamp the student version carries. A deleted answer
counts as unanswered; a duplicated one is graded from its last copy; answers
are always run in the key's order. A submission that is not a notebook,
crashes, hangs or kills its kernel still gets a row (zero for what failed)
and feedback that says why; the run goes on with the next one.

Limits, said plainly: answer cells run in the same kernel as the checks, so
a student who deliberately rewrites the check function or ``print`` can fake
a pass. The grader flags answer cells that touch the check machinery for a
human to look at; it does not sandbox them.
"""

from __future__ import annotations

import contextlib
import copy
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from .check import TICK
from .labformat import (
    NBVAL_MARKER,
    LabFormatError,
    LabInfo,
    disklab_meta,
    inspect_lab,
    is_answer,
    read_notebook,
    set_parameter,
)
from .student import safe_name, student_version
from .variants import DEFAULT_ID, declared_id, student_id_of

MAX_SUBMISSION_BYTES = 20_000_000
SUSPICIOUS = re.compile(
    r"\b(labkit|_judge|Verdict|builtins|__builtins__|sys\.modules|sys\.stdout|"
    r"redirect_stdout|get_ipython|sys\.settrace)\b|\bprint\s*=|\bcheck\s*=|def\s+check\b|"
    r"def\s+print\b"
)


@dataclass
class CellRun:
    """What the probe recorded for one code cell of the merged notebook."""

    outcome: str  # passed, failed, skipped
    stdout: str = ""
    errors: list[str] = field(default_factory=list)
    message: str = ""


@dataclass
class Result:
    """One graded submission."""

    path: str
    student_id: str
    id_source: str
    status: str = "graded"  # graded, timeout, kernel-died, invalid, error
    scores: dict[str, float] = field(default_factory=dict)
    lines: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)
    seconds: float = 0.0
    log: str = ""
    merged: NotebookNode | None = None

    @property
    def total(self) -> float:
        return sum(self.scores.values())


class Key:
    """A key notebook, checked once and ready to merge submissions into."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.nb = read_notebook(self.path)
        self.info: LabInfo = inspect_lab(self.nb, self.path, require_outputs=True)
        student = student_version(self.nb, self.path)
        self.student_sources = {c.id: c.source for c in student.cells if c.get("id")}
        self.key_ids = [c.get("id") for c in self.nb.cells]
        self.code_cells = [c for c in self.nb.cells if c.cell_type == "code"]
        self.max = self.info.max_points()
        self.answer_labels = {
            cid: ", ".join(names) if names else f"cell {cid}"
            for cid, names in self.info.answer_names.items()
        }

    @property
    def lab(self) -> str:
        return self.info.lab


def _fmt(x: float) -> str:
    return f"{x:g}"


def read_submission(path: Path) -> NotebookNode:
    """Read a submission; raise ValueError with a student-readable reason if it is no notebook."""
    size = path.stat().st_size
    if size > MAX_SUBMISSION_BYTES:
        raise ValueError(f"the file is {size / 1e6:.0f} MB, more than a lab notebook can be")
    text = path.read_bytes().decode("utf-8", errors="replace")
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the file is not valid JSON (line {exc.lineno}, column {exc.colno}: "
                         f"{exc.msg}); was it saved from Jupyter?") from exc
    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception as exc:
        raise ValueError(f"the file is JSON but not a Jupyter notebook ({exc})") from exc
    cells = nb.get("cells")
    if not isinstance(cells, list) or not all(
            isinstance(c, dict) and isinstance(c.get("source", ""), str) and "cell_type" in c
            for c in cells):
        raise ValueError("the file is JSON but its cells are not a Jupyter notebook's")
    return nb


def _neutralize(source: str) -> str:
    """Disarm nbval markers in a student's cell (a student must not skip or relax checks)."""
    return NBVAL_MARKER.sub(r"\1# (an nbval marker was removed here by the grader)", source)


def splice(key: Key, sub: NotebookNode, student_id: str) -> tuple[NotebookNode, list[str],
                                                                   list[str]]:
    """The merged notebook for one submission, notes for the student, and flagged cells."""
    notes: list[str] = []
    flagged: list[str] = []
    where: dict[str, list[int]] = {}
    for pos, c in enumerate(sub.cells):
        keys = {c.get("id")} | {disklab_meta(c).get("answer")}
        for k in keys - {None}:
            if isinstance(k, str):
                where.setdefault(k, []).append(pos)

    merged = copy.deepcopy(key.nb)
    chosen_positions: list[int] = []
    for cell in merged.cells:
        if not is_answer(cell):
            continue
        cid = cell.id
        label = key.answer_labels.get(cid, cid)
        found = where.get(cid, [])
        code = [p for p in found if sub.cells[p].get("cell_type") == "code"]
        if not code:
            source = key.student_sources.get(cid, "")
            if found:
                notes.append(f"The answer cell for {label} is no longer a code cell; it was "
                             "graded as unanswered.")
            else:
                notes.append(f"The answer cell for {label} is missing from your notebook "
                             "(deleted?); it was graded as unanswered.")
        else:
            pos = code[-1]
            if len(code) > 1:
                notes.append(f"The answer cell for {label} appears {len(code)} times; the last "
                             "copy was graded.")
            chosen_positions.append(pos)
            source = sub.cells[pos].get("source", "")
            if SUSPICIOUS.search(source):
                flagged.append(label)
        cell.source = _neutralize(source)
        cell.outputs = []
        cell.execution_count = None
    if chosen_positions != sorted(chosen_positions):
        notes.append("Your answer cells are not in the lab's order; the grader ran them in the "
                     "lab's order.")

    # What else the student changed: reported, never used.
    key_ids = set(key.key_ids)
    answer_ids = set(key.info.answer_ids)
    params_id = key.nb.cells[key.info.parameters_index].get("id")

    def normalized(cid: str, source: str) -> str:
        if cid == params_id:  # setting STUDENT_ID there is what students are asked to do
            with contextlib.suppress(LabFormatError):
                source = set_parameter(source, "STUDENT_ID", DEFAULT_ID)
        return source.strip()

    edited = []
    for c in sub.cells:
        cid = c.get("id")
        if (c.get("cell_type") == "code" and cid in key_ids and cid not in answer_ids
                and cid in key.student_sources
                and normalized(cid, c.get("source", "")) != normalized(
                    cid, key.student_sources[cid])):
            edited.append(cid)
    if edited:
        notes.append(f"You changed {len(edited)} cell(s) that are not answer cells "
                     f"({', '.join(edited[:5])}); the grader used the lab's own version.")
    added = [c for c in sub.cells if c.get("cell_type") == "code"
             and c.get("id") not in key_ids and disklab_meta(c).get("answer") not in answer_ids
             and c.get("source", "").strip()]
    if added:
        notes.append(f"{len(added)} code cell(s) you added were not run by the grader: put "
                     "everything an answer needs into its answer cell.")

    if flagged:
        notes.append("Answer cell(s) for " + ", ".join(flagged) + " touch the check machinery "
                     "(check, print, builtins, ...); your instructor will look at them.")

    other = sub.metadata.get("disklab", {}).get("lab") if isinstance(
        sub.metadata.get("disklab"), dict) else None
    if isinstance(other, str) and other != key.lab:
        notes.insert(0, f"This notebook is {other!r}, but it was graded as {key.lab!r}: "
                     "was the right file handed in?")

    declared = declared_id(sub)
    if declared is not None and declared.strip().casefold() != student_id.strip().casefold():
        if declared == DEFAULT_ID:
            notes.append(f'Your parameters cell still says STUDENT_ID = "{DEFAULT_ID}"; your '
                         f"answers were checked against the variant of {student_id!r}. Numbers "
                         "typed in from the demo variant will not match.")
        else:
            notes.append(f"Your parameters cell says STUDENT_ID = {declared!r}, but this "
                         f"notebook was graded as {student_id!r}.")

    params = merged.cells[key.info.parameters_index]
    params.source = set_parameter(params.source, "STUDENT_ID", student_id)
    meta = merged.metadata.get("disklab")
    merged.metadata["disklab"] = {**(meta if isinstance(meta, dict) else {}),
                                  "student_id": student_id, "merged": True}
    return merged, notes, flagged


def _kill_tree(proc: subprocess.Popen) -> None:
    """Stop pytest and everything it started (the kernel runs in its own session)."""
    try:
        import psutil

        children = psutil.Process(proc.pid).children(recursive=True)
    except Exception:
        children = []
    for p in children:
        with contextlib.suppress(Exception):
            p.kill()
    with contextlib.suppress(Exception):
        proc.kill()
    with contextlib.suppress(Exception):
        proc.wait(timeout=10)


def run_nbval(nb_path: Path, *, cell_timeout: float, timeout: float,
              extra_args: Sequence[str] = ()) -> tuple[dict[int, CellRun], str, str]:
    """Run ``pytest --nbval-lax --nbval-current-env`` on one notebook.

    Returns the per-cell results (by code-cell index), how the run ended
    (``completed``, ``timeout`` or ``error``) and the tail of pytest's output.
    """
    work = nb_path.parent
    probe = work / "cells.jsonl"
    ini = work / "pytest.ini"
    ini.write_text("[pytest]\n")
    cmd = [
        sys.executable, "-m", "pytest", str(nb_path), "-p", "nbval.plugin",
        "-p", "simcore.labkit._nbval_probe", "--nbval-lax", "--nbval-current-env",
        f"--nbval-cell-timeout={cell_timeout:g}", f"--disklab-probe={probe}",
        "-p", "no:cacheprovider", "-c", str(ini), "--rootdir", str(work), "-q", "--no-header",
        *extra_args,
    ]
    env = dict(os.environ)
    # Only nbval and the probe: other installed plugins (hypothesis, ...) cost seconds each run.
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env.setdefault("JUPYTER_PLATFORM_DIRS", "1")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["DISKLAB_GRADING"] = "1"
    proc = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=env, start_new_session=True)
    ended = "completed"
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_tree(proc)
        out, _ = proc.communicate()
        ended = "timeout"
    results: dict[int, CellRun] = {}
    if probe.exists():
        for line in probe.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by the timeout
            results[int(rec["cell"])] = CellRun(rec["outcome"], rec.get("stdout", ""),
                                                rec.get("errors", []), rec.get("message", ""))
    tail = (out or b"").decode("utf-8", errors="replace")[-3000:]
    if probe.exists():
        bad = [ln for ln in probe.read_text(encoding="utf-8").splitlines()
               if '"outcome": "failed"' in ln]
        tail += "\n-- failed cells --\n" + "\n".join(bad[:20])
    if ended == "completed" and proc.returncode not in (0, 1):
        ended = "error"
    return results, ended, tail


def grade_one(key: Key, path: str | Path, *, cell_timeout: float = 60.0,
              timeout: float = 300.0, keep_merged: bool = False) -> Result:
    """Grade one submission against a key; never raises for a bad submission."""
    t0 = time.monotonic()
    path = Path(path)
    zero = {q: 0.0 for q in key.info.questions}
    try:
        sub = read_submission(path)
    except (ValueError, OSError) as exc:
        sid, how = student_id_of(None, path, key.path.stem)
        res = Result(str(path), sid, how, status="invalid", scores=zero,
                     notes=[f"Your file could not be graded: {exc}"])
        res.lines = {q: ["not graded (the file is not a readable notebook)"] for q in zero}
        res.seconds = time.monotonic() - t0
        return res
    sid, how = student_id_of(sub, path, key.path.stem)
    res = Result(str(path), sid, how, scores=dict(zero))
    merged, notes, flagged = splice(key, sub, sid)
    res.notes.extend(notes)
    res.flagged = flagged
    if keep_merged:
        res.merged = merged
    with tempfile.TemporaryDirectory(prefix="disklab-grade-") as tmp:
        nb_path = Path(tmp) / f"{key.path.stem}.ipynb"
        nbformat.write(merged, str(nb_path))
        cells, ended, tail = run_nbval(nb_path, cell_timeout=cell_timeout, timeout=timeout)
    res.log = tail
    _score(key, res, cells, ended, cell_timeout, timeout)
    res.seconds = time.monotonic() - t0
    return res


def _reason(run: CellRun, cell_timeout: float) -> str:
    if "Failed to interrupt" in run.message:
        return (f"it ran longer than {cell_timeout:g} s and did not answer an interrupt, or it "
                "ended the Python kernel (os._exit, a crash)")
    if "Timeout" in run.message:
        return f"it ran longer than {cell_timeout:g} s and was stopped"
    if "kernel died" in run.message:
        return "the Python kernel died while it ran (os._exit, a crash, or out of memory)"
    if "Kernel dead" in run.message:
        return "the Python kernel had died before it (an earlier cell crashed or exited it)"
    if run.errors:
        err = run.errors[-1]
        return f"it raised {err[:200]}{' ...' if len(err) > 200 else ''}"
    if run.message:
        return run.message
    return "it failed"


def _score(key: Key, res: Result, cells: dict[int, CellRun], ended: str,
           cell_timeout: float, timeout: float) -> None:
    code_cells = key.code_cells
    died = any("Kernel dead" in r.message or "kernel died" in r.message for r in cells.values())
    if ended == "error" and not cells:
        res.status = "error"
        res.notes.append("The grader itself failed to run your notebook; your instructor "
                         "has the details and will grade it again.")
    elif ended == "timeout":
        res.status = "timeout"
        res.notes.append(f"Your notebook did not finish within {timeout:g} s; the cells that "
                         "had not run by then score zero.")
    elif died:
        res.status = "kernel-died"
    check_indices = {q.code_index for q in key.info.checks}
    for index, cell in enumerate(code_cells):
        run = cells.get(index)
        if run is None or run.outcome != "failed" or index in check_indices:
            continue
        if is_answer(cell):
            label = key.answer_labels.get(cell.id, cell.id)
            res.notes.append(f"Your answer cell for {label} did not run cleanly: "
                             f"{_reason(run, cell_timeout)}.")
        elif "Kernel dead" not in run.message:
            res.notes.append(f"The lab's own cell {cell.id} failed after your answers ran: "
                             f"{_reason(run, cell_timeout)}. If an answer cell reassigned a "
                             "name the lab uses, that is the likely cause.")
    for q in key.info.checks:
        run = cells.get(q.code_index)
        tag = " (hidden check)" if q.hidden else ""
        passed = run is not None and run.outcome == "passed"
        if passed:
            res.scores[q.question] = res.scores.get(q.question, 0.0) + q.points
        if run is None:
            line = "not checked: the notebook stopped before this check ran"
        elif passed:
            line = _check_line(run.stdout) or f"{q.question} {TICK} correct"
        else:
            printed = _check_line(run.stdout)
            if (run.errors or "Timeout" in run.message or "Kernel dead" in run.message
                    or "kernel died" in run.message):
                line = f"{q.question}: the check could not run: {_reason(run, cell_timeout)}"
                if q.hidden and run.errors:
                    line = f"{q.question}: the check could not run: it raised " \
                           f"{run.errors[-1].split(':')[0]}"
            else:
                line = printed or (f"{q.question}: the check did not print its verdict"
                                   + (f" ({run.message})" if run.message else ""))
        pts = f"{_fmt(q.points if passed else 0.0)}/{_fmt(q.points)}"
        res.lines.setdefault(q.question, []).append(f"{line}{tag} [{pts}]")


def _check_line(stdout: str) -> str:
    lines = [ln.strip() for ln in stdout.splitlines() if ln.strip()]
    return " / ".join(lines[-3:])


def grade(key_path: str | Path, submissions: Sequence[str | Path], *, jobs: int | None = None,
          cell_timeout: float = 60.0, timeout: float = 300.0, keep_merged: bool = False,
          progress: Callable[[Result], None] | None = None) -> tuple[Key, list[Result]]:
    """Grade many submissions in parallel; results come back in the submissions' order."""
    key = Key(key_path)
    paths = [Path(p) for p in submissions]
    jobs = max(1, jobs or os.cpu_count() or 1)
    results: list[Result | None] = [None] * len(paths)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(grade_one, key, p, cell_timeout=cell_timeout, timeout=timeout,
                               keep_merged=keep_merged): i for i, p in enumerate(paths)}
        for fut in as_completed(futures):
            i = futures[fut]
            try:
                r = fut.result()
            except Exception as exc:  # a grader bug must not stop the other submissions
                sid, how = student_id_of(None, paths[i], key.path.stem)
                r = Result(str(paths[i]), sid, how, status="error",
                           scores={q: 0.0 for q in key.info.questions},
                           notes=["The grader itself failed on your notebook; your "
                                  "instructor has the details."], log=repr(exc))
            results[i] = r
            if progress:
                progress(r)
    done = [r for r in results if r is not None]
    _mark_duplicates(done)
    return key, done


def _mark_duplicates(results: list[Result]) -> None:
    by_id: dict[str, list[Result]] = {}
    for r in results:
        by_id.setdefault(r.student_id.strip().casefold(), []).append(r)
    for group in by_id.values():
        if len(group) > 1:
            for r in group:
                others = ", ".join(Path(o.path).name for o in group if o is not r)
                r.notes.append(f"Other submissions were also graded as {r.student_id!r} "
                               f"({others}).")


def collect_submissions(paths: Sequence[str | Path], exclude: Path | None = None) -> list[Path]:
    """Notebooks among ``paths``, each once; folders are searched recursively.

    ``exclude`` (the key) is left out when a folder holds it; named on its own, it is graded
    (grading the key against itself is how to check a new key).
    """
    found: list[Path] = []
    skip = exclude.resolve() if exclude is not None else None
    for p in map(Path, paths):
        if p.is_dir():
            found.extend(q for q in sorted(p.rglob("*.ipynb"))
                         if ".ipynb_checkpoints" not in q.parts and q.resolve() != skip)
        elif p.exists():
            found.append(p)
        else:
            raise FileNotFoundError(f"{p}: no such file or folder")
    seen, out = set(), []
    for q in found:
        r = q.resolve()
        if r not in seen:
            seen.add(r)
            out.append(q)
    return out


def feedback_names(results: Sequence[Result]) -> list[str]:
    """One feedback file name per result (the id, made unique where ids repeat)."""
    names, used = [], set()
    for r in results:
        base = safe_name(r.student_id)
        name = f"{base}.md"
        if name in used:
            name = f"{base}--{safe_name(Path(r.path).stem)}.md"
        k = 2
        while name in used:
            name = f"{base}--{k}.md"
            k += 1
        used.add(name)
        names.append(name)
    return names


def feedback_text(key: Key, r: Result) -> str:
    title = key.nb.cells[0].source.splitlines()[0].lstrip("# ").strip() if key.nb.cells else ""
    lines = [f"# Feedback: {title or key.lab}", "",
             f"Student: {r.student_id} (from the {r.id_source})",
             f"File: {r.path}",
             f"Score: {_fmt(r.total)} / {_fmt(sum(key.max.values()))}", ""]
    if r.status != "graded":
        lines += [f"Status: {r.status}", ""]
    lines.append("## Questions")
    lines.append("")
    for q in key.info.questions:
        lines.append(f"- {q}: {_fmt(r.scores.get(q, 0.0))} of {_fmt(key.max[q])} points")
        for ln in r.lines.get(q, []):
            lines.append(f"  - {ln}")
    if r.notes:
        lines += ["", "## Notes", ""]
        lines += [f"- {n}" for n in r.notes]
    lines.append("")
    return "\n".join(lines)


def write_report(key: Key, results: Sequence[Result], out_csv: str | Path,
                 feedback_dir: str | Path, *, force: bool = False) -> list[Path]:
    """Write ``grades.csv`` and one feedback file per student; refuse to overwrite."""
    out_csv, feedback_dir = Path(out_csv), Path(feedback_dir)
    names = feedback_names(results)
    targets = [out_csv] + [feedback_dir / n for n in names]
    if not force:
        existing = [str(t) for t in targets if t.exists()]
        if existing:
            raise FileExistsError(f"would overwrite {', '.join(existing[:3])}"
                                  f"{' ...' if len(existing) > 3 else ''}; "
                                  "choose another --out/--feedback or pass --force")
    check_writable(out_csv, feedback_dir, names, force)
    out_csv.parent.mkdir(parents=True, exist_ok=True)
    feedback_dir.mkdir(parents=True, exist_ok=True)
    questions = key.info.questions
    max_total = sum(key.max.values())
    with open(out_csv, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["student", "file", "status", *questions, "total", "max"])
        for r in results:
            w.writerow([r.student_id, r.path, r.status,
                        *[_fmt(r.scores.get(q, 0.0)) for q in questions],
                        _fmt(r.total), _fmt(max_total)])
    written = [out_csv]
    for r, name in zip(results, names, strict=True):
        p = feedback_dir / name
        p.write_text(feedback_text(key, r), encoding="utf-8")
        written.append(p)
        if r.merged is not None:
            m = feedback_dir / (Path(name).stem + ".merged.ipynb")
            if m.exists() and not force:
                raise FileExistsError(f"would overwrite {m}; pass --force")
            nbformat.write(r.merged, str(m))
            written.append(m)
    return written


def check_writable(out_csv: Path, feedback_dir: Path, names: Sequence[str], force: bool) -> None:
    """Raise before any grading if the outputs would overwrite files (unless ``force``)."""
    if force:
        return
    clash = [p for p in [out_csv, *(feedback_dir / n for n in names)] if p.exists()]
    if clash:
        raise FileExistsError(f"{clash[0]} exists; choose another --out/--feedback or pass "
                              "--force")


def planned_ids(key_path: Path, paths: Sequence[Path]) -> list[Result]:
    """Light placeholders (id only) used to check output names before grading."""
    out = []
    for p in paths:
        try:
            nb = read_submission(p)
        except (ValueError, OSError):
            nb = None
        sid, how = student_id_of(nb, p, key_path.stem)
        out.append(Result(str(p), sid, how))
    return out


__all__ = [
    "Key",
    "LabFormatError",
    "Result",
    "collect_submissions",
    "feedback_text",
    "grade",
    "grade_one",
    "run_nbval",
    "splice",
    "write_report",
]
