"""Full-mode experiment results, computed once and cached by a hash of the code and parameters.

The book prints full-mode numbers; the tests must check those same numbers without running the
experiments a second time. So the book build fills this cache first
(``python -m simcore results --fill``, called by ``tools/build_book.py``), every chapter reads
its experiment through :func:`get`, and ``tests/test_results_cache.py`` reads the same files.

A result is stored as ``<dir>/<name>-<full|quick>-s<seed>-<key>.json`` where ``key`` hashes the
experiment's name, mode and seed, every ``.py`` file of :mod:`simcore` and every file under
``data/disks`` (the profiles the experiments load), every archived full run under
``data/results`` (:mod:`.archive`), and the Python and NumPy versions. Any
change to the simulator or a profile gives a new key, so a stale result is never read; old
files are simply left behind (``_build`` is disposable). The directory is ``$DISKLAB_RESULTS``
if set, else ``_build/results`` in the repository.

Side runs: a chapter may also show another function of an experiment's module (a sensitivity
run, say ``placement.dwell_sweep``). :func:`side` caches those the same way, as
``<dir>/<name>.<function>-<key>.json`` with the function's name and keyword arguments in the
key; a module lists the side runs its chapter shows in ``SIDE_RUNS`` (pairs of function name
and keyword arguments), and :func:`fill` computes them with the experiment, so the book build
reads them instead of running them again.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import multiprocessing
import os
import sys
import tempfile
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import archive, names
from . import get as get_experiment

PACKAGE = Path(__file__).resolve().parent.parent
REPO = PACKAGE.parent


@lru_cache(maxsize=1)
def code_hash() -> str:
    """SHA-256 over simcore's Python sources, the disk profiles and the archived full runs
    (name and content)."""
    from ..disk.profile_loader import disk_dir

    h = hashlib.sha256()
    files = [(str(p.relative_to(PACKAGE)), p) for p in sorted(PACKAGE.rglob("*.py"))
             if "__pycache__" not in p.parts]
    if disk_dir().is_dir():
        files += [(f"disks/{p.name}", p) for p in sorted(disk_dir().glob("*.toml"))]
    if archive.archive_dir().is_dir():
        files += [(f"results/{p.name}", p) for p in sorted(archive.archive_dir().glob("*.json"))]
    for name, p in files:
        h.update(name.encode())
        h.update(b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    h.update(f"python {sys.version_info[:2]} numpy {np.__version__}".encode())
    return h.hexdigest()


def key(name: str, quick: bool = False, seed: int = 0) -> str:
    """The cache key of one experiment run: 16 hex digits."""
    spec = json.dumps({"name": name, "quick": bool(quick), "seed": int(seed),
                       "code": code_hash()}, sort_keys=True)
    return hashlib.sha256(spec.encode()).hexdigest()[:16]


def cache_dir() -> Path:
    env = os.environ.get("DISKLAB_RESULTS")
    return Path(env) if env else REPO / "_build" / "results"


def path(name: str, quick: bool = False, seed: int = 0) -> Path:
    mode = "quick" if quick else "full"
    return cache_dir() / f"{name}-{mode}-s{seed}-{key(name, quick, seed)}.json"


def load(name: str, quick: bool = False, seed: int = 0) -> dict | None:
    """The cached result for the current code, or None."""
    get_experiment(name)  # a clear error for an unknown name
    p = path(name, quick, seed)
    if not p.is_file():
        return None
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError) as exc:
        raise RuntimeError(f"unreadable cached result {p}: {exc}; delete it") from exc


def store(name: str, result: dict, quick: bool = False, seed: int = 0) -> Path:
    """Write ``result`` atomically (a temporary file renamed into place)."""
    p = path(name, quick, seed)
    _write(p, result)
    return p


def _write(p: Path, result: dict, sort_keys: bool = True) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(result, sort_keys=sort_keys, default=float)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, p)


def get(name: str, quick: bool = False, seed: int = 0, executor: Executor | None = None) -> dict:
    """The experiment's result: from the cache when the code has not changed, else run and stored
    (``executor``: where its sweep runs, see :func:`fill`; the numbers do not depend on it).

    The stored form is JSON, so tuples come back as lists; chapters and tests read only that
    form, the one ``reproduce --json`` prints.
    """
    cached = load(name, quick, seed)
    if cached is not None:
        return cached
    if not quick and archive.is_archived(name):
        # hours of work: never started behind a reader's back (a book build, a test)
        result = archive.assemble(name, seed)
        if result is None:
            raise RuntimeError(
                f"{name}: no current archive of its full run at {archive.path(name, seed)} "
                "(missing, or its points are not the sweep the code runs now). Remake it with "
                f"python -m simcore results archive {name} (hours on one machine) and commit "
                "it, or run the sweep yourself: python -m simcore reproduce " + name)
    else:
        result = _reproduce(name, quick, seed, executor)
    store(name, result, quick, seed)
    return json.loads(path(name, quick, seed).read_text())


def _reproduce(name: str, quick: bool, seed: int, executor: Executor | None) -> dict:
    """``reproduce`` of experiment ``name``: its sweep's points on ``executor`` when it takes
    one, else the whole run as one task there (or here, without an executor)."""
    fn = get_experiment(name).reproduce
    if executor is None:
        return fn(quick=quick, seed=seed)
    if _takes_executor(fn):
        return fn(quick=quick, seed=seed, executor=executor)
    return executor.submit(_reproduce, name, quick, seed, None).result()


def _takes_executor(fn) -> bool:
    """Whether a run hands its sweep's points to an ``executor`` it is given."""
    return "executor" in inspect.signature(fn).parameters


