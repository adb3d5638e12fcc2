"""Grading: run each submission in a sandbox with nbval, judge its answers outside it.

For every submission the grader builds the notebook to run from the lab's
*student version* (never the key): the student's answer cells put in place,
``STUDENT_ID`` and ``SEED`` set to the variant of the id taken from the file
name or roster (HMAC of the instructor secret), and after each question one
export cell that hands the answer out as strict JSON
(:mod:`simcore.labkit.answers`). ``pytest --nbval-lax`` runs that notebook
cell by cell in the grader's process; the kernel alone runs inside the
sandbox (:mod:`simcore.labkit.sandbox`: its own folder, an unprivileged user,
no network, rlimits, a PID namespace that takes everything down at the end).
:mod:`simcore.labkit._nbval_probe` records each cell's outcome and output into
a file only the grader can reach.

In its own process the grader runs the key for the same student
(:func:`simcore.labkit.variants.run_key`), evaluates each question's export
expression there, and compares the two plain values with the question's rule
(tolerance, accepted alternatives). Nothing the student's code does can reach
that comparison: no check function to patch, no object whose ``==`` lies, no
expected value inside the sandbox to read.

How long a submission may run comes from the key's own run, measured at the
start of grading through the same sandbox (:func:`calibrate`, :func:`budget`):
a cell may run a few times as long as the key's whole notebook took, plus an
allowance for a busy machine (a sleeping hang waits that long), and the kernel
may use a few times the CPU time of the key's run (a busy loop dies by that
limit first). The wall-clock limits (a cell's, nbval's wait for a cell's outputs,
the whole notebook's) do not count the time the kernel was kept waiting for a
CPU (:mod:`simcore.labkit._nbval_probe`, :class:`RunHeld`), so machine load
cannot cost an honest notebook points, while a hang that sleeps is stopped as on
an idle machine.

A submission that is not a notebook, crashes, hangs or kills its kernel still
gets a row (zero for what failed) and feedback that says why; the run goes on
with the next one. The answers received are kept (``answers.json``), so one
question can be regraded under a corrected key without running anything again.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import math
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from ..errors import DisklabError
from . import answers, attach, copying, judges, sandbox, spawns
from .check import variant_seed
from .labformat import (
    NBVAL_MARKER,
    LabFormatError,
    LabInfo,
    Question,
    disklab_meta,
    inspect_lab,
    is_answer,
    is_explorer,
    nbval_markers,
    read_notebook,
    set_parameter,
    tags,
)
from .student import safe_name, student_version
from .variants import DEFAULT_ID, declared_id, metadata_id, run_key, set_seed, student_id_of

MAX_SUBMISSION_BYTES = 20_000_000
EXPORT_TAG = "disklab-export"


class SandboxError(DisklabError):
    """The sandbox cannot keep student code from the grader's files, and nobody said grade
    anyway (:attr:`Options.unsafe_sandbox`)."""


@dataclass
class CellRun:
    """What the probe recorded for one code cell of the notebook run in the sandbox."""

    outcome: str  # passed, failed, skipped
    stdout: str = ""
    errors: list[str] = field(default_factory=list)
    message: str = ""
    seconds: float = 0.0  # how long the cell ran (wall clock)
    cpu_s: float = 0.0  # CPU time the kernel used while it ran (0 when unknown)


@dataclass
class Result:
    """One graded submission."""

    path: str
    student_id: str
    id_source: str
    status: str = "graded"  # graded, timeout, kernel-died, invalid, wrong-lab, empty, error
    scores: dict[str, float] = field(default_factory=dict)
    lines: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)
    received: dict[str, dict] = field(default_factory=dict)  # question -> what came out
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # CPU time of its runs (nbval and the kernel), as far as measured
    kernel_cpu_seconds: float = 0.0  # the kernel's part of it
    late_minutes: float = 0.0
    sandbox_user: str = ""  # the unprivileged user its kernel ran as
    attachments: list[dict] = field(default_factory=list)  # measurements saved in the file
    log: str = ""
    merged: NotebookNode | None = None
    headline: str = ""  # the status in plain words for the student (report.PLAIN if empty)
    # question -> the classmates whose variant a wrong answer fits (copying.py; instructor only)
    copy_matches: dict[str, list[str]] = field(default_factory=dict)
    # question -> why its points were lost, with the numbers judged (received, the key's value or
    # the measurement and its reference, the tolerance): for the instructor, never the feedback
    losses: dict[str, str] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return sum(self.scores.values())


class Key:
    """A key notebook, checked once: its questions, rules and student version."""

    def __init__(self, path: str | Path, secret: bytes | None = None):
        self.path = Path(path)
        self.nb = read_notebook(self.path)
        self.info: LabInfo = inspect_lab(self.nb, self.path, require_outputs=True)
        self.student = student_version(self.nb, self.path)
        self.student_sources = {c.id: c.source for c in self.student.cells if c.get("id")}
        self.secret = secret
        self.max = self.info.max_points()
        self.answer_labels = {  # the questions a cell answers, not its helper names
            cid: ", ".join([n for n in names if n in self.info.questions] or names)
            if names else f"cell {cid}"
            for cid, names in self.info.answer_names.items()
        }
        self.spec: dict[str, Question] = {}
        for q in self.info.checks:  # the first check cell of a question says how to judge it
            self.spec.setdefault(q.question, q)
        self.rules = {q: answers.Rule.from_meta(s.rule, f"{self.path}: {q}")
                      for q, s in self.spec.items()}
        self._expected: dict[str, Future] = {}
        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None
        self.layers: dict | None = None  # the sandbox layers present when it last graded
        self.budget: Budget | None = None  # the time limits it was last graded with

    @property
    def lab(self) -> str:
        return self.info.lab

    def seed(self, student_id: str) -> int:
        return variant_seed(student_id, self.lab, self.secret)

    def export_of(self, q: str) -> str:
        return self.spec[q].export or q

    def expected(self, student_id: str) -> dict:
        """The key's plain answers for a student's variant (cached).

        Computed by running the key in a separate worker process of the grader
        (trusted code, never in a sandbox), so the key's own state and numpy's
        thread pools stay out of the grading threads.
        """
        return self.expected_soon(student_id).result()

    def expected_soon(self, student_id: str) -> Future:
        """:meth:`expected` as a future: the worker computes it while the submission runs."""
        sid = student_id.strip().casefold()
        with self._lock:
            old = self._expected.get(sid)
            if old is not None and old.done() and old.exception() is not None:
                del self._expected[sid]  # computed again: the failure may have been the worker's
                if isinstance(old.exception(), BrokenProcessPool) and self._pool is not None:
                    self._pool.shutdown(wait=False)
                    self._pool = None
            if sid not in self._expected:
                if self._pool is None:
                    import multiprocessing

                    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
                    self._pool = ProcessPoolExecutor(
                        max_workers=1, mp_context=multiprocessing.get_context("spawn"))
                by_cell: dict[int, list[tuple[str, str]]] = {}
                for q, s in self.spec.items():
                    by_cell.setdefault(s.code_index, []).append((q, self.export_of(q)))
                    if s.reference:  # what a measurement judge compares with (key side only)
                        by_cell[s.code_index].append((reference_name(q), s.reference))
                self._expected[sid] = self._pool.submit(
                    _expected_worker, str(self.path), student_id, self.seed(student_id),
                    by_cell)
            return self._expected[sid]

    def known_expected(self) -> dict[str, dict]:
        """The key's answers computed so far, by casefolded student id (failed ones left out)."""
        with self._lock:
            done = dict(self._expected)
        return {sid: f.result() for sid, f in done.items()
                if f.done() and not f.cancelled() and f.exception() is None}

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


