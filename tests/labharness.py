"""JupyterLab in headless Chromium, driven as a student would: shared by the lab browser tests.

`lab_server` starts a JupyterLab on 127.0.0.1 with its own token, settings and workspace
folders (nothing from the user's home), and `open_lab` opens a page in Playwright with the app
exposed (``window.jupyterapp``) so a test can run cells and ask the kernel what it holds. Every
network request beyond loopback is refused, so a page that needs the internet fails here.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-dev-shm-usage"]
START_TIMEOUT_S = 180  # a busy 2-core machine can take a minute to start JupyterLab


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def lab_server(python: str, root: Path, state: Path, env: dict | None = None,
               args: list[str] | None = None):
    """A JupyterLab serving ``root``; yields ``(base_url, token)``.

    ``state`` holds this server's user settings, workspaces and runtime files, so runs never
    share state with each other or with the user's own JupyterLab.
    """
    port, token = free_port(), secrets.token_hex(16)
    for sub in ("config", "user-settings", "workspaces", "runtime"):
        (state / sub).mkdir(parents=True, exist_ok=True)
    full_env = dict(os.environ, JUPYTER_CONFIG_DIR=str(state / "config"),
                    JUPYTERLAB_SETTINGS_DIR=str(state / "user-settings"),
                    JUPYTERLAB_WORKSPACES_DIR=str(state / "workspaces"),
                    JUPYTER_RUNTIME_DIR=str(state / "runtime"), JUPYTER_PLATFORM_DIRS="1")
    full_env.pop("JUPYTER_PATH", None)
    full_env.update(env or {})
    cmd = [python, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           "--LabApp.expose_app_in_browser=True", "--ServerApp.disable_check_xsrf=False",
           "--allow-root", *(args or [])]
    log = open(state / "server.log", "w")  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(cmd, env=full_env, stdout=log, stderr=subprocess.STDOUT,
                            cwd=str(root))
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited: {(state / 'server.log').read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("JupyterLab did not start in "  # noqa: B904
                                       f"{START_TIMEOUT_S} s: {(state / 'server.log').read_text()[-3000:]}")
                time.sleep(0.5)
        yield base, token
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


class LabPage:
    """One Playwright page on a JupyterLab, with helpers to run cells and ask the kernel."""

    def __init__(self, browser, width: int = 1280, height: int = 900):
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.errors: list[str] = []
        self.blocked: list[str] = []
        self.ws_bytes = 0
        self.page.route("**/*", self._route)
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error"
                     else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("websocket", self._on_ws)

    def _route(self, r):
        host = urlparse(r.request.url).hostname or ""
        if r.request.url.startswith(("data:", "blob:")) or host in ("127.0.0.1", "localhost"):
            r.continue_()
        else:
            self.blocked.append(r.request.url)
            r.abort()

    def _on_ws(self, ws):
        def count(payload):
            self.ws_bytes += len(payload) if isinstance(payload, bytes) else len(
                payload.encode("utf-8"))
        ws.on("framereceived", count)

    def goto(self, url: str) -> None:
        self.page.goto(url, wait_until="load", timeout=120_000)
        self.page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell",
                                    timeout=120_000)

    def wait_for_notebook(self) -> None:
        """Until the current document is a notebook with a kernel that is idle."""
        self.page.wait_for_function(
            """() => { try {
                 const w = window.jupyterapp.shell.currentWidget;
                 const s = w && w.sessionContext && w.sessionContext.session;
                 const k = s && s.kernel;  // read once: the session may change between reads
                 return !!(w && w.content && w.content.widgets && k
                   && k.connectionStatus === 'connected' && k.status === 'idle');
               } catch (e) { return false; } }""",
            timeout=180_000)

    def current_kind(self) -> str:
        """'notebook' for a notebook panel, else the widget's class names (editor, ...)."""
        return self.page.evaluate(
            """() => { const w = window.jupyterapp.shell.currentWidget;
                 if (!w) return 'none';
                 return w.node.classList.contains('jp-NotebookPanel') ? 'notebook'
                   : Array.from(w.node.classList).join(' '); }""")

    def kernel_status(self) -> str:
        return self.page.evaluate(
            "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status")

    def run_all(self, timeout_s: float = 600, stall_s: float = 60) -> str:
        """Run every cell (as Run > Run All Cells does) and wait until none is left pending.

        Returns how the run ended (see :meth:`_execute`); callers check what ran.
        """
        return self._execute("notebook:run-all-cells", None, timeout_s, stall_s)

    def run_cell(self, index: int, timeout_s: float = 300, stall_s: float = 60) -> str:
        """Run cell ``index`` (as Shift+Enter does) and wait until it has run."""
        return self._execute("notebook:run-cell", index, timeout_s, stall_s)

    def _execute(self, command: str, index: int | None, timeout_s: float, stall_s: float) -> str:
        """Start ``command`` on the notebook and wait for it by polling the notebook's models.

        The command's promise settles when the last cell has run, but in CI under load it once
        never settled (a test hung for 15 minutes), and twice Run All left cells unrun with no
        error anywhere. So the promise is not awaited. Polling the models (windowing hides the
        prompts of cells out of view) ends the wait when the promise has settled, or when every
        watched code cell with source has a new execution count and the kernel has been idle
        for 3 s, or when the kernel has been idle with nothing running and no count moving for
        ``stall_s`` ("stalled"). Returns which; a real hang fails after ``timeout_s`` with the
        notebook's state.
        """
        self.page.evaluate(
            """([command, index]) => {
                 const nb = window.jupyterapp.shell.currentWidget.content;
                 if (index !== null) { nb.activeCellIndex = index; nb.deselectAll(); }
                 const watched = nb.widgets.filter((c, i) => c.model.type === 'code'
                                                   && (index === null || i === index));
                 window.__run = {state: 'running', sig: '', since: performance.now(), index,
                                 before: watched.map(c => String(c.model.executionCount)).join()};
                 window.jupyterapp.commands.execute(command).then(
                   () => { window.__run.state = 'settled'; },
                   (e) => { window.__run.state = 'rejected: ' + e; }); }""", [command, index])
        try:
            handle = self.page.wait_for_function(
                """(stallMs) => { try {
                     const r = window.__run;
                     const w = window.jupyterapp.shell.currentWidget;
                     const k = w.sessionContext.session && w.sessionContext.session.kernel;
                     if (!k) return false;  // between sessions (JupyterLab swaps them)
                     const code = w.content.widgets.filter(c => c.model.type === 'code');
                     const watched = w.content.widgets.filter((c, i) => c.model.type === 'code'
                                                      && (r.index === null || i === r.index));
                     const running = code.some(c => c.model.executionState === 'running');
                     const idle = !running && k.status === 'idle';
                     const counts = watched.map(c => String(c.model.executionCount)).join();
                     const sig = counts + (idle ? '' : ' busy');
                     if (sig !== r.sig) { r.sig = sig; r.since = performance.now(); }
                     if (!idle) return false;
                     if (r.state !== 'running') return r.state;
                     const quiet = performance.now() - r.since;
                     const unrun = watched.some(c => c.model.sharedModel.getSource().trim()
                                                     && c.model.executionCount === null);
                     // counts that moved since the start: this run, not an earlier one
                     if (!unrun && counts !== r.before && quiet > 3000) return 'all ran';
                     return quiet > stallMs ? 'stalled' : false;
                   } catch (e) { return false; } }""",
                arg=stall_s * 1000, timeout=timeout_s * 1000, polling=500)
        except Exception as exc:
            raise AssertionError(f"{command} did not finish in {timeout_s:.0f} s: "
                                 f"{self._run_state()}") from exc
        how = handle.json_value()
        self.wait_idle(timeout_s)
        return how

    def _run_state(self) -> str:
        """The kernel's status and the cells not run, for a failure message."""
        try:
            return self.page.evaluate(
                """() => { const w = window.jupyterapp.shell.currentWidget;
                     const k = w.sessionContext.session && w.sessionContext.session.kernel;
                     const code = w.content.widgets.map((c, i) => [i, c.model])
                       .filter(([, m]) => m.type === 'code');
                     return JSON.stringify({promise: window.__run && window.__run.state,
                       kernel: k ? k.status + '/' + k.connectionStatus : 'none',
                       running: code.filter(([, m]) => m.executionState === 'running')
                                    .map(([i]) => i),
                       unrun: code.filter(([, m]) => m.executionCount === null
                                          && m.sharedModel.getSource().trim())
                                  .map(([i]) => i)}); }""")
        except Exception as exc:  # the page itself is gone
            return f"(state unreadable: {exc})"

    def wait_idle(self, timeout_s: float) -> None:
        self.page.wait_for_timeout(300)
        handle = self.page.wait_for_function(
            """() => { try {
                 const w = window.jupyterapp.shell.currentWidget;
                 const s = w.sessionContext.session;
                 const k = s && s.kernel;  // read once: the session may change between reads
                 if (!k) return false;  // between sessions (JupyterLab swaps them): not yet
                 const pending = w.content.widgets.some(c => c.model.type === 'code'
                   && (c.model.executionState === 'running'
                       || (c.promptNode && c.promptNode.textContent.includes('*'))));
                 return (!pending && k.status === 'idle') ? 'idle' : false;
               } catch (e) { return false; } }""",
            timeout=timeout_s * 1000, polling=200)
        assert handle.json_value() == "idle"

    def cells(self) -> list[dict]:
        return self.page.evaluate(
            """() => window.jupyterapp.shell.currentWidget.content.widgets.map(c => ({
                 type: c.model.type, source: c.model.sharedModel.getSource(),
                 count: c.model.type === 'code' ? c.model.executionCount : null,
                 errors: c.model.type === 'code' ? c.model.outputs.toJSON()
                   .filter(o => o.output_type === 'error').map(o => o.ename + ': ' + o.evalue) : []
               }))""")

    def kernel(self, code: str, timeout_s: float = 120) -> str:
        """Run ``code`` silently in the notebook's kernel; return what it printed."""
        return self.page.evaluate(
            """async (code) => {
                 const k = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
                 let out = '';
                 const f = k.requestExecute({code, silent: false, store_history: false});
                 f.onIOPub = (msg) => {
                   if (msg.header.msg_type === 'stream') out += msg.content.text;
                   if (msg.header.msg_type === 'error') out += 'ERROR ' + msg.content.ename
                     + ': ' + msg.content.evalue;
                 };
                 await f.done;
                 return out; }""", code)

    def kernel_json(self, code: str):
        text = self.kernel(code)
        try:
            return json.loads(text)
        except ValueError as exc:
            raise AssertionError(f"kernel said: {text[:2000]}") from exc

    def close(self) -> None:
        self.page.close()
