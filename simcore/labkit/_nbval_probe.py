"""A pytest plugin the grader loads next to nbval: one JSON line per cell, as it finishes.

``pytest --nbval-lax -p simcore.labkit._nbval_probe --disklab-probe=cells.jsonl``
appends ``{"cell": N, "outcome": ..., "stdout": ..., "errors": [...],
"message": ..., "cpu_s": ...}`` for every notebook cell right after it runs, so a notebook
stopped by the whole-notebook timeout still leaves the results of the cells
that did finish. ``message`` is nbval's one-line reason, never the cell's
source (a hidden check's source must not reach a student's feedback).
``cpu_s`` is the CPU time the kernel's process tree used while the cell ran
(its reading at the cell's end minus at its start; 0 when unknown), so the
grader can tell which cell used up the kernel's CPU-time limit.

nbval waits for a cell's reply for the whole cell timeout even when the
kernel has died (``os._exit``, a segfault, the OOM killer). The probe wraps
that wait so it looks at the kernel once a second and fails the cell at once
with "the Python kernel died", instead of reporting a timeout later. After a
timeout nbval marks the following cells "xfail"; the probe records those that
fail as failed, with their own reason.

Both of nbval's waits on the kernel, the cell's limit (``--nbval-cell-timeout``)
and its own five seconds for a cell's outputs after the reply or an interrupt,
count the kernel's own time only (:func:`wait_own_time`): time its threads spent
runnable but waiting for a CPU (their run-queue delay, from
``/proc/PID/task/TID/schedstat``) is added to the limit. So a loaded machine
cannot stop an honest cell, which would cost its question (or, with a kernel
that could not answer the interrupt in time, the kernel), while a cell that
sleeps is stopped as before and a busy loop still meets the CPU limit.

The grader starts pytest with this file as a plugin loaded by path
(:mod:`simcore.labkit._nbval_run`), so it imports nothing of ``simcore``: the
sandbox's kernel command comes ready-made in ``--disklab-sandbox``.
"""

from __future__ import annotations

import json
import os
import time
from queue import Empty

import pytest


class KernelDied(RuntimeError):
    """The kernel process ended while a cell was running."""


def pytest_addoption(parser):
    parser.addoption("--disklab-probe", default=None, help="append per-cell results here")
    parser.addoption("--disklab-sandbox", default=None,
                     help='start the kernel with this JSON: {"argv": the sandboxed kernel\'s '
                     'command, "workdir": its folder, "cpu_limit_exit": the launcher\'s status '
                     'for a kernel stopped by its CPU limit}')


def pytest_configure(config):
    if config.getoption("--disklab-probe"):
        _watch_for_kernel_death()
    sandbox = config.getoption("--disklab-sandbox")
    if sandbox:
        _start_kernels_in_sandbox(sandbox)


_CPU_LIMIT_EXIT: int | None = None


def _start_kernels_in_sandbox(config_json: str) -> None:
    """Make nbval start its kernel through the sandbox launcher, over Unix sockets.

    The kernel (and only the kernel) runs behind the sandbox; nbval, this
    probe and its records stay in the grader's process, out of its reach.
    """
    import ipykernel.kernelspec
    import nbval.kernel as nk
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
    from jupyter_client.manager import KernelManager

    global _CPU_LIMIT_EXIT
    cfg = json.loads(config_json)
    argv, workdir = list(cfg["argv"]), cfg["workdir"]
    _CPU_LIMIT_EXIT = cfg.get("cpu_limit_exit")

    class SandboxSpecs(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return KernelSpec(resource_dir=ipykernel.kernelspec.RESOURCES, argv=argv,
                              display_name="disklab sandbox", language="python")

    def start_new_kernel(startup_timeout=60, kernel_name="python", **kwargs):
        km = KernelManager(kernel_name=kernel_name, kernel_spec_manager=SandboxSpecs(),
                           transport="ipc", ip=f"{workdir}/kernel")
        km.connection_file = f"{workdir}/kernel.json"
        kwargs["cwd"] = workdir
        km.start_kernel(**kwargs)
        kc = km.client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=startup_timeout)
        except RuntimeError:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
            raise
        return km, kc

    nk.start_new_kernel = start_new_kernel


