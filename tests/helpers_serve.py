"""Start ``python -m simcore serve`` on a Unix socket for a test, and stop it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


class Served:
    """A server process; ``stop()`` ends it with SIGTERM and returns its log rows."""

    def __init__(self, tmp: Path, *args: str):
        self.sock = str(tmp / "disk.sock")
        self.log = tmp / "served.csv"
        self.stats = tmp / "served.json"
        env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "simcore", "serve", "--socket", self.sock,
             "--log", str(self.log), "--stats", str(self.stats), *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=str(tmp))
        deadline = time.monotonic() + 120  # a busy machine imports slowly
        while not os.path.exists(self.sock):
            if self.proc.poll() is not None:
                raise RuntimeError(f"simcore serve exited: {self.proc.stderr.read()}")
            if time.monotonic() > deadline:
                self.proc.kill()
                raise RuntimeError("simcore serve did not create its socket in 120 s")
            time.sleep(0.05)
        self.uri = f"nbd+unix:///?socket={self.sock}"
        self.signalled = False

    def terminate(self) -> None:
        """SIGTERM, once: a second one could land after the server's loop has ended."""
        if not self.signalled and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        self.signalled = True

    def stop(self) -> list[dict]:
        from simcore.serve import read_log

        self.terminate()
        _out, err = self.proc.communicate(timeout=120)
        assert self.proc.returncode == 0, err
        self.stderr = err
        self.summary = json.loads(self.stats.read_text())
        return read_log(str(self.log))


def fio(uri: str, *args: str, cwd: str | None = None) -> dict:
    """Run Debian's fio with its nbd engine against ``uri``; return its JSON report."""
    # as root, fio gets a real-time slot like the server's, so a busy machine delays it less
    rt = ["chrt", "-f", "5"] if os.geteuid() == 0 and shutil.which("chrt") else []
    cmd = [*rt, "fio", "--ioengine=nbd", f"--uri={uri}", "--output-format=json", *args]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=cwd)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}\n{res.stdout}"
    text = res.stdout[res.stdout.index("{"):]
    return json.loads(text)
