"""The fio job files, what each measures, and how parameters become fio runs.

Each experiment is one ``*.fio`` file in this directory. Its header comment
says what it is, and the runner reads nothing else about it::

    ; disklab-job: zone-bandwidth                 (the file's name without .fio)
    ; measures: sequential read bandwidth at ...  (one line for `python -m hardware jobs`)
    ; writes: no                                  (yes: needs a new file, a directory or --scratch)
    ; targets: block file                         (any of block, file, dir)
    ; setup: server-layout                        (optional: a job run first, in the same place)
    ; internal: yes                               (optional: not listed, only used as a setup)
    ; param: bs = 1m | request size               (name = default | meaning; repeatable)

The body is an ordinary fio job file. ``${NAME}`` is the parameter ``name``
(upper-cased) or a value the runner derives for this job (``OFFSET``,
``SPACING``...); ``${TARGET}`` is the device or file, ``${LOGDIR}`` a fresh
temporary directory, ``${FSB_DIR}`` and ``${FSB_DIRS}`` the working directory
of a file-system job.

A parameter given as a comma-separated list (``qd=1,4,16``) is swept: the
runner runs fio once per combination of the listed values (a *point*).
Every job also takes ``repeat`` (runs per point), ``scheduler``,
``read_ahead_kb`` and ``nr_requests`` (switched for the run and restored
afterwards; block-device targets only), and the block/file jobs take
``runtime``, ``ramp`` (warm-up excluded from the numbers) and ``size`` (the
part of the target used, from its start).

The ramp's default follows from how fio treats ``ramp_time``: fio runs the
workload for that long before it starts counting, and the ramp is lead-in
time added before ``runtime`` (fio's HOWTO, ``ramp_time``). A job that runs
for a fixed time (``time_based``) therefore loses nothing by it, and it gets
:data:`TIMED_RAMP` by default: long enough for the queue to fill, the threads
of a many-stream job to start and the kernel's read-ahead windows to grow,
which would otherwise be averaged into the first seconds. A job that ends at
the end of its region (a single pass, or ``number_ios``) keeps a ramp of 0 s:
its ramp would read the start of the region and leave it out of the numbers
(``test_a_ramp_uses_up_a_single_pass`` in ``tests/test_hardware.py`` shows it
with fio), so it would move what is measured. ``ramp`` can be set on every
job.
"""

from __future__ import annotations

import itertools
import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..units import fmt_size, parse_size

__all__ = [
    "COMMON_PARAMS",
    "JOB_DIR",
    "TIMED_RAMP",
    "JobFileError",
    "JobInfo",
    "Param",
    "Point",
    "get_job",
    "list_jobs",
    "load_job",
    "plan",
]

JOB_DIR = Path(__file__).resolve().parent
TUNING_PARAMS = ("scheduler", "read_ahead_kb", "nr_requests")
RUNNER_VARS = {"TARGET", "LOGDIR", "FSB_DIR", "FSB_DIRS"}
_HEADER_KEYS = {"disklab-job", "measures", "writes", "targets", "param", "setup", "internal"}


class JobFileError(ValueError):
    """A job file's header or body is malformed (names the file, line and fix)."""

    def __init__(self, path: Path | str, line: int, message: str):
        self.path, self.line = str(path), line
        super().__init__(f"{path}:{line}: {message}")


@dataclass(frozen=True)
class Param:
    """One parameter of a job: its name, default value (text, as fio spells it) and meaning."""

    name: str
    default: str
    help: str

    @property
    def env(self) -> str:
        return self.name.upper()


@dataclass(frozen=True)
class JobInfo:
    """A job file's header: what the job measures and what it needs."""

    name: str
    measures: str
    writes: bool
    targets: tuple[str, ...]
    params: tuple[Param, ...]
    path: Path
    setup: str | None = None
    internal: bool = False

    @property
    def defaults(self) -> dict[str, str]:
        return {p.name: p.default for p in self.params}

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def line(self) -> str:
        """``name  what it measures  read-only|WRITES`` for ``python -m hardware jobs``."""
        return f"{self.name}\t{self.measures}\t{'writes' if self.writes else 'read-only'}"