def reference_name(question: str) -> str:
    """Where the key's reference value of a judged question is kept among the expected values."""
    return f"{question}#reference"


@functools.lru_cache(maxsize=4)
def _read_key(path: str) -> NotebookNode:
    return read_notebook(path)


def _expected_worker(path: str, student_id: str, seed: int,
                     by_cell: dict[int, list[tuple[str, str]]]) -> dict:
    raw = run_key(_read_key(path), student_id, seed, path, by_cell)
    return {q: answers.to_plain(v, f"the key's {q}") for q, v in raw.items()}


def _fmt(x: float) -> str:
    return f"{x:g}"


def read_submission(path: Path) -> NotebookNode:
    """Read a submission; raise ValueError with a student-readable reason if it is no notebook."""
    size = path.stat().st_size
    if size == 0:
        raise ValueError("the file is empty")
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
    """Disarm nbval markers (the run only reports what failed; nothing is compared)."""
    return NBVAL_MARKER.sub(r"\1# (an nbval marker was removed here by the grader)", source)


EXPLORER_NOT_RUN = ("# A live explorer opened here in the lab; the grader does not run it (answers "
                    "read off\n# an explorer are typed into their answer cells as numbers).")


def export_cell(question: str, expression: str) -> NotebookNode:
    """The cell that hands one answer out of the sandbox as strict JSON."""
    src = ("import simcore.labkit.answers as _disklab_answers\n"
           f"_disklab_answers.emit({question!r}, lambda: ({expression}))")
    cell = nbformat.v4.new_code_cell(src)
    cell.id = f"disklab-export-{safe_name(question)}"
    cell.metadata["tags"] = [EXPORT_TAG]
    cell.metadata["disklab"] = {"export": question}
    return cell


def watch_cell() -> NotebookNode:
    """The notebook's first cell: an audit hook that marks a cell trying to run a program
    (:mod:`simcore.labkit.spawns`)."""
    cell = nbformat.v4.new_code_cell(spawns.WATCH_SOURCE)
    cell.id = "disklab-watch"
    cell.metadata["tags"] = [EXPORT_TAG + "-watch"]
    return cell


def splice(key: Key, sub: NotebookNode, student_id: str) -> tuple[NotebookNode, list[str],
                                                                   list[str]]:
    """The notebook to run for one submission, notes for the student, and flags for the grader.

    Built from the student version: the student's answer cells replace the
    placeholders, the parameters cell gets the student's id and seed, every
    question gets its export cell, nbval markers are disarmed except the
    lab's own ``NBVAL_SKIP`` on hardware cells, and live explorers (tag
    ``explorer``) are left out, so no answer can depend on a widget's state.
    A first cell watches for answers that try to run a program (:func:`watch_cell`).
    """
    notes: list[str] = []
    flagged: list[str] = []
    merged = copy.deepcopy(key.student)
    placeholders = {c.id: c.source for c in key.student.cells if c.get("id")}
    cell_notes = _put_answers(key, sub, merged, placeholders)
    cell_notes.extend(_unused_changes(key, sub, placeholders))
    if wrong_lab(key, sub) is None:  # another lab's file differs everywhere: its headline says so
        notes.extend(cell_notes)
    _check_claimed_id(sub, student_id, notes, flagged)
    _set_parameters(key, sub, merged, student_id)
    _add_export_cells(key, merged)
    merged.cells.insert(0, watch_cell())
    meta = merged.metadata.get("disklab")
    merged.metadata["disklab"] = {**(meta if isinstance(meta, dict) else {}),
                                  "student_id": student_id, "merged": True}
    return merged, notes, flagged


def _answer_positions(sub: NotebookNode) -> dict[str, list[int]]:
    """Where in a submission each cell id (or ``disklab.answer`` claim) appears."""
    where: dict[str, list[int]] = {}
    for pos, c in enumerate(sub.cells):
        keys = {c.get("id")} | {disklab_meta(c).get("answer")}
        for k in keys - {None}:
            if isinstance(k, str):
                where.setdefault(k, []).append(pos)
    return where


def _put_answers(key: Key, sub: NotebookNode, merged: NotebookNode,
                 placeholders: dict[str, str]) -> list[str]:
    """Put the student's answer cells into ``merged`` and disarm the rest; notes on what happened."""
    notes: list[str] = []
    where = _answer_positions(sub)
    chosen_positions: list[int] = []
    for cell in merged.cells:
        if cell.cell_type != "code":
            continue
        if is_explorer(cell):  # never run: no answer may depend on a widget's state
            cell.source = EXPLORER_NOT_RUN
            cell.outputs = []
            continue
        if not is_answer(cell):
            if "hardware" not in tags(cell):
                cell.source = _neutralize(cell.source)
            continue
        source = _answer_source(key, sub, cell.id, where.get(cell.id, []), placeholders,
                                notes, chosen_positions)
        cell.source = _neutralize(source)
        cell.outputs = []
        cell.execution_count = None
    if chosen_positions != sorted(chosen_positions):
        notes.append("Your answer cells are not in the lab's order (moved by you, or the lab "
                     "was updated since your copy); the grader ran them in the lab's order.")
    return notes


def _answer_source(key: Key, sub: NotebookNode, cid: str, found: list[int],
                   placeholders: dict[str, str], notes: list[str],
                   chosen_positions: list[int]) -> str:
    """The source graded for answer cell ``cid``: the last code copy of it in the submission."""
    label = key.answer_labels.get(cid, cid)
    code = [p for p in found if sub.cells[p].get("cell_type") == "code"]
    if not code:
        if found:
            notes.append(f"The answer cell for {label} is no longer a code cell; it was "
                         "graded as unanswered.")
        else:
            notes.append(f"The answer cell for {label} is missing from your notebook "
                         "(deleted?); it was graded as unanswered.")
        return placeholders.get(cid, "")
    pos = code[-1]
    if len(code) > 1:
        notes.append(f"The answer cell for {label} appears {len(code)} times; the last "
                     "copy was graded.")
    chosen_positions.append(pos)
    return sub.cells[pos].get("source", "")


def wrong_lab(key: Key, sub: NotebookNode) -> str | None:
    """The lab a submission says it is, when that is not the key's lab."""
    meta = sub.metadata.get("disklab")
    other = meta.get("lab") if isinstance(meta, dict) else None
    return other if isinstance(other, str) and other != key.lab else None


def heading_of(nb: NotebookNode) -> str:
    """A notebook's title: the first line of its first cell, without the '#'."""
    first = nb.cells[0].get("source", "").splitlines() if nb.cells else []
    return first[0].lstrip("# ").strip() if first else ""


