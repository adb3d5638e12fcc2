"""The grader's pytest process for one submission: ``python -P .../_nbval_run.py PYTEST-ARGS``.

Run by path, not as ``simcore.labkit._nbval_run``, so this process imports
nothing of ``simcore`` (numpy, simpy and plotly's theme would cost most of a
second of CPU per submission for nothing): the probe plugin
(:mod:`simcore.labkit._nbval_probe`) is loaded from the file beside this one.
``-P`` keeps this folder off ``sys.path``, so the modules beside it are not
importable by their bare names.

nbval reads notebooks with nbformat, which imports jsonschema, which imports
``rfc3987_syntax`` for its "iri" string format when it is installed; that
module builds a parser from its grammar at import (about a second of CPU).
Notebook schemas have no "iri" field, so it is marked absent here.

With ``DISKLAB_USAGE_FILE`` set, it writes there, as JSON, what the run cost
in CPU seconds: ``kernel_cpu_s``, the kernel's (read from ``/proc`` by the
probe while it lived: Jupyter kills the launcher at the end, so nobody reaps
the kernel), and ``cpu_s``, that plus this process's own and what it reaped.
The file lives in the grader's own folder; the kernel's environment never
carries the variable.
"""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import sys
from pathlib import Path

PROBE_NAME = "disklab_nbval_probe"


def main(argv: list[str]) -> int:
    sys.modules.setdefault("rfc3987_syntax", None)
    spec = importlib.util.spec_from_file_location(
        PROBE_NAME, Path(__file__).resolve().with_name("_nbval_probe.py"))
    probe = importlib.util.module_from_spec(spec)
    sys.modules[PROBE_NAME] = probe
    spec.loader.exec_module(probe)

    import pytest

    code = int(pytest.main(argv, plugins=[probe]))
    usage_file = os.environ.get("DISKLAB_USAGE_FILE")
    if usage_file:
        me, reaped = (resource.getrusage(w) for w in (resource.RUSAGE_SELF,
                                                      resource.RUSAGE_CHILDREN))
        # a kernel that ended by itself was reaped by the launcher, and so is counted in
        # ``reaped`` already; one killed with the launcher only in the probe's reading
        kernel = probe.KERNEL_CPU_S
        total = me.ru_utime + me.ru_stime + max(kernel, reaped.ru_utime + reaped.ru_stime)
        Path(usage_file).write_text(json.dumps({"cpu_s": total, "kernel_cpu_s": kernel}))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