COMMON_PARAMS = (
    Param("repeat", "1", "runs per point (the summary gives their mean, min and max)"),
    Param("scheduler", "", "I/O scheduler for the run (none, mq-deadline, bfq, kyber); "
          "restored afterwards; block devices only"),
    Param("read_ahead_kb", "", "read-ahead window in KiB for the run; restored afterwards"),
    Param("nr_requests", "", "request-queue size for the run; restored afterwards"),
)
RAW_PARAMS = (
    Param("runtime", "5s", "time limit of each fio run"),
    Param("ramp", "0s", "warm-up before fio starts counting (ramp_time); 0s by default "
          "because this job ends at the end of its region, which a ramp would partly use up"),
    Param("size", "100%", "the part of the target used, from its start (bytes or percent)"),
)
TIMED_RAMP = "2s"  # the default ramp of a time_based job (see the module's docstring)
TIMED_RAMP_PARAM = Param("ramp", TIMED_RAMP, "warm-up before fio starts counting (ramp_time), "
                         "added before runtime")
_TIME_BASED = re.compile(r"^\s*time_based\s*(=\s*(1|true|yes))?\s*$", re.IGNORECASE)


@dataclass
class Point:
    """One fio run to make: the parameter values, fio's environment and queue settings."""

    values: dict[str, str]
    env: dict[str, str]
    tuning: dict[str, str | int] = field(default_factory=dict)
    derived: dict[str, int | float | str] = field(default_factory=dict)


# -- loading ---------------------------------------------------------------------------------

def load_job(path: Path | str) -> JobInfo:
    """Read and check one job file's header and ``${...}`` references."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise JobFileError(path, 0, f"cannot read the job file ({exc.strerror})") from exc
    lines = text.splitlines()
    head, params, body_start = _read_header(path, lines)
    name, writes, targets = _check_header(path, head)
    all_params = _with_common_params(params, targets, lines, body_start)
    known = {p.env for p in all_params} | RUNNER_VARS | set(DERIVED_VARS.get(name, ()))
    if body_start is None:
        raise JobFileError(path, len(lines), "the job file has no fio sections")
    _check_references(path, lines, body_start, name, known)
    return JobInfo(name, head["measures"], writes, targets, all_params, path,
                   head.get("setup"), head.get("internal", "no").lower() == "yes")


def _read_header(path: Path, lines: list[str]) -> tuple[dict[str, str], list[Param], int | None]:
    """The ``; key: value`` lines before the first fio line, the job's own parameters, and
    the (1-based) number of that first line (None when there is none)."""
    head: dict[str, str] = {}
    params: list[Param] = []
    for i, line in enumerate(lines, 1):
        s = line.strip()
        if not s:
            continue
        if not s.startswith(";"):
            return head, params, i
        m = re.match(r";\s*([a-z-]+):\s*(.*)$", s)
        if not m or m.group(1) not in _HEADER_KEYS:
            continue  # free comment text
        key, value = m.group(1), m.group(2).strip()
        if key == "param":
            params.append(_param_line(path, i, value))
        else:
            head[key] = value
    return head, params, None


def _param_line(path: Path, i: int, value: str) -> Param:
    pm = re.match(r"([a-z_][a-z0-9_]*)\s*=\s*([^|]*?)\s*(?:\|\s*(.*))?$", value)
    if not pm:
        raise JobFileError(path, i, "a parameter line reads '; param: name = default | meaning'")
    return Param(pm.group(1), pm.group(2), (pm.group(3) or "").strip())


def _check_header(path: Path, head: dict[str, str]) -> tuple[str, bool, tuple[str, ...]]:
    """The job's name, whether it writes, and its target types; JobFileError if malformed."""
    for key in ("disklab-job", "measures", "writes", "targets"):
        if key not in head:
            raise JobFileError(path, 1, f"the header has no '; {key}: ...' line")
    name = head["disklab-job"]
    if name != path.stem:
        raise JobFileError(path, 1, f"the job is called '{name}' but the file is '{path.name}' "
                           f"(rename one so they match)")
    writes = head["writes"].lower()
    if writes not in ("yes", "no"):
        raise JobFileError(path, 1, f"'writes: {head['writes']}' must be yes or no")
    targets = tuple(head["targets"].split())
    if not targets or not set(targets) <= {"block", "file", "dir"}:
        raise JobFileError(path, 1, f"'targets: {head['targets']}' must list block, file or dir")
    return name, writes == "yes", targets


