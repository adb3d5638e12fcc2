"""Student versions of labs: solutions out, placeholders in, hidden checks removed.

Every ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` block becomes one
``name = None  # your answer`` line per top-level name the block assigns
(found with :mod:`ast`, so ``q1, q2 = ...`` or ``def q5(...)`` work too) and
the rest of the notebook refers to (a check cell, a plot, a later cell), at
the block's indentation; the solution's own helpers and loop variables get no
placeholder. A block that leaves nothing to fill in becomes
``pass  # your code here``. In markdown cells the block becomes a line
asking for the student's answer. Cells marked hidden
(``{"disklab": {"hidden": true}}``) and ``### BEGIN HIDDEN TESTS`` blocks are
dropped. All outputs are cleared; cell ids are kept and every answer cell is
stamped ``{"disklab": {"answer": <its id>}}`` so the grader can pair it even
if a copy-paste gives it a new id.

A student version is written over an older one only if that file is still
exactly as this module wrote it (its cells' hash is stored in its metadata):
an instructor's edits are never overwritten without ``force``.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from .check import variant_seed
from .labformat import (
    BEGIN_HIDDEN,
    END_HIDDEN,
    GRADING_KEYS,
    MARKDOWN_PLACEHOLDER,
    PLACEHOLDER,
    LabFormatError,
    cell_label,
    disklab_meta,
    inspect_lab,
    is_answer,
    is_check,
    is_hidden,
    read_notebook,
    solution_blocks,
    solution_names,
    tags,
)
from .variants import personalize


def strip_solutions(source: str, where: str = "", markdown: bool = False,
                    keep: set[str] | None = None) -> str:
    """The source with every solution block replaced by its placeholder.

    With ``keep``, only the assigned names in it get a placeholder line.
    """
    blocks = solution_blocks(source, where)
    if not blocks:
        return source
    lines = source.split("\n")
    out: list[str] = []
    pos = 0
    for b, e, indent in blocks:
        out.extend(lines[pos:b])
        if markdown:
            out.append(MARKDOWN_PLACEHOLDER)
        else:
            block = "\n".join(lines[b:e + 1])
            names = solution_names(block, where)
            if keep is not None:
                names = [n for n in names if n in keep]
            if names:
                out.extend(f"{indent}{n} = {PLACEHOLDER}" for n in names)
            else:
                out.append(f"{indent}pass  # your code here")
        pos = e + 1
    out.extend(lines[pos:])
    return "\n".join(out)


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _identifiers(code: str) -> set[str]:
    """The names ``code`` mentions: words outside strings and comments, and inside an
    f-string's replacement fields (a word in a message, such as "race" in a printed
    sentence, asks for no placeholder). Code that does not tokenize (a cell magic's
    body, say) gives every word in it."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return set(_WORD.findall(code))
    out: set[str] = set()
    for tok in tokens:
        if tok.type == tokenize.NAME:
            out.add(tok.string)
        elif tok.type == tokenize.STRING and "f" in _PREFIX.match(tok.string).group(0).lower():
            for field in _FIELD.findall(tok.string):
                out.update(_WORD.findall(field))
    return out


_PREFIX = re.compile(r"[A-Za-z]*")  # a string literal's prefix (f, rb, ...)
_FIELD = re.compile(r"\{([^{}]*)\}")  # an f-string's replacement field


def names_used_outside_solutions(nb: NotebookNode) -> set[str]:
    """Every identifier the code cells mention outside solution blocks (hidden checks too)."""
    used: set[str] = set()
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        lines = cell.source.split("\n")
        inside = {j for b, e, _ in solution_blocks(cell.source, cell_label("", i, cell))
                  for j in range(b, e + 1)}
        used.update(_identifiers("\n".join(ln for j, ln in enumerate(lines) if j not in inside)))
    return used


def strip_hidden_tests(source: str, where: str = "") -> str:
    lines = source.split("\n")
    out, inside = [], False
    for i, line in enumerate(lines):
        if BEGIN_HIDDEN.match(line):
            if inside:
                raise LabFormatError(f"{where}: line {i + 1}: nested BEGIN HIDDEN TESTS")
            inside = True
        elif END_HIDDEN.match(line):
            if not inside:
                raise LabFormatError(f"{where}: line {i + 1}: END HIDDEN TESTS without BEGIN")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise LabFormatError(f"{where}: BEGIN HIDDEN TESTS is never closed")
    return "\n".join(out)


def cells_hash(nb: NotebookNode) -> str:
    """A hash of a notebook's cells (sources, types, ids, metadata), outputs included."""
    data = json.dumps([dict(c) for c in nb.cells], sort_keys=True, default=str)
    return hashlib.sha256(data.encode()).hexdigest()[:16]


