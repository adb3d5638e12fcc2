"""Judging a measured answer by the student's own measurement file (the grader's side).

A hardware question's answer is a number the student took from a measurement
(issue 16, item 6). The grader cannot repeat the measurement, so it judges the
number by the tool output the student attached (:mod:`simcore.labkit.attach`):

1. **integrity**: the attachment is the tool's output. A fio report must parse
   as fio's JSON (``"fio version"``, ``jobs``, no job error) and its own numbers
   must agree with one another: bandwidth = bytes / runtime, IOPS = I/Os /
   runtime, bytes = I/Os x block size, latency min <= mean <= max with rising
   percentiles, and Little's law (iodepth x block size / mean latency =
   bandwidth, within 25 %). Editing one number of a report breaks another;
2. **the job asked for**: the options the question prescribes (engine, pattern,
   block size, offset, depth) are the ones fio reports it ran;
3. **plausibility**: the measured value lies in the range the question allows
   (a served ATA disk of its era reads below its bus rate, a mean latency is at
   least the protocol's round trip);
4. **the answer follows from it**: the number the student answered equals the
   one the grader computes from the report (within ``answer_rel``, default 1 %);
5. optionally, **the truth**: with a ``reference`` (the key's value for the
   student's variant: a mystery disk's true outer-zone rate, the model's
   prediction for the served drive), the measured value must lie within
   ``reference_rel`` of it, the spread the measurement method allows. A
   reference may also be a dict ``{"value": number, "uri_has": text}``: then
   fio's ``uri`` (the served drive's socket) must name the student's own drive
   (``emulated.fio_served(..., tag=token)`` puts the token there), so a
   classmate's report fails even when the two drives happen to be alike. The
   dict may also hold ``uri_has_each`` (kind -> text that kind's ``uri`` must
   hold: the served drive's settings the measuring cell puts in its tag, e.g.
   its queue policy), and ``require`` / ``require_each`` (by kind): fio options
   the *variant* fixes (a queue depth, a track-sized ``bs``, a stream count
   ``numjobs``), checked as step 2 checks the metadata's. A random job's
   ``randseed`` and ``randrepeat`` (the variant's own offsets,
   :func:`simcore.serve.fio.seed_options`) are compared as the numbers fio reads
   (``0x3039`` is ``12345``), and a report without them, or with another seed,
   is refused for not using the student's own seed (the reason names no seed).
   A dict with ``streams_order`` (Lab 6) is predicted for the start order the served
   drive recorded with the report (:func:`simcore.serve.predict.reference_for_order`).

Each judge returns ``(ok, reason)``; the reason never contains an expected
value. A check cell names its judge in its metadata::

    {"disklab": {"question": "q9", "points": 2,
                 "judge": {"name": "fio", "kinds": ["lab1-mystery"], "metric": "read_mb_s",
                           "require": {"ioengine": "nbd", "rw": "read", "bs": "128k"},
                           "range": [1, 100], "reference_rel": 0.07},
                 "reference": "simcore.serve.mystery.truth(V.mystery)['outer_mb_s']"}}

``reference`` is evaluated in the key's run for the student's variant (the
grader's process), never in the student's kernel.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass
from typing import Any, NamedTuple

METRICS = {
    "read_mb_s": "read bandwidth (MB/s, 10^6 bytes per second)",
    "read_iops": "read I/Os per second",
    "read_mean_ms": "mean read latency (ms, from submission to completion)",
    "read_p99_ms": "99th-percentile read completion latency (ms)",
}
COMBINE = ("single", "ratio")
JUDGE_KEYS = {"name", "kinds", "metric", "require", "require_each", "range", "answer_rel",
              "reference_rel", "reference_abs", "combine"}


class MeasurementError(ValueError):
    """A tool output that is not what it claims to be (the reason is for the student)."""


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)?\s*$", re.IGNORECASE)


def size_bytes(text: str) -> int:
    """fio's size notation (``128k``, ``1m``, ``4096``) in bytes (fio's k is 1024)."""
    m = _SIZE.match(str(text))
    if not m:
        raise MeasurementError(f"{text!r} is not a size fio understands")
    mult = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2).lower()]
    return int(float(m.group(1)) * mult)


@dataclass(frozen=True)
class FioRun:
    """One fio job's read side, read from fio's JSON report and checked for integrity."""

    options: dict[str, str]
    version: str
    io_bytes: int
    runtime_ms: float
    total_ios: int
    bw_bytes: float
    iops: float
    lat_mean_ns: float
    p99_ns: float
    bs: int
    iodepth: int
    numjobs: int = 1  # > 1: fio's group_reporting summed this many jobs into one

    @property
    def read_mb_s(self) -> float:
        return self.bw_bytes / 1e6

    @property
    def read_iops(self) -> float:
        return self.iops

    @property
    def read_mean_ms(self) -> float:
        return self.lat_mean_ns / 1e6

    @property
    def read_p99_ms(self) -> float:
        return self.p99_ns / 1e6

    def metric(self, name: str) -> float:
        if name not in METRICS:
            raise KeyError(f"unknown metric {name!r}; known: {sorted(METRICS)}")
        return float(getattr(self, name))


def _close(a: float, b: float, rel: float, slack: float = 0.0) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b)) + slack


def read_fio(raw: str) -> FioRun:
    """fio's JSON report (``--output-format=json``) of one job that read: checked, or an error.

    Lines fio prints before the report (``fio: connected to NBD server``) are
    skipped. The report must hold exactly one job (a measurement per file), or
    one group: ``numjobs`` clones of a job summed by ``group_reporting``, whose
    checks count ``numjobs x iodepth`` requests in flight.
    """
    rep = _fio_report(raw)
    job = _fio_job(rep)
    opts = {str(k).lower(): str(v).strip().lower()
            for k, v in {**(rep.get("global options") or {}),
                         **(job.get("job options") or {})}.items()}
    r = job.get("read")
    side = _read_side(r)
    if side.runtime <= 0 or side.total <= 0 or side.io_bytes <= 0:
        raise MeasurementError("it read nothing (no read I/O, or a zero runtime)")
    problems = _rate_problems(side)
    bs = size_bytes(opts.get("bs", "4k"))
    depth = int(float(opts.get("iodepth", "1")))
    clones = int(float(opts.get("numjobs", "1")))
    problems += _job_problems(side, r, bs, depth, clones)
    if problems:
        raise MeasurementError("its numbers contradict one another (" + "; ".join(problems)
                               + "): it is not an unedited fio report")
    p99 = side.pct.get(99.0, side.cmax)
    return FioRun(opts, str(rep["fio version"]), side.io_bytes, side.runtime, side.total,
                  side.bw, side.iops, side.lmean, p99, bs, depth, max(clones, 1))


def _fio_report(raw: str) -> dict:
    """The JSON object of fio's report, which must name fio's version."""
    if not isinstance(raw, str) or "{" not in raw:
        raise MeasurementError("it is not fio's JSON report (no JSON object in it)")
    try:
        rep = json.loads(raw[raw.index("{"):])
    except ValueError as exc:
        raise MeasurementError(f"it is not valid JSON ({exc.args[0][:80]})") from None
    if not isinstance(rep, dict) or not str(rep.get("fio version", "")).startswith("fio-"):
        raise MeasurementError('it does not look like fio\'s report (no "fio version")')
    return rep


def _fio_job(rep: dict) -> dict:
    """The report's one job, which fio must not have reported an error for."""
    jobs = rep.get("jobs")
    if not isinstance(jobs, list) or len(jobs) != 1 or not isinstance(jobs[0], dict):
        raise MeasurementError("a measurement must be fio's report of exactly one job")
    job = jobs[0]
    if job.get("error", 0) != 0:
        raise MeasurementError(f"fio reported an error ({job.get('error')}) for the job")
    return job


