"""Run ``python -m simcore serve`` as a child process on a private Unix socket.

The guest command and the tests need a served disk for the length of one job;
a separate process keeps the server's timing away from whatever the caller
does (QEMU under TCG is CPU-bound).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

#: The nice value a client of the served drive (fio) runs at where the process may lower it
#: (root, CAP_SYS_NICE); see :func:`run_client`.
CLIENT_NICE = -10


class ServedDisk:
    """``with ServedDisk(dir, [...serve args]) as s: s.sock`` ... then ``s.summary``."""

    def __init__(self, workdir: str | os.PathLike, args: list[str], start_timeout_s: float = 120):
        self.dir = Path(workdir)
        self.sock = str(self.dir / "disk.sock")
        self.stats = self.dir / "served.json"
        self.args = [*args, "--socket", self.sock, "--stats", str(self.stats)]
        self.start_timeout_s = start_timeout_s
        self.summary: dict[str, Any] = {}
        self.banner = ""

    def __enter__(self) -> ServedDisk:
        self.proc = subprocess.Popen([sys.executable, "-m", "simcore", "serve", *self.args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + self.start_timeout_s
        while not os.path.exists(self.sock):
            if self.proc.poll() is not None:
                raise RuntimeError(f"simcore serve stopped: {self.proc.stderr.read().strip()}")
            if time.monotonic() > deadline:
                self.proc.kill()
                raise RuntimeError(f"simcore serve made no socket in {self.start_timeout_s:.0f} s")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            out, err = self.proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
        self.banner, self.stderr = out.strip(), err.strip()
        if self.stats.exists():
            self.summary = json.loads(self.stats.read_text())


def raise_client_priority(pid: int) -> str:
    """Give process ``pid`` the nice value :data:`CLIENT_NICE` if allowed; the one it runs at."""
    try:
        os.setpriority(os.PRIO_PROCESS, pid, CLIENT_NICE)
    except (AttributeError, PermissionError, OSError):
        return "normal"
    return f"nice {CLIENT_NICE}"


def run_client(cmd: list[str], timeout_s: float) -> tuple[subprocess.CompletedProcess, str]:
    """Run a client of the served drive (fio) to its end: its result and the priority it ran at.

    The client measures wall-clock time too: fio sends its next request when a reply comes,
    so a fio kept waiting for a CPU on a busy machine sends it late, the drive's read-ahead
    fills and its media stops, and fio measures a slower drive than the model, however
    punctual the server (measured here under load: a 2 s sequential run at depth 4 lost 3.5 %
    of its rate while the server's replies were 0.17 ms late on average, fio's resubmissions
    0.6 s late in all). So it runs at a raised priority where the process may ask for one
    (root, CAP_SYS_NICE); elsewhere as before. A nice value, not the server's real-time
    policy: under SCHED_FIFO fio's threads start in the order it creates them, which the
    drive then serves in a fixed cycle (lab 6's readers measured 46 % above the model's
    prediction, which averages over the random orders threads start in). fio sleeps while its
    requests are out (about a tenth of a CPU second for a 2 s run).
    """
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    policy = raise_client_priority(proc.pid)
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err), policy
