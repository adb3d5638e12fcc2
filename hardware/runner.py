"""Run a job against a device, file or directory and return a measurement record.

:func:`run_job` checks the target (:mod:`hardware.safety`), plans the fio runs
(:func:`hardware.jobs.plan`), switches queue settings where asked
(:mod:`hardware.tuning`, always restored), runs fio, trims its JSON and
computes the summary (:mod:`hardware.summary`). The record says what the
device really is (:func:`hardware.probe.describe`) and on what machine.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from . import probe, tuning
from .fio import FioError, fio_path, read_lat_log, run_fio, trim
from .honesty import honest_label
from .jobs import Point, get_job, plan
from .record import MEASURED, save
from .safety import Refused, Target, check_target, check_tunable
from .summary import summarize
from .units import parse_duration_s

__all__ = ["FioError", "default_out", "honest_label", "run_job"]

def default_out(job: str, device: dict) -> Path:
    """``data/measurements/<job>.<kind>.<UTC time>.json`` for a command-line run."""
    from .record import measurements_dir

    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    kind = device.get("kind", "unknown")
    kind = "loop" if kind.startswith("loop-on-") else kind
    return measurements_dir() / f"{job}.{kind}.{stamp}.json"


@contextlib.contextmanager
def _sigterm_raises() -> Iterator[None]:
    """Turn SIGTERM into an exception while a job runs, so settings are restored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise KeyboardInterrupt("stopped by SIGTERM")

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _timeout(job, point: Point) -> float | None:
    if job.targets == ("dir",):
        return None
    rt = parse_duration_s(point.env.get("RUNTIME", "60s"))
    ramp = parse_duration_s(point.env.get("RAMP", "0s"))
    return rt + ramp + 300.0


def run_job(name: str, target: str | os.PathLike, scratch: bool = False,
            params: dict | None = None, out: str | os.PathLike | None = None, *,
            overwrite: bool = False, label: str | None = None,
            progress: Callable[[str], None] | None = None) -> dict:
    """Run job ``name`` against ``target`` and return its measurement record.

    ``params`` overrides the job's defaults (a comma-separated value or a list
    sweeps it). ``scratch`` allows a write job on an existing file or a
    block device that passes every check in :mod:`hardware.safety`.
    ``out`` saves the record there (an existing file is kept unless
    ``overwrite``). ``label`` adds your own words to the honest label.
    Raises :class:`hardware.safety.Refused` before anything runs when the
    target is unsafe, ``ValueError`` for a bad parameter and
    :class:`hardware.fio.FioError` when fio fails.
    """
    job = get_job(name)
    path = os.fspath(target)
    tgt = check_target(path, job=name, writes=job.writes, scratch=scratch, kinds=job.targets)
    points = plan(job, params, tgt)
    if not points:
        raise ValueError(f"{name}: the parameters leave nothing to run")
    tune_dev = check_tunable(tgt) if any(p.tuning for p in points) else None
    if tgt.type == "dir":
        _check_space(tgt, points)
    fio_path()
    if out is not None and Path(out).exists() and not overwrite:
        raise FileExistsError(f"{out} exists; choose another name or pass overwrite=True "
                              "(--overwrite) to replace it")
    say = progress or (lambda msg: None)
    device_before = probe.describe(path) if tgt.exists else None
    machine = probe.machine()
    repeat = int(points[0].values["repeat"])
    runs: list[dict] = []
    started = _dt.datetime.now(_dt.UTC)
    with _sigterm_raises():
        for i, pt in enumerate(points):
            ctx = (tuning.temporarily(f"/dev/{tune_dev}", **pt.tuning) if pt.tuning
                   else contextlib.nullcontext({}))
            with ctx:
                queue = _queue_now(tgt)
                for r in range(repeat):
                    say(f"{name}: point {i + 1}/{len(points)}"
                        + (f", run {r + 1}/{repeat}" if repeat > 1 else "")
                        + f" {_describe_point(pt)}")
                    runs.append(_one_run(job, tgt, path, pt, i, r, queue))
    finished = _dt.datetime.now(_dt.UTC)
    device = probe.describe(path) if device_before is None else device_before
    raw = {"tool": "fio", "version": machine.get("fio_version"), "runs": runs}
    record_params = {p.name: _join(params, p.name, p.default) for p in job.params}
    notes = list(tgt.notes)
    if device.get("kind", "").startswith("loop-on-") and not device.get("loop_direct_io"):
        notes.append("the loop device did not use direct I/O to its file, so the host's page "
                     "cache may have served reads")
    full_label = honest_label(device) + (f" {label}" if label else "")
    record = {
        "schema": MEASURED,
        "job": name,
        "params": record_params,
        "recorded_at": started.isoformat(timespec="seconds"),
        "finished_at": finished.isoformat(timespec="seconds"),
        "label": full_label,
        "simulated": False,
        "machine": machine,
        "device": _device_fields(device),
        "target": {"path": path, "type": tgt.type, "scratch": scratch,
                   "size_bytes": tgt.size_bytes},
        "notes": notes,
        "raw": raw,
        "summary": summarize(name, record_params, raw),
    }
    if out is not None:
        save(record, out, overwrite=overwrite)
    return record