class _ReadSide(NamedTuple):
    """The numbers of a job's ``read`` section (times in ms, latencies in ns)."""

    io_bytes: int
    runtime: float
    total: int
    bw: float
    iops: float
    bw_kib: float
    lmin: float
    lmean: float
    lmax: float
    n: int
    cmin: float
    cmean: float
    cmax: float
    pct: dict[float, float]


def _read_side(r: Any) -> _ReadSide:
    """The read section's numbers, or an error if any of fio's fields is missing."""
    try:
        io_bytes, runtime = int(r["io_bytes"]), float(r["runtime"])
        total, bw, iops, bw_kib = int(r["total_ios"]), float(r["bw_bytes"]), float(r["iops"]), \
            float(r["bw"])
        lat, clat = r["lat_ns"], r["clat_ns"]
        lmin, lmean, lmax, n = (float(lat["min"]), float(lat["mean"]), float(lat["max"]),
                                int(lat["N"]))
        cmin, cmean, cmax = float(clat["min"]), float(clat["mean"]), float(clat["max"])
        pct = {float(k): float(v) for k, v in (clat.get("percentile") or {}).items()}
    except (KeyError, TypeError, ValueError):
        raise MeasurementError("its read section lacks fio's fields (io_bytes, runtime, "
                               "total_ios, bw_bytes, iops, lat_ns, clat_ns)") from None
    return _ReadSide(io_bytes, runtime, total, bw, iops, bw_kib, lmin, lmean, lmax, n, cmin,
                     cmean, cmax, pct)