def cell_place(nb: NotebookNode, cid: str | None) -> str:
    """Where a student finds a cell: its number among the code cells and the heading above it."""
    n, heading = 0, ""
    for c in nb.cells:
        if c.get("cell_type") == "markdown":
            heads = [ln for ln in c.get("source", "").splitlines() if ln.startswith("#")]
            heading = heads[-1].lstrip("# ").strip() if heads else heading
        elif c.get("cell_type") == "code":
            n += 1
            if c.get("id") == cid:
                return f"code cell {n}" + (f' under "{heading}"' if heading else "")
    return "a cell of the lab"


def _unused_changes(key: Key, sub: NotebookNode, placeholders: dict[str, str]) -> list[str]:
    """What else the student changed: reported, never used."""
    notes: list[str] = []
    stu_ids = set(placeholders)
    answer_ids = set(key.info.answer_ids)
    params_id = key.nb.cells[key.info.parameters_index].get("id")

    def normalized(cid: str, source: str) -> str:
        if cid == params_id:  # setting STUDENT_ID (and a handout's SEED) is expected there
            with contextlib.suppress(LabFormatError):
                source = set_parameter(source, "STUDENT_ID", DEFAULT_ID)
            return "\n".join(ln for ln in source.splitlines()
                             if not ln.strip().startswith("SEED")).strip()
        return source.strip()

    explorers = {c.get("id") for c in key.student.cells if is_explorer(c)}
    edited = [cell_place(key.student, c.get("id")) for c in sub.cells  # (an explorer may be opened on any disk)
              if c.get("cell_type") == "code" and c.get("id") in stu_ids
              and c.get("id") not in answer_ids and c.get("id") not in explorers
              and normalized(c.get("id"), c.get("source", "")) != normalized(
                  c.get("id"), placeholders[c.get("id")])]
    if edited:
        notes.append(f"{len(edited)} cell(s) that are not answer cells differ from the lab's "
                     f"({', '.join(str(e) for e in edited[:5])}{', ...' if len(edited) > 5 else ''}"
                     "): changed by you, or the lab was updated since your copy; the grader used "
                     "the lab's own version.")
    added = [c for c in sub.cells if c.get("cell_type") == "code"
             and c.get("id") not in stu_ids and disklab_meta(c).get("answer") not in answer_ids
             and c.get("source", "").strip()]
    if added:
        notes.append(f"{len(added)} code cell(s) you added were not run by the grader: put "
                     "everything an answer needs into its answer cell.")
    return notes


def _check_claimed_id(sub: NotebookNode, student_id: str, notes: list[str],
                      flagged: list[str]) -> None:
    """Note (and flag) a notebook that claims another student's id, or still the default."""
    claimed = {metadata_id(sub), declared_id(sub)} - {None, DEFAULT_ID}
    mismatch = sorted(c for c in claimed if c.strip().casefold() != student_id.casefold())
    if mismatch:
        flagged.append(f"the notebook claims id {mismatch[0]!r}")
        notes.append(f"This notebook says it belongs to {mismatch[0]!r}, but it was handed in "
                     f"as {student_id!r}; it was graded as {student_id!r} and your instructor "
                     "will look at it.")
    elif declared_id(sub) == DEFAULT_ID:
        notes.append(f'Your parameters cell still says STUDENT_ID = "{DEFAULT_ID}"; your '
                     f"answers were checked against the variant of {student_id!r}.")


def _set_parameters(key: Key, sub: NotebookNode, merged: NotebookNode, student_id: str) -> None:
    """The student's id and seed in the parameters cell, the saved measurements after it."""
    params = next(c for c in merged.cells if "parameters" in tags(c))
    params.source = set_seed(set_parameter(params.source, "STUDENT_ID", student_id),
                             key.seed(student_id))
    # The measurements saved in the submission, put back where the (skipped) measuring cells
    # would have made them, so answers computed from them give the student's numbers.
    saved = attach.from_notebook(sub)
    if saved:
        restore = nbformat.v4.new_code_cell(attach.restore_source(saved))
        restore.id = "disklab-restore-measurements"
        restore.metadata["tags"] = [EXPORT_TAG + "-restore"]
        merged.cells.insert(merged.cells.index(params) + 1, restore)


def _add_export_cells(key: Key, merged: NotebookNode) -> None:
    """One export cell right after the check cell of each question (a hidden check cell is not
    in the student version: then after the nearest cell before it that is)."""
    code_ids = [c.get("id") for c in key.nb.cells if c.cell_type == "code"]
    present = {c.get("id") for c in merged.cells}
    after: dict[str, list[str]] = {}
    for q, spec in key.spec.items():
        i = spec.code_index
        while i > 0 and code_ids[i] not in present:
            i -= 1
        after.setdefault(code_ids[i], []).append(q)
    out_cells: list[NotebookNode] = []
    for cell in merged.cells:
        out_cells.append(cell)
        for q in after.get(cell.get("id"), []):
            out_cells.append(export_cell(q, key.export_of(q)))
    merged.cells = out_cells


def _kill_tree(proc: subprocess.Popen) -> None:
    """Stop pytest and everything it started."""
    try:
        import psutil

        children = psutil.Process(proc.pid).children(recursive=True)
    except Exception:
        children = []
    for p in children:
        with contextlib.suppress(Exception):
            p.kill()
    with contextlib.suppress(Exception):
        os.killpg(proc.pid, 9)
    with contextlib.suppress(Exception):
        proc.kill()
    with contextlib.suppress(Exception):
        proc.wait(timeout=30)


