"""Running fio, trimming its JSON to what a recording needs, and reading numbers out of it.

fio's ``--output-format=json`` report is large (latency histograms, bandwidth
samples, every percentile). :func:`trim` keeps the parts the summaries and a
careful reader need: per job the options, runtime, CPU use, and per
direction the byte and request counts, bandwidth, IOPS and latency (mean,
spread and a few percentiles). :func:`job_metrics` turns one trimmed job
into flat numbers: MB/s (10^6 bytes per second), IOPS, milliseconds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from .units import MB

__all__ = ["FioError", "job_metrics", "read_lat_log", "run_fio", "total_metrics", "trim"]

PERCENTILES = ("1.000000", "5.000000", "50.000000", "90.000000", "95.000000", "99.000000",
               "99.900000")


class FioError(RuntimeError):
    """fio is missing, or it failed (the message gives fio's own last words)."""


def fio_path() -> str:
    path = shutil.which("fio")
    if path is None:
        raise FioError("fio is not installed (Debian/Ubuntu: apt-get install fio)")
    return path


def run_fio(jobfile: Path | str, env: dict[str, str], *, readonly: bool,
            cwd: str | None = None, timeout_s: float | None = None) -> tuple[dict, float]:
    """Run one job file with ``env``; return fio's JSON report and the wall-clock seconds.

    ``readonly`` adds fio's ``--readonly``: fio then refuses to issue any write.
    """
    fio = fio_path()
    with tempfile.TemporaryDirectory(prefix="disklab-fio-") as tmp:
        out = Path(tmp) / "out.json"
        args = [fio, "--output-format=json", f"--output={out}"]
        if readonly:
            args.append("--readonly")
        args.append(str(jobfile))
        full_env = {**os.environ, **{k: str(v) for k, v in env.items()}}
        t0 = time.monotonic()
        try:
            proc = subprocess.run(args, env=full_env, cwd=cwd or tmp, capture_output=True,
                                  text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired as exc:
            raise FioError(f"fio did not finish within {timeout_s:.0f} s and was stopped") from exc
        wall = time.monotonic() - t0
        text = out.read_text() if out.exists() else ""
        if proc.returncode != 0 or not text.strip():
            raise FioError(_last_words(proc.stderr or proc.stdout or text)
                           or f"fio exited with status {proc.returncode}")
        try:
            report = json.loads(text[text.index("{"):])
        except (ValueError, json.JSONDecodeError) as exc:
            raise FioError(f"fio's JSON report could not be read: {exc}") from exc
    errors = [j for j in report.get("jobs", []) if j.get("error")]
    if errors:
        j = errors[0]
        raise FioError(f"fio job '{j.get('jobname')}' failed with error {j.get('error')} "
                       f"({os.strerror(int(j['error']))})")
    return report, wall


def _last_words(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    interesting = [ln for ln in lines if ln.startswith("fio:") or "error" in ln.lower()
                   or "err=" in ln]
    return (interesting or lines or [""])[-1][:300]


def _trim_stats(s: dict, keep_percentiles: bool) -> dict:
    out = {k: s[k] for k in ("io_bytes", "bw_bytes", "iops", "runtime", "total_ios",
                             "short_ios", "drop_ios") if k in s}
    for lat in ("slat_ns", "clat_ns", "lat_ns"):
        if lat in s:
            src = s[lat]
            t = {k: src[k] for k in ("min", "max", "mean", "stddev", "N") if k in src}
            if keep_percentiles and "percentile" in src:
                t["percentile"] = {k: v for k, v in src["percentile"].items()
                                   if k in PERCENTILES}
            out[lat] = t
    return out


def trim(report: dict) -> dict:
    """The parts of a fio JSON report that recordings keep."""
    jobs = []
    for j in report.get("jobs", []):
        t = {k: j[k] for k in ("jobname", "groupid", "error", "elapsed", "job_runtime",
                               "usr_cpu", "sys_cpu", "ctx", "majf", "minf", "job options")
             if k in j}
        for d in ("read", "write", "trim"):
            s = j.get(d) or {}
            if s.get("total_ios") or s.get("io_bytes"):
                t[d] = _trim_stats(s, keep_percentiles=True)
        sync = j.get("sync") or {}
        if sync.get("total_ios"):
            t["sync"] = {"total_ios": sync["total_ios"],
                         "lat_ns": {k: sync["lat_ns"][k] for k in ("min", "max", "mean")
                                    if k in sync.get("lat_ns", {})}}
        jobs.append(t)
    out = {k: report[k] for k in ("fio version", "timestamp", "time", "global options")
           if k in report}
    out["jobs"] = jobs
    if "disk_util" in report:
        out["disk_util"] = report["disk_util"]
    return out


def job_metrics(j: dict) -> dict:
    """Flat numbers of one (trimmed or full) fio job report."""
    out: dict = {"runtime_s": j.get("job_runtime", 0) / 1000.0,
                 "usr_cpu_pct": j.get("usr_cpu", 0.0), "sys_cpu_pct": j.get("sys_cpu", 0.0)}
    for d in ("read", "write"):
        s = j.get(d) or {}
        if not s.get("total_ios"):
            continue
        lat = s.get("lat_ns", {})
        clat = s.get("clat_ns", {})
        pct = clat.get("percentile", {})
        out.update({
            f"{d}_ios": s["total_ios"],
            f"{d}_bytes": s.get("io_bytes", 0),
            f"{d}_mb_s": s.get("bw_bytes", 0) / MB,
            f"{d}_iops": s.get("iops", 0.0),
            f"{d}_lat_mean_ms": lat.get("mean", 0.0) / 1e6,
            f"{d}_lat_max_ms": lat.get("max", 0) / 1e6,
        })
        for key, name in (("50.000000", "p50"), ("99.000000", "p99")):
            if key in pct:
                out[f"{d}_clat_{name}_ms"] = pct[key] / 1e6
    return out


def total_metrics(report: dict) -> dict:
    """Numbers of a whole report: sums of bandwidth, IOPS and CPU over its jobs.

    Latency is the request-weighted mean over jobs; percentiles are kept only
    when there is one job (fio's group reporting merges clones into one).
    """
    jobs = [job_metrics(j) for j in report.get("jobs", [])]
    if len(jobs) == 1:
        return jobs[0]
    out: dict = {"runtime_s": max((m["runtime_s"] for m in jobs), default=0.0),
                 "usr_cpu_pct": sum(m["usr_cpu_pct"] for m in jobs),
                 "sys_cpu_pct": sum(m["sys_cpu_pct"] for m in jobs)}
    for d in ("read", "write"):
        parts = [m for m in jobs if m.get(f"{d}_ios")]
        if not parts:
            continue
        n = sum(m[f"{d}_ios"] for m in parts)
        out.update({
            f"{d}_ios": n,
            f"{d}_bytes": sum(m[f"{d}_bytes"] for m in parts),
            f"{d}_mb_s": sum(m[f"{d}_mb_s"] for m in parts),
            f"{d}_iops": sum(m[f"{d}_iops"] for m in parts),
            f"{d}_lat_mean_ms": sum(m[f"{d}_lat_mean_ms"] * m[f"{d}_ios"] for m in parts) / n,
            f"{d}_lat_max_ms": max(m[f"{d}_lat_max_ms"] for m in parts),
        })
    return out


def read_lat_log(path: Path | str) -> tuple[list[int], list[int]]:
    """Offsets (bytes) and latencies (ns) of every I/O in a fio ``*_lat.N.log`` (log_offset=1)."""
    offsets, lats = [], []
    for line in Path(path).read_text().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 5:
            continue
        lats.append(int(parts[1]))
        offsets.append(int(parts[4]))
    return offsets, lats