def _rate_problems(s: _ReadSide) -> list[str]:
    """Where the rates and latencies of the read section disagree with one another."""
    problems = []
    if not _close(s.bw, s.io_bytes * 1000 / s.runtime, 0.02, 1.0):
        problems.append("bandwidth is not bytes over runtime")
    if not _close(s.iops, s.total * 1000 / s.runtime, 0.02, 0.01):
        problems.append("IOPS are not I/Os over runtime")
    if abs(s.bw_kib - s.bw / 1024) > 1.5:
        problems.append("the KiB/s and bytes/s bandwidths disagree")
    if not (s.lmin <= s.lmean <= s.lmax and s.cmin <= s.cmean <= s.cmax
            and s.cmean <= s.lmean * 1.0001 + 1):
        problems.append("latency min, mean and max are out of order")
    vals = [s.pct[k] for k in sorted(s.pct)]
    if any(b < a for a, b in itertools.pairwise(vals)):
        problems.append("latency percentiles do not rise")
    return problems


def _job_problems(s: _ReadSide, r: Any, bs: int, depth: int, clones: int) -> list[str]:
    """Where the read section disagrees with the job's block size, depth and clone count."""
    problems = []
    if clones < 1:
        problems.append("numjobs is not a positive count")
    clones = max(clones, 1)
    # fio 3.33 may count one request's bytes but not the request itself when ramp_time ends
    # as it completes (seen in 1 of 4 one-reader runs of Lab 6): a queue's worth of slack
    if abs(s.io_bytes - s.total * bs) > depth * bs and \
            int(r.get("short_ios", 0)) == 0:
        problems.append("bytes read are not I/Os times the block size")
    if abs(s.n - s.total) > depth * clones:
        problems.append("the latency sample count is not the I/O count")
    little = depth * clones * bs / (s.lmean / 1e9)
    if not _close(little, s.bw, 0.25):
        problems.append("bandwidth, queue depth and mean latency break Little's law")
    return problems


#: the options that let the student's own seed draw a random job's offsets
#: (:func:`simcore.serve.fio.random_offsets`): without them fio reads other offsets than the
#: key's prediction replays
SEED_OPTIONS = ("randrepeat", "randseed")


def _fio_int(text: str) -> int | None:
    """An integer option as fio reads it (decimal, leading zeros and all, or hex after 0x)."""
    t = str(text).strip().lower()
    try:
        return int(t, 16) if t.startswith("0x") else int(t, 10)
    except ValueError:
        return None


def _require(run: FioRun, want: dict[str, Any], kind: str) -> str:
    """Why the run is not the job the question asked for ('' if it is)."""
    for k, v in want.items():
        have = run.options.get(k.lower())
        w = str(v).strip().lower()
        same = have == w
        if not same and have is not None and k.lower() in ("bs", "offset", "size",
                                                           "offset_increment"):
            try:
                same = size_bytes(have) == size_bytes(w)
            except MeasurementError:
                same = False
        if k.lower() in SEED_OPTIONS:
            same = have is not None and _fio_int(have) is not None and \
                _fio_int(have) == _fio_int(w)
            if not same:
                return (f"your {kind} measurement did not use your own fio seed "
                        "(--randrepeat=0 --randseed as the lab's cell sets them), so it read "
                        "other offsets than your drive's prediction: run the lab's cell again")
        if not same:
            return (f"the {kind} measurement is not the job the question asks for "
                    f"({k}={have if have is not None else 'not set'}; the lab's cell sets it)")
    return ""