def side_key(name: str, function: str, params: dict) -> str:
    """The cache key of one side run: 16 hex digits over the experiment, the function, its
    keyword arguments and :func:`code_hash`."""
    spec = json.dumps({"name": name, "side": function, "params": params, "code": code_hash()},
                      sort_keys=True, default=str)
    return hashlib.sha256(spec.encode()).hexdigest()[:16]


def side_path(name: str, function: str, **params) -> Path:
    return cache_dir() / f"{name}.{function}-{side_key(name, function, params)}.json"


def side(name: str, function: str, executor: Executor | None = None, **params) -> dict:
    """``function(**params)`` of experiment ``name``'s module: from the cache when the code has
    not changed, else run and stored (the JSON form, as :func:`get`, keys in the function's
    order, since a chapter may lay its rows out in that order). ``executor``, as for
    :func:`get`, is not a parameter of the run: it is not in the key."""
    mod = get_experiment(name)
    fn = getattr(mod, function)
    p = side_path(name, function, **params)
    if p.is_file():
        try:
            return json.loads(p.read_text())
        except (OSError, ValueError) as exc:
            raise RuntimeError(f"unreadable cached result {p}: {exc}; delete it") from exc
    if executor is None:
        result = fn(**params)
    elif _takes_executor(fn):
        result = fn(**params, executor=executor)
    else:
        result = executor.submit(_side_here, name, function, params).result()
    _write(p, result, sort_keys=False)
    return json.loads(p.read_text())


def _side_here(name: str, function: str, params: dict) -> dict:
    return getattr(get_experiment(name), function)(**params)


def side_runs(name: str) -> list[tuple[str, dict]]:
    """The side runs experiment ``name``'s chapter shows (its module's ``SIDE_RUNS``)."""
    return [(fn, dict(params)) for fn, params in getattr(get_experiment(name), "SIDE_RUNS", ())]


def jobs() -> int:
    """How many processes :func:`fill` runs on: ``$DISKLAB_JOBS`` if set, else every core."""
    env = os.environ.get("DISKLAB_JOBS", "").strip()
    if env:
        n = int(env)
        if n < 1:
            raise ValueError(f"DISKLAB_JOBS={env}: give a positive number of processes")
        return n
    return os.cpu_count() or 1


def _missing(which: list[str], quick: bool, seed: int, log
             ) -> tuple[dict[str, Path], list[tuple[str, str, str | None, dict]]]:
    """The cache paths :func:`fill` returns, and the runs missing from the cache as (label,
    experiment, side function or None, its keyword arguments); logs the cached ones."""
    out: dict[str, Path] = {}
    todo: list[tuple[str, str, str | None, dict]] = []
    for name in which:
        out[name] = path(name, quick, seed)
        if load(name, quick, seed) is None:
            todo.append((name, name, None, {}))
        elif log:
            log(f"{name:<18} cached  {out[name].name}")
        for fn, params in side_runs(name) if not quick else ():
            label = f"{name}.{fn}"
            out[label] = side_path(name, fn, **params)
            if not out[label].is_file():
                todo.append((label, name, fn, params))
            elif log:
                log(f"{label:<18} cached  {out[label].name}")
    return out, todo


def _has_sweep(name: str, function: str | None) -> bool:
    """Whether the run takes an executor for its points (else it is one task)."""
    return _takes_executor(getattr(get_experiment(name), function or "reproduce"))


def fill(which: list[str] | None = None, quick: bool = False, seed: int = 0,
         log=print) -> dict[str, Path]:
    """Make sure every experiment (or ``which``) has a cached result, and in full mode its
    side runs (``SIDE_RUNS``) too; returns their paths (side runs as ``name.function``).

    The runs missing from the cache go side by side on one pool of :func:`jobs` processes:
    each run is driven from a thread here and hands its sweep's points to that pool (a run
    without a sweep goes there whole), so the cores stay busy and no pool is nested in
    another. Every point carries its own seed, so the stored results are the ones a run
    one after another (``DISKLAB_JOBS=1``) stores, bit for bit.
    """
    out, todo = _missing(which or names(), quick, seed, log)
    n = min(jobs(), max(len(todo), 1))

    def run(task: tuple[str, str, str | None, dict], executor: Executor | None) -> float:
        t0 = time.time()
        _label, name, fn, params = task
        if fn is None:
            get(name, quick, seed, executor=executor)
        else:
            side(name, fn, executor=executor, **params)
        return time.time() - t0

    finished = []

    def done(task, seconds: float) -> None:
        finished.append(task)
        if log:
            log(f"[{len(finished)}/{len(todo)}] {task[0]:<27} ran in {seconds:.0f} s  "
                f"{out[task[0]].name}")

    if n < 2:
        for task in todo:
            done(task, run(task, None))
        return out
    if log:
        log(f"running {len(todo)} experiments and side runs on {n} processes (DISKLAB_JOBS)")
    # runs without a sweep first: each is one task, which should not wait behind every point
    todo.sort(key=lambda task: _has_sweep(*task[1:3]))
    # forkserver: the pool's processes do not inherit the threads that drive the runs
    ctx = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(max_workers=n, mp_context=ctx) as pool, \
            ThreadPoolExecutor(max_workers=len(todo)) as threads:
        futures = {threads.submit(run, task, pool): task for task in todo}
        try:
            for f in as_completed(futures):
                done(futures[f], f.result())
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return out