def _with_common_params(params: list[Param], targets: tuple[str, ...], lines: list[str],
                        body_start: int | None) -> tuple[Param, ...]:
    """The job's own parameters, then the common ones it does not redefine (a time_based
    block/file job ramps by default, see the module's docstring)."""
    own = {p.name for p in params}
    common = list(COMMON_PARAMS)
    if set(targets) & {"block", "file"}:
        timed = body_start is not None and any(
            _TIME_BASED.match(line) for line in lines[body_start - 1:])
        common += [TIMED_RAMP_PARAM if timed and p.name == "ramp" else p for p in RAW_PARAMS]
    return tuple(params) + tuple(p for p in common if p.name not in own)


def _check_references(path: Path, lines: list[str], body_start: int, name: str,
                      known: set[str]) -> None:
    """Every ``${VAR}`` in the fio body is a parameter or a runner value; JobFileError if not."""
    for i, line in enumerate(lines, 1):
        if i < body_start or line.lstrip().startswith((";", "#")):
            continue
        for var in re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", line):
            if var not in known:
                raise JobFileError(path, i, f"${{{var}}} is neither a parameter of '{name}' "
                                   "nor a value the runner provides "
                                   f"({', '.join(sorted(known))})")


_CACHE: dict[str, JobInfo] = {}


def _all_jobs() -> dict[str, JobInfo]:
    if not _CACHE:
        for path in sorted(JOB_DIR.glob("*.fio")):
            job = load_job(path)
            _CACHE[job.name] = job
    return _CACHE


def list_jobs(include_internal: bool = False) -> list[JobInfo]:
    """Every job the labs can run, by name."""
    return [j for j in _all_jobs().values() if include_internal or not j.internal]


def get_job(name: str) -> JobInfo:
    """One job by name; a ValueError lists the names when it does not exist."""
    jobs = _all_jobs()
    if name not in jobs:
        names = ", ".join(j.name for j in list_jobs())
        raise ValueError(f"no job called '{name}'; the jobs are: {names}")
    return jobs[name]


# -- parameters and points -------------------------------------------------------------------

def _values(name: str, value) -> list[str]:
    if isinstance(value, list | tuple):
        vals = [str(v).strip() for v in value]
    else:
        vals = [v.strip() for v in str(value).split(",")]
    vals = [v for v in vals if v != ""] or [""]
    return vals


def plan(job: JobInfo, params: dict | None, target) -> list[Point]:
    """The fio runs ``job`` needs for ``params`` on a checked ``target`` (a safety.Target).

    Raises ValueError naming the parameter when a value is unknown or does
    not fit the target.
    """
    params = dict(params or {})
    for key in params:
        if key not in job.defaults:
            raise ValueError(f"'{key}' is not a parameter of {job.name}; its parameters are: "
                             + ", ".join(p.name for p in job.params))
    merged = {p.name: _values(p.name, params.get(p.name, p.default)) for p in job.params}
    repeat = merged["repeat"]
    if len(repeat) != 1 or not repeat[0].isdigit() or int(repeat[0]) < 1:
        raise ValueError(f"repeat must be one whole number >= 1, not {','.join(repeat)}")
    names = [p.name for p in job.params]
    combos = [dict(zip(names, combo, strict=True))
              for combo in itertools.product(*(merged[n] for n in names))]
    if len(combos) > 1000:
        raise ValueError(f"{len(combos)} points is too many for one run; sweep fewer values")
    derive = _DERIVE.get(job.name, _no_derive)
    points, seen = [], set()
    for combo in combos:
        tuning: dict[str, str | int] = {}
        for key in TUNING_PARAMS:
            v = combo.get(key, "")
            if v != "":
                if key == "scheduler":
                    tuning[key] = v
                else:
                    if not v.isdigit():
                        raise ValueError(f"{key} must be a whole number, not '{v}'")
                    tuning[key] = int(v)
        env = {p.env: combo[p.name] for p in job.params if p.name not in TUNING_PARAMS}
        derived: dict = {}
        derive(combo, env, derived, target)
        key = tuple(sorted(env.items())) + tuple(sorted(tuning.items()))
        if key in seen:
            continue  # two values that mean the same run on this target (e.g. clamped sizes)
        seen.add(key)
        points.append(Point(combo, env, tuning, derived))
    return points


def _region(combo: dict, target) -> int:
    if target.size_bytes is None:
        raise ValueError(f"the size of {target.path} is not known")
    region = parse_size(combo.get("size", "100%"), target.size_bytes)
    region = min(region, target.size_bytes)
    if region <= 0:
        raise ValueError(f"size={combo.get('size')} leaves nothing of {target.path} to use")
    return region