class RunHeld:
    """How long one notebook's run has been kept waiting for a CPU: the most run-queue delay of
    any thread of pytest, of the process it started for the kernel (the sandbox launcher) and
    of that one's children (the kernel); not of what the kernel starts, each of which has a CPU
    limit of its own. A sleeping thread never waits there (:mod:`._nbval_probe`)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.most = 0.0

    def seconds(self) -> float:
        from ._nbval_probe import run_delays

        launchers = _children_of([self.pid])
        pids = [self.pid, *launchers, *_children_of(launchers)]
        self.most = max(self.most, max(run_delays(pids).values(), default=0.0))
        return self.most


def _children_of(pids: Sequence[int]) -> list[int]:
    """The children of the live processes among ``pids``."""
    from ._nbval_probe import _children

    out: list[int] = []
    for p in pids:
        if os.path.isdir(f"/proc/{p}"):  # (a gone process would make _children scan /proc)
            with contextlib.suppress(OSError):
                out.extend(_children(p))
    return out


def _communicate_own_time(proc: subprocess.Popen, timeout: float) -> tuple[bytes | None, bool]:
    """pytest's output once it ends, and whether it ran out of time first: ``timeout`` seconds
    of wall clock, plus the time the run was kept waiting for a CPU (:class:`RunHeld`), so a
    loaded machine does not stop an honest notebook while a hang is stopped as on an idle one."""
    held = RunHeld(proc.pid)
    start = time.monotonic()
    while True:
        left = start + timeout + held.seconds() - time.monotonic()
        if left <= 0:
            return None, True
        try:  # (communicate may be called again after its timeout; no output is lost)
            out, _ = proc.communicate(timeout=min(2.0, left))
            return out, False
        except subprocess.TimeoutExpired:
            continue


def run_nbval(nb_path: Path, *, cell_timeout: float, timeout: float,
              extra_args: Sequence[str] = (), sandbox_config: sandbox.Config | None = None,
              startup_timeout: float = 300.0, usage: dict | None = None
              ) -> tuple[dict[int, CellRun], str, str]:
    """Run ``pytest --nbval-lax`` on one notebook (its kernel in a sandbox if configured).

    Returns the per-cell results (by code-cell index), how the run ended
    (``completed``, ``timeout`` or ``error``) and the tail of pytest's output.
    Given ``usage``, sets ``usage["cpu_s"]`` to the CPU time of the run (pytest,
    the launcher and the kernel) and ``usage["kernel_cpu_s"]`` to the kernel's,
    when it ended by itself.
    """
    work = nb_path.parent
    probe = work / "cells.jsonl"
    ini = work / "pytest.ini"
    ini.write_text("[pytest]\n")
    runner = Path(__file__).resolve().with_name("_nbval_run.py")  # pytest with the probe
    cmd = [
        sys.executable, "-P", str(runner), str(nb_path), "-p", "nbval.plugin", "--nbval-lax",
        f"--nbval-cell-timeout={cell_timeout:g}", f"--disklab-probe={probe}",
        f"--nbval-kernel-startup-timeout={startup_timeout:g}",
        "-p", "no:cacheprovider", "-c", str(ini), "--rootdir", str(work), "-q", "--no-header",
        *extra_args,
    ]
    if sandbox_config is not None:
        kernel = {"argv": [*sandbox.launcher_argv(sandbox_config), *sandbox.kernel_argv()],
                  "workdir": sandbox_config.workdir, "cpu_limit_exit": sandbox.CPU_LIMIT_EXIT}
        cmd += ["--nbval-kernel-name=disklab-sandbox", f"--disklab-sandbox={json.dumps(kernel)}"]
    else:
        cmd.append("--nbval-current-env")
    env = dict(os.environ)
    # Only nbval and the probe: other installed plugins (hypothesis, ...) cost seconds each run.
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env.setdefault("JUPYTER_PLATFORM_DIRS", "1")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["DISKLAB_GRADING"] = "1"
    usage_file = work / "usage.json"
    env["DISKLAB_USAGE_FILE"] = str(usage_file)
    proc = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=env, start_new_session=True)
    ended = "completed"
    out, late = _communicate_own_time(proc, timeout)
    if late:
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
                                                rec.get("errors", []), rec.get("message", ""),
                                                float(rec.get("seconds", 0.0)),
                                                float(rec.get("cpu_s", 0.0)))
    tail = (out or b"").decode("utf-8", errors="replace")[-3000:]
    if probe.exists():
        bad = [ln[:600] for ln in probe.read_text(encoding="utf-8").splitlines()
               if '"outcome": "failed"' in ln]
        tail += "\n-- failed cells --\n" + "\n".join(bad[:20])
    if ended == "completed" and proc.returncode not in (0, 1):
        ended = "error"
    if usage is not None and usage_file.exists():
        with contextlib.suppress(ValueError, KeyError, TypeError):
            got = json.loads(usage_file.read_text())
            usage.update(cpu_s=float(got["cpu_s"]), kernel_cpu_s=float(got["kernel_cpu_s"]))
    return results, ended, tail


# The time limits, from the key's own run (issue 16: start-up waits are generous, only real
# hangs time out). :func:`calibrate` runs the key's notebook once through the same sandbox
# before the submissions; :func:`budget` turns what it took into limits. A submission runs the
# same cells as the key, with the student's answers in place of the key's.
CELL_FACTOR = 5.0  # any one cell: this many times the wall time of the key's whole notebook,
CELL_ALLOWANCE_S = 10.0  # plus this, for a fresh kernel's first imports on a busy machine
CPU_FACTOR = 3.0  # the kernel: this many times the CPU time of the key's kernel,
CPU_ALLOWANCE_S = 5.0  # plus this, for the kernel's start-up, which varies from run to run
UNMEASURED_CELL_TIMEOUT_S = 60.0  # a cell's limit when the key's run could not be measured


@dataclass(frozen=True)
class Budget:
    """The time limits of one grading run, and the key's measured run they came from."""

    cell_timeout: float  # seconds (wall clock) one cell may run before it is interrupted
    cpu_s: int  # CPU seconds the kernel may use in all
    timeout: float  # seconds (wall clock) the whole notebook may run
    key_wall_s: float | None = None  # the key's notebook in the sandbox: its cells' wall time
    key_cpu_s: float | None = None  # ... and its kernel's CPU time
    derived: tuple[str, ...] = ()  # which limits came from the key's run (the rest were given)

    def describe(self) -> str:
        """One line for the log and the summary."""
        made = {"cell_timeout": "derived", "cpu_s": "derived"}
        tag = {k: f" ({made[k]})" if k in self.derived else " (given)" for k in made}
        text = (f"a cell {self.cell_timeout:g} s{tag['cell_timeout']}, the kernel "
                f"{self.cpu_s:g} CPU s{tag['cpu_s']}, the notebook {self.timeout:g} s")
        if self.key_wall_s is not None and self.key_cpu_s is not None:
            text += (f"; the key's own run took {self.key_wall_s:.2f} s in its cells and its "
                     f"kernel {self.key_cpu_s:.2f} CPU s")
        elif self.derived:
            text += "; the key's own run could not be measured, so fixed limits were used"
        return text


def budget(key_wall_s: float, key_cpu_s: float) -> tuple[float, int]:
    """``(cell_timeout, cpu_s)`` for a key whose graded run took these wall and CPU seconds.

    A busy loop burns CPU, so the kernel's CPU limit stops it, at a few times
    what the key's whole run used; a sleeping hang burns none, so the cell's
    wall-clock limit stops it, at a few times the key's whole notebook plus an
    allowance for a loaded machine. The key's run is measured on the machine
    that grades, at the time it grades, so a busy machine gets longer limits;
    and the time a kernel waits for a CPU does not count against a cell's limit.
    """
    cell = CELL_ALLOWANCE_S + CELL_FACTOR * max(0.0, key_wall_s)
    cpu = CPU_ALLOWANCE_S + CPU_FACTOR * max(0.0, key_cpu_s)
    return round(cell, 1), math.ceil(cpu)


@dataclass
class Options:
    """How submissions are run: time limits, sandbox, what to hide from the sandbox.

    ``cell_timeout=None`` and ``limits.cpu_s=None`` (the defaults) derive those
    limits from the key's own run (:func:`budget`); a number is used as given.
    """

    cell_timeout: float | None = None
    timeout: float = 300.0
    use_sandbox: bool = True
    limits: sandbox.Limits = field(default_factory=sandbox.Limits)
    hide: list[str] = field(default_factory=list)
    keep_merged: bool = False
    roster: dict[str, str] | None = None
    unsafe_sandbox: bool = False  # grade even where student code could write the grader's files
    deadline: float | None = None  # a POSIX time; later file times are flagged late
    layers: dict | None = None  # the probed sandbox layers (:func:`grade` sets them, once)


