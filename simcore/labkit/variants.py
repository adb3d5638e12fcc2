"""Per-student variants: a lab's numbers derive from a seed built from the student id.

The parameters cell of a lab sets ``STUDENT_ID`` and
``SEED = simcore.labkit.variant_seed(STUDENT_ID, "labN")`` (the public demo
variant). A personal handout replaces that line with the student's public
workload seed, a one-way hash of the root HMAC(instructor secret, "labN:id")
(:func:`set_seed`, :func:`~simcore.labkit.check.variant_seed`): the variant's
public parameters are drawn from it by the lab's own code (``variant_rng(SEED)``)
and it is all the student needs; the root stays with the grader. The grader
computes the same seed from the id it takes from the file name or roster, never
from the notebook, and recomputes the key's answers for it in its own process,
so copied numbers and a borrowed seed both fail.
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
    parameters_assign,
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


def mystery_token(seed: int) -> str:
    """The variant's mystery disk (:mod:`simcore.serve.mystery`): 16 hex digits, one-way from it.

    A public parameter of the variant like any other: the student serves the
    drive with ``python -m simcore serve --mystery TOKEN``; the grader derives
    the same token from the seed of the id and compares the measurement with
    that drive's true parameters.
    """
    return f"{int(variant_rng(seed, 'mystery').integers(2**63)):016x}"


def fio_seed(seed: int, stream: str) -> int:
    """The variant's fio ``randseed`` for one served job (a named stream of its own).

    Given with :func:`simcore.serve.fio.random_offsets`, it draws the random
    offsets of the student's fio runs: each variant reads its own sample, and
    the lab's other draws keep their values.
    """
    return int(variant_rng(seed, stream).integers(1, 2**31))


def pick(seed: int, options: Sequence[T], stream: str = "") -> T:
    """One of ``options``, chosen by the variant."""
    if not options:
        raise ValueError("pick() needs at least one option")
    return options[int(variant_rng(seed, stream).integers(len(options)))]


def set_seed(source: str, seed: int) -> str:
    """The parameters cell with ``SEED = <seed>`` (the public workload seed, never the secret)."""
    span = parameters_assign(source, "SEED")
    if span is None:
        raise LabFormatError("the parameters cell has no top-level `SEED = ...` to set")
    lines = source.split("\n")
    first, last = span
    indent = lines[first - 1][: len(lines[first - 1]) - len(lines[first - 1].lstrip())]
    lines[first - 1:last] = [f"{indent}SEED = {int(seed)}  # your variant's public seed, from "
                             "your instructor"]
    return "\n".join(lines)


def personalize(nb: NotebookNode, student_id: str, seed: int | None = None) -> NotebookNode:
    """Set ``STUDENT_ID`` (and, given a seed, ``SEED``) in the parameters cell, and the metadata."""
    params = [c for c in nb.cells if "parameters" in tags(c)]
    if len(params) != 1:
        raise LabFormatError(f"a lab needs exactly one parameters cell (found {len(params)})")
    params[0].source = set_parameter(params[0].source, "STUDENT_ID", student_id)
    if seed is not None:
        params[0].source = set_seed(params[0].source, seed)
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


def metadata_id(nb: NotebookNode | None) -> str | None:
    """The ``disklab.student_id`` a notebook's metadata claims (never trusted, only compared)."""
    if nb is None:
        return None
    meta = nb.metadata.get("disklab")
    sid = meta.get("student_id") if isinstance(meta, dict) else None
    return sid.strip()[:100] if isinstance(sid, str) and sid.strip() else None


