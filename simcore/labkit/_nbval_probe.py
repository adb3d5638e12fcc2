"""A pytest plugin the grader loads next to nbval: one JSON line per cell, as it finishes.

``pytest --nbval-lax -p simcore.labkit._nbval_probe --disklab-probe=cells.jsonl``
appends ``{"cell": N, "outcome": ..., "stdout": ..., "errors": [...],
"message": ...}`` for every notebook cell right after it runs, so a notebook
stopped by the whole-notebook timeout still leaves the results of the cells
that did finish. ``message`` is nbval's one-line reason, never the cell's
source (a hidden check's source must not reach a student's feedback).
"""

from __future__ import annotations

import json

import pytest


def pytest_addoption(parser):
    parser.addoption("--disklab-probe", default=None, help="append per-cell results here")


def _text(outputs, name):
    return "".join(o.get("text", "") for o in outputs
                   if o.get("output_type") == "stream" and o.get("name") == name)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    path = item.config.getoption("--disklab-probe")
    cell = getattr(item, "cell_num", None)
    if not path or cell is None:
        return
    if report.when != "call" and report.passed:
        return
    if report.when == "teardown":
        return
    outputs = getattr(item, "test_outputs", None) or []
    errors = [f"{o.get('ename', '')}: {o.get('evalue', '')}".strip(": ")
              for o in outputs if o.get("output_type") == "error"]
    message = ""
    if call.excinfo is not None and not report.skipped:
        exc = call.excinfo.value
        args = getattr(exc, "args", ())
        if type(exc).__name__ == "NbCellError" and args:
            message = str(args[0])
        else:
            message = f"{type(exc).__name__}: {exc}"
        message = message.strip().splitlines()[0][:300] if message.strip() else ""
    record = {
        "cell": cell,
        "when": report.when,
        "outcome": report.outcome,
        "stdout": _text(outputs, "stdout")[:4000],
        "stderr": _text(outputs, "stderr")[:2000],
        "errors": [e[:500] for e in errors],
        "message": message,
        "seconds": round(report.duration, 3),
    }
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")