def student_version(key: NotebookNode, path: str | Path = "<lab>") -> NotebookNode:
    """The student version of a key (a new notebook; the key is not changed)."""
    info = inspect_lab(key, path, require_outputs=False)
    used = names_used_outside_solutions(key)
    nb = copy.deepcopy(key)
    cells = []
    for i, cell in enumerate(nb.cells):
        where = cell_label(path, i, cell)
        if is_hidden(cell):
            continue
        if cell.cell_type == "code":
            cell.source = strip_hidden_tests(strip_solutions(cell.source, where, keep=used), where)
            cell.outputs = []
            cell.execution_count = None
            if is_answer(cell):
                meta = dict(disklab_meta(cell))
                meta["answer"] = cell.id
                cell.metadata["disklab"] = meta
            elif is_check(cell):  # how the grader compares (alternatives, tolerance) stays home
                cell.metadata["disklab"] = {k: v for k, v in disklab_meta(cell).items()
                                            if k not in GRADING_KEYS}
        elif cell.cell_type == "markdown":
            cell.source = strip_solutions(cell.source, where, markdown=True)
        cell.metadata.pop("execution", None)
        cells.append(cell)
    nb.cells = cells
    kernelspec = key.metadata.get("kernelspec")
    language = key.metadata.get("language_info")
    nb.metadata = NotebookNode()
    if kernelspec:
        nb.metadata["kernelspec"] = copy.deepcopy(kernelspec)
    # Only the language's name, knowingly: JupyterLab (4.x, NotebookPanel._updateLanguage) puts
    # the kernel's whole language_info into the notebook when a kernel starts, and marks it
    # changed unless the stored one is equal field for field; that includes "version", the
    # Python of the machine the key was run on (3.11.7 here; Binder's runtime.txt asks only for
    # 3.11). Copying the key's would embed one machine's patch release and still mark the
    # notebook changed everywhere else, so a student version carries no machine's data.
    if language:
        nb.metadata["language_info"] = {"name": language.get("name", "python")}
    nb.metadata["disklab"] = {"lab": info.lab, "version": "student"}
    return nb


def _stamp(nb: NotebookNode) -> NotebookNode:
    nb.metadata["disklab"]["cells_sha256"] = cells_hash(nb)
    return nb


def untouched(path: Path) -> bool:
    """True if ``path`` is a student version exactly as :func:`write_student` wrote it."""
    try:
        nb = nbformat.read(str(path), as_version=4)
    except Exception:
        return False
    meta = nb.metadata.get("disklab", {})
    return isinstance(meta, dict) and meta.get("cells_sha256") == cells_hash(nb)


@dataclass
class Written:
    path: Path
    lab: str
    student_id: str | None = None


def _write(nb: NotebookNode, dest: Path, force: bool) -> None:
    if dest.exists() and not force and not untouched(dest):
        raise FileExistsError(f"{dest} exists and was changed since it was generated; "
                              "move it away or pass --force")
    dest.parent.mkdir(parents=True, exist_ok=True)
    nbformat.validate(nb)
    tmp = dest.with_name(dest.name + ".tmp")
    nbformat.write(nb, str(tmp))
    tmp.replace(dest)


def write_student(key_path: str | Path, out_dir: str | Path, *, roster: list[str] | None = None,
                  force: bool = False, secret: bytes | None = None) -> list[Written]:
    """Write the student version of one lab into ``out_dir``.

    Without a roster: ``out_dir/<lab>.ipynb``. With a roster: one copy per
    student, ``out_dir/<id>/<lab>.ipynb``, with ``STUDENT_ID`` and the literal
    ``SEED`` (the public workload seed, one-way from HMAC of the instructor
    ``secret``, required) set in the
    parameters cell and ``disklab.student_id`` in the metadata, so each
    student opens their own variant; the secret itself never leaves.
    """
    key_path = Path(key_path)
    key = read_notebook(key_path)
    generic = student_version(key, key_path)
    written: list[Written] = []
    if not roster:
        dest = Path(out_dir) / key_path.name
        _write(_stamp(generic), dest, force)
        return [Written(dest, key_path.stem)]
    if not secret:
        raise ValueError("personal handouts need the instructor secret")
    lab = generic.metadata["disklab"]["lab"]
    for sid in roster:
        nb = personalize(copy.deepcopy(generic), sid, variant_seed(sid, lab, secret))
        dest = Path(out_dir) / safe_name(sid) / key_path.name
        _write(_stamp(nb), dest, force)
        written.append(Written(dest, key_path.stem, sid))
    return written


def stale_student_versions(keys: list[Path], out_dir: Path) -> list[str]:
    """Keys whose student version in ``out_dir`` is missing or differs from a fresh one."""
    stale = []
    for key_path in keys:
        dest = Path(out_dir) / key_path.name
        fresh = _stamp(student_version(read_notebook(key_path), key_path))
        if not dest.exists():
            stale.append(f"{dest} (missing)")
            continue
        have = nbformat.read(str(dest), as_version=4)
        if cells_hash(have) != cells_hash(fresh) or have.metadata.get("disklab") != \
                fresh.metadata.get("disklab"):
            stale.append(f"{dest} (differs from {key_path}; run make student)")
    return stale


def safe_name(student_id: str) -> str:
    """A file-system-safe form of a student id."""
    keep = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in student_id.strip())
    return keep.strip(".") or "_"


def find_labs(paths: list[str | Path]) -> list[Path]:
    """Lab notebooks among ``paths`` (files, or folders searched one level deep)."""
    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found.extend(sorted(q for q in p.glob("*.ipynb") if not q.name.startswith(".")))
        elif p.exists():
            found.append(p)
        else:
            raise FileNotFoundError(f"{p}: no such file or folder")
    return found


def is_lab(nb: NotebookNode) -> bool:
    """Whether a notebook claims to be a lab (it has a parameters or check cell)."""
    return any("parameters" in tags(c) or "check" in tags(c) for c in nb.cells)
