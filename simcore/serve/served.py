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
