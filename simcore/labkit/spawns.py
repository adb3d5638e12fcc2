"""Notice an answer cell that tries to run a program (``os.system``, ``subprocess``, ``os.exec*``).

The sandbox (:mod:`simcore.labkit.sandbox`) already contains such a program: no network, a
read-only file system, a PID namespace that ends with the kernel. But no lab needs one, and a
student who tries deserves to be told, and the instructor to know. The grader's notebook
starts with a cell that calls :func:`watch` in the sandboxed kernel: a Python audit hook
(PEP 578, ``sys.addaudithook``; the events are those listed in the standard library's
"Audit events table") that prints one line ``DISKLAB-SPAWN <kind>`` into the output of the
cell that made the attempt, once per kind and cell, and lets the call go on (blocking it
would change what an honest but unusual notebook does; the sandbox is what stops harm).

The grader reads the line from that cell's record (:func:`kinds_in`), for answer cells only,
and names the kind, one of a fixed few words, in the feedback: never the command, its
arguments or its output. A student can print such a line on purpose; it only ever marks their
own notebook, since each submission runs in a kernel of its own. An audit hook cannot be
removed, but a student can hide its line (redirect the kernel's output); so this is a notice,
not a wall. ``os.fork`` is not watched: ``multiprocessing`` forks honestly, and a fork alone
runs no other program (``os.spawn*``, which forks and then execs in the child, is therefore
not seen).
"""

from __future__ import annotations

import re

MARK = "DISKLAB-SPAWN "
# audit event -> the word the feedback uses for it
EVENTS = {
    "os.system": "os.system",
    "subprocess.Popen": "subprocess",
    "os.exec": "os.exec",
    "os.posix_spawn": "os.posix_spawn",
    "pty.spawn": "pty.spawn",
}
_LINE = re.compile(r"^" + re.escape(MARK) + r"(\S+)\s*$", re.MULTILINE)


def watch() -> None:
    """Install the audit hook in this (IPython) kernel; a no-op outside IPython.

    The line goes to the stream ``sys.stdout`` is when this runs (the kernel's own), so a
    cell that redirects ``sys.stdout`` later does not send it into its own buffer.
    """
    import sys

    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    out = sys.stdout
    seen: set[tuple[object, str]] = set()

    def hook(event: str, _args: tuple) -> None:
        kind = EVENTS.get(event)
        if kind is None:
            return
        where = (getattr(shell, "execution_count", None), kind)
        if where in seen:
            return
        seen.add(where)
        try:
            out.write(f"\n{MARK}{kind}\n")
            out.flush()
        except Exception:  # never let the notice break the call it watches
            pass

    sys.addaudithook(hook)


def kinds_in(stdout: str) -> list[str]:
    """The kinds of program start a cell's output reports, each once, in the fixed words of
    :data:`EVENTS` (anything else on such a line is ignored, so nothing a student printed
    reaches the feedback)."""
    known = set(EVENTS.values())
    found: list[str] = []
    for m in _LINE.finditer(stdout):
        if m.group(1) in known and m.group(1) not in found:
            found.append(m.group(1))
    return found


WATCH_SOURCE = "import simcore.labkit.spawns as _disklab_spawns\n_disklab_spawns.watch()"