def _watch_for_kernel_death() -> None:
    try:
        from nbval.kernel import RunningKernel
    except Exception:
        return
    original = getattr(RunningKernel, "await_reply", None)
    if original is None or getattr(original, "_disklab", False):
        return

    def await_reply(self, msg_id, timeout=None):
        if timeout is None:
            return original(self, msg_id, timeout)

        def dead() -> None:
            note_kernel_cpu(self)
            if not self.is_alive():
                if _CPU_LIMIT_EXIT is not None and _exit_status(self) == _CPU_LIMIT_EXIT:
                    raise KernelDied("the Python kernel died while this cell ran: it used "
                                     "up its CPU-time limit") from None
                raise KernelDied("the Python kernel died while this cell ran (os._exit, "
                                 "a crash, or out of memory)") from None

        return wait_own_time(self, float(timeout),
                             lambda t: original(self, msg_id, timeout=t), dead)

    get_message = RunningKernel.get_message

    def get_iopub(self, stream, timeout=None):
        """nbval's wait for a cell's outputs (5 s after its reply, or after an interrupt)."""
        if stream != "iopub" or timeout is None:
            return get_message(self, stream, timeout=timeout)
        return wait_own_time(self, float(timeout),
                             lambda t: get_message(self, stream, timeout=t))

    stop = RunningKernel.stop

    def stop_noting_why(self):
        """nbval stops the kernel when it did not answer the interrupt at a cell's time limit;
        note first whether it was still running then, or had ended, and how."""
        if getattr(self, "_disklab_at_stop", None) is None:
            try:
                alive = bool(self.is_alive())
            except Exception:
                alive = True
            self._disklab_at_stop = (alive, None if alive else _exit_status(self))
        return stop(self)

    await_reply._disklab = True
    RunningKernel.await_reply = await_reply
    RunningKernel.get_message = get_iopub
    RunningKernel.stop = stop_noting_why


QUICK_S = 0.05  # how long a wait may take before the kernel's run-queue delay is read


def wait_own_time(kernel, timeout: float, attempt, between=None):
    """``attempt(t)`` (which raises ``Empty`` after ``t`` s without an answer) until it answers,
    for ``timeout`` seconds of the kernel's own time; then raise ``Empty``.

    The time the kernel spent waiting for a CPU does not count (:class:`Held`): on a busy
    machine an honest cell runs as long as it needs, while a cell that sleeps, or waits for
    something that never comes, is stopped after ``timeout`` s as on an idle one. A busy loop
    runs on a CPU, so its time counts, and its kernel's CPU limit stops it in any case.
    ``between()`` runs after each second without an answer. An answer that comes at once, as
    most do (a cell's outputs, one message a call), costs no reading of /proc.
    """
    start = time.monotonic()
    try:
        return attempt(min(QUICK_S, timeout))
    except Empty:
        pass
    held = Held(kernel)  # what the kernel waits from here on (a moment late: less, never more)
    while True:
        left = start + timeout + held.seconds() - time.monotonic()
        if left <= 0:
            raise Empty
        try:
            return attempt(min(1.0, left))
        except Empty:
            if between is not None:
                between()


def _kernel_pids(kernel) -> list[int]:
    """The process Jupyter started for the kernel (the sandbox launcher, or the kernel) and its
    children (the sandboxed kernel), not theirs: each process has a CPU limit of its own."""
    try:
        pid = int(kernel.km.provisioner.process.pid)
    except (AttributeError, TypeError, ValueError):
        return []
    try:
        return [pid, *_children(pid)]
    except OSError:
        return [pid]


def run_delays(pids: list[int]) -> dict[int, float]:
    """Seconds each thread of ``pids`` has spent runnable but waiting for a CPU (the second field
    of /proc/PID/task/TID/schedstat; Linux, zero where the kernel does not keep it)."""
    out: dict[int, float] = {}
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as fh:
                    out[int(tid)] = int(fh.read().split()[1]) / 1e9
            except (OSError, ValueError, IndexError):
                continue
    return out


class Held:
    """How long a kernel has been kept waiting for a CPU since this was made: the largest growth
    of any of its threads' run-queue delay (a thread made since counts from zero).

    A thread waits there only while it could run, never while it sleeps; the threads of one
    process share its CPU limit, so a notebook that keeps them runnable to stretch its time
    burns that limit.
    """

    def __init__(self, kernel) -> None:
        self.pids = _kernel_pids(kernel)
        self.start = run_delays(self.pids)
        self.most = 0.0

    def seconds(self) -> float:
        now = run_delays(self.pids)
        grown = max((d - self.start.get(t, 0.0) for t, d in now.items()), default=0.0)
        self.most = max(self.most, grown)  # a thread that ended keeps what it waited
        return self.most


KERNEL_CPU_S = 0.0  # the kernel's CPU time as last read (the runner reports it)
_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int | str) -> list[str]:
    """Fields 3 onwards of /proc/PID/stat (state, ppid, ...; 14-17 are the CPU times)."""
    with open(f"/proc/{pid}/stat") as fh:
        stat = fh.read()
    return stat[stat.rindex(")") + 2:].split()


def _children(pid: int) -> list[int]:
    try:
        out = []
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                out.extend(int(c) for c in fh.read().split())
        return out
    except FileNotFoundError:  # a kernel built without /proc/PID/task/TID/children
        kids = []
        for name in os.listdir("/proc"):
            try:
                if name.isdigit() and int(_stat(name)[1]) == pid:
                    kids.append(int(name))
            except (OSError, ValueError, IndexError):
                continue
        return kids