class Slots:
    """One sandbox user per concurrent job, handed out and taken back."""

    def __init__(self, n: int, use_sandbox: bool):
        self.free: queue.Queue[int] = queue.Queue()
        self.claimed = [sandbox.claim_slot() for _ in range(n)] if use_sandbox else list(range(n))
        for i in self.claimed:
            self.free.put(i)
        self.users = {i: sandbox.sandbox_user(i) if use_sandbox else None for i in self.claimed}
        self.use_sandbox = use_sandbox

    def close(self) -> None:
        """Wait until every slot's user has nothing left, dead zombies included; then release
        the slots, all at once.

        Not one by one: a slot released while the next user is still being waited for can be
        claimed by another grading run at once, whose kernels then run as that user while this
        run is still closing, and are easily taken for ones this run left behind.
        """
        if self.use_sandbox:
            for i in self.claimed:
                if self.users.get(i):
                    sandbox.wait_user_gone(self.users[i][0])
            for i in self.claimed:
                sandbox.release_slot(i)


def calibrate(key: Key, opts: Options, slots: Slots | None = None) -> tuple[float, float] | None:
    """Run the key's own notebook as a submission, in the sandbox; ``(cells' wall s, CPU s)``.

    The key (its solutions in the answer cells, the demo id) goes the way every
    submission goes: spliced, run by nbval with its kernel in a sandbox. The
    wall time is the sum of its cells' run times (the kernel's start has its
    own, generous limit); the CPU time is the kernel's (what its limit
    bounds), start-up included. None if the run did not complete, so nothing
    can be measured.
    """
    import dataclasses

    merged, _, _ = splice(key, key.nb, DEFAULT_ID)
    trial = dataclasses.replace(
        opts, cell_timeout=UNMEASURED_CELL_TIMEOUT_S,
        limits=dataclasses.replace(opts.limits, cpu_s=sandbox.CPU_S_WITHOUT_GRADER))
    res = Result(str(key.path), DEFAULT_ID, "calibration")
    cells, ended, _ = _sandboxed_run(merged, trial, slots, res)
    if ended != "completed" or not cells or res.kernel_cpu_seconds <= 0:
        return None
    return sum(r.seconds for r in cells.values()), res.kernel_cpu_seconds


def resolve(key: Key, opts: Options, slots: Slots | None = None) -> Options:
    """``opts`` with every derived limit filled in (calibrating the key once, if needed).

    Sets ``key.budget``. Call it before grading in threads: it runs the key's notebook.
    """
    import dataclasses

    derived = tuple(k for k, v in (("cell_timeout", opts.cell_timeout),
                                   ("cpu_s", opts.limits.cpu_s)) if v is None)
    measured = calibrate(key, opts, slots) if derived else None
    if measured is not None:
        cell, cpu = budget(*measured)
    else:
        cell, cpu = UNMEASURED_CELL_TIMEOUT_S, sandbox.CPU_S_WITHOUT_GRADER
    cell = opts.cell_timeout if opts.cell_timeout is not None else cell
    cpu = opts.limits.cpu_s if opts.limits.cpu_s is not None else cpu
    key.budget = Budget(cell, cpu, opts.timeout, *(measured or (None, None)), derived)
    return dataclasses.replace(opts, cell_timeout=cell,
                               limits=dataclasses.replace(opts.limits, cpu_s=cpu))


def grade_one(key: Key, path: str | Path, opts: Options | None = None,
              slots: Slots | None = None) -> Result:
    """Grade one submission against a key; never raises for a bad submission."""
    opts = opts or Options()
    if opts.cell_timeout is None or opts.limits.cpu_s is None:
        opts = resolve(key, opts, slots)
    t0 = time.monotonic()
    path = Path(path)
    zero = {q: 0.0 for q in key.info.questions}
    sid, how = student_id_of(path, key.path.stem, opts.roster)
    res = Result(str(path), sid, how, scores=dict(zero))
    with contextlib.suppress(OSError):
        if opts.deadline is not None and path.stat().st_mtime > opts.deadline:
            res.late_minutes = round((path.stat().st_mtime - opts.deadline) / 60, 1)
    if opts.roster is not None and how != "roster":
        res.flagged.append("not on the roster")
        res.notes.append(f"{path.name} is not on the roster; it was graded as {sid!r}.")
    try:
        sub = read_submission(path)
    except (ValueError, OSError) as exc:
        res.status = "empty" if "empty" in str(exc) else "invalid"
        res.notes.append(f"Your file could not be graded: {exc}")
        res.lines = {q: [f"{q} … not graded: the file is not a readable notebook "
                         f"[0/{_fmt(key.max[q])}]"] for q in zero}
        res.seconds = time.monotonic() - t0
        return res
    other = wrong_lab(key, sub)
    if other is not None:
        res.status = "wrong-lab"
        found = heading_of(sub)
        found = f"{found} ({other})" if found and other not in found else (found or other)
        res.headline = (f"Wrong notebook: this grading is for {heading_of(key.nb) or key.lab} "
                        f"({key.lab}), but your file is {found}. It was graded as {key.lab} all "
                        "the same, so the answers it lacks score zero: was the right file "
                        "handed in?")
    elif not any(c.get("cell_type") == "code" and c.get("source", "").strip()
                 for c in sub.cells):
        res.status = "empty"
    merged, notes, flagged = splice(key, sub, sid)
    notes = _merge_missing(notes)
    res.attachments = attach.from_notebook(sub)
    res.notes.extend(notes)
    res.flagged.extend(flagged)
    if opts.keep_merged:
        res.merged = merged
    soon = key.expected_soon(sid)  # the key's answers are computed while the submission runs
    cells, ended, tail = _sandboxed_run(merged, opts, slots, res)
    # An answer that killed the kernel (os._exit, a crash, a limit, a loop that swallows the
    # interrupt) would cost every answer after it; so would one that burnt most of the kernel's
    # CPU time before it was interrupted at the cell limit, when the kernel then dies of its CPU
    # limit in a later cell (see _fatal_answer). Run the rest again without that cell (at most
    # twice), so it costs only its own question and the answers that use it. Each run looks only
    # past the cell the run before it left out (that cell's record still says it killed the
    # kernel), and leaves out every cell left out so far.
    again, after, left_out = merged, -1, []
    for _ in range(2):
        fatal = _fatal_answer(key, merged, cells, after)
        if fatal is None or ended != "completed":
            break
        index, cell = fatal
        label = key.answer_labels.get(cell.id, cell.id)
        again = copy.deepcopy(again)
        code = [c for c in again.cells if c.cell_type == "code"]
        code[index].source = key.student_sources.get(cell.id, "pass")
        more, ended, tail2 = _sandboxed_run(again, opts, slots, res)
        cells = {**{i: r for i, r in cells.items() if i <= index},
                 **{i: r for i, r in more.items() if i > index}}
        after = index
        left_out.append(index)
        tail += "\n-- second run --\n" + tail2
        res.log += f"answer {label} (code cell {index}) killed the kernel; run again without it\n"
    res.log += tail
    try:
        expected = soon.result()
    except Exception as exc:  # the key failed for this variant: the instructor must know
        res.status = "error"
        res.notes.append("The grader could not compute the answers of your variant; your "
                         "instructor has the details and will grade it again.")
        res.log += f"\nkey failed for {sid!r}: {type(exc).__name__}: {exc}"
        res.seconds = time.monotonic() - t0
        return res
    _score(key, res, merged, cells, ended, expected, opts, left_out)
    res.seconds = time.monotonic() - t0
    return res


