"""The lab notebook format, read and checked in one place.

A lab (see CONTRIBUTING.md, "Labs") is an nbformat 4.5 notebook whose cells
have roles given by tags:

- ``parameters``: assigns ``STUDENT_ID = "demo"`` and derives ``SEED`` from it;
- ``answer``: the solution between ``### BEGIN SOLUTION`` / ``### END SOLUTION``;
- ``check``: first line ``# NBVAL_CHECK_OUTPUT``, metadata
  ``{"disklab": {"question": "q1", "points": 2}}`` (``"hidden": true`` keeps
  the cell out of the student version: the grader still runs it);
- ``hardware``: starts with ``# NBVAL_SKIP``; the next cell falls back to data;
- ``explorer``: opens a chapter's live explorer; starts with ``# NBVAL_IGNORE_OUTPUT``.
  Neither the key's run for a variant nor the grader's run of a submission
  executes it, so no graded value can depend on a widget's state: a question
  answered with an explorer has the student type the number read off it.

Everything here is pure (no kernel, no files written); errors name the
notebook, the cell (its number as Jupyter shows it, counting from 1, and its
id) and what to change.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import DisklabError
from .check import CROSS, TICK, WAIT

if TYPE_CHECKING:
    from nbformat import NotebookNode

BEGIN_SOLUTION = re.compile(r"^([ \t]*)#+\s*BEGIN SOLUTION\s*$")
END_SOLUTION = re.compile(r"^[ \t]*#+\s*END SOLUTION\s*$")
BEGIN_HIDDEN = re.compile(r"^[ \t]*#+\s*BEGIN HIDDEN TESTS\s*$")
END_HIDDEN = re.compile(r"^[ \t]*#+\s*END HIDDEN TESTS\s*$")
NBVAL_MARKER = re.compile(
    r"^([ \t]*)#+[ \t]*(NBVAL_[A-Z_]+|PYTEST_VALIDATE_IGNORE_OUTPUT)[ \t]*$", re.MULTILINE
)
PLACEHOLDER = "None  # your answer"
MARKDOWN_PLACEHOLDER = "*Write your answer here.*"


class LabFormatError(DisklabError):
    """A lab notebook does not follow the lab format."""


def tags(cell: NotebookNode) -> list[str]:
    t = cell.get("metadata", {}).get("tags", [])
    return list(t) if isinstance(t, list) else []


def disklab_meta(cell: NotebookNode) -> dict:
    m = cell.get("metadata", {}).get("disklab", {})
    return m if isinstance(m, dict) else {}


def is_answer(cell: NotebookNode) -> bool:
    return cell.cell_type == "code" and "answer" in tags(cell)


def is_check(cell: NotebookNode) -> bool:
    return cell.cell_type == "code" and "check" in tags(cell)


def is_explorer(cell: NotebookNode) -> bool:
    return cell.cell_type == "code" and "explorer" in tags(cell)


def is_hidden(cell: NotebookNode) -> bool:
    return bool(disklab_meta(cell).get("hidden"))


def has_solution(source: str) -> bool:
    return any(BEGIN_SOLUTION.match(line) for line in source.splitlines())


def nbval_markers(source: str) -> set[str]:
    return {m.group(2) for m in NBVAL_MARKER.finditer(source)}


def cell_label(nb_path: str | Path | None, index: int, cell: NotebookNode) -> str:
    where = f"{nb_path}: " if nb_path else ""
    cid = cell.get("id")
    return f"{where}cell {index + 1}" + (f" (id {cid})" if cid else "")


GRADING_KEYS = ("rel", "abs", "one_of", "export", "judge", "reference", "hint")


@dataclass(frozen=True)
class Question:
    """One check cell: which question it grades and for how many points."""

    question: str
    points: float
    cell_id: str
    code_index: int  # position among the code cells (nbval's "Cell N")
    hidden: bool = False
    rule: dict = field(default_factory=dict)  # rel, abs, one_of: how the grader compares
    export: str = ""  # what the sandbox hands out for the question (default: its name)
    judge: dict = field(default_factory=dict)  # a measurement judge (simcore.labkit.judges)
    reference: str = ""  # the key-side expression a judge compares the measurement with
    hint: str = ""  # said in the feedback when the answer is judged wrong (never a value)


@dataclass
class LabInfo:
    """What the grader and the student-version writer need to know about a key."""

    path: str
    lab: str
    parameters_index: int
    answer_ids: list[str] = field(default_factory=list)
    answer_names: dict[str, list[str]] = field(default_factory=dict)  # cell id -> names
    checks: list[Question] = field(default_factory=list)

    @property
    def questions(self) -> list[str]:
        """Question names in notebook order, each once."""
        seen: list[str] = []
        for q in self.checks:
            if q.question not in seen:
                seen.append(q.question)
        return seen

    def max_points(self) -> dict[str, float]:
        out = {q: 0.0 for q in self.questions}
        for c in self.checks:
            out[c.question] += c.points
        return out


def read_notebook(path: str | Path) -> NotebookNode:
    """Read a notebook (as nbformat 4), with a clear error for anything else."""
    import nbformat

    p = Path(path)
    try:
        return nbformat.read(str(p), as_version=4)
    except FileNotFoundError:
        raise
    except Exception as exc:
        raise LabFormatError(f"{p}: not a readable Jupyter notebook ({exc})") from exc


def assigned_names(code: str) -> list[str]:
    """Top-level names a piece of code binds, in order of first binding."""
    tree = ast.parse(code)
    names: list[str] = []
    _visit_body(tree.body, names)
    return names


def _add_name(names: list[str], n: str) -> None:
    if n not in names:
        names.append(n)


def _bind_targets(node: ast.AST, names: list[str]) -> None:
    """The names an assignment target binds (unpacking tuples, lists and starred names)."""
    if isinstance(node, ast.Name):
        _add_name(names, node.id)
    elif isinstance(node, ast.Tuple | ast.List):
        for elt in node.elts:
            _bind_targets(elt, names)
    elif isinstance(node, ast.Starred):
        _bind_targets(node.value, names)


def _visit_body(body: list[ast.stmt], names: list[str]) -> None:
    for node in body:
        if not _bind_simple(node, names):
            _visit_compound(node, names)


def _bind_simple(node: ast.stmt, names: list[str]) -> bool:
    """The names a simple binding statement binds; whether ``node`` is one."""
    if isinstance(node, ast.Assign):
        for t in node.targets:
            _bind_targets(t, names)
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        _bind_targets(node.target, names)
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        _add_name(names, node.name)
    elif isinstance(node, ast.Import | ast.ImportFrom):
        for alias in node.names:
            if alias.name != "*":
                _add_name(names, alias.asname or alias.name.split(".")[0])
    else:
        return False
    return True


def _visit_compound(node: ast.stmt, names: list[str]) -> None:
    """The names a compound statement (or an expression's ``:=``) binds at this level."""
    if isinstance(node, ast.For | ast.AsyncFor):
        _bind_targets(node.target, names)
        _visit_body(node.body, names)
        _visit_body(node.orelse, names)
    elif isinstance(node, ast.With | ast.AsyncWith):
        for item in node.items:
            if item.optional_vars is not None:
                _bind_targets(item.optional_vars, names)
        _visit_body(node.body, names)
    elif isinstance(node, ast.If | ast.While):
        _visit_body(node.body, names)
        _visit_body(node.orelse, names)
    elif isinstance(node, ast.Try):
        _visit_body(node.body, names)
        for h in node.handlers:
            _visit_body(h.body, names)
        _visit_body(node.orelse, names)
        _visit_body(node.finalbody, names)
    elif isinstance(node, ast.Expr | ast.Return):
        for sub in ast.walk(node):
            if isinstance(sub, ast.NamedExpr):
                _bind_targets(sub.target, names)


def solution_blocks(source: str, where: str = "") -> list[tuple[int, int, str]]:
    """``(begin_line, end_line, indent)`` of every solution block (0-based, inclusive)."""
    blocks: list[tuple[int, int, str]] = []
    begin: tuple[int, str] | None = None
    for i, line in enumerate(source.splitlines()):
        m = BEGIN_SOLUTION.match(line)
        if m:
            if begin is not None:
                raise LabFormatError(f"{where}: line {i + 1}: BEGIN SOLUTION inside another "
                                     "solution block; close the first with ### END SOLUTION")
            begin = (i, m.group(1))
        elif END_SOLUTION.match(line):
            if begin is None:
                raise LabFormatError(f"{where}: line {i + 1}: END SOLUTION without a "
                                     "BEGIN SOLUTION above it")
            blocks.append((begin[0], i, begin[1]))
            begin = None
    if begin is not None:
        raise LabFormatError(f"{where}: line {begin[0] + 1}: BEGIN SOLUTION is never closed; "
                             "add ### END SOLUTION")
    return blocks


def solution_names(source: str, where: str = "") -> list[str]:
    """Names the solution blocks of a cell bind at their own level."""
    lines = source.splitlines()
    names: list[str] = []
    for b, e, indent in solution_blocks(source, where):
        body = "\n".join(line[len(indent):] if line.startswith(indent) else line.lstrip()
                         for line in lines[b + 1:e])
        try:
            found = assigned_names(body)
        except SyntaxError as exc:
            raise LabFormatError(
                f"{where}: line {b + 2 + (exc.lineno or 1) - 1}: the solution does not parse "
                f"as Python on its own ({exc.msg}); a solution block must hold whole statements"
            ) from exc
        names.extend(n for n in found if n not in names)
    return names


def parameters_assign(source: str, name: str) -> tuple[int, int] | None:
    """Line span (1-based, inclusive) of the top-level ``name = "..."`` in a cell."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name):
            return node.lineno, node.end_lineno or node.lineno
    return None


def parameter_value(source: str, name: str):
    """The constant a top-level ``name = <constant>`` assigns, or None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name
                and isinstance(node.value, ast.Constant)):
            return node.value.value
    return None