def student_id_of(path: str | Path, lab_stem: str = "",
                  roster: dict[str, str] | None = None) -> tuple[str, str]:
    """Whose submission this is, and how we know: ``(id, source)``.

    Only what the instructor controls counts: the file name without
    ``.ipynb`` (``alice.ipynb`` is ``alice``), or for a file named like the lab
    (``alice/lab1_time.ipynb``) its folder's name; with a roster mapping file
    names to ids, the roster. What the notebook says about itself (metadata,
    ``STUDENT_ID``) is only compared with it, and a mismatch is flagged.
    """
    p = Path(path)
    if roster:
        for k in (p.name, p.stem, str(p)):
            if k in roster:
                return roster[k], "roster"
    if lab_stem and p.stem == lab_stem and p.parent.name:
        return p.parent.name, "folder name"
    return p.stem, "file name"


def run_key(key: NotebookNode, student_id: str, seed: int, path: str | Path = "<lab>",
            exports: dict[int, list[tuple[str, str]]] | None = None) -> dict[str, Any]:
    """Run a key for one student in this process; return the answers it computes.

    Runs the key's code cells (personalized for ``student_id`` and ``seed``),
    except cells marked ``NBVAL_SKIP`` or tagged ``hardware``, check cells,
    plots (``NBVAL_IGNORE_OUTPUT``) and live explorers (tag ``explorer``). With ``exports`` (code-cell index ->
    ``[(question, expression)]``), each expression is evaluated when the run
    reaches that cell and the values are returned by question; without, the
    names the answer cells assign. The key is trusted code: never call this on
    a student's notebook.
    """
    import copy

    nb = personalize(copy.deepcopy(key), student_id, seed)
    inspect_lab(nb, path, require_outputs=False)
    ns: dict[str, Any] = {"__name__": "__lab__"}
    wanted: list[str] = []
    out: dict[str, Any] = {}
    code_index = -1
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        code_index += 1
        for q, expr in (exports or {}).get(code_index, []):
            with contextlib.redirect_stdout(io.StringIO()):
                out[q] = eval(compile(expr, f"<{path} export of {q}>", "eval"), ns)
        marks = nbval_markers(cell.source)
        if ("NBVAL_SKIP" in marks or "hardware" in tags(cell) or "check" in tags(cell)
                or "explorer" in tags(cell) or "NBVAL_IGNORE_OUTPUT" in marks):
            continue
        if is_answer(cell):
            wanted.extend(n for n in solution_names(cell.source) if n not in wanted)
        code = "\n".join(line for line in cell.source.splitlines()
                         if not line.lstrip().startswith(("%", "!")))
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, f"<{path} cell {cell.get('id')}>", "exec"), ns)
    if exports is not None:
        return out
    return {n: ns.get(n) for n in wanted}


def answer_sheet(key: NotebookNode, student_id: str, path: str | Path = "<lab>", *,
                 secret: bytes | str) -> dict[str, Any]:
    """The key's answers for one student (hidden ones included): needs the instructor secret.

    The variant comes from HMAC(secret, id), so the sheet is only as secret as
    the secret. Useful for an instructor's answer list and, in tests, to build
    a submission holding literal numbers.
    """
    if not secret:
        raise ValueError("answer_sheet needs the instructor secret (secret=...)")
    lab = (key.metadata.get("disklab") or {}).get("lab") or Path(str(path)).stem
    return run_key(key, student_id, variant_seed(student_id, lab, secret), path)


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, dict):
        return {_plain(k): _plain(x) for k, x in v.items()}
    if isinstance(v, tuple) and hasattr(v, "_fields"):  # a record: no literal spells it
        raise TypeError(f"a {type(v).__name__} record has no literal form")
    if isinstance(v, list | tuple):
        return type(v)(_plain(x) for x in v)
    if v is None or isinstance(v, bool | int | float | str | complex):
        return v
    raise TypeError(f"a {type(v).__name__} has no literal form")


def literal_answers(values: dict[str, Any]) -> str:
    """Python source assigning the given values as literals (``q1 = 3.0``).

    Raises TypeError for a value no literal spells (a record, an object).
    """
    lines = []
    for name, v in values.items():
        text = repr(_plain(v))
        assigned_names(f"{name} = {text}")  # raises SyntaxError if it does not parse
        lines.append(f"{name} = {text}")
    return "\n".join(lines)