_MISSING = re.compile(r"The answer cell for (.+) is missing from your notebook \(deleted\?\); "
                      r"it was graded as unanswered\.")


def _merge_missing(notes: list[str]) -> list[str]:
    """Three or more missing answer cells (another lab's file, a gutted notebook) as one note."""
    gone = [m.group(1) for n in notes if (m := _MISSING.fullmatch(n))]
    if len(gone) < 3:
        return notes
    rest = [n for n in notes if not _MISSING.fullmatch(n)]
    at = next(i for i, n in enumerate(notes) if _MISSING.fullmatch(n))
    return [*rest[:at], f"The answer cells for {', '.join(gone)} are missing from your notebook "
            "(deleted?); they were graded as unanswered.", *rest[at:]]


def _sandboxed_run(merged: NotebookNode, opts: Options, slots: Slots | None,
                   res: Result) -> tuple[dict[int, CellRun], str, str]:
    """Run one notebook in a fresh sandbox; afterwards nothing of it is left running."""
    slot = slots.free.get() if slots else None
    user = slots.users.get(slot) if slots and slot is not None else None
    private = Path(tempfile.mkdtemp(prefix="disklab-grade-"))
    private.chmod(0o700)
    work = None
    try:
        nb_path = private / "submission.ipynb"
        nbformat.write(merged, str(nb_path))
        cfg = None
        if opts.use_sandbox:
            uid, gid = (user[0], user[1]) if user else (None, None)
            res.sandbox_user = user[2] if user else ""
            work = sandbox.make_workdir(uid, gid)
            layers = opts.layers or sandbox.probe_layers(opts.hide, opts.limits)
            hide = [*opts.hide, str(private)]
            cfg = sandbox.make_config(work, uid if "unprivileged-user" in layers["layers"]
                                      else None, gid, hide, opts.limits,
                                      namespaces="mount-namespace" in layers["layers"],
                                      unsafe=opts.unsafe_sandbox)
        usage: dict = {}
        try:
            return run_nbval(nb_path, cell_timeout=opts.cell_timeout, timeout=opts.timeout,
                             sandbox_config=cfg, usage=usage)
        finally:
            res.cpu_seconds += usage.get("cpu_s", 0.0)
            res.kernel_cpu_seconds += usage.get("kernel_cpu_s", 0.0)
    finally:
        if user:
            left = sandbox.wait_user_gone(user[0], zombies=False)
            if left:
                res.flagged.append(f"processes {left} of {user[2]} survived grading")
        if slots and slot is not None:
            slots.free.put(slot)
        shutil.rmtree(private, ignore_errors=True)
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)


_KILLED = ("Failed to interrupt", "kernel died", "Kernel dead", "Kernel died")


def _fatal_answer(key: Key, merged: NotebookNode, cells: dict[int, CellRun], after: int = -1
                  ) -> tuple[int, NotebookNode] | None:
    """The answer cell to blame for the kernel's death, if another question's answer came after.

    That is the cell during which it died, except for a death by the CPU-time limit: then
    the cell that used the most of the kernel's CPU time (since ``after``) when it is an
    answer, such as a busy loop stopped at the cell limit that left too little CPU time for
    the cells after it. Only code cells past index ``after`` are looked at.
    """
    code = [c for c in merged.cells if c.cell_type == "code"]

    def blame(i: int) -> tuple[int, NotebookNode] | None:
        cell = code[i]
        own = set(key.info.answer_names.get(cell.get("id"), []))
        later = any(EXPORT_TAG in tags(c) and c.metadata["disklab"]["export"] not in own
                    for c in code[i + 1:])
        return (i, cell) if is_answer(cell) and later else None

    for i in range(after + 1, len(code)):
        run = cells.get(i)
        if run is None or run.outcome != "failed":
            continue
        if any(k in run.message for k in ("Kernel dead",)):
            return None  # died before: the cell that killed it was not an answer
        if any(k in run.message for k in _KILLED):
            if "CPU-time limit" in run.message:
                used = {j: r.cpu_s for j in range(after + 1, i + 1) if (r := cells.get(j))}
                hog = max(used, key=lambda j: (used[j], j))
                if hog != i and used[hog] > 0 and is_answer(code[hog]):
                    return blame(hog) or blame(i)
            return blame(i)
    return None


def _reason(run: CellRun, opts: Options, used_cpu: bool = False) -> str:
    """Why a cell failed, in plain words; ``used_cpu``: it was left out of a second run because
    it used up the CPU time of the notebook's kernel, which then died in a later cell."""
    cell_timeout = opts.cell_timeout
    cpu = opts.limits.cpu_s if opts.limits.cpu_s is not None else sandbox.CPU_S_WITHOUT_GRADER
    if used_cpu:
        return (f"it used {run.cpu_s:.1f} s of the {cpu:g} s of CPU time the notebook's Python "
                "kernel may use in all (a loop that never ends?), so the kernel hit its CPU-time "
                "limit in a later cell; the grader ran the rest of your notebook again without "
                "it")
    if "CPU-time limit" in run.message:
        return (f"the notebook's Python kernel used up its CPU-time limit ({cpu:g} s) while it "
                "ran, and was stopped (a loop that never ends?)")
    from ._nbval_probe import STOPPED_RUNNING  # (the probe module imports pytest: not at load)

    if "Failed to interrupt" in run.message and STOPPED_RUNNING in run.message:
        return (f"it ran longer than the time limit of a cell ({cell_timeout:g} s), did not "
                "stop when interrupted, and was stopped with the notebook's Python kernel (a "
                "loop that never ends, or one that catches KeyboardInterrupt?)")
    if "Failed to interrupt" in run.message:
        return (f"it ran longer than {cell_timeout:g} s and did not answer an interrupt, or it "
                "ended the Python kernel (os._exit, a crash)")
    if "after the cell's time limit" in run.message:
        return (f"it ran longer than the time limit of a cell ({cell_timeout:g} s), and the "
                "Python kernel died before the interrupt took (os._exit, a crash, a resource "
                "limit, or out of memory)")
    if "Timeout" in run.message:
        return (f"it ran longer than the time limit of a cell ({cell_timeout:g} s) and was "
                "stopped (time spent waiting for the grading machine's CPU does not count)")
    if "kernel died" in run.message:
        return ("the Python kernel died while it ran (os._exit, a crash, a resource limit, or "
                "out of memory)")
    if "Kernel dead" in run.message:
        return "the Python kernel had died before it (an earlier cell crashed or exited it)"
    if run.errors:
        err = _scrub(run.errors[-1])
        return f"it raised {err[:200]}{' ...' if len(err) > 200 else ''}"
    if run.message:
        return _scrub(run.message)
    return "it failed"


_PATHS = re.compile(r"(/[\w.@+-]+){2,}")


def _scrub(text: str) -> str:
    """No absolute paths of the grading machine in a student's feedback."""
    return _PATHS.sub("<path>", text)