def _size(combo: dict, name: str, whole: int | None = None) -> int:
    try:
        n = parse_size(combo[name], whole)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    if n <= 0:
        raise ValueError(f"{name} must be more than 0 bytes, not '{combo[name]}'")
    return n


def _int(combo: dict, name: str, minimum: int = 1) -> int:
    try:
        n = int(combo[name])
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not '{combo[name]}'") from None
    if n < minimum:
        raise ValueError(f"{name} must be at least {minimum}, not {n}")
    return n


def _align(n: int, unit: int) -> int:
    return n // unit * unit


def _no_derive(combo, env, derived, target) -> None:
    return None


def _zone(combo, env, derived, target) -> None:
    region = _region(combo, target)
    bs = _size(combo, "bs")
    unit = 1 << 20 if region >= 64 << 20 else 4096
    span = max(bs, _align(min(_size(combo, "span"), region), bs))
    if span > region:
        raise ValueError(f"span={combo['span']} and bs={combo['bs']} do not fit in "
                         f"{fmt_size(region)} of {target.path}")
    pct = float(combo["offset_pct"])
    if not 0 <= pct <= 100:
        raise ValueError(f"offset_pct must be between 0 and 100, not {combo['offset_pct']}")
    off = min(_align(int(region * pct / 100), unit), _align(region - span, unit))
    env.update(OFFSET=str(off), SPAN=str(span))
    derived.update(offset_bytes=off, span_bytes=span, region_bytes=region)