def _cpu_of_tree(pid: int) -> float:
    """CPU seconds of a process and its live descendants (and what they reaped), from /proc."""
    total, todo, seen = 0.0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            total += sum(int(x) for x in _stat(p)[11:15]) / _TICK
            todo.extend(_children(p))
        except (OSError, ValueError):
            continue
    return total


def note_kernel_cpu(kernel) -> None:
    """Read the CPU time of the kernel's process tree (the launcher's, in a sandbox)."""
    global KERNEL_CPU_S
    try:
        pid = kernel.km.provisioner.process.pid
    except AttributeError:
        return
    KERNEL_CPU_S = max(KERNEL_CPU_S, _cpu_of_tree(pid))


def _exit_status(kernel) -> int | None:
    """The exit status of the process Jupyter started for the kernel (the sandbox launcher)."""
    try:
        return kernel.km.provisioner.process.poll()
    except AttributeError:
        return None


NOT_INTERRUPTED = "Failed to interrupt"  # in nbval's message when it had to stop the kernel
STOPPED_RUNNING = "[the kernel was still running: stopped at the time limit]"


def why_stopped(message: str, at_stop: tuple[bool, int | None] | None) -> str:
    """nbval's message for a cell whose kernel it stopped after the cell's time limit, made to
    say what happened in the seconds it waited for the interrupt to take: the kernel was
    still running (a loop that ignores the interrupt: a time limit), or it had died meanwhile,
    of its CPU-time limit (a busy loop near the end of its CPU time) or of something else.
    Without this, all three read "did not answer an interrupt, or ended the kernel"."""
    if NOT_INTERRUPTED not in message or at_stop is None:
        return message
    alive, status = at_stop
    if alive:
        return f"{message} {STOPPED_RUNNING}"
    if _CPU_LIMIT_EXIT is not None and status == _CPU_LIMIT_EXIT:
        return ("KernelDied: the Python kernel died while this cell ran: it used up its "
                "CPU-time limit (after the cell's time limit had passed)")
    return ("KernelDied: the Python kernel died while this cell ran (os._exit, a crash, or "
            "out of memory), after the cell's time limit had passed")


def _kernel_of(item):
    return getattr(getattr(item, "parent", None), "kernel", None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """Note the kernel's CPU time as the cell starts (nbval started the kernel in setup)."""
    kernel = _kernel_of(item)
    if kernel is not None and item.config.getoption("--disklab-probe"):
        note_kernel_cpu(kernel)
        item._disklab_cpu_start = KERNEL_CPU_S
    yield


def _text(outputs, name):
    return "".join(o.get("text", "") for o in outputs
                   if o.get("output_type") == "stream" and o.get("name") == name)


SPAWN_MARK = "DISKLAB-SPAWN "  # simcore.labkit.spawns.MARK (this file imports no simcore)


def _stdout(outputs) -> str:
    """A cell's stdout: short, except the answer lines an export cell prints; the lines that
    say the cell tried to run a program (:mod:`simcore.labkit.spawns`) are kept wherever
    they were."""
    text = _text(outputs, "stdout")
    if "DISKLAB-ANSWER " in text:
        return text[-250_000:]
    if SPAWN_MARK in text[4000:]:
        marks = {ln.strip() for ln in text[4000:].splitlines() if ln.startswith(SPAWN_MARK)}
        return text[:4000] + "\n" + "\n".join(sorted(marks))[:1000] + "\n"
    return text[:4000]


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
    kernel = _kernel_of(item)
    if kernel is not None:
        note_kernel_cpu(kernel)
    start = getattr(item, "_disklab_cpu_start", None)
    cpu_s = max(0.0, KERNEL_CPU_S - start) if report.when == "call" and start is not None else 0.0
    outputs = getattr(item, "test_outputs", None) or []
    errors = [f"{o.get('ename', '')}: {o.get('evalue', '')}".strip(": ")
              for o in outputs if o.get("output_type") == "error"]
    xfailed = report.skipped and hasattr(report, "wasxfail")
    message = ""
    if call.excinfo is not None and (not report.skipped or xfailed):
        exc = call.excinfo.value
        args = getattr(exc, "args", ())
        if type(exc).__name__ == "NbCellError" and args:
            message = str(args[0])
        else:
            message = f"{type(exc).__name__}: {exc}"
        message = message.strip().splitlines()[0][:300] if message.strip() else ""
        message = why_stopped(message, getattr(kernel, "_disklab_at_stop", None))
    record = {
        "cell": cell,
        "when": report.when,
        "outcome": "failed" if xfailed else report.outcome,
        "stdout": _stdout(outputs),
        "stderr": _text(outputs, "stderr")[:2000],
        "errors": [e[:500] for e in errors],
        "message": message,
        "seconds": round(report.duration, 3),
        "cpu_s": round(cpu_s, 3),
    }
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")