def judge_fio(got: Any, reference: Any, attachments: list[dict[str, Any]],
              args: dict[str, Any]) -> tuple[bool, str]:
    """The ``fio`` judge: steps 1-5 of the module's description."""
    kinds = list(args.get("kinds") or [])
    runs, why = _attached_runs(kinds, attachments, args)
    if why:
        return False, why
    metric = args.get("metric", "read_mb_s")
    values = [r.metric(metric) for r in runs]
    why = _implausible(kinds, values, metric, args)
    if why:
        return False, why
    measured = values[0] if args.get("combine", "single") == "single" else values[0] / values[1]
    if isinstance(got, bool) or not isinstance(got, int | float):
        return False, "expected a number taken from your measurement"
    if not _close(float(got), measured, float(args.get("answer_rel", 0.01))):
        return False, "your answer does not follow from your attached measurement"
    if isinstance(reference, dict):
        why = _not_the_variants_drive(reference, kinds, runs)
        if why:
            return False, why
        reference = _reference_value(reference, kinds, attachments)
    if reference is not None and _off_reference(measured, reference, args):
        return False, ("your measurement is not within the tolerance of the drive you "
                       "were given (was it measured as the lab says, on your own drive?)")
    return True, ""


def _reference_value(reference: dict, kinds: list, attachments: list[dict[str, Any]]) -> Any:
    """A dict reference's number: its ``value``, or with ``streams_order`` the prediction for
    the start order the served drive recorded with that kind's report (else the first's)."""
    spec = reference.get("streams_order")
    if not isinstance(spec, dict):
        return reference.get("value")
    from ..serve.predict import reference_for_order

    kind = spec.get("kind", kinds[0] if kinds else None)
    att = next((a for a in attachments if a.get("kind") == kind), {})
    return reference_for_order(reference, att.get("served"))


def missing(spec: dict[str, Any], attachments: list[dict[str, Any]]) -> str:
    """Why a judged question has no measurement behind it: the first kind the spec asks for
    that no attachment has ('' when each is attached)."""
    have = {a.get("kind") for a in attachments}
    for kind in spec.get("kinds") or []:
        if kind not in have:
            return (f"no {kind} measurement is attached to your notebook: run the "
                    "measuring cell, then save the notebook with its outputs")
    return ""


def _attached_runs(kinds: list, attachments: list[dict[str, Any]],
                   args: dict[str, Any]) -> tuple[list[FioRun], str]:
    """Steps 1-2: each kind's attached fio run, read and of the job asked for; or why not."""
    by_kind = {a.get("kind"): a for a in attachments}
    runs = []
    for kind in kinds:
        att = by_kind.get(kind)
        if att is None:
            return [], missing({"kinds": [kind]}, attachments)
        if att.get("tool") != "fio":
            return [], f"the {kind} attachment is not fio output"
        try:
            run = read_fio(att["raw"])
        except MeasurementError as exc:
            return [], f"the {kind} measurement was refused: {exc}"
        why = _require(run, {**(args.get("require") or {}),
                             **((args.get("require_each") or {}).get(kind) or {})}, kind)
        if why:
            return [], why
        runs.append(run)
    return runs, ""


def _implausible(kinds: list, values: list[float], metric: str, args: dict[str, Any]) -> str:
    """Step 3: why a measured value is outside the question's range ('' if none is)."""
    lo, hi = (args.get("range") or [0.0, math.inf])[:2]
    for kind, v in zip(kinds, values, strict=True):
        if not lo <= v <= hi:
            return (f"the {kind} measurement's {METRICS[metric]} is not physically "
                    "plausible for the drive the lab serves")
    return ""


def _not_the_variants_drive(reference: dict, kinds: list, runs: list[FioRun]) -> str:
    """Why the runs are not of the student's own drive and variant ('' if they are)."""
    mark = str(reference.get("uri_has", ""))
    if mark and any(mark not in r.options.get("uri", "") for r in runs):
        return ("your measurement is not of the drive you were given (the served "
                "drive's socket does not name it): measure your own with the lab's cell")
    each = reference.get("uri_has_each") or {}
    if any(str(each[k]) not in r.options.get("uri", "")
           for k, r in zip(kinds, runs, strict=True) if k in each):
        return ("a measurement is not of the drive set up as the lab's cell sets it "
                "(the served drive's socket does not name its settings)")
    # then the job options the student's variant prescribes (a size, an offset, a stream count)
    for kind, run in zip(kinds, runs, strict=True):
        why = _require(run, {**(reference.get("require") or {}),
                             **((reference.get("require_each") or {}).get(kind) or {})},
                       kind)
        if why:
            return why
    return ""


def _off_reference(measured: float, reference: Any, args: dict[str, Any]) -> bool:
    """Step 5: whether the measured value is outside the tolerance of the key's reference."""
    if isinstance(reference, bool) or not isinstance(reference, int | float):
        raise TypeError(f"the key's reference is not a number ({type(reference).__name__})")
    tol = max(float(args.get("reference_rel", 0.0)) * abs(float(reference)),
              float(args.get("reference_abs", 0.0)))
    return abs(measured - float(reference)) > tol * (1 + 1e-12)


