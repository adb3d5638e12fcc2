"""Execute the book's chapters in parallel, before Sphinx reads them.

Sphinx reads the chapters one after another, and myst-nb's ``force`` mode executes each as it is
read, so a build used one core for its longest part. :func:`prepare` executes every chapter
afresh on ``$DISKLAB_JOBS`` processes (default: every core), each in its own kernel, the way
myst-nb does (``jupyter_cache.executors.utils.single_nb_execution``, the chapter's folder as
working directory), and stores the executed notebooks in an empty jupyter-cache. The build then
runs myst-nb in ``cache`` mode on that cache, so Sphinx takes each chapter's outputs from this
build's run. The cache is emptied before and after every build: outputs never outlive the
code that made them (jupyter-cache keys a notebook by its cells only, not by simcore).

Per-chapter times go to ``exec_times.json`` beside the cache: the book's Sphinx extension
(``book/_ext/disklab_sphinx.py``) shows them on the status page, and the next build starts the
longest chapters first.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


@dataclass
class Run:
    """One chapter's execution: the executed notebook, or the error that stopped it."""

    path: str
    nb: Any
    seconds: float
    finished: float
    error: str | None


def chapters(root: Path) -> list[Path]:
    """The table of contents' files that are MyST notebooks (the ones myst-nb executes)."""
    from myst_nb.core.read import is_myst_markdown_notebook

    def files(node: Any) -> list[str]:
        if isinstance(node, dict):
            own = [node[k] for k in ("root", "file") if isinstance(node.get(k), str)]
            return own + [f for v in node.values() for f in files(v)]
        if isinstance(node, list):
            return [f for v in node for f in files(v)]
        return []

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    paths = [root / f"{name}.md" for name in dict.fromkeys(files(toc))]
    return [p for p in paths if p.is_file() and is_myst_markdown_notebook(p.read_text("utf8"))]


def _setenv(env: dict[str, str]) -> None:
    os.environ.update(env)


def _execute(path: str, md_extensions: list[str], timeout: int, allow_errors: bool) -> Run:
    """Read a chapter as myst-nb does and run it in a fresh kernel (in a worker process)."""
    from jupyter_cache.executors.utils import single_nb_execution
    from myst_nb.core.read import read_myst_markdown_notebook
    from myst_parser.config.main import MdParserConfig

    t0 = time.time()
    try:
        config = MdParserConfig(enable_extensions=set(md_extensions))
        nb = read_myst_markdown_notebook(Path(path).read_text("utf8"), config=config,
                                         add_source_map=True, path=path)
        result = single_nb_execution(nb, cwd=str(Path(path).parent), timeout=timeout,
                                     allow_errors=allow_errors, meta_override=True)
    except Exception:  # a kernel that died or would not start: report it like a failed cell
        return Run(path, None, time.time() - t0, time.time(), traceback.format_exc())
    error = None if result.err is None else f"{type(result.err).__name__}: {result.err}"
    return Run(path, result.nb, result.time, time.time(), error)


def prepare(root: Path, cache: Path, config: dict, env: dict[str, str], jobs: int,
            log: Callable[[str], None] = print) -> list[Run]:
    """Execute every chapter into a new jupyter-cache at ``cache``; return the failed runs.

    ``config`` is the book's ``_config.yml``; ``env`` the kernels' environment.
    """
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    times_file = cache.parent / "exec_times.json"
    try:
        before = json.loads(times_file.read_text())
    except (OSError, ValueError):
        before = {}
    shutil.rmtree(cache, ignore_errors=True)
    paths = chapters(root)
    docname = {str(p): p.relative_to(root).with_suffix("").as_posix() for p in paths}
    # longest first (as timed by the last build), so no long chapter starts last
    paths.sort(key=lambda p: -before.get(docname[str(p)], {}).get("runtime", float("inf")))
    execute = config.get("execute", {})
    md_extensions = list(config.get("parse", {}).get("myst_enable_extensions", []))
    args = (md_extensions, int(execute.get("timeout", 30)), bool(execute.get("allow_errors")))
    n = max(1, min(jobs, len(paths)))
    log(f"executing {len(paths)} chapters on {n} processes (DISKLAB_JOBS)")
    runs: list[Run] = []
    with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("spawn"),
                             initializer=_setenv, initargs=(env,)) as pool:
        futures = [pool.submit(_execute, str(p), *args) for p in paths]
        for fut in as_completed(futures):
            run = fut.result()
            runs.append(run)
            log(f"  {docname[run.path]}: {run.seconds:.1f} s"
                + (" FAILED" if run.error else ""))
    db = get_cache(str(cache))
    for run in runs:
        if run.error is None:
            db.cache_notebook_bundle(CacheBundleIn(run.nb, run.path,
                                                   data={"execution_seconds": run.seconds}),
                                     check_validity=False, overwrite=True)
    times = {docname[r.path]: {"runtime": r.seconds, "mtime": r.finished} for r in runs}
    times_file.write_text(json.dumps(times, indent=1, sort_keys=True))
    return [r for r in runs if r.error is not None]
