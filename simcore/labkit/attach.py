"""Measurements that travel inside the notebook: a tool's own output, attached where it was made.

A graded measurement (issue 16, item 6) is judged by its consistency with the
student's own measurement file. So that a student hands in one file, the
measuring cell *attaches* the tool's raw output (fio's JSON report, hdparm's
text) to its own output as a display of type :data:`MIME`; saving the notebook
stores it. The grader, on its side, reads those outputs from the submitted file
(:func:`from_notebook`), checks them (:mod:`simcore.labkit.judges`) and puts
them back into the sandboxed run (:func:`restore_source`) before the answer
cells, so that an answer computed from a measurement (``MEASURED.mb_s``) gives
the same number there as on the student's machine, although the grader never
runs the measuring cell itself.

An attachment is a dict: ``kind`` (what was measured, e.g. ``"lab1-mystery"``),
``tool`` (``"fio"``, ``"hdparm"``), ``raw`` (the tool's output, exactly as it
printed it), ``target`` (what was measured: ``"emulated"``, a device) and
``command`` (the command line), and optionally ``served``: a served drive's own
stats for the run (``python -m simcore serve --stats``: its lateness and the order
the connections' first requests arrived in, which Lab 6's prediction uses).
Nothing here makes an attachment trustworthy: anyone can edit a saved notebook. The judges check that the raw output is the
tool's (it parses, its own numbers agree with one another, they are physically
plausible) and that the answer follows from it.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

MIME = "application/vnd.disklab.measurement+json"
MAX_RAW = 400_000  # characters of tool output kept per attachment
FIELDS = ("kind", "tool", "raw", "target", "command")
MAX_SERVED = 50_000  # characters of a served drive's stats (as JSON) kept per attachment

_ATTACHED: dict[str, dict[str, Any]] = {}  # kind -> the latest attachment in this kernel


class AttachmentError(ValueError):
    """An attachment without the fields a judge needs."""


def make(kind: str, tool: str, raw: str, target: str = "", command: str = "",
         served: dict[str, Any] | None = None) -> dict[str, Any]:
    """An attachment (plain data), with clear errors for a missing field or bad ``served``."""
    for name, v in (("kind", kind), ("tool", tool), ("raw", raw)):
        if not isinstance(v, str) or not v.strip():
            raise AttachmentError(f"an attachment needs a non-empty text {name}")
    if len(raw) > MAX_RAW:
        raise AttachmentError(f"the {tool} output is {len(raw):,} characters; at most "
                              f"{MAX_RAW:,} are kept")
    att = {"kind": kind, "tool": tool, "raw": raw, "target": str(target),
           "command": str(command)}
    if served is not None:
        if not isinstance(served, dict):
            raise AttachmentError("a served drive's stats must be a JSON object")
        try:
            text = json.dumps(served, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise AttachmentError(f"a served drive's stats are not plain JSON ({exc})") from exc
        if len(text) > MAX_SERVED:
            raise AttachmentError(f"a served drive's stats are {len(text):,} characters; at "
                                  f"most {MAX_SERVED:,} are kept")
        att["served"] = json.loads(text)  # a copy of plain data
    return att


def attach(kind: str, tool: str, raw: str, target: str = "", command: str = "",
           summary: str = "", served: dict[str, Any] | None = None) -> dict[str, Any]:
    """Show ``raw`` as this cell's attached measurement (saved with the notebook) and keep it.

    ``summary`` is the line a reader sees; the raw output rides along under
    :data:`MIME`. Returns the attachment; :func:`latest` finds it again.
    """
    att = make(kind, tool, raw, target, command, served)
    _ATTACHED[kind] = att
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # outside IPython: nothing to show, the value is still kept
        return att
    if get_ipython() is not None:
        display(bundle(att, summary), raw=True)
    return att


def bundle(att: dict[str, Any], summary: str = "") -> dict[str, Any]:
    """The display data of an attachment: the raw output under :data:`MIME`, a line to read."""
    return {MIME: att, "text/plain": summary or f"attached: {att['tool']} output for "
            f"{att['kind']} ({len(att['raw']):,} characters; saved with the notebook, read by "
            "the grader)"}


def put(nb: Any, cell_id: str, *atts: dict[str, Any]) -> None:
    """Store ``atts`` as the outputs of the cell ``cell_id`` (as saving after running it would).

    No attachment clears the cell's outputs (a notebook saved without its measurement).
    """
    import nbformat

    for cell in nb.cells:
        if cell.get("id") == cell_id:
            cell.outputs = [nbformat.v4.new_output("display_data", data=bundle(a)) for a in atts]
            return
    raise KeyError(f"the notebook has no cell with id {cell_id!r}")


def latest(kind: str) -> dict[str, Any] | None:
    """The last attachment of ``kind`` made (or restored) in this kernel, or None."""
    return _ATTACHED.get(kind)


def forget(kind: str) -> None:
    """Drop this kernel's latest attachment of ``kind`` (a run that must measure afresh)."""
    _ATTACHED.pop(kind, None)


def restore(items: list[dict[str, Any]]) -> None:
    """Make attachments read from a saved notebook the latest of their kinds (the grader's run)."""
    for it in items:
        att = make(it.get("kind", ""), it.get("tool", ""), it.get("raw", ""),
                   it.get("target", ""), it.get("command", ""), it.get("served"))
        _ATTACHED[att["kind"]] = att


def from_notebook(nb: Any) -> list[dict[str, Any]]:
    """Every well-formed attachment stored in a notebook's outputs, the last of each kind.

    Runs on the grader's side on the submitted file; a malformed one is left out (with
    malformed served stats, it is kept without them).
    """
    found: dict[str, dict[str, Any]] = {}
    for cell in nb.get("cells", []):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        for out in cell.get("outputs", []) or []:
            data = out.get("data") if isinstance(out, dict) else None
            if not isinstance(data, dict) or MIME not in data:
                continue
            item = data[MIME]
            if isinstance(item, str):
                try:
                    item = json.loads(item)
                except ValueError:
                    continue
            if not isinstance(item, dict):
                continue
            try:
                att = make(*(item.get(f, "") for f in FIELDS))
            except (AttachmentError, TypeError):
                continue
            with contextlib.suppress(AttachmentError):
                att = make(*(item.get(f, "") for f in FIELDS), item.get("served"))
            found.pop(att["kind"], None)
            found[att["kind"]] = att
    return list(found.values())


def restore_source(items: list[dict[str, Any]]) -> str:
    """The code of the cell the grader runs to put a submission's attachments back."""
    return ("import json as _disklab_json\n"
            "import simcore.labkit.attach as _disklab_attach\n"
            f"_disklab_attach.restore(_disklab_json.loads({json.dumps(items)!r}))")
