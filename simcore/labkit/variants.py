"""Per-student variants: a lab's numbers derive from a seed built from the student id.

The parameters cell of a lab sets ``STUDENT_ID`` and
``SEED = simcore.labkit.variant_seed(STUDENT_ID, "labN")``; the lab draws its
disk and numbers from ``variant_rng(SEED)`` and its check cells recompute the
expected answers from the same seed. The grader writes the student's id into
the parameters cell of the key before running it, so copied numbers fail.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from .check import variant_seed
from .labformat import (
    LabFormatError,
    assigned_names,
    inspect_lab,
    is_answer,
    nbval_markers,
    parameter_value,
    set_parameter,
    solution_names,
    tags,
)

if TYPE_CHECKING:
    from nbformat import NotebookNode

T = TypeVar("T")
DEFAULT_ID = "demo"


def variant_rng(seed: int, stream: str = "") -> np.random.Generator:
    """The random generator of one variant (optionally one named stream of it).

    Separate streams (``variant_rng(SEED, "q3")``) keep a question's numbers
    unchanged when another question's draws are added or removed.
    """
    extra = variant_seed(stream, "stream") if stream else 0
    return np.random.default_rng([int(seed), extra])


def pick(seed: int, options: Sequence[T], stream: str = "") -> T:
    """One of ``options``, chosen by the variant."""
    if not options:
        raise ValueError("pick() needs at least one option")
    return options[int(variant_rng(seed, stream).integers(len(options)))]


def personalize(nb: NotebookNode, student_id: str) -> NotebookNode:
    """Set ``STUDENT_ID`` in the parameters cell and ``disklab.student_id`` in the metadata."""
    params = [c for c in nb.cells if "parameters" in tags(c)]
    if len(params) != 1:
        raise LabFormatError(f"a lab needs exactly one parameters cell (found {len(params)})")
    params[0].source = set_parameter(params[0].source, "STUDENT_ID", student_id)
    meta = nb.metadata.get("disklab")
    nb.metadata["disklab"] = {**(meta if isinstance(meta, dict) else {}),
                              "student_id": student_id}
    return nb


def declared_id(nb: NotebookNode) -> str | None:
    """The ``STUDENT_ID`` a notebook's own parameters cell sets (None if absent)."""
    for c in nb.cells:
        if "parameters" in tags(c):
            v = parameter_value(c.source, "STUDENT_ID")
            return v if isinstance(v, str) else None
    return None


def student_id_of(nb: NotebookNode | None, path: str | Path, lab_stem: str = "") -> tuple[str, str]:
    """Whose submission this is, and how we know: ``(id, source)``.

    The notebook's ``disklab.student_id`` metadata wins; otherwise the file
    name without ``.ipynb`` (``alice.ipynb`` is ``alice``); a file named like
    the lab itself (``alice/lab1_time.ipynb``) takes its folder's name.
    """
    if nb is not None:
        meta = nb.metadata.get("disklab")
        sid = meta.get("student_id") if isinstance(meta, dict) else None
        if isinstance(sid, str) and sid.strip():
            return sid.strip()[:100], "notebook metadata disklab.student_id"
    p = Path(path)
    if lab_stem and p.stem == lab_stem and p.parent.name:
        return p.parent.name, "folder name"
    return p.stem, "file name"


def answer_sheet(key: NotebookNode, student_id: str, path: str | Path = "<lab>") -> dict[str, Any]:
    """The key's answers for one student, computed in this process.

    Runs the key's code cells (personalized for ``student_id``), except cells
    marked ``NBVAL_SKIP`` or tagged ``hardware``, check cells and plots
    (``NBVAL_IGNORE_OUTPUT``), and returns the values of the names the answer
    cells assign. Useful for an instructor's answer list per variant, and in
    tests to build a submission holding literal numbers. The key is trusted
    code: never call this on a student's notebook.
    """
    import copy

    nb = personalize(copy.deepcopy(key), student_id)
    inspect_lab(nb, path, require_outputs=False)
    ns: dict[str, Any] = {"__name__": "__lab__"}
    wanted: list[str] = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        marks = nbval_markers(cell.source)
        if ("NBVAL_SKIP" in marks or "hardware" in tags(cell) or "check" in tags(cell)
                or "NBVAL_IGNORE_OUTPUT" in marks):
            continue
        if is_answer(cell):
            wanted.extend(n for n in solution_names(cell.source) if n not in wanted)
        code = "\n".join(line for line in cell.source.splitlines()
                         if not line.lstrip().startswith(("%", "!")))
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, f"<{path} cell {cell.get('id')}>", "exec"), ns)
    return {n: ns.get(n) for n in wanted}


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, dict):
        return {_plain(k): _plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return type(v)(_plain(x) for x in v)
    return v


def literal_answers(values: dict[str, Any]) -> str:
    """Python source assigning the given values as literals (``q1 = 3.0``)."""
    lines = []
    for name, v in values.items():
        text = repr(_plain(v))
        assigned_names(f"{name} = {text}")  # raises SyntaxError if it does not parse
        lines.append(f"{name} = {text}")
    return "\n".join(lines)