def _score(key: Key, res: Result, merged: NotebookNode, cells: dict[int, CellRun], ended: str,
           expected: dict, opts: Options, left_out: Sequence[int] = ()) -> None:
    """Points, verdicts and notes from one run; ``left_out``: answer cells (indices among the
    code cells) that killed the kernel, or used up its CPU time, and were left out of a second
    run."""
    code_cells = [c for c in merged.cells if c.cell_type == "code"]
    died = any("Kernel dead" in r.message or "kernel died" in r.message for r in cells.values())
    died = died or bool(left_out)  # a cell that used up the CPU time: the kernel died later
    if ended == "error" and not cells:
        res.status = "error"
        res.notes.append("The grader itself failed to run your notebook; your instructor "
                         "has the details and will grade it again.")
    elif ended == "timeout":
        res.status = "timeout"
        res.notes.append(f"Your notebook did not finish within {opts.timeout:g} s; the cells "
                         "that had not run by then score zero.")
    elif died and res.status == "graded":
        res.status = "kernel-died"
    export_at, killers = _cell_notes(key, res, code_cells, cells, opts, left_out)
    _spawn_notes(key, res, code_cells, cells)
    if res.status == "kernel-died":
        res.headline = _died_headline(key, [code_cells[i] for i in left_out], killers)
    for q in key.info.questions:
        pts = key.max[q]
        run = cells.get(export_at.get(q, -1))
        if run is None:
            got = answers.Received(False, problem="not checked: the notebook stopped before "
                                   "this answer was read")
        elif run.outcome != "passed" and not run.stdout:
            got = answers.Received(False, problem="not checked: "
                                   + _reason(run, opts))
        else:
            got = answers.parse(run.stdout, q)
        res.received[q] = {"present": got.present, "value": got.value, "problem": got.problem}
        ok, line = judge(key, q, got, expected, res.attachments)
        if ok:
            res.scores[q] = pts
        else:
            res.losses[q] = lost_detail(key, q, got, expected, res.attachments)
        res.lines.setdefault(q, []).append(f"{line} [{_fmt(pts if ok else 0.0)}/{_fmt(pts)}]")


def _cell_notes(key: Key, res: Result, code_cells: list[NotebookNode],
                cells: dict[int, CellRun], opts: Options, left_out: Sequence[int]
                ) -> tuple[dict[str, int], list[str]]:
    """A note for each cell that failed, none for the answers a dead kernel could not run (their
    verdicts say so; the headline says where it died); returns where each export cell is and
    where the kernel died (as the student sees it)."""
    export_at: dict[str, int] = {}
    killers: list[str] = []  # where the kernel died, as the student sees it
    for index, cell in enumerate(code_cells):
        run = cells.get(index)
        if EXPORT_TAG in tags(cell):
            export_at[cell.metadata["disklab"]["export"]] = index
            continue
        # left out of the second run though it did not kill the kernel: it used up its CPU time
        hog = run is not None and index in left_out and not any(k in run.message for k in _KILLED)
        if not hog and (run is None or run.outcome != "failed" or "check" in tags(cell)):
            continue
        where = (f"your answer cell for {key.answer_labels.get(cell.id, cell.id)}"
                 if is_answer(cell) else f"the lab's {cell_place(key.student, cell.get('id'))}")
        where_ = where[:1].upper() + where[1:]  # as a note's first words
        if hog:
            res.notes.append(f"{where_} used up the notebook's CPU time: "
                             f"{_reason(run, opts, used_cpu=True)}.")
            continue
        if "kernel died" in run.message and index not in left_out:
            killers.append(where)
        if "Kernel dead" in run.message:
            continue
        if is_answer(cell):
            res.notes.append(f"{where_} did not run cleanly: "
                             f"{_reason(run, opts)}.")
        elif "NBVAL_SKIP" not in nbval_markers(cell.source):
            res.notes.append(f"{where_} failed after your answers ran: "
                             f"{_reason(run, opts)}. "
                             "If an answer cell reassigned a name the lab uses, that is the "
                             "likely cause.")
    return export_at, killers


def _spawn_notes(key: Key, res: Result, code_cells: list[NotebookNode],
                 cells: dict[int, CellRun]) -> None:
    """A note and a flag for each answer cell whose run says it tried to run a program
    (:mod:`simcore.labkit.spawns`): the kind only, in the module's fixed words."""
    for index, cell in enumerate(code_cells):
        run = cells.get(index)
        if run is None or not is_answer(cell):
            continue
        kinds = spawns.kinds_in(run.stdout)
        if not kinds:
            continue
        label = key.answer_labels.get(cell.id, cell.id)
        how = ", ".join(kinds)
        res.notes.append(f"Your answer cell for {label} tried to run a program ({how}); the "
                         "grader does not allow that (answers are computed in Python, in the "
                         "lab's kernel), and your instructor will see it.")
        res.flagged.append(f"the answer cell for {label} tried to run a program ({how})")


def _died_headline(key: Key, rerun: Sequence[NotebookNode], killers: Sequence[str]) -> str:
    """A dead kernel in plain words: where it stopped, and what the grader did about it."""
    parts = []
    if rerun:
        labels = " and ".join(key.answer_labels.get(c.id, c.id) for c in rerun)
        parts.append(f"Your answer cell{'s' if len(rerun) > 1 else ''} for {labels} stopped the "
                     "notebook's Python process (the kernel), so the grader ran the rest of your "
                     f"notebook again without {'them' if len(rerun) > 1 else 'it'}: only "
                     f"{labels}, and answers that use {'them' if len(rerun) > 1 else 'it'}, "
                     "lost points.")
    if killers:
        parts.append(f"The notebook's Python process (the kernel) stopped in {killers[0]}; "
                     "the cells after it could not run.")
    return " ".join(parts) or ("The notebook's Python process (the kernel) stopped while your "
                               "answers ran; the notes below say where.")


def judge(key: Key, q: str, got: answers.Received, expected: dict,
          attachments: Sequence[dict] = ()) -> tuple[bool, str]:
    """Compare one received answer with the key's; the line for the feedback (no values).

    A question with a measurement judge is judged by the student's attached
    measurement and the key's reference for the variant
    (:mod:`simcore.labkit.judges`) instead of the key's own answer.
    """
    spec = key.spec[q]
    if not got.present:
        gone = judges.missing(spec.judge, attachments) if spec.judge else ""
        return False, f"{q} … {_scrub(got.problem)}" + (f"; {gone}" if gone else "")
    if spec.judge:
        ok, why = judges.run(spec.judge, got.value, expected.get(reference_name(q)),
                             list(attachments))
        return (True, f"{q} ✔ correct") if ok else (False, f"{q} ✘ {_scrub(why)}{_hint(spec)}")
    ok, why = answers.compare(expected[q], got.value, key.rules[q])
    return (True, f"{q} ✔ correct") if ok else (False, f"{q} ✘ {why}{_hint(spec)}")


def _hint(spec: Question) -> str:
    """The key's hint for a wrong answer (what to check, never a value), as a feedback clause."""
    return f" ({spec.hint})" if spec.hint else ""