def set_parameter(source: str, name: str, value: str) -> str:
    """Replace the top-level ``name = ...`` of a cell with ``name = "value"``."""
    span = parameters_assign(source, name)
    if span is None:
        raise LabFormatError(f"the parameters cell has no top-level `{name} = ...` to set")
    lines = source.split("\n")
    first, last = span
    indent = re.match(r"[ \t]*", lines[first - 1]).group(0)
    quoted = json.dumps(value)  # a valid Python string literal, whatever the id holds
    lines[first - 1:last] = [f"{indent}{name} = {quoted}"]
    return "\n".join(lines)


def stored_stdout(cell: NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream" and o.get("name") == "stdout")


def inspect_lab(nb: NotebookNode, path: str | Path = "<lab>", *,
                require_outputs: bool = True) -> LabInfo:
    """Check that a notebook follows the lab format and describe it.

    With ``require_outputs`` (a key about to grade), every check cell must hold
    its stored reference output, and that output must be all ticks: the key is
    the reference, so it must have been run with every answer right.
    """
    path = str(path)
    lab = Path(path).stem
    meta_lab = nb.metadata.get("disklab", {}).get("lab") if isinstance(
        nb.metadata.get("disklab"), dict) else None
    params = [i for i, c in enumerate(nb.cells) if "parameters" in tags(c)]
    problems = _parameters_problems(nb, path, params)
    info = LabInfo(path=path, lab=meta_lab or lab, parameters_index=params[0] if params else -1)
    ids: dict[str, int] = {}
    code_index = -1
    for i, cell in enumerate(nb.cells):
        where = cell_label(path, i, cell)
        if cell.cell_type == "code":
            code_index += 1
        problems.extend(_id_problems(where, i, cell.get("id"), ids))
        problems.extend(_cell_problems(cell, where, code_index, info, require_outputs))
    if not info.checks:
        problems.append(f"{path}: has no check cells (tag `check`)")
    if problems:
        raise LabFormatError("\n".join(problems))
    return info


def _parameters_problems(nb: NotebookNode, path: str, params: list[int]) -> list[str]:
    """What is wrong with the lab's parameters cell (its indices are ``params``)."""
    if len(params) != 1:
        return [f"{path}: needs exactly one cell tagged `parameters` (found {len(params)})"]
    if parameters_assign(nb.cells[params[0]].source, "STUDENT_ID") is None:
        return [f"{cell_label(path, params[0], nb.cells[params[0]])}: the parameters "
                'cell must assign STUDENT_ID = "demo" at top level']
    return []


def _id_problems(where: str, i: int, cid: str | None, ids: dict[str, int]) -> list[str]:
    """A missing or repeated cell id; records the id of cell ``i`` in ``ids``."""
    if not cid:
        return [f"{where}: has no cell id; save the lab as nbformat 4.5 "
                "(JupyterLab 3 or later does) so cells can be paired"]
    if cid in ids:
        return [f"{where}: repeats the id of cell {ids[cid] + 1}; ids must be unique"]
    ids[cid] = i
    return []


def _cell_problems(cell: NotebookNode, where: str, code_index: int, info: LabInfo,
                   require_outputs: bool) -> list[str]:
    """What is wrong with one cell given its roles; records its answers and checks in ``info``."""
    try:
        blocks = solution_blocks(cell.source, where)
    except LabFormatError as exc:
        return [str(exc)]
    problems: list[str] = []
    if cell.cell_type == "code" and blocks and not is_answer(cell):
        problems.append(f"{where}: holds a solution but is not tagged `answer`; the grader "
                        "would run the key's solution for every student")
    if is_explorer(cell):
        problems.extend(_explorer_problems(cell, where))
    if is_answer(cell):
        problems.extend(_answer_problems(cell, where, info))
    if is_check(cell):
        question, found = _check_question(cell, where, code_index, require_outputs)
        problems.extend(found)
        if question is not None:
            info.checks.append(question)
    return problems


def _explorer_problems(cell: NotebookNode, where: str) -> list[str]:
    problems = []
    if is_answer(cell) or is_check(cell):
        problems.append(f"{where}: an `explorer` cell cannot be an answer or check cell")
    if "NBVAL_IGNORE_OUTPUT" not in nbval_markers(cell.source.split("\n", 1)[0]):
        problems.append(f"{where}: an `explorer` cell must start with "
                        "# NBVAL_IGNORE_OUTPUT (its widgets' output is never compared)")
    return problems


def _answer_problems(cell: NotebookNode, where: str, info: LabInfo) -> list[str]:
    """What is wrong with an answer cell; records its id and solution names in ``info``."""
    problems = []
    if is_check(cell):
        problems.append(f"{where}: is tagged both `answer` and `check`")
    try:
        names = solution_names(cell.source, where)
    except LabFormatError as exc:
        problems.append(str(exc))
        names = []
    cid = cell.get("id")
    if cid:
        info.answer_ids.append(cid)
        info.answer_names[cid] = names
    return problems


def _check_question(cell: NotebookNode, where: str, code_index: int,
                    require_outputs: bool) -> tuple[Question | None, list[str]]:
    """A check cell's question (None if it cannot be graded) and what is wrong with the cell."""
    meta = disklab_meta(cell)
    q, pts = meta.get("question"), meta.get("points")
    problems: list[str] = []
    first = next((ln.strip() for ln in cell.source.splitlines() if ln.strip()), "")
    if first.lstrip("#").strip() != "NBVAL_CHECK_OUTPUT":
        problems.append(f"{where}: a check cell must start with # NBVAL_CHECK_OUTPUT")
    if not isinstance(q, str) or not q:
        problems.append(f'{where}: a check cell needs metadata {{"disklab": '
                        f'{{"question": "q1", "points": 1}}}} (question is missing)')
        return None, problems
    if isinstance(pts, bool) or not isinstance(pts, int | float) or pts < 0:
        problems.append(f"{where}: points of {q} must be a number >= 0 (got {pts!r})")
        return None, problems
    if require_outputs:
        problems.extend(_stored_output_problems(cell, where, q))
    rule = {k: meta[k] for k in ("rel", "abs", "one_of") if k in meta}
    why = _grading_meta_problem(meta, rule, where, q)
    if why is not None:
        problems.append(why)
        return None, problems
    export = meta.get("export", "")
    judge, reference = meta.get("judge") or {}, meta.get("reference", "")
    return (Question(q, float(pts), cell.get("id") or "", code_index, is_hidden(cell), rule,
                     export, judge, reference, meta.get("hint", "")), problems)


def _stored_output_problems(cell: NotebookNode, where: str, q: str) -> list[str]:
    """A key's check cell must hold its output, all ticks (the key is the reference)."""
    lines = [ln for ln in stored_stdout(cell).splitlines() if ln.strip()]
    if not lines:
        return [f"{where}: the check of {q} has no stored output; run the "
                "key top to bottom and save it before grading"]
    if any(CROSS in ln or WAIT in ln or TICK not in ln for ln in lines):
        return [f"{where}: the key's stored output of {q} is not all ticks "
                f"({lines[0]!r}); fix the solution, rerun and save the key"]
    return []


def _grading_meta_problem(meta: dict, rule: dict, where: str, q: str) -> str | None:
    """The first problem with how a check cell says to grade ``q`` (None if there is none)."""
    try:
        from .answers import Rule

        Rule.from_meta(rule, where)
    except ValueError as exc:
        return str(exc)
    export = meta.get("export", "")
    if export:
        try:
            compile(export, where, "eval")
        except SyntaxError as exc:
            return f"{where}: export of {q} is not a Python expression ({exc.msg})"
    judge, reference = meta.get("judge") or {}, meta.get("reference", "")
    if judge:
        from .judges import validate

        try:
            validate(judge, f"{where}: {q}")
        except ValueError as exc:
            return str(exc)
    if reference:
        try:
            compile(reference, where, "eval")
        except SyntaxError as exc:
            return f"{where}: reference of {q} is not a Python expression ({exc.msg})"
        if not judge:
            return f"{where}: reference of {q} needs a judge"
    hint = meta.get("hint", "")
    if not isinstance(hint, str) or len(hint) > 300 or any(ch.isdigit() for ch in hint):
        return (f"{where}: hint of {q} must be a sentence of at most 300 characters without "
                "digits (it is shown to every student who gets the question wrong, so it may "
                f"name settings to check, never a value; got {hint!r})")
    return None