def _check_space(tgt: Target, points: list[Point]) -> None:
    """Refuse a file-system job whose files could fill more than half the free space."""
    need = 0
    for pt in points:
        env = pt.env
        files = int(env.get("NDIRS", 0)) * int(env.get("NFILES", 0))
        created = int(env.get("NJ", 0)) * (int(env.get("CREATES", 0)) + int(env.get("DELETES", 0)))
        need = max(need, (files + created) * 64 * 1024)  # files are at most 64 KiB
    st = os.statvfs(tgt.path)
    free = st.f_bavail * st.f_frsize
    if need > free // 2:
        raise Refused(f"{tgt.path} has {free >> 20} MiB free, and the job's files could take "
                      f"up to {need >> 20} MiB", "free some space, or pass smaller ndirs, nfiles "
                      "or ops")


def _join(params: dict | None, name: str, default: str) -> str:
    if params and name in params:
        v = params[name]
        return ",".join(str(x) for x in v) if isinstance(v, list | tuple) else str(v)
    return default


def _describe_point(pt: Point) -> str:
    own = {k: v for k, v in pt.values.items()
           if k not in ("repeat", "runtime", "ramp", "size") and v != ""}
    return " ".join(f"{k}={v}" for k, v in own.items())


def _queue_now(tgt: Target) -> dict | None:
    if not tgt.device:
        return None
    try:
        q = tuning.current(f"/dev/{tgt.device}")
    except Exception:
        return None
    return {k: q[k] for k in ("scheduler", "read_ahead_kb", "nr_requests")}


def _device_fields(d: dict) -> dict:
    keep = dict(d)
    for key in ("path", "model", "rotational", "scheduler", "read_ahead_kb", "size_bytes",
                "kind"):
        keep.setdefault(key, None)
    return keep


def _one_run(job, tgt: Target, path: str, pt: Point, index: int, rep: int,
             queue: dict | None) -> dict:
    env = dict(pt.env)
    env["TARGET"] = path
    run: dict = {"index": index, "repeat": rep, "point": dict(pt.values),
                 "derived": dict(pt.derived), "env": {}, "queue": queue}
    with tempfile.TemporaryDirectory(prefix="disklab-run-") as logdir:
        env["LOGDIR"] = logdir
        if tgt.type == "dir":
            workdir = Path(path) / f"disklab-{job.name}-{os.getpid()}-{index}-{rep}"
            try:
                _make_fileset(workdir, env)
                if job.setup:
                    setup = get_job(job.setup)
                    report, wall = run_fio(setup.path, env, readonly=False, cwd=str(workdir))
                    run["setup"] = {"job": setup.name, "wall_s": wall, "fio": trim(report)}
                    os.sync()
                report, wall = run_fio(job.path, env, readonly=False, cwd=str(workdir))
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
        else:
            report, wall = run_fio(job.path, env, readonly=not job.writes,
                                   timeout_s=_timeout(job, pt))
        if job.name == "seek-distance":
            logs = sorted(Path(logdir).glob("seek_lat.*.log"))
            if logs:
                offsets, lats = read_lat_log(logs[0])
                run["requests"] = {"offset": offsets, "lat_us": [round(x / 1000, 1) for x in lats]}
    run["env"] = {k: v for k, v in env.items() if k not in ("LOGDIR", "FSB_DIR", "FSB_DIRS")}
    run["wall_s"] = wall
    run["fio"] = trim(report)
    return run


def _make_fileset(workdir: Path, env: dict) -> None:
    ndirs = int(env.get("NDIRS", 1))
    workdir.mkdir()
    dirs = []
    for i in range(ndirs):
        d = workdir / "fileset" / f"d{i:03d}"
        d.mkdir(parents=True)
        dirs.append(str(d))
    for sub in ("mailnew", "maildel", "metanew", "metadel"):
        (workdir / sub).mkdir()
    env["FSB_DIR"] = str(workdir)
    env["FSB_DIRS"] = ":".join(dirs)