def _seek(combo, env, derived, target) -> None:
    region = _region(combo, target)
    bs = _size(combo, "bs")
    window = _align(min(_size(combo, "window", region), region), bs)
    if window < bs:
        raise ValueError(f"window={combo['window']} is smaller than one request (bs={combo['bs']})")
    seed = _int(combo, "seed", 0)
    rng = random.Random(f"{seed}:{window}")
    off = rng.randrange(0, (region - window) // bs + 1) * bs
    ios = min(_int(combo, "ios"), window // bs)
    env.update(WINDOW=str(window), OFFSET=str(off), IOS=str(ios))
    derived.update(window_bytes=window, offset_bytes=off, ios_used=ios, region_bytes=region)


def _qd(combo, env, derived, target) -> None:
    bs = _size(combo, "bs")
    region = _align(_region(combo, target), bs)
    _int(combo, "qd")
    env.update(SIZE=str(region))
    derived.update(region_bytes=region)


def _bs(combo, env, derived, target) -> None:
    region = _region(combo, target)
    bs = _size(combo, "bs")
    boundary = _size(combo, "boundary")
    _int(combo, "qd")
    if combo["align"] not in ("aligned", "unaligned"):
        raise ValueError(f"align must be aligned or unaligned, not '{combo['align']}'")
    mis = combo["misalign"]
    if mis == "lbs":
        lbs = 512
        if target.device:
            from .. import _sys
            lbs = _sys.read_int(_sys.queue_dir(target.device) / "logical_block_size") or 512
        misalign = lbs
    else:
        misalign = _size(combo, "misalign")
    if misalign % boundary == 0:
        raise ValueError(f"misalign={mis} is a multiple of boundary={combo['boundary']}, so "
                         "'unaligned' requests would be aligned")
    offset = misalign if combo["align"] == "unaligned" else 0
    usable = _align(region - offset, boundary)
    if usable < bs:
        raise ValueError(f"bs={combo['bs']} does not fit in {fmt_size(region)} of {target.path}")
    env.update(OFFSET=str(offset), REGION=str(usable), MISALIGN=str(misalign))
    derived.update(offset_bytes=offset, misalign_bytes=misalign, boundary_bytes=boundary,
                   bs_bytes=bs, region_bytes=usable)


def _streams(combo, env, derived, target) -> None:
    region = _region(combo, target)
    bs = _size(combo, "bs")
    n = _int(combo, "streams")
    unit = 1 << 20 if region // n >= 16 << 20 else bs
    spacing = _align(region // n, unit)
    if spacing < bs:
        raise ValueError(f"{n} streams of bs={combo['bs']} do not fit in {fmt_size(region)}")
    if combo["direct"] not in ("0", "1"):
        raise ValueError(f"direct must be 0 or 1, not '{combo['direct']}'")
    env.update(SPACING=str(spacing))
    derived.update(spacing_bytes=spacing, region_bytes=region)


def _seq_read(combo, env, derived, target) -> None:
    bs = _size(combo, "bs")
    region = _align(_region(combo, target), bs)
    env.update(SIZE=str(region))
    derived.update(region_bytes=region)


def _seq_write(combo, env, derived, target) -> None:
    bs = _size(combo, "bs")
    if target.size_bytes is None or target.type == "file":
        size = _size(combo, "size", target.size_bytes)
        if target.type == "block":
            size = min(size, target.size_bytes)
    else:
        size = min(_size(combo, "size", target.size_bytes), target.size_bytes)
    size = _align(size, bs)
    if size < bs:
        raise ValueError(f"size={combo['size']} is smaller than one request (bs={combo['bs']})")
    env.update(SIZE=str(size))
    derived.update(region_bytes=size)


def _cpu(combo, env, derived, target) -> None:
    region = _region(combo, target)
    bs = _size(combo, "bs")
    span = _align(min(_size(combo, "span", region), region), bs)
    if combo["direct"] not in ("0", "1"):
        raise ValueError(f"direct must be 0 or 1, not '{combo['direct']}'")
    qd = _int(combo, "qd")
    if combo["engine"] in ("psync", "sync", "pvsync", "pvsync2", "vsync"):
        qd = 1
    env.update(SPAN=str(span), QD=str(qd))
    derived.update(span_bytes=span, qd_used=qd)


def _threads(combo) -> int:
    v = combo["nj"].lower().replace(" ", "")
    m = re.match(r"^(\d+)x?cpus$", v)
    if m:
        return int(m.group(1)) * (os.cpu_count() or 1)
    return _int(combo, "nj")


def _server(combo, env, derived, target) -> None:
    nj = _threads(combo)
    ndirs, nfiles, ops = _int(combo, "ndirs"), _int(combo, "nfiles"), _int(combo, "ops")
    reads, creates = round(ops * 0.4), round(ops * 0.4)
    deletes = ops - reads - creates
    env.update(NJ=str(nj), NDIRS=str(ndirs), NFILES=str(nfiles), OPS=str(ops),
               READS=str(max(reads, 1)), CREATES=str(max(creates, 1)),
               DELETES=str(max(deletes, 1)), APPENDS=str(max(creates, 1)),
               APPEND_BYTES=str(max(creates, 1) * 4096))
    if "direct" in combo and combo["direct"] not in ("0", "1"):
        raise ValueError(f"direct must be 0 or 1, not '{combo['direct']}'")
    derived.update(threads=nj, files=ndirs * nfiles)


def _server_metadata(combo, env, derived, target) -> None:
    _server(combo, env, derived, target)
    nj, ndirs, nfiles = int(env["NJ"]), int(env["NDIRS"]), int(env["NFILES"])
    if nj > ndirs:
        raise ValueError(f"server-metadata: nj={nj} threads need at least as many directories "
                         f"(ndirs={ndirs}): appender j appends to the files in directory j")
    if int(env["APPENDS"]) > nfiles:
        raise ValueError(f"server-metadata: each thread appends to {env['APPENDS']} files "
                         f"(40% of ops={env['OPS']}) but a directory holds only nfiles={nfiles}")


DERIVED_VARS: dict[str, tuple[str, ...]] = {
    "zone-bandwidth": ("OFFSET", "SPAN"),
    "seek-distance": ("WINDOW", "OFFSET", "IOS"),
    "qd-sweep": ("SIZE",),
    "bs-sweep": ("OFFSET", "REGION", "MISALIGN"),
    "multistream": ("SPACING",),
    "seq-read": ("SIZE",),
    "seq-write": ("SIZE",),
    "cpu-engines": ("SPAN", "QD"),
    "server-layout": (),
    "server-web": ("NJ",),
    "server-file": ("NJ",),
    "server-mail": ("NJ", "READS", "CREATES", "DELETES"),
    "server-metadata": ("NJ", "CREATES", "APPENDS", "APPEND_BYTES", "DELETES"),
}

_DERIVE: dict[str, Callable] = {
    "zone-bandwidth": _zone,
    "seek-distance": _seek,
    "qd-sweep": _qd,
    "bs-sweep": _bs,
    "multistream": _streams,
    "seq-read": _seq_read,
    "seq-write": _seq_write,
    "cpu-engines": _cpu,
    "server-web": _server,
    "server-file": _server,
    "server-mail": _server,
    "server-metadata": _server_metadata,
}
