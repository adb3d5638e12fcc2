"""Archived full-mode sweeps: the per-point results of a run too long to repeat at every build.

One experiment's full run can cost hours: seed 003's placement study replays a 90-minute,
two-thirds-of-a-million-request trace 125 times (five replicates of every technique and spacing of
the thesis's Tables 3.2-3.5), about 2.5 CPU-hours. The book cannot run that on every build, and
a number the reader sees must still come from code the tests run. So such an experiment (it sets
``ARCHIVED = True`` and splits its ``reproduce`` into ``points``, ``run_point`` and ``assemble``)
keeps the rows of its sweep in ``data/results/<name>-full-s<seed>.json``, together with the
command, commit and machine that made them. The book assembles its result from those rows with
the current code (targets, intervals and figures are computed at build, never stored), and
``tests/test_results_archive.py`` replays a sample of the points in full and requires the
archived rows bit for bit, so an archive the code no longer produces fails the suite.
``python -m simcore results archive NAME`` remakes it; ``results verify NAME --all`` replays
every point.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, as_completed
from pathlib import Path
from types import ModuleType
from typing import Any

from . import get as get_experiment

REPO = Path(__file__).resolve().parents[2]


def archive_dir() -> Path:
    return REPO / "data" / "results"


def path(name: str, seed: int = 0) -> Path:
    return archive_dir() / f"{name}-full-s{seed}.json"


def is_archived(name: str) -> bool:
    """Whether experiment ``name`` keeps its full run in an archive."""
    return bool(getattr(get_experiment(name), "ARCHIVED", False))


def _normal(value: Any) -> Any:
    """The JSON form of a value (tuples to lists, numpy numbers to floats): what is stored."""
    return json.loads(json.dumps(value, sort_keys=True, default=float))


def _module(name: str) -> ModuleType:
    mod = get_experiment(name)
    for attr in ("points", "run_point", "assemble"):
        if not callable(getattr(mod, attr, None)):
            raise TypeError(f"experiment '{name}' has no {attr}(); an archived experiment needs "
                            "points(), run_point() and assemble()")
    return mod


def load(name: str, seed: int = 0) -> dict | None:
    """The archive of ``name``, or None when there is none or its points are not the ones the
    code would run now (then the archive is stale and the full run must be remade)."""
    mod = _module(name)
    p = path(name, seed)
    if not p.is_file():
        return None
    try:
        data = json.loads(p.read_text())
        stored = [e["point"] for e in data["points"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RuntimeError(f"unreadable archive {p}: {exc}; remake it with "
                           f"python -m simcore results archive {name}") from exc
    if stored != _normal(mod.points(quick=False, seed=seed)):
        return None
    return data


def rows(name: str, seed: int = 0) -> list[dict] | None:
    data = load(name, seed)
    return None if data is None else [e["row"] for e in data["points"]]


def provenance(name: str, seed: int = 0) -> dict | None:
    """Who made the archive, when and how (everything but the rows)."""
    data = load(name, seed)
    return None if data is None else {k: v for k, v in data.items() if k != "points"}


def assemble(name: str, seed: int = 0) -> dict | None:
    """The experiment's full-mode result from its archived rows, computed with today's code."""
    mod = _module(name)
    data = load(name, seed)
    if data is None:
        return None
    result = mod.assemble([e["row"] for e in data["points"]], quick=False, seed=seed)
    result["archive"] = {k: v for k, v in data.items() if k != "points"}
    result["archive"]["file"] = str(path(name, seed).relative_to(REPO))
    return result


def _commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=30, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "simcore"],
                               capture_output=True, text=True, timeout=30).stdout.strip()
        return out + ("+changes" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def build(name: str, seed: int = 0, executor: Executor | None = None,
          progress_file: Path | None = None, log: Callable[[str], None] | None = print) -> Path:
    """Run every point of ``name``'s full sweep and write the archive (atomically).

    Rows done are appended to ``progress_file`` (default: beside the archive, ``.partial``) as
    they finish, so an interrupted run resumes where it stopped. Each point carries its own
    seed, so the rows do not depend on the executor (none: one after another here) or the
    order.
    """
    mod = _module(name)
    pts = _normal(mod.points(quick=False, seed=seed))
    out = path(name, seed)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = progress_file or out.with_name(out.name + ".partial")
    done: dict[str, Any] = {}
    if partial.is_file():
        for line in partial.read_text().splitlines():
            if line.strip():
                e = json.loads(line)
                done[json.dumps(e["point"], sort_keys=True)] = e["row"]
    todo = [p for p in pts if json.dumps(p, sort_keys=True) not in done]
    if log:
        log(f"{name}: {len(pts)} points, {len(todo)} to run")
    t0, cpu0 = time.time(), time.process_time()
    ex = executor
    with partial.open("a") as f:
        if ex is None:
            results = ((p, mod.run_point(**p)) for p in todo)
        else:
            futs = {ex.submit(mod.run_point, **p): p for p in todo}
            results = ((futs[fu], fu.result()) for fu in as_completed(futs))
        for i, (p, row) in enumerate(results, 1):
            row = _normal(row)
            done[json.dumps(p, sort_keys=True)] = row
            f.write(json.dumps({"point": p, "row": row}, sort_keys=True) + "\n")
            f.flush()
            if log:
                log(f"  {i}/{len(todo)} after {time.time() - t0:.0f} s")
    data = {"experiment": name, "mode": "full", "seed": seed,
            "command": f"python -m simcore results archive {name} --seed {seed}",
            "commit": _commit(), "created": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                       f"{platform.python_version()}",
            "points": [{"point": p, "row": done[json.dumps(p, sort_keys=True)]} for p in pts]}
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, sort_keys=True, indent=0)
        fh.write("\n")
    os.replace(tmp, out)
    partial.unlink(missing_ok=True)
    if log:
        log(f"wrote {out} ({time.time() - t0:.0f} s wall, {time.process_time() - cpu0:.0f} s "
            "CPU in this process)")
    return out


def sample(name: str, seed: int = 0) -> list[int]:
    """Indices of the points the test suite replays: the experiment's ``ARCHIVE_SAMPLE``, each
    a set of point fields that must pick exactly one point (a missing field matches None)."""
    mod = _module(name)
    pts = _normal(mod.points(quick=False, seed=seed))
    out = []
    for want in _normal(list(getattr(mod, "ARCHIVE_SAMPLE", ()))):
        hits = [i for i, p in enumerate(pts) if all(p.get(k) == v for k, v in want.items())]
        if len(hits) != 1:
            raise ValueError(f"{name}.ARCHIVE_SAMPLE entry {want} picks {len(hits)} points, "
                             "not one")
        out.append(hits[0])
    return out


def verify(name: str, seed: int = 0, which: Sequence[int] | None = None,
           executor: Executor | None = None) -> list[str]:
    """Replay the archived points ``which`` (indices; all if None) and list every difference.

    Empty list: the code still produces the archived rows bit for bit.
    """
    mod = _module(name)
    data = load(name, seed)
    if data is None:
        return [f"no current archive at {path(name, seed)} (missing, or its points are not "
                f"the sweep the code runs now): python -m simcore results archive {name}"]
    entries = data["points"]
    idx = range(len(entries)) if which is None else list(which)
    wrong = [i for i in idx if not 0 <= i < len(entries)]
    if wrong:
        raise ValueError(f"point indices {wrong} are not in the archive of '{name}' "
                         f"(0 to {len(entries) - 1})")
    problems = []
    if executor is None:
        fresh = [mod.run_point(**entries[i]["point"]) for i in idx]
    else:
        futs = [executor.submit(mod.run_point, **entries[i]["point"]) for i in idx]
        fresh = [fu.result() for fu in futs]
    for i, row in zip(idx, fresh, strict=True):
        got, want = _normal(row), entries[i]["row"]
        if got != want:
            diff = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
            problems.append(f"point {i} {entries[i]['point']}: differs in {', '.join(diff)}")
    return problems