def explain(spec: dict[str, Any], got: Any, reference: Any,
            attachments: list[dict[str, Any]]) -> str:
    """The numbers a judge compared, in one line, for the instructor (it holds the reference:
    never in a student's feedback): each kind's measured value and drive, the reference and the
    tolerances."""
    by_kind = {a.get("kind"): a for a in attachments}
    parts = []
    metric = spec.get("metric", "read_mb_s")
    for kind in spec.get("kinds") or []:
        att = by_kind.get(kind)
        try:
            run = read_fio(att["raw"]) if att is not None else None
        except (MeasurementError, KeyError, TypeError) as exc:
            parts.append(f"{kind}: unreadable ({exc})")
            continue
        parts.append(f"{kind}: not attached" if run is None else
                     f"{kind}: {metric} {run.metric(metric)!r}, mean latency "
                     f"{run.read_mean_ms:.4f} ms, runtime {run.runtime_ms:g} ms, uri "
                     f"{run.options.get('uri', '?')}"
                     + "".join(f", {o} {run.options[o]}" for o in SEED_OPTIONS
                               if o in run.options))
    kinds = list(spec.get("kinds") or [])
    ref = (_reference_value(reference, kinds, attachments) if isinstance(reference, dict)
           else reference)
    parts.append(f"reference {ref!r} (reference_rel {spec.get('reference_rel', 0)}, "
                 f"reference_abs {spec.get('reference_abs', 0)}, answer_rel "
                 f"{spec.get('answer_rel', 0.01)}, range {spec.get('range')})")
    if isinstance(reference, dict) and reference.get("uri_has"):
        parts.append(f"uri must hold {reference['uri_has']!r}")
    return "; ".join(parts)


JUDGES = {"fio": judge_fio}


def validate(spec: Any, where: str = "") -> dict[str, Any]:
    """A check cell's ``judge`` metadata, checked (raises ValueError naming the field)."""
    if not isinstance(spec, dict):
        raise ValueError(f"{where}: judge must be a dict with a name")
    unknown = set(spec) - JUDGE_KEYS
    if unknown:
        raise ValueError(f"{where}: judge has unknown fields {sorted(unknown)}; known: "
                         f"{sorted(JUDGE_KEYS)}")
    if spec.get("name") not in JUDGES:
        raise ValueError(f"{where}: judge name {spec.get('name')!r} is not one of "
                         f"{sorted(JUDGES)}")
    kinds = spec.get("kinds")
    if not isinstance(kinds, list) or not kinds or not all(isinstance(k, str) for k in kinds):
        raise ValueError(f"{where}: judge kinds must be a non-empty list of attachment kinds")
    combine = spec.get("combine", "single")
    if combine not in COMBINE or (combine == "ratio") != (len(kinds) == 2) or \
            (combine == "single" and len(kinds) != 1):
        raise ValueError(f"{where}: judge combine must be 'single' with one kind or 'ratio' "
                         "with two")
    if spec.get("metric", "read_mb_s") not in METRICS:
        raise ValueError(f"{where}: judge metric must be one of {sorted(METRICS)}")
    rng = spec.get("range", [0, 1e12])
    if not (isinstance(rng, list) and len(rng) == 2 and all(isinstance(x, int | float)
                                                            for x in rng) and rng[0] <= rng[1]):
        raise ValueError(f"{where}: judge range must be [low, high]")
    for name in ("answer_rel", "reference_rel", "reference_abs"):
        v = spec.get(name, 0.0)
        if isinstance(v, bool) or not isinstance(v, int | float) or v < 0:
            raise ValueError(f"{where}: judge {name} must be a number >= 0")
    for name in ("require",):
        if not isinstance(spec.get(name, {}), dict):
            raise ValueError(f"{where}: judge {name} must be a dict of fio options")
    each = spec.get("require_each", {})
    if not isinstance(each, dict) or not all(isinstance(v, dict) for v in each.values()):
        raise ValueError(f"{where}: judge require_each must map kinds to dicts of fio options")
    return spec


def run(spec: dict[str, Any], got: Any, reference: Any,
        attachments: list[dict[str, Any]]) -> tuple[bool, str]:
    return JUDGES[spec["name"]](got, reference, attachments, spec)
