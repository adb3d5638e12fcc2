"""Build the Jupyter Book and fail loudly if any chapter failed to execute.

First runs every experiment in full mode once, into the results cache
(:mod:`simcore.experiments.results`, ``_build/results``, keyed by a hash of the code): the
chapters and the status page read it, and so do the tests that ``make test`` runs after the
build, so the numbers the reader sees are the numbers that are tested, computed once.

The launch buttons point at the repository chosen by ``tools/repo_url.py`` (``REPO_URL``, else
the origin remote, else ``_config.yml``): the build writes ``_build/_config.yml`` with that URL
and builds with it, and rewrites the README's Binder badge to match.

Then executes every chapter afresh, in parallel on ``$DISKLAB_JOBS`` processes (default: every
core, as for the results), into an empty execution cache that jupyter-book reads in myst-nb's
``cache`` mode (``tools/book_exec.py``); a chapter that fails fails the build, naming the cell.

Sets ``DISKLAB_BOOK=1`` so :func:`simcore.viz.show` emits figures as HTML that
uses the book's own plotly.js (rendering offline), then scans the build log,
because a chapter whose execution fails must fail the build.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import book_exec
import repo_url

BAD = ("Executing notebook failed", "execution failed", "CellExecutionError",
       "nb_execution_raise_on_error", "Traceback (most recent call last)")


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, DISKLAB_BOOK="1", PYTHONHASHSEED="0")
    jb = Path(sys.executable).with_name("jupyter-book")
    shutil.rmtree(root / "_build" / "html", ignore_errors=True)  # no stale pages survive
    url, source = repo_url.resolve(root)
    config = repo_url.configured(root)
    config["repository"]["url"] = url
    # jupyter-book resolves local extensions against the config file's folder: make them absolute
    ext = config.get("sphinx", {}).get("local_extensions") or {}
    for name, path in ext.items():
        ext[name] = str((root / path).resolve())
    # the chapters run before Sphinx reads them (book_exec), into a cache emptied on every build
    cache = root / "_build" / ".jupyter_cache"
    config["execute"].update(execute_notebooks="cache", cache=str(cache))
    config["sphinx"]["config"]["disklab_exec_times"] = str(root / "_build" / "exec_times.json")
    (root / "_build").mkdir(exist_ok=True)
    built_config = root / "_build" / "_config.yml"
    built_config.write_text(yaml.safe_dump(config, sort_keys=False))
    print(f"launch buttons and README badge: {url} (from {source})")
    if repo_url.update_readme(url, config["repository"].get("branch", "main"), root / "README.md"):
        print("README.md: the Binder badge now points there (commit it)")
    t0 = time.time()
    fill = subprocess.run([sys.executable, "-m", "simcore", "reproduce", "--fill-cache"], cwd=root,
                          env=env, capture_output=True, text=True)
    sys.stdout.write(fill.stdout)
    if fill.returncode != 0:
        sys.stdout.write(fill.stderr[-6000:])
        print("\nbook build FAILED: an experiment's full run failed", file=sys.stderr)
        return 1
    print(f"experiments' full runs ready in {time.time() - t0:.0f} s", flush=True)
    try:
        return _build(root, jb, built_config, config, cache, env, t0)
    finally:
        shutil.rmtree(cache, ignore_errors=True)  # no outputs survive into the next build


def _build(root: Path, jb: Path, built_config: Path, config: dict, cache: Path,
           env: dict[str, str], t0: float) -> int:
    from simcore.experiments.results import jobs

    failed = book_exec.prepare(root, cache, config, env, jobs(),
                               log=lambda line: print(line, flush=True))
    if failed:
        report = "\n\n".join(f"{Path(r.path).relative_to(root)}: {r.error}" for r in failed)
        (root / "_build" / "build.log").write_text(report)
        sys.stdout.write(report[-6000:] + "\n")
        names = ", ".join(str(Path(r.path).relative_to(root)) for r in failed)
        print(f"\nbook build FAILED: a chapter failed to execute ({names})", file=sys.stderr)
        return 1
    print(f"chapters executed in {time.time() - t0:.0f} s", flush=True)
    # --all: simcore may have changed even where a chapter did not, so re-read every page
    proc = subprocess.run([str(jb), "build", str(root), "--all", "--builder", "html",
                           "--config", str(built_config)], cwd=root, env=env,
                          capture_output=True, text=True)
    log = proc.stdout + proc.stderr
    (root / "_build" / "build.log").write_text(log)
    bad = [line for line in log.splitlines() if any(b in line for b in BAD)]
    if proc.returncode != 0 or bad:
        sys.stdout.write(log[-6000:])
        print("\nbook build FAILED" + (": " + bad[0] if bad else ""), file=sys.stderr)
        return 1
    # a chapter myst-nb did not find in the cache was executed again, one at a time: correct
    # but slow, and a sign that book_exec reads chapters differently from myst-nb
    for line in log.splitlines():
        if "Executing notebook using" in line:
            print("not taken from the parallel run: " + line)
    warnings = [line for line in log.splitlines() if "WARNING" in line]
    for w in warnings[:20]:
        print(w)
    print(f"book built in {time.time() - t0:.0f} s: {root / '_build' / 'html' / 'index.html'}"
          f" ({len(warnings)} warnings; full log in _build/build.log)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