def lost_detail(key: Key, q: str, got: answers.Received, expected: dict,
                attachments: Sequence[dict] = ()) -> str:
    """Why ``q`` lost its points, with the values judged: what was received, the key's value (or
    the measurement and the key's reference) and the tolerance. For the instructor's records and
    a failing test's message (it names the expected value: never in a student's feedback)."""
    if not got.present:
        return f"nothing judged: {got.problem}"
    spec = key.spec[q]
    if spec.judge:
        return f"received {got.value!r}; " + judges.explain(
            spec.judge, got.value, expected.get(reference_name(q)), list(attachments))
    rule = key.rules[q]
    exp = expected.get(q, "<the key computed no value>")
    return (f"received {got.value!r}; the key's {exp!r}; tolerance rel {rule.rel:g}, "
            f"abs {rule.abs:g}" + (f", one of {list(rule.one_of)!r}" if rule.one_of else ""))


def default_jobs(jobs: int | None = None) -> int:
    """Submissions graded at once: as given, else one more than the cores.

    A submission is mostly computing (pytest, the kernel's start, the cells), but one
    that hangs asleep waits out its cell's limit; the extra job keeps the cores busy then.
    """
    return max(1, jobs or (os.cpu_count() or 1) + 1)


UNSAFE = "confinement (graded with --unsafe-sandbox)"  # a missing layer, asked for


def grade(key_path: str | Path, submissions: Sequence[str | Path], *, jobs: int | None = None,
          opts: Options | None = None, secret: bytes | None = None,
          progress: Callable[[Result], None] | None = None,
          private: Sequence[str | Path] = (),
          announce: Callable[[dict], None] | None = None) -> tuple[Key, list[Result]]:
    """Grade many submissions in parallel; results come back in the submissions' order.

    What the sandbox must hide (:func:`hidden_paths`, with ``private``: a secret
    or roster named by the caller) is computed and the sandbox probed once, here;
    ``announce`` gets the probed layers before anything is graded (or refused),
    and ``key.layers`` keeps what was enforced (with :data:`UNSAFE` among the
    missing layers when graded with ``unsafe_sandbox``).
    """
    import dataclasses

    opts = opts or Options()
    key = Key(key_path, secret)
    paths = [Path(p) for p in submissions]
    hide = sorted({*opts.hide, *hidden_paths(key.path, paths, private)})
    layers = (sandbox.probe_layers(hide, opts.limits) if opts.use_sandbox
              else {"layers": [], "missing": ["all (grading without a sandbox)"]})
    if announce:
        announce(layers)
    if opts.use_sandbox and not sandbox.confined(layers):
        if not opts.unsafe_sandbox:
            key.close()
            raise SandboxError(sandbox.unconfined_error(layers))
        layers = {**layers, "missing": [*layers["missing"], UNSAFE]}
    key.layers = layers
    opts = dataclasses.replace(opts, hide=hide, layers=layers if opts.use_sandbox else None)
    jobs = default_jobs(jobs)
    slots = Slots(jobs, opts.use_sandbox)
    results: list[Result | None] = [None] * len(paths)
    try:
        opts = resolve(key, opts, slots)
        _run_all(key, paths, jobs, opts, slots, results, progress)
    finally:
        key.close()
        slots.close()
    done = [r for r in results if r is not None]
    _mark_duplicates(done)
    copying.mark(key, done, key.known_expected())  # wrong answers that fit a classmate's variant
    return key, done


def _run_all(key: Key, paths: list[Path], jobs: int, opts: Options, slots: Slots,
             results: list[Result | None], progress: Callable[[Result], None] | None) -> None:
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(grade_one, key, p, opts, slots): i for i, p in enumerate(paths)}
        for fut in as_completed(futures):
            i = futures[fut]
            try:
                r = fut.result()
            except Exception as exc:  # a grader bug must not stop the other submissions
                sid, how = student_id_of(paths[i], key.path.stem, opts.roster)
                r = Result(str(paths[i]), sid, how, status="error",
                           scores={q: 0.0 for q in key.info.questions},
                           notes=["The grader itself failed on your notebook; your "
                                  "instructor has the details."], log=repr(exc))
            results[i] = r
            if progress:
                progress(r)


def hidden_paths(key_path: Path, submissions: Sequence[Path],
                 private: Sequence[str | Path] = ()) -> list[str]:
    """What the sandbox must not see: the key's folder, the submissions, the secret, ``private``
    (the roster, a secret named on the command line), the repositories' git folders (their
    objects hold the key) and the key's folder in every work tree of its repository."""
    from . import secret

    protected = {Path(p).resolve() for p in [*sandbox.default_expose(), tempfile.gettempdir(),
                                             *sandbox.SCRATCH]}

    def safe_to_cover(d: Path) -> bool:
        return d != Path("/") and not any(p == d or d in p.parents for p in protected)

    out: set[str] = set()
    for p in [key_path, *submissions, *map(Path, private), secret.default_path()]:
        p = p.resolve()
        out.add(str(p.parent) if safe_to_cover(p.parent) else str(p))
    key = Path(key_path).resolve()
    for start in (key.parent, Path(__file__).resolve().parents[2]):
        gitdirs, trees = _git_paths(start)
        out.update(str(g) for g in gitdirs if safe_to_cover(g))
        mine = next((t for t in trees if t in key.parents), None)
        for t in trees:
            for d in (t / "instructors", t / key.parent.relative_to(mine) if mine else None):
                if d is not None and d.exists() and safe_to_cover(d):
                    out.add(str(d))
    return sorted(p for p in out if not any(str(a) in out for a in Path(p).parents))


def _git_paths(path: Path) -> tuple[set[Path], set[Path]]:
    """The git folders of the repository holding ``path``, and the top folders of its work trees.

    A linked work tree's ``.git`` is a file naming its folder in the main
    repository, whose objects hold every file ever committed (a key included).
    """
    top = next((p for p in [path, *path.parents] if (p / ".git").exists()), None)
    if top is None:
        return set(), set()
    dot = common = top / ".git"
    gitdirs, trees = {dot}, {top}
    with contextlib.suppress(OSError):
        if dot.is_file():
            line = dot.read_text(errors="replace").strip()
            gitdir = (top / line.removeprefix("gitdir:").strip()).resolve()
            link = gitdir / "commondir"
            common = (gitdir / link.read_text().strip()).resolve() if link.is_file() else gitdir
            gitdirs |= {gitdir, common}
        if common.name == ".git":
            trees.add(common.parent)  # the main work tree
        for w in (common / "worktrees").iterdir():
            with contextlib.suppress(OSError):
                trees.add(Path((w / "gitdir").read_text().strip()).resolve().parent)
    return gitdirs, trees


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
                r.flagged.append("duplicate id")


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


def planned_ids(key_path: Path, paths: Sequence[Path],
                roster: dict[str, str] | None = None) -> list[Result]:
    """Light placeholders (id only) used to check output names before grading."""
    return [Result(str(p), *student_id_of(p, key_path.stem, roster)) for p in paths]


__all__ = [
    "Key",
    "LabFormatError",
    "Options",
    "Result",
    "SandboxError",
    "collect_submissions",
    "grade",
    "grade_one",
    "run_nbval",
    "splice",
]
